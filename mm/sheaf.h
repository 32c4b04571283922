/* SPDX-License-Identifier: MIT */
/*
 * Sheaves, arrays of object pointers (mm/sheaf.c): the prefilled sheaves of Linux's API
 * (mm/slab.h's kmem_cache_prefill_sheaf and its kin, for a cache of any scheme) and the
 * per-cpu layer of the "sheaves" scheme (mm/scheme_sheaves.c) share the structure and the
 * capacity a cache's sheaves have, as a cache's sheaf_capacity serves both in Linux. Not a
 * scheme of its own: a copy of the sheaves scheme under another name uses it too.
 */
#ifndef SLABLAB_SHEAF_H
#define SLABLAB_SHEAF_H

#include "kernel/rcu.h"
#include "mm/slub.h"

/* An array of object pointers (one page: header and up to SLAB_SHEAF_MAX pointers). */
struct slab_sheaf {
	/* An rcu_free sheaf (scheme_sheaves.c) from call_rcu to its callback: its cache. */
	struct rcu_head rcu;
	struct kmem_cache *cache;
	struct slab_sheaf *barn_next; /* under it in its barn stack; barn->lock */
	unsigned int size;          /* objects in it now */
	unsigned int capacity;
	void *below;                /* NULL: sheaf_top's word for an empty sheaf */
	void *objects[];
};

/* The object on top of a sheaf (the last one put in), or NULL when it is empty: no test. */
static inline void *sheaf_top(const struct slab_sheaf *sheaf)
{
	return ((void *const *)((const char *)sheaf->objects - sizeof(void *)))[sheaf->size];
}
_Static_assert(sizeof(struct slab_sheaf) + SLAB_SHEAF_MAX * sizeof(void *) <= PAGE_SIZE,
	       "a sheaf fits a page");

/*
 * The objects per sheaf a cache gets when it is created, by a rule the boot option
 * sheaf_capacity= chooses: a number (every cache that many), linux7 (Linux 7.0's by size,
 * sheaf_capacity_linux7) or slablab (sheaf_capacity_slablab); not given, SHEAF_RULE_DEFAULT.
 * A cache's own can be changed at run time (kmem_cache_set_sheaf_capacity, mm/slab.h).
 */
enum sheaf_rule { SHEAF_RULE_SLABLAB, SHEAF_RULE_LINUX7, SHEAF_RULE_FIXED };
#define SHEAF_RULE_DEFAULT SHEAF_RULE_SLABLAB

/* The rule sheaf_capacity= chose, and for SHEAF_RULE_FIXED its number (else 0). */
enum sheaf_rule sheaf_capacity_rule(unsigned int *fixed);

/* Objects per sheaf of s by that rule (0: s has debug flags, and no sheaves, as in 7.0). */
unsigned int sheaf_capacity(const struct kmem_cache *s);

/*
 * Linux 7.0's default capacity for a cache whose objects take `size` bytes (s->size) and
 * have `flags`: mm/slub.c's calculate_sheaf_capacity (commit e47c897a, "slab: add sheaves
 * to most caches"). 0 with any debug flag.
 */
unsigned int sheaf_capacity_linux7(unsigned int size, unsigned long flags);
/* slablab's own: 32 up to 256 bytes, 16 up to 1 KiB, 8 above. */
unsigned int sheaf_capacity_slablab(unsigned int size);

/*
 * Linux 7.0's struct slab_sheaf before its objects[] (x86-64): a 16-byte union (rcu_head,
 * barn_list, or capacity and pfmemalloc), the cache pointer, size and node. The linux7 rule
 * rounds a sheaf of this header and `capacity` pointers up to a kmalloc bucket.
 */
#define LINUX7_SHEAF_HEADER 32

/*
 * The offset in its page of a sheaf of this capacity that shares no low 12 address bits
 * with [avoid, avoid + avoid_size) (a cpu's struct kmem_cache_cpu: scheme_sheaves.c's
 * new_sheaf says why): the first multiple of 64 past that range, taken modulo the page, if
 * the sheaf fits between there and the page's end or the range's start; 0 otherwise (a
 * sheaf too big for the room).
 */
static inline unsigned long sheaf_offset_in_page(uptr avoid, unsigned long avoid_size,
						 unsigned int capacity)
{
	unsigned long need = sizeof(struct slab_sheaf) + capacity * sizeof(void *);
	unsigned long start = avoid & (PAGE_SIZE - 1), end = start + avoid_size, off;

	if (avoid_size >= PAGE_SIZE)
		return 0;
	if (end <= PAGE_SIZE) {
		off = ALIGN_UP(end, 64UL);
		return off + need <= PAGE_SIZE ? off : 0;
	}
	off = ALIGN_UP(end - PAGE_SIZE, 64UL); /* the range runs over into the next page */
	return off + need <= start ? off : 0;
}

#endif
