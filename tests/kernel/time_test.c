// SPDX-License-Identifier: MIT
/*
 * The TSC frequency is plausible and came from somewhere; every clock the machine has
 * (HPET, ACPI PM timer, PIT), measured again, agrees with it within 1%; udelay waits at
 * least as long as the TSC says and as the HPET, PM timer or PIT says (read here directly,
 * not through arch/x86/tsc.c); conversions hold. Nothing here assumes a quiet host: a vCPU
 * that is descheduled can only make a wait look longer, so the bounds that matter are
 * lower bounds, and the one upper bound takes the best of many tries.
 */
#include "arch/x86/acpi.h"
#include "arch/x86/tsc_calib.h"
#include "arch/x86/x86.h"
#include "kernel/kunit.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"

static void tsc_khz_plausible(struct kunit *test)
{
	KUNIT_EXPECT_GE(test, tsc_khz, TSC_MIN_KHZ);
	KUNIT_EXPECT_LE(test, tsc_khz, TSC_MAX_KHZ);
	KUNIT_EXPECT_STRNEQ(test, tsc_source, "none");
	kunit_info(test, "tsc %llu kHz from %s, spread %u ppm, %d of %d windows kept (%s)",
		   (unsigned long long)tsc_khz, tsc_source, tsc_spread_ppm, tsc_windows_kept,
		   tsc_windows, tsc_clocks);
}

/*
 * udelay(us) never returns early by the TSC, and at least one of up to 25 tries ends within
 * half as long again (plus 50 us for the calls around it): a host that preempts the
 * emulator can only make a wait longer, and not 25 times in a row by chance. The upper bound
 * is checked on the short waits only: a 10 ms window is preempted on a loaded host as often
 * as not, while a wrong factor in udelay shows at any length.
 */
static void udelay_agrees_with_tsc(struct kunit *test)
{
	static const unsigned long us[] = { 100, 1000, 10000 };

	for (unsigned i = 0; i < ARRAY_SIZE(us); i++) {
		u64 want = us[i] * 1000ULL, limit = want + want / 2 + 50000, shortest = ~0ULL;
		bool check_long = us[i] <= 1000;
		int tries = 0;

		while (tries < (check_long ? 25 : 3) && (!check_long || shortest > limit)) {
			u64 t0 = get_cycles_ordered();

			udelay(us[i]);
			shortest = MIN(shortest, cycles_to_ns(get_cycles_ordered() - t0));
			tries++;
		}
		KUNIT_EXPECT_GE_MSG(test, shortest, want, "udelay(%lu) returned early", us[i]);
		if (check_long)
			KUNIT_EXPECT_LE_MSG(test, shortest, limit,
					    "udelay(%lu): the shortest of %d took %llu ns", us[i],
					    tries, (unsigned long long)shortest);
	}
}

/* Each clock the machine has gives (again) the rate tsc_khz has, within 1%. */
static void tsc_agrees_with_every_clock(struct kunit *test)
{
	static const char *const clocks[] = { "hpet", "pm-timer", "pit" };
	int found = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(clocks); i++) {
		struct tsc_estimate est;

		if (tsc_measure_clock(clocks[i], &est)) {
			kunit_info(test, "no %s here", clocks[i]);
			continue;
		}
		/* tsc_measure_clock measures again while a loaded host leaves it no usable
		 * window; a clock that never gives one still fails here. */
		found++;
		kunit_info(test, "%s says %llu kHz (%d of %d windows, spread %u ppm), tsc_khz %llu",
			   clocks[i], (unsigned long long)est.khz, est.kept, est.windows,
			   est.spread_ppm, (unsigned long long)tsc_khz);
		KUNIT_EXPECT_NE_MSG(test, est.khz, 0, "%s: only %d of %d windows usable", clocks[i],
				    est.kept, est.windows);
		if (est.khz)
			KUNIT_EXPECT_LE_MSG(test, tsc_diff_ppm(est.khz, tsc_khz), 10000,
					    "%s says %llu kHz, tsc_khz is %llu", clocks[i],
					    (unsigned long long)est.khz, (unsigned long long)tsc_khz);
	}
	if (!found && strncmp(tsc_source, "cpuid-", 6))
		KUNIT_FAIL(test, "tsc_source is %s, yet no clock counts now", tsc_source);
	if (!found)
		kunit_skip(test, "no clock to measure against (the rate is CPUID's %s)", tsc_source);
}

/* Did tsc_init find the clock `name` counting? (tsc_clocks: "hpet:2099990,pit:2099987") */
static bool clock_counted(const char *name)
{
	size_t n = strlen(name);

	for (const char *p = tsc_clocks; *p; p++)
		if ((p == tsc_clocks || p[-1] == ',') && !strncmp(p, name, n) && p[n] == ':')
			return true;
	return false;
}

/*
 * The count now of the HPET, the PM timer or (last) PIT channel 2 as arch/x86/tsc.c left it
 * (mode 2, latched reads, counting down), its frequency and width; false if none counts.
 */
static bool read_other_clock(u64 *v, u64 *hz, u64 *mask, const char **name)
{
	if (acpi.hpet_addr >= 0xfec00000ULL && acpi.hpet_addr < 0x100000000ULL) {
		volatile u8 *h = (volatile u8 *)(uptr)acpi.hpet_addr;
		u64 period = mmio_read32(h + 4);

		if (period && (mmio_read32(h + 0x10) & 1)) {
			*v = mmio_read32(h + 0xf0);
			*hz = 1000000000000000ULL / period;
			*mask = 0xffffffff;
			*name = "hpet";
			return true;
		}
	}
	if (acpi.pm_tmr_port) {
		*mask = acpi.pm_tmr_32bit ? 0xffffffff : 0xffffff;
		*v = inl(acpi.pm_tmr_port) & *mask;
		*hz = 3579545;
		*name = "pm-timer";
		return true;
	}
	if (clock_counted("pit")) {
		u8 lo, hi;

		outb(0x43, 0x80);
		lo = inb(0x42);
		hi = inb(0x42);
		*v = 0xffff - (u64)(lo | (hi << 8));
		*hz = 1193182;
		*mask = 0xffff;
		*name = "pit";
		return true;
	}
	return false;
}

/*
 * udelay lasts at least as long as asked by the HPET, the PM timer or the PIT (less 1%, the
 * agreement asked of tsc_khz above). A wrong tsc_khz makes every delay, timeout and figure
 * wrong by the same factor; this catches it without arch/x86/tsc.c's measurement. The shortest
 * of three 20 ms delays counts; by the PIT, whose count wraps every 55 ms (a vCPU
 * descheduled that long would make a delay look short), the median of five 5 ms ones.
 */
static void udelay_lasts_by_another_clock(struct kunit *test)
{
	u64 v0, v1, hz, mask, ticks[5], want;
	unsigned long us = 20000;
	const char *name;
	int tries = 3, pick;

	if (!read_other_clock(&v0, &hz, &mask, &name))
		kunit_skip(test, "no HPET, PM timer or PIT");
	if (!strcmp(name, "pit")) {
		us = 5000;
		tries = 5;
	}
	for (int i = 0; i < tries; i++) {
		read_other_clock(&v0, &hz, &mask, &name);
		udelay(us);
		read_other_clock(&v1, &hz, &mask, &name);
		ticks[i] = (v1 - v0) & mask;
		for (int j = i; j > 0 && ticks[j - 1] > ticks[j]; j--) {
			u64 t = ticks[j];

			ticks[j] = ticks[j - 1];
			ticks[j - 1] = t;
		}
	}
	pick = tries == 5 ? 2 : 0;
	want = hz * us / 1000000;
	kunit_info(test, "udelay(%lu) took %llu ticks of the %s (%s of %d), %llu us", us,
		   (unsigned long long)ticks[pick], name, pick ? "median" : "shortest", tries,
		   (unsigned long long)(ticks[pick] * 1000000 / hz));
	KUNIT_EXPECT_GE_MSG(test, ticks[pick], want - want / 100, "udelay(%lu) was short by the %s",
			    us, name);
}

static void conversions_round_trip(struct kunit *test)
{
	static const u64 ns[] = { 0, 1, 999, 1000000, 123456789, 3600ULL * 1000000000 };

	for (unsigned i = 0; i < ARRAY_SIZE(ns); i++) {
		u64 back = cycles_to_ns(ns_to_cycles(ns[i]));
		/* Truncation twice: at most 1 ns plus one cycle's worth. */
		u64 slack = 1 + 1000000 / tsc_khz + 1;

		KUNIT_EXPECT_LE_MSG(test, back, ns[i], "ns=%llu", (unsigned long long)ns[i]);
		KUNIT_EXPECT_LE_MSG(test, ns[i] - back, slack, "ns=%llu", (unsigned long long)ns[i]);
	}
	KUNIT_EXPECT_EQ(test, cycles_to_ns(tsc_khz * 1000), 1000000000ULL);
}

static void ktime_moves_forward(struct kunit *test)
{
	u64 a = ktime_ns(), b;

	udelay(50);
	b = ktime_ns();
	KUNIT_EXPECT_GT(test, b, a);
	KUNIT_EXPECT_GE(test, b - a, 50000);
}

static struct kunit_case time_cases[] = {
	KUNIT_CASE(tsc_khz_plausible),
	KUNIT_CASE(udelay_agrees_with_tsc),
	KUNIT_CASE(tsc_agrees_with_every_clock),
	KUNIT_CASE(udelay_lasts_by_another_clock),
	KUNIT_CASE(conversions_round_trip),
	KUNIT_CASE(ktime_moves_forward),
	{}
};

static struct kunit_suite time_suite = {
	.name = "time",
	.test_cases = time_cases,
};
kunit_test_suite(time_suite);
