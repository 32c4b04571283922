/* SPDX-License-Identifier: MIT */
/*
 * Inline wrappers for x86-64 instructions. All inline assembly of slablab lives in arch/;
 * kernel/ and mm/ call these (or the arch_* functions built on them) instead.
 */
#ifndef SLABLAB_X86_H
#define SLABLAB_X86_H

#include "kernel/types.h"

/* Selectors of the per-cpu GDT (arch/x86/gdt.c) and of the boot GDT (arch/x86/boot/entry.asm). */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define KERNEL_TSS 0x18

#define RFLAGS_IF (1UL << 9)

#define MSR_APIC_BASE 0x1b
#define MSR_EFER 0xc0000080
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

static inline void outb(u16 port, u8 v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(u16 port, u16 v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;

	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;

	__asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline void cpuid_count(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline void cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid_count(leaf, 0, a, b, c, d);
}

/*
 * rdtsc is not ordered against earlier loads; lfence before it makes the read wait for
 * everything before it (on Intel, and on AMD with the lfence-serialising MSR set, which every
 * current kernel sets). Benchmarks use rdtsc_ordered at both ends of a timed region.
 */
static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static inline u64 read_cr0(void)
{
	u64 v;

	__asm__ __volatile__("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr2(void)
{
	u64 v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr3(void)
{
	u64 v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr4(void)
{
	u64 v;

	__asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline u64 read_rflags(void)
{
	u64 f;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

static inline void *read_rbp(void)
{
	void *p;

	__asm__ __volatile__("mov %%rbp, %0" : "=r"(p));
	return p;
}

static inline void irq_disable_raw(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static inline void irq_enable_raw(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

/*
 * local_irq_restore: sti if f had IF set, as one asm: three instructions where the
 * compiler, left to itself, tends to keep a masked copy of f in a second register.
 */
#define ARCH_IRQ_RESTORE
static inline void arch_irq_restore(u64 f)
{
	__asm__ __volatile__("testl $0x200, %k0\n\tjz 1f\n\tsti\n1:" : : "r"(f) : "memory", "cc");
}

/* sti takes effect after the next instruction, so no interrupt can slip in before hlt. */
static inline void safe_halt(void)
{
	__asm__ __volatile__("sti; hlt" ::: "memory");
}

static inline void halt(void)
{
	__asm__ __volatile__("hlt" ::: "memory");
}

/* Full fence: orders every earlier load and store before every later one, across CPUs. */
static inline void mb(void)
{
	__asm__ __volatile__("mfence" ::: "memory");
}

/* x86 is TSO: loads are not reordered with loads, stores not with stores. */
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#define smp_mb() mb()

static inline u32 mmio_read32(volatile void *addr)
{
	return *(volatile u32 *)addr;
}

static inline void mmio_write32(volatile void *addr, u32 v)
{
	*(volatile u32 *)addr = v;
}

static inline u64 mmio_read64(volatile void *addr)
{
	return *(volatile u64 *)addr;
}

static inline void mmio_write64(volatile void *addr, u64 v)
{
	*(volatile u64 *)addr = v;
}

struct __packed desc_ptr {
	u16 limit;
	u64 base;
};

static inline void lgdt(const struct desc_ptr *p)
{
	__asm__ __volatile__("lgdt %0" : : "m"(*p));
}

static inline void lidt(const struct desc_ptr *p)
{
	__asm__ __volatile__("lidt %0" : : "m"(*p));
}

static inline void ltr(u16 sel)
{
	__asm__ __volatile__("ltr %0" : : "r"(sel));
}

#endif
