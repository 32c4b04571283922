// SPDX-License-Identifier: MIT
/*
 * Exceptions and interrupts. An exception on any CPU is fatal: it prints the vector, error
 * code, RIP, CR2, the registers, the CPU and a frame-pointer backtrace with symbol names,
 * stops all CPUs and exits with KEXIT_PANIC. NMIs either stop this CPU (during a panic or
 * the final exit) or go to kernel/nmi.c. IPIs are handed to kernel/smp.c.
 */
#include "arch/x86/apic.h"
#include "arch/x86/traps.h"
#include "arch/x86/x86.h"
#include "kernel/arch.h"
#include "kernel/irq_work.h"
#include "kernel/kallsyms.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"

static const char *const exception_names[32] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[16] = "#MF x87 error",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD error",
	[20] = "#VE virtualization",
	[21] = "#CP control protection",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security",
};

/* Set when CPUs are being stopped; an NMI then parks the CPU that receives it. */
static volatile bool stopping;
static DEFINE_PER_CPU(bool, stopped);
static DEFINE_PER_CPU(u64, spurious_count);
static DEFINE_PER_CPU(u64, soft_held_count); /* interrupts held back by the soft mask */
static DEFINE_PER_CPU(u64, timer_count);     /* local APIC timer interrupts */
/* Where the last interrupt landed (for one the soft mask held, where it arrived). */
static DEFINE_PER_CPU(u64, irq_landed_rip);
void irq_storm_interrupt(u64 rip); /* arch/x86/irq_storm.c */

static bool plausible_frame(u64 rbp)
{
	/* Kernel stacks live in the direct map above 1 MiB; frames are 8-byte aligned. */
	return rbp >= 0x100000 && rbp < (64ULL << 30) && !(rbp & 7);
}

/* arch/x86/entry.asm: the address isr_common returns to from trap_handler. */
extern const char isr_after_handler[];

/* The start of the function that contains ADDR, or 0 if ADDR is not in the kernel's text. */
static u64 function_start(u64 addr)
{
	u64 off;

	return kallsyms_lookup(addr, &off) ? addr - off : 0;
}

/*
 * Is RET a return address into the kernel's text, that is, does a call instruction end just
 * before it? When FN is not 0, a direct call must go to FN. Recognises the encodings gcc
 * emits: e8 rel32, and ff /2 with a register, [reg+disp8], [reg+disp32] or [rip+disp32]
 * operand, with or without a REX prefix.
 */
static bool is_return_address(u64 ret, u64 fn)
{
	const u8 *c = (const u8 *)(uptr)ret;

	if (!function_start(ret) || !function_start(ret - 6))
		return false;
	if (c[-5] == 0xe8) {
		s32 rel = (s32)((u32)c[-4] | (u32)c[-3] << 8 | (u32)c[-2] << 16 | (u32)c[-1] << 24);

		return !fn || ret + (s64)rel == fn;
	}
	if (fn)
		return false;
	if (c[-2] == 0xff && (c[-1] & 0xf8) == 0xd0)                      /* call *%reg */
		return true;
	if (c[-3] == 0xff && (c[-2] & 0xf8) == 0x50)                      /* call *d8(%reg) */
		return true;
	if (c[-6] == 0xff && ((c[-5] & 0xf8) == 0x90 || c[-5] == 0x15))   /* d32(%reg), d32(%rip) */
		return true;
	return false;
}

/*
 * Where the caller of the code at RIP is, when RIP's function has no frame of its own yet
 * (or any more): gcc leaves leaf functions without one, and a fault or an interrupt can hit a
 * function in its prologue (before "push %rbp; mov %rsp,%rbp") or at its final ret. Then the
 * return address is on the stack at RSP, a word or two up (a leaf may push registers), and
 * the frame pointer still describes the caller. Returns 0 when RIP's function has its frame.
 */
static u64 frameless_caller(u64 rip, u64 rsp)
{
	u64 fn = function_start(rip);
	const u8 *f = (const u8 *)(uptr)fn;
	bool framed;

	if (!fn)
		return 0;
	framed = f[0] == 0x55 && f[1] == 0x48 && f[2] == 0x89 && f[3] == 0xe5;
	if (framed && rip >= fn + 4 && *(const u8 *)(uptr)rip != 0xc3)
		return 0;
	for (int i = 0; i < 8 && plausible_frame(rsp + 8 * i); i++) {
		u64 v = ((u64 *)(uptr)rsp)[i];

		if (is_return_address(v, fn) || (i == 0 && is_return_address(v, 0)))
			return v;
	}
	return 0;
}

/*
 * The frame-pointer walk. Each frame is [saved rbp, return address]. A return into
 * isr_common means the frame below is an interrupt's struct trap_frame (16 bytes above
 * trap_handler's frame): the walk prints the vector, goes on at the interrupted RIP (with
 * frameless_caller for a leaf) and follows the interrupted code's frames, which may live on
 * another stack (an IST stack or the interrupted one). A saved rbp of 0 ends the walk: the
 * boot and AP entry code clear rbp before their first call.
 */
static void backtrace_from(u64 rip, u64 rsp, u64 rbp)
{
	u64 caller = frameless_caller(rip, rsp);

	kallsyms_print_addr(rip);
	if (caller)
		kallsyms_print_addr(caller);
	for (int depth = 0; depth < 48 && plausible_frame(rbp); depth++) {
		u64 next = ((u64 *)(uptr)rbp)[0], ret = ((u64 *)(uptr)rbp)[1];

		if (!ret || !function_start(ret))
			break;
		kallsyms_print_addr(ret);
		if (ret == (u64)(uptr)isr_after_handler) {
			struct trap_frame *tf = (struct trap_frame *)(uptr)(rbp + 16);

			printk("  -- interrupted by vector %llu (%s) on cpu %d --\n",
			       (unsigned long long)tf->vector,
			       tf->vector < 32 ? "exception" : "interrupt", smp_processor_id());
			kallsyms_print_addr(tf->rip);
			caller = frameless_caller(tf->rip, tf->rsp);
			if (caller)
				kallsyms_print_addr(caller);
			rbp = tf->rbp;
			continue;
		}
		if (next <= rbp) /* within one stack, frames only go up */
			break;
		rbp = next;
	}
}

void dump_backtrace(u64 rip, u64 rbp)
{
	printk("backtrace:\n");
	backtrace_from(rip, 0, rbp);
}

void arch_backtrace(void)
{
	u64 *rbp = read_rbp();

	/* Start at our caller: our own frame is not interesting. */
	dump_backtrace(rbp[1], rbp[0]);
}

static void __noreturn die(struct trap_frame *f)
{
	const char *name = f->vector < 32 ? exception_names[f->vector] : NULL;
	u64 cr2 = read_cr2();

	if (!panic_begin())
		for (;;)
			halt();
	printk("\nEXCEPTION: %s (vector %llu) on cpu %d, error code %#llx\n",
	       name ? name : "reserved", (unsigned long long)f->vector, smp_processor_id(),
	       (unsigned long long)f->error);
	printk("RIP: %#018llx ", (unsigned long long)f->rip);
	kallsyms_print_symbol(f->rip);
	printk("\n");
	printk("CR2: %#018llx CR3: %#018llx RFLAGS: %#llx CS: %#llx SS: %#llx\n",
	       (unsigned long long)cr2, (unsigned long long)read_cr3(),
	       (unsigned long long)f->rflags, (unsigned long long)f->cs, (unsigned long long)f->ss);
	printk("RAX: %016llx RBX: %016llx RCX: %016llx\n", (unsigned long long)f->rax,
	       (unsigned long long)f->rbx, (unsigned long long)f->rcx);
	printk("RDX: %016llx RSI: %016llx RDI: %016llx\n", (unsigned long long)f->rdx,
	       (unsigned long long)f->rsi, (unsigned long long)f->rdi);
	printk("RBP: %016llx RSP: %016llx R8:  %016llx\n", (unsigned long long)f->rbp,
	       (unsigned long long)f->rsp, (unsigned long long)f->r8);
	printk("R9:  %016llx R10: %016llx R11: %016llx\n", (unsigned long long)f->r9,
	       (unsigned long long)f->r10, (unsigned long long)f->r11);
	printk("R12: %016llx R13: %016llx R14: %016llx\n", (unsigned long long)f->r12,
	       (unsigned long long)f->r13, (unsigned long long)f->r14);
	printk("R15: %016llx\n", (unsigned long long)f->r15);
	if (f->vector == 14)
		printk("page fault: %s of %s address %#llx\n", f->error & 2 ? "write" : "read",
		       f->error & 1 ? "a protected" : "an unmapped", (unsigned long long)cr2);
	printk("backtrace:\n");
	backtrace_from(f->rip, f->rsp, f->rbp);
	panic_end();
}

extern const char halt_window_start[], halt_window_end[];

static inline u32 soft_word(void)
{
	u32 w;

	__asm__ __volatile__("movl %%gs:32, %0" : "=r"(w) : : "memory");
	return w;
}

static inline void soft_word_set(u32 w)
{
	__asm__ __volatile__("movl %0, %%gs:32" : : "r"(w) : "memory");
}

/*
 * NMIs. The gate has no IST stack: an NMI is taken on the stack it interrupts (slablab has
 * no user mode, so that is always a kernel stack), and should one arrive inside this handler
 * after an IRET there, it goes below the first on the same stack instead of over its frame
 * at the top of an IST stack; kernel/nmi.c then only latches it (kernel/nmi.h, "Nesting").
 * The soft interrupt mask is put aside while the handler runs: nothing can be held with
 * interrupts off, so NMI code that masks and unmasks finds its own clean word.
 */
static void nmi(struct trap_frame *f)
{
	struct nmi_frame nf;
	u32 soft;

	/* Landed between arch_halt_while_ne's check and its hlt: skip the hlt (see cpu.c). */
	if (f->rip >= (u64)(uptr)halt_window_start && f->rip < (u64)(uptr)halt_window_end)
		f->rip = (u64)(uptr)halt_window_end;
	if (stopping) {
		this_cpu(stopped) = true;
		for (;;)
			halt(); /* interrupts are off in an NMI; only another NMI/reset gets here */
	}
	nf.ip = f->rip;
	nf.sp = f->rsp;
	nf.bp = f->rbp;
	nf.flags = f->rflags;
	nf.cpu = smp_processor_id();
	soft = soft_word();
	nf.soft_mask = soft;
	soft_word_set(0);
	nmi_entry(&nf);
	soft_word_set(soft);
}

/*
 * Where an NMI nobody sent may have come from, as a PC tells it: System Control Port B
 * (I/O port 0x61) latches SERR# (bit 7: a PCI system error, e.g. memory parity) and IOCHK
 * (bit 6: an I/O channel check, which some boards' front-panel NMI buttons raise). Each is
 * cleared and re-armed as Linux does (bits 2 and 3 pulsed), so the next one is seen. Other
 * sources (a BMC's watchdog, LINT1 wired to a button, an NMI IPI from firmware) leave no mark.
 */
void arch_nmi_reason(char *buf, size_t len)
{
	u8 r = inb(0x61);

	if (r == 0xff) {
		snprintf(buf, len, "no System Control Port B (0x61 reads 0xff) to tell the source");
		return;
	}
	if (!(r & 0xc0)) {
		snprintf(buf, len, "port 0x61 = %#x: neither SERR# nor IOCHK (a watchdog, a button "
			 "on LINT1 or another CPU's NMI IPI)", r);
		return;
	}
	snprintf(buf, len, "port 0x61 = %#x:%s%s", r,
		 r & 0x80 ? " SERR# (PCI system error or memory parity)" : "",
		 r & 0x40 ? " IOCHK (I/O channel check, e.g. a front-panel NMI button)" : "");
	r &= 0x0f;
	outb(0x61, r | 0x0c); /* clear both latches ... */
	outb(0x61, r & ~0x0c); /* ... and enable them again */
}

static void dispatch(u64 v);

void trap_handler(struct trap_frame *f)
{
	u64 v = f->vector;

	if (v == 2) {
		nmi(f);
		return;
	}
	if (v < 32)
		die(f);
	this_cpu(irq_landed_rip) = f->rip;
	/*
	 * Masked (arch/x86/cpu.h, arch_irq_soft_mask): hold the interrupt back. It stays in
	 * service at the local APIC, unacknowledged, until the unmask runs it (dispatch's EOI);
	 * IF clear in the frame keeps every other one out until then, so one is all that can
	 * be held.
	 */
	if (unlikely(soft_word() & 1)) {
		soft_word_set(1 | (u32)v << 8);
		f->rflags &= ~RFLAGS_IF;
		this_cpu(soft_held_count)++;
		return;
	}
	irq_enter();
	dispatch(v);
	irq_exit();
}

/* The held interrupt, with interrupts off: as trap_handler would have run it. */
static void run_held(u32 w)
{
	irq_enter();
	dispatch(w >> 8);
	irq_exit();
}

/* arch_irq_soft_unmask found one held (the word is its vector << 8): run it, then sti. */
__used void arch_irq_soft_replay(void)
{
	u32 w = soft_word();

	soft_word_set(0);
	run_held(w);
	irq_enable_raw(); /* the holding cleared IF; it was set when the interrupt came */
}

/* arch_irq_soft_to_hard found one held (word: its vector << 8, and the mask bit). */
unsigned long arch_irq_soft_run_held(u32 word, unsigned long flags)
{
	run_held(word);
	return flags | RFLAGS_IF; /* the holding cleared IF; it was set when the interrupt came */
}

u64 arch_irq_soft_held(int cpu)
{
	return per_cpu(soft_held_count, cpu);
}

static void dispatch(u64 v)
{
	switch (v) {
	case VEC_CALL_FUNCTION:
		apic_eoi();
		smp_call_function_interrupt();
		return;
	case VEC_WAKEUP:
		apic_eoi();
		smp_wakeup_interrupt();
		return;
	case VEC_STORM:
		apic_eoi();
		irq_storm_interrupt(this_cpu(irq_landed_rip));
		return;
	case VEC_IRQ_WORK:
		apic_eoi();
		irq_work_run();
		return;
	case VEC_TIMER: /* only a wake-up: arch_idle_timeout's caller looks at the time */
		apic_eoi();
		this_cpu(timer_count)++;
		return;
	case VEC_SPURIOUS: /* no EOI for a spurious interrupt */
		this_cpu(spurious_count)++;
		return;
	case VEC_APIC_ERROR:
		printk("apic: error interrupt on cpu %d, ESR %#x\n", smp_processor_id(),
		       apic_read_esr());
		apic_eoi();
		return;
	default:
		break;
	}
	if (v >= VEC_IPI_HANDLER && v < VEC_IPI_HANDLER + SMP_NR_IPI_HANDLERS) {
		apic_eoi();
		smp_ipi_interrupt((unsigned int)(v - VEC_IPI_HANDLER));
		return;
	}
	if (v >= VEC_PIC_BASE && v < VEC_PIC_BASE + 16) {
		/* The 8259s are masked; only their spurious IRQ 7/15 can arrive. No EOI. */
		this_cpu(spurious_count)++;
		return;
	}
	printk("unexpected interrupt vector %llu on cpu %d; ignored\n", (unsigned long long)v,
	       smp_processor_id());
	apic_eoi();
}

/* Remap the legacy 8259 pair to 0x20..0x2f, then mask every line: we poll, we use the APIC. */
void pic_disable(void)
{
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, VEC_PIC_BASE);
	outb(0xa1, VEC_PIC_BASE + 8);
	outb(0x21, 4);
	outb(0xa1, 2);
	outb(0x21, 1);
	outb(0xa1, 1);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

bool cpu_stopped(int cpu)
{
	return READ_ONCE(per_cpu(stopped, cpu));
}

void arch_stop_other_cpus(void)
{
	int me = smp_processor_id();

	stopping = true;
	mb();
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != me)
			apic_send_nmi(per_cpu(percpu_hdr, cpu).apic_id);
	/* Wait a bounded while for them, so none is mid-printk when we print. */
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		for (long spin = 0; cpu != me && !cpu_stopped(cpu) && spin < 50000000; spin++)
			cpu_relax();
	}
}
