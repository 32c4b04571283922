/* SPDX-License-Identifier: MIT */
/*
 * Interrupt storms, for the graders' race tests (tests/kernel/slab_race_test.c): this CPU's
 * timer interrupts, each one at a distance the test chooses, and a handler that runs in
 * each with the address the interrupt landed on (for an interrupt the soft mask held back,
 * where it arrived, not where it ran).
 *
 *   irq_storm_start(fn, arg, first)  the first interrupt after `first` timer ticks; each
 *                                    calls fn(arg, rip) in interrupt context, and fn's
 *                                    answer is the distance to the next one (0: the last)
 *   irq_storm_stop()                 no more on this CPU
 *
 * On x86 the timer is the local APIC's, one-shot: a tick is a nanosecond of QEMU's virtual
 * clock, so under ICOUNT=1 one guest instruction, and a storm lands on exact instructions,
 * the same ones in every run. irq_storm_supported() is false where there is no such timer.
 */
#ifndef SLABLAB_IRQ_STORM_H
#define SLABLAB_IRQ_STORM_H

#include "kernel/types.h"

typedef u32 irq_storm_fn(void *arg, u64 rip);

bool irq_storm_supported(void);
void irq_storm_start(irq_storm_fn *fn, void *arg, u32 first);
void irq_storm_stop(void);

#endif
