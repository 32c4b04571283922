// SPDX-License-Identifier: MIT
/*
 * slub_debug: corrupt on purpose and expect an exact number of reports, as Linux's
 * lib/slub_kunit.c does (its cases: a byte past an object, a clobbered free pointer that
 * validation then repairs, the first word and the 50th byte of a freed object, a write past
 * a freed object, the kmalloc tail red zone, destroying a cache with a live object), plus
 * double frees, pointers into the middle, the wrong cache, stack and never-allocated
 * addresses, damage caught when an object is handed out again or freed, and hardening.
 * Every case runs in both debug modes (locked, partial); each ends with the cache working.
 * A stress on every CPU at once then runs over debug caches and validates them.
 */
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/random.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

static const enum slab_debug_mode modes[] = { SLAB_DEBUG_LOCKED, SLAB_DEBUG_PARTIAL };
#define for_each_mode(m) for (unsigned _i = 0, m; _i < ARRAY_SIZE(modes) && ((m = modes[_i]), 1); _i++)
#define MNAME(m) ((m) == SLAB_DEBUG_LOCKED ? "locked" : "partial")
#define FZPU SLAB_DEBUG_FLAGS

static struct kmem_cache *mk(struct kunit *test, const char *name, unsigned size,
			     unsigned long flags, unsigned mode)
{
	struct kmem_cache *s = kmem_cache_create_debug(name, size, 0, flags, NULL,
						       (enum slab_debug_mode)mode);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, slub_debug_mode(s), mode);
	return s;
}

/* Reports and refused frees since the last call. */
struct counts {
	unsigned long errors, bad;
};

static void snap(struct counts *c)
{
	c->errors = slab_error_count();
	c->bad = slab_bad_input_count();
}

#define EXPECT_REPORTS(test, c, want_errors, want_bad, m)                                          \
	do {                                                                                       \
		KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - (c)->errors, (unsigned long)(want_errors), \
				    "%s mode", MNAME(m));                                         \
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - (c)->bad,                       \
				    (unsigned long)(want_bad), "%s mode", MNAME(m));               \
		snap(c);                                                                           \
	} while (0)

/* After damage: the cache still hands out and takes back distinct, usable objects. */
static void still_works(struct kunit *test, struct kmem_cache *s, const void *avoid)
{
	void *p[40];

	for (int i = 0; i < 40; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_PTR_NE(test, p[i], avoid);
		for (int j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, p[i], p[j]);
		memset(p[i], 0x11, s->object_size);
	}
	for (int i = 0; i < 40; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
}

/* Linux's test_clobber_zone: one byte past an allocated object, found by validation. */
static void clobber_right_redzone(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_RZ_alloc", 64, SLAB_RED_ZONE, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

		snap(&c);
		p[64] = 0x12;
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
		kmem_cache_free(s, p); /* isolated: kept, not reported again */
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		still_works(test, s, p);
		kmem_cache_destroy(s); /* only the isolated object is left: kept quietly */
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

static void clobber_left_redzone(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_LRZ", 64, SLAB_RED_ZONE, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

		snap(&c);
		p[-1] = 0x34;
		kmem_cache_free(s, p); /* caught on free, set aside */
		EXPECT_REPORTS(test, &c, 1, 0, m);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		still_works(test, s, p);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* Linux's test_next_pointer: the free pointer of a freed object clobbered. */
static void clobber_free_pointer(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_next_ptr_free", 64, SLAB_POISON, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

		kmem_cache_free(s, p);
		snap(&c);
		p[s->offset] = (u8)~p[s->offset];
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
		/* The slab was quarantined: validation finds the rest sound. */
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		still_works(test, s, p);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* The same, found by the allocation that would follow the bad pointer. */
static void clobber_free_pointer_then_alloc(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_next_ptr_alloc", 64, FZPU, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL), *q;

		kmem_cache_free(s, p);
		snap(&c);
		p[s->offset] = (u8)~p[s->offset];
		q = kmem_cache_alloc(s, GFP_KERNEL); /* p: its successor is not followed */
		KUNIT_EXPECT_PTR_EQ(test, q, p);
		q = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, q);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		kmem_cache_free(s, p);
		kmem_cache_free(s, q);
		still_works(test, s, NULL);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* Linux's test_first_word and test_clobber_50th_byte: a freed object written to. */
static void clobber_freed_object(struct kunit *test)
{
	static const unsigned offs[] = { 0, 50 };
	struct counts c;

	for_each_mode(m) {
		for (unsigned i = 0; i < ARRAY_SIZE(offs); i++) {
			struct kmem_cache *s = mk(test, "TestSlub_1th_word_free", 64, SLAB_POISON, m);
			u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

			kmem_cache_free(s, p);
			snap(&c);
			p[offs[i]] = 0x78;
			KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
			KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
			EXPECT_REPORTS(test, &c, 1, 0, m);
			still_works(test, s, p);
			kmem_cache_destroy(s);
			EXPECT_REPORTS(test, &c, 0, 0, m);
		}
	}
}

/* Linux's test_clobber_redzone_free: a write past an object after it was freed. */
static void clobber_redzone_after_free(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_RZ_free", 64, SLAB_RED_ZONE, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

		kmem_cache_free(s, p);
		snap(&c);
		p[64] = 0xab;
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		still_works(test, s, p);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* F: a slab's count of objects in use damaged; validation reports and repairs it. */
static void wrong_object_count(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_count", 64, SLAB_CONSISTENCY_CHECKS, m);
		void *p = kmem_cache_alloc(s, GFP_KERNEL), *q = kmem_cache_alloc(s, GFP_KERNEL);
		struct slab *slab = virt_to_slab(p);

		kmem_cache_free(s, q);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0); /* every cpu slab flushed */
		snap(&c);
		slab->inuse += 3;
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		kmem_cache_free(s, p);
		still_works(test, s, NULL);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* A freed object written to is caught when it would be handed out again. */
static void use_after_free_caught_on_alloc(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_UAF", 96, SLAB_POISON, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL), *q;

		kmem_cache_free(s, p);
		snap(&c);
		p[10] = 0;
		q = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, q);
		KUNIT_EXPECT_PTR_NE(test, q, p);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		kmem_cache_free(s, q);
		still_works(test, s, p);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* Linux's test_kmalloc_redzone_access: kmalloc(18) then byte 18 written. */
static void kmalloc_tail_redzone(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_RZ_kmalloc", 32,
					  SLAB_RED_ZONE | SLAB_STORE_USER, m);
		u8 *p = kmalloc_from_cache(s, 18, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		snap(&c);
		p[17] = 0x01; /* the last requested byte: fine */
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
		p[18] = 0xab;
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 1);
		kfree(p);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		/* Without validation: the free finds it. */
		p = kmalloc_from_cache(s, 18, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		p[20] = 0xab;
		kfree(p);
		EXPECT_REPORTS(test, &c, 1, 0, m);
		still_works(test, s, p);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* The kmalloc caches themselves, when booted with slub_debug= naming them. */
static void kmalloc_caches_tail_redzone(struct kunit *test)
{
	struct counts c;
	u8 *p = kmalloc(18, GFP_KERNEL);
	struct kmem_cache *s;

	KUNIT_ASSERT_NOT_NULL(test, p);
	s = virt_to_slab(p)->slab_cache;
	if (!(slub_debug_flags(s) & SLAB_RED_ZONE)) {
		kfree(p);
		kunit_skip(test, "%s has no red zone (boot with slub_debug=Z,kmalloc-*)", s->name);
	}
	snap(&c);
	p[18] = 0x77;
	kfree(p);
	EXPECT_REPORTS(test, &c, 1, 0, slub_debug_mode(s));
	p = krealloc(kmalloc(100, GFP_KERNEL), 20, GFP_KERNEL); /* shrunk in place */
	KUNIT_ASSERT_NOT_NULL(test, p);
	p[20] = 0x77;
	kfree(p);
	EXPECT_REPORTS(test, &c, 1, 0, slub_debug_mode(s));
}

/*
 * Linux's test_leak_destroy: destroying a cache with an object still allocated is two
 * reports, as Linux's KUnit counts them: the objects listed, and destroy's own warning.
 */
static void destroy_with_live_object(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_leak_destroy", 64, FZPU, m);
		void *p = kmem_cache_alloc(s, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		snap(&c);
		kmem_cache_destroy(s); /* reported; the cache is kept */
		EXPECT_REPORTS(test, &c, 2, 0, m);
		kmem_cache_free(s, p);
		kmem_cache_destroy(s); /* now it goes */
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* Double frees with every letter that can tell: F's state word, Z's red zones. */
static void double_free(struct kunit *test)
{
	static const unsigned long flagsets[] = { FZPU, SLAB_CONSISTENCY_CHECKS, SLAB_RED_ZONE };
	struct counts c;

	for_each_mode(m) {
		for (unsigned i = 0; i < ARRAY_SIZE(flagsets); i++) {
			struct kmem_cache *s = mk(test, "TestSlub_double_free", 128, flagsets[i], m);
			void *p = kmem_cache_alloc(s, GFP_KERNEL), *q = kmem_cache_alloc(s, GFP_KERNEL);

			snap(&c);
			kmem_cache_free(s, p);
			kmem_cache_free(s, p);
			KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - c.errors, 1UL, "flags %#lx %s",
					    flagsets[i], MNAME(m));
			KUNIT_EXPECT_EQ(test, slab_bad_input_count() - c.bad, 0UL);
			snap(&c);
			kmem_cache_free(s, q);
			kmem_cache_free(s, q); /* not the last freed any more */
			EXPECT_REPORTS(test, &c, 1, 0, m);
			still_works(test, s, NULL); /* and never the same object twice */
			kmem_cache_destroy(s);
			EXPECT_REPORTS(test, &c, 0, 0, m);
		}
	}
}

static void free_pointer_into_object(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_middle", 100, FZPU, m);
		u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

		snap(&c);
		kmem_cache_free(s, p + 8);
		kfree(p + 99);
		EXPECT_REPORTS(test, &c, 2, 0, m);
		kmem_cache_free(s, p); /* the object itself was never touched */
		EXPECT_REPORTS(test, &c, 0, 0, m);
		still_works(test, s, NULL);
		kmem_cache_destroy(s);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
}

/* Refused before any debug check, as for every cache: counted as bad input. */
static void free_to_wrong_cache_and_stray_pointers(struct kunit *test)
{
	struct counts c;

	for_each_mode(m) {
		struct kmem_cache *a = mk(test, "TestSlub_A", 64, FZPU, m);
		struct kmem_cache *b = mk(test, "TestSlub_B", 64, FZPU, m);
		void *p = kmem_cache_alloc(a, GFP_KERNEL), *bulk[2];
		u64 on_stack = 0;
		struct page *page = alloc_pages(GFP_KERNEL, 0);

		KUNIT_ASSERT_NOT_NULL(test, page);
		snap(&c);
		kmem_cache_free(b, p);                    /* wrong cache */
		kmem_cache_free(a, &on_stack);            /* a stack address */
		kmem_cache_free(a, page_address(page));   /* a page never given to a slab */
		kfree(page_address(page));
		bulk[0] = &on_stack;
		bulk[1] = p;
		kmem_cache_free_bulk(b, 2, bulk);         /* both refused */
		EXPECT_REPORTS(test, &c, 0, 6, m);
		__free_pages(page, 0);
		kmem_cache_free(a, p);
		EXPECT_REPORTS(test, &c, 0, 0, m);
		still_works(test, a, NULL);
		still_works(test, b, NULL);
		kmem_cache_destroy(a);
		kmem_cache_destroy(b);
	}
}

/* Sheaves (a scheme with its own layer) fall back to the debug modes; bulk is checked too. */
static void sheaves_fall_back_and_bulk(struct kunit *test)
{
	struct counts c;
	const char *layered = NULL, *name;
	struct kmem_cache *s;
	void *p[32];

	for (unsigned int i = 0; !layered && (name = slab_scheme_name(i)); i++)
		if ((slab_scheme_flags(name) & (SLAB_SCHEME_LAYER | SLAB_SCHEME_OWNER)) ==
		    SLAB_SCHEME_LAYER)
			layered = name;
	if (!layered)
		kunit_skip(test, "no scheme with a layer of its own in this kernel");
	s = kmem_cache_create_scheme("TestSlub_sheaves", 200, 0, FZPU, NULL, layered,
				     SLAB_FASTPATH_IRQ);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_NE(test, slub_debug_mode(s), SLAB_DEBUG_MODE_DEFAULT);
	/* It runs on the debug mode's scheme, which has no layer of its own. */
	KUNIT_EXPECT_TRUE(test, kmem_cache_scheme_flags(s) &
					(SLAB_SCHEME_DEBUG_LOCKED | SLAB_SCHEME_DEBUG_PARTIAL));
	KUNIT_EXPECT_FALSE(test, kmem_cache_scheme_flags(s) & SLAB_SCHEME_LAYER);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, 32, p), 32);
	snap(&c);
	((u8 *)p[5])[200] = 1; /* past object 5 */
	p[9] = p[8];           /* object 8 twice, object 9 never */
	kmem_cache_free_bulk(s, 32, p);
	EXPECT_REPORTS(test, &c, 2, 0, slub_debug_mode(s));
	KUNIT_EXPECT_EQ(test, kmem_cache_validate(s), 0);
	/* Object 9 is still allocated and object 5 isolated: destroy reports 9 only (listed,
	 * and destroy's warning). */
	kmem_cache_destroy(s);
	EXPECT_REPORTS(test, &c, 2, 0, slub_debug_mode(s));
}

/* U: the last alloc and free are recorded (printed in reports). */
static void user_tracking(struct kunit *test)
{
	for_each_mode(m) {
		struct kmem_cache *s = mk(test, "TestSlub_track", 64, SLAB_STORE_USER, m);
		void *p = kmem_cache_alloc(s, GFP_KERNEL);
		struct counts c;

		if (slub_debug_flags(s) != SLAB_STORE_USER) { /* slub_debug= added letters */
			kmem_cache_free(s, p);
			kmem_cache_destroy(s);
			kunit_skip(test, "slub_debug=%s adds letters to U", slub_debug_string);
		}

		snap(&c);
		kmem_cache_free(s, p);
		kmem_cache_free(s, p); /* U alone cannot tell: the core's check catches it */
		EXPECT_REPORTS(test, &c, 0, 1, m);
		still_works(test, s, NULL);
		kmem_cache_destroy(s);
	}
}

/* Hardening, when booted with its options (else skipped). */
static void hardened_freelist(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("TestSlub_hardened", 64, 0, 0, NULL);
	void *p, *q;
	struct counts c;

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!s->freeptr_xor_key) {
		kmem_cache_destroy(s);
		kunit_skip(test, "boot with freelist_hardened=1");
	}
	if ((kmem_cache_scheme_flags(s) & (SLAB_SCHEME_LAYER | SLAB_SCHEME_OWNER)) ==
	    SLAB_SCHEME_LAYER) {
		kmem_cache_destroy(s);
		kunit_skip(test, "scheme %s keeps freed objects in arrays, not on freelists",
			   s->scheme->name);
	}
	p = kmem_cache_alloc(s, GFP_KERNEL);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, q);
	kmem_cache_free(s, p); /* p's free pointer is q, stored obfuscated */
	KUNIT_EXPECT_PTR_NE(test, *(void **)((char *)p + s->offset), q);
	KUNIT_EXPECT_PTR_EQ(test, get_freepointer(s, p), q);
	snap(&c);
	kmem_cache_free(s, p); /* the freelist's head again */
	KUNIT_EXPECT_EQ(test, slab_bad_input_count() - c.bad, 1UL);
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), p);
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), q);
	kmem_cache_free(s, p);
	kmem_cache_free(s, q);
	kmem_cache_destroy(s);
}

static void random_freelist_order(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("TestSlub_random", 64, 0, 0, NULL);
	void *p[64];
	int ascending = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!slub_freelist_random) {
		kmem_cache_destroy(s);
		kunit_skip(test, "boot with freelist_random=1");
	}
	for (int i = 0; i < 64; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		if (i)
			ascending += p[i] > p[i - 1];
	}
	/* In index order all 63 steps go up (but where a new slab starts); shuffled, about half. */
	KUNIT_EXPECT_LT(test, ascending, 55);
	for (int i = 0; i < 64; i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
}

static void init_on_alloc_and_free(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("TestSlub_init", 256, 0, 0, NULL);
	u8 *p;
	bool zero = true;

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!slub_init_on_alloc || !slub_init_on_free) {
		kmem_cache_destroy(s);
		kunit_skip(test, "boot with init_on_alloc=1 init_on_free=1");
	}
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (int i = 0; i < 256; i++)
		zero &= p[i] == 0;
	KUNIT_EXPECT_TRUE(test, zero);
	memset(p, 0xee, 256);
	kmem_cache_free(s, p);
	zero = true;
	for (int i = 8; i < 256; i++) /* the free pointer is in the first word */
		zero &= p[i] == 0;
	KUNIT_EXPECT_TRUE(test, zero);
	kmem_cache_destroy(s);
}

/* ---- a stress on every CPU over debug caches, then validation ---- */

#define DSTRESS_SLOTS 32

struct dstress {
	struct kmem_cache *s[2];
	u64 seed;
	long ops;
	int bad;
	void *box[][16]; /* [nr_cpu_ids] */
};

static void dstress_cpu(struct kunit *test, void *arg)
{
	struct dstress *st = arg;
	int cpu = smp_processor_id(), next = (cpu + 1) % nr_cpu_ids;
	u64 r = st->seed * 0x9e3779b97f4a7c15ULL + (u64)cpu + 1;
	u8 *slot[DSTRESS_SLOTS] = {};
	u8 tag[DSTRESS_SLOTS];

	for (long op = 0; op < st->ops; op++) {
		int i;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		i = (int)(r % DSTRESS_SLOTS);
		if (!slot[i]) {
			slot[i] = kmem_cache_alloc(st->s[i & 1], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, slot[i]);
			tag[i] = (u8)(r >> 20);
			memset(slot[i], tag[i], st->s[i & 1]->object_size);
			continue;
		}
		for (unsigned k = 0; k < st->s[i & 1]->object_size; k++)
			if (slot[i][k] != tag[i]) {
				__atomic_fetch_add(&st->bad, 1, __ATOMIC_RELAXED);
				break;
			}
		if ((r >> 40) % 4 == 0) { /* freed on the next cpu */
			void *old = __atomic_exchange_n(&st->box[next][(r >> 44) % 16], slot[i],
							__ATOMIC_ACQ_REL);

			if (old)
				kfree(old);
		} else {
			kmem_cache_free(st->s[i & 1], slot[i]);
		}
		slot[i] = NULL;
	}
	for (int i = 0; i < DSTRESS_SLOTS; i++)
		if (slot[i])
			kmem_cache_free(st->s[i & 1], slot[i]);
}

static void drain_boxes(void *arg)
{
	struct dstress *st = arg;

	for (int i = 0; i < 16; i++)
		kfree(__atomic_exchange_n(&st->box[smp_processor_id()][i], NULL, __ATOMIC_ACQ_REL));
}

static void stress_all_cpus_then_validate(struct kunit *test)
{
	struct dstress *st = kzalloc(sizeof(*st) + (size_t)nr_cpu_ids * sizeof(st->box[0]),
				     GFP_KERNEL);
	struct cpumask all;
	struct counts c;

	KUNIT_ASSERT_NOT_NULL(test, st);
	st->seed = boot_seed;
	st->ops = nr_cpu_ids <= 4 ? 20000 : MAX(300L, 80000L / nr_cpu_ids);
	snap(&c);
	for_each_mode(m) {
		st->s[0] = mk(test, "TestSlub_stress_a", 72, FZPU, m);
		st->s[1] = mk(test, "TestSlub_stress_b", 520, FZPU, m);
		kunit_run_on_all_cpus(test, dstress_cpu, st);
		cpumask_setall(&all);
		smp_run_on_cpus(&all, drain_boxes, st);
		KUNIT_EXPECT_EQ(test, st->bad, 0);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(st->s[0]), 0);
		KUNIT_EXPECT_EQ(test, kmem_cache_validate(st->s[1]), 0);
		EXPECT_REPORTS(test, &c, 0, 0, m);
		kmem_cache_destroy(st->s[0]);
		kmem_cache_destroy(st->s[1]);
		EXPECT_REPORTS(test, &c, 0, 0, m);
	}
	kfree(st);
}

static struct kunit_case slub_debug_cases[] = {
	KUNIT_CASE(clobber_right_redzone),
	KUNIT_CASE(clobber_left_redzone),
	KUNIT_CASE(clobber_free_pointer),
	KUNIT_CASE(clobber_free_pointer_then_alloc),
	KUNIT_CASE(clobber_freed_object),
	KUNIT_CASE(clobber_redzone_after_free),
	KUNIT_CASE(use_after_free_caught_on_alloc),
	KUNIT_CASE(wrong_object_count),
	KUNIT_CASE(kmalloc_tail_redzone),
	KUNIT_CASE(kmalloc_caches_tail_redzone),
	KUNIT_CASE(destroy_with_live_object),
	KUNIT_CASE(double_free),
	KUNIT_CASE(free_pointer_into_object),
	KUNIT_CASE(free_to_wrong_cache_and_stray_pointers),
	KUNIT_CASE(sheaves_fall_back_and_bulk),
	KUNIT_CASE(user_tracking),
	KUNIT_CASE(hardened_freelist),
	KUNIT_CASE(random_freelist_order),
	KUNIT_CASE(init_on_alloc_and_free),
	KUNIT_CASE(stress_all_cpus_then_validate),
	{}
};

static struct kunit_suite slub_debug_suite = {
	.name = "slub_debug",
	.test_cases = slub_debug_cases,
};
kunit_test_suite(slub_debug_suite);
