// SPDX-License-Identifier: MIT
/*
 * The sheaves' capacity (mm/sheaf.c, mm/scheme_sheaves.c), with the host arch's four
 * thread-CPUs under ASan+UBSan:
 *
 *   - sheaf_capacity=linux7 gives every kmalloc cache Linux 7.0's capacity, worked out here
 *     from the rule as 7.0 states it (60/26/12/4 by object size, then up to what fills the
 *     sheaf's kmalloc bucket with a 32-byte header), not from the kernel's function; the
 *     slablab rule and a fixed number give theirs; debug flags give none;
 *   - kmem_cache_set_sheaf_capacity takes effect on every sheaf: after a change to 4 the
 *     cpus and the barn keep at most what sheaves of 4 hold, after a change to 200 a burst
 *     of 150 frees and 150 allocations stays in one cpu's main sheaf;
 *   - and it is safe while the other cpus allocate and free: slab_stress.h's stress on four
 *     cpus with changes of capacity from every cpu now and then.
 * test_slab_tsan runs that stress under ThreadSanitizer too.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/host/host_smp.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/sheaf.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "tests/host/ktest.h"
#include "tests/host/slab_stress.h"

#define NCPUS 4
#define ARENA_SIZE (128UL << 20)

static const unsigned int kmalloc_size[NR_KMALLOC_CACHES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192
};

/* Linux 7.0's capacity for objects of `size` bytes, from the rule's own words. */
static unsigned int linux7_expected(unsigned int size)
{
	unsigned int base = size >= 4096 ? 4 : size >= 1024 ? 12 : size >= 256 ? 26 : 60;
	unsigned int bytes = 32 + 8 * base, bucket = 0;

	for (int i = 0; i < NR_KMALLOC_CACHES && !bucket; i++)
		if (kmalloc_size[i] >= bytes)
			bucket = kmalloc_size[i];
	return (bucket - 32) / 8;
}

static void parse(const char *line)
{
	char err[256];

	if (cmdline_parse(line, err, sizeof(err))) {
		fprintf(stderr, "test_sheaves: %s: %s\n", line, err);
		exit(2);
	}
}

static void linux7_rule(void)
{
	static const unsigned int table[NR_KMALLOC_CACHES] = { 60, 60, 60, 60, 60, 60, 60,
							       28, 28, 12, 12, 4, 4 };
	char bad[512] = "";
	size_t n = 0;

	for (int i = 0; i < NR_KMALLOC_CACHES; i++) {
		struct kmem_cache *s = kmalloc_caches[i];
		unsigned int got = kmem_cache_sheaf_capacity(s), want = linux7_expected(s->size);

		if (got != want || want != table[i])
			n += (size_t)snprintf(bad + n, sizeof(bad) - n, " %s: %u, 7.0's rule %u",
					      s->name, got, want);
	}
	kt_check(!n, "sheaf_capacity=linux7: every kmalloc cache has Linux 7.0's capacity "
		 "(60 up to 192 B, 28 at 256 and 512, 12 at 1 and 2 KiB, 4 at 4 and 8 KiB)",
		 "%s", bad);
	for (unsigned int size = 8; size <= 8192; size += 8)
		if (sheaf_capacity_linux7(size, 0) != linux7_expected(size)) {
			kt_check(false, "the linux7 rule for every object size 8..8192", "size %u: %u, want %u",
				 size, sheaf_capacity_linux7(size, 0), linux7_expected(size));
			return;
		}
	kt_check(true, "the linux7 rule for every object size 8..8192", "%s", "");
	kt_check(sheaf_capacity_linux7(64, SLAB_POISON) == 0 &&
			 sheaf_capacity_linux7(4096, SLAB_RED_ZONE) == 0,
		 "linux7: a cache with debug flags has no sheaves", "%u %u",
		 sheaf_capacity_linux7(64, SLAB_POISON), sheaf_capacity_linux7(4096, SLAB_RED_ZONE));
	KT_EQ_U("kmalloc_size_roundup(240) is kmalloc-256's", kmalloc_size_roundup(240), 256);
	KT_EQ_U("kmalloc_size_roundup(80) is kmalloc-96's", kmalloc_size_roundup(80), 96);
}

/* A debug cache (slub_debug's flags) runs on another scheme: no sheaves, as in 7.0. */
static void debug_cache_has_none(void)
{
	struct kmem_cache *s = kmem_cache_create_debug("sheaves-debug", 64, 0, SLAB_POISON, NULL,
						       SLAB_DEBUG_LOCKED);

	kt_check(s && kmem_cache_sheaf_capacity(s) == 0 &&
			 kmem_cache_set_sheaf_capacity(s, 8) == -2,
		 "a debug cache has no sheaves and no capacity to set", "capacity %u",
		 s ? kmem_cache_sheaf_capacity(s) : 0);
	kmem_cache_destroy(s);
}

/* The other rules, on caches created after a new command line. */
static void other_rules(void)
{
	struct kmem_cache *s;

	parse("scheme=sheaves sheaf_capacity=slablab");
	s = kmem_cache_create("rule-slablab", 512, 0, 0, NULL);
	KT_EQ_U("sheaf_capacity=slablab: 16 for 512-byte objects", kmem_cache_sheaf_capacity(s), 16);
	kmem_cache_destroy(s);
	parse("scheme=sheaves sheaf_capacity=77");
	s = kmem_cache_create("rule-fixed", 512, 0, 0, NULL);
	KT_EQ_U("sheaf_capacity=77: 77", kmem_cache_sheaf_capacity(s), 77);
	kmem_cache_destroy(s);
	parse("scheme=sheaves");
	s = kmem_cache_create("rule-default", 64, 0, 0, NULL);
	KT_EQ_U("sheaf_capacity not given: the default rule's 32 for 64-byte objects",
		kmem_cache_sheaf_capacity(s), sheaf_capacity_slablab(64));
	kmem_cache_destroy(s);
}

static u64 stat_of(struct kmem_cache *s, const char *name)
{
	return kmem_cache_stat_by_name(s, name);
}

/* Objects kept free per cpu and in the barn (kmem_cache_mem_info). */
static void cached(struct kmem_cache *s, unsigned long *cpu, unsigned long *node)
{
	struct kmem_cache_mem m;

	kmem_cache_mem_info(s, &m);
	*cpu = m.cpu_cached;
	*node = m.node_cached;
}

static void set_at_run_time(void)
{
	static void *objs[3000];
	struct kmem_cache *s = kmem_cache_create_scheme("sheaves-resize", 64, 0, 0, NULL,
							"sheaves", SLAB_FASTPATH_IRQ);
	unsigned long cpu, node;
	u64 flush, put, refill, get;
	int n = 0;

	if (!s) {
		kt_check(false, "a sheaves cache", "kmem_cache_create_scheme failed");
		return;
	}
	/* 3000 objects freed on cpu 0: main, spare and a full barn (10 sheaves) hold them. */
	for (n = 0; n < 3000; n++)
		objs[n] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	cached(s, &cpu, &node);
	kt_check(cpu >= 32 && cpu <= 2 * 32 && node == 10 * 32,
		 "3000 frees at capacity 32 fill the main sheaf and the barn's ten", "cpu %lu barn %lu",
		 cpu, node);
	kt_check(kmem_cache_set_sheaf_capacity(s, 4) == 0 && kmem_cache_sheaf_capacity(s) == 4,
		 "kmem_cache_set_sheaf_capacity(s, 4)", "capacity %u", kmem_cache_sheaf_capacity(s));
	cached(s, &cpu, &node);
	kt_check(cpu <= 2 * 4 && node <= 10 * 4 && stat_of(s, "sheaf_resize") >= 12,
		 "at capacity 4 the cpu keeps at most 8 and the barn 40, every sheaf fitted",
		 "cpu %lu barn %lu sheaf_resize %llu", cpu, node,
		 (unsigned long long)stat_of(s, "sheaf_resize"));
	kt_check(kmem_cache_set_sheaf_capacity(s, 0) == -1 &&
			 kmem_cache_set_sheaf_capacity(s, 501) == -1 &&
			 kmem_cache_set_param(s, "cpu_partial", 10) == -2 &&
			 kmem_cache_sheaf_capacity(s) == 4,
		 "capacities 0 and 501 and another scheme's setting refused, the capacity kept", "%s",
		 "");
	kt_check(kmem_cache_set_sheaf_capacity(s, 200) == 0, "kmem_cache_set_sheaf_capacity(s, 200)",
		 "%s", "");
	kmem_cache_shrink(s);
	/* Empty sheaves now: allocate 150, free them, allocate them again, free again. */
	for (int i = 0; i < 150; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	flush = stat_of(s, "sheaf_flush");
	put = stat_of(s, "barn_put");
	for (int i = 0; i < 150; i++)
		kmem_cache_free(s, objs[i]);
	refill = stat_of(s, "sheaf_refill");
	get = stat_of(s, "barn_get");
	for (int i = 0; i < 150; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	kt_check(stat_of(s, "sheaf_flush") == flush && stat_of(s, "barn_put") == put &&
			 stat_of(s, "sheaf_refill") == refill && stat_of(s, "barn_get") == get,
		 "at capacity 200, 150 frees and 150 allocations stay in the main sheaf",
		 "flush %llu->%llu put %llu->%llu refill %llu->%llu barn_get %llu->%llu",
		 (unsigned long long)flush, (unsigned long long)stat_of(s, "sheaf_flush"),
		 (unsigned long long)put, (unsigned long long)stat_of(s, "barn_put"),
		 (unsigned long long)refill, (unsigned long long)stat_of(s, "sheaf_refill"),
		 (unsigned long long)get, (unsigned long long)stat_of(s, "barn_get"));
	for (int i = 0; i < 150; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
}

/* The stress of slab_stress.h with capacity changes from every cpu, on sheaves. */
static void set_while_busy(void)
{
	static struct stress st;
	unsigned long base = nr_free_pages(), resizes = 0, allocs = 0;
	struct slab_cache_info info;
	const char *why;

	memset(&st, 0, sizeof(st));
	st.s = kmem_cache_create_scheme("sheaves-busy", 96, 0, 0, NULL, "sheaves",
					SLAB_FASTPATH_IRQ);
	st.ncpus = NCPUS;
	st.ops = 40000;
	st.seed = 0x5eaf;
	st.shrink_every = 3000;
	st.resize_every = 400;
	why = stress_run(&st);
	kt_check(!*why, "4 cpus allocate, free, free remotely and change the capacity", "%s", why);
	for (int c = 0; c < NCPUS; c++) {
		resizes += st.cpu[c].resizes;
		allocs += st.cpu[c].allocs;
	}
	kmem_cache_info(st.s, &info);
	kt_check(resizes > 100 && stat_of(st.s, "sheaf_resize") > 0 && !info.active_objects,
		 "capacity changed many times, sheaves fitted, nothing left allocated",
		 "%lu changes, sheaf_resize %llu, %lu allocations, %lu active", resizes,
		 (unsigned long long)stat_of(st.s, "sheaf_resize"), allocs, info.active_objects);
	kmem_cache_destroy(st.s);
	KT_EQ_U("destroy gives every page back", nr_free_pages(), base);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	host_arena_init(HOST_ARENA_BASE, ARENA_SIZE);
	host_smp_init(NCPUS);
	parse("scheme=sheaves,lock,partial sheaf_capacity=linux7");
	slab_init();
	linux7_rule();
	debug_cache_has_none();
	other_rules();
	set_at_run_time();
	set_while_busy();
	return kt_finish();
}
