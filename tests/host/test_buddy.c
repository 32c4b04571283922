// SPDX-License-Identifier: MIT
/*
 * mm/page_alloc.c, the buddy allocator, over a calloc'd mem_map with gaps and unaligned
 * ranges: start-up state, exhaustion at every order, coalescing back, bad frees, and a long
 * randomised alloc/free run checked against a model of which pages are free.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/host/host_env.h"
#include "kernel/arch.h" /* RFLAGS_IF (arch/host/cpu.h) */
#include "kernel/numa.h"
#include "mm/page_alloc.h"
#include "tests/host/ktest.h"

#define NPFN 8192UL

/* Handed to the allocator: gaps at [0,3), [1000,1030), [5000,6144); the last range runs
 * past the page array (clamped to NPFN) and adjoins the one before it. */
static const struct {
	unsigned long start, end;
} ranges[] = {{3, 1000}, {1030, 5000}, {6144, 8100}, {8100, 9000}};
#define MANAGED_PAGES (997UL + 3970 + 1956 + 92)

static struct page *map;
static unsigned long npfn;
static unsigned char *managed;	  /* [pfn]: handed to the allocator */
static unsigned char *used;	  /* [pfn]: inside a block we hold */
static unsigned char *held_order; /* [pfn]: order + 1 of the block we hold that starts here */
static unsigned long nr_used;	  /* pages in blocks we hold */
static char irq_error[200];	  /* first call that returned with interrupts off */

struct block {
	unsigned long pfn;
	unsigned int order;
};
static struct block *held;
static size_t nr_held;

static uint64_t rng = 0x0badc0ffee123457ULL;

static uint64_t rnd(void) /* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned long rnd_below(unsigned long n)
{
	return (unsigned long)(rnd() % n);
}

static void check_irqs(const char *after)
{
	if (!(host_rflags & RFLAGS_IF) && !irq_error[0])
		snprintf(irq_error, sizeof(irq_error), "interrupts left off after %s", after);
	host_rflags |= RFLAGS_IF;
}

/* A fresh allocator over a fresh page array, with `ranges` added (npfn pages in all). */
static void setup_n(unsigned long n, bool add_ranges)
{
	free(map);
	free(managed);
	free(used);
	free(held_order);
	free(held);
	npfn = n;
	map = calloc(n, sizeof(*map)); /* exact size: ASan sees any access past the array */
	managed = calloc(n, 1);
	used = calloc(n, 1);
	held_order = calloc(n, 1);
	held = calloc(n, sizeof(*held));
	nr_held = nr_used = 0;
	memset(map, 0xa5, n * sizeof(*map)); /* setup must initialise every page */
	page_alloc_setup(map, n);
	check_irqs("page_alloc_setup");
	if (!add_ranges)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++) {
		page_alloc_add_range(ranges[i].start, ranges[i].end);
		check_irqs("page_alloc_add_range");
		for (unsigned long p = ranges[i].start; p < ranges[i].end && p < n; p++)
			managed[p] = 1;
	}
}

static void setup(void)
{
	setup_n(NPFN, true);
}

static struct page_alloc_stats stats(void)
{
	struct page_alloc_stats st;

	memset(&st, 0xa5, sizeof(st));
	/* The model knows the buddy lists: with per-cpu lists on, their pages go back first. */
	if (page_alloc_pcp)
		page_alloc_drain_all();
	page_alloc_get_stats(&st);
	check_irqs("page_alloc_get_stats");
	return st;
}

/* ---- the model: which pages are free, and the one buddy layout that set of pages has ---- */

static bool is_free(unsigned long pfn)
{
	return managed[pfn] && !used[pfn];
}

/*
 * A buddy allocator that always merges keeps its free pages as the largest aligned blocks
 * (up to MAX_ORDER) that are wholly free: that layout is unique. Writes order + 1 of the
 * block starting at each pfn into head (0 elsewhere) and the count per order into nr.
 */
static void model_layout(unsigned char *head, unsigned long nr[NR_ORDERS], unsigned long *nfree)
{
	unsigned long *prefix = malloc((npfn + 1) * sizeof(*prefix)); /* free pages below pfn */

	prefix[0] = 0;
	for (unsigned long p = 0; p < npfn; p++)
		prefix[p + 1] = prefix[p] + is_free(p);
	memset(head, 0, npfn);
	memset(nr, 0, NR_ORDERS * sizeof(nr[0]));
	*nfree = prefix[npfn];
	for (unsigned long p = 0; p < npfn;) {
		unsigned int k = 0;

		if (!is_free(p)) {
			p++;
			continue;
		}
		while (k < MAX_ORDER && !(p & ((2UL << k) - 1)) && p + (2UL << k) <= npfn &&
		       prefix[p + (2UL << k)] - prefix[p] == (2UL << k))
			k++;
		head[p] = (unsigned char)(k + 1);
		nr[k]++;
		p += 1UL << k;
	}
	free(prefix);
}

static bool page_in_map(const void *p)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)map, hi = (uintptr_t)(map + npfn);

	return a >= lo && a < hi && (a - lo) % sizeof(struct page) == 0;
}

/*
 * Everything the allocator's state must be, given the model: the statistics, every page's
 * flags and order, and the free lists (walked through the pages' lru links). Returns "" if
 * all is well, else what is wrong first.
 */
static const char *invariants(void)
{
	static char why[300];
	unsigned char *head = malloc(npfn);
	unsigned long nr[NR_ORDERS], nfree, mcount = 0;
	struct page_alloc_stats st = stats();

	why[0] = '\0';
	model_layout(head, nr, &nfree);
	for (unsigned long p = 0; p < npfn; p++)
		mcount += managed[p];
	if (st.managed != mcount)
		snprintf(why, sizeof(why), "managed %lu, model %lu", st.managed, mcount);
	else if (st.free != nfree)
		snprintf(why, sizeof(why), "free %lu, model %lu", st.free, nfree);
	else if (nr_free_pages() != nfree || nr_used_pages() != mcount - nfree)
		snprintf(why, sizeof(why), "nr_free_pages %lu nr_used_pages %lu, model %lu and %lu",
			 nr_free_pages(), nr_used_pages(), nfree, mcount - nfree);
	for (int k = 0; k <= MAX_ORDER && !why[0]; k++)
		if (st.nr_free[k] != nr[k])
			snprintf(why, sizeof(why), "nr_free[%d] %lu, model %lu", k, st.nr_free[k],
				 nr[k]);
	/* Page by page: free heads, held heads, tails, reserved pages. */
	for (unsigned long p = 0; p < npfn && !why[0];) {
		const struct page *pg = &map[p];
		unsigned long span = 1;

		if (!managed[p]) {
			if (pg->flags != PG_reserved)
				snprintf(why, sizeof(why), "pfn %#lx outside the ranges: flags %#x",
					 p, pg->flags);
		} else if (head[p]) {
			span = 1UL << (head[p] - 1);
			if (pg->flags != PG_buddy || pg->order != head[p] - 1)
				snprintf(why, sizeof(why),
					 "pfn %#lx should head a free block of order %d: flags %#x "
					 "order %u",
					 p, head[p] - 1, pg->flags, pg->order);
		} else if (held_order[p]) {
			span = 1UL << (held_order[p] - 1);
			if (pg->flags != PG_head || pg->order != held_order[p] - 1)
				snprintf(why, sizeof(why),
					 "pfn %#lx heads an allocated block of order %d: flags %#x "
					 "order %u",
					 p, held_order[p] - 1, pg->flags, pg->order);
		} else {
			snprintf(why, sizeof(why), "pfn %#lx is neither free nor held (flags %#x)",
				 p, pg->flags);
		}
		for (unsigned long t = p + 1; t < p + span && !why[0]; t++)
			if (map[t].flags)
				snprintf(why, sizeof(why),
					 "pfn %#lx, a tail of the block at %#lx, "
					 "has flags %#x",
					 t, p, map[t].flags);
		p += span;
	}
	/* The free lists: from each order's first head found, round the ring once. */
	for (unsigned int k = 0; k <= MAX_ORDER && !why[0]; k++) {
		unsigned long first = npfn, pages = 0, others = 0;
		const struct list_head *start, *e;

		for (unsigned long p = 0; p < npfn && first == npfn; p++)
			if (head[p] == k + 1)
				first = p;
		if (first == npfn)
			continue;
		start = &map[first].lru;
		e = start;
		do {
			if (e->next->prev != e) {
				snprintf(why, sizeof(why), "order %u free list: broken prev link",
					 k);
				break;
			}
			if (page_in_map(e)) {
				const struct page *pg = (const struct page *)e;

				if (!(pg->flags & PG_buddy) || pg->order != k) {
					snprintf(why, sizeof(why),
						 "order %u free list holds pfn %#lx "
						 "(flags %#x order %u)",
						 k, (unsigned long)(pg - map), pg->flags,
						 pg->order);
					break;
				}
				pages++;
			} else {
				others++;
			}
			e = e->next;
		} while (e != start && pages + others <= npfn + 1);
		if (!why[0] && (others != 1 || pages != nr[k]))
			snprintf(why, sizeof(why),
				 "order %u free list: %lu pages and %lu other "
				 "nodes, want %lu and 1",
				 k, pages, others, nr[k]);
	}
	free(head);
	return why;
}

/* ---- allocating and freeing through the model ---- */

static char alloc_error[300]; /* first bad block handed out */

static void bad_block(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad_block(const char *fmt, ...)
{
	va_list ap;

	if (alloc_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(alloc_error, sizeof(alloc_error), fmt, ap);
	va_end(ap);
}

/* Allocates one block and checks it: aligned, within the ranges, overlapping nothing held. */
static struct page *take(gfp_t gfp, unsigned int order)
{
	struct page *pg = alloc_pages(gfp, order);
	unsigned long pfn, n = 1UL << order;

	check_irqs("alloc_pages");
	if (!pg)
		return NULL;
	pfn = (unsigned long)(pg - map);
	if (!page_in_map(pg)) {
		bad_block("order %u: returned %p, not a page of the array", order, (void *)pg);
		return NULL;
	}
	if (pfn & (n - 1) || pfn + n > npfn) {
		bad_block("order %u: block at pfn %#lx is not aligned to %lu pages", order, pfn, n);
		return NULL;
	}
	for (unsigned long p = pfn; p < pfn + n; p++) {
		if (!managed[p] || used[p]) {
			bad_block("order %u: block at pfn %#lx includes pfn %#lx, which is %s",
				  order, pfn, p, managed[p] ? "already allocated" : "not RAM");
			return NULL;
		}
	}
	if (pg->flags != PG_head || pg->order != order)
		bad_block("order %u: block at pfn %#lx has flags %#x order %u", order, pfn,
			  pg->flags, pg->order);
	memset(used + pfn, 1, n);
	held_order[pfn] = (unsigned char)(order + 1);
	nr_used += n;
	held[nr_held].pfn = pfn;
	held[nr_held].order = order;
	nr_held++;
	return pg;
}

/* Frees held[i] (and forgets it). */
static void give_back(size_t i)
{
	struct block b = held[i];

	__free_pages(&map[b.pfn], b.order);
	check_irqs("__free_pages");
	memset(used + b.pfn, 0, 1UL << b.order);
	held_order[b.pfn] = 0;
	nr_used -= 1UL << b.order;
	held[i] = held[--nr_held];
}

static void give_back_all_randomly(void)
{
	while (nr_held)
		give_back(rnd_below(nr_held));
}

/* Free blocks per order as text, "[a b c ...]" (two rotating buffers). */
static const char *orders(const unsigned long nr[NR_ORDERS])
{
	static char buf[2][NR_ORDERS * 21 + 3];
	static int which;
	char *out = buf[which++ & 1];
	size_t n = 0;

	for (int k = 0; k < NR_ORDERS; k++)
		n += (size_t)sprintf(out + n, "%s%lu", k ? " " : "[", nr[k]);
	strcpy(out + n, "]");
	return out;
}

/* ---- the tests ---- */

static void small_layout(void)
{
	struct page_alloc_stats st;

	/* By hand: [3, 29) is 3 | 4-7 | 8-15 | 16-23 | 24-27 | 28. */
	setup_n(64, false);
	page_alloc_add_range(3, 29);
	st = stats();
	kt_check(st.managed == 26 && st.free == 26 && st.nr_free[0] == 2 && st.nr_free[1] == 0 &&
		     st.nr_free[2] == 2 && st.nr_free[3] == 2 && st.nr_free[4] == 0,
		 "add_range [3,29) makes blocks 1,4,8,8,4,1",
		 "managed %lu free %lu nr_free %lu %lu %lu %lu %lu", st.managed, st.free,
		 st.nr_free[0], st.nr_free[1], st.nr_free[2], st.nr_free[3], st.nr_free[4]);
	kt_check(map[3].flags == PG_buddy && map[3].order == 0 && map[4].order == 2 &&
		     map[8].order == 3 && map[16].order == 3 && map[24].order == 2 &&
		     map[28].flags == PG_buddy && map[28].order == 0 &&
		     map[29].flags == PG_reserved && map[2].flags == PG_reserved &&
		     map[5].flags == 0,
		 "add_range [3,29) page flags by hand", "flags of pfn 2..5: %#x %#x %#x %#x",
		 map[2].flags, map[3].flags, map[4].flags, map[5].flags);
	/* Adding [29, 32) and [0, 3) completes 0-31 into one block of order 5. */
	page_alloc_add_range(29, 32);
	page_alloc_add_range(0, 3);
	st = stats();
	kt_check(st.managed == 32 && st.nr_free[5] == 1 &&
		     st.nr_free[0] + st.nr_free[1] + st.nr_free[2] + st.nr_free[3] +
			     st.nr_free[4] ==
			 0 &&
		     map[0].flags == PG_buddy && map[0].order == 5,
		 "ranges added later merge into one order-5 block", "managed %lu nr_free[5] %lu",
		 st.managed, st.nr_free[5]);
	/* A page array smaller than a maximal block: no block may run past max_pfn. */
	setup_n(100, false);
	page_alloc_add_range(0, 100);
	for (unsigned long p = 0; p < 100; p++)
		managed[p] = 1;
	st = stats();
	kt_check(st.managed == 100 && st.nr_free[6] == 1 && st.nr_free[5] == 1 &&
		     st.nr_free[2] == 1 && !*invariants(),
		 "a 100-page array: blocks 64+32+4",
		 "managed %lu, nr_free[6] %lu [5] %lu [2] %lu; %s", st.managed, st.nr_free[6],
		 st.nr_free[5], st.nr_free[2], invariants());
}

static unsigned long initial_nr[NR_ORDERS];

static void setup_state(void)
{
	struct page_alloc_stats st;
	unsigned long nfree, before;
	unsigned char *head;
	const char *why;

	setup();
	st = stats();
	memcpy(initial_nr, st.nr_free, sizeof(initial_nr));
	KT_EQ_U("setup: managed pages (ranges clamped to the array)", st.managed, MANAGED_PAGES);
	KT_EQ_U("setup: every managed page is free", st.free, MANAGED_PAGES);
	kt_check(!st.allocs && !st.frees && !st.failed && !st.bad_frees,
		 "setup: counters start at zero", "allocs %lu frees %lu failed %lu bad_frees %lu",
		 st.allocs, st.frees, st.failed, st.bad_frees);
	head = malloc(npfn);
	model_layout(head, initial_nr, &nfree);
	free(head);
	kt_check(!memcmp(st.nr_free, initial_nr, sizeof(initial_nr)),
		 "setup: free blocks per order are the largest aligned ones",
		 "nr_free per order %s, model %s", orders(st.nr_free), orders(initial_nr));
	why = invariants();
	kt_check(!*why, "setup: page flags and free lists", "%s", why);
	kt_check(map[7168].flags == PG_buddy && map[7168].order == MAX_ORDER,
		 "setup: blocks merge across adjoining ranges",
		 "pfn 7168 (8100 is where the ranges meet): flags %#x order %u", map[7168].flags,
		 map[7168].order);
	kt_check(map[1000].flags == PG_reserved && map[1029].flags == PG_reserved &&
		     map[0].flags == PG_reserved && map[5000].flags == PG_reserved &&
		     map[6143].flags == PG_reserved,
		 "setup: pages in the gaps stay reserved", "flags of pfn 0 %#x, 1000 %#x, 6143 %#x",
		 map[0].flags, map[1000].flags, map[6143].flags);
	before = stats().managed;
	page_alloc_add_range(4000, 4000);
	page_alloc_add_range(NPFN, NPFN + 100);
	page_alloc_add_range(NPFN + 50, NPFN + 10);
	kt_check(stats().managed == before && !*invariants(),
		 "setup: empty ranges and ranges past the array add nothing",
		 "managed %lu, was %lu", stats().managed, before);
	KT_EQ_U("setup: nr_free_pages", nr_free_pages(), MANAGED_PAGES);
	KT_EQ_U("setup: nr_used_pages", nr_used_pages(), 0);
}

static void exhaust(void)
{
	char name[100];

	for (unsigned int k = 0; k <= MAX_ORDER; k++) {
		unsigned long want = 0, count = 0;
		struct page_alloc_stats st;
		bool none_left = true;
		const char *why;

		setup();
		for (unsigned int j = k; j <= MAX_ORDER; j++)
			want += initial_nr[j] << (j - k);
		alloc_error[0] = '\0';
		while (take(GFP_KERNEL | __GFP_NOWARN, k))
			count++;
		why = invariants();
		snprintf(name, sizeof(name), "order %u: exhaustion hands out every aligned block",
			 k);
		kt_check(count == want && !alloc_error[0] && !*why, name,
			 "%lu blocks, want %lu; %s; %s", count, want, alloc_error, why);
		st = stats();
		for (unsigned int j = k; j <= MAX_ORDER; j++)
			none_left = none_left && !st.nr_free[j];
		snprintf(name, sizeof(name), "order %u: then NULL, one failure counted", k);
		kt_check(none_left && st.failed == 1 && st.allocs == count, name,
			 "failed %lu, allocs %lu of %lu, free blocks of order >= %u left: %s",
			 st.failed, st.allocs, count, k, none_left ? "none" : "some");
		snprintf(name, sizeof(name),
			 "order %u: freeing all in random order restores the start", k);
		give_back_all_randomly();
		st = stats();
		why = invariants();
		kt_check(!memcmp(st.nr_free, initial_nr, sizeof(initial_nr)) &&
			     st.free == MANAGED_PAGES && st.frees == count && !*why,
			 name, "free %lu, frees %lu of %lu; %s", st.free, st.frees, count, why);
	}
}

static void warnings(void)
{
	struct page *pg;

	setup();
	while (take(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER))
		;
	host_console_reset();
	pg = take(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER);
	kt_check(!pg && !host_console_text()[0], "failed allocation with __GFP_NOWARN is quiet",
		 "printed \"%s\"", host_console_text());
	pg = take(GFP_KERNEL, MAX_ORDER);
	kt_check(!pg && host_console_has("out of memory"), "failed allocation without it says so",
		 "printed \"%s\"", host_console_text());
	host_console_reset();
	pg = alloc_pages(GFP_KERNEL, MAX_ORDER + 1);
	check_irqs("alloc_pages");
	kt_check(!pg && host_console_has("order 11"), "order MAX_ORDER+1 is refused",
		 "returned %p, printed \"%s\"", (void *)pg, host_console_text());
	host_console_reset();
	pg = alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER + 1);
	kt_check(!pg && !host_console_text()[0], "order MAX_ORDER+1 with __GFP_NOWARN is quiet",
		 "returned %p, printed \"%s\"", (void *)pg, host_console_text());
	kt_check(__get_free_pages(GFP_KERNEL, MAX_ORDER + 1) == 0,
		 "__get_free_pages of order MAX_ORDER+1 returns 0", "it did not");
	give_back_all_randomly();
	host_console_reset();
}

/* Frees what must be refused: counted in bad_frees, reported, and nothing else changes. */
static void bad_free(const char *name, struct page *pg, unsigned int order, const char *reason)
{
	struct page_alloc_stats a, b;
	const char *why;

	a = stats();
	host_console_reset();
	__free_pages(pg, order);
	check_irqs("__free_pages");
	b = stats();
	why = invariants();
	kt_check(b.bad_frees == a.bad_frees + 1 && b.free == a.free && b.frees == a.frees &&
		     !memcmp(a.nr_free, b.nr_free, sizeof(a.nr_free)) &&
		     host_console_has("bad free") && host_console_has(reason) && !*why,
		 name,
		 "bad_frees %lu -> %lu, free %lu -> %lu, frees %lu -> %lu; printed \"%s\", want "
		 "\"%s\"; %s",
		 a.bad_frees, b.bad_frees, a.free, b.free, a.frees, b.frees, host_console_text(),
		 reason, why);
}

static void bad_frees(void)
{
	struct page *pg, *single = NULL, fake;
	struct page_alloc_stats a, b;
	unsigned long addr;

	setup();
	/* With every order-0 page taken, a freed page has no free buddy and stays a free head. */
	while (take(GFP_KERNEL | __GFP_NOWARN, 0))
		;
	single = &map[held[nr_held / 2].pfn];
	give_back(nr_held / 2);
	bad_free("double free of a page whose buddy is in use", single, 0, "already free");
	give_back_all_randomly();

	pg = take(GFP_KERNEL, 2);
	bad_free("free with a smaller order", pg, 1, "order differs");
	bad_free("free with a larger order", pg, 3, "order differs");
	bad_free("free of a tail page", pg + 1, 0, "not the first page");
	bad_free("free of a tail page with the block's order", pg + 2, 2, "not the first page");
	bad_free("free with order MAX_ORDER+1", pg, MAX_ORDER + 1, "order too large");
	give_back(nr_held - 1);
	bad_free("double free after the block merged", pg, 2, "");
	bad_free("free of a reserved page in a gap", &map[1010], 0, "reserved");
	bad_free("free of reserved pfn 0", &map[0], 0, "reserved");
	bad_free("free of a page never allocated (free head)", &map[4], 2, "already free");
	bad_free("free of a free block's tail", &map[5], 0, "not the first page");
	bad_free("free of the page past mem_map", map + npfn, 0, "not a page of RAM");
	bad_free("free of a page before mem_map", map - 1, 0, "not a page of RAM");
	bad_free("free of a struct page not in mem_map", &fake, 0, "not a page of RAM");

	/* free_pages() by address. */
	addr = __get_free_pages(GFP_KERNEL, 3);
	kt_check(addr && !(addr & (PAGE_SIZE * 8 - 1)) &&
		     virt_to_page((void *)addr)->flags == PG_head,
		 "__get_free_pages order 3 gives an aligned address", "address %#lx", addr);
	kt_check(page_address(virt_to_page((void *)addr)) == (void *)addr &&
		     page_to_pfn(virt_to_page((void *)addr)) == addr >> PAGE_SHIFT,
		 "page_address and virt_to_page undo each other", "address %#lx", addr);
	if (addr) {
		unsigned long pfn = addr >> PAGE_SHIFT;

		memset(used + pfn, 1, 8);
		held_order[pfn] = 4;
		nr_used += 8;
	}
	a = stats();
	host_console_reset();
	free_pages(addr + 8, 3);
	free_pages(NPFN << PAGE_SHIFT, 0);
	b = stats();
	kt_check(b.bad_frees == a.bad_frees + 2 && b.free == a.free &&
		     host_console_has("not a page address"),
		 "free_pages of a misaligned or non-RAM address is refused",
		 "bad_frees %lu -> %lu, free %lu -> %lu, printed \"%s\"", a.bad_frees, b.bad_frees,
		 a.free, b.free, host_console_text());
	host_console_reset();
	free_pages(0, 5);
	b = stats();
	kt_check(b.bad_frees == a.bad_frees + 2 && !host_console_text()[0],
		 "free_pages(0) does nothing", "bad_frees %lu, printed \"%s\"", b.bad_frees,
		 host_console_text());
	free_pages(addr, 3);
	if (addr) {
		unsigned long pfn = addr >> PAGE_SHIFT;

		memset(used + pfn, 0, 8);
		held_order[pfn] = 0;
		nr_used -= 8;
	}
	b = stats();
	kt_check(b.free == a.free + 8 && b.frees == a.frees + 1 && !*invariants(),
		 "free_pages of a good address frees", "free %lu -> %lu; %s", a.free, b.free,
		 invariants());

	/* After all that, everything comes back together. */
	give_back_all_randomly();
	b = stats();
	kt_check(!memcmp(b.nr_free, initial_nr, sizeof(initial_nr)) && b.free == MANAGED_PAGES &&
		     !*invariants(),
		 "after the bad frees everything merges back", "free %lu; %s", b.free,
		 invariants());
	host_console_reset();
}

#define STRESS_OPS 200000
#define STRESS_CHECK_EVERY 500

static void stress(void)
{
	char inv_error[400] = "", fail_error[200] = "";
	unsigned long allocs = 0, frees = 0, failed = 0;
	struct page_alloc_stats st;
	const char *why;

	setup();
	alloc_error[0] = '\0';
	for (int op = 1; op <= STRESS_OPS; op++) {
		if (!nr_held || rnd_below(100) < 58) {
			/* Mostly small orders, sometimes any up to MAX_ORDER. */
			unsigned int order = rnd_below(4) ? (unsigned int)rnd_below(3)
							  : (unsigned int)rnd_below(MAX_ORDER + 1);
			bool could = false, got;

			st = stats();
			for (unsigned int j = order; j <= MAX_ORDER; j++)
				could = could || st.nr_free[j];
			got = take(GFP_KERNEL | __GFP_NOWARN, order) != NULL;
			allocs += got;
			failed += !got;
			if (!got && could && !fail_error[0])
				snprintf(fail_error, sizeof(fail_error),
					 "op %d: order %u failed with a big enough block free", op,
					 order);
		} else {
			give_back(rnd_below(nr_held));
			frees++;
		}
		if (stats().free != MANAGED_PAGES - nr_used && !inv_error[0])
			snprintf(inv_error, sizeof(inv_error), "op %d: free %lu, model %lu", op,
				 stats().free, MANAGED_PAGES - nr_used);
		if (op % STRESS_CHECK_EVERY == 0 && !inv_error[0]) {
			why = invariants();
			if (*why)
				snprintf(inv_error, sizeof(inv_error), "op %d: %s", op, why);
		}
	}
	printf("# stress: %lu allocs %lu frees %lu failed, %zu held at the end\n", allocs, frees,
	       failed, nr_held);
	kt_check(!alloc_error[0], "stress: every block handed out is aligned, RAM, unshared", "%s",
		 alloc_error);
	kt_check(!inv_error[0], "stress: state matches the model throughout", "%s", inv_error);
	kt_check(!fail_error[0] && failed > 0, "stress: allocations fail only when they must",
		 "%s (failures: %lu)", fail_error[0] ? fail_error : "no failure was exercised",
		 failed);
	st = stats();
	kt_check(st.allocs == allocs && st.frees == frees && st.failed == failed && !st.bad_frees,
		 "stress: allocs, frees, failed counters",
		 "allocs %lu/%lu frees %lu/%lu failed %lu/%lu bad_frees %lu", st.allocs, allocs,
		 st.frees, frees, st.failed, failed, st.bad_frees);
	give_back_all_randomly();
	st = stats();
	why = invariants();
	kt_check(!memcmp(st.nr_free, initial_nr, sizeof(initial_nr)) && st.free == MANAGED_PAGES &&
		     !*why,
		 "stress: draining restores the starting free lists", "free %lu; %s", st.free, why);
}

/* Two nodes split at pfn 4096, which the range [1030, 5000) straddles; this CPU on node 1. */
static void two_nodes(void)
{
	static struct numa_layout l;
	unsigned long got[2] = { 0, 0 }, wrong = 0, expect0 = 997 + (4096 - 1030);
	unsigned long expect1 = (5000 - 4096) + 1956 + 92;
	struct page_alloc_stats st0, st1;
	struct page *p;

	memset(&l, 0, sizeof(l));
	l.nr_nodes = 2;
	l.distance[0][0] = l.distance[1][1] = 10;
	l.distance[0][1] = l.distance[1][0] = 20;
	l.nr_memblks = 2;
	l.memblks[0] = (struct numa_memblk){ 0, 4096UL << PAGE_SHIFT, 0 };
	l.memblks[1] = (struct numa_memblk){ 4096UL << PAGE_SHIFT, NPFN << PAGE_SHIFT, 1 };
	l.nr_cpus = 1;
	l.cpu_apic[0] = 0;
	l.cpu_node[0] = 1;
	numa_install(&l, NULL);
	numa_assign_cpu(0, 0);
	setup();
	kt_check(nr_node_ids == 2 && numa_node_id() == 1 && numa_fallback[1][1] == 0,
		 "numa: two nodes installed, this CPU on node 1", "nodes %d here %d", nr_node_ids,
		 numa_node_id());
	p = alloc_pages(0, 3);
	kt_check(p && page_to_nid(p) == 1, "numa: alloc_pages takes from this CPU's node",
		 "page %p nid %d", (void *)p, p ? page_to_nid(p) : -1);
	if (p)
		__free_pages(p, 3);
	/* Every page of node 0, one at a time: none of node 1's (no block crosses pfn 4096). */
	while ((p = alloc_pages_node(0, __GFP_THISNODE | __GFP_NOWARN, 0))) {
		got[0]++;
		wrong += page_to_nid(p) != 0;
	}
	kt_check(got[0] == expect0 && !wrong,
		 "numa: __GFP_THISNODE drains node 0 alone; no buddy merged across the nodes",
		 "got %lu of %lu, %lu of another node", got[0], expect0, wrong);
	page_alloc_get_node_stats(1, &st1);
	kt_check(st1.free == expect1 && nr_free_pages_node(1) == expect1,
		 "numa: node 1 keeps its pages while node 0 is empty", "free %lu, want %lu", st1.free,
		 expect1);
	/* Node 0 empty: its allocations fall back to node 1 (none with __GFP_THISNODE). Node 0
	 * counts two failures then: the drain's last try and this one. */
	p = alloc_pages_node(0, __GFP_THISNODE | __GFP_NOWARN, 0);
	kt_check(!p, "numa: __GFP_THISNODE on an empty node fails", "page %p", (void *)p);
	p = alloc_pages_node(0, __GFP_NOWARN, 0);
	page_alloc_get_node_stats(1, &st1);
	page_alloc_get_node_stats(0, &st0);
	kt_check(p && page_to_nid(p) == 1 && st1.fallback == 1 && st0.failed == 2,
		 "numa: an empty node's allocation falls back to the nearest",
		 "page %p nid %d fallback %lu failed %lu", (void *)p, p ? page_to_nid(p) : -1,
		 st1.fallback, st0.failed);
	while ((p = alloc_pages_node(1, __GFP_THISNODE | __GFP_NOWARN, 0))) {
		got[1]++;
		wrong += page_to_nid(p) != 1;
	}
	kt_check(got[1] == expect1 - 1 && !wrong && !nr_free_pages(),
		 "numa: node 1's pages are its own; then nothing is left", "got %lu wrong %lu free %lu",
		 got[1], wrong, nr_free_pages());
	numa_reset();
	setup();
}

int main(void)
{
	/* Twice: without the per-cpu lists (the host build's default, no cmdline_defaults),
	 * then with them (one CPU's lists, drained by stats() before each comparison). */
	for (int pcp = 0; pcp <= 1; pcp++) {
		size_t first = kt_count;

		page_alloc_pcp = (unsigned int)pcp;
		small_layout();
		setup_state();
		exhaust();
		warnings();
		bad_frees();
		stress();
		two_nodes();
		for (size_t i = first; pcp && i < kt_count; i++) { /* names stay unique */
			char *named = kt_asprintf("pcp=1: %s", kt_results[i].name);

			free(kt_results[i].name);
			kt_results[i].name = named;
		}
	}
	kt_check(!irq_error[0], "interrupts restored after every call", "%s", irq_error);
	return kt_finish();
}
