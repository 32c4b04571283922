// SPDX-License-Identifier: MIT
/*
 * Per-cpu descriptor tables. Each CPU has its own GDT (null, code, data, 16-byte TSS), its
 * own TSS whose IST entries point at per-cpu stacks for #DF and #MC (so those run on a
 * known-good stack even when the current one is broken), and its own copy of the IDT. NMIs
 * have no IST stack on purpose: arch/x86/traps.c says why.
 */
#include "arch/x86/traps.h"
#include "arch/x86/x86.h"
#include "kernel/percpu.h"
#include "kernel/string.h"

struct __packed tss64 {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
};
_Static_assert(sizeof(struct tss64) == 104, "hardware TSS layout");

struct __packed idt_gate {
	u16 offset_lo;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 offset_mid;
	u32 offset_hi;
	u32 reserved;
};
_Static_assert(sizeof(struct idt_gate) == 16, "hardware gate layout");

struct cpu_tables {
	u64 gdt[5] __aligned(16);
	struct tss64 tss __aligned(16);
	struct idt_gate idt[256] __aligned(16);
	u8 ist_stacks[IST_STACKS][IST_STACK_SIZE] __aligned(16);
};

static DEFINE_PER_CPU(struct cpu_tables, cpu_tables);
extern const u64 isr_stub_table[256];

static void set_gate(struct idt_gate *g, u64 handler, u8 ist)
{
	g->offset_lo = handler & 0xffff;
	g->selector = KERNEL_CS;
	g->ist = ist;
	g->type_attr = 0x8e; /* present, ring 0, 64-bit interrupt gate (IF cleared on entry) */
	g->offset_mid = (handler >> 16) & 0xffff;
	g->offset_hi = handler >> 32;
	g->reserved = 0;
}

void cpu_tables_init(void)
{
	struct cpu_tables *t = this_cpu_ptr(&cpu_tables);
	u64 tss = (u64)(uptr)&t->tss;
	struct desc_ptr gdtr = { sizeof(t->gdt) - 1, (u64)(uptr)t->gdt };
	struct desc_ptr idtr = { sizeof(t->idt) - 1, (u64)(uptr)t->idt };

	t->gdt[0] = 0;
	t->gdt[1] = 0x00af9a000000ffffULL; /* KERNEL_CS: 64-bit code */
	t->gdt[2] = 0x00cf92000000ffffULL; /* KERNEL_DS */
	/* KERNEL_TSS: limit, base 0..23, type 9 (available 64-bit TSS), present, base 24..63 */
	t->gdt[3] = (sizeof(t->tss) - 1) | ((tss & 0xffffff) << 16) | (0x89ULL << 40) |
		    ((tss >> 24 & 0xff) << 56);
	t->gdt[4] = tss >> 32;

	memset(&t->tss, 0, sizeof(t->tss));
	t->tss.iomap_base = sizeof(t->tss); /* no I/O bitmap */
	for (int i = 0; i < IST_STACKS; i++)
		t->tss.ist[i] = (u64)(uptr)(t->ist_stacks[i] + IST_STACK_SIZE);

	for (int v = 0; v < 256; v++)
		set_gate(&t->idt[v], isr_stub_table[v], 0);
	t->idt[8].ist = IST_DOUBLE_FAULT;
	t->idt[18].ist = IST_MACHINE_CHECK;

	lgdt(&gdtr);
	/* Reload CS with a far return, then the data segments, then the task register. */
	__asm__ __volatile__("pushq %0\n\t"
			     "leaq 1f(%%rip), %%rax\n\t"
			     "pushq %%rax\n\t"
			     "lretq\n"
			     "1:\n\t"
			     "movl %1, %%eax\n\t"
			     "movl %%eax, %%ds\n\t"
			     "movl %%eax, %%es\n\t"
			     "movl %%eax, %%ss\n\t"
			     :
			     : "i"(KERNEL_CS), "i"(KERNEL_DS)
			     : "rax", "memory");
	ltr(KERNEL_TSS);
	lidt(&idtr);
}
