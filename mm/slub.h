/* SPDX-License-Identifier: MIT */
/*
 * SLUB's internals, shared by the core (mm/slub.c) and the schemes (mm/scheme_*.c).
 * mm/slub.c opens with the design: read that first.
 */
#ifndef SLABLAB_SLUB_H
#define SLABLAB_SLUB_H

#include "kernel/arch.h"
#include "kernel/irqflags.h"
#include "kernel/list.h"
#include "kernel/numa.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/*
 * The core's per-cpu event counters, Linux's enum stat_item (one comment each). A scheme's
 * own counters are declared in its file and kept in its per-cpu area (struct slab_scheme's
 * stat_names, nr_stats and stat_offset).
 */
enum stat_item {
	ALLOC_FASTPATH,          /* allocation from the cpu freelist */
	ALLOC_SLOWPATH,          /* allocation that went through ___slab_alloc */
	FREE_FASTPATH,           /* free to the cpu slab's freelist */
	FREE_SLOWPATH,           /* free to a slab that is not this cpu's slab */
	FREE_FROZEN,             /* slow free to a frozen slab (another cpu's, or a cpu partial) */
	FREE_ADD_PARTIAL,        /* slow free put a full slab on the node partial list */
	FREE_REMOVE_PARTIAL,     /* slow free took an emptied slab off the node partial list */
	ALLOC_FROM_PARTIAL,      /* cpu slab taken from the node partial list */
	ALLOC_SLAB,              /* new slab from the page allocator (a bulk one's: or the stash) */
	ALLOC_REFILL,            /* cpu freelist refilled from the cpu slab's own freelist */
	FREE_SLAB,               /* slab given back to the page allocator (or the bulk stash) */
	CPUSLAB_FLUSH,           /* cpu slab flushed (shrink, destroy) */
	DEACTIVATE_FULL,         /* cpu slab deactivated while full */
	DEACTIVATE_EMPTY,        /* cpu slab deactivated while empty */
	DEACTIVATE_TO_HEAD,      /* deactivated to the head of the node partial list */
	DEACTIVATE_TO_TAIL,      /* deactivated to the tail of the node partial list */
	DEACTIVATE_REMOTE_FREES, /* deactivated slab had objects freed by other cpus */
	DEACTIVATE_BYPASS,       /* cpu slab exhausted, dropped without a list operation */
	CMPXCHG_DOUBLE_CPU_FAIL, /* cmpxchg fastpath retried (an interrupt got in between) */
	CMPXCHG_DOUBLE_FAIL,     /* cmpxchg on a slab's freelist+counters retried */
	LIST_LOCK,               /* list_lock acquisitions */
	LIST_LOCK_CONTENDED,     /* of which found the lock held */
	KFREE_RCU,               /* objects kfree_rcu took, to free after a grace period */
	KFREE_RCU_FREED,         /* of those, freed after it (the rest: slabinfo's rcu_waiting) */
	NR_SLUB_STAT_ITEMS
};

extern const char *const slub_stat_names[NR_SLUB_STAT_ITEMS];

/*
 * A slab: 2^order pages cut into objects. Overlays the struct page of its first page (the
 * page allocator's fields first, untouched), so virt_to_slab() is O(1) from any object.
 * freelist and counters are updated together with cmpxchg16b by whoever does not own the
 * slab: they must be adjacent and 16-byte aligned. Without cmpxchg16b (SLAB_NO_CMPXCHG)
 * the pair is updated under the lock byte instead (slab_update_freelist).
 */
struct slab {
	struct list_head slab_list; /* node partial list; n->list_lock */
	u32 page_flags;             /* struct page's flags (PG_slab) */
	u8 page_order;
	u8 locked;                  /* slab_lock(): SLAB_NO_CMPXCHG caches only */
	u8 _pad;
	u8 page_nid;                /* struct page's nid: the node the slab's memory is on */
	struct kmem_cache *slab_cache;
	void *freelist; /* first free object not on a cpu freelist */
	union {
		unsigned long counters;
		struct {
			unsigned inuse : 16;   /* objects not on slab->freelist */
			unsigned objects : 15; /* objects in the slab */
			unsigned frozen : 1;   /* owned by a cpu: cpu slab or on a cpu partial list */
			int owner;             /* cpu that froze it last; owner schemes: its owner */
		};
	};
	struct slab *next; /* the scheme's list link (a cpu partial list, a transfer list) */
	int scheme_state;  /* the scheme's own word about the slab */
	int scheme_pad;
};
_Static_assert(sizeof(struct slab) == sizeof(struct page), "struct slab overlays struct page");
_Static_assert(offsetof(struct slab, freelist) % 16 == 0, "cmpxchg16b needs 16-byte alignment");
_Static_assert(offsetof(struct slab, counters) == offsetof(struct slab, freelist) + 8,
	       "freelist and counters are one cmpxchg16b");
_Static_assert(offsetof(struct slab, page_flags) == offsetof(struct page, flags), "page flags");
_Static_assert(offsetof(struct slab, page_order) == offsetof(struct page, order), "page order");
_Static_assert(offsetof(struct slab, page_nid) == offsetof(struct page, nid), "page node");
_Static_assert(offsetof(struct slab, slab_cache) == offsetof(struct page, private_),
	       "slab_cache is where later pages hold the cache (in_slab_of)");

/*
 * Per cache and per cpu: what the core's paths need. The cpu freelist is one word: a plain
 * pointer for the irq fastpath, or for the cmpxchg fastpath the pointer and a transaction id
 * packed for one 8-byte cmpxchg ("the freelist word" below). A scheme's own per-cpu state
 * is in its private area (priv, sized by the scheme's registration: struct slab_scheme's
 * cpu_size), its counters in it. An area of at most SLAB_CPU_AREA_BYTES is scheme_area
 * itself (priv points there), which a scheme's fastpath reaches at a fixed offset from c,
 * without loading priv (scheme_cpu_area below).
 */
#define SLAB_CPU_AREA_BYTES 128
/*
 * The bulk calls' stash of bare slabs (mm/slub.c, "the stash"): at most this many pages a
 * cache keeps per cpu, as slabs emptied by a whole-slab bulk free that the next bulk
 * allocation takes again without the page allocator.
 */
#define SLAB_STASH_PAGES 16
/*
 * The freelist is the second word, not the first: the array of these is page-aligned and a
 * slab's first object is at the start of its page, so as the first word cpu 0's freelist
 * had the same low 12 address bits as the free pointer of that object (and of every
 * object at a page start), and the CPU took the fastpath's load of the one, after a store
 * to the other, for a load of the same address (4K aliasing). At 8 mod 16 in every cpu's
 * copy (the stride is a multiple of 16) it shares them with no free pointer at a multiple
 * of 16. As the first word, the cmpxchg pair costs about a fifth more on an AMD EPYC
 * (make bench-host).
 */
struct kmem_cache_cpu {
	struct slab *slab;     /* the cpu slab, frozen, or NULL; set with cpu_slab_set() */
	union {
		void *freelist; /* next object to hand out (objects of `slab` only), as a plain
				 * pointer: the irq fastpath's caches and a layered scheme's */
		unsigned long fl_word; /* the same with a tid (s->cpu_tid): cpu_freelist() */
	};
	/*
	 * The fastpath's test that a freed pointer is an object start in the cpu slab, without
	 * finding its slab (caches of a power-of-two size, whose slab is a power of two too):
	 * (p - slab_base) & slab_mask == 0, slab_mask having every bit at or above the slab's
	 * size and every bit below the object size. With no cpu slab: base 0 and every bit,
	 * which only NULL passes, and NULL then equals the empty cpu freelist (the double-free
	 * test), which sends it to slab_report_bad, where freeing NULL is no bad input.
	 */
	uptr slab_base;
	unsigned long slab_mask;
	void *priv;            /* the scheme's per-cpu area (NULL if its cpu_size is 0) */
	struct slab *stash;    /* bare slabs, linked by slab->next; stash_lock held */
	u32 stash_nr;          /* slabs on it (written under stash_lock; read by anyone) */
	u32 stash_lock;        /* 0 free, 1 held: its cpu's trylock, a drainer's spin */
	/*
	 * How many objects the cpu freelist holds at least, less stat[FREE_FASTPATH] plus
	 * stat[ALLOC_FASTPATH] (cpu_freelist_known below): the fastpaths count every object
	 * they push or pop, so they keep the bound without a store of their own, and the bulk
	 * allocation takes that many objects without a NULL test.
	 */
	long freelist_known;
	u64 stat[NR_SLUB_STAT_ITEMS];
	u64 scheme_area[SLAB_CPU_AREA_BYTES / 8]; /* priv, when cpu_size fits */
} __aligned(64);
_Static_assert(sizeof(struct kmem_cache_cpu) % 64 == 0,
	       "every cpu's copy starts a cache line (kernel/percpu.h's percpu_slub_stride)");

struct kmem_cache_node {
	struct spinlock list_lock;
	/* list_lock must be held to use these: */
	unsigned long nr_partial;
	struct list_head partial;
	/* Changed atomically: */
	long nr_slabs;
	long total_objects;
	unsigned long alloc_remote; /* slabs taken off this list by a CPU of another node */
	unsigned long free_remote;  /* slow frees to this node's slabs from another node's CPU */
	void *priv; /* the scheme's per-node area (NULL if its node_size is 0) */
};

struct slab_scheme;

struct kmem_cache {
	struct kmem_cache_entry entry; /* first: kmem_cache_alloc/free call through it (slab.h) */
	struct kmem_cache_cpu *cpu_slab; /* [nr_cpu_ids] */
	/* The scheme's own layer, if it has one (copied from scheme: one load on the fastpath). */
	void *(*layer_alloc)(struct kmem_cache *s, gfp_t gfp);
	void (*layer_free)(struct kmem_cache *s, void *object, void *caller);
	const struct slab_scheme *scheme;
	enum slab_fastpath fastpath;
	bool cpu_tid;             /* the cpu freelist is a freelist word with a tid: the core's
				   * cmpxchg fastpath runs for this cache (create_cache) */
	unsigned int bulk_core;   /* the core's bulk fast parts take it (slab_choose_paths) */
	unsigned int stash_max;   /* slabs on each cpu's stash at most (0: no stash) */
	unsigned long flags;
	unsigned int size;        /* bytes per object slot */
	unsigned int object_size; /* bytes the user asked for */
	unsigned int offset;      /* of the free pointer in an object */
	unsigned int align;
	unsigned int order;       /* of each slab */
	unsigned int objects;     /* per slab */
	u32 reciprocal_size;      /* (2^32 + size - 1) / size: object index without a division */
	void *priv;               /* the scheme's per-cache area (NULL if its cache_size is 0) */
	unsigned long min_partial;/* empty slabs kept on the node list */
	void (*ctor)(void *);
	char name[KMEM_CACHE_NAME_MAX + 1];
	struct list_head list;    /* slab_caches; slab_mutex */
	unsigned int cpu_slab_order; /* of the block of cpu_slab, the private areas after it */
	/*
	 * Debugging and hardening (mm/slub_debug.c); 0 and NULL for a plain cache.
	 * freeptr_xor_key is the key free pointers are stored XORed with (freelist_hardened=);
	 * red_left_pad the left red zone in front of each object; the rest (layout,
	 * checks, shuffled freelist order; dbg): a cache with dbg runs on a copy of its scheme whose
	 * alloc/free replace the fastpaths.
	 */
	unsigned long freeptr_xor_key;
	unsigned int red_left_pad;
	unsigned int size_mask;   /* size - 1 for a power-of-two size (the fastpath's test of an
				   * object start), 0 for any other (the reciprocal test) */
	struct slub_debug_state *dbg;
	/*
	 * The pages the cache holds (its slabs' and its bulk stashes'), counted where they come
	 * from and go back to the page allocator (allocate_slab_bare, slab_pages_free), and the
	 * most it held at once since it was created or kmem_cache_mem_reset_peak: exact.
	 */
	long pages_held, pages_peak;
	/*
	 * SLAB_TYPESAFE_BY_RCU (mm/slub_rcu.c): the free pointer's place asked for by
	 * kmem_cache_create_rcu (use_freeptr_offset), and the pages of freed slabs waiting for
	 * their grace period (still among pages_held until they reach the page allocator).
	 */
	bool use_freeptr_offset;
	unsigned int freeptr_offset;
	long rcu_pages;
	struct kmem_cache_node node[MAX_NUMNODES]; /* [nr_node_ids] used */
};

/*
 * A scheme: where partial slabs live and how a CPU refills its cpu slab, or a layer of its
 * own in front of the slabs. One file, mm/scheme_NAME.c, ending with
 * slab_scheme_register(); docs/writing-a-scheme.md has the order of calls. The core calls
 * the hooks that take a kmem_cache_cpu with interrupts off on the CPU whose it is.
 */
struct slab_scheme {
	const char *name;
	const char *summary;  /* one line: what it is, after whom */
	unsigned long flags;  /* SLAB_SCHEME_* (mm/slab.h); LAYER is set for you with alloc */
	int order;            /* place in the registry (lists, benchmark columns); then name */
	/* Find a slab with free objects for this cpu; freeze it, take its freelist, make it the
	 * cpu slab (c->slab) and return the freelist. NULL: none; the core allocates a slab.
	 * Unused (NULL) in schemes whose layer replaces the core's paths (owner schemes). */
	void *(*get_partial)(struct kmem_cache *s, struct kmem_cache_cpu *c);
	/* A slow free froze a formerly full slab for this cpu: keep it (only with CPU_PARTIAL). */
	void (*put_frozen)(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab);
	/* Give what this cpu keeps (partial slabs, a layer) back (shrink, destroy); optional. */
	void (*flush_cpu)(struct kmem_cache *s, struct kmem_cache_cpu *c);
	/*
	 * Optional, for schemes that put their own layer in front of the cpu slab: they
	 * replace the fastpaths. free gets objects the core has checked. count_free adds the
	 * free objects this cpu holds outside the cpu slab (interrupts off); count_node_free
	 * those the node keeps; shrink empties what the node keeps after every cpu was flushed.
	 */
	void *(*alloc)(struct kmem_cache *s, gfp_t gfp);
	void (*free)(struct kmem_cache *s, void *object, void *caller);
	/* With alloc: what the variants of the scheme call its path (mm/slab.h's slab_variant,
	 * the benchmarks' columns); NULL: "layer". */
	const char *layer_name;
	/*
	 * Optional, with free: kmem_cache_free's entry point itself for a plain cache of a
	 * power-of-two size (s->size_mask set; never a debug or hardened cache, which keep
	 * free). It does its own check: it may keep only what is certainly an object of this
	 * cache and safe to take there (say an object start in this cpu's slab,
	 * cpu_slab_has_object, whose base and mask the scheme then keeps with cpu_slab_set),
	 * and must end in a jump to slab_free_checked with anything else (NULL
	 * included): the full check, then free.
	 */
	void (*free_entry)(struct kmem_cache *s, void *p);
	/* Optional, with alloc: kmem_cache_alloc's entry point for a plain cache (never a debug
	 * or hardened one): alloc itself, reading free pointers without the hardening test. */
	void *(*alloc_entry)(struct kmem_cache *s, gfp_t gfp);
	int (*alloc_bulk)(struct kmem_cache *s, gfp_t gfp, size_t n, void **p);
	void (*free_bulk)(struct kmem_cache *s, size_t n, void **p, void *caller);
	unsigned long (*count_free)(struct kmem_cache *s, struct kmem_cache_cpu *c);
	unsigned long (*count_node_free)(struct kmem_cache *s);
	void (*shrink)(struct kmem_cache *s);
	/*
	 * Private state: cache_size bytes per cache at s->priv, cpu_size per cpu at c->priv
	 * and node_size per node at n->priv, zeroed, set up by init_cache (first), init_cpu and
	 * init_node when the cache is created (0: failure, the cache is not created) and torn
	 * down by exit_cpu, exit_node and exit_cache (last) when it is destroyed, after the last
	 * flush; all optional. They run on the creating or destroying cpu. init_cache is where
	 * a scheme's settings for s come from its object size and its own boot options, the
	 * cpu partial budget (cpu_partial=) or the objects per sheaf, say: the core has none.
	 */
	size_t cache_size, cpu_size, node_size;
	int (*init_cache)(struct kmem_cache *s);
	void (*exit_cache)(struct kmem_cache *s);
	int (*init_cpu)(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu);
	void (*exit_cpu)(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu);
	int (*init_node)(struct kmem_cache *s, struct kmem_cache_node *n);
	void (*exit_node)(struct kmem_cache *s, struct kmem_cache_node *n);
	/* The scheme's own counters: nr_stats u64s at stat_offset in its per-cpu area (an
	 * array in its cpu struct, counted there directly), called stat_names[i] in slabinfo
	 * and kmem_cache_stat_by_name (a name ending in _max is a maximum across cpus). */
	const char *const *stat_names;
	unsigned int nr_stats;
	size_t stat_offset;
	/* Optional: more for slabinfo's line of s (after the counters) and lines after it. */
	void (*slabinfo)(struct kmem_cache *s);
	/*
	 * Optional: a setting of the scheme's for one cache (sheaf_capacity, cpu_partial), by
	 * name, changed at run time and safe while other cpus allocate and free
	 * (kmem_cache_set_param): 0; -1 a value out of range (said on the console); -2 the
	 * scheme has no such setting. get_param reads one: 0, or -2.
	 */
	int (*set_param)(struct kmem_cache *s, const char *name, unsigned int value);
	int (*get_param)(struct kmem_cache *s, const char *name, unsigned int *value);
	/*
	 * Optional: the pages the scheme allocates for itself beyond the slabs (sheaves), now,
	 * and the bytes the same structures take in Linux 7.0 (kmem_cache_mem's).
	 */
	void (*layer_mem)(struct kmem_cache *s, unsigned long *pages, unsigned long *linux7_bytes);
	/*
	 * Optional: kfree_rcu's batch of the scheme's own (sheaves: the rcu_free sheaf), for an
	 * object of s on this cpu's node that the core has checked and counted (KFREE_RCU);
	 * interrupts off, on the cpu whose c is, any context but NMI. true: taken, to be freed
	 * after a grace period, when the scheme counts it with slab_rcu_freed; false: the
	 * core's per-cpu batch takes it. flush_rcu (with free_rcu) hands the batch this cpu has
	 * not yet given to call_rcu over now (kvfree_rcu_barrier; from a cross-call).
	 */
	bool (*free_rcu)(struct kmem_cache *s, struct kmem_cache_cpu *c, void *object);
	void (*flush_rcu)(struct kmem_cache *s, struct kmem_cache_cpu *c);
	/*
	 * Optional: a lock of the scheme's own per node n (the barn's), which its paths take
	 * with interrupts off. test=nolock holds it while NMIs land there, whose
	 * kmalloc_nolock and kfree_nolock must not wait for it (mm/slub_nolock.c never takes
	 * a scheme's lock: a scheme that needs it to hand out objects says what it does
	 * instead in docs/writing-a-scheme.md).
	 */
	struct spinlock *(*node_lock)(struct kmem_cache *s, struct kmem_cache_node *n);
	/*
	 * Optional, for a scheme whose slabs with free objects are only its cpus' own (an owner
	 * scheme's): kmalloc_nolock in an NMI that interrupted code with interrupts on (so
	 * none of the scheme's per-cpu state is being changed under it) found c's cpu freelist
	 * empty. Refill it from what this cpu holds, or from a new slab whose pages come with
	 * gfp (__GFP_NOLOCK: the page allocator's locks only tried); never wait for a lock,
	 * send an IPI, give a slab back or print. true: the cpu freelist has objects again
	 * (*new_slab says whether from a new slab). Without it such a scheme's NMIs get the cpu
	 * freelist and nothing more.
	 */
	bool (*nmi_refill)(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp,
			   bool *new_slab);
};

/*
 * Put a scheme in the registry: the last line of its file, as kunit_test_suite ends a test
 * suite. The scheme may be static: the registry holds a pointer in the linker section
 * .slab_schemes, so a copied file only needs its .name changed.
 */
#define slab_scheme_register(var)                                                                \
	static const struct slab_scheme *const __slab_scheme_##var __used                          \
		__section(".slab_schemes") __section_array_entry = &(var)

/* The scheme's counters of this cpu (the core's view of stat_offset). */
static inline u64 *scheme_stats(const struct slab_scheme *sch, struct kmem_cache_cpu *c)
{
	return (u64 *)((char *)c->priv + sch->stat_offset);
}

/* The scheme debug caches of that mode run on (mm/slab_common.c's registry). */
const struct slab_scheme *slab_scheme_for_debug(enum slab_debug_mode mode);

/* The scheme's counter i of s, summed over cpus (a maximum for a name ending in _max). */
u64 kmem_cache_scheme_stat(struct kmem_cache *s, unsigned int i);

/*
 * c's private area as the scheme's type, for a scheme whose area fits in struct
 * kmem_cache_cpu (checked at compile time): c->priv without the load.
 */
#define scheme_cpu_area(c, type)                                                                   \
	({                                                                                         \
		_Static_assert(sizeof(type) <= SLAB_CPU_AREA_BYTES, #type " fits scheme_area");    \
		(type *)(void *)(c)->scheme_area;                                                  \
	})

/* The scheme's private area of cpu `cpu`. */
static inline void *scheme_cpu(struct kmem_cache *s, int cpu)
{
	return s->cpu_slab[cpu].priv;
}

/*
 * The free pointer of a free object, at s->offset. With freelist hardening (freeptr_xor_key
 * set) it is stored as pointer ^ key ^ byte-swapped address of the slot (Linux's
 * CONFIG_SLAB_FREELIST_HARDENED). Hardened caches never take the inlined fastpaths, which
 * use the _fast variants without the test.
 */
static inline unsigned long freeptr_key(const struct kmem_cache *s, const void *slot)
{
	return s->freeptr_xor_key ^ __builtin_bswap64((unsigned long)(uptr)slot);
}

static inline void *get_freepointer(struct kmem_cache *s, void *object)
{
	void **slot = (void **)((char *)object + s->offset);
	unsigned long v = (unsigned long)(uptr)*slot;

	if (unlikely(s->freeptr_xor_key))
		v ^= freeptr_key(s, slot);
	return (void *)(uptr)v;
}

static inline void set_freepointer(struct kmem_cache *s, void *object, void *fp)
{
	void **slot = (void **)((char *)object + s->offset);
	unsigned long v = (unsigned long)(uptr)fp;

	if (unlikely(s->freeptr_xor_key))
		v ^= freeptr_key(s, slot);
	*slot = (void *)(uptr)v;
}

/*
 * Does a free object keep its content (no poison, no init_on_free, the free pointer outside
 * it or where kmem_cache_create_rcu put it)? With a constructor (its work must survive) and
 * for SLAB_TYPESAFE_BY_RCU (readers may still read it), as in Linux.
 */
static inline bool slab_keeps_content(const struct kmem_cache *s)
{
	return s->ctor || (s->flags & SLAB_TYPESAFE_BY_RCU);
}

/*
 * Where the free pointer goes, as Linux's calculate_sizes decides: past the object (true)
 * with a constructor, with poisoning, and for SLAB_TYPESAFE_BY_RCU without a freeptr_offset;
 * else at kmem_cache_create_rcu's freeptr_offset, or at 0.
 */
static inline bool freeptr_outside(const struct kmem_cache *s, bool poison)
{
	return s->ctor || poison ||
	       ((s->flags & SLAB_TYPESAFE_BY_RCU) && !s->use_freeptr_offset);
}

static inline void *slab_address(struct slab *slab)
{
	return page_address((struct page *)slab);
}

/*
 * s->cpu_slab[smp_processor_id()], without the multiply: the offset is per-cpu (%gs:24 on
 * x86, a thread-local variable on the host): one load and an add.
 */
static inline struct kmem_cache_cpu *this_cpu_slab(struct kmem_cache *s)
{
	return (struct kmem_cache_cpu *)((char *)s->cpu_slab + arch_slub_cpu_off());
}

/*
 * A fastpath function: no frame pointer, and calls in tail position become jumps, so a path
 * that ends in its slow half keeps nothing (no saved registers, no frame) on the fast one.
 * A backtrace from the slow half skips it and names its caller.
 */
#ifdef __clang__
#define FASTPATH_FN /* clang (the fuzzer's build) has no optimize attribute */
#else
#define FASTPATH_FN __attribute__((optimize("omit-frame-pointer", "optimize-sibling-calls")))
#endif

/* Make slab (or none: NULL) this cpu's slab. Interrupts off, on the cpu whose c is. */
static inline void cpu_slab_set(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab)
{
	c->slab = slab;
	c->slab_base = slab ? (uptr)slab_address(slab) : 0;
	c->slab_mask = slab ? ~((PAGE_SIZE << s->order) - 1) | (s->size - 1) : ~0UL;
}

/*
 * Is p an object start in c's cpu slab (kmem_cache_cpu's comment on slab_base)? Only for
 * caches of a power-of-two size (s->size_mask set); with no cpu slab only NULL passes. The
 * free fastpaths' whole check: such an object is certainly one of this cache's.
 */
static inline bool cpu_slab_has_object(const struct kmem_cache_cpu *c, const void *p)
{
	return !(((uptr)p - c->slab_base) & c->slab_mask);
}

/* The slab an address is in, or NULL if it is not in a slab. */
static inline struct slab *virt_to_slab(const void *p)
{
	struct page *page;

	if (unlikely(!virt_addr_valid(p)))
		return NULL;
	page = compound_head(virt_to_page(p));
	return (page->flags & PG_slab) ? (struct slab *)page : NULL;
}

/*
 * Core services for the schemes (mm/slub.c). The nodes: get_node is this CPU's node (where
 * its new slabs come from and its get_partial looks first), slab_node the node a slab's
 * memory is on (whose list it goes back to), get_node_nid any. A debug cache (s->dbg) keeps
 * one list, node 0's, whatever node its pages are on: mm/slub_debug.c's walks and its
 * locked mode hold one list_lock.
 */
static inline struct kmem_cache_node *get_node_nid(struct kmem_cache *s, int nid)
{
	return &s->node[unlikely(s->dbg) ? 0 : nid];
}

static inline struct kmem_cache_node *get_node(struct kmem_cache *s)
{
	return get_node_nid(s, numa_node_id());
}

static inline int slab_nid(const struct slab *slab)
{
	return slab->page_nid;
}

static inline struct kmem_cache_node *slab_node(struct kmem_cache *s, const struct slab *slab)
{
	return get_node_nid(s, slab->page_nid);
}

/* The nodes of s: 0..nr_node_ids-1 (debug caches: node 0 alone). */
static inline int kmem_cache_nr_nodes(const struct kmem_cache *s)
{
	return unlikely(s->dbg) ? 1 : nr_node_ids;
}

#define for_each_kmem_cache_node(s, nid, n)                                                   \
	for ((nid) = 0; (nid) < kmem_cache_nr_nodes(s) && ((n) = &(s)->node[nid], 1); (nid)++)

static inline void stat(struct kmem_cache *s, struct kmem_cache_cpu *c, enum stat_item si)
{
	c->stat[si]++;
}

/*
 * The freelist word of a cache with a tid (s->cpu_tid, the cmpxchg fastpath's): the cpu
 * freelist pointer plus a transaction id times 2^48, so that one 8-byte cmpxchg without a
 * lock prefix swaps both (atomic against this cpu's interrupts, all per-cpu data needs;
 * 32-bit Linux packs its freelist and tid into one cmpxchg8b the same way). Every change
 * of the cpu freelist or of the cpu slab steps the tid, so the cmpxchg of a fastpath that
 * an interrupt got into fails and it retries. The pointer is the word's low 48 bits, the
 * tid the top 16: every object's address is below 2^48 (the kernel maps RAM at virtual ==
 * physical, mm/page_alloc.h; the host's arena is at 1 GiB; allocate_slab_bare checks each
 * slab once), so a plain pointer is its own word with tid 0 and cpu_freelist() reads
 * either kind. The pointer comes out with one and; the next word is the next pointer plus
 * the word with all 48 low bits set, plus 1 (which carries into the tid: one or and one lea
 * on x86, and no constant but the mask the pointer needed already). The tid wraps after
 * 65536 steps: an interrupted fastpath is fooled only if this cpu's interrupts took
 * exactly a multiple of 65536 steps of this cache between its load and its cmpxchg and
 * left the same head.
 */
#define FL_WORD_ADDR_BITS 48
#define FL_WORD_TID_ONE (1UL << FL_WORD_ADDR_BITS)

static __always_inline void *fl_word_ptr(unsigned long w)
{
	return (void *)(uptr)(w & (FL_WORD_TID_ONE - 1));
}

static __always_inline unsigned long fl_word_tid(unsigned long w)
{
	return w >> FL_WORD_ADDR_BITS;
}

/* w's successor: p with the next tid (w | mask, plus 1, is the next tid times 2^48). */
static __always_inline unsigned long fl_word_next(unsigned long w, const void *p)
{
	return (uptr)p + (w | (FL_WORD_TID_ONE - 1)) + 1;
}

/* The cpu freelist of either kind (interrupts off, or this cpu's fastpath). */
static __always_inline void *cpu_freelist(const struct kmem_cache_cpu *c)
{
	return fl_word_ptr(c->fl_word);
}

/* The same where the kind is known at compile time (tid: s->cpu_tid). */
static __always_inline void *cpu_freelist_of(const struct kmem_cache_cpu *c, bool tid)
{
	return tid ? cpu_freelist(c) : c->freelist;
}

static __always_inline void cpu_freelist_put(struct kmem_cache_cpu *c, void *p, bool tid)
{
	if (tid)
		c->fl_word = fl_word_next(c->fl_word, p);
	else
		c->freelist = p;
}

/* Set it (interrupts off): with a tid, the next tid too (an interrupted cmpxchg fails). */
static __always_inline void cpu_freelist_set(const struct kmem_cache *s, struct kmem_cache_cpu *c,
					     void *p)
{
	cpu_freelist_put(c, p, s->cpu_tid);
}

/* The cpu slab changed under an unchanged cpu freelist: the next tid (interrupts off). */
static __always_inline void cpu_tid_step(const struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	cpu_freelist_set(s, c, cpu_freelist(c));
}

/*
 * A lower bound of the cpu freelist's length (interrupts off). It holds because everything
 * that takes objects off the cpu freelist either counts each in stat[ALLOC_FASTPATH] (the
 * fastpaths, the bulk allocation, which may count more than it took) or forgets the bound
 * (cpu_freelist_forget: a flush, a layer's take, the bulk allocation's tested walk), and
 * whatever counts stat[FREE_FASTPATH] has pushed at least that many objects. Pushes that do
 * not count (a slow free, a refill of the empty freelist) only leave the bound lower.
 */
static inline long cpu_freelist_known(const struct kmem_cache_cpu *c)
{
	/* ALLOC_FASTPATH read once: the bulk allocation's add to it stays an add to memory */
	return c->freelist_known +
	       (long)(c->stat[FREE_FASTPATH] - READ_ONCE(c->stat[ALLOC_FASTPATH]));
}

/*
 * The bound back to 0. Only the irq fastpath's bulk allocation reads it: the cmpxchg
 * fastpath's alloc counts after its swap, with interrupts on, so an interrupt's bulk
 * allocation could see one object too many (alloc_bulk_entry_cmpxchg tests each pointer).
 */
static inline void cpu_freelist_forget(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	c->freelist_known =
		(long)(READ_ONCE(c->stat[ALLOC_FASTPATH]) - READ_ONCE(c->stat[FREE_FASTPATH]));
}

bool slab_update_freelist_locked(struct slab *slab, void *fl, unsigned long counters,
				 void *new_fl, unsigned long new_counters);

/*
 * The pair as slab_update_freelist will compare it, read without any lock: two relaxed
 * loads (plain moves on x86-64), so a writer under slab_lock is no data race. A pair torn by
 * a concurrent update only makes the update fail, and the caller reads again.
 */
static inline void slab_read_freelist(const struct slab *slab, void **fl,
				      unsigned long *counters)
{
	*fl = __atomic_load_n(&slab->freelist, __ATOMIC_RELAXED);
	*counters = __atomic_load_n(&slab->counters, __ATOMIC_RELAXED);
}

/*
 * Replace slab->freelist and slab->counters together if they are still (fl, counters), as
 * one cmpxchg16b, or for SLAB_NO_CMPXCHG caches (every cache on a CPU without CMPXCHG16B)
 * under the slab's lock byte: Linux's slab_update_freelist and its slab_lock fallback
 * (mm/slub.c, 2011 on). Every writer of the pair of a cache goes through here, so the lock
 * excludes the other writers as the instruction does; readers need neither (a torn read
 * only makes the compare fail).
 */
/*
 * The graders' race injector (tests/kernel/slab_race_test.c): NULL, or a function that
 * slab_update_freelist calls first, where another cpu's free can land between a read of a
 * slab's pair and its update (docs/labs/lab4.md's take must retry when it does).
 */
extern void (*slab_update_race)(struct kmem_cache *s, struct slab *slab);

static inline bool slab_update_freelist(struct kmem_cache *s, struct slab *slab, void *fl,
					unsigned long counters, void *new_fl,
					unsigned long new_counters)
{
	if (unlikely(slab_update_race))
		slab_update_race(s, slab);
	if (unlikely(s->flags & SLAB_NO_CMPXCHG))
		return slab_update_freelist_locked(slab, fl, counters, new_fl, new_counters);
	return cmpxchg_double(&slab->freelist, (u64)(uptr)fl, counters, (u64)(uptr)new_fl,
			      new_counters);
}

void slub_lock_node(struct kmem_cache *s, struct kmem_cache_cpu *c, struct kmem_cache_node *n);
void add_partial(struct kmem_cache_node *n, struct slab *slab, bool tail);
void remove_partial(struct kmem_cache_node *n, struct slab *slab);
void *acquire_slab(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab,
		   bool for_cpu_slab, int *objects);
void unfreeze_partials(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *list);
void discard_slab(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab);
/* Every cpu's stash of s back to the page allocator (mm/slub.c, "the stash"): pages freed. */
unsigned long slub_drain_stashes(struct kmem_cache *s);
/* The pages every cpu's stash of s holds now (slabinfo's stash_pages; racy, for a report). */
unsigned long slub_stashed_pages(struct kmem_cache *s);
struct slab *allocate_slab(struct kmem_cache *s, gfp_t gfp);

/* The slab of an object the core has already checked (slab_free_check). */
static inline struct slab *obj_to_slab(const void *p)
{
	return (struct slab *)compound_head(virt_to_page(p));
}
/* This node's partial list first, then the other nodes' by distance (get_any_partial). */
void *get_partial_node(struct kmem_cache *s, struct kmem_cache_cpu *c);
/* One slab off node n's partial list as c's cpu slab, or NULL (irqs off). */
void *get_partial_from(struct kmem_cache *s, struct kmem_cache_cpu *c, struct kmem_cache_node *n);
/* The same from the other nodes than this CPU's, nearest first (schemes with their own
 * local-node search call it after). */
void *get_partial_remote(struct kmem_cache *s, struct kmem_cache_cpu *c);
void slab_report_bad(struct kmem_cache *s, const void *p, void *caller, const char *what);
struct slab *slab_free_check(struct kmem_cache *s, const void *p, void *caller);
/* A layer's kmem_cache_free after the full check (a scheme's free_entry jumps here). */
void slab_free_checked(struct kmem_cache *s, void *p);
/* For layers in front of the cpu slab, interrupts off on this cpu: */
void *slab_alloc_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp);
void slab_free_object_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			       void *object, void *caller);
/* For mm/slub_debug.c: */
void *slab_alloc_hardened(struct kmem_cache *s, gfp_t gfp);
void slab_free_hardened(struct kmem_cache *s, void *p, void *caller);
void slub_flush_all(struct kmem_cache *s);
void slab_free_for_layer(struct kmem_cache *s, struct kmem_cache_cpu *c, size_t n, void **p,
			void *caller);

/*
 * Between the two halves of the core: mm/slab_common.c (schemes, caches, kmalloc's classes
 * and large sizes, slabinfo) and mm/slub.c (slabs and the fastpaths).
 */
int __kmem_cache_create(struct kmem_cache *s, unsigned int align,
			enum slab_debug_mode debug_mode);
int __kmem_cache_shutdown(struct kmem_cache *s);
void __kmem_cache_release(struct kmem_cache *s);
void *kmalloc_large(size_t size, gfp_t gfp);
/* fn(s, arg) for every cache, under the list's lock (fn may cross-call, not wait for RCU). */
void slab_for_each_cache(void (*fn)(struct kmem_cache *s, void *arg), void *arg);

/* mm/slub_rcu.c: kfree_rcu's objects of s not yet freed, and large kmallocs' (any). */
unsigned long kmem_cache_rcu_waiting(struct kmem_cache *s);
unsigned long kfree_rcu_large_waiting(void);
void kfree_rcu_init(void); /* slab_init */

#define NR_KMALLOC_CACHES 13 /* 8 .. 8192 bytes, 96 and 192 included */
extern struct kmem_cache *kmalloc_caches[NR_KMALLOC_CACHES];

static inline unsigned int fls32(unsigned int x)
{
	return x ? 32 - (unsigned int)__builtin_clz(x) : 0;
}

static inline int kmalloc_index(size_t size)
{
	if (size <= 8)
		return 0;
	if (size <= 16)
		return 1;
	if (size <= 32)
		return 2;
	if (size <= 64)
		return 3;
	if (size <= 96)
		return 4;
	if (size <= 128)
		return 5;
	if (size <= 192)
		return 6;
	return (int)fls32((unsigned)size - 1) - 1; /* 256 -> 7 ... 8192 -> 12 */
}

/*
 * Flag the first page of a slab or large kmalloc and point the others at it (PG_tail,
 * private_[1]). The others also hold the slab's cache (NULL for a large kmalloc) in
 * private_[0], where the first page's struct slab has slab_cache: in_slab_of. The cache
 * is stored before the flag, so a page that shows PG_tail shows its cache. Relaxed atomic
 * stores: the page allocator reads the flags of neighbouring blocks while merging, without
 * our knowledge (mm/page_alloc.c).
 */
static inline void mark_compound(struct page *page, unsigned int order, u32 flag,
				 struct kmem_cache *s)
{
	for (unsigned long i = 1; i < (1UL << order); i++) {
		page[i].private_[0] = (u64)(uptr)s;
		page[i].private_[1] = (u64)(uptr)page;
		__atomic_store_n(&page[i].flags, PG_tail, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&page->flags, page->flags | flag, __ATOMIC_RELAXED);
}

static inline void unmark_compound(struct page *page, unsigned int order, u32 flag)
{
	for (unsigned long i = 1; i < (1UL << order); i++) {
		__atomic_store_n(&page[i].flags, 0, __ATOMIC_RELAXED);
		page[i].private_[0] = 0;
		page[i].private_[1] = 0;
	}
	__atomic_store_n(&page->flags, page->flags & ~flag, __ATOMIC_RELAXED);
}

/*
 * Whether p lies in a live slab of s, without finding the slab: any page of it holds the
 * cache in the same word (the first page's slab_cache, the others' private_[0]), so one
 * page read, no step to the first page, and no test of the page's flags: that word is the
 * cache's only while the page is a live slab's (slab_setup_bare sets it, slab_unset clears
 * it before the slab goes to the stash or the page allocator, and no other owner of a page
 * writes it: the page allocator leaves private_ alone). A quick check for fastpaths that
 * take objects of any slab (scheme_sheaves.c); false: ask virt_to_slab and the full check,
 * which say what is wrong. true says nothing of where in the slab p is.
 */
static inline bool in_slab_of(const struct kmem_cache *s, const void *p)
{
	if (unlikely(!virt_addr_valid(p)))
		return false;
	return virt_to_page(p)->private_[0] == (u64)(uptr)s;
}

/*
 * Is p[i] one of the (up to) eight entries of a kmem_cache_free_bulk array before it? The
 * duplicate window of the bulk frees that take objects one at a time (sheaves' own, and the
 * debug and hardening layer's): eight compares in a row past the first eight entries (a
 * compare and a branch each), a loop before. The core's bulk free compares each object with
 * the one it linked just before only (a run's cost; Linux's looks no further).
 */
static inline bool bulk_free_seen_recently(void *const *p, size_t i)
{
	void *const x = p[i];

	if (likely(i >= 8))
		return p[i - 1] == x || p[i - 2] == x || p[i - 3] == x || p[i - 4] == x ||
		       p[i - 5] == x || p[i - 6] == x || p[i - 7] == x || p[i - 8] == x;
	for (size_t j = 0; j < i; j++)
		if (p[j] == x)
			return true;
	return false;
}

/*
 * The inlined fastpaths read and write free pointers without the hardening test
 * (get_freepointer in slub.h) unless instantiated with hardened true: a hardened cache
 * takes those copies only (slab_alloc_hardened, through the layer hooks).
 */
static __always_inline void *get_freepointer_fast(struct kmem_cache *s, void *object,
						  bool hardened)
{
	if (hardened)
		return get_freepointer(s, object);
	return *(void **)((char *)object + s->offset);
}

static __always_inline void set_freepointer_fast(struct kmem_cache *s, void *object, void *fp,
						 bool hardened)
{
	if (hardened)
		set_freepointer(s, object, fp);
	else
		*(void **)((char *)object + s->offset) = fp;
}

/*
 * The slow half of the irq fastpath's allocation (slab_alloc_fast_irq): called with this
 * cpu's c, still masked, when its cpu freelist is empty; unmasks before it returns.
 */
typedef void *slab_alloc_slow_fn(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp);

/*
 * The irq fastpath's allocation: one pop off the cpu freelist under irq_soft_mask
 * (kernel/irqflags.h), an empty one to slow in a jump, still masked. The core's fastpath
 * (slow: its slow path, mm/slub.c) and the owner schemes' (a plain cpu freelist too, their
 * own slow path) are this one body, each copy with its constants folded (always inline).
 */
static __always_inline void *slab_alloc_fast_irq(struct kmem_cache *s, gfp_t gfp, bool hardened,
						 slab_alloc_slow_fn *slow)
{
	/* LAB3: BEGIN */
	struct kmem_cache_cpu *c;
	void *object;

	irq_soft_mask();
	c = this_cpu_slab(s);
	object = c->freelist;
	if (unlikely(!object))
		return slow(s, c, gfp); /* unmasks */
	c->freelist = get_freepointer_fast(s, object, hardened);
	stat(s, c, ALLOC_FASTPATH);
	irq_soft_unmask();
	return object;
	/* LAB3: END */
}

/*
 * The core's own helpers, shared by mm/slub.c and mm/slub_bulk.c (the bulk calls and their
 * stash), inline so that each path gets its own copy as it did in one file. Schemes need
 * none of them.
 */

/* Does p point at the start of an object of slab? Multiply by the reciprocal: no division. */
static inline bool object_start(struct kmem_cache *s, struct slab *slab, const void *p)
{
	unsigned long off = (unsigned long)((const char *)p - (char *)slab_address(slab));
	unsigned long idx = (off * s->reciprocal_size) >> 32;

	/* s->objects, not slab->objects: the same, and never written while others read it
	 * (an owner scheme's owner updates the counters word beside it without atomics). */
	return idx * s->size == off && idx < s->objects;
}

/*
 * A new slab's pages, set up, with no freelist yet (slab->freelist is left for the caller):
 * allocate_slab, and the bulk allocation, which hands a whole new slab out without one.
 */
static __always_inline void slab_setup_bare(struct kmem_cache *s, struct slab *slab)
{
	struct page *page = (struct page *)slab;
	struct kmem_cache_node *n = slab_node(s, slab);

	mark_compound(page, s->order, PG_slab, s);
	slab->slab_cache = s;
	slab->locked = 0;
	slab->counters = 0;
	slab->objects = s->objects;
	slab->next = NULL;
	__atomic_fetch_add(&n->nr_slabs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n->total_objects, s->objects, __ATOMIC_RELAXED);
}

/*
 * A slab leaves the cache: its counts down, its pages no slab's (PG_slab cleared) and no
 * cache's (slab_cache and the later pages' private_[0] cleared: in_slab_of reads that word
 * alone, and a stashed slab's pages stay out of the page allocator a while).
 */
static __always_inline void slab_unset(struct kmem_cache *s, struct slab *slab)
{
	struct kmem_cache_node *n = slab_node(s, slab);

	__atomic_fetch_sub(&n->nr_slabs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&n->total_objects, slab->objects, __ATOMIC_RELAXED);
	__atomic_store_n(&slab->slab_cache, NULL, __ATOMIC_RELAXED);
	if (likely(!s->order)) /* one page: unmark_compound's last store alone, inline */
		__atomic_store_n(&slab->page_flags, slab->page_flags & ~PG_slab, __ATOMIC_RELAXED);
	else
		unmark_compound((struct page *)slab, s->order, PG_slab);
}

/* Everything on the cpu slab's freelist (mm/slub.c); NULL: it is full, and unfrozen. */
void *get_freelist(struct kmem_cache *s, struct slab *slab);

/* SLAB_TYPESAFE_BY_RCU: slab_pages_free after a grace period (mm/slub_rcu.c). */
void slab_pages_free_rcu(struct kmem_cache *s, struct slab *slab);

/* n objects kfree_rcu took were freed after their grace period (c: this cpu's, irqs off). */
static inline void slab_rcu_freed(struct kmem_cache *s, struct kmem_cache_cpu *c, unsigned long n)
{
	c->stat[KFREE_RCU_FREED] += n;
}

static __always_inline void __slab_pages_free(struct kmem_cache *s, struct slab *slab)
{
	struct page *page = (struct page *)slab;

	__atomic_fetch_sub(&s->pages_held, 1L << s->order, __ATOMIC_RELAXED);
	memset(page->private_, 0, sizeof(page->private_));
	__free_pages(page, s->order);
}

/* The pages of a slab that slab_unset took out of the cache, to the page allocator (for a
 * SLAB_TYPESAFE_BY_RCU cache, once a grace period has passed). */
static __always_inline void slab_pages_free(struct kmem_cache *s, struct slab *slab)
{
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		slab_pages_free_rcu(s, slab);
	else
		__slab_pages_free(s, slab);
}

/* The first half of ___slab_alloc (mm/slub.c), which the bulk allocation shares. */
/*
 * The slow path up to the page allocator, interrupts off, the cpu freelist empty: the cpu
 * slab's remote frees, else (the cpu slab full: left unfrozen on no list) a partial slab
 * from the scheme, which becomes the cpu slab. The freelist to load, or NULL: a new slab.
 */
static __always_inline void *refill_from_slabs(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab = c->slab;
	void *freelist;

	if (slab) {
		freelist = get_freelist(s, slab);
		if (freelist) {
			stat(s, c, ALLOC_REFILL);
			return freelist;
		}
		cpu_slab_set(s, c, NULL); /* full, unfrozen, on no list */
		cpu_tid_step(s, c);
		stat(s, c, DEACTIVATE_BYPASS);
	}
	freelist = s->scheme->get_partial(s, c);
	/* The scheme (or lab 4's code) sets c->slab alone; the fastpath's range follows it. */
	cpu_slab_set(s, c, c->slab);
	return freelist;
}

/* free_check's reports (mm/slub.c), out of line. */
void report_wrong_cache(struct kmem_cache *s, struct kmem_cache *owner, const void *p,
			void *caller);
void free_not_at_start(struct kmem_cache *s, const void *p, void *caller);

/* The slab of an object being freed to s, or NULL after reporting why it is not one. */
static inline struct slab *free_check(struct kmem_cache *s, const void *p, void *caller)
{
	struct slab *slab = virt_to_slab(p);

	if (unlikely(!slab)) {
		slab_report_bad(s, p, caller, "free of a pointer that is not a slab object:");
		return NULL;
	}
	if (unlikely(slab->slab_cache != s)) {
		report_wrong_cache(s, slab->slab_cache, p, caller);
		return NULL;
	}
	/*
	 * A power-of-two size (never a debug layout): the address's low bits, no multiply (a
	 * slab of 2^order pages is aligned to its size, which such an object size divides).
	 */
	if (unlikely(s->size_mask ? (uptr)p & s->size_mask : !object_start(s, slab, p))) {
		free_not_at_start(s, p, caller);
		return NULL;
	}
	return slab;
}

struct slab *allocate_slab_bare(struct kmem_cache *s, gfp_t gfp);
void slab_oom(struct kmem_cache *s, gfp_t gfp);
void *slab_alloc_slow(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp);
void __slab_free(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab, void *head,
		 void *tail, unsigned int cnt, void *caller);
void __slab_free_hardened(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
			  void *head, void *tail, unsigned int cnt, void *caller);

/* __slab_free of either kind, for the layers' paths, which serve both kinds of cache. */
static inline void __slab_free_any(struct kmem_cache *s, struct kmem_cache_cpu *c,
				   struct slab *slab, void *head, void *tail, unsigned int cnt,
				   void *caller)
{
	if (unlikely(s->freeptr_xor_key))
		__slab_free_hardened(s, c, slab, head, tail, cnt, caller);
	else
		__slab_free(s, c, slab, head, tail, cnt, caller);
}

/* mm/slub_bulk.c: s's bulk entry points and stash (end of __kmem_cache_create); c's stash
 * back to the page allocator (its flush), the pages it held. */
void slab_choose_bulk_paths(struct kmem_cache *s);
unsigned long stash_drain(struct kmem_cache *s, struct kmem_cache_cpu *c);

#endif
