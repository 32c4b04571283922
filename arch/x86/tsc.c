// SPDX-License-Identifier: MIT
/*
 * The TSC's frequency, found once at boot (tsc_init) from every source the machine has:
 *
 *  - CPUID leaf 0x15 (TSC/crystal ratio and crystal frequency, Intel) and the hypervisor
 *    timing leaf 0x40000010 (TSC kHz; KVM with invtsc, VMware): exact when present;
 *  - measured against each clock of known frequency that counts: the HPET (ACPI HPET
 *    table, MMIO, mapped uncached by arch/x86/boot/entry.asm), the ACPI PM timer (FADT, 3.579545 MHz,
 *    24 or 32 bits) and PIT channel 2 (1.193182 MHz, 16 bits, latched reads);
 *  - CPUID leaf 0x16's nominal base frequency, only when nothing can be measured.
 *
 * A measurement is a series of windows of WINDOW_US, all clocks read in each. Every read of
 * a clock sits between two TSC reads and takes their midpoint; a read whose bracket is wide
 * (the CPU was interrupted, an SMI, or under emulation the vCPU thread was descheduled
 * between the two instructions) is retried, and a window whose two brackets together are
 * more than BRACKET_PPM of it is dropped. What happens between the brackets does not
 * matter: under QEMU's TCG the TSC and the emulated clocks both follow host time, so a
 * vCPU that stops mid-window sees both advance alike. Each clock's rate is the median of
 * its windows, those further than TSC_OUTLIER_PPM from it left out (a PIT read that missed
 * a wrap of its 16-bit counter, 55 ms, lands there). Then tsc_choose() (tsc_calib.c)
 * decides: the measurements must agree with each other, an exact leaf must agree with one
 * of them, and whatever is outside 100 MHz .. 10 GHz is not believed. With nothing at all
 * the kernel says so and stops rather than keep a wrong time.
 */
#include "arch/x86/acpi.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc_calib.h"
#include "kernel/irqflags.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/time.h"

#define PIT_HZ 1193182ULL
#define PM_TIMER_HZ 3579545ULL

#define WINDOW_US 5000   /* one window */
#define WANT_KEPT 5      /* windows kept per clock before the measurement stops */
#define MAX_WINDOWS 15   /* and the most it takes */
#define MIN_KEPT 3       /* fewer kept windows give no estimate */
#define READ_TRIES 8     /* reads of a clock to find one with a narrow bracket */
#define BRACKET_PPM 500  /* a window's two brackets together, at most this part of it */
#define PROBE_READS 2000 /* a clock that does not change over these many reads is absent */

u64 tsc_khz;
const char *tsc_source = "none";
u32 tsc_spread_ppm;
int tsc_windows, tsc_windows_kept;
char tsc_clocks[96];

struct clock_ref {
	const char *name;
	u64 hz;
	u64 mask; /* the counter's width */
	u64 (*read)(const struct clock_ref *r);
	u16 port;
	volatile u8 *mmio;
	bool ok;     /* found and counting */
	bool active; /* in the measurement under way */
	/* the window under way */
	u64 last, acc, t_start, b_start;
	u64 min_bracket;
	/* the windows of the measurement under way */
	u64 khz[MAX_WINDOWS];
	int nkhz, dropped;
};

enum { REF_HPET, REF_PM, REF_PIT, NR_REFS };

static u64 read_hpet(const struct clock_ref *r);
static u64 read_pm(const struct clock_ref *r);
static u64 read_pit(const struct clock_ref *r);

static struct clock_ref refs[NR_REFS] = {
	[REF_HPET] = { .name = "hpet", .read = read_hpet },
	[REF_PM] = { .name = "pm-timer", .read = read_pm, .hz = PM_TIMER_HZ },
	[REF_PIT] = { .name = "pit", .read = read_pit, .hz = PIT_HZ, .mask = 0xffff },
};

/* ---- the clocks ---- */

#define HPET_CAP_PERIOD 0x04 /* upper half of the capabilities register: period in fs */
#define HPET_CONFIG 0x10
#define HPET_COUNTER 0xf0
#define HPET_ENABLE 1u
#define HPET_MAX_PERIOD_FS 100000000ULL /* the spec's limit: 100 ns (Intel HPET 1.0a, 2.3.4) */

/*
 * The main counter's low 32 bits only: a 64-bit read may be split into two 32-bit ones
 * (QEMU does) and tear when the low half wraps; 32 bits last 42 s at 100 MHz.
 */
static u64 read_hpet(const struct clock_ref *r)
{
	return mmio_read32(r->mmio + HPET_COUNTER);
}

static u64 read_pm(const struct clock_ref *r)
{
	return inl(r->port) & r->mask;
}

/*
 * PIT channel 2 runs in mode 2 (rate generator) from 65536, counting down. A latch command
 * freezes the count for the two byte reads (Intel 8254 data sheet, counter latch command).
 * Returned counting up, so that the wrap is the same as every other clock's.
 */
static u64 read_pit(const struct clock_ref *r)
{
	u8 lo, hi;

	outb(0x43, 0x80); /* latch channel 2 */
	lo = inb(0x42);
	hi = inb(0x42);
	return 0xffff - (u64)(lo | (hi << 8));
}

static void pit_start(void)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01); /* gate 2 on, speaker off */
	outb(0x43, 0xb4);                       /* channel 2, lo/hi byte, mode 2, binary */
	outb(0x42, 0);                          /* reload 0: 65536 */
	outb(0x42, 0);
}

/*
 * The observer's clock (kernel/time.h): PIT channel 0 as a rate generator of period 12 PIT
 * ticks (10.06 us), its edges on ISA IRQ 0, which the masked 8259 and the unrouted I/O APIC
 * pin keep from the kernel. QEMU runs the PIT on its virtual clock and traces every edge
 * (x86_gsi_interrupt), so tools/lab.py times what the kernel does at the APIC (its trace
 * event apic_mem_writel) by QEMU's clock, exactly under ICOUNT=1. Off: mode 0 with a count
 * of 1, one edge and then quiet. Channel 2 (the calibration's) is a counter of its own.
 */
void observer_clock(bool on)
{
	/*
	 * Only when asked: at 255 vCPUs QEMU's TCG spends the host's time on the 100 000 edges a
	 * second and the boot crawls (smp[255] did not reach its AP start-up in 720 s).
	 */
	if (!observer_clock_on)
		return;
	outb(0x43, on ? 0x34 : 0x30); /* channel 0, lo/hi byte, mode 2 (on) or 0 (off) */
	outb(0x40, on ? OBSERVER_CLOCK_DIVISOR : 1);
	outb(0x40, 0);
}

/*
 * A clock is there when its value changes, over and over, by steps small against its
 * width: an absent PIT reads one constant, as does a HPET or PM timer that is not enabled.
 * A large step is not counted (noise, or a read after the vCPU was descheduled).
 */
static bool counts(const struct clock_ref *r)
{
	u64 prev = r->read(r), v;
	int changes = 0;

	for (int i = 0; i < PROBE_READS && changes < 8; i++) {
		v = r->read(r);
		if (v == prev)
			continue;
		if (((v - prev) & r->mask) <= r->mask / 4)
			changes++;
		prev = v;
	}
	return changes >= 8;
}

static void probe_clocks(bool report)
{
	struct clock_ref *h = &refs[REF_HPET], *pm = &refs[REF_PM], *pit = &refs[REF_PIT];

	h->ok = false;
	if (acpi.hpet_addr) {
		u64 a = acpi.hpet_addr, period;
		const char *why = tsc_hpet_unusable(a);

		if (why) {
			if (report)
				printk("tsc: the HPET at %#llx %s; not used\n", (unsigned long long)a,
				       why);
		} else {
			h->mmio = (volatile u8 *)(uptr)a;
			period = mmio_read32(h->mmio + HPET_CAP_PERIOD);
			if (!period || period > HPET_MAX_PERIOD_FS) {
				if (report)
					printk("tsc: the HPET's period %llu fs is not valid; not used\n",
					       (unsigned long long)period);
			} else {
				h->hz = 1000000000000000ULL / period;
				h->mask = 0xffffffff;
				mmio_write32(h->mmio + HPET_CONFIG,
					     mmio_read32(h->mmio + HPET_CONFIG) | HPET_ENABLE);
				h->ok = counts(h);
				if (!h->ok && report)
					printk("tsc: the HPET at %#llx does not count; not used\n",
					       (unsigned long long)a);
			}
		}
	}
	pm->ok = false;
	if (acpi.pm_tmr_port) {
		pm->port = acpi.pm_tmr_port;
		pm->mask = acpi.pm_tmr_32bit ? 0xffffffff : 0xffffff;
		pm->ok = counts(pm);
		if (!pm->ok && report)
			printk("tsc: the ACPI PM timer at port %#x does not count; not used\n", pm->port);
	}
	pit_start();
	pit->ok = counts(pit);
	/* The narrowest bracket of a few reads: what a read costs when nothing interrupts it. */
	for (int i = 0; i < NR_REFS; i++) {
		struct clock_ref *r = &refs[i];

		r->min_bracket = ~0ULL;
		for (int k = 0; r->ok && k < 16; k++) {
			u64 t0 = rdtsc_ordered(), t1;

			r->read(r);
			t1 = rdtsc_ordered();
			r->min_bracket = MIN(r->min_bracket, t1 - t0);
		}
	}
}

/* ---- windows ---- */

/* A read of r between two TSC reads; the narrowest of a few if the first is wide. */
static u64 read_bracketed(struct clock_ref *r, u64 *mid, u64 *bracket)
{
	u64 best = ~0ULL, value = 0;

	for (int i = 0; i < READ_TRIES; i++) {
		u64 t0 = rdtsc_ordered(), v = r->read(r), t1 = rdtsc_ordered(), b = t1 - t0;

		if (b < r->min_bracket)
			r->min_bracket = b;
		if (b < best) {
			best = b;
			value = v;
			*mid = t0 + b / 2;
		}
		if (b <= 2 * r->min_bracket)
			break;
	}
	*bracket = best;
	return value;
}

/*
 * One window: every active clock read at the start, then all of them polled (so that a
 * counter's wraps are counted) until `timer` has advanced WINDOW_US, then each read again.
 * Returns false if the timer stopped counting.
 */
static bool measure_window(struct clock_ref *timer)
{
	u64 target = timer->hz * WINDOW_US / 1000000, t_begin;
	/* 20 windows at 10 GHz: far longer than any window at any believable rate */
	u64 limit = TSC_MAX_KHZ * WINDOW_US / 1000 * 20;

	for (int i = 0; i < NR_REFS; i++) {
		struct clock_ref *r = &refs[i];

		if (!r->active)
			continue;
		r->last = read_bracketed(r, &r->t_start, &r->b_start);
		r->acc = 0;
	}
	t_begin = rdtsc();
	while (timer->acc < target) {
		for (int i = 0; i < NR_REFS; i++) {
			struct clock_ref *r = &refs[i];
			u64 v;

			if (!r->active)
				continue;
			v = r->read(r);
			r->acc += (v - r->last) & r->mask;
			r->last = v;
		}
		if (rdtsc() - t_begin > limit)
			return false;
	}
	for (int i = 0; i < NR_REFS; i++) {
		struct clock_ref *r = &refs[i];
		u64 mid, b, v, ticks;

		if (!r->active)
			continue;
		v = read_bracketed(r, &mid, &b);
		r->acc += (v - r->last) & r->mask;
		ticks = mid - r->t_start;
		if ((r->b_start + b) * 1000000 > ticks * BRACKET_PPM || r->nkhz == MAX_WINDOWS)
			r->dropped++;
		else
			r->khz[r->nkhz++] = tsc_window_khz(ticks, r->acc, r->hz);
	}
	return true;
}

static void estimate(const struct clock_ref *r, struct tsc_estimate *est)
{
	u64 tmp[MAX_WINDOWS];

	memcpy(tmp, r->khz, sizeof(u64) * (size_t)r->nkhz);
	tsc_reduce(tmp, r->nkhz, TSC_OUTLIER_PPM, MIN_KEPT, est);
}

/* Windows against the clocks in `which` (a bit per REF_*) until each has WANT_KEPT kept. */
static void measure(unsigned which)
{
	struct clock_ref *timer = NULL;

	for (int i = 0; i < NR_REFS; i++) {
		struct clock_ref *r = &refs[i];

		r->active = r->ok && (which & (1u << i));
		r->nkhz = r->dropped = 0;
		if (r->active && !timer)
			timer = r;
	}
	if (!timer)
		return;
	for (int w = 0; w < MAX_WINDOWS; w++) {
		bool done = true;

		if (!measure_window(timer)) {
			printk("tsc: the %s stopped counting during a window\n", timer->name);
			timer->ok = timer->active = false;
			return;
		}
		for (int i = 0; i < NR_REFS && done; i++) {
			struct tsc_estimate est;

			if (!refs[i].active)
				continue;
			estimate(&refs[i], &est);
			done = est.kept >= WANT_KEPT;
		}
		if (done)
			break;
	}
}

/* Of the clocks in `which` (a bit per REF_*): does any count, and does any of those give an
 * estimate from the last measure()? */
static bool clocks_count(unsigned int which)
{
	for (int i = 0; i < NR_REFS; i++)
		if ((which & (1u << i)) && refs[i].ok)
			return true;
	return false;
}

static bool clocks_usable(unsigned int which)
{
	for (int i = 0; i < NR_REFS; i++) {
		struct tsc_estimate est;

		if (!(which & (1u << i)) || !refs[i].ok)
			continue;
		estimate(&refs[i], &est);
		if (est.khz)
			return true;
	}
	return false;
}

/*
 * measure(which), and again, up to MEASURE_ROUNDS times in all, while clocks in `which` count
 * but none gave a usable estimate: a host that preempts the emulator through every window of
 * every clock (seen at a load average of 10 on 2 cores, and in the time suite: 0 of 15
 * windows, QEMU 10, UEFI, 4 vCPUs on 2 busy cores) leaves nothing to go by otherwise. `who`
 * non-NULL: say so on the console each time.
 */
#define MEASURE_ROUNDS 5
static void measure_until_usable(unsigned int which, const char *who)
{
	measure(which);
	for (int round = 1; round < MEASURE_ROUNDS && clocks_count(which) && !clocks_usable(which);
	     round++) {
		if (who)
			printk("%s: no clock gave enough usable windows (the host kept preempting "
			       "us?); measuring again (%d of %d)\n", who, round, MEASURE_ROUNDS - 1);
		measure(which);
	}
}

int tsc_measure_clock(const char *name, struct tsc_estimate *est)
{
	unsigned long flags;

	memset(est, 0, sizeof(*est));
	for (int i = 0; i < NR_REFS; i++) {
		if (strcmp(refs[i].name, name))
			continue;
		local_irq_save(flags);
		probe_clocks(false);
		if (refs[i].ok) {
			measure_until_usable(1u << i, NULL);
			estimate(&refs[i], est);
			est->windows = refs[i].nkhz + refs[i].dropped;
		}
		local_irq_restore(flags);
		return refs[i].ok ? 0 : -1;
	}
	return -1;
}

/* ---- choosing ---- */

static void cpuid_leaves(u64 *l15, u64 *hv, u64 *l16)
{
	u32 max, a, b, c, d, hv_max = 0;

	cpuid(0, &max, &b, &c, &d);
	*l15 = *l16 = *hv = 0;
	if (max >= 0x15) {
		cpuid(0x15, &a, &b, &c, &d);
		*l15 = tsc_khz_from_leaf15(max, a, b, c);
		if (!*l15) /* TCG with level=0x15+: all zeros */
			printk("tsc: CPUID leaf 0x15 gives no frequency (eax %#x ebx %#x ecx %#x); "
			       "ignored\n", a, b, c);
	}
	if (max >= 0x16) {
		cpuid(0x16, &a, &b, &c, &d);
		*l16 = tsc_khz_from_leaf16(max, a);
		if (!*l16)
			printk("tsc: CPUID leaf 0x16 gives no frequency (eax %#x); ignored\n", a);
	}
	cpuid(1, &a, &b, &c, &d);
	if (c & (1u << 31)) { /* a hypervisor */
		cpuid(0x40000000, &hv_max, &b, &c, &d);
		if (hv_max >= 0x40000010 && hv_max <= 0x400000ff) {
			cpuid(0x40000010, &a, &b, &c, &d);
			*hv = tsc_khz_from_hv_leaf(hv_max, a);
		}
	}
}

enum { C_LEAF15, C_HV, C_HPET, C_PM, C_PIT, C_LEAF16, NR_CAND };

void tsc_init(void)
{
	struct tsc_candidate c[NR_CAND] = {
		[C_LEAF15] = { .name = "cpuid-15h", .kind = TSC_EXACT },
		[C_HV] = { .name = "cpuid-40000010h", .kind = TSC_EXACT },
		[C_HPET] = { .name = "hpet", .kind = TSC_MEASURED },
		[C_PM] = { .name = "pm-timer", .kind = TSC_MEASURED },
		[C_PIT] = { .name = "pit", .kind = TSC_MEASURED },
		[C_LEAF16] = { .name = "cpuid-16h-nominal", .kind = TSC_NOMINAL },
	};
	const int ref_of[NR_REFS] = { [REF_HPET] = C_HPET, [REF_PM] = C_PM, [REF_PIT] = C_PIT };
	size_t len = 0;
	int pick;

	cpuid_leaves(&c[C_LEAF15].est.khz, &c[C_HV].est.khz, &c[C_LEAF16].est.khz);
	probe_clocks(true);
	measure_until_usable(~0u, "tsc");
	for (int i = 0; i < NR_REFS; i++) {
		struct clock_ref *r = &refs[i];
		struct tsc_estimate *est = &c[ref_of[i]].est;

		if (!r->ok)
			continue;
		estimate(r, est);
		est->windows = r->nkhz + r->dropped;
		if (!est->khz)
			printk("tsc: the %s gave %d usable windows of %d, %d of them within %u ppm of "
			       "their median; not used\n",
			       r->name, r->nkhz, est->windows, est->kept, TSC_OUTLIER_PPM);
		len += snprintf(tsc_clocks + len, sizeof(tsc_clocks) - len, "%s%s:%llu", len ? "," : "",
				r->name, (unsigned long long)est->khz);
		if (len >= sizeof(tsc_clocks))
			len = sizeof(tsc_clocks) - 1;
	}
	pick = tsc_choose(c, NR_CAND);
	for (int i = 0; i < NR_CAND; i++)
		if (c[i].rejected)
			printk("tsc: %s says %llu kHz, %s; not used\n", c[i].name,
			       (unsigned long long)c[i].est.khz, c[i].rejected);
	if (pick < 0) {
		printk("tsc: nothing to tell the TSC's rate by: no HPET, no ACPI PM timer, no "
		       "counting PIT, no CPUID frequency leaf. slablab keeps time with the TSC "
		       "(delays, timeouts, every figure in ns) and cannot run without it.\n");
		kernel_exit(KEXIT_FAIL);
	}
	tsc_khz = c[pick].est.khz;
	tsc_source = c[pick].name;
	tsc_spread_ppm = c[pick].est.spread_ppm;
	tsc_windows = c[pick].est.windows;
	tsc_windows_kept = c[pick].est.kept;
	if (c[pick].kind == TSC_MEASURED)
		printk("tsc: %llu kHz from the %s (median of %d of %d windows of %u us, spread %u "
		       "ppm; all clocks: %s)\n",
		       (unsigned long long)tsc_khz, tsc_source, tsc_windows_kept, tsc_windows,
		       WINDOW_US, tsc_spread_ppm, tsc_clocks);
	else
		printk("tsc: %llu kHz from CPUID (%s)%s%s\n", (unsigned long long)tsc_khz, tsc_source,
		       tsc_clocks[0] ? "; measured: " : "", tsc_clocks);
}

u64 cycles_to_ns(u64 c)
{
	if (!tsc_khz) /* a panic before tsc_init() */
		return 0;
	/* Split to avoid overflow: exact for c below ~1.8e13 (hours at GHz rates). */
	return c / tsc_khz * 1000000 + (c % tsc_khz) * 1000000 / tsc_khz;
}

u64 ns_to_cycles(u64 ns)
{
	return ns / 1000000 * tsc_khz + (ns % 1000000) * tsc_khz / 1000000;
}

u64 ktime_ns(void)
{
	return cycles_to_ns(rdtsc() - boot_entry_tsc);
}

/* Busy-wait. Bounded: longer than UDELAY_MAX_US is clamped and reported; use mdelay. */
#define UDELAY_MAX_US 1000000UL

void udelay(unsigned long us)
{
	u64 t0 = rdtsc_ordered(), n;

	if (us > UDELAY_MAX_US) {
		printk("udelay(%lu): more than %lu us, clamped\n", us, UDELAY_MAX_US);
		us = UDELAY_MAX_US;
	}
	n = ns_to_cycles((u64)us * 1000);

	while (rdtsc_ordered() - t0 < n)
		cpu_relax();
}

void mdelay(unsigned long ms)
{
	while (ms--)
		udelay(1000);
}
