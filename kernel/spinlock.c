// SPDX-License-Identifier: MIT
/*
 * Ticket spinlocks with owner tracking and contention statistics (see spinlock.h).
 *
 * Halting waiters. A ticket lock hands over in strict order, so under a hypervisor that runs
 * more vCPUs than it has host cores (QEMU's TCG on a small machine), the next holder's vCPU
 * is often not running while the others burn the host's cores spinning: a hand-off then
 * costs a host time slice. So, only when a hypervisor is present (spin_pv), a waiter that
 * has spun for SPIN_HALT_US publishes the (lock, ticket) it waits for in its per-cpu
 * spin_wait, bumps nr_halted, re-checks, and halts; the unlocker that finds nr_halted non-zero
 * kicks the CPU waiting for the next ticket with an NMI (which wakes a hlt even with
 * interrupts off). The pairing: the waiter's atomic increment of nr_halted (a full barrier)
 * before it re-reads serving, against the unlocker's atomic increment of serving (a full
 * barrier) before it reads nr_halted: one of them sees the other, so no waiter sleeps
 * through its turn. On bare metal spin_pv is false and unlock is a plain release store.
 */
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define SPIN_HALT_US 50

struct spin_wait {
	struct spinlock *lock; /* what this CPU waits for while halted */
	u32 ticket;
	int halted;
	int kicked; /* an NMI from an unlocker is on its way */
};

static DEFINE_PER_CPU(struct spin_wait, spin_wait);
static int nr_halted;
bool spin_pv;
u64 spin_halt_after_cycles; /* 0 until the TSC is calibrated: never halt */

void spin_pv_init(bool hypervisor)
{
	spin_pv = hypervisor;
	spin_halt_after_cycles = ns_to_cycles(SPIN_HALT_US * 1000);
}

/* From the NMI handler: was this NMI an unlocker's kick? */
bool spin_kick_received(void)
{
	struct spin_wait *w = this_cpu_ptr(&spin_wait);

	if (!__atomic_load_n(&w->kicked, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&w->kicked, 0, __ATOMIC_RELEASE);
	return true;
}

static void wait_for_ticket(struct spinlock *l, u32 ticket)
{
	struct spin_wait *w = this_cpu_ptr(&spin_wait);
	u64 t0 = get_cycles();

	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket) {
		cpu_relax();
		if (!spin_pv || !spin_halt_after_cycles || get_cycles() - t0 < spin_halt_after_cycles)
			continue;
		w->lock = l;
		w->ticket = ticket;
		__atomic_store_n(&w->halted, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&nr_halted, 1, __ATOMIC_SEQ_CST);
		arch_halt_while_ne(&l->serving, ticket); /* re-checks serving, then halts */
		__atomic_store_n(&w->halted, 0, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&nr_halted, 1, __ATOMIC_SEQ_CST);
	}
}

/* Wake the CPU halted waiting for ticket `next` of l, if there is one. */
static void kick_next(struct spinlock *l, u32 next)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct spin_wait *w = per_cpu_ptr(&spin_wait, cpu);

		if (__atomic_load_n(&w->halted, __ATOMIC_ACQUIRE) && w->lock == l &&
		    w->ticket == next) {
			__atomic_store_n(&w->kicked, 1, __ATOMIC_RELEASE);
			arch_kick_cpu(cpu);
			return;
		}
	}
}

void spin_lock_init(struct spinlock *l, const char *name)
{
	l->next = 0;
	l->serving = 0;
	l->owner = -1;
	l->name = name;
	l->acquisitions = 0;
	l->contended = 0;
	l->spin_cycles = 0;
}

static void check_recursion(struct spinlock *l)
{
	/* Only this CPU can have written its own number into owner, so the racy read is exact. */
	if (unlikely(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == smp_processor_id()))
		panic("recursive acquire of spinlock %s on cpu %d", l->name, smp_processor_id());
}

void spin_lock(struct spinlock *l)
{
	u32 ticket;
	u64 t0 = 0;
	bool contended = false;

	check_recursion(l);
	/* Acquire: nothing in the critical section moves above taking the ticket... */
	ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);
	if (unlikely(__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)) {
		contended = true;
		t0 = get_cycles();
		/* ...or above the load that sees our turn come up. */
		wait_for_ticket(l, ticket);
	}
	__atomic_store_n(&l->owner, smp_processor_id(), __ATOMIC_RELAXED);
	l->acquisitions++;
	if (contended) {
		l->contended++;
		l->spin_cycles += get_cycles() - t0;
	}
}

bool spin_trylock(struct spinlock *l)
{
	/* Acquire: pairs with the last holder's release of serving, like spin_lock's wait. */
	u32 serving = __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
	u32 expect = serving;

	check_recursion(l);
	/* Take a ticket only if it would be served at once: next == serving. */
	if (!__atomic_compare_exchange_n(&l->next, &expect, serving + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	__atomic_store_n(&l->owner, smp_processor_id(), __ATOMIC_RELAXED);
	l->acquisitions++;
	return true;
}

void spin_unlock(struct spinlock *l)
{
	if (unlikely(l->owner != smp_processor_id()))
		panic("spin_unlock of %s on cpu %d, but owner is cpu %d", l->name,
		      smp_processor_id(), l->owner);
	/* owner is read without the lock (recursion check): relaxed atomics, no torn values. */
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELAXED);
	/* Release: every store of the critical section is visible before the next holder enters. */
	if (likely(!spin_pv)) {
		__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
		return;
	}
	u32 next = __atomic_add_fetch(&l->serving, 1, __ATOMIC_SEQ_CST);

	if (unlikely(__atomic_load_n(&nr_halted, __ATOMIC_SEQ_CST)))
		kick_next(l, next);
}

bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
}

bool spin_held_by_me(struct spinlock *l)
{
	return spin_is_locked(l) && __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == smp_processor_id();
}
