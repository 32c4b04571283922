/* SPDX-License-Identifier: MIT */
/*
 * The physical page allocator: a binary buddy allocator, orders 0..MAX_ORDER (4 KiB .. 4 MiB),
 * over the RAM the multiboot2 memory map calls usable, minus everything reserved at boot
 * (below 1 MiB, the kernel image, the multiboot information, ACPI tables, the AP trampoline,
 * the page array itself and the early allocations). One zone per NUMA node (kernel/numa.h),
 * each with its own lock and free lists; a block never spans two nodes. alloc_pages takes
 * from the allocating CPU's node, alloc_pages_node from a given one, each falling back to
 * the nearest node with memory (numa_fallback) unless __GFP_THISNODE says not to.
 *
 * Per-cpu page lists (Linux's per_cpu_pages): each CPU keeps, per zone, a few free blocks
 * of orders 0..PCP_MAX_ORDER that it takes and gives back with interrupts off, without the
 * zone's lock and without splitting or merging; they are refilled from the zone and
 * drained to it PCP_BATCH pages at a time under its lock, when a list is empty or holds
 * more than PCP_HIGH pages. An allocation that finds no memory drains every CPU's lists
 * before it fails. Pages on these lists count as free: nr_free_pages(), nr_used_pages()
 * and the stats' free include them (stats.pcp says how many); stats.nr_free[] is the buddy
 * free lists only, so what must see those exactly calls page_alloc_drain_all() first.
 * A zone short of memory (fewer free pages than 1/16 of it or PCP_LOW_MIN) refills no list
 * in batches and parks no freed page: near exhaustion the allocator is the plain buddy one.
 * Boot option pcp=0 turns the lists off.
 *
 * RAM is direct-mapped at virtual == physical, so page_address() is the physical address.
 * Every 4 KiB frame has a 64-byte struct page in mem_map[], found in O(1) from any address
 * (virt_to_page); the slab allocator keeps its per-slab metadata there.
 */
#ifndef SLABLAB_PAGE_ALLOC_H
#define SLABLAB_PAGE_ALLOC_H

#include "kernel/list.h"
#include "kernel/types.h"
#include "mm/gfp.h"

#define MAX_ORDER 10
#define NR_ORDERS (MAX_ORDER + 1)

enum page_flags {
	PG_reserved = 1u << 0, /* never managed by the buddy allocator */
	PG_buddy = 1u << 1,    /* head of a free block of 2^order pages, on a free list */
	PG_head = 1u << 2,     /* head of an allocated block of 2^order pages */
	PG_slab = 1u << 3,     /* first page of a slab (mm/slub.c) */
	PG_tail = 1u << 4,     /* later page of a slab or a large kmalloc: private_[1] is the first */
	PG_large_kmalloc = 1u << 5, /* first page of a kmalloc too big for the slab caches */
	PG_pcp = 1u << 6,      /* head of a free block of 2^order pages on a per-cpu list */
};

struct page {
	struct list_head lru; /* buddy: free list link. Owner of the page: its own lists */
	u32 flags;            /* enum page_flags */
	u8 order;             /* order of the block this page heads (PG_buddy or PG_head) */
	u8 _pad[2];
	u8 nid;               /* NUMA node, set once at boot (page_alloc_setup); never changes */
	u64 private_[5];      /* for the page's owner (the slab allocator's struct slab) */
};
_Static_assert(sizeof(struct page) == 64, "struct page is one cache line");

extern struct page *mem_map;
extern unsigned long max_pfn;

static inline unsigned long page_to_pfn(const struct page *p)
{
	return (unsigned long)(p - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return &mem_map[pfn];
}

static inline void *page_address(const struct page *p)
{
	return (void *)(page_to_pfn(p) << PAGE_SHIFT);
}

static inline bool virt_addr_valid(const void *addr)
{
	return (uptr)addr >> PAGE_SHIFT < max_pfn;
}

static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page((uptr)addr >> PAGE_SHIFT);
}

/* The first page of the slab or large kmalloc a page belongs to (the page itself otherwise). */
static inline struct page *compound_head(struct page *p)
{
	return (p->flags & PG_tail) ? (struct page *)p->private_[1] : p;
}

static inline int page_to_nid(const struct page *p)
{
	return p->nid;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order);
/* From node nid (NUMA_NO_NODE: this CPU's), or the nearest with free memory. */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);

struct page_alloc_stats {
	unsigned long managed;              /* pages the allocator owns */
	unsigned long free;                 /* of which free now */
	unsigned long nr_free[NR_ORDERS];   /* free blocks per order */
	unsigned long allocs, frees, failed, bad_frees;
	unsigned long fallback;             /* allocations for another node served here */
	unsigned long pcp;                  /* free pages on per-cpu lists (counted in free) */
	unsigned long pcp_allocs, pcp_frees; /* of allocs and frees, those the lists served */
};

void page_alloc_get_stats(struct page_alloc_stats *st);
/* One node's figures (allocs and fallback counted where the pages came from). */
void page_alloc_get_node_stats(int nid, struct page_alloc_stats *st);
unsigned long nr_free_pages_node(int nid);
unsigned long nr_free_pages(void);
unsigned long nr_used_pages(void);

/* Per-cpu lists: orders they keep, the high watermark and the batch, in pages. */
#define PCP_MAX_ORDER 3
#define PCP_HIGH 64
#define PCP_BATCH 16
/* A zone with fewer free pages than 1/16 of its own, or than this, caches none. */
#define PCP_LOW_MIN 4096
extern unsigned int page_alloc_pcp; /* boot option pcp= (1: on) */
/* Every CPU's per-cpu lists back to their zones (cross-CPU: no IPI, each list's own lock). */
void page_alloc_drain_all(void);
/*
 * Called when an allocation finds no free block, before it fails (after the per-cpu lists
 * are drained): gives back pages that a user keeps for itself (the slab allocator's bulk
 * stashes) and returns how many; it must not allocate, and may run with any lock but a
 * zone's or a per-cpu list's held. One hook (mm/slab_common.c sets it); NULL: none.
 */
void page_alloc_set_reclaim(unsigned long (*reclaim)(void));
/* Acquisitions of node nid's zone lock so far (tests: the per-cpu path takes none). */
unsigned long page_alloc_zone_lock_count(int nid);

/* Boot: reserve, then hand the rest to the buddy allocator (mm/memblock.c). */
void memblock_reserve(u64 base, u64 len, const char *what);
void *early_alloc(size_t size, size_t align);
u64 early_alloc_low_page(void);
void page_alloc_init(void);
/*
 * The range page_alloc_init zeroed before the buddy allocator got it ([lo, hi), both 0 when
 * none): under TCG, the top 16 MiB of the highest usable region below 4 GiB, where the boot
 * loader ran code that QEMU would otherwise keep translated (mm/memblock.c).
 */
void page_alloc_scrubbed(u64 *lo, u64 *hi);

/* The buddy core's own set-up (memblock.c and the host test call these). */
void page_alloc_setup(struct page *map, unsigned long npfn);
void page_alloc_add_range(unsigned long start_pfn, unsigned long end_pfn);
u64 mem_total_usable(void);

#endif
