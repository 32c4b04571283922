// SPDX-License-Identifier: MIT
/*
 * ThreadSanitizer settings compiled into test_slab_tsan, so that running the binary by hand
 * behaves as under tools/test.sh: the first report ends the run (as ASan's do), so a race
 * shows as a missing KTAP plan and a non-zero exit. TSAN_OPTIONS=halt_on_error=0 lists all.
 *
 * Suppressions: race_top matches only the innermost frame of a report's stacks, so each
 * entry hides the racy accesses made by that one function itself, nothing it calls. Every
 * entry is a race the kernel code makes on purpose; docs/host-build.md says why for each.
 */
#include <stdbool.h>

#include "spinlock.h"

const char *__tsan_default_options(void);
const char *__tsan_default_suppressions(void);
void __tsan_acquire(void *addr);

const char *__tsan_default_options(void)
{
	return "halt_on_error=1:second_deadlock_stack=1";
}

const char *__tsan_default_suppressions(void)
{
	return
		/* kernel/spinlock.c: a CPU reads l->owner without the lock to catch a recursive
		 * acquire; only that CPU can have written its own number there. */
		"race_top:check_recursion\n"
		"race_top:spin_held_by_me\n"
		/* mm/scheme_*.c: READ_ONCE(n->nr_partial) without list_lock, to spare taking the
		 * lock when the node list looks empty (re-checked under the lock). */
		"race_top:lock_get_partial\n"
		"race_top:partial_get_partial\n"
		/* mm/page_alloc.c: merging a freed block reads the flags and order of its buddy
		 * under zone.lock while the buddy may be an allocated page whose owner (a slab)
		 * changes its flags without that lock; only PG_buddy matters, which only
		 * zone.lock holders set or clear. */
		"race_top:free_block_locked\n";
}
