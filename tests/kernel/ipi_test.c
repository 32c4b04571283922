// SPDX-License-Identifier: MIT
/*
 * IPIs reach every CPU, cross-calls run on the CPU asked for and return, and two CPUs that
 * cross-call each other at the same time, with interrupts on or off, do not deadlock.
 */
#include "kernel/irqflags.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"

struct where {
	int cpu;
	bool irqs_off;
};

static void report_cpu(void *arg)
{
	struct where *w = arg;

	w->cpu = smp_processor_id();
	w->irqs_off = irqs_disabled();
}

static void call_single_runs_on_target(struct kunit *test)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct where w = { .cpu = -1 };

		KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu, report_cpu, &w, 1), 0);
		KUNIT_EXPECT_EQ(test, w.cpu, cpu);
		KUNIT_EXPECT_TRUE_MSG(test, w.irqs_off, "cpu %d ran the call with interrupts on", cpu);
	}
	KUNIT_EXPECT_EQ(test, smp_call_function_single(nr_cpu_ids, report_cpu, NULL, 1), -1);
	KUNIT_EXPECT_EQ(test, smp_call_function_single(-1, report_cpu, NULL, 1), -1);
}

static int hits[NR_CPUS];

static void hit(void *arg)
{
	__atomic_fetch_add(&hits[smp_processor_id()], 1, __ATOMIC_RELAXED);
}

static void call_many_and_on_each_cpu(struct kunit *test)
{
	struct cpumask all;
	int me = smp_processor_id();

	memset(hits, 0, sizeof(hits));
	cpumask_setall(&all);
	smp_call_function_many(&all, hit, NULL, 1);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ_MSG(test, hits[cpu], cpu == me ? 0 : 1, "cpu %d", cpu);
	on_each_cpu(hit, NULL, 1);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ_MSG(test, hits[cpu], cpu == me ? 1 : 2, "cpu %d", cpu);
}

static void async_call_completes(struct kunit *test)
{
	u64 deadline;
	int target = nr_cpu_ids - 1;

	memset(hits, 0, sizeof(hits));
	smp_call_function_single(target, hit, NULL, 0);
	deadline = get_cycles() + ns_to_cycles(2000000000ULL);
	while (!__atomic_load_n(&hits[target], __ATOMIC_ACQUIRE) && get_cycles() < deadline)
		cpu_relax();
	KUNIT_EXPECT_EQ(test, hits[target], 1);
}

static void wakeup_ipi_reaches_every_cpu(struct kunit *test)
{
	struct ipi_stats *before, after, me_before, me_after;
	int me = smp_processor_id();
	u64 deadline;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	before = kcalloc((size_t)nr_cpu_ids, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		ipi_stats_get(cpu, &before[cpu]);
	me_before = before[me];
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != me)
			smp_send_reschedule(cpu);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu == me)
			continue;
		deadline = get_cycles() + ns_to_cycles(2000000000ULL);
		do {
			ipi_stats_get(cpu, &after);
		} while (after.wakeup_received == before[cpu].wakeup_received &&
			 get_cycles() < deadline);
		KUNIT_EXPECT_GT_MSG(test, after.wakeup_received, before[cpu].wakeup_received,
				    "cpu %d got no wake-up IPI", cpu);
	}
	ipi_stats_get(me, &me_after);
	KUNIT_EXPECT_EQ(test, me_after.wakeup_sent - me_before.wakeup_sent, (u64)nr_cpu_ids - 1);
	kfree(before);
}

/* Calls per CPU; the total stays bounded so that 255 emulated CPUs finish in seconds. */
#define PINGS (nr_cpu_ids <= 8 ? 300 : MAX(8, 2400 / nr_cpu_ids))

static int pings;

static void ping(void *arg)
{
	__atomic_fetch_add(&pings, 1, __ATOMIC_RELAXED);
}

/* Every CPU calls its neighbour, which calls its own neighbour...: a ring of waiters. */
static void ring_of_calls(struct kunit *test, void *arg)
{
	bool irqs_off = arg != NULL;
	int next = (smp_processor_id() + 1) % nr_cpu_ids;

	for (int i = 0; i < PINGS; i++) {
		unsigned long flags = 0;

		if (irqs_off)
			local_irq_save(flags);
		smp_call_function_single(next, ping, NULL, 1);
		if (irqs_off)
			local_irq_restore(flags);
	}
}

static void cross_calls_do_not_deadlock(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	pings = 0;
	kunit_run_on_all_cpus(test, ring_of_calls, NULL);
	KUNIT_EXPECT_EQ(test, pings, nr_cpu_ids * PINGS);
	pings = 0;
	kunit_run_on_all_cpus(test, ring_of_calls, (void *)1);
	KUNIT_EXPECT_EQ(test, pings, nr_cpu_ids * PINGS);
}

/* CPU pairs (0,1), (2,3)... call each other at once, each waiting for the other. */
static void pair_calls(struct kunit *test, void *arg)
{
	int me = smp_processor_id(), peer = me ^ 1;

	if (peer >= nr_cpu_ids)
		return;
	for (int i = 0; i < PINGS; i++)
		smp_call_function_single(peer, ping, NULL, 1);
}

static void two_cpus_call_each_other(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	pings = 0;
	kunit_run_on_all_cpus(test, pair_calls, NULL);
	KUNIT_EXPECT_EQ(test, pings, (nr_cpu_ids & ~1) * PINGS);
}

static void ipi_counters_count(struct kunit *test)
{
	struct ipi_stats b, a;
	int target = nr_cpu_ids - 1;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	ipi_stats_get(target, &b);
	for (int i = 0; i < 10; i++)
		smp_call_function_single(target, ping, NULL, 1);
	ipi_stats_get(target, &a);
	/* Each waited-for call is a separate IPI: the queue was empty every time. */
	KUNIT_EXPECT_EQ(test, a.call_received - b.call_received, 10);
	KUNIT_EXPECT_EQ(test, a.calls_run - b.calls_run, 10);
}

static struct kunit_case ipi_cases[] = {
	KUNIT_CASE(call_single_runs_on_target),
	KUNIT_CASE(call_many_and_on_each_cpu),
	KUNIT_CASE(async_call_completes),
	KUNIT_CASE(wakeup_ipi_reaches_every_cpu),
	KUNIT_CASE(cross_calls_do_not_deadlock),
	KUNIT_CASE(two_cpus_call_each_other),
	KUNIT_CASE(ipi_counters_count),
	{}
};

static struct kunit_suite ipi_suite = {
	.name = "ipi",
	.test_cases = ipi_cases,
};
kunit_test_suite(ipi_suite);
