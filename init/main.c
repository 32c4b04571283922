// SPDX-License-Identifier: MIT
/*
 * What the kernel does once every CPU is up: the slab allocator's kmalloc caches, the
 * crash= demonstration if asked, the in-kernel test suites test= selects, the benchmarks
 * bench= selects (with neither option: the default benchmark run, BENCH_DEFAULT), then exit
 * with KEXIT_PASS or KEXIT_FAIL.
 */
#include "bench/bench.h"
#include "init/main.h"
#include "kernel/cmdline.h"
#include "kernel/crash.h"
#include "kernel/kunit.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/slab.h"

/* Boot options (docs/options.md's table). */
static char test_list[OPT_STR_MAX];
static char bench_list[OPT_STR_MAX];
static char crash_kind[32];
static const char *const crash_kinds[] = { "pf", "gp", "ud", "de", "df", "pf-ap", "lockrec",
					   "panic", NULL };

boot_param(test, test_list, list, NULL, "all",
	   "in-kernel test suites: all, none, or a comma list of suite or suite.case names");
boot_param(bench, bench_list, list, NULL, "none",
	   "benchmarks: all, none, or a comma list of names");
boot_param(crash, crash_kind, enum, crash_kinds, "",
	   "trigger a fault on purpose to show the trap path: pf gp ud de df pf-ap lockrec panic");

void kmain(void)
{
	int failed;

	slab_init();
	if (crash_kind[0]) {
		crash(crash_kind);
		printk("crash=%s did not crash\n", crash_kind);
		kernel_exit(KEXIT_FAIL);
	}
	/* test= and bench= both given: tests first. Only bench=: no tests. */
	if (boot_param_given(bench) && !boot_param_given(test))
		strlcpy(test_list, "none", sizeof(test_list));
	if (!boot_param_given(bench) && !boot_param_given(test)) {
		strlcpy(test_list, "none", sizeof(test_list));
		strlcpy(bench_list, BENCH_DEFAULT, sizeof(bench_list));
		printk("slablab: default run (no test= or bench=): benchmarks %s on every CPU; "
		       "%s; %s. test=all runs the self-tests instead.\n", BENCH_DEFAULT,
		       boot_param_given(scheme) ? "the schemes scheme= names" : "every scheme",
		       BENCH_DEFAULT_TIME);
	}
	failed = kunit_run_selected(test_list);
	if (failed >= 0 && bench_run_selected(bench_list) < 0)
		kernel_exit(KEXIT_FAIL);
	if (slabinfo_at_end)
		slabinfo_print();
	if (failed < 0)
		kernel_exit(KEXIT_FAIL);
	kernel_exit(failed ? KEXIT_FAIL : KEXIT_PASS);
}
