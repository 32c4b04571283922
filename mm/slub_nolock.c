// SPDX-License-Identifier: MIT
/*
 * kmalloc_nolock() and kfree_nolock(): Linux 6.18's calls that allocate and free from any
 * context, NMI included, and never wait for a lock (mm/slab.h has the contract;
 * docs/writing-a-scheme.md says what each scheme does instead of waiting).
 *
 * Which contexts need care. Every section of the allocator that changes per-cpu state, and
 * every lock it takes (list_lock, a barn's lock, the page allocator's zone and per-cpu list
 * locks, slub_debug's locks, slab_lock), runs with interrupts off or held back by the soft
 * mask (kernel/irqflags.h); only the cmpxchg fastpath runs with interrupts on, and it is
 * safe against anything that steps the tid of the freelist word. So an ordinary interrupt
 * handler may call kmalloc and kfree (mm/slub.c's opening comment), and so may any context
 * but one: an NMI, which also lands inside those sections. Outside NMI context the two calls
 * are kmalloc and kfree. In NMI context:
 *
 *   kmalloc_nolock  1. when the interrupted code had interrupts on and no soft mask
 *                      (nmi_interrupted_irqs_on: it could have taken an interrupt there, so
 *                      it is in none of those sections), one object off this cpu's freelist
 *                      of the bucket: the cpu freelist of the core's fastpaths, of an owner
 *                      scheme and the cpu slab's under sheaves alike, set with
 *                      cpu_freelist_set, which steps the tid (an interrupted cmpxchg
 *                      fastpath then retries); counted in freelist_known, not in the
 *                      fastpath's counters, which the interrupted code may be adding to;
 *                   2. else, or with that freelist empty: one object off the first slab on
 *                      the node's partial list, list_lock only tried (spin_trylock_nmi), as
 *                      Linux's alloc_single_from_partial; an empty list: a new slab whose
 *                      pages come from the page allocator by trylock (__GFP_NOLOCK), put on
 *                      the list. An owner scheme keeps no slab on a node list (every slab
 *                      is a cpu's): after step 1, where the interrupted code had
 *                      interrupts on, its nmi_refill (mm/slub.h) gives the cpu freelist
 *                      an owned slab or a new one (pages by trylock) and step 1 is done
 *                      again; nothing more. A SLAB_NO_CMPXCHG cache updates a
 *                      slab's freelist under a lock byte the interrupted code may hold: step
 *                      1 only too (Linux's kmalloc_nolock refuses such caches whole);
 *                   3. the bucket busy (a lock held, the cpu freelist unusable or empty):
 *                      once more in the next bucket up (Linux 7.0), then NULL.
 *                   Debug and hardened caches skip step 1 (their checks run outside the
 *                   fastpaths) and, after step 2, get debug_alloc's checks and marks, which
 *                   take no lock.
 *   kfree_nolock    the object goes onto this cpu's deferred list (lock-free: compare and
 *                   swap to push, exchange to take all), linked through its first word, and
 *                   an irq_work frees the list with kfree once the cpu takes interrupts
 *                   again (Linux's defer_free). So kfree takes kmalloc_nolock's objects and
 *                   kfree_nolock kmalloc's: they are one kind of object.
 *
 * Nothing here writes a counter the interrupted code may be writing: the calls count in
 * their own per-cpu words, each with one add to memory (kmalloc_nolock_stats).
 */
#include "kernel/arch.h"
#include "kernel/irq_work.h"
#include "kernel/kallsyms.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

struct nolock_cpu {
	void *deferred; /* objects kfree_nolock left to kfree, linked through their first word */
	u64 stat[NR_NOLOCK_STATS];
#ifndef ARCH_HOST
	struct irq_work work;
#endif
};

static void deferred_free_all(struct nolock_cpu *nc);

#ifndef ARCH_HOST
static void deferred_work_fn(struct irq_work *w)
{
	deferred_free_all(container_of(w, struct nolock_cpu, work));
}

static DEFINE_PER_CPU(struct nolock_cpu, nolock_cpu) = {
	.work = IRQ_WORK_INIT(deferred_work_fn),
};
#else
static DEFINE_PER_CPU(struct nolock_cpu, nolock_cpu);
#endif

const char *const kmalloc_nolock_stat_names[NR_NOLOCK_STATS] = {
	"alloc", "alloc_outside_nmi", "alloc_cpu_freelist", "alloc_partial", "alloc_new_slab",
	"retry_next_bucket", "fail_list_lock", "fail_page_alloc", "fail_cpu_state",
	"fail_no_cmpxchg", "fail_damaged", "fail_bad_call", "free", "free_outside_nmi",
	"free_deferred", "free_deferred_done",
};

/*
 * One add to memory without a lock prefix (both builds are x86-64): an interrupt or an NMI
 * on this cpu lands before it or after it, never inside, and no other cpu writes the word.
 */
static inline void nolock_stat(enum kmalloc_nolock_stat i)
{
	__asm__ __volatile__("addq $1, %0" : "+m"(this_cpu_ptr(&nolock_cpu)->stat[i]));
}

/* The totals (NOLOCK_ALLOC, NOLOCK_FREE) are sums of the ways, not counted on the way. */
void kmalloc_nolock_stats(u64 out[NR_NOLOCK_STATS])
{
	memset(out, 0, sizeof(u64) * NR_NOLOCK_STATS);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		for (int i = 0; i < NR_NOLOCK_STATS; i++)
			out[i] += __atomic_load_n(&per_cpu_ptr(&nolock_cpu, cpu)->stat[i],
						  __ATOMIC_RELAXED);
	out[NOLOCK_ALLOC] = out[NOLOCK_ALLOC_OUTSIDE_NMI] + out[NOLOCK_ALLOC_CPU] +
			    out[NOLOCK_ALLOC_PARTIAL] + out[NOLOCK_ALLOC_NEW_SLAB];
	out[NOLOCK_FREE] += out[NOLOCK_FREE_OUTSIDE_NMI];
}

/* ---- allocation in NMI context ---- */

/* Step 1: one object off this cpu's freelist of s, or NULL (NMI context, nothing in it). */
static void *cpu_freelist_take(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	void *object = cpu_freelist(c);

	if (!object)
		return NULL;
	/* Nothing interrupts an NMI: the load and the store are one step for this cpu. */
	cpu_freelist_set(s, c, get_freepointer_fast(s, object, false));
	c->freelist_known--; /* one taken, not counted (mm/slub.h's cpu_freelist_known) */
	return object;
}

/* Step 2: one object off node nid's first partial slab of s, or a new slab's. */
static void *node_partial_take(struct kmem_cache *s, int nid, enum kmalloc_nolock_stat *why)
{
	struct kmem_cache_node *n = get_node_nid(s, nid);
	unsigned long counters;
	void *object, *next;
	struct slab *slab, new;
	bool fresh = false;

	if (!spin_trylock_nmi(&n->list_lock)) {
		*why = NOLOCK_FAIL_LIST_LOCK;
		return NULL;
	}
	if (list_empty(&n->partial)) {
		/* The page allocator's locks nest inside list_lock (mm/slub.c), and are tried. */
		slab = allocate_slab(s, GFP_NOWAIT | __GFP_NOWARN | __GFP_NOLOCK);
		if (!slab) {
			spin_unlock(&n->list_lock);
			*why = NOLOCK_FAIL_PAGE_ALLOC;
			return NULL;
		}
		slab->owner = smp_processor_id();
		add_partial(n, slab, false);
		fresh = true;
	}
	slab = list_first_entry(&n->partial, struct slab, slab_list);
	/* On the list, so unfrozen with free objects: only list_lock's holder takes one, and
	 * other cpus may only push frees meanwhile (the update then fails and is redone). */
	do {
		slab_read_freelist(slab, &object, &counters);
		if (unlikely(!object || (s->dbg && !slub_debug_valid_obj(s, slab, object)))) {
			spin_unlock(&n->list_lock);
			*why = NOLOCK_FAIL_DAMAGED;
			return NULL;
		}
		next = get_freepointer(s, object);
		new.counters = counters;
		new.inuse++;
	} while (!slab_update_freelist(s, slab, object, counters, next, new.counters));
	if (!next)
		remove_partial(n, slab); /* full: on no list until a free */
	spin_unlock(&n->list_lock);
	nolock_stat(fresh ? NOLOCK_ALLOC_NEW_SLAB : NOLOCK_ALLOC_PARTIAL);
	return object;
}

static void *alloc_in_nmi(struct kmem_cache *s, size_t size, gfp_t gfp, int node, void *caller,
			  enum kmalloc_nolock_stat *why)
{
	void *object = NULL;
	int nid = node >= 0 && node < nr_node_ids ? node : numa_node_id();

	if (!s->dbg && nmi_interrupted_irqs_on()) {
		bool new_slab;

		object = cpu_freelist_take(s);
		if (object) {
			nolock_stat(NOLOCK_ALLOC_CPU);
			goto got;
		}
		if (s->scheme->nmi_refill) {
			if (!s->scheme->nmi_refill(s, this_cpu_slab(s),
						   GFP_NOWAIT | __GFP_NOWARN | __GFP_NOLOCK, &new_slab)) {
				*why = NOLOCK_FAIL_PAGE_ALLOC;
				return NULL;
			}
			object = cpu_freelist_take(s);
			if (object) {
				nolock_stat(new_slab ? NOLOCK_ALLOC_NEW_SLAB : NOLOCK_ALLOC_PARTIAL);
				goto got;
			}
		}
	}
	if (s->scheme->flags & SLAB_SCHEME_OWNER) { /* a copy's too: debug, hardened */
		*why = NOLOCK_FAIL_CPU_STATE;
		return NULL;
	}
	if (s->flags & SLAB_NO_CMPXCHG) {
		*why = NOLOCK_FAIL_NO_CMPXCHG;
		return NULL;
	}
	object = node_partial_take(s, nid, why);
	if (!object)
		return NULL;
got:
	if (s->dbg) {
		object = slub_debug_nolock_alloc(s, object, size, gfp, caller);
		if (!object)
			*why = NOLOCK_FAIL_DAMAGED;
	} else if (gfp & __GFP_ZERO) {
		memset(object, 0, s->object_size);
	}
	return object;
}

#define NOLOCK_GFP (__GFP_ZERO | __GFP_NOWARN)

/* A gfp flag not allowed, size 0 (ZERO_SIZE_PTR), or a size over 8 KiB: out of line. */
static __noinline void *nolock_odd_call(size_t size, gfp_t gfp, void *caller)
{
	if (unlikely(gfp & ~NOLOCK_GFP)) {
		u64 off;
		const char *fn = kallsyms_lookup((u64)(uptr)caller, &off);

		printk("kmalloc_nolock: gfp %#x from %s+%#llx: only __GFP_ZERO and __GFP_NOWARN "
		       "are allowed; NULL\n", gfp, fn ? fn : "?", (unsigned long long)off);
	} else if (!size) {
		return ZERO_SIZE_PTR;
	}
	/* else over KMALLOC_MAX_CACHE_SIZE: as Linux's, no large kmalloc without a lock */
	nolock_stat(NOLOCK_FAIL_BAD_CALL);
	return NULL;
}

/* In NMI context: the bucket, then once the next one up where the first was busy. */
static __noinline void *kmalloc_nolock_nmi(size_t size, gfp_t gfp, int node, void *caller)
{
	enum kmalloc_nolock_stat why = NOLOCK_FAIL_BAD_CALL;
	struct kmem_cache *s = kmalloc_caches[kmalloc_index(size)];
	void *object = alloc_in_nmi(s, size, gfp, node, caller, &why);

	if (object)
		return object;
	if (why != NOLOCK_FAIL_DAMAGED && s->object_size < KMALLOC_MAX_CACHE_SIZE) {
		/* Busy here: once in the next bucket up (Linux 7.0), its size and red zone still
		 * the caller's. */
		nolock_stat(NOLOCK_RETRY);
		size = MAX(size, (size_t)s->object_size + 1);
		s = kmalloc_caches[kmalloc_index(size)];
		object = alloc_in_nmi(s, size, gfp, node, caller, &why);
		if (object)
			return object;
	}
	nolock_stat(why);
	return NULL;
}

void *kmalloc_nolock(size_t size, gfp_t gfp, int node)
{
	void *caller = __builtin_return_address(0);
	struct kmem_cache *s;
	void *object;

	if (unlikely((gfp & ~NOLOCK_GFP) || size - 1 >= KMALLOC_MAX_CACHE_SIZE))
		return nolock_odd_call(size, gfp, caller);
	if (unlikely(in_nmi()))
		return kmalloc_nolock_nmi(size, gfp, node, caller);
	/* Any other context may take the ordinary paths (the opening comment). */
	s = kmalloc_caches[kmalloc_index(size)];
	object = unlikely(s->layer_alloc) ? slub_kmalloc_layer(s, size, gfp, caller)
					  : kmem_cache_alloc(s, gfp);
	nolock_stat(likely(object) ? NOLOCK_ALLOC_OUTSIDE_NMI : NOLOCK_FAIL_PAGE_ALLOC);
	return object;
}

struct kmem_cache *kmalloc_cache(size_t size)
{
	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
	return kmalloc_caches[kmalloc_index(size)];
}

/* ---- free ---- */

/* Free every object on nc's deferred list (this cpu's irq_work, or kfree_nolock_flush). */
static void deferred_free_all(struct nolock_cpu *nc)
{
	void *p = __atomic_exchange_n(&nc->deferred, NULL, __ATOMIC_ACQUIRE);

	while (p) {
		void *next = *(void **)p;

		kfree(p);
		nolock_stat(NOLOCK_FREE_DEFERRED_DONE);
		p = next;
	}
}

/* In NMI context: onto this cpu's deferred list, for its irq_work. */
static __noinline void kfree_nolock_nmi(const void *p, void *caller)
{
	struct nolock_cpu *nc = this_cpu_ptr(&nolock_cpu);
	void *head;

	nolock_stat(NOLOCK_FREE);
	/* kmalloc_nolock never returns a large kmalloc: a slab object or bad input. */
	if (unlikely(!virt_to_slab(p))) {
		slab_report_bad(NULL, p, caller, "kfree_nolock of a pointer kmalloc never returned:");
		return;
	}
	head = __atomic_load_n(&nc->deferred, __ATOMIC_RELAXED);
	do {
		*(void **)p = head;
	} while (!__atomic_compare_exchange_n(&nc->deferred, &head, (void *)p, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	nolock_stat(NOLOCK_FREE_DEFERRED);
#ifndef ARCH_HOST
	irq_work_queue(&nc->work);
#endif
}

void kfree_nolock(const void *p)
{
	if (ZERO_OR_NULL_PTR(p))
		return;
	if (unlikely(in_nmi())) {
		kfree_nolock_nmi(p, __builtin_return_address(0));
		return;
	}
	nolock_stat(NOLOCK_FREE_OUTSIDE_NMI);
	kfree(p);
}

void kfree_nolock_flush(void)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		deferred_free_all(per_cpu_ptr(&nolock_cpu, cpu));
}

unsigned long kfree_nolock_pending(void)
{
	unsigned long n = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const u64 *st = per_cpu_ptr(&nolock_cpu, cpu)->stat;

		n += __atomic_load_n(&st[NOLOCK_FREE_DEFERRED], __ATOMIC_RELAXED);
		n -= __atomic_load_n(&st[NOLOCK_FREE_DEFERRED_DONE], __ATOMIC_RELAXED);
	}
	return n;
}
