// SPDX-License-Identifier: MIT
/*
 * Sheaves (mm/sheaf.h): the capacity a cache's sheaves have, and the prefilled sheaves of
 * Linux 6.18's API (mm/slab.h) for a cache of any scheme: a sheaf of a page, filled with
 * one kmem_cache_alloc_bulk when it is made, so that the allocations from it cannot fail,
 * and given back with one kmem_cache_free_bulk.
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/sheaf.h"

unsigned int slub_sheaf_capacity_override;
boot_param(sheaf_capacity, slub_sheaf_capacity_override, uint, (1, 500), 0,
	   "objects per sheaf for the sheaves scheme (default: 32, 16 or 8 by size)");

/*
 * 32 up to 256 bytes: 64 kept a burst of 64 allocations and their 64 frees in the main sheaf
 * (bench-host's batch-64 about 2.5 cycles an object less) but cost bench-host's
 * producer/consumer half again (docs/BENCHMARKS.md).
 */
unsigned int sheaf_capacity(const struct kmem_cache *s)
{
	if (slub_sheaf_capacity_override)
		return slub_sheaf_capacity_override;
	return s->size <= 256 ? 32 : s->size <= 1024 ? 16 : 8;
}

struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp, unsigned int size)
{
	struct slab_sheaf *sheaf;
	struct page *page;

	if (size > SLAB_SHEAF_MAX) {
		printk("kmem_cache_prefill_sheaf(%s): %u objects, the most is %u\n", s->name, size,
		       SLAB_SHEAF_MAX);
		return NULL;
	}
	page = alloc_pages((gfp & ~__GFP_ZERO) | __GFP_NOWARN, 0);
	if (!page)
		return NULL;
	sheaf = page_address(page);
	sheaf->barn_next = NULL;
	sheaf->capacity = MAX(size, sheaf_capacity(s));
	sheaf->size = 0;
	sheaf->below = NULL;
	if (size && !kmem_cache_alloc_bulk(s, gfp & ~__GFP_ZERO, size, sheaf->objects)) {
		free_pages((unsigned long)sheaf, 0);
		return NULL;
	}
	sheaf->size = size;
	return sheaf;
}

void *kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf)
{
	void *p;

	if (!sheaf || !sheaf->size) {
		printk("kmem_cache_alloc_from_sheaf(%s): the sheaf is empty\n", s->name);
		return NULL;
	}
	p = sheaf->objects[--sheaf->size];
	if (gfp & __GFP_ZERO)
		memset(p, 0, s->object_size);
	return p;
}

void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf)
{
	if (!sheaf)
		return;
	kmem_cache_free_bulk(s, sheaf->size, sheaf->objects);
	free_pages((unsigned long)sheaf, 0);
}

unsigned int kmem_cache_sheaf_size(struct slab_sheaf *sheaf)
{
	return sheaf ? sheaf->size : 0;
}
