// SPDX-License-Identifier: MIT
/*
 * bench=numa: producer/consumer pairs placed within a node and across nodes, every scheme.
 * The producer allocates 256-byte objects, tags them and passes them through a ring to the
 * consumer, which checks and frees them (bench=remote's hand-off, with the pairs chosen by
 * node). "local" pairs two CPUs of one node; "cross" pairs CPUs of two nodes, so every
 * object the consumer frees was allocated on the producer's node.
 *
 * Under TCG there is no NUMA latency: the figures that mean something there are counts.
 * Per scheme and placement: objects freed on a CPU of another node than their slab's per
 * 1000 frees (cross_node_frees), slabs taken from another node's partial list
 * (alloc_remote) and slow frees to another node's list (free_remote) per 1000 frees,
 * list_lock acquisitions per node, pages the page allocator gave each node, IPIs per 1000
 * frees, and cycles per object (emulated under TCG, like every time figure).
 *
 * Then bench=scaling's mixed workload on every CPU, its 30% remote frees sent only to CPUs
 * of the same node (`mix-local`) or only to CPUs of other nodes (`mix-cross`): remote list
 * operations per 1000 operations, list_lock and pages per node, operations per second.
 */
#include "bench/bench.h"
#include "bench/ring.h"
#include "bench/scaling.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/numa.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define NOBJ_SIZE 256
#define NUMA_PAIRS 8
#define NUMA_OBJECTS 20000
#define NTAG 0x6e756d6100000000ULL /* "numa" */

struct numa_run {
	struct ring_run run; /* first: numa_seen finds the run from it */
	struct obj_ring rings[NUMA_PAIRS];
	int npairs;
	int prod[NUMA_PAIRS], cons[NUMA_PAIRS];
	u64 cross[NR_CPUS]; /* per consumer: frees of objects whose slab is on another node */
	u64 ipis[NR_CPUS];
	u64 t_end[NR_CPUS];
};

/* The consumer's look at each object: is its slab on another node than this CPU? */
static void numa_seen(struct ring_run *run, const void *p)
{
	struct numa_run *r = (struct numa_run *)run;

	if (page_to_nid(virt_to_page(p)) != numa_node_id()) /* a slab is on one node */
		r->cross[smp_processor_id()]++;
}

static void numa_cpu(void *arg)
{
	struct numa_run *r = arg;
	int cpu = smp_processor_id();
	u64 ipi0 = ring_ipis_sent();

	for (int p = 0; p < r->npairs; p++) {
		if (r->prod[p] == cpu)
			ring_produce(&r->run, &r->rings[p], p, r->cons[p]);
		else if (r->cons[p] == cpu)
			ring_consume(&r->run, &r->rings[p], p, r->prod[p], numa_seen);
	}
	r->t_end[cpu] = get_cycles_ordered();
	r->ipis[cpu] = ring_ipis_sent() - ipi0;
}

/* Pairs of CPUs on one node (local) or on two (cross); their count. */
static int make_pairs(struct numa_run *r, bool cross)
{
	bool used[NR_CPUS];
	int n = 0;

	memset(used, 0, sizeof(bool) * (size_t)nr_cpu_ids);
	for (int a = 0; a < nr_cpu_ids && n < NUMA_PAIRS; a++) {
		if (used[a])
			continue;
		for (int b = a + 1; b < nr_cpu_ids; b++)
			if (!used[b] && (cpu_to_node(a) != cpu_to_node(b)) == cross) {
				used[a] = used[b] = true;
				r->prod[n] = a;
				r->cons[n] = b;
				n++;
				break;
			}
	}
	return n;
}

static void numa_place(struct numa_run *r, bool cross, enum slab_fastpath fp)
{
	const char *place = cross ? "cross" : "local";
	struct page_alloc_stats pst[MAX_NUMNODES];
	u64 locks[MAX_NUMNODES];
	struct cpumask mask;
	char params[160], a[24], b[24], c[24], d[24];

	r->npairs = make_pairs(r, cross);
	if (!r->npairs) {
		printk("numa: no %s pair of CPUs (%s); %s not measured\n", place,
		       cross ? "all CPUs on one node" : "no node with two CPUs", place);
		return;
	}
	cpumask_clear(&mask);
	for (int p = 0; p < r->npairs; p++) {
		cpumask_set_cpu(r->prod[p], &mask);
		cpumask_set_cpu(r->cons[p], &mask);
	}
	for (int si = 0; si < bench_nr_schemes(); si++) {
		const char *scheme = bench_scheme(si);
		u64 t0, t_end = 0, ipis = 0, cross_frees = 0, frees, alloc_rem = 0, free_rem = 0;
		struct slab_cache_info info;

		r->run.s = kmem_cache_create_scheme("bench-numa", NOBJ_SIZE, 0, 0, NULL, scheme, fp);
		if (!r->run.s) {
			bench_fail("numa", "cannot create a %s cache", scheme);
			return;
		}
		memset(r->rings, 0, sizeof(r->rings));
		memset(r->cross, 0, sizeof(u64) * (size_t)nr_cpu_ids);
		for (int n = 0; n < nr_node_ids; n++)
			page_alloc_get_node_stats(n, &pst[n]);
		t0 = bench_run_together(&mask, numa_cpu, r);
		if (r->run.abort) {
			bench_fail("numa", "%s %s: %s", scheme, place, r->run.why);
			for (int p = 0; p < r->npairs; p++)
				ring_drain(r->run.s, &r->rings[p]);
			kmem_cache_destroy(r->run.s);
			return;
		}
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
			if (!cpumask_test_cpu(cpu, &mask))
				continue;
			t_end = MAX(t_end, r->t_end[cpu]);
			ipis += r->ipis[cpu];
			cross_frees += r->cross[cpu];
		}
		frees = r->run.objects * (u64)r->npairs;
		kmem_cache_shrink(r->run.s); /* every object back on the node lists, counted */
		kmem_cache_info(r->run.s, &info);
		if (info.active_objects)
			bench_fail("numa", "%s %s: %lu objects still allocated", scheme, place,
				   info.active_objects);
		for (int n = 0; n < nr_node_ids; n++) {
			struct kmem_cache_node_info ni;

			kmem_cache_node_info(r->run.s, n, &ni); /* zeros for a node s has not */
			locks[n] = ni.list_lock;
			alloc_rem += ni.alloc_remote;
			free_rem += ni.free_remote;
		}
		snprintf(params, sizeof(params),
			 "\"scheme\":\"%s\",\"placement\":\"%s\",\"pairs\":%d,\"nodes\":%d,"
			 "\"objects\":%llu", scheme, place, r->npairs, nr_node_ids,
			 (unsigned long long)r->run.objects);
		{
			char line[256];
			size_t at = 0;

			for (int n = 0; n < nr_node_ids && at < sizeof(line); n++) {
				struct page_alloc_stats now;

				page_alloc_get_node_stats(n, &now);
				pst[n].allocs = now.allocs - pst[n].allocs; /* now: this run's */
				at += (size_t)snprintf(line + at, sizeof(line) - at,
						       "  n%d %llu/%llu", n,
						       (unsigned long long)locks[n],
						       (unsigned long long)pst[n].allocs);
			}
			printk("%-14s %-6s %12s %12s %12s %12s%s\n", scheme, place,
			       bench_fmt(a, sizeof(a), cross_frees * 10000 / frees),
			       bench_fmt(b, sizeof(b), (alloc_rem + free_rem) * 10000 / frees),
			       bench_fmt(c, sizeof(c), ipis * 10000 / frees),
			       bench_fmt(d, sizeof(d), (t_end - t0) * 10 / r->run.objects), line);
		}
		bench_json("numa", params, "cross_node_frees_per_1000", cross_frees * 10000 / frees,
			   "count", NULL);
		bench_json("numa", params, "alloc_remote_per_1000_frees", alloc_rem * 10000 / frees,
			   "count", NULL);
		bench_json("numa", params, "free_remote_per_1000_frees", free_rem * 10000 / frees,
			   "count", NULL);
		bench_json("numa", params, "ipis_per_1000_frees", ipis * 10000 / frees, "count", NULL);
		bench_json("numa", params, "per_object", (t_end - t0) * 10 / r->run.objects, "cycles",
			   NULL);
		for (int n = 0; n < nr_node_ids; n++) {
			char np[200];

			snprintf(np, sizeof(np), "%s,\"node\":%d", params, n);
			bench_json("numa", np, "list_lock", locks[n] * 10, "count", NULL);
			bench_json("numa", np, "pages_allocated", pst[n].allocs * 10, "count", NULL);
		}
		kmem_cache_destroy(r->run.s);
	}
}

#define NUMA_MIX_OPS 10000

/* The mixed workload with node-local or cross-node remote frees, every scheme. */
static void numa_mix(int scope)
{
	const char *place = scope == MIX_SAME_NODE ? "mix-local" : "mix-cross";
	char params[160], a[24], b[24];

	for (int si = 0; si < bench_nr_schemes(); si++) {
		const char *scheme = bench_scheme(si);
		struct mix_setup m = { .ncpus = nr_cpu_ids, .ops = NUMA_MIX_OPS,
				       .remote_nodes = scope };
		struct page_alloc_stats pst[MAX_NUMNODES];
		u64 locks[MAX_NUMNODES] = { 0 }, remote = 0, cycles, ops;
		char line[256];
		size_t at = 0;

		if (mix_caches(&m, scheme)) {
			bench_fail("numa", "cannot create the %s caches", scheme);
			return;
		}
		for (int n = 0; n < nr_node_ids; n++)
			page_alloc_get_node_stats(n, &pst[n]);
		cycles = mix_run(&m, "numa");
		if (!cycles) {
			mix_caches_destroy(&m);
			return;
		}
		for (int c = 0; c < MIX_CLASSES; c++)
			for (int n = 0; n < nr_node_ids; n++) {
				struct kmem_cache_node_info ni;

				kmem_cache_node_info(m.caches[c], n, &ni);
				locks[n] += ni.list_lock;
				remote += ni.alloc_remote + ni.free_remote;
			}
		ops = (u64)m.ncpus * m.ops;
		for (int n = 0; n < nr_node_ids && at < sizeof(line); n++) {
			struct page_alloc_stats now;

			page_alloc_get_node_stats(n, &now);
			pst[n].allocs = now.allocs - pst[n].allocs;
			at += (size_t)snprintf(line + at, sizeof(line) - at, "  n%d %llu/%llu", n,
					       (unsigned long long)locks[n],
					       (unsigned long long)pst[n].allocs);
		}
		printk("%-14s %-9s %12s %14s%s\n", scheme, place,
		       bench_fmt(a, sizeof(a), remote * 10000 / ops),
		       bench_fmt(b, sizeof(b), bench_mul_div(ops * 10, tsc_khz * 1000, cycles)),
		       line);
		snprintf(params, sizeof(params),
			 "\"scheme\":\"%s\",\"placement\":\"%s\",\"cpus\":%d,\"nodes\":%d,"
			 "\"ops\":%llu", scheme, place, m.ncpus, nr_node_ids,
			 (unsigned long long)m.ops);
		bench_json("numa", params, "remote_list_ops_per_1000_ops", remote * 10000 / ops,
			   "count", NULL);
		bench_json("numa", params, "throughput",
			   bench_mul_div(ops * 10, tsc_khz * 1000, cycles), "ops_per_s", NULL);
		for (int n = 0; n < nr_node_ids; n++) {
			char np[200];

			snprintf(np, sizeof(np), "%s,\"node\":%d", params, n);
			bench_json("numa", np, "list_lock", locks[n] * 10, "count", NULL);
			bench_json("numa", np, "pages_allocated", pst[n].allocs * 10, "count", NULL);
		}
		mix_caches_destroy(&m);
	}
}

static void run_numa(void)
{
	enum slab_fastpath fp = slab_boot_fastpath();
	struct numa_run *r;

	if (nr_node_ids < 2)
		printk("numa: one node (%s): only local pairs; make run NODES=2 for two\n",
		       numa_off_reason[0] ? numa_off_reason : "the SRAT has one");
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		bench_fail("numa", "no memory");
		return;
	}
	r->run.objects = NUMA_OBJECTS;
	r->run.tag = NTAG;
	/* The layout itself, whatever can be measured after: each node's RAM and CPUs. */
	for (int n = 0; n < nr_node_ids; n++) {
		struct page_alloc_stats st;
		char params[64];
		int cpus = 0;

		for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
			cpus += cpu_to_node(cpu) == n;
		page_alloc_get_node_stats(n, &st);
		snprintf(params, sizeof(params), "\"node\":%d,\"nodes\":%d", n, nr_node_ids);
		bench_json("numa", params, "node_pages", st.managed * 10, "count", NULL);
		bench_json("numa", params, "node_cpus", (u64)cpus * 10, "count", NULL);
		printk("numa: node %d: %d CPUs, %lu pages (%lu free)\n", n, cpus, st.managed, st.free);
	}
	printk("numa: %d nodes, %d CPUs; pairs of CPUs (producer allocates, consumer frees), %llu "
	       "objects of %d bytes per pair, one run%s\n", nr_node_ids, nr_cpu_ids,
	       (unsigned long long)r->run.objects, NOBJ_SIZE, bench_emulated() ? ", emulated" : "");
	printk("%-14s %-6s %12s %12s %12s %12s  per node: list_locks/pages\n", "scheme", "pairs",
	       "xnode/1000", "remote/1000", "IPIs/1000", "cycles/obj");
	numa_place(r, false, fp);
	numa_place(r, true, fp);
	kfree(r);
	if (nr_cpu_ids < 2) {
		printk("numa: the mixed workload needs 2 CPUs; not run\n");
		return;
	}
	printk("mixed workload (bench=scaling's, %d%% remote frees) on %d CPUs, %d operations "
	       "each%s:\n", MIX_REMOTE_PCT, nr_cpu_ids, NUMA_MIX_OPS,
	       bench_emulated() ? ", emulated" : "");
	printk("%-14s %-9s %12s %14s  per node: list_locks/pages\n", "scheme", "frees",
	       "remote/1000", "ops/s");
	numa_mix(MIX_SAME_NODE);
	numa_mix(MIX_OTHER_NODE);
}

static const struct bench numa_bench = {
	.name = "numa",
	.what = "producer/consumer pairs within a node and across nodes: objects freed across "
		"nodes, remote list operations, list_lock and pages per node, IPIs",
	.run = run_numa,
	.order = 65,
};
bench_register(numa_bench);
