/* SPDX-License-Identifier: MIT */
/*
 * The screen font: 8 pixels wide, font_height rows, one byte per row (bit 7 the leftmost
 * pixel), for ASCII 0x20..0x7e and then a replacement glyph for every other character.
 * build/gen/font.c holds it, made by tools/font.py from a PSF console font (the Makefile's
 * FONT; Debian's psf-unifont by default); tools/font.py reads screendumps back with the
 * same font.
 */
#ifndef SLABLAB_FONT_H
#define SLABLAB_FONT_H

#define FONT_FIRST 0x20
#define FONT_LAST 0x7e
#define FONT_REPLACEMENT (FONT_LAST - FONT_FIRST + 1) /* index of the replacement glyph */
#define FONT_NR_GLYPHS (FONT_REPLACEMENT + 1)
#define FONT_MAX_HEIGHT 32

extern const unsigned int font_height;
extern const unsigned char font_glyphs[FONT_NR_GLYPHS][FONT_MAX_HEIGHT];

#endif
