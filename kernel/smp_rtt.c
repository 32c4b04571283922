// SPDX-License-Identifier: MIT
/*
 * The IPI round trip: how long a synchronous cross-call to another cpu takes, from the send
 * to the answer (an IPI there, the function run in its interrupt handler, the csd unlocked,
 * seen here). The owner schemes (mm/scheme_ipi.c) pay an IPI for every remote free (ipi)
 * or for a batch of them (ipi-batch); what Lameter 2011 (per-cpu partial lists,
 * linux-kernel) called "Probably too much overhead for our taste". docs/labs/lab2.md has the
 * exercise; tests/kernel/ipi_rtt_test.c checks it against the IPI counters.
 */
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/time.h"

/* LAB2: BEGIN */
static void rtt_ping(void *arg)
{
	__atomic_fetch_add((unsigned int *)arg, 1, __ATOMIC_RELAXED);
}
/* LAB2: END */

u64 smp_call_round_trip(int cpu, unsigned int n, u64 *samples)
{
	/* LAB2: BEGIN */
	unsigned int hits = 0;

	if (!n || cpu == smp_processor_id() || cpu < 0 || cpu >= nr_cpu_ids)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		u64 t0 = get_cycles_ordered();

		smp_call_function_single(cpu, rtt_ping, &hits, 1);
		samples[i] = get_cycles_ordered() - t0;
	}
	if (__atomic_load_n(&hits, __ATOMIC_RELAXED) != n)
		return 0;
	/* The median: sort the samples in place (insertion sort: n is small). */
	for (unsigned int i = 1; i < n; i++) {
		u64 v = samples[i];
		unsigned int j = i;

		for (; j && samples[j - 1] > v; j--)
			samples[j] = samples[j - 1];
		samples[j] = v;
	}
	return samples[n / 2];
	/* LAB2: END */
}
