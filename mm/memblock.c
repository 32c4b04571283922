// SPDX-License-Identifier: MIT
/*
 * Boot-time memory: a list of reserved ranges and a bump allocator that takes memory the
 * multiboot2 map calls usable and that nothing has reserved. page_alloc_init() then builds
 * mem_map[] and gives every usable, unreserved page above 1 MiB to the buddy allocator;
 * early_alloc() is refused after that.
 */
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"

#define MAX_RESERVED 128
#define LOW_MEM_END 0x100000ULL
#define DIRECT_MAP_END (64 * GiB) /* arch/x86/boot/entry.asm maps this much */

struct reserved {
	u64 base, end;
	const char *what;
};

static struct reserved reserved[MAX_RESERVED];
static int nr_reserved;
static bool buddy_up;

void memblock_reserve(u64 base, u64 len, const char *what)
{
	u64 b = ALIGN_DOWN(base, PAGE_SIZE), e = ALIGN_UP(base + len, PAGE_SIZE);

	if (!len)
		return;
	/* Grow a range this one touches or overlaps: early allocations come one after another. */
	for (int i = 0; i < nr_reserved; i++) {
		if (reserved[i].base <= e && b <= reserved[i].end) {
			reserved[i].base = MIN(reserved[i].base, b);
			reserved[i].end = MAX(reserved[i].end, e);
			return;
		}
	}
	if (nr_reserved == MAX_RESERVED)
		panic("memblock: more than %d reserved ranges (adding %s)", MAX_RESERVED, what);
	reserved[nr_reserved].base = b;
	reserved[nr_reserved].end = e;
	reserved[nr_reserved].what = what;
	nr_reserved++;
}

/* The lowest reserved range that overlaps [base, end), or NULL. */
static struct reserved *overlap(u64 base, u64 end)
{
	struct reserved *lowest = NULL;

	for (int i = 0; i < nr_reserved; i++)
		if (reserved[i].base < end && base < reserved[i].end &&
		    (!lowest || reserved[i].base < lowest->base))
			lowest = &reserved[i];
	return lowest;
}

static u64 usable_end(const struct mem_region *r)
{
	u64 end = r->base + r->len;

	return end > DIRECT_MAP_END ? DIRECT_MAP_END : end;
}

/* Lowest free, suitably aligned range of size bytes within [lo, hi). */
static u64 find_free(u64 size, u64 align, u64 lo, u64 hi)
{
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		u64 end = usable_end(r), base;

		if (r->type != MEM_USABLE)
			continue;
		base = ALIGN_UP(MAX(r->base, lo), align);
		while (base + size <= MIN(end, hi)) {
			struct reserved *o = overlap(base, base + size);

			if (!o)
				return base;
			base = ALIGN_UP(o->end, align);
		}
	}
	return 0;
}

void *early_alloc(size_t size, size_t align)
{
	u64 p;

	if (buddy_up)
		panic("early_alloc(%zu) after the page allocator is up", size);
	size = ALIGN_UP(size, PAGE_SIZE);
	p = find_free(size, MAX(align, PAGE_SIZE), LOW_MEM_END, DIRECT_MAP_END);
	if (!p)
		panic("early_alloc: no %zu bytes of usable memory left at boot", size);
	memblock_reserve(p, size, "early_alloc");
	memset((void *)p, 0, size);
	return (void *)p;
}

/* A free usable page below 1 MiB (for the AP trampoline), never page 0. */
u64 early_alloc_low_page(void)
{
	u64 p = find_free(PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, LOW_MEM_END);

	if (p)
		memblock_reserve(p, PAGE_SIZE, "trampoline");
	return p;
}

u64 mem_total_usable(void)
{
	u64 total = 0;

	for (int i = 0; i < boot_info.nr_regions; i++)
		if (boot_info.regions[i].type == MEM_USABLE)
			total += boot_info.regions[i].len;
	return total;
}

/*
 * Under TCG only: the pages below the top of the highest usable region under 4 GiB are
 * zeroed before the buddy allocator gets them. Code ran there before us (the boot loader's,
 * most likely: GRUB keeps its heap near the top; SeaBIOS put its relocated init 16 MiB
 * below the top of a 256 MiB machine), and QEMU keeps the code it translated from a
 * page until every byte of that code has been written over: until then every store to the
 * page takes its slow path. A slab there, whose frees write 8 bytes of each object, stays
 * slow for good: a bulk free of 16 there costs 30-50 times its neighbours' emulated cycles
 * with the same instruction count. Zeroing the range writes
 * over all of it once. Real hardware and KVM have no such cost, and skip it.
 */
#define TCG_SCRUB_BYTES (16 * MiB)
#define SCRUB_BELOW (4 * GiB)
static u64 scrub_lo, scrub_hi;

void page_alloc_scrubbed(u64 *lo, u64 *hi)
{
	*lo = scrub_lo;
	*hi = scrub_hi;
}

static void scrub_window(void)
{
	u64 top = 0, base = 0;

	if (strcmp(arch_accel(), "tcg"))
		return;
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		u64 end = ALIGN_DOWN(usable_end(r), PAGE_SIZE);

		if (r->type == MEM_USABLE && end <= SCRUB_BELOW && end > top) {
			top = end;
			base = ALIGN_UP(MAX(r->base, LOW_MEM_END), PAGE_SIZE);
		}
	}
	if (top <= base)
		return;
	scrub_hi = top;
	scrub_lo = top - base > TCG_SCRUB_BYTES ? top - TCG_SCRUB_BYTES : base;
}

/* A free range about to go to the buddy allocator: zero what of it is in the window. */
static void scrub_range(u64 base, u64 stop)
{
	u64 lo = MAX(base, scrub_lo), hi = MIN(stop, scrub_hi);

	for (u64 q = lo; q < hi; q += 8)
		*(volatile u64 *)(uptr)q = 0;
}

void page_alloc_init(void)
{
	unsigned long npfn = 0;
	struct page *map;
	u64 top = 0;

	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		if (r->type != MEM_USABLE)
			continue;
		if (r->base + r->len > DIRECT_MAP_END)
			printk("memory: RAM above %llu GiB is not mapped and not used\n",
			       DIRECT_MAP_END / GiB);
		top = MAX(top, usable_end(r));
	}
	npfn = top >> PAGE_SHIFT;
	map = early_alloc(npfn * sizeof(struct page), PAGE_SIZE);
	scrub_window();
	page_alloc_setup(map, npfn);
	buddy_up = true;
	/* Usable memory minus the reserved ranges, above 1 MiB: firmware lives below. */
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		u64 base = ALIGN_UP(MAX(r->base, LOW_MEM_END), PAGE_SIZE);
		u64 end = ALIGN_DOWN(usable_end(r), PAGE_SIZE);

		if (r->type != MEM_USABLE)
			continue;
		while (base < end) {
			struct reserved *o = overlap(base, end);
			u64 stop = o ? MAX(o->base, base) : end;

			if (stop > base) {
				scrub_range(base, stop);
				page_alloc_add_range(base >> PAGE_SHIFT, stop >> PAGE_SHIFT);
			}
			if (!o)
				break;
			base = MAX(base, o->end);
		}
	}
}
