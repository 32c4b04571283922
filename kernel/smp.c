// SPDX-License-Identifier: MIT
/*
 * Cross-calls and per-cpu work (see smp.h for the interface).
 *
 * Cross-call protocol. Each CPU owns one call_single_data (csd) per possible target. To
 * call cpu T, the caller waits until its csd for T is unlocked (the previous call to T has
 * finished), fills in fn/info, sets CSD_LOCKED and pushes the csd onto T's lock-free queue
 * (a LIFO linked through csd->next, updated with compare-and-swap). Only the push that finds
 * the queue empty sends the IPI: whoever made it non-empty already sent one that T has not
 * yet served. T's handler takes the whole queue with one exchange, runs the calls oldest
 * first and unlocks each csd with a release store after reading everything it needs from it;
 * the caller's acquire load of the flag pairs with that store, so the caller sees every
 * effect of fn once it sees the csd unlocked. A waiting caller serves its own queue while it
 * spins: if T is waiting on us at the same time, each serves the other and both finish.
 */
#include "kernel/arch.h"
#include "kernel/irqflags.h"
#include "kernel/list.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"

int nr_cpu_ids = 1;
int nr_cpus_found = 1;

#define CSD_LOCKED 1u
#define CSD_SLEEPER 2u /* the caller waits halted: wake it when done */
#define CSD_SPIN_CYCLES 100000 /* spin this long before halting (interrupts on only) */

struct call_single_data {
	struct call_single_data *next;
	smp_call_func_t fn;
	void *info;
	u32 flags;
	int owner; /* the calling CPU */
};

struct cpu_calls {
	struct call_single_data *queue;  /* incoming calls, pushed by other CPUs */
	struct call_single_data *csd;    /* outgoing: csd[target], nr_cpu_ids of them */
};

struct work_group {
	int remaining;
	int waiter; /* the CPU waiting for remaining to reach 0 */
};

struct cpu_work {
	void (*fn)(void *arg); /* non-NULL: work waiting for this CPU's idle loop */
	void *arg;
	struct work_group *group;
};

static DEFINE_PER_CPU(struct cpu_calls, cpu_calls);
static DEFINE_PER_CPU(struct cpu_work, cpu_work);
static DEFINE_PER_CPU(struct ipi_stats, ipi_stats);
static DEFINE_PER_CPU(int, irq_depth);

void irq_enter(void)
{
	this_cpu(irq_depth)++;
}

void irq_exit(void)
{
	this_cpu(irq_depth)--;
}

bool in_irq_context(void)
{
	return this_cpu(irq_depth) > 0;
}

void cpumask_setall(struct cpumask *m)
{
	cpumask_clear(m);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		cpumask_set_cpu(cpu, m);
}

int cpumask_weight(const struct cpumask *m)
{
	int n = 0;

	for (unsigned i = 0; i < NR_CPUS / 64; i++)
		for (u64 b = m->bits[i]; b; b &= b - 1) /* no libgcc: count bits by hand */
			n++;
	return n;
}

/* The registered IPI handlers (smp_ipi_handler), in link order: an entry's index is its slot. */
extern const struct smp_ipi_handler *const __smp_ipi_handlers_start[];
extern const struct smp_ipi_handler *const __smp_ipi_handlers_end[];

static unsigned int nr_ipi_handlers(void)
{
	return (unsigned int)(__smp_ipi_handlers_end - __smp_ipi_handlers_start);
}

void smp_init(void)
{
	size_t bytes = sizeof(struct call_single_data) * (size_t)nr_cpu_ids;
	unsigned order = 0;

	if (nr_ipi_handlers() > SMP_NR_IPI_HANDLERS)
		panic("smp: %u IPI handlers registered, the arch has vectors for %d",
		      nr_ipi_handlers(), SMP_NR_IPI_HANDLERS);

	while ((PAGE_SIZE << order) < bytes)
		order++;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);

		if (!p)
			panic("smp: no memory for the cross-call data of cpu %d", cpu);
		per_cpu(cpu_calls, cpu).csd = page_address(p);
		per_cpu(cpu_calls, cpu).queue = NULL;
	}
}

/* Run every call queued for this CPU. Interrupts must be off. */
static void flush_call_queue(void)
{
	struct cpu_calls *me = this_cpu_ptr(&cpu_calls);
	struct call_single_data *list;

	irq_enter();
	list = slist_reverse(__atomic_exchange_n(&me->queue, NULL, __ATOMIC_ACQUIRE));
	while (list) {
		struct call_single_data *csd = list;
		smp_call_func_t fn = csd->fn;
		void *info = csd->info;

		int owner = csd->owner;

		list = csd->next; /* read before unlocking: the owner may reuse csd at once */
		fn(info);
		this_cpu(ipi_stats).calls_run++;
		if (__atomic_exchange_n(&csd->flags, 0, __ATOMIC_ACQ_REL) & CSD_SLEEPER)
			smp_send_reschedule(owner);
	}
	irq_exit();
}

void smp_call_function_interrupt(void)
{
	this_cpu(ipi_stats).call_received++;
	flush_call_queue();
}

/*
 * Wait for csd to be unlocked. With interrupts off, spin and serve our own queue. With them
 * on, after a short spin, mark the csd CSD_SLEEPER (compare-and-swap, so a target that has
 * just unlocked it is not missed) and halt: the target's exchange sees the mark and sends us
 * a wake-up IPI; incoming cross-calls wake us too and are served by the IPI handler.
 * Halting matters under emulation, where hundreds of spinning vCPUs starve the rest.
 */
static void csd_wait(struct call_single_data *csd)
{
	u64 t0 = get_cycles();

	while (__atomic_load_n(&csd->flags, __ATOMIC_ACQUIRE) & CSD_LOCKED) {
		unsigned long flags;
		u32 expect = CSD_LOCKED;

		local_irq_save(flags);
		flush_call_queue(); /* serve whoever may be waiting on us */
		if (!irqs_disabled_flags(flags) && get_cycles() - t0 > CSD_SPIN_CYCLES &&
		    (__atomic_compare_exchange_n(&csd->flags, &expect, CSD_LOCKED | CSD_SLEEPER,
						 false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
		     expect == (CSD_LOCKED | CSD_SLEEPER))) {
			arch_idle(); /* sti; hlt */
			continue;
		}
		local_irq_restore(flags);
		cpu_relax();
	}
}

static void csd_send(int cpu, smp_call_func_t fn, void *info)
{
	struct call_single_data *csd = &this_cpu(cpu_calls).csd[cpu];
	struct call_single_data **q = &per_cpu(cpu_calls, cpu).queue;
	struct call_single_data *old;

	csd_wait(csd);
	csd->fn = fn;
	csd->info = info;
	csd->owner = smp_processor_id();
	csd->flags = CSD_LOCKED;
	old = __atomic_load_n(q, __ATOMIC_RELAXED);
	do {
		csd->next = old;
		/* Release: fn/info/flags are visible before the csd is reachable from the queue. */
	} while (!__atomic_compare_exchange_n(q, &old, csd, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (!old) {
		this_cpu(ipi_stats).call_sent++;
		arch_send_call_ipi(cpu);
	}
}

static bool bad_cpu(int cpu, const char *who)
{
	if (cpu >= 0 && cpu < nr_cpu_ids)
		return false;
	printk("%s: cpu %d is not online (0..%d)\n", who, cpu, nr_cpu_ids - 1);
	return true;
}

int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait)
{
	if (bad_cpu(cpu, "smp_call_function_single"))
		return -1;
	if (cpu == smp_processor_id()) {
		unsigned long flags;

		local_irq_save(flags);
		fn(info);
		local_irq_restore(flags);
		return 0;
	}
	csd_send(cpu, fn, info);
	if (wait)
		csd_wait(&this_cpu(cpu_calls).csd[cpu]);
	return 0;
}

void smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, int wait)
{
	int me = smp_processor_id(), cpu;

	for_each_cpu(cpu, mask)
		if (cpu != me)
			csd_send(cpu, fn, info);
	if (!wait)
		return;
	for_each_cpu(cpu, mask)
		if (cpu != me)
			csd_wait(&this_cpu(cpu_calls).csd[cpu]);
}

void smp_call_function(smp_call_func_t fn, void *info, int wait)
{
	struct cpumask all;

	cpumask_setall(&all);
	smp_call_function_many(&all, fn, info, wait);
}

void on_each_cpu(smp_call_func_t fn, void *info, int wait)
{
	unsigned long flags;

	smp_call_function(fn, info, false);
	local_irq_save(flags);
	fn(info);
	local_irq_restore(flags);
	if (wait) {
		struct cpumask all;
		int cpu, me = smp_processor_id();

		cpumask_setall(&all);
		for_each_cpu(cpu, &all)
			if (cpu != me)
				csd_wait(&this_cpu(cpu_calls).csd[cpu]);
	}
}

/* ---- per-cpu work, run from the idle loop ---- */

void smp_wakeup_interrupt(void)
{
	this_cpu(ipi_stats).wakeup_received++;
}

void smp_ipi_interrupt(unsigned int slot)
{
	if (slot >= nr_ipi_handlers()) {
		printk("smp: IPI for handler %u on cpu %d, but %u are registered; ignored\n", slot,
		       smp_processor_id(), nr_ipi_handlers());
		return;
	}
	this_cpu(ipi_stats).handler_received++;
	__smp_ipi_handlers_start[slot]->fn();
}

void smp_send_ipi(int cpu, const struct smp_ipi_handler *h)
{
	for (unsigned int slot = 0; slot < nr_ipi_handlers(); slot++) {
		if (__smp_ipi_handlers_start[slot] == h) {
			this_cpu(ipi_stats).handler_sent++;
			arch_send_ipi(cpu, slot);
			return;
		}
	}
	panic("smp_send_ipi: %s is not a registered IPI handler (smp_ipi_handler)", h->name);
}

void smp_send_reschedule(int cpu)
{
	this_cpu(ipi_stats).wakeup_sent++;
	arch_send_wakeup_ipi(cpu);
}

static void run_work(struct cpu_work *w)
{
	void (*fn)(void *) = w->fn;
	void *arg = w->arg;
	struct work_group *g = w->group;
	int waiter = g->waiter; /* read before the count: at 0 the waiter may return, and g
				 * (on its stack) is gone (ThreadSanitizer, test_slab_tsan) */

	fn(arg);
	/* Free the slot before reporting done: the caller may post new work right after. */
	__atomic_store_n(&w->fn, NULL, __ATOMIC_RELEASE);
	if (__atomic_sub_fetch(&g->remaining, 1, __ATOMIC_ACQ_REL) == 0)
		smp_send_reschedule(waiter);
}

/*
 * Wait, halted, until *counter reaches 0 or stop; whoever changes it last sends this CPU a
 * wake-up IPI. Halting rather than spinning matters under emulation, where spinning vCPUs
 * take host cores from the ones doing the work. Interrupts are on when this returns.
 */
void smp_wait_event(int *counter, int stop)
{
	for (;;) {
		local_irq_disable();
		if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) == stop)
			break;
		arch_idle();
	}
	local_irq_enable();
}

void smp_run_on_cpus(const struct cpumask *mask, void (*fn)(void *arg), void *arg)
{
	int me = smp_processor_id(), cpu;
	struct work_group group = { .remaining = 0, .waiter = me };

	for_each_cpu(cpu, mask)
		if (cpu != me)
			group.remaining++;
	for_each_cpu(cpu, mask) {
		struct cpu_work *w = per_cpu_ptr(&cpu_work, cpu);

		if (cpu == me)
			continue;
		while (__atomic_load_n(&w->fn, __ATOMIC_ACQUIRE))
			cpu_relax(); /* still busy with earlier work */
		w->arg = arg;
		w->group = &group;
		__atomic_store_n(&w->fn, fn, __ATOMIC_RELEASE);
		smp_send_reschedule(cpu);
	}
	if (cpumask_test_cpu(me, mask))
		fn(arg);
	smp_wait_event(&group.remaining, 0);
}

void smp_run_on_all_cpus(void (*fn)(void *arg), void *arg)
{
	struct cpumask all;

	cpumask_setall(&all);
	smp_run_on_cpus(&all, fn, arg);
}

/*
 * The idle loop: work posted by smp_run_on_cpus, and RCU (kernel/rcu.h): each time round is
 * a quiescent state, and callbacks whose grace period has ended run here (the grace
 * period's end sends the wake-up).
 */
void cpu_idle_loop(void)
{
	struct cpu_work *w = this_cpu_ptr(&cpu_work);

	for (;;) {
		local_irq_disable();
		if (__atomic_load_n(&w->fn, __ATOMIC_ACQUIRE)) {
			local_irq_enable();
			run_work(w);
			continue;
		}
		if (rcu_idle_enter()) {
			local_irq_enable();
			rcu_quiescent_state();
			continue;
		}
		arch_idle(); /* sti; hlt: a wake-up IPI cannot slip in between */
	}
}

void ipi_stats_get(int cpu, struct ipi_stats *out)
{
	*out = per_cpu(ipi_stats, cpu);
}
