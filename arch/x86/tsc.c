// SPDX-License-Identifier: MIT
/*
 * The TSC's frequency. In order of trust: CPUID leaf 0x15 (crystal ratio, Intel), the
 * hypervisor timing leaf 0x40000010 (KVM with invtsc, VMware), then measuring it against
 * the PIT (channel 2, the classic way) or, where the PIT does not tick, the HPET, and last
 * the nominal frequency of CPUID leaf 0x16. QEMU's TCG offers none of the leaves: it is
 * measured against the PIT there, and the TSC then runs at host time, not guest cycles.
 */
#include "arch/x86/acpi.h"
#include "arch/x86/cpu.h"
#include "kernel/printk.h"
#include "kernel/time.h"

#define PIT_HZ 1193182ULL
#define MAX_PLAUSIBLE_KHZ 10000000ULL /* 10 GHz: bounds every wait before we know the rate */

u64 tsc_khz;
const char *tsc_source = "none";

static u64 from_cpuid_15h(void)
{
	u32 max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max < 0x15)
		return 0;
	cpuid(0x15, &a, &b, &c, &d); /* TSC = crystal (ecx Hz) * ebx / eax */
	if (!a || !b || !c)
		return 0;
	return (u64)c * b / a / 1000;
}

static u64 from_cpuid_16h(void)
{
	u32 max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max < 0x16)
		return 0;
	cpuid(0x16, &a, &b, &c, &d); /* eax: base frequency in MHz */
	return (u64)(a & 0xffff) * 1000;
}

static u64 from_hypervisor_leaf(void)
{
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1u << 31))) /* no hypervisor */
		return 0;
	cpuid(0x40000000, &a, &b, &c, &d);
	if (a < 0x40000010)
		return 0;
	cpuid(0x40000010, &a, &b, &c, &d); /* eax: TSC kHz */
	return a;
}

/*
 * Count TSC ticks while PIT channel 2 counts down ms milliseconds in mode 0 (its output,
 * bit 5 of port 0x61, goes high at zero). 0 if the PIT never gets there.
 */
u64 tsc_calibrate_pit(unsigned int ms)
{
	u64 latch = PIT_HZ * ms / 1000, t0, t1;
	u8 saved = inb(0x61);

	if (latch > 0xffff)
		latch = 0xffff;
	outb(0x61, (saved & ~0x02) | 0x01); /* gate on, speaker off */
	outb(0x43, 0xb0);                   /* channel 2, lo/hi byte, mode 0, binary */
	outb(0x42, latch & 0xff);
	outb(0x42, latch >> 8);
	t0 = rdtsc_ordered();
	do {
		t1 = rdtsc_ordered();
		if (t1 - t0 > MAX_PLAUSIBLE_KHZ * ms * 2) {
			outb(0x61, saved);
			return 0;
		}
	} while (!(inb(0x61) & 0x20));
	outb(0x61, saved);
	return (t1 - t0) * PIT_HZ / latch / 1000;
}

#define HPET_CAP 0x00
#define HPET_CONFIG 0x10
#define HPET_COUNTER 0xf0

u64 tsc_calibrate_hpet(unsigned int ms)
{
	volatile u8 *hpet = (volatile u8 *)(uptr)acpi.hpet_addr;
	u64 period_fs, ticks, h0, t0, h1, t1;

	if (!hpet)
		return 0;
	period_fs = mmio_read64(hpet + HPET_CAP) >> 32;
	if (!period_fs || period_fs > 100000000) /* spec: at most 100 ns */
		return 0;
	mmio_write64(hpet + HPET_CONFIG, mmio_read64(hpet + HPET_CONFIG) | 1);
	ticks = (u64)ms * 1000000000000ULL / period_fs;
	h0 = mmio_read64(hpet + HPET_COUNTER);
	t0 = rdtsc_ordered();
	do {
		h1 = mmio_read64(hpet + HPET_COUNTER);
		t1 = rdtsc_ordered();
		if (t1 - t0 > MAX_PLAUSIBLE_KHZ * ms * 2)
			return 0;
	} while (h1 - h0 < ticks);
	/* kHz = tsc ticks / elapsed ms, elapsed ms = hpet ticks * period_fs / 1e12 */
	return (t1 - t0) * 1000000000ULL / ((h1 - h0) * period_fs / 1000);
}

void tsc_init(void)
{
	if ((tsc_khz = from_cpuid_15h()))
		tsc_source = "cpuid-15h";
	else if ((tsc_khz = from_hypervisor_leaf()))
		tsc_source = "cpuid-40000010h";
	else if ((tsc_khz = tsc_calibrate_pit(10)))
		tsc_source = "pit";
	else if ((tsc_khz = tsc_calibrate_hpet(10)))
		tsc_source = "hpet";
	else if ((tsc_khz = from_cpuid_16h()))
		tsc_source = "cpuid-16h-nominal";
	else {
		tsc_khz = 1000000;
		tsc_source = "guess-1ghz";
		printk("tsc: no way to measure the TSC (no PIT, no HPET, no CPUID leaf); "
		       "assuming 1 GHz, all times are wrong\n");
	}
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
