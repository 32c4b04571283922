/* SPDX-License-Identifier: MIT */
/*
 * x86's half of kernel/percpu.h, kernel/irqflags.h and kernel/time.h (included through
 * kernel/arch.h): per-cpu access through GS, the interrupt flag (read_rflags, RFLAGS_IF,
 * irq_disable_raw, irq_enable_raw and cpu_relax are x86.h's) and the cycle counter.
 *
 * GS base holds the address of this CPU's copy of the per-cpu section, whose first object
 * is struct percpu_hdr (kernel/percpu.h): %gs:0 is the copy's distance from the link-time
 * section, %gs:8 the logical CPU number (the offsets are checked in arch/x86/cpu.c).
 */
#ifndef SLABLAB_ARCH_CPU_H
#define SLABLAB_ARCH_CPU_H

#include "arch/x86/x86.h"

static inline unsigned long arch_percpu_offset(void)
{
	unsigned long v;

	/* Not volatile: a CPU's offset never changes once set (see percpu_switch()). */
	__asm__("movq %%gs:0, %0" : "=r"(v));
	return v;
}

static inline int arch_cpu_id(void)
{
	int v;

	__asm__("movl %%gs:8, %0" : "=r"(v));
	return v;
}

/* This cpu's cpu * percpu_slub_stride (struct percpu_hdr's slub_off, %gs:24). */
static inline unsigned long arch_slub_cpu_off(void)
{
	unsigned long v;

	__asm__("movq %%gs:24, %0" : "=r"(v));
	return v;
}

/*
 * The soft interrupt mask (kernel/irqflags.h): struct percpu_hdr's irq_soft, %gs:32. Masking
 * is one store. trap_handler (arch/x86/traps.c) holds back an interrupt that finds bit 0
 * set: it puts the vector in bits 8..15 and returns with IF clear in the interrupted
 * RFLAGS, so nothing else arrives. The unmask subtracts the 1: a result that is not zero
 * means an interrupt is held, and arch_irq_soft_replay() runs it and turns IF back on.
 * No cli, sti, pushf or popf on the way: under QEMU's TCG each sti and popf ends the
 * translated block and goes back to its main loop, which costs more than all the rest of an
 * alloc+free pair.
 */
#define ARCH_IRQ_SOFT_MASK
/* traps.c: run the held interrupt, then sti; it saves every register it uses (the unmask
 * calls it from inside its asm, which the compiler sees as a plain instruction) */
void arch_irq_soft_replay(void) __attribute__((no_caller_saved_registers));
unsigned long arch_irq_soft_run_held(u32 word, unsigned long flags); /* traps.c */
u64 arch_irq_soft_held(int cpu);           /* traps.c: interrupts held back on cpu so far */

static __always_inline void arch_irq_soft_mask(void)
{
	__asm__ __volatile__("movl $1, %%gs:32" ::: "memory");
}

/* Masked to off: cli, the mask down, a held interrupt run (out of line); the flags as
 * local_irq_save would have returned them at the mask (a held one means IF was set). */
static __always_inline unsigned long arch_irq_soft_to_hard(void)
{
	unsigned long flags = read_rflags();
	u32 w;

	irq_disable_raw();
	__asm__ __volatile__("movl %%gs:32, %0\n\tmovl $0, %%gs:32" : "=r"(w) : : "memory");
	if (unlikely(w > 1))
		flags = arch_irq_soft_run_held(w, flags);
	return flags;
}

static __always_inline void arch_irq_soft_unmask(void)
{
	/* The call inside the asm: the compiler keeps nothing in a callee-saved register for it. */
	__asm__ __volatile__("subl $1, %%gs:32\n\t"
			     "jz 1f\n\t"
			     "call arch_irq_soft_replay\n"
			     "1:"
			     : : : "memory", "cc");
}

/* kernel/nmi.h's in_nmi(): struct percpu_hdr's nmi_depth, %gs:36, one load (NMI-safe). */
static inline bool arch_in_nmi(void)
{
	u32 v;

	__asm__ __volatile__("movl %%gs:36, %0" : "=r"(v) : : "memory");
	return v != 0;
}

static inline void arch_set_gs_base(void *p)
{
	wrmsr(MSR_GS_BASE, (u64)(uptr)p);
}

static inline u64 get_cycles(void)
{
	return rdtsc();
}

static inline u64 get_cycles_ordered(void)
{
	return rdtsc_ordered();
}

/* observer_clock= (arch/x86/smpboot.c): whether observer_clock() (arch/x86/tsc.c) runs PIT
 * channel 0 as the outside clock of kernel/time.h. */
extern unsigned int observer_clock_on;

#endif
