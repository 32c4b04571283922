// SPDX-License-Identifier: MIT
/* The arch services kernel/arch.h promises: IPIs, idling, and leaving the machine. */
#include "arch/x86/apic.h"
#include "arch/x86/x86.h"
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"

/* arch/x86/cpu.h reads these two with %gs:0 and %gs:8. */
_Static_assert(offsetof(struct percpu_hdr, offset) == 0, "gs:0 is the per-cpu offset");
_Static_assert(offsetof(struct percpu_hdr, cpu) == 8, "gs:8 is the cpu number");
_Static_assert(offsetof(struct percpu_hdr, slub_off) == 24, "gs:24 is the slab stride offset");
_Static_assert(offsetof(struct percpu_hdr, irq_soft) == 32, "gs:32 is the soft interrupt mask");
_Static_assert(offsetof(struct percpu_hdr, nmi_depth) == 36, "gs:36 is the NMI depth");

void arch_send_call_ipi(int cpu)
{
	apic_send_ipi(per_cpu(percpu_hdr, cpu).apic_id, VEC_CALL_FUNCTION);
}

void arch_send_wakeup_ipi(int cpu)
{
	apic_send_ipi(per_cpu(percpu_hdr, cpu).apic_id, VEC_WAKEUP);
}

_Static_assert(VEC_IPI_HANDLER + SMP_NR_IPI_HANDLERS <= VEC_IRQ_WORK, "IPI handler vectors");

void arch_send_ipi(int cpu, unsigned int slot)
{
	apic_send_ipi(per_cpu(percpu_hdr, cpu).apic_id, (u8)(VEC_IPI_HANDLER + slot));
}

void arch_idle(void)
{
	safe_halt();
}

void arch_idle_timeout(u64 ns)
{
	irq_disable_raw(); /* the timer must not fire before the hlt it is meant to end */
	apic_timer_oneshot(ns);
	safe_halt();
	apic_timer_oneshot(0); /* woken by something else: the timer is not needed any more */
}

void arch_send_nmi(int cpu)
{
	apic_send_nmi(per_cpu(percpu_hdr, cpu).apic_id);
}

void arch_irq_work_raise(void)
{
	apic_send_self(VEC_IRQ_WORK);
}

/*
 * An IRET to the next instruction, as the return of a handled exception would run inside
 * the NMI handler: the CPU stops holding NMIs back from here on (SDM vol. 3, 6.7.1).
 */
void arch_nmi_iret_for_test(void)
{
	__asm__ __volatile__("movq %%ss, %%rax\n\t"
			     "pushq %%rax\n\t"
			     "leaq 8(%%rsp), %%rax\n\t"
			     "pushq %%rax\n\t"
			     "pushfq\n\t"
			     "movq %%cs, %%rax\n\t"
			     "pushq %%rax\n\t"
			     "leaq 1f(%%rip), %%rax\n\t"
			     "pushq %%rax\n\t"
			     "iretq\n"
			     "1:"
			     : : : "rax", "memory", "cc");
}

/*
 * Halt unless *p == v, without leaving the interrupt flag's state. Waking is by NMI when
 * interrupts are off, and an NMI that lands between the check and the hlt would be slept
 * through; so the check and the hlt form a window [halt_window_start, halt_window_end), and
 * arch/x86/traps.c returns from any NMI that lands inside it to the end of the window instead.
 * The caller re-checks and, if it must, calls again.
 */
void __attribute__((noinline, noclone)) arch_halt_while_ne(const volatile u32 *p, u32 v)
{
	__asm__ __volatile__(".globl halt_window_start\n"
			     ".globl halt_window_end\n"
			     "halt_window_start:\n\t"
			     "cmpl %1, %0\n\t"
			     "je halt_window_end\n\t"
			     "hlt\n"
			     "halt_window_end:\n"
			     :
			     : "m"(*p), "r"(v)
			     : "memory", "cc");
}

void arch_kick_cpu(int cpu)
{
	apic_send_nmi(per_cpu(percpu_hdr, cpu).apic_id);
}

bool arch_hypervisor(void)
{
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return c & (1u << 31);
}
