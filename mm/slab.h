/* SPDX-License-Identifier: MIT */
/*
 * The slab allocator's interface, with Linux's names and semantics:
 *
 *   kmem_cache_create(name, size, align, flags, ctor) / kmem_cache_destroy(s)
 *   kmem_cache_alloc(s, gfp), kmem_cache_zalloc, kmem_cache_free(s, p)
 *   kmem_cache_alloc_bulk(s, gfp, n, p[]) -> n or 0 (all or nothing), kmem_cache_free_bulk
 *   kmem_cache_shrink(s)
 *   kmalloc, kzalloc, kmalloc_array, kcalloc, krealloc, kfree, ksize
 *   kfree_rcu(p, field), kfree_rcu_mightsleep(p), kvfree_rcu_barrier(): free after an RCU
 *   grace period; SLAB_TYPESAFE_BY_RCU, kmem_cache_create_rcu(name, size, freeptr_offset,
 *   flags): slab pages given back only after one (below; docs/rcu.md)
 *
 * kmalloc has caches from 8 bytes to 8 KiB (Linux's classes, 96 and 192 included); larger
 * requests go to the page allocator. kmalloc(0) returns ZERO_SIZE_PTR, which kfree accepts;
 * kfree(NULL) does nothing; power-of-two sizes are naturally aligned.
 *
 * slablab's addition: every cache has a scheme (where partial slabs live and what, if
 * anything, sits in front of them: the registry below lists this kernel's) and a fastpath
 * ("irq" or "cmpxchg"). The boot options scheme= and fastpath= set the defaults;
 * kmem_cache_create_scheme() picks them per cache, so one boot can compare them side by
 * side. The design is in mm/slub.c's opening comment; mm/slab_common.c has what does not
 * depend on the scheme.
 */
#ifndef SLABLAB_SLAB_H
#define SLABLAB_SLAB_H

#include "kernel/types.h"
#include "mm/gfp.h"

struct kmem_cache;

#define SLAB_HWCACHE_ALIGN 0x00002000UL /* align objects on cache lines */
/*
 * A freed object may be handed out again at once, but its slab's pages go back to the page
 * allocator only after an RCU grace period (kernel/rcu.h): a reader inside rcu_read_lock
 * that still holds a pointer to a freed object reads memory of an object of this cache
 * (maybe another one by now: it must check the object's identity again), never a page
 * given back or an object of another cache. The free pointer stays out of the object (as
 * with a constructor) unless kmem_cache_create_rcu puts it where told, and slub_debug
 * never poisons or zeroes these objects on free (their content is the reader's to check).
 */
#define SLAB_TYPESAFE_BY_RCU 0x00080000UL
/*
 * Update each slab's freelist and counters under a per-slab lock (slab_lock) instead of with
 * one cmpxchg16b: what every cache does on a CPU without CMPXCHG16B; asked for, the same path
 * on a CPU that has it (for tests and comparisons). Set on every cache when the CPU lacks it.
 */
#define SLAB_NO_CMPXCHG 0x40000000UL

/*
 * Debugging, per cache at create time or for any cache with the boot option slub_debug=
 * (Linux's flag values and letters; mm/slub_debug.c has the layout and the checks):
 */
#define SLAB_CONSISTENCY_CHECKS 0x00000100UL /* F: pointer, state and counter checks */
#define SLAB_RED_ZONE 0x00000400UL           /* Z: red zones around every object */
#define SLAB_POISON 0x00000800UL             /* P: freed objects 0x6b..0xa5, padding 0x5a */
#define SLAB_STORE_USER 0x00010000UL         /* U: caller, cpu and TSC of last alloc/free */
#define SLAB_DEBUG_FLAGS (SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER)

#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

#define KMALLOC_MAX_CACHE_SIZE 8192
#define KMEM_CACHE_NAME_MAX 31
#define KMEM_CACHE_MAX_SIZE (PAGE_SIZE << 3) /* an object must fit an order-3 slab */

enum slab_fastpath {
	SLAB_FASTPATH_IRQ,     /* interrupts off around the per-cpu freelist */
	SLAB_FASTPATH_CMPXCHG, /* freelist+tid, one word, swapped with cmpxchg, interrupts on */
	NR_SLAB_FASTPATHS,
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *));
struct kmem_cache *kmem_cache_create_scheme(const char *name, unsigned int size,
					    unsigned int align, unsigned long flags,
					    void (*ctor)(void *), const char *scheme,
					    enum slab_fastpath fastpath);
/*
 * A SLAB_TYPESAFE_BY_RCU cache (added to flags) whose free pointer is at freeptr_offset
 * inside the object (8-byte aligned, the pointer within size): the word a reader need not
 * check, so the object grows by nothing. Linux 6.12's kmem_cache_create_rcu; NULL and a
 * message for an offset out of the object or unaligned.
 */
struct kmem_cache *kmem_cache_create_rcu(const char *name, unsigned int size,
					 unsigned int freeptr_offset, unsigned long flags);
/*
 * kmem_cache_destroy: after kfree_rcu's objects of s still waiting for their grace period
 * are freed (kvfree_rcu_barrier_on_cache) and, for SLAB_TYPESAFE_BY_RCU, after the slabs
 * freed meanwhile reached the page allocator (rcu_barrier). A cache with objects still
 * allocated is kept, and said as Linux says it (two reports, slab_error_count()).
 */
void kmem_cache_destroy(struct kmem_cache *s);
/* One NUMA node's share of a cache (kernel/numa.h): slabinfo's per-node line, bench=numa. */
struct kmem_cache_node_info {
	unsigned long slabs, partial_slabs;
	unsigned long alloc_remote; /* slabs taken off this node's list by other nodes' CPUs */
	unsigned long free_remote;  /* slow frees to this node's slabs from other nodes' CPUs */
	u64 list_lock;              /* acquisitions of this node's list_lock */
};
/* 0, or -1 when nid is not a node of s (a debug cache keeps one list, node 0's). */
int kmem_cache_node_info(struct kmem_cache *s, int nid, struct kmem_cache_node_info *out);
void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t gfp);
void *kmem_cache_alloc_zeroed(struct kmem_cache *s, gfp_t gfp);
int kmem_cache_alloc_bulk_zeroed(struct kmem_cache *s, gfp_t gfp, size_t n, void **p);

/*
 * The first member of every struct kmem_cache: where its kmem_cache_alloc and
 * kmem_cache_free and their bulk forms go, chosen once when the cache is created
 * (mm/slub.c's slab_choose_paths: its fastpath, layer, size, debugging). So a call is one
 * indirect call and the cache's mode is never tested per call; __GFP_ZERO, mostly a
 * constant, is folded at the call site.
 */
struct kmem_cache_entry {
	void *(*alloc)(struct kmem_cache *s, gfp_t gfp);
	void (*free)(struct kmem_cache *s, void *p);
	int (*alloc_bulk)(struct kmem_cache *s, gfp_t gfp, size_t n, void **p);
	void (*free_bulk)(struct kmem_cache *s, size_t n, void **p);
};

static inline void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	if (__builtin_expect(!!(gfp & __GFP_ZERO), 0))
		return kmem_cache_alloc_zeroed(s, gfp);
	return ((const struct kmem_cache_entry *)(void *)s)->alloc(s, gfp);
}

static inline void kmem_cache_free(struct kmem_cache *s, void *p)
{
	((const struct kmem_cache_entry *)(void *)s)->free(s, p);
}

static inline int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	if (__builtin_expect(!!(gfp & __GFP_ZERO), 0))
		return kmem_cache_alloc_bulk_zeroed(s, gfp, n, p);
	return ((const struct kmem_cache_entry *)(void *)s)->alloc_bulk(s, gfp, n, p);
}

static inline void kmem_cache_free_bulk(struct kmem_cache *s, size_t n, void **p)
{
	((const struct kmem_cache_entry *)(void *)s)->free_bulk(s, n, p);
}
int kmem_cache_shrink(struct kmem_cache *s);

void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kmalloc_array(size_t n, size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void *krealloc(const void *p, size_t new_size, gfp_t gfp);
void kfree(const void *p);
size_t ksize(const void *p);

/*
 * Free after an RCU grace period (mm/slub_rcu.c; docs/rcu.md): Linux's kfree_rcu.
 *
 *	struct foo { ...; struct rcu_head rcu; ... };
 *	kfree_rcu(p, rcu);          p: any slab object (kmalloc or kmem_cache_alloc) or large
 *	                            kmalloc; freed once every reader that may hold it has left
 *	kfree_rcu_mightsleep(p);    the same without an rcu_head in the object: may wait for a
 *	                            grace period itself (synchronize_rcu) when short of memory,
 *	                            so only in ordinary context, outside readers
 *
 * Objects are batched per cpu: pointers gathered in a page that goes to call_rcu whole, when
 * it is full or at the cpu's next quiescent state; on the sheaves scheme, an object of this
 * cpu's node goes into the cpu's rcu_free sheaf, which goes to call_rcu when full and after
 * the grace period becomes a full sheaf in the barn (Linux 6.18). Without memory for a batch
 * kfree_rcu falls back to call_rcu on the rcu_head itself. Any context but NMI (refused,
 * said, the object kept). Objects waiting are counted per cache (slabinfo's rcu_waiting,
 * kmem_cache_mem's rcu_waiting).
 */
struct rcu_head;
void kvfree_call_rcu(struct rcu_head *head, void *ptr);
#define kfree_rcu(ptr, rhf)                                                                    \
	do {                                                                                   \
		__typeof__(ptr) ___p = (ptr);                                                  \
		_Static_assert(__builtin_offsetof(__typeof__(*(ptr)), rhf) < 4096,             \
			       "the rcu_head is within the object's first page");              \
		if (___p)                                                                      \
			kvfree_call_rcu(&___p->rhf, (void *)___p);                             \
	} while (0)
#define kfree_rcu_mightsleep(ptr) kvfree_call_rcu(NULL, (void *)(ptr))
/* Every object given to kfree_rcu before the call is freed when it returns (any cache). */
void kvfree_rcu_barrier(void);
/* The same for the objects of s (and whatever shares their batches). */
void kvfree_rcu_barrier_on_cache(struct kmem_cache *s);
/* kfree_rcu's work on one cpu: batches handed to call_rcu, objects that went through their
 * own rcu_head (no page for a batch), kfree_rcu_mightsleep's that waited themselves. */
struct kfree_rcu_stats {
	u64 batches, by_head, synchronous;
};
void kfree_rcu_stats_get(int cpu, struct kfree_rcu_stats *out);

/*
 * Linux 6.18's calls for any context, NMI included (mm/slub_nolock.c has how): they never
 * wait for a lock. kmalloc_nolock(size, gfp, node): gfp only __GFP_ZERO and __GFP_NOWARN
 * (anything else: a message and NULL), node NUMA_NO_NODE or the node whose partial slabs
 * and pages an NMI's call uses; size 0: ZERO_SIZE_PTR; over KMALLOC_MAX_CACHE_SIZE, or
 * where every way is busy: NULL. Its objects are kmalloc's: kfree and kfree_rcu take them,
 * and kfree_nolock takes kmalloc's. kfree_nolock in an NMI defers the free to an irq_work
 * on its cpu; kfree_nolock_flush frees every cpu's deferred objects now (not from an NMI).
 */
void *kmalloc_nolock(size_t size, gfp_t gfp, int node);
/* The kmalloc bucket a size goes to (NULL: 0, or over KMALLOC_MAX_CACHE_SIZE). */
struct kmem_cache *kmalloc_cache(size_t size);
void kfree_nolock(const void *p);
void kfree_nolock_flush(void);
unsigned long kfree_nolock_pending(void); /* deferred frees not yet done */
/* What the nolock calls did, summed over cpus (kmalloc_nolock_stats; names below). */
enum kmalloc_nolock_stat {
	NOLOCK_ALLOC,             /* kmalloc_nolock returned an object (the sum of the four) */
	NOLOCK_ALLOC_OUTSIDE_NMI, /* of them, outside NMI context: kmalloc's paths */
	NOLOCK_ALLOC_CPU,         /* in NMI: off the cpu freelist (interrupted code had irqs on) */
	NOLOCK_ALLOC_PARTIAL,     /* in NMI: off a node partial slab, list_lock tried */
	NOLOCK_ALLOC_NEW_SLAB,    /* in NMI: off a new slab, the page allocator's locks tried */
	NOLOCK_RETRY,             /* a bucket was busy: tried the next one up */
	NOLOCK_FAIL_LIST_LOCK,    /* NULL: list_lock held (by the interrupted code or another cpu) */
	NOLOCK_FAIL_PAGE_ALLOC,   /* NULL: no slab page (its locks held, or no memory) */
	NOLOCK_FAIL_CPU_STATE,    /* NULL: an owner scheme, its cpu freelist in use or empty */
	NOLOCK_FAIL_NO_CMPXCHG,   /* NULL: a SLAB_NO_CMPXCHG cache, its cpu freelist in use or empty */
	NOLOCK_FAIL_DAMAGED,      /* NULL: slub_debug found the object damaged (reported) */
	NOLOCK_FAIL_BAD_CALL,     /* NULL: a gfp flag not allowed, or a size over 8 KiB */
	NOLOCK_FREE,              /* kfree_nolock calls (NULL and ZERO_SIZE_PTR not counted) */
	NOLOCK_FREE_OUTSIDE_NMI,  /* of them, outside NMI context: kfree */
	NOLOCK_FREE_DEFERRED,     /* in NMI: onto the cpu's deferred list */
	NOLOCK_FREE_DEFERRED_DONE,/* deferred frees done (irq_work, kfree_nolock_flush) */
	NR_NOLOCK_STATS
};
extern const char *const kmalloc_nolock_stat_names[NR_NOLOCK_STATS];
void kmalloc_nolock_stats(u64 out[NR_NOLOCK_STATS]);
/* What kmalloc(size) really takes: its class's size, or whole pages above 8 KiB (Linux's). */
size_t kmalloc_size_roundup(size_t size);

/*
 * Prefilled sheaves (Linux 6.18's API; any scheme here): reserve n objects up front, then
 * allocate them where failing is not an option; return the sheaf with what is left.
 */
struct slab_sheaf;
#define SLAB_SHEAF_MAX 500
struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp, unsigned int n);
void *kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf);
void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf);
unsigned int kmem_cache_sheaf_size(struct slab_sheaf *sheaf);

/*
 * How slab freelists are updated by default: "cmpxchg16b", or "slab_lock" where the CPU has
 * no CMPXCHG16B. Both fastpaths run on every x86-64 CPU: the cmpxchg one swaps one 8-byte
 * word.
 */
const char *slab_freelist_method(void);

/* What slabinfo shows for one cache (mm/slub.c). */
struct slab_cache_info {
	const char *name, *scheme, *fastpath;
	unsigned int object_size, size, objects_per_slab, order;
	unsigned long slabs, objects, active_objects, partial_slabs;
};
int kmem_cache_info(struct kmem_cache *s, struct slab_cache_info *out);

/*
 * Where a cache's memory is, exact (kmem_cache_mem_info; each cpu counts its own by
 * cross-call, so a count taken while others allocate is each cpu's at its moment):
 */
struct kmem_cache_mem {
	unsigned long pages;         /* held: its slabs' and its bulk stashes' */
	unsigned long pages_peak;    /* the most held at once (kmem_cache_mem_reset_peak) */
	unsigned long slabs, objects; /* slabs and their object slots */
	unsigned long live;          /* objects handed out and not freed */
	unsigned long cpu_free;      /* free on cpu freelists and cpu slabs */
	unsigned long cpu_cached;    /* free, kept by the scheme per cpu: sheaves, cpu partial slabs */
	unsigned long node_cached;   /* free, kept by the scheme per node: the barn's sheaves */
	unsigned long partial_slabs; /* on the node partial lists, */
	unsigned long partial_objects, partial_free; /* their object slots and free objects */
	unsigned long layer_pages;   /* pages the scheme allocates for itself (sheaves) */
	unsigned long rcu_waiting;   /* objects given to kfree_rcu, not yet freed (among live) */
	unsigned long rcu_pages;     /* SLAB_TYPESAFE_BY_RCU: freed slabs' pages waiting for a
				      * grace period (no longer the cache's slabs; among pages) */
	/* the same structures at the size Linux 7.0 gives them (a sheaf: its kmalloc bucket) */
	unsigned long layer_bytes_linux7;
};
void kmem_cache_mem_info(struct kmem_cache *s, struct kmem_cache_mem *out);
/* The peak starts again from what the cache holds now. */
void kmem_cache_mem_reset_peak(struct kmem_cache *s);

/*
 * A setting of a cache's scheme, changed at run time while other cpus allocate and free:
 * "sheaf_capacity" (sheaves: objects per sheaf, 1..500; every sheaf of the cache is fitted
 * to it before the call returns) or "cpu_partial" (partial: the cpu partial lists' budget
 * in objects, 1..100000; lists over it drain). 0; -1 a value out of range, said on the
 * console; -2 the cache's scheme has no such setting (a debug cache has neither: as in
 * Linux 7.0, it has no sheaves).
 */
int kmem_cache_set_param(struct kmem_cache *s, const char *name, unsigned int value);
int kmem_cache_get_param(struct kmem_cache *s, const char *name, unsigned int *value);
static inline int kmem_cache_set_sheaf_capacity(struct kmem_cache *s, unsigned int capacity)
{
	return kmem_cache_set_param(s, "sheaf_capacity", capacity);
}
/*
 * Objects per sheaf that a rule of sheaf_capacity= ("linux7", "slablab") gives s, by its
 * object size; 0 for another word, or for a cache with debug flags (no sheaves in 7.0).
 */
unsigned int kmem_cache_sheaf_rule(struct kmem_cache *s, const char *rule);
/* Objects per sheaf of s; 0: s has no sheaves. */
static inline unsigned int kmem_cache_sheaf_capacity(struct kmem_cache *s)
{
	unsigned int v;

	return kmem_cache_get_param(s, "sheaf_capacity", &v) ? 0 : v;
}
u64 kmem_cache_stat(struct kmem_cache *s, int item); /* summed over CPUs; mm/slub.h's stat_item */
/*
 * A counter by the name slabinfo prints for it ("alloc_fastpath", "remote_free", ...),
 * summed over CPUs (a maximum for the *_max ones). Another scheme's counter reads 0; a name
 * no scheme has is reported on the console and reads 0.
 */
u64 kmem_cache_stat_by_name(struct kmem_cache *s, const char *name);
/*
 * Do kmem_cache_alloc/free of s go to a layer in front of the slabs (a scheme's own,
 * SLAB_SCHEME_LAYER, or the debug checks) rather than to the fastpaths? Then its fastpath setting
 * makes no difference.
 */
bool kmem_cache_has_layer(const struct kmem_cache *s);
void slabinfo_print(void);
unsigned long slab_bad_input_count(void); /* bad frees detected and refused so far */

/*
 * The scheme registry (mm/slab_common.c). Each scheme is one file, mm/scheme_*.c, that ends
 * with slab_scheme_register() (mm/slub.h); docs/writing-a-scheme.md has the interface. What
 * a scheme is, as data, for tests, benchmarks and the boot matrix to choose by (never by
 * name):
 */
#define SLAB_SCHEME_LAYER 0x001UL       /* its own layer in front of the slabs takes
					 * kmem_cache_alloc/free: the fastpath= setting
					 * makes no difference to it */
#define SLAB_SCHEME_CPU_PARTIAL 0x002UL /* a free that makes a full slab partial freezes it
					 * onto the freeing cpu's partial list */
#define SLAB_SCHEME_OWNER 0x004UL       /* every slab has an owner cpu; frees on other cpus
					 * are sent to the owner */
#define SLAB_SCHEME_TRANSFER 0x008UL    /* owners hand slabs to a cpu that runs out, by IPI */
#define SLAB_SCHEME_IPI_EACH 0x010UL    /* an IPI for every remote free */
#define SLAB_SCHEME_IPI_BATCH 0x020UL   /* fewer IPIs than frees: when the owner's list
					 * was empty (ipi-batch), per batch (lab5) */
#define SLAB_SCHEME_BASELINE 0x040UL    /* what benchmarks compare the others against */
#define SLAB_SCHEME_DEFAULT 0x080UL     /* the boot caches' scheme when scheme= is not given */
#define SLAB_SCHEME_DEBUG_LOCKED 0x100UL  /* debug caches in the locked mode run on it */
#define SLAB_SCHEME_DEBUG_PARTIAL 0x200UL /* debug caches in the partial mode run on it */
#define SLAB_SCHEME_ON_REQUEST 0x400UL  /* left out of "all" (the lists below, so of every
					 * suite's and benchmark's comparison) unless
					 * scheme= names it: a lab's reference solution
					 * (lab5), not a design under study */

/*
 * The schemes the suites test, in registry order: slab_scheme_name(0), (1), ... then NULL.
 * Every registered scheme but the SLAB_SCHEME_ON_REQUEST ones that scheme= does not name.
 */
const char *slab_scheme_name(unsigned int i);
/*
 * The schemes the benchmarks compare: those scheme= names, in registry order (all: every one
 * slab_scheme_name gives, and so with scheme= not given). The same numbering, then NULL.
 */
const char *slab_scheme_chosen(unsigned int i);
/* Every registered scheme, on-request ones too (the registry's own listing). */
const char *slab_scheme_registered(unsigned int i);
/* The SLAB_SCHEME_* flags of the scheme called name; 0 and a message if there is none. */
unsigned long slab_scheme_flags(const char *name);
/* Is there a scheme called name? (No message.) */
bool slab_scheme_exists(const char *name);
/* The first scheme (in registry order) with all of flags, or NULL. */
const char *slab_scheme_with(unsigned long flags);
/* The flags of the scheme a cache runs on (a debug cache: the debug mode's scheme). */
unsigned long kmem_cache_scheme_flags(const struct kmem_cache *s);
/*
 * The counters of s by index, the core's (Linux's stat_item names) then its scheme's own:
 * name, or NULL past the last. kmem_cache_stat_by_name reads one.
 */
const char *kmem_cache_stat_name(const struct kmem_cache *s, unsigned int i);
/*
 * The boot options: scheme= (parsed once, at boot: a name that is no registered scheme's is
 * a command-line error that lists the valid ones) chooses the schemes above and the boot
 * caches' scheme, the first it names (not given, or all: the SLAB_SCHEME_DEFAULT one);
 * fastpath= the boot caches' fastpath; slabinfo= (1: slabinfo at the end).
 */
enum slab_fastpath slab_boot_fastpath(void);
const char *slab_fastpath_name(enum slab_fastpath fastpath); /* "irq", "cmpxchg" */
extern unsigned int slabinfo_at_end;

/*
 * The variants the suites and benchmarks run, one list for all of them, in the manner of
 * KUnit's KUNIT_ARRAY_PARAM: every scheme of slab_scheme_name() in registry order with the
 * irq fastpath, and with the cmpxchg one too where it makes a difference (no layer of its
 * own). slab_variant(0), (1), ... then NULL. A suite adds its own runs to these (under
 * slab_lock, say, with SLAB_NO_CMPXCHG); a benchmark keeps those of the chosen schemes.
 */
struct slab_variant {
	const char *scheme;
	enum slab_fastpath fastpath;
	/* "irq", "cmpxchg", or for a scheme with a layer of its own (which no fastpath= reaches)
	 * the name it gives its layer ("sheaf", "layer"): the benchmarks' column */
	const char *path;
	unsigned long scheme_flags; /* SLAB_SCHEME_* */
};
const struct slab_variant *slab_variant(unsigned int i);

/*
 * Debug caches leave the fastpath (as Linux's do), in one of two modes, the boot option
 * slub_debug_mode= choosing the default: LOCKED (Linux's) or PARTIAL (per-cpu partial
 * lists); mm/slub_debug.c's opening comment has how a cache gets there.
 */
enum slab_debug_mode {
	SLAB_DEBUG_MODE_DEFAULT, /* the boot option's (locked unless slub_debug_mode=partial) */
	SLAB_DEBUG_LOCKED,
	SLAB_DEBUG_PARTIAL,
};
/* flags may hold SLAB_DEBUG_FLAGS (the boot option slub_debug= adds to them). */
struct kmem_cache *kmem_cache_create_debug(const char *name, unsigned int size,
					   unsigned int align, unsigned long flags,
					   void (*ctor)(void *), enum slab_debug_mode mode);
/* Check every slab of s (all of the above); returns the errors it reported. */
int kmem_cache_validate(struct kmem_cache *s);
/* Reports ("BUG cache: ...") printed so far by the debug checks. */
unsigned long slab_error_count(void);

void slab_init(void); /* kmalloc caches; after the page allocator and the CPUs are up */

#endif
