/* SPDX-License-Identifier: MIT */
/*
 * CPUs, cpumasks, cross-calls and per-cpu work.
 *
 * Cross-calls (Linux's names): smp_call_function_single(cpu, fn, info, wait) runs fn(info)
 * on cpu in its IPI handler, with interrupts off; _many does it on every CPU of a mask except
 * the caller. A waiting caller keeps serving its own incoming cross-calls while it waits, so
 * two CPUs that call each other, even with interrupts off, cannot deadlock.
 *
 * Per-cpu work: smp_run_on_cpus(mask, fn, arg) runs fn(arg) on each CPU of the mask (the
 * caller too, if in it) in ordinary context, interrupts on, from that CPU's idle loop, and
 * returns when all are done. Tests and benchmarks use it to put load on every CPU at once.
 *
 * IPIs of other subsystems: a small table of handlers, each registered where it is written
 * with smp_ipi_handler() (a linker section, as kunit_test_suite is), so neither this file
 * nor arch/ knows them. The arch gives each table entry a vector of its own (x86:
 * VEC_IPI_HANDLER + its index); smp_send_ipi(cpu, &h) makes cpu run h.fn in interrupt
 * context, interrupts off. Two sends before the handler runs may run it once, as two IPIs of
 * one vector do; the handler finds its work in its own queues.
 */
#ifndef SLABLAB_SMP_H
#define SLABLAB_SMP_H

#include "kernel/types.h"

extern int nr_cpu_ids;     /* CPUs online, numbered 0..nr_cpu_ids-1 */
extern int nr_cpus_found;  /* enabled CPUs the firmware (ACPI MADT) lists */
extern int nr_cpus_tried;  /* CPUs we tried to start, the boot CPU included (cpus= caps it) */
extern int nr_cpus_skipped; /* CPUs left out on purpose (ap_skip=), not among those tried */
extern int nr_cpus_unreachable; /* left out: APIC ids above 254 in xAPIC mode */
extern int nr_cpus_gave_up; /* of those tried, did not answer in time */
/* The arch's boot options: cpus= (0: all) and ap_skip= (-1: none). */
extern unsigned int setup_max_cpus;
extern long ap_skip;

struct cpumask {
	u64 bits[NR_CPUS / 64];
};

static inline void cpumask_clear(struct cpumask *m)
{
	for (unsigned i = 0; i < NR_CPUS / 64; i++)
		m->bits[i] = 0;
}

static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return m->bits[cpu / 64] & (1ULL << (cpu % 64));
}

void cpumask_setall(struct cpumask *m); /* every online CPU */
int cpumask_weight(const struct cpumask *m);

#define for_each_online_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)                                               \
		if (cpumask_test_cpu((cpu), (mask)))

typedef void (*smp_call_func_t)(void *info);

int smp_call_function_single(int cpu, smp_call_func_t fn, void *info, int wait);
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, int wait);
void smp_call_function(smp_call_func_t fn, void *info, int wait); /* all others */
void on_each_cpu(smp_call_func_t fn, void *info, int wait);        /* all, caller too */

void smp_send_reschedule(int cpu); /* the wake-up IPI, counted */
/*
 * n synchronous cross-calls to cpu (not this one), each timed in cycles into samples[],
 * which it leaves sorted; returns the median, 0 on bad arguments (kernel/smp_rtt.c).
 */
u64 smp_call_round_trip(int cpu, unsigned int n, u64 *samples);

struct smp_ipi_handler {
	const char *name;
	void (*fn)(void); /* interrupt context, interrupts off */
};
#define SMP_NR_IPI_HANDLERS 8 /* vectors the arch sets aside for them */
#define smp_ipi_handler(var, nm, func)                                                             \
	static const struct smp_ipi_handler var = { .name = nm, .fn = func };                      \
	static const struct smp_ipi_handler *const __smp_ipi_##var __used                          \
		__section(".smp_ipi_handlers") __section_array_entry = &var
void smp_send_ipi(int cpu, const struct smp_ipi_handler *h); /* counted */
void smp_wait_event(int *counter, int stop); /* halt until *counter == stop (interrupts on) */

void smp_run_on_cpus(const struct cpumask *mask, void (*fn)(void *arg), void *arg);
void smp_run_on_all_cpus(void (*fn)(void *arg), void *arg);

/* IPI statistics, per CPU. */
struct ipi_stats {
	u64 call_sent, call_received;     /* cross-call IPIs */
	u64 wakeup_sent, wakeup_received; /* idle-loop wake-ups */
	u64 calls_run;                    /* cross-call functions run here */
	u64 handler_sent, handler_received; /* IPIs of registered handlers (smp_send_ipi) */
};
void ipi_stats_get(int cpu, struct ipi_stats *out);

/* Interrupt context: arch/x86/traps.c brackets every interrupt with these; so does the cross-call
 * queue when a waiting caller serves it. */
void irq_enter(void);
void irq_exit(void);
bool in_irq_context(void);

/* From the arch's interrupt entry: the IPI handlers; slot is a registered handler's index. */
void smp_call_function_interrupt(void);
void smp_wakeup_interrupt(void);
void smp_ipi_interrupt(unsigned int slot);

/* Boot: set up queues for nr_cpu_ids CPUs (kernel/smp.c), then each AP idles here. */
void smp_init(void);
void __noreturn cpu_idle_loop(void);

#endif
