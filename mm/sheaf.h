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

#include "mm/slub.h"

/* An array of object pointers (one page: header and up to SLAB_SHEAF_MAX pointers). */
struct slab_sheaf {
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

/* The boot option sheaf_capacity= (0: not given, by size). */
extern unsigned int slub_sheaf_capacity_override;

/* Objects per sheaf of s: sheaf_capacity=, else 32, 16 or 8 by object size. */
unsigned int sheaf_capacity(const struct kmem_cache *s);

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
