/* SPDX-License-Identifier: MIT */
/* Descriptor tables, exceptions and interrupt dispatch (arch/x86/gdt.c, arch/x86/traps.c). */
#ifndef SLABLAB_TRAPS_H
#define SLABLAB_TRAPS_H

#include "kernel/types.h"

/* What arch/x86/entry.asm leaves on the stack; the order is its push order, reversed. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error;
	u64 rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};
_Static_assert(offsetof(struct trap_frame, vector) == 15 * 8, "matches isr_common's pushes");
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "keeps the stack 16-byte aligned");

/* IST stacks: #DF and #MC. NMIs have none: they run on the stack they interrupt
 * (arch/x86/traps.c says why). */
#define IST_DOUBLE_FAULT 1
#define IST_MACHINE_CHECK 2
#define IST_STACKS 2
#define IST_STACK_SIZE 8192
#define KERNEL_STACK_SIZE 32768

void cpu_tables_init(void); /* this CPU: GDT, TSS with IST stacks, IDT */
void trap_handler(struct trap_frame *f);
void dump_backtrace(u64 rip, u64 rbp);
bool cpu_stopped(int cpu);
void pic_disable(void);

/* arch/x86/smpboot.c */
int smp_prepare(unsigned int max_cpus);
void smp_boot_begin(void);
void smp_boot_finish(void);
void __noreturn ap_entry(u32 ticket);
extern u64 boot_aps_online_tsc;

#endif
