// SPDX-License-Identifier: MIT
/*
 * Freeing after an RCU grace period (kernel/rcu.h): kfree_rcu, kfree_rcu_mightsleep and
 * kvfree_rcu_barrier (mm/slab.h), and the slabs of SLAB_TYPESAFE_BY_RCU caches, whose pages
 * reach the page allocator only a grace period after the slab was freed. docs/rcu.md has
 * the design and the guarantees.
 *
 * kfree_rcu(p, field), per object:
 *   1. p is checked as kfree checks it (the start of an object of a slab, or a large
 *      kmalloc; a bad pointer is reported and left alone) and counted in its cache
 *      (KFREE_RCU; the objects waiting are KFREE_RCU less KFREE_RCU_FREED);
 *   2. a scheme with a batch of its own takes an object of this cpu's node if it can
 *      (struct slab_scheme's free_rcu: the sheaves' rcu_free sheaf, as Linux 6.18);
 *   3. else its pointer goes into this cpu's open batch, a page of pointers (Linux's
 *      kvfree_rcu_bulk_data). A full batch goes to call_rcu at once, a partial one at this
 *      cpu's next quiescent state (rcu_set_quiescent_hook: between test cases and benchmark
 *      steps, each time round the idle loop), where Linux's monitor drains on a timer. After
 *      the grace period its callback, on the cpu that queued it, frees every pointer (a run
 *      of one cache's objects with one kmem_cache_free_bulk), then the page;
 *   4. no page to be had for a batch: call_rcu on the object's own rcu_head, whose
 *      callback finds the object's start from the head's address; kfree_rcu_mightsleep,
 *      which has no rcu_head, waits for a grace period itself (synchronize_rcu) and frees.
 *
 * SLAB_TYPESAFE_BY_RCU: slab_pages_free (mm/slub.h) hands a slab of such a cache here once
 * it is no slab any more (slab_unset: not on a list, PG_slab and its cache cleared): the
 * slab's list link becomes its rcu_head and its freelist word the cache, and the pages go
 * to the page allocator in the callback. Until then they are the cache's pages (pages_held,
 * and rcu_pages for those waiting), and nothing writes them: a reader still inside
 * rcu_read_lock with a pointer into them reads the objects as they were freed.
 */
#include "kernel/irqflags.h"
#include "kernel/kallsyms.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub.h"

/* A batch: one page, the rcu_head that takes it through call_rcu, and pointers. */
struct kfree_rcu_batch {
	struct rcu_head rcu;
	unsigned long nr;
	void *ptrs[];
};
#define KFREE_RCU_BATCH ((PAGE_SIZE - sizeof(struct kfree_rcu_batch)) / sizeof(void *))

/*
 * Per cpu, touched by its cpu only, interrupts off: an array by cpu number, a cache line
 * each, allocated at slab_init (the CPUs are up), not a per-cpu variable (mm/ keeps none).
 */
struct kfree_rcu_cpu {
	struct kfree_rcu_batch *open;  /* being filled, or NULL */
	u64 batches;                   /* batches handed to call_rcu */
	u64 by_head;                   /* objects that went through their own rcu_head */
	u64 synchronous;               /* kfree_rcu_mightsleep's that waited themselves */
} __aligned(64);
static struct kfree_rcu_cpu *kfree_rcu_cpus;

static struct kfree_rcu_cpu *this_krc(void)
{
	return &kfree_rcu_cpus[smp_processor_id()];
}

/* Large kmallocs given to kfree_rcu and not yet freed (they have no cache to count in). */
static long large_waiting;

/* ---- freeing, after the grace period ---- */

/* The object p of a batch, or found from its rcu_head, is freed: count it. */
static void count_freed(struct kmem_cache *s, unsigned long n)
{
	unsigned long flags;

	if (!s) {
		__atomic_fetch_sub(&large_waiting, (long)n, __ATOMIC_RELAXED);
		return;
	}
	local_irq_save(flags);
	slab_rcu_freed(s, this_cpu_slab(s), n);
	local_irq_restore(flags);
}

/* The cache of a pointer kvfree_call_rcu accepted (NULL: a large kmalloc). */
static struct kmem_cache *cache_of(const void *p)
{
	struct page *page = compound_head(virt_to_page(p));

	return (page->flags & PG_slab) ? ((struct slab *)page)->slab_cache : NULL;
}

/* Free n pointers kvfree_call_rcu accepted, runs of one cache in one bulk free. */
static void free_pointers(void **p, unsigned long n)
{
	unsigned long i = 0, j;

	while (i < n) {
		struct kmem_cache *s = cache_of(p[i]);

		if (!s) {
			kfree(p[i++]);
			count_freed(NULL, 1);
			continue;
		}
		for (j = i + 1; j < n && cache_of(p[j]) == s; j++)
			;
		kmem_cache_free_bulk(s, j - i, &p[i]);
		count_freed(s, j - i);
		i = j;
	}
}

/* The page goes back too: kfree_rcu holds no memory while nothing waits (the page
 * allocator's per-cpu lists make the next batch's page cheap). */
static void batch_done(struct rcu_head *head)
{
	struct kfree_rcu_batch *b = container_of(head, struct kfree_rcu_batch, rcu);

	free_pointers(b->ptrs, b->nr);
	free_pages((unsigned long)b, 0);
}

/* The start of the object whose rcu_head is head (it lies inside the object). */
static void *object_of_head(struct rcu_head *head)
{
	struct page *page = compound_head(virt_to_page(head));
	struct slab *slab = (struct slab *)page;
	struct kmem_cache *s;
	char *base = page_address(page);
	unsigned long idx;

	if (!(page->flags & PG_slab))
		return base; /* a large kmalloc */
	s = slab->slab_cache;
	idx = (unsigned long)((char *)head - base - s->red_left_pad) / s->size;
	return base + idx * s->size + s->red_left_pad;
}

static void free_by_head(struct rcu_head *head)
{
	void *p = object_of_head(head);

	free_pointers(&p, 1);
}

/* ---- kfree_rcu ---- */

/* This cpu's open batch to call_rcu (interrupts off). */
static void batch_submit(struct kfree_rcu_cpu *k)
{
	struct kfree_rcu_batch *b = k->open;

	k->open = NULL;
	k->batches++;
	call_rcu(&b->rcu, batch_done);
}

/* Put p into this cpu's batch (interrupts off); false: no page for one. */
static bool batch_add(void *p)
{
	struct kfree_rcu_cpu *k = this_krc();
	struct kfree_rcu_batch *b = k->open;

	if (!b) {
		struct page *page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN, 0);

		if (!page)
			return false;
		b = page_address(page);
		b->nr = 0;
		k->open = b;
	}
	b->ptrs[b->nr++] = p;
	if (b->nr == KFREE_RCU_BATCH)
		batch_submit(k);
	return true;
}

/*
 * p as kfree would take it, with head inside it: *sp its cache (NULL for a large kmalloc).
 * false: reported, left alone. A debug cache's objects start red_left_pad into their slot.
 */
static bool rcu_object_ok(void *p, struct rcu_head *head, void *caller, struct kmem_cache **sp)
{
	struct page *page;
	size_t size;

	if (!virt_addr_valid(p))
		goto bad;
	page = compound_head(virt_to_page(p));
	if (page->flags & PG_slab) {
		struct slab *slab = (struct slab *)page;
		struct kmem_cache *s = slab->slab_cache;

		if (!object_start(s, slab, (char *)p - s->red_left_pad)) {
			slab_report_bad(s, p, caller, "kfree_rcu of a pointer inside an object:");
			return false;
		}
		*sp = s;
		size = s->object_size;
	} else if ((page->flags & PG_large_kmalloc) && p == page_address(page)) {
		*sp = NULL;
		size = PAGE_SIZE << page->order;
	} else {
		goto bad;
	}
	if (head && ((char *)head < (char *)p || (char *)(head + 1) > (char *)p + size)) {
		slab_report_bad(*sp, p, caller, "kfree_rcu with its rcu_head outside the object:");
		return false;
	}
	return true;
bad:
	slab_report_bad(NULL, p, caller, "kfree_rcu of a pointer kmalloc never returned:");
	return false;
}

void kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	void *caller = __builtin_return_address(0);
	struct kmem_cache *s;
	unsigned long flags;
	bool queued;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	if (unlikely(in_nmi())) {
		slab_report_bad(NULL, ptr, caller,
				"kfree_rcu from an NMI (call_rcu is not NMI-safe) of");
		return;
	}
	if (!rcu_object_ok(ptr, head, caller, &s))
		return;
	local_irq_save(flags);
	if (s) {
		struct kmem_cache_cpu *c = this_cpu_slab(s);

		stat(s, c, KFREE_RCU);
		if (s->scheme->free_rcu && slab_nid(obj_to_slab(ptr)) == numa_node_id() &&
		    s->scheme->free_rcu(s, c, ptr)) {
			local_irq_restore(flags);
			return;
		}
	} else {
		__atomic_fetch_add(&large_waiting, 1, __ATOMIC_RELAXED);
	}
	queued = batch_add(ptr);
	if (!queued && head) {
		this_krc()->by_head++;
		call_rcu(head, free_by_head);
		queued = true;
	}
	if (!queued)
		this_krc()->synchronous++;
	local_irq_restore(flags);
	if (!queued) { /* kfree_rcu_mightsleep, short of memory: wait here */
		synchronize_rcu();
		free_pointers(&ptr, 1);
	}
}

/* At this cpu's quiescent states (rcu_set_quiescent_hook): its partial batch goes. */
static void kfree_rcu_quiescent(void)
{
	struct kfree_rcu_cpu *k;
	unsigned long flags;

	local_irq_save(flags);
	k = this_krc();
	if (k->open)
		batch_submit(k);
	local_irq_restore(flags);
}

/* On each cpu (a cross-call): its batch, and its batch of s's scheme if s, to call_rcu. */
static void flush_cpu(void *arg)
{
	struct kmem_cache *s = arg;
	struct kfree_rcu_cpu *k = this_krc();

	if (k->open)
		batch_submit(k);
	if (s && s->scheme->flush_rcu)
		s->scheme->flush_rcu(s, this_cpu_slab(s));
}

static void flush_cache(struct kmem_cache *s, void *unused)
{
	if (s->scheme->flush_rcu)
		on_each_cpu(flush_cpu, s, 1);
}

void kvfree_rcu_barrier_on_cache(struct kmem_cache *s)
{
	on_each_cpu(flush_cpu, s, 1);
	rcu_barrier();
}

void kvfree_rcu_barrier(void)
{
	on_each_cpu(flush_cpu, NULL, 1);
	slab_for_each_cache(flush_cache, NULL);
	rcu_barrier();
}

unsigned long kmem_cache_rcu_waiting(struct kmem_cache *s)
{
	u64 in = kmem_cache_stat(s, KFREE_RCU), out = kmem_cache_stat(s, KFREE_RCU_FREED);

	return in > out ? (unsigned long)(in - out) : 0;
}

unsigned long kfree_rcu_large_waiting(void)
{
	return (unsigned long)MAX(0L, __atomic_load_n(&large_waiting, __ATOMIC_RELAXED));
}

void kfree_rcu_stats_get(int cpu, struct kfree_rcu_stats *out)
{
	const struct kfree_rcu_cpu *k = &kfree_rcu_cpus[cpu];

	out->batches = READ_ONCE(k->batches);
	out->by_head = READ_ONCE(k->by_head);
	out->synchronous = READ_ONCE(k->synchronous);
}

/* ---- SLAB_TYPESAFE_BY_RCU ---- */

static void slab_rcu_done(struct rcu_head *head)
{
	struct slab *slab = container_of((struct list_head *)head, struct slab, slab_list);
	struct kmem_cache *s = slab->freelist;

	__atomic_fetch_sub(&s->rcu_pages, 1L << s->order, __ATOMIC_RELAXED);
	__slab_pages_free(s, slab);
}

void slab_pages_free_rcu(struct kmem_cache *s, struct slab *slab)
{
	_Static_assert(sizeof(struct rcu_head) <= sizeof(slab->slab_list),
		       "a freed slab's list link is its rcu_head");
	slab->freelist = s; /* for the callback: slab_cache is cleared (slab_unset) */
	__atomic_fetch_add(&s->rcu_pages, 1L << s->order, __ATOMIC_RELAXED);
	call_rcu((struct rcu_head *)(void *)&slab->slab_list, slab_rcu_done);
}

void kfree_rcu_init(void)
{
	size_t bytes = (size_t)nr_cpu_ids * sizeof(struct kfree_rcu_cpu);
	unsigned int order = 0;
	struct page *page;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!page)
		panic("slab: no memory for kfree_rcu's %d per-cpu batches", nr_cpu_ids);
	kfree_rcu_cpus = page_address(page);
	rcu_set_quiescent_hook(kfree_rcu_quiescent);
}
