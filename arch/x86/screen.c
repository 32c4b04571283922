// SPDX-License-Identifier: MIT
/*
 * Which screen the kernel writes to (kernel/screen.h), from GRUB's multiboot2 framebuffer
 * tag: an RGB framebuffer (kernel/fbcon.c) or, when GRUB left the PC in text mode, the VGA
 * text buffer (this file). Without a usable one the kernel says why, once, and the serial
 * port stays the only console.
 */
#include "arch/x86/x86.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/screen.h"

#define VGA_TEXT_BUFFER 0xb8000
#define DIRECT_MAP_END (64ULL << 30) /* arch/x86/boot/entry.asm maps 0..64 GiB */

/*
 * Write-combining for the framebuffer. arch/x86/boot/entry.asm maps 0xfec00000..4 GiB uncached and
 * the rest write-back, and the firmware's MTRRs usually make a PCI framebuffer uncached:
 * every pixel a bus write of its own. The PAT (Intel SDM vol. 3A, 12.12) lets a page ask for
 * write-combining instead, which wins over an uncached MTRR: entry 5 (a 2 MiB page's PAT
 * bit 12 and PWT set, PCD clear), unused by the direct map, becomes WC on every CPU (the
 * BSP here, each AP through screen_pat_init_cpu), and the 2 MiB pages that hold the
 * framebuffer select it. A page is changed only when the framebuffer is over 1 MiB: then the
 * PCI BAR it sits in, a power of two at least as large and aligned to its size, is at least
 * 2 MiB, and the 2 MiB pages around the framebuffer hold nothing else. Without PAT
 * (CPUID.01H:EDX bit 16), or with a smaller framebuffer, the mapping stays as it is and the
 * boot says so. kernel/screen.c fences after drawing, which drains the WC buffers.
 */
#define MSR_PAT 0x277
#define PAT_WC 0x01ULL
#define PAT_FB_ENTRY 5
#define PDE_PWT (1ULL << 3)
#define PDE_PCD (1ULL << 4)
#define PDE_PS (1ULL << 7)
#define PDE_PAT (1ULL << 12) /* in a 2 MiB page's entry */
#define PTE_ADDR 0x000ffffffffff000ULL
#define SZ_2M (2ULL << 20)

static u64 pat_value; /* the PAT every CPU loads; 0: write-combining not in use */

void screen_pat_init_cpu(void)
{
	if (pat_value)
		wrmsr(MSR_PAT, pat_value);
}

/* The direct map's entry for the 2 MiB page at va, or NULL if it is not one. */
static u64 *pde_of(u64 va)
{
	u64 *pml4 = (u64 *)(uptr)(read_cr3() & PTE_ADDR), *pdpt, *pd;

	if (!(pml4[(va >> 39) & 511] & 1))
		return NULL;
	pdpt = (u64 *)(uptr)(pml4[(va >> 39) & 511] & PTE_ADDR);
	if (!(pdpt[(va >> 30) & 511] & 1) || (pdpt[(va >> 30) & 511] & PDE_PS))
		return NULL;
	pd = (u64 *)(uptr)(pdpt[(va >> 30) & 511] & PTE_ADDR);
	return (pd[(va >> 21) & 511] & (PDE_PS | 1)) == (PDE_PS | 1) ? &pd[(va >> 21) & 511] : NULL;
}

static void fb_write_combining(u64 addr, u64 size)
{
	u64 start = addr & ~(SZ_2M - 1), end = (addr + size + SZ_2M - 1) & ~(SZ_2M - 1);
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & (1u << 16))) {
		printk("screen: no PAT (CPUID.01H:EDX bit 16 is 0): the framebuffer stays as the "
		       "firmware's MTRRs map it, without write-combining\n");
		return;
	}
	if (size <= SZ_2M / 2) {
		printk("screen: a framebuffer of %llu KiB may share its 2 MiB pages with other "
		       "devices: no write-combining\n", (unsigned long long)(size >> 10));
		return;
	}
	for (u64 va = start; va < end; va += SZ_2M)
		if (!pde_of(va)) {
			printk("screen: the framebuffer at %#llx is not mapped by 2 MiB pages: no "
			       "write-combining\n", (unsigned long long)va);
			return;
		}
	pat_value = (rdmsr(MSR_PAT) & ~(0xffULL << (8 * PAT_FB_ENTRY))) |
		    PAT_WC << (8 * PAT_FB_ENTRY);
	screen_pat_init_cpu();
	for (u64 va = start; va < end; va += SZ_2M) {
		u64 *e = pde_of(va);

		*e = (*e & ~(PDE_PCD | PDE_PWT | PDE_PAT)) | PDE_PWT | PDE_PAT;
		__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	}
	/* A framebuffer the MTRRs left cacheable may have lines in the caches from before:
	 * written back now, none can land on top of later WC writes. */
	__asm__ __volatile__("wbinvd" : : : "memory");
	printk("screen: write-combining (PAT entry %d) over %#llx..%#llx\n", PAT_FB_ENTRY,
	       (unsigned long long)start, (unsigned long long)end);
}

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
	fb_write_combining(fb.addr, (u64)fb.pitch * fb.height);
}
