// SPDX-License-Identifier: MIT
/*
 * The "sheaves" scheme: per-cpu arrays of object pointers in front of the slabs, the design
 * that replaced per-cpu partial lists in Linux 7.0 (opt-in per cache in 6.18), of the family
 * of Bonwick's magazines and FreeBSD UMA's per-cpu buckets.
 *
 * Each cpu has a main and a spare sheaf (struct sheaves_cpu); each node a barn of
 * full and empty sheaves under barn->lock, at most BARN_MAX of each.
 * Behind them the slabs are kept as in the "lock" scheme: a cpu slab that refills sheaves and
 * the node partial list under list_lock, with no per-cpu partial lists (as in 7.0).
 *
 * Allocation (interrupts off, on this cpu):
 *   1. pop from main                                     SHEAF_ALLOC
 *   2. main empty, spare has objects: swap them          SHEAF_SWAP
 *   3. a full sheaf from the barn; main goes to spare or back to the barn as empty (the
 *      two in one exchange under barn->lock when there is a spare)
 *                                                        BARN_GET / BARN_GET_FAIL
 *   4. refill main from the slabs (the cpu slab, the node partial list, a new slab)
 *                                                        SHEAF_REFILL
 * Free (the core has checked the object; interrupts off, on this cpu):
 *   1. push onto main                                    SHEAF_FREE
 *   2. main full, spare empty: swap them
 *   3. main to the barn as full, an empty sheaf from it (or a new one) as main (one
 *      exchange under barn->lock when the barn has an empty one)
 *                                                        BARN_PUT / BARN_PUT_FAIL
 *   4. the barn is at its bound: empty main into the slabs  SHEAF_FLUSH
 *
 * Who touches a sheaf when: main and spare only by their cpu with interrupts off; a sheaf in
 * the barn only under barn->lock, by whoever takes it out (it is then that cpu's). Objects
 * freed on another cpu go into that cpu's sheaves, not back to their slab: the objects in
 * a sheaf may come from any slab of the cache. A sheaf is one page from the page allocator
 * (never from a slab cache: no recursion when kmalloc caches use sheaves).
 */
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/sheaf.h"

#define BARN_MAX 10 /* full sheaves in a barn, and empty ones */

/* A barn's stack of sheaves of one kind, linked through sheaf->barn_next (LIFO). */
struct barn_stack {
	struct slab_sheaf *top;
	unsigned int nr; /* also peeked at without the lock */
};

enum { BARN_EMPTY, BARN_FULL };

/*
 * Per node (n->priv): the store of full and empty sheaves, bounded. One cache line holds
 * what a barn operation touches (the stacks' tops and counts, the lock's tickets, owner and
 * acquisitions): a cpu that only allocates and one that only frees hand it back and forth
 * once a sheaf each. The scheme's node area starts a cache line (alloc_cpu_areas).
 */
struct node_barn {
	struct barn_stack stack[2]; /* [BARN_EMPTY], [BARN_FULL]; lock must be held to change */
	struct spinlock lock;
};

_Static_assert(offsetof(struct node_barn, lock) + offsetof(struct spinlock, contended) <= 64,
	       "a barn's operation touches one cache line");

static inline int barn_kind(const struct slab_sheaf *sheaf)
{
	return sheaf->size ? BARN_FULL : BARN_EMPTY;
}

static inline void barn_push(struct barn_stack *st, struct slab_sheaf *sheaf)
{
	sheaf->barn_next = st->top;
	st->top = sheaf;
	__atomic_store_n(&st->nr, st->nr + 1, __ATOMIC_RELAXED);
}

/* The top sheaf, or NULL. */
static inline struct slab_sheaf *barn_pop(struct barn_stack *st)
{
	struct slab_sheaf *sheaf = st->top;

	if (sheaf) {
		st->top = sheaf->barn_next;
		__atomic_store_n(&st->nr, st->nr - 1, __ATOMIC_RELAXED);
	}
	return sheaf;
}

/* The counters (struct sheaves_cpu's stat), in slabinfo and kmem_cache_stat_by_name by
 * these names. */
enum sheaves_stat {
	SHEAF_ALLOC,   /* object handed out from the main sheaf */
	SHEAF_FREE,    /* object put into the main sheaf */
	SHEAF_SWAP,    /* main and spare sheaves swapped */
	SHEAF_REFILL,  /* empty main sheaf refilled from slabs */
	SHEAF_FLUSH,   /* full main sheaf emptied into slabs */
	BARN_GET,      /* full sheaf taken from the barn (alloc) or empty one (free) */
	BARN_GET_FAIL, /* the barn had none */
	BARN_PUT,      /* full sheaf given to the barn (free) */
	BARN_PUT_FAIL, /* the barn was at its bound */
	SHEAF_RESIZE,  /* sheaf fitted to a capacity changed at run time */
	FREE_RCU_SHEAF,      /* object kfree_rcu put into the rcu_free sheaf */
	FREE_RCU_SHEAF_FAIL, /* no rcu_free sheaf to be had: the core's batch took it */
	NR_SHEAVES_STATS
};

/*
 * Per cpu (c->priv, which is kmem_cache_cpu's scheme_area: the fastpaths reach it at a fixed
 * offset from c, no load of priv): objects handed out and taken back here first, and the
 * counters.
 */
struct sheaves_cpu {
	struct slab_sheaf *main;  /* handed out from and freed to */
	struct slab_sheaf *spare; /* swapped with main when it runs empty or full */
	struct slab_sheaf *rcu_free; /* kfree_rcu's objects until it is full (or NULL) */
	u64 stat[NR_SHEAVES_STATS];
};

static const char *const sheaves_stat_names[NR_SHEAVES_STATS] = {
	"sheaf_alloc", "sheaf_free", "sheaf_swap", "sheaf_refill", "sheaf_flush",
	"barn_get", "barn_get_fail", "barn_put", "barn_put_fail", "sheaf_resize",
	"free_rcu_sheaf", "free_rcu_sheaf_fail",
};

static inline struct sheaves_cpu *sc(struct kmem_cache_cpu *c)
{
	return scheme_cpu_area(c, struct sheaves_cpu);
}

/*
 * Per cache (s->priv): objects per sheaf (mm/sheaf.c's sheaf_capacity at create time, then
 * kmem_cache_set_sheaf_capacity's), which every sheaf made from then on gets and every
 * other is fitted to (sheaf_fit).
 */
struct sheaves_cache {
	unsigned int capacity; /* written by sheaves_set_param, read by anyone (relaxed) */
	long rcu_sheaves;      /* rcu_free sheaves between call_rcu and their callback */
};

static inline struct sheaves_cache *shc(struct kmem_cache *s)
{
	return s->priv;
}

static inline unsigned int capacity_of(struct kmem_cache *s)
{
	return __atomic_load_n(&shc(s)->capacity, __ATOMIC_RELAXED);
}

/*
 * main when this cpu has no sheaf (at first, after a flush, when none could be allocated):
 * empty and of no room, so the fastpaths' size tests send every call to the slow halves,
 * and they need no NULL test. Never written.
 */
static struct slab_sheaf no_sheaf = { .size = 0, .capacity = 0, .below = NULL };

static inline bool no_main(const struct slab_sheaf *main)
{
	return main == &no_sheaf;
}

static inline struct node_barn *barn_of(struct kmem_cache *s)
{
	return get_node(s)->priv;
}

/*
 * Where in its page a new sheaf starts: just past this cpu's struct kmem_cache_cpu, as
 * page offsets go (sheaf_offset_in_page). The fastpaths load c's words (the cpu slab's base
 * and mask, the freelist, main, the counters) right after storing main's size and an entry
 * of its objects; the per-cpu array is page-aligned, so a sheaf at its page's start put its
 * size at the same low 12 address bits as c->slab_base for cpu 0, and its entries on c's
 * counters, and the CPU took those loads for loads of the stored words (4K aliasing, as
 * kmem_cache_cpu's comment in slub.h says). Sheaves made here are used here first (a cpu's
 * barn gets back what it put); one taken from the barn by another cpu may alias there.
 * A sheaf too big for the room on either side of c's copy starts its page.
 */
static struct slab_sheaf *new_sheaf(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct page *page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN, 0);
	struct slab_sheaf *sheaf;
	unsigned int capacity;

	if (!page)
		return NULL;
	capacity = capacity_of(s);
	sheaf = (void *)((char *)page_address(page) +
			 sheaf_offset_in_page((uptr)c, sizeof(*c), capacity));
	sheaf->barn_next = NULL;
	sheaf->size = 0;
	sheaf->capacity = capacity;
	sheaf->below = NULL;
	return sheaf;
}

static void free_sheaf(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	free_pages((unsigned long)sheaf & ~(PAGE_SIZE - 1), 0);
}

/* ---- a capacity changed at run time ---- */

/* The most pointers sheaf's page holds past its header (SLAB_SHEAF_MAX at most). */
static unsigned int sheaf_room(const struct slab_sheaf *sheaf)
{
	unsigned long end = PAGE_SIZE - ((uptr)sheaf & (PAGE_SIZE - 1));

	return (unsigned int)MIN((end - sizeof(*sheaf)) / sizeof(void *),
				 (unsigned long)SLAB_SHEAF_MAX);
}

/*
 * A sheaf of this cpu (its main or spare, or one it just took from the barn), interrupts
 * off, fitted to the cache's capacity if kmem_cache_set_sheaf_capacity changed it since
 * the sheaf was made: the objects past a smaller capacity go back to the slabs; a larger
 * one that its page has no room for moves it to a new sheaf (where new_sheaf places it),
 * and with no page to be had it keeps the room it has, to be fitted again the next time.
 * Returns the sheaf to use.
 */
static __noinline struct slab_sheaf *sheaf_refit(struct kmem_cache *s,
						       struct kmem_cache_cpu *c,
						       struct slab_sheaf *sheaf)
{
	unsigned int capacity = capacity_of(s);
	struct slab_sheaf *moved;

	if (no_main(sheaf))
		return sheaf;
	if (sheaf->size > capacity) {
		slab_free_for_layer(s, c, sheaf->size - capacity, &sheaf->objects[capacity],
				    __builtin_return_address(0));
		sheaf->size = capacity;
	}
	if (capacity > sheaf_room(sheaf) && (moved = new_sheaf(s, c))) {
		memcpy(moved->objects, sheaf->objects, sheaf->size * sizeof(void *));
		moved->size = sheaf->size;
		free_sheaf(s, sheaf);
		sheaf = moved;
	}
	sheaf->capacity = MIN(capacity, sheaf_room(sheaf));
	sc(c)->stat[SHEAF_RESIZE]++;
	return sheaf;
}

/* sheaf_refit's test, inline: a compare on the way out of the barn. */
static inline struct slab_sheaf *sheaf_fit(struct kmem_cache *s, struct kmem_cache_cpu *c,
					   struct slab_sheaf *sheaf)
{
	if (likely(sheaf->capacity == capacity_of(s)))
		return sheaf;
	return sheaf_refit(s, c, sheaf);
}

/* ---- the barn ---- */

static struct slab_sheaf *barn_get(struct kmem_cache *s, struct kmem_cache_cpu *c, bool full)
{
	struct barn_stack *st = &barn_of(s)->stack[full ? BARN_FULL : BARN_EMPTY];
	struct slab_sheaf *sheaf = NULL;

	/* Racy peek, re-checked under the lock. */
	if (__atomic_load_n(&st->nr, __ATOMIC_RELAXED)) {
		spin_lock(&barn_of(s)->lock);
		sheaf = barn_pop(st);
		spin_unlock(&barn_of(s)->lock);
	}
	sc(c)->stat[sheaf ? BARN_GET : BARN_GET_FAIL]++;
	/* Made by another cpu, maybe before a change of capacity. A full one fitted to a
	 * smaller capacity keeps objects (at least one). */
	return sheaf ? sheaf_fit(s, c, sheaf) : NULL;
}

/* false: the barn is at its bound for such sheaves. */
static bool barn_put(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab_sheaf *sheaf)
{
	struct node_barn *barn = barn_of(s);
	int kind = barn_kind(sheaf); /* before the lock: once in the barn, it is not ours */
	struct barn_stack *st = &barn->stack[kind];
	bool ok = false;

	spin_lock(&barn->lock);
	if (st->nr < BARN_MAX) {
		barn_push(st, sheaf);
		ok = true;
	}
	spin_unlock(&barn->lock);
	if (kind == BARN_FULL)
		sc(c)->stat[ok ? BARN_PUT : BARN_PUT_FAIL]++;
	return ok;
}

/*
 * Give the barn `give` and take a sheaf of the other kind (a full one for an empty `give`,
 * an empty one for a full), under one acquisition of barn->lock: what a cpu that only
 * allocates, or only frees, does once a sheaf. NULL, and the barn unchanged, when it has
 * none of the wanted kind or no room for `give`; then barn_get and barn_put one at a time.
 */
static struct slab_sheaf *barn_exchange(struct kmem_cache *s, struct kmem_cache_cpu *c,
					struct slab_sheaf *give)
{
	struct node_barn *barn = barn_of(s);
	int kind = barn_kind(give);
	struct slab_sheaf *sheaf = NULL;

	spin_lock(&barn->lock);
	if (barn->stack[kind].nr < BARN_MAX) {
		sheaf = barn_pop(&barn->stack[!kind]);
		if (sheaf)
			barn_push(&barn->stack[kind], give);
	}
	spin_unlock(&barn->lock);
	if (sheaf) {
		sc(c)->stat[BARN_GET]++;
		if (kind == BARN_FULL)
			sc(c)->stat[BARN_PUT]++;
		sheaf = sheaf_fit(s, c, sheaf); /* as barn_get's */
	}
	return sheaf;
}

/* ---- refill and flush ---- */

static void refill(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab_sheaf *sheaf,
		   gfp_t gfp)
{
	while (sheaf->size < sheaf->capacity) {
		void *object = slab_alloc_for_layer(s, c, gfp | __GFP_NOWARN);

		if (!object)
			break;
		sheaf->objects[sheaf->size++] = object;
	}
	sc(c)->stat[SHEAF_REFILL]++;
}

static void flush(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab_sheaf *sheaf,
		  void *caller)
{
	slab_free_for_layer(s, c, sheaf->size, sheaf->objects, caller);
	sheaf->size = 0;
	sc(c)->stat[SHEAF_FLUSH]++;
}

/* ---- allocation ---- */

/* The spare becomes main and main (the cpu's current one) the spare. Interrupts off. */
static bool swap_main_spare(struct kmem_cache_cpu *c, struct slab_sheaf *main)
{
	sc(c)->main = sc(c)->spare;
	sc(c)->spare = main;
	sc(c)->stat[SHEAF_SWAP]++;
	return true;
}

/* Make sc(c)->main non-empty if at all possible. Interrupts off. */
static bool main_has_objects(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp)
{
	struct slab_sheaf *main = sc(c)->main, *full;

	if (likely(main->size))
		return true;
	if (no_main(main)) {
		main = new_sheaf(s, c);
		if (!main)
			return false;
		sc(c)->main = main;
	}
	if (sc(c)->spare && sc(c)->spare->size)
		return swap_main_spare(c, main);
	if (sc(c)->spare && (full = barn_exchange(s, c, main))) {
		sc(c)->main = full;
		return true;
	}
	full = barn_get(s, c, true);
	if (full) {
		if (!sc(c)->spare)
			sc(c)->spare = main;
		else if (!barn_put(s, c, main))
			free_sheaf(s, main);
		sc(c)->main = full;
		return true;
	}
	refill(s, c, main, gfp);
	return main->size > 0;
}

/* main is empty: swap, the barn, a refill; or no sheaf at all. Interrupts off. */
static __noinline void *sheaves_alloc_slow(struct kmem_cache *s, struct kmem_cache_cpu *c,
					   gfp_t gfp)
{
	struct sheaves_cpu *sh = sc(c);

	if (main_has_objects(s, c, gfp)) {
		sh->stat[SHEAF_ALLOC]++;
		return sh->main->objects[--sh->main->size];
	}
	if (no_main(sh->main)) /* no memory even for a sheaf: straight from the slabs */
		return slab_alloc_for_layer(s, c, gfp);
	return NULL;
}

/*
 * The slow half of sheaves_alloc (the fast half jumps here, masked: kernel/irqflags.h's
 * irq_soft_mask). A full spare is swapped in still masked, as a pop is made (the common
 * case of a burst longer than a sheaf); anything else with interrupts off, then back as
 * they were.
 */
static __noinline void *sheaves_alloc_slow_soft(struct kmem_cache *s, struct kmem_cache_cpu *c,
						gfp_t gfp)
{
	struct slab_sheaf *main = sc(c)->main, *spare = sc(c)->spare;
	unsigned long flags;
	void *object;

	if (likely(spare && spare->size && !no_main(main))) {
		swap_main_spare(c, main);
		object = spare->objects[--spare->size];
		sc(c)->stat[SHEAF_ALLOC]++;
		irq_soft_unmask();
		return object;
	}
	flags = irq_soft_to_hard();
	object = sheaves_alloc_slow(s, c, gfp);

	local_irq_restore(flags);
	if (unlikely(!object) && !(gfp & __GFP_NOWARN))
		printk("slab: %s: out of memory\n", s->name);
	return object;
}

static FASTPATH_FN void *sheaves_alloc(struct kmem_cache *s, gfp_t gfp)
{
	struct kmem_cache_cpu *c;
	struct slab_sheaf *main;
	void *object;

	irq_soft_mask(); /* as the core's irq fastpath (kernel/irqflags.h) */
	c = this_cpu_slab(s);
	main = sc(c)->main;
	if (unlikely(!main->size)) /* no_sheaf too */
		return sheaves_alloc_slow_soft(s, c, gfp);
	object = main->objects[--main->size];
	sc(c)->stat[SHEAF_ALLOC]++;
	irq_soft_unmask();
	return object;
}

/* sheaves_alloc_bulk when main has fewer than n: swaps, the barn, refills. Masked since the
 * fast half: interrupts off, then back as they were. */
static __noinline int sheaves_alloc_bulk_slow(struct kmem_cache *s, gfp_t gfp, size_t n,
					      void **p)
{
	unsigned long flags = irq_soft_to_hard();
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	size_t done = 0;

	while (done < n) {
		size_t take;

		if (!main_has_objects(s, c, gfp | __GFP_NOWARN))
			break;
		take = MIN(n - done, (size_t)sc(c)->main->size);
		sc(c)->main->size -= (unsigned)take;
		memcpy(p + done, &sc(c)->main->objects[sc(c)->main->size], take * sizeof(void *));
		done += take;
		sc(c)->stat[SHEAF_ALLOC] += take;
	}
	local_irq_restore(flags);
	if (done < n) {
		kmem_cache_free_bulk(s, done, p);
		return 0;
	}
	return (int)n; /* never __GFP_ZERO: the core zeroes after (kmem_cache_alloc_bulk) */
}

/*
 * The n objects on top of main, masked as sheaves_alloc is, when it has them (in the order
 * they lie there, as the slow half copies them); otherwise the slow half.
 */
static FASTPATH_FN int sheaves_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	struct kmem_cache_cpu *c;
	struct slab_sheaf *main;
	unsigned int size;

	irq_soft_mask();
	c = this_cpu_slab(s);
	main = sc(c)->main;
	if (unlikely(n - 1 >= main->size)) /* fewer than n, and no_sheaf; n = 0 too (no write) */
		return sheaves_alloc_bulk_slow(s, gfp, n, p);
	size = main->size - (unsigned int)n;
	memcpy(p, &main->objects[size], n * sizeof(void *));
	main->size = size;
	sc(c)->stat[SHEAF_ALLOC] += n;
	irq_soft_unmask();
	return (int)n;
}

/* ---- free ---- */

/* Make room in sc(c)->main. false: no sheaf at all (no memory). Interrupts off. */
static bool main_has_room(struct kmem_cache *s, struct kmem_cache_cpu *c, void *caller)
{
	struct slab_sheaf *main = sc(c)->main, *empty;

	if (likely(main->size < main->capacity))
		return true;
	if (no_main(main)) {
		main = new_sheaf(s, c);
		if (!main)
			return false;
		sc(c)->main = main;
		return true;
	}
	if (sc(c)->spare && !sc(c)->spare->size)
		return swap_main_spare(c, main);
	empty = barn_exchange(s, c, main);
	if (empty) {
		sc(c)->main = empty;
		return true;
	}
	empty = barn_get(s, c, false);
	if (!empty)
		empty = new_sheaf(s, c);
	if (empty && barn_put(s, c, main)) {
		sc(c)->main = empty;
		return true;
	}
	if (empty && !barn_put(s, c, empty))
		free_sheaf(s, empty);
	flush(s, c, main, caller);
	return true;
}

/* An obvious double free: the object is the last one this cpu freed. */
static bool last_freed(struct kmem_cache_cpu *c, void *object)
{
	return sheaf_top(sc(c)->main) == object;
}

/* main is full or missing: make room, or free to the slabs. Interrupts off. */
static __noinline void sheaves_free_slow(struct kmem_cache *s, struct kmem_cache_cpu *c,
					 void *object, void *caller)
{
	struct sheaves_cpu *sh = sc(c);

	if (main_has_room(s, c, caller)) {
		sh->main->objects[sh->main->size++] = object;
		sh->stat[SHEAF_FREE]++;
	} else {
		slab_free_for_layer(s, c, 1, &object, caller);
	}
}

/* From the fast halves, masked: unmask, then the report. */
static __noinline void sheaves_double_free(struct kmem_cache *s, void *object, void *caller)
{
	irq_soft_unmask();
	slab_report_bad(s, object, caller, "double free of");
}

/*
 * The slow half of sheaves_free (main full or missing), from the fast halves, masked. The
 * same cpu, whose c it finds again (the fast halves keep the object in its register that
 * way). An empty spare is swapped in still masked and the object pushed onto it, as a push
 * is made (the fast half has made the double-free tests); anything else with interrupts
 * off, then back as they were: an interrupt held by the mask has run by then, so the
 * double-free test is made again.
 */
static __noinline void sheaves_free_slow_soft(struct kmem_cache *s, void *object, void *caller)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	struct slab_sheaf *main = sc(c)->main, *spare = sc(c)->spare;
	unsigned long flags;

	if (likely(spare && !spare->size && !no_main(main))) {
		swap_main_spare(c, main);
		spare->objects[spare->size++] = object;
		sc(c)->stat[SHEAF_FREE]++;
		irq_soft_unmask();
		return;
	}
	flags = irq_soft_to_hard();
	if (unlikely(last_freed(c, object))) {
		local_irq_restore(flags);
		slab_report_bad(s, object, caller, "double free of");
		return;
	}
	sheaves_free_slow(s, c, object, caller);
	local_irq_restore(flags);
}

static FASTPATH_FN void sheaves_free(struct kmem_cache *s, void *object, void *caller)
{
	struct kmem_cache_cpu *c;
	struct slab_sheaf *main;

	irq_soft_mask();
	c = this_cpu_slab(s);
	main = sc(c)->main;
	if (unlikely(main->size >= main->capacity)) { /* no_sheaf too */
		sheaves_free_slow_soft(s, object, caller);
		return;
	}
	if (unlikely(sheaf_top(main) == object)) {
		sheaves_double_free(s, object, caller);
		return;
	}
	main->objects[main->size++] = object;
	sc(c)->stat[SHEAF_FREE]++;
	irq_soft_unmask();
}

/*
 * The fast halves' end: push an object known to be of this cache onto main, masked
 * (irq_soft_mask), and unmask. freed_already: the caller's own double-free test. Then the
 * last-freed one and the room test.
 */
static inline __attribute__((always_inline)) void
push_checked(struct kmem_cache *s, struct kmem_cache_cpu *c, void *object, bool freed_already)
{
	struct slab_sheaf *main = sc(c)->main;
	/*
	 * The size after the push, in one register for every use below (objects[size - 2] is
	 * sheaf_top's word, `below` when main is empty): no copy of the size before.
	 */
	unsigned int size = main->size + 1;

	if (unlikely(freed_already || (&main->below)[size - 1] == object)) {
		sheaves_double_free(s, object, __builtin_return_address(0));
		return;
	}
	if (unlikely(size > main->capacity)) { /* no_sheaf too */
		sheaves_free_slow_soft(s, object, __builtin_return_address(0));
		return;
	}
	main->objects[size - 1] = object;
	main->size = size;
	sc(c)->stat[SHEAF_FREE]++;
	irq_soft_unmask();
}

/*
 * The core's free check in its cheap form, for a cache of a power-of-two size: a page of a
 * slab of s (in_slab_of: one page read), at an object start (the slabs' pages are aligned
 * to the size). false: ask the full check (slab_free_check and its kind), which says what
 * is wrong.
 */
static inline bool quick_check(struct kmem_cache *s, const void *object)
{
	return in_slab_of(s, object) && !((uptr)object & s->size_mask);
}

/*
 * sheaves_free_entry's half for an object outside the cpu slab, masked since there (a jump
 * from there: its return address is kmem_cache_free's caller's). The core's checks
 * in their cheap form: a slab's page, of this cache, at an object start (the size is a
 * power of two); anything that fails one goes to the full check (slab_free_checked),
 * which says what is wrong.
 */
static __noinline FASTPATH_FN void sheaves_free_other(struct kmem_cache *s, void *object,
						      struct kmem_cache_cpu *c)
{
	if (unlikely(!quick_check(s, object))) {
		irq_soft_unmask();
		slab_free_checked(s, object);
		return;
	}
	push_checked(s, c, object, false);
}

/*
 * kmem_cache_free itself for a plain cache of a power-of-two size (struct slab_scheme's
 * free_entry). A sheaf takes objects of any slab of the cache, so each must be checked as
 * this cache's: an object start in this cpu's slab is one for certain (the core keeps its
 * base and mask, cpu_slab_has_object), in two instructions and without a lookup; anything
 * else is looked up (sheaves_free_other). The double-free tests are the same as
 * sheaves_free's, and one more: an object on the cpu freelist is free already (NULL too,
 * when there is no cpu slab: slab_report_bad ignores it).
 */
static FASTPATH_FN void sheaves_free_entry(struct kmem_cache *s, void *object)
{
	struct kmem_cache_cpu *c;

	irq_soft_mask();
	c = this_cpu_slab(s);
	if (unlikely(!cpu_slab_has_object(c, object))) {
		sheaves_free_other(s, object, c); /* object stays in its register */
		return;
	}
	push_checked(s, c, object, object == c->freelist);
}

static void sheaves_free_bulk(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	struct kmem_cache_cpu *c;
	struct slab_sheaf *main;
	unsigned long flags;
	u64 pushed = 0;

	/*
	 * Interrupts off once; each object checked like a single free (the cheap check first
	 * where the size is a power of two, as sheaves_free_other), then pushed onto main, kept
	 * in a register between the calls that may change it. A duplicate among the eight
	 * entries before it is refused (bulk_free_seen_recently), and the object on top of
	 * main (a single free's test: the last one freed before this call).
	 */
	local_irq_save(flags);
	c = this_cpu_slab(s);
	main = sc(c)->main;
	for (size_t i = 0; i < n; i++) {
		void *x = p[i];
		bool twice;

		if (!x)
			continue;
		twice = bulk_free_seen_recently(p, i);
		if (unlikely(twice || sheaf_top(main) == x)) {
			slab_report_bad(s, x, caller,
					twice ? "double free (twice in one bulk) of" : "double free of");
			continue;
		}
		if (!(s->size_mask && quick_check(s, x)) && !slab_free_check(s, x, caller))
			continue;
		if (unlikely(main->size >= main->capacity)) {
			bool room = main_has_room(s, c, caller);

			main = sc(c)->main;
			if (unlikely(!room)) {
				slab_free_for_layer(s, c, 1, &p[i], caller);
				continue;
			}
		}
		main->objects[main->size++] = x;
		pushed++;
	}
	sc(c)->stat[SHEAF_FREE] += pushed;
	local_irq_restore(flags);
}

/* ---- kfree_rcu: the rcu_free sheaf (Linux 6.18) ---- */

/*
 * After the grace period, on the cpu that filled the sheaf (ordinary context): its objects
 * are free now. The sheaf goes to this node's barn as a full one, ready to be allocated
 * from; the barn at its bound, its objects go back to the slabs and it goes there empty,
 * or back to the page allocator.
 */
static void rcu_free_sheaf(struct rcu_head *head)
{
	struct slab_sheaf *sheaf = container_of(head, struct slab_sheaf, rcu);
	struct kmem_cache *s = sheaf->cache;
	struct kmem_cache_cpu *c;
	unsigned long flags;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	slab_rcu_freed(s, c, sheaf->size);
	__atomic_fetch_sub(&shc(s)->rcu_sheaves, 1, __ATOMIC_RELAXED);
	if (!barn_put(s, c, sheaf)) {
		flush(s, c, sheaf, __builtin_return_address(0));
		if (!barn_put(s, c, sheaf))
			free_sheaf(s, sheaf);
	}
	local_irq_restore(flags);
}

/* This cpu's rcu_free sheaf to call_rcu, whole. Interrupts off. */
static void rcu_sheaf_submit(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab_sheaf *sheaf = sc(c)->rcu_free;

	sc(c)->rcu_free = NULL;
	sheaf->cache = s;
	__atomic_fetch_add(&shc(s)->rcu_sheaves, 1, __ATOMIC_RELAXED);
	call_rcu(&sheaf->rcu, rcu_free_sheaf);
}

/*
 * kfree_rcu's object of this node (struct slab_scheme's free_rcu), interrupts off: into this
 * cpu's rcu_free sheaf, an empty one from the barn or a new one when it has none; a full
 * one goes to call_rcu. false: no sheaf to be had.
 */
static bool sheaves_free_rcu(struct kmem_cache *s, struct kmem_cache_cpu *c, void *object)
{
	struct slab_sheaf *sheaf = sc(c)->rcu_free;

	if (!sheaf) {
		sheaf = barn_get(s, c, false);
		if (!sheaf)
			sheaf = new_sheaf(s, c);
		if (!sheaf) {
			sc(c)->stat[FREE_RCU_SHEAF_FAIL]++;
			return false;
		}
		sc(c)->rcu_free = sheaf;
	}
	sheaf->objects[sheaf->size++] = object;
	sc(c)->stat[FREE_RCU_SHEAF]++;
	if (sheaf->size >= sheaf->capacity)
		rcu_sheaf_submit(s, c);
	return true;
}

/* kvfree_rcu_barrier's cross-call: a partial rcu_free sheaf goes now. */
static void sheaves_flush_rcu(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	if (sc(c)->rcu_free)
		rcu_sheaf_submit(s, c);
}

/* ---- flushing, counting ---- */

/* This cpu's sheaves back into the slabs (shrink, destroy). Interrupts off. */
static void sheaves_flush_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab_sheaf *sheaves[2] = { sc(c)->main, sc(c)->spare };

	sc(c)->main = &no_sheaf;
	sc(c)->spare = NULL;
	for (int i = 0; i < 2; i++) {
		if (!sheaves[i] || no_main(sheaves[i]))
			continue;
		if (sheaves[i]->size)
			flush(s, c, sheaves[i], __builtin_return_address(0));
		free_sheaf(s, sheaves[i]);
	}
}

/* Every sheaf of the barn onto *taken (a stack of the caller's), under barn->lock once. */
static void barn_take_all(struct node_barn *barn, struct barn_stack *taken)
{
	struct slab_sheaf *sheaf;

	spin_lock(&barn->lock);
	for (int kind = BARN_EMPTY; kind <= BARN_FULL; kind++)
		while ((sheaf = barn_pop(&barn->stack[kind])))
			barn_push(taken, sheaf);
	spin_unlock(&barn->lock);
}

/* After every cpu was flushed: empty one node's barn. */
static void sheaves_shrink_barn(struct kmem_cache *s, struct node_barn *barn)
{
	struct kmem_cache_cpu *c;
	unsigned long flags;
	struct barn_stack taken = { NULL, 0 };
	struct slab_sheaf *sheaf;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	barn_take_all(barn, &taken);
	while ((sheaf = barn_pop(&taken))) {
		if (sheaf->size)
			flush(s, c, sheaf, __builtin_return_address(0));
		free_sheaf(s, sheaf);
	}
	local_irq_restore(flags);
}

/* Every node's barn (a barn per node, as Linux 7.0's: each CPU uses its own node's). */
static void sheaves_shrink(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int nid;

	for_each_kmem_cache_node(s, nid, n)
		sheaves_shrink_barn(s, n->priv);
}

static unsigned long sheaves_count_free(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	return sc(c)->main->size + (sc(c)->spare ? sc(c)->spare->size : 0);
}

static unsigned long sheaves_count_node_free(struct kmem_cache *s)
{
	struct kmem_cache_node *node;
	struct slab_sheaf *sheaf;
	unsigned long flags, n = 0;
	int nid;

	for_each_kmem_cache_node(s, nid, node) {
		struct node_barn *barn = node->priv;

		spin_lock_irqsave(&barn->lock, flags);
		for (sheaf = barn->stack[BARN_FULL].top; sheaf; sheaf = sheaf->barn_next)
			n += sheaf->size;
		spin_unlock_irqrestore(&barn->lock, flags);
	}
	return n;
}

/* On each cpu, from a cross-call (interrupts off): its main and spare fitted. */
static void sheaves_fit_cpu(void *arg)
{
	struct kmem_cache *s = arg;
	struct kmem_cache_cpu *c = this_cpu_slab(s);

	sc(c)->main = sheaf_fit(s, c, sc(c)->main);
	if (sc(c)->spare)
		sc(c)->spare = sheaf_fit(s, c, sc(c)->spare);
}

/* Every sheaf in one node's barn fitted: taken out, fitted here, given back. */
static void sheaves_fit_barn(struct kmem_cache *s, struct node_barn *barn)
{
	struct barn_stack taken = { NULL, 0 };
	struct kmem_cache_cpu *c;
	struct slab_sheaf *sheaf;
	unsigned long flags;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	barn_take_all(barn, &taken);
	while ((sheaf = barn_pop(&taken))) {
		struct barn_stack *st;
		bool kept = false;

		sheaf = sheaf_fit(s, c, sheaf);
		st = &barn->stack[barn_kind(sheaf)];
		spin_lock(&barn->lock);
		if (st->nr < BARN_MAX) { /* others may have filled it meanwhile */
			barn_push(st, sheaf);
			kept = true;
		}
		spin_unlock(&barn->lock);
		if (!kept) {
			if (sheaf->size)
				flush(s, c, sheaf, __builtin_return_address(0));
			free_sheaf(s, sheaf);
		}
	}
	local_irq_restore(flags);
}

/*
 * kmem_cache_set_sheaf_capacity (mm/slab.h), which Linux 7.0 lacks (its capacity is fixed
 * when the cache is created): the new capacity for every sheaf made from now on, then every
 * cpu's main and spare fitted by cross-call (they are touched only by their cpu, interrupts
 * off or soft-masked, and a cross-call waits for both), then every barn's sheaves. A sheaf
 * some cpu takes from a barn meanwhile is fitted as it is taken (barn_get, barn_exchange),
 * and one it puts there after the barn's pass was that cpu's, fitted already: once this
 * returns, every sheaf of the cache has the new capacity (or, short of memory, the most
 * its page holds).
 */
static int sheaves_set_param(struct kmem_cache *s, const char *name, unsigned int value)
{
	struct kmem_cache_node *n;
	int nid;

	if (strcmp(name, "sheaf_capacity"))
		return -2;
	if (!value || value > SLAB_SHEAF_MAX) {
		printk("kmem_cache_set_sheaf_capacity(%s): %u objects; a sheaf holds 1 to %u\n",
		       s->name, value, SLAB_SHEAF_MAX);
		return -1;
	}
	__atomic_store_n(&shc(s)->capacity, value, __ATOMIC_RELAXED);
	on_each_cpu(sheaves_fit_cpu, s, 1);
	for_each_kmem_cache_node(s, nid, n)
		sheaves_fit_barn(s, n->priv);
	return 0;
}

static int sheaves_get_param(struct kmem_cache *s, const char *name, unsigned int *value)
{
	if (strcmp(name, "sheaf_capacity"))
		return -2;
	*value = capacity_of(s);
	return 0;
}

struct count_sheaves {
	struct kmem_cache *s;
	unsigned long n;
};

/* On each cpu, from a cross-call (interrupts off): its main and spare, if it has them. */
static void count_cpu_sheaves(void *arg)
{
	struct count_sheaves *cs = arg;
	struct kmem_cache_cpu *c = this_cpu_slab(cs->s);
	unsigned long n = !no_main(sc(c)->main) + !!sc(c)->spare + !!sc(c)->rcu_free;

	__atomic_fetch_add(&cs->n, n, __ATOMIC_RELAXED);
}

/* The sheaves the cache has: the cpus' (rcu_free ones too), those waiting for a grace period
 * and the barns' (counted here, not as they come and go: nothing on the paths that make and
 * free them). */
static unsigned long nr_sheaves(struct kmem_cache *s)
{
	struct count_sheaves cs = { s, 0 };
	struct kmem_cache_node *node;
	unsigned long flags;
	int nid;

	on_each_cpu(count_cpu_sheaves, &cs, 1);
	cs.n += (unsigned long)MAX(0L, __atomic_load_n(&shc(s)->rcu_sheaves, __ATOMIC_RELAXED));
	for_each_kmem_cache_node(s, nid, node) {
		struct node_barn *barn = node->priv;

		spin_lock_irqsave(&barn->lock, flags);
		cs.n += barn->stack[BARN_EMPTY].nr + barn->stack[BARN_FULL].nr;
		spin_unlock_irqrestore(&barn->lock, flags);
	}
	return cs.n;
}

/*
 * Every sheaf is a page of its own here (never from a slab cache: mm/sheaf.h); in Linux 7.0
 * a kmalloc of its header and pointers (the bucket the linux7 rule fills).
 */
static void sheaves_layer_mem(struct kmem_cache *s, unsigned long *pages,
			      unsigned long *linux7_bytes)
{
	*pages = nr_sheaves(s);
	*linux7_bytes = *pages * kmalloc_size_roundup(LINUX7_SHEAF_HEADER +
						      capacity_of(s) * sizeof(void *));
}

static void sheaves_slabinfo(struct kmem_cache *s)
{
	printk(" sheaf_capacity=%u sheaves=%lu", capacity_of(s), nr_sheaves(s));
}

/* 0 only for a cache with debug flags, and those run on another scheme (mm/slub_debug.c). */
static int sheaves_init_cache(struct kmem_cache *s)
{
	shc(s)->capacity = MAX(1u, sheaf_capacity(s));
	return 0;
}

static int sheaves_init_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu)
{
	sc(c)->main = &no_sheaf;
	return 0;
}

static int sheaves_init_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct node_barn *barn = n->priv;

	spin_lock_init(&barn->lock, "barn");
	barn->stack[BARN_EMPTY] = barn->stack[BARN_FULL] = (struct barn_stack){ NULL, 0 };
	return 0;
}

/* Destroy comes after a shrink, which empties the barn: a sheaf left here is a bug. */
static void sheaves_exit_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct node_barn *barn = n->priv;

	if (barn->stack[BARN_FULL].nr || barn->stack[BARN_EMPTY].nr)
		printk("slab: %s: destroyed with %u full and %u empty sheaves in the barn\n",
		       s->name, barn->stack[BARN_FULL].nr, barn->stack[BARN_EMPTY].nr);
}

/* test=nolock holds it and sends NMIs there (struct slab_scheme's node_lock). */
static struct spinlock *sheaves_node_lock(struct kmem_cache *s, struct kmem_cache_node *n)
{
	return &((struct node_barn *)n->priv)->lock;
}

static const struct slab_scheme sheaves_scheme = {
	.name = "sheaves",
	.summary = "per-cpu arrays of objects in front of the slabs, a barn per node (Babka 2025, Linux 6.18)",
	.order = 30,
	.get_partial = get_partial_node,
	.flush_cpu = sheaves_flush_cpu,
	.alloc = sheaves_alloc,
	.free = sheaves_free,
	.layer_name = "sheaf",
	.free_entry = sheaves_free_entry,
	.alloc_bulk = sheaves_alloc_bulk,
	.free_bulk = sheaves_free_bulk,
	.count_free = sheaves_count_free,
	.count_node_free = sheaves_count_node_free,
	.shrink = sheaves_shrink,
	.cache_size = sizeof(struct sheaves_cache),
	.cpu_size = sizeof(struct sheaves_cpu),
	.node_size = sizeof(struct node_barn),
	.init_cache = sheaves_init_cache,
	.init_cpu = sheaves_init_cpu,
	.init_node = sheaves_init_node,
	.exit_node = sheaves_exit_node,
	.stat_names = sheaves_stat_names,
	.nr_stats = NR_SHEAVES_STATS,
	.stat_offset = offsetof(struct sheaves_cpu, stat),
	.set_param = sheaves_set_param,
	.get_param = sheaves_get_param,
	.layer_mem = sheaves_layer_mem,
	.slabinfo = sheaves_slabinfo,
	.free_rcu = sheaves_free_rcu,
	.flush_rcu = sheaves_flush_rcu,
	.node_lock = sheaves_node_lock,
};
slab_scheme_register(sheaves_scheme);
