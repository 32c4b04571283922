// SPDX-License-Identifier: MIT
/* The arch services kernel/arch.h promises: IPIs, idling, and leaving the machine. */
#include "apic.h"
#include "arch.h"
#include "percpu.h"
#include "printk.h"
#include "x86.h"

#define ISA_DEBUG_EXIT_PORT 0xf4

void arch_send_call_ipi(int cpu)
{
	apic_send_ipi(per_cpu(percpu_hdr, cpu).apic_id, VEC_CALL_FUNCTION);
}

void arch_send_wakeup_ipi(int cpu)
{
	apic_send_ipi(per_cpu(percpu_hdr, cpu).apic_id, VEC_WAKEUP);
}

void arch_idle(void)
{
	safe_halt();
}

void arch_halt_keep_irqs(void)
{
	halt();
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

/*
 * Under a hypervisor (QEMU) write the code to isa-debug-exit, which ends QEMU with status
 * code * 2 + 1. On real hardware (no hypervisor bit) port 0xf4 may belong to something else,
 * so we do not touch it: the final line is printed, every CPU halts.
 */
void arch_exit(int code)
{
	irq_disable_raw();
	arch_stop_other_cpus();
	if (arch_hypervisor())
		outb(ISA_DEBUG_EXIT_PORT, (u8)code);
	for (;;)
		halt();
}
