// SPDX-License-Identifier: MIT
/*
 * Read the multiboot2 information GRUB left for us: command line (tag 1), boot loader name
 * (2), modules (3), memory map (6), framebuffer (8), EFI system table (11/12) and the ACPI RSDP (14: ACPI
 * 1.0, 15: 2.0+).
 * Everything is copied into boot_info, because under UEFI the structure sits in low memory
 * (about 0x4000) that we would otherwise hand out.
 */
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

#define MB2_BOOT_MAGIC 0x36d76289
#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER 2
#define MB2_TAG_MODULE 3
#define MB2_TAG_MMAP 6
#define MB2_TAG_FRAMEBUFFER 8
#define MB2_TAG_EFI32 11
#define MB2_TAG_EFI64 12
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15

struct boot_info boot_info;

/* A copy of the RSDP: the one in the tag lives inside the mbi. */
static u8 rsdp_copy[64] __aligned(16);

struct mb2_tag {
	u32 type;
	u32 size;
};

struct mb2_mmap_entry {
	u64 base;
	u64 len;
	u32 type;
	u32 reserved;
};

int multiboot_parse(u32 magic, u64 mbi)
{
	u32 total;
	u64 p;

	if (magic != MB2_BOOT_MAGIC) {
		printk("boot: bad multiboot2 magic %#x\n", magic);
		return -1;
	}
	total = *(u32 *)mbi;
	boot_info.mbi_start = mbi;
	boot_info.mbi_end = mbi + total;
	for (p = mbi + 8; p + 8 <= mbi + total;) {
		struct mb2_tag *tag = (struct mb2_tag *)p;

		if (tag->type == MB2_TAG_END)
			break;
		if (tag->size < 8 || p + tag->size > mbi + total) {
			/* damaged: a size of 0 would read this tag for ever */
			printk("boot: multiboot2 tag %u at offset %llu has size %u (the information is "
			       "%u bytes); the tags from there on are not read\n", tag->type,
			       (unsigned long long)(p - mbi), tag->size, total);
			break;
		}
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			/* The whole length, even when it does not fit: boot_main refuses it then. */
			boot_info.cmdline_len = strlcpy(boot_info.cmdline, (const char *)(p + 8),
							sizeof(boot_info.cmdline));
			break;
		case MB2_TAG_LOADER:
			strlcpy(boot_info.loader, (const char *)(p + 8), sizeof(boot_info.loader));
			break;
		case MB2_TAG_MODULE: {
			/* u32 mod_start, mod_end, then the module's command line (multiboot2 3.6.6) */
			struct boot_module *m;

			if (boot_info.nr_modules == BOOT_MAX_MODULES) {
				printk("boot: more than %d modules; ignoring the rest\n", BOOT_MAX_MODULES);
				break;
			}
			m = &boot_info.modules[boot_info.nr_modules++];
			m->start = *(u32 *)(p + 8);
			m->end = *(u32 *)(p + 12);
			strlcpy(m->cmdline, (const char *)(p + 16), sizeof(m->cmdline));
			break;
		}
		case MB2_TAG_MMAP: {
			/* LAB1: BEGIN */
			u32 esize = *(u32 *)(p + 8);
			u64 e;

			if (esize < sizeof(struct mb2_mmap_entry))
				break;
			for (e = p + 16; e + esize <= p + tag->size; e += esize) {
				struct mb2_mmap_entry *m = (struct mb2_mmap_entry *)e;
				struct mem_region *r;

				if (boot_info.nr_regions == BOOT_MAX_REGIONS) {
					printk("boot: memory map has more than %d entries; ignoring the rest\n",
					       BOOT_MAX_REGIONS);
					break;
				}
				r = &boot_info.regions[boot_info.nr_regions++];
				r->base = m->base;
				r->len = m->len;
				r->type = m->type;
			}
			break;
			/* LAB1: END */
		}
		case MB2_TAG_FRAMEBUFFER: {
			/*
			 * Multiboot2 1.0, 3.6.12: address u64, pitch, width, height u32, bpp,
			 * type u8, then (GRUB's multiboot2.h) a u16 reserved, so that the RGB
			 * colour info (position and size of red, green, blue) is at 32.
			 */
			const u8 *t = (const u8 *)p;

			if (tag->size < 30) {
				printk("boot: framebuffer tag of %u bytes is too short; ignored\n",
				       tag->size);
				break;
			}
			boot_info.have_fb = true;
			memcpy(&boot_info.fb_addr, t + 8, 8);
			memcpy(&boot_info.fb_pitch, t + 16, 4);
			memcpy(&boot_info.fb_width, t + 20, 4);
			memcpy(&boot_info.fb_height, t + 24, 4);
			boot_info.fb_bpp = t[28];
			boot_info.fb_type = t[29];
			if (boot_info.fb_type == 1 && tag->size >= 38) {
				boot_info.fb_red_pos = t[32];
				boot_info.fb_red_size = t[33];
				boot_info.fb_green_pos = t[34];
				boot_info.fb_green_size = t[35];
				boot_info.fb_blue_pos = t[36];
				boot_info.fb_blue_size = t[37];
			}
			break;
		}
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
			boot_info.efi = true;
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW: {
			u32 len = tag->size - 8;

			/* Prefer the ACPI 2.0+ copy (it has the XSDT) over the 1.0 one. */
			if (tag->type == MB2_TAG_ACPI_OLD && boot_info.rsdp_revision >= 2)
				break;
			if (len > sizeof(rsdp_copy))
				len = sizeof(rsdp_copy);
			memcpy(rsdp_copy, (void *)(p + 8), len);
			boot_info.rsdp = (u64)(uptr)rsdp_copy;
			boot_info.rsdp_revision = rsdp_copy[15];
			break;
		}
		default:
			break;
		}
		p += ALIGN_UP((u64)tag->size, 8);
	}
	return 0;
}

/* LAB1: BEGIN */
static unsigned int mem_map_option;
boot_param(mem_map, mem_map_option, uint, (0, 1), 0,
	   "1: print the multiboot2 memory map at boot, a line per region as Linux's e820 lines");

static const char *mem_type_name(u32 type)
{
	static const char *const names[] = { [MEM_USABLE] = "usable",
					     [MEM_RESERVED] = "reserved",
					     [MEM_ACPI_RECLAIM] = "ACPI data",
					     [MEM_ACPI_NVS] = "ACPI NVS",
					     [MEM_BAD] = "unusable" };

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "type unknown";
}
/* LAB1: END */

/*
 * mem_map=1: the memory map as the boot loader gave it, one line per region in the format
 * of Linux's e820 lines ("BIOS-e820: [mem 0x...-0x...] usable"), inclusive ends.
 */
void multiboot_print_map(void)
{
	/* LAB1: BEGIN */
	if (!mem_map_option)
		return;
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		printk("mem_map: [mem 0x%016llx-0x%016llx] %s\n", (unsigned long long)r->base,
		       (unsigned long long)(r->base + r->len - 1), mem_type_name(r->type));
	}
	/* LAB1: END */
}
