/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks: registered like test suites (a linker section, no list to edit), selected
 * with bench=all|NAME[,NAME]. Each prints a human table and, for every figure, one JSON
 * object on its own line: {"bench", parameters..., "figure", "value", "unit", "accel", ...}.
 * Under an emulator the TSC is not the guest's clock: such figures carry "emulated":true.
 */
#ifndef SLABLAB_BENCH_H
#define SLABLAB_BENCH_H

#include "kernel/types.h"
#include "mm/page_alloc.h"

struct cpumask;
struct kmem_cache;

struct bench {
	const char *name;
	const char *what; /* one line for the listing */
	void (*run)(void);
	int order; /* bench=all runs them by this (0: after the numbered ones), then by name */
	bool on_request; /* only when bench= names it, never with bench=all (a long grid) */
};

#define __BENCH_CAT2(a, b) a##b
#define __BENCH_CAT(a, b) __BENCH_CAT2(a, b)
#define bench_register(b)                                                                          \
	static const struct bench *const __BENCH_CAT(__bench_, __COUNTER__) __used                 \
		__section(".benches") = &(b)

/*
 * Summary of repeated measurements. No floating point in the kernel (-mgeneral-regs-only):
 * values are fixed point in tenths (x10). Each sample is a total over `ops` operations.
 */
struct bench_stats {
	u64 median, p10, p90, min, max; /* per operation, in tenths */
};
void bench_summarize(u64 *samples, int n, u64 ops, struct bench_stats *out);
u64 bench_tenths_to_ns(u64 cycles_tenths); /* cycles (x10) -> ns (x10) */
/* Stats over whole runs in cycles (bench_summarize with ops 1) -> ms, in tenths. */
void bench_stats_cycles_to_ms(struct bench_stats *st);

/* One JSON line: params is a ready-made fragment like "\"size\":64,\"scheme\":\"lock\"". */
void bench_json(const char *bench, const char *params, const char *figure, u64 value_tenths,
		const char *unit, const struct bench_stats *spread);
/* The same for a figure that may be negative (no spread). */
void bench_json_signed(const char *bench, const char *params, const char *figure, s64 value,
		       const char *unit);
const char *bench_accel(void);
bool bench_emulated(void);

/* What a boot with neither test= nor bench= runs (make run), and how long it takes. */
#define BENCH_DEFAULT "fastpath,bulk,hackbench,remote,scaling,latency,memory,replay"
#define BENCH_DEFAULT_TIME "about a minute under QEMU's TCG with 4 CPUs on a 2-core host"

/*
 * Arch hooks, empty in the kernel (weak in bench.c): the host build's noise figures
 * (tools/bench-host/suite.c). bench_arch_figure_extra: a fragment appended to every JSON
 * line (",\"key\":value..." or ""); bench_arch_meta: after the meta line; bench_arch_end:
 * after the summary.
 */
const char *bench_arch_figure_extra(void);
void bench_arch_meta(void);
void bench_arch_end(void);

/* Is name itself an item of the comma list filter ("all" does not count)? */
bool bench_list_names(const char *filter, const char *name);

/* -1: a name that is not a benchmark, or a benchmark's self-check failed (bench_fail). */
int bench_run_selected(const char *filter);

/*
 * The schemes every benchmark compares: slab_scheme_chosen()'s (scheme=, parsed and checked
 * by the slab allocator), so a scheme added later needs no edit here; bench_run_selected
 * takes them unless bench_select_peer chose a peer.
 */
void bench_select_schemes(void);
/* The host build's peers (tools/bench-host/peer.c): one "scheme", an allocator's name,
 * whose caches are that process's malloc/free. */
void bench_select_peer(const char *name);
int bench_nr_schemes(void);
const char *bench_scheme(int i);
bool bench_scheme_selected(const char *name);

/* bench_reps= if given, else the benchmark's own default. */
unsigned int bench_reps(unsigned int dflt);
/*
 * The benchmarks' sizes, boot options of the files that use them most (README.md's table):
 * hackbench_groups= and hackbench_loops= (bench_hackbench.c), remote_objects=
 * (bench_remote.c), scaling_ops= and latency_samples= (bench_scaling.c).
 */
extern unsigned int hackbench_groups, hackbench_loops, remote_objects, scaling_ops,
	latency_samples;

/* A self-check failed: say so loudly; the kernel exits with a failure after the benchmarks. */
void bench_fail(const char *bench, const char *fmt, ...) __printf(2, 3);

/*
 * The summary at the end: a benchmark's headline figure per scheme, printed with its ratio
 * to the baseline scheme's (SLAB_SCHEME_BASELINE: lock; the meta line's "baseline").
 * value in tenths.
 */
void bench_headline(const char *bench, const char *scheme, const char *figure, u64 value,
		    const char *unit);

/* A signed value in tenths, "-12.3". */
char *bench_fmt_signed(char *buf, size_t n, s64 tenths);
/* (new - base) / base in percent tenths, signed (base 0: 0). */
s64 bench_change_pct(u64 base, u64 now);

/* Reproducible pseudo-random numbers (xorshift64*): seed= and a stream number. */
struct bench_rng {
	u64 s;
};
void bench_rng_init(struct bench_rng *r, u64 stream);
static inline u64 bench_rand(struct bench_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/*
 * Work on several CPUs that starts together: fn runs on every CPU of mask once all of them
 * have arrived (the early ones halt, the last one wakes them). Returns the TSC at the
 * release. smp_run_on_cpus returns when every fn has.
 */
u64 bench_run_together(const struct cpumask *mask, void (*fn)(void *arg), void *arg);
int bench_cpu_index(const struct cpumask *mask, int cpu); /* rank of cpu in mask */

/*
 * Halting hand-offs between CPUs (spinning starves vCPUs under emulation). A CPU with
 * nothing to do:   bench_sleep_prepare(); if (!work_possible()) bench_sleep(); else
 *                  bench_sleep_cancel();
 * A CPU that made work possible for cpu: bench_wake(cpu). The flag and a full barrier on
 * both sides make sure one of the two sees the other (see bench.c).
 */
void bench_sleep_prepare(void);
void bench_sleep(void);
void bench_sleep_cancel(void);
void bench_wake(int cpu);
u64 bench_wakeups_sent(void); /* by this CPU, ever: to tell them from the allocator's IPIs */

/*
 * a * b / c with a 128-bit product, for rates such as operations x 10 x TSC Hz / cycles that
 * overflow 64 bits on long runs with many CPUs. The quotient saturates at ~0ULL (c 0: too).
 */
u64 bench_mul_div(u64 a, u64 b, u64 c);

/*
 * The sweep (bench/bench_sweep.c) runs other benchmarks with settings of its own:
 * bench_params_extra, if set, is added to every figure's parameters (",\"setting\":...");
 * bench_cache_tune, if set, is called on every cache a benchmark creates for a scheme
 * (hackbench_caches, mix_caches, the replay's), to give it the setting (a sheaf capacity,
 * a cpu partial budget) before it is used.
 */
void bench_set_params_extra(const char *fragment); /* NULL: none */
extern void (*bench_cache_tune)(struct kmem_cache *s);
static inline void bench_cache_created(struct kmem_cache *s)
{
	if (bench_cache_tune && s)
		bench_cache_tune(s);
}

/*
 * Memory as figures (kmem_cache_mem_info), exact, for one cache of a benchmark's run: its
 * pages now and at its peak, the bytes live (objects x object size), the free objects it
 * keeps per cpu and per node, its partial slabs and their fill, the scheme's own pages and
 * the ratio of pages held to bytes live now and at the peak. live_peak_bytes: the
 * workload's most live bytes of this cache, if it knows them (0: no peak ratio). Adds
 * the cache's figures to *sum (when not NULL) for bench_mem_total.
 */
struct kmem_cache_mem;
struct bench_mem_sum {
	u64 pages, pages_peak, live_bytes, live_peak_bytes, cpu_cached, node_cached, cpu_free,
		partial_slabs, partial_objects, partial_free, layer_pages, layer_bytes_linux7;
};
void bench_mem_json(const char *bench, const char *params, struct kmem_cache *s,
		    u64 live_peak_bytes, struct bench_mem_sum *sum);
/* The sums over a run's caches as the same figures for cache "all". */
void bench_mem_total(const char *bench, const char *params, const struct bench_mem_sum *sum);

/* A value in tenths as "123.4". */
char *bench_fmt(char *buf, size_t n, u64 tenths);

/*
 * A zeroed table of n elements that may be larger than one allocation can be (the page
 * allocator's largest block, 4 MiB): pieces of at most BENCH_PIECE_BYTES, each holding a
 * whole number of elements. bench_table_at(t, type, i) points to element i; the divisor is a
 * constant, so the compiler makes it a multiply. bench_table_alloc: 0, or -1 with nothing
 * allocated and no message (the caller says what it needed: bench_table_bytes).
 */
#define BENCH_PIECE_BYTES (PAGE_SIZE << MAX_ORDER)
#define BENCH_PER_PIECE(size) (BENCH_PIECE_BYTES / (size))

struct bench_table {
	void **pieces;
	size_t nr_pieces;
};

int bench_table_alloc(struct bench_table *t, size_t n, size_t size);
void bench_table_free(struct bench_table *t);
u64 bench_table_bytes(size_t n, size_t size);
#define bench_table_at(t, type, i)                                                                 \
	({                                                                                         \
		size_t __i = (i);                                                                  \
		(type *)(t)->pieces[__i / BENCH_PER_PIECE(sizeof(type))] +                         \
			__i % BENCH_PER_PIECE(sizeof(type));                                       \
	})

/* Free memory now, in MiB (rounded down), for messages that say how much was missing. */
unsigned long bench_free_mib(void);
/* Bytes as MiB, rounded up. */
static inline unsigned long long bench_mib_up(u64 bytes)
{
	return (unsigned long long)((bytes + MiB - 1) / MiB);
}

#endif
