// SPDX-License-Identifier: MIT
/*
 * Local APIC. x2APIC mode (CPUID.1:ECX[21]) programs the APIC through MSRs 0x800+ and
 * sends an IPI with one wrmsr; xAPIC mode uses the MMIO page (0xfee00000, mapped uncached)
 * and two ICR writes, which must not be split by an interrupt that sends its own IPI, so
 * every send runs with interrupts off and waits for the previous one to be accepted.
 */
#include "arch/x86/apic.h"
#include "arch/x86/x86.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define APIC_BASE_EN (1ULL << 11)
#define APIC_BASE_EXTD (1ULL << 10) /* x2APIC */

/* Register offsets of the xAPIC page; the x2APIC MSR is 0x800 + offset / 16. */
#define APIC_ID 0x20
#define APIC_TPR 0x80
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ESR 0x280
#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR 0x390
#define APIC_TIMER_DIV 0x3e0
#define X2APIC_SELF_IPI 0x83f

#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_NMI (4u << 8)

#define ICR_FIXED (0u << 8)
#define ICR_NMI (4u << 8)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_BUSY (1u << 12) /* xAPIC only: delivery pending */
#define ICR_ASSERT (1u << 14)
#define ICR_SELF (1u << 18) /* destination shorthand: this APIC only */
#define TIMER_DIV_1 0xb

bool x2apic_mode;
static volatile u8 *xapic_mmio;

/* Boot option x2apic= (docs/options.md's table): auto, or off for xAPIC where that can be had. */
static char x2apic_choice[8];
static const char *const x2apic_choices[] = { "auto", "off", NULL };
boot_param(x2apic, x2apic_choice, enum, x2apic_choices, "auto",
	   "APIC mode: auto (x2APIC when the CPU has it) or off (xAPIC, unless the firmware enabled x2APIC)");

static u32 apic_read(u32 reg)
{
	if (x2apic_mode)
		return (u32)rdmsr(0x800 + (reg >> 4));
	return mmio_read32(xapic_mmio + reg);
}

static void apic_write(u32 reg, u32 v)
{
	if (x2apic_mode)
		wrmsr(0x800 + (reg >> 4), v);
	else
		mmio_write32(xapic_mmio + reg, v);
}

bool apic_has_x2apic(void)
{
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return c & (1u << 21);
}

void apic_init_bsp(u64 madt_lapic_addr)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	/*
	 * x2APIC when the CPU has it, unless x2apic=off; firmware may already have switched to
	 * it, and x2APIC cannot be left for xAPIC without a reset (SDM vol. 3, 11.12.5): then we
	 * must use it, and say that x2apic=off could not be followed.
	 */
	x2apic_mode = (apic_has_x2apic() && strcmp(x2apic_choice, "off")) || (base & APIC_BASE_EXTD);
	if (!strcmp(x2apic_choice, "off"))
		printk("apic: x2apic=off: %s\n",
		       (base & APIC_BASE_EXTD) ? "the firmware enabled x2APIC mode, which cannot be "
						 "left without a reset: using x2APIC"
		       : apic_has_x2apic()      ? "xAPIC mode although the CPU has x2APIC"
					       : "xAPIC mode (the CPU has no x2APIC anyway)");
	xapic_mmio = (volatile u8 *)(uptr)(base & 0xffffff000ULL);
	if (!x2apic_mode && madt_lapic_addr && madt_lapic_addr != (base & 0xffffff000ULL))
		printk("apic: MADT says the APIC is at %#llx, the MSR says %#llx; using the MSR\n",
		       (unsigned long long)madt_lapic_addr,
		       (unsigned long long)(base & 0xffffff000ULL));
}

/* Every CPU, once: enable the APIC in the chosen mode, accept all priorities, mask LVTs. */
void apic_init_cpu(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	if (x2apic_mode) {
		if (!(base & APIC_BASE_EN))
			wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
	} else if (!(base & APIC_BASE_EN)) {
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
	}
	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED); /* the 8259 is masked too: no ExtINT */
	apic_write(APIC_LVT_LINT1, LVT_NMI);
	apic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	apic_eoi();
}

u32 apic_id(void)
{
	u32 id = apic_read(APIC_ID);

	return x2apic_mode ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

u32 apic_read_esr(void)
{
	apic_write(APIC_ESR, 0); /* a write latches the errors into the readable register */
	return apic_read(APIC_ESR);
}

static void xapic_wait_idle(void)
{
	/* Bounded: an APIC that never accepts is reported, the sender goes on. */
	for (long i = 0; i < 10000000; i++) {
		if (!(mmio_read32(xapic_mmio + APIC_ICR_LO) & ICR_BUSY))
			return;
		cpu_relax();
	}
	printk("apic: ICR stuck busy on apic %u\n", apic_id());
}

static void send_icr(u32 dest, u32 low)
{
	unsigned long flags = arch_local_irq_save();

	if (x2apic_mode) {
		/* wrmsr to the ICR is not ordered with earlier stores: fence first, as Linux does. */
		mb();
		wrmsr(0x830, ((u64)dest << 32) | low);
	} else {
		xapic_wait_idle();
		mmio_write32(xapic_mmio + APIC_ICR_HI, dest << 24);
		mmio_write32(xapic_mmio + APIC_ICR_LO, low);
		xapic_wait_idle();
	}
	arch_local_irq_restore(flags);
}

void apic_send_ipi(u32 dest, u8 vector)
{
	send_icr(dest, ICR_FIXED | ICR_ASSERT | vector);
}

void apic_send_nmi(u32 dest)
{
	send_icr(dest, ICR_NMI | ICR_ASSERT);
}

/*
 * A self-IPI from any context, an NMI included. x2APIC: one write of the SELF IPI register.
 * xAPIC: one write of the ICR's low word with the self shorthand, which does not read the
 * high word: an NMI that lands between send_icr's two writes leaves the destination it
 * wrote intact, and waits for its own IPI to be accepted before the interrupted send goes on.
 */
void apic_send_self(u8 vector)
{
	if (x2apic_mode) {
		wrmsr(X2APIC_SELF_IPI, vector);
		return;
	}
	xapic_wait_idle();
	mmio_write32(xapic_mmio + APIC_ICR_LO, ICR_SELF | ICR_FIXED | ICR_ASSERT | vector);
	xapic_wait_idle();
}

/* Timer ticks a millisecond, divide by 1: measured once against the TSC (0: not yet). */
static u64 timer_ticks_per_ms;

static u64 timer_calibrate(void)
{
	u64 t0, ticks;

	apic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	apic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	apic_write(APIC_TIMER_INIT, 0xffffffffu);
	t0 = rdtsc();
	while (rdtsc() - t0 < ns_to_cycles(1000000))
		cpu_relax();
	ticks = 0xffffffffu - apic_read(APIC_TIMER_CUR);
	apic_write(APIC_TIMER_INIT, 0);
	if (!ticks)
		ticks = 1; /* never 0, which means "not measured yet" */
	__atomic_store_n(&timer_ticks_per_ms, ticks, __ATOMIC_RELAXED);
	return ticks;
}

void apic_timer_oneshot(u64 ns)
{
	u64 per_ms = __atomic_load_n(&timer_ticks_per_ms, __ATOMIC_RELAXED), ticks;

	if (!ns) {
		apic_write(APIC_TIMER_INIT, 0); /* stops it */
		return;
	}
	if (!per_ms)
		per_ms = timer_calibrate();
	ticks = ns / 1000 * per_ms / 1000;
	ticks = ticks ? MIN(ticks, 0xffffffffULL) : 1;
	apic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	apic_write(APIC_LVT_TIMER, VEC_TIMER); /* one-shot, unmasked */
	apic_write(APIC_TIMER_INIT, (u32)ticks);
}

void apic_send_init(u32 dest)
{
	send_icr(dest, ICR_INIT | ICR_ASSERT);
}

void apic_send_sipi(u32 dest, u8 page)
{
	send_icr(dest, ICR_STARTUP | page);
}

/*
 * The local APIC timer, one-shot, unmasked, on this CPU: an interrupt at vector after count
 * ticks of the APIC bus clock divided by 1 (the interrupt storms of kernel/irq_storm.h).
 * QEMU's APIC bus runs at 1 GHz of its virtual clock, so under ICOUNT=1 (-icount shift=0)
 * a tick is one guest instruction and the interrupt lands on an exact instruction.
 */
void apic_timer_storm(u8 vector, u32 count)
{
	apic_write(APIC_TIMER_DIV, TIMER_DIV_1);
	apic_write(APIC_LVT_TIMER, vector);
	apic_write(APIC_TIMER_INIT, count ? count : 1);
}

void apic_timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0);
}
