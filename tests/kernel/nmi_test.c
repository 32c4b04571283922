// SPDX-License-Identifier: MIT
/*
 * NMIs (kernel/nmi.h): a probe lands in the function a CPU spins in and runs its callback
 * there; NMIs that land while their CPU holds a spinlock, the console's included, do not
 * deadlock when the callback does only NMI-safe work (printk among it); storms of NMIs at
 * every CPU; a second NMI waits for the first one's IRET, and one let in early by an IRET
 * inside the handler is latched, not nested; an NMI nobody sent is reported and the CPU
 * goes on; a reader in an NMI holds a grace period up.
 *
 * Callbacks run in NMI context: they only record, and the cases check afterwards.
 */
#include "kernel/irq_work.h"
#include "kernel/irqflags.h"
#include "kernel/kallsyms.h"
#include "kernel/kunit.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/slab.h"

#define DEADLINE_NS 20000000000ULL /* bounds every wait here: a bug fails, never hangs */
#define PROBE_NS 10000000000ULL

static u64 deadline(u64 ns)
{
	return get_cycles() + ns_to_cycles(ns);
}

static int stop_spinning;

/* Where the target spins: its own function, so its range is known by symbol. */
static void __noinline nmi_test_spin(void)
{
	u64 end = deadline(DEADLINE_NS);

	while (!__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE) && get_cycles() < end)
		cpu_relax();
}

/* A short stretch of spinning, for the storm's watch window. */
static void __noinline nmi_test_spin_once(void)
{
	for (int i = 0; i < 5000; i++)
		cpu_relax();
}

struct landing {
	u64 start, end;
	int cpu;        /* the CPU the callback ran on */
	int in_nmi;     /* in_nmi() was true there */
	int irqs_off;
	u64 ip;
};

static bool record_landing(const struct nmi_frame *f, void *arg)
{
	struct landing *l = arg;

	l->cpu = smp_processor_id();
	l->in_nmi = in_nmi();
	l->irqs_off = irqs_disabled();
	l->ip = f->ip;
	return f->ip >= l->start && f->ip < l->end;
}

struct probe_case {
	struct nmi_probe p;
	struct landing l;
	int rc;
	int target;
};

static void spin_or_probe(struct kunit *test, void *arg)
{
	struct probe_case *pc = arg;

	if (smp_processor_id() == pc->target) {
		nmi_test_spin();
	} else if (smp_processor_id() == 0) {
		pc->rc = nmi_probe_cpu(pc->target, &pc->p, 3, PROBE_NS);
		__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	}
}

static void probe_lands_in_spinning_function(struct kunit *test)
{
	struct probe_case pc = { .target = nr_cpu_ids - 1 };
	struct nmi_stats before, after;
	u64 s2, e2;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	KUNIT_ASSERT_TRUE(test, nmi_code_range(nmi_test_spin, &pc.l.start, &pc.l.end));
	KUNIT_ASSERT_TRUE(test, nmi_code_range_by_name("nmi_test_spin", &s2, &e2));
	KUNIT_EXPECT_EQ(test, s2, pc.l.start);
	KUNIT_EXPECT_EQ(test, e2, pc.l.end);
	KUNIT_EXPECT_GT(test, pc.l.end, pc.l.start);
	pc.p.start = pc.l.start;
	pc.p.end = pc.l.end;
	pc.p.fn = record_landing;
	pc.p.arg = &pc.l;
	nmi_stats_get(pc.target, &before);
	stop_spinning = 0;
	kunit_run_on_all_cpus(test, spin_or_probe, &pc);
	nmi_stats_get(pc.target, &after);
	KUNIT_EXPECT_EQ(test, pc.rc, 0);
	KUNIT_EXPECT_EQ(test, pc.p.hits, 3);
	KUNIT_EXPECT_GE(test, pc.p.in_range, 3);
	KUNIT_EXPECT_GE(test, pc.p.sent, pc.p.landed);
	KUNIT_EXPECT_EQ(test, pc.l.cpu, pc.target);
	KUNIT_EXPECT_TRUE(test, pc.l.in_nmi);
	KUNIT_EXPECT_TRUE(test, pc.l.irqs_off);
	KUNIT_EXPECT_TRUE_MSG(test, pc.l.ip >= pc.l.start && pc.l.ip < pc.l.end,
			      "landed at %#llx, not in nmi_test_spin [%#llx, %#llx)",
			      (unsigned long long)pc.l.ip, (unsigned long long)pc.l.start,
			      (unsigned long long)pc.l.end);
	KUNIT_EXPECT_GE(test, after.probe_in_range - before.probe_in_range, 3);
	KUNIT_EXPECT_EQ(test, after.probe_hits - before.probe_hits, 3);
	KUNIT_EXPECT_GE(test, after.ours - before.ours, 1);
	KUNIT_EXPECT_EQ(test, after.unknown, before.unknown);
	KUNIT_EXPECT_FALSE(test, in_nmi());
	/* Probes are refused where they cannot work. */
	KUNIT_EXPECT_EQ(test, nmi_probe_cpu(smp_processor_id(), &pc.p, 1, 1000), -1);
	KUNIT_EXPECT_EQ(test, nmi_probe_cpu(nr_cpu_ids, &pc.p, 1, 1000), -1);
	kunit_info(test, "cpu %d: %llu NMIs sent, %llu landed, %llu in nmi_test_spin", pc.target,
		   (unsigned long long)pc.p.sent, (unsigned long long)pc.p.landed,
		   (unsigned long long)pc.p.in_range);
}

/*
 * The target takes a spinlock over and over, with interrupts off; the callback counts the
 * landings where the target holds it and does NMI-safe work there: atomics and a printk.
 * Then the same against the console's own lock: the target prints, and NMIs must land in
 * serial_write (which runs only under the console lock) and printk there. printk taking
 * the console lock in NMI context would find its own CPU holding it (a panic for recursion,
 * or a deadlock with another CPU's lock).
 */
static DEFINE_SPINLOCK(nmi_test_lock);
static int held_landings, nmi_printks;

static bool while_holding(const struct nmi_frame *f, void *arg)
{
	if (!spin_held_by_me(&nmi_test_lock))
		return false;
	__atomic_fetch_add(&held_landings, 1, __ATOMIC_RELAXED);
	printk("    # nmi test: an NMI on cpu %d while it holds %s\n", smp_processor_id(),
	       nmi_test_lock.name);
	return true;
}

static bool in_console(const struct nmi_frame *f, void *arg)
{
	__atomic_fetch_add(&nmi_printks, 1, __ATOMIC_RELAXED);
	printk("    # nmi test: printk from an NMI that landed in serial_write on cpu %d\n",
	       smp_processor_id());
	return true;
}

struct lock_case {
	struct nmi_probe p;
	int rc;
	int target;
	int printer;   /* the target prints (console lock) rather than takes nmi_test_lock */
	u64 rounds;
};

static void lock_roles(struct kunit *test, void *arg)
{
	struct lock_case *lc = arg;
	u64 end = deadline(DEADLINE_NS);

	if (smp_processor_id() == lc->target) {
		while (!__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE) && get_cycles() < end) {
			unsigned long flags;

			if (lc->printer) {
				printk("    # nmi test: cpu %d prints, round %llu\n",
				       smp_processor_id(), (unsigned long long)lc->rounds);
			} else {
				spin_lock_irqsave(&nmi_test_lock, flags);
				for (int i = 0; i < 200; i++)
					cpu_relax();
				spin_unlock_irqrestore(&nmi_test_lock, flags);
			}
			lc->rounds++;
		}
	} else if (smp_processor_id() == 0) {
		lc->rc = nmi_probe_cpu(lc->target, &lc->p, lc->printer ? 2 : 5, PROBE_NS);
		__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	}
}

static void nmi_in_spinlock_sections_does_not_deadlock(struct kunit *test)
{
	struct lock_case lc = { .target = 1, .p.fn = while_holding };
	u64 start, end;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	held_landings = 0;
	stop_spinning = 0;
	kunit_run_on_all_cpus(test, lock_roles, &lc);
	KUNIT_EXPECT_EQ(test, lc.rc, 0);
	KUNIT_EXPECT_EQ(test, held_landings, 5);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&nmi_test_lock));

	KUNIT_ASSERT_TRUE(test, nmi_code_range_by_name("serial_write", &start, &end));
	lc = (struct lock_case){ .target = 1, .printer = 1, .p.fn = in_console,
				 .p.start = start, .p.end = end };
	nmi_printks = 0;
	stop_spinning = 0;
	kunit_run_on_all_cpus(test, lock_roles, &lc);
	KUNIT_EXPECT_EQ_MSG(test, lc.rc, 0, "no NMI landed in serial_write in %llu s (%llu lines printed)",
			    PROBE_NS / 1000000000ULL, (unsigned long long)lc.rounds);
	KUNIT_EXPECT_EQ(test, nmi_printks, 2);
	kunit_info(test, "%llu landings, %llu in serial_write, target printed %llu lines",
		   (unsigned long long)lc.p.landed, (unsigned long long)lc.p.in_range,
		   (unsigned long long)lc.rounds);
}

/* ---- storms ---- */

#define STORM_NMIS (nr_cpu_ids <= 8 ? 200 : MAX(8, 1600 / nr_cpu_ids))

struct storm {
	int senders_done;
};

/* Every CPU spins where the watch window counts, and sends its neighbour NMIs. */
static void storm_fn(struct kunit *test, void *arg)
{
	struct storm *st = arg;
	int next = (smp_processor_id() + 1) % nr_cpu_ids;
	u64 end = deadline(DEADLINE_NS);

	for (int i = 0; i < STORM_NMIS; i++) {
		nmi_send(next);
		nmi_test_spin_once();
	}
	__atomic_fetch_add(&st->senders_done, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&st->senders_done, __ATOMIC_ACQUIRE) < nr_cpu_ids &&
	       get_cycles() < end)
		nmi_test_spin_once();
}

static void storm_at_every_cpu(struct kunit *test)
{
	struct storm st = { 0 };
	struct nmi_stats *before;
	u64 start, end, total = 0, watched = 0, sent = 0;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	before = kcalloc((size_t)nr_cpu_ids, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_TRUE(test, nmi_code_range(nmi_test_spin_once, &start, &end));
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		nmi_stats_get(cpu, &before[cpu]);
	nmi_watch_range(start, end);
	kunit_run_on_all_cpus(test, storm_fn, &st);
	nmi_watch_range(0, 0);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct nmi_stats s;
		u64 wait = deadline(DEADLINE_NS);

		/* The last one sent may still be on its way (its CPU halted meanwhile). */
		do
			nmi_stats_get(cpu, &s);
		while (s.ours - before[cpu].ours != s.sent - before[cpu].sent && get_cycles() < wait);
		total += s.received - before[cpu].received;
		watched += s.watch_hits - before[cpu].watch_hits;
		sent += s.sent - before[cpu].sent;
		KUNIT_EXPECT_GE_MSG(test, s.sent - before[cpu].sent, 1, "none sent to cpu %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, s.ours - before[cpu].ours, s.sent - before[cpu].sent,
				    "cpu %d: slablab's NMIs taken and sent differ", cpu);
		KUNIT_EXPECT_EQ_MSG(test, s.unknown, before[cpu].unknown,
				    "cpu %d counted slablab's NMIs as unknown", cpu);
	}
	/* The CPUs spend nearly all their time in nmi_test_spin_once: the window counts. */
	KUNIT_EXPECT_GE(test, watched, 1);
	kunit_info(test, "%d cpus, %d tries each: %llu NMIs sent (one outstanding per target "
		   "at most), %llu taken, %llu of them in nmi_test_spin_once", nr_cpu_ids,
		   STORM_NMIS, (unsigned long long)sent, (unsigned long long)total,
		   (unsigned long long)watched);
	kfree(before);
}

/* ---- nesting ---- */

struct nest {
	int cpu;
	int armed;
	int calls;        /* handler runs for the armed cpu */
	int depth, max_depth;
	int in_first;     /* the first run is waiting */
	int second_sent;
	int iret;         /* the first run executes an IRET before it waits */
	u64 received_in_first;  /* the cpu's received count, first look and last look */
	u64 received_at_end;
	u64 latched_in_first, latched_at_end;
	int first_done;
};

static bool nest_handler(const struct nmi_frame *f, void *arg)
{
	struct nest *n = arg;
	struct nmi_stats s;
	u64 end;

	if (!READ_ONCE(n->armed) || smp_processor_id() != n->cpu)
		return false;
	n->depth++;
	n->max_depth = MAX(n->max_depth, n->depth);
	if (n->calls++ == 0) {
		nmi_stats_get(n->cpu, &s);
		n->received_in_first = s.received;
		n->latched_in_first = s.latched;
		if (n->iret)
			nmi_iret_for_test(); /* from here on the CPU lets the next NMI in */
		__atomic_store_n(&n->in_first, 1, __ATOMIC_RELEASE);
		end = deadline(DEADLINE_NS);
		while (!__atomic_load_n(&n->second_sent, __ATOMIC_ACQUIRE) && get_cycles() < end)
			cpu_relax();
		end = deadline(20000000); /* 20 ms for the second NMI to arrive if it can */
		while (get_cycles() < end)
			cpu_relax();
		nmi_stats_get(n->cpu, &s);
		n->received_at_end = s.received;
		n->latched_at_end = s.latched;
		__atomic_store_n(&n->first_done, 1, __ATOMIC_RELEASE);
	}
	n->depth--;
	return true;
}

static void run_nest(struct kunit *test, struct nest *n)
{
	struct nmi_handler h = { .name = "nest-test", .fn = nest_handler, .arg = n };
	struct nmi_stats before, after;
	u64 end;

	KUNIT_ASSERT_EQ(test, nmi_handler_register(&h), 0);
	nmi_stats_get(n->cpu, &before);
	WRITE_ONCE(n->armed, 1);
	nmi_send(n->cpu);
	end = deadline(DEADLINE_NS);
	while (!__atomic_load_n(&n->in_first, __ATOMIC_ACQUIRE) && get_cycles() < end)
		cpu_relax();
	KUNIT_EXPECT_TRUE(test, READ_ONCE(n->in_first));
	nmi_send(n->cpu); /* while the first is in its handler */
	__atomic_store_n(&n->second_sent, 1, __ATOMIC_RELEASE);
	end = deadline(DEADLINE_NS);
	while ((!__atomic_load_n(&n->first_done, __ATOMIC_ACQUIRE) || READ_ONCE(n->calls) < 2) &&
	       get_cycles() < end)
		cpu_relax();
	WRITE_ONCE(n->armed, 0);
	nmi_handler_unregister(&h);
	nmi_stats_get(n->cpu, &after);
	KUNIT_EXPECT_EQ_MSG(test, n->calls, 2, "the handler ran %d times for 2 NMIs", n->calls);
	KUNIT_EXPECT_EQ_MSG(test, n->max_depth, 1, "the handler ran nested in itself");
	KUNIT_EXPECT_GE(test, h.claimed, 2);
	KUNIT_EXPECT_EQ(test, after.unknown, before.unknown);
	/* received counts each run of the handler: the second run came after the first's end */
	KUNIT_EXPECT_EQ(test, n->received_at_end, n->received_in_first);
	KUNIT_EXPECT_EQ(test, after.received - before.received, 2);
	KUNIT_EXPECT_EQ(test, after.latched - before.latched, n->iret ? 1 : 0);
	KUNIT_EXPECT_EQ(test, n->latched_at_end - n->latched_in_first, n->iret ? 1 : 0);
}

static void nested_nmi_waits_for_iret(struct kunit *test)
{
	struct nest n = { .cpu = nr_cpu_ids - 1 };

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	run_nest(test, &n);
}

static void iret_inside_handler_latches_next_nmi(struct kunit *test)
{
	struct nest n = { .cpu = nr_cpu_ids - 1, .iret = 1 };

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	run_nest(test, &n);
}

/* ---- NMIs nobody sent ---- */

static void flush_here(void *arg)
{
	printk_flush();
	*(int *)arg = printk_nmi_pending();
}

static void unasked_nmi_is_reported_and_cpu_goes_on(struct kunit *test)
{
	int target = nr_cpu_ids - 1;
	struct nmi_stats before, after;
	u64 end, runs = irq_work_runs(target);
	int pending = -1;

	nmi_stats_get(target, &before);
	nmi_send_unasked(target); /* this CPU too when it is the only one */
	end = deadline(DEADLINE_NS);
	do {
		cpu_relax();
		nmi_stats_get(target, &after);
	} while (after.unknown == before.unknown && get_cycles() < end);
	KUNIT_EXPECT_EQ(test, after.unknown - before.unknown, 1);
	KUNIT_EXPECT_EQ(test, after.ours, before.ours);
	/* The report is printed by irq_work once the CPU takes interrupts. */
	end = deadline(DEADLINE_NS);
	while (irq_work_runs(target) == runs && get_cycles() < end)
		cpu_relax();
	KUNIT_EXPECT_GT_MSG(test, irq_work_runs(target), runs,
			    "the NMI's printk was never flushed on cpu %d", target);
	/* The CPU goes on: it reports for a grace period and answers a cross-call. */
	synchronize_rcu();
	KUNIT_EXPECT_EQ(test, smp_call_function_single(target, flush_here, &pending, 1), 0);
	KUNIT_EXPECT_EQ(test, pending, 0);
}

/* ---- an RCU reader in an NMI ---- */

struct nmi_reader {
	u32 val;
	int in, updater_waiting, unlocked, saw_freed, ended_unlocked;
	u64 end;
};

static struct nmi_reader *nmi_shared;

static bool nmi_reader_fn(const struct nmi_frame *f, void *arg)
{
	struct nmi_reader *r = arg, *o;
	u64 end = deadline(2000000000ULL), hold = 0;

	rcu_read_lock();
	o = rcu_dereference(nmi_shared);
	__atomic_store_n(&r->in, 1, __ATOMIC_SEQ_CST);
	while (o && get_cycles() < end) {
		if (READ_ONCE(o->val) != 1)
			WRITE_ONCE(r->saw_freed, 1);
		if (__atomic_load_n(&r->updater_waiting, __ATOMIC_ACQUIRE)) {
			if (!hold)
				hold = deadline(30000000);
			else if (get_cycles() > hold)
				break;
		}
		cpu_relax();
	}
	__atomic_store_n(&r->unlocked, 1, __ATOMIC_SEQ_CST);
	rcu_read_unlock();
	return true;
}

struct nmi_reader_case {
	struct nmi_reader r;
	struct nmi_probe p;
	int rc;
};

static void nmi_reader_roles(struct kunit *test, void *arg)
{
	struct nmi_reader_case *c = arg;
	int me = smp_processor_id();
	u64 end = deadline(DEADLINE_NS);

	if (me == 1) {
		nmi_test_spin();
	} else if (me == 0) {
		c->rc = nmi_probe_cpu(1, &c->p, 1, PROBE_NS);
		__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	} else if (me == 2) {
		while (!__atomic_load_n(&c->r.in, __ATOMIC_SEQ_CST) && get_cycles() < end)
			cpu_relax();
		rcu_assign_pointer(nmi_shared, NULL);
		__atomic_store_n(&c->r.updater_waiting, 1, __ATOMIC_SEQ_CST);
		synchronize_rcu();
		c->r.ended_unlocked = __atomic_load_n(&c->r.unlocked, __ATOMIC_SEQ_CST);
		WRITE_ONCE(c->r.val, 0);
	}
}

static void reader_in_nmi_holds_grace_period(struct kunit *test)
{
	struct nmi_reader_case c = { .r.val = 1 };

	if (nr_cpu_ids < 3)
		kunit_skip(test, "needs 3 CPUs (prober, reader, updater)");
	c.p.fn = nmi_reader_fn;
	c.p.arg = &c.r;
	rcu_assign_pointer(nmi_shared, &c.r);
	stop_spinning = 0;
	kunit_run_on_all_cpus(test, nmi_reader_roles, &c);
	KUNIT_EXPECT_EQ(test, c.rc, 0);
	KUNIT_EXPECT_TRUE(test, c.r.in);
	KUNIT_EXPECT_TRUE_MSG(test, c.r.ended_unlocked,
			      "synchronize_rcu returned while an NMI on cpu 1 was inside rcu_read_lock");
	KUNIT_EXPECT_FALSE(test, c.r.saw_freed);
}

/* ---- a probe lets its target run between NMIs ---- */

#define PROGRESS_LANDINGS 300

struct progress_case {
	struct nmi_probe p;
	u64 steps;          /* the target's loop count */
	u64 last, left;     /* steps at the last landing, and when its callback returned */
	u64 seen, moved;    /* landings, and those that found steps moved since the last */
	u64 soon;           /* landings that came sooner after the last than the probe's pause */
	u64 least;          /* the shortest time from one callback's end to the next landing */
	int rc;
};

static bool note_progress(const struct nmi_frame *f, void *arg)
{
	struct progress_case *c = arg;
	u64 now = get_cycles(), steps = READ_ONCE(c->steps);

	if (c->seen) {
		c->moved += steps != c->last;
		c->soon += now - c->left < ns_to_cycles(NMI_PROBE_GAP_NS);
		c->least = MIN(c->least, now - c->left);
	}
	c->last = steps;
	c->seen++;
	c->left = get_cycles();
	return true;
}

static void progress_roles(struct kunit *test, void *arg)
{
	struct progress_case *c = arg;
	u64 end = deadline(DEADLINE_NS);

	if (smp_processor_id() == nr_cpu_ids - 1) {
		while (!__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE) && get_cycles() < end)
			WRITE_ONCE(c->steps, c->steps + 1);
	} else if (smp_processor_id() == 0) {
		c->rc = nmi_probe_cpu(nr_cpu_ids - 1, &c->p, PROGRESS_LANDINGS, PROBE_NS);
		__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	}
}

/*
 * An NMI sent the moment the last one's pass ends is held until that handler's IRET and is
 * taken before the interrupted code has run more than a few instructions: the target spends
 * its time in the handler and a probe samples little of what it does. The probe pauses after
 * each pass: no landing comes sooner than NMI_PROBE_GAP_NS after the callback before it
 * returned (both times the target's own TSC), and the target's loop moves on in between.
 */
static void probe_lets_the_target_run(struct kunit *test)
{
	static struct progress_case pc;
	struct progress_case *c = &pc;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	memset(c, 0, sizeof(*c));
	c->least = ~0ULL;
	c->p.fn = note_progress;
	c->p.arg = c;
	stop_spinning = 0;
	kunit_run_on_all_cpus(test, progress_roles, c);
	KUNIT_EXPECT_EQ(test, c->rc, 0);
	KUNIT_EXPECT_EQ(test, c->seen, PROGRESS_LANDINGS);
	KUNIT_EXPECT_EQ_MSG(test, c->soon, 0, "landings sooner than %llu ns after the last; the "
			    "shortest %llu ns", NMI_PROBE_GAP_NS,
			    (unsigned long long)cycles_to_ns(c->least));
	KUNIT_EXPECT_GE_MSG(test, c->moved * 2, c->seen,
			    "%llu of %llu NMIs found the target where the one before left it",
			    (unsigned long long)(c->seen - c->moved), (unsigned long long)c->seen);
	kunit_info(test, "%llu landings, %llu found the target moved on, the shortest time "
		   "between them %llu ns; %llu NMIs sent, %llu steps", (unsigned long long)c->seen,
		   (unsigned long long)c->moved, (unsigned long long)cycles_to_ns(c->least),
		   (unsigned long long)c->p.sent, (unsigned long long)c->steps);
}

/* ---- functions by name, GCC's copies too ---- */

/*
 * GCC renames the copies it makes of a function (foo.constprop.0, foo.isra.0, foo.part.0),
 * and a probe or a test asking for foo must still find it. For every such symbol in the
 * kernel's text, the plain name finds foo itself or a copy of it.
 */
static void code_range_by_name_finds_gcc_copies(struct kunit *test)
{
	unsigned int copies = 0, bad = 0;
	const char *sym;
	u64 addr;

	for (unsigned int i = 0; (sym = kallsyms_symbol(i, &addr)); i++) {
		const char *dot = strchr(sym, '.');
		char base[64];
		u64 start, end, off;
		const char *found;

		if (!dot || dot == sym || (size_t)(dot - sym) >= sizeof(base) ||
		    !kallsyms_lookup(addr, &off))
			continue; /* no copy's name, or not in the text (the AP trampoline's labels) */
		memcpy(base, sym, dot - sym);
		base[dot - sym] = 0;
		copies++;
		if (!nmi_code_range_by_name(base, &start, &end)) {
			if (bad++ < 4)
				KUNIT_FAIL(test, "%s: %s not found", sym, base);
			continue;
		}
		found = kallsyms_lookup(start, &off);
		KUNIT_EXPECT_TRUE_MSG(test, found && off == 0 && end > start &&
				      (!strcmp(found, base) ||
				       (!strncmp(found, base, strlen(base)) &&
					found[strlen(base)] == '.')),
				      "%s: found %s+%#llx", base, found ? found : "?",
				      (unsigned long long)off);
	}
	KUNIT_EXPECT_FALSE(test, nmi_code_range_by_name("nmi_test_spi", &addr, &addr));
	KUNIT_EXPECT_FALSE(test, nmi_code_range_by_name("nmi_test_spin.", &addr, &addr));
	if (!copies)
		kunit_skip(test, "GCC made no copies of any function in this kernel");
	kunit_info(test, "%u copies, each found by its function's name", copies);
}

static struct kunit_case nmi_cases[] = {
	KUNIT_CASE(probe_lands_in_spinning_function),
	KUNIT_CASE(nmi_in_spinlock_sections_does_not_deadlock),
	KUNIT_CASE(storm_at_every_cpu),
	KUNIT_CASE(nested_nmi_waits_for_iret),
	KUNIT_CASE(iret_inside_handler_latches_next_nmi),
	KUNIT_CASE(unasked_nmi_is_reported_and_cpu_goes_on),
	KUNIT_CASE(reader_in_nmi_holds_grace_period),
	KUNIT_CASE(probe_lets_the_target_run),
	KUNIT_CASE(code_range_by_name_finds_gcc_copies),
	{}
};

static struct kunit_suite nmi_suite = {
	.name = "nmi",
	.test_cases = nmi_cases,
};
kunit_test_suite(nmi_suite);
