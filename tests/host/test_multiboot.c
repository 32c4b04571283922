// SPDX-License-Identifier: MIT
/*
 * arch/x86/multiboot.c's reader of the multiboot2 information on synthetic tag lists: a
 * memory map of many entries (UEFI firmware on real PCs hands GRUB maps of 100 to 300
 * regions, QEMU's a handful), entries larger than the 24 bytes of today's layout (the
 * entry_size field says how far apart they are), a map longer than boot_info holds (the
 * first BOOT_MAX_REGIONS kept and a line saying so), an entry size too small to read, the
 * tags after the map still read, and damaged tag sizes (0, past the end) stopping the
 * reading with a line instead of looping.
 */
#include <stdlib.h>
#include <string.h>

#include "arch/host/host_env.h"
#include "kernel/bootinfo.h"
#include "tests/host/ktest.h"

int multiboot_parse(u32 magic, u64 mbi);

#define MB2_MAGIC 0x36d76289

static u8 mbi[64 * 1024] __attribute__((aligned(8)));
static size_t len;

static void put32(u32 v)
{
	memcpy(mbi + len, &v, 4);
	len += 4;
}

static void put64(u64 v)
{
	memcpy(mbi + len, &v, 8);
	len += 8;
}

static void align8(void)
{
	while (len % 8)
		mbi[len++] = 0;
}

/* A tag list: total size and reserved, then the tags. */
static void begin(void)
{
	memset(mbi, 0, sizeof(mbi));
	len = 0;
	put32(0);
	put32(0);
}

static void tag_cmdline(const char *s)
{
	put32(1);
	put32(8 + (u32)strlen(s) + 1);
	memcpy(mbi + len, s, strlen(s) + 1);
	len += strlen(s) + 1;
	align8();
}

/* n entries of esize bytes: entry i at 1 MiB * i, 64 KiB long, usable when i is even. */
static void tag_mmap(int n, u32 esize)
{
	put32(6);
	put32(16 + (u32)n * esize);
	put32(esize);
	put32(0); /* entry_version */
	for (int i = 0; i < n; i++) {
		size_t e = len;

		put64((u64)i << 20);
		put64(64 << 10);
		put32(i % 2 ? MEM_RESERVED : MEM_USABLE);
		put32(0);
		len = MIN(len, e + esize); /* entry_size 16: base and length only */
		while (len < e + esize)
			mbi[len++] = 0xee; /* what a later entry version would add */
	}
	align8();
}

static int finish(void)
{
	put32(0); /* the end tag */
	put32(8);
	memcpy(mbi, &(u32){ (u32)len }, 4);
	memset(&boot_info, 0, sizeof(boot_info));
	host_console_reset();
	return multiboot_parse(MB2_MAGIC, (u64)(uintptr_t)mbi);
}

static bool regions_ok(int n)
{
	for (int i = 0; i < n; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		if (r->base != (u64)i << 20 || r->len != 64 << 10 ||
		    r->type != (i % 2 ? MEM_RESERVED : MEM_USABLE))
			return false;
	}
	return true;
}

int main(void)
{
	int rc;

	/* 300 entries, each read in order, and the command line after them. */
	begin();
	tag_mmap(300, 24);
	tag_cmdline("test=none");
	rc = finish();
	KT_EQ_U("300 entries: parsed", rc, 0);
	KT_EQ_U("300 entries: all kept", boot_info.nr_regions, 300);
	kt_check(regions_ok(300), "300 entries: each base, length and type", "a region differs");
	KT_EQ_S("300 entries: the tag after the map is read", boot_info.cmdline, "test=none");
	kt_check(!host_console_has("ignoring"), "300 entries: nothing ignored", "printed \"%s\"",
		 host_console_text());

	/* Entries 40 bytes apart: the reader steps by entry_size, not by its own struct. */
	begin();
	tag_cmdline("a");
	tag_mmap(150, 40);
	rc = finish();
	kt_check(rc == 0 && boot_info.nr_regions == 150 && regions_ok(150),
		 "150 entries of 40 bytes: read at entry_size's stride", "rc %d, %d regions", rc,
		 boot_info.nr_regions);

	/* Longer than boot_info holds: the first BOOT_MAX_REGIONS, and a line saying so. */
	begin();
	tag_mmap(BOOT_MAX_REGIONS + 37, 24);
	tag_cmdline("after");
	rc = finish();
	kt_check(rc == 0 && boot_info.nr_regions == BOOT_MAX_REGIONS && regions_ok(BOOT_MAX_REGIONS),
		 "a map past BOOT_MAX_REGIONS: the first ones kept", "rc %d, %d regions", rc,
		 boot_info.nr_regions);
	kt_check(host_console_has("memory map has more than"), "a map past BOOT_MAX_REGIONS: said",
		 "printed \"%s\"", host_console_text());
	KT_EQ_S("a map past BOOT_MAX_REGIONS: the tags after it still read", boot_info.cmdline,
		"after");

	/* An entry size smaller than base, length and type: no entry is read from it. */
	begin();
	tag_mmap(4, 16);
	rc = finish();
	kt_check(rc == 0 && boot_info.nr_regions == 0, "entry_size 16: the map is not read",
		 "rc %d, %d regions", rc, boot_info.nr_regions);

	/* A damaged tag (size 0, or past the end): the reading stops there, with a line. */
	begin();
	tag_cmdline("kept");
	put32(1);
	put32(0);
	rc = finish();
	kt_check(rc == 0 && !strcmp(boot_info.cmdline, "kept") &&
			 host_console_has("has size 0 (the information is"),
		 "a tag of size 0: the reading stops, said", "rc %d, printed \"%s\"", rc,
		 host_console_text());
	begin();
	tag_mmap(3, 24);
	put32(1);
	put32(4000); /* past the end */
	rc = finish();
	kt_check(rc == 0 && boot_info.nr_regions == 3 && host_console_has("has size 4000"),
		 "a tag past the end: the tags before it kept, said", "rc %d, %d regions", rc,
		 boot_info.nr_regions);

	/* A bad magic number is refused before anything is read. */
	begin();
	tag_mmap(2, 24);
	memcpy(mbi, &(u32){ (u32)len + 8 }, 4);
	memset(&boot_info, 0, sizeof(boot_info));
	host_console_reset();
	rc = multiboot_parse(0x2badb002, (u64)(uintptr_t)mbi);
	kt_check(rc == -1 && boot_info.nr_regions == 0 && host_console_has("bad multiboot2 magic"),
		 "a multiboot1 magic is refused", "rc %d, %d regions", rc, boot_info.nr_regions);
	return kt_finish();
}
