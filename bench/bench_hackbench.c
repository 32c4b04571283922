// SPDX-License-Identifier: MIT
/*
 * bench=hackbench: an in-kernel analog of hackbench (rt-tests), the benchmark of Lameter 2011,
 * per-cpu partial lists (linux-kernel).
 *
 * G groups, each of 20 senders and 20 receivers. Each sender sends L messages to every
 * receiver of its group, one receiver after the other as hackbench's sender writes its fds.
 * A message is what a socket send allocates: a header object from its own cache (an sk_buff,
 * 232 bytes) and a 100-byte payload from a kmalloc-128-shaped cache. The sender writes both,
 * the message goes through a per-pair queue (16 slots: a full queue blocks the sender, as a
 * full socket buffer does), and the receiver checks it (sender, sequence, every payload
 * byte) and frees both objects, usually on another CPU: the cross-CPU free storm that
 * per-cpu partial lists were made for.
 *
 * Tasks are light: state machines (a sender: next loop and receiver; a receiver: the queue
 * to look at next), task i of the run on CPU i mod N, stepped round-robin by a minimal run
 * loop on each CPU. A step does at most one round of work and never waits. A CPU whose tasks
 * can all not go on halts (bench_sleep) and is woken by an IPI from the CPU that filled or
 * emptied a queue it waits on, as a scheduler's wake-up would; spinning instead would starve
 * the vCPUs that hold the work under emulation.
 *
 * Time is from the moment every CPU has arrived (the last arrival releases the others) to
 * the last receiver done, as hackbench's "Time:" from "go" to all reaped. The kmalloc caches
 * have the boot scheme, so each scheme gets its own payload cache of kmalloc-128's shape.
 */
#include "bench/bench.h"
#include "bench/hackbench.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* Boot options (README.md's table); bench_memory.c and bench_debug.c use them too. */
unsigned int hackbench_groups, hackbench_loops;
boot_param(hackbench_groups, hackbench_groups, uint, (1, 1000), 10,
	   "hackbench: groups of 20 senders and 20 receivers (largest row)");
boot_param(hackbench_loops, hackbench_loops, uint, (1, 1000000), 20,
	   "hackbench: messages each sender sends to each receiver");

#define HB_QUEUE 16 /* slots per sender->receiver queue (a power of two) */
#define HB_MAGIC 0x6861636b62656e63ULL /* "hackbenc" */

struct hb_msg {
	u64 magic;
	u32 group, sender, receiver, seq;
	u32 len;
	u64 *payload;
};
_Static_assert(sizeof(struct hb_msg) <= HB_HEADER_SIZE, "a message header fits the object");

/* One sender->receiver queue: single producer, single consumer, free-running indices. */
struct hb_queue {
	u32 tail;     /* the sender's: next slot to fill (release: the slot is written) */
	u32 head;     /* the receiver's: next slot to read (release: the slot may be reused) */
	u32 received; /* the receiver's: messages taken from this queue = next expected seq */
	u32 _pad[13];
	struct hb_msg *slot[HB_QUEUE];
} __aligned(64);

enum hb_kind { HB_SENDER, HB_RECEIVER };

struct hb_task {
	enum hb_kind kind;
	u32 group, idx;
	u32 loop, next; /* sender: loop and receiver; receiver: next queue to look at */
	u32 done;       /* messages sent or received */
	int cpu;
};

struct hb_cpu {
	struct hb_task **tasks;
	int nr_tasks, remaining;
	u64 sent, received, remote;
} __aligned(64);

struct hb_run {
	struct hackbench_setup *hb;
	const char *who;
	struct bench_table queues; /* [group][sender][receiver]: 75 KiB per group, in pieces */
	struct bench_table tasks;  /* [group][40]: 20 senders, then 20 receivers */
	struct hb_cpu *cpus;     /* [nr_cpu_ids] */
	int ncpus;
	int abort;
	unsigned long base_pages;
	unsigned long free_mib; /* free memory once the tables are allocated */
	char why[400]; /* the first failure */
};

static struct hb_queue *queue_of(struct hb_run *r, u32 group, u32 sender, u32 receiver)
{
	return bench_table_at(&r->queues, struct hb_queue,
			      ((size_t)group * HB_FDS + sender) * HB_FDS + receiver);
}

/* The bytes of the messages that can be in flight at most: every queue full. */
static u64 hb_inflight_bytes(const struct hackbench_setup *hb)
{
	struct slab_cache_info h, p;

	kmem_cache_info(hb->header, &h);
	kmem_cache_info(hb->payload, &p);
	return (u64)hb->groups * HB_FDS * HB_FDS * MIN(hb->loops, (unsigned)HB_QUEUE) *
	       (h.size + p.size);
}

static int cpu_of(struct hb_run *r, u32 group, u32 idx /* 0..39 */)
{
	return (int)(((size_t)group * 2 * HB_FDS + idx) % (size_t)r->ncpus);
}

/* What a receiver expects in word k of a message's payload. */
static u64 pattern(const struct hb_msg *m, unsigned k)
{
	return (((u64)m->seq << 32) ^ ((u64)m->group << 16) ^ ((u64)m->sender << 8) ^
		m->receiver) * 0x9e3779b97f4a7c15ULL + k;
}

static void hb_abort(struct hb_run *r, const char *fmt, ...) __printf(2, 3);
static void hb_abort(struct hb_run *r, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&r->abort, 1, __ATOMIC_ACQ_REL))
		return; /* somebody else's failure came first */
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	for (int cpu = 0; cpu < r->ncpus; cpu++) /* nobody may stay halted */
		if (cpu != smp_processor_id())
			bench_wake(cpu);
}

/* One round of a sender: a message to each receiver whose queue has room, in order. */
static bool sender_step(struct hb_run *r, struct hb_task *t, struct hb_cpu *me)
{
	struct hackbench_setup *hb = r->hb;
	bool progress = false;

	for (int n = 0; n < HB_FDS && t->loop < hb->loops; n++) {
		struct hb_queue *q = queue_of(r, t->group, t->idx, t->next);
		u32 tail = q->tail;
		struct hb_msg *m;
		u64 *p;
		int to;

		if (tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == HB_QUEUE)
			break; /* full: blocked on this receiver, like a full socket buffer */
		m = kmem_cache_alloc(hb->header, GFP_KERNEL);
		p = kmem_cache_alloc(hb->payload, GFP_KERNEL);
		if (!m || !p) {
			if (m)
				kmem_cache_free(hb->header, m);
			if (p)
				kmem_cache_free(hb->payload, p);
			hb_abort(r, "out of memory for a message (%lu MiB were free for them): "
				 "hackbench_groups=%u hackbench_loops=%u may have up to %llu MiB of "
				 "messages in flight; give it more memory (MEM=) or fewer groups",
				 r->free_mib, hb->groups, hb->loops,
				 bench_mib_up(hb_inflight_bytes(hb)));
			return false;
		}
		m->magic = HB_MAGIC;
		m->group = t->group;
		m->sender = t->idx;
		m->receiver = t->next;
		m->seq = t->loop;
		m->len = HB_PAYLOAD_SIZE;
		m->payload = p;
		for (unsigned k = 0; k < HB_PAYLOAD_SIZE / 8; k++)
			p[k] = pattern(m, k);
		((u32 *)p)[HB_PAYLOAD_SIZE / 4 - 1] = (u32)pattern(m, 99);
		q->slot[tail % HB_QUEUE] = m;
		__atomic_store_n(&q->tail, tail + 1, __ATOMIC_RELEASE);
		to = cpu_of(r, t->group, HB_FDS + t->next);
		if (to != t->cpu)
			bench_wake(to);
		me->sent++;
		t->done++;
		progress = true;
		if (++t->next == HB_FDS) {
			t->next = 0;
			t->loop++;
		}
	}
	return progress;
}

/* Check one message against what its queue expects; false (and abort) if it is wrong. */
static bool check_msg(struct hb_run *r, struct hb_task *t, u32 sender, struct hb_queue *q,
		      const struct hb_msg *m)
{
	const u64 *p = m->payload;

	if (m->magic != HB_MAGIC || m->group != t->group || m->sender != sender ||
	    m->receiver != t->idx || m->len != HB_PAYLOAD_SIZE) {
		hb_abort(r, "group %u receiver %u: bad header from sender %u (magic %llx, says "
			 "group %u sender %u receiver %u len %u)", t->group, t->idx, sender,
			 (unsigned long long)m->magic, m->group, m->sender, m->receiver, m->len);
		return false;
	}
	if (m->seq != q->received) {
		hb_abort(r, "group %u receiver %u: from sender %u got message %u, expected %u "
			 "(lost or reordered)", t->group, t->idx, sender, m->seq, q->received);
		return false;
	}
	for (unsigned k = 0; k < HB_PAYLOAD_SIZE / 8; k++) {
		if (p[k] != pattern(m, k)) {
			hb_abort(r, "group %u receiver %u: message %u from sender %u: payload word %u "
				 "is %llx, want %llx", t->group, t->idx, m->seq, sender, k,
				 (unsigned long long)p[k], (unsigned long long)pattern(m, k));
			return false;
		}
	}
	if (((const u32 *)p)[HB_PAYLOAD_SIZE / 4 - 1] != (u32)pattern(m, 99)) {
		hb_abort(r, "group %u receiver %u: message %u from sender %u: payload tail corrupt",
			 t->group, t->idx, m->seq, sender);
		return false;
	}
	return true;
}

/* One round of a receiver: drain each of its queues once, starting where it left off. */
static bool receiver_step(struct hb_run *r, struct hb_task *t, struct hb_cpu *me)
{
	struct hackbench_setup *hb = r->hb;
	bool progress = false;

	for (int n = 0; n < HB_FDS; n++) {
		u32 s = t->next;
		struct hb_queue *q = queue_of(r, t->group, s, t->idx);
		u32 head = q->head, tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		int from = cpu_of(r, t->group, s);

		if (++t->next == HB_FDS)
			t->next = 0;
		if (head == tail)
			continue;
		for (; head != tail; head++) {
			struct hb_msg *m = q->slot[head % HB_QUEUE];

			if (!check_msg(r, t, s, q, m)) {
				/* leave it queued: drain_queues frees it, not what came before */
				__atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
				return false;
			}
			q->received++;
			kmem_cache_free(hb->payload, m->payload);
			kmem_cache_free(hb->header, m);
			t->done++;
			me->received++;
			if (from != t->cpu)
				me->remote++;
		}
		__atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
		if (from != t->cpu)
			bench_wake(from); /* its sender may be blocked on this full queue */
		progress = true;
	}
	return progress;
}

static bool task_done(struct hb_run *r, const struct hb_task *t)
{
	return t->kind == HB_SENDER ? t->loop == r->hb->loops
				    : t->done == HB_FDS * r->hb->loops;
}

/* Could any task of this CPU go on? (Checked after announcing that we go to sleep.) */
static bool can_progress(struct hb_run *r, struct hb_cpu *me)
{
	if (__atomic_load_n(&r->abort, __ATOMIC_ACQUIRE))
		return true;
	for (int i = 0; i < me->nr_tasks; i++) {
		struct hb_task *t = me->tasks[i];

		if (task_done(r, t))
			continue;
		if (t->kind == HB_SENDER) {
			struct hb_queue *q = queue_of(r, t->group, t->idx, t->next);

			if (q->tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) < HB_QUEUE)
				return true;
		} else {
			for (u32 s = 0; s < HB_FDS; s++) {
				struct hb_queue *q = queue_of(r, t->group, s, t->idx);

				if (__atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) != q->head)
					return true;
			}
		}
	}
	return false;
}

/* The memory benchmark's sample: pages in use now, and the bytes of messages in flight. */
static void sample_memory(struct hb_run *r)
{
	unsigned long pages = nr_used_pages() - r->base_pages;
	u64 sent = 0, received = 0;

	if (pages <= r->hb->peak_pages)
		return;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		sent += READ_ONCE(r->cpus[cpu].sent);
		received += READ_ONCE(r->cpus[cpu].received);
	}
	r->hb->peak_pages = pages;
	r->hb->bytes_at_peak = (sent > received ? sent - received : 0) *
			       (HB_HEADER_SIZE + HB_PAYLOAD_SIZE);
}

static void hb_cpu_loop(void *arg)
{
	struct hb_run *r = arg;
	int cpu = smp_processor_id();
	struct hb_cpu *me = &r->cpus[cpu];

	while (me->remaining && !__atomic_load_n(&r->abort, __ATOMIC_ACQUIRE)) {
		bool progress = false;

		for (int i = 0; i < me->nr_tasks; i++) {
			struct hb_task *t = me->tasks[i];

			if (task_done(r, t))
				continue;
			if (__atomic_load_n(&r->abort, __ATOMIC_RELAXED))
				break; /* not another failed allocation per task */
			progress |= t->kind == HB_SENDER ? sender_step(r, t, me)
							  : receiver_step(r, t, me);
			if (task_done(r, t))
				me->remaining--;
		}
		if (cpu == 0 && r->hb->sample_memory)
			sample_memory(r);
		if (!progress && me->remaining) {
			bench_sleep_prepare();
			if (can_progress(r, me))
				bench_sleep_cancel();
			else
				bench_sleep();
		}
	}
}

/* After an abort: free what is still queued, so the caches can be destroyed. */
static void drain_queues(struct hb_run *r)
{
	for (size_t i = 0; i < (size_t)r->hb->groups * HB_FDS * HB_FDS; i++) {
		struct hb_queue *q = bench_table_at(&r->queues, struct hb_queue, i);

		for (; q->head != q->tail; q->head++) {
			struct hb_msg *m = q->slot[q->head % HB_QUEUE];

			kmem_cache_free(r->hb->payload, m->payload);
			kmem_cache_free(r->hb->header, m);
		}
	}
}

static unsigned long active_objects(struct kmem_cache *s)
{
	struct slab_cache_info info;

	kmem_cache_info(s, &info);
	return info.active_objects;
}

u64 hackbench_run(struct hackbench_setup *hb, const char *who)
{
	struct hb_run r = { .hb = hb, .who = who, .ncpus = nr_cpu_ids };
	size_t nq = (size_t)hb->groups * HB_FDS * HB_FDS, nt = (size_t)hb->groups * 2 * HB_FDS;
	unsigned long before_h = active_objects(hb->header), before_p = active_objects(hb->payload);
	u64 t0, t1, want = (u64)hb->groups * HB_FDS * HB_FDS * hb->loops, sent = 0, received = 0;
	struct cpumask all;
	unsigned long free_mib;
	bool ok = true;

	hb->messages = hb->remote_frees = hb->bytes_at_peak = 0;
	hb->peak_pages = 0;
	free_mib = bench_free_mib();
	if (bench_table_alloc(&r.queues, nq, sizeof(struct hb_queue)) ||
	    bench_table_alloc(&r.tasks, nt, sizeof(struct hb_task)))
		ok = false;
	r.cpus = kcalloc((size_t)r.ncpus, sizeof(*r.cpus), GFP_KERNEL | __GFP_NOWARN);
	for (int cpu = 0; r.cpus && cpu < r.ncpus; cpu++) {
		r.cpus[cpu].tasks = kcalloc(nt / (size_t)r.ncpus + 1, sizeof(struct hb_task *),
					    GFP_KERNEL | __GFP_NOWARN);
		ok = ok && r.cpus[cpu].tasks;
	}
	if (!r.cpus || !ok) {
		bench_fail(who, "no memory for the queues and tasks of hackbench_groups=%u: they "
			   "need %llu MiB (%llu KiB per group), %lu MiB are free, and messages in "
			   "flight may take up to %llu MiB more; give it more memory (MEM=) or "
			   "fewer groups", hb->groups,
			   bench_mib_up(bench_table_bytes(nq, sizeof(struct hb_queue)) +
					bench_table_bytes(nt, sizeof(struct hb_task)) +
					(u64)nt * sizeof(struct hb_task *)),
			   (unsigned long long)((HB_FDS * HB_FDS * sizeof(struct hb_queue) +
						 2 * HB_FDS * (sizeof(struct hb_task) + 8)) / 1024),
			   free_mib, bench_mib_up(hb_inflight_bytes(hb)));
		ok = false;
		goto out;
	}
	r.free_mib = bench_free_mib();
	for (size_t i = 0; i < nt; i++) {
		struct hb_task *t = bench_table_at(&r.tasks, struct hb_task, i);
		struct hb_cpu *c;

		t->group = (u32)(i / (2 * HB_FDS));
		t->idx = (u32)(i % (2 * HB_FDS));
		t->kind = t->idx < HB_FDS ? HB_SENDER : HB_RECEIVER;
		if (t->kind == HB_RECEIVER)
			t->idx -= HB_FDS;
		t->cpu = cpu_of(&r, t->group, (u32)(i % (2 * HB_FDS)));
		c = &r.cpus[t->cpu];
		c->tasks[c->nr_tasks++] = t;
		c->remaining++;
	}
	r.base_pages = nr_used_pages();
	cpumask_setall(&all);
	t0 = bench_run_together(&all, hb_cpu_loop, &r);
	t1 = get_cycles_ordered();
	for (int cpu = 0; cpu < r.ncpus; cpu++) {
		sent += r.cpus[cpu].sent;
		received += r.cpus[cpu].received;
		hb->remote_frees += r.cpus[cpu].remote;
	}
	hb->messages = received;
	if (r.abort) {
		bench_fail(who, "%s", r.why);
		drain_queues(&r);
		ok = false;
	} else if (sent != want || received != want) {
		bench_fail(who, "%llu messages sent and %llu received, want %llu each",
			   (unsigned long long)sent, (unsigned long long)received,
			   (unsigned long long)want);
		ok = false;
	} else {
		unsigned long h = active_objects(hb->header), p = active_objects(hb->payload);

		if (h != before_h || p != before_p) {
			bench_fail(who, "objects in use after the run: %lu headers and %lu payloads, "
				   "before it %lu and %lu", h, p, before_h, before_p);
			ok = false;
		}
	}
out:
	for (int cpu = 0; r.cpus && cpu < r.ncpus; cpu++)
		kfree(r.cpus[cpu].tasks);
	kfree(r.cpus);
	bench_table_free(&r.tasks);
	bench_table_free(&r.queues);
	return ok ? MAX(t1 - t0, 1ul) : 0;
}

/* ---- the benchmark: rows (groups, loops), a column per scheme ---- */

#define HB_REPS_DEFAULT 5

/* A scheme's two caches: sk_buff-like headers, and kmalloc-128's shape for the payload. */
int hackbench_caches(const char *scheme, struct kmem_cache **header, struct kmem_cache **payload)
{
	*header = kmem_cache_create_scheme("hb-skbuff", HB_HEADER_SIZE, 0, SLAB_HWCACHE_ALIGN,
					   NULL, scheme, slab_boot_fastpath());
	*payload = kmem_cache_create_scheme("hb-kmalloc-128", 128, 0, 0, NULL, scheme,
					    slab_boot_fastpath());
	if (*header && *payload) {
		bench_cache_created(*header);
		bench_cache_created(*payload);
		return 0;
	}
	if (*header)
		kmem_cache_destroy(*header);
	if (*payload)
		kmem_cache_destroy(*payload);
	return -1;
}

static void run_hackbench(void)
{
	unsigned int rows[2] = { hackbench_groups, 1 }, nr_rows;
	unsigned int loops = hackbench_loops, reps = bench_reps(HB_REPS_DEFAULT);
	int ns = bench_nr_schemes(), lock = -1;
	struct bench_stats st[2][16];
	u64 *samples = kmalloc_array(reps, sizeof(u64), GFP_KERNEL);
	char a[24], b[24], params[160];

	nr_rows = rows[0] > 1 ? 2 : 1;
	if (!samples) {
		bench_fail("hackbench", "no memory");
		return;
	}
	printk("%d CPUs; per group 20 senders and 20 receivers, light tasks on per-cpu run "
	       "loops; a message = a %d-byte header (own cache) + a %d-byte payload from a "
	       "kmalloc-128-shaped cache of the scheme (the real kmalloc caches have the boot "
	       "scheme); fastpath %s; median of %u runs\n", nr_cpu_ids, HB_HEADER_SIZE,
	       HB_PAYLOAD_SIZE, slab_fastpath_name(slab_boot_fastpath()), reps);
	for (int si = 0; si < ns && si < 16; si++) {
		const char *scheme = bench_scheme(si);

		for (unsigned row = 0; row < nr_rows; row++) {
			struct hackbench_setup hb = { .groups = rows[row], .loops = loops };
			u64 remote = 0, msgs = 0, locks;
			bool failed = false;

			if (hackbench_caches(scheme, &hb.header, &hb.payload)) {
				bench_fail("hackbench", "cannot create the %s caches", scheme);
				kfree(samples);
				return;
			}
			for (unsigned rep = 0; rep < reps; rep++) {
				samples[rep] = hackbench_run(&hb, "hackbench");
				if (!samples[rep]) {
					failed = true;
					break;
				}
				remote += hb.remote_frees;
				msgs += hb.messages;
				/* like hackbench: seconds with three decimals */
				printk("%s groups %u loops %u: Time: %llu.%03llu\n", scheme, hb.groups,
				       loops,
				       (unsigned long long)(cycles_to_ns(samples[rep]) / 1000000000),
				       (unsigned long long)(cycles_to_ns(samples[rep]) / 1000000 % 1000));
			}
			/* list_lock acquisitions of the two caches over every run, per 1000 slab
			 * operations (a message is two allocations and two frees): the contention
			 * per-cpu partial lists were made to remove (Lameter 2011). */
			locks = kmem_cache_stat_by_name(hb.header, "list_lock") +
				kmem_cache_stat_by_name(hb.payload, "list_lock");
			if (!failed) { /* the caches' memory after the last run (bench_mem_json) */
				struct bench_mem_sum sum = { 0 };

				snprintf(params, sizeof(params),
					 "\"scheme\":\"%s\",\"groups\":%u,\"loops\":%u,\"reps\":%u",
					 scheme, hb.groups, loops, reps);
				bench_mem_json("hackbench", params, hb.header, 0, &sum);
				bench_mem_json("hackbench", params, hb.payload, 0, &sum);
				bench_mem_total("hackbench", params, &sum);
			}
			kmem_cache_destroy(hb.header);
			kmem_cache_destroy(hb.payload);
			if (failed) {
				kfree(samples);
				return; /* hackbench_run said why */
			}
			bench_summarize(samples, (int)reps, 1, &st[row][si]);
			bench_stats_cycles_to_ms(&st[row][si]);
			snprintf(params, sizeof(params),
				 "\"scheme\":\"%s\",\"groups\":%u,\"loops\":%u,\"reps\":%u", scheme,
				 hb.groups, loops, reps);
			bench_json("hackbench", params, "time", st[row][si].median, "ms",
				   &st[row][si]);
			bench_json("hackbench", params, "remote_frees", remote * 1000 / msgs,
				   "percent", NULL);
			bench_json("hackbench", params, "list_lock_per_1000_ops",
				   locks * 10000 / (4 * msgs), "acquisitions", NULL);
		}
	}
	/* Lameter 2011's table: rows (groups, loops), a column per scheme, change against the
	 * baseline (lock). */
	for (int si = 0; si < ns && si < 16; si++)
		if (slab_scheme_flags(bench_scheme(si)) & SLAB_SCHEME_BASELINE)
			lock = si;
	for (unsigned row = 0; row < nr_rows && lock >= 0; row++) {
		for (int si = 0; si < ns && si < 16; si++) {
			if (si == lock)
				continue;
			snprintf(params, sizeof(params),
				 "\"scheme\":\"%s\",\"groups\":%u,\"loops\":%u,\"reps\":%u",
				 bench_scheme(si), rows[row], loops, reps);
			/* improvement: time saved against lock, in percent of lock's */
			bench_json_signed("hackbench", params, "improvement_vs_lock",
					  -bench_change_pct(st[row][lock].median, st[row][si].median),
					  "percent");
		}
	}
	printk("\nhackbench time in ms (median of %u runs%s; in brackets the change against %s: "
	       "negative is faster)\n%-16s", reps, bench_emulated() ? ", emulated" : "",
	       slab_scheme_with(SLAB_SCHEME_BASELINE) ?: "none", "groups x loops");
	for (int si = 0; si < ns && si < 16; si++)
		printk(" %20s", bench_scheme(si));
	printk("\n");
	for (unsigned row = 0; row < nr_rows; row++) {
		printk("%6u x %-7u", rows[row], loops);
		for (int si = 0; si < ns && si < 16; si++) {
			if (lock >= 0 && si != lock)
				printk(" %10s (%6s%%)", bench_fmt(a, sizeof(a), st[row][si].median),
				       bench_fmt_signed(b, sizeof(b),
							bench_change_pct(st[row][lock].median,
									 st[row][si].median)));
			else
				printk(" %10s          ", bench_fmt(a, sizeof(a), st[row][si].median));
			if (row == 0)
				bench_headline("hackbench", bench_scheme(si), "time, largest row",
					       st[row][si].median, "ms");
		}
		printk("\n");
	}
	kfree(samples);
}

static const struct bench hackbench_bench = {
	.name = "hackbench",
	.what = "hackbench as in Lameter 2011: groups of 20 senders and 20 receivers, messages "
		"freed on other CPUs",
	.run = run_hackbench,
	.order = 40,
};
bench_register(hackbench_bench);
