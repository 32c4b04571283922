/* SPDX-License-Identifier: MIT */
/*
 * hackbench's core (bench/bench_hackbench.c), callable with caches the caller created: the
 * hackbench benchmark runs it per scheme, memory samples pages during it, and a benchmark of
 * debug caches can run it over caches made with the debug flags it compares.
 */
#ifndef SLABLAB_HACKBENCH_H
#define SLABLAB_HACKBENCH_H

#include "kernel/types.h"

struct kmem_cache;

#define HB_FDS 20            /* senders and receivers per group, as hackbench's default */
#define HB_HEADER_SIZE 232   /* the header object: a socket send's sk_buff (Linux 6.x size) */
#define HB_PAYLOAD_SIZE 100  /* hackbench's message: a 100-byte kmalloc */

struct hackbench_setup {
	struct kmem_cache *header;  /* objects of at least HB_HEADER_SIZE bytes */
	struct kmem_cache *payload; /* objects of at least HB_PAYLOAD_SIZE bytes */
	unsigned int groups, loops;
	bool sample_memory; /* track peak pages (the memory benchmark) */
	/* Results: */
	u64 messages;            /* received, checked and freed */
	u64 remote_frees;        /* of those, freed on a CPU other than the one that allocated */
	unsigned long peak_pages; /* sample_memory: most pages in use beyond the start */
	u64 bytes_at_peak;       /* requested bytes of the messages in flight at that moment */
};

/*
 * Runs groups x (20 senders + 20 receivers) on every online CPU; each sender sends `loops`
 * messages to each receiver of its group. Returns the elapsed TSC cycles, or 0 after a
 * bench_fail(who, ...) if a self-check failed (a message lost, corrupt, out of order, an
 * allocation failed, or objects left allocated in the caches afterwards).
 */
u64 hackbench_run(struct hackbench_setup *hb, const char *who);

/* The hackbench benchmark's caches for one scheme (fastpath=): an sk_buff-like header cache
 * and a payload cache of kmalloc-128's shape. 0, or -1 with nothing created. */
int hackbench_caches(const char *scheme, struct kmem_cache **header, struct kmem_cache **payload);

#endif
