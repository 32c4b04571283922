/* SPDX-License-Identifier: MIT */
/*
 * The host arch's half of kernel/percpu.h, kernel/irqflags.h and kernel/time.h (included
 * through kernel/arch.h when the build says -DARCH_HOST), where arch/x86/cpu.h reads GS and
 * runs cli/sti. Three flavours, chosen by what the sources are compiled with:
 *
 *   (no HOST_SMP)   one CPU, number 0, per-cpu offset 0, and an interrupt flag that is just a
 *                   variable, host_rflags, so tests can see every irqsave undone.
 *   HOST_SMP=1      threads are CPUs (arch/host/host_smp.c): each thread has its logical
 *                   CPU number and per-cpu offset in thread-local variables. "Interrupts off"
 *                   means the IPI signals are blocked (pthread_sigmask): an IPI is a signal
 *                   sent with pthread_kill, and its handler is the interrupt handler.
 *   HOST_SMP=2      the same threads and IPIs for benchmarks, with no system call on the
 *                   fastpath: "interrupts off" is a thread-local flag set between compiler
 *                   barriers. An IPI signal that finds it set only records itself; the
 *                   handler runs when the flag is cleared (as powerpc's lazy interrupt
 *                   disabling does).
 */
#ifndef SLABLAB_HOST_CPU_H
#define SLABLAB_HOST_CPU_H

#include "kernel/types.h"

#define RFLAGS_IF (1UL << 9)

#ifndef HOST_SMP

extern unsigned long host_rflags; /* arch/host/host_env.c; starts with RFLAGS_IF set */

static inline unsigned long arch_percpu_offset(void)
{
	return 0; /* the one CPU runs on the link-time copy of the per-cpu section */
}

static inline int arch_cpu_id(void)
{
	return 0;
}

static inline unsigned long arch_slub_cpu_off(void)
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

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
}

#else /* HOST_SMP: threads are CPUs (host_smp.c) */

#define HOST_SMP_SIGMASK 1
#define HOST_SMP_SOFT 2

extern __thread int host_cpu;                /* this thread's logical CPU number */
extern __thread unsigned long host_percpu_off; /* its copy of the per-cpu section */
/*
 * The thread-local words the fastpaths read, side by side, reached by their fixed offsets
 * from %fs (the local-exec model: every host build is an executable that defines
 * host_fast_w), as the kernel reaches its words from %gs:
 * off: 1 while this thread's "interrupts" are off: in flavour 1 it mirrors the signal mask
 * (set and cleared only with it), in flavour 2 it is the mask. Signal handlers restore it.
 * pending (flavour 2): IPIs that arrived while off or soft was set.
 * slub_off: host_cpu * percpu_slub_stride, set when the thread becomes a CPU.
 * soft (flavour 2): 1 under kernel/irqflags.h's soft mask (below).
 */
struct host_fast_words {
	int off;
	unsigned int pending;
	unsigned long slub_off;
	unsigned int soft;
};
extern __thread struct host_fast_words host_fast_w;
#define host_irq_off (host_fast_w.off)
#define host_slub_off (host_fast_w.slub_off)
#define host_irq_soft (host_fast_w.soft)

/*
 * host_fast_w's offset from %fs (the thread pointer), in a register, for the words that are
 * stored and loaded again (the mask). Not volatile: a function's uses are one load. (The
 * offset as an absolute displacement, the local-exec model, is one load less but measured
 * slower for those on this AMD EPYC: a load that follows a store to the same address by a
 * displacement alone is not forwarded as fast as by the same base register.)
 */
static inline unsigned long host_fast_tpoff(void)
{
	unsigned long off;

	__asm__("movq host_fast_w@gottpoff(%%rip), %0" : "=r"(off));
	return off;
}

static inline unsigned long arch_percpu_offset(void)
{
	return host_percpu_off;
}

static inline int arch_cpu_id(void)
{
	return host_cpu;
}

/*
 * Set once, before the thread runs kernel code: no memory operand, so it may be shared.
 * Never stored after that, so read by its offset from %fs as a constant (the local-exec
 * model: every host build is an executable that defines host_fast_w), one load instead of
 * two chained; measured 10.1 -> 9.3 cycles for the irq pair (docs/BENCHMARKS.md).
 */
static inline unsigned long arch_slub_cpu_off(void)
{
	unsigned long v;

	__asm__("movq %%fs:host_fast_w@tpoff+8, %0" : "=r"(v));
	return v;
}

static inline u64 read_rflags(void)
{
	return host_irq_off ? 0 : RFLAGS_IF;
}

#if HOST_SMP == HOST_SMP_SIGMASK

void host_irq_block(void);   /* block the IPI signals, set host_irq_off */
void host_irq_unblock(void); /* clear host_irq_off, unblock (pending IPIs run now) */

static inline void irq_disable_raw(void)
{
	if (!host_irq_off)
		host_irq_block();
}

static inline void irq_enable_raw(void)
{
	if (host_irq_off)
		host_irq_unblock();
}

/* The host has fewer cores than test CPUs: a spinning thread gives its core to the one it
 * waits for (a lock holder preempted by the host scheduler) instead of spinning a time slice. */
void host_cpu_relax(void);
static inline void cpu_relax(void)
{
	host_cpu_relax();
}

#elif HOST_SMP == HOST_SMP_SOFT

#define host_irq_pending (host_fast_w.pending)
void host_irq_replay(void); /* run the pending IPIs, with the flag set */

static inline void irq_disable_raw(void)
{
	__asm__ __volatile__("" ::: "memory");
	host_irq_off = 1;
	__asm__ __volatile__("" ::: "memory");
}

static inline void irq_enable_raw(void)
{
	__asm__ __volatile__("" ::: "memory");
	host_irq_off = 0;
	__asm__ __volatile__("" ::: "memory");
	if (unlikely(host_irq_pending))
		host_irq_replay();
}

/* A spinning CPU takes what was posted to it (host_ipi=poll) while its interrupts are on,
 * as an interrupt would end the spin; with signals the word is 0 whenever they are on. */
static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
	if (unlikely(__atomic_load_n(&host_irq_pending, __ATOMIC_RELAXED)) && !host_irq_off)
		host_irq_replay();
}

#else
#error "HOST_SMP must be 1 (signal mask) or 2 (soft flag)"
#endif

#endif /* HOST_SMP */

/*
 * kernel/irqflags.h's soft mask. In HOST_SMP=2 a word of its own, soft, as the kernel's is
 * struct percpu_hdr's irq_soft: masking is one store of 1, and an IPI signal that finds it
 * set (or off set) only records the IPI in pending, as it does with interrupts off. The
 * unmask stores 0 and then looks at pending: a signal before the store was recorded and is
 * seen, one after it runs at once (soft is 0 then), so none is lost between the two; what
 * it finds recorded runs (host_irq_replay_saved, only if off is 0: a fastpath called with
 * interrupts off leaves it for their local_irq_restore). Stores and a load, by the
 * words' fixed offsets from %fs (the local-exec model, as arch_slub_cpu_off): no load
 * after a store of the same word, nothing to wait for. (It was an add of 2 to off and a
 * subtraction, two read-modify-writes a call; docs/BENCHMARKS.md has both measured.)
 * The other flavours mask as local_irq_save
 * does, the flags kept in host_soft_flags (arch/host/host_env.c; thread-local with
 * HOST_SMP=1). Nothing is ever held for the arch_irq_soft_held count: recorded IPIs are the
 * signal flavour's own business.
 */
#define ARCH_IRQ_SOFT_MASK
#if defined(HOST_SMP) && HOST_SMP == HOST_SMP_SOFT

_Static_assert(__builtin_offsetof(struct host_fast_words, soft) == 16,
	       "the soft mask's asm reaches soft at 16");

static inline void arch_irq_soft_mask(void)
{
	__asm__ __volatile__("movl $1, %%fs:host_fast_w@tpoff+16" ::: "memory");
}

/*
 * The replay is called from inside the asm, as the kernel's arch_irq_soft_replay is:
 * host_irq_replay_saved (host_smp.c) keeps every register and flag but the condition codes,
 * SSE ones included, so the fastpaths around an unmask need no frame of their own for
 * that rare call. It steps over the red zone first (user-space code may keep data in the
 * 128 bytes below the stack pointer, which a call would overwrite).
 */
void host_irq_replay_saved(void);

static inline void arch_irq_soft_unmask(void)
{
	__asm__ __volatile__("movl $0, %%fs:host_fast_w@tpoff+16\n\t"
			     "cmpl $0, %%fs:host_fast_w@tpoff+4\n\t"
			     "je 1f\n\t"
			     "lea -128(%%rsp), %%rsp\n\t"
			     "call host_irq_replay_saved\n\t"
			     "lea 128(%%rsp), %%rsp\n"
			     "1:"
			     ::: "memory", "cc");
}

/* Off for good: off first, then soft down, so no signal finds both clear in between; what
 * was recorded runs at the slow path's local_irq_restore. */
static inline unsigned long arch_irq_soft_to_hard(void)
{
	unsigned long flags = host_irq_off ? 0 : RFLAGS_IF;

	__asm__ __volatile__("" ::: "memory");
	host_irq_off = 1;
	__asm__ __volatile__("" ::: "memory");
	host_irq_soft = 0;
	__asm__ __volatile__("" ::: "memory");
	return flags;
}

#else

#ifdef HOST_SMP
extern __thread unsigned long host_soft_flags;
#else
extern unsigned long host_soft_flags;
#endif

/* The store after the disable: an IPI handler that runs between the read and the disable
 * masks and unmasks too, and must not leave its flags in place of these. */
static inline void arch_irq_soft_mask(void)
{
	unsigned long flags = read_rflags();

	irq_disable_raw();
	host_soft_flags = flags;
}

static inline void arch_irq_soft_unmask(void)
{
	if (host_soft_flags & RFLAGS_IF)
		irq_enable_raw();
}

static inline unsigned long arch_irq_soft_to_hard(void)
{
	return host_soft_flags;
}

#endif

static inline u64 arch_irq_soft_held(int cpu)
{
	(void)cpu;
	return 0;
}

static inline u64 get_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

static inline u64 get_cycles_ordered(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}

/* kernel/nmi.h's in_nmi(): user space has no NMIs. */
static inline bool arch_in_nmi(void)
{
	return false;
}

#endif
