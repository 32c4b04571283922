/* SPDX-License-Identifier: MIT */
/*
 * Per-cpu access through GS and interrupt-flag save/restore: the arch half of
 * kernel/percpu.h and kernel/irqflags.h.
 */
#ifndef SLABLAB_ARCH_CPU_H
#define SLABLAB_ARCH_CPU_H

#include "arch/x86/x86.h"

/*
 * The first object in every CPU's copy of the per-cpu section (see kernel/percpu.c).
 * GS base holds the address of that copy, so %gs:0 is the copy's distance from the
 * link-time section and %gs:8 the logical CPU number. boot/ and the trap entry do not use
 * it; the offsets are checked below so nothing else drifts.
 */
struct percpu_hdr {
	unsigned long offset; /* this copy minus __percpu_start */
	int cpu;              /* logical CPU number, 0..nr_cpus-1 */
	u32 apic_id;          /* local APIC id (x2APIC id when in x2APIC mode) */
	struct percpu_hdr *self;
};
_Static_assert(offsetof(struct percpu_hdr, offset) == 0, "gs:0 is the per-cpu offset");
_Static_assert(offsetof(struct percpu_hdr, cpu) == 8, "gs:8 is the cpu number");

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

static inline void arch_set_gs_base(void *p)
{
	wrmsr(MSR_GS_BASE, (u64)(uptr)p);
}

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long f = read_rflags();

	irq_disable_raw();
	return f;
}

static inline void arch_local_irq_restore(unsigned long f)
{
	if (f & RFLAGS_IF)
		irq_enable_raw();
}

static inline bool arch_irqs_disabled(void)
{
	return !(read_rflags() & RFLAGS_IF);
}

static inline u64 get_cycles(void)
{
	return rdtsc();
}

#endif
