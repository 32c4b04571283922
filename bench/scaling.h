/* SPDX-License-Identifier: MIT */
/*
 * The mixed workload of bench=scaling (bench/bench_scaling.c), shared with bench=latency
 * (which times each operation) and bench=memory (which samples pages held during it).
 */
#ifndef SLABLAB_SCALING_H
#define SLABLAB_SCALING_H

#include "kernel/types.h"

struct bench_table;
struct kmem_cache;

#define MIX_CLASSES 7 /* object sizes 16, 32, ... 1024: one cache each */
#define MIX_REMOTE_PCT 30 /* of the frees, this many are handed to another CPU to do */

/* mix_setup's remote_nodes: where the remote frees go (kernel/numa.h's nodes). */
#define MIX_ANY_CPU 0    /* any other working CPU */
#define MIX_SAME_NODE 1  /* another working CPU of this CPU's node */
#define MIX_OTHER_NODE 2 /* a working CPU of another node */

struct mix_setup {
	struct kmem_cache *caches[MIX_CLASSES];
	int ncpus;       /* CPUs 0..ncpus-1 work */
	int remote_nodes; /* MIX_*: which CPUs take remote frees (none such: freed here) */
	u64 ops;         /* alloc+free operations per CPU */
	bool sample_memory;
	/* Non-NULL: tables of u32 (bench.h), [ncpus][lat_samples] cycles of each alloc, free */
	struct bench_table *lat[2];
	u32 lat_samples;
	/*
	 * Set: called once every CPU has done its operations and before any gives its working
	 * set back, on the last CPU to get there while the others wait (interrupts on: they
	 * answer cross-calls), with the bytes live then, exact (the working sets and what
	 * waits in the inboxes): the workload's peak, all CPUs still.
	 */
	void (*at_peak)(struct mix_setup *m, u64 live_bytes, void *arg);
	void *at_peak_arg;
	/* Results: */
	u64 lat_count[2][NR_CPUS]; /* samples taken per CPU: alloc, free */
	unsigned long peak_pages;
	u64 bytes_at_peak;
};

extern const unsigned int mix_sizes[MIX_CLASSES];

/* One cache per size class with this scheme (fastpath=); 0, or -1 with nothing created. */
int mix_caches(struct mix_setup *m, const char *scheme);
void mix_caches_destroy(struct mix_setup *m);

/*
 * Runs the workload; returns the TSC cycles from the common start to the last CPU done, or
 * 0 after bench_fail(who, ...) if a self-check failed (allocation failure, a corrupt
 * object, frees not matching allocations, objects left in the caches).
 */
u64 mix_run(struct mix_setup *m, const char *who);

#endif
