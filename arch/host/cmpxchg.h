/* SPDX-License-Identifier: MIT */
/*
 * Host wrapper around arch/x86/cmpxchg.h. The instruction itself is the kernel's (plain inline
 * assembly, fine in user space); this header only adds what ThreadSanitizer cannot see.
 *
 * TSan does not look inside inline assembly, so a lock cmpxchg16b is invisible to it: it
 * would neither see the slab freelist handed from one thread to another through it nor the
 * ordering the lock prefix gives, and would report the hand-over (say, a free pointer
 * written by the freeing thread and read by the thread that takes the freelist) as a race.
 * Under -fsanitize=thread the two functions below therefore tell TSan what the instruction
 * is: an atomic read-modify-write of those 16 bytes with acquire and release semantics
 * (a full barrier), whether it succeeds or not. Nothing else changes: the same instruction
 * runs. Elsewhere (ASan, the benchmark) this header is only the kernel's.
 */
#ifndef SLABLAB_HOST_CMPXCHG_H
#define SLABLAB_HOST_CMPXCHG_H

#ifndef __SANITIZE_THREAD__

#include "arch/x86/cmpxchg.h"

#else

/* The kernel's functions, under other names. */
#define cmpxchg_double host_asm_cmpxchg_double
#define cmpxchg_double_local host_asm_cmpxchg_double_local
#include "arch/x86/cmpxchg.h"
#undef cmpxchg_double
#undef cmpxchg_double_local

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

static inline bool cmpxchg_double(void *ptr, u64 old1, u64 old2, u64 new1, u64 new2)
{
	bool ok;

	__tsan_release(ptr); /* what this thread wrote before is published with the swap */
	ok = host_asm_cmpxchg_double(ptr, old1, old2, new1, new2);
	__tsan_acquire(ptr); /* and it sees what earlier swaps of these words published */
	return ok;
}

/* Only against this CPU's own interrupts: this thread and its signal handlers, which TSan
 * counts as one thread. Nothing to tell it. */
static inline bool cmpxchg_double_local(void *ptr, u64 old1, u64 old2, u64 new1, u64 new2)
{
	return host_asm_cmpxchg_double_local(ptr, old1, old2, new1, new2);
}

#endif /* __SANITIZE_THREAD__ */

#endif
