// SPDX-License-Identifier: MIT
/*
 * The mixed workload (scaling.h) and two benchmarks over it.
 *
 * Each working CPU keeps 128 slots of live objects. An operation picks a slot at random
 * (seeded: seed= and the CPU number give the same choices every boot), frees the object in
 * it and allocates a new one of a random size class (16..1024 bytes) there. 30% of the
 * frees are handed to another working CPU, chosen at random, which frees the object when it
 * next looks at its inbox (every 8 operations): those are remote frees. The inbox is a
 * lock-free stack linked through the objects (push with compare-and-swap, the owner takes
 * everything with one exchange), so no CPU ever waits for another. Every object carries its
 * owner-independent tag (a magic, its size class and who allocated it), checked at free.
 *
 * bench=scaling: throughput on 1, 2, 4 ... N CPUs and its ratio to perfect scaling
 * (throughput / (CPUs x throughput on 1 CPU)). bench=latency: the same on every CPU with
 * each alloc and free timed alone (rdtsc_ordered around it): p50, p99, p99.9, max, and the
 * log2 histogram.
 */
#include "bench/bench.h"
#include "bench/scaling.h"
#include "kernel/cmdline.h"
#include "kernel/numa.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* Boot options (README.md's table); bench_memory.c uses scaling_ops too. */
unsigned int scaling_ops, latency_samples;
boot_param(scaling_ops, scaling_ops, uint, (1, 100000000), 50000,
	   "scaling: alloc+free operations per CPU");
boot_param(latency_samples, latency_samples, uint, (1, 1000000), 10000,
	   "latency: timed allocs and frees per CPU");

#define SLOTS 128
#define DRAIN_EVERY 8
#define MIX_MAGIC 0x6d69780000000000ULL /* "mix" */

const unsigned int mix_sizes[MIX_CLASSES] = { 16, 32, 64, 128, 256, 512, 1024 };

/* An object's first two words while it is live: the inbox link overwrites the first. */
struct mix_obj {
	struct mix_obj *next; /* inbox link */
	u64 tag;              /* MIX_MAGIC | class << 16 | allocating cpu */
};

struct mix_cpu {
	struct mix_obj *inbox; /* pushed by other CPUs */
	u64 allocs, frees, handed;
	s64 live_bytes; /* allocated here minus freed here: sums to the bytes in use */
	int peers;      /* CPUs that may take this one's remote frees (remote_nodes) */
} __aligned(64);

struct mix_run {
	struct mix_setup *m;
	struct mix_cpu *cpus; /* [ncpus] */
	int abort;
	int peak_waiting; /* CPUs still to reach the peak (at_peak) */
	int peak_gate;    /* 1 until at_peak has run */
	u64 t_end[NR_CPUS];
	char why[128];
};

int mix_caches(struct mix_setup *m, const char *scheme)
{
	enum slab_fastpath fp = slab_boot_fastpath();

	memset(m->caches, 0, sizeof(m->caches));
	for (int c = 0; c < MIX_CLASSES; c++) {
		char name[24];

		snprintf(name, sizeof(name), "mix-%u", mix_sizes[c]);
		m->caches[c] = kmem_cache_create_scheme(name, mix_sizes[c], 0, 0, NULL, scheme, fp);
		if (!m->caches[c]) {
			mix_caches_destroy(m);
			return -1;
		}
		bench_cache_created(m->caches[c]);
	}
	return 0;
}

void mix_caches_destroy(struct mix_setup *m)
{
	for (int c = 0; c < MIX_CLASSES; c++) {
		if (m->caches[c])
			kmem_cache_destroy(m->caches[c]);
		m->caches[c] = NULL;
	}
}

static void mix_abort(struct mix_run *r, const char *what, u64 v)
{
	if (__atomic_exchange_n(&r->abort, 1, __ATOMIC_ACQ_REL))
		return;
	snprintf(r->why, sizeof(r->why), "cpu %d: %s (%llx)", smp_processor_id(), what,
		 (unsigned long long)v);
}

/* Free one object here; lat: where to put the cycles it took (or NULL). */
static bool mix_free(struct mix_run *r, struct mix_cpu *me, struct mix_obj *o, u32 *lat)
{
	unsigned cls = (unsigned)(o->tag >> 16) & 0xff;
	u64 t0 = 0;

	if ((o->tag & ~0xffffffULL) != MIX_MAGIC || cls >= MIX_CLASSES ||
	    (o->tag & 0xffff) >= (u64)r->m->ncpus) {
		mix_abort(r, "object with a bad tag", o->tag);
		return false;
	}
	me->live_bytes -= mix_sizes[cls];
	me->frees++;
	if (lat)
		t0 = get_cycles_ordered();
	kmem_cache_free(r->m->caches[cls], o);
	if (lat)
		*lat = (u32)MIN(get_cycles_ordered() - t0, 0xffffffffull);
	return true;
}

static u32 *lat_slot(struct mix_run *r, int which, int cpu)
{
	struct mix_setup *m = r->m;

	if (!m->lat[which] || m->lat_count[which][cpu] >= m->lat_samples)
		return NULL;
	return bench_table_at(m->lat[which], u32,
			      (size_t)cpu * m->lat_samples + m->lat_count[which][cpu]++);
}

static bool drain_inbox(struct mix_run *r, struct mix_cpu *me, int cpu)
{
	struct mix_obj *o = __atomic_exchange_n(&me->inbox, NULL, __ATOMIC_ACQUIRE);

	while (o) {
		struct mix_obj *next = o->next;

		if (!mix_free(r, me, o, lat_slot(r, 1, cpu)))
			return false;
		o = next;
	}
	return true;
}

/* The memory benchmark's sample, on CPU 0: pages in use now and the bytes live then. */
static void mix_sample(struct mix_run *r, unsigned long base)
{
	unsigned long pages = nr_used_pages() - base;
	s64 live = 0;

	if (pages <= r->m->peak_pages)
		return;
	for (int cpu = 0; cpu < r->m->ncpus; cpu++)
		live += READ_ONCE(r->cpus[cpu].live_bytes);
	r->m->peak_pages = pages;
	r->m->bytes_at_peak = live > 0 ? (u64)live : 0;
}

struct mix_arg {
	struct mix_run *r;
	unsigned long base_pages;
};

/* Every CPU done with its operations: the last one to arrive calls at_peak, then lets the
 * others go on (they halt meanwhile, woken as bench_run_together wakes them). */
static void mix_peak(struct mix_run *r, int cpu)
{
	if (__atomic_sub_fetch(&r->peak_waiting, 1, __ATOMIC_ACQ_REL) == 0) {
		s64 live = 0;

		for (int c = 0; c < r->m->ncpus; c++)
			live += READ_ONCE(r->cpus[c].live_bytes);
		r->m->at_peak(r->m, live > 0 ? (u64)live : 0, r->m->at_peak_arg);
		__atomic_store_n(&r->peak_gate, 0, __ATOMIC_RELEASE);
		for (int c = 0; c < r->m->ncpus; c++)
			if (c != cpu)
				smp_send_reschedule(c);
	} else {
		smp_wait_event(&r->peak_gate, 0);
	}
}

static bool mix_may_take(const struct mix_setup *m, int from, int to)
{
	if (to == from)
		return false;
	if (m->remote_nodes == MIX_SAME_NODE)
		return cpu_to_node(to) == cpu_to_node(from);
	if (m->remote_nodes == MIX_OTHER_NODE)
		return cpu_to_node(to) != cpu_to_node(from);
	return true;
}

/*
 * The CPU a remote free of `cpu` goes to, from the random rnd: any other working CPU, or
 * with remote_nodes the first allowed one from that start; -1 when there is none.
 */
static int mix_target(struct mix_run *r, int cpu, u64 rnd)
{
	int n = r->m->ncpus, to = (int)(rnd % (u64)(n - 1));

	to = to >= cpu ? to + 1 : to;
	if (r->m->remote_nodes == MIX_ANY_CPU)
		return to;
	if (!r->cpus[cpu].peers)
		return -1;
	for (int i = 0; i < n; i++, to = (to + 1) % n)
		if (mix_may_take(r->m, cpu, to))
			return to;
	return -1;
}

static void mix_cpu_fn(void *arg)
{
	struct mix_arg *a = arg;
	struct mix_run *r = a->r;
	struct mix_setup *m = r->m;
	int cpu = smp_processor_id();
	struct mix_cpu *me = &r->cpus[cpu];
	struct mix_obj *slot[SLOTS] = { 0 };
	struct bench_rng rng;

	bench_rng_init(&rng, (u64)cpu * 1000 + (u64)m->ncpus);
	for (u64 op = 0; op < m->ops && !__atomic_load_n(&r->abort, __ATOMIC_RELAXED); op++) {
		unsigned j = (unsigned)(bench_rand(&rng) % SLOTS);
		u64 rnd = bench_rand(&rng);
		unsigned cls = (unsigned)(rnd % MIX_CLASSES);
		struct mix_obj *o = slot[j];
		u64 t0 = 0;
		u32 *lat;

		if (o) {
			int to = -1;

			if (m->ncpus > 1 && (rnd >> 8) % 100 < MIX_REMOTE_PCT)
				to = mix_target(r, cpu, rnd >> 16);
			if (to >= 0) {
				struct mix_cpu *them = &r->cpus[to];
				struct mix_obj *old = __atomic_load_n(&them->inbox, __ATOMIC_RELAXED);

				do {
					o->next = old;
				} while (!__atomic_compare_exchange_n(&them->inbox, &old, o, true,
								      __ATOMIC_RELEASE,
								      __ATOMIC_RELAXED));
				me->handed++;
			} else if (!mix_free(r, me, o, lat_slot(r, 1, cpu))) {
				break;
			}
		}
		lat = lat_slot(r, 0, cpu);
		if (lat)
			t0 = get_cycles_ordered();
		o = kmem_cache_alloc(m->caches[cls], GFP_KERNEL);
		if (lat)
			*lat = (u32)MIN(get_cycles_ordered() - t0, 0xffffffffull);
		if (!o) {
			mix_abort(r, "allocation failed, class", cls);
			break;
		}
		o->tag = MIX_MAGIC | (u64)cls << 16 | (u64)cpu;
		slot[j] = o;
		me->allocs++;
		me->live_bytes += mix_sizes[cls];
		if (op % DRAIN_EVERY == DRAIN_EVERY - 1 && !drain_inbox(r, me, cpu))
			break;
		if (cpu == 0 && m->sample_memory && op % 16 == 0)
			mix_sample(r, a->base_pages);
	}
	r->t_end[cpu] = get_cycles_ordered();
	if (m->at_peak)
		mix_peak(r, cpu);
	/* Untimed: give back the working set (what others still send lands in the inbox,
	 * drained in the second phase, once every CPU has stopped sending). */
	for (unsigned j = 0; j < SLOTS; j++)
		if (slot[j] && !mix_free(r, me, slot[j], NULL))
			break;
}

static void mix_drain_fn(void *arg)
{
	struct mix_arg *a = arg;
	struct mix_run *r = a->r;
	int cpu = smp_processor_id();
	struct mix_obj *o = __atomic_exchange_n(&r->cpus[cpu].inbox, NULL, __ATOMIC_ACQUIRE);

	while (o) {
		struct mix_obj *next = o->next;

		if (!mix_free(r, &r->cpus[cpu], o, NULL))
			return;
		o = next;
	}
}

u64 mix_run(struct mix_setup *m, const char *who)
{
	struct mix_run *r = kzalloc(sizeof(*r), GFP_KERNEL);
	struct mix_arg a = { .r = r };
	struct cpumask mask;
	u64 t0, t_end = 0, allocs = 0, frees = 0, result = 0;

	if (!r || !(r->cpus = kcalloc((size_t)m->ncpus, sizeof(struct mix_cpu), GFP_KERNEL))) {
		bench_fail(who, "no memory");
		kfree(r);
		return 0;
	}
	r->m = m;
	r->peak_waiting = m->ncpus;
	r->peak_gate = 1;
	for (int cpu = 0; cpu < m->ncpus; cpu++)
		for (int to = 0; to < m->ncpus; to++)
			r->cpus[cpu].peers += mix_may_take(m, cpu, to);
	m->peak_pages = 0;
	m->bytes_at_peak = 0;
	memset(m->lat_count, 0, sizeof(m->lat_count));
	cpumask_clear(&mask);
	for (int cpu = 0; cpu < m->ncpus; cpu++)
		cpumask_set_cpu(cpu, &mask);
	a.base_pages = nr_used_pages();
	t0 = bench_run_together(&mask, mix_cpu_fn, &a);
	smp_run_on_cpus(&mask, mix_drain_fn, &a);
	for (int cpu = 0; cpu < m->ncpus; cpu++) {
		t_end = MAX(t_end, r->t_end[cpu]);
		allocs += r->cpus[cpu].allocs;
		frees += r->cpus[cpu].frees;
	}
	if (r->abort) {
		bench_fail(who, "%s", r->why);
	} else if (allocs != (u64)m->ncpus * m->ops || frees != allocs) {
		bench_fail(who, "%llu allocations and %llu frees, want %llu each",
			   (unsigned long long)allocs, (unsigned long long)frees,
			   (unsigned long long)m->ncpus * m->ops);
	} else {
		result = MAX(t_end - t0, 1ul);
		for (int c = 0; c < MIX_CLASSES; c++) {
			struct slab_cache_info info;

			kmem_cache_info(m->caches[c], &info);
			if (info.active_objects) {
				bench_fail(who, "%lu objects of %u bytes still allocated after the run",
					   info.active_objects, mix_sizes[c]);
				result = 0;
			}
		}
	}
	kfree(r->cpus);
	kfree(r);
	return result;
}

/* ---- bench=scaling ---- */

#define SCALING_REPS_DEFAULT 5

static void run_scaling(void)
{
	int counts[16], nc = 0, reps = (int)bench_reps(SCALING_REPS_DEFAULT);
	int ns = bench_nr_schemes();
	u64 *samples = kmalloc_array((size_t)reps, sizeof(u64), GFP_KERNEL);
	char a[24], b[24], params[160];

	if (!samples) {
		bench_fail("scaling", "no memory");
		return;
	}
	for (int n = 1; n < nr_cpu_ids && nc < 15; n *= 2)
		counts[nc++] = n;
	counts[nc++] = nr_cpu_ids;
	printk("mixed workload: %u ops per CPU (free a random slot of 128, allocate 16..1024 "
	       "bytes; %d%% of frees done by another CPU), fastpath %s, median of %d runs%s\n",
	       scaling_ops, MIX_REMOTE_PCT, slab_fastpath_name(slab_boot_fastpath()), reps,
	       bench_emulated() ? ", emulated: past the host's cores, added vCPUs share them" : "");
	printk("%-14s %6s %18s %14s\n", "scheme", "CPUs", "ops/s", "% of linear");
	for (int si = 0; si < ns; si++) {
		const char *scheme = bench_scheme(si);
		struct mix_setup m = { .ops = scaling_ops };
		u64 one = 0;

		if (mix_caches(&m, scheme)) {
			bench_fail("scaling", "cannot create the %s caches", scheme);
			break;
		}
		for (int i = 0; i < nc; i++) {
			struct bench_stats st;
			u64 lin;

			m.ncpus = counts[i];
			for (int rep = 0; rep < reps; rep++) {
				u64 cyc = mix_run(&m, "scaling");

				if (!cyc)
					goto fail;
				/* ops/s in tenths */
				samples[rep] = bench_mul_div(m.ops * (u64)m.ncpus * 10,
							     tsc_khz * 1000, cyc);
			}
			bench_summarize(samples, reps, 10, &st);
			if (i == 0)
				one = st.median;
			lin = one ? st.median * 1000 / (one * (u64)m.ncpus) : 0;
			snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"ncpus\":%d,\"ops\":%llu",
				 scheme, m.ncpus, (unsigned long long)m.ops);
			bench_json("scaling", params, "throughput", st.median, "ops_per_s", &st);
			bench_json("scaling", params, "linear_ratio", lin, "percent", NULL);
			printk("%-14s %6d %18s %14s\n", scheme, m.ncpus,
			       bench_fmt(a, sizeof(a), st.median), bench_fmt(b, sizeof(b), lin));
			if (i == nc - 1)
				bench_headline("scaling", scheme, "ops per second, all CPUs", st.median,
					       "ops_per_s");
		}
		mix_caches_destroy(&m);
		continue;
fail:
		mix_caches_destroy(&m);
		break;
	}
	kfree(samples);
}

static const struct bench scaling_bench = {
	.name = "scaling",
	.what = "mixed sizes, 30% remote frees, on 1, 2, 4 ... N CPUs: throughput and ratio to "
		"linear",
	.run = run_scaling,
	.order = 70,
};
bench_register(scaling_bench);

/* ---- bench=latency ---- */

/* Sample i of a latency table. */
#define LAT(t, i) (*bench_table_at(t, u32, i))

/* In-place heapsort: n may be large (every CPU's samples), no recursion, no extra memory. */
static void sift(struct bench_table *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		u32 t;

		if (c >= n)
			return;
		if (c + 1 < n && LAT(a, c + 1) > LAT(a, c))
			c++;
		if (LAT(a, i) >= LAT(a, c))
			return;
		t = LAT(a, i);
		LAT(a, i) = LAT(a, c);
		LAT(a, c) = t;
		i = c;
	}
}

static void heapsort_u32(struct bench_table *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (size_t end = n; end-- > 1;) {
		u32 t = LAT(a, 0);

		LAT(a, 0) = LAT(a, end);
		LAT(a, end) = t;
		sift(a, 0, end);
	}
}

/* Pack every CPU's samples together (they sit in per-cpu rows of lat_samples). */
static size_t pack(struct bench_table *a, const struct mix_setup *m, int which)
{
	size_t n = 0;

	for (int cpu = 0; cpu < m->ncpus; cpu++)
		for (u64 i = 0; i < m->lat_count[which][cpu]; i++)
			LAT(a, n++) = LAT(a, (size_t)cpu * m->lat_samples + i);
	return n;
}

static u32 pct(struct bench_table *a, size_t n, unsigned per_mille_tenths /* 500 = p50 */)
{
	size_t i = (size_t)((u64)n * per_mille_tenths / 1000);

	return LAT(a, MIN(i, n - 1));
}

static void report(const char *scheme, const char *op, struct bench_table *a, size_t n)
{
	static const struct {
		const char *name;
		unsigned pm;
	} ps[] = { { "p50", 500 }, { "p99", 990 }, { "p99.9", 999 } };
	char params[160], v[4][24];

	heapsort_u32(a, n);
	snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"op\":\"%s\",\"samples\":%llu",
		 scheme, op, (unsigned long long)n);
	for (unsigned i = 0; i < ARRAY_SIZE(ps); i++)
		bench_json("latency", params, ps[i].name, (u64)pct(a, n, ps[i].pm) * 10, "cycles",
			   NULL);
	bench_json("latency", params, "max", (u64)LAT(a, n - 1) * 10, "cycles", NULL);
	/* log2 buckets: [2^k, 2^(k+1)) */
	for (size_t i = 0; i < n;) {
		unsigned k = 0;
		size_t j = i;
		char hp[200];

		while (k < 31 && (1u << (k + 1)) <= LAT(a, i))
			k++;
		while (j < n && (k == 31 || LAT(a, j) < (1u << (k + 1))))
			j++;
		snprintf(hp, sizeof(hp), "%s,\"bucket_lo\":%u,\"bucket_hi\":%llu", params,
			 LAT(a, i) ? 1u << k : 0, (1ull << (k + 1)) - 1);
		bench_json("latency", hp, "hist", (u64)(j - i) * 10, "count", NULL);
		i = j;
	}
	printk("%-14s %-5s %10s %10s %10s %10s  (%llu samples)\n", scheme, op,
	       bench_fmt(v[0], sizeof(v[0]), (u64)pct(a, n, 500) * 10),
	       bench_fmt(v[1], sizeof(v[1]), (u64)pct(a, n, 990) * 10),
	       bench_fmt(v[2], sizeof(v[2]), (u64)pct(a, n, 999) * 10),
	       bench_fmt(v[3], sizeof(v[3]), (u64)LAT(a, n - 1) * 10), (unsigned long long)n);
	if (!strcmp(op, "alloc"))
		bench_headline("latency", scheme, "alloc p99", (u64)pct(a, n, 990) * 10, "cycles");
	else
		bench_headline("latency", scheme, "free p99", (u64)pct(a, n, 990) * 10, "cycles");
}

static void run_latency(void)
{
	u32 samples = latency_samples;
	size_t total = (size_t)nr_cpu_ids * samples;
	struct bench_table lat[2] = { 0 };
	unsigned long free_mib = bench_free_mib();
	u64 overhead[64];
	struct bench_stats ov;
	char a[24];

	if (bench_table_alloc(&lat[0], total, sizeof(u32)) ||
	    bench_table_alloc(&lat[1], total, sizeof(u32))) {
		bench_fail("latency", "no memory for latency_samples=%u on %d CPUs: the samples "
			   "need %llu MiB (8 bytes per sample and CPU), %lu MiB are free; give it "
			   "more memory (MEM=) or fewer samples", samples, nr_cpu_ids,
			   bench_mib_up(2 * bench_table_bytes(total, sizeof(u32))), free_mib);
		goto out;
	}
	for (int i = 0; i < 64; i++) { /* what the timing itself costs: not subtracted */
		u64 t0 = get_cycles_ordered();

		overhead[i] = get_cycles_ordered() - t0;
	}
	bench_summarize(overhead, 64, 1, &ov);
	printk("every CPU runs the mixed workload (scaling's, %d%% remote frees); each alloc and "
	       "free timed alone, the first %u of each per CPU; cycles%s; the timing itself "
	       "costs about %s (median of an empty rdtsc_ordered pair, included)\n",
	       MIX_REMOTE_PCT, samples, bench_emulated() ? " (emulated)" : "",
	       bench_fmt(a, sizeof(a), ov.median));
	printk("%-14s %-5s %10s %10s %10s %10s\n", "scheme", "op", "p50", "p99", "p99.9", "max");
	for (int si = 0; si < bench_nr_schemes(); si++) {
		const char *scheme = bench_scheme(si);
		struct mix_setup m = { .ncpus = nr_cpu_ids, .lat = { &lat[0], &lat[1] },
				       .lat_samples = samples };
		size_t na, nf;

		/* enough operations that every CPU fills its alloc and free rows */
		m.ops = (u64)samples * 2 + 64;
		if (mix_caches(&m, scheme)) {
			bench_fail("latency", "cannot create the %s caches", scheme);
			break;
		}
		if (!mix_run(&m, "latency")) {
			mix_caches_destroy(&m);
			break;
		}
		mix_caches_destroy(&m);
		na = pack(&lat[0], &m, 0);
		nf = pack(&lat[1], &m, 1);
		if (!na || !nf) {
			bench_fail("latency", "%s: no samples (%zu allocs, %zu frees)", scheme, na, nf);
			break;
		}
		report(scheme, "alloc", &lat[0], na);
		report(scheme, "free", &lat[1], nf);
	}
out:
	bench_table_free(&lat[0]);
	bench_table_free(&lat[1]);
}

static const struct bench latency_bench = {
	.name = "latency",
	.what = "cycles per alloc and per free under contention: p50 p99 p99.9 max, histograms",
	.run = run_latency,
	.order = 80,
};
bench_register(latency_bench);
