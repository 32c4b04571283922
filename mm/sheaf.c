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

static char sheaf_capacity_option[8];
static int sheaf_capacity_check(const char *val, char *err, size_t errlen);
boot_param(sheaf_capacity, sheaf_capacity_option, str, sheaf_capacity_check, "",
	   "objects per sheaf for the sheaves scheme: 1..500, linux7 (Linux 7.0's: 60, 28, 12 "
	   "or 4 by size) or slablab (32, 16 or 8 by size, the default)");

/* The number in val (1..500, decimal, no leading zero), or 0. */
static unsigned int capacity_number(const char *val)
{
	unsigned int n = 0;

	if (*val < '1' || *val > '9')
		return 0;
	for (; *val >= '0' && *val <= '9' && n <= SLAB_SHEAF_MAX; val++)
		n = n * 10 + (unsigned int)(*val - '0');
	return *val || n > SLAB_SHEAF_MAX ? 0 : n;
}

static int sheaf_capacity_check(const char *val, char *err, size_t errlen)
{
	if (!strcmp(val, "linux7") || !strcmp(val, "slablab") || capacity_number(val))
		return 0;
	snprintf(err, errlen, "sheaf_capacity=%s: a number of objects 1..%u, linux7 or slablab",
		 val, SLAB_SHEAF_MAX);
	return -1;
}

enum sheaf_rule sheaf_capacity_rule(unsigned int *fixed)
{
	unsigned int n = capacity_number(sheaf_capacity_option);

	if (fixed)
		*fixed = n;
	if (n)
		return SHEAF_RULE_FIXED;
	if (!strcmp(sheaf_capacity_option, "linux7"))
		return SHEAF_RULE_LINUX7;
	if (!strcmp(sheaf_capacity_option, "slablab"))
		return SHEAF_RULE_SLABLAB;
	return SHEAF_RULE_DEFAULT;
}

/*
 * 32 up to 256 bytes: 64 kept a burst of 64 allocations and their 64 frees in the main sheaf
 * (bench-host's batch-64 about 2.5 cycles an object less) but cost bench-host's
 * producer/consumer half again (docs/BENCHMARKS.md).
 */
unsigned int sheaf_capacity_slablab(unsigned int size)
{
	return size <= 256 ? 32 : size <= 1024 ? 16 : 8;
}

/*
 * Linux 7.0's calculate_sheaf_capacity (mm/slub.c, e47c897a): none for a debug cache (nor
 * for its two bootstrap caches, kmem_cache and kmem_cache_node, which slablab does not have:
 * its struct kmem_cache is a page from the page allocator); else 60 objects under 256
 * bytes, 26 from 256, 12 from 1 KiB and 4 from a page, "roughly similar formula (divided by
 * two as there are two percpu sheaves) as what was used for percpu partial slabs"; then
 * the capacity grows until the sheaf, header and pointers, fills its kmalloc bucket:
 * (kmalloc_size_roundup(header + 8 x capacity) - header) / 8. On x86-64 that gives 60
 * (512 bytes), 28 (256), 12 (128) and 4 (64). The last step of Linux's, the larger of this
 * and a capacity the cache's creator asked for, is kmem_cache_set_sheaf_capacity here.
 */
unsigned int sheaf_capacity_linux7(unsigned int size, unsigned long flags)
{
	unsigned int capacity;

	if (flags & SLAB_DEBUG_FLAGS)
		return 0;
	if (size >= PAGE_SIZE)
		capacity = 4;
	else if (size >= 1024)
		capacity = 12;
	else if (size >= 256)
		capacity = 26;
	else
		capacity = 60;
	return (unsigned int)((kmalloc_size_roundup(LINUX7_SHEAF_HEADER + capacity * sizeof(void *)) -
			       LINUX7_SHEAF_HEADER) / sizeof(void *));
}

unsigned int sheaf_capacity(const struct kmem_cache *s)
{
	unsigned int fixed;

	if (s->flags & SLAB_DEBUG_FLAGS)
		return 0;
	switch (sheaf_capacity_rule(&fixed)) {
	case SHEAF_RULE_FIXED:
		return fixed;
	case SHEAF_RULE_LINUX7:
		return sheaf_capacity_linux7(s->size, s->flags);
	default:
		return sheaf_capacity_slablab(s->size);
	}
}

unsigned int kmem_cache_sheaf_rule(struct kmem_cache *s, const char *rule)
{
	if (s->flags & SLAB_DEBUG_FLAGS)
		return 0;
	if (!strcmp(rule, "linux7"))
		return sheaf_capacity_linux7(s->size, s->flags);
	if (!strcmp(rule, "slablab"))
		return sheaf_capacity_slablab(s->size);
	return 0;
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
