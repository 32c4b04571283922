/* SPDX-License-Identifier: MIT */
/*
 * Read-copy update, slablab's own (kernel/rcu.c; the design is docs/rcu.md). Linux's names:
 *
 *	rcu_read_lock();                         reader: any context, NMI included
 *	p = rcu_dereference(gp);
 *	... use *p ...
 *	rcu_read_unlock();
 *
 *	old = gp; rcu_assign_pointer(gp, new);   updater
 *	synchronize_rcu(); kfree(old);           wait for the readers that may see old, or
 *	call_rcu(&old->rcu, free_old);           have free_old(&old->rcu) run after them
 *
 * A reader is the code between rcu_read_lock and rcu_read_unlock on one CPU; they nest, and
 * readers in interrupt and NMI handlers count on top of the code they interrupt. A grace
 * period ends when every online CPU has been seen outside every reader (a quiescent state)
 * since it began; then every reader that began before it has ended.
 *
 * Quiescent states: slablab has no scheduler, so they are reported at points that are never
 * inside a reader: rcu_quiescent_state() (the test runner between cases, the benchmark
 * runner between steps, the idle loop, the waits below) and the RCU IPI a grace period sends
 * every CPU, whose handler reports one when its CPU is in no reader (else the outermost
 * rcu_read_unlock reports it).
 *
 * Callbacks run on the CPU that queued them, in the order it queued them, in ordinary
 * context with interrupts on and in no reader: from that CPU's rcu_quiescent_state() or its
 * synchronize_rcu/rcu_barrier waits. Never in an interrupt or NMI handler, never inside a
 * reader. A CPU busy in one long step runs its callbacks when the step ends.
 */
#ifndef SLABLAB_RCU_H
#define SLABLAB_RCU_H

#include "kernel/percpu.h"
#include "kernel/types.h"

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);

DECLARE_PER_CPU(int, rcu_nesting);      /* readers this CPU is inside, all contexts */
DECLARE_PER_CPU(int, rcu_qs_deferred);  /* a grace period waits for the outermost unlock */
void rcu_read_unlock_special(void);

/*
 * One add on this CPU's counter. An interrupt or NMI between its load and its store adds and
 * takes away the same amount, so the count comes out right; the compiler barrier keeps the
 * reader's loads after it.
 */
static inline void rcu_read_lock(void)
{
	this_cpu(rcu_nesting)++;
	barrier();
}

static inline void rcu_read_unlock(void)
{
	barrier();
	if (--this_cpu(rcu_nesting) == 0) {
		barrier(); /* the RCU IPI sees 0, or sets deferred before this load */
		if (unlikely(READ_ONCE(this_cpu(rcu_qs_deferred))))
			rcu_read_unlock_special();
	}
}

static inline bool rcu_read_lock_held(void)
{
	return this_cpu(rcu_nesting) > 0;
}

#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

void call_rcu(struct rcu_head *head, rcu_callback_t func); /* any context but NMI */
void synchronize_rcu(void); /* ordinary context, outside every reader */
void rcu_barrier(void);     /* waits until every callback queued before it has run */

/* Polled grace periods: a cookie now, and whether a full grace period has passed since. */
unsigned long get_state_synchronize_rcu(void);
unsigned long start_poll_synchronize_rcu(void); /* the same, and makes that grace period start */
bool poll_state_synchronize_rcu(unsigned long cookie);

/* A quiescent state of this CPU: ordinary context, interrupts on, outside every reader. */
void rcu_quiescent_state(void);
/*
 * The one function called at every quiescent state a CPU passes in ordinary context
 * (rcu_quiescent_state, each time round the idle loop: interrupts may be off), before its
 * callbacks run, on that CPU: where work batched per CPU for a grace period is handed to
 * call_rcu (mm/slub_rcu.c: kfree_rcu's batches), as Linux's kfree_rcu monitor does on a
 * timer. Set once, at boot.
 */
void rcu_set_quiescent_hook(void (*fn)(void));
/* The idle loop, interrupts off: report one; true if callbacks are ready (run them with
 * rcu_quiescent_state(), interrupts on). */
bool rcu_idle_enter(void);

/*
 * Stalls: a grace period older than the stall timeout (10 s) is reported by its waiters,
 * naming each CPU it waits for and what that CPU is doing, and again each timeout while it
 * lasts. The timeout can be changed at run time (tests do); 0 sets it back to 10 s.
 */
void rcu_set_stall_timeout_ms(u64 ms);
/* Where a stalled cpu is ("func+off ..."), for the report: kernel/nmi.c asks it by NMI. */
bool rcu_stall_where(int cpu, char *buf, size_t len);
u64 rcu_stall_timeout_ms(void);

struct rcu_stats {
	u64 gp_started, gp_completed;
	u64 gp_cycles_total, gp_cycles_max; /* grace periods' durations, start to end (TSC) */
	u64 ipis_sent;
	u64 stalls_reported;            /* stall reports printed */
	int last_stalled_cpu;           /* the first CPU the last report named; -1 none */
	u64 last_stalled_gp;
};
void rcu_stats_get(struct rcu_stats *out);

/* Per CPU: quiescent states reported, from the IPI, from unlock, callbacks queued and run. */
struct rcu_cpu_stats {
	u64 qs_reported, qs_from_ipi, qs_from_unlock, qs_from_idle;
	u64 cbs_queued, cbs_invoked;
	long cbs_waiting;
};
void rcu_cpu_stats_get(int cpu, struct rcu_cpu_stats *out);

#endif
