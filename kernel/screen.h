/* SPDX-License-Identifier: MIT */
/*
 * The screen console: everything printk writes goes to the serial port and, once the arch
 * has found a screen, to it too (kernel/console.c). kernel/screen.c keeps the text as a grid
 * of character cells with a colour each and hands changed cells to a backend: a linear
 * framebuffer drawn with the font (kernel/fbcon.c) or the PC's VGA text buffer
 * (arch/x86/screen.c). Lines are coloured by what they say: KTAP's "ok" green, "not ok",
 * FAILED and a failed or panicking exit red, "# SKIP" yellow, a panic or an exception
 * report white on red.
 */
#ifndef SLABLAB_SCREEN_H
#define SLABLAB_SCREEN_H

#include "kernel/types.h"

enum screen_colour {
	SCREEN_NORMAL,
	SCREEN_OK,
	SCREEN_FAIL,
	SCREEN_SKIP,
	SCREEN_PANIC,
	SCREEN_NR_COLOURS,
};

#define SCREEN_MAX_COLS 256
#define SCREEN_MAX_ROWS 128

/* What fill paints with: a colour's ink (enum screen_colour), or these. */
enum { SCREEN_INK_BLACK = SCREEN_NR_COLOURS, SCREEN_INK_WHITE };

struct screen_ops {
	int cols, rows; /* at most SCREEN_MAX_COLS x SCREEN_MAX_ROWS */
	void (*draw)(int col, int row, char ch, enum screen_colour colour);
	/*
	 * A framebuffer's: its size in pixels (a cell is 8 x font_height of them, kernel/font.h)
	 * and a rectangle filled with one ink. NULL on a text screen.
	 */
	u32 width, height;
	void (*fill)(u32 x, u32 y, u32 w, u32 h, int ink);
};

/* A linear RGB framebuffer as the boot loader describes it (multiboot2 tag 8). */
struct screen_fb {
	u64 addr; /* where the kernel can write it (the direct map is the identity) */
	u32 pitch, width, height;
	u8 bpp;
	u8 red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/* Starts drawing on ops: clears it and shows what was written before (up to 8 KiB). */
void screen_attach(const struct screen_ops *ops);
void screen_write(const char *s, size_t n);
enum screen_colour screen_line_colour(const char *line, size_t n);

/*
 * The results page. bench/ hands over, once its summary is printed, the machine line, each
 * benchmark's headline (a group) with each scheme's figure and ratio to lock (its rows), and
 * the JSON summary (a "{...}" object). kernel_exit then replaces the screen's text with a
 * page: the result (PASS, FAIL, PANIC) in type scaled 2 to 4 times, green or red; the
 * machine line; the summary table, as many rows of figures side by side as fit; and in the
 * top right corner a QR code (kernel/qrcode.h, level M, else L) of the JSON with "result"
 * added as its first member. The bottom rows stay a small console for what is printed
 * after (the final "slablab: ..." line). A text screen (VGA) gets the same page without the
 * QR code and with the result at the normal size; what does not fit is counted in a last
 * row ("N more figures"). A run with no benchmark summary keeps its text on the screen.
 */
#define SCREEN_PAGE_STATUS_ROWS 3

void screen_set_results(const char *json);
void screen_results_machine(const char *line);
void screen_results_group(const char *title);
void screen_results_row(const char *scheme, const char *value, const char *ratio);
void screen_show_results(const char *result);

/* kernel/fbcon.c: 0 and the screen attached, or -1 with the reason in err. */
int fbcon_init(const struct screen_fb *fb, char *err, size_t errlen);

#endif
