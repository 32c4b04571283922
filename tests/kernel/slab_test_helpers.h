/* SPDX-License-Identifier: MIT */
/*
 * Pieces the slab suites share (tests/kernel/slab_test.c and lab 3's slab_fastpath_test.c):
 * taking the page allocator's memory away and giving it back, and the interrupt race, where
 * one cpu loops on the fastpath while another floods it with cross-calls whose handlers
 * allocate and free from the same cache. Static: each suite gets its own copy.
 */
#ifndef SLABLAB_TESTS_SLAB_TEST_HELPERS_H
#define SLABLAB_TESTS_SLAB_TEST_HELPERS_H

#include "kernel/arch.h"
#include "kernel/kunit.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* One block of 2^order pages onto the hog list (hog_memory); false: none to be had. */
static inline bool hog_take(struct page **hog, unsigned int order)
{
	struct page *pg = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
	u64 *w;

	if (!pg)
		return false;
	w = page_address(pg);
	w[0] = (u64)(uptr)*hog;
	w[1] = (u64)order;
	*hog = pg;
	return true;
}

/*
 * hog_memory(leave): allocates free pages until at most `leave` are left (0: until the
 * allocator says no) and returns them as a list to give to unhog_memory(). Blocks of the
 * largest order first, so taking 4 GiB away is a few thousand calls, not a million; each
 * block's first word links to the next and its second holds the block's order.
 */
static inline struct page *hog_memory(unsigned long leave)
{
	struct page *hog = NULL;

	/* Pages parked on per-cpu lists back to the buddy lists first, where blocks merge. */
	page_alloc_drain_all();
	for (int order = MAX_ORDER; order >= 0; order--) {
		while (nr_free_pages() >= leave + (1ul << order))
			if (!hog_take(&hog, (unsigned int)order))
				break;
	}
	/*
	 * Free blocks smaller than an order-3 slab (the largest the caches use) that long-lived
	 * pages elsewhere keep from merging: taken too, so what is left is in whole order-3
	 * blocks. The page allocator's per-cpu lists spread such pages over more blocks than the
	 * buddy allocator alone does. Fewer than `leave` may then be left, as promised.
	 */
	page_alloc_drain_all();
	for (int order = 0; leave && order < 3; order++) {
		struct page_alloc_stats st;

		page_alloc_get_stats(&st);
		for (unsigned long i = 0; i < st.nr_free[order]; i++)
			if (!hog_take(&hog, (unsigned int)order))
				break;
	}
	return hog;
}

static inline void unhog_memory(struct page *hog)
{
	while (hog) {
		u64 *w = page_address(hog);
		struct page *next = (struct page *)(uptr)w[0];

		__free_pages(hog, (unsigned int)w[1]);
		hog = next;
	}
}

/*
 * The interrupt race. Cpu 0 sends cpu 1 `calls` cross-calls (waiting for every `wait_every`-th
 * one, so others arrive while cpu 1 is anywhere in its loop) whose handler allocates, stamps,
 * checks and frees one object; cpu 1 meanwhile allocates two, stamps both, checks both and
 * frees both until cpu 0 is done. An object handed out twice, or a stamp overwritten, counts
 * an error. Run it with kunit_run_on_all_cpus(test, irq_race_cpu, &race); afterwards
 * handler_ops must equal calls (shrink or wait first: the last calls may not have been
 * waited for).
 */
struct irq_race {
	struct kmem_cache *s;
	int calls;
	int wait_every;
	volatile int stop;
	int errors;
	long handler_ops;
};

static inline void irq_race_handler(void *arg)
{
	struct irq_race *r = arg;
	u64 *p = kmem_cache_alloc(r->s, GFP_ATOMIC);

	if (!p) {
		__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		return;
	}
	p[0] = 0x1111;
	p[1] = (u64)(uptr)p;
	if (p[0] != 0x1111 || p[1] != (u64)(uptr)p)
		__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
	kmem_cache_free(r->s, p);
	__atomic_fetch_add(&r->handler_ops, 1, __ATOMIC_RELAXED);
}

static inline void irq_race_cpu(struct kunit *test, void *arg)
{
	struct irq_race *r = arg;

	if (smp_processor_id() == 0) {
		for (int i = 0; i < r->calls; i++)
			smp_call_function_single(1, irq_race_handler, r, i % r->wait_every == 0);
		r->stop = 1;
		return;
	}
	if (smp_processor_id() != 1)
		return;
	while (!r->stop) {
		u64 *a = kmem_cache_alloc(r->s, GFP_KERNEL), *b = kmem_cache_alloc(r->s, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_ASSERT_NOT_NULL(test, b);
		KUNIT_EXPECT_PTR_NE(test, a, b);
		a[0] = 0xaaaa;
		b[0] = 0xbbbb;
		a[1] = (u64)(uptr)a;
		b[1] = (u64)(uptr)b;
		cpu_relax();
		if (a[0] != 0xaaaa || b[0] != 0xbbbb || a[1] != (u64)(uptr)a || b[1] != (u64)(uptr)b)
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		kmem_cache_free(r->s, b);
		kmem_cache_free(r->s, a);
	}
}

#endif
