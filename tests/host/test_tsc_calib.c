// SPDX-License-Identifier: MIT
/*
 * arch/x86/tsc_calib.c: the rate of one window (against long double arithmetic, at the sizes
 * the kernel sees and far beyond), the median with outliers and implausible windows left
 * out, the CPUID leaves from their registers (TCG's all-zero leaves 0x15/0x16, a
 * hypervisor's 0x40000010), and which source tsc_choose() believes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/tsc_calib.h"
#include "tests/host/ktest.h"

static void window_khz(void)
{
	/* 10 ms of a 100 MHz HPET, 5 ms of the PIT and of the PM timer, at 2.1 GHz */
	KT_EQ_U("window: 10 ms of a 100 MHz HPET", tsc_window_khz(21000000, 1000000, 100000000),
		2100000);
	KT_EQ_U("window: 5966 PIT ticks", tsc_window_khz(10500158, 5966, 1193182), 2100000);
	KT_EQ_U("window: 17898 PM timer ticks", tsc_window_khz(10500161, 17898, 3579545), 2100000);
	KT_EQ_U("window: no reference ticks gives 0", tsc_window_khz(12345, 0, 1193182), 0);
	KT_EQ_U("window: rounds to the nearest kHz (down)", tsc_window_khz(1, 1, 1499), 1);
	KT_EQ_U("window: rounds to the nearest kHz (up)", tsc_window_khz(1, 1, 1500), 2);

	/* Random windows from 1 us to 10 minutes, rates 100 MHz .. 10 GHz, the three clocks. */
	static const u64 hz[] = { 1193182, 3579545, 14318180, 100000000 };
	u64 seed = 12345;
	int bad = 0;
	char first[160] = "";

	for (int i = 0; i < 100000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		u64 f = hz[(seed >> 33) % 4];
		long double secs = 1e-6L * (long double)(1 + (seed >> 20) % 600000000ULL);
		long double rate = 1e8L + (long double)((seed >> 7) % 9900000000ULL);
		u64 ref = (u64)(secs * f) + 1, tsc = (u64)(rate * ref / f);
		long double want = (long double)tsc * f / ref / 1000;
		u64 got = tsc_window_khz(tsc, ref, f);
		long double err = got > want ? got - want : want - got;

		if (err > 0.5001L) {
			if (!bad++)
				snprintf(first, sizeof(first), "tsc %llu ref %llu hz %llu: got %llu, want %.3Lf",
					 (unsigned long long)tsc, (unsigned long long)ref,
					 (unsigned long long)f, (unsigned long long)got, want);
		}
	}
	kt_check(!bad, "window: 100000 random windows within 0.5 kHz of exact", "%d off; first %s",
		 bad, first);
}

static int reduce(const u64 *in, int n, int min_kept, struct tsc_estimate *e)
{
	u64 v[32];

	if (n)
		memcpy(v, in, sizeof(u64) * (size_t)n);
	return tsc_reduce(v, n, TSC_OUTLIER_PPM, min_kept, e);
}

static void reduce_windows(void)
{
	struct tsc_estimate e;
	int rc;

	{
		const u64 w[] = { 2100010, 2099990, 2100000, 2100005, 2099995 };

		rc = reduce(w, 5, 3, &e);
		kt_check(rc == 0 && e.khz == 2100000 && e.kept == 5 && e.windows == 5 &&
			     e.spread_ppm == 9,
			 "reduce: five close windows: their median, spread (max-min)/median",
			 "rc %d khz %llu kept %d windows %d spread %u", rc, (unsigned long long)e.khz,
			 e.kept, e.windows, e.spread_ppm);
	}
	{
		/* Two windows where the PIT lost a wrap (65536 ticks in a 5 ms window: ~12x). */
		const u64 w[] = { 2100000, 25200000, 2100100, 2099900, 9990000, 2100050, 2099950 };

		rc = reduce(w, 7, 3, &e);
		kt_check(rc == 0 && e.khz == 2100000 && e.kept == 5 && e.windows == 7,
			 "reduce: outliers (one implausible, one 4.8x) are left out",
			 "rc %d khz %llu kept %d", rc, (unsigned long long)e.khz, e.kept);
	}
	{
		/* Single windows on a busy host: 0.89 .. 12.7 GHz */
		const u64 w[] = { 890000,  2596000, 12700000, 1800000,
				  2596100, 3100000, 2595900,  2596050 };

		rc = reduce(w, 8, 3, &e);
		kt_check(rc == 0 && e.khz == 2596000 && e.kept == 4,
			 "reduce: four agreeing windows among scattered ones give the estimate",
			 "rc %d khz %llu kept %d", rc, (unsigned long long)e.khz, e.kept);
	}
	{
		/* No majority: 3 agree, 3 others scattered, of 6 plausible. */
		const u64 w[] = { 2100000, 2100001, 2100002, 1500000, 3000000, 4000000 };

		rc = reduce(w, 6, 3, &e);
		kt_check(rc == -1 && e.khz == 0 && e.kept == 3,
			 "reduce: kept windows must be more than half", "rc %d khz %llu kept %d", rc,
			 (unsigned long long)e.khz, e.kept);
	}
	{
		/* pit=off under QEMU 7.2: port 0x61 bit 5 said 'done' at once, ~1.3-2.6 MHz */
		const u64 w[] = { 2594, 2645, 2600, 2610, 2620 };

		rc = reduce(w, 5, 3, &e);
		kt_check(rc == -1 && e.khz == 0, "reduce: windows below 100 MHz are not believed",
			 "rc %d khz %llu", rc, (unsigned long long)e.khz);
	}
	{
		const u64 w[] = { 10000001, 10000002, 10000003 };

		rc = reduce(w, 3, 3, &e);
		kt_check(rc == -1, "reduce: windows above 10 GHz are not believed", "rc %d", rc);
	}
	{
		const u64 w[] = { 2100000, 2100001 };

		rc = reduce(w, 2, 3, &e);
		kt_check(rc == -1 && e.kept == 2, "reduce: fewer than min_kept gives nothing",
			 "rc %d kept %d", rc, e.kept);
		rc = reduce(w, 2, 2, &e);
		kt_check(rc == 0 && e.khz == 2100000, "reduce: an even count takes the lower middle",
			 "rc %d khz %llu", rc, (unsigned long long)e.khz);
	}
	{
		/* TSC_OUTLIER_PPM (2000) of 2000000 is 4000 kHz: 2004000 kept, 2004002 not. */
		const u64 w[] = { 2000000, 2000000, 2000000, 2004000, 2004002 };

		rc = reduce(w, 5, 3, &e);
		kt_check(rc == 0 && e.kept == 4 && e.spread_ppm == 2000,
			 "reduce: the outlier bound is inclusive", "rc %d kept %d spread %u", rc,
			 e.kept, e.spread_ppm);
	}
	rc = reduce(NULL, 0, 3, &e);
	kt_check(rc == -1 && e.khz == 0 && e.windows == 0, "reduce: no windows", "rc %d", rc);
	KT_EQ_U("diff_ppm: 1%", tsc_diff_ppm(1010000, 1000000), 10000);
	KT_EQ_U("diff_ppm: symmetric in sign", tsc_diff_ppm(990000, 1000000), 10000);
	KT_EQ_U("diff_ppm: of 0 is huge", tsc_diff_ppm(5, 0), ~0ULL);
}

static void cpuid_leaves(void)
{
	KT_EQ_U("leaf 15h: TCG's zeros give nothing", tsc_khz_from_leaf15(0x16, 0, 0, 0), 0);
	KT_EQ_U("leaf 15h: 24 MHz crystal * 176/2", tsc_khz_from_leaf15(0x16, 2, 176, 24000000),
		2112000);
	KT_EQ_U("leaf 15h: no crystal frequency (ecx 0) gives nothing",
		tsc_khz_from_leaf15(0x16, 2, 176, 0), 0);
	KT_EQ_U("leaf 15h: beyond the maximum leaf gives nothing",
		tsc_khz_from_leaf15(0xd, 2, 176, 24000000), 0);
	KT_EQ_U("leaf 16h: TCG's zeros give nothing", tsc_khz_from_leaf16(0x16, 0), 0);
	KT_EQ_U("leaf 16h: base MHz in eax[15:0]", tsc_khz_from_leaf16(0x16, 0xabcd0000 | 2100),
		2100000);
	KT_EQ_U("leaf 16h: beyond the maximum leaf gives nothing", tsc_khz_from_leaf16(0x15, 2100),
		0);
	KT_EQ_U("leaf 40000010h: KVM with invtsc", tsc_khz_from_hv_leaf(0x40000010, 1996250),
		1996250);
	KT_EQ_U("leaf 40000010h: beyond a larger maximum", tsc_khz_from_hv_leaf(0x40000011, 2596000),
		2596000);
	KT_EQ_U("leaf 40000010h: TCG's maximum 0x40000001 has none",
		tsc_khz_from_hv_leaf(0x40000001, 2596000), 0);
	KT_EQ_U("leaf 40000010h: a maximum outside the hypervisor range",
		tsc_khz_from_hv_leaf(0x80000008, 2596000), 0);
	KT_EQ_U("leaf 40000010h: eax 0 gives nothing", tsc_khz_from_hv_leaf(0x40000010, 0), 0);
}

enum { L15, HV, HPET, PM, PIT, L16, N };

static struct tsc_candidate cand[N];

static void cands(u64 l15, u64 hv, u64 hpet, u64 pm, u64 pit, u64 l16)
{
	const u64 v[N] = { l15, hv, hpet, pm, pit, l16 };
	static const char *const names[N] = { "cpuid-15h", "cpuid-40000010h", "hpet",
					      "pm-timer", "pit", "cpuid-16h-nominal" };
	static const enum tsc_kind kinds[N] = { TSC_EXACT, TSC_EXACT, TSC_MEASURED,
						TSC_MEASURED, TSC_MEASURED, TSC_NOMINAL };

	memset(cand, 0, sizeof(cand));
	for (int i = 0; i < N; i++) {
		cand[i].name = names[i];
		cand[i].kind = kinds[i];
		cand[i].est.khz = v[i];
		cand[i].est.spread_ppm = 10 * (u32)(i + 1);
	}
}

static void choose(void)
{
	int p;

	cands(0, 0, 2100001, 2100010, 2099990, 0);
	p = tsc_choose(cand, N);
	kt_check(p == HPET && !cand[PM].rejected && !cand[PIT].rejected,
		 "choose: TCG's three clocks agree: the HPET", "picked %d", p);
	cands(0, 0, 2205000, 2100010, 2099990, 0);
	p = tsc_choose(cand, N);
	kt_check(p == PM && cand[HPET].rejected && !cand[PIT].rejected,
		 "choose: a HPET 5% off loses to the PM timer and PIT that agree", "picked %d", p);
	cands(0, 0, 0, 0, 2100000, 0);
	p = tsc_choose(cand, N);
	kt_check(p == PIT, "choose: the PIT alone (no ACPI)", "picked %d", p);
	cands(0, 0, 0, 2100000, 0, 0);
	p = tsc_choose(cand, N);
	kt_check(p == PM, "choose: the PM timer alone (pit=off, hpet=off)", "picked %d", p);
	cands(0, 0, 2100000, 0, 2300000, 0);
	cand[HPET].est.spread_ppm = 500;
	cand[PIT].est.spread_ppm = 40;
	p = tsc_choose(cand, N);
	kt_check(p == PIT && cand[HPET].rejected,
		 "choose: two that disagree: the one with the smaller spread", "picked %d", p);
	cands(2112000, 0, 2112100, 2111900, 0, 2100000);
	p = tsc_choose(cand, N);
	kt_check(p == L15 && !cand[L16].rejected,
		 "choose: leaf 15h agreeing with the measurements", "picked %d", p);
	cands(3000000, 0, 2100000, 2100000, 2100000, 0);
	p = tsc_choose(cand, N);
	kt_check(p == HPET && cand[L15].rejected,
		 "choose: a leaf 15h that disagrees with every measurement is not used",
		 "picked %d rejected %s", p, cand[L15].rejected ? cand[L15].rejected : "-");
	cands(0, 1996250, 0, 0, 0, 0);
	p = tsc_choose(cand, N);
	kt_check(p == HV, "choose: the hypervisor leaf with nothing to measure", "picked %d", p);
	cands(0, 1996250, 1996500, 0, 1996400, 0);
	p = tsc_choose(cand, N);
	kt_check(p == HV, "choose: the hypervisor leaf agreeing within 1%", "picked %d", p);
	cands(0, 0, 0, 0, 0, 2100000);
	p = tsc_choose(cand, N);
	kt_check(p == L16, "choose: the nominal leaf 16h only when nothing else",
		 "picked %d", p);
	cands(0, 0, 0, 0, 2099000, 2100000);
	p = tsc_choose(cand, N);
	kt_check(p == PIT && !cand[L16].rejected,
		 "choose: a measurement wins over the nominal leaf", "picked %d", p);
	cands(0, 0, 0, 0, 0, 0);
	p = tsc_choose(cand, N);
	kt_check(p == -1, "choose: nothing at all", "picked %d", p);
	cands(1, 0, 0, 0, 0, 0);
	p = tsc_choose(cand, N);
	kt_check(p == -1 && cand[L15].rejected && strstr(cand[L15].rejected, "100 MHz"),
		 "choose: an implausible leaf is refused and said so", "picked %d", p);
	cands(0, 0, 0, 0, 2594, 2100000);
	p = tsc_choose(cand, N);
	kt_check(p == L16 && cand[PIT].rejected,
		 "choose: an implausible measurement falls back to the next source", "picked %d",
		 p);
}

int main(void)
{
	window_khz();
	reduce_windows();
	cpuid_leaves();
	choose();
	return kt_finish();
}
