/* SPDX-License-Identifier: MIT */
/*
 * The CPU's random number instructions: RDSEED (a conditioned entropy source, CPUID leaf 7
 * EBX bit 18) and RDRAND (a DRBG reseeded from it, CPUID leaf 1 ECX bit 30). Either may fail
 * for a while when drained (CF=0): Intel's guidance is to retry about ten times.
 */
#ifndef SLABLAB_ARCH_RDRAND_H
#define SLABLAB_ARCH_RDRAND_H

#include "kernel/types.h"

/* Its own cpuid: this header is also built for the host, where x86.h is not. */
static inline void rng_cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static inline bool arch_has_rdrand(void)
{
	u32 a, b, c, d;

	rng_cpuid(1, 0, &a, &b, &c, &d);
	return c & (1u << 30);
}

static inline bool arch_has_rdseed(void)
{
	u32 a, b, c, d;

	rng_cpuid(0, 0, &a, &b, &c, &d);
	if (a < 7)
		return false;
	rng_cpuid(7, 0, &a, &b, &c, &d);
	return b & (1u << 18);
}

static inline bool arch_rdrand64(u64 *v)
{
	for (int i = 0; i < 10; i++) {
		unsigned char ok;

		__asm__ __volatile__("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

static inline bool arch_rdseed64(u64 *v)
{
	for (int i = 0; i < 10; i++) {
		unsigned char ok;

		__asm__ __volatile__("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
		__asm__ __volatile__("pause");
	}
	return false;
}

#endif
