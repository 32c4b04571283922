/* SPDX-License-Identifier: MIT */
/*
 * What the boot loader told us, copied out of the multiboot2 information (arch/x86/multiboot.c)
 * into kernel memory before anything can overwrite it.
 */
#ifndef SLABLAB_BOOTINFO_H
#define SLABLAB_BOOTINFO_H

#include "kernel/types.h"

enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIM = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

struct mem_region {
	u64 base;
	u64 len;
	u32 type; /* enum mem_type (multiboot2 numbering) */
};

/*
 * UEFI firmware on real PCs can hand GRUB memory maps of well over 100 regions (each
 * boot-services and runtime range its own); QEMU's are under 20 (OVMF's 18, SeaBIOS's 7).
 * tests/host/test_multiboot.c reads 300.
 */
#define BOOT_MAX_REGIONS 512
/*
 * The longest command line the kernel takes is BOOT_CMDLINE_MAX - 1 characters; a longer one
 * is an error. GRUB 2.06 passes lines of any length (its script lexer caps one word at about
 * 8 KiB); every option given once with its longest value stays well below this.
 */
#define BOOT_CMDLINE_MAX 4096

/* A multiboot2 module (GRUB's module2): bench=replay's trace. */
#define BOOT_MAX_MODULES 8
struct boot_module {
	u64 start, end; /* physical = direct-map addresses; reserved from the page allocator */
	char cmdline[64];
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	size_t cmdline_len; /* the loader's whole command line: longer than cmdline[] is an error */
	struct mem_region regions[BOOT_MAX_REGIONS];
	int nr_regions;
	u64 rsdp;           /* physical address of our copy of the RSDP, 0 if none */
	int rsdp_revision;  /* 0: ACPI 1.0 (RSDT), 2+: XSDT available */
	u64 mbi_start, mbi_end; /* the multiboot2 information itself */
	bool efi;           /* booted through UEFI (an EFI system table tag was present) */
	bool have_fb;       /* a framebuffer tag (multiboot2 tag 8): */
	u8 fb_type;         /* 0 indexed colour, 1 RGB, 2 EGA text (then width/height in characters) */
	u64 fb_addr;
	u32 fb_pitch, fb_width, fb_height;
	u8 fb_bpp;
	u8 fb_red_pos, fb_red_size, fb_green_pos, fb_green_size, fb_blue_pos, fb_blue_size;
	char loader[64];
	struct boot_module modules[BOOT_MAX_MODULES];
	int nr_modules;
};

extern struct boot_info boot_info;

#endif
