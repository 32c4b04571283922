// SPDX-License-Identifier: MIT
/*
 * bench=fastpath: cycles per kmem_cache_alloc+kmem_cache_free pair by object size, for every
 * scheme and fastpath. bench=bulk: the table of Brouer 2015, SLAB bulk API (linux-mm; 256-byte
 * objects): per object, N single allocs then N single frees against
 * kmem_cache_alloc_bulk+free_bulk of N.
 * bench=held: pages kept with nothing in use. Every selected scheme with each fastpath.
 * bench=fastpath also puts kmalloc_nolock+kfree_nolock beside kmalloc+kfree on the kmalloc
 * buckets (the boot's scheme and fastpath: scheme=, fastpath=), outside NMI context and in
 * NMIs (where every free is deferred to an irq_work, whose kfree is not in the figure).
 * fastpath and bulk run on the boot CPU; every figure is the median of bench_reps= runs
 * (21 by default), with p10/p90 and min/max.
 */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/nmi.h"
#include "kernel/numa.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define REPS_DEFAULT 21

struct variant {
	const char *scheme;
	enum slab_fastpath fastpath;
	const char *fp_name;
};

/*
 * mm/slab.h's variants (slab_variant) of the selected schemes (scheme=). A cache with a
 * layer in front of the cpu slab bypasses the fastpaths: a scheme's own layer is one
 * variant already; with the debug checks on every cache (slub_debug=) any scheme's cache
 * has one, and is measured once, as "layer".
 */
static struct variant variants[32];
static unsigned int nr_variants;

static void make_variants(void)
{
	const struct slab_variant *v;

	nr_variants = 0;
	for (unsigned int i = 0; (v = slab_variant(i)) && nr_variants < ARRAY_SIZE(variants); i++) {
		struct kmem_cache *probe;
		bool layer;

		if (!bench_scheme_selected(v->scheme))
			continue;
		probe = kmem_cache_create_scheme("bench-probe", 64, 0, 0, NULL, v->scheme, v->fastpath);
		layer = probe && kmem_cache_has_layer(probe);
		if (probe)
			kmem_cache_destroy(probe);
		if (layer && !(v->scheme_flags & SLAB_SCHEME_LAYER)) {
			if (v->fastpath == SLAB_FASTPATH_IRQ)
				variants[nr_variants++] = (struct variant){ v->scheme, v->fastpath, "layer" };
			continue;
		}
		variants[nr_variants++] = (struct variant){ v->scheme, v->fastpath, v->path };
	}
}

/* The variant a scheme's headline figure comes from: the boot fastpath (fastpath=). */
static bool headline_variant(const struct variant *v)
{
	return strcmp(v->fp_name, "irq") && strcmp(v->fp_name, "cmpxchg")
		       ? true
		       : v->fastpath == slab_boot_fastpath();
}

static void emit(const char *bench, const char *params, const char *figure,
		 const struct bench_stats *st)
{
	struct bench_stats ns = {
		.median = bench_tenths_to_ns(st->median), .p10 = bench_tenths_to_ns(st->p10),
		.p90 = bench_tenths_to_ns(st->p90), .min = bench_tenths_to_ns(st->min),
		.max = bench_tenths_to_ns(st->max),
	};

	bench_json(bench, params, figure, st->median, "cycles", st);
	bench_json(bench, params, figure, ns.median, "ns", &ns);
}

/* Self-check: everything a benchmark allocated from s has come back. */
static void check_empty(const char *bench, struct kmem_cache *s, const struct variant *v)
{
	struct slab_cache_info info;

	kmem_cache_info(s, &info);
	if (info.active_objects)
		bench_fail(bench, "%s/%s: %lu objects still allocated after the runs", v->scheme,
			   v->fp_name, info.active_objects);
}

/* ---- fastpath ---- */

#define FP_PAIRS 1000
/* Every power-of-two kmalloc class up to a page (96 and 192 are kmalloc's odd ones out). */
static const unsigned int fp_sizes[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };

static void measure_pairs(struct kmem_cache *s, struct bench_stats *st, u64 *samples, int reps)
{
	for (int i = 0; i < 200; i++) /* warm: cpu slab in place, code and data cached */
		kmem_cache_free(s, kmem_cache_alloc(s, GFP_KERNEL));
	for (int r = 0; r < reps; r++) {
		u64 t0 = get_cycles_ordered();

		for (int i = 0; i < FP_PAIRS; i++) {
			void *p = kmem_cache_alloc(s, GFP_KERNEL);

			barrier();
			kmem_cache_free(s, p);
		}
		samples[r] = get_cycles_ordered() - t0;
	}
	bench_summarize(samples, reps, FP_PAIRS, st);
}

/* ---- the nolock calls beside kmalloc's, on the kmalloc buckets ---- */

#define NMI_PAIRS 200 /* per NMI: each pair's free is deferred, so its objects stay out */

static void measure_kmalloc(size_t size, bool nolock, struct bench_stats *st, u64 *samples,
			    int reps)
{
	for (int i = 0; i < 200; i++) {
		void *p = nolock ? kmalloc_nolock(size, 0, NUMA_NO_NODE) : kmalloc(size, GFP_KERNEL);

		nolock ? kfree_nolock(p) : kfree(p);
	}
	for (int r = 0; r < reps; r++) {
		u64 t0 = get_cycles_ordered();

		if (nolock) {
			for (int i = 0; i < FP_PAIRS; i++) {
				void *p = kmalloc_nolock(size, 0, NUMA_NO_NODE);

				barrier();
				kfree_nolock(p);
			}
		} else {
			for (int i = 0; i < FP_PAIRS; i++) {
				void *p = kmalloc(size, GFP_KERNEL);

				barrier();
				kfree(p);
			}
		}
		samples[r] = get_cycles_ordered() - t0;
	}
	bench_summarize(samples, reps, FP_PAIRS, st);
}

#ifndef ARCH_HOST
struct nmi_pairs {
	size_t size;
	bool irqs_on;        /* measure only NMIs whose interrupted code had interrupts on */
	int want, done, finished, missed;
	int target;          /* the cpu the NMIs go to */
	int reps;
	bool ok;
	u64 *samples;
	u64 cycles, failed;
	u64 resent;          /* NMIs that found the other kind of code: sent again */
};

/* NMI context: NMI_PAIRS pairs, timed. */
static bool nmi_pairs_fn(const struct nmi_frame *f, void *arg)
{
	struct nmi_pairs *np = arg;
	u64 t0;

	if (f->cpu != np->target || !__atomic_exchange_n(&np->want, 0, __ATOMIC_ACQ_REL))
		return false;
	if (nmi_interrupted_irqs_on() != np->irqs_on) {
		/* landed in an interrupt handler (the irq_work's deferred frees, say), or with
		 * interrupts on where they were meant to be off: not this figure's NMI */
		np->missed = 1;
		__atomic_store_n(&np->done, 1, __ATOMIC_RELEASE);
		return true;
	}
	t0 = get_cycles_ordered();
	for (int i = 0; i < NMI_PAIRS; i++) {
		void *p = kmalloc_nolock(np->size, 0, NUMA_NO_NODE);

		np->failed += !p;
		barrier();
		kfree_nolock(p);
	}
	np->cycles = get_cycles_ordered() - t0;
	__atomic_store_n(&np->done, 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * One measured NMI to np->target per rep, each waited for (a second at most), after the
 * last one's deferred frees are done; one that found the other kind of code is sent again
 * (100 times at most a rep).
 */
static void send_nmis(struct nmi_pairs *np)
{
	for (int r = 0, tries = 0; r < np->reps && np->ok; tries++) {
		u64 end = get_cycles() + ns_to_cycles(1000000000ULL);

		while (kfree_nolock_pending() && get_cycles() < end)
			cpu_relax();
		np->missed = 0;
		__atomic_store_n(&np->done, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&np->want, 1, __ATOMIC_RELEASE);
		nmi_send(np->target);
		while (!__atomic_load_n(&np->done, __ATOMIC_ACQUIRE) && get_cycles() < end)
			cpu_relax();
		np->ok = __atomic_load_n(&np->done, __ATOMIC_ACQUIRE) && tries < 100 * np->reps;
		if (np->missed) {
			np->resent++;
			continue;
		}
		np->samples[r++] = np->cycles;
	}
}

/* On two cpus: the target waits with interrupts on, where the other's NMIs land. */
static void nmi_pairs_roles(void *arg)
{
	struct nmi_pairs *np = arg;

	if (smp_processor_id() == np->target) {
		while (!__atomic_load_n(&np->finished, __ATOMIC_ACQUIRE))
			cpu_relax();
		return;
	}
	send_nmis(np);
	__atomic_store_n(&np->finished, 1, __ATOMIC_RELEASE);
}

/*
 * The nolock pair in NMIs to this cpu: sent by another cpu while this one waits with
 * interrupts on (irqs_on), or by this cpu to itself, taken inside the send, whose ICR
 * writes run with interrupts off. false: no other cpu for the first, no NMI handler slot,
 * or an NMI not taken within a second (said).
 */
static bool measure_nolock_in_nmi(size_t size, bool irqs_on, struct bench_stats *st,
				  u64 *samples, int reps, u64 *failed)
{
	struct nmi_pairs np = { .size = size, .irqs_on = irqs_on, .target = smp_processor_id(),
				.reps = reps, .ok = true, .samples = samples };
	struct nmi_handler h = { .name = "bench=fastpath", .fn = nmi_pairs_fn, .arg = &np };

	if (irqs_on && nr_cpu_ids < 2)
		return false;
	if (nmi_handler_register(&h)) {
		bench_fail("fastpath", "no NMI handler slot free");
		return false;
	}
	if (irqs_on) {
		struct cpumask two;

		cpumask_clear(&two);
		cpumask_set_cpu(np.target, &two);
		cpumask_set_cpu(np.target ? 0 : 1, &two);
		smp_run_on_cpus(&two, nmi_pairs_roles, &np);
	} else {
		send_nmis(&np);
	}
	nmi_handler_unregister(&h);
	kfree_nolock_flush(); /* what the irq_work has not freed yet */
	if (!np.ok) {
		bench_fail("fastpath", "%d NMIs to cpu %d that interrupted code with interrupts "
			   "%s: not had within a second each, or %llu resent", reps, np.target,
			   irqs_on ? "on" : "off", (unsigned long long)np.resent);
		return false;
	}
	*failed += np.failed;
	bench_summarize(samples, reps, NMI_PAIRS, st);
	return true;
}
#endif

/*
 * kmalloc+kfree, kmalloc_nolock+kfree_nolock, and the nolock pair in NMIs (that interrupted
 * code with interrupts on: the cpu freelist's way; with them off: the node partial list's),
 * per kmalloc size: one table, and for each a JSON line ("calls" kmalloc or nolock,
 * "context" task, nmi_irqs_on or nmi_irqs_off) with the buckets' scheme and path.
 */
static void run_nolock_pairs(u64 *samples, int reps)
{
	enum { KMALLOC, NOLOCK, NMI_ON, NMI_OFF, NR_NL };
	static const char *const figure[NR_NL] = { "kmalloc_kfree_pair", "nolock_pair",
						   "nolock_pair", "nolock_pair" };
	static const char *const context[NR_NL] = { "task", "task", "nmi_irqs_on",
						    "nmi_irqs_off" };
	static struct bench_stats st[ARRAY_SIZE(fp_sizes)][NR_NL];
	static bool have[ARRAY_SIZE(fp_sizes)][NR_NL];
	char a[24], b[24], c[24], params[200];
	struct slab_cache_info info;
	u64 failed[NR_NL] = { 0 };

	kmem_cache_info(kmalloc_cache(64), &info);
	for (unsigned z = 0; z < ARRAY_SIZE(fp_sizes); z++) {
		measure_kmalloc(fp_sizes[z], false, &st[z][KMALLOC], samples, reps);
		measure_kmalloc(fp_sizes[z], true, &st[z][NOLOCK], samples, reps);
		have[z][KMALLOC] = have[z][NOLOCK] = true;
#ifndef ARCH_HOST
		have[z][NMI_ON] = measure_nolock_in_nmi(fp_sizes[z], true, &st[z][NMI_ON], samples,
							reps, &failed[NMI_ON]);
		have[z][NMI_OFF] = measure_nolock_in_nmi(fp_sizes[z], false, &st[z][NMI_OFF],
							 samples, reps, &failed[NMI_OFF]);
#endif
		for (int k = 0; k < NR_NL; k++) {
			if (!have[z][k])
				continue;
			snprintf(params, sizeof(params),
				 "\"scheme\":\"%s\",\"fastpath\":\"%s\",\"size\":%u,\"calls\":\"%s\","
				 "\"context\":\"%s\",\"pairs\":%d,\"reps\":%d",
				 info.scheme, info.fastpath, fp_sizes[z],
				 k == KMALLOC ? "kmalloc" : "nolock", context[k],
				 k >= NMI_ON ? NMI_PAIRS : FP_PAIRS, reps);
			emit("fastpath", params, figure[k], &st[z][k]);
		}
	}
	printk("kmalloc buckets (%s/%s): cycles per pair, median (p10-p90) of %d runs%s; in NMIs: "
	       "%d pairs per NMI, frees deferred; allocations that failed there: %llu with "
	       "interrupts on, %llu off\n", info.scheme, info.fastpath, reps,
	       bench_emulated() ? ", emulated" : "", NMI_PAIRS,
	       (unsigned long long)failed[NMI_ON], (unsigned long long)failed[NMI_OFF]);
	printk("%6s  %21s  %21s  %21s  %21s\n", "size", "kmalloc+kfree", "nolock pair",
	       "in NMI, irqs were on", "in NMI, irqs were off");
	for (unsigned z = 0; z < ARRAY_SIZE(fp_sizes); z++) {
		printk("%6u", fp_sizes[z]);
		for (int k = 0; k < NR_NL; k++) {
			if (!have[z][k]) {
				printk("  %21s", "-");
				continue;
			}
			printk("  %7s (%s-%s)", bench_fmt(a, sizeof(a), st[z][k].median),
			       bench_fmt(b, sizeof(b), st[z][k].p10),
			       bench_fmt(c, sizeof(c), st[z][k].p90));
		}
		printk("\n");
	}
}

static void run_fastpath(void)
{
	static struct bench_stats st[ARRAY_SIZE(fp_sizes)][ARRAY_SIZE(variants)];
	char a[24], b[24], c[24], params[160];
	int reps = (int)bench_reps(REPS_DEFAULT);
	u64 *samples = kmalloc_array((size_t)reps, sizeof(u64), GFP_KERNEL);

	make_variants();
	if (!samples) {
		bench_fail("fastpath", "no memory for %d samples", reps);
		return;
	}
	for (unsigned z = 0; z < ARRAY_SIZE(fp_sizes); z++) {
		for (unsigned v = 0; v < nr_variants; v++) {
			struct kmem_cache *s = kmem_cache_create_scheme(
				"bench-fastpath", fp_sizes[z], 0, 0, NULL, variants[v].scheme,
				variants[v].fastpath);

			if (!s) {
				bench_fail("fastpath", "cannot create a cache");
				kfree(samples);
				return;
			}
			measure_pairs(s, &st[z][v], samples, reps);
			check_empty("fastpath", s, &variants[v]);
			kmem_cache_destroy(s);
			snprintf(params, sizeof(params),
				 "\"scheme\":\"%s\",\"fastpath\":\"%s\",\"size\":%u,\"pairs\":%d,"
				 "\"reps\":%d",
				 variants[v].scheme, variants[v].fp_name, fp_sizes[z], FP_PAIRS, reps);
			emit("fastpath", params, "alloc_free_pair", &st[z][v]);
			if (fp_sizes[z] == 256 && headline_variant(&variants[v]))
				bench_headline("fastpath", variants[v].scheme,
					       "alloc+free pair, 256 B", st[z][v].median, "cycles");
		}
	}
	kfree(samples);
	printk("cycles per alloc+free pair: median (p10-p90) of %d runs of %d pairs%s\n", reps,
	       FP_PAIRS, bench_emulated() ? ", emulated" : "");
	printk("%6s", "size");
	for (unsigned v = 0; v < nr_variants; v++)
		printk("  %9s/%-7s   ", variants[v].scheme, variants[v].fp_name);
	printk("\n");
	for (unsigned z = 0; z < ARRAY_SIZE(fp_sizes); z++) {
		printk("%6u", fp_sizes[z]);
		for (unsigned v = 0; v < nr_variants; v++)
			printk("  %7s (%s-%s)", bench_fmt(a, sizeof(a), st[z][v].median),
			       bench_fmt(b, sizeof(b), st[z][v].p10),
			       bench_fmt(c, sizeof(c), st[z][v].p90));
		printk("\n");
	}
	samples = kmalloc_array((size_t)reps, sizeof(u64), GFP_KERNEL);
	if (!samples) {
		bench_fail("fastpath", "no memory for %d samples", reps);
		return;
	}
	run_nolock_pairs(samples, reps);
	kfree(samples);
}

static const struct bench fastpath_bench = {
	.name = "fastpath",
	.what = "cycles per kmem_cache_alloc+free pair, sizes 8..4096, every scheme and fastpath; "
		"kmalloc_nolock+kfree_nolock beside kmalloc+kfree, in an NMI too",
	.run = run_fastpath,
	.order = 10,
};
bench_register(fastpath_bench);

/* ---- bulk ---- */

static const unsigned int bulk_sizes[] = { 1, 2, 3, 4, 8, 16, 30, 32, 34, 48, 64, 128, 158, 250 };
#define BULK_OBJECTS 4000 /* per run: loops of N, so every N does about the same work */

static void *bulk_p[256];

static u64 run_single(struct kmem_cache *s, unsigned n, unsigned loops)
{
	u64 t0 = get_cycles_ordered();

	for (unsigned l = 0; l < loops; l++) {
		for (unsigned i = 0; i < n; i++)
			bulk_p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (unsigned i = 0; i < n; i++)
			kmem_cache_free(s, bulk_p[i]);
	}
	return get_cycles_ordered() - t0;
}

static u64 run_bulk(struct kmem_cache *s, unsigned n, unsigned loops)
{
	u64 t0 = get_cycles_ordered();

	for (unsigned l = 0; l < loops; l++) {
		if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, n, bulk_p))
			return 0;
		kmem_cache_free_bulk(s, n, bulk_p);
	}
	return get_cycles_ordered() - t0;
}

static void run_bulk_bench(void)
{
	char a[24], b[24], c[24], d[24], params[160];
	int reps = (int)bench_reps(REPS_DEFAULT);
	u64 *single = kmalloc_array((size_t)reps * 2, sizeof(u64), GFP_KERNEL), *bulk;

	make_variants();
	if (!single) {
		bench_fail("bulk", "no memory for %d samples", reps);
		return;
	}
	bulk = single + reps;
	for (unsigned v = 0; v < nr_variants; v++) {
		struct kmem_cache *s = kmem_cache_create_scheme("bench-bulk", 256, 0, 0, NULL,
								 variants[v].scheme,
								 variants[v].fastpath);

		if (!s) {
			bench_fail("bulk", "cannot create a cache");
			break;
		}
		printk("bulk, 256-byte objects, %s/%s: N - single alloc+free per object - bulk per "
		       "object - improvement (median of %d runs%s)\n",
		       variants[v].scheme, variants[v].fp_name, reps,
		       bench_emulated() ? ", emulated" : "");
		for (unsigned z = 0; z < ARRAY_SIZE(bulk_sizes); z++) {
			unsigned n = bulk_sizes[z], loops = MAX(1u, BULK_OBJECTS / n);
			u64 improved;
			struct bench_stats ss, bs;

			run_single(s, n, 4); /* warm */
			run_bulk(s, n, 4);
			for (int r = 0; r < reps; r++) {
				single[r] = run_single(s, n, loops);
				bulk[r] = run_bulk(s, n, loops);
				if (!bulk[r])
					bench_fail("bulk", "%s: kmem_cache_alloc_bulk(%u) failed",
						   variants[v].scheme, n);
			}
			bench_summarize(single, reps, (u64)n * loops, &ss);
			bench_summarize(bulk, reps, (u64)n * loops, &bs);
			improved = ss.median > bs.median ? (ss.median - bs.median) * 1000 / ss.median
							 : 0;
			printk("%3u - %s cycles(tsc) %s ns - %s cycles(tsc) %s ns - improved %s%%\n", n,
			       bench_fmt(a, sizeof(a), ss.median),
			       bench_fmt(b, sizeof(b), bench_tenths_to_ns(ss.median)),
			       bench_fmt(c, sizeof(c), bs.median),
			       bench_fmt(d, sizeof(d), bench_tenths_to_ns(bs.median)),
			       bench_fmt(params, sizeof(params), improved));
			snprintf(params, sizeof(params),
				 "\"scheme\":\"%s\",\"fastpath\":\"%s\",\"size\":256,\"n\":%u,"
				 "\"reps\":%d",
				 variants[v].scheme, variants[v].fp_name, n, reps);
			emit("bulk", params, "single_per_object", &ss);
			emit("bulk", params, "bulk_per_object", &bs);
			bench_json("bulk", params, "improvement", improved, "percent", NULL);
			if (n == 16 && headline_variant(&variants[v]))
				bench_headline("bulk", variants[v].scheme, "bulk per object, N=16",
					       bs.median, "cycles");
		}
		check_empty("bulk", s, &variants[v]);
		kmem_cache_destroy(s);
	}
	kfree(single);
}

static const struct bench bulk_bench = {
	.name = "bulk",
	.what = "Brouer 2015's table: N single allocs+frees vs the bulk API, 256-byte objects",
	.run = run_bulk_bench,
	.order = 20,
};
bench_register(bulk_bench);

/* ---- held: what per-cpu caching keeps when nothing is in use ---- */

#define HELD_OBJECTS 2000

struct held_run {
	struct kmem_cache *s;
	void **objs; /* nr_cpu_ids * HELD_OBJECTS, allocated by their cpu */
};

static void held_alloc(void *arg)
{
	struct held_run *h = arg;
	void **mine = h->objs + (size_t)smp_processor_id() * HELD_OBJECTS;

	for (int i = 0; i < HELD_OBJECTS; i++)
		mine[i] = kmem_cache_alloc(h->s, GFP_KERNEL);
}

/* Free the previous cpu's objects: remote frees, as a producer/consumer workload does. */
static void held_free(void *arg)
{
	struct held_run *h = arg;
	int from = (smp_processor_id() + nr_cpu_ids - 1) % nr_cpu_ids;
	void **theirs = h->objs + (size_t)from * HELD_OBJECTS;

	for (int i = 0; i < HELD_OBJECTS; i++)
		kmem_cache_free(h->s, theirs[i]);
}

static void run_held(void)
{
	char params[160];
	struct cpumask all;

	cpumask_setall(&all);
	printk("pages held with no object in use, after every cpu allocated %d 256-byte objects "
	       "and the next cpu freed them (%d cpus)\n", HELD_OBJECTS, nr_cpu_ids);
	make_variants();
	for (unsigned v = 0; v < nr_variants; v++) {
		struct held_run h = { 0 };
		unsigned long before, held, after_shrink;

		h.objs = kmalloc_array((size_t)nr_cpu_ids * HELD_OBJECTS, sizeof(void *), GFP_KERNEL);
		if (!h.objs)
			return;
		before = nr_used_pages();
		h.s = kmem_cache_create_scheme("bench-held", 256, 0, 0, NULL, variants[v].scheme,
					       variants[v].fastpath);
		if (!h.s) {
			kfree(h.objs);
			return;
		}
		for (int round = 0; round < 3; round++) {
			smp_run_on_cpus(&all, held_alloc, &h);
			smp_run_on_cpus(&all, held_free, &h);
		}
		check_empty("held", h.s, &variants[v]);
		held = nr_used_pages() - before;
		kmem_cache_shrink(h.s);
		after_shrink = nr_used_pages() - before;
		kmem_cache_destroy(h.s);
		kfree(h.objs);
		printk("  %9s/%-7s %6lu pages held (%lu KiB), %lu after kmem_cache_shrink\n",
		       variants[v].scheme, variants[v].fp_name, held, held * 4, after_shrink);
		snprintf(params, sizeof(params),
			 "\"scheme\":\"%s\",\"fastpath\":\"%s\",\"size\":256,\"objects_per_cpu\":%d",
			 variants[v].scheme, variants[v].fp_name, HELD_OBJECTS);
		bench_json("held", params, "pages_held_idle", (u64)held * 10, "pages", NULL);
		bench_json("held", params, "pages_after_shrink", (u64)after_shrink * 10, "pages",
			   NULL);
		if (headline_variant(&variants[v]))
			bench_headline("held", variants[v].scheme, "pages held idle", (u64)held * 10,
				       "pages");
	}
}

static const struct bench held_bench = {
	.name = "held",
	.what = "memory per-cpu caching keeps with no object in use, every scheme",
	.run = run_held,
	.order = 30,
};
bench_register(held_bench);
