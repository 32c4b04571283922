// SPDX-License-Identifier: MIT
/*
 * The page allocator's per-cpu lists (mm/page_alloc.c): a page freed on a CPU comes back
 * from that CPU's list without its zone's lock; a drain returns every parked page and the
 * buddy lists coalesce exactly as they were; an allocation that finds the zones empty while
 * another CPU has pages parked drains them and succeeds, so exhaustion leaves no page
 * stranded; drains from every CPU at once while each uses its lists lose nothing; the
 * counts stay exact throughout.
 * With pcp=0 the cases that need the lists skip and the others still hold.
 */
#include "kernel/kunit.h"
#include "kernel/numa.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"
#include "tests/kernel/page_test_helpers.h"

static bool same_layout(struct kunit *test, const struct page_alloc_stats *a,
			const struct page_alloc_stats *b)
{
	bool same = a->free == b->free && a->pcp == b->pcp;

	for (int k = 0; k < NR_ORDERS; k++)
		if (a->nr_free[k] != b->nr_free[k]) {
			kunit_info(test, "order %d: %lu free blocks, %lu before", k, b->nr_free[k],
				   a->nr_free[k]);
			same = false;
		}
	return same;
}

static void freed_page_comes_back_without_zone_lock(struct kunit *test)
{
	int nid = numa_node_id();
	struct page_alloc_stats st;
	struct page *p, *q;
	unsigned long locks, allocs;

	if (!page_alloc_pcp)
		kunit_skip(test, "pcp=0: no per-cpu lists");
	if (!numa_node_has_memory[nid])
		kunit_skip(test, "node %d has no memory", nid);
	page_alloc_drain_all();
	p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0); /* refills this CPU's list */
	KUNIT_ASSERT_NOT_NULL(test, p);
	page_alloc_get_node_stats(nid, &st);
	KUNIT_EXPECT_EQ(test, st.pcp, (unsigned long)PCP_BATCH - 1);
	locks = page_alloc_zone_lock_count(nid);
	allocs = st.pcp_allocs;
	__free_pages(p, 0);
	page_alloc_get_node_stats(nid, &st);
	KUNIT_EXPECT_EQ(test, st.pcp, (unsigned long)PCP_BATCH);
	KUNIT_EXPECT_TRUE(test, p->flags & PG_pcp);
	q = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	KUNIT_EXPECT_PTR_EQ(test, q, p); /* the last one freed here is the first taken */
	/* Only page_alloc_get_node_stats took the zone lock (once) since locks was read. */
	KUNIT_EXPECT_EQ(test, page_alloc_zone_lock_count(nid) - locks, 1UL);
	page_alloc_get_node_stats(nid, &st);
	KUNIT_EXPECT_EQ(test, st.pcp_allocs - allocs, 1UL);
	KUNIT_EXPECT_TRUE(test, q->flags & PG_head);
	KUNIT_EXPECT_FALSE(test, q->flags & PG_pcp);
	/* A double free of a parked block is caught as on the zone's lists. */
	__free_pages(q, 0);
	page_alloc_get_stats(&st);
	allocs = st.bad_frees;
	__free_pages(q, 0);
	page_alloc_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.bad_frees - allocs, 1UL);
	page_alloc_drain_all();
}

#define RACE_CPUS 8 /* CPUs that take part in the cases run on every CPU */
#define PARK_BLOCKS 40 /* orders 0..3 in turn: 150 pages, past PCP_HIGH, so lists trim too */

static void park_some(struct kunit *test, void *arg)
{
	struct page *blk[PARK_BLOCKS];

	(void)arg;
	if (smp_processor_id() >= RACE_CPUS)
		return; /* 150 pages each: on 1024 CPUs that would be 600 MiB */
	for (int i = 0; i < PARK_BLOCKS; i++) {
		blk[i] = alloc_pages(GFP_KERNEL, (unsigned)(i % (PCP_MAX_ORDER + 1)));
		KUNIT_ASSERT_NOT_NULL(test, blk[i]);
	}
	for (int i = 0; i < PARK_BLOCKS; i++)
		__free_pages(blk[i], (unsigned)(i % (PCP_MAX_ORDER + 1)));
}

static void drain_returns_every_page(struct kunit *test)
{
	struct page_alloc_stats before, mid, after;

	page_alloc_drain_all();
	page_alloc_get_stats(&before);
	KUNIT_EXPECT_EQ(test, before.pcp, 0UL);
	kunit_run_on_all_cpus(test, park_some, NULL);
	page_alloc_get_stats(&mid);
	KUNIT_EXPECT_EQ(test, mid.free, before.free); /* parked pages count as free */
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before.free);
	KUNIT_EXPECT_EQ(test, mid.allocs - before.allocs, mid.frees - before.frees);
	if (page_alloc_pcp) {
		KUNIT_EXPECT_GT(test, mid.pcp, 0UL);
		KUNIT_EXPECT_LE(test, mid.pcp, (unsigned long)MIN(nr_cpu_ids, RACE_CPUS) * PCP_HIGH);
	} else {
		KUNIT_EXPECT_EQ(test, mid.pcp, 0UL);
	}
	page_alloc_drain_all();
	page_alloc_get_stats(&after);
	KUNIT_EXPECT_EQ(test, after.pcp, 0UL);
	KUNIT_EXPECT_TRUE_MSG(test, same_layout(test, &before, &after),
			      "the buddy lists did not coalesce back after the drain");
	kunit_info(test, "%lu pages were parked on %d CPUs' lists", mid.pcp,
		   MIN(nr_cpu_ids, RACE_CPUS));
}

static void park_on_this_cpu(void *arg) /* on the other CPU, in its IPI handler */
{
	struct page *pages[PCP_BATCH / 2];

	(void)arg;
	for (int i = 0; i < PCP_BATCH / 2; i++)
		pages[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0);
	for (int i = 0; i < PCP_BATCH / 2; i++)
		if (pages[i])
			__free_pages(pages[i], 0);
}

/*
 * Pages parked on another CPU's list while memory was plentiful; then this CPU takes every
 * page there is. Without the drain on failure those pages would stay stranded there.
 */
static void exhaustion_drains_other_cpus_lists(struct kunit *test)
{
	int other = smp_processor_id() ? 0 : 1;
	struct page_alloc_stats st;
	unsigned long parked;
	void *chain = NULL;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	page_alloc_drain_all();
	smp_call_function_single(other, park_on_this_cpu, NULL, 1);
	page_alloc_get_stats(&st);
	parked = st.pcp;
	if (page_alloc_pcp)
		KUNIT_EXPECT_GE(test, parked, (unsigned long)PCP_BATCH / 2);
	else
		KUNIT_EXPECT_EQ(test, parked, 0UL);
	/* Everything, largest blocks first. */
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct page *p;

		while ((p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, (unsigned)order))) {
			*(void **)page_address(p) = chain;
			*((unsigned long *)page_address(p) + 1) = (unsigned long)order;
			chain = page_address(p);
		}
	}
	page_alloc_get_stats(&st);
	KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), 0UL, "%lu pages were parked on cpu %d", parked,
			    other);
	KUNIT_EXPECT_EQ(test, st.pcp, 0UL);
	KUNIT_EXPECT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0));
	/* Out of memory: the other CPU's frees go to the zone, not to its list. */
	smp_call_function_single(other, park_on_this_cpu, NULL, 1);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), 0UL);
	while (chain) {
		void *next = *(void **)chain;

		free_pages((unsigned long)chain, (unsigned)*((unsigned long *)chain + 1));
		chain = next;
	}
	page_alloc_drain_all();
}

#define RACE_OPS 20000 /* steps of all CPUs together (each at least 200) */
#define RACE_SLOTS 24

/*
 * Each CPU: random allocations and frees of orders 0..3, every block stamped and checked
 * before it is freed, and every 4th step a drain of every CPU's lists, which takes the
 * other CPUs' list locks while they use them.
 */
static void drain_race_one_cpu(struct kunit *test, void *arg)
{
	struct stamped_block slot[RACE_SLOTS] = {};
	u64 rng = 0x2545f4914f6cdd1dULL * (u64)(smp_processor_id() + 1);
	int racers = MIN(nr_cpu_ids, RACE_CPUS), ops = MAX(RACE_OPS / racers, 200);

	(void)arg;
	if (smp_processor_id() >= racers)
		return; /* a few CPUs make the race; hundreds of emulated ones only make it slow */
	for (int op = 0; op < ops; op++) {
		u64 r = stamped_next(&rng);

		if (op % 4 == 3)
			page_alloc_drain_all();
		else
			stamped_step(test, slot, RACE_SLOTS, r, op, PCP_MAX_ORDER + 1);
	}
	stamped_free_all(slot, RACE_SLOTS);
}

static void drains_race_with_every_cpu(struct kunit *test)
{
	struct page_alloc_stats before, after;

	page_alloc_drain_all();
	page_alloc_get_stats(&before);
	kunit_run_on_all_cpus(test, drain_race_one_cpu, NULL);
	page_alloc_drain_all();
	page_alloc_get_stats(&after);
	KUNIT_EXPECT_EQ(test, after.bad_frees, before.bad_frees);
	KUNIT_EXPECT_EQ(test, after.allocs - before.allocs, after.frees - before.frees);
	KUNIT_EXPECT_TRUE_MSG(test, same_layout(test, &before, &after),
			      "the buddy lists did not coalesce back after the race");
}

static struct kunit_case page_pcp_cases[] = {
	KUNIT_CASE(freed_page_comes_back_without_zone_lock),
	KUNIT_CASE(drain_returns_every_page),
	KUNIT_CASE(exhaustion_drains_other_cpus_lists),
	KUNIT_CASE(drains_race_with_every_cpu),
	{}
};

static struct kunit_suite page_pcp_suite = {
	.name = "page_pcp",
	.test_cases = page_pcp_cases,
};
kunit_test_suite(page_pcp_suite);
