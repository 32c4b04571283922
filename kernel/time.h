/* SPDX-License-Identifier: MIT */
/*
 * Time from the TSC: its frequency (found at boot by arch/x86/tsc.c), conversions and delays.
 *
 * The cycle counter itself comes from the arch (through kernel/arch.h), as Linux's
 * get_cycles() does: get_cycles() reads it as soon as it can, get_cycles_ordered() only
 * after every earlier instruction has finished (x86: lfence; rdtsc). Time a stretch of code
 * with get_cycles_ordered() at both ends; tsc_khz converts.
 */
#ifndef SLABLAB_TIME_H
#define SLABLAB_TIME_H

#include "kernel/arch.h"
#include "kernel/types.h"

extern u64 tsc_khz;            /* TSC ticks per millisecond */
extern const char *tsc_source; /* where tsc_khz came from: cpuid-15h, cpuid-40000010h, hpet,
				  pm-timer, pit, cpuid-16h-nominal */
extern u32 tsc_spread_ppm;     /* measured: spread of the windows kept; 0 for a CPUID leaf */
extern int tsc_windows, tsc_windows_kept; /* measured: windows taken, and kept for the median */
extern char tsc_clocks[96];      /* every clock measured and its kHz, "hpet:2099990,pit:2099987" */
extern u64 boot_entry_tsc;     /* TSC at the kernel's first instruction (boot/entry.asm) */

struct tsc_estimate;

void tsc_init(void);
/*
 * A clock ticking where an observer outside the machine sees it (x86: the PIT's channel 0
 * every OBSERVER_CLOCK_DIVISOR PIT ticks, in QEMU's trace; tools/lab.py times lab 2 by it):
 * on while the APs start, and while a test asks for it, when the boot has observer_clock=1.
 */
#define OBSERVER_CLOCK_DIVISOR 12
void observer_clock(bool on);
/*
 * Measures the TSC again against one clock ("hpet", "pm-timer", "pit") as tsc_init does,
 * interrupts off, and again (a few times) while no window was usable; -1 if the machine does
 * not have that clock or it does not count. est->khz is 0 if no round gave an estimate.
 */
int tsc_measure_clock(const char *name, struct tsc_estimate *est);

u64 cycles_to_ns(u64 cycles);
u64 ns_to_cycles(u64 ns);
u64 ktime_ns(void); /* ns since the kernel's first instruction */
void udelay(unsigned long us);
void mdelay(unsigned long ms);

#endif
