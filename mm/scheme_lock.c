// SPDX-License-Identifier: MIT
/*
 * The "lock" scheme: SLUB before 2011. A cpu has one cpu slab and nothing else; when it runs
 * out, it takes one slab from the node partial list under list_lock. Every slow free that
 * turns a full slab partial, or empties a partial one, takes list_lock to move it (that is
 * in the core's __slab_free, since the scheme has no SLAB_SCHEME_CPU_PARTIAL).
 *
 * The smallest scheme there is: docs/writing-a-scheme.md walks through it. It is the
 * baseline of every benchmark table and the scheme of debug caches in the locked mode.
 */
#include "mm/slub.h"

static const struct slab_scheme lock_scheme = {
	.name = "lock",
	.summary = "one cpu slab per cpu, partial slabs on the node list under list_lock (SLUB before 2011)",
	.flags = SLAB_SCHEME_BASELINE | SLAB_SCHEME_DEBUG_LOCKED,
	.order = 10,
	.get_partial = get_partial_node,
};
slab_scheme_register(lock_scheme);
