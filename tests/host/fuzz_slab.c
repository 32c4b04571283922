// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the slab allocator (mm/slub.c, mm/slub_debug.c and the schemes, built
 * for the host as in test_slab.c, with ASan and UBSan) driven by random sequences of
 * create / alloc / kmalloc / free / bulk / krealloc / validate / destroy, with invalid
 * frees mixed in: double frees, pointers into an object, frees to the wrong cache, stack
 * addresses, and one-byte overflows into a red zone. Every cache has all debug checks on
 * (FZPU, in locked or partial mode, chosen by the input), the kmalloc caches too
 * (slub_debug=FZPU,kmalloc-*), and every hardening option is on.
 *
 * What makes it a test, besides ASan and UBSan: each invalid operation must be reported
 * exactly once (slab_error_count, slab_bad_input_count), valid ones never; an object's
 * content must survive until its free; no live or isolated object may be handed out twice;
 * validation of an undamaged cache finds nothing. Any failure aborts with a message.
 *
 *   make fuzz                 runs it for FUZZ_TIME seconds (default 60)
 *   tests/host/test_fuzz.sh   a short fixed-seed pass (make test)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/host/host_env.h"
#include "arch/host/host_smp.h"
#include "kernel/cmdline.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

#define NCACHES 4
#define NSLOTS 64
#define ARENA (128UL << 20)
#define MAX_ISOLATED 4096

struct slot {
	uint8_t *p;
	int cache;     /* index in caches[], or -1 for kmalloc */
	uint32_t size; /* bytes written */
	uint8_t tag;
};

static struct kmem_cache *caches[NCACHES];
static struct slot slots[NSLOTS];
static struct kmem_cache *victim; /* overflows land here: its isolated objects stay */
static void *isolated[MAX_ISOLATED];
static unsigned nr_isolated;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz_slab: " __VA_ARGS__);                                        \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

struct input {
	const uint8_t *d;
	size_t n;
};

static unsigned take(struct input *in, unsigned bits)
{
	unsigned v = 0;

	for (unsigned i = 0; i < (bits + 7) / 8; i++) {
		v = (v << 8) | (in->n ? *in->d : 0);
		if (in->n) {
			in->d++;
			in->n--;
		}
	}
	return bits >= 32 ? v : v & ((1u << bits) - 1);
}

static void expect_counts(unsigned long e0, unsigned long b0, unsigned long de, unsigned long db,
			  const char *what)
{
	unsigned long e = slab_error_count() - e0, b = slab_bad_input_count() - b0;

	if (e != de || b != db)
		FAIL("%s: %lu reports and %lu refused frees, want %lu and %lu", what, e, b, de, db);
}

static void check_new(void *p, uint32_t size)
{
	for (unsigned i = 0; i < nr_isolated; i++)
		if (isolated[i] == p)
			FAIL("an isolated object %p was handed out again", p);
	for (int i = 0; i < NSLOTS; i++)
		if (slots[i].p && (uint8_t *)p < slots[i].p + slots[i].size &&
		    slots[i].p < (uint8_t *)p + size)
			FAIL("new object %p overlaps live object %p", p, slots[i].p);
}

static void fill(struct slot *sl)
{
	for (uint32_t i = 0; i < sl->size; i++)
		sl->p[i] = (uint8_t)(sl->tag + i);
}

static void verify(struct slot *sl)
{
	for (uint32_t i = 0; i < sl->size; i++)
		if (sl->p[i] != (uint8_t)(sl->tag + i))
			FAIL("object %p byte %u changed while allocated", sl->p, i);
}

static void release(struct slot *sl)
{
	unsigned long e0 = slab_error_count(), b0 = slab_bad_input_count();

	verify(sl);
	if (sl->cache < 0)
		kfree(sl->p);
	else
		kmem_cache_free(caches[sl->cache], sl->p);
	expect_counts(e0, b0, 0, 0, "a valid free");
	sl->p = NULL;
}

static void destroy_cache(int c)
{
	unsigned long e0 = slab_error_count(), b0 = slab_bad_input_count();

	if (!caches[c])
		return;
	for (int i = 0; i < NSLOTS; i++)
		if (slots[i].p && slots[i].cache == c)
			release(&slots[i]);
	if (kmem_cache_validate(caches[c]) != 0)
		FAIL("validation of an undamaged cache reported errors");
	kmem_cache_destroy(caches[c]);
	expect_counts(e0, b0, 0, 0, "destroying an empty cache");
	caches[c] = NULL;
}

static void put(int i, void *p, int cache, uint32_t size, uint8_t tag)
{
	check_new(p, size);
	slots[i] = (struct slot){ p, cache, size, tag };
	fill(&slots[i]);
}

static void one_op(struct input *in)
{
	unsigned op = take(in, 4), i = take(in, 6), c = take(in, 2), arg = take(in, 16);
	struct slot *sl = &slots[i];
	unsigned long e0 = slab_error_count(), b0 = slab_bad_input_count();
	void *p;

	switch (op) {
	case 0: /* create */
		if (caches[c])
			destroy_cache((int)c);
		caches[c] = kmem_cache_create_debug("fuzz", 1 + arg % 3000, (arg >> 12) & 1 ? 64 : 0,
						    SLAB_DEBUG_FLAGS, NULL,
						    (arg >> 13) & 1 ? SLAB_DEBUG_PARTIAL
								    : SLAB_DEBUG_LOCKED);
		if (!caches[c])
			FAIL("kmem_cache_create_debug failed");
		break;
	case 1: /* alloc */
	case 2:
		if (sl->p)
			release(sl);
		if (!caches[c])
			break;
		p = kmem_cache_alloc(caches[c], (arg & 1) ? GFP_KERNEL | __GFP_ZERO : GFP_KERNEL);
		if (!p)
			FAIL("kmem_cache_alloc failed");
		put((int)i, p, (int)c, caches[c]->object_size, (uint8_t)arg);
		break;
	case 3: /* kmalloc */
		if (sl->p)
			release(sl);
		p = kmalloc(1 + arg % 9000, GFP_KERNEL);
		if (!p)
			FAIL("kmalloc failed");
		put((int)i, p, -1, 1 + arg % 9000, (uint8_t)(arg >> 8));
		break;
	case 4: /* free */
	case 5:
		if (sl->p)
			release(sl);
		break;
	case 6: { /* bulk alloc then bulk free some */
		void *v[32];
		unsigned n = 1 + arg % 32;

		if (!caches[c])
			break;
		if (kmem_cache_alloc_bulk(caches[c], GFP_KERNEL, n, v) != (int)n)
			FAIL("bulk alloc of %u failed", n);
		for (unsigned k = 0; k < n; k++) {
			check_new(v[k], caches[c]->object_size);
			memset(v[k], 0x3c, caches[c]->object_size);
		}
		kmem_cache_free_bulk(caches[c], n, v);
		expect_counts(e0, b0, 0, 0, "bulk");
		break;
	}
	case 7: /* krealloc a kmalloc'd object */
		if (!sl->p || sl->cache >= 0)
			break;
		verify(sl);
		p = krealloc(sl->p, 1 + arg % 9000, GFP_KERNEL);
		if (!p)
			FAIL("krealloc failed");
		sl->p = p;
		sl->size = MIN(sl->size, 1 + arg % 9000);
		verify(sl);
		sl->size = 1 + arg % 9000;
		fill(sl);
		expect_counts(e0, b0, 0, 0, "krealloc");
		break;
	case 8: /* double free */
		if (!sl->p)
			break;
		release(sl);
		break; /* the second free happens in case 9 only while the pointer is kept */
	case 9: { /* free, then free again: one report */
		uint8_t *q = sl->p;
		int cache = sl->cache;

		if (!q || cache < 0)
			break;
		release(sl);
		e0 = slab_error_count();
		kmem_cache_free(caches[cache], q);
		expect_counts(e0, b0, 1, 0, "a double free");
		break;
	}
	case 10: /* a pointer inside a live object */
		if (!sl->p || sl->size < 2 || (sl->cache < 0 && sl->size > KMALLOC_MAX_CACHE_SIZE))
			break; /* a large kmalloc is pages: refused as bad input, tested elsewhere */
		kfree(sl->p + 1 + arg % (sl->size - 1));
		expect_counts(e0, b0, 1, 0, "a free inside an object");
		break;
	case 11: { /* the wrong cache, a stack address */
		uint64_t local;
		int other = (int)((c + 1) % NCACHES);

		if (!sl->p || sl->cache < 0 || sl->cache == other || !caches[other])
			break;
		kmem_cache_free(caches[other], sl->p);
		kmem_cache_free(caches[other], &local);
		expect_counts(e0, b0, 0, 2, "frees to the wrong cache and of the stack");
		break;
	}
	case 12: /* one byte past an object of the victim cache, then its free */
		if (nr_isolated == MAX_ISOLATED)
			break;
		p = kmem_cache_alloc(victim, GFP_KERNEL);
		if (!p)
			FAIL("victim alloc failed");
		check_new(p, victim->object_size);
		((uint8_t *)p)[victim->object_size + arg % 8] ^= 0x55;
		kmem_cache_free(victim, p);
		expect_counts(e0, b0, 1, 0, "an overflowed object's free");
		isolated[nr_isolated++] = p;
		break;
	case 13: /* validate */
		if (caches[c] && kmem_cache_validate(caches[c]) != 0)
			FAIL("validation of an undamaged cache reported errors");
		break;
	case 14: /* destroy */
		destroy_cache((int)c);
		break;
	case 15: /* kmalloc tail: write past the requested size */
		if (nr_isolated == MAX_ISOLATED)
			break;
		p = kmalloc(1 + arg % 100, GFP_KERNEL);
		if (!p)
			FAIL("kmalloc failed");
		if (ksize(p) > 1 + arg % 100) {
			((uint8_t *)p)[1 + arg % 100] = 0;
			kfree(p);
			expect_counts(e0, b0, 1, 0, "a write into the kmalloc tail");
			isolated[nr_isolated++] = p;
		} else {
			kfree(p);
		}
		break;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512];

	if (!getenv("FUZZ_VERBOSE") && !freopen("/dev/null", "w", stdout))
		abort();
	host_arena_init(HOST_ARENA_BASE, ARENA);
	host_smp_init(1);
	/* seed=1: repeatable keys and shuffles */
	if (cmdline_parse("slub_debug=FZPU,kmalloc-* freelist_hardened=1 freelist_random=1 "
			  "init_on_alloc=1 init_on_free=1 seed=1", err, sizeof(err)))
		FAIL("the command line: %s", err);
	slab_init();
	victim = kmem_cache_create_debug("fuzz-victim", 40, 0, SLAB_DEBUG_FLAGS, NULL,
					 SLAB_DEBUG_LOCKED);
	if (!victim)
		FAIL("cannot create the victim cache");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };

	while (in.n)
		one_op(&in);
	for (int i = 0; i < NSLOTS; i++)
		if (slots[i].p)
			release(&slots[i]);
	for (int c = 0; c < NCACHES; c++)
		destroy_cache(c);
	if (kmem_cache_validate(victim) != 0)
		FAIL("validation of the victim cache reported errors");
	host_console_reset();
	return 0;
}
