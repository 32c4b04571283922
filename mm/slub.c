// SPDX-License-Identifier: MIT
/*
 * SLUB, written from scratch after Linux's 2011-2025 design (before Linux 7.0 replaced the
 * per-cpu slabs with arrays of objects). The interface is mm/slab.h; the structures are in
 * mm/slub.h; the bulk calls and their stash are mm/slub_bulk.c, debugging mm/slub_debug.c;
 * the schemes (where partial slabs live) are mm/scheme_*.c, one file each, registered with
 * slab_scheme_register() (docs/writing-a-scheme.md); what does not depend on how slabs
 * are kept (kmem_cache_create's checks, destroy, kmalloc's classes and large sizes,
 * slabinfo and the counters) is mm/slab_common.c, as in Linux.
 *
 * Lock order
 *   1. kmem_cache_node->list_lock (taken with interrupts off)
 *   2. zone.lock of the page allocator (allocate_slab/discard_slab may run under 1)
 *   slab_lock (SLAB_NO_CMPXCHG caches) is innermost: held only across one freelist update.
 *   A cpu's stash_lock (the bulk calls' stash, mm/slub_bulk.c) is held across nothing else.
 *   slab_mutex (the list of caches) is never held with either, but for the page allocator's
 *   reclaim hook (mm/slab_common.c), which only trylocks it, then frees stashed pages.
 *
 * Objects and slabs
 *   A slab is 2^order pages (order 0..3) cut into s->objects slots of s->size bytes. A free
 *   object holds the pointer to the next free one at s->offset (0, or past the object when a
 *   constructor's work must survive). The slab's metadata is the struct page of its first
 *   page; later pages point back at it (PG_tail) and hold its cache, so any object finds its
 *   slab in O(1), and its cache in one page read (in_slab_of).
 *
 * Who owns what
 *   kmem_cache_cpu (per cache, per cpu): freelist, slab, and the scheme's private area
 *   (priv: a cpu partial list, a layer, remote-free lists). Only its cpu touches
 *   it, with interrupts off or held back (the "irq" fastpath masks them: kernel/irqflags.h's
 *   irq_soft_mask; every slow path turns them off) or with one 8-byte cmpxchg, no lock
 *   prefix, on the freelist word (the "cmpxchg" fastpath, interrupts on: the freelist with
 *   a tid in its top 16 bits, slub.h; an interrupt that changes the cpu freelist or slab
 *   also steps the tid, so the interrupted cmpxchg fails and retries). The slow paths set
 *   the cpu freelist with cpu_freelist_set, which steps the tid for such a cache.
 *
 *   slab->freelist + slab->counters (inuse, objects, frozen, owner): changed only with
 *   cmpxchg16b on the pair, by any cpu (slab_update_freelist; on a CPU without CMPXCHG16B,
 *   or for a cache created with SLAB_NO_CMPXCHG, the compare and the two stores happen under
 *   the slab's lock byte instead, interrupts off: Linux's slab_lock fallback, the same
 *   semantics; the per-cpu "cmpxchg" fastpath needs only an 8-byte cmpxchg and runs there
 *   too).
 *   A frozen slab belongs to one cpu (its cpu slab or on
 *   its cpu partial list): others may only push freed objects onto slab->freelist. An
 *   unfrozen slab with free objects is on the node partial list; an unfrozen full slab is on
 *   no list (nobody needs to find it until an object comes back).
 *
 *   kmem_cache_node: partial list and nr_partial under list_lock. Whoever moves a slab on or
 *   off the node list holds list_lock across the cmpxchg that changes its frozen state, so
 *   list membership and frozen never disagree for a list_lock holder.
 *
 * Slab states
 *
 *   state          frozen  where                    objects handed out from
 *   cpu slab       1       kmem_cache_cpu->slab     c->freelist (the cpu's), then slab->freelist
 *   cpu partial    1       the scheme's (c->priv)   none until it becomes the cpu slab
 *   node partial   0       node->partial            none until a cpu freezes it
 *   full           0       nowhere                  none; the first free makes it partial
 *
 * Allocation order (slab_alloc, then ___slab_alloc with interrupts off)
 *   1. the cpu freelist (fastpath: one pop)
 *   2. the cpu slab's own freelist: objects other cpus freed to it (ALLOC_REFILL)
 *   3. the scheme's get_partial: the cpu partial list, then the node partial list
 *   4. a new slab from the page allocator (ALLOC_SLAB); none: NULL
 *   A bulk allocation takes this cpu's stash of bare slabs before 3 (mm/slub_bulk.c).
 *
 * Entry points: kmem_cache_alloc/free and their bulk forms (inline, mm/slab.h) call
 *   s->entry.alloc/free/alloc_bulk/free_bulk, chosen at creation by slab_choose_paths: the
 *   irq or cmpxchg fastpath, a layer's hooks, or for a size that is not a power of two a
 *   free that checks first; the bulk ones the core's fast parts (bulk_core, mm/slub_bulk.c)
 *   or the scheme's. The fastpaths keep no frame and end their slow halves in jumps
 *   (FASTPATH_FN), so they save no registers.
 *
 * Free (slab_free)
 *   - to this cpu's slab: push on the cpu freelist (fastpath); kmem_cache_free's fastpath
 *     does not look the slab up: one masked compare says whether p is an object start in
 *     the cpu slab (on_cpu_slab), and only what fails it is looked up and checked
 *   - otherwise __slab_free: push on slab->freelist with cmpxchg16b; if that makes a full
 *     unfrozen slab partial, a SLAB_SCHEME_CPU_PARTIAL scheme gets it frozen onto this
 *     cpu's partial list (put_frozen, no list_lock), any other has it put on the node
 *     list under list_lock; if it
 *     empties an unfrozen slab and the node keeps min_partial slabs already, the slab goes
 *     back to the page allocator.
 *
 * Scheme layers: a scheme with alloc and free hooks (SLAB_SCHEME_LAYER) puts its own
 * per-cpu layer in front of all this: kmem_cache_alloc/free go to the layer (after the
 * same checks on free), and the layer refills from and flushes to the cpu slab and the
 * lists above with interrupts off (slab_alloc_for_layer, slab_free_for_layer), or replaces
 * the paths entirely and uses only allocate_slab, discard_slab and the free checks from
 * here (SLAB_SCHEME_OWNER schemes: every slab has an owner cpu, docs/ipi-protocol.md).
 *
 * Debugging and hardening go through the same layer hooks, so the fastpaths inlined in
 * kmem_cache_alloc/free use the plain free pointer accessors; mm/slub_debug.c's opening
 * comment says how a cache gets there. The hooks here: create (layout), allocate_slab (red
 * zones, poison, a shuffled freelist), flush and info (a cpu freelist is checked before it
 * is walked), destroy, kmalloc (the requested size), free_check's "not at an object start"
 * branch (objects that start red_left_pad into their slot).
 *
 * Interrupts: the "irq" fastpath runs with them masked (irq_soft_mask: one store; one that
 * arrives is held back and runs at the unmask, or when a slow half turns them off with
 * irq_soft_to_hard, which is why each slow half reads the cpu state again); the "cmpxchg"
 * fastpath with them on. Every slow path, bulk operation and list operation runs with
 * interrupts off (the bulk allocation's fast walk masked), so an interrupt handler may
 * allocate and free too. The barriers: cmpxchg16b is a full barrier
 * (lock prefix) for slab freelists; per-cpu state needs none (only its own cpu and that
 * cpu's interrupts touch it).
 */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

void (*slab_update_race)(struct kmem_cache *s, struct slab *slab); /* slub.h */


/* kernel/percpu.h's stride of each cpu's slub_off (this_cpu_slab). */
const unsigned long percpu_slub_stride = sizeof(struct kmem_cache_cpu);

static unsigned long bad_input;

/* ---- small helpers ---- */

/*
 * Does head go onto this cpu's freelist? With its slab known (kfree, bulk, the hardened and
 * layer paths have checked it): when that is the cpu slab. Without (slab NULL: the
 * fastpath of kmem_cache_free, only for caches with a power-of-two size, which has not
 * looked the slab up): when head is an object start inside the cpu slab, which also makes
 * it an object of this cache. Anything else (NULL, another slab's object, another cache's,
 * no slab object at all, a pointer inside an object) goes to __slab_free, whose check
 * (free_check) reports what is wrong with it.
 */
static __always_inline bool on_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
					struct slab *slab, const void *head)
{
	if (slab)
		return slab == c->slab;
	return cpu_slab_has_object(c, head);
}

/*
 * "slab: CACHE: WHAT PTR, caller FUNCTION+OFF; left alone", and count it. caller NULL:
 * this function's return address, for the fastpath entries of kmem_cache_free, which jump
 * here (so that is their caller's) and need not load it on their way.
 */
void __noinline slab_report_bad(struct kmem_cache *s, const void *p, void *caller,
				 const char *what)
{
	u64 off;
	const char *fn;

	if (!caller)
		caller = __builtin_return_address(0);
	fn = kallsyms_lookup((u64)(uptr)caller, &off);
	if (!p)
		return; /* freeing NULL does nothing (the fastpath's double-free test sends it) */
	__atomic_fetch_add(&bad_input, 1, __ATOMIC_RELAXED);
	printk("slab: %s: %s %p, caller %s+%#llx; left alone\n", s ? s->name : "kfree", what, p,
	       fn ? fn : "?", (unsigned long long)(fn ? off : (u64)(uptr)caller));
}

unsigned long slab_bad_input_count(void)
{
	return __atomic_load_n(&bad_input, __ATOMIC_RELAXED);
}

void slub_lock_node(struct kmem_cache *s, struct kmem_cache_cpu *c, struct kmem_cache_node *n)
{
	stat(s, c, LIST_LOCK);
	if (!spin_trylock(&n->list_lock)) {
		stat(s, c, LIST_LOCK_CONTENDED);
		spin_lock(&n->list_lock);
	}
}

/* n->list_lock held. */
void add_partial(struct kmem_cache_node *n, struct slab *slab, bool tail)
{
	assert_spin_locked(&n->list_lock);
	/* Peeked at without the lock (get_partial): relaxed atomic, never torn. */
	__atomic_store_n(&n->nr_partial, n->nr_partial + 1, __ATOMIC_RELAXED);
	if (tail)
		list_add_tail(&slab->slab_list, &n->partial);
	else
		list_add(&slab->slab_list, &n->partial);
}

/* n->list_lock held. */
void remove_partial(struct kmem_cache_node *n, struct slab *slab)
{
	assert_spin_locked(&n->list_lock);
	list_del(&slab->slab_list);
	__atomic_store_n(&n->nr_partial, n->nr_partial - 1, __ATOMIC_RELAXED);
}

/*
 * The freelist+counters update without cmpxchg16b (slab_update_freelist in slub.h). The lock
 * is a byte of the slab's own (Linux uses the page's PG_locked bit with bit_spin_lock; here
 * the page flags are read without atomics by virt_to_slab, so the lock keeps off them). It is
 * taken with interrupts off, so an interrupt handler freeing to the same slab cannot spin on
 * a lock its own cpu holds, and it never nests: nothing is taken while it is held.
 */
static inline void slab_lock(struct slab *slab)
{
	while (__atomic_exchange_n(&slab->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&slab->locked, __ATOMIC_RELAXED))
			cpu_relax();
}

static inline void slab_unlock(struct slab *slab)
{
	__atomic_store_n(&slab->locked, 0, __ATOMIC_RELEASE);
}

bool __noinline slab_update_freelist_locked(struct slab *slab, void *fl, unsigned long counters,
					    void *new_fl, unsigned long new_counters)
{
	unsigned long flags;
	bool ok = false;

	local_irq_save(flags);
	slab_lock(slab);
	if (slab->freelist == fl && slab->counters == counters) {
		/* Atomic stores for the unlocked readers (slab_read_freelist). */
		__atomic_store_n(&slab->freelist, new_fl, __ATOMIC_RELAXED);
		__atomic_store_n(&slab->counters, new_counters, __ATOMIC_RELAXED);
		ok = true;
	}
	slab_unlock(slab);
	local_irq_restore(flags);
	return ok;
}

const char *slab_freelist_method(void)
{
	return arch_has_cmpxchg_double() ? "cmpxchg16b" : "slab_lock";
}

/* ---- slabs from and to the page allocator ---- */

struct slab *allocate_slab_bare(struct kmem_cache *s, gfp_t gfp)
{
	/* From this CPU's node (the nearest with memory when it has none or is out). */
	struct page *page = alloc_pages_node(numa_node_id(), (gfp & ~__GFP_ZERO) | __GFP_NOWARN,
					     s->order);
	long held, peak;

	if (!page)
		return NULL;
	held = __atomic_add_fetch(&s->pages_held, 1L << s->order, __ATOMIC_RELAXED);
	peak = __atomic_load_n(&s->pages_peak, __ATOMIC_RELAXED);
	while (unlikely(held > peak) &&
	       !__atomic_compare_exchange_n(&s->pages_peak, &peak, held, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	/* The freelist word holds addresses below 2^48 only (mm/slub.h); all are. */
	BUG_ON(s->cpu_tid && fl_word_ptr((uptr)page_address(page)) != page_address(page));
	slab_setup_bare(s, (struct slab *)page);
	return (struct slab *)page;
}

/* No slab to be had for an allocation: said once per failure, unless gfp asks for quiet. */
void __noinline slab_oom(struct kmem_cache *s, gfp_t gfp)
{
	if (!(gfp & __GFP_NOWARN))
		printk("slab: %s: out of memory (order-%u slab)\n", s->name, s->order);
}

struct slab *allocate_slab(struct kmem_cache *s, gfp_t gfp)
{
	struct slab *slab = allocate_slab_bare(s, gfp);
	char *start, *p;

	if (!slab)
		return NULL;
	start = slab_address(slab);
	if (unlikely(s->dbg)) {
		/* Red zones, poison, a shuffled freelist: mm/slub_debug.c lays the slab out. */
		slab->freelist = slub_debug_setup_slab(s, slab);
	} else {
		for (unsigned int i = 0; i < s->objects; i++) {
			p = start + (unsigned long)i * s->size;
			if (s->ctor)
				s->ctor(p);
			/* A plain cache: never hardened (hardened ones have s->dbg). */
			set_freepointer_fast(s, p, i + 1 < s->objects ? p + s->size : NULL, false);
		}
		slab->freelist = start;
	}
	return slab;
}

void discard_slab(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab)
{
	slab_unset(s, slab);
	if (c)
		stat(s, c, FREE_SLAB);
	slab_pages_free(s, slab);
}

/* ---- freezing and unfreezing ---- */

/*
 * Take a slab off the node list for this cpu (n->list_lock held): freeze it and, for a cpu
 * slab, take its whole freelist. Returns the freelist; *objects is how many were free.
 */
void *acquire_slab(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab,
		   bool for_cpu_slab, int *objects)
{
	void *freelist;
	unsigned long counters;
	struct slab new;

	assert_spin_locked(&n->list_lock);
	do {
		slab_read_freelist(slab, &freelist, &counters);
		new.counters = counters;
		*objects = new.objects - new.inuse;
		if (for_cpu_slab)
			new.inuse = new.objects;
		new.frozen = 1;
		new.owner = smp_processor_id();
	} while (!slab_update_freelist(s, slab, freelist, counters, for_cpu_slab ? NULL : freelist,
				      new.counters));
	remove_partial(n, slab);
	return freelist;
}

/*
 * Take everything on the cpu slab's freelist (objects other cpus freed). If there is
 * nothing, unfreeze it: it is full and goes on no list.
 */
void *__noinline get_freelist(struct kmem_cache *s, struct slab *slab)
{
	void *freelist;
	unsigned long counters;
	struct slab new;

	do {
		slab_read_freelist(slab, &freelist, &counters);
		new.counters = counters;
		new.inuse = new.objects;
		new.frozen = freelist != NULL;
	} while (!slab_update_freelist(s, slab, freelist, counters, NULL, new.counters));
	return freelist;
}

/* Give a cpu slab back: its cpu freelist goes onto the slab, which unfreezes. Irqs off. */
static __noinline void deactivate_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
				       struct slab *slab, void *freelist)
{
	struct kmem_cache_node *n = slab_node(s, slab);
	void *tail = NULL, *old_free, *new_free;
	unsigned long counters;
	unsigned int cnt = 0;
	struct slab new;

	/* One test for the whole walk: hardened caches decode, others need not. */
	if (unlikely(s->freeptr_xor_key)) {
		for (void *p = freelist; p; p = get_freepointer(s, p)) {
			tail = p;
			cnt++;
		}
	} else {
		for (void *p = freelist; p; p = get_freepointer_fast(s, p, false)) {
			tail = p;
			cnt++;
		}
	}
	slub_lock_node(s, c, n);
	do {
		slab_read_freelist(slab, &old_free, &counters);
		new.counters = counters;
		new_free = old_free;
		if (freelist) {
			set_freepointer(s, tail, old_free);
			new_free = freelist;
		}
		new.inuse -= cnt;
		new.frozen = 0;
	} while (!slab_update_freelist(s, slab, old_free, counters, new_free, new.counters));
	if (old_free)
		stat(s, c, DEACTIVATE_REMOTE_FREES);
	if (!new.inuse && n->nr_partial >= s->min_partial) {
		spin_unlock(&n->list_lock);
		stat(s, c, DEACTIVATE_EMPTY);
		discard_slab(s, c, slab);
	} else if (new_free) {
		add_partial(n, slab, false);
		spin_unlock(&n->list_lock);
		stat(s, c, DEACTIVATE_TO_HEAD);
	} else {
		spin_unlock(&n->list_lock);
		stat(s, c, DEACTIVATE_FULL);
	}
}

/*
 * Unfreeze a cpu partial list onto the node lists (or free emptied slabs). Irqs off. Each
 * slab goes to its own node's list (a remote free may have frozen another node's slab
 * here): the lock is changed when the node does, as Linux's __unfreeze_partials.
 */
void unfreeze_partials(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *list)
{
	struct kmem_cache_node *n = NULL;
	struct slab *discard = NULL;

	if (!list)
		return;
	while (list) {
		struct slab *slab = list, new;
		unsigned long counters;
		void *freelist;

		list = slab->next;
		if (slab_node(s, slab) != n) {
			if (n)
				spin_unlock(&n->list_lock);
			n = slab_node(s, slab);
			slub_lock_node(s, c, n);
		}
		do {
			slab_read_freelist(slab, &freelist, &counters);
			new.counters = counters;
			new.frozen = 0;
		} while (!slab_update_freelist(s, slab, freelist, counters, freelist,
					      new.counters));
		if (!new.inuse && n->nr_partial >= s->min_partial) {
			slab->next = discard;
			discard = slab;
		} else {
			add_partial(n, slab, true);
		}
	}
	spin_unlock(&n->list_lock);
	while (discard) {
		struct slab *slab = discard;

		discard = slab->next;
		discard_slab(s, c, slab);
	}
}

/* Take one slab off node n's partial list as this cpu's slab (interrupts off). */
void *get_partial_from(struct kmem_cache *s, struct kmem_cache_cpu *c, struct kmem_cache_node *n)
{
	struct slab *slab;
	void *freelist;
	int objects;

	/* Racy peek: spares the lock when the list is empty (re-checked under it). */
	if (!__atomic_load_n(&n->nr_partial, __ATOMIC_RELAXED))
		return NULL;
	slub_lock_node(s, c, n);
	if (list_empty(&n->partial)) {
		spin_unlock(&n->list_lock);
		return NULL;
	}
	slab = list_first_entry(&n->partial, struct slab, slab_list);
	freelist = acquire_slab(s, n, slab, true, &objects);
	spin_unlock(&n->list_lock);
	if (n != get_node(s))
		__atomic_fetch_add(&n->alloc_remote, 1, __ATOMIC_RELAXED);
	c->slab = slab;
	stat(s, c, ALLOC_FROM_PARTIAL);
	return freelist;
}

/*
 * The other nodes, nearest first (numa_fallback): Linux's get_any_partial, which takes a
 * remote node's partial slab before a new slab from the page allocator, but only from a
 * node that keeps more than min_partial of them (so a node's own working set stays its
 * own). A memory-less node's CPUs have no slabs of their own node: they always look here.
 */
void *get_partial_remote(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	int here = numa_node_id();
	bool memless = !numa_node_has_memory[here];

	for (int i = 1; i < kmem_cache_nr_nodes(s); i++) {
		struct kmem_cache_node *n = get_node_nid(s, numa_fallback[here][i]);
		void *freelist;

		if (!memless && __atomic_load_n(&n->nr_partial, __ATOMIC_RELAXED) <= s->min_partial)
			continue;
		freelist = get_partial_from(s, c, n);
		if (freelist)
			return freelist;
	}
	return NULL;
}

/* The lock scheme's get_partial, and the others': this node's list, then the others. */
void *get_partial_node(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *freelist = get_partial_from(s, c, get_node(s));

	return freelist ? freelist : get_partial_remote(s, c);
}

/* ---- allocation ---- */

/* ___slab_alloc: the cpu freelist is empty. Interrupts off. */
static __always_inline void *__slab_alloc_slow(struct kmem_cache *s, struct kmem_cache_cpu *c,
						gfp_t gfp, bool hardened)
{
	struct slab *slab;
	void *freelist;

	stat(s, c, ALLOC_SLOWPATH);
	freelist = c->slab ? cpu_freelist(c) : NULL; /* an interrupt may have refilled it */
	if (!freelist)
		freelist = refill_from_slabs(s, c);
	if (freelist)
		goto load;
	slab = allocate_slab(s, gfp);
	if (!slab) {
		slab_oom(s, gfp);
		return NULL;
	}
	stat(s, c, ALLOC_SLAB);
	freelist = slab->freelist;
	slab->freelist = NULL;
	slab->inuse = slab->objects;
	slab->frozen = 1;
	slab->owner = smp_processor_id();
	cpu_slab_set(s, c, slab);
load:
	cpu_freelist_set(s, c, get_freepointer_fast(s, freelist, hardened));
	return freelist;
}

/* Two copies: plain caches never pay for the hardening test (slab_alloc_hardened). */
void *__noinline slab_alloc_slow(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp)
{
	return __slab_alloc_slow(s, c, gfp, false);
}

static __noinline void *slab_alloc_slow_hardened(struct kmem_cache *s, struct kmem_cache_cpu *c,
						 gfp_t gfp)
{
	return __slab_alloc_slow(s, c, gfp, true);
}

/*
 * The slow path, then interrupts back as flags had them: a fastpath that ends in this call
 * keeps nothing across it, so it saves no registers (and, as a tail call, has no frame).
 */
static __noinline void *slab_alloc_slow_irq_plain(struct kmem_cache *s, struct kmem_cache_cpu *c,
						  gfp_t gfp, unsigned long flags)
{
	void *object = slab_alloc_slow(s, c, gfp);

	local_irq_restore(flags);
	return object;
}

static __noinline void *slab_alloc_slow_irq_hardened(struct kmem_cache *s,
						     struct kmem_cache_cpu *c, gfp_t gfp,
						     unsigned long flags)
{
	void *object = slab_alloc_slow_hardened(s, c, gfp);

	local_irq_restore(flags);
	return object;
}

/* The same from under irq_soft_mask (the irq fastpath): interrupts off first, then back. */
static __noinline void *slab_alloc_slow_soft_plain(struct kmem_cache *s, struct kmem_cache_cpu *c,
						   gfp_t gfp)
{
	unsigned long flags = irq_soft_to_hard();
	void *object = slab_alloc_slow(s, c, gfp);

	local_irq_restore(flags);
	return object;
}

static __noinline void *slab_alloc_slow_soft_hardened(struct kmem_cache *s,
						      struct kmem_cache_cpu *c, gfp_t gfp)
{
	unsigned long flags = irq_soft_to_hard();
	void *object = slab_alloc_slow_hardened(s, c, gfp);

	local_irq_restore(flags);
	return object;
}

static __always_inline void *slab_alloc_slow_irq(struct kmem_cache *s, struct kmem_cache_cpu *c,
						 gfp_t gfp, unsigned long flags, bool hardened)
{
	return hardened ? slab_alloc_slow_irq_hardened(s, c, gfp, flags)
			: slab_alloc_slow_irq_plain(s, c, gfp, flags);
}

static __always_inline void *slab_alloc_cmpxchg(struct kmem_cache *s, gfp_t gfp, bool hardened)
{
	/* LAB3: BEGIN */
	struct kmem_cache_cpu *c;
	unsigned long w, flags;
	void *object, *next;

redo:
	c = this_cpu_slab(s);
	w = READ_ONCE(c->fl_word); /* the freelist and its tid in one load (slub.h) */
	object = fl_word_ptr(w);
	/* No test of c->slab: a cpu freelist is never left without its slab (cpu_slab_set
	 * to NULL only with the freelist empty), and the tid tells whether both still hold. */
	if (unlikely(!object)) {
		local_irq_save(flags);
		return slab_alloc_slow_irq(s, this_cpu_slab(s), gfp, flags, hardened);
	}
	/* May read a stale pointer if an interrupt took the object: then the cmpxchg fails. */
	next = get_freepointer_fast(s, object, hardened);
	if (unlikely(!cmpxchg_local(&c->fl_word, w, fl_word_next(w, next)))) {
		stat(s, c, CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	stat(s, c, ALLOC_FASTPATH);
	return object;
	/* LAB3: END */
}

/* One object from the cpu slab, for a layer in front of it. Interrupts off. */
void *slab_alloc_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp)
{
	void *object = cpu_freelist(c);

	if (unlikely(!object))
		return unlikely(s->freeptr_xor_key) ? slab_alloc_slow_hardened(s, c, gfp)
					      : slab_alloc_slow(s, c, gfp);
	cpu_freelist_set(s, c, get_freepointer(s, object));
	c->freelist_known--; /* one taken, not counted (cpu_freelist_known) */
	return object;
}

/*
 * The entry points kmem_cache_alloc and kmem_cache_free call (mm/slab.h: through the cache's
 * struct kmem_cache_entry, chosen in slab_choose_paths below kmem_cache_free). The fastpath
 * ones keep no frame pointer (FASTPATH_FN): they call nothing but end, on a slow path, in
 * a jump to a function that does the rest, whose frame links to their caller's.
 */
_Static_assert(offsetof(struct kmem_cache, entry) == 0, "mm/slab.h casts s to its entry");


static __always_inline void *alloc_zero(struct kmem_cache *s, gfp_t gfp, void *p)
{
	if (unlikely(gfp & __GFP_ZERO) && p)
		memset(p, 0, s->object_size);
	return p;
}

/*
 * kmem_cache_alloc with __GFP_ZERO (mm/slab.h sends it here, so the entry points need not
 * test it). A layer is called from here directly: a debug layer's caller is one frame up.
 */
void *kmem_cache_alloc_zeroed(struct kmem_cache *s, gfp_t gfp)
{
	return alloc_zero(s, gfp, s->layer_alloc ? s->layer_alloc(s, gfp) : s->entry.alloc(s, gfp));
}

static FASTPATH_FN void *alloc_entry_irq(struct kmem_cache *s, gfp_t gfp)
{
	return slab_alloc_fast_irq(s, gfp, false, slab_alloc_slow_soft_plain);
}

static FASTPATH_FN void *alloc_entry_cmpxchg(struct kmem_cache *s, gfp_t gfp)
{
	return slab_alloc_cmpxchg(s, gfp, false);
}

/* A layer in front of the cpu slab (a scheme's, or debugging's): its caller one frame up. */
static void *alloc_entry_layer(struct kmem_cache *s, gfp_t gfp)
{
	return s->layer_alloc(s, gfp);
}

void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t gfp)
{
	return kmem_cache_alloc(s, gfp | __GFP_ZERO);
}

/* ---- free ---- */

/*
 * Free cnt objects (head..tail, linked) to a slab that is not this cpu's slab. Interrupts
 * off. See the opening comment for what happens to the slab.
 */
static __always_inline void __slab_free_body(struct kmem_cache *s, struct kmem_cache_cpu *c,
					     struct slab *slab, void *head, void *tail,
					     unsigned int cnt, void *caller, bool hardened)
{
	struct kmem_cache_node *n = NULL;
	bool was_frozen;
	void *prior;
	unsigned long counters;
	struct slab new;

	stat(s, c, FREE_SLOWPATH);
	do {
		if (unlikely(n)) {
			spin_unlock(&n->list_lock);
			n = NULL;
		}
		slab_read_freelist(slab, &prior, &counters);
		if (unlikely(prior == head || prior == tail)) { /* tail: linked to prior */
			slab_report_bad(s, prior, caller, "double free of");
			return;
		}
		set_freepointer_fast(s, tail, prior, hardened);
		new.counters = counters;
		was_frozen = new.frozen;
		new.inuse -= cnt;
		if ((!new.inuse || !prior) && !was_frozen) {
			if ((s->scheme->flags & SLAB_SCHEME_CPU_PARTIAL) && !prior) {
				new.frozen = 1; /* full -> partial: it becomes ours */
				new.owner = smp_processor_id();
			} else {
				n = slab_node(s, slab); /* its own node's list, wherever we are */
				slub_lock_node(s, c, n);
			}
		}
	} while (!slab_update_freelist(s, slab, prior, counters, head, new.counters) &&
		 (stat(s, c, CMPXCHG_DOUBLE_FAIL), true));

	if (n && n != get_node(s))
		__atomic_fetch_add(&n->free_remote, 1, __ATOMIC_RELAXED);
	if (!n) {
		if (new.frozen && !was_frozen)
			s->scheme->put_frozen(s, c, slab);
		if (was_frozen)
			stat(s, c, FREE_FROZEN);
		return;
	}
	if (!new.inuse && n->nr_partial >= s->min_partial) {
		if (prior) {
			remove_partial(n, slab);
			stat(s, c, FREE_REMOVE_PARTIAL);
		}
		spin_unlock(&n->list_lock);
		discard_slab(s, c, slab);
		return;
	}
	if (!prior) {
		add_partial(n, slab, true);
		stat(s, c, FREE_ADD_PARTIAL);
	}
	spin_unlock(&n->list_lock);
}

/*
 * Two copies, as for slab_alloc_slow. A NULL slab: one object (head) that the fastpath of
 * kmem_cache_free found not to be in the cpu slab, unchecked yet (on_cpu_slab).
 */
void __noinline __slab_free(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			    void *head, void *tail, unsigned int cnt, void *caller)
{
	if (!slab) {
		if (!head)
			return;
		slab = free_check(s, head, caller);
		if (!slab)
			return;
		if (slab == c->slab) { /* cannot be (on_cpu_slab took it), but the push is right */
			if (unlikely(head == cpu_freelist(c))) {
				slab_report_bad(s, head, caller, "double free of");
				return;
			}
			set_freepointer_fast(s, head, cpu_freelist(c), false);
			cpu_freelist_set(s, c, head);
			stat(s, c, FREE_FASTPATH);
			return;
		}
	}
	__slab_free_body(s, c, slab, head, tail, cnt, caller, false);
}

void __noinline __slab_free_hardened(struct kmem_cache *s, struct kmem_cache_cpu *c,
				     struct slab *slab, void *head, void *tail, unsigned int cnt,
				     void *caller)
{
	__slab_free_body(s, c, slab, head, tail, cnt, caller, true);
}

/*
 * __slab_free with interrupts off for the span of it (the fastpaths call it with them as
 * they were at their start): six arguments in registers, so a fastpath ends in a jump here
 * and keeps nothing across it (no saved registers, no frame).
 */
static __noinline void slab_free_slow_plain(struct kmem_cache *s, struct slab *slab, void *head,
					    void *tail, unsigned int cnt, void *caller)
{
	unsigned long flags;

	if (!caller) /* as slab_report_bad's: the entry points jump here */
		caller = __builtin_return_address(0);
	local_irq_save(flags);
	__slab_free(s, this_cpu_slab(s), slab, head, tail, cnt, caller);
	local_irq_restore(flags);
}

static __noinline void slab_free_slow_hardened(struct kmem_cache *s, struct slab *slab,
					       void *head, void *tail, unsigned int cnt,
					       void *caller)
{
	unsigned long flags;

	local_irq_save(flags);
	__slab_free_hardened(s, this_cpu_slab(s), slab, head, tail, cnt, caller);
	local_irq_restore(flags);
}

static __always_inline void slab_free_slow(struct kmem_cache *s, struct slab *slab, void *head,
					   void *tail, unsigned int cnt, void *caller,
					   bool hardened)
{
	if (hardened)
		slab_free_slow_hardened(s, slab, head, tail, cnt, caller);
	else
		slab_free_slow_plain(s, slab, head, tail, cnt, caller);
}

static __always_inline void slab_free_irq(struct kmem_cache *s, struct slab *slab, void *head,
					  void *tail, unsigned int cnt, void *caller, bool hardened)
{
	/* LAB3: BEGIN */
	struct kmem_cache_cpu *c;

	irq_soft_mask();
	c = this_cpu_slab(s);
	if (likely(on_cpu_slab(s, c, slab, head))) {
		if (unlikely(head == c->freelist)) {
			irq_soft_unmask();
			slab_report_bad(s, head, caller, "double free of");
			return;
		}
		set_freepointer_fast(s, tail, c->freelist, hardened);
		c->freelist = head;
		stat(s, c, FREE_FASTPATH);
		irq_soft_unmask();
		return;
	}
	irq_soft_unmask();
	slab_free_slow(s, slab, head, tail, cnt, caller, hardened); /* interrupts off in there */
	/* LAB3: END */
}

static __always_inline void slab_free_cmpxchg(struct kmem_cache *s, struct slab *slab,
					      void *head, void *tail, unsigned int cnt, void *caller,
					      bool hardened)
{
	/* LAB3: BEGIN */
	struct kmem_cache_cpu *c;
	unsigned long w;
	void *freelist;

redo:
	c = this_cpu_slab(s);
	w = READ_ONCE(c->fl_word);
	barrier(); /* the word before the cpu slab: a change of the slab after it steps the tid */
	if (likely(on_cpu_slab(s, c, slab, head))) {
		freelist = fl_word_ptr(w);
		if (unlikely(head == freelist)) {
			slab_report_bad(s, head, caller, "double free of");
			return;
		}
		set_freepointer_fast(s, tail, freelist, hardened);
		if (unlikely(!cmpxchg_local(&c->fl_word, w, fl_word_next(w, head)))) {
			stat(s, c, CMPXCHG_DOUBLE_CPU_FAIL);
			goto redo;
		}
		stat(s, c, FREE_FASTPATH);
	} else {
		slab_free_slow(s, slab, head, tail, cnt, caller, hardened); /* interrupts off there */
	}
	/* LAB3: END */
}

static __attribute__((always_inline)) inline void slab_free(struct kmem_cache *s,
							    struct slab *slab, void *head,
							    void *tail, unsigned int cnt,
							    void *caller)
{
	if (s->fastpath == SLAB_FASTPATH_CMPXCHG)
		slab_free_cmpxchg(s, slab, head, tail, cnt, caller, false);
	else
		slab_free_irq(s, slab, head, tail, cnt, caller, false);
}

/*
 * The fastpaths again, decoding hardened free pointers: for caches with freelist_hardened=
 * or init_on_*, which mm/slub_debug.c routes here from the layer hooks.
 */
void *slab_alloc_hardened(struct kmem_cache *s, gfp_t gfp)
{
	if (s->fastpath == SLAB_FASTPATH_CMPXCHG)
		return slab_alloc_cmpxchg(s, gfp, true);
	return slab_alloc_fast_irq(s, gfp, true, slab_alloc_slow_soft_hardened);
}

/* p checked by free_check (kmem_cache_free, kfree) or slab_free_check. */
void slab_free_hardened(struct kmem_cache *s, void *p, void *caller)
{
	struct slab *slab = virt_to_slab(p);

	if (s->fastpath == SLAB_FASTPATH_CMPXCHG)
		slab_free_cmpxchg(s, slab, p, p, 1, caller, true);
	else
		slab_free_irq(s, slab, p, p, 1, caller, true);
}

/* Out of line: its buffer would otherwise enlarge every free's stack frame. */
void __noinline report_wrong_cache(struct kmem_cache *s, struct kmem_cache *owner,
					  const void *p, void *caller)
{
	char what[80];

	snprintf(what, sizeof(what), "free of an object of cache %s:", owner->name);
	slab_report_bad(s, p, caller, what);
}

/*
 * A pointer of this cache's slab that is not at an object start. Debug caches come here for
 * every free when they have a left red zone (their objects start red_left_pad into each
 * slot), so the fastpath needs no test for them: their free does its own checks.
 */
void __noinline free_not_at_start(struct kmem_cache *s, const void *p, void *caller)
{
	if (s->flags & SLAB_DEBUG_FLAGS)
		slub_debug_free(s, (void *)p, caller);
	else
		slab_report_bad(s, p, caller, "free of a pointer inside an object:");
}

struct slab *slab_free_check(struct kmem_cache *s, const void *p, void *caller)
{
	return free_check(s, p, caller);
}

/*
 * kmem_cache_free's entry points. A power-of-two size: the fastpath's
 * on_cpu_slab tests that p is an object start in the cpu slab, two compares, and only
 * what fails it is looked up and checked (__slab_free). Any other size: checked first,
 * as a layer's objects are.
 */
/* caller NULL: they end in jumps to slab_report_bad or slab_free_slow, which take their own
 * return address, kmem_cache_free's caller (the disassembly shows the jumps). */
static FASTPATH_FN void free_entry_irq(struct kmem_cache *s, void *p)
{
	slab_free_irq(s, NULL, p, p, 1, NULL, false);
}

static FASTPATH_FN void free_entry_cmpxchg(struct kmem_cache *s, void *p)
{
	slab_free_cmpxchg(s, NULL, p, p, 1, NULL, false);
}

/*
 * kmem_cache_free after the full check (free_check), for a cache with a layer (layer: a
 * scheme's, the debug checks) or of any other size than a power of two, whose free the
 * fastpaths' masked test cannot check. One body, a copy for each kind.
 */
static __always_inline void free_checked(struct kmem_cache *s, void *p, void *caller,
					 bool layer)
{
	struct slab *slab;

	if (unlikely(!p))
		return;
	slab = free_check(s, p, caller);
	if (unlikely(!slab))
		return;
	if (layer)
		s->layer_free(s, p, caller);
	else
		slab_free(s, slab, p, p, 1, caller);
}

/* A layer's; also the slow half of a scheme's free_entry, which jumps here with what it
 * cannot keep (so the caller is kmem_cache_free's, as for the entry points). */
FASTPATH_FN void slab_free_checked(struct kmem_cache *s, void *p)
{
	free_checked(s, p, __builtin_return_address(0), true);
}

static void free_entry_checked(struct kmem_cache *s, void *p)
{
	free_checked(s, p, __builtin_return_address(0), false);
}

/* s's entry points, from its fastpath, layer and size (end of __kmem_cache_create). */
static void slab_choose_paths(struct kmem_cache *s)
{
	bool cmpxchg = s->fastpath == SLAB_FASTPATH_CMPXCHG;

	s->size_mask = !(s->size & (s->size - 1)) && !s->red_left_pad ? s->size - 1 : 0;
	slab_choose_bulk_paths(s);
	if (s->layer_alloc) {
		/* A scheme's layer is called directly; a debug layer wants its caller one frame up. */
		s->entry.alloc = s->dbg			 ? alloc_entry_layer
				 : s->scheme->alloc_entry ? s->scheme->alloc_entry
							  : s->layer_alloc;
		s->entry.free = !s->dbg && s->size_mask && s->scheme->free_entry ? s->scheme->free_entry
										  : slab_free_checked;
		return;
	}
	s->entry.alloc = cmpxchg ? alloc_entry_cmpxchg : alloc_entry_irq;
	if (s->size_mask)
		s->entry.free = cmpxchg ? free_entry_cmpxchg : free_entry_irq;
	else
		s->entry.free = free_entry_checked;
}

/* ---- caches ---- */

/* Linux's rule: enough objects per slab for the cpu count, waste at most 1/16, order <= 3. */
static unsigned int calculate_order(unsigned int size)
{
	unsigned int min_objects = 4 * (fls32((unsigned)nr_cpu_ids) + 1);

	for (unsigned int fraction = 16; fraction >= 4; fraction /= 2) {
		for (unsigned int order = 0; order <= 3; order++) {
			unsigned long slab_size = PAGE_SIZE << order;
			unsigned long n = slab_size / size, waste = slab_size % size;

			if (!n)
				continue;
			if ((n >= min_objects || order == 3) && waste * fraction <= slab_size)
				return order;
		}
	}
	for (unsigned int order = 0; order <= 3; order++)
		if ((PAGE_SIZE << order) / size)
			return order;
	return 3;
}

/* Is the scheme's cpu area kmem_cache_cpu's own scheme_area? */
static bool cpu_area_inline(const struct slab_scheme *sch)
{
	return sch->cpu_size <= SLAB_CPU_AREA_BYTES;
}

/*
 * One block for the per-cpu structures and the scheme's private areas after them:
 * [kmem_cache_cpu x nr_cpu_ids][cpu area x nr_cpu_ids][node area x nodes][cache area], each
 * area cache-line aligned, a cpu area being the scheme's cpu_size bytes (its counters among
 * them); none when cpu_size fits kmem_cache_cpu's scheme_area, which is then the cpu area.
 */
static size_t cpu_area_size(const struct slab_scheme *sch)
{
	return cpu_area_inline(sch) ? 0 : ALIGN_UP(sch->cpu_size, 64);
}

/*
 * Undo alloc_cpu_areas for the first `cpus` cpus and `nodes` nodes that were set up, then
 * the cache's area (cache: init_cache had succeeded).
 */
static void free_cpu_areas(struct kmem_cache *s, int cpus, int nodes, bool cache)
{
	const struct slab_scheme *sch = s->scheme;

	for (int nid = nodes - 1; nid >= 0 && sch->exit_node; nid--)
		sch->exit_node(s, &s->node[nid]);
	for (int cpu = cpus - 1; cpu >= 0 && sch->exit_cpu; cpu--)
		sch->exit_cpu(s, &s->cpu_slab[cpu], cpu);
	if (cache && sch->exit_cache)
		sch->exit_cache(s);
	free_pages((unsigned long)s->cpu_slab, s->cpu_slab_order);
	s->cpu_slab = NULL;
	s->priv = NULL;
}

static int alloc_cpu_areas(struct kmem_cache *s)
{
	const struct slab_scheme *sch = s->scheme;
	size_t cpus = (size_t)nr_cpu_ids, area = cpu_area_size(sch);
	size_t node_area = ALIGN_UP(sch->node_size, 64);
	size_t bytes = cpus * (sizeof(struct kmem_cache_cpu) + area) +
		       node_area * (size_t)kmem_cache_nr_nodes(s) + sch->cache_size;
	unsigned int order = 0;
	struct page *page;
	char *priv;
	int cpu;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	if (order > MAX_ORDER) {
		printk("kmem_cache_create(%s): %zu bytes of per-cpu state for %d cpus, more than "
		       "one block of the page allocator\n", s->name, bytes, nr_cpu_ids);
		return -1;
	}
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!page)
		return -1;
	s->cpu_slab = page_address(page);
	s->cpu_slab_order = order;
	priv = (char *)&s->cpu_slab[cpus];
	s->priv = sch->cache_size ? priv + cpus * area + node_area * (size_t)kmem_cache_nr_nodes(s)
				  : NULL;
	if (sch->init_cache && sch->init_cache(s)) {
		free_cpu_areas(s, 0, 0, false);
		return -1;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
		char *mine = priv + (size_t)cpu * area;

		cpu_slab_set(s, c, NULL); /* no cpu slab: nothing passes on_cpu_slab but NULL */
		cpu_freelist_forget(s, c);
		c->priv = !sch->cpu_size ? NULL : cpu_area_inline(sch) ? (void *)c->scheme_area : mine;
		if (sch->init_cpu && sch->init_cpu(s, c, cpu)) {
			free_cpu_areas(s, cpu, 0, true);
			return -1;
		}
	}
	for (int nid = 0; nid < kmem_cache_nr_nodes(s); nid++) {
		struct kmem_cache_node *n = &s->node[nid];

		n->priv = sch->node_size ? priv + cpus * area + (size_t)nid * node_area : NULL;
		if (sch->init_node && sch->init_node(s, n)) {
			free_cpu_areas(s, nr_cpu_ids, nid, true);
			return -1;
		}
	}
	return 0;
}

/*
 * SLUB's half of kmem_cache_create: mm/slab_common.c has checked the arguments and filled in
 * name, scheme, layer hooks, fastpath, flags, ctor and object_size. Lays the object out
 * (debug layouts included), sizes the slabs, sets up the node and the per-cpu structures.
 * 0, or -1 with nothing of its own left allocated.
 */
int __kmem_cache_create(struct kmem_cache *s, unsigned int align,
			enum slab_debug_mode debug_mode)
{
	unsigned int size = s->object_size;
	bool outside;

	if (s->flags & SLAB_HWCACHE_ALIGN)
		align = MAX(align, 64u);
	align = MAX(align, (unsigned)sizeof(void *));
	s->align = align;
	/* With a constructor the object's content must survive a free, and a typesafe one's
	 * is its readers': the pointer goes after it, or where kmem_cache_create_rcu said. */
	outside = freeptr_outside(s, false);
	s->offset = outside ? ALIGN_UP(size, (unsigned)sizeof(void *))
			    : s->use_freeptr_offset ? s->freeptr_offset : 0;
	s->size = ALIGN_UP(MAX(size, (unsigned)sizeof(void *)) + (outside ? sizeof(void *) : 0),
			   align);
	/* Debugging or hardening: red zones and metadata change size and offset. */
	if (slub_debug_layout(s, debug_mode))
		return -1;
	s->order = calculate_order(s->size);
	s->objects = (unsigned)((PAGE_SIZE << s->order) / s->size);
	s->reciprocal_size = (u32)((0x100000000ULL + s->size - 1) / s->size);
	s->min_partial = MIN(10UL, MAX(5UL, (unsigned long)fls32(s->size) / 2));
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		spin_lock_init(&s->node[nid].list_lock, "list_lock");
		INIT_LIST_HEAD(&s->node[nid].partial);
	}
	if (alloc_cpu_areas(s)) {
		if (s->dbg)
			slub_debug_release(s);
		return -1;
	}
	if (s->dbg && slub_debug_init(s)) {
		free_cpu_areas(s, nr_cpu_ids, kmem_cache_nr_nodes(s), true);
		slub_debug_release(s);
		return -1;
	}
	slab_choose_paths(s);
	return 0;
}

/* On each cpu, from a cross-call (interrupts off): give back its cpu slab and partials. */
static void flush_cpu_slab(void *arg)
{
	struct kmem_cache *s = arg;
	struct kmem_cache_cpu *c = this_cpu_slab(s);

	if (unlikely(s->flags & SLAB_DEBUG_FLAGS))
		slub_debug_cpu_freelist(s, c); /* deactivate_slab walks it: no corrupt pointer */
	/* First the scheme's: a layer's objects may go back to the cpu slab. */
	if (s->scheme->flush_cpu)
		s->scheme->flush_cpu(s, c);
	if (c->slab) {
		stat(s, c, CPUSLAB_FLUSH);
		deactivate_slab(s, c, c->slab, cpu_freelist(c));
		cpu_slab_set(s, c, NULL);
		cpu_freelist_set(s, c, NULL); /* with a tid, the next: an interrupted cmpxchg retries */
		cpu_freelist_forget(s, c);
	}
	if (c->stash)
		stash_drain(s, c);
}

static void flush_all(struct kmem_cache *s)
{
	on_each_cpu(flush_cpu_slab, s, 1);
}

void slub_flush_all(struct kmem_cache *s)
{
	flush_all(s);
}

/* Free every empty slab on node n's list. */
static void free_empty_partials_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct slab *slab, *tmp, *discard = NULL;
	unsigned long flags;

	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry_safe(slab, tmp, &n->partial, slab_list) {
		struct slab now;
		void *fl;

		/* A free elsewhere may change the counters meanwhile, but never to or from 0
		 * without list_lock (__slab_free): one unlocked read decides. */
		slab_read_freelist(slab, &fl, &now.counters);
		if (!now.inuse) {
			remove_partial(n, slab);
			slab->next = discard;
			discard = slab;
		}
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	while (discard) {
		slab = discard;
		discard = slab->next;
		discard_slab(s, NULL, slab);
	}
}

/* Free every empty slab on the node lists. */
static void free_empty_partials(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int nid;

	for_each_kmem_cache_node(s, nid, n)
		free_empty_partials_node(s, n);
}

int kmem_cache_shrink(struct kmem_cache *s)
{
	flush_all(s);
	if (s->scheme->shrink)
		s->scheme->shrink(s);
	free_empty_partials(s);
	return 0;
}

/*
 * kmem_cache_destroy after the shrink: nonzero if objects are still allocated (2: reported
 * here as Linux's __kmem_cache_shutdown does, one slab error; 1: only objects the debug
 * checks set aside, quietly), and the cache is kept; else 0 and __kmem_cache_release may
 * free what SLUB holds.
 */
int __kmem_cache_shutdown(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	long slabs = 0;
	struct slab_cache_info info;
	int nid;

	for_each_kmem_cache_node(s, nid, n)
		slabs += __atomic_load_n(&n->nr_slabs, __ATOMIC_RELAXED);
	if (!slabs)
		return 0;
	if (s->flags & SLAB_DEBUG_FLAGS) /* Linux's report, objects listed */
		return slub_debug_destroy_leaks(s) ? 2 : 1;
	kmem_cache_info(s, &info);
	slab_error_counted();
	printk("BUG %s: Objects remaining on __kmem_cache_shutdown()\n", s->name);
	printk("kmem_cache_destroy %s: %lu objects still allocated in %ld slabs; "
	       "the cache is kept\n",
	       s->name, info.active_objects, slabs);
	return 2;
}

void __kmem_cache_release(struct kmem_cache *s)
{
	free_cpu_areas(s, nr_cpu_ids, kmem_cache_nr_nodes(s), true); /* the scheme's exit hooks: s->scheme may be in s->dbg */
	if (s->dbg)
		slub_debug_release(s);
}

/* ---- kmalloc: the small sizes (the rest is mm/slab_common.c's) ---- */

void *kmalloc(size_t size, gfp_t gfp)
{
	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (likely(size <= KMALLOC_MAX_CACHE_SIZE)) {
		struct kmem_cache *s = kmalloc_caches[kmalloc_index(size)];

		/* A layer (debug: the size for the tail red zone); the same test as in
		 * kmem_cache_alloc, which the compiler folds into this one. */
		if (unlikely(s->layer_alloc))
			return slub_kmalloc_layer(s, size, gfp, __builtin_return_address(0));
		return kmem_cache_alloc(s, gfp);
	}
	return kmalloc_large(size, gfp);
}

void kfree(const void *p)
{
	void *caller = __builtin_return_address(0);
	struct page *page;

	if (ZERO_OR_NULL_PTR(p))
		return;
	if (unlikely(!virt_addr_valid(p))) {
		slab_report_bad(NULL, p, caller, "kfree of a pointer kmalloc never returned:");
		return;
	}
	page = compound_head(virt_to_page(p));
	if (likely(page->flags & PG_slab)) {
		struct kmem_cache *s = ((struct slab *)page)->slab_cache;
		struct slab *slab = free_check(s, p, caller);

		if (!slab)
			return;
		if (unlikely(s->layer_free))
			s->layer_free(s, (void *)p, caller);
		else
			slab_free(s, slab, (void *)p, (void *)p, 1, caller);
		return;
	}
	if ((page->flags & PG_large_kmalloc) && p == page_address(page)) {
		unmark_compound(page, page->order, PG_large_kmalloc);
		__free_pages(page, page->order);
		return;
	}
	slab_report_bad(NULL, p, caller, "kfree of a pointer kmalloc never returned:");
}
