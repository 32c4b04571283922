// SPDX-License-Identifier: MIT
/*
 * ThreadSanitizer settings compiled into test_slab_tsan, so that running the binary by hand
 * behaves as under tools/test.sh: the first report ends the run (as ASan's do), so a race
 * shows as a missing KTAP plan and a non-zero exit. TSAN_OPTIONS=halt_on_error=0 lists all.
 * No suppressions: see docs/host-build.md.
 */
#include <stdbool.h>

#include "kernel/spinlock.h"

const char *__tsan_default_options(void);
const char *__tsan_default_suppressions(void);
void __tsan_acquire(void *addr);

const char *__tsan_default_options(void)
{
	return "halt_on_error=1:second_deadlock_stack=1";
}

const char *__tsan_default_suppressions(void)
{
	/* None needed: the kernel's deliberate unlocked peeks (spinlock owner, nr_partial, a
	 * buddy's page flags, the barn's counts) are relaxed atomics. */
	return "";
}
