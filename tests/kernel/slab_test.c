// SPDX-License-Identifier: MIT
/*
 * The slab allocator under every scheme and both fastpaths: sizes and alignment, ctor,
 * zeroing, bulk, objects never handed out twice, frees on other CPUs, memory back after
 * destroy, shrink, exhaustion, bad frees refused, a seeded stress on every CPU at once, and
 * freeing after RCU grace periods: kfree_rcu (Linux's slub_kunit test_kfree_rcu,
 * test_kfree_rcu_wq_destroy, test_leak_destroy) and SLAB_TYPESAFE_BY_RCU (docs/rcu.md).
 */
#include "kernel/cmdline.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/random.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/scheme_partial.h"
#include "mm/sheaf.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"
#include "tests/kernel/slab_test_helpers.h"

struct variant {
	const char *scheme;
	enum slab_fastpath fastpath;
	unsigned long flags;  /* SLAB_NO_CMPXCHG: slab freelists under slab_lock */
	unsigned long sflags; /* the scheme's SLAB_SCHEME_* */
};

/*
 * mm/slab.h's variants (slab_variant: every scheme of the registry with the irq fastpath,
 * and with the cmpxchg one too where it makes a difference), then the default scheme with
 * slab_lock. On a CPU without CMPXCHG16B every variant's slab freelists are under slab_lock.
 */
#define MAX_VARIANTS 64
static struct variant variants[MAX_VARIANTS];
static unsigned int nr_variants;

static void add_variant(const char *scheme, enum slab_fastpath fastpath, unsigned long flags)
{
	if (nr_variants < MAX_VARIANTS)
		variants[nr_variants++] = (struct variant){ scheme, fastpath, flags,
							    slab_scheme_flags(scheme) };
}

static const struct variant *all_variants(void)
{
	const struct slab_variant *v;

	if (nr_variants)
		return variants;
	for (unsigned int i = 0; (v = slab_variant(i)); i++)
		add_variant(v->scheme, v->fastpath, 0);
	add_variant(slab_scheme_with(SLAB_SCHEME_DEFAULT) ?: slab_scheme_name(0), SLAB_FASTPATH_IRQ,
		    SLAB_NO_CMPXCHG);
	return variants;
}

/* The first variant of a scheme with all of sflags and this fastpath, without slab_lock. */
static const struct variant *variant_with(unsigned long sflags, enum slab_fastpath fastpath)
{
	const struct variant *v = all_variants();

	for (unsigned int i = 0; i < nr_variants; i++)
		if ((v[i].sflags & sflags) == sflags && v[i].fastpath == fastpath && !v[i].flags)
			return &v[i];
	return NULL;
}

/* The baseline scheme (lock), and the first with per-cpu partial lists (partial). */
#define V_LOCK_IRQ variant_with(SLAB_SCHEME_BASELINE, SLAB_FASTPATH_IRQ)
#define V_PARTIAL_IRQ variant_with(SLAB_SCHEME_CPU_PARTIAL, SLAB_FASTPATH_IRQ)
#define V_PARTIAL_CMPXCHG variant_with(SLAB_SCHEME_CPU_PARTIAL, SLAB_FASTPATH_CMPXCHG)

#define for_each_variant(v) \
	for (const struct variant *v = all_variants(); v < variants + nr_variants; v++)
#define VNAME(v)                                                                               \
	(v)->scheme,                                                                           \
		(v)->fastpath == SLAB_FASTPATH_IRQ                                             \
			? ((v)->flags & SLAB_NO_CMPXCHG ? "irq, slab_lock" : "irq")            \
			: "cmpxchg"
/* A layer of object arrays (sheaves: its counters are sheaf_* and barn_*). */
#define IS_SHEAVES(v) (((v)->sflags & (SLAB_SCHEME_LAYER | SLAB_SCHEME_OWNER)) == SLAB_SCHEME_LAYER)
#define IS_IPI(v) ((v)->sflags & SLAB_SCHEME_OWNER)

static struct kmem_cache *make_cache(struct kunit *test, const struct variant *v, unsigned size,
				     unsigned align, unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *s = kmem_cache_create_scheme("test", size, align, flags | v->flags,
							 ctor, v->scheme, v->fastpath);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/*
 * The variants below come from the scheme registry: every scheme is in them, with the
 * cmpxchg fastpath too where the scheme has no layer of its own (and the CPU has
 * CMPXCHG16B), and each is a scheme the registry has. Lists them, so a log shows what ran.
 */
static void every_registered_scheme_is_a_variant(struct kunit *test)
{
	char list[512];
	size_t n = 0;
	const char *name;
	unsigned int schemes = 0;

	list[0] = '\0';
	for (unsigned int i = 0; (name = slab_scheme_name(i)); i++) {
		bool irq = false, cmpxchg = false;

		schemes++;
		for_each_variant(v) {
			if (strcmp(v->scheme, name) || v->flags)
				continue;
			irq |= v->fastpath == SLAB_FASTPATH_IRQ;
			cmpxchg |= v->fastpath == SLAB_FASTPATH_CMPXCHG;
		}
		KUNIT_EXPECT_TRUE_MSG(test, irq, "scheme %s has no irq variant", name);
		if (!(slab_scheme_flags(name) & SLAB_SCHEME_LAYER))
			KUNIT_EXPECT_TRUE_MSG(test, cmpxchg, "scheme %s: no cmpxchg variant", name);
	}
	KUNIT_EXPECT_GE(test, schemes, 1);
	for_each_variant(v) {
		KUNIT_EXPECT_TRUE_MSG(test, slab_scheme_exists(v->scheme), "variant %s/%s",
				      VNAME(v));
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s/%s", n ? " " : "",
					      VNAME(v));
	}
	kunit_info(test, "%u schemes, variants: %s", schemes, list);
}

static void kmalloc_sizes_and_alignment(struct kunit *test)
{
	static const size_t sizes[] = { 1,   7,   8,    9,    16,   24,   33,   64,   65,   96,
					100, 128, 129,  192,  200,  256,  300,  512,  1000, 1024,
					2048, 3000, 4096, 5000, 8192, 8193, 16384, 100000 };

	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t sz = sizes[i];
		char *p = kmalloc(sz, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_GE_MSG(test, ksize(p), sz, "size %zu", sz);
		if (!(sz & (sz - 1)))
			KUNIT_EXPECT_EQ_MSG(test, (uptr)p & (sz - 1), 0, "kmalloc(%zu) at %p", sz, p);
		KUNIT_EXPECT_EQ(test, (uptr)p & 7, 0);
		memset(p, 0x5a, sz); /* all of it is usable */
		kfree(p);
	}
	KUNIT_EXPECT_PTR_EQ(test, kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	kfree(ZERO_SIZE_PTR);
	kfree(NULL);
	KUNIT_EXPECT_EQ(test, ksize(ZERO_SIZE_PTR), 0);
	KUNIT_EXPECT_NULL(test, kmalloc_array((size_t)-1 / 2, 4, GFP_KERNEL));
}

static void kzalloc_krealloc_kcalloc(struct kunit *test)
{
	unsigned char *p = kmalloc(200, GFP_KERNEL), *q;
	bool zero = true;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0xff, 200);
	kfree(p);
	p = kzalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (int i = 0; i < 200; i++)
		zero &= p[i] == 0;
	KUNIT_EXPECT_TRUE(test, zero);
	for (int i = 0; i < 200; i++)
		p[i] = (unsigned char)i;
	q = krealloc(p, 5000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	for (int i = 0; i < 200; i++)
		KUNIT_EXPECT_EQ(test, q[i], (unsigned char)i);
	KUNIT_EXPECT_PTR_EQ(test, krealloc(q, 100, GFP_KERNEL), q); /* shrinking keeps it */
	kfree(q);
	p = kcalloc(10, 30, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	zero = true;
	for (int i = 0; i < 300; i++)
		zero &= p[i] == 0;
	KUNIT_EXPECT_TRUE(test, zero);
	kfree(p);
}

static void hwcache_align_and_cache_zalloc(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 24, 0, SLAB_HWCACHE_ALIGN, NULL);
		void *p[20];

		for (int i = 0; i < 20; i++) {
			p[i] = kmem_cache_zalloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
			KUNIT_EXPECT_EQ_MSG(test, (uptr)p[i] & 63, 0, "%s/%s", VNAME(v));
			KUNIT_EXPECT_EQ(test, *(u64 *)p[i], 0);
			memset(p[i], 0xee, 24);
		}
		for (int i = 0; i < 20; i++)
			kmem_cache_free(s, p[i]);
		kmem_cache_destroy(s);
	}
}

static int ctor_calls;

static void count_ctor(void *p)
{
	__atomic_fetch_add(&ctor_calls, 1, __ATOMIC_RELAXED);
	*(u64 *)p = 0xc0ffee;
}

static void ctor_once_per_object(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 100, 0, 0, count_ctor);
		struct slab_cache_info info;
		void *p[50];

		ctor_calls = 0;
		for (int i = 0; i < 50; i++) {
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
			KUNIT_EXPECT_EQ(test, *(u64 *)p[i], 0xc0ffee); /* constructed state */
		}
		kmem_cache_info(s, &info);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)ctor_calls, info.objects,
				    "%s/%s: ctor once per object of each new slab", VNAME(v));
		for (int i = 0; i < 50; i++)
			kmem_cache_free(s, p[i]);
		for (int i = 0; i < 50; i++) {
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
			KUNIT_EXPECT_EQ(test, *(u64 *)p[i], 0xc0ffee); /* survived the free */
		}
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)ctor_calls, info.objects,
				    "%s/%s: no ctor on reuse", VNAME(v));
		for (int i = 0; i < 50; i++)
			kmem_cache_free(s, p[i]);
		kmem_cache_destroy(s);
	}
}

static void bulk_alloc_and_free(struct kunit *test)
{
	static void *p[600];

	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 256, 0, 0, NULL);
		struct slab_cache_info info;

		for (int round = 0; round < 3; round++) {
			KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, 600, p), 600);
			for (int i = 0; i < 600; i++) {
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
				*(u64 *)p[i] = (u64)i;
			}
			for (int i = 0; i < 600; i++)
				KUNIT_EXPECT_EQ(test, *(u64 *)p[i], (u64)i);
			kmem_cache_info(s, &info);
			KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 600, "%s/%s", VNAME(v));
			kmem_cache_free_bulk(s, 600, p);
			kmem_cache_info(s, &info);
			KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		}
		KUNIT_EXPECT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, 0, p), 0);
		kmem_cache_destroy(s);
	}
}

/* Bulk is all or nothing: with memory gone, a big request returns 0 and keeps nothing. */
static void bulk_all_or_nothing(struct kunit *test)
{
	struct kmem_cache *s = make_cache(test, V_PARTIAL_CMPXCHG, 2048, 0, 0, NULL);
	struct page *hog;
	unsigned long free_before, objects = 0;
	static void *p[4096];
	struct slab_cache_info info;

	/* Leave about 64 order-3 slabs' worth (2 MiB) of memory. */
	hog = hog_memory(512);
	free_before = nr_free_pages();
	KUNIT_EXPECT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_NOWARN, 4096, p), 0);
	kmem_cache_shrink(s);
	kmem_cache_info(s, &info);
	objects = info.active_objects;
	KUNIT_EXPECT_EQ(test, objects, 0);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free_before);
	unhog_memory(hog);
	KUNIT_EXPECT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, 100, p), 100);
	kmem_cache_free_bulk(s, 100, p);
	kmem_cache_destroy(s);
}

/*
 * Allocate until NULL, free everything, allocate again: no hang, no leak. All but 8 MiB is
 * taken away in big blocks first, so the cache runs dry after a few thousand objects
 * whatever the machine's memory.
 */
static void exhaustion_then_recovery(struct kunit *test)
{
	for_each_variant(v) {
		unsigned long free_before = nr_free_pages(), n = 0;
		struct kmem_cache *s = make_cache(test, v, 4000, 0, 0, NULL);
		struct page *hog = hog_memory(2048);
		void *chain = NULL, *p;

		while ((p = kmem_cache_alloc(s, GFP_KERNEL | __GFP_NOWARN))) {
			*(void **)((char *)p + 64) = chain;
			chain = p;
			n++;
		}
		KUNIT_EXPECT_GT(test, n, 100);
		KUNIT_EXPECT_LT(test, nr_free_pages(), 8); /* nothing left for an order-3 slab */
		while (chain) {
			p = *(void **)((char *)chain + 64);
			kmem_cache_free(s, chain);
			chain = p;
		}
		p = kmem_cache_alloc(s, GFP_KERNEL); /* from what the frees gave back */
		KUNIT_EXPECT_NOT_NULL(test, p);
		kmem_cache_free(s, p);
		unhog_memory(hog);
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s: %lu objects", VNAME(v),
				    n);
	}
}

static void destroy_returns_all_memory(struct kunit *test)
{
	for_each_variant(v) {
		unsigned long free_before = nr_free_pages();
		struct kmem_cache *s = make_cache(test, v, 192, 0, 0, NULL);
		static void *p[1000];

		for (int i = 0; i < 1000; i++)
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int i = 0; i < 1000; i += 2) /* leave holes: partial slabs everywhere */
			kmem_cache_free(s, p[i]);
		for (int i = 1; i < 1000; i += 2)
			kmem_cache_free(s, p[i]);
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
	}
}

static void destroy_with_objects_left_reports(struct kunit *test)
{
	unsigned long free_before = nr_free_pages();
	struct kmem_cache *s = make_cache(test, V_PARTIAL_IRQ, 64, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab_cache_info info;

	kmem_cache_destroy(s); /* prints that one object is left; keeps the cache */
	kmem_cache_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.active_objects, 1);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), free_before);
}

static void shrink_gives_back_empty_slabs(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 512, 0, 0, NULL);
		unsigned long free_before = nr_free_pages();
		static void *p[800];
		struct slab_cache_info info;

		for (int i = 0; i < 800; i++)
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int i = 0; i < 800; i++)
			kmem_cache_free(s, p[i]);
		kmem_cache_shrink(s);
		kmem_cache_info(s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.slabs, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
		kmem_cache_destroy(s);
	}
}

/*
 * Every bad free is refused and reported once. A debug cache reports some of them itself
 * (slub_debug=: a pointer inside an object, a double free under F), as "BUG" reports that
 * slab_error_count() counts instead; a plain cache has none of those.
 */
static void bad_frees_are_refused(struct kunit *test)
{
	struct kmem_cache *a = make_cache(test, V_LOCK_IRQ, 64, 0, 0, NULL);
	struct kmem_cache *b = make_cache(test, V_PARTIAL_CMPXCHG, 64, 0, 0, NULL);
	unsigned long bad = slab_bad_input_count(), errors = slab_error_count();
	bool debug = slub_debug_flags(a);
	char *x = kmem_cache_alloc(a, GFP_KERNEL), *y;
	static char not_slab[64];
	struct slab_cache_info info;

	KUNIT_ASSERT_NOT_NULL(test, x);
	kmem_cache_free(b, x);          /* wrong cache */
	kmem_cache_free(a, x + 8);      /* not an object start */
	kfree(not_slab);                /* kmalloc never returned it */
	kfree((void *)0x7fff00000000ULL); /* not RAM at all */
	KUNIT_EXPECT_EQ(test, slab_bad_input_count() - bad + slab_error_count() - errors, 4);
	kmem_cache_free(a, x);
	kmem_cache_free(a, x);          /* double free: x heads the freelist */
	KUNIT_EXPECT_EQ(test, slab_bad_input_count() - bad + slab_error_count() - errors, 5);
	if (!debug)
		KUNIT_EXPECT_EQ(test, slab_error_count() - errors, 0);
	/* Nothing was corrupted: two allocations are two different objects. */
	x = kmem_cache_alloc(a, GFP_KERNEL);
	y = kmem_cache_alloc(a, GFP_KERNEL);
	KUNIT_EXPECT_PTR_NE(test, x, y);
	kmem_cache_free(a, x);
	kmem_cache_free(a, y);
	kmem_cache_info(a, &info);
	KUNIT_EXPECT_EQ(test, info.active_objects, 0);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
}

/*
 * The same bad frees, on every variant, of an object outside the freeing cpu's slab: the
 * fastpaths' masked compare fails, so the lookup decides (a layer's free_entry does its own,
 * sheaves_free_other). The object is the first of 200, whose slab is no longer the cpu
 * slab; the double free is of the object freed last. A good free there still counts as the
 * layer's (sheaves: sheaf_free).
 */
static void bad_frees_outside_the_cpu_slab(struct kunit *test)
{
	static void *p[200];
	static char not_slab[64];

	for_each_variant(v) {
		struct kmem_cache *a = make_cache(test, v, 64, 0, 0, NULL);
		struct kmem_cache *b = make_cache(test, v, 64, 0, 0, NULL);
		unsigned long bad = slab_bad_input_count(), errors = slab_error_count();
		struct slab_cache_info info;
		u64 freed;

		for (int i = 0; i < 200; i++) {
			p[i] = kmem_cache_alloc(a, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
		}
		freed = kmem_cache_stat_by_name(a, "sheaf_free");
		kmem_cache_free(b, p[0]);                 /* wrong cache */
		kmem_cache_free(a, (char *)p[0] + 8);     /* not an object start */
		kmem_cache_free(a, not_slab);             /* not a slab object */
		kmem_cache_free(a, (void *)0x7fff00000000ULL); /* not RAM at all */
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    4, "%s/%s", VNAME(v));
		kmem_cache_free(a, p[0]);
		if (IS_SHEAVES(v) && !slub_debug_flags(a))
			KUNIT_EXPECT_EQ_MSG(test, kmem_cache_stat_by_name(a, "sheaf_free") - freed, 1,
					    "%s/%s", VNAME(v));
		kmem_cache_free(a, p[0]);                 /* double free */
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    5, "%s/%s", VNAME(v));
		for (int i = 1; i < 200; i++)
			kmem_cache_free(a, p[i]);
		kmem_cache_info(a, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		kmem_cache_destroy(a);
		kmem_cache_destroy(b);
	}
}

/*
 * Bad frees into a later page of a slab, on every variant: another cache's object there, and
 * a later page of a large kmalloc. The quick check that sheaves make of any object
 * (in_slab_of) reads the cache from the object's own page: it must refuse the first for
 * the cache, and the second for having none.
 */
static void bad_frees_in_a_later_page(struct kunit *test)
{
	static void *p[64];

	for_each_variant(v) {
		struct kmem_cache *a = make_cache(test, v, 1024, 0, 0, NULL);
		struct kmem_cache *b = make_cache(test, v, 1024, 0, 0, NULL);
		unsigned long bad = slab_bad_input_count(), errors = slab_error_count();
		struct slab_cache_info info;
		char *big = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
		void *later = NULL;
		int n;

		KUNIT_ASSERT_NOT_NULL(test, big);
		kmem_cache_info(a, &info);
		KUNIT_ASSERT_TRUE_MSG(test, info.order > 0, "%s/%s: order %u", VNAME(v), info.order);
		for (n = 0; n < 64; n++) {
			p[n] = kmem_cache_alloc(a, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[n]);
			if (!later && ((uptr)p[n] & ((PAGE_SIZE << info.order) - 1)) >= PAGE_SIZE)
				later = p[n];
		}
		KUNIT_ASSERT_TRUE_MSG(test, later != NULL, "%s/%s", VNAME(v));
		kmem_cache_free(b, later);                  /* another cache's, in a later page */
		kmem_cache_free(a, big + PAGE_SIZE);        /* a large kmalloc's later page */
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    2, "%s/%s", VNAME(v));
		kmem_cache_info(b, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		for (int i = 0; i < n; i++)
			kmem_cache_free(a, p[i]);
		kfree(big);
		kmem_cache_info(a, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    2, "%s/%s", VNAME(v));
		kmem_cache_destroy(a);
		kmem_cache_destroy(b);
	}
}

/*
 * Bad entries in one kmem_cache_free_bulk, on every variant: another cache's object, a
 * pointer inside an object, a non-slab address, each refused once while the good entries
 * around them are freed. The bulk frees that take one object at a time (sheaves' own, and
 * a debug or hardened cache's in every scheme) also refuse a duplicate 4 entries back among
 * the first eight and one 8 back (the window's edge) past them: compared with the eight
 * entries before, or, with the consistency checks, found already free.
 */
static void bad_entries_in_a_bulk_free(struct kunit *test)
{
	static void *p[40], *q[40];
	static char not_slab[64];

	for_each_variant(v) {
		struct kmem_cache *a = make_cache(test, v, 64, 0, 0, NULL);
		struct kmem_cache *b = make_cache(test, v, 64, 0, 0, NULL);
		unsigned long bad = slab_bad_input_count(), errors = slab_error_count(), want = 3;
		void *other = kmem_cache_alloc(b, GFP_KERNEL);
		bool own_bulk = IS_SHEAVES(v) || slub_debug_checks_bulk(a);
		struct slab_cache_info info;
		int n = 0;

		KUNIT_ASSERT_NOT_NULL(test, other);
		KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(a, GFP_KERNEL, 30, p), 30);
		for (int i = 0; i < 30; i++) {
			q[n++] = p[i];
			if (i == 2)
				q[n++] = other;              /* another cache's */
			if (i == 12)
				q[n++] = (char *)p[20] + 8;  /* inside an object */
			if (i == 20)
				q[n++] = not_slab;           /* not a slab object */
			if (own_bulk && i == 4)
				q[n++] = p[2];               /* q[6]: q[2], 4 back */
			if (own_bulk && i == 24)
				q[n++] = p[18];              /* q[29]: q[21], 8 back */
		}
		if (own_bulk)
			want += 2;
		kmem_cache_free_bulk(a, (size_t)n, q);
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    want, "%s/%s", VNAME(v));
		kmem_cache_info(a, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		kmem_cache_free(b, other);
		kmem_cache_info(b, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		kmem_cache_destroy(a);
		kmem_cache_destroy(b);
	}
}

/*
 * A bulk free of the object freed just before (now first on the cpu freelist, or on top of
 * the sheaf): on every variant reported once and not freed again, so the cache counts the
 * other object still in use and two allocations after it are two objects. (Only that one:
 * an object already free further down the freelist is not caught on the default path,
 * in a bulk or a single free, as in Linux; slub_debug=F catches it.)
 */
static void bulk_free_of_the_object_freed_before(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *a = make_cache(test, v, 64, 0, 0, NULL);
		unsigned long bad = slab_bad_input_count(), errors = slab_error_count();
		void *x = kmem_cache_alloc(a, GFP_KERNEL), *y = kmem_cache_alloc(a, GFP_KERNEL);
		struct slab_cache_info info;
		void *q[2];

		KUNIT_ASSERT_NOT_NULL(test, x);
		KUNIT_ASSERT_NOT_NULL(test, y);
		kmem_cache_free(a, x);
		q[0] = x;
		kmem_cache_free_bulk(a, 1, q);
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad + slab_error_count() - errors,
				    1, "%s/%s", VNAME(v));
		kmem_cache_info(a, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 1, "%s/%s", VNAME(v));
		q[0] = kmem_cache_alloc(a, GFP_KERNEL);
		q[1] = kmem_cache_alloc(a, GFP_KERNEL);
		KUNIT_EXPECT_PTR_NE(test, q[0], q[1]);
		kmem_cache_free(a, q[0]);
		kmem_cache_free(a, q[1]);
		kmem_cache_free(a, y);
		kmem_cache_destroy(a);
	}
}

static void create_rejects_bad_arguments(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, kmem_cache_create("a-name-that-is-far-too-long-for-a-cache", 64, 0,
						   0, NULL));
	KUNIT_EXPECT_NULL(test, kmem_cache_create("zero", 0, 0, 0, NULL));
	KUNIT_EXPECT_NULL(test, kmem_cache_create("huge", KMEM_CACHE_MAX_SIZE + 1, 0, 0, NULL));
	KUNIT_EXPECT_NULL(test, kmem_cache_create_scheme("x", 64, 0, 0, NULL, "nosuch",
							  SLAB_FASTPATH_IRQ));
	KUNIT_EXPECT_NULL(test, kmem_cache_create("align", 64, 3, 0, NULL));
}

/*
 * What the CPU decides: with CMPXCHG16B every cache updates slab freelists with it unless
 * created SLAB_NO_CMPXCHG; without it every cache is SLAB_NO_CMPXCHG, a cmpxchg fastpath
 * cache too (that fastpath swaps one 8-byte word, which every x86-64 CPU can).
 */
static void freelist_update_follows_the_cpu(struct kunit *test)
{
	bool cx16 = arch_has_cmpxchg_double();
	struct kmem_cache *plain = make_cache(test, V_PARTIAL_IRQ, 64, 0, 0, NULL);
	struct kmem_cache *locked = make_cache(test, V_PARTIAL_IRQ, 64, 0, SLAB_NO_CMPXCHG, NULL);
	struct kmem_cache *fast = kmem_cache_create_scheme("test", 64, 0, 0, NULL,
							   V_PARTIAL_IRQ->scheme, SLAB_FASTPATH_CMPXCHG);

	KUNIT_EXPECT_EQ(test, !!(plain->flags & SLAB_NO_CMPXCHG), !cx16);
	KUNIT_EXPECT_TRUE(test, locked->flags & SLAB_NO_CMPXCHG);
	KUNIT_ASSERT_NOT_NULL(test, fast);
	KUNIT_EXPECT_EQ(test, !!(fast->flags & SLAB_NO_CMPXCHG), !cx16);
	KUNIT_EXPECT_STREQ(test, slab_freelist_method(), cx16 ? "cmpxchg16b" : "slab_lock");
	kunit_info(test, "this CPU %s CMPXCHG16B: slab freelists by %s", cx16 ? "has" : "lacks",
		   slab_freelist_method());
	kmem_cache_destroy(plain);
	kmem_cache_destroy(locked);
	if (fast)
		kmem_cache_destroy(fast);
}

/* ---- every CPU at once ---- */

struct xcpu {
	struct kmem_cache *s;
	void **slots;   /* nr_cpu_ids * PER_CPU objects, allocated by their cpu */
	int per_cpu;
	int errors;
};

static void alloc_own_slots(struct kunit *test, void *arg)
{
	struct xcpu *x = arg;
	int cpu = smp_processor_id();

	for (int i = 0; i < x->per_cpu; i++) {
		u64 *p = kmem_cache_alloc(x->s, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		p[0] = (u64)cpu << 32 | (u64)i;
		p[1] = ~p[0];
		x->slots[cpu * x->per_cpu + i] = p;
	}
}

static void free_neighbours_slots(struct kunit *test, void *arg)
{
	struct xcpu *x = arg;
	int from = (smp_processor_id() + 1) % nr_cpu_ids;

	for (int i = 0; i < x->per_cpu; i++) {
		u64 *p = x->slots[from * x->per_cpu + i];

		if (p[0] != ((u64)from << 32 | (u64)i) || p[1] != ~p[0])
			__atomic_fetch_add(&x->errors, 1, __ATOMIC_RELAXED);
		kmem_cache_free(x->s, p);
	}
}

static void cross_cpu_frees(struct kunit *test)
{
	for_each_variant(v) {
		void **slots = kmalloc_array((size_t)nr_cpu_ids * 300, sizeof(void *), GFP_KERNEL);
		unsigned long free_before = nr_free_pages();
		struct xcpu x = { .s = make_cache(test, v, 96, 0, 0, NULL), .per_cpu = 300 };
		struct slab_cache_info info;

		KUNIT_ASSERT_NOT_NULL(test, slots);
		x.slots = slots;
		for (int round = 0; round < 3; round++) {
			kunit_run_on_all_cpus(test, alloc_own_slots, &x);
			kunit_run_on_all_cpus(test, free_neighbours_slots, &x);
		}
		KUNIT_EXPECT_EQ(test, x.errors, 0);
		kmem_cache_info(x.s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s/%s", VNAME(v));
		kmem_cache_destroy(x.s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
		kfree(slots);
	}
}

/*
 * Random kmalloc/kfree of random sizes on every CPU, a quarter of the frees done by the next
 * CPU through a shared mailbox. Every object carries its owner, its size and a pattern,
 * checked before it is freed: an object handed out twice or overwritten shows up.
 */
#define STRESS_SLOTS 64
#define MAILBOX 256

struct stress {
	u64 seed;
	long ops;
	int errors;
	void *mailbox[][MAILBOX]; /* [nr_cpu_ids] */
};

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static bool check_object(const u8 *p)
{
	u32 size = *(const u32 *)p;
	u8 tag = p[4];

	for (u32 i = 8; i < size; i++)
		if (p[i] != (u8)(tag + i))
			return false;
	return true;
}

static void fill_object(u8 *p, u32 size, u8 tag)
{
	*(u32 *)p = size;
	p[4] = tag;
	for (u32 i = 8; i < size; i++)
		p[i] = (u8)(tag + i);
}

static void stress_cpu(struct kunit *test, void *arg)
{
	struct stress *st = arg;
	int cpu = smp_processor_id(), next = (cpu + 1) % nr_cpu_ids;
	u64 rng = st->seed * 0x9e3779b97f4a7c15ULL + (u64)cpu + 1;
	u8 *slot[STRESS_SLOTS] = {};

	for (long op = 0; op < st->ops; op++) {
		u64 r = xorshift(&rng);
		int i = (int)(r % STRESS_SLOTS);

		if (!slot[i]) {
			u32 size = 8 + (u32)((r >> 8) % 1200);

			slot[i] = kmalloc(size, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, slot[i]);
			fill_object(slot[i], size, (u8)(r >> 24));
			continue;
		}
		if (!check_object(slot[i]))
			__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED);
		if ((r >> 40) % 4 == 0) { /* hand it to the next cpu */
			void **box = &st->mailbox[next][(r >> 16) % MAILBOX];
			void *old = __atomic_exchange_n(box, slot[i], __ATOMIC_ACQ_REL);

			if (old) {
				if (!check_object(old))
					__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED);
				kfree(old);
			}
		} else {
			kfree(slot[i]);
		}
		slot[i] = NULL;
		/* Empty one of our own mailbox slots now and then. */
		if ((r >> 48) % 8 == 0) {
			void *got = __atomic_exchange_n(&st->mailbox[cpu][(r >> 52) % MAILBOX], NULL,
							__ATOMIC_ACQ_REL);

			if (got) {
				if (!check_object(got))
					__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED);
				kfree(got);
			}
		}
	}
	for (int i = 0; i < STRESS_SLOTS; i++)
		kfree(slot[i]);
}

static void drain_mailboxes(void *arg)
{
	struct stress *st = arg;
	int cpu = smp_processor_id();

	for (int i = 0; i < MAILBOX; i++) {
		void *got = __atomic_exchange_n(&st->mailbox[cpu][i], NULL, __ATOMIC_ACQ_REL);

		if (got) {
			if (!check_object(got))
				__atomic_fetch_add(&st->errors, 1, __ATOMIC_RELAXED);
			kfree(got);
		}
	}
}

static void random_stress_all_cpus(struct kunit *test)
{
	struct stress *st = kzalloc(sizeof(*st) + (size_t)nr_cpu_ids * sizeof(st->mailbox[0]),
				    GFP_KERNEL);
	struct cpumask all;

	KUNIT_ASSERT_NOT_NULL(test, st);
	st->seed = boot_seed;
	/*
	 * A million operations in all, however many CPUs share them (at least 4000 each: at 255
	 * CPUs under TCG, 20000 each took 38 s of the boot's 115).
	 */
	st->ops = nr_cpu_ids <= 4 ? 250000 : MAX(4000L, 1000000L / nr_cpu_ids);
	kunit_run_on_all_cpus(test, stress_cpu, st);
	cpumask_setall(&all);
	smp_run_on_cpus(&all, drain_mailboxes, st);
	KUNIT_EXPECT_EQ(test, st->errors, 0);
	kunit_info(test, "%ld operations on each of %d cpus, seed %llu", st->ops, nr_cpu_ids,
		   (unsigned long long)st->seed);
	kfree(st);
}

/*
 * kmem_cache_set_sheaf_capacity while every CPU allocates, frees and frees the next CPU's
 * objects (a mailbox each), each CPU changing the capacity now and then: the cross-calls
 * that fit every CPU's sheaves reach CPUs in the middle of their work. Objects carry a
 * pattern (random_stress_all_cpus's) checked at every free; at the end nothing is left
 * allocated, and after one more change to 7 the CPUs and the barn keep no more than
 * sheaves of 7 hold.
 */
struct resize_run {
	struct kmem_cache *s;
	long ops;
	int errors;
	u64 changes;
	void *mailbox[][MAILBOX]; /* [nr_cpu_ids] */
};

static const unsigned int resize_caps[] = { 1, 4, 16, 60, 128, 500 };

static void resize_free(struct resize_run *rr, void *p)
{
	if (!check_object(p))
		__atomic_fetch_add(&rr->errors, 1, __ATOMIC_RELAXED);
	kmem_cache_free(rr->s, p);
}

static void resize_cpu(struct kunit *test, void *arg)
{
	struct resize_run *rr = arg;
	int cpu = smp_processor_id(), next = (cpu + 1) % nr_cpu_ids;
	u64 rng = boot_seed * 0x9e3779b97f4a7c15ULL + (u64)cpu * 7 + 3;
	u8 *slot[STRESS_SLOTS] = {};

	for (long op = 0; op < rr->ops; op++) {
		u64 r = xorshift(&rng);
		int i = (int)(r % STRESS_SLOTS);

		if ((r >> 32) % 512 == 0) {
			if (kmem_cache_set_sheaf_capacity(
				    rr->s, resize_caps[(r >> 12) % ARRAY_SIZE(resize_caps)]))
				__atomic_fetch_add(&rr->errors, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&rr->changes, 1, __ATOMIC_RELAXED);
		}
		if (!slot[i]) {
			slot[i] = kmem_cache_alloc(rr->s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, slot[i]);
			fill_object(slot[i], 64, (u8)(r >> 24));
			continue;
		}
		if ((r >> 40) % 4 == 0) {
			void *old = __atomic_exchange_n(&rr->mailbox[next][(r >> 16) % MAILBOX],
							slot[i], __ATOMIC_ACQ_REL);

			if (old)
				resize_free(rr, old);
		} else {
			resize_free(rr, slot[i]);
		}
		slot[i] = NULL;
	}
	for (int i = 0; i < STRESS_SLOTS; i++)
		if (slot[i])
			resize_free(rr, slot[i]);
}

static void resize_drain(void *arg)
{
	struct resize_run *rr = arg;

	for (int i = 0; i < MAILBOX; i++) {
		void *got = __atomic_exchange_n(&rr->mailbox[smp_processor_id()][i], NULL,
						__ATOMIC_ACQ_REL);

		if (got)
			resize_free(rr, got);
	}
}

static void sheaf_capacity_changes_while_every_cpu_works(struct kunit *test)
{
	struct resize_run *rr;
	struct kmem_cache_mem m;
	struct slab_cache_info info;
	struct cpumask all;

	if (!slab_scheme_exists("sheaves"))
		kunit_skip(test, "no sheaves scheme in this kernel");
	rr = kzalloc(sizeof(*rr) + (size_t)nr_cpu_ids * sizeof(rr->mailbox[0]), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	rr->s = kmem_cache_create_scheme("sheaf-resize", 64, 0, 0, NULL, "sheaves",
					 SLAB_FASTPATH_IRQ);
	KUNIT_ASSERT_NOT_NULL(test, rr->s);
	if (!kmem_cache_sheaf_capacity(rr->s)) { /* slub_debug= made it a debug cache */
		kmem_cache_destroy(rr->s);
		kfree(rr);
		kunit_skip(test, "debug caches replace scheme sheaves: no sheaves to resize");
	}
	rr->ops = MAX(3000L, 200000L / nr_cpu_ids);
	kunit_run_on_all_cpus(test, resize_cpu, rr);
	cpumask_setall(&all);
	smp_run_on_cpus(&all, resize_drain, rr);
	KUNIT_EXPECT_EQ(test, rr->errors, 0);
	KUNIT_EXPECT_GT(test, rr->changes, 0);
	KUNIT_EXPECT_GT(test, kmem_cache_stat_by_name(rr->s, "sheaf_resize"), 0);
	kmem_cache_info(rr->s, &info);
	KUNIT_EXPECT_EQ(test, info.active_objects, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_set_sheaf_capacity(rr->s, 7), 0);
	kmem_cache_mem_info(rr->s, &m);
	KUNIT_EXPECT_LE(test, m.cpu_cached, 2UL * 7 * (unsigned long)nr_cpu_ids);
	KUNIT_EXPECT_LE(test, m.node_cached, 10UL * 7 * (unsigned long)nr_node_ids);
	kunit_info(test, "%ld operations on each of %d cpus, %llu capacity changes", rr->ops,
		   nr_cpu_ids, (unsigned long long)rr->changes);
	kmem_cache_destroy(rr->s);
	kfree(rr);
}

static void stats_count_paths(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 128, 0, 0, NULL);
		void *p[100];

		for (int i = 0; i < 100; i++)
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int i = 0; i < 100; i++)
			kmem_cache_free(s, p[i]);
		/* A debug cache runs its debug mode instead of sheaves: the core's counters. */
		if (IS_SHEAVES(v) && !slub_debug_replaced_scheme(s)) {
			/* Every object comes from and goes to a sheaf. */
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "sheaf_alloc"), 100);
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "sheaf_free"), 100);
			KUNIT_EXPECT_GE(test, kmem_cache_stat_by_name(s, "sheaf_refill"), 100 / sheaf_capacity(s));
		} else {
			KUNIT_EXPECT_EQ_MSG(test, kmem_cache_stat(s, ALLOC_FASTPATH) +
							  kmem_cache_stat(s, ALLOC_SLOWPATH), 100,
					    "%s/%s", VNAME(v));
			KUNIT_EXPECT_EQ(test, kmem_cache_stat(s, FREE_FASTPATH) +
						      kmem_cache_stat(s, FREE_SLOWPATH), 100);
		}
		KUNIT_EXPECT_GE(test, kmem_cache_stat(s, ALLOC_SLAB), 1);
		kmem_cache_destroy(s);
	}
}

struct remote_free {
	struct kmem_cache *s;
	void **objs;
	int n;
};

static void free_them(void *arg)
{
	struct remote_free *rf = arg;

	for (int i = 0; i < rf->n; i++)
		kmem_cache_free(rf->s, rf->objs[i]);
}

/*
 * Objects allocated on cpu 0 (full slabs) and freed on cpu 1: with per-cpu partial lists
 * (partial) the formerly full slabs go to cpu 1's partial list without list_lock, draining
 * when over budget; without (lock) each goes to the node list under list_lock; a layer of
 * arrays (sheaves) takes them into cpu 1's sheaves; owner schemes send them to cpu 0.
 */
static void schemes_differ_where_partial_slabs_go(struct kunit *test)
{
	static void *objs[2000], *even[1000], *odd[1000];
	unsigned int sheaf_fixed;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	/* 1000 frees must overflow the per-cpu layer: true of budgets up to the defaults for
	 * 128-byte objects (cpu_partial 120, sheaf_capacity 32 or linux7's 60: two sheaves and
	 * a barn of ten hold 720), not of much larger ones. */
	sheaf_capacity_rule(&sheaf_fixed);
	if (slub_cpu_partial_override > 120 || sheaf_fixed > 60)
		kunit_skip(test, "cpu_partial= or sheaf_capacity= above the default budgets");
	for_each_variant(v) {
		unsigned long free_before = nr_free_pages();
		struct kmem_cache *s = make_cache(test, v, 128, 0, 0, NULL);
		struct remote_free rf = { .s = s, .objs = even, .n = 1000 };
		/* A debug cache runs its debug mode in place of v's scheme: check that mode's
		 * placement (s->scheme is the mode's: cpu partial lists or the node list). */
		const struct slab_scheme *replaced = slub_debug_replaced_scheme(s);
		bool ipi = IS_IPI(v) && !replaced, sheaves = IS_SHEAVES(v) && !replaced;
		bool partial = kmem_cache_scheme_flags(s) & SLAB_SCHEME_CPU_PARTIAL;

		for (int i = 0; i < 2000; i++)
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int i = 0; i < 1000; i++) {
			even[i] = objs[2 * i];
			odd[i] = objs[2 * i + 1];
		}
		/* Every other object, on cpu 1: each full slab becomes partial there. */
		smp_call_function_single(1, free_them, &rf, 1);
		if (replaced)
			kunit_info(test, "%s/%s: debug caches replace scheme %s: checked as the %s "
				   "mode", VNAME(v), replaced->name, partial ? "partial" : "locked");
		if (ipi) {
			/* Every free goes to the owner, cpu 0; no list_lock anywhere. */
			u64 ipis = kmem_cache_stat_by_name(s, "ipi_sent");

			KUNIT_EXPECT_EQ_MSG(test, kmem_cache_stat_by_name(s, "remote_free"), 1000, "%s", v->scheme);
			KUNIT_EXPECT_EQ(test, kmem_cache_stat(s, LIST_LOCK), 0);
			if (v->sflags & SLAB_SCHEME_IPI_EACH)
				KUNIT_EXPECT_EQ(test, ipis, 1000);
			else if (v->sflags & SLAB_SCHEME_IPI_BATCH)
				KUNIT_EXPECT_TRUE_MSG(test, ipis >= 1 && ipis < 1000, "%llu IPIs",
						      (unsigned long long)ipis);
			else
				KUNIT_EXPECT_EQ(test, ipis, 0);
		} else if (sheaves) {
			/* Into cpu 1's sheaves, full ones to the barn, the overflow to slabs. */
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "sheaf_free"), 1000);
			KUNIT_EXPECT_GT(test, kmem_cache_stat_by_name(s, "barn_put"), 0);
			KUNIT_EXPECT_GT(test, kmem_cache_stat_by_name(s, "sheaf_flush"), 0);
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "cpu_partial_free"), 0);
		} else if (partial) {
			KUNIT_EXPECT_GT_MSG(test, kmem_cache_stat_by_name(s, "cpu_partial_free"), 0, "%s/%s",
					    VNAME(v));
			KUNIT_EXPECT_GT(test, kmem_cache_stat_by_name(s, "cpu_partial_drain"), 0);
			KUNIT_EXPECT_EQ(test, kmem_cache_stat(s, FREE_ADD_PARTIAL), 0);
		} else {
			KUNIT_EXPECT_GT_MSG(test, kmem_cache_stat(s, FREE_ADD_PARTIAL), 0, "%s/%s",
					    VNAME(v));
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "cpu_partial_free"), 0);
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(s, "cpu_partial_drain"), 0);
		}
		if (!sheaves && !ipi)
			KUNIT_EXPECT_GT(test, kmem_cache_stat(s, LIST_LOCK), 0);
		rf.objs = odd;
		smp_call_function_single(1, free_them, &rf, 1);
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
	}
}

/*
 * Interrupt handlers allocate too: cpu 1 runs the fastpath in a loop while cpu 0 floods it
 * with cross-calls whose handlers allocate and free from the same cache. Every object is
 * stamped and checked; under "cmpxchg" an interrupted fastpath must retry (its tid changed),
 * under "irq" the handler waits for interrupts to come back on.
 */
static void interrupt_handlers_allocate_too(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	for_each_variant(v) {
		struct irq_race r = {
			.s = make_cache(test, v, 64, 0, 0, NULL), .calls = 3000, .wait_every = 4
		};
		struct slab_cache_info info;

		kunit_run_on_all_cpus(test, irq_race_cpu, &r);
		/* The last calls were not waited for: let them finish before counting. */
		kmem_cache_shrink(r.s);
		KUNIT_EXPECT_EQ_MSG(test, r.errors, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ(test, r.handler_ops, 3000);
		kmem_cache_info(r.s, &info);
		KUNIT_EXPECT_EQ(test, info.active_objects, 0);
		kunit_info(test, "%s/%s: %llu fastpath retries after an interrupt", VNAME(v),
			   (unsigned long long)kmem_cache_stat(r.s, CMPXCHG_DOUBLE_CPU_FAIL));
		kmem_cache_destroy(r.s);
	}
}

/* Slabs on every cpu's bulk stash of s (mm/slub.c, "the stash"). */
static unsigned long stashed(struct kmem_cache *s)
{
	unsigned long n = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		n += __atomic_load_n(&s->cpu_slab[cpu].stash_nr, __ATOMIC_RELAXED);
	return n;
}

/* A stashed slab's first object (irqs off: this cpu's stash, read as its owner does). */
static void *a_stashed_object(struct kmem_cache *s)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct slab *slab = __atomic_load_n(&s->cpu_slab[cpu].stash, __ATOMIC_RELAXED);

		if (slab)
			return slab_address(slab);
	}
	return NULL;
}

/*
 * The bulk calls' stash of bare slabs: a bulk free of 40 whole slabs fills it to its bound
 * and no further; its pages are in use, not free, and no slab's (a free of one of its objects
 * is refused), and no object of it counts as allocated; the next bulk allocation takes
 * them again and hands out distinct objects; kmem_cache_shrink, kmem_cache_destroy and a
 * page allocator that runs out each give its pages back.
 */
static void bulk_stash_bounded_and_drained(struct kunit *test)
{
	static void *p[40 * 128]; /* 40 slabs of 256-byte objects up to order 3 (more cpus: higher) */
	const struct variant *vs[] = { V_LOCK_IRQ, V_PARTIAL_CMPXCHG };

	for (unsigned int k = 0; k < ARRAY_SIZE(vs); k++) {
		const struct variant *v = vs[k];
		unsigned long base = nr_free_pages(), free_before, bad, hogged, stash_pages;
		struct kmem_cache *s = make_cache(test, v, 256, 0, 0, NULL);
		unsigned int n = 40 * s->objects;
		struct slab_cache_info info;
		struct page *hog;
		void *x;

		if (!s->bulk_core) {
			/* A debug or hardened cache (slub_debug= on this boot): no stash at all. */
			KUNIT_EXPECT_EQ_MSG(test, s->stash_max, 0, "%s/%s", VNAME(v));
			kmem_cache_destroy(s);
			continue;
		}
		KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(p));
		KUNIT_EXPECT_EQ(test, s->stash_max, SLAB_STASH_PAGES >> s->order);
		free_before = nr_free_pages();
		for (int round = 0; round < 3; round++) {
			KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p), (int)n);
			/* Taken again: what a round's free stashed, the next one's allocation. */
			KUNIT_EXPECT_EQ_MSG(test, stashed(s), 0, "%s/%s: round %d", VNAME(v), round);
			for (unsigned int i = 0; i < n; i++)
				*(u64 *)p[i] = i + 1000ull * round;
			for (unsigned int i = 0; i < n; i++)
				KUNIT_EXPECT_EQ(test, *(u64 *)p[i], i + 1000ull * round);
			kmem_cache_free_bulk(s, n, p);
			KUNIT_EXPECT_EQ_MSG(test, stashed(s), s->stash_max, "%s/%s: round %d",
					    VNAME(v), round);
			kmem_cache_info(s, &info);
			KUNIT_EXPECT_EQ(test, info.active_objects, 0);
			/* The stash's pages are neither free nor the cache's slabs. */
			KUNIT_EXPECT_EQ_MSG(test, free_before - nr_free_pages(),
					    (info.slabs + stashed(s)) << s->order, "%s/%s: round %d",
					    VNAME(v), round);
		}
		bad = slab_bad_input_count();
		x = a_stashed_object(s);
		KUNIT_ASSERT_NOT_NULL(test, x);
		kmem_cache_free(s, x); /* no slab's object now: refused, the stash unchanged */
		KUNIT_EXPECT_EQ(test, slab_bad_input_count() - bad, 1);
		KUNIT_EXPECT_EQ(test, stashed(s), s->stash_max);

		kmem_cache_shrink(s);
		KUNIT_EXPECT_EQ(test, stashed(s), 0);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s: after shrink",
				    VNAME(v));

		/* The page allocator out of memory takes the stash back before it fails. */
		KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p), (int)n);
		kmem_cache_free_bulk(s, n, p);
		KUNIT_EXPECT_EQ(test, stashed(s), s->stash_max);
		hogged = 0;
		free_before = nr_free_pages();
		stash_pages = stashed(s) << s->order;
		hog = hog_memory(0);
		/* hog_memory takes until the allocator says no: the stash's pages went too. */
		KUNIT_EXPECT_EQ(test, stashed(s), 0);
		for (struct page *h = hog; h; h = (struct page *)(uptr)((u64 *)page_address(h))[0])
			hogged += 1ul << ((u64 *)page_address(h))[1];
		KUNIT_EXPECT_GE_MSG(test, hogged, free_before + stash_pages, "%s/%s: %lu free, %lu "
				    "stashed", VNAME(v), free_before, stash_pages);
		KUNIT_EXPECT_NULL(test, alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0));
		unhog_memory(hog);

		/* Destroy with a full stash: every page back. */
		KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p), (int)n);
		kmem_cache_free_bulk(s, n, p);
		KUNIT_EXPECT_EQ(test, stashed(s), s->stash_max);
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), base, "%s/%s: after destroy", VNAME(v));
	}
}

/* n objects reserved up front can all be allocated even with the page allocator empty. */
static void prefilled_sheaf_cannot_fail(struct kunit *test)
{
	for_each_variant(v) {
		struct kmem_cache *s = make_cache(test, v, 512, 0, 0, NULL);
		struct slab_sheaf *sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 100);
		struct page *hog;
		void *got[100];

		KUNIT_ASSERT_NOT_NULL(test, sheaf);
		KUNIT_EXPECT_EQ(test, kmem_cache_sheaf_size(sheaf), 100);
		hog = hog_memory(0);
		/* Memory is gone: the cache may fail, the sheaf may not. */
		for (int i = 0; i < 100; i++) {
			got[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL | __GFP_ZERO, sheaf);
			KUNIT_EXPECT_NOT_NULL_MSG(test, got[i], "%s/%s: object %d", VNAME(v), i);
			if (got[i])
				KUNIT_EXPECT_EQ(test, *(u64 *)got[i], 0);
		}
		KUNIT_EXPECT_NULL(test, kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sheaf));
		unhog_memory(hog);
		for (int i = 0; i < 100; i++)
			kmem_cache_free(s, got[i]);
		kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
		kmem_cache_destroy(s);
	}
	{
		struct kmem_cache *s = make_cache(test, V_LOCK_IRQ, 64, 0, 0, NULL);

		KUNIT_EXPECT_NULL(test, kmem_cache_prefill_sheaf(s, GFP_KERNEL, SLAB_SHEAF_MAX + 1));
		kmem_cache_destroy(s);
	}
}

/* ---- kfree_rcu and SLAB_TYPESAFE_BY_RCU (mm/slub_rcu.c, docs/rcu.md) ---- */

#define RCU_MAGIC 0x7e57ab1e5eed0001ULL
#define OTHER_MAGIC 0x07e4c4c4e0000002ULL

/* An object with its rcu_head inside, not at its start (kfree_rcu finds the start). */
struct rcu_obj {
	u64 magic; /* RCU_MAGIC from allocation on; a free's pointer at 0 would change it */
	u64 id;
	struct rcu_head rcu;
	u64 tail[3];
};

/* Objects of p[0..n) all still hold what they were given (magic, id i). */
static unsigned int rcu_objs_intact(struct rcu_obj *const *p, unsigned int n)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < n; i++)
		bad += READ_ONCE(p[i]->magic) != RCU_MAGIC || READ_ONCE(p[i]->id) != i ||
		       READ_ONCE(p[i]->tail[2]) != ~(u64)i;
	return bad;
}

static struct rcu_obj *rcu_obj_alloc(struct kmem_cache *s, unsigned int i)
{
	struct rcu_obj *o = kmem_cache_alloc(s, GFP_KERNEL);

	if (o) {
		o->magic = RCU_MAGIC;
		o->id = i;
		o->tail[2] = ~(u64)i;
	}
	return o;
}

#define KFREE_RCU_OBJS 300

/*
 * Linux's test_kfree_rcu, on every variant: objects given to kfree_rcu stay allocated and
 * untouched while a reader may hold them (this CPU inside rcu_read_lock: no grace period can
 * end), are counted as waiting, and destroy right after frees them first (no leak, every
 * page back). Then kmalloc'd objects of every size, a large kmalloc and
 * kfree_rcu_mightsleep's, freed by kvfree_rcu_barrier.
 */
static void test_kfree_rcu(struct kunit *test)
{
	static struct rcu_obj *p[KFREE_RCU_OBJS];

	for_each_variant(v) {
		unsigned long free_before = nr_free_pages(), errors = slab_error_count();
		unsigned long bad = slab_bad_input_count();
		struct kmem_cache *s = make_cache(test, v, sizeof(struct rcu_obj), 0, 0, NULL);
		struct slab_cache_info info;
		struct kmem_cache_mem m;

		for (unsigned int i = 0; i < KFREE_RCU_OBJS; i++) {
			p[i] = rcu_obj_alloc(s, i);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
		}
		rcu_read_lock();
		for (unsigned int i = 0; i < KFREE_RCU_OBJS; i++)
			kfree_rcu(p[i], rcu);
		kmem_cache_info(s, &info);
		kmem_cache_mem_info(s, &m);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, KFREE_RCU_OBJS,
				    "%s/%s: objects freed before their grace period", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, m.rcu_waiting, KFREE_RCU_OBJS, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, rcu_objs_intact(p, KFREE_RCU_OBJS), 0,
				    "%s/%s: objects written before their grace period", VNAME(v));
		rcu_read_unlock();
		kmem_cache_destroy(s); /* waits for them */
		KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - errors, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, slab_bad_input_count() - bad, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before,
				    "%s/%s: destroy did not free kfree_rcu's objects", VNAME(v));
	}
	{
		static const size_t sizes[] = { 32, 64, 100, 192, 256, 1000, 4096, 8192, 20000 };
		void *k[ARRAY_SIZE(sizes)], *ms[4];
		unsigned long large = kfree_rcu_large_waiting();

		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
			k[i] = kmalloc(sizes[i], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, k[i]);
			memset(k[i], 0x3c, sizes[i]);
		}
		for (unsigned int i = 0; i < ARRAY_SIZE(ms); i++) {
			ms[i] = kmalloc(48, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, ms[i]);
			memset(ms[i], 0x3c, 48);
		}
		rcu_read_lock();
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++)
			kfree_rcu((struct rcu_obj *)k[i], rcu);
		for (unsigned int i = 0; i < ARRAY_SIZE(ms); i++)
			kfree_rcu_mightsleep(ms[i]);
		KUNIT_EXPECT_EQ(test, kfree_rcu_large_waiting(), large + 1);
		for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++)
			KUNIT_EXPECT_EQ_MSG(test, *(u64 *)k[i], 0x3c3c3c3c3c3c3c3cULL, "kmalloc(%zu)",
					    sizes[i]);
		for (unsigned int i = 0; i < ARRAY_SIZE(ms); i++)
			KUNIT_EXPECT_EQ(test, *(u64 *)ms[i], 0x3c3c3c3c3c3c3c3cULL);
		rcu_read_unlock();
		kvfree_rcu_barrier();
		KUNIT_EXPECT_EQ(test, kfree_rcu_large_waiting(), large);
		for (unsigned int i = 0; i < NR_KMALLOC_CACHES; i++)
			KUNIT_EXPECT_EQ_MSG(test, kmem_cache_rcu_waiting(kmalloc_caches[i]), 0,
					    "%s", kmalloc_caches[i]->name);
	}
}

/* Bad pointers given to kfree_rcu are refused and said, as kfree's are. */
static void kfree_rcu_refuses_bad_pointers(struct kunit *test)
{
	unsigned long bad = slab_bad_input_count();
	static struct rcu_obj not_slab;
	struct rcu_obj *o = kmalloc(sizeof(*o), GFP_KERNEL), *other = kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, other);
	kfree_rcu(&not_slab, rcu);
	kfree_rcu((struct rcu_obj *)((char *)o + 8), rcu);      /* inside an object */
	kvfree_call_rcu(&o->rcu, other);                          /* head in another object */
	KUNIT_EXPECT_EQ(test, slab_bad_input_count() - bad, 3);
	kfree_rcu((struct rcu_obj *)NULL, rcu);                   /* nothing */
	kfree_rcu_mightsleep(ZERO_SIZE_PTR);
	KUNIT_EXPECT_EQ(test, slab_bad_input_count() - bad, 3);
	kfree(o);
	kfree(other);
}

/*
 * Wait until *flag is set or the cycle counter passes end, halted between looks (an IPI
 * wakes the CPU, or 1 ms) and passing a quiescent state at each: a vCPU that spins keeps
 * others from running under QEMU 7.2's -icount, and one off its core on a busy host runs no
 * one else's work either.
 */
static void wait_halted(const int *flag, u64 end)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE) && get_cycles() < end) {
		rcu_quiescent_state();
		local_irq_disable();
		if (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			arch_idle_timeout(1000000); /* interrupts on when it returns */
		local_irq_enable();
	}
}

struct wq_destroy {
	struct kmem_cache *s;
	int kfree_cpu, destroy_cpu;
	u64 delay_ns;
	int queued, destroying, destroyed;
};

/*
 * The kfree_rcu on one CPU, which stays busy (no quiescent state, so its batch is not handed
 * over by one) until the destroy on another has begun, then passes quiescent states (where
 * its callbacks run, which the destroy waits for) until it returns.
 */
static void wq_destroy_cpu(struct kunit *test, void *arg)
{
	struct wq_destroy *w = arg;
	int cpu = smp_processor_id();

	if (cpu == w->kfree_cpu) {
		struct rcu_obj *p = rcu_obj_alloc(w->s, 0);

		KUNIT_ASSERT_NOT_NULL(test, p);
		kfree_rcu(p, rcu);
		__atomic_store_n(&w->queued, 1, __ATOMIC_RELEASE);
	}
	if (cpu == w->destroy_cpu) {
		u64 until;

		while (!__atomic_load_n(&w->queued, __ATOMIC_ACQUIRE))
			cpu_relax();
		until = get_cycles() + ns_to_cycles(w->delay_ns);
		while (get_cycles() < until)
			cpu_relax();
		__atomic_store_n(&w->destroying, 1, __ATOMIC_RELEASE);
		kmem_cache_destroy(w->s);
		__atomic_store_n(&w->destroyed, 1, __ATOMIC_RELEASE);
	}
	if (cpu != w->kfree_cpu || cpu == w->destroy_cpu)
		return;
	while (!__atomic_load_n(&w->destroying, __ATOMIC_ACQUIRE))
		cpu_relax();
	/* Halted: under QEMU 7.2's -icount a vCPU that spun here kept the destroyer, woken
	 * from its halt by an IPI, from ever running again. */
	wait_halted(&w->destroyed, ~0ULL);
}

/*
 * Linux's test_kfree_rcu_wq_destroy (a destroy from a workqueue after a kfree_rcu): the
 * kfree_rcu on one CPU and the destroy on another after a random delay, while the first is
 * still busy (its batch is handed over by destroy's cross-call, not by a quiescent state of
 * its own), on every variant; on one CPU both on it. No leak reported, every page back.
 */
static void test_kfree_rcu_wq_destroy(struct kunit *test)
{
	int last = nr_cpu_ids - 1;

	for_each_variant(v) {
		for (int round = 0; round < 4; round++) {
			unsigned long free_before = nr_free_pages(), errors = slab_error_count();
			struct wq_destroy w = {
				.s = make_cache(test, v, sizeof(struct rcu_obj), 0, 0, NULL),
				.kfree_cpu = round & 1 ? last : 0,
				.destroy_cpu = round & 1 ? 0 : last,
				.delay_ns = get_random_u64() % 2000000,
			};

			kunit_run_on_all_cpus(test, wq_destroy_cpu, &w);
			KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - errors, 0, "%s/%s round %d",
					    VNAME(v), round);
			KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before,
					    "%s/%s round %d: kfree_rcu on cpu %d, destroy on cpu %d",
					    VNAME(v), round, w.kfree_cpu, w.destroy_cpu);
		}
	}
}

/*
 * Linux's test_leak_destroy, on every variant: destroy with an object still allocated is
 * two reports (the objects, and destroy's own), and the cache is kept; once the object is
 * freed destroy gives every page back.
 */
static void test_leak_destroy(struct kunit *test)
{
	for_each_variant(v) {
		unsigned long free_before = nr_free_pages(), errors;
		struct kmem_cache *s = make_cache(test, v, 64, 0, 0, NULL);
		void *p = kmem_cache_alloc(s, GFP_KERNEL);
		struct slab_cache_info info;

		KUNIT_ASSERT_NOT_NULL(test, p);
		errors = slab_error_count();
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - errors, 2, "%s/%s", VNAME(v));
		kmem_cache_info(s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 1, "%s/%s", VNAME(v));
		kmem_cache_free(s, p);
		errors = slab_error_count();
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, slab_error_count() - errors, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
	}
}

static struct kmem_cache *make_typesafe(struct kunit *test, const struct variant *v)
{
	struct kmem_cache *s = kmem_cache_create_scheme("test_typesafe", sizeof(struct rcu_obj),
							 0, SLAB_TYPESAFE_BY_RCU | v->flags,
							 NULL, v->scheme, v->fastpath);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/* Is p in one of the n slabs (of slab_bytes each) whose bases are base[]? */
static bool in_slabs(const void *p, const uptr *base, unsigned int n, unsigned long slab_bytes)
{
	for (unsigned int i = 0; i < n; i++)
		if ((uptr)p - base[i] < slab_bytes)
			return true;
	return false;
}

#define TS_SLABS 4

/*
 * SLAB_TYPESAFE_BY_RCU on every variant, on one CPU: while this CPU is inside a reader that
 * holds pointers to objects, every object is freed and the cache shrunk, so its slabs are
 * freed. Their pages stay out of the page allocator (still the cache's: rcu_pages), no other
 * cache's object and no page the page allocator hands out lies in them, and the objects read
 * as they were (not poisoned, not zeroed, the free pointer outside them). After the reader
 * and a grace period every page is back.
 */
static void typesafe_by_rcu_slabs_outlive_readers(struct kunit *test)
{
	static struct rcu_obj *p[TS_SLABS * 512];
	static void *q[TS_SLABS * 512];
	uptr base[TS_SLABS];

	for_each_variant(v) {
		unsigned long free_before = nr_free_pages();
		struct kmem_cache *s = make_typesafe(test, v);
		struct kmem_cache *t = make_cache(test, v, sizeof(struct rcu_obj), 0, 0, NULL);
		unsigned long slab_bytes = PAGE_SIZE << s->order, intruders = 0;
		unsigned int n = TS_SLABS * s->objects, nslabs = 0;
		struct kmem_cache_mem m;
		struct page *pages[64];

		KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(p));
		KUNIT_EXPECT_GE_MSG(test, s->offset, s->object_size,
				    "%s/%s: the free pointer is inside a typesafe object", VNAME(v));
		for (unsigned int i = 0; i < n; i++) {
			uptr b;

			p[i] = rcu_obj_alloc(s, i);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
			b = (uptr)p[i] & ~(uptr)(slab_bytes - 1);
			if (!in_slabs(p[i], base, nslabs, slab_bytes) && nslabs < TS_SLABS)
				base[nslabs++] = b;
		}
		rcu_read_lock();
		for (unsigned int i = 0; i < n; i++)
			kmem_cache_free(s, p[i]);
		kmem_cache_shrink(s);
		kmem_cache_mem_info(s, &m);
		KUNIT_EXPECT_EQ_MSG(test, m.slabs, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_GE_MSG(test, m.rcu_pages, (unsigned long)nslabs << s->order,
				    "%s/%s: slab pages given back inside a reader", VNAME(v));
		/* Others take memory now: none of it may be in those slabs. */
		for (unsigned int i = 0; i < n; i++) {
			q[i] = kmem_cache_alloc(t, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, q[i]);
			*(u64 *)q[i] = OTHER_MAGIC;
			intruders += in_slabs(q[i], base, nslabs, slab_bytes);
		}
		for (unsigned int i = 0; i < ARRAY_SIZE(pages); i++) {
			pages[i] = alloc_pages(GFP_KERNEL, 0);
			KUNIT_ASSERT_NOT_NULL(test, pages[i]);
			memset(page_address(pages[i]), 0x99, PAGE_SIZE);
			intruders += in_slabs(page_address(pages[i]), base, nslabs, slab_bytes);
		}
		KUNIT_EXPECT_EQ_MSG(test, intruders, 0,
				    "%s/%s: a typesafe slab's memory reused inside a reader", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, rcu_objs_intact(p, n), 0,
				    "%s/%s: freed typesafe objects overwritten inside a reader",
				    VNAME(v));
		rcu_read_unlock();
		for (unsigned int i = 0; i < ARRAY_SIZE(pages); i++)
			__free_pages(pages[i], 0);
		kmem_cache_free_bulk(t, n, q);
		rcu_barrier();
		kmem_cache_mem_info(s, &m);
		KUNIT_EXPECT_EQ_MSG(test, m.rcu_pages, 0, "%s/%s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, m.pages, 0, "%s/%s", VNAME(v));
		kmem_cache_destroy(t);
		kmem_cache_destroy(s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
	}
}

/*
 * kmem_cache_create_rcu: the free pointer at freeptr_offset inside the object (outside it
 * where slub_debug poisons, as in Linux), so the object is no larger; the words around it
 * survive a free. Offsets out of the object or unaligned are refused.
 */
static void kmem_cache_create_rcu_freeptr_offset(struct kunit *test)
{
	unsigned int off = offsetof(struct rcu_obj, rcu);
	struct kmem_cache *s = kmem_cache_create_rcu("test_rcu_fp", sizeof(struct rcu_obj), off, 0);
	static struct rcu_obj *p[64];
	bool poison = slub_debug_flags(s) & SLAB_POISON;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_TRUE(test, s->flags & SLAB_TYPESAFE_BY_RCU);
	if (poison)
		KUNIT_EXPECT_GE(test, s->offset, s->object_size);
	else
		KUNIT_EXPECT_EQ(test, s->offset, off);
	if (!slub_debug_flags(s))
		KUNIT_EXPECT_EQ(test, s->size, ALIGN_UP(sizeof(struct rcu_obj), 8));
	for (unsigned int i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = rcu_obj_alloc(s, i);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	rcu_read_lock();
	for (unsigned int i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, rcu_objs_intact(p, ARRAY_SIZE(p)), 0);
	rcu_read_unlock();
	kmem_cache_destroy(s);
	KUNIT_EXPECT_NULL(test, kmem_cache_create_rcu("test_rcu_fp", 64, 60, 0));
	KUNIT_EXPECT_NULL(test, kmem_cache_create_rcu("test_rcu_fp", 64, 12, 0));
}

#define TS_SLOTS 64
#define TS_ROUNDS 30
#define TS_GEN_MAX 2048 /* objects of a generation: four slabs */
#define TS_READERS 3 /* CPUs 1..3 read (each round cross-calls every CPU: more would only
		      * slow a boot of many CPUs) */

struct ts_race {
	struct kmem_cache *s, *t;
	struct rcu_obj *slot[TS_SLOTS];
	int stop;
	int round; /* CPU 0's rounds done */
	int began; /* a reader holds an object: CPU 0's rounds may start */
	long reads, wrong;
	u64 wrong_value;
};

/*
 * CPU 0 replaces objects in the slots and frees the old ones at once (typesafe: no wait),
 * shrinks the cache, and churns another cache; CPUs 1 to 3 read through the slots inside
 * rcu_read_lock, and hold the object they reached until CPU 0 has finished a round (so it
 * was freed, its slab maybe freed, and the other cache has taken memory meanwhile): it
 * reads as one of this cache (its magic) before and after.
 */
static void ts_race_cpu(struct kunit *test, void *arg)
{
	struct ts_race *r = arg;
	u64 seed = (u64)smp_processor_id() * 0x9e3779b97f4a7c15ULL + 1;

	if (smp_processor_id() == 0) {
		static struct rcu_obj *gen[2][TS_GEN_MAX];
		static void *burst[256];
		unsigned int n = MIN(4 * r->s->objects, (unsigned int)TS_GEN_MAX);

		KUNIT_ASSERT_GE(test, n, TS_SLOTS);
		/* A reader first: on a busy host a reader's vCPU can be off its core while
		 * CPU 0 runs every round, and then no read races a free. 10 s at most. */
		wait_halted(&r->began, get_cycles() + ns_to_cycles(10000000000ULL));

		/* Generation 0: the slots and ballast, four whole slabs of an empty cache. */
		for (unsigned int i = 0; i < n; i++) {
			gen[0][i] = i < TS_SLOTS ? r->slot[i] : rcu_obj_alloc(r->s, i);
			KUNIT_ASSERT_NOT_NULL(test, gen[0][i]);
		}
		for (int round = 0; round < TS_ROUNDS; round++) {
			struct rcu_obj **old = gen[round & 1], **new = gen[!(round & 1)];

			/* The cache holds only the old generation's full slabs (the shrink
			 * below flushed every cpu's objects): the new one comes from new slabs,
			 * and freeing the old one empties its slabs, which the shrink frees
			 * while readers may hold objects of them. */
			for (unsigned int i = 0; i < n; i++) {
				new[i] = rcu_obj_alloc(r->s, i);
				KUNIT_ASSERT_NOT_NULL(test, new[i]);
			}
			for (unsigned int i = 0; i < TS_SLOTS; i++)
				rcu_assign_pointer(r->slot[i], new[i]);
			for (unsigned int i = 0; i < n; i++)
				kmem_cache_free(r->s, old[i]);
			kmem_cache_shrink(r->s);
			for (unsigned int i = 0; i < ARRAY_SIZE(burst); i++) {
				burst[i] = kmem_cache_alloc(r->t, GFP_KERNEL);
				if (burst[i])
					memset(burst[i], 0x99, sizeof(struct rcu_obj));
			}
			kmem_cache_free_bulk(r->t, ARRAY_SIZE(burst), burst);
			kmem_cache_shrink(r->t);
			rcu_quiescent_state(); /* this CPU's callbacks (the slabs' pages) run */
			__atomic_store_n(&r->round, round + 1, __ATOMIC_RELEASE);
		}
		for (unsigned int i = TS_SLOTS; i < n; i++)
			kmem_cache_free(r->s, gen[TS_ROUNDS & 1][i]);
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		return;
	}
	if (smp_processor_id() > TS_READERS)
		return;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		int round = __atomic_load_n(&r->round, __ATOMIC_ACQUIRE);
		struct rcu_obj *o;
		u64 magic;

		rcu_read_lock();
		o = rcu_dereference(r->slot[xorshift(&seed) % TS_SLOTS]);
		magic = o ? READ_ONCE(o->magic) : RCU_MAGIC;
		__atomic_store_n(&r->began, 1, __ATOMIC_RELEASE);
		/* hold it while CPU 0 frees and reuses (the round, or its end) */
		while (__atomic_load_n(&r->round, __ATOMIC_ACQUIRE) <= round + 1 &&
		       !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && magic == RCU_MAGIC)
			cpu_relax();
		if (magic == RCU_MAGIC && o)
			magic = READ_ONCE(o->magic);
		rcu_read_unlock();
		__atomic_fetch_add(&r->reads, 1, __ATOMIC_RELAXED);
		if (magic != RCU_MAGIC) {
			__atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
			WRITE_ONCE(r->wrong_value, magic);
		}
	}
}

static void typesafe_by_rcu_readers_race_frees(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs at least 2 CPUs (readers beside the one that frees)");
	for_each_variant(v) {
		unsigned long free_before = nr_free_pages();
		static struct ts_race r;

		memset(&r, 0, sizeof(r));
		r.s = make_typesafe(test, v);
		r.t = make_cache(test, v, sizeof(struct rcu_obj), 0, 0, NULL);
		for (unsigned int i = 0; i < TS_SLOTS; i++) {
			r.slot[i] = rcu_obj_alloc(r.s, i);
			KUNIT_ASSERT_NOT_NULL(test, r.slot[i]);
		}
		kunit_run_on_all_cpus(test, ts_race_cpu, &r);
		KUNIT_EXPECT_GT_MSG(test, r.reads, 0, "%s/%s: no reader began in 10 s", VNAME(v));
		KUNIT_EXPECT_EQ_MSG(test, r.wrong, 0, "%s/%s: a reader read %#llx", VNAME(v),
				    (unsigned long long)r.wrong_value);
		for (unsigned int i = 0; i < TS_SLOTS; i++)
			kmem_cache_free(r.s, r.slot[i]);
		kmem_cache_destroy(r.t);
		kmem_cache_destroy(r.s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s/%s", VNAME(v));
	}
}

static struct kunit_case slab_cases[] = {
	KUNIT_CASE(every_registered_scheme_is_a_variant),
	KUNIT_CASE(kmalloc_sizes_and_alignment),
	KUNIT_CASE(kzalloc_krealloc_kcalloc),
	KUNIT_CASE(hwcache_align_and_cache_zalloc),
	KUNIT_CASE(ctor_once_per_object),
	KUNIT_CASE(bulk_alloc_and_free),
	KUNIT_CASE(bulk_all_or_nothing),
	KUNIT_CASE(bulk_stash_bounded_and_drained),
	KUNIT_CASE(exhaustion_then_recovery),
	KUNIT_CASE(destroy_returns_all_memory),
	KUNIT_CASE(destroy_with_objects_left_reports),
	KUNIT_CASE(shrink_gives_back_empty_slabs),
	KUNIT_CASE(bad_frees_are_refused),
	KUNIT_CASE(bad_frees_outside_the_cpu_slab),
	KUNIT_CASE(bad_frees_in_a_later_page),
	KUNIT_CASE(bad_entries_in_a_bulk_free),
	KUNIT_CASE(bulk_free_of_the_object_freed_before),
	KUNIT_CASE(create_rejects_bad_arguments),
	KUNIT_CASE(freelist_update_follows_the_cpu),
	KUNIT_CASE(cross_cpu_frees),
	KUNIT_CASE(random_stress_all_cpus),
	KUNIT_CASE(sheaf_capacity_changes_while_every_cpu_works),
	KUNIT_CASE(stats_count_paths),
	KUNIT_CASE(schemes_differ_where_partial_slabs_go),
	KUNIT_CASE(interrupt_handlers_allocate_too),
	KUNIT_CASE(prefilled_sheaf_cannot_fail),
	KUNIT_CASE(test_kfree_rcu),
	KUNIT_CASE(kfree_rcu_refuses_bad_pointers),
	KUNIT_CASE(test_kfree_rcu_wq_destroy),
	KUNIT_CASE(test_leak_destroy),
	KUNIT_CASE(typesafe_by_rcu_slabs_outlive_readers),
	KUNIT_CASE(kmem_cache_create_rcu_freeptr_offset),
	KUNIT_CASE(typesafe_by_rcu_readers_race_frees),
	{}
};

static struct kunit_suite slab_suite = {
	.name = "slab",
	.test_cases = slab_cases,
};
kunit_test_suite(slab_suite);
