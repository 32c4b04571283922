// SPDX-License-Identifier: MIT
/* Random numbers for hardening: see random.h for the sources and their order. */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/random.h"
#include "kernel/spinlock.h"

u64 boot_seed;
boot_param(seed, boot_seed, uint, (0, ~0ULL), 0, "seed for randomised tests and workloads");

static const char *source = "tsc";
static u64 state;
static DEFINE_SPINLOCK(random_lock);

/* splitmix64 (Steele, Lea, Flood 2014): one add and a mix; any state, full period. */
u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void random_init(u64 seed)
{
	if (seed) {
		source = "seed";
		state = seed;
	} else if (arch_has_rdseed()) {
		source = "rdseed";
	} else if (arch_has_rdrand()) {
		source = "rdrand";
	} else {
		source = "tsc";
		state = get_cycles();
	}
}

u64 get_random_u64(void)
{
	unsigned long flags;
	u64 v;

	if (source[0] == 'r') {
		if (source[2] == 's' ? arch_rdseed64(&v) : arch_rdrand64(&v))
			return v;
		/* Drained: fall through to the generator, seeded from the TSC once. */
	}
	spin_lock_irqsave(&random_lock, flags);
	if (!state)
		state = get_cycles();
	v = splitmix64(&state);
	spin_unlock_irqrestore(&random_lock, flags);
	return v;
}

const char *random_source(void)
{
	return source;
}
