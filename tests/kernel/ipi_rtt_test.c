// SPDX-License-Identifier: MIT
/*
 * smp_call_round_trip() (kernel/smp_rtt.c) from cpu 0 to cpus 1..7: it answers a
 * median, leaves its samples sorted with that median in the middle, and sent exactly one
 * cross-call IPI per round trip, each received and run on the target (the per-cpu IPI
 * counters of kernel/smp.c, which it does not touch). The figure goes on the console as
 * "cpu N: round trip median C cycles". Asked for one round trip at a time, it takes no
 * less than half the shortest of the test's own (a call that waits for the target): a
 * sample that stops before the target ran is the send alone.
 */
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#define RTT_N 200
#define RTT_SINGLES 21

static void own_ping(void *arg)
{
	__atomic_fetch_add((unsigned int *)arg, 1, __ATOMIC_RELAXED);
}

/* smp_call_round_trip(cpu, 1, ...) RTT_SINGLES times, each after a round trip of the
 * test's own: the median of its figures against the shortest of the test's. */
static void single_round_trips(struct kunit *test, int cpu)
{
	u64 theirs[RTT_SINGLES], one, own_min = ~0ULL;
	unsigned int hits = 0;

	for (int i = 0; i < RTT_SINGLES; i++) {
		u64 t0 = get_cycles_ordered();
		int j;

		smp_call_function_single(cpu, own_ping, &hits, 1);
		own_min = MIN(own_min, get_cycles_ordered() - t0);
		theirs[i] = smp_call_round_trip(cpu, 1, &one);
		for (j = i; j && theirs[j - 1] > theirs[j]; j--) {
			u64 t = theirs[j];

			theirs[j] = theirs[j - 1];
			theirs[j - 1] = t;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, hits, RTT_SINGLES, "cpu %d: the test's own calls", cpu);
	kunit_info(test, "cpu %d: one round trip at a time: median %llu cycles, the test's own "
		   "shortest %llu", cpu, (unsigned long long)theirs[RTT_SINGLES / 2],
		   (unsigned long long)own_min);
	KUNIT_EXPECT_GE_MSG(test, theirs[RTT_SINGLES / 2] * 2, own_min,
			    "cpu %d: one round trip measured alone takes %llu cycles (the median of "
			    "%d), a call that waits for the target at least %llu: the sample ends "
			    "before the target ran", cpu,
			    (unsigned long long)theirs[RTT_SINGLES / 2], RTT_SINGLES,
			    (unsigned long long)own_min);
}

static void round_trip_to_every_cpu(struct kunit *test)
{
	static u64 samples[RTT_N];

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	KUNIT_ASSERT_EQ(test, smp_processor_id(), 0);
	/* Cpus 1..7: enough to compare near and far ones, and short with 255 emulated cpus. */
	for (int cpu = 1; cpu < MIN(nr_cpu_ids, 8); cpu++) {
		struct ipi_stats me0, me1, it0, it1;
		u64 median;

		u64 sum = 0;

		single_round_trips(test, cpu);
		ipi_stats_get(0, &me0);
		ipi_stats_get(cpu, &it0);
		observer_clock(true); /* QEMU's trace times the cross-calls too (tools/lab.py) */
		median = smp_call_round_trip(cpu, RTT_N, samples);
		observer_clock(false);
		ipi_stats_get(0, &me1);
		ipi_stats_get(cpu, &it1);
		for (int i = 0; i < RTT_N; i++)
			sum += samples[i];
		KUNIT_EXPECT_GT_MSG(test, median, 0, "cpu %d", cpu);
		for (int i = 1; i < RTT_N; i++)
			if (samples[i - 1] > samples[i]) {
				KUNIT_FAIL(test, "cpu %d: samples not sorted at %d", cpu, i);
				break;
			}
		KUNIT_EXPECT_EQ_MSG(test, samples[RTT_N / 2], median, "cpu %d: not the median", cpu);
		KUNIT_EXPECT_GT(test, samples[0], 0);
		KUNIT_EXPECT_EQ_MSG(test, me1.call_sent - me0.call_sent, RTT_N, "cpu %d: IPIs sent", cpu);
		KUNIT_EXPECT_EQ_MSG(test, it1.call_received - it0.call_received, RTT_N,
				    "cpu %d: IPIs received", cpu);
		KUNIT_EXPECT_EQ_MSG(test, it1.calls_run - it0.calls_run, RTT_N, "cpu %d: calls run", cpu);
		kunit_info(test, "cpu %d: round trip median %llu cycles (%llu ns), mean %llu ns", cpu,
			   (unsigned long long)median, (unsigned long long)cycles_to_ns(median),
			   (unsigned long long)cycles_to_ns(sum / RTT_N));
	}
	/* Bad arguments answer 0 and send nothing. */
	KUNIT_EXPECT_EQ(test, smp_call_round_trip(0, RTT_N, samples), 0);
	KUNIT_EXPECT_EQ(test, smp_call_round_trip(nr_cpu_ids, RTT_N, samples), 0);
	KUNIT_EXPECT_EQ(test, smp_call_round_trip(1, 0, samples), 0);
}

static struct kunit_case ipi_rtt_cases[] = {
	KUNIT_CASE(round_trip_to_every_cpu),
	{}
};

static struct kunit_suite ipi_rtt_suite = {
	.name = "ipi_rtt",
	.test_cases = ipi_rtt_cases,
};
kunit_test_suite(ipi_rtt_suite);
