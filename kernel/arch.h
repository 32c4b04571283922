/* SPDX-License-Identifier: MIT */
/* What the arch-neutral kernel asks of arch/ (implemented in arch/). */
#ifndef SLABLAB_ARCH_H
#define SLABLAB_ARCH_H

#include "types.h"

void arch_send_call_ipi(int cpu);   /* "your cross-call queue has work" */
void arch_send_wakeup_ipi(int cpu); /* "leave hlt and look at your work" */
void arch_send_slab_ipi(int cpu);   /* "the slab allocator sent you objects or a request" */
void arch_idle(void);               /* enable interrupts and halt until one arrives */
void arch_halt_while_ne(const volatile u32 *p, u32 v); /* halt unless *p == v; NMI-safe */
void arch_kick_cpu(int cpu);        /* NMI cpu out of arch_halt_while_ne() */
bool arch_hypervisor(void);         /* running under a hypervisor (CPUID.1:ECX[31]) */
bool arch_has_cmpxchg_double(void); /* a 16-byte compare-and-exchange (x86: CMPXCHG16B, CX16) */
void arch_stop_other_cpus(void);    /* NMI every other online CPU into a halt loop */
void arch_backtrace(void);          /* print the caller's frame-pointer backtrace */
void __noreturn arch_exit(int code); /* QEMU: isa-debug-exit; real hardware: halt */
const char *arch_accel(void);       /* "kvm", "tcg", "hw" or another hypervisor's name */
const char *arch_cpu_model(void);

/* kernel/panic.c, for arch/traps.c: take the panic (false: someone else has it), finish it. */
bool panic_begin(void);
void __noreturn panic_end(void);

#endif
