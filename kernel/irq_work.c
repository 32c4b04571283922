// SPDX-License-Identifier: MIT
/*
 * irq_work (kernel/irq_work.h): a per-cpu lock-free stack of items, taken whole by the
 * self-IPI's handler. Only this CPU pushes onto its list (from any context, NMI included)
 * and only its handler takes from it, with one exchange: a push that a taking exchange
 * overtakes is simply in the next list, and the push that finds the list empty sends the IPI.
 */
#include "kernel/arch.h"
#include "kernel/irq_work.h"
#include "kernel/list.h"
#include "kernel/percpu.h"

struct irq_work_cpu {
	struct irq_work *list; /* newest first */
	u64 runs;
};

static DEFINE_PER_CPU(struct irq_work_cpu, irq_work_cpu);

bool irq_work_queue(struct irq_work *w)
{
	struct irq_work **list = &this_cpu_ptr(&irq_work_cpu)->list;
	struct irq_work *old;
	u32 idle = 0;

	if (!__atomic_compare_exchange_n(&w->pending, &idle, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	old = __atomic_load_n(list, __ATOMIC_RELAXED);
	do {
		w->next = old;
		/* Release: func and what the queuer wrote are seen by the handler's exchange. */
	} while (!__atomic_compare_exchange_n(list, &old, w, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (!old)
		arch_irq_work_raise();
	return true;
}

void irq_work_run(void)
{
	struct irq_work_cpu *c = this_cpu_ptr(&irq_work_cpu);
	struct irq_work *list = slist_reverse(__atomic_exchange_n(&c->list, NULL, __ATOMIC_ACQUIRE));

	while (list) {
		struct irq_work *w = list;

		list = w->next;
		/* Pending drops before func runs, so func (or an NMI meanwhile) may queue it again. */
		__atomic_store_n(&w->pending, 0, __ATOMIC_RELEASE);
		w->func(w);
		c->runs++;
	}
}

u64 irq_work_runs(int cpu)
{
	return READ_ONCE(per_cpu(irq_work_cpu, cpu).runs);
}
