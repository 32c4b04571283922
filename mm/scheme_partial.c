// SPDX-License-Identifier: MIT
/*
 * The "partial" scheme: Christoph Lameter's per-cpu partial lists (Linux 3.1 to 6.x).
 *
 * A slow free that turns a full slab partial freezes it and puts it on the freeing cpu's
 * partial list, without list_lock (the core's __slab_free does the freeze with cmpxchg16b;
 * put_frozen below only links it, interrupts off, on its own cpu). The list is bounded:
 * cpu_partial(s) objects (120, 52, 24 or 6 by object size, or the boot option cpu_partial=),
 * counted as Linux does in slabs, twice the objects over objects per slab; when a free would
 * go past it, the whole list drains to the node list first (CPU_PARTIAL_DRAIN). A cpu that
 * runs out takes its next slab from its own partial list (CPU_PARTIAL_ALLOC), and only then
 * from the node list, where it takes several slabs in one list_lock hold: the first as its
 * cpu slab, more onto its partial list until it holds half its budget (CPU_PARTIAL_NODE).
 *
 * The cpu partial list is a singly linked list through slab->next; its head's scheme_state
 * counts the slabs on it. It is this scheme's per-cpu state (struct partial_cpu, c->priv),
 * with its counters; the budget is its per-cache state (struct partial_cache, s->priv).
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "mm/scheme_partial.h"

unsigned int slub_cpu_partial_override;
boot_param(cpu_partial, slub_cpu_partial_override, uint, (1, 100000), 0,
	   "per-cpu partial list budget in objects (default: 120, 52, 24 or 6 by size)");

/* Linux's budget by object size (set_cpu_partial), or cpu_partial=. */
unsigned int cpu_partial_objects(const struct kmem_cache *s)
{
	if (slub_cpu_partial_override)
		return slub_cpu_partial_override;
	if (s->size >= PAGE_SIZE)
		return 6;
	if (s->size >= 1024)
		return 24;
	if (s->size >= 256)
		return 52;
	return 120;
}

/* The counters (struct partial_cpu's stat), in slabinfo by these names (Linux's). */
enum partial_stat {
	CPU_PARTIAL_ALLOC, /* cpu slab taken from the cpu partial list */
	CPU_PARTIAL_FREE,  /* slow free put a full slab on the cpu partial list */
	CPU_PARTIAL_NODE,  /* slab moved from the node list to the cpu partial list */
	CPU_PARTIAL_DRAIN, /* cpu partial list drained to the node list */
	NR_PARTIAL_STATS
};

static const char *const partial_stat_names[NR_PARTIAL_STATS] = {
	"cpu_partial_alloc", "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain",
};

struct partial_cpu {
	struct slab *partial; /* frozen slabs, linked by slab->next */
	u64 stat[NR_PARTIAL_STATS];
};

/*
 * The budget of a cache's cpu partial lists, set when it is created (init_cache) and by
 * kmem_cache_set_param's "cpu_partial" (Linux's /sys/kernel/slab/NAME/cpu_partial):
 * written there, read with relaxed loads by the slow paths of every cpu.
 */
struct partial_cache {
	unsigned int objects; /* cpu_partial_objects() */
	unsigned int slabs;   /* in slabs, as Linux counts it: twice objects over objects per slab */
};

static inline struct partial_cpu *pc(struct kmem_cache_cpu *c)
{
	return c->priv;
}

static inline void pstat(struct kmem_cache_cpu *c, enum partial_stat item)
{
	pc(c)->stat[item]++;
}

static inline unsigned int cpu_partial(struct kmem_cache *s)
{
	return __atomic_load_n(&((const struct partial_cache *)s->priv)->objects, __ATOMIC_RELAXED);
}

static inline unsigned int budget_slabs(struct kmem_cache *s)
{
	return __atomic_load_n(&((const struct partial_cache *)s->priv)->slabs, __ATOMIC_RELAXED);
}

static void set_budget(struct kmem_cache *s, unsigned int objects)
{
	struct partial_cache *pcache = s->priv;

	__atomic_store_n(&pcache->objects, objects, __ATOMIC_RELAXED);
	__atomic_store_n(&pcache->slabs, MAX(1u, DIV_ROUND_UP(objects * 2, s->objects)),
			 __ATOMIC_RELAXED);
}

static int partial_init_cache(struct kmem_cache *s)
{
	set_budget(s, cpu_partial_objects(s));
	return 0;
}

static void *take_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	/* LAB4: BEGIN */
	struct slab *slab = pc(c)->partial;
	void *freelist;
	unsigned long counters;
	struct slab new;

	pc(c)->partial = slab->next;
	if (pc(c)->partial)
		pc(c)->partial->scheme_state = slab->scheme_state - 1;
	/* Frozen and ours: others only push onto its freelist. Take all of it. */
	do {
		slab_read_freelist(slab, &freelist, &counters);
		new.counters = counters;
		new.inuse = new.objects;
	} while (!slab_update_freelist(s, slab, freelist, counters, NULL, new.counters));
	c->slab = slab;
	return freelist;
	/* LAB4: END */
}

/* The refill from the node list: the cpu slab and more slabs onto the cpu partial list. */
static void *refill_from_node(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	/* LAB4: BEGIN */
	void *freelist = NULL;
	struct kmem_cache_node *n = get_node(s);
	struct slab *slab, *tmp;
	int objects, available = 0;

	if (!__atomic_load_n(&n->nr_partial, __ATOMIC_RELAXED))
		return NULL;
	slub_lock_node(s, c, n);
	list_for_each_entry_safe(slab, tmp, &n->partial, slab_list) {
		if (!c->slab) {
			freelist = acquire_slab(s, n, slab, true, &objects);
			c->slab = slab;
		} else {
			acquire_slab(s, n, slab, false, &objects);
			slab->next = pc(c)->partial;
			slab->scheme_state = (pc(c)->partial ? pc(c)->partial->scheme_state : 0) + 1;
			pc(c)->partial = slab;
		}
		available += objects;
		if ((unsigned)available > cpu_partial(s) / 2)
			break;
	}
	spin_unlock(&n->list_lock);
	return freelist;
	/* LAB4: END */
}

static unsigned int list_length(const struct slab *slab)
{
	unsigned int n = 0;

	for (; slab; slab = slab->next)
		n++;
	return n;
}

/*
 * The counters are counted here, from what the lab's functions above did (the cpu slab they
 * took, the slabs on the list), not by them: what slabinfo shows is what happened.
 */
static __noinline void *partial_get_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *freelist = NULL;
	unsigned int before;

	while (pc(c)->partial) {
		freelist = take_cpu_partial(s, c);
		if (freelist) {
			pstat(c, CPU_PARTIAL_ALLOC);
			return freelist;
		}
		/* No free objects after all (cannot happen: partial slabs only gain free
		 * objects while frozen); leave it as a full cpu slab and look further. */
		c->slab = NULL;
	}
	before = list_length(pc(c)->partial);
	freelist = refill_from_node(s, c);
	if (c->slab)
		stat(s, c, ALLOC_FROM_PARTIAL);
	pc(c)->stat[CPU_PARTIAL_NODE] += list_length(pc(c)->partial) - before;
	return freelist;
}

/* The cpu partial list and this node's list first (above), then the other nodes'. */
static void *partial_get_partial_numa(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *freelist = partial_get_partial(s, c);

	if (freelist || c->slab || kmem_cache_nr_nodes(s) == 1)
		return freelist;
	return get_partial_remote(s, c);
}

static void put_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab)
{
	/* LAB4: BEGIN */
	struct slab *old = pc(c)->partial;

	if (old && (unsigned)old->scheme_state >= budget_slabs(s)) {
		pc(c)->partial = NULL;
		unfreeze_partials(s, c, old);
		old = NULL;
	}
	slab->next = old;
	slab->scheme_state = (old ? old->scheme_state : 0) + 1;
	pc(c)->partial = slab;
	/* LAB4: END */
}

/* put_frozen: counted here (a drain: the list was not empty and slab is not pushed on it). */
static void partial_put_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c,
				    struct slab *slab)
{
	struct slab *old = pc(c)->partial;

	pstat(c, CPU_PARTIAL_FREE);
	put_cpu_partial(s, c, slab);
	if (old && slab->next != old)
		pstat(c, CPU_PARTIAL_DRAIN);
}

static void partial_flush_cpu_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *list = pc(c)->partial;

	pc(c)->partial = NULL;
	unfreeze_partials(s, c, list);
}

/* Free objects on this cpu's partial slabs (what other cpus freed to them). */
static unsigned long partial_count_free(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned long n = 0;

	for (struct slab *slab = pc(c)->partial; slab; slab = slab->next)
		n += slab->objects - slab->inuse;
	return n;
}

/* On each cpu, from a cross-call (interrupts off): a list over the new budget drains. */
static void trim_cpu_partial(void *arg)
{
	struct kmem_cache *s = arg;
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	struct slab *list = pc(c)->partial;

	if (list && (unsigned)list->scheme_state > budget_slabs(s)) {
		pc(c)->partial = NULL;
		unfreeze_partials(s, c, list);
		pstat(c, CPU_PARTIAL_DRAIN);
	}
}

static int partial_set_param(struct kmem_cache *s, const char *name, unsigned int value)
{
	if (strcmp(name, "cpu_partial"))
		return -2;
	if (!value || value > 100000) {
		printk("kmem_cache_set_param(%s): cpu_partial=%u; the budget is 1 to 100000 objects\n",
		       s->name, value);
		return -1;
	}
	set_budget(s, value);
	on_each_cpu(trim_cpu_partial, s, 1);
	return 0;
}

static int partial_get_param(struct kmem_cache *s, const char *name, unsigned int *value)
{
	if (strcmp(name, "cpu_partial"))
		return -2;
	*value = cpu_partial(s);
	return 0;
}

static const struct slab_scheme partial_scheme = {
	.name = "partial",
	.summary = "per-cpu partial lists of frozen slabs in front of the node list (Lameter 2011, Linux 3.1-6.x)",
	.flags = SLAB_SCHEME_CPU_PARTIAL | SLAB_SCHEME_DEFAULT | SLAB_SCHEME_DEBUG_PARTIAL,
	.order = 20,
	.get_partial = partial_get_partial_numa,
	.put_frozen = partial_put_cpu_partial,
	.flush_cpu = partial_flush_cpu_partial,
	.count_free = partial_count_free,
	.cache_size = sizeof(struct partial_cache),
	.cpu_size = sizeof(struct partial_cpu),
	.init_cache = partial_init_cache,
	.stat_names = partial_stat_names,
	.nr_stats = NR_PARTIAL_STATS,
	.stat_offset = offsetof(struct partial_cpu, stat),
	.set_param = partial_set_param,
	.get_param = partial_get_param,
};
slab_scheme_register(partial_scheme);
