// SPDX-License-Identifier: MIT
/*
 * Which screen the kernel writes to (kernel/screen.h), from GRUB's multiboot2 framebuffer
 * tag: an RGB framebuffer (kernel/fbcon.c) or, when GRUB left the PC in text mode, the VGA
 * text buffer (this file). Without a usable one the kernel says why, once, and the serial
 * port stays the only console.
 */
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/screen.h"

#define VGA_TEXT_BUFFER 0xb8000
#define DIRECT_MAP_END (64ULL << 30) /* boot/entry.asm maps 0..64 GiB */

static volatile u16 *vga;
static struct screen_ops vga_ops;

/* VGA attributes (background << 4 | foreground, CGA palette) for the screen's colours. */
static const u8 vga_attr[SCREEN_NR_COLOURS] = {
	[SCREEN_NORMAL] = 0x07, [SCREEN_OK] = 0x0a, [SCREEN_FAIL] = 0x0c,
	[SCREEN_SKIP] = 0x0e,	[SCREEN_PANIC] = 0x4f,
};

static void vga_draw(int col, int row, char ch, enum screen_colour colour)
{
	u8 c = (u8)ch >= 0x20 && (u8)ch <= 0x7e ? (u8)ch : '?';

	vga[row * vga_ops.cols + col] = (u16)(c | vga_attr[colour] << 8);
}

static void vga_text(u64 addr, u32 cols, u32 rows, const char *why)
{
	vga = (volatile u16 *)(uptr)addr;
	vga_ops.cols = (int)MIN(cols, (u32)SCREEN_MAX_COLS);
	vga_ops.rows = (int)MIN(rows, (u32)SCREEN_MAX_ROWS);
	vga_ops.draw = vga_draw;
	screen_attach(&vga_ops);
	printk("screen: VGA text %ux%u at %#llx (%s)\n", cols, rows, (unsigned long long)addr, why);
}

void screen_init(void)
{
	const struct boot_info *b = &boot_info;
	struct screen_fb fb;
	char err[160];

	if (!b->have_fb) {
		if (b->efi) {
			printk("screen: the boot loader gave no framebuffer, and UEFI has no VGA text "
			       "mode; serial port only\n");
			return;
		}
		vga_text(VGA_TEXT_BUFFER, 80, 25, "no framebuffer from the boot loader");
		return;
	}
	if (b->fb_type == 2) {
		if (b->fb_addr != VGA_TEXT_BUFFER || !b->fb_width || !b->fb_height ||
		    b->fb_width * b->fb_height * 2 > 0x8000) {
			printk("screen: an EGA text screen of %ux%u at %#llx is not the VGA text "
			       "buffer; serial port only\n", b->fb_width, b->fb_height,
			       (unsigned long long)b->fb_addr);
			return;
		}
		vga_text(b->fb_addr, b->fb_width, b->fb_height, "the boot loader left text mode");
		return;
	}
	if (b->fb_type != 1) {
		printk("screen: the framebuffer is of type %u (%s); slablab draws RGB ones only; "
		       "serial port only\n", b->fb_type, b->fb_type ? "unknown" : "indexed colour");
		return;
	}
	if (!b->fb_addr || b->fb_addr + (u64)b->fb_pitch * b->fb_height > DIRECT_MAP_END) {
		printk("screen: the framebuffer at %#llx (%u rows of %u bytes) is outside the "
		       "direct map (0..64 GiB); serial port only\n", (unsigned long long)b->fb_addr,
		       b->fb_height, b->fb_pitch);
		return;
	}
	fb = (struct screen_fb){
		.addr = b->fb_addr, .pitch = b->fb_pitch, .width = b->fb_width,
		.height = b->fb_height, .bpp = b->fb_bpp,
		.red_pos = b->fb_red_pos, .red_size = b->fb_red_size,
		.green_pos = b->fb_green_pos, .green_size = b->fb_green_size,
		.blue_pos = b->fb_blue_pos, .blue_size = b->fb_blue_size,
	};
	if (fbcon_init(&fb, err, sizeof(err))) {
		printk("screen: %s; serial port only\n", err);
		return;
	}
	printk("screen: %ux%u framebuffer, %u bpp (red %u:%u green %u:%u blue %u:%u) at %#llx\n",
	       fb.width, fb.height, fb.bpp, fb.red_pos, fb.red_size, fb.green_pos, fb.green_size,
	       fb.blue_pos, fb.blue_size, (unsigned long long)fb.addr);
}
