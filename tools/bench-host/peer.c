// SPDX-License-Identifier: MIT
/*
 * bench-suite-peer: the benchmarks of bench/ over malloc/free. The same objects as
 * bench-suite, linked with -Wl,--wrap for the kmem_cache calls bench/ makes (bench.mk's
 * PEER_WRAPS): a cache created for the peer's name (host_peer=NAME, the only "scheme" of the
 * run) is a struct peer_cache, whose entry points (kmem_cache_alloc, kmem_cache_free and
 * their bulk forms are inline calls through them) are malloc(object size) and free, through
 * the PLT, so LD_PRELOAD=libjemalloc.so.2 (tcmalloc, mimalloc) or nothing (glibc) decides
 * whose they are. Every other cache (the kmalloc caches bench/ keeps its tables in) goes to
 * the real call. bench-suite itself has no wrappers, so slablab's figures pay nothing here.
 *
 * What a peer cache gives up: alignment beyond malloc's (SLAB_HWCACHE_ALIGN is not asked
 * for: an allocator's users call malloc), constructors (refused: no benchmark of the peers
 * uses one), and slab counters (stat_by_name reads 0). Its live objects are counted per CPU
 * (a counter line of its own per CPU, so counting adds no sharing), which kmem_cache_info's
 * active_objects reports, so the benchmarks' "nothing left allocated" self-checks hold.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/slab.h"

#include "tools/bench-host/suite.h"

#define MAX_PEER_CACHES 64

struct peer_cache {
	/* First, as in struct kmem_cache: bench/'s inline kmem_cache_alloc and kmem_cache_free
	 * call through it, so they reach peer_alloc and peer_free with no wrapper (mm/slab.h). */
	struct kmem_cache_entry entry;
	const char *name;
	unsigned int size;
	bool used;
	struct {
		long live;
	} __attribute__((aligned(64))) * cpu; /* [nr_cpu_ids] */
};

static struct peer_cache caches[MAX_PEER_CACHES];
static void *peer_alloc(struct kmem_cache *s, gfp_t gfp);
static void peer_free(struct kmem_cache *s, void *p);
static int peer_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p);
static void peer_free_bulk(struct kmem_cache *s, size_t n, void **p);
static const char *peer;

int peer_setup(const char *name)
{
	peer = name;
	return 0;
}

/* The file whose malloc this process calls (the first in the lookup order: LD_PRELOAD's). */
const char *peer_malloc_file(void)
{
	Dl_info info;
	void *m = dlsym(RTLD_DEFAULT, "malloc");

	return m && dladdr(m, &info) && info.dli_fname ? info.dli_fname : "?";
}

static struct peer_cache *as_peer(const struct kmem_cache *s)
{
	const struct peer_cache *p = (const struct peer_cache *)s;

	return p >= caches && p < caches + MAX_PEER_CACHES ? (struct peer_cache *)p : NULL;
}

struct kmem_cache *__real_kmem_cache_create_scheme(const char *name, unsigned int size,
						   unsigned int align, unsigned long flags,
						   void (*ctor)(void *), const char *scheme,
						   enum slab_fastpath fastpath);
void *__real_kmem_cache_alloc_zeroed(struct kmem_cache *s, gfp_t gfp);
void __real_kmem_cache_destroy(struct kmem_cache *s);
int __real_kmem_cache_info(struct kmem_cache *s, struct slab_cache_info *out);
void __real_kmem_cache_mem_info(struct kmem_cache *s, struct kmem_cache_mem *out);
void __real_kmem_cache_mem_reset_peak(struct kmem_cache *s);
int __real_kmem_cache_set_param(struct kmem_cache *s, const char *name, unsigned int value);
int __real_kmem_cache_get_param(struct kmem_cache *s, const char *name, unsigned int *value);
u64 __real_kmem_cache_stat_by_name(struct kmem_cache *s, const char *name);
int __real_kmem_cache_shrink(struct kmem_cache *s);
int __real_kmem_cache_alloc_bulk_zeroed(struct kmem_cache *s, gfp_t gfp, size_t n, void **p);
bool __real_kmem_cache_has_layer(const struct kmem_cache *s);
unsigned long __real_slab_scheme_flags(const char *name);

struct kmem_cache *__wrap_kmem_cache_create_scheme(const char *name, unsigned int size,
						   unsigned int align, unsigned long flags,
						   void (*ctor)(void *), const char *scheme,
						   enum slab_fastpath fastpath)
{
	if (!peer || !scheme || strcmp(scheme, peer))
		return __real_kmem_cache_create_scheme(name, size, align, flags, ctor, scheme,
						       fastpath);
	if (ctor) {
		printf("peer %s: cache %s has a constructor, which malloc has no place for\n",
		       peer, name);
		return NULL;
	}
	for (int i = 0; i < MAX_PEER_CACHES; i++) {
		struct peer_cache *c = &caches[i];

		if (c->used)
			continue;
		c->cpu = aligned_alloc(64, (size_t)nr_cpu_ids * sizeof(*c->cpu));
		if (!c->cpu)
			return NULL;
		memset(c->cpu, 0, (size_t)nr_cpu_ids * sizeof(*c->cpu));
		c->entry.alloc = peer_alloc;
		c->entry.free = peer_free;
		c->entry.alloc_bulk = peer_alloc_bulk;
		c->entry.free_bulk = peer_free_bulk;
		c->name = name;
		c->size = size;
		c->used = true;
		return (struct kmem_cache *)c;
	}
	printf("peer %s: more than %d caches at once\n", peer, MAX_PEER_CACHES);
	return NULL;
}

static void *peer_alloc(struct kmem_cache *s, gfp_t gfp)
{
	struct peer_cache *c = (struct peer_cache *)(void *)s;
	void *p = malloc(c->size);

	if (p) {
		c->cpu[smp_processor_id()].live++;
		if (gfp & __GFP_ZERO)
			memset(p, 0, c->size);
	}
	return p;
}

static void peer_free(struct kmem_cache *s, void *p)
{
	struct peer_cache *c = (struct peer_cache *)(void *)s;

	if (p) {
		c->cpu[smp_processor_id()].live--;
		free(p);
	}
}

/* kmem_cache_alloc with __GFP_ZERO leaves the inline call for this one. */
void *__wrap_kmem_cache_alloc_zeroed(struct kmem_cache *s, gfp_t gfp)
{
	if (!as_peer(s))
		return __real_kmem_cache_alloc_zeroed(s, gfp);
	return peer_alloc(s, gfp | __GFP_ZERO);
}

/* The bulk calls are inline calls through the entry too (mm/slab.h). */
static int peer_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = peer_alloc(s, gfp);
		if (!p[i]) {
			while (i--)
				peer_free(s, p[i]);
			return 0;
		}
	}
	return (int)n;
}

static void peer_free_bulk(struct kmem_cache *s, size_t n, void **p)
{
	for (size_t i = 0; i < n; i++)
		peer_free(s, p[i]);
}

/* kmem_cache_alloc_bulk with __GFP_ZERO leaves the inline call for this one. */
int __wrap_kmem_cache_alloc_bulk_zeroed(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	if (!as_peer(s))
		return __real_kmem_cache_alloc_bulk_zeroed(s, gfp, n, p);
	return peer_alloc_bulk(s, gfp, n, p);
}

static long live(const struct peer_cache *c)
{
	long sum = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += __atomic_load_n(&c->cpu[cpu].live, __ATOMIC_RELAXED);
	return sum;
}

/* A peer's memory is its malloc's, which it does not say: the objects live, nothing else. */
void __wrap_kmem_cache_mem_info(struct kmem_cache *s, struct kmem_cache_mem *out)
{
	struct peer_cache *c = as_peer(s);
	long n;

	if (!c) {
		__real_kmem_cache_mem_info(s, out);
		return;
	}
	n = live(c);
	memset(out, 0, sizeof(*out));
	out->live = out->objects = n > 0 ? (unsigned long)n : 0;
}

void __wrap_kmem_cache_mem_reset_peak(struct kmem_cache *s)
{
	if (!as_peer(s))
		__real_kmem_cache_mem_reset_peak(s);
}

/* A peer has no scheme, so none of a scheme's settings. */
int __wrap_kmem_cache_set_param(struct kmem_cache *s, const char *name, unsigned int value)
{
	return as_peer(s) ? -2 : __real_kmem_cache_set_param(s, name, value);
}

int __wrap_kmem_cache_get_param(struct kmem_cache *s, const char *name, unsigned int *value)
{
	return as_peer(s) ? -2 : __real_kmem_cache_get_param(s, name, value);
}

int __wrap_kmem_cache_info(struct kmem_cache *s, struct slab_cache_info *out)
{
	struct peer_cache *c = as_peer(s);
	long n;

	if (!c)
		return __real_kmem_cache_info(s, out);
	n = live(c);
	memset(out, 0, sizeof(*out));
	out->name = c->name;
	out->scheme = peer;
	out->fastpath = "malloc";
	out->object_size = out->size = c->size;
	out->objects = out->active_objects = n > 0 ? (unsigned long)n : 0;
	return 0;
}

void __wrap_kmem_cache_destroy(struct kmem_cache *s)
{
	struct peer_cache *c = as_peer(s);
	long n;

	if (!c) {
		__real_kmem_cache_destroy(s);
		return;
	}
	n = live(c);
	if (n)
		printf("peer %s: cache %s destroyed with %ld objects still allocated\n", peer,
		       c->name, n);
	free(c->cpu);
	memset(c, 0, sizeof(*c));
}

u64 __wrap_kmem_cache_stat_by_name(struct kmem_cache *s, const char *name)
{
	return as_peer(s) ? 0 : __real_kmem_cache_stat_by_name(s, name);
}

int __wrap_kmem_cache_shrink(struct kmem_cache *s)
{
	return as_peer(s) ? 0 : __real_kmem_cache_shrink(s);
}

bool __wrap_kmem_cache_has_layer(const struct kmem_cache *s)
{
	return as_peer(s) ? false : __real_kmem_cache_has_layer(s);
}

unsigned long __wrap_slab_scheme_flags(const char *name)
{
	return peer && name && !strcmp(name, peer) ? 0 : __real_slab_scheme_flags(name);
}
