// SPDX-License-Identifier: MIT
/*
 * The soft interrupt mask (kernel/irqflags.h, the irq fastpath's): an interrupt that
 * arrives while masked is held back, not lost and not run early; it runs at the unmask, or
 * at irq_soft_to_hard, which then returns the flags local_irq_save would have; with
 * interrupts off besides, the mask holds nothing and the interrupt waits at the APIC as
 * usual. Each case sends this CPU an IPI to itself.
 */
#include "kernel/irqflags.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"

static int soft_hits[NR_CPUS];

static void soft_hit(void)
{
	__atomic_fetch_add(&soft_hits[smp_processor_id()], 1, __ATOMIC_RELAXED);
}
smp_ipi_handler(soft_hit_ipi, "irq-soft-test", soft_hit);

static int hits_here(void)
{
	return __atomic_load_n(&soft_hits[smp_processor_id()], __ATOMIC_RELAXED);
}

/* Spin until cond or 2 s (a lost interrupt fails the case instead of hanging the suite). */
#define SPIN_UNTIL(cond)                                                                           \
	({                                                                                         \
		u64 deadline_ = get_cycles() + ns_to_cycles(2000000000ULL);                        \
		while (!(cond) && get_cycles() < deadline_)                                       \
			cpu_relax();                                                               \
		(cond);                                                                            \
	})

static void skip_with_interrupts_off(struct kunit *test)
{
	if (irqs_disabled())
		kunit_skip(test, "needs interrupts on");
}

/* Mask, send this CPU an IPI, wait until the mask has held it: the cases' common start. */
static void mask_and_hold_one(struct kunit *test, int me, int before, u64 held)
{
	irq_soft_mask();
	smp_send_ipi(me, &soft_hit_ipi);
	KUNIT_EXPECT_TRUE_MSG(test, SPIN_UNTIL(irq_soft_held(me) == held + 1),
			      "the IPI was not held within 2 s");
	KUNIT_EXPECT_EQ_MSG(test, hits_here(), before, "the handler ran while masked");
}

static void held_until_unmask(struct kunit *test)
{
	int me = smp_processor_id(), before;
	u64 held;

	skip_with_interrupts_off(test);
	before = hits_here();
	held = irq_soft_held(me);
	mask_and_hold_one(test, me, before, held);
	KUNIT_EXPECT_TRUE_MSG(test, irqs_disabled(), "interrupts still on after a hold");
	irq_soft_unmask();
	KUNIT_EXPECT_EQ_MSG(test, hits_here(), before + 1, "the unmask did not run the handler");
	KUNIT_EXPECT_FALSE_MSG(test, irqs_disabled(), "interrupts not back on after the unmask");
	/* The next one is not held: the mask is down. */
	smp_send_ipi(me, &soft_hit_ipi);
	KUNIT_EXPECT_TRUE(test, SPIN_UNTIL(hits_here() == before + 2));
	KUNIT_EXPECT_EQ(test, irq_soft_held(me), held + 1);
}

static void held_until_to_hard(struct kunit *test)
{
	int me = smp_processor_id(), before;
	unsigned long flags;
	u64 held;

	skip_with_interrupts_off(test);
	before = hits_here();
	held = irq_soft_held(me);
	mask_and_hold_one(test, me, before, held);
	flags = irq_soft_to_hard();
	KUNIT_EXPECT_EQ_MSG(test, hits_here(), before + 1, "irq_soft_to_hard did not run it");
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	KUNIT_EXPECT_FALSE_MSG(test, irqs_disabled_flags(flags),
			       "the flags say interrupts were off at the mask");
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

static void nothing_held_with_interrupts_off(struct kunit *test)
{
	int me = smp_processor_id(), before;
	unsigned long flags, hard;
	u64 held, t;

	skip_with_interrupts_off(test);
	before = hits_here();
	held = irq_soft_held(me);
	local_irq_save(flags);
	irq_soft_mask();
	smp_send_ipi(me, &soft_hit_ipi);
	t = get_cycles() + ns_to_cycles(1000000ULL);
	while (get_cycles() < t)
		cpu_relax();
	irq_soft_unmask();
	KUNIT_EXPECT_EQ(test, irq_soft_held(me), held);
	KUNIT_EXPECT_EQ_MSG(test, hits_here(), before, "ran with interrupts off");
	KUNIT_EXPECT_TRUE_MSG(test, irqs_disabled(), "the unmask turned interrupts on");
	irq_soft_mask();
	hard = irq_soft_to_hard();
	KUNIT_EXPECT_TRUE_MSG(test, irqs_disabled_flags(hard),
			      "irq_soft_to_hard says on where they were off");
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE_MSG(test, SPIN_UNTIL(hits_here() == before + 1),
			      "the IPI was lost after interrupts came back");
}

static struct kunit_case irq_soft_cases[] = {
	KUNIT_CASE(held_until_unmask),
	KUNIT_CASE(held_until_to_hard),
	KUNIT_CASE(nothing_held_with_interrupts_off),
	{}
};

static struct kunit_suite irq_soft_suite = {
	.name = "irq_soft",
	.test_cases = irq_soft_cases,
};
kunit_test_suite(irq_soft_suite);
