// SPDX-License-Identifier: MIT
/*
 * The screen on a linear framebuffer: each cell is a glyph of the font (kernel/font.h), 8
 * pixels wide, drawn in the cell's colours. A pixel is 15 (in 2 bytes), 16, 24 or 32 bits
 * holding red, green and blue at the positions and with the widths the boot loader gives
 * (the multiboot2 framebuffer tag's colour info; GRUB hands over what VBE or GOP reported):
 * 5:5:5, 5:6:5 and 8:8:8 are what PCs use, and any other layout of those sizes is drawn the
 * same way.
 */
#include "kernel/font.h"
#include "kernel/printk.h"
#include "kernel/screen.h"

static volatile u8 *fb_base;
static u32 fb_pitch, fb_bytes; /* bytes per row of pixels, per pixel */
static u32 fg[SCREEN_NR_COLOURS], bg[SCREEN_NR_COLOURS];
static struct screen_ops fb_ops;

/* 8-bit red, green and blue as a pixel of fb's layout (the top bits of each). */
static u32 rgb(const struct screen_fb *fb, u8 r, u8 g, u8 b)
{
	return (u32)(r >> (8 - fb->red_size)) << fb->red_pos |
	       (u32)(g >> (8 - fb->green_size)) << fb->green_pos |
	       (u32)(b >> (8 - fb->blue_size)) << fb->blue_pos;
}

static inline void put_pixel(volatile u8 *p, u32 v)
{
	switch (fb_bytes) {
	case 4:
		*(volatile u32 *)p = v;
		break;
	case 3:
		p[0] = (u8)v;
		p[1] = (u8)(v >> 8);
		p[2] = (u8)(v >> 16);
		break;
	default:
		*(volatile u16 *)p = (u16)v;
		break;
	}
}

static void fb_draw(int col, int row, char ch, enum screen_colour colour)
{
	unsigned int idx = (u8)ch >= FONT_FIRST && (u8)ch <= FONT_LAST ? (u8)ch - FONT_FIRST
									  : FONT_REPLACEMENT;
	const unsigned char *glyph = font_glyphs[idx];
	u32 f = fg[colour], b = bg[colour];

	for (unsigned int y = 0; y < font_height; y++) {
		volatile u8 *p = fb_base + ((u64)row * font_height + y) * fb_pitch +
				 (u64)col * 8 * fb_bytes;
		unsigned int bits = glyph[y];

		for (int x = 0; x < 8; x++, p += fb_bytes)
			put_pixel(p, bits & (0x80u >> x) ? f : b);
	}
}

static u32 black, white;

static void fb_fill(u32 x, u32 y, u32 w, u32 h, int ink)
{
	u32 v = ink == SCREEN_INK_BLACK ? black : ink == SCREEN_INK_WHITE ? white
		: ink >= 0 && ink < SCREEN_NR_COLOURS ? fg[ink] : white;

	for (u32 r = y; r < y + h && r < fb_ops.height; r++)
		for (u32 c = x; c < x + w && c < fb_ops.width; c++)
			put_pixel(fb_base + (u64)r * fb_pitch + (u64)c * fb_bytes, v);
}

static bool field_ok(u8 pos, u8 size, u8 bpp)
{
	return size >= 1 && size <= 8 && pos + size <= bpp;
}

int fbcon_init(const struct screen_fb *fb, char *err, size_t errlen)
{
	/* normal, ok, fail, skip, panic: foreground and background as 8-bit RGB */
	static const u8 colours[SCREEN_NR_COLOURS][2][3] = {
		{ { 0xc0, 0xc0, 0xc0 }, { 0, 0, 0 } },       { { 0x40, 0xe0, 0x40 }, { 0, 0, 0 } },
		{ { 0xff, 0x50, 0x50 }, { 0, 0, 0 } },       { { 0xf0, 0xd0, 0x30 }, { 0, 0, 0 } },
		{ { 0xff, 0xff, 0xff }, { 0xb0, 0x00, 0x00 } },
	};
	u32 bytes = (fb->bpp + 7u) / 8;

	if (fb->bpp != 15 && fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32) {
		snprintf(err, errlen, "a framebuffer of %u bits per pixel; slablab draws 15, 16, "
			 "24 and 32", fb->bpp);
		return -1;
	}
	if (!field_ok(fb->red_pos, fb->red_size, fb->bpp) ||
	    !field_ok(fb->green_pos, fb->green_size, fb->bpp) ||
	    !field_ok(fb->blue_pos, fb->blue_size, fb->bpp)) {
		snprintf(err, errlen, "colour fields red %u:%u green %u:%u blue %u:%u do not fit "
			 "a %u-bit pixel", fb->red_pos, fb->red_size, fb->green_pos, fb->green_size,
			 fb->blue_pos, fb->blue_size, fb->bpp);
		return -1;
	}
	if (fb->width < 8 * 20 || fb->height < font_height * 5 || fb->pitch < fb->width * bytes) {
		snprintf(err, errlen, "a framebuffer of %ux%u pixels with rows of %u bytes is too "
			 "small or inconsistent (at least 160x%u, rows of width x %u bytes)",
			 fb->width, fb->height, fb->pitch, font_height * 5, bytes);
		return -1;
	}
	fb_base = (volatile u8 *)(uptr)fb->addr;
	fb_pitch = fb->pitch;
	fb_bytes = bytes;
	for (int i = 0; i < SCREEN_NR_COLOURS; i++) {
		fg[i] = rgb(fb, colours[i][0][0], colours[i][0][1], colours[i][0][2]);
		bg[i] = rgb(fb, colours[i][1][0], colours[i][1][1], colours[i][1][2]);
	}
	for (u32 y = 0; y < fb->height; y++) /* GRUB's last screen, margins included */
		for (u32 x = 0; x < fb->width; x++)
			put_pixel(fb_base + (u64)y * fb_pitch + x * bytes, bg[SCREEN_NORMAL]);
	fb_ops.cols = (int)MIN(fb->width / 8, (u32)SCREEN_MAX_COLS);
	fb_ops.rows = (int)MIN(fb->height / font_height, (u32)SCREEN_MAX_ROWS);
	fb_ops.draw = fb_draw;
	fb_ops.width = fb->width;
	fb_ops.height = fb->height;
	fb_ops.fill = fb_fill;
	black = rgb(fb, 0, 0, 0);
	white = rgb(fb, 0xff, 0xff, 0xff);
	screen_attach(&fb_ops);
	return 0;
}
