// SPDX-License-Identifier: MIT
/*
 * bench=remote: producer/consumer pairs across CPUs. CPU 2k allocates 256-byte objects,
 * tags them (pair, sequence) and passes them through a ring to CPU 2k+1, which checks and
 * frees them: every free is a remote free, the case the IPI and remote-atomic schemes are
 * about. Figures per scheme: objects per second (all pairs), cycles per object (a pair's
 * time over its objects) and IPIs per thousand frees, from the per-cpu IPI counters
 * (kernel/smp.h) less the wake-ups this benchmark sends itself.
 *
 * The ring (bench/ring.h) is published in batches of 16 (one release store and one wake-up
 * check per batch); a side that finds the ring full or empty halts until the other wakes it.
 */
#include "bench/bench.h"
#include "bench/ring.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/slab.h"

/* Boot option (docs/options.md's table). */
unsigned int remote_objects;
boot_param(remote_objects, remote_objects, uint, (1, 100000000), 50000,
	   "remote: objects per producer/consumer pair");

static void remote_counters(struct kmem_cache *s, const char *scheme, int pairs, u64 objects);

#define OBJ_SIZE 256
#define REMOTE_REPS_DEFAULT 5
#define TAG 0x72656d6f74650000ULL /* "remote" */

struct remote_run {
	struct ring_run run;
	struct obj_ring *rings; /* one per pair */
	u64 ipis[NR_CPUS];      /* per cpu: IPIs sent during its part, its own wake-ups excluded */
	u64 t_end[NR_CPUS];
};

static void remote_cpu(void *arg)
{
	struct remote_run *r = arg;
	int cpu = smp_processor_id(), pair = cpu / 2;
	u64 ipi0 = ring_ipis_sent();

	if (cpu % 2 == 0)
		ring_produce(&r->run, &r->rings[pair], pair, cpu + 1);
	else
		ring_consume(&r->run, &r->rings[pair], pair, cpu - 1, NULL);
	r->t_end[cpu] = get_cycles_ordered();
	r->ipis[cpu] = ring_ipis_sent() - ipi0;
}

static void run_remote(void)
{
	int pairs = nr_cpu_ids / 2, reps = (int)bench_reps(REMOTE_REPS_DEFAULT);
	u64 objects = remote_objects;
	enum slab_fastpath fp = slab_boot_fastpath();
	struct remote_run *r;
	struct cpumask mask;
	u64 *thr, *per, *ipi;
	char a[24], b[24], c[24], params[160];

	if (pairs < 1) {
		printk("remote: needs at least 2 CPUs (this boot has 1): nothing measured\n");
		return;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	thr = kmalloc_array((size_t)reps * 3, sizeof(u64), GFP_KERNEL);
	if (!r || !thr) {
		bench_fail("remote", "no memory");
		goto out;
	}
	per = thr + reps;
	ipi = per + reps;
	r->rings = kcalloc((size_t)pairs, sizeof(struct obj_ring), GFP_KERNEL);
	if (!r->rings) {
		bench_fail("remote", "no memory for %d rings", pairs);
		goto out;
	}
	r->run.objects = objects;
	r->run.tag = TAG;
	cpumask_clear(&mask);
	for (int cpu = 0; cpu < 2 * pairs; cpu++)
		cpumask_set_cpu(cpu, &mask);
	printk("%d pairs (cpu 2k allocates, cpu 2k+1 frees), %llu objects of %d bytes per pair, "
	       "fastpath %s, median of %d runs%s\n", pairs, (unsigned long long)objects, OBJ_SIZE,
	       slab_fastpath_name(slab_boot_fastpath()), reps, bench_emulated() ? ", emulated" : "");
	printk("%-14s %16s %14s %14s\n", "scheme", "objects/s", "cycles/object", "IPIs/1000 frees");
	for (int si = 0; si < bench_nr_schemes(); si++) {
		const char *scheme = bench_scheme(si);
		struct bench_stats st_thr, st_per, st_ipi;

		r->run.s = kmem_cache_create_scheme("bench-remote", OBJ_SIZE, 0, 0, NULL, scheme, fp);
		if (!r->run.s) {
			bench_fail("remote", "cannot create a %s cache", scheme);
			goto out;
		}
		for (int rep = 0; rep < reps; rep++) {
			u64 t0, t_end = 0, ipis = 0;

			memset(r->rings, 0, (size_t)pairs * sizeof(struct obj_ring));
			t0 = bench_run_together(&mask, remote_cpu, r);
			if (r->run.abort) {
				bench_fail("remote", "%s: %s", scheme, r->run.why);
				for (int p = 0; p < pairs; p++)
					ring_drain(r->run.s, &r->rings[p]);
				kmem_cache_destroy(r->run.s);
				goto out;
			}
			for (int cpu = 0; cpu < 2 * pairs; cpu++) {
				t_end = MAX(t_end, r->t_end[cpu]);
				ipis += r->ipis[cpu];
			}
			/* objects/s in tenths; cycles per object of one pair and IPIs per 1000
			 * frees in hundredths here, per-op tenths after bench_summarize */
			thr[rep] = bench_mul_div(objects * (u64)pairs * 10, tsc_khz * 1000,
						 MAX(t_end - t0, 1ul));
			per[rep] = t_end - t0;
			ipi[rep] = ipis * 1000;
		}
		{
			struct slab_cache_info info;

			kmem_cache_info(r->run.s, &info);
			if (info.active_objects)
				bench_fail("remote", "%s: %lu objects still allocated after the runs",
					   scheme, info.active_objects);
		}
		remote_counters(r->run.s, scheme, pairs, objects);
		kmem_cache_destroy(r->run.s);
		bench_summarize(thr, reps, 10, &st_thr); /* already tenths: divide by 10 ops */
		bench_summarize(per, reps, objects, &st_per);
		bench_summarize(ipi, reps, objects * pairs, &st_ipi);
		snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"pairs\":%d,\"objects\":%llu",
			 scheme, pairs, (unsigned long long)objects);
		bench_json("remote", params, "throughput", st_thr.median, "objects_per_s", &st_thr);
		bench_json("remote", params, "per_object", st_per.median, "cycles", &st_per);
		bench_json("remote", params, "ipis_per_1000_frees", st_ipi.median, "count", &st_ipi);
		printk("%-14s %16s %14s %14s\n", scheme, bench_fmt(a, sizeof(a), st_thr.median),
		       bench_fmt(b, sizeof(b), st_per.median), bench_fmt(c, sizeof(c), st_ipi.median));
		bench_headline("remote", scheme, "objects per second", st_thr.median, "objects_per_s");
	}
out:
	if (r)
		kfree(r->rings);
	kfree(r);
	kfree(thr);
}

/*
 * The ipi schemes' own counters over all runs (slabinfo's, per cache): how many objects an
 * owner found per drain, and the ownership requests. JSON only for schemes that have them.
 */
static void remote_counters(struct kmem_cache *s, const char *scheme, int pairs, u64 objects)
{
	u64 frees = kmem_cache_stat_by_name(s, "remote_free");
	u64 drains = kmem_cache_stat_by_name(s, "remote_drain");
	u64 drained = kmem_cache_stat_by_name(s, "remote_drained");
	u64 drain_max = kmem_cache_stat_by_name(s, "remote_drain_max");
	u64 req_sent = kmem_cache_stat_by_name(s, "owner_req_sent");
	u64 req_granted = kmem_cache_stat_by_name(s, "owner_req_granted");
	u64 req_refused = kmem_cache_stat_by_name(s, "owner_req_refused");
	u64 req_timeout = kmem_cache_stat_by_name(s, "owner_req_timeout");
	u64 slabs_moved = kmem_cache_stat_by_name(s, "owner_slabs_moved");
	char params[160];

	if (!frees)
		return;
	snprintf(params, sizeof(params), "\"scheme\":\"%s\",\"pairs\":%d,\"objects\":%llu", scheme,
		 pairs, (unsigned long long)objects);
	bench_json("remote", params, "objects_per_drain", drains ? drained * 10 / drains : 0,
		   "count", NULL);
	bench_json("remote", params, "drain_max", drain_max * 10, "count", NULL);
	bench_json("remote", params, "owner_requests", req_sent * 10, "count", NULL);
	bench_json("remote", params, "owner_slabs_moved", slabs_moved * 10, "count", NULL);
	printk("  %-13s remote frees %llu, drains %llu (%llu objects each on average, most %llu), "
	       "ownership requests %llu (granted %llu, refused %llu, timed out %llu), slabs "
	       "moved %llu\n", scheme, (unsigned long long)frees, (unsigned long long)drains,
	       (unsigned long long)(drains ? drained / drains : 0), (unsigned long long)drain_max,
	       (unsigned long long)req_sent, (unsigned long long)req_granted,
	       (unsigned long long)req_refused, (unsigned long long)req_timeout,
	       (unsigned long long)slabs_moved);
}

static const struct bench remote_bench = {
	.name = "remote",
	.what = "producer/consumer pairs across CPUs: objects/s, cycles/object, IPIs per 1000 "
		"frees",
	.run = run_remote,
	.order = 60,
};
bench_register(remote_bench);
