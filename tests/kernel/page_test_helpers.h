/* SPDX-License-Identifier: MIT */
/*
 * What the page allocator's suites share (tests/kernel/page_alloc_test.c, page_pcp_test.c):
 * a CPU's random walk of allocations and frees over a few slots, each block stamped when it
 * is allocated and its stamps checked before it is freed, so a block handed out twice, or
 * written by another CPU, fails the test. Static: each suite gets its own copy.
 */
#ifndef SLABLAB_TESTS_PAGE_TEST_HELPERS_H
#define SLABLAB_TESTS_PAGE_TEST_HELPERS_H

#include "kernel/kunit.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"

struct stamped_block {
	u64 *mem; /* NULL: the slot is empty */
	unsigned int order;
	u64 stamp;
};

/* The walk's next random number (xorshift64; *rng must not start at 0). */
static inline u64 stamped_next(u64 *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/*
 * One step, from the random number r: slot r % nslots is freed if it holds a block (its
 * stamps checked first), else given a new block of an order below `orders`, stamped with
 * this CPU and the step number op.
 */
static inline void stamped_step(struct kunit *test, struct stamped_block *slot, int nslots,
				u64 r, int op, unsigned int orders)
{
	struct stamped_block *b = &slot[r % (u64)nslots];

	if (b->mem) {
		for (unsigned long w = 0; w < (PAGE_SIZE << b->order) / 8; w += 512)
			KUNIT_EXPECT_EQ_MSG(test, b->mem[w], b->stamp + w, "block changed under cpu %d",
					    smp_processor_id());
		free_pages((unsigned long)b->mem, b->order);
		b->mem = NULL;
	} else {
		unsigned int order = (unsigned int)((r >> 8) % orders);
		struct page *p = alloc_pages(GFP_KERNEL, order);

		KUNIT_ASSERT_NOT_NULL(test, p);
		b->mem = page_address(p);
		b->order = order;
		b->stamp = (u64)smp_processor_id() << 48 | (u64)op << 20;
		for (unsigned long w = 0; w < (PAGE_SIZE << order) / 8; w += 512)
			b->mem[w] = b->stamp + w;
	}
}

/* The blocks the walk still holds, freed. */
static inline void stamped_free_all(struct stamped_block *slot, int nslots)
{
	for (int i = 0; i < nslots; i++)
		if (slot[i].mem)
			free_pages((unsigned long)slot[i].mem, slot[i].order);
}

#endif
