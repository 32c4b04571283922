// SPDX-License-Identifier: MIT
/* Ticket spinlocks with owner tracking and contention statistics (see spinlock.h). */
#include "spinlock.h"
#include "percpu.h"
#include "printk.h"

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
	if (unlikely(READ_ONCE(l->owner) == smp_processor_id()))
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
		while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
			cpu_relax();
	}
	l->owner = smp_processor_id();
	l->acquisitions++;
	if (contended) {
		l->contended++;
		l->spin_cycles += get_cycles() - t0;
	}
}

bool spin_trylock(struct spinlock *l)
{
	u32 serving = __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
	u32 expect = serving;

	check_recursion(l);
	/* Take a ticket only if it would be served at once: next == serving. */
	if (!__atomic_compare_exchange_n(&l->next, &expect, serving + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	l->owner = smp_processor_id();
	l->acquisitions++;
	return true;
}

void spin_unlock(struct spinlock *l)
{
	if (unlikely(l->owner != smp_processor_id()))
		panic("spin_unlock of %s on cpu %d, but owner is cpu %d", l->name,
		      smp_processor_id(), l->owner);
	l->owner = -1;
	/* Release: every store of the critical section is visible before the next holder enters. */
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
}

bool spin_held_by_me(struct spinlock *l)
{
	return spin_is_locked(l) && READ_ONCE(l->owner) == smp_processor_id();
}
