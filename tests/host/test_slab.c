// SPDX-License-Identifier: MIT
/*
 * The slab allocator as the kernel builds it (mm/slub.c, mm/slab_common.c, every
 * mm/scheme_*.c over mm/page_alloc.c, with kernel/smp.c's cross-calls), compiled for Linux
 * user space with ASan and UBSan. Four threads are four CPUs; an IPI is a signal and
 * "interrupts off" is that signal blocked (arch/host/cpu.h, host_smp.c). The page
 * allocator's RAM is a 256 MiB arena mapped at virtual == physical.
 *
 * For each variant of slab_stress.h (scheme and fastpath): patterns written at
 * allocation and checked at free, LIFO reuse, zalloc, constructors, bulk alloc/free and
 * their all-or-nothing failure with the page allocator exhausted, cross-CPU frees and where
 * the schemes put the slabs they make partial, shrink (flushing every CPU's slabs by
 * cross-call) and destroy (every page back), bad frees (counted, reported, nothing
 * corrupted); kmalloc's size classes and alignment; mm/slab.h's counter and layer queries;
 * a random stress on 1, 2 and 4 CPUs.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/host/host_env.h"
#include "arch/host/host_smp.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/sheaf.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "tests/host/ktest.h"
#include "tests/host/slab_stress.h"

#define NCPUS 4
#define ARENA_SIZE (256UL << 20)

static const struct variant *cur; /* the variant under test */
/* What the scheme under test is, from the registry's flags (never its name). */
#define CUR_FLAGS() slab_scheme_flags(cur->scheme)
#define IS_IPI_SCHEME(name) (slab_scheme_flags(name) & SLAB_SCHEME_OWNER)
#define IS_SHEAVES(name)                                                                          \
	((slab_scheme_flags(name) & (SLAB_SCHEME_LAYER | SLAB_SCHEME_OWNER)) == SLAB_SCHEME_LAYER)
static char name_buf[200];

/* "scheme/fastpath: what" */
static const char *N(const char *what)
{
	snprintf(name_buf, sizeof(name_buf), "%s: %s", cur->name, what);
	return name_buf;
}

static unsigned long irq_errors; /* calls that returned to CPU 0 with interrupts off */
static char irq_error[160];

static void irqs_on(const char *after)
{
	if (irqs_disabled() && !irq_errors++)
		snprintf(irq_error, sizeof(irq_error), "interrupts left off after %s", after);
}

static struct kmem_cache *create(const char *name, unsigned int size, unsigned int align,
				 void (*ctor)(void *))
{
	struct kmem_cache *s;

	host_no_cmpxchg_double = cur->no_cx16; /* as a CPU without CMPXCHG16B */
	s = kmem_cache_create_scheme(name, size, align, 0, ctor, cur->scheme, cur->fastpath);

	irqs_on("kmem_cache_create_scheme");
	return s;
}

static struct slab_cache_info info(struct kmem_cache *s)
{
	struct slab_cache_info i;

	memset(&i, 0xa5, sizeof(i));
	kmem_cache_info(s, &i);
	irqs_on("kmem_cache_info");
	return i;
}

static bool in_arena(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	return a >= HOST_ARENA_BASE && a < HOST_ARENA_BASE + ARENA_SIZE;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* No two of p[0..n) overlap as objects of `size` bytes; "" or the first pair that does. */
static const char *disjoint(void *const *p, size_t n, size_t size)
{
	static char why[160];
	void **q = malloc((n + 1) * sizeof(*q));

	memcpy(q, p, n * sizeof(*q));
	qsort(q, n, sizeof(*q), cmp_ptr);
	why[0] = '\0';
	for (size_t i = 1; i < n && !why[0]; i++)
		if ((uintptr_t)q[i] - (uintptr_t)q[i - 1] < size)
			snprintf(why, sizeof(why), "objects %p and %p are %lu bytes apart", q[i - 1],
				 q[i], (unsigned long)((uintptr_t)q[i] - (uintptr_t)q[i - 1]));
	free(q);
	return why;
}

/* Fill with a pattern of (tag, byte index); check it. */
static void stamp(void *p, size_t size, uint32_t tag)
{
	for (size_t i = 0; i < size; i++)
		((uint8_t *)p)[i] = (uint8_t)(tag * 131 + i * 7 + (tag >> 8));
}

static bool stamped(const void *p, size_t size, uint32_t tag)
{
	for (size_t i = 0; i < size; i++)
		if (((const uint8_t *)p)[i] != (uint8_t)(tag * 131 + i * 7 + (tag >> 8)))
			return false;
	return true;
}

/*
 * A bulk allocation of n into p[] that returned rc: all n handed out, inside the arena and
 * aligned, distinct, and each keeps the pattern (tag + its index) written into it; one check
 * named `name`. The objects stay stamped for the caller.
 */
static bool bulk_handed_out(struct kmem_cache *s, void **p, size_t n, int rc, uint32_t tag,
			    const char *name)
{
	size_t broken = 0, outside = 0;
	const char *why;

	for (size_t k = 0; k < (size_t)rc; k++) {
		outside += !in_arena(p[k]) || (uintptr_t)p[k] % s->align;
		stamp(p[k], 256, (uint32_t)(tag + k));
	}
	for (size_t k = 0; k < (size_t)rc; k++)
		broken += !stamped(p[k], 256, (uint32_t)(tag + k));
	why = rc == (int)n ? disjoint(p, n, 256) : "";
	return kt_check(rc == (int)n && !broken && !outside && !*why, N(name),
			"returned %d; %zu broken, %zu outside or misaligned; %s", rc, broken, outside,
			why);
}

/* ---- alloc/free with patterns ---- */

#define NOBJ 3000
#define OBJ_SIZE 200

static void alloc_free_patterns(void)
{
	unsigned long base = nr_free_pages(), bad = slab_bad_input_count();
	struct kmem_cache *s = create("t-basic", OBJ_SIZE, 0, NULL);
	void **p = calloc(NOBJ, sizeof(*p));
	unsigned long outside = 0, misaligned = 0, nulls = 0, broken = 0;
	struct slab_cache_info i;
	const char *why;
	void *a, *b;

	if (!kt_check(s != NULL, N("kmem_cache_create_scheme"), "returned NULL"))
		return;
	kt_check(!strcmp(s->scheme->name, cur->scheme) && s->fastpath == cur->fastpath &&
		     s->object_size == OBJ_SIZE && s->size >= OBJ_SIZE && s->align >= 8,
		 N("the cache has the scheme, fastpath and sizes asked for"),
		 "scheme %s fastpath %d object_size %u size %u align %u", s->scheme->name,
		 (int)s->fastpath, s->object_size, s->size, s->align);
	kt_check(!!(s->flags & SLAB_NO_CMPXCHG) == cur->no_cx16,
		 N(cur->no_cx16 ? "without cmpxchg16b: slab freelists under slab_lock"
				: "with cmpxchg16b: slab freelists by cmpxchg16b"),
		 "flags %#lx", s->flags);
	for (int k = 0; k < NOBJ; k++) {
		p[k] = kmem_cache_alloc(s, GFP_KERNEL);
		irqs_on("kmem_cache_alloc");
		if (!p[k]) {
			nulls++;
			continue;
		}
		outside += !in_arena(p[k]);
		misaligned += (uintptr_t)p[k] % s->align != 0;
		stamp(p[k], OBJ_SIZE, (uint32_t)k);
	}
	for (int k = 0; k < NOBJ; k++)
		broken += p[k] && !stamped(p[k], OBJ_SIZE, (uint32_t)k);
	kt_check(!nulls && !outside && !misaligned && !broken,
		 N("3000 objects: in the arena, aligned, patterns intact"),
		 "%lu NULL, %lu outside the arena, %lu misaligned, %lu patterns broken", nulls,
		 outside, misaligned, broken);
	why = nulls ? "" : disjoint(p, NOBJ, OBJ_SIZE);
	kt_check(!*why, N("3000 objects do not overlap"), "%s", why);
	i = info(s);
	kt_check(i.active_objects == NOBJ && i.objects >= NOBJ &&
		     i.slabs * i.objects_per_slab == i.objects,
		 N("slabinfo counts 3000 active objects"),
		 "active %lu objects %lu slabs %lu per slab %u", i.active_objects, i.objects,
		 i.slabs, i.objects_per_slab);

	/* Free every other one, from the end, and allocate as many again. */
	for (int k = NOBJ - 1; k >= 0; k -= 2) {
		kmem_cache_free(s, p[k]);
		irqs_on("kmem_cache_free");
	}
	broken = 0;
	for (int k = 0; k < NOBJ; k += 2)
		broken += !stamped(p[k], OBJ_SIZE, (uint32_t)k);
	kt_check(!broken, N("freeing half leaves the other half's patterns intact"),
		 "%lu broken", broken);
	for (int k = NOBJ - 1; k >= 0; k -= 2) {
		p[k] = kmem_cache_alloc(s, GFP_KERNEL);
		irqs_on("kmem_cache_alloc");
		if (p[k])
			stamp(p[k], OBJ_SIZE, (uint32_t)k + 100000);
	}
	broken = 0;
	for (int k = 0; k < NOBJ; k++)
		broken += !p[k] || !stamped(p[k], OBJ_SIZE, (uint32_t)k + (k & 1 ? 100000 : 0));
	why = broken ? "" : disjoint(p, NOBJ, OBJ_SIZE);
	kt_check(!broken && !*why, N("reallocated objects overlap no live one"),
		 "%lu patterns broken; %s", broken, why);

	/* The cpu freelist is LIFO: a freed object of the cpu slab comes straight back. */
	a = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	kt_check(a && a == b, N("a freed object is the next one handed out"), "%p then %p", a,
		 b);
	stamp(b, OBJ_SIZE, 7);
	kmem_cache_free(s, b);
	b = kmem_cache_zalloc(s, GFP_KERNEL);
	{
		bool zero = b != NULL;

		for (size_t k = 0; zero && k < OBJ_SIZE; k++)
			zero = ((uint8_t *)b)[k] == 0;
		kt_check(b == a && zero, N("kmem_cache_zalloc zeroes a used object"),
			 "got %p (freed %p), zeroed %d", b, a, zero);
	}
	kmem_cache_free(s, b);

	for (int k = 0; k < NOBJ; k++)
		kmem_cache_free(s, p[k]);
	irqs_on("kmem_cache_free");
	i = info(s);
	kt_check(i.active_objects == 0, N("all freed: no active objects"), "active %lu",
		 i.active_objects);
	if (IS_SHEAVES(cur->scheme))
		kt_check(kmem_cache_stat_by_name(s, "sheaf_alloc") > NOBJ && kmem_cache_stat(s, ALLOC_SLAB) > 0 &&
			     kmem_cache_stat_by_name(s, "sheaf_free") > NOBJ,
			 N("statistics count sheaf allocations, new slabs and sheaf frees"),
			 "sheaf_alloc %llu alloc_slab %llu sheaf_free %llu",
			 (unsigned long long)kmem_cache_stat_by_name(s, "sheaf_alloc"),
			 (unsigned long long)kmem_cache_stat(s, ALLOC_SLAB),
			 (unsigned long long)kmem_cache_stat_by_name(s, "sheaf_free"));
	else
	kt_check(kmem_cache_stat(s, ALLOC_FASTPATH) > NOBJ && kmem_cache_stat(s, ALLOC_SLAB) > 0 &&
		     kmem_cache_stat(s, FREE_FASTPATH) > 0,
		 N("statistics count fastpath allocations, new slabs and fastpath frees"),
		 "alloc_fastpath %llu alloc_slab %llu free_fastpath %llu",
		 (unsigned long long)kmem_cache_stat(s, ALLOC_FASTPATH),
		 (unsigned long long)kmem_cache_stat(s, ALLOC_SLAB),
		 (unsigned long long)kmem_cache_stat(s, FREE_FASTPATH));
	/* mm/slab.h's queries for benchmarks, against the internal ones. */
	KT_EQ_U(N("kmem_cache_stat_by_name reads the counter slabinfo names"),
		kmem_cache_stat_by_name(s, "alloc_slab"), kmem_cache_stat(s, ALLOC_SLAB));
	kt_check(kmem_cache_has_layer(s) == !!(CUR_FLAGS() & SLAB_SCHEME_LAYER),
		 N("kmem_cache_has_layer: as the scheme's SLAB_SCHEME_LAYER says"),
		 "kmem_cache_has_layer %d", (int)kmem_cache_has_layer(s));
	kmem_cache_destroy(s);
	irqs_on("kmem_cache_destroy");
	KT_EQ_U(N("destroy gives every page back"), nr_free_pages(), base);
	KT_EQ_U(N("no bad input reported"), slab_bad_input_count(), bad);
	free(p);
}

/* ---- constructors ---- */

#define CTOR_MAGIC 0xc0ffee15deadbeefULL
#define CTOR_OBJS 700

struct cobj {
	uint64_t magic;
	uint64_t user;
	uint8_t body[40];
};

static unsigned long ctor_calls;

static void ctor(void *p)
{
	struct cobj *o = p;

	o->magic = CTOR_MAGIC;
	o->user = 0;
	memset(o->body, 0, sizeof(o->body));
	ctor_calls++; /* slabs are made with interrupts off on CPU 0 here: no race */
}

static void constructors(void)
{
	unsigned long base = nr_free_pages(), unconstructed = 0, survived = 0, reused = 0, calls;
	unsigned long again = 0;
	struct kmem_cache *s;
	void **p = calloc(CTOR_OBJS, sizeof(*p)), **old = calloc(CTOR_OBJS, sizeof(*old));

	ctor_calls = 0;
	s = create("t-ctor", sizeof(struct cobj), 0, ctor);
	if (!kt_check(s != NULL, N("create a cache with a constructor"), "NULL"))
		return;
	kt_check(s->offset >= sizeof(struct cobj), N("with a constructor the free pointer is past the object"),
		 "offset %u, object %zu bytes", s->offset, sizeof(struct cobj));
	for (int k = 0; k < CTOR_OBJS; k++) {
		struct cobj *o = p[k] = kmem_cache_alloc(s, GFP_KERNEL);

		if (!o || o->magic != CTOR_MAGIC || o->user) {
			unconstructed++;
			continue;
		}
		o->user = (uintptr_t)o ^ 0x5555;
		memset(o->body, (int)(k & 0xff), sizeof(o->body));
	}
	kt_check(!unconstructed, N("every object handed out is constructed"),
		 "%lu are not", unconstructed);
	/* Free every other object: no slab empties, so allocating as many again hands out the
	 * freed ones (as their last user left them) or never-used slots of the last slab
	 * (as the constructor left them), and makes no slab. */
	calls = ctor_calls;
	for (int k = 1; k < CTOR_OBJS; k += 2) {
		old[reused++] = p[k];
		kmem_cache_free(s, p[k]);
	}
	qsort(old, reused, sizeof(*old), cmp_ptr);
	for (int k = 1; k < CTOR_OBJS; k += 2) {
		struct cobj *o = p[k] = kmem_cache_alloc(s, GFP_KERNEL);
		bool body = true;

		if (!o) {
			unconstructed++;
			continue;
		}
		for (size_t j = 0; j < sizeof(o->body); j++)
			body = body && o->body[j] == o->body[0];
		if (bsearch(&p[k], old, reused, sizeof(*old), cmp_ptr)) {
			again++;
			survived += o->magic == CTOR_MAGIC &&
				    o->user == ((uintptr_t)o ^ 0x5555) && body;
		} else {
			unconstructed += o->magic != CTOR_MAGIC || o->user || o->body[0];
		}
	}
	kt_check(survived == again && again + s->objects > reused && !unconstructed &&
			 ctor_calls == calls,
		 N("a reused object keeps its contents: the constructor does not run again"),
		 "%lu of %lu freed objects came back, %lu of them intact; %lu others not as the "
		 "constructor left them; %lu constructor calls",
		 again, reused, survived, unconstructed, ctor_calls - calls);
	kt_check(ctor_calls == kmem_cache_stat(s, ALLOC_SLAB) * s->objects,
		 N("the constructor ran once per object of every new slab"),
		 "%lu calls, %llu slabs of %u objects", ctor_calls,
		 (unsigned long long)kmem_cache_stat(s, ALLOC_SLAB), s->objects);
	for (int k = 0; k < CTOR_OBJS; k++)
		kmem_cache_free(s, p[k]);
	{
		/* A bulk past what the cache holds: the new slabs it takes whole into p[] are
		 * constructed too, each object once. */
		struct slab_cache_info ci = info(s);
		size_t want = ci.objects - ci.active_objects + 3 * ci.objects_per_slab;
		unsigned long bad = 0, slabs = kmem_cache_stat(s, ALLOC_SLAB);
		void **q = calloc(want, sizeof(*q));
		int rc;

		rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, want, q);
		irqs_on("kmem_cache_alloc_bulk (constructor)");
		for (int k = 0; k < rc; k++)
			bad += ((struct cobj *)q[k])->magic != CTOR_MAGIC;
		kt_check(rc == (int)want && !bad && !*disjoint(q, want, sizeof(struct cobj)) &&
				 kmem_cache_stat(s, ALLOC_SLAB) > slabs &&
				 ctor_calls == kmem_cache_stat(s, ALLOC_SLAB) * s->objects,
			 N("a bulk through new slabs hands out constructed objects, each built once"),
			 "returned %d for %zu, %lu not constructed, %llu -> %llu slabs, %lu calls",
			 rc, want, bad, (unsigned long long)slabs,
			 (unsigned long long)kmem_cache_stat(s, ALLOC_SLAB), ctor_calls);
		if (rc > 0)
			kmem_cache_free_bulk(s, (size_t)rc, q);
		free(q);
	}
	kmem_cache_destroy(s);
	KT_EQ_U(N("ctor cache: destroy gives every page back"), nr_free_pages(), base);
	free(p);
	free(old);
}

/* ---- bulk ---- */

struct held_block {
	struct page *page;
	unsigned int order;
};

static struct held_block *grabbed;
static size_t nr_grabbed;

/* Take every free page from the page allocator. */
static void exhaust_pages(void)
{
	size_t cap = 4096;

	grabbed = malloc(cap * sizeof(*grabbed));
	nr_grabbed = 0;
	for (int order = MAX_ORDER; order >= 0; order--) {
		struct page *pg;

		while ((pg = alloc_pages(GFP_KERNEL | __GFP_NOWARN, (unsigned)order))) {
			if (nr_grabbed == cap)
				grabbed = realloc(grabbed, (cap *= 2) * sizeof(*grabbed));
			grabbed[nr_grabbed].page = pg;
			grabbed[nr_grabbed].order = (unsigned)order;
			nr_grabbed++;
		}
	}
}

static void release_pages(void)
{
	while (nr_grabbed) {
		nr_grabbed--;
		__free_pages(grabbed[nr_grabbed].page, grabbed[nr_grabbed].order);
	}
	free(grabbed);
	grabbed = NULL;
}

static void bulk(void)
{
	static const size_t sizes[] = { 1, 2, 7, 16, 64, 250, 1000 };
	unsigned long base = nr_free_pages();
	struct kmem_cache *s = create("t-bulk", 256, 0, NULL);
	void **p = calloc(4096, sizeof(*p));
	struct slab_cache_info i0, i1;
	char name[120];
	void *keep[10];
	size_t want;
	int rc;

	if (!kt_check(s != NULL, N("create the bulk cache"), "NULL"))
		return;
	for (size_t t = 0; t < ARRAY_SIZE(sizes); t++) {
		size_t n = sizes[t];

		rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p);
		irqs_on("kmem_cache_alloc_bulk");
		snprintf(name, sizeof(name), "bulk of %zu: all handed out, distinct, patterns intact",
			 n);
		bulk_handed_out(s, p, n, rc, (uint32_t)(1000 * t), name);
		kmem_cache_free_bulk(s, (size_t)rc, p);
		irqs_on("kmem_cache_free_bulk");
		i0 = info(s);
		snprintf(name, sizeof(name), "free_bulk of %zu frees them all", n);
		kt_check(i0.active_objects == 0, N(name), "active %lu", i0.active_objects);
	}

	/* __GFP_ZERO, and NULL entries that free_bulk skips. */
	for (size_t k = 0; k < 100; k++) {
		p[k] = kmem_cache_alloc(s, GFP_KERNEL);
		memset(p[k], 0xee, 256);
		kmem_cache_free(s, p[k]);
	}
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_ZERO, 100, p);
	{
		size_t dirty = 0;

		for (size_t k = 0; k < (size_t)rc; k++)
			for (size_t j = 0; j < 256; j++)
				dirty += ((uint8_t *)p[k])[j] != 0;
		kt_check(rc == 100 && !dirty, N("bulk with __GFP_ZERO zeroes every object"),
			 "returned %d, %zu bytes not zero", rc, dirty);
	}
	for (size_t k = 0; k < 100; k += 3) {
		kmem_cache_free(s, p[k]);
		p[k] = NULL;
	}
	kmem_cache_free_bulk(s, 100, p);
	i0 = info(s);
	kt_check(i0.active_objects == 0, N("free_bulk skips NULL entries"), "active %lu",
		 i0.active_objects);

	/* All or nothing: with the page allocator empty, a bulk larger than what the cache
	 * holds fails whole and leaves nothing allocated. */
	for (int k = 0; k < 10; k++)
		keep[k] = kmem_cache_alloc(s, GFP_KERNEL);
	i0 = info(s);
	exhaust_pages();
	kt_check(nr_free_pages() == 0, N("the page allocator is exhausted"), "%lu pages free",
		 nr_free_pages());
	want = i0.objects - i0.active_objects + 3 * i0.objects_per_slab;
	host_console_reset();
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_NOWARN, want, p);
	irqs_on("kmem_cache_alloc_bulk (failing)");
	i1 = info(s);
	kt_check(rc == 0 && i1.active_objects == i0.active_objects &&
		     !host_console_has("out of memory"),
		 N("bulk with the page allocator exhausted: all or nothing, quiet with NOWARN"),
		 "returned %d for %zu, active %lu -> %lu, printed \"%s\"", rc, want,
		 i0.active_objects, i1.active_objects, host_console_text());
	{
		size_t got = 0, most = i1.objects - i1.active_objects + 1;

		/* The failed bulk may have given empty slabs back: take those pages too. */
		release_pages();
		exhaust_pages();
		while (got < most && (p[got] = kmem_cache_alloc(s, GFP_KERNEL)))
			got++;
		kt_check(got < most && host_console_has("out of memory"),
			 N("exhausted: kmem_cache_alloc returns NULL and says so"),
			 "%zu allocations succeeded of %zu free objects; printed \"%s\"", got,
			 most - 1, host_console_text());
		kmem_cache_free_bulk(s, got, p);
	}
	release_pages();
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, want, p);
	kt_check(rc == (int)want, N("after the pages come back the same bulk succeeds"),
		 "returned %d for %zu", rc, want);
	if (rc > 0)
		kmem_cache_free_bulk(s, (size_t)rc, p);
	for (int k = 0; k < 10; k++)
		kmem_cache_free(s, keep[k]);
	kmem_cache_destroy(s);
	host_console_reset();
	KT_EQ_U(N("bulk cache: destroy gives every page back"), nr_free_pages(), base);
	free(p);
}

/*
 * Bulk frees of whole slabs, as a bulk allocation leaves them in p[] (address order: the
 * core's free_bulk_whole takes each in one update, to the page allocator or the node
 * list; for partial, once the node holds min_partial), then reversed, and with one object
 * freed before (the run builder takes those): each time every object back, and the next
 * bulk allocation, which takes the slabs again, hands out distinct objects that keep what
 * is written in them; shrink leaves no slab, destroy gives every page back.
 */
/* Does the slabinfo line of cache name (console text since the last reset) contain what? */
static bool slabinfo_line_has(const char *name, const char *what)
{
	const char *t = host_console_text(), *l = t;
	size_t len = strlen(name);

	for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char line[1024];

		if (n <= len || strncmp(l, name, len) || l[len] != ' ')
			continue;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, l, n);
		line[n] = '\0';
		return strstr(line, what) != NULL;
	}
	return false;
}

static void bulk_whole_slabs(void)
{
	unsigned long base = nr_free_pages();
	struct kmem_cache *s = create("t-bulk-whole", 256, 0, NULL);
	void **p = calloc(4096, sizeof(*p));
	struct slab_cache_info i0;
	char name[120];
	size_t n;
	int rc;

	if (!kt_check(s != NULL, N("create the whole-slab bulk cache"), "NULL"))
		return;
	n = 20 * info(s).objects_per_slab + 3;
	for (int round = 0; round < 6; round++) {
		unsigned long long cpf, discarded;
		void *one = NULL;

		rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p);
		irqs_on("kmem_cache_alloc_bulk (whole slabs)");
		snprintf(name, sizeof(name),
			 "whole-slab bulk, round %d: all handed out, distinct, patterns intact", round);
		bulk_handed_out(s, p, n, rc, (uint32_t)(7000 * round), name);
		if (rc != (int)n)
			break;
		if (round % 3 == 1) /* reversed: no whole slab in address order */
			for (size_t a = 0, b = n - 1; a < b; a++, b--) {
				void *x = p[a];

				p[a] = p[b];
				p[b] = x;
			}
		if (round % 3 == 2) { /* one object of a slab in the middle freed before */
			one = p[n / 2];
			kmem_cache_free(s, one);
			p[n / 2] = NULL;
		}
		cpf = kmem_cache_stat_by_name(s, "cpu_partial_free");
		discarded = kmem_cache_stat(s, FREE_SLAB);
		kmem_cache_free_bulk(s, n, p);
		irqs_on("kmem_cache_free_bulk (whole slabs)");
		cpf = kmem_cache_stat_by_name(s, "cpu_partial_free") - cpf;
		discarded = kmem_cache_stat(s, FREE_SLAB) - discarded;
		if (round == 0 && (CUR_FLAGS() & SLAB_SCHEME_CPU_PARTIAL) && s->bulk_core)
			/* 20 whole slabs: the first go to the cpu partial list (whose drain fills
			 * the node list), the rest, with the node at min_partial, to the page
			 * allocator straight (free_bulk_whole), not through the cpu partial list. */
			kt_check(cpf > 0 && cpf < 20 && discarded + cpf >= 20 - s->min_partial,
				 N("whole-slab bulk free, cpu partial scheme: past min_partial, whole "
				   "slabs skip the cpu partial list"),
				 "%llu to the cpu partial list, %llu to the page allocator", cpf,
				 discarded);
		i0 = info(s);
		snprintf(name, sizeof(name), "whole-slab bulk free, round %d, frees them all", round);
		kt_check(i0.active_objects == 0 && i0.objects <= i0.slabs * i0.objects_per_slab,
			 N(name), "active %lu, %lu objects in %lu slabs", i0.active_objects,
			 i0.objects, i0.slabs);
	}
	if (s->stash_max) {
		/* The stash's pages on the cache's slabinfo line, and none after a shrink. */
		unsigned long stashed = slub_stashed_pages(s);
		char want[64];

		snprintf(want, sizeof(want), " stash_pages=%lu", stashed);
		host_console_reset();
		slabinfo_print();
		kt_check(stashed > 0 && slabinfo_line_has("t-bulk-whole", want),
			 N("slabinfo shows the pages the bulk stash keeps"), "%lu stashed; %s",
			 stashed, host_console_text());
	}
	kmem_cache_shrink(s);
	irqs_on("kmem_cache_shrink (whole slabs)");
	i0 = info(s);
	kt_check(i0.slabs == 0 && i0.active_objects == 0,
		 N("after whole-slab bulk frees, shrink leaves no slab"), "%lu slabs, %lu active",
		 i0.slabs, i0.active_objects);
	if (s->stash_max) {
		host_console_reset();
		slabinfo_print();
		kt_check(slub_stashed_pages(s) == 0 && !slabinfo_line_has("t-bulk-whole", "stash_pages="),
			 N("after a shrink no stash on slabinfo"), "%s", host_console_text());
	}
	kmem_cache_destroy(s);
	KT_EQ_U(N("whole-slab bulk cache: destroy gives every page back"), nr_free_pages(), base);
	free(p);
}

/*
 * The cpu freelist's known length (cpu_freelist_known): a bulk allocation takes that many
 * objects without a NULL test, so the bound must never be above the freelist's length. On
 * a bulk_core cache with the irq fastpath: a bulk free of n after a tested walk makes it at
 * least n, and the next bulk allocation of n hands the same objects out again; single
 * allocations lower it;
 * a flush (kmem_cache_shrink) forgets it, so a bulk allocation after one walks a freelist
 * that is empty and refills (were the bound kept, it would run past the freelist's end).
 * The cmpxchg fastpath's bulk allocation does not read it (that alloc counts after its
 * swap, with interrupts on): there only the objects are checked.
 */
static void bulk_known_length(void)
{
	enum { NB = 16 };
	unsigned long base = nr_free_pages();
	struct kmem_cache *s = create("t-bulk-known", 256, 0, NULL);
	void *p[NB], *q[NB], *one[3];
	bool same = true, trusted;
	long known;
	int rc;

	if (!kt_check(s != NULL, N("create the known-length bulk cache"), "NULL"))
		return;
	trusted = s->bulk_core && s->fastpath != SLAB_FASTPATH_CMPXCHG;
	/* The first refills through the slow path, which leaves the bound below 0; the
	 * second walks a freelist of 16 (tested: the bound was below 16), which sets it to 0. */
	for (int round = 0; round < 2; round++) {
		rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, NB, p);
		bulk_handed_out(s, p, NB, rc, 9100 + round,
				round ? "known length: the second bulk hands out all 16"
				      : "known length: the first bulk hands out all 16");
		kmem_cache_free_bulk(s, NB, p);
		irqs_on("kmem_cache_free_bulk (known length)");
	}
	known = cpu_freelist_known(&s->cpu_slab[smp_processor_id()]);
	if (trusted)
		kt_check(known >= NB, N("after a bulk free of 16 the cpu freelist is known to hold them"),
			 "known %ld", known);
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, NB, q);
	irqs_on("kmem_cache_alloc_bulk (known length)");
	for (int k = 0; k < NB && rc == NB; k++)
		same &= q[k] == p[k];
	kt_check(rc == NB && (same || !s->bulk_core),
		 N("the next bulk of 16 hands the freed objects out again, in p[]'s order"),
		 "returned %d, same %d", rc, (int)same);
	kmem_cache_free_bulk(s, NB, q);

	/* Singles lower the bound: the bulk then takes the tested walk, and refills. */
	for (int k = 0; k < 3; k++)
		one[k] = kmem_cache_alloc(s, GFP_KERNEL);
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, NB, q);
	same = rc == NB;
	for (int k = 0; k < NB && same; k++)
		for (int j = 0; j < 3; j++)
			same &= q[k] != one[j];
	bulk_handed_out(s, q, NB, rc, 9200,
			"known length: after three single allocations a bulk of 16 hands out 16");
	kt_check(same, N("none of them is one of the three singles"), "rc %d", rc);
	kmem_cache_free_bulk(s, NB, q);
	for (int k = 0; k < 3; k++)
		kmem_cache_free(s, one[k]);

	/* A flush forgets it: the cpu freelist went back to its slab. */
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, NB, q);
	kmem_cache_free_bulk(s, (size_t)rc, q);
	kmem_cache_shrink(s);
	irqs_on("kmem_cache_shrink (known length)");
	known = cpu_freelist_known(&s->cpu_slab[smp_processor_id()]);
	if (trusted)
		kt_check(known == 0, N("a flush forgets the known length (0)"), "known %ld", known);
	rc = kmem_cache_alloc_bulk(s, GFP_KERNEL, NB, q);
	bulk_handed_out(s, q, NB, rc, 9300, "known length: after a flush a bulk of 16 hands out 16");
	kmem_cache_free_bulk(s, (size_t)rc, q);
	kmem_cache_destroy(s);
	KT_EQ_U(N("known-length bulk cache: destroy gives every page back"), nr_free_pages(), base);
}

/* ---- several CPUs: cross-CPU frees, shrink, destroy ---- */

#define XOBJ 1500

struct cross {
	struct kmem_cache *s;
	void *obj[NCPUS][XOBJ];
	unsigned long errors[NCPUS];
	unsigned long irq_off[NCPUS];
};

static void cross_cpu(void *arg)
{
	struct cross *x = arg;
	int cpu = smp_processor_id(), from = (cpu + 1) % NCPUS;

	for (int k = 0; k < XOBJ; k++) {
		void *o = x->obj[cpu][k] = kmem_cache_alloc(x->s, GFP_KERNEL);

		if (o)
			stamp(o, 128, (uint32_t)(cpu * XOBJ + k));
		else
			x->errors[cpu]++;
		x->irq_off[cpu] += irqs_disabled();
	}
	host_cpu_barrier(NCPUS);
	/* Free the next CPU's objects, in an order of our own. */
	for (int k = XOBJ - 1; k >= 0; k -= 2)
		if (x->obj[from][k]) {
			x->errors[cpu] += !stamped(x->obj[from][k], 128, (uint32_t)(from * XOBJ + k));
			kmem_cache_free(x->s, x->obj[from][k]);
			x->irq_off[cpu] += irqs_disabled();
		}
	for (int k = 0; k < XOBJ; k += 2)
		if (x->obj[from][k]) {
			x->errors[cpu] += !stamped(x->obj[from][k], 128, (uint32_t)(from * XOBJ + k));
			kmem_cache_free(x->s, x->obj[from][k]);
			x->irq_off[cpu] += irqs_disabled();
		}
}

static void cross_cpu_frees(void)
{
	unsigned long base = nr_free_pages(), errors = 0, irq_off = 0;
	struct cross *x = calloc(1, sizeof(*x));
	struct slab_cache_info i;

	x->s = create("t-cross", 128, 0, NULL);
	if (!kt_check(x->s != NULL, N("create the cross-cpu cache"), "NULL"))
		return;
	host_run_on_cpus(NCPUS, cross_cpu, x);
	for (int c = 0; c < NCPUS; c++) {
		errors += x->errors[c];
		irq_off += x->irq_off[c];
	}
	kt_check(!errors && !irq_off, N("4 CPUs free each other's objects: patterns intact"),
		 "%lu failed allocations or broken patterns, %lu calls left interrupts off",
		 errors, irq_off);
	i = info(x->s);
	if (IS_IPI_SCHEME(cur->scheme))
		kt_check(i.active_objects == 0 && kmem_cache_stat_by_name(x->s, "remote_free") >= XOBJ &&
				 kmem_cache_stat(x->s, LIST_LOCK) == 0,
			 N("remote frees go to the owner CPU, no list_lock, nothing left active"),
			 "active %lu, remote_free %llu, list_lock %llu", i.active_objects,
			 (unsigned long long)kmem_cache_stat_by_name(x->s, "remote_free"),
			 (unsigned long long)kmem_cache_stat(x->s, LIST_LOCK));
	else if (IS_SHEAVES(cur->scheme))
		kt_check(i.active_objects == 0 && kmem_cache_stat_by_name(x->s, "sheaf_free") >= XOBJ &&
				 kmem_cache_stat_by_name(x->s, "cpu_partial_free") == 0,
			 N("remote frees go into the freeing CPU's sheaves, nothing left active"),
			 "active %lu, sheaf_free %llu", i.active_objects,
			 (unsigned long long)kmem_cache_stat_by_name(x->s, "sheaf_free"));
	else
	kt_check(i.active_objects == 0 && kmem_cache_stat(x->s, FREE_SLOWPATH) >= XOBJ,
		 N("remote frees take the slow path and leave nothing active"),
		 "active %lu, free_slowpath %llu", i.active_objects,
		 (unsigned long long)kmem_cache_stat(x->s, FREE_SLOWPATH));
	if (IS_SHEAVES(cur->scheme) || IS_IPI_SCHEME(cur->scheme))
		;
	else if (CUR_FLAGS() & SLAB_SCHEME_CPU_PARTIAL)
		kt_check(kmem_cache_stat_by_name(x->s, "cpu_partial_free") > 0 &&
				 kmem_cache_stat(x->s, FREE_ADD_PARTIAL) == 0,
			 N("full slabs made partial by a remote free go to that CPU's partial list"),
			 "cpu_partial_free %llu free_add_partial %llu",
			 (unsigned long long)kmem_cache_stat_by_name(x->s, "cpu_partial_free"),
			 (unsigned long long)kmem_cache_stat(x->s, FREE_ADD_PARTIAL));
	else
		kt_check(kmem_cache_stat_by_name(x->s, "cpu_partial_free") == 0 &&
				 kmem_cache_stat(x->s, FREE_ADD_PARTIAL) > 0,
			 N("full slabs made partial by a remote free go to the node list"),
			 "cpu_partial_free %llu free_add_partial %llu",
			 (unsigned long long)kmem_cache_stat_by_name(x->s, "cpu_partial_free"),
			 (unsigned long long)kmem_cache_stat(x->s, FREE_ADD_PARTIAL));
	kmem_cache_destroy(x->s);
	KT_EQ_U(N("cross-cpu cache: destroy gives every page back"), nr_free_pages(), base);
	free(x);
}

/*
 * ---- producer and consumer ----
 * CPU 0 only allocates and CPU 1 only frees, through a ring between them, at the same time:
 * a layer's sheaves go round through the barn (CPU 1 gives it full ones for empty ones, CPU 0
 * the other way), as bench-host's spsc does.
 */
#define PC_OBJS 20000
#define PC_RING 64

struct pc {
	struct kmem_cache *s;
	void *slot[PC_RING];
	unsigned long head, tail; /* published by CPU 0, CPU 1 */
	unsigned long failed, broken, irq_off[2]; /* irq_off: by CPU */
};

static void pc_wait(const unsigned long *index, unsigned long until_above)
{
	while (__atomic_load_n(index, __ATOMIC_ACQUIRE) <= until_above)
		sched_yield();
}

static void producer_consumer_cpu(void *arg)
{
	struct pc *x = arg;

	if (smp_processor_id() == 0) {
		for (unsigned long i = 0; i < PC_OBJS; i++) {
			void *p = kmem_cache_alloc(x->s, GFP_KERNEL);

			x->irq_off[0] += irqs_disabled();
			if (p)
				stamp(p, 256, (uint32_t)i);
			else
				x->failed++;
			if (i >= PC_RING)
				pc_wait(&x->tail, i - PC_RING);
			x->slot[i % PC_RING] = p;
			__atomic_store_n(&x->head, i + 1, __ATOMIC_RELEASE);
		}
	} else if (smp_processor_id() == 1) {
		for (unsigned long i = 0; i < PC_OBJS; i++) {
			void *p;

			pc_wait(&x->head, i);
			p = x->slot[i % PC_RING];
			if (p) {
				x->broken += !stamped(p, 256, (uint32_t)i);
				kmem_cache_free(x->s, p);
				x->irq_off[1] += irqs_disabled();
			}
			__atomic_store_n(&x->tail, i + 1, __ATOMIC_RELEASE);
		}
	}
}

static void producer_consumer(void)
{
	unsigned long base = nr_free_pages();
	struct pc *x = calloc(1, sizeof(*x));
	struct slab_cache_info i;
	unsigned long slabs_made, barn_got;

	x->s = create("t-pc", 256, 0, NULL);
	if (!kt_check(x->s != NULL, N("create the producer/consumer cache"), "NULL"))
		return;
	host_run_on_cpus(2, producer_consumer_cpu, x);
	kt_check(!x->failed && !x->broken && !x->irq_off[0] && !x->irq_off[1],
		 N("CPU 0 allocates, CPU 1 frees, at once: every object arrives intact"),
		 "%lu failed allocations, %lu broken patterns, %lu calls left interrupts off",
		 x->failed, x->broken, x->irq_off[0] + x->irq_off[1]);
	i = info(x->s);
	slabs_made = (unsigned long)kmem_cache_stat(x->s, ALLOC_SLAB);
	barn_got = (unsigned long)kmem_cache_stat_by_name(x->s, "barn_get");
	kt_check(i.active_objects == 0 && slabs_made * i.objects_per_slab < PC_OBJS / 4 &&
			 barn_got >= PC_OBJS / sheaf_capacity(x->s),
		 N("producer/consumer: the sheaves go round through the barn, few new slabs"),
		 "active %lu, %lu slabs made of %u objects for %d objects, barn_get %lu",
		 i.active_objects, slabs_made, i.objects_per_slab, PC_OBJS, barn_got);
	kmem_cache_destroy(x->s);
	KT_EQ_U(N("producer/consumer cache: destroy gives every page back"), nr_free_pages(),
		base);
	free(x);
}

struct churn {
	struct kmem_cache *s;
	unsigned long failed;
};

/* Every CPU allocates and frees, so each ends up with a cpu slab (and partial slabs). */
static void churn_cpu(void *arg)
{
	struct churn *c = arg;
	void *p[300];

	for (int k = 0; k < 300; k++)
		if (!(p[k] = kmem_cache_alloc(c->s, GFP_KERNEL)))
			__atomic_fetch_add(&c->failed, 1, __ATOMIC_RELAXED);
	for (int k = 0; k < 300; k += 2)
		kmem_cache_free(c->s, p[k]);
	for (int k = 1; k < 300; k += 2)
		kmem_cache_free(c->s, p[k]);
}

static void shrink_and_destroy(void)
{
	unsigned long base = nr_free_pages(), cache_pages, before_ipis;
	struct churn c = { 0 };
	struct slab_cache_info i;
	void *left;

	c.s = create("t-shrink", 512, 0, NULL);
	if (!kt_check(c.s != NULL, N("create the shrink cache"), "NULL"))
		return;
	cache_pages = base - nr_free_pages();
	host_run_on_cpus(NCPUS, churn_cpu, &c);
	i = info(c.s);
	kt_check(!c.failed && i.slabs >= NCPUS && i.active_objects == 0,
		 N("after 4 CPUs churn, slabs are kept and nothing is active"),
		 "%lu failed allocations, %lu slabs, %lu active", c.failed, i.slabs,
		 i.active_objects);
	before_ipis = kmem_cache_stat(c.s, CPUSLAB_FLUSH);
	kmem_cache_shrink(c.s);
	irqs_on("kmem_cache_shrink");
	i = info(c.s);
	/*
	 * Every CPU took its objects from a cpu slab of its own, so each has one to flush; but
	 * behind a layer (sheaves), a CPU that ran after another had finished (a busy host runs
	 * the threads one by one) may have been served from the barn alone, and has none: then
	 * at least one flush, and no slab left, is what shows that shrink reached them all.
	 */
	kt_check(i.slabs == 0 && nr_free_pages() == base - cache_pages &&
		     kmem_cache_stat(c.s, CPUSLAB_FLUSH) - before_ipis >=
			     (kmem_cache_has_layer(c.s) ? 1 : NCPUS),
		 N("shrink flushes every CPU's slabs by cross-call and frees the empty ones"),
		 "%lu slabs left, %lu pages missing, cpuslab_flush +%llu", i.slabs,
		 base - cache_pages - nr_free_pages(),
		 (unsigned long long)(kmem_cache_stat(c.s, CPUSLAB_FLUSH) - before_ipis));

	/* Destroy with an object still allocated: refused, said, and the cache still works. */
	left = kmem_cache_alloc(c.s, GFP_KERNEL);
	host_console_reset();
	kmem_cache_destroy(c.s);
	kt_check(host_console_has("still allocated") && host_console_has("t-shrink"),
		 N("destroy with an object left keeps the cache and says so"), "printed \"%s\"",
		 host_console_text());
	host_run_on_cpus(NCPUS, churn_cpu, &c);
	kmem_cache_free(c.s, left);
	kmem_cache_destroy(c.s);
	kt_check(!c.failed && nr_free_pages() == base,
		 N("the kept cache works; once empty, destroy gives every page back"),
		 "%lu failed allocations; free pages %lu, want %lu", c.failed, nr_free_pages(),
		 base);
	host_console_reset();
}

/* ---- interrupts in the middle of the fastpath ---- */

#define STORM_IPIS 4000

struct storm {
	struct kmem_cache *s;
	int stop;
	unsigned long sent, loops, handled, errors;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* On CPU 1, in its IPI handler (interrupts off): allocate and free on the same cache. */
static void storm_irq(void *arg)
{
	struct storm *st = arg;
	void *x = kmem_cache_alloc(st->s, GFP_ATOMIC), *y = kmem_cache_alloc(st->s, GFP_ATOMIC);

	if (!x || !y || x == y) {
		st->errors++;
		return;
	}
	stamp(x, 64, 0xa11);
	stamp(y, 64, 0xb22);
	st->errors += !stamped(x, 64, 0xa11);
	kmem_cache_free(st->s, x);
	st->errors += !stamped(y, 64, 0xb22);
	kmem_cache_free(st->s, y);
	st->handled++;
}

static void storm_cpu(void *arg)
{
	struct storm *st = arg;

	if (smp_processor_id() == 0) {
		double t0;

		host_cpu_barrier(2);
		/* At most 2 s: with fewer cores than CPUs each IPI waits for a time slice. */
		t0 = now_s();
		while (st->sent < STORM_IPIS && (st->sent % 64 || now_s() - t0 < 2.0)) {
			smp_call_function_single(1, storm_irq, st, 1);
			st->sent++;
		}
		__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
		return;
	}
	host_cpu_barrier(2);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		void *p = kmem_cache_alloc(st->s, GFP_KERNEL), *q = kmem_cache_alloc(st->s, GFP_KERNEL);

		if (!p || !q || p == q) {
			st->errors++;
			break;
		}
		stamp(p, 64, 0xc33);
		stamp(q, 64, 0xd44);
		st->errors += !stamped(p, 64, 0xc33);
		kmem_cache_free(st->s, p);
		st->errors += !stamped(q, 64, 0xd44);
		kmem_cache_free(st->s, q);
		st->loops++;
	}
}

/*
 * CPU 1 allocates and frees in a loop while CPU 0 sends it cross-calls whose handler
 * allocates and frees on the same cache. With the cmpxchg fastpath, interrupts stay on, so
 * a handler can run between the fastpath's read of freelist and tid and its cmpxchg16b: the
 * handler changes tid, the cmpxchg must fail and retry (cmpxchg_double_cpu_fail).
 */
static void interrupted_fastpath(void)
{
	unsigned long base = nr_free_pages();
	struct storm st = { 0 };
	unsigned long long retries;
	struct slab_cache_info i;

	st.s = create("t-storm", 64, 0, NULL);
	if (!kt_check(st.s != NULL, N("create the interrupt storm cache"), "NULL"))
		return;
	host_run_on_cpus(2, storm_cpu, &st);
	retries = kmem_cache_stat(st.s, CMPXCHG_DOUBLE_CPU_FAIL);
	printf("# %s: %lu fastpath loops on cpu 1, %lu of %lu handlers ran, %llu fastpath "
	       "retries\n", cur->name, st.loops, st.handled, st.sent, retries);
	i = info(st.s);
	kt_check(!st.errors && st.handled == st.sent && st.sent >= 64 && st.loops > 0 &&
			 !i.active_objects,
		 N("allocating in IPI handlers amid the fastpath: distinct objects, patterns"),
		 "%lu errors, %lu of %lu handlers ran, %lu loops, %lu active", st.errors,
		 st.handled, st.sent, st.loops, i.active_objects);
	if (cur->fastpath == SLAB_FASTPATH_CMPXCHG)
		kt_check(retries > 0, N("an interrupted cmpxchg fastpath retries"),
			 "no retry in %lu interrupts", st.sent);
	else
		kt_check(retries == 0, N("the irq fastpath is never interrupted"),
			 "%llu retries", retries);
	kmem_cache_destroy(st.s);
	KT_EQ_U(N("storm cache: destroy gives every page back"), nr_free_pages(), base);
}

/*
 * The cmpxchg fastpath's freelist word (mm/slub.h): a pointer below 2^48 comes back whole
 * and one from 2^48 up does not (allocate_slab_bare's check), the tid steps by one and
 * wraps within its 16 bits without touching the address, NULL stays NULL whatever the tid,
 * a plain pointer is tid 0; cmpxchg_local swaps only the word it was given and reports a
 * stale one.
 */
static void freelist_word(void)
{
	/* The arena's kind of address and the highest below 2^48 (every bit the word keeps). */
	void *low = (void *)0x4fc9b000UL, *high = (void *)0x00007ffffffff000UL;
	unsigned long w = 0, word, before;
	unsigned int bad = 0;

	for (unsigned int k = 0; k < 0x10002; k++) {
		unsigned long nw = fl_word_next(w, (k & 1) ? high : low);

		bad += fl_word_ptr(nw) != ((k & 1) ? high : low);
		bad += fl_word_tid(nw) != ((k + 1) & 0xffff);
		w = nw;
	}
	KT_EQ_U("freelist word: 65538 steps, each address whole and each tid one more", bad, 0);
	w = fl_word_next(0x1234000000000000UL, NULL);
	kt_check(w == 0x1235000000000000UL && !fl_word_ptr(w) && !fl_word_next(~0UL << 48, NULL) &&
			 fl_word_ptr(0xffff000000000000UL) == NULL && !fl_word_tid((uptr)high),
		 "freelist word: NULL with any tid is an empty freelist", "%#lx", w);
	/* What allocate_slab_bare's check relies on: an address at or above 2^48 (the upper
	 * half, say) does not come back whole, and a word's tid wraps from 65535 to 0. */
	kt_check(fl_word_ptr(0xffff888012345678UL) != (void *)0xffff888012345678UL &&
			 fl_word_ptr(0x0001000000001000UL) != (void *)0x0001000000001000UL &&
			 fl_word_next(0xffff00004fc9b000UL, low) == (uptr)low,
		 "freelist word: no address from 2^48 up is whole; tid 65535 steps to 0",
		 "%#lx", fl_word_next(0xffff00004fc9b000UL, low));
	word = before = fl_word_next(0, low);
	kt_check(!cmpxchg_local(&word, fl_word_next(before, low), fl_word_next(before, high)) &&
			 word == before,
		 "cmpxchg_local: a stale word (same address, other tid) fails, nothing stored",
		 "word %#lx", word);
	kt_check(cmpxchg_local(&word, before, fl_word_next(before, high)) &&
			 word == fl_word_next(before, high),
		 "cmpxchg_local: the current word is swapped", "word %#lx", word);
}

/*
 * Where a new sheaf starts in its page (sheaf_offset_in_page, mm/sheaf.h): for every cpu's
 * struct kmem_cache_cpu in a page-aligned per-cpu array (1024 cpus cover every offset the
 * stride gives) and every capacity, the sheaf is 64-aligned and inside its page, and it
 * shares no page offset with that cpu's copy whenever some 64-aligned place would not
 * (found here by trying them all).
 */
static void sheaf_placement(void)
{
	unsigned int bad = 0, apart = 0, cases = 0;

	for (unsigned long cpu = 0; cpu < 1024; cpu++) {
		unsigned long start = (cpu * sizeof(struct kmem_cache_cpu)) % PAGE_SIZE;

		for (unsigned int cap = 1; cap <= SLAB_SHEAF_MAX; cap++) {
			unsigned long need = sizeof(struct slab_sheaf) + cap * sizeof(void *);
			unsigned long off = sheaf_offset_in_page(0x40000000UL + cpu * sizeof(struct kmem_cache_cpu),
								 sizeof(struct kmem_cache_cpu), cap);
			bool some = false, clear = true;

			for (unsigned long o = 0; o + need <= PAGE_SIZE && !some; o += 64) {
				bool overlap = false;

				for (unsigned long b = o; b < o + need && !overlap; b += 8)
					overlap = (b - start) % PAGE_SIZE < sizeof(struct kmem_cache_cpu);
				some = !overlap;
			}
			for (unsigned long b = off; b < off + need && clear; b += 8)
				clear = (b - start) % PAGE_SIZE >= sizeof(struct kmem_cache_cpu);
			bad += off % 64 || off + need > PAGE_SIZE || (some && !clear);
			apart += clear;
			cases++;
		}
	}
	KT_EQ_U("sheaf placement: inside the page, 64-aligned, clear of the cpu's struct when "
		"anywhere is", bad, 0);
	kt_check(apart > cases / 2 && sheaf_offset_in_page(0x40000000UL, sizeof(struct kmem_cache_cpu), 64) ==
					      sizeof(struct kmem_cache_cpu),
		 "sheaf placement: cpu 0's sheaves of 64 start right after its struct",
		 "%u of %u apart", apart, cases);
}

/* ---- bad frees ---- */

struct bad_case {
	const char *name;
	const char *said;
};

/* One bad call: the count goes up by exactly one and the report says `said`. */
static void expect_bad(const char *what, const char *said, unsigned long before)
{
	unsigned long now = slab_bad_input_count();

	irqs_on(what);
	kt_check(now == before + 1 && host_console_has(said) && host_console_has("left alone"),
		 N(what), "bad input count %lu -> %lu; printed \"%s\", want \"%s\"", before, now,
		 host_console_text(), said);
	host_console_reset();
}

static void bad_frees(void)
{
	unsigned long base = nr_free_pages(), before;
	struct kmem_cache *s = create("t-bad", 64, 0, NULL), *t = create("t-other", 64, 0, NULL);
	void *a, *b, *fill[600], *q[4];
	struct page *pg;
	char *big, *heap;
	int local;

	if (!kt_check(s && t, N("create the bad-free caches"), "NULL"))
		return;
	host_console_reset();

	a = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	before = slab_bad_input_count();
	kmem_cache_free(s, a);
	expect_bad("double free on the fastpath is refused", "double free of", before);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	kt_check(a && b && a != b, N("after a refused double free the object is handed out once"),
		 "%p and %p", a, b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);

	/* An object of a slab that is not the cpu slab: the slow path's check. */
	for (int k = 0; k < 600; k++)
		fill[k] = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, fill[0]);
	before = slab_bad_input_count();
	kmem_cache_free(s, fill[0]);
	expect_bad("double free to another slab is refused", "double free of", before);

	before = slab_bad_input_count();
	kmem_cache_free(s, (char *)fill[5] + 8);
	expect_bad("free of a pointer inside an object is refused", "inside an object", before);
	before = slab_bad_input_count();
	kmem_cache_free(s, &local);
	expect_bad("free of a stack address is refused", "not a slab object", before);
	pg = alloc_pages(GFP_KERNEL, 0);
	before = slab_bad_input_count();
	kmem_cache_free(s, page_address(pg));
	expect_bad("free of a page-allocator page is refused", "not a slab object", before);
	before = slab_bad_input_count();
	kmem_cache_free(t, fill[6]);
	expect_bad("free to the wrong cache is refused", "of cache t-bad", before);
	before = slab_bad_input_count();
	/* free_bulk compares an object with the one it linked last: adjacent duplicates. */
	q[0] = fill[8];
	q[1] = fill[7];
	q[2] = fill[7];
	kmem_cache_free_bulk(s, 3, q);
	expect_bad("the same object twice in one bulk free is refused", "twice in one bulk",
		   before);
	fill[7] = fill[8] = NULL;
	/*
	 * The fast part of free_bulk stops at the first object that fails its test and hands it
	 * and all before it to the checked way: one bad pointer in the middle of objects of the
	 * cpu slab is reported, and the others (after it and before it) are all freed.
	 */
	{
		void *r[4], *m[5], *back[4];
		int found = 0;

		for (int k = 0; k < 4; k++)
			r[k] = kmem_cache_alloc(s, GFP_KERNEL);
		m[0] = r[0];
		m[1] = r[1];
		m[2] = &local;
		m[3] = r[2];
		m[4] = r[3];
		before = slab_bad_input_count();
		kmem_cache_free_bulk(s, 5, m);
		expect_bad("a bad pointer in the middle of a bulk free is refused", "not a slab object",
			   before);
		for (int k = 0; k < 4; k++)
			back[k] = kmem_cache_alloc(s, GFP_KERNEL);
		for (int k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++)
				found += back[k] == r[j];
		kt_check(found == 4, N("the rest of that bulk free was freed, each object once"),
			 "%d of the 4 objects came back", found);
		/* The object just freed on the fast part's run, given again next to it. */
		m[0] = back[0];
		m[1] = back[1];
		m[2] = back[2];
		m[3] = back[3];
		m[4] = back[3];
		before = slab_bad_input_count();
		kmem_cache_free_bulk(s, 5, m);
		expect_bad("the freelist's head given again in a bulk free is refused", "double free",
			   before);
		for (int k = 0; k < 4; k++)
			back[k] = kmem_cache_alloc(s, GFP_KERNEL);
		found = 0;
		for (int k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++)
				found += back[k] == r[j] && (k == 0 || back[k] != back[k - 1]);
		kt_check(found == 4, N("after the refused double free each object comes back once"),
			 "%d of the 4 objects came back", found);
		/* NULL entries are skipped, reported as nothing, whatever the cpu freelist holds. */
		m[0] = back[0];
		m[1] = NULL;
		m[2] = back[1];
		m[3] = back[2];
		m[4] = NULL;
		before = slab_bad_input_count();
		kmem_cache_free_bulk(s, 5, m);
		kmem_cache_free(s, back[3]);
		kt_check(slab_bad_input_count() == before,
			 N("NULL entries in a bulk free are skipped without a report"),
			 "bad input count %lu -> %lu: %s", before, slab_bad_input_count(),
			 host_console_text());
		host_console_reset();
	}
	/* The same with the cpu freelist empty (its head NULL, as a NULL entry). */
	{
		struct kmem_cache *z = create("t-null", 64, 0, NULL);
		struct slab_cache_info info;
		void *all[512], *m[2];
		unsigned int n = 0;

		if (z && !kmem_cache_info(z, &info) && info.objects_per_slab <= 512) {
			for (n = 0; n < info.objects_per_slab; n++)
				all[n] = kmem_cache_alloc(z, GFP_KERNEL);
			m[0] = all[0];
			m[1] = NULL;
			before = slab_bad_input_count();
			kmem_cache_free_bulk(z, 2, m);
			kt_check(slab_bad_input_count() == before,
				 N("a NULL entry with the cpu freelist empty is skipped without a report"),
				 "bad input count %lu -> %lu: %s", before, slab_bad_input_count(),
				 host_console_text());
			host_console_reset();
			kmem_cache_free_bulk(z, n - 1, all + 1);
		}
		if (z)
			kmem_cache_destroy(z);
	}

	heap = malloc(64);
	before = slab_bad_input_count();
	kfree(heap);
	expect_bad("kfree of a malloc'd pointer is refused", "never returned", before);
	free(heap);
	before = slab_bad_input_count();
	kfree(page_address(pg));
	expect_bad("kfree of a page-allocator page is refused", "never returned", before);
	__free_pages(pg, 0);
	big = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	before = slab_bad_input_count();
	kfree(big + PAGE_SIZE);
	expect_bad("kfree inside a large kmalloc is refused", "never returned", before);
	kfree(big);

	/* Nothing was corrupted: the cache hands out distinct objects and empties cleanly. */
	for (int k = 1; k < 600; k++)
		if (fill[k])
			kmem_cache_free(s, fill[k]);
	{
		unsigned long broken = 0;
		const char *why;

		for (int k = 0; k < 600; k++) {
			fill[k] = kmem_cache_alloc(s, GFP_KERNEL);
			if (fill[k])
				stamp(fill[k], 64, (uint32_t)k);
		}
		for (int k = 0; k < 600; k++)
			broken += !fill[k] || !stamped(fill[k], 64, (uint32_t)k);
		why = broken ? "" : disjoint(fill, 600, 64);
		kt_check(!broken && !*why, N("after the bad frees the cache hands out distinct objects"),
			 "%lu broken; %s", broken, why);
		for (int k = 0; k < 600; k++)
			kmem_cache_free(s, fill[k]);
	}
	before = slab_bad_input_count();
	kmem_cache_destroy(s);
	kmem_cache_destroy(t);
	kt_check(nr_free_pages() == base && slab_bad_input_count() == before,
		 N("after the bad frees destroy gives every page back"),
		 "free pages %lu, want %lu", nr_free_pages(), base);
	host_console_reset();
}

/* ---- without cmpxchg16b: slab_lock ---- */

struct lock_wait {
	void *obj;              /* on a full slab that is no CPU's: its free updates the slab */
	struct slab *slab;
	int started, done;      /* CPU 1 is about to free obj; has freed it */
	int done_while_locked;  /* CPU 0 saw the free finish while it held the slab's lock */
};

/*
 * CPU 0 holds the slab's lock byte as slab_update_freelist_locked would; CPU 1 frees an
 * object of that slab, which must change the slab's freelist and counters, so it has to wait
 * until CPU 0 lets go. With cmpxchg16b the free ignores the byte and finishes at once.
 */
static void lock_wait_cpu(void *arg)
{
	struct lock_wait *w = arg;

	if (smp_processor_id() == 1) {
		host_cpu_barrier(2);
		__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
		kmem_cache_free(w->slab->slab_cache, w->obj);
		__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&w->slab->locked, 1, __ATOMIC_RELEASE);
	host_cpu_barrier(2);
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE))
		;
	/* However late CPU 1 gets there, it may not finish before the unlock. */
	for (double t0 = now_s(); now_s() - t0 < 0.05;)
		if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			w->done_while_locked = 1;
	__atomic_store_n(&w->slab->locked, 0, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		;
}

static void slab_lock_excludes_updates(void)
{
	unsigned long base = nr_free_pages();
	struct kmem_cache *s, *c;
	static void *p[1024];
	struct lock_wait w = { 0 };
	unsigned int n;

	if (!cur->no_cx16 || (CUR_FLAGS() & SLAB_SCHEME_LAYER))
		return; /* sheaves: frees go to a sheaf first; ipi schemes: owner-only updates */
	s = create("t-slab-lock", 256, 0, NULL);
	if (!kt_check(s != NULL, N("create the slab_lock cache"), "NULL"))
		return;
	/* One slab and one object more: the first slab is full and no CPU's any more. */
	n = s->objects + 1;
	for (unsigned int k = 0; k < n; k++)
		p[k] = kmem_cache_alloc(s, GFP_KERNEL);
	w.obj = p[0];
	w.slab = virt_to_slab(p[0]);
	kt_check(w.slab && !w.slab->frozen && w.slab->inuse == w.slab->objects &&
			 virt_to_slab(p[n - 1]) != w.slab,
		 N("a full slab that is no CPU's"), "frozen %d inuse %d", w.slab->frozen,
		 w.slab->inuse);
	host_run_on_cpus(2, lock_wait_cpu, &w);
	kt_check(!w.done_while_locked && w.done && w.slab->inuse == w.slab->objects - 1,
		 N("a free to a slab whose lock is held waits for it, then goes through"),
		 "done while locked %d, done %d, inuse %d of %d", w.done_while_locked, w.done,
		 w.slab->inuse, w.slab->objects);
	for (unsigned int k = 1; k < n; k++)
		kmem_cache_free(s, p[k]);
	kmem_cache_destroy(s);
	KT_EQ_U(N("slab_lock cache: destroy gives every page back"), nr_free_pages(), base);
	c = kmem_cache_create_scheme("t-no-cx16", 64, 0, 0, NULL, cur->scheme,
				     SLAB_FASTPATH_CMPXCHG);
	kt_check(c && (c->flags & SLAB_NO_CMPXCHG) && c->cpu_tid,
		 N("without cmpxchg16b a cmpxchg fastpath cache is made (one 8-byte cmpxchg), "
		   "its slab freelists under slab_lock"), "%p", (void *)c);
	if (c)
		kmem_cache_destroy(c);
}

/* ---- kmalloc (the default scheme and fastpath: partial, irq) ---- */

static void kmalloc_classes(void)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 16, 17, 31, 32, 33, 64, 65, 96, 97, 128, 129,
					192, 193, 256, 300, 512, 1000, 1024, 2048, 2049, 4096,
					5000, 8192 };
	unsigned long base = nr_free_pages(), bad = slab_bad_input_count();
	char name[120];
	void *p[ARRAY_SIZE(sizes)][3];
	unsigned long misaligned = 0, small = 0, nulls = 0;
	char *r, *big;

	for (size_t t = 0; t < ARRAY_SIZE(sizes); t++) {
		size_t n = sizes[t], nat = 8;

		while (nat < n && (n & (n - 1)) == 0 && nat < 8192)
			nat <<= 1;
		for (int k = 0; k < 3; k++) {
			void *o = p[t][k] = kmalloc(n, GFP_KERNEL);

			if (!o) {
				nulls++;
				continue;
			}
			misaligned += (uintptr_t)o % nat != 0;
			small += ksize(o) < n;
			memset(o, 0x5a, n);
		}
	}
	kt_check(!nulls && !misaligned && !small,
		 "kmalloc: 1..8192 bytes: power-of-two sizes naturally aligned, others on 8, "
		 "ksize covers the request",
		 "%lu NULL, %lu misaligned, %lu with ksize too small", nulls, misaligned, small);
	for (size_t t = 0; t < ARRAY_SIZE(sizes); t++) {
		snprintf(name, sizeof(name), "kmalloc(%zu): ksize is its class", sizes[t]);
		if (t == 0 || t == 5 || t == 11 || t == 18 || t == 25)
			kt_check(p[t][0] && ksize(p[t][0]) ==
						(sizes[t] <= 8	   ? 8
						 : sizes[t] <= 32  ? 32
						 : sizes[t] <= 96  ? 96
						 : sizes[t] <= 512 ? 512
								   : 8192),
				 name, "ksize %zu", p[t][0] ? ksize(p[t][0]) : 0);
		for (int k = 0; k < 3; k++)
			kfree(p[t][k]);
	}
	kt_check(kmalloc(0, GFP_KERNEL) == ZERO_SIZE_PTR, "kmalloc(0) is ZERO_SIZE_PTR", "it is not");
	kfree(ZERO_SIZE_PTR);
	kfree(NULL);
	KT_EQ_U("kfree(NULL) and kfree(ZERO_SIZE_PTR) are quiet", slab_bad_input_count(), bad);

	base = nr_free_pages();
	big = kmalloc(100000, GFP_KERNEL);
	kt_check(big && (uintptr_t)big % PAGE_SIZE == 0 && ksize(big) >= 100000 &&
		     nr_free_pages() <= base - 25,
		 "kmalloc(100000) comes from the page allocator, page aligned",
		 "%p, ksize %zu", (void *)big, big ? ksize(big) : 0);
	memset(big, 1, 100000);
	kfree(big);
	KT_EQ_U("kmalloc: a large allocation goes back to the page allocator", nr_free_pages(),
		base);
	kt_check(kmalloc((PAGE_SIZE << MAX_ORDER) + 1, GFP_KERNEL | __GFP_NOWARN) == NULL,
		 "kmalloc larger than the largest page block is NULL", "it is not");
	kt_check(kmalloc_array((size_t)1 << 62, 8, GFP_KERNEL) == NULL,
		 "kmalloc_array overflow is NULL", "it is not");
	{
		unsigned char *z = kzalloc(300, GFP_KERNEL), *c = kcalloc(10, 30, GFP_KERNEL);
		size_t dirty = 0;

		for (int k = 0; k < 300; k++)
			dirty += z[k] != 0 || c[k] != 0;
		kt_check(!dirty, "kzalloc and kcalloc zero", "%zu bytes not zero", dirty);
		kfree(z);
		kfree(c);
	}
	r = kmalloc(40, GFP_KERNEL);
	for (int k = 0; k < 40; k++)
		r[k] = (char)k;
	r = krealloc(r, 3000, GFP_KERNEL);
	{
		bool same = r != NULL;

		for (int k = 0; same && k < 40; k++)
			same = r[k] == (char)k;
		kt_check(same && ksize(r) >= 3000, "krealloc to a larger class keeps the contents",
			 "%p", (void *)r);
	}
	kfree(r);
	KT_EQ_U("kmalloc: no bad input", slab_bad_input_count(), bad);
}

/* ---- the random stress ---- */

static void stress(int ncpus, long ops)
{
	static struct stress st;
	unsigned long base = nr_free_pages(), bad = slab_bad_input_count();
	unsigned long allocs = 0, frees = 0, sent = 0, received = 0, shrinks = 0, bulks = 0;
	unsigned long ipis = 0;
	struct slab_cache_info i;
	const char *why;
	char name[120];
	double t0 = now_s();

	memset(&st, 0, sizeof(st));
	st.s = create("t-stress", ncpus == 1 ? 48 : ncpus == 2 ? 200 : 72, 0, NULL);
	st.ncpus = ncpus;
	st.ops = ops;
	st.seed = 0x1234567ULL * (uint64_t)ncpus + (uint64_t)(cur - variants);
	st.shrink_every = 3000;
	why = stress_run(&st);
	for (int c = 0; c < ncpus; c++) {
		allocs += st.cpu[c].allocs;
		frees += st.cpu[c].frees;
		sent += st.cpu[c].sent;
		received += st.cpu[c].received;
		shrinks += st.cpu[c].shrinks;
		bulks += st.cpu[c].bulk_allocs;
		ipis += st.cpu[c].ipis;
	}
	printf("# %s stress on %d cpus: %lu allocs %lu frees %lu sent %lu received %lu bulk "
	       "%lu shrinks %lu ipis %llu interrupted cmpxchg fastpaths, %.2f s\n",
	       cur->name, ncpus, allocs, frees, sent, received, bulks, shrinks, ipis,
	       (unsigned long long)kmem_cache_stat(st.s, CMPXCHG_DOUBLE_CPU_FAIL), now_s() - t0);
	snprintf(name, sizeof(name), "stress on %d cpus: patterns, alignment, interrupts", ncpus);
	kt_check(!*why, N(name), "%s", why);
	snprintf(name, sizeof(name), "stress on %d cpus: every object sent was freed by its receiver",
		 ncpus);
	kt_check(sent == received && (ncpus == 1 || sent > 0), N(name), "%lu sent, %lu received",
		 sent, received);
	if (ncpus > 1) {
		snprintf(name, sizeof(name),
			 "stress on %d cpus: shrinks reached the other CPUs by IPI", ncpus);
		/*
		 * Not ipis >= shrinks: two cross-calls sent while the first signal is still
		 * pending are taken as one (standard signals do not queue), and a CPU waiting on
		 * its own cross-call serves the other's from the queue before the signal lands
		 * (seen with the host loaded: 57 shrinks, 56 IPIs taken).
		 */
		kt_check(shrinks > 0 && ipis > 0, N(name), "%lu shrinks, %lu IPIs taken", shrinks,
			 ipis);
	}
	i = info(st.s);
	snprintf(name, sizeof(name), "stress on %d cpus: nothing active at the end", ncpus);
	kt_check(i.active_objects == 0, N(name), "active %lu", i.active_objects);
	kmem_cache_destroy(st.s);
	snprintf(name, sizeof(name), "stress on %d cpus: destroy gives every page back", ncpus);
	kt_check(nr_free_pages() == base && slab_bad_input_count() == bad, N(name),
		 "free pages %lu, want %lu; bad input %lu -> %lu", nr_free_pages(), base, bad,
		 slab_bad_input_count());
}

/* The public queries outside any one scheme: an unknown counter name, a debug cache. */
static void public_queries(void)
{
	struct kmem_cache *s = kmem_cache_create("queries", 64, 0, 0, NULL);
	struct kmem_cache *d = kmem_cache_create_debug("queries-debug", 64, 0, SLAB_POISON, NULL,
						       SLAB_DEBUG_LOCKED);

	host_console_reset();
	kt_check(s && kmem_cache_stat_by_name(s, "no_such_counter") == 0 &&
			 host_console_has("no counter named no_such_counter"),
		 "kmem_cache_stat_by_name: an unknown name reads 0 and is reported",
		 "console: %s", host_console_text());
	kt_check(d && kmem_cache_has_layer(d),
		 "kmem_cache_has_layer: a debug cache has one (the checks stand in front)",
		 "cache %p", (void *)d);
	kmem_cache_destroy(d);
	kmem_cache_destroy(s);
}

/*
 * test_slab --schemes: the scheme registry of this build, one line per scheme: its name, its
 * SLAB_SCHEME_* flags as words, and its own counters (or -), for tools/test.sh's boots.
 */
static int list_schemes(void)
{
	static const struct { unsigned long flag; const char *word; } words[] = {
		{ SLAB_SCHEME_LAYER, "layer" },        { SLAB_SCHEME_CPU_PARTIAL, "cpu_partial" },
		{ SLAB_SCHEME_OWNER, "owner" },        { SLAB_SCHEME_TRANSFER, "transfer" },
		{ SLAB_SCHEME_IPI_EACH, "ipi_each" },  { SLAB_SCHEME_IPI_BATCH, "ipi_batch" },
		{ SLAB_SCHEME_BASELINE, "baseline" },  { SLAB_SCHEME_DEFAULT, "default" },
		{ SLAB_SCHEME_DEBUG_LOCKED, "debug_locked" },
		{ SLAB_SCHEME_DEBUG_PARTIAL, "debug_partial" },
		{ SLAB_SCHEME_ON_REQUEST, "on_request" },
	};
	const char *name;

	for (unsigned int i = 0; (name = slab_scheme_registered(i)); i++) {
		unsigned long f = slab_scheme_flags(name);
		struct kmem_cache *s = kmem_cache_create_scheme("list-schemes", 64, 0, 0, NULL, name,
								 SLAB_FASTPATH_IRQ);
		const char *c;
		int n = 0;

		if (!s)
			return 1;
		printf("%s ", name);
		for (size_t w = 0; w < ARRAY_SIZE(words); w++)
			if (f & words[w].flag)
				printf("%s%s", n++ ? "," : "", words[w].word);
		printf("%s ", n ? "" : "-");
		n = 0;
		for (unsigned int k = NR_SLUB_STAT_ITEMS; (c = kmem_cache_stat_name(s, k)); k++)
			printf("%s%s", n++ ? "," : "", c);
		printf("%s\n", n ? "" : "-");
		kmem_cache_destroy(s);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long start_pages;

	setvbuf(stdout, NULL, _IOLBF, 0);
	host_arena_init(HOST_ARENA_BASE, ARENA_SIZE);
	host_smp_init(NCPUS);
	slab_init();
	if (argc > 1 && !strcmp(argv[1], "--schemes"))
		return list_schemes();
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--schemes]\n", argv[0]);
		return 2;
	}
	kt_check(nr_cpu_ids == NCPUS && smp_processor_id() == 0 && !irqs_disabled(),
		 "four thread-CPUs up, main thread is CPU 0 with interrupts on",
		 "nr_cpu_ids %d, cpu %d, irqs_disabled %d", nr_cpu_ids, smp_processor_id(),
		 (int)irqs_disabled());

	kmalloc_classes();
	public_queries();
	freelist_word();
	sheaf_placement();
	start_pages = nr_free_pages(); /* the kmalloc caches keep their slabs */
	for (size_t v = 0; v < stress_variants(); v++) {
		cur = &variants[v];
		alloc_free_patterns();
		constructors();
		bulk();
		bulk_whole_slabs();
		bulk_known_length();
		cross_cpu_frees();
		if (IS_SHEAVES(cur->scheme))
			producer_consumer();
		shrink_and_destroy();
		interrupted_fastpath();
		bad_frees();
		slab_lock_excludes_updates();
		stress(1, 40000);
		stress(2, 80000);
		stress(4, 80000);
	}
	kt_check(!irq_errors, "interrupts on after every call on CPU 0", "%s", irq_error);
	KT_EQ_U("the page allocator ends where it started", nr_free_pages(), start_pages);
	return kt_finish();
}
