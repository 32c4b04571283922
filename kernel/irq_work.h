/* SPDX-License-Identifier: MIT */
/*
 * Work queued from any context, NMI included, to run soon on the same CPU in interrupt
 * context (Linux's irq_work, its names). irq_work_queue() needs no lock: it pushes the item
 * onto this CPU's list with compare-and-swap and, when the list was empty, sends this CPU a
 * self-IPI (x86: the local APIC's self IPI, one register write, which an NMI may do even
 * while the code it interrupted is half-way through sending an IPI of its own). The IPI's
 * handler takes the whole list and runs each item's func with interrupts off, oldest first,
 * as soon as the CPU takes interrupts again. An item is on at most one list at a time: a
 * queue of an item still pending returns false and changes nothing. func may queue it again.
 *
 * What needs it: an NMI handler may not take a lock the code it interrupted may hold, nor
 * send an IPI to another CPU in xAPIC mode; it leaves such work here (kernel/printk.c's NMI
 * buffer is flushed this way).
 */
#ifndef SLABLAB_IRQ_WORK_H
#define SLABLAB_IRQ_WORK_H

#include "kernel/types.h"

struct irq_work {
	struct irq_work *next;
	void (*func)(struct irq_work *work);
	u32 pending; /* 1 from the queue until func is about to run */
};

#define IRQ_WORK_INIT(fn) { .next = NULL, .func = (fn), .pending = 0 }

static inline void init_irq_work(struct irq_work *w, void (*fn)(struct irq_work *))
{
	w->next = NULL;
	w->func = fn;
	w->pending = 0;
}

bool irq_work_queue(struct irq_work *w); /* this CPU; any context; false: already pending */
void irq_work_run(void);                 /* the arch's self-IPI handler (interrupts off) */
u64 irq_work_runs(int cpu);              /* items run on cpu so far */

#endif
