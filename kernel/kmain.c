// SPDX-License-Identifier: MIT
/*
 * What the kernel does once every CPU is up: the slab allocator's kmalloc caches, the
 * crash= demonstration if asked, the
 * in-kernel test suites test= selects (all of them by default, until the benchmark suite
 * exists), then exit with KEXIT_PASS or KEXIT_FAIL.
 */
#include "bench.h"
#include "cmdline.h"
#include "crash.h"
#include "kmain.h"
#include "kunit.h"
#include "printk.h"
#include "slab.h"
#include "string.h"

void kmain(void)
{
	int failed;

	slab_init();
	if (boot_opts.crash[0]) {
		crash(boot_opts.crash);
		printk("crash=%s did not crash\n", boot_opts.crash);
		kernel_exit(KEXIT_FAIL);
	}
	/* test= and bench= both given: tests first. Only bench=: no tests. */
	if (boot_opts.bench_given && !boot_opts.test_given)
		strlcpy(boot_opts.test, "none", sizeof(boot_opts.test));
	failed = kunit_run_selected(boot_opts.test);
	if (failed >= 0 && bench_run_selected(boot_opts.bench) < 0)
		kernel_exit(KEXIT_FAIL);
	if (boot_opts.slabinfo)
		slabinfo_print();
	if (failed < 0)
		kernel_exit(KEXIT_FAIL);
	kernel_exit(failed ? KEXIT_FAIL : KEXIT_PASS);
}
