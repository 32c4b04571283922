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

/*
 * The soft interrupt mask, for the slab fastpaths (mm/slub.c's irq fastpath): a few
 * instructions that must not be interleaved with an interrupt handler's allocator calls
 * on the same CPU, as between local_irq_save and local_irq_restore, for less than those
 * cost. An interrupt that arrives while masked is held back and runs at the unmask, as
 * powerpc's lazy interrupt disabling does (arch/powerpc/include/asm/hw_irq.h in Linux).
 *
 *   irq_soft_mask()        from here on interrupts are held back (not nested; the code
 *                          between calls nothing that masks again)
 *   irq_soft_unmask()      a held interrupt runs now, and interrupts are as they were
 *   irq_soft_to_hard()     instead of the unmask, for a slow path: interrupts off (cli),
 *                          anything held has run, and the return value is the flags
 *                          local_irq_save would have returned at irq_soft_mask; the slow
 *                          path ends with local_irq_restore(flags)
 *   irq_soft_held(cpu)     how many interrupts the mask has held back on cpu so far
 *
 * x86 keeps the mask in struct percpu_hdr (arch/x86/cpu.h). The host arch (arch/host/cpu.h)
 * masks as local_irq_save does, its flags in a thread-local word: there "interrupts off" is
 * already a flag or a signal mask, and nothing is ever held.
 */
#ifndef ARCH_IRQ_SOFT_MASK
#error "the arch's cpu.h gives arch_irq_soft_mask and the rest (ARCH_IRQ_SOFT_MASK)"
#endif
#define irq_soft_mask() arch_irq_soft_mask()
#define irq_soft_unmask() arch_irq_soft_unmask()
#define irq_soft_to_hard() arch_irq_soft_to_hard()
#define irq_soft_held(cpu) arch_irq_soft_held(cpu)

#endif
