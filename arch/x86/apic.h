/* SPDX-License-Identifier: MIT */
/*
 * The local APIC, in x2APIC mode (MSRs) when the CPU has it and xAPIC mode (MMIO) otherwise.
 * IPIs go to one APIC id at a time: a broadcast shorthand would also reach CPUs we left out.
 */
#ifndef SLABLAB_APIC_H
#define SLABLAB_APIC_H

#include "kernel/types.h"

/* Interrupt vectors slablab uses (exceptions are 0..31; the masked 8259 sits at 0x20..0x2f). */
#define VEC_PIC_BASE 0x20
#define VEC_STORM 0xef         /* the local APIC timer of an interrupt storm (kernel/irq_storm.h) */
#define VEC_CALL_FUNCTION 0xf0 /* cross-call queue has work (kernel/smp.c) */
#define VEC_WAKEUP 0xf1        /* leave hlt and look at the run queue */
#define VEC_IPI_HANDLER 0xf2   /* 0xf2.. one per entry of kernel/smp.c's IPI handler table */
#define VEC_IRQ_WORK 0xfa      /* self-IPI: kernel/irq_work.c's list has work */
#define VEC_TIMER 0xfb         /* the local APIC timer, one-shot: a halted wait's time is up */
#define VEC_APIC_ERROR 0xfe
#define VEC_SPURIOUS 0xff

extern bool x2apic_mode;

/*
 * xAPIC destinations are 8 bits and 0xff is the broadcast: a CPU whose APIC id is above 0xfe
 * can be reached only in x2APIC mode (smp_prepare leaves it out otherwise).
 */
#define XAPIC_MAX_ID 0xfe
static inline bool apic_id_needs_x2apic(u32 id)
{
	return id > XAPIC_MAX_ID;
}

bool apic_has_x2apic(void); /* CPUID.01H:ECX.x2APIC[bit 21] */

void apic_init_bsp(u64 madt_lapic_addr);
void apic_init_cpu(void);
u32 apic_id(void);
void apic_eoi(void);
void apic_send_ipi(u32 apic_id, u8 vector);
void apic_send_nmi(u32 apic_id);
void apic_send_self(u8 vector); /* NMI-safe: one register write, no destination */
/* The local APIC timer: one interrupt at VEC_TIMER after about ns (0: not at all). */
void apic_timer_oneshot(u64 ns);
void apic_send_init(u32 apic_id);
void apic_send_sipi(u32 apic_id, u8 page);
u32 apic_read_esr(void);
/* The local APIC timer at vector after count ticks (an interrupt storm's, arch/x86/irq_storm.c;
 * a halted wait with a timeout on the same CPU takes the timer over), and stopped. */
void apic_timer_storm(u8 vector, u32 count);
void apic_timer_stop(void);

#endif
