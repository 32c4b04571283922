// SPDX-License-Identifier: MIT
/*
 * The "lock" scheme: SLUB before 2011. A cpu has one cpu slab and nothing else; when it runs
 * out, it takes one slab from the node partial list under list_lock. Every slow free that
 * turns a full slab partial, or empties a partial one, takes list_lock to move it (that is
 * in the core's __slab_free, since cpu_partial is false).
 */
#include "printk.h"
#include "slub.h"

static void lock_put_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c,
				 struct slab *slab)
{
	/* Never called: without cpu_partial, __slab_free does not freeze slabs. */
	panic("slab: %s: the lock scheme has no cpu partial list", s->name);
}

static void lock_flush_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
}

const struct slab_scheme slab_scheme_lock = {
	.name = "lock",
	.cpu_partial = false,
	.get_partial = get_partial_node,
	.put_cpu_partial = lock_put_cpu_partial,
	.flush_cpu_partial = lock_flush_cpu_partial,
};
