// SPDX-License-Identifier: MIT
/*
 * bench=replay: a slab trace (docs/traces.md, read by bench/trace.c) replayed on every
 * scheme. The trace is the first multiboot2 module GRUB loaded (make replay TRACE=FILE),
 * read in place (setup.c keeps modules out of the page allocator); with none, the
 * recording built into the kernel (tests/traces/python-threads.trace, build/gen/).
 *
 * Before anything is replayed, trace_analyze() reads every event: a bad trace stops here
 * with what and where; frees of ids the trace never allocates, second frees and kmallocs of
 * 0 bytes or past the page allocator are counted and skipped.
 *
 * Stream i runs on CPU i mod N, or on the i-th CPU of replay_cpus= (the list taken round).
 * A CPU steps its streams round-robin, each until it has done a batch or a free waits for
 * an allocation another stream has not made yet. Such a free marks the object's slot with
 * its CPU and the CPU halts once all its streams wait (bench_sleep); the CPU that makes the
 * allocation swaps the pointer into the slot, sees the mark and wakes it with an IPI, as a
 * scheduler's wake-up would: spinning would starve the vCPUs that hold the work under
 * emulation (the hand-off of bench/bench_hackbench.c).
 *
 * replay_pace=original keeps the trace's clock: an event is not done before its recorded
 * time (ns since the trace's start, times replay_scale= percent) has passed since the
 * replay's start. A CPU whose streams are early polls (cpu_relax on get_cycles) instead of
 * halting, as no IPI would end the halt, and each pass of its loop steps every stream again,
 * so a free that waits for another CPU's allocation goes on as soon as that allocation is
 * there; an event done late adds to the lag (how far behind schedule the replay fell). With
 * replay_pace=asap (the default) every event is done as soon as it can be.
 *
 * Version 2's kfree_rcu is replayed as the trace says it happened, with the trace's grace
 * periods (not slablab's kfree_rcu, whose grace periods are this machine's and whose cost
 * bench=rcu measures): the object stays allocated, handed over, until its rcu_free event frees it with
 * kmem_cache_free or kfree (its slot says which), on whichever CPU replays that event; an
 * rcu_free that comes first waits for its kfree_rcu as a free waits for its allocation. A
 * node is counted and the allocation made on the replaying CPU's node (there is no
 * kmem_cache_alloc_node yet); a nolock call is counted and replayed as the locked one.
 *
 * Every object is stamped at allocation (its id in the first and the last word) and checked
 * at its free: an object handed out twice, or damaged, fails the run. kmalloc is served by
 * per-scheme caches of kmalloc's classes (the real kmalloc caches have the boot scheme),
 * above 8 KiB by the page allocator, as Linux's kmalloc does. Objects live at the end are
 * freed then, and every cache must be empty before it is destroyed.
 */
#include "bench/bench.h"
#include "bench/trace.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

static char replay_cpus[OPT_STR_MAX];
static int replay_cpus_check(const char *val, char *err, size_t errlen);
boot_param(replay_cpus, replay_cpus, str, replay_cpus_check, "",
	   "replay: the CPU of each trace stream, a comma list of CPU numbers taken round "
	   "(stream i on the (i mod length)-th); default stream i on CPU i mod the CPUs");

static char replay_pace[16];
static const char *const replay_paces[] = { "asap", "original", NULL };
boot_param(replay_pace, replay_pace, enum, replay_paces, "asap",
	   "replay: asap (every event as soon as it can be done) or original (each event at "
	   "its recorded time since the trace's start, scaled by replay_scale=)");

static unsigned int replay_scale;
boot_param(replay_scale, replay_scale, uint, (1, 1000000), 100,
	   "replay_pace=original: the recorded times in percent (100: as recorded, 500: five "
	   "times slower, 10: ten times faster)");

extern const u8 replay_sample[];
extern const u64 replay_sample_len;

#define RP_BATCH 64         /* events a stream does before the CPU turns to its next one */
#define RP_STAMP 0x736c6162726570ULL
#define RP_BUCKETS 512      /* latency histogram: 8 linear steps per power of two */
#define RP_MAX_SIZE ((u64)PAGE_SIZE << MAX_ORDER)
#define RP_MAX_SCHED_NS (86400ull * 1000000000) /* replay_pace=original: a day at most */

static const unsigned int rp_classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048,
					   4096, 8192 };
#define RP_NR_CLASSES ARRAY_SIZE(rp_classes)
#define RP_PAGES 0xfffe /* slot.cache: from the page allocator */
#define RP_KMALLOC 0x8000 /* slot.cache: kmalloc class (low bits) */

/* One object of the trace. v: 0 not allocated yet; RP_FREED; RP_SKIPPED (an allocation
 * the replay skipped); RP_WAIT | cpu << 3: a free on cpu waits for it; RP_WAIT_MANY: frees
 * on several CPUs wait; else the object's address (8-aligned), live, or with RP_RCU: handed
 * to RCU by its kfree_rcu, with RP_RCU_WAIT: live, and an rcu_free waits for its kfree_rcu,
 * with RP_HELD: its kfree_rcu checks it before handing it over. */
#define RP_FREED 1ull
#define RP_WAIT 2ull
#define RP_WAIT_MANY 3ull
#define RP_SKIPPED 4ull
#define RP_RCU 5ull
#define RP_RCU_WAIT 6ull
#define RP_HELD 7ull
#define rp_has_obj(v) ((v) > 8 && (!((v) & 7) || ((v) & 7) >= RP_RCU))
#define rp_obj(v) ((void *)(uptr)((v) & ~7ull))
#define rp_is_wait(v) (((v) & 7) == RP_WAIT || (v) == RP_WAIT_MANY)

struct rp_slot {
	u64 v;
	u32 size;
	u16 cache;
	u16 cpu;
};
_Static_assert(sizeof(struct rp_slot) == 16, "docs/traces.md: 16 bytes an id");

struct rp_stream {
	struct trace_cursor cur;
	u64 wait_id; /* blocked: the id its next free waits for */
	bool blocked, done;
	bool wait_rcu; /* blocked: an rcu_free waits for the kfree_rcu, not the allocation */
	bool early; /* replay_pace=original: its next event's time has not come yet */
	int cpu;
};

struct rp_cpu {
	int *streams; /* indices */
	int nr_streams, remaining;
	u64 events, allocs, frees, remote, never_allocated, double_free, skipped_allocs,
		skipped_frees, t_done;
	u64 kfree_rcu, rcu_frees; /* version 2 */
	u64 lag_max; /* replay_pace=original: cycles, the latest an event was done */
	u64 *hist_alloc, *hist_free; /* RP_BUCKETS each */
} __aligned(64);

struct rp_run {
	struct trace *t;
	struct bench_table state; /* u8 per id: TRACE_ID_* from trace_analyze */
	struct bench_table slots; /* struct rp_slot per id */
	struct rp_stream *streams;
	struct rp_cpu *cpus;
	struct kmem_cache **caches; /* the trace's, for this scheme */
	u32 *cache_size;            /* their object sizes */
	struct kmem_cache *classes[RP_NR_CLASSES];
	unsigned long base_pages, peak_pages;
	bool paced;   /* replay_pace=original */
	const char *mem_params; /* set: replay_once prints the caches' memory at the trace's end */
	u64 t_start;  /* paced: the TSC at the replay's start (the first CPU to begin) */
	u64 sched_cycles; /* paced: the trace's duration, scaled, in cycles */
	int abort;
	char why[300];
};

static int parse_cpus(const char *val, int *map, int max, int ncpus, char *err, size_t errlen)
{
	int n = 0;

	for (const char *p = val; *p;) {
		unsigned long v = 0;
		const char *q = p;

		while (*q >= '0' && *q <= '9' && v < 100000)
			v = v * 10 + (unsigned long)(*q++ - '0');
		if (q == p || (*q && *q != ',') || (q - p > 1 && *p == '0')) {
			const char *c = strchr(p, ',');

			snprintf(err, errlen, "replay_cpus=%s: '%.*s' is not a CPU number", val,
				 (int)(c ? (size_t)(c - p) : strlen(p)), p);
			return -1;
		}
		if (ncpus && v >= (unsigned long)ncpus) {
			snprintf(err, errlen, "replay_cpus=%s: CPU %lu, but only CPUs 0..%d are online",
				 val, v, ncpus - 1);
			return -1;
		}
		if (n == max) {
			snprintf(err, errlen, "replay_cpus=%s: more than %d entries", val, max);
			return -1;
		}
		if (map)
			map[n] = (int)v;
		n++;
		p = *q ? q + 1 : q;
		if (*q && !*p) {
			snprintf(err, errlen, "replay_cpus=%s: ends with a comma", val);
			return -1;
		}
	}
	return n;
}

static int replay_cpus_check(const char *val, char *err, size_t errlen)
{
	if (!*val) {
		snprintf(err, errlen, "replay_cpus= is empty: give CPU numbers, e.g. replay_cpus=0,1");
		return -1;
	}
	return parse_cpus(val, NULL, TRACE_MAX_STREAMS, 0, err, errlen) < 0 ? -1 : 0;
}

static u8 *rp_state(void *ctx, u64 id)
{
	struct rp_run *r = ctx;

	return bench_table_at(&r->state, u8, id);
}

static struct rp_slot *slot_of(struct rp_run *r, u64 id)
{
	return bench_table_at(&r->slots, struct rp_slot, id);
}

static unsigned bucket_of(u64 v)
{
	unsigned e;

	if (v < 8)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	return (e - 2) * 8 + (unsigned)((v >> (e - 3)) & 7);
}

static u64 bucket_lo(unsigned b)
{
	if (b < 8)
		return b;
	return (u64)(8 + b % 8) << (b / 8 + 2 - 3);
}

/* The lower bound of the bucket holding the p-th permille of the samples. */
static u64 hist_permille(const u64 *h, unsigned p)
{
	u64 total = 0, seen = 0, want;

	for (unsigned b = 0; b < RP_BUCKETS; b++)
		total += h[b];
	if (!total)
		return 0;
	want = (total * p + 999) / 1000;
	for (unsigned b = 0; b < RP_BUCKETS; b++) {
		seen += h[b];
		if (seen >= want && h[b])
			return bucket_lo(b);
	}
	return 0;
}

static void rp_abort(struct rp_run *r, const char *fmt, ...) __printf(2, 3);
static void rp_abort(struct rp_run *r, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&r->abort, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != smp_processor_id())
			bench_wake(cpu);
}

static void stamp(void *p, u32 size, u64 id)
{
	u64 *w = p;

	if (size >= 8)
		w[0] = RP_STAMP ^ id;
	if (size >= 16)
		w[(size - 8) / 8] = ~(RP_STAMP ^ id);
}

/* 0, or the word that is wrong (its index + 1), with what it holds in *got. */
static u32 stamp_bad(const void *p, u32 size, u64 id, u64 *got)
{
	const u64 *w = p;

	if (size >= 8 && w[0] != (RP_STAMP ^ id)) {
		*got = w[0];
		return 1;
	}
	if (size >= 16 && w[(size - 8) / 8] != ~(RP_STAMP ^ id)) {
		*got = w[(size - 8) / 8];
		return (size - 8) / 8 + 1;
	}
	return 0;
}

/* The smallest order of pages that holds size bytes. */
static unsigned page_order(u64 size)
{
	unsigned order = 0;

	while (((u64)PAGE_SIZE << order) < size)
		order++;
	return order;
}

static int class_of(u64 size)
{
	for (unsigned i = 0; i < RP_NR_CLASSES; i++)
		if (size <= rp_classes[i])
			return (int)i;
	return -1;
}

static void obj_free(struct rp_run *r, const struct rp_slot *sl, void *p)
{
	if (sl->cache == RP_PAGES)
		free_pages((unsigned long)p, page_order(sl->size));
	else if (sl->cache & RP_KMALLOC)
		kmem_cache_free(r->classes[sl->cache & ~RP_KMALLOC], p);
	else
		kmem_cache_free(r->caches[sl->cache], p);
}

static void do_alloc(struct rp_run *r, struct rp_stream *st, struct rp_cpu *me, int cpu,
		     const struct trace_event *e)
{
	struct rp_slot *sl = slot_of(r, e->id);
	u32 size;
	u16 cache;
	void *p;
	u64 t0, t1, old;

	if (e->kind == TRACE_ALLOC) {
		cache = (u16)e->arg;
		size = r->cache_size[cache];
		t0 = get_cycles();
		p = kmem_cache_alloc(r->caches[cache], GFP_KERNEL);
		t1 = get_cycles();
	} else if (!e->arg || e->arg > RP_MAX_SIZE) {
		me->skipped_allocs++;
		old = __atomic_exchange_n(&sl->v, RP_SKIPPED, __ATOMIC_ACQ_REL);
		goto wake;
	} else {
		int c = class_of(e->arg);

		size = (u32)e->arg;
		t0 = get_cycles();
		if (c >= 0) {
			cache = (u16)(RP_KMALLOC | c);
			p = kmem_cache_alloc(r->classes[c], GFP_KERNEL);
		} else {
			cache = RP_PAGES;
			p = (void *)__get_free_pages(GFP_KERNEL | __GFP_NOWARN, page_order(size));
		}
		t1 = get_cycles();
	}
	if (!p) {
		rp_abort(r, "stream %u event %llu: out of memory (%s of %u bytes) with %lu pages "
			 "in use by the replay; give it more memory (MEM=)", st->cur.stream,
			 (unsigned long long)(st->cur.i - 1),
			 e->kind == TRACE_ALLOC ? "a cache object" : "kmalloc", size,
			 nr_used_pages() > r->base_pages ? nr_used_pages() - r->base_pages : 0);
		return;
	}
	me->hist_alloc[bucket_of(t1 - t0)]++;
	me->allocs++;
	stamp(p, size, e->id);
	sl->size = size;
	sl->cache = cache;
	sl->cpu = (u16)cpu;
	old = __atomic_exchange_n(&sl->v, (u64)(uptr)p, __ATOMIC_ACQ_REL);
wake:
	if (old == RP_WAIT_MANY) {
		for (int c = 0; c < nr_cpu_ids; c++)
			if (c != cpu)
				bench_wake(c);
	} else if ((old & 7) == RP_WAIT && (int)(old >> 3) != cpu) {
		bench_wake((int)(old >> 3));
	}
}

/* Every CPU but this one, for a change of a slot that frees on several may wait for. */
static void rp_wake_others(int cpu)
{
	for (int c = 0; c < nr_cpu_ids; c++)
		if (c != cpu)
			bench_wake(c);
}

/*
 * A free, a kfree_rcu or an rcu_free. kfree and kmem_cache_free free a live object;
 * kfree_rcu hands it to RCU and it stays allocated; rcu_free frees one handed over. true:
 * done (or skipped); false: it waits (st->blocked) for the allocation, or an rcu_free for
 * its kfree_rcu (st->wait_rcu).
 */
static bool do_free(struct rp_run *r, struct rp_stream *st, struct rp_cpu *me, int cpu,
		    const struct trace_event *e)
{
	struct rp_slot *sl = slot_of(r, e->id);
	bool rcu_call = e->kind == TRACE_KFREE_RCU, rcu_free = e->kind == TRACE_RCU_FREE;
	u64 v, t0, t1, got;
	u32 bad;
	void *p;

	if (!(*rp_state(r, e->id) & TRACE_ID_ALLOCATED)) {
		me->never_allocated++;
		return true;
	}
	v = __atomic_load_n(&sl->v, __ATOMIC_ACQUIRE);
	for (;;) {
		u64 low = v & 7;

		if (v == RP_FREED || (rp_has_obj(v) && low >= RP_RCU && low != RP_RCU_WAIT &&
				      !rcu_free)) {
			me->double_free++; /* a free or a kfree_rcu of an object RCU has */
			return true;
		}
		if (v == RP_SKIPPED) {
			me->skipped_frees++;
			return true;
		}
		if (rp_has_obj(v) && rcu_free && low == RP_HELD) {
			cpu_relax(); /* its kfree_rcu is about to hand it over */
			v = __atomic_load_n(&sl->v, __ATOMIC_ACQUIRE);
			continue;
		}
		if (rp_has_obj(v) && rcu_free && low != RP_RCU) {
			/* live: the kfree_rcu has not come; mark the slot so that it wakes us */
			if (low == RP_RCU_WAIT ||
			    __atomic_compare_exchange_n(&sl->v, &v, v | RP_RCU_WAIT, false,
							__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
				st->blocked = true;
				st->wait_rcu = true;
				st->wait_id = e->id;
				return false;
			}
			continue;
		}
		if (rp_has_obj(v)) {
			/* ours: to free, or (kfree_rcu) held until checked, then handed over */
			u64 want = rcu_call ? (v & ~7ull) | RP_HELD : RP_FREED;

			if (__atomic_compare_exchange_n(&sl->v, &v, want, false, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				break;
			continue;
		}
		/* not allocated yet: mark the slot, then wait */
		{
			u64 want = v == 0 ? (RP_WAIT | (u64)cpu << 3)
					  : v == (RP_WAIT | (u64)cpu << 3) ? v : RP_WAIT_MANY;

			if (v == want || __atomic_compare_exchange_n(&sl->v, &v, want, false,
								     __ATOMIC_SEQ_CST,
								     __ATOMIC_ACQUIRE)) {
				st->blocked = true;
				st->wait_rcu = false;
				st->wait_id = e->id;
				return false;
			}
		}
	}
	p = rp_obj(v);
	bad = stamp_bad(p, sl->size, e->id, &got);
	if (bad) {
		rp_abort(r, "stream %u event %llu: id %llu, %u bytes at %p allocated on CPU %u: "
			 "word %u is %llx, want %llx: the object was handed out twice or damaged",
			 st->cur.stream, (unsigned long long)(st->cur.i - 1),
			 (unsigned long long)e->id, sl->size, p, sl->cpu, bad - 1,
			 (unsigned long long)got,
			 (unsigned long long)(bad == 1 ? RP_STAMP ^ e->id : ~(RP_STAMP ^ e->id)));
		return true;
	}
	if (rcu_call) { /* checked: RCU has it now, and an rcu_free that waits may go on */
		__atomic_store_n(&sl->v, (v & ~7ull) | RP_RCU, __ATOMIC_RELEASE);
		if ((v & 7) == RP_RCU_WAIT)
			rp_wake_others(cpu);
		me->kfree_rcu++;
		return true;
	}
	if ((v & 7) == RP_RCU_WAIT) /* freed: the rcu_free that waits finds it so */
		rp_wake_others(cpu);
	if (sl->cpu != cpu)
		me->remote++;
	t0 = get_cycles();
	obj_free(r, sl, p);
	t1 = get_cycles();
	me->hist_free[bucket_of(t1 - t0)]++;
	me->frees++;
	me->rcu_frees += rcu_free;
	return true;
}

/* replay_pace=original: the TSC at which an event recorded at ts ns may be done. */
static u64 rp_due(const struct rp_run *r, u64 ts)
{
	return r->t_start + ns_to_cycles(bench_mul_div(ts, replay_scale, 100));
}

/* Up to RP_BATCH events of one stream; true if it did any. */
static bool stream_step(struct rp_run *r, struct rp_stream *st, struct rp_cpu *me, int cpu)
{
	bool progress = false;
	char err_unused[8];

	st->early = false;
	for (int n = 0; n < RP_BATCH && !st->done; n++) {
		struct trace_cursor save = st->cur;
		struct trace_event e;
		int rc = trace_next(&st->cur, &e, err_unused, sizeof(err_unused));
		u64 lag = 0;

		if (rc <= 0) { /* trace_analyze read every event already: only the end */
			st->done = true;
			me->remaining--;
			progress = true;
			break;
		}
		if (r->paced) {
			u64 now = get_cycles(), due = rp_due(r, e.ts);

			if (now < due) {
				st->cur = save;
				st->early = true;
				break;
			}
			lag = now - due;
		}
		if (e.kind == TRACE_ALLOC || e.kind == TRACE_KMALLOC) {
			do_alloc(r, st, me, cpu, &e);
		} else if (!do_free(r, st, me, cpu, &e)) {
			st->cur = save;
			break;
		}
		st->blocked = st->wait_rcu = false;
		me->events++;
		me->lag_max = MAX(me->lag_max, lag);
		progress = true;
		if (__atomic_load_n(&r->abort, __ATOMIC_RELAXED))
			break;
	}
	if (progress) { /* pages in use beyond the start, sampled once a batch */
		unsigned long used = nr_used_pages(), peak;
		/* fewer than at the start: a scheme gave back what an earlier one left cached */
		unsigned long pages = used > r->base_pages ? used - r->base_pages : 0;

		peak = __atomic_load_n(&r->peak_pages, __ATOMIC_RELAXED);
		while (pages > peak && !__atomic_compare_exchange_n(&r->peak_pages, &peak, pages, true,
								    __ATOMIC_RELAXED,
								    __ATOMIC_RELAXED))
			;
	}
	return progress;
}

/* Could a stream of this CPU go on? Checked after announcing that we go to sleep. */
static bool can_progress(struct rp_run *r, struct rp_cpu *me)
{
	if (__atomic_load_n(&r->abort, __ATOMIC_ACQUIRE))
		return true;
	for (int i = 0; i < me->nr_streams; i++) {
		struct rp_stream *st = &r->streams[me->streams[i]];
		u64 v;

		if (st->done)
			continue;
		if (!st->blocked)
			return true;
		v = __atomic_load_n(&slot_of(r, st->wait_id)->v, __ATOMIC_ACQUIRE);
		if (st->wait_rcu ? (v & 7) != RP_RCU_WAIT : !rp_is_wait(v) && v != 0)
			return true;
	}
	return false;
}

static void rp_cpu_loop(void *arg)
{
	struct rp_run *r = arg;
	int cpu = smp_processor_id();
	struct rp_cpu *me = &r->cpus[cpu];

	if (r->paced) { /* the clock starts with the first CPU to begin */
		u64 zero = 0;

		__atomic_compare_exchange_n(&r->t_start, &zero, get_cycles_ordered(), false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	while (me->remaining && !__atomic_load_n(&r->abort, __ATOMIC_ACQUIRE)) {
		bool progress = false, early = false;

		for (int i = 0; i < me->nr_streams; i++) {
			struct rp_stream *st = &r->streams[me->streams[i]];

			if (!st->done) {
				progress |= stream_step(r, st, me, cpu);
				early |= st->early;
			}
		}
		if (!progress && early) {
			/* waiting for time: poll, nothing would wake a halt; the next pass
			 * steps every stream again, a waiting free among them */
			cpu_relax();
		} else if (!progress && me->remaining) {
			bench_sleep_prepare();
			if (can_progress(r, me))
				bench_sleep_cancel();
			else
				bench_sleep();
		}
	}
	me->t_done = get_cycles_ordered();
}

static void destroy_caches(struct rp_run *r, u32 nr)
{
	for (u32 i = 0; i < nr; i++)
		if (r->caches[i])
			kmem_cache_destroy(r->caches[i]);
	for (unsigned i = 0; i < RP_NR_CLASSES; i++)
		if (r->classes[i])
			kmem_cache_destroy(r->classes[i]);
	memset(r->classes, 0, sizeof(r->classes));
}

static int create_caches(struct rp_run *r, const char *scheme)
{
	char name[32];

	memset(r->caches, 0, sizeof(*r->caches) * r->t->nr_caches);
	for (u32 i = 0; i < r->t->nr_caches; i++) {
		struct trace_cache c;

		trace_cache_get(r->t, i, &c);
		r->cache_size[i] = c.size;
		r->caches[i] = kmem_cache_create_scheme(c.name, c.size, c.align,
							(c.flags & TRACE_CACHE_HWCACHE_ALIGN) ?
								SLAB_HWCACHE_ALIGN : 0,
							NULL, scheme, slab_boot_fastpath());
		if (!r->caches[i]) {
			bench_fail("replay", "cannot create the trace's cache %u (%s, %u bytes) with "
				   "scheme %s", i, c.name, c.size, scheme);
			destroy_caches(r, i);
			return -1;
		}
		bench_cache_created(r->caches[i]);
	}
	for (unsigned i = 0; i < RP_NR_CLASSES; i++) {
		snprintf(name, sizeof(name), "rp-kmalloc-%u", rp_classes[i]);
		r->classes[i] = kmem_cache_create_scheme(name, rp_classes[i], 0, 0, NULL, scheme,
							 slab_boot_fastpath());
		if (!r->classes[i]) {
			bench_fail("replay", "cannot create %s with scheme %s", name, scheme);
			destroy_caches(r, r->t->nr_caches);
			return -1;
		}
		bench_cache_created(r->classes[i]);
	}
	return 0;
}

static u64 caches_stat(struct rp_run *r, const char *stat)
{
	u64 sum = 0;

	for (u32 i = 0; i < r->t->nr_caches; i++)
		sum += kmem_cache_stat_by_name(r->caches[i], stat);
	for (unsigned i = 0; i < RP_NR_CLASSES; i++)
		sum += kmem_cache_stat_by_name(r->classes[i], stat);
	return sum;
}

static u64 ipis_sent_all(void)
{
	u64 sum = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct ipi_stats st;

		ipi_stats_get(cpu, &st);
		sum += st.call_sent + st.wakeup_sent + st.handler_sent;
	}
	return sum;
}

/* What one replay of the whole trace on one scheme measured. */
struct rp_result {
	u64 cycles, events, allocs, frees, remote, never_allocated, double_free, skipped_allocs,
		skipped_frees, live_at_end, ipis, wakeups, list_lock, list_lock_contended;
	u64 kfree_rcu, rcu_frees;
	u64 lag_max; /* replay_pace=original: cycles */
	unsigned long peak_pages;
};

/* Free what is still allocated (the trace's live objects at its end, or after an abort). */
static u64 free_live(struct rp_run *r)
{
	u64 n = 0;

	for (u64 id = 0; id < r->t->nr_ids; id++) {
		struct rp_slot *sl = slot_of(r, id);

		if (rp_has_obj(sl->v)) { /* live, or handed to RCU and not freed yet */
			obj_free(r, sl, rp_obj(sl->v));
			sl->v = RP_FREED;
			n++;
		}
	}
	return n;
}

static bool replay_once(struct rp_run *r, const int *map, int map_len, struct rp_result *res)
{
	u64 ipi0, ll0, llc0, t0, t_end = 0;
	struct cpumask all;
	bool ok = true;

	memset(res, 0, sizeof(*res));
	for (u64 id = 0; id < r->t->nr_ids; id += BENCH_PER_PIECE(sizeof(struct rp_slot)))
		memset(slot_of(r, id), 0,
		       MIN(r->t->nr_ids - id, (u64)BENCH_PER_PIECE(sizeof(struct rp_slot))) *
			       sizeof(struct rp_slot));
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rp_cpu *c = &r->cpus[cpu];

		c->nr_streams = c->remaining = 0;
		c->events = c->allocs = c->frees = c->remote = c->never_allocated = 0;
		c->double_free = c->skipped_allocs = c->skipped_frees = c->t_done = 0;
		c->kfree_rcu = c->rcu_frees = 0;
		c->lag_max = 0;
	}
	for (u32 s = 0; s < r->t->nr_streams; s++) {
		struct rp_stream *st = &r->streams[s];
		struct rp_cpu *c;

		trace_cursor_init(&st->cur, r->t, s);
		st->blocked = st->done = false;
		st->cpu = map_len ? map[s % (u32)map_len] : (int)(s % (u32)nr_cpu_ids);
		c = &r->cpus[st->cpu];
		c->streams[c->nr_streams++] = (int)s;
		c->remaining++;
	}
	r->abort = 0;
	r->t_start = 0;
	r->peak_pages = 0;
	for (u32 i = 0; i < r->t->nr_caches + RP_NR_CLASSES; i++)
		kmem_cache_mem_reset_peak(i < r->t->nr_caches ? r->caches[i]
							  : r->classes[i - r->t->nr_caches]);
	r->base_pages = nr_used_pages();
	ll0 = caches_stat(r, "list_lock");
	llc0 = caches_stat(r, "list_lock_contended");
	ipi0 = ipis_sent_all();
	cpumask_setall(&all);
	t0 = bench_run_together(&all, rp_cpu_loop, r);
	res->ipis = ipis_sent_all() - ipi0;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rp_cpu *c = &r->cpus[cpu];

		t_end = MAX(t_end, c->t_done);
		res->events += c->events;
		res->allocs += c->allocs;
		res->frees += c->frees;
		res->remote += c->remote;
		res->never_allocated += c->never_allocated;
		res->double_free += c->double_free;
		res->skipped_allocs += c->skipped_allocs;
		res->skipped_frees += c->skipped_frees;
		res->kfree_rcu += c->kfree_rcu;
		res->rcu_frees += c->rcu_frees;
		res->lag_max = MAX(res->lag_max, c->lag_max);
	}
	res->cycles = t_end > t0 ? t_end - t0 : 1;
	if (r->paced && !r->abort && res->cycles < r->sched_cycles) {
		/* the last event may not be done before its time: the pacing is broken */
		bench_fail("replay", "replay_pace=original: the replay took %llu cycles, less "
			   "than the %llu its last event's scaled time needs",
			   (unsigned long long)res->cycles, (unsigned long long)r->sched_cycles);
		ok = false;
	}
	res->list_lock = caches_stat(r, "list_lock") - ll0;
	res->list_lock_contended = caches_stat(r, "list_lock_contended") - llc0;
	res->peak_pages = r->peak_pages;
	if (r->mem_params && !r->abort) { /* the trace's end: its live objects still live */
		struct bench_mem_sum sum = { 0 };

		for (u32 i = 0; i < r->t->nr_caches + RP_NR_CLASSES; i++)
			bench_mem_json("replay", r->mem_params,
				       i < r->t->nr_caches ? r->caches[i] : r->classes[i - r->t->nr_caches],
				       0, &sum);
		bench_mem_total("replay", r->mem_params, &sum);
	}
	res->live_at_end = free_live(r);
	if (r->abort) {
		bench_fail("replay", "%s", r->why);
		ok = false;
	} else if (res->events != r->t->nr_events) {
		bench_fail("replay", "%llu events replayed, the trace has %llu",
			   (unsigned long long)res->events, (unsigned long long)r->t->nr_events);
		ok = false;
	}
	for (u32 i = 0; ok && i < r->t->nr_caches + RP_NR_CLASSES; i++) {
		struct kmem_cache *s = i < r->t->nr_caches ? r->caches[i]
							   : r->classes[i - r->t->nr_caches];
		struct slab_cache_info info;

		kmem_cache_info(s, &info);
		if (info.active_objects) {
			bench_fail("replay", "%lu objects still in use in %s after the replay freed "
				   "every object", info.active_objects, info.name);
			ok = false;
		}
	}
	return ok;
}

/* The trace's source, safe inside a JSON string. */
static void json_safe(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < n; src++) {
		char ch = *src;

		dst[i++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
					   (ch >= '0' && ch <= '9') || strchr(":._-+/", ch)
				   ? ch
				   : '_';
	}
	dst[i] = '\0';
}

static void run_replay(void)
{
	static char err[400];
	struct rp_run r = { 0 };
	struct trace t;
	struct trace_summary sum;
	struct trace_cursor *cursors = NULL;
	const void *data = replay_sample;
	u64 len = replay_sample_len;
	const char *from = "the recording built into the kernel (tests/traces/python-threads.trace)";
	int ns = bench_nr_schemes(), map_len = 0, *map = NULL;
	unsigned reps = bench_reps(3);
	u64 *samples = NULL;
	char src[40], params[320], pace[48], a[24], b[24], c[24];
	struct rp_result *res = NULL;
	unsigned long table_free0, table_kib;

	if (boot_param_given(replay_scale) && strcmp(replay_pace, "original")) {
		bench_fail("replay", "replay_scale=%u scales the recorded times of "
			   "replay_pace=original; with replay_pace=%s there are none to scale",
			   replay_scale, replay_pace);
		return;
	}
	r.paced = !strcmp(replay_pace, "original");
	if (r.paced)
		snprintf(pace, sizeof(pace), "\"pace\":\"original\",\"replay_scale\":%u",
			 replay_scale);
	else
		snprintf(pace, sizeof(pace), "\"pace\":\"asap\"");
	if (boot_info.nr_modules) {
		data = (const void *)(uptr)boot_info.modules[0].start;
		len = boot_info.modules[0].end - boot_info.modules[0].start;
		from = "the module GRUB loaded (make replay TRACE=FILE)";
	}
	printk("replay: %llu bytes from %s\n", (unsigned long long)len, from);
	if (trace_open(&t, data, len, err, sizeof(err))) {
		bench_fail("replay", "the trace: %s", err);
		return;
	}
	r.t = &t;
	if (replay_cpus[0]) {
		map = kcalloc(TRACE_MAX_STREAMS, sizeof(int), GFP_KERNEL);
		if (!map) {
			bench_fail("replay", "no memory");
			return;
		}
		map_len = parse_cpus(replay_cpus, map, TRACE_MAX_STREAMS, nr_cpu_ids, err,
				     sizeof(err));
		if (map_len < 0) {
			bench_fail("replay", "%s", err);
			goto out;
		}
	}
	table_free0 = nr_free_pages();
	if (bench_table_alloc(&r.state, t.nr_ids ? t.nr_ids : 1, 1) ||
	    bench_table_alloc(&r.slots, t.nr_ids ? t.nr_ids : 1, sizeof(struct rp_slot))) {
		bench_fail("replay", "no memory for the table of %llu objects: it needs %llu MiB, "
			   "%lu MiB are free; give it more memory (MEM=)",
			   (unsigned long long)t.nr_ids,
			   bench_mib_up(bench_table_bytes(t.nr_ids, 1) +
					bench_table_bytes(t.nr_ids, sizeof(struct rp_slot))),
			   bench_free_mib());
		goto out;
	}
	table_kib = (table_free0 - MIN(table_free0, nr_free_pages())) * (PAGE_SIZE / 1024);
	cursors = kcalloc(t.nr_streams, sizeof(*cursors), GFP_KERNEL);
	r.streams = kcalloc(t.nr_streams, sizeof(*r.streams), GFP_KERNEL);
	r.cpus = kcalloc((size_t)nr_cpu_ids, sizeof(*r.cpus), GFP_KERNEL);
	r.caches = kcalloc(t.nr_caches + 1, sizeof(*r.caches), GFP_KERNEL);
	r.cache_size = kcalloc(t.nr_caches + 1, sizeof(*r.cache_size), GFP_KERNEL);
	samples = kcalloc(reps * 2, sizeof(u64), GFP_KERNEL);
	res = kcalloc(reps, sizeof(*res), GFP_KERNEL);
	if (!cursors || !r.streams || !r.cpus || !r.caches || !r.cache_size || !samples || !res) {
		bench_fail("replay", "no memory for %u streams", t.nr_streams);
		goto out;
	}
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		r.cpus[cpu].streams = kcalloc(t.nr_streams, sizeof(int), GFP_KERNEL);
		r.cpus[cpu].hist_alloc = kcalloc(2 * RP_BUCKETS, sizeof(u64), GFP_KERNEL);
		if (!r.cpus[cpu].streams || !r.cpus[cpu].hist_alloc) {
			bench_fail("replay", "no memory");
			goto out;
		}
		r.cpus[cpu].hist_free = r.cpus[cpu].hist_alloc + RP_BUCKETS;
	}
	if (trace_analyze(&t, rp_state, &r, cursors, RP_MAX_SIZE, &sum, err, sizeof(err))) {
		bench_fail("replay", "the trace: %s", err);
		goto out;
	}
	json_safe(src, sizeof(src), t.source[0] ? t.source : "unnamed");
	printk("replay: trace %s: %u streams on %d CPUs (%s), %u caches, %llu events, %llu "
	       "objects, at most %llu live; skipped: %llu frees of ids never allocated, %llu "
	       "double frees, %llu kmallocs of 0 bytes, %llu past the page allocator's %llu KiB; "
	       "%llu kmallocs past 8 KiB from the page allocator; %llu objects live at the end, "
	       "freed then; %u runs per scheme\n",
	       src, t.nr_streams, nr_cpu_ids, map_len ? "replay_cpus=" : "stream i on CPU i mod N",
	       t.nr_caches, (unsigned long long)t.nr_events, (unsigned long long)sum.allocs,
	       (unsigned long long)sum.peak_live, (unsigned long long)sum.free_never_allocated,
	       (unsigned long long)sum.double_free, (unsigned long long)sum.size_zero,
	       (unsigned long long)sum.size_too_big, (unsigned long long)(RP_MAX_SIZE >> 10),
	       (unsigned long long)sum.page_allocs, (unsigned long long)sum.live_at_end, reps);
	printk("replay: memory beside the trace: the table of %llu ids, %llu bytes (16 bytes an "
	       "id, a byte of state and the pointers to its pieces); the page allocator gave it "
	       "%lu KiB\n", (unsigned long long)t.nr_ids,
	       (unsigned long long)(bench_table_bytes(t.nr_ids, 1) +
				    bench_table_bytes(t.nr_ids, sizeof(struct rp_slot))),
	       table_kib);
	if (t.version >= 2)
		printk("replay: trace version %u: %llu kfree_rcu, each object freed at its rcu_free "
		       "event (%llu of them; %llu still handed to RCU at the end, freed then): "
		       "the trace's grace periods, not slablab's kfree_rcu (bench=rcu measures "
		       "that); %llu nolock calls, replayed as "
		       "the locked ones; %llu allocations on a given node, made on the replaying "
		       "CPU's node\n", t.version, (unsigned long long)sum.kfree_rcu,
		       (unsigned long long)sum.rcu_frees, (unsigned long long)sum.rcu_pending_at_end,
		       (unsigned long long)sum.nolock, (unsigned long long)sum.node_allocs);
	if (r.paced) {
		u64 sched_ns = bench_mul_div(sum.duration_ns, replay_scale, 100);

		if (sched_ns > RP_MAX_SCHED_NS) { /* nor could the TSC arithmetic hold it */
			bench_fail("replay", "replay_pace=original replay_scale=%u: the trace's "
				   "recorded %llu s would take %llu s, more than a day; give a "
				   "smaller replay_scale=", replay_scale,
				   (unsigned long long)(sum.duration_ns / 1000000000),
				   (unsigned long long)(sched_ns / 1000000000));
			goto out;
		}
		r.sched_cycles = ns_to_cycles(sched_ns);
		printk("replay: pace original, replay_scale=%u%%: the trace's recorded %s ms take "
		       "%s ms; each event waits for its time\n", replay_scale,
		       bench_fmt(a, sizeof(a), sum.duration_ns / 100000),
		       bench_fmt(b, sizeof(b), sched_ns / 100000));
	} else {
		printk("replay: pace asap: every event as soon as it can be done (the trace's "
		       "recorded %s ms are not kept; replay_pace=original keeps them)\n",
		       bench_fmt(a, sizeof(a), sum.duration_ns / 100000));
	}
	printk("%-14s %12s %10s %8s %8s %8s %8s %8s %8s %10s %10s\n", "scheme", "cycles", "cyc/event",
	       "alloc50", "alloc99", "free50", "free99", "remote%", "IPIs", "list_lock",
	       "peak_pages");
	for (int si = 0; si < ns; si++) {
		const char *scheme = bench_scheme(si);
		struct bench_stats st_total, st_per;
		struct rp_result *m;
		u64 h_alloc[RP_BUCKETS] = { 0 }, h_free[RP_BUCKETS] = { 0 };
		bool ok = true;
		unsigned mid = 0;

		if (create_caches(&r, scheme))
			goto out;
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
			memset(r.cpus[cpu].hist_alloc, 0, 2 * RP_BUCKETS * sizeof(u64));
		snprintf(params, sizeof(params),
			 "\"scheme\":\"%s\",\"trace\":\"%s\",\"streams\":%u,\"events\":%llu,\"reps\":%u,%s",
			 scheme, src, t.nr_streams, (unsigned long long)t.nr_events, reps, pace);
		for (unsigned rep = 0; rep < reps && ok; rep++) {
			r.mem_params = rep == reps - 1 ? params : NULL; /* the last run's memory */
			ok = replay_once(&r, map, map_len, &res[rep]);
			samples[rep] = res[rep].cycles;
			samples[reps + rep] = res[rep].cycles;
		}
		destroy_caches(&r, t.nr_caches);
		if (!ok)
			goto out;
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
			for (unsigned k = 0; k < RP_BUCKETS; k++) {
				h_alloc[k] += r.cpus[cpu].hist_alloc[k];
				h_free[k] += r.cpus[cpu].hist_free[k];
			}
		bench_summarize(samples, (int)reps, 1, &st_total);
		bench_summarize(samples + reps, (int)reps, MAX(t.nr_events, 1ull), &st_per);
		for (unsigned rep = 0; rep < reps; rep++) /* the run with the median time */
			if (res[rep].cycles * 10 == st_total.median)
				mid = rep;
		m = &res[mid];
		bench_json("replay", params, "cycles", st_total.median, "cycles", &st_total);
		bench_json("replay", params, "cycles_per_event", st_per.median, "cycles", &st_per);
		bench_json("replay", params, "alloc_p50", hist_permille(h_alloc, 500) * 10, "cycles", NULL);
		bench_json("replay", params, "alloc_p99", hist_permille(h_alloc, 990) * 10, "cycles", NULL);
		bench_json("replay", params, "free_p50", hist_permille(h_free, 500) * 10, "cycles", NULL);
		bench_json("replay", params, "free_p99", hist_permille(h_free, 990) * 10, "cycles", NULL);
		bench_json("replay", params, "remote_frees",
			   m->frees ? m->remote * 1000 / m->frees : 0, "percent", NULL);
		bench_json("replay", params, "ipis", m->ipis * 10, "count", NULL);
		bench_json("replay", params, "list_lock", m->list_lock * 10, "count", NULL);
		bench_json("replay", params, "list_lock_contended", m->list_lock_contended * 10,
			   "count", NULL);
		bench_json("replay", params, "peak_pages", (u64)m->peak_pages * 10, "pages", NULL);
		bench_json("replay", params, "skipped", (m->never_allocated + m->double_free +
							 m->skipped_allocs + m->skipped_frees) * 10,
			   "count", NULL);
		bench_json("replay", params, "live_at_end", m->live_at_end * 10, "count", NULL);
		if (t.version >= 2) {
			bench_json("replay", params, "kfree_rcu", m->kfree_rcu * 10, "count", NULL);
			bench_json("replay", params, "rcu_frees", m->rcu_frees * 10, "count", NULL);
		}
		if (r.paced)
			bench_json("replay", params, "lag_max", cycles_to_ns(m->lag_max) * 10, "ns",
				   NULL);
		printk("%-14s %12llu %10s %8llu %8llu %8llu %8llu %8s %8llu %10llu %10lu\n", scheme,
		       (unsigned long long)m->cycles, bench_fmt(a, sizeof(a), st_per.median),
		       (unsigned long long)hist_permille(h_alloc, 500),
		       (unsigned long long)hist_permille(h_alloc, 990),
		       (unsigned long long)hist_permille(h_free, 500),
		       (unsigned long long)hist_permille(h_free, 990),
		       bench_fmt(b, sizeof(b), m->frees ? m->remote * 1000 / m->frees : 0),
		       (unsigned long long)m->ipis, (unsigned long long)m->list_lock, m->peak_pages);
		if (r.paced)
			printk("replay: %s: pace original: took %s ms, scheduled %s ms; at most %s us "
			       "behind schedule\n", scheme,
			       bench_fmt(a, sizeof(a), bench_mul_div(m->cycles, 10, tsc_khz)),
			       bench_fmt(b, sizeof(b), bench_mul_div(r.sched_cycles, 10, tsc_khz)),
			       bench_fmt(c, sizeof(c), bench_mul_div(m->lag_max, 10000, tsc_khz)));
		bench_headline("replay", scheme, "cycles per event", st_per.median, "cycles");
		if (m->never_allocated != sum.free_never_allocated ||
		    m->skipped_allocs != sum.size_zero + sum.size_too_big ||
		    m->live_at_end != sum.live_at_end) {
			bench_fail("replay", "%s: skipped %llu frees of ids never allocated, %llu "
				   "allocations, freed %llu live objects at the end; the trace has "
				   "%llu, %llu and %llu", scheme,
				   (unsigned long long)m->never_allocated,
				   (unsigned long long)m->skipped_allocs,
				   (unsigned long long)m->live_at_end,
				   (unsigned long long)sum.free_never_allocated,
				   (unsigned long long)(sum.size_zero + sum.size_too_big),
				   (unsigned long long)sum.live_at_end);
			goto out;
		}
	}
	printk("(cycles: the whole replay, from the release of every CPU to the last stream's "
	       "end%s; per event: over all %llu events; alloc/free percentiles: one call each, "
	       "the lower edge of a histogram step of 1/8 of a power of two; remote%%: frees on "
	       "another CPU than the allocation's; IPIs: every IPI sent, the replay's own "
	       "wake-ups included; list_lock: acquisitions in the replay's caches%s)\n",
	       bench_emulated() ? ", emulated" : "", (unsigned long long)t.nr_events,
	       r.paced ? "; behind schedule: the latest any event was done after its scaled "
			 "time, in the run shown" : "");
out:
	if (r.cpus)
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
			kfree(r.cpus[cpu].streams);
			kfree(r.cpus[cpu].hist_alloc);
		}
	kfree(res);
	kfree(samples);
	kfree(r.caches);
	kfree(r.cache_size);
	kfree(r.cpus);
	kfree(r.streams);
	kfree(cursors);
	kfree(map);
	bench_table_free(&r.slots);
	bench_table_free(&r.state);
}

static const struct bench replay_bench = {
	.name = "replay",
	.what = "a slab trace (docs/traces.md) replayed on every scheme: a multiboot2 module, "
		"else the recording built in",
	.run = run_replay,
	.order = 90,
};
bench_register(replay_bench);
