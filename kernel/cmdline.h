/* SPDX-License-Identifier: MIT */
/* Boot options from the multiboot2 command line (documented in README.md). */
#ifndef SLABLAB_CMDLINE_H
#define SLABLAB_CMDLINE_H

#include "kernel/types.h"

#define OPT_STR_MAX 256

struct boot_options {
	char test[OPT_STR_MAX];  /* in-kernel suites: "all", "none" or names (suite or suite.case) */
	bool test_given;
	char bench[OPT_STR_MAX]; /* benchmarks: "none" (more with the benchmark suite) */
	bool bench_given;
	unsigned int cpus;       /* use at most this many CPUs; 0: all */
	u64 seed;                /* seed for randomised tests and workloads */
	char crash[32];          /* deliberately trigger a fault (tests the trap path) */
	unsigned int ap_timeout_ms; /* how long to wait for APs to answer */
	long ap_skip;            /* do not start the AP with this APIC id (-1: none) */
	char scheme[128];        /* schemes: "all" or a comma list; the first named is the default
				  * of the caches created at boot (kmalloc's); benchmarks compare all
				  * of them. Names are checked against the kernel's schemes later. */
	bool scheme_given;
	char fastpath[16];       /* default slab fastpath: irq, cmpxchg */
	unsigned int cpu_partial; /* per-cpu partial budget in objects; 0: by object size */
	unsigned int slabinfo;   /* 1: print slabinfo at the end */
	unsigned int ipi_wait_us;    /* ipi schemes: wait for a slab transfer, us */
	unsigned int sheaf_capacity; /* objects per sheaf ("sheaves"); 0: by object size */
	/* Benchmark sizes and counts (README.md); 0 in bench_reps: each benchmark's own. */
	unsigned int bench_reps;
	unsigned int hackbench_groups, hackbench_loops;
	unsigned int remote_objects;  /* per producer/consumer pair and repetition */
	unsigned int scaling_ops;     /* per CPU and repetition */
	unsigned int latency_samples; /* per CPU and operation */
	char slub_debug[OPT_STR_MAX]; /* Linux's syntax: FZPU[,cache...][;...] (mm/slub_debug.c) */
	char slub_debug_mode[16];     /* debug caches: locked (Linux) or partial */
	unsigned int freelist_hardened; /* 1: free pointers stored obfuscated */
	unsigned int freelist_random;   /* 1: each new slab's freelist in shuffled order */
	unsigned int init_on_alloc;     /* 1: objects zeroed when handed out */
	unsigned int init_on_free;      /* 1: objects zeroed when freed */
};

extern struct boot_options boot_opts;

/* 0 on success; otherwise -1 with a message for the user in err. */
int cmdline_parse(const char *cmdline, struct boot_options *o, char *err, size_t errlen);
void cmdline_defaults(struct boot_options *o);
const char *cmdline_help(void);
/*
 * The debug flags (SLAB_* of mm/slab.h) that slub_debug=SPEC gives the cache NAME (NULL:
 * only check SPEC). 0, or -1 with a message in err when SPEC is malformed.
 */
int slub_debug_parse(const char *spec, const char *name, unsigned long *flags, char *err,
		     size_t errlen);

#endif
