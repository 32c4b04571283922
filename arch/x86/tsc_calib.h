/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the TSC calibration, apart from any I/O so that the host tests can run
 * it (tests/host/test_tsc_calib.c): the rate one window gives, the median of the windows
 * with the outliers left out, the CPUID frequency leaves, and which source is believed.
 * arch/x86/tsc.c does the reading.
 */
#ifndef SLABLAB_TSC_CALIB_H
#define SLABLAB_TSC_CALIB_H

#include "kernel/types.h"

/* A TSC rate outside this range is not believed, whichever source says it. */
#define TSC_MIN_KHZ 100000ULL   /* 100 MHz */
#define TSC_MAX_KHZ 10000000ULL /* 10 GHz */

/* Windows more than this far from their reference's median are outliers. */
#define TSC_OUTLIER_PPM 2000
/* Two sources agree when they are this close (measured against measured, leaf against measured). */
#define TSC_AGREE_PPM 2000
#define TSC_LEAF_AGREE_PPM 10000

/* What the windows of one reference came to. */
struct tsc_estimate {
	u64 khz;        /* median of the kept windows; 0: no estimate */
	u32 spread_ppm; /* (largest - smallest kept window) / khz */
	int kept;       /* windows within TSC_OUTLIER_PPM of the median */
	int windows;    /* windows measured: tsc_reduce's n; arch/x86/tsc.c adds the ones it dropped
			   for a wide bracket, which never reach tsc_reduce */
};

/* kHz from tsc_ticks TSC ticks over ref_ticks of a clock of ref_hz; 0 if ref_ticks is 0. */
u64 tsc_window_khz(u64 tsc_ticks, u64 ref_ticks, u64 ref_hz);

/*
 * From n window rates (reordered in place): those outside TSC_MIN_KHZ..TSC_MAX_KHZ are
 * dropped, the rest's median taken, windows further than outlier_ppm from it dropped, and
 * the median of what is left is the estimate. There is one only when at least min_kept
 * windows are kept and they are more than half of the plausible ones; returns 0 then, -1
 * (out->khz 0) otherwise. out->windows is n.
 */
int tsc_reduce(u64 *khz, int n, u32 outlier_ppm, int min_kept, struct tsc_estimate *out);

/* |a - b| in parts per million of b (b > 0). */
u64 tsc_diff_ppm(u64 a, u64 b);

/*
 * The CPUID leaves, from their registers (0 where they give no frequency, which TCG's
 * all-zero leaves 0x15 and 0x16 do): 0x15 the TSC/crystal ratio ebx/eax times the crystal
 * ecx in Hz (Intel SDM vol. 2A, CPUID leaf 15H; no frequency when ecx is 0), the hypervisor
 * timing leaf 0x40000010 (eax: TSC kHz; VMware 2008, also KVM with invtsc) when the
 * hypervisor's maximum leaf reaches it, 0x16 the nominal base frequency in MHz (eax[15:0]).
 */
u64 tsc_khz_from_leaf15(u32 max_leaf, u32 eax, u32 ebx, u32 ecx);
u64 tsc_khz_from_hv_leaf(u32 hv_max_leaf, u32 eax);
u64 tsc_khz_from_leaf16(u32 max_leaf, u32 eax);

/*
 * NULL when the kernel can read a HPET at this address (its registers in the uncached MMIO
 * range 0xfec00000 .. 4 GiB that arch/x86/boot/entry.asm maps, 8-byte aligned), else why not.
 */
const char *tsc_hpet_unusable(u64 addr);

/* One possible source of tsc_khz, in the order arch/x86/tsc.c lists them. */
enum tsc_kind {
	TSC_EXACT,    /* a CPUID leaf that states the frequency (0x15, 0x40000010) */
	TSC_MEASURED, /* windows against a clock of known frequency */
	TSC_NOMINAL,  /* CPUID 0x16: the base frequency, usually but not always the TSC's */
};

struct tsc_candidate {
	const char *name;
	enum tsc_kind kind;
	struct tsc_estimate est; /* est.khz 0: this source has nothing */
	const char *rejected;    /* set by tsc_choose for a source it passed over, and why */
};

/*
 * Which candidate to believe (index, or -1 if none has a plausible value):
 *  - among the measured ones, the first (in list order) that agrees within TSC_AGREE_PPM
 *    with another measured one; when none agree with each other, the one with the smallest
 *    spread; a single one is taken as it is;
 *  - an exact leaf is preferred to that, unless it is more than TSC_LEAF_AGREE_PPM from it;
 *  - with nothing measured, the first exact leaf, then the nominal one.
 * Sets rejected on the candidates that had a value but were passed over for disagreeing.
 */
int tsc_choose(struct tsc_candidate *c, int n);

#endif
