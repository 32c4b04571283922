/* SPDX-License-Identifier: MIT */
/*
 * Per-cpu variables, Linux style. DEFINE_PER_CPU puts a variable in the .data.percpu
 * section; at boot every CPU gets its own copy of that section (kernel/percpu.c) and its GS
 * base points at it. this_cpu_ptr(&v) is &v plus this CPU's offset.
 */
#ifndef SLABLAB_PERCPU_H
#define SLABLAB_PERCPU_H

#include "kernel/arch.h"
#include "kernel/types.h"

/*
 * The first object in every CPU's copy of the per-cpu section (see kernel/percpu.c). On x86
 * GS base holds the copy's address, so %gs:0 is `offset` and %gs:8 `cpu` (arch/x86/cpu.h);
 * the host arch keeps both in thread-local variables instead.
 */
struct percpu_hdr {
	unsigned long offset; /* this copy minus __percpu_start */
	int cpu;              /* logical CPU number, 0..nr_cpus-1 */
	u32 apic_id;          /* local APIC id (x2APIC id when in x2APIC mode) */
	struct percpu_hdr *self;
	/* cpu * percpu_slub_stride: this cpu's struct kmem_cache_cpu in any cache's array
	 * (mm/slub.h's this_cpu_slab: one %gs load and an add, no multiply) */
	unsigned long slub_off;
	/*
	 * The slab fastpaths' interrupt mask (kernel/irqflags.h's irq_soft_mask; x86 reads it
	 * as %gs:32): bit 0 while masked; an interrupt that arrives then is held back, its
	 * vector in bits 8..15, and runs at the unmask.
	 */
	u32 irq_soft;
	/* NMIs being handled on this cpu (kernel/nmi.h's in_nmi(); x86 reads it as %gs:36):
	 * 1 inside the NMI handler; more would mean one nested, which slablab never allows */
	u32 nmi_depth;
};

/*
 * The stride of slub_off: sizeof(struct kmem_cache_cpu), which mm/slub.c defines this
 * constant as (the struct is mm's; its size is known where it is declared, and checked
 * there at compile time).
 */
extern const unsigned long percpu_slub_stride;

#define DEFINE_PER_CPU(type, name) __section(".data.percpu") __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name)                                                         \
	__section(".data.percpu") __cacheline_aligned __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name

extern unsigned long __per_cpu_offset[NR_CPUS];

#define per_cpu_ptr(ptr, cpu) ((__typeof__(ptr))((char *)(ptr) + __per_cpu_offset[cpu]))
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), cpu))
#define this_cpu_ptr(ptr) ((__typeof__(ptr))((char *)(ptr) + arch_percpu_offset()))
#define this_cpu(var) (*this_cpu_ptr(&(var)))

static inline int smp_processor_id(void)
{
	return arch_cpu_id();
}

DECLARE_PER_CPU(struct percpu_hdr, percpu_hdr);

/* percpu.c */
void percpu_early(void);
void percpu_setup(unsigned int nslots, void *(*alloc)(size_t size, size_t align));
void percpu_enter(int slot);
void percpu_assign(int slot, int cpu, u32 apic_id);
unsigned long percpu_size(void);

#endif
