// SPDX-License-Identifier: MIT
/*
 * What the kernel does once every CPU is up: the slab allocator's kmalloc caches, the
 * crash= demonstration if asked, the in-kernel test suites test= selects, the benchmarks
 * bench= selects (with neither option: the default benchmark run, BENCH_DEFAULT), then exit
 * with KEXIT_PASS or KEXIT_FAIL.
 */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/crash.h"
#include "kernel/kmain.h"
#include "kernel/kunit.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/slab.h"

void kmain(void)
{
	int failed;

	/* scheme= names are checked here, where the slab code's list is known. Not given: the
	 * benchmarks compare every scheme, the boot caches keep the default (partial). */
	if (bench_select_schemes(boot_opts.scheme_given ? boot_opts.scheme : "all"))
		kernel_exit(KEXIT_FAIL);
	if (!strcmp(boot_opts.fastpath, "cmpxchg") &&
	    !slab_fastpath_available(SLAB_FASTPATH_CMPXCHG)) {
		printk("fastpath=cmpxchg: this CPU has no CMPXCHG16B (CPUID.01H:ECX.CX16[bit 13] is "
		       "0), which the cmpxchg fastpath needs; use fastpath=irq\n");
		kernel_exit(KEXIT_FAIL);
	}
	slab_init();
	if (boot_opts.crash[0]) {
		crash(boot_opts.crash);
		printk("crash=%s did not crash\n", boot_opts.crash);
		kernel_exit(KEXIT_FAIL);
	}
	/* test= and bench= both given: tests first. Only bench=: no tests. */
	if (boot_opts.bench_given && !boot_opts.test_given)
		strlcpy(boot_opts.test, "none", sizeof(boot_opts.test));
	if (!boot_opts.bench_given && !boot_opts.test_given) {
		strlcpy(boot_opts.test, "none", sizeof(boot_opts.test));
		strlcpy(boot_opts.bench, BENCH_DEFAULT, sizeof(boot_opts.bench));
		printk("slablab: default run (no test= or bench=): benchmarks %s on every CPU; "
		       "%s; %s. test=all runs the self-tests instead.\n", BENCH_DEFAULT,
		       boot_opts.scheme_given ? "the schemes scheme= names" : "every scheme",
		       BENCH_DEFAULT_TIME);
	}
	failed = kunit_run_selected(boot_opts.test);
	if (failed >= 0 && bench_run_selected(boot_opts.bench) < 0)
		kernel_exit(KEXIT_FAIL);
	if (boot_opts.slabinfo)
		slabinfo_print();
	if (failed < 0)
		kernel_exit(KEXIT_FAIL);
	kernel_exit(failed ? KEXIT_FAIL : KEXIT_PASS);
}
