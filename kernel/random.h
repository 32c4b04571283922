/* SPDX-License-Identifier: MIT */
/*
 * Random numbers for hardening (slab freelist keys and shuffles). The source, picked once:
 * seed=N on the command line (a splitmix64 sequence from N: runs repeat exactly), else
 * RDSEED, else RDRAND (when CPUID has them), else splitmix64 seeded from the TSC.
 */
#ifndef SLABLAB_RANDOM_H
#define SLABLAB_RANDOM_H

#include "kernel/types.h"

/* seed=: also the seed of randomised tests and workloads (0: not given). */
extern u64 boot_seed;

void random_init(u64 seed); /* 0: the CPU's source or the TSC */
u64 get_random_u64(void);
const char *random_source(void); /* "seed", "rdseed", "rdrand" or "tsc" */
/* The next number of a sequence of the caller's own, kept in *state (any value): for code
 * that must not draw from the boot's sequence, e.g. to keep seed= runs repeatable. */
u64 splitmix64(u64 *state);

#endif
