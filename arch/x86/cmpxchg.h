/* SPDX-License-Identifier: MIT */
/*
 * Double-word compare-and-exchange (CMPXCHG16B) for the slab allocator's lockless paths.
 * Both words must be adjacent and 16-byte aligned. cmpxchg_double() is atomic across CPUs
 * (lock prefix); cmpxchg_double_local() only against interrupts on this CPU, which is all a
 * per-cpu structure needs (Linux's this_cpu_cmpxchg_double does the same, without lock).
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

#endif
