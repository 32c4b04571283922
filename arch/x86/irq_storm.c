// SPDX-License-Identifier: MIT
/* kernel/irq_storm.h on x86: the local APIC timer, one-shot, re-armed by each interrupt. */
#include "arch/x86/apic.h"
#include "kernel/irq_storm.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"

struct storm {
	irq_storm_fn *fn;
	void *arg;
};

static DEFINE_PER_CPU(struct storm, storm);

bool irq_storm_supported(void)
{
	return true;
}

void irq_storm_start(irq_storm_fn *fn, void *arg, u32 first)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu(storm).fn = fn;
	this_cpu(storm).arg = arg;
	apic_timer_storm(VEC_STORM, first);
	local_irq_restore(flags);
}

void irq_storm_stop(void)
{
	unsigned long flags;

	local_irq_save(flags);
	apic_timer_stop();
	this_cpu(storm).fn = NULL;
	local_irq_restore(flags);
}

/* The timer's interrupt (arch/x86/traps.c, after the EOI): rip is where it landed. */
void irq_storm_interrupt(u64 rip)
{
	struct storm *st = this_cpu_ptr(&storm);
	u32 next;

	if (!st->fn)
		return; /* stopped while this one was on its way */
	next = st->fn(st->arg, rip);
	if (next && st->fn)
		apic_timer_storm(VEC_STORM, next);
	else
		st->fn = NULL;
}
