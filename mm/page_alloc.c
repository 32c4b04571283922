// SPDX-License-Identifier: MIT
/*
 * Binary buddy allocator. A free block of 2^k pages starts at a pfn that is a multiple of
 * 2^k; its head page has PG_buddy and order k and sits on free_area[k]. Freeing a block
 * merges it with its buddy (pfn ^ 2^k) while the buddy is a free block of the same order.
 * An allocated block's head has PG_head and its order, so a free with the wrong order, of a
 * page that was never allocated, or twice, is caught and reported instead of corrupting
 * the free lists.
 *
 * zone.lock (irqsave) must be held to touch free_area, the counters and any page's
 * flags/order/lru while the page is free.
 */
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"

struct free_area {
	struct list_head list;
	unsigned long nr_free;
};

static struct zone {
	struct spinlock lock;
	/* zone.lock must be held to use these: */
	struct free_area free_area[NR_ORDERS];
	unsigned long managed, free;
	unsigned long allocs, frees, failed, bad_frees;
} zone = { .lock = SPINLOCK_INIT("zone") };

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
	for (int k = 0; k < NR_ORDERS; k++) {
		INIT_LIST_HEAD(&zone.free_area[k].list);
		zone.free_area[k].nr_free = 0;
	}
	zone.managed = zone.free = 0;
	zone.allocs = zone.frees = zone.failed = zone.bad_frees = 0;
}

static void add_free_block(unsigned long pfn, unsigned int order)
{
	struct page *p = pfn_to_page(pfn);

	p->flags = PG_buddy;
	p->order = (u8)order;
	list_add(&p->lru, &zone.free_area[order].list);
	zone.free_area[order].nr_free++;
}

static void del_free_block(struct page *p, unsigned int order)
{
	list_del(&p->lru);
	p->flags = 0;
	zone.free_area[order].nr_free--;
}

/* Merge the free block at pfn with its buddies as far as they go, then list it. */
static void free_block_locked(unsigned long pfn, unsigned int order)
{
	while (order < MAX_ORDER) {
		unsigned long buddy = pfn ^ (1UL << order);
		struct page *b;

		if (buddy + (1UL << order) > max_pfn)
			break;
		b = pfn_to_page(buddy);
		/*
		 * The buddy may be an allocated page whose owner (a slab being discarded) changes
		 * its flags without zone.lock: relaxed atomic loads. Only PG_buddy decides, and
		 * only zone.lock holders set or clear it.
		 */
		if (!(__atomic_load_n(&b->flags, __ATOMIC_RELAXED) & PG_buddy) ||
		    __atomic_load_n(&b->order, __ATOMIC_RELAXED) != order)
			break;
		del_free_block(b, order);
		pfn &= ~(1UL << order);
		order++;
	}
	add_free_block(pfn, order);
}

/* Hand [start, end) to the allocator, in the largest aligned blocks that fit. */
void page_alloc_add_range(unsigned long start, unsigned long end)
{
	unsigned long flags;

	if (end > max_pfn)
		end = max_pfn;
	spin_lock_irqsave(&zone.lock, flags);
	while (start < end) {
		unsigned int order = MAX_ORDER;

		while (order && ((start & ((1UL << order) - 1)) || start + (1UL << order) > end))
			order--;
		for (unsigned long i = 0; i < (1UL << order); i++)
			pfn_to_page(start + i)->flags = 0;
		zone.managed += 1UL << order;
		zone.free += 1UL << order;
		free_block_locked(start, order);
		start += 1UL << order;
	}
	spin_unlock_irqrestore(&zone.lock, flags);
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	struct page *p = NULL;
	unsigned long flags;
	unsigned int k;

	spin_lock_irqsave(&zone.lock, flags);
	if (order > MAX_ORDER) {
		zone.failed++;
		spin_unlock_irqrestore(&zone.lock, flags);
		if (!(gfp & __GFP_NOWARN))
			printk("page_alloc: order %u requested, the largest is %d\n", order,
			       MAX_ORDER);
		return NULL;
	}
	for (k = order; k <= MAX_ORDER; k++)
		if (!list_empty(&zone.free_area[k].list))
			break;
	if (k > MAX_ORDER) {
		unsigned long nfree = zone.free;

		zone.failed++;
		spin_unlock_irqrestore(&zone.lock, flags);
		if (!(gfp & __GFP_NOWARN))
			printk("page_alloc: out of memory for order %u (%lu pages free)\n", order,
			       nfree);
		return NULL;
	}
	p = list_first_entry(&zone.free_area[k].list, struct page, lru);
	del_free_block(p, k);
	/* Split: keep the low half, give the high halves back one order at a time. */
	while (k > order) {
		k--;
		add_free_block(page_to_pfn(p) + (1UL << k), k);
	}
	p->flags = PG_head;
	p->order = (u8)order;
	zone.free -= 1UL << order;
	zone.allocs++;
	spin_unlock_irqrestore(&zone.lock, flags);
	if (gfp & __GFP_ZERO)
		memset(page_address(p), 0, PAGE_SIZE << order);
	return p;
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
	const char *why;

	spin_lock_irqsave(&zone.lock, flags);
	why = bad_free_reason(page, order);
	if (why) {
		zone.bad_frees++;
		spin_unlock_irqrestore(&zone.lock, flags);
		printk("page_alloc: bad free of page %p (pfn %#lx) order %u: %s; ignored\n",
		       (void *)page, (unsigned long)(page - mem_map), order, why);
		return;
	}
	page->flags = 0;
	zone.free += 1UL << order;
	zone.frees++;
	free_block_locked(page_to_pfn(page), order);
	spin_unlock_irqrestore(&zone.lock, flags);
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

		spin_lock_irqsave(&zone.lock, flags);
		zone.bad_frees++;
		spin_unlock_irqrestore(&zone.lock, flags);
		printk("page_alloc: free_pages(%#lx): not a page address; ignored\n", addr);
		return;
	}
	__free_pages(virt_to_page((void *)addr), order);
}

void page_alloc_get_stats(struct page_alloc_stats *st)
{
	unsigned long flags;

	spin_lock_irqsave(&zone.lock, flags);
	st->managed = zone.managed;
	st->free = zone.free;
	for (int k = 0; k < NR_ORDERS; k++)
		st->nr_free[k] = zone.free_area[k].nr_free;
	st->allocs = zone.allocs;
	st->frees = zone.frees;
	st->failed = zone.failed;
	st->bad_frees = zone.bad_frees;
	spin_unlock_irqrestore(&zone.lock, flags);
}

unsigned long nr_free_pages(void)
{
	return READ_ONCE(zone.free);
}

unsigned long nr_used_pages(void)
{
	return READ_ONCE(zone.managed) - READ_ONCE(zone.free);
}
