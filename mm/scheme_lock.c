// SPDX-License-Identifier: MIT
/*
 * The "lock" scheme: SLUB before 2011. A cpu has one cpu slab and nothing else; when it runs
 * out, it takes one slab from the node partial list under list_lock. Every slow free that
 * turns a full slab partial, or empties a partial one, takes list_lock to move it (that is
 * in the core's __slab_free, since cpu_partial is false).
 */
#include "mm/slub.h"

const struct slab_scheme slab_scheme_lock = {
	.name = "lock",
	.cpu_partial = false,
	.get_partial = get_partial_node,
};
