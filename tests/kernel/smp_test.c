// SPDX-License-Identifier: MIT
/*
 * Every CPU we tried to start is online, numbered 0..N-1 once each, and has its own per-cpu
 * area reached through GS; per-cpu variables are really per CPU.
 */
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"

static void all_cpus_online(struct kunit *test)
{
	/* cpus= counts the CPUs started; the one ap_skip= leaves out is not among them, nor
	 * those xAPIC mode cannot address. */
	int expect = nr_cpus_found - nr_cpus_skipped - nr_cpus_unreachable;

	if (setup_max_cpus && (int)setup_max_cpus < expect)
		expect = (int)setup_max_cpus;
	KUNIT_EXPECT_EQ(test, nr_cpus_skipped, ap_skip >= 0 ? 1 : 0);
	KUNIT_EXPECT_EQ(test, nr_cpus_tried, expect);
	KUNIT_EXPECT_EQ(test, nr_cpus_gave_up, 0);
	KUNIT_EXPECT_EQ(test, nr_cpu_ids, nr_cpus_tried);
	KUNIT_EXPECT_GE(test, nr_cpu_ids, 1);
	KUNIT_EXPECT_LE(test, nr_cpu_ids, NR_CPUS);
}

struct seen {
	int count[NR_CPUS];
	const struct percpu_hdr *hdr[NR_CPUS];
	u32 apic[NR_CPUS];
};

static void record_cpu(struct kunit *test, void *arg)
{
	struct seen *s = arg;
	int cpu = smp_processor_id();
	const struct percpu_hdr *h = this_cpu_ptr(&percpu_hdr);

	KUNIT_ASSERT_GE(test, cpu, 0);
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);
	__atomic_fetch_add(&s->count[cpu], 1, __ATOMIC_RELAXED);
	s->hdr[cpu] = h;
	s->apic[cpu] = h->apic_id;
	KUNIT_EXPECT_PTR_EQ(test, h->self, h);
	KUNIT_EXPECT_EQ(test, h->cpu, cpu);
	KUNIT_EXPECT_PTR_EQ(test, per_cpu_ptr(&percpu_hdr, cpu), h);
	KUNIT_EXPECT_EQ(test, this_cpu_ptr(&percpu_hdr)->offset, __per_cpu_offset[cpu]);
}

static struct seen seen;

static void each_cpu_once_with_own_area(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	kunit_run_on_all_cpus(test, record_cpu, &seen);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		KUNIT_EXPECT_EQ_MSG(test, seen.count[cpu], 1, "cpu %d", cpu);
		for (int other = 0; other < cpu; other++) {
			KUNIT_EXPECT_TRUE_MSG(test, seen.hdr[cpu] != seen.hdr[other],
					      "cpus %d and %d share a per-cpu area", cpu, other);
			KUNIT_EXPECT_TRUE_MSG(test, seen.apic[cpu] != seen.apic[other],
					      "cpus %d and %d share APIC id %u", cpu, other,
					      seen.apic[cpu]);
		}
	}
	/* Per-cpu areas must not overlap: each is percpu_size() bytes. */
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int other = 0; other < nr_cpu_ids; other++) {
			uptr a = (uptr)seen.hdr[cpu], b = (uptr)seen.hdr[other];

			if (cpu != other)
				KUNIT_EXPECT_TRUE(test, a + percpu_size() <= b || b + percpu_size() <= a);
		}
}

static DEFINE_PER_CPU(u64, test_counter);

static void bump_own_counter(struct kunit *test, void *arg)
{
	int cpu = smp_processor_id();

	this_cpu(test_counter) = 0;
	for (int i = 0; i < 1000 * (cpu + 1); i++)
		this_cpu(test_counter)++;
}

static void percpu_variables_are_private(struct kunit *test)
{
	kunit_run_on_all_cpus(test, bump_own_counter, NULL);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ_MSG(test, per_cpu(test_counter, cpu), (u64)1000 * (cpu + 1), "cpu %d",
				    cpu);
}

static int ran_on[NR_CPUS];

static void mark(void *arg)
{
	__atomic_fetch_add(&ran_on[smp_processor_id()], 1, __ATOMIC_RELAXED);
}

static void run_on_subset(struct kunit *test)
{
	struct cpumask m;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	memset(ran_on, 0, sizeof(ran_on));
	cpumask_clear(&m);
	for (int cpu = 1; cpu < nr_cpu_ids; cpu += 2)
		cpumask_set_cpu(cpu, &m);
	smp_run_on_cpus(&m, mark, NULL);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ_MSG(test, ran_on[cpu], cpu % 2 ? 1 : 0, "cpu %d", cpu);
	KUNIT_EXPECT_EQ(test, cpumask_weight(&m), nr_cpu_ids / 2);
}

static struct kunit_case smp_cases[] = {
	KUNIT_CASE(all_cpus_online),
	KUNIT_CASE(each_cpu_once_with_own_area),
	KUNIT_CASE(percpu_variables_are_private),
	KUNIT_CASE(run_on_subset),
	{}
};

static struct kunit_suite smp_suite = {
	.name = "smp",
	.test_cases = smp_cases,
};
kunit_test_suite(smp_suite);
