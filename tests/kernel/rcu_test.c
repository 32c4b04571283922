// SPDX-License-Identifier: MIT
/*
 * RCU (kernel/rcu.h): synchronize_rcu waits for a reader on another CPU and for one in an
 * interrupt handler; call_rcu's callbacks run after a grace period, in order, on their CPU,
 * in ordinary context; rcu_barrier waits for every callback; many CPUs at once; idle CPUs
 * do not hold grace periods up; a stall names the CPU it waits for.
 *
 * The readers here read an object through a shared pointer and check a value the updater
 * overwrites ("frees") after its grace period: a grace period that ended while the reader
 * was inside shows as the overwritten value, and as the updater's wait returning before the
 * reader had left.
 */
#include "kernel/irqflags.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"

#define LIVE 0x11117e57u
#define FREED 0xdeadu
#define HOLD_NS 100000000ULL     /* a reader stays inside this long once the updater waits */
#define DEADLINE_NS 20000000000ULL /* bounds every wait of these tests: a bug fails, never hangs */

struct obj {
	u32 val;
	struct rcu_head rcu;
};

static struct obj *shared;

struct reader_run {
	struct obj obj;
	unsigned long cookie;  /* the updater's grace period, taken once it starts waiting */
	int reader_cpu;
	int in;                /* the reader is inside, holding its pointer */
	int updater_waiting;   /* the updater is in synchronize_rcu */
	int unlocked;          /* the reader left (set just before rcu_read_unlock) */
	int saw_freed;         /* the reader saw the object overwritten while inside */
	int saw_gp_end;        /* ... or the grace period ended while it was inside */
	int gp_ended_unlocked; /* what the updater saw when synchronize_rcu returned */
	int got_obj;
};

static u64 deadline(u64 ns)
{
	return get_cycles() + ns_to_cycles(ns);
}

/* Inside rcu_read_lock: hold the object until the updater waits, then HOLD_NS more. */
static void hold_reader(struct reader_run *r)
{
	struct obj *o;
	u64 end = deadline(DEADLINE_NS), hold = 0;

	rcu_read_lock();
	o = rcu_dereference(shared);
	r->got_obj = o == &r->obj;
	__atomic_store_n(&r->in, 1, __ATOMIC_SEQ_CST);
	while (get_cycles() < end) {
		if (READ_ONCE(o->val) != LIVE)
			WRITE_ONCE(r->saw_freed, 1);
		if (__atomic_load_n(&r->updater_waiting, __ATOMIC_ACQUIRE)) {
			if (poll_state_synchronize_rcu(READ_ONCE(r->cookie)))
				WRITE_ONCE(r->saw_gp_end, 1);
			if (!hold)
				hold = deadline(HOLD_NS);
			else if (get_cycles() > hold)
				break;
		}
		cpu_relax();
	}
	__atomic_store_n(&r->unlocked, 1, __ATOMIC_SEQ_CST);
	rcu_read_unlock();
}

static void update_and_wait(struct kunit *test, struct reader_run *r)
{
	u64 end = deadline(DEADLINE_NS);

	while (!__atomic_load_n(&r->in, __ATOMIC_SEQ_CST) && get_cycles() < end)
		cpu_relax();
	KUNIT_ASSERT_TRUE_MSG(test, READ_ONCE(r->in), "the reader never went in");
	rcu_assign_pointer(shared, NULL);
	WRITE_ONCE(r->cookie, get_state_synchronize_rcu());
	__atomic_store_n(&r->updater_waiting, 1, __ATOMIC_SEQ_CST);
	synchronize_rcu();
	r->gp_ended_unlocked = __atomic_load_n(&r->unlocked, __ATOMIC_SEQ_CST);
	WRITE_ONCE(r->obj.val, FREED);
}

static void check_reader_run(struct kunit *test, struct reader_run *r)
{
	KUNIT_EXPECT_TRUE(test, r->got_obj);
	KUNIT_EXPECT_TRUE_MSG(test, r->gp_ended_unlocked,
			      "synchronize_rcu returned while cpu %d was inside rcu_read_lock",
			      r->reader_cpu);
	KUNIT_EXPECT_FALSE_MSG(test, r->saw_freed, "cpu %d's reader saw its object freed",
			       r->reader_cpu);
	KUNIT_EXPECT_FALSE_MSG(test, r->saw_gp_end,
			       "the grace period ended while cpu %d's reader was inside",
			       r->reader_cpu);
	KUNIT_EXPECT_TRUE(test, poll_state_synchronize_rcu(r->cookie));
}

static void reader_and_updater(struct kunit *test, void *arg)
{
	struct reader_run *r = arg;

	if (smp_processor_id() == r->reader_cpu)
		hold_reader(r);
	else if (smp_processor_id() == 0)
		update_and_wait(test, r);
}

static void synchronize_waits_for_reader_on_other_cpu(struct kunit *test)
{
	struct reader_run r = { .obj.val = LIVE, .reader_cpu = nr_cpu_ids - 1 };

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	rcu_assign_pointer(shared, &r.obj);
	kunit_run_on_all_cpus(test, reader_and_updater, &r);
	check_reader_run(test, &r);
}

/* The same reader with interrupts off: the RCU IPI waits until after the unlock. */
static void irqs_off_reader(struct kunit *test, void *arg)
{
	struct reader_run *r = arg;
	unsigned long flags;

	if (smp_processor_id() == r->reader_cpu) {
		local_irq_save(flags);
		hold_reader(r);
		local_irq_restore(flags);
	} else if (smp_processor_id() == 0) {
		update_and_wait(test, r);
	}
}

static void synchronize_waits_for_reader_with_irqs_off(struct kunit *test)
{
	struct reader_run r = { .obj.val = LIVE, .reader_cpu = 1 };

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	rcu_assign_pointer(shared, &r.obj);
	kunit_run_on_all_cpus(test, irqs_off_reader, &r);
	check_reader_run(test, &r);
}

/* A reader in a cross-call handler (interrupt context), held there HOLD_NS. */
static void noop(void *arg)
{
}

static void reader_in_handler(void *arg)
{
	struct reader_run *r = arg;
	struct obj *o;
	u64 end;

	rcu_read_lock();
	rcu_read_lock(); /* nested: one more on top */
	o = rcu_dereference(shared);
	r->got_obj = o == &r->obj && in_irq_context();
	rcu_read_unlock();
	__atomic_store_n(&r->in, 1, __ATOMIC_SEQ_CST);
	end = deadline(DEADLINE_NS);
	while (!__atomic_load_n(&r->updater_waiting, __ATOMIC_ACQUIRE) && get_cycles() < end)
		cpu_relax();
	end = deadline(HOLD_NS);
	while (get_cycles() < end) {
		if (READ_ONCE(o->val) != LIVE)
			WRITE_ONCE(r->saw_freed, 1);
		if (poll_state_synchronize_rcu(READ_ONCE(r->cookie)))
			WRITE_ONCE(r->saw_gp_end, 1);
		cpu_relax();
	}
	__atomic_store_n(&r->unlocked, 1, __ATOMIC_SEQ_CST);
	rcu_read_unlock();
}

static void reader_in_interrupt_handler(struct kunit *test)
{
	struct reader_run r = { .obj.val = LIVE, .reader_cpu = nr_cpu_ids - 1 };

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	rcu_assign_pointer(shared, &r.obj);
	smp_call_function_single(r.reader_cpu, reader_in_handler, &r, 0);
	update_and_wait(test, &r);
	/* A waited call to the same CPU waits for the first one's csd: the handler is done. */
	smp_call_function_single(r.reader_cpu, noop, NULL, 1);
	check_reader_run(test, &r);
}

/* ---- call_rcu ---- */

#define CBS_PER_CPU (nr_cpu_ids <= 8 ? 200 : MAX(16, 3200 / nr_cpu_ids))

struct cb {
	struct rcu_head rcu;
	unsigned long cookie; /* a grace period that must have ended when it runs */
	int cpu;
	int seq;
	struct cb_run *run;
};

struct cb_run {
	struct cb *cbs;      /* CBS_PER_CPU per cpu */
	int *next_seq;       /* per cpu: the seq the next callback must have */
	int ran;             /* callbacks run, all cpus */
	int bad_order, early, wrong_cpu, bad_context;
};

static void cb_fn(struct rcu_head *h)
{
	struct cb *c = container_of(h, struct cb, rcu);
	struct cb_run *run = c->run;
	int me = smp_processor_id();

	if (c->cpu != me)
		__atomic_fetch_add(&run->wrong_cpu, 1, __ATOMIC_RELAXED);
	else if (run->next_seq[me]++ != c->seq)
		__atomic_fetch_add(&run->bad_order, 1, __ATOMIC_RELAXED);
	if (!poll_state_synchronize_rcu(c->cookie))
		__atomic_fetch_add(&run->early, 1, __ATOMIC_RELAXED);
	if (in_irq_context() || irqs_disabled() || rcu_read_lock_held())
		__atomic_fetch_add(&run->bad_context, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&run->ran, 1, __ATOMIC_RELEASE);
}

/* Queue this CPU's callbacks; some inside a reader, some from a nested read section. */
static void queue_cbs(struct kunit *test, void *arg)
{
	struct cb_run *run = arg;
	int me = smp_processor_id();

	for (int i = 0; i < CBS_PER_CPU; i++) {
		struct cb *c = &run->cbs[me * CBS_PER_CPU + i];

		c->cpu = me;
		c->seq = i;
		c->run = run;
		c->cookie = get_state_synchronize_rcu();
		if (i % 3 == 1)
			rcu_read_lock();
		call_rcu(&c->rcu, cb_fn);
		if (i % 3 == 1)
			rcu_read_unlock();
		if (i % 50 == 49)
			rcu_quiescent_state(); /* some run while the others are still being queued */
	}
}

static struct cb_run *cb_run_new(struct kunit *test)
{
	struct cb_run *run = kzalloc(sizeof(*run), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, run);
	run->cbs = kcalloc((size_t)nr_cpu_ids * CBS_PER_CPU, sizeof(*run->cbs), GFP_KERNEL);
	run->next_seq = kcalloc((size_t)nr_cpu_ids, sizeof(int), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run->cbs);
	KUNIT_ASSERT_NOT_NULL(test, run->next_seq);
	return run;
}

static void cb_run_free(struct cb_run *run)
{
	kfree(run->cbs);
	kfree(run->next_seq);
	kfree(run);
}

static void check_cb_run(struct kunit *test, struct cb_run *run, int cpus)
{
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&run->ran, __ATOMIC_ACQUIRE), cpus * CBS_PER_CPU);
	KUNIT_EXPECT_EQ_MSG(test, run->early, 0, "callbacks ran before their grace period ended");
	KUNIT_EXPECT_EQ_MSG(test, run->bad_order, 0, "callbacks ran out of their CPU's order");
	KUNIT_EXPECT_EQ_MSG(test, run->wrong_cpu, 0, "callbacks ran on another CPU");
	KUNIT_EXPECT_EQ_MSG(test, run->bad_context, 0,
			    "callbacks ran in an interrupt handler, with interrupts off or in a reader");
}

/* On this CPU: every callback after its grace period, in order, then rcu_barrier. */
static void call_rcu_runs_after_grace_period_in_order(struct kunit *test)
{
	struct cb_run *run = cb_run_new(test);
	int me = smp_processor_id();
	struct rcu_cpu_stats before, after;

	rcu_cpu_stats_get(me, &before);
	queue_cbs(test, run);
	rcu_barrier();
	rcu_cpu_stats_get(me, &after);
	check_cb_run(test, run, 1);
	/* Its own, and the barrier's if any was still waiting when rcu_barrier came. */
	KUNIT_EXPECT_GE(test, after.cbs_invoked - before.cbs_invoked, (u64)CBS_PER_CPU);
	KUNIT_EXPECT_LE(test, after.cbs_invoked - before.cbs_invoked, (u64)CBS_PER_CPU + 1);
	KUNIT_EXPECT_EQ(test, after.cbs_waiting, 0);
	cb_run_free(run);
}

/* Every CPU queues at once; one rcu_barrier from here waits for all of them. */
static void rcu_barrier_waits_for_every_cpu(struct kunit *test)
{
	struct cb_run *run = cb_run_new(test);

	kunit_run_on_all_cpus(test, queue_cbs, run);
	rcu_barrier();
	check_cb_run(test, run, nr_cpu_ids);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rcu_cpu_stats s;

		rcu_cpu_stats_get(cpu, &s);
		KUNIT_EXPECT_EQ_MSG(test, s.cbs_waiting, 0, "cpu %d", cpu);
	}
	cb_run_free(run);
}

/* A callback that queues another and waits for a grace period itself. */
static int chain_ran;

static void chain_second(struct rcu_head *h)
{
	__atomic_fetch_add(&chain_ran, 1, __ATOMIC_RELAXED);
}

static void chain_first(struct rcu_head *h)
{
	static struct rcu_head second;

	synchronize_rcu(); /* allowed: ordinary context, in no reader */
	call_rcu(&second, chain_second);
	__atomic_fetch_add(&chain_ran, 1, __ATOMIC_RELAXED);
}

static void callback_may_call_rcu(struct kunit *test)
{
	static struct rcu_head first;

	chain_ran = 0;
	call_rcu(&first, chain_first);
	rcu_barrier(); /* runs chain_first, which queues chain_second behind the barrier */
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&chain_ran, __ATOMIC_RELAXED), 2);
}

/* ---- many CPUs, idle CPUs, stalls ---- */

#define SYNCS (nr_cpu_ids <= 8 ? 20 : MAX(2, 160 / nr_cpu_ids))

static void sync_many(struct kunit *test, void *arg)
{
	for (int i = 0; i < SYNCS; i++)
		synchronize_rcu();
}

static void synchronize_from_every_cpu_at_once(struct kunit *test)
{
	struct rcu_stats before, after;

	rcu_stats_get(&before);
	kunit_run_on_all_cpus(test, sync_many, NULL);
	rcu_stats_get(&after);
	KUNIT_EXPECT_GE(test, after.gp_completed - before.gp_completed, (u64)SYNCS);
	KUNIT_EXPECT_EQ(test, after.stalls_reported, before.stalls_reported);
}

/*
 * Every other CPU halts in its idle loop; grace periods still end, each of those CPUs
 * having reported (woken by the RCU IPI), and nothing is reported stalled. A bounded poll,
 * so a grace period that waits for a halted CPU fails the case instead of hanging it.
 */
static void idle_cpus_do_not_stall_grace_periods(struct kunit *test)
{
	struct rcu_stats before, after;
	struct rcu_cpu_stats *cb;
	u64 end;

	cb = kcalloc((size_t)nr_cpu_ids, sizeof(*cb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cb);
	rcu_stats_get(&before);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		rcu_cpu_stats_get(cpu, &cb[cpu]);
	for (int i = 0; i < 5; i++) {
		unsigned long cookie = start_poll_synchronize_rcu();

		end = deadline(DEADLINE_NS);
		while (!poll_state_synchronize_rcu(cookie) && get_cycles() < end) {
			local_irq_disable();
			arch_idle_timeout(1000000); /* halted too, woken by the IPIs */
		}
		KUNIT_ASSERT_TRUE_MSG(test, poll_state_synchronize_rcu(cookie),
				      "grace period %lu did not end in %llu s with the other CPUs idle",
				      cookie, DEADLINE_NS / 1000000000ULL);
	}
	rcu_stats_get(&after);
	KUNIT_EXPECT_GE(test, after.gp_completed - before.gp_completed, 5);
	KUNIT_EXPECT_EQ(test, after.stalls_reported, before.stalls_reported);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rcu_cpu_stats s;

		if (cpu == smp_processor_id())
			continue;
		rcu_cpu_stats_get(cpu, &s);
		KUNIT_EXPECT_GE_MSG(test, s.qs_reported - cb[cpu].qs_reported, 5,
				    "idle cpu %d reported for fewer grace periods than ended", cpu);
	}
	kfree(cb);
}

struct stall_run {
	int reader_cpu; /* 1: the lowest CPU but the waiter's, the first a report names */
	int in;
	u64 stalls_before;
	int left_by_report; /* the reader left because the stall was reported */
};

static void stall_roles(struct kunit *test, void *arg)
{
	struct stall_run *s = arg;
	u64 end = deadline(DEADLINE_NS);
	struct rcu_stats st;

	if (smp_processor_id() == s->reader_cpu) {
		rcu_read_lock();
		__atomic_store_n(&s->in, 1, __ATOMIC_SEQ_CST);
		do {
			cpu_relax();
			rcu_stats_get(&st);
		} while ((st.stalls_reported == s->stalls_before ||
			  st.last_stalled_cpu != s->reader_cpu) && get_cycles() < end);
		s->left_by_report = st.stalls_reported != s->stalls_before &&
				    st.last_stalled_cpu == s->reader_cpu;
		rcu_read_unlock();
	} else if (smp_processor_id() == 0) {
		while (!__atomic_load_n(&s->in, __ATOMIC_SEQ_CST) && get_cycles() < end)
			cpu_relax();
		synchronize_rcu(); /* its wait reports the stall, then the reader leaves */
	}
}

static void stall_is_reported_naming_the_cpu(struct kunit *test)
{
	struct stall_run s = { .reader_cpu = 1 };
	u64 old = rcu_stall_timeout_ms();
	struct rcu_stats st;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	rcu_stats_get(&st);
	s.stalls_before = st.stalls_reported;
	rcu_set_stall_timeout_ms(300);
	kunit_run_on_all_cpus(test, stall_roles, &s);
	rcu_set_stall_timeout_ms(old);
	rcu_stats_get(&st);
	KUNIT_EXPECT_TRUE_MSG(test, s.left_by_report, "no stall naming cpu %d was reported in %llu s",
			      s.reader_cpu, DEADLINE_NS / 1000000000ULL);
	KUNIT_EXPECT_EQ(test, st.last_stalled_cpu, s.reader_cpu);
}

static void single_cpu_grace_periods(struct kunit *test)
{
	struct rcu_stats before, after;
	unsigned long cookie = get_state_synchronize_rcu();

	rcu_stats_get(&before);
	synchronize_rcu();
	KUNIT_EXPECT_TRUE(test, poll_state_synchronize_rcu(cookie));
	rcu_stats_get(&after);
	KUNIT_EXPECT_GE(test, after.gp_completed, before.gp_completed + 1);
	KUNIT_EXPECT_FALSE(test, poll_state_synchronize_rcu(get_state_synchronize_rcu()));
	kunit_info(test, "%d cpus: %llu grace periods so far, longest %llu us, %llu RCU IPIs",
		   nr_cpu_ids, (unsigned long long)after.gp_completed,
		   (unsigned long long)(cycles_to_ns(after.gp_cycles_max) / 1000),
		   (unsigned long long)after.ipis_sent);
}

static struct kunit_case rcu_cases[] = {
	KUNIT_CASE(single_cpu_grace_periods),
	KUNIT_CASE(synchronize_waits_for_reader_on_other_cpu),
	KUNIT_CASE(synchronize_waits_for_reader_with_irqs_off),
	KUNIT_CASE(reader_in_interrupt_handler),
	KUNIT_CASE(call_rcu_runs_after_grace_period_in_order),
	KUNIT_CASE(rcu_barrier_waits_for_every_cpu),
	KUNIT_CASE(callback_may_call_rcu),
	KUNIT_CASE(synchronize_from_every_cpu_at_once),
	KUNIT_CASE(idle_cpus_do_not_stall_grace_periods),
	KUNIT_CASE(stall_is_reported_naming_the_cpu),
	{}
};

static struct kunit_suite rcu_suite = {
	.name = "rcu",
	.test_cases = rcu_cases,
};
kunit_test_suite(rcu_suite);
