// SPDX-License-Identifier: MIT
/*
 * bench=rcu: what kfree_rcu costs against kfree (mm/slub_rcu.c), per scheme and fastpath,
 * on CPU 0, the others idle. Each sample allocates RCU_OBJS objects of 64 bytes (an
 * rcu_head inside; untimed), then times freeing them all: with kmem_cache_free, or with
 * kfree_rcu (the call only: what the caller pays; the frees come after the grace period,
 * in its callbacks). Memory, exact, after the kfree_rcu calls and before any callback has
 * run: the objects waiting for a grace period, the pages the page allocator gave their
 * batches or rcu_free sheaves meanwhile, and the cache's pages once kvfree_rcu_barrier has
 * freed them (a scheme may keep freed objects: the sheaves put the rcu_free sheaf in the
 * barn) against after the plain frees. Cycles: median of bench_reps= samples (11), with
 * the spread.
 */
#include "bench/bench.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define RCU_REPS 11
#define RCU_OBJS 2000
#define RCU_OBJ_SIZE 64

struct rcu_bench_obj {
	u64 word[2];
	struct rcu_head rcu;
	u64 tail[RCU_OBJ_SIZE / 8 - 4];
};
_Static_assert(sizeof(struct rcu_bench_obj) == RCU_OBJ_SIZE, "64-byte objects");

struct rcu_run {
	struct bench_stats kfree, kfree_rcu;
	unsigned long waiting, batch_pages, pages_after_kfree, pages_after_rcu;
	bool ok;
};

static bool fill(struct kmem_cache *s, struct rcu_bench_obj **p)
{
	for (int i = 0; i < RCU_OBJS; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!p[i])
			return false;
		p[i]->word[0] = (u64)i;
	}
	return true;
}

static void measure(struct kmem_cache *s, struct rcu_bench_obj **p, u64 *samples, int reps,
		    struct rcu_run *r)
{
	struct kmem_cache_mem m;

	r->ok = false;
	for (int k = 0; k < reps; k++) {
		u64 t0;

		if (!fill(s, p))
			return;
		t0 = get_cycles_ordered();
		for (int i = 0; i < RCU_OBJS; i++)
			kmem_cache_free(s, p[i]);
		samples[k] = get_cycles_ordered() - t0;
	}
	bench_summarize(samples, reps, RCU_OBJS, &r->kfree);
	kmem_cache_mem_info(s, &m);
	r->pages_after_kfree = m.pages;
	for (int k = 0; k < reps; k++) {
		unsigned long free_before;
		u64 t0;

		if (!fill(s, p))
			return;
		free_before = nr_free_pages();
		t0 = get_cycles_ordered();
		for (int i = 0; i < RCU_OBJS; i++)
			kfree_rcu(p[i], rcu);
		samples[k] = get_cycles_ordered() - t0;
		if (k == reps - 1) { /* the memory of one sample, before its grace period */
			kmem_cache_mem_info(s, &m);
			r->waiting = m.rcu_waiting;
			r->batch_pages = free_before > nr_free_pages() ? free_before - nr_free_pages() : 0;
		}
		kvfree_rcu_barrier();
	}
	bench_summarize(samples, reps, RCU_OBJS, &r->kfree_rcu);
	kmem_cache_mem_info(s, &m);
	r->pages_after_rcu = m.pages;
	r->ok = m.rcu_waiting == 0 && m.live == 0;
}

static void report(const struct slab_variant *v, struct rcu_run *r)
{
	char params[160], a[24], b[24];

	printk("%-14s %-8s %12s %12s %9lu %9lu %11lu %11lu\n", v->scheme, v->path,
	       bench_fmt(a, sizeof(a), r->kfree.median), bench_fmt(b, sizeof(b), r->kfree_rcu.median),
	       r->waiting, r->batch_pages, r->pages_after_kfree, r->pages_after_rcu);
	snprintf(params, sizeof(params),
		 "\"scheme\":\"%s\",\"path\":\"%s\",\"objects\":%d,\"size\":%d", v->scheme, v->path,
		 RCU_OBJS, RCU_OBJ_SIZE);
	bench_json("rcu", params, "kfree_cycles_per_object", r->kfree.median, "cycles", &r->kfree);
	bench_json("rcu", params, "kfree_rcu_cycles_per_object", r->kfree_rcu.median, "cycles",
		   &r->kfree_rcu);
	bench_json("rcu", params, "waiting_objects", (u64)r->waiting * 10, "objects", NULL);
	bench_json("rcu", params, "waiting_bytes", (u64)r->waiting * RCU_OBJ_SIZE * 10, "bytes",
		   NULL);
	bench_json("rcu", params, "batch_pages", (u64)r->batch_pages * 10, "pages", NULL);
	bench_json("rcu", params, "cache_pages_after_kfree", (u64)r->pages_after_kfree * 10,
		   "pages", NULL);
	bench_json("rcu", params, "cache_pages_after_kfree_rcu", (u64)r->pages_after_rcu * 10,
		   "pages", NULL);
	/* A scheme's headline: its layer's, or the boot fastpath's (fastpath=). */
	if ((strcmp(v->path, "irq") && strcmp(v->path, "cmpxchg")) ||
	    v->fastpath == slab_boot_fastpath())
		bench_headline("rcu", v->scheme, "kfree_rcu_cycles_per_object", r->kfree_rcu.median,
			       "cycles");
}

static void run_rcu(void)
{
	int reps = (int)bench_reps(RCU_REPS);
	struct rcu_bench_obj **p = kmalloc_array(RCU_OBJS, sizeof(*p), GFP_KERNEL);
	u64 *samples = kmalloc_array((size_t)reps, sizeof(u64), GFP_KERNEL);
	const struct slab_variant *v;

	if (!p || !samples) {
		bench_fail("rcu", "no memory for %d pointers and %d samples", RCU_OBJS, reps);
		goto out;
	}
	printk("%d objects of %d bytes freed per sample, %d samples; cycles per object%s; "
	       "memory after one sample's kfree_rcu calls, before their grace period\n",
	       RCU_OBJS, RCU_OBJ_SIZE, reps, bench_emulated() ? " (emulated)" : "");
	printk("%-14s %-8s %12s %12s %9s %9s %11s %11s\n", "scheme", "path", "kfree", "kfree_rcu",
	       "waiting", "batch_pg", "pages:kfree", "pages:rcu");
	for (unsigned int i = 0; (v = slab_variant(i)); i++) {
		struct kmem_cache *s;
		struct rcu_run r;

		if (!bench_scheme_selected(v->scheme))
			continue;
		s = kmem_cache_create_scheme("bench-rcu", RCU_OBJ_SIZE, 0, 0, NULL, v->scheme,
					     v->fastpath);
		if (!s) {
			bench_fail("rcu", "cannot create a cache");
			break;
		}
		measure(s, p, samples, reps, &r);
		if (!r.ok)
			bench_fail("rcu", "%s/%s: objects left allocated or waiting after "
				   "kvfree_rcu_barrier", v->scheme, v->path);
		else
			report(v, &r);
		kmem_cache_destroy(s);
	}
out:
	kfree(samples);
	kfree(p);
}

static const struct bench rcu_bench = {
	.name = "rcu",
	.what = "kfree_rcu against kfree: cycles per object and the memory waiting for a grace period",
	.run = run_rcu,
};
bench_register(rcu_bench);
