/* SPDX-License-Identifier: MIT */
/*
 * local_irq_save/restore and friends, as in Linux. No preemption exists in slablab. Built
 * once, as Linux's asm-generic/irqflags.h builds them, from what each arch gives (its cpu.h,
 * through kernel/arch.h): read_rflags() (RFLAGS_IF set while interrupts are on),
 * irq_disable_raw() and irq_enable_raw().
 */
#ifndef SLABLAB_IRQFLAGS_H
#define SLABLAB_IRQFLAGS_H

#include "kernel/arch.h"

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long f = read_rflags();

	irq_disable_raw();
	return f;
}

static inline void arch_local_irq_restore(unsigned long f)
{
#ifdef ARCH_IRQ_RESTORE
	arch_irq_restore(f);
#else
	if (f & RFLAGS_IF)
		irq_enable_raw();
#endif
}

static inline bool arch_irqs_disabled(void)
{
	return !(read_rflags() & RFLAGS_IF);
}

#define local_irq_save(flags) ((flags) = arch_local_irq_save())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define local_irq_disable() irq_disable_raw()
#define local_irq_enable() irq_enable_raw()
#define irqs_disabled() arch_irqs_disabled()
#define irqs_disabled_flags(flags) (!((flags) & RFLAGS_IF))

#endif
