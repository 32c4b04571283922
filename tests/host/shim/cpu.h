/* SPDX-License-Identifier: MIT */
/*
 * Host stand-in for arch/cpu.h (which reads GS and runs cli/sti): one CPU, number 0, per-cpu
 * offset 0, and an interrupt flag that is just a variable, so tests can see irqsave undone.
 */
#ifndef SLABLAB_ARCH_CPU_H
#define SLABLAB_ARCH_CPU_H

#include "types.h"

#define RFLAGS_IF (1UL << 9)

/* Same layout as arch/cpu.h's; on the host nothing reads it through GS. */
struct percpu_hdr {
	unsigned long offset;
	int cpu;
	u32 apic_id;
	struct percpu_hdr *self;
};

extern unsigned long host_rflags; /* tests/host/shim/host_env.c; starts with RFLAGS_IF set */

static inline unsigned long arch_percpu_offset(void)
{
	return 0; /* the one CPU runs on the link-time copy of the per-cpu section */
}

static inline int arch_cpu_id(void)
{
	return 0;
}

static inline u64 read_rflags(void)
{
	return host_rflags;
}

static inline void irq_disable_raw(void)
{
	host_rflags &= ~RFLAGS_IF;
}

static inline void irq_enable_raw(void)
{
	host_rflags |= RFLAGS_IF;
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
	return __builtin_ia32_rdtsc();
}

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
}

#endif
