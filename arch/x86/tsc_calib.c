// SPDX-License-Identifier: MIT
/*
 * The arithmetic of the TSC calibration (see tsc_calib.h); no I/O, no globals. The method
 * is the one Linux's native_calibrate_tsc() family uses in spirit (several measurements,
 * a reference read bracketed by two TSC reads, the HPET or PM timer preferred to the PIT
 * when they disagree), written for a guest whose vCPU can stop for milliseconds at any
 * instruction: every window is kept or dropped on its own evidence, and the median decides.
 */
#include "arch/x86/tsc_calib.h"

u64 tsc_window_khz(u64 tsc_ticks, u64 ref_ticks, u64 ref_hz)
{
	u64 q, r, hz;

	if (!ref_ticks)
		return 0;
	/*
	 * tsc_ticks * ref_hz / ref_ticks in two parts, without 128-bit division: r < ref_ticks,
	 * so r * ref_hz fits in 64 bits for ref_ticks * ref_hz < 1.8e19 (half an hour of a
	 * 100 MHz HPET; windows are milliseconds).
	 */
	q = tsc_ticks / ref_ticks;
	r = tsc_ticks % ref_ticks;
	hz = q * ref_hz + r * ref_hz / ref_ticks;
	return (hz + 500) / 1000;
}

const char *tsc_hpet_unusable(u64 a)
{
	if (a < 0xfec00000ULL || a > 0x100000000ULL - 0x400)
		return "is outside the uncached MMIO range 0xfec00000 .. 4 GiB";
	if (a & 7)
		return "is not 8-byte aligned";
	return NULL;
}

u64 tsc_diff_ppm(u64 a, u64 b)
{
	u64 d = a > b ? a - b : b - a;

	if (!b)
		return ~0ULL;
	if (d > ~0ULL / 1000000)
		return ~0ULL;
	return d * 1000000 / b;
}

static void sort_u64(u64 *v, int n)
{
	for (int i = 1; i < n; i++) {
		u64 x = v[i];
		int j = i - 1;

		for (; j >= 0 && v[j] > x; j--)
			v[j + 1] = v[j];
		v[j + 1] = x;
	}
}

/* The median of sorted v[0..n), n > 0: the lower middle one for even n (no averaging, so
 * the result is always a window that was measured). */
static u64 median_sorted(const u64 *v, int n)
{
	return v[(n - 1) / 2];
}

int tsc_reduce(u64 *khz, int n, u32 outlier_ppm, int min_kept, struct tsc_estimate *out)
{
	int plausible = 0, kept = 0, first = -1;
	u64 med;

	out->khz = 0;
	out->spread_ppm = 0;
	out->kept = 0;
	out->windows = n;
	for (int i = 0; i < n; i++)
		if (khz[i] >= TSC_MIN_KHZ && khz[i] <= TSC_MAX_KHZ)
			khz[plausible++] = khz[i];
	if (!plausible)
		return -1;
	sort_u64(khz, plausible);
	med = median_sorted(khz, plausible);
	for (int i = 0; i < plausible; i++) {
		if (tsc_diff_ppm(khz[i], med) > outlier_ppm)
			continue;
		if (first < 0)
			first = i;
		kept++;
	}
	/* Sorted, so the kept windows are the run khz[first .. first + kept). */
	out->kept = kept;
	if (kept < min_kept || kept * 2 <= plausible)
		return -1;
	out->khz = median_sorted(khz + first, kept);
	out->spread_ppm = (u32)((khz[first + kept - 1] - khz[first]) * 1000000 / out->khz);
	return 0;
}

u64 tsc_khz_from_leaf15(u32 max_leaf, u32 eax, u32 ebx, u32 ecx)
{
	if (max_leaf < 0x15 || !eax || !ebx || !ecx)
		return 0;
	return ((u64)ecx * ebx / eax + 500) / 1000;
}

u64 tsc_khz_from_hv_leaf(u32 hv_max_leaf, u32 eax)
{
	if (hv_max_leaf < 0x40000010 || hv_max_leaf > 0x400000ff)
		return 0; /* no timing leaf, or a maximum that is not a hypervisor leaf at all */
	return eax;
}

u64 tsc_khz_from_leaf16(u32 max_leaf, u32 eax)
{
	if (max_leaf < 0x16)
		return 0;
	return (u64)(eax & 0xffff) * 1000;
}

static bool plausible(u64 khz)
{
	return khz >= TSC_MIN_KHZ && khz <= TSC_MAX_KHZ;
}

static int choose_measured(struct tsc_candidate *c, int n)
{
	int nmeas = 0, best = -1;

	for (int i = 0; i < n; i++)
		if (c[i].kind == TSC_MEASURED && plausible(c[i].est.khz))
			nmeas++;
	for (int i = 0; i < n && best < 0; i++) {
		if (c[i].kind != TSC_MEASURED || !plausible(c[i].est.khz))
			continue;
		if (nmeas == 1)
			best = i;
		for (int j = 0; j < n && best < 0; j++)
			if (j != i && c[j].kind == TSC_MEASURED && plausible(c[j].est.khz) &&
			    tsc_diff_ppm(c[i].est.khz, c[j].est.khz) <= TSC_AGREE_PPM)
				best = i;
	}
	if (best < 0) /* nobody agrees with anybody: the steadiest */
		for (int i = 0; i < n; i++)
			if (c[i].kind == TSC_MEASURED && plausible(c[i].est.khz) &&
			    (best < 0 || c[i].est.spread_ppm < c[best].est.spread_ppm))
				best = i;
	if (best >= 0)
		for (int i = 0; i < n; i++)
			if (i != best && c[i].kind == TSC_MEASURED && c[i].est.khz &&
			    (!plausible(c[i].est.khz) ||
			     tsc_diff_ppm(c[i].est.khz, c[best].est.khz) > TSC_AGREE_PPM))
				c[i].rejected = "disagrees with the chosen measurement";
	return best;
}

int tsc_choose(struct tsc_candidate *c, int n)
{
	int meas, pick = -1;

	for (int i = 0; i < n; i++) {
		c[i].rejected = NULL;
		if (c[i].est.khz && !plausible(c[i].est.khz))
			c[i].rejected = "outside 100 MHz .. 10 GHz";
	}
	meas = choose_measured(c, n);
	for (int i = 0; i < n && pick < 0; i++) {
		bool agrees = meas < 0;

		if (c[i].kind != TSC_EXACT || !plausible(c[i].est.khz))
			continue;
		for (int j = 0; j < n && !agrees; j++)
			if (c[j].kind == TSC_MEASURED && plausible(c[j].est.khz) &&
			    tsc_diff_ppm(c[i].est.khz, c[j].est.khz) <= TSC_LEAF_AGREE_PPM)
				agrees = true;
		if (agrees)
			pick = i;
		else
			c[i].rejected = "disagrees with every measurement";
	}
	if (pick < 0)
		pick = meas;
	for (int i = 0; i < n && pick < 0; i++)
		if (c[i].kind == TSC_NOMINAL && plausible(c[i].est.khz))
			pick = i;
	if (pick >= 0)
		c[pick].rejected = NULL;
	return pick;
}
