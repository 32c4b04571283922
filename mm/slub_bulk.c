// SPDX-License-Identifier: MIT
/*
 * The bulk calls, kmem_cache_alloc_bulk and kmem_cache_free_bulk (Brouer 2015: one call for
 * n objects, so the per-object cost is the loop's, not a call's), and their stash of bare
 * slabs; mm/slub.c is the rest of SLUB, and its opening comment the design these follow
 * (the cpu freelist, the cpu slab, frozen slabs, the node lists, interrupts).
 *
 * Which path a cache takes is chosen once, at creation (slab_choose_bulk_paths, at the
 * end): a cache of the core's fastpaths, without debugging, of a power-of-two size and with
 * its free pointer at offset 0 (s->bulk_core) takes the fast parts below, written for that
 * case (the free pointer read and written as the object's first word, an object's slab
 * found by masking, no constructor in the way); a scheme with its own bulk calls (a layer:
 * sheaves, the owner schemes) takes those; any other cache the general paths, which check
 * and walk one object at a time.
 *
 *   alloc, fast part   the cpu freelist into p[] four a turn, interrupts masked (the irq
 *                      fastpath's, when the freelist is known to hold n objects: no NULL
 *                      test) or off (the tested walk); an empty freelist hands the rest to
 *                      the slow part in a jump
 *   alloc, slow part   a slab's worth or more still wanted: whole slabs into p[] (off the
 *                      stash, or new from the page allocator) with no freelist threaded
 *                      through them; less: one object at a time through the allocation
 *                      slow path, refilling the cpu freelist
 *   free, fast part    p[] from its end down, each object in this cpu's slab linked onto
 *                      the cpu freelist (two compares each), one store of the new head at
 *                      the end; the first that is not goes to the checked part in a jump
 *   free, checked part a whole slab at the end of p[] (every object of one slab) goes back
 *                      in one step, onto the stash or the node list; the rest in runs of
 *                      one slab each (a detached freelist), checked, to the cpu freelist or
 *                      to __slab_free
 *
 * The specialisations (the irq and cmpxchg fastpaths, plain or tid freelist words, with or
 * without whole slabs, for schemes with or without cpu partial lists) are one body each,
 * an always-inline function with constant arguments, and out-of-line copies of it that
 * fix them: the branches on those arguments fold away, so each copy runs the instructions of
 * its case only (docs/BENCHMARKS.md has the counts).
 *
 * The layers' helpers are here too (slab_free_for_layer and slab_free_object_for_layer):
 * objects back to their slabs from a layer in front of the cpu slab.
 */
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub.h"

/* ---- the stash ---- */

/*
 * The stash: bare slabs between a bulk free and the next bulk allocation. A whole slab that
 * a bulk free empties (free_bulk_whole) goes onto this cpu's stash while it has room
 * (s->stash_max slabs, SLAB_STASH_PAGES pages at most) and the slab is of this cpu's node;
 * the next bulk allocation that hands out a new slab whole (alloc_bulk_refill) takes one
 * from there before it asks the page allocator. A stashed slab has left the cache as a
 * discarded one has (FREE_SLAB counted, nr_slabs and total_objects down, PG_slab cleared: a
 * later free of one of its objects is refused as not a slab object's), but its pages are
 * not free ones: they are in use (nr_used_pages, the memory and held benchmarks count
 * them). Taken again it is set up as a new slab (ALLOC_SLAB counted, the constructor run)
 * without the page allocator's two trips. The stash goes back to the page allocator on
 * kmem_cache_shrink and destroy (flush_cpu_slab, on each cpu) and when the page allocator
 * runs out (slub_drain_stashes, every cpu's, through mm/slab_common.c's reclaim hook). Its
 * cpu uses it with interrupts off and stash_lock taken by one xchg (a trylock: if a drainer
 * holds it, the slab goes to the page allocator, or comes from it, as without a stash); a
 * drainer on any cpu spins for the lock, which is never held across anything else.
 */
static inline bool stash_trylock(struct kmem_cache_cpu *c)
{
	return !__atomic_exchange_n(&c->stash_lock, 1, __ATOMIC_ACQUIRE);
}

static inline void stash_unlock(struct kmem_cache_cpu *c)
{
	__atomic_store_n(&c->stash_lock, 0, __ATOMIC_RELEASE);
}

/* An emptied slab on no list, its counters claimed, onto c's stash; false: lock held. */
static __always_inline bool stash_put(struct kmem_cache *s, struct kmem_cache_cpu *c,
				      struct slab *slab)
{
	if (unlikely(!stash_trylock(c)))
		return false;
	slab_unset(s, slab);
	slab->next = c->stash;
	c->stash = slab;
	__atomic_store_n(&c->stash_nr, c->stash_nr + 1, __ATOMIC_RELAXED);
	stash_unlock(c);
	stat(s, c, FREE_SLAB);
	return true;
}

/* A slab off c's stash, set up as a new one (slab->freelist and counters for the caller). */
static __always_inline struct slab *stash_take(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab;

	if (!c->stash || unlikely(!stash_trylock(c)))
		return NULL;
	slab = c->stash; /* again, under the lock: a drainer may have taken it */
	if (likely(slab)) {
		c->stash = slab->next;
		__atomic_store_n(&c->stash_nr, c->stash_nr - 1, __ATOMIC_RELAXED);
	}
	stash_unlock(c);
	if (likely(slab))
		slab_setup_bare(s, slab);
	return slab;
}

/* c's stash (any cpu's) to the page allocator; returns the pages it held. */
unsigned long stash_drain(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *list, *slab;
	unsigned long flags, pages = 0;

	local_irq_save(flags);
	while (!stash_trylock(c))
		while (__atomic_load_n(&c->stash_lock, __ATOMIC_RELAXED))
			cpu_relax();
	list = c->stash;
	c->stash = NULL;
	__atomic_store_n(&c->stash_nr, 0, __ATOMIC_RELAXED);
	stash_unlock(c);
	local_irq_restore(flags);
	while (list) {
		slab = list;
		list = slab->next;
		slab_pages_free(s, slab);
		pages += 1ul << s->order;
	}
	return pages;
}

unsigned long slub_stashed_pages(struct kmem_cache *s)
{
	unsigned long slabs = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		slabs += __atomic_load_n(&s->cpu_slab[cpu].stash_nr, __ATOMIC_RELAXED);
	return slabs << s->order;
}

unsigned long slub_drain_stashes(struct kmem_cache *s)
{
	unsigned long pages = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (__atomic_load_n(&s->cpu_slab[cpu].stash_nr, __ATOMIC_RELAXED))
			pages += stash_drain(s, &s->cpu_slab[cpu]);
	return pages;
}

/* ---- allocation ---- */

/*
 * The slow path of a bulk allocation that wants a slab's worth or more, interrupts off: a
 * slab off this cpu's stash first (an empty one, as good as new, that a bulk free left
 * there: no list, no lock, no page allocator; so the stash goes before the partial slabs
 * here, and a bulk call that frees and allocates whole slabs in turn keeps to it), then as
 * __slab_alloc_slow up to the page allocator (the cpu slab's remote frees, then a partial
 * slab, which become the cpu freelist: returns 0 and its first object in *first); a slab
 * from the stash or a new one goes into p[] whole, no freelist threaded through it, and is
 * left full, unfrozen and on no list (as a cpu slab that filled up), and while more than a
 * slab's worth of the `want` objects p[] has room for is still wanted, the stash's next
 * slabs the same way: returns how many objects that put in p[] (0 and *first NULL: out of
 * memory).
 */
static __noinline size_t alloc_bulk_refill(struct kmem_cache *s, struct kmem_cache_cpu *c,
					   gfp_t gfp, void **p, size_t want, void **first)
{
	/* Read once: the stores to p[] might alias them for the compiler. */
	unsigned int n = s->objects, size = s->size;
	void (*ctor)(void *) = s->ctor;
	struct slab *slab;
	void *freelist;
	size_t got = 0;

	stat(s, c, ALLOC_SLOWPATH);
	slab = stash_take(s, c);
	if (slab)
		goto whole;
	freelist = refill_from_slabs(s, c);
	if (freelist)
		goto load;
	slab = allocate_slab_bare(s, gfp);
	if (!slab) {
		slab_oom(s, gfp);
		*first = NULL;
		return 0;
	}
whole:
	for (;;) {
		char *object = slab_address(slab);
		void **q = p + got, **end4 = q + (n & ~3u), **end = q + n;

		stat(s, c, ALLOC_SLAB);
		slab->freelist = NULL;
		slab->inuse = n;
		slab->owner = smp_processor_id();
		if (unlikely(ctor))
			for (unsigned int k = 0; k < n; k++)
				ctor(object + (size_t)k * size);
		/* Four a turn: each a store of object plus a multiple of size. */
		for (; q < end4; q += 4, object += 4 * (size_t)size) {
			q[0] = object;
			q[1] = object + size;
			q[2] = object + 2 * (size_t)size;
			q[3] = object + 3 * (size_t)size;
		}
		for (; q < end; q++, object += size)
			*q = object;
		got += n;
		/* More than a slab's worth still wanted, and a slab on the stash: that one too,
		 * counted as a slow path of its own (the caller counted one for the call). */
		if (want - got <= n || !(slab = stash_take(s, c)))
			return got;
		stat(s, c, ALLOC_SLOWPATH);
		c->stat[ALLOC_FASTPATH]--; /* the caller adds one for each object not slow */
	}
load:
	cpu_freelist_set(s, c, get_freepointer_fast(s, freelist, false));
	*first = freelist;
	return 0;
}

/*
 * The last, less than a slab's worth, of a bulk allocation (interrupts off, the cpu freelist
 * empty): as slab_alloc_slow, but with a slab on this cpu's stash, that one becomes the cpu
 * slab (its freelist linked in address order), before the partial slabs, as for the whole
 * slabs of the call (alloc_bulk_refill), so a bulk free's slabs and the next bulk
 * allocation's keep to the stash. The cpu slab's remote frees are taken first, as always.
 * Returns the first object, the rest on the cpu freelist; NULL: out of memory.
 */
static __noinline void *alloc_bulk_last(struct kmem_cache *s, struct kmem_cache_cpu *c,
					gfp_t gfp)
{
	struct slab *slab = c->slab;
	unsigned long size = s->size, off = s->offset;
	char *start, *o, *last;
	void *freelist;

	if (!c->stash || s->ctor)
		return slab_alloc_slow(s, c, gfp);
	stat(s, c, ALLOC_SLOWPATH);
	if (slab) {
		freelist = get_freelist(s, slab);
		if (freelist) {
			stat(s, c, ALLOC_REFILL);
			cpu_freelist_set(s, c, get_freepointer_fast(s, freelist, false));
			return freelist;
		}
		cpu_slab_set(s, c, NULL); /* full, unfrozen, on no list */
		cpu_tid_step(s, c);
		stat(s, c, DEACTIVATE_BYPASS);
	}
	slab = stash_take(s, c);
	if (unlikely(!slab)) /* a drainer took it: the partial slabs, then a new one */
		return slab_alloc_slow(s, c, gfp);
	stat(s, c, ALLOC_SLAB);
	start = slab_address(slab);
	last = start + (size_t)(s->objects - 1) * size;
	for (o = start + size; o < last; o += size)
		*(void **)(o + off) = o + size; /* set_freepointer_fast, not hardened */
	if (last != start)
		*(void **)(last + off) = NULL;
	slab->freelist = NULL;
	slab->inuse = slab->objects;
	slab->frozen = 1;
	slab->owner = smp_processor_id();
	cpu_slab_set(s, c, slab);
	cpu_freelist_set(s, c, last != start ? start + size : NULL);
	return start;
}

/*
 * What kmem_cache_alloc_bulk's fast part leaves: p[0..i) came off the cpu freelist, which is
 * now empty; interrupts off since its start (flags). The rest one object at a time through
 * the slow path (each refill of the cpu slab hands the loop a freelist again). Two copies,
 * a plain cpu freelist's and a freelist word's (tid: s->cpu_tid), so neither tests which.
 */
static __always_inline int __alloc_bulk_slow(struct kmem_cache *s, gfp_t gfp, size_t size,
					      void **p, size_t i, unsigned long flags, bool tid)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	unsigned long off = s->offset;
	size_t slow = 0;
	void *object = NULL, *first;

	for (;;) {
		/* object heads the cpu freelist (c->freelist is behind): walk it, two a turn. */
		for (; i + 1 < size; i += 2) {
			if (unlikely(!object))
				goto empty;
			p[i] = object;
			object = *(void **)((char *)object + off); /* get_freepointer_fast */
			if (unlikely(!object)) {
				i++;
				goto empty;
			}
			p[i + 1] = object;
			object = *(void **)((char *)object + off);
		}
		if (i < size && object) {
			p[i++] = object;
			object = *(void **)((char *)object + off);
		}
		if (i == size)
			break;
empty:
		cpu_freelist_put(c, NULL, tid);
		slow++; /* one slow path for each refill, or for a slab's worth */
		if (size - i > s->objects && likely(!s->dbg)) {
			size_t got = alloc_bulk_refill(s, c, gfp, p + i, size - i, &first);

			if (got) {
				i += got;
				object = NULL; /* the next one is slow too */
				continue;
			}
		} else {
			first = alloc_bulk_last(s, c, gfp);
		}
		if (unlikely(!first)) {
			slow--;
			goto error;
		}
		p[i++] = first;
		object = cpu_freelist_of(c, tid);
	}
	cpu_freelist_put(c, object, tid);
	c->stat[ALLOC_FASTPATH] += size - slow; /* more than it took off the cpu freelist */
	local_irq_restore(flags);
	return (int)size;
error:
	c->stat[ALLOC_FASTPATH] += i - slow;
	cpu_freelist_put(c, cpu_freelist_of(c, tid), tid); /* with a tid, the next */
	local_irq_restore(flags);
	kmem_cache_free_bulk(s, i, p);
	return 0;
}

static __noinline int alloc_bulk_slow_plain(struct kmem_cache *s, gfp_t gfp, size_t size,
					    void **p, size_t i, unsigned long flags)
{
	return __alloc_bulk_slow(s, gfp, size, p, i, flags, false);
}

static __noinline int alloc_bulk_slow_tid(struct kmem_cache *s, gfp_t gfp, size_t size,
					  void **p, size_t i, unsigned long flags)
{
	return __alloc_bulk_slow(s, gfp, size, p, i, flags, true);
}

static inline int alloc_bulk_slow(struct kmem_cache *s, gfp_t gfp, size_t size, void **p,
				  size_t i, unsigned long flags)
{
	return s->cpu_tid ? alloc_bulk_slow_tid(s, gfp, size, p, i, flags)
			  : alloc_bulk_slow_plain(s, gfp, size, p, i, flags);
}

/*
 * The walk of the cpu freelist into p[], interrupts off (flags): four objects a turn after
 * the size's remainder, each a store, a load and a NULL test; the first empty freelist hands
 * the rest to alloc_bulk_slow in a jump. For the bulk_core caches (the free pointer at
 * offset 0): the irq fastpath's when the freelist is not known to hold size objects (it sets
 * the bound to 0), and the cmpxchg fastpath's entry (it steps the tid: an interrupted
 * cmpxchg fastpath must retry). general: a cache without those fast parts and without a bulk
 * of its scheme's (debug checks, a size that is not a power of two, the free pointer after
 * the object), either kind of freelist; slab_choose_bulk_paths gives a scheme's own
 * alloc_bulk the entry point itself, and no entry point sees __GFP_ZERO.
 */
static __always_inline int __alloc_bulk_tested(struct kmem_cache *s, gfp_t gfp, size_t size,
					       void **p, unsigned long flags, bool cmpxchg,
					       bool general)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	void *object = general ? cpu_freelist(c) : cpu_freelist_of(c, cmpxchg);
	unsigned long off = general ? s->offset : 0;
	size_t i = 0;

#define BULK_TAKE(k)                                                                               \
	do {                                                                                       \
		if (unlikely(!object))                                                             \
			return general ? alloc_bulk_slow(s, gfp, size, p, i + (k), flags)          \
				       : (cmpxchg ? alloc_bulk_slow_tid : alloc_bulk_slow_plain)(  \
						 s, gfp, size, p, i + (k), flags);                 \
		p[i + (k)] = object;                                                               \
		object = *(void **)((char *)object + off); /* get_freepointer_fast, not hardened */ \
	} while (0)
	if (unlikely(size & 3)) /* the remainder first, so the loop below takes fours */
		do
			BULK_TAKE(0);
		while (++i != (size & 3));
	for (; i < size; i += 4) {
		BULK_TAKE(0);
		BULK_TAKE(1);
		BULK_TAKE(2);
		BULK_TAKE(3);
	}
#undef BULK_TAKE
	if (general)
		cpu_freelist_set(s, c, object); /* with a tid, the next */
	else
		cpu_freelist_put(c, object, cmpxchg); /* cmpxchg: the next tid */
	c->stat[ALLOC_FASTPATH] += size; /* one add for the run */
	if (!cmpxchg && !general) /* the bound was below size, so below 0 now: 0 again */
		cpu_freelist_forget(s, c);
	local_irq_restore(flags);
	return (int)size;
}

static __noinline int alloc_bulk_general(struct kmem_cache *s, gfp_t gfp, size_t size, void **p)
{
	unsigned long flags;

	local_irq_save(flags);
	return __alloc_bulk_tested(s, gfp, size, p, flags, false, true);
}

/* From alloc_bulk_entry_irq, masked: interrupts off, then the walk (which reads the cpu
 * freelist afresh: an interrupt the mask held has run by then). */
static __noinline FASTPATH_FN int alloc_bulk_tested_soft(struct kmem_cache *s, gfp_t gfp,
							 size_t size, void **p)
{
	return __alloc_bulk_tested(s, gfp, size, p, irq_soft_to_hard(), false, false);
}

/*
 * The bulk allocation's entry points (struct kmem_cache_entry's alloc_bulk): for the
 * bulk_core caches (no scheme bulk, no debug, a power-of-two size, the free pointer at
 * offset 0) the cpu freelist into p[] masked (irq_soft_mask), in caller-saved registers (no
 * frame), the slow part in a jump; kmem_cache_alloc_bulk (mm/slab.h) sends __GFP_ZERO to
 * kmem_cache_alloc_bulk_zeroed, so these have no test of it. The irq fastpath's: when the
 * cpu freelist is known to hold size objects (cpu_freelist_known: after a bulk free of as
 * many, say), four a turn with a store and a load each and then the remainder; else the
 * tested walk. A plain cpu freelist: no tid.
 */
static FASTPATH_FN int alloc_bulk_entry_irq(struct kmem_cache *s, gfp_t gfp, size_t size,
					    void **p)
{
	struct kmem_cache_cpu *c;
	void *object, **q, **end;

	irq_soft_mask(); /* as the single allocation's irq fastpath (kernel/irqflags.h) */
	c = this_cpu_slab(s);
	if (unlikely(cpu_freelist_known(c) < (long)size))
		return alloc_bulk_tested_soft(s, gfp, size, p);
	object = c->freelist;
	end = p + (size & ~3UL); /* fours, then the remainder */
	for (q = p; q != end; q += 4) {
		q[0] = object;
		object = *(void **)object; /* get_freepointer_fast at offset 0, not hardened */
		q[1] = object;
		object = *(void **)object;
		q[2] = object;
		object = *(void **)object;
		q[3] = object;
		object = *(void **)object;
	}
	for (end = p + size; q != end; q++) {
		*q = object;
		object = *(void **)object;
	}
	c->freelist = object;
	c->stat[ALLOC_FASTPATH] += size; /* one add for the run: the bound goes down by size */
	irq_soft_unmask();
	return (int)size;
}

static FASTPATH_FN int alloc_bulk_entry_cmpxchg(struct kmem_cache *s, gfp_t gfp, size_t size,
						void **p)
{
	unsigned long flags;

	local_irq_save(flags);
	return __alloc_bulk_tested(s, gfp, size, p, flags, true, false);
}

/* kmem_cache_alloc_bulk with __GFP_ZERO (mm/slab.h sends it here): zeroed after. */
int kmem_cache_alloc_bulk_zeroed(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	int rc = s->entry.alloc_bulk(s, gfp & ~__GFP_ZERO, n, p);

	for (size_t i = 0; rc && i < n; i++)
		memset(p[i], 0, s->object_size);
	return rc;
}

struct detached_freelist {
	struct slab *slab;
	void *tail, *freelist;
	unsigned int cnt;
};

/*
 * Link the last object of p[] with the others of the same slab, looking past at most three
 * objects of other slabs; those taken are set to NULL in p (consume), or, without consume,
 * those taken after the first one skipped (the others are past what is returned). Returns
 * how much of p is left.
 */
static __always_inline size_t __build_detached_freelist(struct kmem_cache *s, size_t size,
							 void **p, struct detached_freelist *df,
							 void *caller, bool hardened, bool consume)
{
	size_t first_skipped_index = 0;
	int lookahead = 3;
	void *object;
	uptr base;
	unsigned long mask, slab_bytes;

	df->slab = NULL;
	do {
		object = p[--size];
	} while (!object && size);
	if (!object)
		return 0;
	p[size] = NULL;
	df->slab = free_check(s, object, caller);
	if (!df->slab)
		return size;
	set_freepointer_fast(s, object, NULL, hardened);
	df->tail = df->freelist = object;
	df->cnt = 1;
	base = (uptr)slab_address(df->slab);
	/*
	 * A power-of-two size: first the run of objects of this slab that ends p[], as the fast
	 * part of kmem_cache_free_bulk takes its run (two a turn, one lea-and-mask test and the
	 * compare with the object linked before each); the loop below takes what is left.
	 */
	mask = s->size_mask ? ~((PAGE_SIZE << s->order) - 1) | s->size_mask : 0;
	if (mask && !consume) {
		void *head = object, *a;
		size_t end = size;
		unsigned long off = s->offset;
		uptr nbase = -base;

		__asm__("" : "+r"(nbase)); /* kept negated: each test's add is one lea */
		while (size >= 2) {
			a = p[size - 1];
			if ((((uptr)a + nbase) & mask) || a == head)
				goto run_end;
			*(void **)((char *)a + off) = head; /* set_freepointer_fast, not hardened */
			head = p[size - 2];
			if ((((uptr)head + nbase) & mask) || head == a) {
				head = a;
				size--;
				goto run_end;
			}
			*(void **)((char *)head + off) = a;
			size -= 2;
		}
		if (size) {
			a = p[0];
			if (!((((uptr)a + nbase) & mask) || a == head)) {
				*(void **)((char *)a + off) = head;
				head = a;
				size = 0;
			}
		}
run_end:
		df->freelist = head;
		df->cnt += (unsigned int)(end - size);
		if (!size)
			return 0;
		/*
		 * The next two objects in one other slab (slabs are aligned to their size): p[]
		 * is in runs, as a bulk allocation leaves it, so looking past them for more of
		 * this slab would find none; the next call takes their run. (A run that ended at
		 * an object of this slab, a duplicate, goes on to the loop, which reports it.)
		 */
		if (size >= 2 && ((uptr)p[size - 1] - base) >> (PAGE_SHIFT + s->order) &&
		    !(((uptr)p[size - 1] ^ (uptr)p[size - 2]) >> (PAGE_SHIFT + s->order)))
			return size;
	}
	slab_bytes = PAGE_SIZE << s->order;
	while (size) {
		object = p[--size];
		if (!object)
			continue;
		/* Same slab: inside its pages (one compare) and at an object start (a
		 * power-of-two size: one test of the offset's low bits, as on_cpu_slab). */
		if ((uptr)object - base < slab_bytes &&
		    (s->size_mask ? !(((uptr)object - base) & s->size_mask)
				  : object_start(s, df->slab, object))) {
			if (object == df->freelist) { /* the same object twice in one call */
				slab_report_bad(s, object, caller, "double free (twice in one bulk) of");
				p[size] = NULL;
				continue;
			}
			set_freepointer_fast(s, object, df->freelist, hardened);
			df->freelist = object;
			df->cnt++;
			p[size] = NULL;
			continue;
		}
		if (!--lookahead)
			break;
		if (!first_skipped_index)
			first_skipped_index = size + 1;
	}
	return first_skipped_index;
}

/* For the layers, which are promised p[] back all NULL (slab_free_for_layer). */
static __noinline size_t build_detached_freelist_consume(struct kmem_cache *s, size_t size,
							 void **p, struct detached_freelist *df,
							 void *caller)
{
	return __build_detached_freelist(s, size, p, df, caller, false, true);
}

static __noinline size_t build_detached_freelist_hardened(struct kmem_cache *s, size_t size,
							  void **p,
							  struct detached_freelist *df,
							  void *caller)
{
	return __build_detached_freelist(s, size, p, df, caller, true, true);
}

/* Are q[0..objects) the objects of the slab at base in address order? Four a turn. */
static __always_inline bool slab_objects_in_order(void **q, unsigned int objects, char *base,
						  unsigned long step)
{
	void **end4 = q + (objects & ~3u), **end = q + objects;
	unsigned long step2 = 2 * step, step3 = 3 * step;
	char *o = base;

	for (; q < end4; q += 4, o += 4 * step)
		if (q[0] != o || q[1] != o + step || q[2] != o + step2 || q[3] != o + step3)
			return false;
	for (; q < end; q++, o += step)
		if (*q != o)
			return false;
	return true;
}

/*
 * Are q[0..objects) every object of the slab at base, each once, in any order? One pass: each
 * an object start inside the slab (the masked test of the run builder) whose bit in a map of
 * the slab's objects is not set yet; objects of them, all distinct, are all of them.
 */
static __always_inline bool slab_objects_any_order(struct kmem_cache *s, void **q,
						   unsigned int objects, char *base)
{
	unsigned long mask = ~((PAGE_SIZE << s->order) - 1) | s->size_mask;
	unsigned int shift = (unsigned int)__builtin_ctz(s->size);
	uptr nbase = -(uptr)base;
	u64 seen = 0, bit;

	if (objects > 64)
		return false;
	for (unsigned int i = 0; i < objects; i++) {
		uptr d = (uptr)q[i] + nbase;

		if (d & mask)
			return false;
		bit = 1ull << (d >> shift);
		if (seen & bit)
			return false;
		seen |= bit;
	}
	return objects == 64 || !(seen >> objects); /* none past the last object */
}

/*
 * A whole slab at the end of p[]: every object of one slab, in address order (as a bulk
 * allocation hands out a new slab, and a freelist linked here, or by the run builder from
 * p[], goes out again in that order), or in any other (a freelist another way linked, a slab
 * that was partial before: one more pass, slab_objects_any_order). Its slab checked once (of
 * this cache, not this cpu's; its counters: full, not frozen), then one pass that compares
 * each object with the address it must have; then, with no list to change, onto this cpu's
 * stash while it has room ("the stash" above); else in one hold of the node's lock and one
 * update of the slab's freelist and counters, what __slab_free does with a full slab that
 * empties: back to the page allocator while the node holds min_partial (no freelist linked:
 * nothing needs it), else linked in address order onto the node's partial list.
 * A scheme with cpu partial lists (cpu_lists; local: this cpu's node) takes only the first,
 * once this cpu's node holds min_partial (below it, __slab_free puts the slab on the cpu
 * partial list, the run builder linking its freelist): a drain of that list would give it
 * to the page allocator after a freeze, a link of its freelist and an unfreeze, so it goes
 * there straight. (The list might instead have kept it for the next allocation, which then
 * walks its freelist; a new bare slab costs fewer instructions than that walk.)
 * Returns how much of p[] is left: size itself when p[] does not end so, for the run builder,
 * which reports whatever is wrong (nothing has been written then).
 */
static __always_inline size_t free_bulk_whole(struct kmem_cache *s, struct kmem_cache_cpu *c,
					      size_t size, void **p, bool cpu_lists,
					      struct kmem_cache_node *local)
{
	unsigned int objects = s->objects;
	unsigned long step = s->size, off = s->offset, slab_bytes = PAGE_SIZE << s->order;
	void **q = p + size - objects;
	char *first = q[0], *base, *o;
	struct kmem_cache_node *n;
	struct slab *slab, cur;
	unsigned long counters;
	void *prior;
	bool discard, room = c->stash_nr < s->stash_max; /* a peek: stash_put takes the lock */
	/* A cpu partial scheme keeps its empty slabs on the cpu partial list (__slab_free) until
	 * the node holds min_partial; past that its drain would give them to the page allocator.
	 * A racy peek at this cpu's node's count (re-checked under the slab's node's lock): such
	 * a slab is taken here only for the stash. */
	bool for_list = cpu_lists &&
			__atomic_load_n(&local->nr_partial, __ATOMIC_RELAXED) < s->min_partial;

	if (for_list && !room)
		return size;
	/* The first and the last in one slab (aligned to its size; a NULL is in none). */
	if (!first || (((uptr)p[size - 1] ^ (uptr)first) & ~(slab_bytes - 1)))
		return size;
	base = (char *)((uptr)first & ~(slab_bytes - 1));
	slab = virt_to_slab(base);
	if (!slab || slab->slab_cache != s || slab == c->slab || slab_address(slab) != base)
		return size;
	slab_read_freelist(slab, &prior, &counters);
	cur.counters = counters;
	if (prior || cur.frozen || cur.inuse != objects)
		return size;
	if (first != base || !slab_objects_in_order(q, objects, base, step))
		if (!slab_objects_any_order(s, q, objects, base))
			return size;
	if (room && slab->page_nid == numa_node_id()) {
		/* Onto the stash: on no list before or after, so no node lock; the update
		 * fails if a free got in since the read (a racing double free: the builder). */
		cur.inuse = 0;
		if (!slab_update_freelist(s, slab, NULL, counters, NULL, cur.counters))
			return size;
		stat(s, c, FREE_SLOWPATH);
		if (unlikely(!stash_put(s, c, slab))) /* a drainer holds the stash */
			discard_slab(s, c, slab);
		return size - objects;
	}
	if (for_list)
		return size;
	n = slab_node(s, slab); /* its own node's list, wherever we are */
	slub_lock_node(s, c, n);
	discard = n->nr_partial >= s->min_partial;
	if (!discard && cpu_lists) { /* taken since the peek: the builder, __slab_free */
		spin_unlock(&n->list_lock);
		return size;
	}
	if (!discard) {
		char *last = base + (size_t)(objects - 1) * step;

		for (o = base; o < last; o += step)
			*(void **)(o + off) = o + step; /* set_freepointer_fast, not hardened */
		*(void **)(o + off) = NULL;
	}
	cur.inuse = 0;
	if (!slab_update_freelist(s, slab, NULL, counters, discard ? NULL : base, cur.counters)) {
		spin_unlock(&n->list_lock); /* changed since (a racing double free): the builder */
		return size;
	}
	stat(s, c, FREE_SLOWPATH);
	if (n != get_node(s))
		__atomic_fetch_add(&n->free_remote, 1, __ATOMIC_RELAXED);
	if (discard) {
		spin_unlock(&n->list_lock);
		discard_slab(s, c, slab);
	} else {
		add_partial(n, slab, true);
		stat(s, c, FREE_ADD_PARTIAL);
		spin_unlock(&n->list_lock);
	}
	return size - objects;
}

/*
 * What the fast part of kmem_cache_free_bulk left: p[0..size), each checked, a slab's worth
 * at a time, interrupts off once for all of them (as slab_free_for_layer): off on entry, flags
 * what to restore at the end. Three copies: with
 * whole slabs of p[] taken as such (free_bulk_whole), for the bulk_core caches of a scheme
 * without cpu partial lists and (cpu_lists) of one with, and without (the run builder's
 * registers as they were; one copy for both schemes cost lock 1.5 instructions an object at
 * N=250).
 */
static __always_inline void __free_bulk_checked(struct kmem_cache *s, size_t size, void **p,
						void *caller, unsigned long flags, bool whole,
						bool cpu_lists)
{
	struct kmem_cache_node *local = NULL;
	struct kmem_cache_cpu *c = this_cpu_slab(s);

	if (cpu_lists)
		local = &s->node[numa_node_id()]; /* get_node: bulk_core caches have no dbg */
	while (size) {
		struct detached_freelist df;

		if (whole && size >= s->objects) {
			size_t left = free_bulk_whole(s, c, size, p, cpu_lists, local);

			if (left != size) {
				size = left;
				continue;
			}
		}
		/* Plain caches (hardened ones have their own free_bulk), inlined: df in registers */
		size = __build_detached_freelist(s, size, p, &df, caller, false, false);
		if (!df.slab)
			continue;
		if (df.slab != c->slab) {
			__slab_free(s, c, df.slab, df.freelist, df.tail, df.cnt, caller);
			continue;
		}
		/* df.tail is the one linked to the head (the fast part's stop at a double free) */
		void *freelist = cpu_freelist(c);

		if (unlikely(df.tail == freelist || df.freelist == freelist)) {
			slab_report_bad(s, freelist, caller, "double free of");
			continue;
		}
		set_freepointer_fast(s, df.tail, freelist, false);
		cpu_freelist_set(s, c, df.freelist); /* with a tid, the next */
		stat(s, c, FREE_FASTPATH);
	}
	local_irq_restore(flags);
}

static __noinline void free_bulk_checked(struct kmem_cache *s, size_t size, void **p, void *caller)
{
	unsigned long flags;

	local_irq_save(flags);
	__free_bulk_checked(s, size, p, caller, flags, false, false);
}

/* The bulk_core caches' two, from free_bulk_partway: interrupts off since the fast part. */
static __noinline void free_bulk_checked_whole(struct kmem_cache *s, size_t size, void **p,
					       void *caller, unsigned long flags)
{
	__free_bulk_checked(s, size, p, caller, flags, true, false);
}

static __noinline void free_bulk_checked_whole_partial(struct kmem_cache *s, size_t size,
						       void **p, void *caller, unsigned long flags)
{
	__free_bulk_checked(s, size, p, caller, flags, true, true);
}

/*
 * Where the fast part of kmem_cache_free_bulk stopped: p[0..size) not freed yet (the first
 * of them, p[size - 1], failed its test), head the cpu freelist's new head, linked through
 * what was freed to the old one; interrupts off since the fast part's start (flags).
 */
static __noinline void free_bulk_partway(struct kmem_cache *s, size_t size, void **p, void *head,
					 unsigned long flags, void *caller)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);

	c->stat[FREE_FASTPATH] -= size; /* the fast part counted them all */
	if (unlikely(p[size - 1] == head && head)) {
		/* The head freed again: only that one is refused, the others are freed. */
		slab_report_bad(s, head, caller, "double free of");
		size--;
	}
	cpu_freelist_set(s, c, head);
	/* The rest with interrupts still off (the checked part restores them). */
	if (!(s->scheme->flags & SLAB_SCHEME_CPU_PARTIAL)) /* a bulk_core cache here */
		free_bulk_checked_whole(s, size, p, caller, flags);
	else
		free_bulk_checked_whole_partial(s, size, p, caller, flags);
}

/* Does object fail on_cpu_slab's test (nbase: minus the slab's base), or is it head? */
#define BULK_NOT_PUSHABLE(object, head) \
	((((uptr)(object) + nbase) & mask) || (object) == (head))

/*
 * The fast part (s->bulk_core: the free pointer at offset 0): p[] from its end down, each
 * object that on_cpu_slab's test puts in this cpu's slab linked to the one before it (the
 * first to the cpu freelist's head), two a turn after the size's odd one, in caller-saved
 * registers (four a turn, as the allocation's, cost more than they saved: GCC kept three
 * values in saved registers and a second cursor); the new head goes onto the cpu freelist with one store at the end, so the
 * objects come back in p[]'s order. Each test is a lea, a mask test and the compare with the
 * object linked just before (a double free of the freelist's head, the same object twice in
 * a row). The first that fails (another slab's, NULL, a double free, a bad pointer) and all
 * before it go to free_bulk_partway in a jump.
 */
static __always_inline void __free_bulk_fast(struct kmem_cache *s, size_t size, void **p,
					     bool cmpxchg)
{
	struct kmem_cache_cpu *c;
	unsigned long flags, mask;
	uptr nbase;
	void *head, *a;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	nbase = -c->slab_base;
	__asm__("" : "+r"(nbase)); /* kept as the negated base: each test's add is one lea */
	mask = c->slab_mask;
	head = cpu_freelist_of(c, cmpxchg);
	c->stat[FREE_FASTPATH] += size; /* one add for the run; free_bulk_partway takes back */
	if (size & 1) {
		a = p[size - 1];
		if (BULK_NOT_PUSHABLE(a, head))
			goto partway;
		*(void **)a = head; /* set_freepointer_fast at offset 0, not hardened */
		head = a;
		size--;
	}
	while (size) {
		a = p[size - 1];
		if (BULK_NOT_PUSHABLE(a, head))
			goto partway;
		*(void **)a = head;
		head = p[size - 2];
		if (BULK_NOT_PUSHABLE(head, a)) {
			head = a;
			size--;
			goto partway;
		}
		*(void **)head = a;
		size -= 2;
	}
	cpu_freelist_put(c, head, cmpxchg); /* cmpxchg: the next tid, an interrupted one retries */
	local_irq_restore(flags);
	return;
partway:
	free_bulk_partway(s, size, p, head, flags, __builtin_return_address(0));
}

static FASTPATH_FN void free_bulk_entry_irq(struct kmem_cache *s, size_t size, void **p)
{
	__free_bulk_fast(s, size, p, false);
}

static FASTPATH_FN void free_bulk_entry_cmpxchg(struct kmem_cache *s, size_t size, void **p)
{
	__free_bulk_fast(s, size, p, true);
}

/* Any other cache: the scheme's free_bulk, else each object checked (free_bulk_checked). */
static FASTPATH_FN void free_bulk_entry_general(struct kmem_cache *s, size_t size, void **p)
{
	if (s->scheme->free_bulk)
		s->scheme->free_bulk(s, size, p, __builtin_return_address(0));
	else
		free_bulk_checked(s, size, p, __builtin_return_address(0));
}
#undef BULK_NOT_PUSHABLE

/*
 * Give n objects (checked, entries may be NULL) back to their slabs, for a layer in front of
 * the cpu slab; interrupts off on this cpu. p[] is consumed (entries set to NULL).
 */
void slab_free_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, size_t n, void **p,
			void *caller)
{
	while (n) {
		struct detached_freelist df;

		n = unlikely(s->freeptr_xor_key) ? build_detached_freelist_hardened(s, n, p, &df, caller)
					   : build_detached_freelist_consume(s, n, p, &df, caller);
		if (!df.slab)
			continue;
		if (df.slab == c->slab) {
			set_freepointer(s, df.tail, cpu_freelist(c));
			cpu_freelist_set(s, c, df.freelist);
		} else {
			__slab_free_any(s, c, df.slab, df.freelist, df.tail, df.cnt, caller);
		}
	}
}

/* Give one checked object back to its slab, for a layer in front of it; interrupts off. */
void slab_free_object_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			       void *object, void *caller)
{
	if (slab == c->slab) {
		if (unlikely(object == cpu_freelist(c))) {
			slab_report_bad(s, object, caller, "double free of");
			return;
		}
		set_freepointer(s, object, cpu_freelist(c));
		cpu_freelist_set(s, c, object);
		stat(s, c, FREE_FASTPATH);
	} else {
		__slab_free_any(s, c, slab, object, object, 1, caller);
	}
}

/* s's bulk entry points (the end of slab_choose_paths, mm/slub.c). */
void slab_choose_bulk_paths(struct kmem_cache *s)
{
	bool cmpxchg = s->fastpath == SLAB_FASTPATH_CMPXCHG;

	/* The core's bulk fast parts: no scheme's own bulk, no debug, a power of two, the free
	 * pointer at offset 0 (not after the object, as with a constructor). */
	s->bulk_core = !s->scheme->alloc_bulk && !s->scheme->free_bulk && !s->dbg && s->size_mask &&
		       !s->offset;
	s->entry.alloc_bulk = s->bulk_core ? (cmpxchg ? alloc_bulk_entry_cmpxchg : alloc_bulk_entry_irq)
			      : s->scheme->alloc_bulk ? s->scheme->alloc_bulk
						      : alloc_bulk_general;
	s->entry.free_bulk = s->bulk_core ? (cmpxchg ? free_bulk_entry_cmpxchg : free_bulk_entry_irq)
					  : free_bulk_entry_general;
	/* Only the bulk_core caches' whole-slab bulk free fills a stash (free_bulk_whole). */
	s->stash_max = s->bulk_core ? MAX(1u, SLAB_STASH_PAGES >> s->order) : 0;
}
