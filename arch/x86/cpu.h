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

/* This cpu's cpu * PERCPU_SLUB_STRIDE (struct percpu_hdr's slub_off, %gs:24). */
static inline unsigned long arch_slub_cpu_off(void)
{
	unsigned long v;

	__asm__("movq %%gs:24, %0" : "=r"(v));
	return v;
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

#endif
