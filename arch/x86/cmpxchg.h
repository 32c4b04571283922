/* SPDX-License-Identifier: MIT */
/*
 * Compare-and-exchange for the slab allocator's lockless paths. Double-word (CMPXCHG16B):
 * both words must be adjacent and 16-byte aligned; cmpxchg_double() is atomic across CPUs
 * (lock prefix), for a slab's freelist and counters. cmpxchg_local() swaps one 8-byte word
 * atomically against interrupts on this CPU only (no lock prefix), which is all a per-cpu
 * structure needs: the cpu freelist word of the cmpxchg fastpath (Linux's this_cpu_cmpxchg
 * does the same). cmpxchg_double_local() is the double-word one without lock.
 * Plain inline assembly: it also builds in user space for the host tests.
 */
#ifndef SLABLAB_CMPXCHG_H
#define SLABLAB_CMPXCHG_H

#include "kernel/types.h"

/* One body, two prefixes: "lock " for shared data, "" for this cpu's own data. */
#define DEFINE_CMPXCHG16B(name, prefix)                                                            \
	static inline bool name(void *ptr, u64 old1, u64 old2, u64 new1, u64 new2)               \
	{                                                                                          \
		bool ok;                                                                           \
                                                                                                   \
		__asm__ __volatile__(prefix "cmpxchg16b %1"                                       \
				     : "=@ccz"(ok), "+m"(*(volatile unsigned __int128 *)ptr),      \
				       "+a"(old1), "+d"(old2)                                      \
				     : "b"(new1), "c"(new2)                                        \
				     : "memory");                                                  \
		return ok;                                                                 \
	}

DEFINE_CMPXCHG16B(cmpxchg_double, "lock ")
DEFINE_CMPXCHG16B(cmpxchg_double_local, "")

static inline bool cmpxchg_local(unsigned long *ptr, unsigned long old, unsigned long new)
{
	bool ok;

	__asm__ __volatile__("cmpxchgq %[new], %[word]"
			     : "=@ccz"(ok), [word] "+m"(*(volatile unsigned long *)ptr), "+a"(old)
			     : [new] "r"(new)
			     : "memory");
	return ok;
}

#endif
