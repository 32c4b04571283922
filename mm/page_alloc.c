// SPDX-License-Identifier: MIT
/*
 * Binary buddy allocator. A free block of 2^k pages starts at a pfn that is a multiple of
 * 2^k; its head page has PG_buddy and order k and sits on free_area[k]. Freeing a block
 * merges it with its buddy (pfn ^ 2^k) while the buddy is a free block of the same order.
 * An allocated block's head has PG_head and its order, so a free with the wrong order, of a
 * page that was never allocated, or twice, is caught and reported instead of corrupting
 * the free lists.
 *
 * One zone per NUMA node: a block's pages are all of one node (page->nid, set at boot), so
 * a buddy of another node is never merged with. A zone's lock (irqsave) must be held to
 * touch its free_area, its counters and any of its pages' flags/order/lru while free.
 */
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/numa.h"
#include "mm/page_alloc.h"

struct free_area {
	struct list_head list;
	unsigned long nr_free;
};

static struct zone {
	struct spinlock lock;
	/* lock must be held to use these: */
	struct free_area free_area[NR_ORDERS];
	unsigned long managed, free;
	unsigned long allocs, frees, failed, bad_frees, fallback;
} zones[MAX_NUMNODES];

struct page *mem_map;
unsigned long max_pfn;

void page_alloc_setup(struct page *map, unsigned long npfn)
{
	mem_map = map;
	max_pfn = npfn;
	for (unsigned long i = 0; i < npfn; i++) {
		memset(&map[i], 0, sizeof(map[i]));
		map[i].flags = PG_reserved;
	}
	/* Each page's node, once: the memory blocks are sorted, so one pass over them. */
	for (int b = 0; b < numa_nr_memblks; b++)
		for (unsigned long pfn = numa_memblks[b].base >> PAGE_SHIFT;
		     pfn < npfn && pfn < ALIGN_UP(numa_memblks[b].end, PAGE_SIZE) >> PAGE_SHIFT; pfn++)
			map[pfn].nid = (u8)numa_memblks[b].nid;
	for (int n = 0; n < MAX_NUMNODES; n++) {
		struct zone *z = &zones[n];

		spin_lock_init(&z->lock, "zone");
		for (int k = 0; k < NR_ORDERS; k++) {
			INIT_LIST_HEAD(&z->free_area[k].list);
			z->free_area[k].nr_free = 0;
		}
		z->managed = z->free = 0;
		z->allocs = z->frees = z->failed = z->bad_frees = z->fallback = 0;
	}
}

static inline struct zone *page_zone(const struct page *p)
{
	return &zones[p->nid];
}

static void add_free_block(struct zone *z, unsigned long pfn, unsigned int order)
{
	struct page *p = pfn_to_page(pfn);

	p->flags = PG_buddy;
	p->order = (u8)order;
	list_add(&p->lru, &z->free_area[order].list);
	z->free_area[order].nr_free++;
}

static void del_free_block(struct zone *z, struct page *p, unsigned int order)
{
	list_del(&p->lru);
	p->flags = 0;
	z->free_area[order].nr_free--;
}

/* Merge the free block at pfn with its buddies (of its node) as far as they go, list it. */
static void free_block_locked(struct zone *z, unsigned long pfn, unsigned int order)
{
	u8 nid = pfn_to_page(pfn)->nid;

	while (order < MAX_ORDER) {
		unsigned long buddy = pfn ^ (1UL << order);
		struct page *b;

		if (buddy + (1UL << order) > max_pfn)
			break;
		b = pfn_to_page(buddy);
		if (b->nid != nid)
			break; /* another node's zone and lock */
		/*
		 * The buddy may be an allocated page whose owner (a slab being discarded) changes
		 * its flags without the zone's lock: relaxed atomic loads. Only PG_buddy decides,
		 * and only holders of that lock set or clear it.
		 */
		if (!(__atomic_load_n(&b->flags, __ATOMIC_RELAXED) & PG_buddy) ||
		    __atomic_load_n(&b->order, __ATOMIC_RELAXED) != order)
			break;
		del_free_block(z, b, order);
		pfn &= ~(1UL << order);
		order++;
	}
	add_free_block(z, pfn, order);
}

/* Hand [start, end) of one node to its zone, in the largest aligned blocks that fit. */
static void add_node_range(unsigned long start, unsigned long end)
{
	struct zone *z = &zones[pfn_to_page(start)->nid];
	unsigned long flags;

	spin_lock_irqsave(&z->lock, flags);
	while (start < end) {
		unsigned int order = MAX_ORDER;

		while (order && ((start & ((1UL << order) - 1)) || start + (1UL << order) > end))
			order--;
		for (unsigned long i = 0; i < (1UL << order); i++)
			pfn_to_page(start + i)->flags = 0;
		z->managed += 1UL << order;
		z->free += 1UL << order;
		free_block_locked(z, start, order);
		start += 1UL << order;
	}
	spin_unlock_irqrestore(&z->lock, flags);
}

/* Hand [start, end) to the allocator: split where the node changes. */
void page_alloc_add_range(unsigned long start, unsigned long end)
{
	if (end > max_pfn)
		end = max_pfn;
	while (start < end) {
		unsigned long stop = start + 1;

		while (stop < end && pfn_to_page(stop)->nid == pfn_to_page(start)->nid)
			stop++;
		add_node_range(start, stop);
		start = stop;
	}
}

/* A block of 2^order pages from zone z, or NULL. */
static struct page *zone_alloc(struct zone *z, unsigned int order, bool fallback)
{
	struct page *p;
	unsigned long flags;
	unsigned int k;

	spin_lock_irqsave(&z->lock, flags);
	for (k = order; k <= MAX_ORDER; k++)
		if (!list_empty(&z->free_area[k].list))
			break;
	if (k > MAX_ORDER) {
		spin_unlock_irqrestore(&z->lock, flags);
		return NULL;
	}
	p = list_first_entry(&z->free_area[k].list, struct page, lru);
	del_free_block(z, p, k);
	/* Split: keep the low half, give the high halves back one order at a time. */
	while (k > order) {
		k--;
		add_free_block(z, page_to_pfn(p) + (1UL << k), k);
	}
	p->flags = PG_head;
	p->order = (u8)order;
	z->free -= 1UL << order;
	z->allocs++;
	if (fallback)
		z->fallback++;
	spin_unlock_irqrestore(&z->lock, flags);
	return p;
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	struct page *p = NULL;
	unsigned long nfree = 0, flags;
	struct zone *home;

	if (nid == NUMA_NO_NODE || nid < 0 || nid >= nr_node_ids)
		nid = numa_node_id();
	home = &zones[nid];
	if (order > MAX_ORDER) {
		spin_lock_irqsave(&home->lock, flags);
		home->failed++;
		spin_unlock_irqrestore(&home->lock, flags);
		if (!(gfp & __GFP_NOWARN))
			printk("page_alloc: order %u requested, the largest is %d\n", order,
			       MAX_ORDER);
		return NULL;
	}
	/* This node, then the others nearest first (a memory-less node's CPUs start there). */
	for (int i = 0; i < nr_node_ids && !p; i++) {
		int n = numa_fallback[nid][i];

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (!numa_node_has_memory[n])
			continue; /* a memory-less node's zone: nothing to lock */
		p = zone_alloc(&zones[n], order, i > 0);
	}
	if (!p) {
		spin_lock_irqsave(&home->lock, flags);
		home->failed++;
		spin_unlock_irqrestore(&home->lock, flags);
		for (int n = 0; n < nr_node_ids; n++)
			nfree += READ_ONCE(zones[n].free);
		if (!(gfp & __GFP_NOWARN)) {
			if (gfp & __GFP_THISNODE)
				printk("page_alloc: out of memory for order %u on node %d (%lu pages "
				       "free there)\n", order, nid, READ_ONCE(home->free));
			else
				printk("page_alloc: out of memory for order %u (%lu pages free)\n",
				       order, nfree);
		}
		return NULL;
	}
	if (gfp & __GFP_ZERO)
		memset(page_address(p), 0, PAGE_SIZE << order);
	return p;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return alloc_pages_node(numa_node_id(), gfp, order);
}

static const char *bad_free_reason(struct page *page, unsigned int order)
{
	unsigned long pfn;

	if (page < mem_map || page >= mem_map + max_pfn)
		return "not a page of RAM";
	pfn = page_to_pfn(page);
	if (order > MAX_ORDER)
		return "order too large";
	if (page->flags & PG_reserved)
		return "reserved page, never allocated";
	if (page->flags & PG_buddy)
		return "already free (double free?)";
	if (!(page->flags & PG_head))
		return "not the first page of an allocated block";
	if (page->order != order)
		return "order differs from the allocation's";
	if (pfn & ((1UL << order) - 1))
		return "misaligned for its order";
	return NULL;
}

void __free_pages(struct page *page, unsigned int order)
{
	unsigned long flags;
	struct zone *z;
	const char *why;

	/* The zone of a page that is not RAM: node 0's, which counts the bad free. */
	z = page >= mem_map && page < mem_map + max_pfn ? page_zone(page) : &zones[0];
	spin_lock_irqsave(&z->lock, flags);
	why = bad_free_reason(page, order);
	if (why) {
		z->bad_frees++;
		spin_unlock_irqrestore(&z->lock, flags);
		printk("page_alloc: bad free of page %p (pfn %#lx) order %u: %s; ignored\n",
		       (void *)page, (unsigned long)(page - mem_map), order, why);
		return;
	}
	page->flags = 0;
	z->free += 1UL << order;
	z->frees++;
	free_block_locked(z, page_to_pfn(page), order);
	spin_unlock_irqrestore(&z->lock, flags);
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *p = alloc_pages(gfp, order);

	return p ? (unsigned long)page_address(p) : 0;
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (!addr)
		return;
	if (addr & (PAGE_SIZE - 1) || !virt_addr_valid((void *)addr)) {
		unsigned long flags;

		spin_lock_irqsave(&zones[0].lock, flags);
		zones[0].bad_frees++;
		spin_unlock_irqrestore(&zones[0].lock, flags);
		printk("page_alloc: free_pages(%#lx): not a page address; ignored\n", addr);
		return;
	}
	__free_pages(virt_to_page((void *)addr), order);
}

void page_alloc_get_node_stats(int nid, struct page_alloc_stats *st)
{
	struct zone *z = &zones[nid];
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	if (nid < 0 || nid >= MAX_NUMNODES)
		return;
	spin_lock_irqsave(&z->lock, flags);
	st->managed = z->managed;
	st->free = z->free;
	for (int k = 0; k < NR_ORDERS; k++)
		st->nr_free[k] = z->free_area[k].nr_free;
	st->allocs = z->allocs;
	st->frees = z->frees;
	st->failed = z->failed;
	st->bad_frees = z->bad_frees;
	st->fallback = z->fallback;
	spin_unlock_irqrestore(&z->lock, flags);
}

void page_alloc_get_stats(struct page_alloc_stats *st)
{
	struct page_alloc_stats one;

	memset(st, 0, sizeof(*st));
	for (int n = 0; n < MAX_NUMNODES; n++) {
		page_alloc_get_node_stats(n, &one);
		st->managed += one.managed;
		st->free += one.free;
		for (int k = 0; k < NR_ORDERS; k++)
			st->nr_free[k] += one.nr_free[k];
		st->allocs += one.allocs;
		st->frees += one.frees;
		st->failed += one.failed;
		st->bad_frees += one.bad_frees;
		st->fallback += one.fallback;
	}
}

unsigned long nr_free_pages_node(int nid)
{
	return READ_ONCE(zones[nid].free);
}

unsigned long nr_free_pages(void)
{
	unsigned long sum = 0;

	for (int n = 0; n < MAX_NUMNODES; n++)
		sum += READ_ONCE(zones[n].free);
	return sum;
}

unsigned long nr_used_pages(void)
{
	unsigned long sum = 0;

	for (int n = 0; n < MAX_NUMNODES; n++)
		sum += READ_ONCE(zones[n].managed) - READ_ONCE(zones[n].free);
	return sum;
}
