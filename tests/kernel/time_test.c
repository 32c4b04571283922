// SPDX-License-Identifier: MIT
/*
 * The TSC frequency is plausible, udelay waits as long as the TSC says (within 10%), the
 * TSC agrees with an independent clock (PIT or HPET) within 10%, and conversions hold.
 */
#include "kernel/kunit.h"
#include "kernel/smp.h"
#include "kernel/time.h"

static void tsc_khz_plausible(struct kunit *test)
{
	KUNIT_EXPECT_GE(test, tsc_khz, 100000);   /* 100 MHz */
	KUNIT_EXPECT_LE(test, tsc_khz, 10000000); /* 10 GHz */
	kunit_info(test, "tsc %llu kHz from %s", (unsigned long long)tsc_khz, tsc_source);
}

/* Best of three: a host that preempts the emulator can only make a wait look longer. */
static u64 udelay_ns(unsigned long us)
{
	u64 best = ~0ULL;

	for (int i = 0; i < 3; i++) {
		u64 t0 = get_cycles_ordered(), ns;

		udelay(us);
		ns = cycles_to_ns(get_cycles_ordered() - t0);
		best = ns < best ? ns : best;
	}
	return best;
}

static void udelay_agrees_with_tsc(struct kunit *test)
{
	static const unsigned long us[] = { 100, 1000, 10000 };

	for (unsigned i = 0; i < ARRAY_SIZE(us); i++) {
		u64 ns = udelay_ns(us[i]), want = us[i] * 1000ULL;

		KUNIT_EXPECT_GE_MSG(test, ns, want, "udelay(%lu) returned early", us[i]);
		KUNIT_EXPECT_LE_MSG(test, ns, want + want / 10, "udelay(%lu) took %llu ns", us[i],
				    (unsigned long long)ns);
	}
}

static void tsc_agrees_with_pit_or_hpet(struct kunit *test)
{
	u64 khz = 0, best_err = ~0ULL;
	const char *clock = "pit";

	for (int i = 0; i < 3; i++) {
		u64 k = tsc_calibrate_pit(20), err;

		if (!k) {
			clock = "hpet";
			k = tsc_calibrate_hpet(20);
		}
		if (!k)
			kunit_skip(test, "neither the PIT nor the HPET ticks here");
		err = k > tsc_khz ? k - tsc_khz : tsc_khz - k;
		if (err < best_err) {
			best_err = err;
			khz = k;
		}
	}
	kunit_info(test, "%s says %llu kHz, tsc_khz %llu", clock, (unsigned long long)khz,
		   (unsigned long long)tsc_khz);
	KUNIT_EXPECT_LE(test, best_err * 10, tsc_khz);
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
	KUNIT_CASE(tsc_agrees_with_pit_or_hpet),
	KUNIT_CASE(conversions_round_trip),
	KUNIT_CASE(ktime_moves_forward),
	{}
};

static struct kunit_suite time_suite = {
	.name = "time",
	.test_cases = time_cases,
};
kunit_test_suite(time_suite);
