/* SPDX-License-Identifier: MIT */
/*
 * What the arch-neutral kernel asks of arch/, and the one place where it meets arch/: code
 * outside arch/ includes this header, never an arch/ header itself (tools/layercheck.sh).
 *
 * The build picks the arch with a define:
 *   ARCH_X86   the kernel (arch/x86/: GS-based per-cpu data, cli/sti, the local APIC)
 *   ARCH_HOST  Linux user space on x86-64 (arch/host/): the host tests, the fuzzer and
 *              bench-host, with threads as CPUs and signals as IPIs (docs/host-build.md)
 * Each arch gives, inline: per-cpu access and the interrupt flag (cpu.h), cmpxchg_double
 * (cmpxchg.h) and RDRAND/RDSEED (rdrand.h); the functions below are out of line.
 */
#ifndef SLABLAB_ARCH_H
#define SLABLAB_ARCH_H

#include "kernel/types.h"

#if defined(ARCH_X86) && !defined(ARCH_HOST)
#include "arch/x86/cmpxchg.h"
#include "arch/x86/cpu.h"
#include "arch/x86/rdrand.h"
#elif defined(ARCH_HOST) && !defined(ARCH_X86)
#include "arch/host/cmpxchg.h"
#include "arch/host/cpu.h"
#include "arch/x86/rdrand.h" /* user space on x86-64: the same instructions */
#else
#error "build with -DARCH_X86 (the kernel) or -DARCH_HOST (user space), not both"
#endif

void arch_send_call_ipi(int cpu);   /* "your cross-call queue has work" */
void arch_send_wakeup_ipi(int cpu); /* "leave hlt and look at your work" */
void arch_send_ipi(int cpu, unsigned int slot); /* "run kernel/smp.c's IPI handler slot" */
void arch_idle(void);               /* enable interrupts and halt until one arrives */
/* arch_idle, but also woken after about ns (x86: the local APIC timer, one-shot) */
void arch_idle_timeout(u64 ns);
void arch_halt_while_ne(const volatile u32 *p, u32 v); /* halt unless *p == v; NMI-safe */
void arch_kick_cpu(int cpu);        /* NMI cpu out of arch_halt_while_ne() */
/* NMIs (kernel/nmi.c): one to cpu; a self-IPI that runs irq_work_run() (NMI-safe); what the
 * machine says about where an NMI nobody sent came from; and, for tests, an IRET in the
 * NMI handler (which lets the next NMI in). */
void arch_send_nmi(int cpu);
void arch_irq_work_raise(void);
void arch_nmi_reason(char *buf, size_t len);
void arch_nmi_iret_for_test(void);
bool arch_hypervisor(void);         /* running under a hypervisor (CPUID.1:ECX[31]) */
bool arch_has_cmpxchg_double(void); /* a 16-byte compare-and-exchange (x86: CMPXCHG16B, CX16) */
void arch_stop_other_cpus(void);    /* NMI every other online CPU into a halt loop */
void arch_backtrace(void);          /* print the caller's frame-pointer backtrace */
void __noreturn arch_exit(int code); /* as exit= says: QEMU's isa-debug-exit, halt, reboot... */
const char *arch_exit_action(void); /* what arch_exit will do: "halting all CPUs", "rebooting" */
const char *arch_accel(void);       /* "kvm", "tcg", "hw" or another hypervisor's name */
const char *arch_cpu_model(void);

/* kernel/panic.c, for arch/x86/traps.c: take the panic (false: someone else has it), finish it. */
bool panic_begin(void);
void __noreturn panic_end(void);

#endif
