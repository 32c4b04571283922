// SPDX-License-Identifier: MIT
/*
 * Ticket spinlocks: mutual exclusion under every CPU at once (an exact count), the
 * statistics and owner, trylock, and the irqsave variants, including a lock shared by
 * ordinary code and cross-call handlers on the same CPUs.
 */
#include "kernel/irqflags.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"

/*
 * Lock hand-offs per test, shared out among the CPUs. Under TCG with more vCPUs than host
 * cores a ticket lock waits for its next holder's host thread to be scheduled, which costs
 * about a millisecond per hand-off; the total stays bounded whatever -smp is.
 */
#define HANDOFFS 2000
#define ROUNDS (nr_cpu_ids > 1 ? MAX(200, HANDOFFS / nr_cpu_ids) : HANDOFFS)

static DEFINE_SPINLOCK(test_lock);
static volatile u64 shared_counter;

static void hammer(struct kunit *test, void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		spin_lock(&test_lock);
		/* A non-atomic read-modify-write with a gap: torn without the lock. */
		u64 v = shared_counter;

		cpu_relax();
		shared_counter = v + 1;
		spin_unlock(&test_lock);
	}
}

static void counter_exact_under_all_cpus(struct kunit *test)
{
	spin_lock_init(&test_lock, "test_lock");
	shared_counter = 0;
	kunit_run_on_all_cpus(test, hammer, NULL);
	KUNIT_EXPECT_EQ(test, shared_counter, (u64)nr_cpu_ids * (u64)ROUNDS);
	KUNIT_EXPECT_EQ(test, test_lock.acquisitions, (u64)nr_cpu_ids * (u64)ROUNDS);
	KUNIT_EXPECT_LE(test, test_lock.contended, test_lock.acquisitions);
	if (nr_cpu_ids == 1) {
		KUNIT_EXPECT_EQ(test, test_lock.contended, 0);
		KUNIT_EXPECT_EQ(test, test_lock.spin_cycles, 0);
	}
	if (test_lock.contended)
		KUNIT_EXPECT_GT(test, test_lock.spin_cycles, 0);
	KUNIT_EXPECT_EQ(test, test_lock.owner, -1);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&test_lock));
	kunit_info(test, "%d cpus: %llu acquisitions, %llu contended, %llu spin cycles", nr_cpu_ids,
		   (unsigned long long)test_lock.acquisitions,
		   (unsigned long long)test_lock.contended,
		   (unsigned long long)test_lock.spin_cycles);
}

struct trylock_result {
	bool got;
	bool held_by_me;
};

static void try_from_other_cpu(void *arg)
{
	struct trylock_result *r = arg;

	r->held_by_me = spin_held_by_me(&test_lock);
	r->got = spin_trylock(&test_lock);
	if (r->got)
		spin_unlock(&test_lock);
}

static void owner_and_trylock(struct kunit *test)
{
	struct trylock_result r = { .got = true, .held_by_me = true };

	spin_lock_init(&test_lock, "test_lock");
	KUNIT_EXPECT_TRUE(test, spin_trylock(&test_lock));
	KUNIT_EXPECT_EQ(test, test_lock.owner, smp_processor_id());
	KUNIT_EXPECT_TRUE(test, spin_held_by_me(&test_lock));
	if (nr_cpu_ids > 1) {
		smp_call_function_single(1, try_from_other_cpu, &r, 1);
		KUNIT_EXPECT_FALSE(test, r.got);
		KUNIT_EXPECT_FALSE(test, r.held_by_me);
	}
	spin_unlock(&test_lock);
	KUNIT_EXPECT_EQ(test, test_lock.owner, -1);
	KUNIT_EXPECT_FALSE(test, spin_held_by_me(&test_lock));
	if (nr_cpu_ids > 1) {
		smp_call_function_single(1, try_from_other_cpu, &r, 1);
		KUNIT_EXPECT_TRUE(test, r.got);
	}
	KUNIT_EXPECT_EQ(test, test_lock.acquisitions, nr_cpu_ids > 1 ? 2 : 1);
}

static void irqsave_restores_state(struct kunit *test)
{
	unsigned long flags, outer;

	spin_lock_init(&test_lock, "test_lock");
	local_irq_enable();
	spin_lock_irqsave(&test_lock, flags);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	spin_unlock_irqrestore(&test_lock, flags);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	local_irq_save(outer);
	spin_lock_irqsave(&test_lock, flags);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	spin_unlock_irqrestore(&test_lock, flags);
	KUNIT_EXPECT_TRUE(test, irqs_disabled()); /* was off before: stays off */
	local_irq_restore(outer);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

static void locked_increment(void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&test_lock, flags);
	shared_counter++;
	spin_unlock_irqrestore(&test_lock, flags);
}

/*
 * Each CPU takes the lock with interrupts off while the others send it cross-calls that take
 * the same lock. If irqsave did not keep interrupts off, a handler would find its own CPU
 * holding the lock: a panic for recursion (or a deadlock), not a wrong count.
 */
static void process_and_handler(struct kunit *test, void *arg)
{
	int next = (smp_processor_id() + 1) % nr_cpu_ids;

	for (int i = 0; i < ROUNDS / 10; i++) {
		locked_increment(NULL);
		if (i % 8 == 0)
			smp_call_function_single(next, locked_increment, NULL, 1);
	}
}

static void irqsave_lock_shared_with_handlers(struct kunit *test)
{
	int per_cpu_calls = (ROUNDS / 10 + 7) / 8;

	spin_lock_init(&test_lock, "test_lock");
	shared_counter = 0;
	kunit_run_on_all_cpus(test, process_and_handler, NULL);
	KUNIT_EXPECT_EQ(test, shared_counter,
			(u64)nr_cpu_ids * (ROUNDS / 10) + (u64)nr_cpu_ids * per_cpu_calls);
}

static struct kunit_case spinlock_cases[] = {
	KUNIT_CASE(counter_exact_under_all_cpus),
	KUNIT_CASE(owner_and_trylock),
	KUNIT_CASE(irqsave_restores_state),
	KUNIT_CASE(irqsave_lock_shared_with_handlers),
	{}
};

static struct kunit_suite spinlock_suite = {
	.name = "spinlock",
	.test_cases = spinlock_cases,
};
kunit_test_suite(spinlock_suite);
