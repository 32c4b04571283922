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
 *
 * Per-cpu lists (Linux's per_cpu_pages; mm/page_alloc.h says what they promise). Each CPU
 * has one struct per_cpu_pages per zone, in its per-cpu area: for each order 0..3 a stack
 * of free blocks (PG_pcp, linked through lru.next, the most recently freed first), the
 * pages they hold, and counters. Orders up to 3 as Linux keeps orders up to
 * PAGE_ALLOC_COSTLY_ORDER: the slab caches' slabs are of orders 0..3, so every cache's
 * discards and refills stay off the zone lock, and larger blocks are rare and worth merging.
 * A list is used with interrupts off under its own lock word, a byte that its CPU takes
 * with one xchg (a trylock: when a remote drainer holds it, that CPU goes to the zone
 * instead of waiting) and that page_alloc_drain_all() on any CPU spins for, so no
 * cross-call is needed: an allocation that runs out of memory, maybe with a slab list
 * lock held and interrupts off, drains every list itself. Lock order: a per-cpu list's
 * lock, then its zone's. A list that runs empty takes PCP_BATCH pages' worth of blocks
 * from the zone under one lock; one that holds more than PCP_HIGH pages gives its oldest
 * blocks back until PCP_HIGH - PCP_BATCH remain. A double free is caught on this path as
 * on the zone's (PG_pcp, PG_buddy), except two frees of one block racing on two CPUs.
 */
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/numa.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"

struct free_area {
	struct list_head list;
	unsigned long nr_free;
};

static struct zone {
	struct spinlock lock;
	/* lock must be held to use these: */
	struct free_area free_area[NR_ORDERS];
	unsigned long managed, free; /* free: in the buddy lists; read without the lock too */
	unsigned long allocs, frees, failed, bad_frees, fallback;
	/* Fewer free pages than this (set with managed): per-cpu lists neither refill in
	 * batches nor take frees, so near exhaustion every free page is where it can merge. */
	unsigned long pcp_low;
} zones[MAX_NUMNODES];

/* z->free += delta (z's lock held); a store others may read without the lock. */
static inline void zone_add_free(struct zone *z, long delta)
{
	__atomic_store_n(&z->free, (unsigned long)((long)z->free + delta), __ATOMIC_RELAXED);
}

static inline bool zone_low(struct zone *z)
{
	return __atomic_load_n(&z->free, __ATOMIC_RELAXED) < z->pcp_low;
}

struct per_cpu_pages {
	u32 lock;  /* 0 free, 1 held (pcp_trylock / pcp_lock) */
	u32 count; /* pages on the lists; written under lock, read by anyone (relaxed) */
	struct page *list[PCP_MAX_ORDER + 1]; /* blocks of each order, linked via lru.next */
	u32 nr[PCP_MAX_ORDER + 1];            /* blocks on each list */
	/* lock must be held to update these (plain increments: one instruction each, as the
	 * spinlocks' statistics); the stats read them without it, a figure maybe a step old */
	unsigned long allocs, frees, fallback;
};

static DEFINE_PER_CPU(struct per_cpu_pages, pcp_lists[MAX_NUMNODES]);

unsigned int page_alloc_pcp;
boot_param(pcp, page_alloc_pcp, uint, (0, 1), 1,
	   "1: per-cpu lists of free pages (orders 0-3); 0: every page from its zone's lock");

struct page *mem_map;
unsigned long max_pfn;

static inline bool pcp_trylock(struct per_cpu_pages *pcp)
{
	/* Acquire: the lists as the last holder left them are seen after we own the word. */
	return !__atomic_exchange_n(&pcp->lock, 1, __ATOMIC_ACQUIRE);
}

static inline void pcp_lock(struct per_cpu_pages *pcp)
{
	while (!pcp_trylock(pcp))
		while (__atomic_load_n(&pcp->lock, __ATOMIC_RELAXED))
			cpu_relax();
}

static inline void pcp_unlock(struct per_cpu_pages *pcp)
{
	/* Release: our changes to the lists and pages are visible before the word is free. */
	__atomic_store_n(&pcp->lock, 0, __ATOMIC_RELEASE);
}


static inline void pcp_add_count(struct per_cpu_pages *pcp, long pages)
{
	__atomic_store_n(&pcp->count, (u32)((long)pcp->count + pages), __ATOMIC_RELAXED);
}

/* Relaxed reads of another CPU's figures (written by the holder of its lock). */
static inline unsigned long pcp_read(const unsigned long *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static inline unsigned long pcp_pages(const struct per_cpu_pages *pcp)
{
	return __atomic_load_n(&pcp->count, __ATOMIC_RELAXED);
}

/* This CPU's lists for node nid's zone, or NULL when it must use the zone (interrupts off). */
static inline struct per_cpu_pages *this_pcp(int nid)
{
	/* An AP still starting has a number past nr_cpu_ids: no drain would find its lists. */
	if (unlikely((unsigned)smp_processor_id() >= (unsigned)nr_cpu_ids))
		return NULL;
	return this_cpu_ptr(&pcp_lists[nid]);
}

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
		z->managed = z->free = z->pcp_low = 0;
		z->allocs = z->frees = z->failed = z->bad_frees = z->fallback = 0;
	}
	/* A new page array (the host tests make many): no list may keep a page of the old one. */
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		memset(per_cpu_ptr(&pcp_lists[0], cpu), 0, sizeof(pcp_lists));
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
		z->pcp_low = MAX(z->managed / 16, (unsigned long)PCP_LOW_MIN);
		zone_add_free(z, 1L << order);
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

/* A block of 2^order pages from zone z, or NULL; its lock held. */
static struct page *zone_take_locked(struct zone *z, unsigned int order)
{
	struct page *p;
	unsigned int k;

	for (k = order; k <= MAX_ORDER; k++)
		if (!list_empty(&z->free_area[k].list))
			break;
	if (k > MAX_ORDER)
		return NULL;
	p = list_first_entry(&z->free_area[k].list, struct page, lru);
	del_free_block(z, p, k);
	/* Split: keep the low half, give the high halves back one order at a time. */
	while (k > order) {
		k--;
		add_free_block(z, page_to_pfn(p) + (1UL << k), k);
	}
	p->flags = PG_head;
	p->order = (u8)order;
	zone_add_free(z, -(1L << order));
	return p;
}

/* A block of 2^order pages from zone z, or NULL. */
static struct page *zone_alloc(struct zone *z, unsigned int order, bool fallback)
{
	struct page *p;
	unsigned long flags;

	spin_lock_irqsave(&z->lock, flags);
	p = zone_take_locked(z, order);
	if (p) {
		z->allocs++;
		if (fallback)
			z->fallback++;
	}
	spin_unlock_irqrestore(&z->lock, flags);
	return p;
}

/* A block that leaves a per-cpu list for its zone (both locks held). */
static void pcp_give_block(struct zone *z, struct page *p, unsigned int order)
{
	__atomic_store_n(&p->flags, 0, __ATOMIC_RELAXED);
	zone_add_free(z, 1L << order);
	free_block_locked(z, page_to_pfn(p), order);
}

/*
 * pcp's list of `order` is empty: a batch of blocks from zone z under one lock, one for
 * the caller (returned, PG_head) and the rest on the list. NULL when the zone has none.
 */
static struct page *pcp_refill(struct zone *z, struct per_cpu_pages *pcp, unsigned int order)
{
	unsigned int want = MAX(PCP_BATCH >> order, 1u), got;
	struct page *first, *last = NULL, *p;

	spin_lock(&z->lock);
	if (zone_low(z))
		want = 1; /* just the caller's */
	/*
	 * The zone hands out its smallest free blocks first (fragments before fresh splits);
	 * kept in that order on the (empty) list, the next allocations fill the fragments too,
	 * rather than leave them behind while longer-lived pages scatter into a new block.
	 */
	first = zone_take_locked(z, order);
	for (got = 1; first && got < want && (p = zone_take_locked(z, order)); got++) {
		__atomic_store_n(&p->flags, PG_pcp, __ATOMIC_RELAXED);
		p->lru.next = NULL;
		if (last)
			last->lru.next = (struct list_head *)p;
		else
			pcp->list[order] = p;
		last = p;
		pcp->nr[order]++;
		pcp_add_count(pcp, 1L << order);
	}
	spin_unlock(&z->lock);
	return first;
}

/*
 * pcp holds more than PCP_HIGH pages: its oldest blocks back to zone z, from the lists
 * that hold the most pages, until PCP_HIGH - PCP_BATCH remain. pcp's lock held.
 */
static __attribute__((noinline)) void pcp_trim(struct zone *z, struct per_cpu_pages *pcp)
{
	spin_lock(&z->lock);
	while (pcp->count > PCP_HIGH - PCP_BATCH) {
		unsigned int k = 0, keep, drop;
		struct page *p;

		for (unsigned int j = 1; j <= PCP_MAX_ORDER; j++)
			if ((pcp->nr[j] << j) > (pcp->nr[k] << k))
				k = j;
		drop = MIN(pcp->nr[k], (pcp->count - (PCP_HIGH - PCP_BATCH) + (1u << k) - 1) >> k);
		keep = pcp->nr[k] - drop;
		if (keep) {
			struct page *cut = pcp->list[k];

			for (unsigned int i = 1; i < keep; i++)
				cut = (struct page *)cut->lru.next;
			p = (struct page *)cut->lru.next;
			cut->lru.next = NULL;
		} else {
			p = pcp->list[k];
			pcp->list[k] = NULL;
		}
		pcp->nr[k] = keep;
		pcp_add_count(pcp, -(long)(drop << k));
		while (p) {
			struct page *next = (struct page *)p->lru.next;

			pcp_give_block(z, p, k);
			p = next;
		}
	}
	spin_unlock(&z->lock);
}

/* Every block of pcp back to zone z. pcp's lock held. */
static void pcp_drain(struct zone *z, struct per_cpu_pages *pcp)
{
	if (!pcp->count)
		return;
	spin_lock(&z->lock);
	for (unsigned int k = 0; k <= PCP_MAX_ORDER; k++) {
		struct page *p = pcp->list[k];

		pcp->list[k] = NULL;
		pcp->nr[k] = 0;
		while (p) {
			struct page *next = (struct page *)p->lru.next;

			pcp_give_block(z, p, k);
			p = next;
		}
	}
	pcp_add_count(pcp, -(long)pcp->count);
	spin_unlock(&z->lock);
}

void page_alloc_drain_all(void)
{
	unsigned long flags;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int n = 0; n < MAX_NUMNODES; n++) {
			struct per_cpu_pages *pcp = per_cpu_ptr(&pcp_lists[n], cpu);

			if (!pcp_pages(pcp))
				continue;
			local_irq_save(flags);
			pcp_lock(pcp);
			pcp_drain(&zones[n], pcp);
			pcp_unlock(pcp);
			local_irq_restore(flags);
		}
}

/* Pages on every CPU's lists for node nid's zone. */
static unsigned long pcp_node_pages(int nid)
{
	unsigned long sum = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += pcp_pages(per_cpu_ptr(&pcp_lists[nid], cpu));
	return sum;
}

/* The first block on pcp's list of `order`, off the list, or NULL. Its lock held. */
static inline __attribute__((always_inline)) struct page *pcp_take(struct per_cpu_pages *pcp,
								   unsigned int order)
{
	struct page *p = pcp->list[order];

	if (likely(p)) {
		pcp->list[order] = (struct page *)p->lru.next;
		pcp->nr[order]--;
		pcp_add_count(pcp, -(1L << order));
		__atomic_store_n(&p->flags, PG_head, __ATOMIC_RELAXED);
	}
	return p;
}

/* The first block on this CPU's list of `order` for node nid, or NULL (none, or locked). */
static inline __attribute__((always_inline)) struct page *pcp_pop(int nid, unsigned int order)
{
	struct per_cpu_pages *pcp;
	unsigned long flags;
	struct page *p = NULL;

	local_irq_save(flags);
	pcp = this_pcp(nid);
	if (likely(pcp && pcp_trylock(pcp))) {
		p = pcp_take(pcp, order);
		if (likely(p))
			pcp->allocs++;
		pcp_unlock(pcp);
	}
	local_irq_restore(flags);
	return p;
}

/* A block of 2^order pages from node nid: this CPU's list, refilled from the zone. */
static struct page *node_alloc(int nid, unsigned int order, bool fallback)
{
	struct zone *z = &zones[nid];
	struct per_cpu_pages *pcp;
	unsigned long flags;
	struct page *p;

	if (order > PCP_MAX_ORDER || !page_alloc_pcp)
		return zone_alloc(z, order, fallback);
	local_irq_save(flags);
	pcp = this_pcp(nid);
	if (unlikely(!pcp || !pcp_trylock(pcp))) {
		local_irq_restore(flags);
		return zone_alloc(z, order, fallback);
	}
	p = pcp_take(pcp, order);
	if (!p)
		p = pcp_refill(z, pcp, order);
	if (p) {
		pcp->allocs++;
		if (fallback)
			pcp->fallback++;
	}
	pcp_unlock(pcp);
	local_irq_restore(flags);
	return p;
}

/* From nid, then the others nearest first, as far as gfp allows. */
static struct page *alloc_from_nodes(int nid, gfp_t gfp, unsigned int order)
{
	struct page *p = NULL;

	/* This node, then the others nearest first (a memory-less node's CPUs start there). */
	for (int i = 0; i < nr_node_ids && !p; i++) {
		int n = numa_fallback[nid][i];

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (!numa_node_has_memory[n])
			continue; /* a memory-less node's zone: nothing to lock */
		p = node_alloc(n, order, i > 0);
	}
	return p;
}

/* Pages on per-cpu lists that an allocation from nid with gfp could have had. */
static unsigned long pcp_reachable(int nid, gfp_t gfp)
{
	unsigned long sum = 0;

	if (gfp & __GFP_THISNODE)
		return pcp_node_pages(nid);
	for (int n = 0; n < nr_node_ids; n++)
		sum += pcp_node_pages(n);
	return sum;
}

static unsigned long (*page_reclaim)(void);

void page_alloc_set_reclaim(unsigned long (*reclaim)(void))
{
	page_reclaim = reclaim;
}

/*
 * __GFP_NOLOCK (kmalloc_nolock's slabs, from any context, NMI included): this CPU's list,
 * whose lock is a trylock word already, then the zones, each by spin_trylock_nmi; no drain,
 * no reclaim, no message. NULL when a lock is held (perhaps by the code an NMI interrupted)
 * or no block is free.
 */
static struct page *alloc_pages_nolock(int nid, gfp_t gfp, unsigned int order)
{
	struct page *p = NULL;

	if (order > MAX_ORDER)
		return NULL;
	if (order <= PCP_MAX_ORDER && page_alloc_pcp)
		p = pcp_pop(nid, order);
	for (int i = 0; i < nr_node_ids && !p; i++) {
		int n = numa_fallback[nid][i];
		struct zone *z = &zones[n];
		unsigned long flags;

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (!numa_node_has_memory[n])
			continue;
		local_irq_save(flags);
		if (spin_trylock_nmi(&z->lock)) {
			p = zone_take_locked(z, order);
			if (p) {
				z->allocs++;
				if (i)
					z->fallback++;
			}
			spin_unlock(&z->lock);
		}
		local_irq_restore(flags);
	}
	if (p && (gfp & __GFP_ZERO))
		memset(page_address(p), 0, PAGE_SIZE << order);
	return p;
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	struct page *p = NULL;
	unsigned long nfree = 0, flags;
	struct zone *home;

	if (nid == NUMA_NO_NODE || nid < 0 || nid >= nr_node_ids)
		nid = numa_node_id();
	if (unlikely(gfp & __GFP_NOLOCK))
		return alloc_pages_nolock(nid, gfp, order);
	/* The fast path: a block this CPU freed or refilled for that node's zone. */
	if (likely(order <= PCP_MAX_ORDER && page_alloc_pcp)) {
		p = pcp_pop(nid, order);
		if (likely(p))
			goto found;
	}
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
	p = alloc_from_nodes(nid, gfp, order);
	if (!p && pcp_reachable(nid, gfp)) {
		/* Free pages parked on per-cpu lists (any CPU's): back to the zones, and again. */
		page_alloc_drain_all();
		p = alloc_from_nodes(nid, gfp, order);
	}
	if (!p && page_reclaim && page_reclaim()) {
		/* Pages a user kept (the slab stashes), maybe onto per-cpu lists: again. */
		page_alloc_drain_all();
		p = alloc_from_nodes(nid, gfp, order);
	}
	if (!p) {
		spin_lock_irqsave(&home->lock, flags);
		home->failed++;
		spin_unlock_irqrestore(&home->lock, flags);
		nfree = nr_free_pages();
		if (!(gfp & __GFP_NOWARN)) {
			if (gfp & __GFP_THISNODE)
				printk("page_alloc: out of memory for order %u on node %d (%lu pages "
				       "free there)\n", order, nid, nr_free_pages_node(nid));
			else
				printk("page_alloc: out of memory for order %u (%lu pages free)\n",
				       order, nfree);
		}
		return NULL;
	}
found:
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
	if (page->flags & (PG_buddy | PG_pcp))
		return "already free (double free?)";
	if (!(page->flags & PG_head))
		return "not the first page of an allocated block";
	if (page->order != order)
		return "order differs from the allocation's";
	if (pfn & ((1UL << order) - 1))
		return "misaligned for its order";
	return NULL;
}

/* bad_free_reason(page, order) == NULL, for a page of RAM and order <= MAX_ORDER, fast. */
static inline bool good_block(const struct page *page, unsigned int order)
{
	return (page->flags & (PG_reserved | PG_buddy | PG_pcp | PG_head)) == PG_head &&
	       page->order == order && !(page_to_pfn(page) & ((1UL << order) - 1));
}

/* A good block of order <= PCP_MAX_ORDER onto this CPU's list; false: use the zone. */
static inline bool pcp_free(struct page *page, unsigned int order)
{
	struct zone *z = page_zone(page);
	struct per_cpu_pages *pcp;
	unsigned long flags;

	if (unlikely(zone_low(z)))
		return false;
	local_irq_save(flags);
	pcp = this_pcp(page->nid);
	if (unlikely(!pcp || !pcp_trylock(pcp))) {
		local_irq_restore(flags);
		return false;
	}
	__atomic_store_n(&page->flags, PG_pcp, __ATOMIC_RELAXED);
	page->lru.next = (struct list_head *)pcp->list[order];
	pcp->list[order] = page;
	pcp->nr[order]++;
	pcp_add_count(pcp, 1L << order);
	pcp->frees++;
	if (unlikely(pcp->count > PCP_HIGH))
		pcp_trim(z, pcp);
	pcp_unlock(pcp);
	local_irq_restore(flags);
	return true;
}

static void free_pages_zone(struct page *page, unsigned int order);

void __free_pages(struct page *page, unsigned int order)
{
	/* The fast path: onto this CPU's list (no register saved on the way; checks inline). */
	if (likely(order <= PCP_MAX_ORDER && page_alloc_pcp && page >= mem_map &&
		   page < mem_map + max_pfn && good_block(page, order) && pcp_free(page, order)))
		return;
	free_pages_zone(page, order);
}

/* Into the zone under its lock, or reported as a bad free. */
static __attribute__((noinline)) void free_pages_zone(struct page *page, unsigned int order)
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
	zone_add_free(z, 1L << order);
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
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct per_cpu_pages *pcp = per_cpu_ptr(&pcp_lists[nid], cpu);

		st->pcp += pcp_pages(pcp);
		st->pcp_allocs += pcp_read(&pcp->allocs);
		st->pcp_frees += pcp_read(&pcp->frees);
		st->fallback += pcp_read(&pcp->fallback);
	}
	st->free += st->pcp;
	st->allocs += st->pcp_allocs;
	st->frees += st->pcp_frees;
}

unsigned long page_alloc_zone_lock_count(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	return __atomic_load_n(&zones[nid].lock.acquisitions, __ATOMIC_RELAXED);
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
		st->pcp += one.pcp;
		st->pcp_allocs += one.pcp_allocs;
		st->pcp_frees += one.pcp_frees;
	}
}

unsigned long nr_free_pages_node(int nid)
{
	if (!READ_ONCE(zones[nid].managed))
		return 0; /* no memory there, nothing on any list */
	return READ_ONCE(zones[nid].free) + pcp_node_pages(nid);
}

unsigned long nr_free_pages(void)
{
	unsigned long sum = 0;

	for (int n = 0; n < MAX_NUMNODES; n++)
		sum += nr_free_pages_node(n);
	return sum;
}

unsigned long nr_used_pages(void)
{
	unsigned long sum = 0;

	for (int n = 0; n < MAX_NUMNODES; n++)
		sum += READ_ONCE(zones[n].managed) - nr_free_pages_node(n);
	return sum;
}
