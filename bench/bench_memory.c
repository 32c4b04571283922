// SPDX-License-Identifier: MIT
/*
 * bench=memory: what per-cpu caching costs in memory. For the hackbench and the scaling
 * workloads, one run per scheme over fresh caches, with CPU 0 sampling as it works: the
 * most pages in use beyond the start of the run (slabs, and whatever the scheme's layer
 * allocates) and, at that moment, the bytes the workload had asked for and not yet freed
 * (messages in flight: a 232-byte header and a 100-byte payload each; the mixed workload's
 * live objects at their size class). overhead = pages' bytes over those bytes, minus 100%.
 * Samples are taken once per pass of CPU 0's run loop (hackbench) or every 16 operations
 * (scaling), so a peak between two samples is missed: the figures are lower bounds.
 */
#include "bench/bench.h"
#include "bench/hackbench.h"
#include "bench/scaling.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slab.h"

static void memory_figures(const char *scheme, const char *workload, unsigned long pages,
			   u64 bytes)
{
	char params[160], a[24], b[24];
	u64 held = (u64)pages * PAGE_SIZE;
	s64 overhead = bytes ? (s64)((held * 1000) / bytes) - 1000 : 0;

	snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"workload\":\"%s\"", scheme,
		 workload);
	bench_json("memory", params, "peak_pages", (u64)pages * 10, "pages", NULL);
	bench_json("memory", params, "bytes_in_use", bytes * 10, "bytes", NULL);
	bench_json_signed("memory", params, "overhead", overhead, "percent");
	printk("%-14s %-10s %10lu %14llu %14s %9s%%\n", scheme, workload, pages,
	       (unsigned long long)bytes, bench_fmt(a, sizeof(a), held * 10 / 1024),
	       bench_fmt_signed(b, sizeof(b), overhead));
	if (!strcmp(workload, "hackbench"))
		bench_headline("memory", scheme, "peak pages, hackbench", (u64)pages * 10, "pages");
	else
		bench_headline("memory", scheme, "peak pages, scaling", (u64)pages * 10, "pages");
}

/* Each cache's memory once the run is over (bench_mem_json: exact), and all of them. */
static void cache_figures(const char *scheme, const char *workload, struct kmem_cache **caches,
			  int n)
{
	struct bench_mem_sum sum = { 0 };
	char params[160];

	snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"workload\":\"%s\",\"when\":\"end\"",
		 scheme, workload);
	for (int i = 0; i < n; i++)
		bench_mem_json("memory", params, caches[i], 0, &sum);
	bench_mem_total("memory", params, &sum);
}

static void run_memory(void)
{
	printk("peak pages in use during one run per workload (hackbench %u groups x %u loops; "
	       "scaling's mixed workload, %u ops on each of %d CPUs) against the bytes in use "
	       "then; sampled on CPU 0, so lower bounds\n", hackbench_groups,
	       hackbench_loops, scaling_ops, nr_cpu_ids);
	printk("%-14s %-10s %10s %14s %14s %10s\n", "scheme", "workload", "peak pages",
	       "bytes in use", "KiB held", "overhead");
	for (int si = 0; si < bench_nr_schemes(); si++) {
		const char *scheme = bench_scheme(si);
		struct hackbench_setup hb = { .groups = hackbench_groups,
					      .loops = hackbench_loops,
					      .sample_memory = true };
		struct mix_setup m = { .ncpus = nr_cpu_ids, .ops = scaling_ops,
				       .sample_memory = true };
		u64 ok;

		if (hackbench_caches(scheme, &hb.header, &hb.payload)) {
			bench_fail("memory", "cannot create the %s hackbench caches", scheme);
			return;
		}
		ok = hackbench_run(&hb, "memory");
		if (ok)
			cache_figures(scheme, "hackbench", (struct kmem_cache *[]){ hb.header, hb.payload },
				      2);
		kmem_cache_destroy(hb.header);
		kmem_cache_destroy(hb.payload);
		if (!ok)
			return;
		memory_figures(scheme, "hackbench", hb.peak_pages, hb.bytes_at_peak);
		if (mix_caches(&m, scheme)) {
			bench_fail("memory", "cannot create the %s mixed-workload caches", scheme);
			return;
		}
		ok = mix_run(&m, "memory");
		if (ok)
			cache_figures(scheme, "scaling", m.caches, MIX_CLASSES);
		mix_caches_destroy(&m);
		if (!ok)
			return;
		memory_figures(scheme, "scaling", m.peak_pages, m.bytes_at_peak);
	}
}

static const struct bench memory_bench = {
	.name = "memory",
	.what = "peak pages held against bytes in use, hackbench and scaling workloads",
	.run = run_memory,
	.order = 90,
};
bench_register(memory_bench);
