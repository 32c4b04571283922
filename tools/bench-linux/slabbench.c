// SPDX-License-Identifier: MIT OR GPL-2.0
/*
 * slabbench.ko: slablab's bench=fastpath, bulk and remote (bench/bench_slab.c,
 * bench/bench_remote.c) measured on Linux's own SLUB, printed as slablab's JSON lines (the
 * same keys, "scheme":"linux"), so tools/benchreport.py --compare lines the two up.
 * tools/bench-linux/run.sh builds it against Debian's headers and loads it in a QEMU boot of
 * Debian's kernel; all the work is done in the module's init (run.sh unloads it after: an
 * init that failed on purpose would be retried by busybox's insmod through init_module).
 *
 * Same shapes as slablab's: fastpath 1000 alloc+free pairs per run, sizes 8..4096; bulk of
 * N (256 B) against N single allocs then N frees, 4000 objects per run; remote CPU 2k
 * allocates and CPU 2k+1 frees through a ring of 256 published in batches of 16, the objects
 * tagged and checked; medians of reps runs (21, remote 5). The caches are the module's own
 * (kmem_cache_create; boot with slab_nomerge so they are not kmalloc's). The timing thread
 * is bound to CPU 0; interrupts stay on, as in slablab.
 *
 * Parameters: bench= (fastpath,bulk,remote), reps= (0: each benchmark's default),
 * remote_objects=, accel= and emulated= (what the JSON lines say: the guest cannot tell TCG
 * from ICOUNT), cmdline= (for the meta line).
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/utsname.h>
#include <linux/wait.h>
#include <asm/processor.h>
#include <asm/tsc.h>

static char *bench = "fastpath,bulk,remote";
module_param(bench, charp, 0444);
static uint reps;
module_param(reps, uint, 0444);
static ulong remote_objects = 50000;
module_param(remote_objects, ulong, 0444);
static char *accel = "tcg";
module_param(accel, charp, 0444);
static bool emulated = true;
module_param(emulated, bool, 0444);
static char *cmdline = "";
module_param(cmdline, charp, 0444);

#define SCHEME "linux"
#define FASTPATH "slub"
#define MAX_REPS 101

static bool wanted(const char *name)
{
	const char *p = bench;
	size_t n = strlen(name);

	while (*p) {
		size_t len = strcspn(p, ",");

		if ((len == n && !strncmp(p, name, n)) || (len == 3 && !strncmp(p, "all", 3)))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static u64 now(void)
{
	return rdtsc_ordered();
}

/* Figures are in tenths, as slablab's bench_json prints them: "123.4". */
struct stats {
	u64 median, p10, p90, min, max;
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 per_op(u64 total, u64 ops)
{
	return div64_u64(total * 10 + ops / 2, ops);
}

/* bench/bench.c bench_summarize: median (mean of the middle two for even n), p10, p90. */
static void summarize(u64 *s, int n, u64 ops, struct stats *st)
{
	sort(s, n, sizeof(*s), cmp_u64, NULL);
	st->min = per_op(s[0], ops);
	st->max = per_op(s[n - 1], ops);
	st->median = n % 2 ? per_op(s[n / 2], ops) : per_op(s[n / 2 - 1] + s[n / 2], ops * 2);
	st->p10 = per_op(s[n / 10], ops);
	st->p90 = per_op(s[n - 1 - n / 10], ops);
}

static u64 to_ns(u64 cycles)
{
	return tsc_khz ? div64_u64(cycles * 1000000, tsc_khz) : 0;
}

#define T(v) (unsigned long long)((v) / 10), (unsigned int)((v) % 10)

static void json(const char *b, const char *params, const char *figure, u64 v, const char *unit,
		 const struct stats *sp)
{
	char spread[160] = "";

	if (sp)
		snprintf(spread, sizeof(spread),
			 "\"p10\":%llu.%u,\"p90\":%llu.%u,\"min\":%llu.%u,\"max\":%llu.%u,",
			 T(sp->p10), T(sp->p90), T(sp->min), T(sp->max));
	pr_info("{\"bench\":\"%s\",%s,\"figure\":\"%s\",\"value\":%llu.%u,\"unit\":\"%s\",%s"
		"\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%u}\n",
		b, params, figure, T(v), unit, spread, accel, emulated ? "true" : "false",
		num_online_cpus());
}

/* The figure in cycles and in ns, as bench_slab.c's emit(). */
static void emit(const char *b, const char *params, const char *figure, const struct stats *st)
{
	struct stats ns = { to_ns(st->median), to_ns(st->p10), to_ns(st->p90), to_ns(st->min),
			    to_ns(st->max) };

	json(b, params, figure, st->median, "cycles", st);
	json(b, params, figure, ns.median, "ns", &ns);
}

static int failures;

#define fail(fmt, ...)                                                                             \
	do {                                                                                       \
		pr_info("slabbench: FAIL: " fmt "\n", ##__VA_ARGS__);                              \
		failures++;                                                                        \
	} while (0)

static u64 samples[2 * MAX_REPS];

/* ---- fastpath ---- */

#define FP_PAIRS 1000
static const unsigned int fp_sizes[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };

static void run_fastpath(int nreps)
{
	struct stats st[ARRAY_SIZE(fp_sizes)];
	char params[160];
	unsigned int z;

	for (z = 0; z < ARRAY_SIZE(fp_sizes); z++) {
		struct kmem_cache *s =
			kmem_cache_create("bench-fastpath", fp_sizes[z], 0, 0, NULL);
		int r, i;

		if (!s) {
			fail("fastpath: cannot create a cache of %u", fp_sizes[z]);
			return;
		}
		for (i = 0; i < 200; i++) /* warm, as slablab */
			kmem_cache_free(s, kmem_cache_alloc(s, GFP_KERNEL));
		for (r = 0; r < nreps; r++) {
			u64 t0 = now();

			for (i = 0; i < FP_PAIRS; i++) {
				void *p = kmem_cache_alloc(s, GFP_KERNEL);

				barrier();
				kmem_cache_free(s, p);
			}
			samples[r] = now() - t0;
		}
		kmem_cache_destroy(s);
		summarize(samples, nreps, FP_PAIRS, &st[z]);
		snprintf(params, sizeof(params),
			 "\"scheme\":\"" SCHEME "\",\"fastpath\":\"" FASTPATH "\",\"size\":%u,"
			 "\"pairs\":%d,\"reps\":%d", fp_sizes[z], FP_PAIRS, nreps);
		emit("fastpath", params, "alloc_free_pair", &st[z]);
		cond_resched();
	}
	pr_info("cycles per alloc+free pair, Linux %s SLUB: median (p10-p90) of %d runs of %d "
		"pairs%s\n", init_utsname()->release, nreps, FP_PAIRS,
		emulated ? ", emulated" : "");
	for (z = 0; z < ARRAY_SIZE(fp_sizes); z++)
		pr_info("%6u  %llu.%u (%llu.%u-%llu.%u)\n", fp_sizes[z], T(st[z].median),
			T(st[z].p10), T(st[z].p90));
}

/* ---- bulk ---- */

static const unsigned int bulk_sizes[] = { 1, 2, 3, 4, 8, 16, 30, 32, 34, 48, 64, 128, 158, 250 };
#define BULK_OBJECTS 4000
static void *bulk_p[256];

static u64 run_single(struct kmem_cache *s, unsigned int n, unsigned int loops)
{
	u64 t0 = now();
	unsigned int l, i;

	for (l = 0; l < loops; l++) {
		for (i = 0; i < n; i++)
			bulk_p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (i = 0; i < n; i++)
			kmem_cache_free(s, bulk_p[i]);
	}
	return now() - t0;
}

static u64 run_bulk(struct kmem_cache *s, unsigned int n, unsigned int loops)
{
	u64 t0 = now();
	unsigned int l;

	for (l = 0; l < loops; l++) {
		if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, n, bulk_p))
			return 0;
		kmem_cache_free_bulk(s, n, bulk_p);
	}
	return now() - t0;
}

static void run_bulk_bench(int nreps)
{
	struct kmem_cache *s = kmem_cache_create("bench-bulk", 256, 0, 0, NULL);
	u64 *single = samples, *bulk = samples + MAX_REPS;
	char params[160];
	unsigned int z;

	if (!s) {
		fail("bulk: cannot create a cache");
		return;
	}
	pr_info("bulk, 256-byte objects, Linux %s SLUB: N - single alloc+free per object - bulk "
		"per object - improvement (median of %d runs%s)\n", init_utsname()->release, nreps,
		emulated ? ", emulated" : "");
	for (z = 0; z < ARRAY_SIZE(bulk_sizes); z++) {
		unsigned int n = bulk_sizes[z], loops = max(1u, BULK_OBJECTS / n);
		struct stats ss, bs;
		u64 improved;
		int r;

		run_single(s, n, 4);
		run_bulk(s, n, 4);
		for (r = 0; r < nreps; r++) {
			single[r] = run_single(s, n, loops);
			bulk[r] = run_bulk(s, n, loops);
			if (!bulk[r])
				fail("bulk: kmem_cache_alloc_bulk(%u) failed", n);
		}
		summarize(single, nreps, (u64)n * loops, &ss);
		summarize(bulk, nreps, (u64)n * loops, &bs);
		improved = ss.median > bs.median ? div64_u64((ss.median - bs.median) * 1000, ss.median)
						 : 0;
		pr_info("%3u - %llu.%u cycles(tsc) %llu.%u ns - %llu.%u cycles(tsc) %llu.%u ns - "
			"improved %llu.%u%%\n", n, T(ss.median), T(to_ns(ss.median)), T(bs.median),
			T(to_ns(bs.median)), T(improved));
		snprintf(params, sizeof(params),
			 "\"scheme\":\"" SCHEME "\",\"fastpath\":\"" FASTPATH "\",\"size\":256,"
			 "\"n\":%u,\"reps\":%d", n, nreps);
		emit("bulk", params, "single_per_object", &ss);
		emit("bulk", params, "bulk_per_object", &bs);
		json("bulk", params, "improvement", improved, "percent", NULL);
		cond_resched();
	}
	kmem_cache_destroy(s);
}

/* ---- remote ---- */

#define RING 256
#define BATCH 16
#define TAG 0x72656d6f74650000ULL

struct ring {
	u32 tail ____cacheline_aligned; /* producer's */
	u32 head ____cacheline_aligned; /* consumer's */
	u64 *slot[RING];
	wait_queue_head_t prod_wq, cons_wq;
	u64 t_end[2];
	u64 waits[2]; /* times the producer found the ring full, the consumer empty */
	struct task_struct *task[2];
} ____cacheline_aligned;

struct remote_run {
	struct kmem_cache *s;
	struct ring *rings;
	int pairs;
	atomic_t ready, done;
	bool go, abort;
	wait_queue_head_t go_wq, done_wq;
	char why[128];
};

static struct remote_run rr;

static bool aborted(void)
{
	return READ_ONCE(rr.abort);
}

static void remote_abort(int pair, const char *what, u64 got, u64 want)
{
	int p;

	if (xchg(&rr.abort, true))
		return;
	snprintf(rr.why, sizeof(rr.why), "pair %d: %s: got %llx, want %llx", pair, what,
		 (unsigned long long)got, (unsigned long long)want);
	for (p = 0; p < rr.pairs; p++) {
		wake_up(&rr.rings[p].prod_wq);
		wake_up(&rr.rings[p].cons_wq);
	}
}

static u32 room(struct ring *q, u32 tail)
{
	/* acquire: the consumer's reads of the slots it gave back come before our rewrites */
	return RING - (tail - smp_load_acquire(&q->head));
}

static void producer(int pair)
{
	struct ring *q = &rr.rings[pair];
	u32 tail = q->tail;
	u64 i = 0;

	while (i < remote_objects && !aborted()) {
		u32 n = min3(room(q, tail), (u32)BATCH, (u32)(remote_objects - i)), k;

		if (!n) { /* full: sleep until the consumer has taken some */
			q->waits[0]++;
			wait_event(q->prod_wq, room(q, tail) || aborted());
			continue;
		}
		for (k = 0; k < n; k++, i++) {
			u64 *p = kmem_cache_alloc(rr.s, GFP_KERNEL);

			if (!p) {
				remote_abort(pair, "allocation failed at object", i, i);
				return;
			}
			p[0] = TAG | pair;
			p[1] = i;
			q->slot[(tail + k) % RING] = p;
		}
		tail += n;
		smp_store_release(&q->tail, tail); /* the slots and the objects' tags, then tail */
		wake_up(&q->cons_wq);
	}
}

static void consumer(int pair)
{
	struct ring *q = &rr.rings[pair];
	u32 head = q->head;
	u64 i = 0;

	while (i < remote_objects && !aborted()) {
		u32 tail = smp_load_acquire(&q->tail); /* pairs with the producer's release */

		if (tail == head) { /* empty: sleep until the producer has published more */
			q->waits[1]++;
			wait_event(q->cons_wq, smp_load_acquire(&q->tail) != head || aborted());
			continue;
		}
		for (; head != tail; head++, i++) {
			u64 *p = q->slot[head % RING];

			if (p[0] != (TAG | pair) || p[1] != i) {
				smp_store_release(&q->head, head); /* drain frees it */
				remote_abort(pair, p[0] != (TAG | pair) ? "bad tag" : "sequence",
					     p[0] != (TAG | pair) ? p[0] : p[1],
					     p[0] != (TAG | pair) ? (TAG | pair) : i);
				return;
			}
			kmem_cache_free(rr.s, p);
		}
		smp_store_release(&q->head, head); /* our slot reads, then the room they leave */
		wake_up(&q->prod_wq);
	}
}

/* One thread per CPU, bound to it, for every run; cpu 2k produces, 2k+1 consumes. */
static int remote_thread(void *arg)
{
	long cpu = (long)arg;
	struct ring *q = &rr.rings[cpu / 2];

	while (!kthread_should_stop()) {
		atomic_inc(&rr.ready);
		wake_up(&rr.done_wq);
		wait_event(rr.go_wq, READ_ONCE(rr.go) || kthread_should_stop());
		if (kthread_should_stop())
			break;
		if (cpu % 2 == 0)
			producer(cpu / 2);
		else
			consumer(cpu / 2);
		q->t_end[cpu % 2] = now();
		/* wait for the next run: go drops only once every thread is done */
		atomic_inc(&rr.done);
		wake_up(&rr.done_wq);
		wait_event(rr.go_wq, !READ_ONCE(rr.go) || kthread_should_stop());
	}
	return 0;
}

static void drain(void)
{
	int p;

	for (p = 0; p < rr.pairs; p++)
		for (; rr.rings[p].head != rr.rings[p].tail; rr.rings[p].head++)
			kmem_cache_free(rr.s, rr.rings[p].slot[rr.rings[p].head % RING]);
}

static void run_remote(int nreps)
{
	int pairs = num_online_cpus() / 2, p, r, started = 0;
	u64 *thr = samples, *per = samples + MAX_REPS;
	struct stats st_thr, st_per;
	u64 waits[2] = { 0, 0 };
	char params[160];

	if (pairs < 1) {
		pr_info("remote: needs at least 2 CPUs (this boot has 1): nothing measured\n");
		return;
	}
	memset(&rr, 0, sizeof(rr));
	rr.pairs = pairs;
	init_waitqueue_head(&rr.go_wq);
	init_waitqueue_head(&rr.done_wq);
	rr.rings = kcalloc(pairs, sizeof(*rr.rings), GFP_KERNEL);
	rr.s = kmem_cache_create("bench-remote", 256, 0, 0, NULL);
	if (!rr.rings || !rr.s) {
		fail("remote: no memory");
		goto out;
	}
	for (p = 0; p < pairs; p++) {
		init_waitqueue_head(&rr.rings[p].prod_wq);
		init_waitqueue_head(&rr.rings[p].cons_wq);
	}
	for (p = 0; p < 2 * pairs; p++) {
		struct task_struct *t = kthread_create(remote_thread, (void *)(long)p,
						       "slabbench/%d", p);

		if (IS_ERR(t)) {
			fail("remote: cannot start a thread for cpu %d", p);
			goto stop;
		}
		kthread_bind(t, p);
		rr.rings[p / 2].task[p % 2] = t;
		wake_up_process(t);
		started++;
	}
	pr_info("%d pairs (cpu 2k allocates, cpu 2k+1 frees), %lu objects of 256 bytes per pair, "
		"Linux %s SLUB, median of %d runs%s\n", pairs, remote_objects,
		init_utsname()->release, nreps, emulated ? ", emulated" : "");
	for (r = 0; r < nreps; r++) {
		u64 t0, t_end = 0;

		wait_event(rr.done_wq, atomic_read(&rr.ready) == 2 * pairs);
		atomic_set(&rr.ready, 0);
		for (p = 0; p < pairs; p++) {
			rr.rings[p].head = rr.rings[p].tail = 0;
			rr.rings[p].t_end[0] = rr.rings[p].t_end[1] = 0;
			rr.rings[p].waits[0] = rr.rings[p].waits[1] = 0;
		}
		t0 = now();
		smp_store_release(&rr.go, true); /* the reset rings, then the start */
		wake_up_all(&rr.go_wq);
		wait_event(rr.done_wq, atomic_read(&rr.done) == 2 * pairs);
		atomic_set(&rr.done, 0);
		WRITE_ONCE(rr.go, false);
		wake_up_all(&rr.go_wq);
		if (rr.abort) {
			fail("remote: %s", rr.why);
			drain();
			goto stop;
		}
		for (p = 0; p < pairs; p++) {
			t_end = max3(t_end, rr.rings[p].t_end[0], rr.rings[p].t_end[1]);
			waits[0] += rr.rings[p].waits[0];
			waits[1] += rr.rings[p].waits[1];
		}
		/* objects/s and cycles per object of one pair, as bench_remote.c */
		thr[r] = tsc_khz ? div64_u64(remote_objects * pairs * 10 * tsc_khz * 1000,
					     max(t_end - t0, 1ull)) : 0;
		per[r] = t_end - t0;
	}
	summarize(thr, nreps, 10, &st_thr);
	summarize(per, nreps, remote_objects, &st_per);
	snprintf(params, sizeof(params), "\"scheme\":\"" SCHEME "\",\"pairs\":%d,\"objects\":%lu",
		 pairs, remote_objects);
	json("remote", params, "throughput", st_thr.median, "objects_per_s", &st_thr);
	json("remote", params, "per_object", st_per.median, "cycles", &st_per);
	pr_info("%-14s %16s %14s\n", "scheme", "objects/s", "cycles/object");
	pr_info("%-14s %14llu.%u %12llu.%u\n", SCHEME, T(st_thr.median), T(st_per.median));
	/* what the wake-ups cost is most of an emulated figure: how many there were */
	pr_info("  waits in all %d runs: producer found the ring full %llu times, consumer found "
		"it empty %llu times (%llu objects)\n", nreps, (unsigned long long)waits[0],
		(unsigned long long)waits[1], (unsigned long long)remote_objects * pairs * nreps);
stop:
	for (p = 0; p < started; p++)
		kthread_stop(rr.rings[p / 2].task[p % 2]);
out:
	if (rr.s)
		kmem_cache_destroy(rr.s);
	kfree(rr.rings);
}

static int __init slabbench_init(void)
{
	int fr = reps ? min_t(int, reps, MAX_REPS) : 21;
	int rr_reps = reps ? min_t(int, reps, MAX_REPS) : 5;
	const char *b;

	if (reps > MAX_REPS)
		pr_info("slabbench: reps=%u is more than %d: %d used\n", reps, MAX_REPS, MAX_REPS);
	for (b = bench; *b;) {
		size_t len = strcspn(b, ",");

		if (!((len == 8 && !strncmp(b, "fastpath", 8)) || (len == 4 && !strncmp(b, "bulk", 4)) ||
		      (len == 6 && !strncmp(b, "remote", 6)) || (len == 3 && !strncmp(b, "all", 3)))) {
			pr_info("slabbench: bench=%s: not one of fastpath, bulk, remote, all\n", bench);
			return -EINVAL;
		}
		b += len + (b[len] == ',');
	}
	/* the figures are taken on CPU 0 (remote binds its own threads) */
	set_cpus_allowed_ptr(current, cpumask_of(0));
	pr_info("{\"bench\":\"meta\",\"cpu_model\":\"%s\",\"tsc_mhz\":%u,\"seed\":0,"
		"\"cmdline\":\"%s\",\"benches\":\"%s\",\"schemes\":\"" SCHEME "\","
		"\"kernel\":\"Linux %s\",\"figure\":\"run\",\"value\":0,\"unit\":\"none\","
		"\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%u}\n",
		boot_cpu_data.x86_model_id, tsc_khz / 1000, cmdline, bench,
		init_utsname()->release, accel, emulated ? "true" : "false", num_online_cpus());
	if (wanted("fastpath"))
		run_fastpath(fr);
	if (wanted("bulk"))
		run_bulk_bench(fr);
	if (wanted("remote"))
		run_remote(rr_reps);
	pr_info("slabbench: done, %d failure(s)\n", failures);
	return 0;
}

static void __exit slabbench_exit(void)
{
}

module_init(slabbench_init);
module_exit(slabbench_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("slablab's fastpath, bulk and remote benchmarks on Linux's SLUB");
