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
extern const char *tsc_source; /* how tsc_khz was found: cpuid-15h, hypervisor, pit, hpet, ... */
extern u64 boot_entry_tsc;     /* TSC at the kernel's first instruction (boot/entry.asm) */

void tsc_init(void);
u64 tsc_calibrate_pit(unsigned int ms);
u64 tsc_calibrate_hpet(unsigned int ms);

u64 cycles_to_ns(u64 cycles);
u64 ns_to_cycles(u64 ns);
u64 ktime_ns(void); /* ns since the kernel's first instruction */
void udelay(unsigned long us);
void mdelay(unsigned long ms);

#endif
