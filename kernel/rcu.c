// SPDX-License-Identifier: MIT
/*
 * Read-copy update (kernel/rcu.h): grace periods from per-cpu quiescent states, asked for
 * by IPI, per-cpu callback lists. docs/rcu.md has the design: the state below, who writes
 * what, which barriers pair, and why no reader is missed; tools/model/rcu.pml checks it.
 *
 * Grace period n is in progress while gp_num == n > gp_done. Whoever starts it (under
 * rcu_state.lock, only when none is in progress and someone asked for one: gp_req > gp_num)
 * sets pending to the number of online CPUs, then publishes gp_num = n and sends every other
 * CPU the RCU IPI. Each CPU reports once for n, at a point where it is in no reader
 * (rcu_nesting == 0), by setting its qs_gp = n and decrementing pending; the report that
 * takes pending to 0 ends n (gp_done = n), wakes the CPUs waiting for n and starts n + 1 if
 * asked for. A CPU inside a reader when the IPI comes sets rcu_qs_deferred and its outermost
 * rcu_read_unlock reports.
 */
#include "kernel/irqflags.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define RCU_SEGS 4                  /* callback segments a CPU keeps apart by grace period */
#define RCU_WAIT_POLL_NS 100000000ULL /* a halted wait looks at the time this often (stalls) */
#define RCU_STALL_MS_DEFAULT 10000
#define RCU_STALL_NAMES 16          /* CPUs a stall report names one by one */

enum qs_from { QS_POINT, QS_IPI, QS_UNLOCK, QS_IDLE };

/* Callbacks queued for grace period gp: the list from the previous segment's tail to tail. */
struct rcu_seg {
	struct rcu_head **tail;
	unsigned long gp;
};

struct rcu_data {
	/* this CPU only, interrupts off */
	unsigned long qs_gp;         /* the last grace period this CPU reported for */
	struct rcu_head *head;       /* callbacks, oldest first */
	struct rcu_head **tail;      /* &last->next, or &head; NULL before first use */
	struct rcu_seg seg[RCU_SEGS];
	int nseg;
	long ncbs;                   /* callbacks on the list (not yet taken to run) */
	unsigned long sync_gp;       /* a wait on this CPU needs this grace period (0: none) */
	int in_callbacks;            /* run_callbacks is running them (no recursion) */
	/* read by other CPUs */
	unsigned long wake_gp;       /* send me a wake-up when this grace period ends (0: none) */
	struct rcu_cpu_stats stats;
};

static DEFINE_PER_CPU(struct rcu_data, rcu_data);
DEFINE_PER_CPU(int, rcu_nesting);
DEFINE_PER_CPU(int, rcu_qs_deferred);

static struct {
	unsigned long gp_num;  /* the last grace period started */
	unsigned long gp_done; /* the last one ended */
	unsigned long gp_req;  /* the highest one anyone needs */
	int pending;           /* CPUs yet to report for gp_num */
	struct spinlock lock;  /* starts a grace period */
	u64 gp_start_tsc;      /* when gp_num started */
	u64 stall_next_tsc;    /* when gp_num is reported stalled next */
	u64 stall_ms;
	struct rcu_stats stats;
} rcu_state __cacheline_aligned = {
	.lock = SPINLOCK_INIT("rcu_state.lock"),
	.stall_ms = RCU_STALL_MS_DEFAULT,
	.stats = { .last_stalled_cpu = -1 },
};

static void rcu_ipi(void);
smp_ipi_handler(rcu_ipi_handler, "rcu", rcu_ipi);

static unsigned long load(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static bool gp_in_progress(void)
{
	return load(&rcu_state.gp_num) != load(&rcu_state.gp_done);
}

/* ---- callback lists (this CPU, interrupts off) ---- */

static void cb_enqueue(struct rcu_data *rd, struct rcu_head *h, unsigned long gp)
{
	if (!rd->tail)
		rd->tail = &rd->head;
	h->next = NULL;
	*rd->tail = h;
	rd->tail = &h->next;
	rd->ncbs++;
	/* Same grace period as the last segment: it grows. No segment left: the last one takes
	 * the later grace period for all of its callbacks (they wait longer, never too little). */
	if (rd->nseg && (rd->seg[rd->nseg - 1].gp == gp || rd->nseg == RCU_SEGS)) {
		rd->seg[rd->nseg - 1].tail = rd->tail;
		rd->seg[rd->nseg - 1].gp = MAX(rd->seg[rd->nseg - 1].gp, gp);
		return;
	}
	rd->seg[rd->nseg].tail = rd->tail;
	rd->seg[rd->nseg].gp = gp;
	rd->nseg++;
}

/* Detach the callbacks whose grace period has ended (gp <= done), oldest first. */
static struct rcu_head *cb_take_ready(struct rcu_data *rd, unsigned long done, long *n)
{
	struct rcu_head *list;
	struct rcu_head **end;
	int k = 0;

	*n = 0;
	while (k < rd->nseg && rd->seg[k].gp <= done)
		k++;
	if (!k)
		return NULL;
	end = rd->seg[k - 1].tail;
	list = rd->head;
	rd->head = *end;
	*end = NULL;
	if (rd->tail == end)
		rd->tail = &rd->head;
	for (struct rcu_head *h = list; h; h = h->next)
		(*n)++;
	rd->ncbs -= *n; /* taken to run: rcu_barrier looks at in_callbacks for these */
	for (int i = k; i < rd->nseg; i++)
		rd->seg[i - k] = rd->seg[i];
	rd->nseg -= k;
	return list;
}

/*
 * wake_gp: the grace period whose end this CPU wants to hear about, the earliest of its
 * callbacks' and its wait's. Seq-cst store, then the caller looks at gp_done; the ender
 * stores gp_done, then looks at wake_gp: one of the two sees the other.
 */
static void update_wake(struct rcu_data *rd)
{
	unsigned long w = rd->nseg ? rd->seg[0].gp : 0;

	if (rd->sync_gp && (!w || rd->sync_gp < w))
		w = rd->sync_gp;
	__atomic_store_n(&rd->wake_gp, w, __ATOMIC_SEQ_CST);
}

/* ---- grace periods (interrupts off) ---- */

static bool gp_try_start(void)
{
	unsigned long n;
	int me = smp_processor_id();

	if (gp_in_progress() || load(&rcu_state.gp_req) <= load(&rcu_state.gp_num))
		return false;
	spin_lock(&rcu_state.lock);
	n = rcu_state.gp_num;
	if (n != load(&rcu_state.gp_done) || load(&rcu_state.gp_req) <= n) {
		spin_unlock(&rcu_state.lock);
		return false;
	}
	rcu_state.pending = nr_cpu_ids;
	rcu_state.gp_start_tsc = get_cycles();
	__atomic_store_n(&rcu_state.stall_next_tsc,
			 rcu_state.gp_start_tsc + ns_to_cycles(READ_ONCE(rcu_state.stall_ms) * 1000000),
			 __ATOMIC_RELAXED);
	rcu_state.stats.gp_started++;
	/* Seq-cst: pending and the rest are seen by whoever sees gp_num = n + 1. */
	__atomic_store_n(&rcu_state.gp_num, n + 1, __ATOMIC_SEQ_CST);
	spin_unlock(&rcu_state.lock);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu == me)
			continue;
		smp_send_ipi(cpu, &rcu_ipi_handler);
		__atomic_fetch_add(&rcu_state.stats.ipis_sent, 1, __ATOMIC_RELAXED);
	}
	return true;
}

/* The last report for n: end it, wake who waits for it, start the next if wanted. */
static bool gp_end(unsigned long n)
{
	u64 c = get_cycles() - rcu_state.gp_start_tsc;
	int me = smp_processor_id();

	rcu_state.stats.gp_cycles_total += c;
	if (c > rcu_state.stats.gp_cycles_max)
		rcu_state.stats.gp_cycles_max = c;
	rcu_state.stats.gp_completed++;
	__atomic_store_n(&rcu_state.gp_done, n, __ATOMIC_SEQ_CST);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		unsigned long w = load(&per_cpu(rcu_data, cpu).wake_gp);

		if (cpu != me && w && w <= n)
			smp_send_reschedule(cpu);
	}
	return gp_try_start();
}

/* This CPU is in no reader (rcu_nesting == 0 in this context): report for the current gp. */
static void report_qs(enum qs_from from)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	WRITE_ONCE(this_cpu(rcu_qs_deferred), 0);
	for (;;) {
		unsigned long n = load(&rcu_state.gp_num);

		if (n == load(&rcu_state.gp_done) || rd->qs_gp >= n)
			return;
		rd->qs_gp = n;
		rd->stats.qs_reported++;
		if (from == QS_IPI)
			rd->stats.qs_from_ipi++;
		else if (from == QS_UNLOCK)
			rd->stats.qs_from_unlock++;
		else if (from == QS_IDLE)
			rd->stats.qs_from_idle++;
		/* Seq-cst (a locked instruction): this CPU's readers' loads are done before. */
		if (__atomic_sub_fetch(&rcu_state.pending, 1, __ATOMIC_SEQ_CST))
			return;
		if (!gp_end(n))
			return;
		/* It started n + 1: this CPU is still in no reader, so report for that too. */
	}
}

/* From any context but NMI: report if in no reader, else leave it to the outermost unlock. */
static void self_qs(enum qs_from from)
{
	if (!this_cpu(rcu_nesting))
		report_qs(from);
	else if (gp_in_progress() && this_cpu_ptr(&rcu_data)->qs_gp < load(&rcu_state.gp_num))
		WRITE_ONCE(this_cpu(rcu_qs_deferred), 1);
}

static void gp_request(unsigned long gp)
{
	unsigned long old = load(&rcu_state.gp_req);

	while (old < gp && !__atomic_compare_exchange_n(&rcu_state.gp_req, &old, gp, false,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	gp_try_start();
}

static void rcu_ipi(void)
{
	self_qs(QS_IPI);
}

void rcu_read_unlock_special(void)
{
	unsigned long flags;

	if (in_nmi())
		return; /* the code the NMI interrupted reports: it looks at the flag next */
	local_irq_save(flags);
	if (!this_cpu(rcu_nesting) && READ_ONCE(this_cpu(rcu_qs_deferred)))
		report_qs(QS_UNLOCK);
	local_irq_restore(flags);
}

/* ---- the public calls ---- */

static void must_be_outside_readers(const char *what)
{
	if (in_nmi())
		panic("%s on cpu %d in NMI context", what, smp_processor_id());
	if (in_irq_context())
		panic("%s on cpu %d in an interrupt handler: it waits for a grace period",
		      what, smp_processor_id());
	if (this_cpu(rcu_nesting))
		panic("%s on cpu %d inside rcu_read_lock (nesting %d): the grace period would "
		      "wait for its own caller", what, smp_processor_id(), this_cpu(rcu_nesting));
}

unsigned long get_state_synchronize_rcu(void)
{
	/* A read-modify-write (a full barrier; x86: lock xadd) rather than a load: the
	 * caller's updates (the pointer it unpublished) are seen by every CPU that reports for
	 * a grace period started after the gp_num read here. */
	return __atomic_fetch_add(&rcu_state.gp_num, 0, __ATOMIC_SEQ_CST) + 1;
}

unsigned long start_poll_synchronize_rcu(void)
{
	unsigned long flags, cookie;

	local_irq_save(flags);
	cookie = get_state_synchronize_rcu();
	gp_request(cookie);
	self_qs(QS_POINT);
	local_irq_restore(flags);
	return cookie;
}

bool poll_state_synchronize_rcu(unsigned long cookie)
{
	return __atomic_load_n(&rcu_state.gp_done, __ATOMIC_ACQUIRE) >= cookie;
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rd;
	unsigned long flags, gp;

	if (in_nmi())
		panic("call_rcu on cpu %d in NMI context: not NMI-safe (queue an irq_work that "
		      "calls it)", smp_processor_id());
	head->func = func;
	local_irq_save(flags);
	rd = this_cpu_ptr(&rcu_data);
	gp = get_state_synchronize_rcu();
	cb_enqueue(rd, head, gp);
	rd->stats.cbs_queued++;
	update_wake(rd);
	gp_request(rd->seg[rd->nseg - 1].gp);
	self_qs(QS_POINT);
	local_irq_restore(flags);
}

/* Run this CPU's callbacks whose grace period has ended; interrupts on, in no reader. */
static void run_callbacks(void)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (rd->in_callbacks)
		return; /* a callback's own wait: the outer loop runs the rest */
	rd->in_callbacks = 1;
	for (;;) {
		unsigned long flags;
		struct rcu_head *list;
		long n;

		local_irq_save(flags);
		list = cb_take_ready(rd, __atomic_load_n(&rcu_state.gp_done, __ATOMIC_ACQUIRE), &n);
		update_wake(rd);
		local_irq_restore(flags);
		if (!list)
			break;
		while (list) {
			struct rcu_head *next = list->next;

			list->func(list);
			list = next;
		}
		WRITE_ONCE(rd->stats.cbs_invoked, rd->stats.cbs_invoked + (u64)n);
	}
	rd->in_callbacks = 0;
}

static void (*quiescent_hook)(void);

void rcu_set_quiescent_hook(void (*fn)(void))
{
	__atomic_store_n(&quiescent_hook, fn, __ATOMIC_RELEASE); /* after what fn reads */
}

static void call_quiescent_hook(void)
{
	void (*fn)(void) = __atomic_load_n(&quiescent_hook, __ATOMIC_ACQUIRE);

	if (fn)
		fn();
}

void rcu_quiescent_state(void)
{
	unsigned long flags;

	must_be_outside_readers("rcu_quiescent_state");
	call_quiescent_hook();
	local_irq_save(flags);
	report_qs(QS_POINT);
	local_irq_restore(flags);
	run_callbacks();
}

bool rcu_idle_enter(void)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (this_cpu(rcu_nesting))
		panic("cpu %d went idle inside rcu_read_lock (nesting %d)", smp_processor_id(),
		      this_cpu(rcu_nesting));
	call_quiescent_hook();
	report_qs(QS_IDLE);
	return rd->nseg && rd->seg[0].gp <= __atomic_load_n(&rcu_state.gp_done, __ATOMIC_ACQUIRE);
}

/* ---- stalls ---- */

void rcu_set_stall_timeout_ms(u64 ms)
{
	WRITE_ONCE(rcu_state.stall_ms, ms ? ms : RCU_STALL_MS_DEFAULT);
	/* A grace period already under way is judged by the new timeout from now on. */
	__atomic_store_n(&rcu_state.stall_next_tsc,
			 READ_ONCE(rcu_state.gp_start_tsc) + ns_to_cycles(READ_ONCE(rcu_state.stall_ms) * 1000000),
			 __ATOMIC_RELAXED);
}

u64 rcu_stall_timeout_ms(void)
{
	return READ_ONCE(rcu_state.stall_ms);
}

/* Where a stalled CPU is, asked by NMI (kernel/nmi.c); an arch without NMIs has none. */
__attribute__((weak)) bool rcu_stall_where(int cpu, char *buf, size_t len)
{
	return false;
}

/* From a waiter, interrupts off: is the grace period in progress older than the timeout? */
static void check_stall(void)
{
	unsigned long n = load(&rcu_state.gp_num);
	u64 next = __atomic_load_n(&rcu_state.stall_next_tsc, __ATOMIC_RELAXED), now = get_cycles();
	char line[512], where[128];
	size_t len;
	int named = 0, more = 0, first = -1;

	if (n == load(&rcu_state.gp_done) || now < next)
		return;
	/* One report per timeout, by whichever waiter gets here first. */
	if (!__atomic_compare_exchange_n(&rcu_state.stall_next_tsc, &next,
					 now + ns_to_cycles(READ_ONCE(rcu_state.stall_ms) * 1000000),
					 false, __ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
	    load(&rcu_state.gp_num) != n)
		return;
	len = (size_t)snprintf(line, sizeof(line),
			       "rcu: grace period %lu stalled for %llu ms (rcu stall timeout %llu ms); "
			       "waiting for", n,
			       (unsigned long long)((now - READ_ONCE(rcu_state.gp_start_tsc)) / ns_to_cycles(1000000)),
			       (unsigned long long)READ_ONCE(rcu_state.stall_ms));
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int nesting;

		if (READ_ONCE(per_cpu(rcu_data, cpu).qs_gp) >= n)
			continue;
		if (first < 0)
			first = cpu;
		if (named == RCU_STALL_NAMES) {
			more++;
			continue;
		}
		named++;
		nesting = READ_ONCE(per_cpu(rcu_nesting, cpu));
		if (nesting)
			len += (size_t)snprintf(line + MIN(len, sizeof(line)), sizeof(line) - MIN(len, sizeof(line)),
						" cpu %d (inside rcu_read_lock, nesting %d)", cpu, nesting);
		else
			len += (size_t)snprintf(line + MIN(len, sizeof(line)), sizeof(line) - MIN(len, sizeof(line)),
						" cpu %d (in no reader, yet no report: interrupts off?)", cpu);
	}
	if (more)
		len += (size_t)snprintf(line + MIN(len, sizeof(line)), sizeof(line) - MIN(len, sizeof(line)),
					" and %d more", more);
	printk("%s\n", line);
	if (first >= 0 && first != smp_processor_id() && rcu_stall_where(first, where, sizeof(where)))
		printk("rcu: cpu %d is at %s\n", first, where);
	rcu_state.stats.last_stalled_cpu = first;
	rcu_state.stats.last_stalled_gp = n;
	__atomic_fetch_add(&rcu_state.stats.stalls_reported, 1, __ATOMIC_RELEASE);
}

/* ---- waiting ---- */

/*
 * Wait, passing quiescent states and running this CPU's callbacks, halted in between, until
 * grace period gp has ended (gp != 0) or *counter is 0 (counter != NULL); whoever ends the
 * one or zeroes the other sends this CPU a wake-up. The halt also ends every
 * RCU_WAIT_POLL_NS, so a stall is reported rather than slept through.
 */
static void rcu_wait(unsigned long gp, int *counter)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);
	unsigned long saved_sync;

	local_irq_disable();
	saved_sync = rd->sync_gp;
	if (gp && (!rd->sync_gp || gp < rd->sync_gp))
		rd->sync_gp = gp;
	update_wake(rd);
	for (;;) {
		report_qs(QS_POINT);
		if ((!gp || load(&rcu_state.gp_done) >= gp) &&
		    (!counter || !__atomic_load_n(counter, __ATOMIC_ACQUIRE)))
			break;
		if (!rd->in_callbacks && rd->nseg && rd->seg[0].gp <= load(&rcu_state.gp_done)) {
			local_irq_enable();
			run_callbacks();
			local_irq_disable();
			continue;
		}
		check_stall();
		arch_idle_timeout(RCU_WAIT_POLL_NS); /* interrupts on when it returns */
		local_irq_disable();
	}
	rd->sync_gp = saved_sync;
	update_wake(rd);
	local_irq_enable();
	run_callbacks();
}

void synchronize_rcu(void)
{
	must_be_outside_readers("synchronize_rcu");
	rcu_wait(start_poll_synchronize_rcu(), NULL);
}

static DEFINE_PER_CPU(struct rcu_head, barrier_head);
static DEFINE_SPINLOCK(barrier_lock);
static int barrier_count;
static int barrier_waiter;

static void barrier_cb(struct rcu_head *h)
{
	int waiter = READ_ONCE(barrier_waiter);

	if (__atomic_sub_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == 0 &&
	    waiter != smp_processor_id())
		smp_send_reschedule(waiter);
}

/* On each CPU (a cross-call): a callback behind every callback queued there so far. */
static void barrier_queue(void *unused)
{
	struct rcu_data *rd = this_cpu_ptr(&rcu_data);

	if (!rd->ncbs && !rd->in_callbacks)
		return;
	__atomic_fetch_add(&barrier_count, 1, __ATOMIC_ACQ_REL);
	call_rcu(this_cpu_ptr(&barrier_head), barrier_cb);
}

void rcu_barrier(void)
{
	must_be_outside_readers("rcu_barrier");
	/* One barrier at a time; a CPU waiting for its turn keeps running its callbacks, which
	 * the barrier under way may be waiting for. */
	while (!spin_trylock(&barrier_lock)) {
		rcu_quiescent_state();
		local_irq_disable();
		arch_idle_timeout(1000000);
	}
	__atomic_store_n(&barrier_count, 1, __ATOMIC_SEQ_CST);
	WRITE_ONCE(barrier_waiter, smp_processor_id());
	on_each_cpu(barrier_queue, NULL, 1);
	__atomic_sub_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL);
	rcu_wait(0, &barrier_count);
	spin_unlock(&barrier_lock);
}

/* ---- statistics ---- */

void rcu_stats_get(struct rcu_stats *out)
{
	out->gp_started = READ_ONCE(rcu_state.stats.gp_started);
	out->gp_completed = READ_ONCE(rcu_state.stats.gp_completed);
	out->gp_cycles_total = READ_ONCE(rcu_state.stats.gp_cycles_total);
	out->gp_cycles_max = READ_ONCE(rcu_state.stats.gp_cycles_max);
	out->ipis_sent = __atomic_load_n(&rcu_state.stats.ipis_sent, __ATOMIC_RELAXED);
	out->stalls_reported = __atomic_load_n(&rcu_state.stats.stalls_reported, __ATOMIC_ACQUIRE);
	out->last_stalled_cpu = READ_ONCE(rcu_state.stats.last_stalled_cpu);
	out->last_stalled_gp = READ_ONCE(rcu_state.stats.last_stalled_gp);
}

void rcu_cpu_stats_get(int cpu, struct rcu_cpu_stats *out)
{
	const struct rcu_data *rd = per_cpu_ptr(&rcu_data, cpu);

	out->qs_reported = READ_ONCE(rd->stats.qs_reported);
	out->qs_from_ipi = READ_ONCE(rd->stats.qs_from_ipi);
	out->qs_from_unlock = READ_ONCE(rd->stats.qs_from_unlock);
	out->qs_from_idle = READ_ONCE(rd->stats.qs_from_idle);
	out->cbs_queued = READ_ONCE(rd->stats.cbs_queued);
	out->cbs_invoked = READ_ONCE(rd->stats.cbs_invoked);
	out->cbs_waiting = READ_ONCE(rd->ncbs);
}
