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

#include "arch/host/host_env.h"
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
static int rec_cols = 20; /* the columns of the recording screen in use */

static const char *row(int r)
{
	static char buf[SCREEN_MAX_COLS + 1];
	int n = rec_cols;

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

/* ---- the results page ---- */

static void results_text_page(void)
{
	static struct screen_ops page = { .cols = 40, .rows = 12, .draw = rec_draw };

	screen_results_machine("cpu \"Test CPU\", 2 CPUs, TSC 2000.0 MHz, accel hw, seed 7");
	screen_results_group("fastpath alloc+free pair (cycles):");
	screen_results_row("lock", "100.0", "x1.00");
	screen_results_row("partial", "50.0", "x0.50");
	screen_results_row("remote-atomic", "1234.5", "x12.35");
	screen_set_results("{\"slablab\":\"results\",\"summary\":[]}");
	screen_attach(&page);
	rec_cols = page.cols;
	w("ok 1 x\nearlier text\n");
	screen_show_results("fail");
	/* A text screen: the result at the normal size in the first row, in red. */
	KT_EQ_S("text page: the result in row 0", row(0), "FAIL");
	kt_check(colour_at[0][0] == SCREEN_FAIL && colour_at[0][3] == SCREEN_FAIL,
		 "text page: FAIL is red", "%u %u", colour_at[0][0], colour_at[0][3]);
	KT_EQ_S("text page: the machine line, broken at a space", row(1),
		"cpu \"Test CPU\", 2 CPUs, TSC 2000.0 MHz,");
	KT_EQ_S("text page: the machine line's rest", row(2), "accel hw, seed 7");
	KT_EQ_S("text page: a blank row, then the group's title", row(4),
		"fastpath alloc+free pair (cycles):");
	/* cells of 13 + 1 + 6 + 2 + 6 = 28 columns: one a row in 40 */
	KT_EQ_S("text page: a figure, aligned", row(5), "  lock           100.0  x1.00");
	KT_EQ_S("text page: the next", row(6), "  partial         50.0  x0.50");
	KT_EQ_S("text page: the widest", row(7), "  remote-atomic 1234.5  x12.35");
	KT_EQ_S("text page: nothing else on it", row(8), "");
	/* What is printed after the page goes to the last 3 rows (the last one the cursor's)
	 * and never moves it. */
	w("line a\nline b\nline c\nslablab: fail; halting all CPUs\n");
	KT_EQ_S("text page: printed after, in the status rows", row(9), "line c");
	KT_EQ_S("text page: the status rows scroll by one", row(10),
		"slablab: fail; halting all CPUs");
	KT_EQ_S("text page: the cursor's row", row(11), "");
	kt_check(colour_at[10][0] == SCREEN_FAIL, "text page: the final line red", "%u",
		 colour_at[10][0]);
	KT_EQ_S("text page: the page stays", row(0), "FAIL");
	KT_EQ_S("text page: the table stays", row(7), "  remote-atomic 1234.5  x12.35");
}

static void results_overflow(void)
{
	static struct screen_ops page = { .cols = 64, .rows = 14, .draw = rec_draw };
	char name[40];

	/* 3 figures from before, 12 groups of 4 more: 51 figures, 2 a row in 64 columns */
	for (int g = 0; g < 12; g++) {
		snprintf(name, sizeof(name), "bench%d headline (cycles):", g);
		screen_results_group(name);
		for (int k = 0; k < 4; k++)
			screen_results_row(k ? "partial" : "lock", "10.0", "x1.00");
	}
	screen_attach(&page);
	rec_cols = page.cols;
	screen_show_results("pass");
	KT_EQ_S("overflow: the result", row(0), "PASS");
	KT_EQ_S("overflow: the first group", row(3), "fastpath alloc+free pair (cycles):");
	KT_EQ_S("overflow: two figures a row", row(4),
		"  lock           100.0  x1.00    partial         50.0  x0.50");
	KT_EQ_S("overflow: the next group", row(6), "bench0 headline (cycles):");
	KT_EQ_S("overflow: its figures, 2 a row", row(8), "  partial         10.0  x1.00    partial         10.0  x1.00");
	/* Rows 0..10 hold the page (14 - 3 status rows). A title in row 9 would leave one row
	 * for 4 figures of its own and 40 more: row 9 counts them instead. */
	KT_EQ_S("overflow: the row after the table counts the figures left out", row(9),
		"... 44 more figures: all are in the serial log");
	KT_EQ_S("overflow: then blank", row(10), "");
}

/* The framebuffer page: the result at 4 times the font's size in its colour, the QR code
 * in the top right corner. */
static void results_fb_page(const char *result, u32 want_ink)
{
	enum { W = 1024, H = 768 };
	u32 *mem = malloc(W * H * 4);
	struct screen_fb fb = { (u64)(uintptr_t)mem, W * 4, W, H, 32, 16, 8, 8, 8, 0, 8 };
	const unsigned char *g = font_glyphs[result[0] - 'a' + 'A' - FONT_FIRST];
	char err[160];
	int bad = 0, ink = 0;
	u32 x0 = W, dark = 0, light = 0;

	kt_check(fbcon_init(&fb, err, sizeof(err)) == 0, nm("fb page %s: accepted", result), "%s",
		 err);
	w("some text\n");
	screen_show_results(result);
	/* the first letter's pixels, each 4x4 of the screen */
	for (unsigned int y = 0; y < font_height; y++)
		for (int x = 0; x < 8; x++) {
			bool on = g[y] & (0x80 >> x);

			for (int dy = 0; dy < 4; dy++)
				for (int dx = 0; dx < 4; dx++) {
					u32 v = mem[(y * 4 + dy) * W + x * 4 + dx];

					ink += on;
					if (v != (on ? want_ink : 0))
						bad++;
				}
		}
	kt_check(ink && !bad, nm("fb page %s: the result's first letter 4 times the font's size",
				 result), "%d of %d pixels wrong", bad, (int)font_height * 8 * 16);
	while (x0 > 0 && mem[x0 - 1] == 0xffffff)
		x0--;
	kt_check(x0 >= W / 2 && x0 < W - 100, nm("fb page %s: a white quiet zone at the top right",
						 result), "white from x %u", x0);
	for (u32 x = x0; x < W; x++) {
		u32 v = mem[(W - x0) / 2 * W + x];

		dark += v == 0;
		light += v == 0xffffff;
	}
	kt_check(dark > 20 && light > 20 && dark + light == W - x0,
		 nm("fb page %s: black and white modules across the middle", result),
		 "%u dark %u light of %u", dark, light, W - x0);
	free(mem);
}

/* A screen too small for the QR code at 2 pixels a module: the page without it, said. */
static void results_fb_small(void)
{
	enum { W = 320, H = 240 };
	static char json[1700];
	u32 *mem = malloc(W * H * 4);
	struct screen_fb fb = { (u64)(uintptr_t)mem, W * 4, W, H, 32, 16, 8, 8, 8, 0, 8 };
	const unsigned char *g = font_glyphs['P' - FONT_FIRST];
	char err[160];
	int bad = 0, white = 0;

	/* 1600 bytes: a version 30-odd symbol, over 140 modules a side with its quiet zone */
	memset(json, 'x', sizeof(json));
	memcpy(json, "{\"x\":\"", 6);
	memcpy(json + sizeof(json) - 3, "\"}", 3);
	screen_set_results(json);
	kt_check(fbcon_init(&fb, err, sizeof(err)) == 0, "small fb page: accepted", "%s", err);
	host_console_reset();
	screen_show_results("pass");
	kt_check(host_console_has("does not fit this screen at 2 pixels a module") &&
			 host_console_has("no QR code\n"),
		 "small fb page: the QR code left out, said", "printed \"%s\"", host_console_text());
	for (unsigned int y = 0; y < font_height; y++)
		for (int x = 0; x < 8; x++)
			if (mem[(y * 4 + 1) * W + x * 4 + 1] != (g[y] & (0x80 >> x) ? 0x40e040u : 0))
				bad++;
	for (int i = 0; i < W * H; i++)
		white += mem[i] == 0xffffff;
	kt_check(!bad && !white, "small fb page: PASS at 4x, no white (no QR code) anywhere",
		 "%d pixels of P wrong, %d white", bad, white);
	free(mem);
}

int main(void)
{
	colours();
	text_grid();
	fb_layouts();
	fb_refused();
	results_text_page();
	results_fb_page("pass", 0x40e040);
	results_fb_page("fail", 0xff5050);
	results_overflow();
	results_fb_small();
	return kt_finish();
}
