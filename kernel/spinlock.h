/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlocks. Each lock knows its name and owner CPU, counts acquisitions, contended
 * acquisitions and the TSC cycles spent spinning (the counters are written only by the
 * holder, so they need no atomics), and panics on a recursive acquire.
 */
#ifndef SLABLAB_SPINLOCK_H
#define SLABLAB_SPINLOCK_H

#include "kernel/irqflags.h"
#include "kernel/types.h"

struct spinlock {
	u32 next;    /* next ticket to hand out (atomic fetch-add) */
	u32 serving; /* ticket now allowed in; written by the holder on release */
	int owner;   /* CPU holding the lock, -1 if none */
	const char *name;
	/* Statistics: lock must be held to update these. */
	u64 acquisitions;
	u64 contended;
	u64 spin_cycles;
};

#define SPINLOCK_INIT(n) { .next = 0, .serving = 0, .owner = -1, .name = (n) }
#define DEFINE_SPINLOCK(x) struct spinlock x = SPINLOCK_INIT(#x)

void spin_lock_init(struct spinlock *l, const char *name);
void spin_lock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_is_locked(struct spinlock *l);
bool spin_held_by_me(struct spinlock *l);

/*
 * spin_trylock for code that may run in an NMI (mm/slub_nolock.c): false, not the recursion
 * panic, when this CPU holds l already (the code the NMI interrupted). Only this CPU writes
 * its own number into owner, so the look before the try is exact for this CPU.
 */
static inline bool spin_trylock_nmi(struct spinlock *l)
{
	return !spin_held_by_me(l) && spin_trylock(l);
}

/* Halting waiters under a hypervisor (see spinlock.c); set up once the TSC is known. */
void spin_pv_init(bool hypervisor);
bool spin_kick_received(void);

#define spin_lock_irqsave(l, flags)                                                                \
	do {                                                                                       \
		local_irq_save(flags);                                                             \
		spin_lock(l);                                                                      \
	} while (0)

#define spin_unlock_irqrestore(l, flags)                                                           \
	do {                                                                                       \
		spin_unlock(l);                                                                    \
		local_irq_restore(flags);                                                          \
	} while (0)

/* "Caller holds l": the assertion that goes with such a comment. */
#define assert_spin_locked(l)                                                                      \
	do {                                                                                       \
		if (!spin_held_by_me(l))                                                           \
			panic("%s:%d: lock %s not held by cpu %d", __FILE__, __LINE__, (l)->name,  \
			      smp_processor_id());                                                 \
	} while (0)

#endif
