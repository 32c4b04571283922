/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks: registered like test suites (a linker section, no list to edit), selected
 * with bench=all|NAME[,NAME]. Each prints a human table and, for every figure, one JSON
 * object on its own line: {"bench", parameters..., "figure", "value", "unit", "accel", ...}.
 * Under an emulator the TSC is not the guest's clock: such figures carry "emulated":true.
 */
#ifndef SLABLAB_BENCH_H
#define SLABLAB_BENCH_H

#include "types.h"

struct bench {
	const char *name;
	const char *what; /* one line for the listing */
	void (*run)(void);
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

/* One JSON line: params is a ready-made fragment like "\"size\":64,\"scheme\":\"lock\"". */
void bench_json(const char *bench, const char *params, const char *figure, u64 value_tenths,
		const char *unit, const struct bench_stats *spread);
const char *bench_accel(void);
bool bench_emulated(void);

int bench_run_selected(const char *filter); /* -1: a name that is not a benchmark */

/* A value in tenths as "123.4". */
char *bench_fmt(char *buf, size_t n, u64 tenths);

#endif
