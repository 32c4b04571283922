// SPDX-License-Identifier: MIT
/*
 * The buddy allocator: all free memory can be allocated without overlap and without ever
 * handing out what boot reserved; freeing it all coalesces back to the starting state;
 * blocks are aligned to their order; bad frees are reported and change nothing; every CPU
 * allocating and freeing at once keeps blocks private and the counts exact.
 */
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"
#include "tests/kernel/page_test_helpers.h"

extern char _kernel_start[], _kernel_end[];

static bool stats_equal(struct kunit *test, const struct page_alloc_stats *a,
			const struct page_alloc_stats *b)
{
	bool same = a->free == b->free && a->managed == b->managed;

	for (int k = 0; k < NR_ORDERS; k++) {
		if (a->nr_free[k] != b->nr_free[k]) {
			kunit_info(test, "order %d: %lu free blocks, expected %lu", k, b->nr_free[k],
				   a->nr_free[k]);
			same = false;
		}
	}
	return same;
}

static bool test_and_set(u8 *bitmap, unsigned long bit)
{
	bool was = bitmap[bit / 8] & (1u << (bit % 8));

	bitmap[bit / 8] |= (u8)(1u << (bit % 8));
	return was;
}

static bool is_set(const u8 *bitmap, unsigned long bit)
{
	return bitmap[bit / 8] & (1u << (bit % 8));
}

static void check_never_handed_out(struct kunit *test, const u8 *bitmap, u64 start, u64 end,
				   const char *what)
{
	for (u64 pfn = start >> PAGE_SHIFT; pfn < DIV_ROUND_UP(end, PAGE_SIZE) && pfn < max_pfn;
	     pfn++)
		if (is_set(bitmap, pfn)) {
			KUNIT_FAIL(test, "pfn %#llx (%s) was handed out", (unsigned long long)pfn, what);
			return;
		}
}

static void all_memory_without_overlap_then_coalesce(struct kunit *test)
{
	unsigned long bitmap_bytes = DIV_ROUND_UP(max_pfn, 8), got = 0, blocks = 0;
	unsigned int border = 0;
	struct page_alloc_stats before, after;
	struct page *bitmap_page;
	u8 *bitmap;
	void *chain = NULL; /* allocated blocks, linked through their first word */

	while ((PAGE_SIZE << border) < bitmap_bytes)
		border++;
	bitmap_page = alloc_pages(GFP_KERNEL | __GFP_ZERO, border);
	KUNIT_ASSERT_NOT_NULL(test, bitmap_page);
	bitmap = page_address(bitmap_page);
	page_alloc_drain_all(); /* nr_free[] counts the buddy lists only, not the per-cpu ones */
	page_alloc_get_stats(&before);

	for (int order = MAX_ORDER; order >= 0; order--) {
		struct page *p;

		while ((p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, (unsigned)order))) {
			unsigned long pfn = page_to_pfn(p);

			KUNIT_ASSERT_EQ_MSG(test, pfn & ((1UL << order) - 1), 0,
					    "order-%d block at pfn %#lx", order, pfn);
			KUNIT_ASSERT_LE(test, pfn + (1UL << order), max_pfn);
			for (unsigned long i = 0; i < (1UL << order); i++)
				KUNIT_ASSERT_FALSE_MSG(test, test_and_set(bitmap, pfn + i),
						       "pfn %#lx handed out twice", pfn + i);
			*(void **)page_address(p) = chain;
			*((unsigned long *)page_address(p) + 1) = (unsigned long)order;
			chain = page_address(p);
			got += 1UL << order;
			blocks++;
		}
	}
	KUNIT_EXPECT_EQ(test, got, before.free);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), 0);
	KUNIT_EXPECT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0));

	/* Nothing boot reserved came out: low memory, the kernel, the multiboot info. */
	check_never_handed_out(test, bitmap, 0, 0x100000, "below 1 MiB");
	check_never_handed_out(test, bitmap, (uptr)_kernel_start, (uptr)_kernel_end, "kernel image");
	check_never_handed_out(test, bitmap, boot_info.mbi_start, boot_info.mbi_end, "multiboot info");
	check_never_handed_out(test, bitmap, (uptr)mem_map, (uptr)(mem_map + max_pfn), "mem_map");
	for (int i = 0; i < boot_info.nr_regions; i++)
		if (boot_info.regions[i].type != MEM_USABLE)
			check_never_handed_out(test, bitmap, boot_info.regions[i].base,
					       boot_info.regions[i].base + boot_info.regions[i].len,
					       "not usable RAM");

	while (chain) {
		void *next = *(void **)chain;
		unsigned long order = *((unsigned long *)chain + 1);

		free_pages((unsigned long)chain, (unsigned)order);
		chain = next;
	}
	page_alloc_drain_all();
	page_alloc_get_stats(&after);
	KUNIT_EXPECT_TRUE_MSG(test, stats_equal(test, &before, &after),
			      "free lists did not coalesce back to where they started");
	kunit_info(test, "%lu pages in %lu blocks, all of free memory (%lu MiB)", got, blocks,
		   got >> (20 - PAGE_SHIFT));
	__free_pages(bitmap_page, border);
}

static void blocks_are_aligned_and_flagged(struct kunit *test)
{
	for (unsigned int order = 0; order <= MAX_ORDER; order++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
		u64 *words;
		bool zero = true;

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_pfn(p) & ((1UL << order) - 1), 0);
		KUNIT_EXPECT_TRUE(test, p->flags & PG_head);
		KUNIT_EXPECT_EQ(test, p->order, order);
		words = page_address(p);
		for (unsigned long i = 0; i < (PAGE_SIZE << order) / 8; i++)
			zero &= words[i] == 0;
		KUNIT_EXPECT_TRUE_MSG(test, zero, "__GFP_ZERO block of order %u not zeroed", order);
		KUNIT_EXPECT_PTR_EQ(test, virt_to_page(words), p);
		__free_pages(p, order);
	}
	KUNIT_EXPECT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER + 1));
}

static void bad_frees_are_reported_and_ignored(struct kunit *test)
{
	struct page_alloc_stats a, b;
	struct page *p = alloc_pages(GFP_KERNEL, 2);

	KUNIT_ASSERT_NOT_NULL(test, p);
	page_alloc_get_stats(&a);
	__free_pages(p, 1);     /* wrong order */
	__free_pages(p + 1, 0); /* a tail page */
	free_pages((unsigned long)page_address(p) + 8, 0); /* not a page address */
	__free_pages(pfn_to_page(0), 0); /* reserved */
	page_alloc_get_stats(&b);
	KUNIT_EXPECT_EQ(test, b.bad_frees - a.bad_frees, 4);
	KUNIT_EXPECT_EQ(test, b.free, a.free);
	__free_pages(p, 2);
	page_alloc_get_stats(&a);
	__free_pages(p, 2); /* double free */
	page_alloc_get_stats(&b);
	KUNIT_EXPECT_EQ(test, b.bad_frees - a.bad_frees, 1);
	KUNIT_EXPECT_TRUE(test, stats_equal(test, &a, &b));
}

#define STRESS_OPS 400
#define STRESS_SLOTS 16

/* Each CPU: random alloc/free of orders 0..3, its blocks stamped and checked before free. */
static void stress_one_cpu(struct kunit *test, void *arg)
{
	struct stamped_block slot[STRESS_SLOTS] = {};
	u64 rng = 0x9e3779b97f4a7c15ULL * (u64)(smp_processor_id() + 1);

	(void)arg;
	for (int op = 0; op < STRESS_OPS; op++)
		stamped_step(test, slot, STRESS_SLOTS, stamped_next(&rng), op, 4);
	stamped_free_all(slot, STRESS_SLOTS);
}

static void all_cpus_at_once(struct kunit *test)
{
	struct page_alloc_stats a, b;

	page_alloc_get_stats(&a);
	kunit_run_on_all_cpus(test, stress_one_cpu, NULL);
	page_alloc_get_stats(&b);
	KUNIT_EXPECT_EQ(test, b.free, a.free);
	KUNIT_EXPECT_EQ(test, b.bad_frees, a.bad_frees);
	KUNIT_EXPECT_EQ(test, b.allocs - a.allocs, b.frees - a.frees);
}

/*
 * Under TCG the boot zeroes the top 16 MiB of the highest usable region below 4 GiB before
 * the buddy allocator gets them (mm/memblock.c: the boot loader's translated code there
 * would slow every store to those pages); anywhere else nothing.
 */
static void tcg_scrub_window(struct kunit *test)
{
	u64 lo, hi, top = 0, start = 0;

	page_alloc_scrubbed(&lo, &hi);
	if (strcmp(arch_accel(), "tcg")) {
		KUNIT_EXPECT_EQ(test, lo, 0);
		KUNIT_EXPECT_EQ(test, hi, 0);
		return;
	}
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		u64 end = (r->base + r->len) & ~(u64)(PAGE_SIZE - 1);

		if (r->type == MEM_USABLE && end <= 4 * GiB && end > top) {
			top = end;
			start = r->base < 0x100000 ? 0x100000 : r->base;
		}
	}
	KUNIT_ASSERT_NE(test, top, 0);
	KUNIT_EXPECT_EQ(test, hi, top);
	KUNIT_EXPECT_EQ(test, lo, top - start > 16 * MiB ? top - 16 * MiB : start);
	KUNIT_EXPECT_EQ(test, lo % PAGE_SIZE, 0);
}

static struct kunit_case page_alloc_cases[] = {
	KUNIT_CASE(all_memory_without_overlap_then_coalesce),
	KUNIT_CASE(blocks_are_aligned_and_flagged),
	KUNIT_CASE(bad_frees_are_reported_and_ignored),
	KUNIT_CASE(all_cpus_at_once),
	KUNIT_CASE(tcg_scrub_window),
	{}
};

static struct kunit_suite page_alloc_suite = {
	.name = "page_alloc",
	.test_cases = page_alloc_cases,
};
kunit_test_suite(page_alloc_suite);
