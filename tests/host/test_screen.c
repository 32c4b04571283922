// SPDX-License-Identifier: MIT
/*
 * kernel/screen.c and kernel/fbcon.c with the kernel's font (build/gen/font.c): lines
 * coloured by what they say, wrapping, tabs, the jump scroll keeping the last lines, text
 * written before a screen is attached; pixels of 15, 16, 24 and 32 bits at the positions the
 * colour fields give, read back cell by cell; framebuffers that are refused, with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/font.h"
#include "kernel/screen.h"
#include "tests/host/ktest.h"

/* A test name from a format (kt_check copies it). */
static const char *nm(const char *fmt, const char *arg)
{
	static char buf[160];

	snprintf(buf, sizeof(buf), fmt, arg);
	return buf;
}

/* ---- a text backend that records what it is told to draw ---- */

static char text[SCREEN_MAX_ROWS][SCREEN_MAX_COLS + 1];
static u8 colour_at[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
static int draws;

static void rec_draw(int col, int row, char ch, enum screen_colour colour)
{
	text[row][col] = ch;
	colour_at[row][col] = (u8)colour;
	draws++;
}

static struct screen_ops rec = { .cols = 20, .rows = 6, .draw = rec_draw };

static void w(const char *s)
{
	screen_write(s, strlen(s));
}

/* Row r as shown, trailing blanks cut. */
static const char *row(int r)
{
	static char buf[SCREEN_MAX_COLS + 1];
	int n = rec.cols;

	memcpy(buf, text[r], (size_t)n);
	buf[n] = '\0';
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return buf;
}

static void colours(void)
{
	static const struct {
		const char *line;
		enum screen_colour want;
	} cases[] = {
		{ "ok 1 alloc_free", SCREEN_OK },
		{ "    ok 3 irqsave_restores_state", SCREEN_OK },
		{ "not ok 2 bulk", SCREEN_FAIL },
		{ "    not ok 4 x # SKIP no", SCREEN_FAIL },
		{ "ok 5 x # SKIP needs 2 CPUs", SCREEN_SKIP },
		{ "bench remote: SELF-CHECK FAILED: lost 3", SCREEN_FAIL },
		{ "KERNEL PANIC on cpu 1: BUG_ON(x)", SCREEN_PANIC },
		{ "EXCEPTION: #PF page fault (vector 14) on cpu 1", SCREEN_PANIC },
		{ "slablab: pass; halting all CPUs", SCREEN_OK },
		{ "slablab: fail; halting all CPUs", SCREEN_FAIL },
		{ "slablab: panic; rebooting", SCREEN_FAIL },
		{ "okay, not a result", SCREEN_NORMAL },
		{ "# Totals: pass:3 fail:0 skip:0", SCREEN_NORMAL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum screen_colour c = screen_line_colour(cases[i].line, strlen(cases[i].line));

		kt_check(c == cases[i].want, nm("colour of \"%s\"", cases[i].line),
			 "%d, want %d", c, cases[i].want);
	}
}

static void text_grid(void)
{
	w("early line\n"); /* before any screen: kept, shown on attach */
	screen_attach(&rec);
	KT_EQ_S("text written before attach is shown", row(0), "early line");
	w("ok 1 x\n");
	kt_check(colour_at[1][0] == SCREEN_OK && colour_at[1][5] == SCREEN_OK &&
			 colour_at[0][0] == SCREEN_NORMAL,
		 "an ok line is green, the others normal", "%u %u %u", colour_at[1][0],
		 colour_at[1][5], colour_at[0][0]);
	w("a\tb\n");
	KT_EQ_S("a tab goes to column 8", row(2), "a       b");
	w("not ok 2 0123456789abcdef\n"); /* 26 characters: wraps after 20 */
	KT_EQ_S("a long line fills its row", row(3), "not ok 2 0123456789a");
	KT_EQ_S("and goes on in the next", row(4), "bcdef");
	kt_check(colour_at[3][0] == SCREEN_FAIL && colour_at[4][4] == SCREEN_FAIL,
		 "both rows of a wrapped line take its colour", "%u %u", colour_at[3][0],
		 colour_at[4][4]);
	w("\x01\xe9\n"); /* not printable ASCII: passed on, the backend draws a replacement */
	/* 6 rows: that newline ends row 5 and jumps 3 rows up */
	KT_EQ_S("the jump scroll moves rows up by half the screen", row(0), "not ok 2 0123456789a");
	KT_EQ_S("row 1 after the jump", row(1), "bcdef");
	kt_check(text[2][0] == '\x01' && (u8)text[2][1] == 0xe9, "row 2 after the jump",
		 "%#x %#x", (u8)text[2][0], (u8)text[2][1]);
	KT_EQ_S("the rows below are blank", row(3), "");
	draws = 0;
	w("");
	KT_EQ_U("an empty write draws nothing", draws, 0);
	w("x");
	KT_EQ_U("one character draws one cell", draws, 1);
	w("\n");
}

/* ---- framebuffers ---- */

struct layout {
	const char *name;
	u8 bpp, rp, rs, gp, gs, bp, bs;
	u32 green_ok, red_panic_bg; /* the pixels of SCREEN_OK's ink and SCREEN_PANIC's paper */
};

static u32 pixel(const u8 *p, int bytes)
{
	u32 v = 0;

	memcpy(&v, p, (size_t)bytes);
	return v;
}

static void fb_layout(const struct layout *l)
{
	enum { W = 320, H = 96 };
	int bytes = (l->bpp + 7) / 8;
	u32 pitch = W * bytes + 24; /* rows with padding, as some modes have */
	u8 *mem = malloc(pitch * H);
	struct screen_fb fb = { (u64)(uintptr_t)mem, pitch, W, H, l->bpp, l->rp, l->rs, l->gp,
				l->gs, l->bp, l->bs };
	char err[160];
	int rc, bad = 0;
	u32 ink = 0, paper = 0;

	memset(mem, 0x5a, pitch * H); /* what GRUB left, and the padding */
	rc = fbcon_init(&fb, err, sizeof(err));

	kt_check(rc == 0, nm("%s: accepted", l->name), "%s", err);
	w("ok 1 Ag\n"); /* row 0 after the attach's clear */
	w("KERNEL PANIC on cpu 0: x\n");
	/* Cell (1, 0) is 'k' of "ok": every pixel is ink or paper as the glyph says. */
	for (unsigned int y = 0; y < font_height; y++)
		for (int x = 0; x < 8; x++) {
			u32 v = pixel(mem + y * pitch + (8 + x) * bytes, bytes);
			bool on = font_glyphs['k' - FONT_FIRST][y] & (0x80 >> x);

			if (on)
				ink = v;
			if (on ? v != l->green_ok : v != 0)
				bad++;
		}
	kt_check(!bad && ink == l->green_ok, nm("%s: 'k' of an ok line, green ink", l->name),
		 "%d pixels wrong, ink %#x want %#x", bad, ink, l->green_ok);
	paper = pixel(mem + (font_height + 0) * pitch + 0, bytes); /* row 1, 'K' top-left */
	kt_check(paper == l->red_panic_bg, nm("%s: a panic line on red", l->name),
		 "%#x want %#x", paper, l->red_panic_bg);
	kt_check(pixel(mem + (H - 1) * pitch + (W - 1) * bytes, bytes) == 0 && mem[pitch - 1] == 0x5a,
		 nm("%s: the screen cleared to its margins, the padding after each row left alone",
		    l->name), "%#x",
		 mem[pitch - 1]);
	free(mem);
}

static void fb_layouts(void)
{
	/* ink of SCREEN_OK 0x40e040 and SCREEN_PANIC's paper 0xb00000, packed by hand */
	static const struct layout layouts[] = {
		{ "32 bpp x8r8g8b8", 32, 16, 8, 8, 8, 0, 8, 0x0040e040, 0x00b00000 },
		{ "32 bpp x8b8g8r8", 32, 0, 8, 8, 8, 16, 8, 0x0040e040, 0x000000b0 },
		{ "24 bpp r8g8b8", 24, 16, 8, 8, 8, 0, 8, 0x0040e040, 0x00b00000 },
		{ "24 bpp b8g8r8", 24, 0, 8, 8, 8, 16, 8, 0x0040e040, 0x000000b0 },
		{ "16 bpp r5g6b5", 16, 11, 5, 5, 6, 0, 5, 0x8 << 11 | 0x38 << 5 | 0x8, 0x16 << 11 },
		{ "15 bpp x1r5g5b5", 15, 10, 5, 5, 5, 0, 5, 0x8 << 10 | 0x1c << 5 | 0x8, 0x16 << 10 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		fb_layout(&layouts[i]);
}

static void refuse(const char *name, struct screen_fb fb, const char *needle)
{
	char err[160] = "";
	int rc = fbcon_init(&fb, err, sizeof(err));

	kt_check(rc == -1 && strstr(err, needle), name, "rc %d \"%s\", want \"%s\"", rc, err,
		 needle);
}

static void fb_refused(void)
{
	static u8 mem[4096];
	u64 a = (u64)(uintptr_t)mem;

	refuse("fb: 8 bpp (indexed) is refused", (struct screen_fb){ a, 1024, 1024, 768, 8, 0, 3, 3, 3, 6, 2 },
	       "8 bits per pixel; slablab draws 15, 16, 24 and 32");
	refuse("fb: a colour field past the pixel", (struct screen_fb){ a, 4096, 1024, 768, 32, 28, 8, 8, 8, 0, 8 },
	       "do not fit a 32-bit pixel");
	refuse("fb: a colour field of 0 bits", (struct screen_fb){ a, 4096, 1024, 768, 32, 16, 0, 8, 8, 0, 8 },
	       "red 16:0");
	refuse("fb: a pitch shorter than a row", (struct screen_fb){ a, 2048, 1024, 768, 32, 16, 8, 8, 8, 0, 8 },
	       "too small or inconsistent");
	refuse("fb: smaller than 20x5 characters", (struct screen_fb){ a, 400, 100, 60, 32, 16, 8, 8, 8, 0, 8 },
	       "too small");
}

int main(void)
{
	colours();
	text_grid();
	fb_layouts();
	fb_refused();
	return kt_finish();
}
