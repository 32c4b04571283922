// SPDX-License-Identifier: MIT
/*
 * bench=debug: the experiment of Abbott 2016, skip cpu slab activation when debugging
 * (linux-mm). hackbench (bench/bench_hackbench.c) over caches with debugging off, with
 * poisoning (slub_debug=P) on Linux's locked debug path, and with poisoning allowed on per-cpu
 * partial lists (Joonsoo Kim's proposal in that thread, which Abbott measured): 6.834 s
 * without, 8.059 s with slub_debug=P, 7.535 s once debug caches could use per-cpu partials.
 * The off caches are the "partial" scheme's, as the SLUB of 2016 had per-cpu partials.
 */
#include "bench/bench.h"
#include "bench/hackbench.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/slab.h"

#define DEBUG_REPS_DEFAULT 5

struct debug_mode {
	const char *name;     /* JSON "mode" */
	const char *what;     /* the table's column */
	unsigned long flags;  /* debug flags of both caches */
	enum slab_debug_mode mode;
};

static const struct debug_mode modes[] = {
	{ "off", "off", 0, SLAB_DEBUG_MODE_DEFAULT },
	{ "locked", "P, locked", SLAB_POISON, SLAB_DEBUG_LOCKED },
	{ "partial", "P, cpu partial", SLAB_POISON, SLAB_DEBUG_PARTIAL },
};

static int debug_caches(const struct debug_mode *m, struct hackbench_setup *hb)
{
	if (!m->flags)
		return hackbench_caches("partial", &hb->header, &hb->payload);
	hb->header = kmem_cache_create_debug("hb-skbuff", HB_HEADER_SIZE, 0, SLAB_HWCACHE_ALIGN |
					     m->flags, NULL, m->mode);
	hb->payload = kmem_cache_create_debug("hb-kmalloc-128", 128, 0, m->flags, NULL, m->mode);
	if (hb->header && hb->payload)
		return 0;
	if (hb->header)
		kmem_cache_destroy(hb->header);
	if (hb->payload)
		kmem_cache_destroy(hb->payload);
	return -1;
}

static void run_debug(void)
{
	unsigned int reps = bench_reps(DEBUG_REPS_DEFAULT);
	unsigned int groups = hackbench_groups, loops = hackbench_loops;
	struct bench_stats st[ARRAY_SIZE(modes)];
	u64 *samples = kmalloc_array(reps, sizeof(u64), GFP_KERNEL);
	unsigned long errors_before = slab_error_count(); /* tests may have corrupted on purpose */
	char a[24], b[24], params[160];

	if (!samples) {
		bench_fail("debug", "no memory");
		return;
	}
	printk("hackbench %u groups x %u loops on %d CPUs (header and payload caches as in bench "
	       "hackbench), median of %u runs%s; debugging off (partial scheme), poisoning on "
	       "the locked debug path, poisoning with per-cpu partial lists\n", groups, loops,
	       nr_cpu_ids, reps, bench_emulated() ? ", emulated" : "");
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		struct hackbench_setup hb = { .groups = groups, .loops = loops };

		if (debug_caches(&modes[m], &hb)) {
			bench_fail("debug", "cannot create the %s caches", modes[m].name);
			kfree(samples);
			return;
		}
		for (unsigned rep = 0; rep < reps; rep++) {
			samples[rep] = hackbench_run(&hb, "debug");
			if (!samples[rep])
				break;
			printk("debug %-8s Time: %llu.%03llu\n", modes[m].name,
			       (unsigned long long)(cycles_to_ns(samples[rep]) / 1000000000),
			       (unsigned long long)(cycles_to_ns(samples[rep]) / 1000000 % 1000));
		}
		kmem_cache_destroy(hb.header);
		kmem_cache_destroy(hb.payload);
		if (!samples[reps - 1] || slab_error_count() != errors_before) {
			if (slab_error_count() != errors_before)
				bench_fail("debug", "the debug checks reported %lu errors",
					   slab_error_count() - errors_before);
			kfree(samples);
			return; /* hackbench_run said why, or the line above */
		}
		bench_summarize(samples, (int)reps, 1, &st[m]);
		bench_stats_cycles_to_ms(&st[m]);
		snprintf(params, sizeof(params),
			 "\"mode\":\"%s\",\"groups\":%u,\"loops\":%u,\"reps\":%u", modes[m].name,
			 groups, loops, reps);
		bench_json("debug", params, "time", st[m].median, "ms", &st[m]);
		if (m)
			bench_json_signed("debug", params, "overhead_vs_off",
					  bench_change_pct(st[0].median, st[m].median), "percent");
	}
	printk("\nhackbench with debug caches, ms (median of %u runs%s; in brackets the change "
	       "against off)\n", reps, bench_emulated() ? ", emulated" : "");
	for (unsigned m = 0; m < ARRAY_SIZE(modes); m++) {
		if (m)
			printk("  %-15s %10s (%6s%%)\n", modes[m].what,
			       bench_fmt(a, sizeof(a), st[m].median),
			       bench_fmt_signed(b, sizeof(b),
						bench_change_pct(st[0].median, st[m].median)));
		else
			printk("  %-15s %10s\n", modes[m].what, bench_fmt(a, sizeof(a), st[m].median));
	}
	printk("Abbott 2016 (hackbench 20000 loops, seconds): off 6.834, P locked 8.059 (+17.9%%), "
	       "P with cpu partial lists 7.535 (+10.3%%)\n");
	kfree(samples);
}

static const struct bench debug_bench = {
	.name = "debug",
	.what = "Abbott 2016: hackbench with debugging off, poisoning locked, poisoning on "
		"per-cpu partial lists",
	.run = run_debug,
	.order = 45,
};
bench_register(debug_bench);
