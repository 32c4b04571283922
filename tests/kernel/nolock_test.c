// SPDX-License-Identifier: MIT
/*
 * kmalloc_nolock and kfree_nolock (mm/slub_nolock.c) from NMIs sent at the worst moments
 * (kernel/nmi.h's probes): while the target CPU is in the kmalloc buckets' fastpath, in
 * their slow path, holding a bucket's list_lock, holding its barn's lock (sheaves), inside
 * an owner scheme's IPI handler, inside slub_debug's checks. There the NMI allocates and
 * frees with the nolock calls, on whatever scheme the boot's kmalloc caches run (scheme=,
 * slub_debug=). Each case asserts: NMIs landed in the place (a zero fails it), nothing
 * deadlocked (every wait is bounded), no object was damaged (each is filled with a pattern
 * checked before its free; slub_debug finds no error; a debug bucket validates), and every
 * object is accounted: each one allocated was freed, the deferred frees all ran, and each
 * bucket holds as many live objects as before. Each says how many nolock calls failed,
 * why (mm/slab.h's kmalloc_nolock_stat) and for which size.
 *
 * The callbacks run in NMI context: they only use the nolock calls, atomics and the case's
 * own memory; the cases check afterwards.
 */
#include "kernel/irqflags.h"
#include "kernel/kallsyms.h"
#include "kernel/kunit.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

#define DEADLINE_NS 30000000000ULL /* bounds every wait: a deadlock fails, never hangs */
#define PROBE_NS 20000000000ULL
#define HITS 4        /* NMIs that must land in each place and do their work there */
#define NR_SIZES 4
#define HELD_MAX 32   /* objects an NMI keeps for a later NMI (or the case) to free */
#define RING 256      /* the IPI case: objects the target hands to a remote freer */

static u64 deadline(u64 ns)
{
	return get_cycles() + ns_to_cycles(ns);
}

struct place {
	const char *name;
	u64 start, end;
	u64 hits;
};

#define MAX_PLACES 40

struct nl_case {
	const char *what;
	struct kmem_cache *s;   /* the bucket the target works in */
	size_t size;            /* its size; the NMI asks for it and three others */
	struct spinlock *held;  /* held-lock cases: the lock the target holds */
	struct place places[MAX_PLACES];
	int nr_places;
	void (*work)(struct nl_case *k);
	int target, helper;
	int stop;
	/* what the callbacks saw and did (NMI context on the target, one at a time) */
	u64 hits, hits_irqs_on;
	u64 allocated, freed, failed, bad;
	u64 failed_size[NR_SIZES];
	void *held_obj[HELD_MAX];
	size_t held_size[HELD_MAX];
	int nr_held;
	/* the IPI case's ring: target allocates, the helper (or the sender) frees */
	void *ring[RING];
	u32 ring_head, ring_tail;
	int rc;
	struct nmi_probe p;
};

static const size_t sizes_other[NR_SIZES - 1] = { 8, 200, 2048 };

static size_t nl_size(const struct nl_case *k, int i)
{
	return i ? sizes_other[i - 1] : k->size;
}

static u8 pattern(const void *p)
{
	return (u8)(((uptr)p >> 4) ^ 0x5c);
}

static void fill(void *p, size_t n)
{
	memset(p, pattern(p), n);
}

static bool intact(const void *p, size_t n)
{
	const u8 *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != pattern(p))
			return false;
	return true;
}

static bool in_places(struct nl_case *k, u64 ip)
{
	if (!k->nr_places)
		return true;
	for (int i = 0; i < k->nr_places; i++)
		if (ip >= k->places[i].start && ip < k->places[i].end) {
			k->places[i].hits++;
			return true;
		}
	return false;
}

/* NMI context: allocate four sizes, free one at once, keep the rest for a later free. */
static void nmi_work(struct nl_case *k)
{
	for (int i = 0; i < NR_SIZES; i++) {
		size_t n = nl_size(k, i);
		gfp_t gfp = (i & 1) ? __GFP_ZERO : 0;
		u8 *p = kmalloc_nolock(n, gfp, NUMA_NO_NODE);

		if (!p) {
			k->failed++;
			k->failed_size[i]++;
			continue;
		}
		k->allocated++;
		if (gfp && (p[0] || p[n - 1] || p[n / 2]))
			k->bad++;
		fill(p, n);
		if (i == 0) {
			kfree_nolock(p);
			k->freed++;
			continue;
		}
		if (k->nr_held == HELD_MAX) {
			/* the oldest, kept by an earlier NMI */
			if (!intact(k->held_obj[0], k->held_size[0]))
				k->bad++;
			kfree_nolock(k->held_obj[0]);
			k->freed++;
			memmove(k->held_obj, k->held_obj + 1, sizeof(void *) * (HELD_MAX - 1));
			memmove(k->held_size, k->held_size + 1, sizeof(size_t) * (HELD_MAX - 1));
			k->nr_held--;
		}
		k->held_obj[k->nr_held] = p;
		k->held_size[k->nr_held++] = n;
	}
}

static bool held_lock_where(struct nl_case *k, const struct nmi_frame *f)
{
	return spin_held_by_me(k->held);
}

static bool nl_callback(const struct nmi_frame *f, void *arg)
{
	struct nl_case *k = arg;

	if (k->held ? !held_lock_where(k, f) : !in_places(k, f->ip))
		return false;
	k->hits++;
	k->hits_irqs_on += nmi_interrupted_irqs_on();
	nmi_work(k);
	return true;
}

/* ---- what the target does meanwhile ---- */

static bool stopped(struct nl_case *k, u64 end)
{
	return __atomic_load_n(&k->stop, __ATOMIC_ACQUIRE) || get_cycles() > end;
}

/* kmem_cache_alloc/free of the bucket (its entry points, not kmalloc's layer shortcut). */
static void work_fastpath(struct nl_case *k)
{
	u64 end = deadline(DEADLINE_NS);

	while (!stopped(k, end)) {
		void *p = kmem_cache_alloc(k->s, GFP_KERNEL);

		if (!p)
			continue;
		fill(p, k->s->object_size);
		if (!intact(p, k->s->object_size))
			__atomic_fetch_add(&k->bad, 1, __ATOMIC_RELAXED);
		kmem_cache_free(k->s, p);
	}
}

/* Three slabs' worth up and down: the cpu slab running out, partial lists, slabs going back
 * to the node. No kmem_cache_shrink here: its cross-call to CPU 0, which is sending the
 * NMIs, kept this cpu halted waiting for most of the probe (hundreds of NMIs, and on a busy
 * host all of them, landed in arch_idle). */
static void work_slowpath(struct nl_case *k)
{
	u64 end = deadline(DEADLINE_NS);
	unsigned int n = MIN(3 * k->s->objects + 1, 256u);
	void *p[256];

	while (!stopped(k, end)) {
		unsigned int got = 0;

		for (unsigned int i = 0; i < n; i++) {
			p[got] = kmalloc(k->size, GFP_KERNEL);
			if (p[got])
				fill(p[got], k->size), got++;
		}
		for (unsigned int i = 0; i < got; i++) {
			if (!intact(p[i], k->size))
				__atomic_fetch_add(&k->bad, 1, __ATOMIC_RELAXED);
			kfree(p[i]);
		}
	}
}

/* The lock held with interrupts off, as its owners take it, a while at a time. */
static void work_hold_lock(struct nl_case *k)
{
	u64 end = deadline(DEADLINE_NS);
	unsigned long flags;

	while (!stopped(k, end)) {
		void *p;

		spin_lock_irqsave(k->held, flags);
		for (int i = 0; i < 2000; i++)
			cpu_relax();
		spin_unlock_irqrestore(k->held, flags);
		p = kmalloc(k->size, GFP_KERNEL);
		kfree(p);
	}
}

/* Objects the target owns, for another cpu to free: each a remote free, sent to the owner. */
static void work_owner(struct nl_case *k)
{
	u64 end = deadline(DEADLINE_NS);

	while (!stopped(k, end)) {
		u32 head = __atomic_load_n(&k->ring_head, __ATOMIC_RELAXED);
		void *p;

		if (head - __atomic_load_n(&k->ring_tail, __ATOMIC_ACQUIRE) == RING) {
			cpu_relax();
			continue;
		}
		p = kmalloc(k->size, GFP_KERNEL);
		if (!p)
			continue;
		fill(p, k->size);
		k->ring[head % RING] = p;
		__atomic_store_n(&k->ring_head, head + 1, __ATOMIC_RELEASE);
	}
}

/* The remote freer: up to `max` objects off the ring (all, at the end). */
static unsigned int free_ring(struct nl_case *k, unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		u32 tail = __atomic_load_n(&k->ring_tail, __ATOMIC_RELAXED);
		void *p;

		if (tail == __atomic_load_n(&k->ring_head, __ATOMIC_ACQUIRE))
			break;
		p = k->ring[tail % RING];
		if (!intact(p, k->size))
			__atomic_fetch_add(&k->bad, 1, __ATOMIC_RELAXED);
		kfree(p);
		__atomic_store_n(&k->ring_tail, tail + 1, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

/* kmalloc/kfree of a debug bucket: poison, red zones and tracking checked each time. */
static void work_debug(struct nl_case *k)
{
	u64 end = deadline(DEADLINE_NS);

	while (!stopped(k, end)) {
		void *p = kmalloc(k->size, GFP_KERNEL);

		if (p)
			fill(p, k->size);
		kfree(p);
	}
}

/* ---- running a case ---- */

static void roles(struct kunit *test, void *arg)
{
	struct nl_case *k = arg;
	int me = smp_processor_id();

	if (me == k->target) {
		k->work(k);
	} else if (me == 0) {
		if (k->work == work_owner && k->helper < 0) {
			/* No third cpu: free a batch, then NMIs, until enough landed. */
			u64 end = deadline(PROBE_NS), hits = 0;
			struct nmi_probe p = k->p;

			k->rc = -3;
			while (get_cycles() < end) {
				free_ring(k, RING / 2);
				if (nmi_probe_cpu(k->target, &p, 1, 20000000ULL) == 0)
					hits++;
				k->p.sent += p.sent;
				k->p.landed += p.landed;
				k->p.in_range += p.in_range;
				if (hits >= HITS) {
					k->rc = 0;
					break;
				}
			}
			k->p.hits = hits;
		} else {
			k->rc = nmi_probe_cpu(k->target, &k->p, HITS, PROBE_NS);
		}
		__atomic_store_n(&k->stop, 1, __ATOMIC_RELEASE);
	} else if (me == k->helper) {
		u64 end = deadline(DEADLINE_NS);

		while (!stopped(k, end))
			if (!free_ring(k, 16))
				cpu_relax();
	}
}

static void add_place(struct nl_case *k, const char *name)
{
	struct place *pl = &k->places[k->nr_places];

	if (k->nr_places < MAX_PLACES && nmi_code_range_by_name(name, &pl->start, &pl->end)) {
		pl->name = name;
		pl->hits = 0;
		k->nr_places++;
	}
}

/* The names the kernel has no function of (one GCC inlined everywhere: give it __noinline,
 * or a scheme's function a lab's solution does not have) are said, not counted. */
static void add_places(struct kunit *test, struct nl_case *k, const char *const *names)
{
	char missing[160];
	int n = 0;

	for (; *names; names++) {
		int before = k->nr_places;

		add_place(k, *names);
		if (k->nr_places == before && n < (int)sizeof(missing) - 1)
			n += snprintf(missing + n, sizeof(missing) - n, " %s", *names);
	}
	if (n)
		kunit_info(test, "%s: no function called%s", k->what, missing);
}

static void run_case(struct kunit *test, struct nl_case *k);
static void free_case(struct nl_case *k);

/* A case whose place is the functions called names (those the kernel has). */
static void run_in_functions(struct kunit *test, struct nl_case *k, const char *const *names)
{
	add_places(test, k, names);
	KUNIT_EXPECT_GT(test, k->nr_places, 0);
	if (k->nr_places)
		run_case(test, k);
	free_case(k);
}

static unsigned long live_of(struct kmem_cache *s)
{
	struct kmem_cache_mem m;

	kmem_cache_mem_info(s, &m);
	return m.live;
}

#define NR_BUCKETS_SEEN 8

static void run_case(struct kunit *test, struct nl_case *k)
{
	u64 st0[NR_NOLOCK_STATS], st1[NR_NOLOCK_STATS];
	unsigned long errors = slab_error_count(), bad_input = slab_bad_input_count();
	struct kmem_cache *seen[NR_BUCKETS_SEEN];
	unsigned long live0[NR_BUCKETS_SEEN];
	int nseen = 0;
	char why[256];
	int n = 0;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	/* Every bucket an NMI may use, the next one up too: its live objects before. */
	kfree_nolock_flush();
	for (int i = 0; i < NR_SIZES; i++) {
		int idx = kmalloc_index(nl_size(k, i));

		for (int j = idx; j <= MIN(idx + 1, NR_KMALLOC_CACHES - 1); j++) {
			bool dup = false;

			for (int m = 0; m < nseen; m++)
				dup |= seen[m] == kmalloc_caches[j];
			if (!dup && nseen < NR_BUCKETS_SEEN)
				seen[nseen++] = kmalloc_caches[j];
		}
	}
	for (int m = 0; m < nseen; m++)
		live0[m] = live_of(seen[m]);
	kmalloc_nolock_stats(st0);

	k->target = nr_cpu_ids - 1;
	k->helper = nr_cpu_ids >= 3 ? 1 : -1;
	k->p.fn = nl_callback;
	k->p.arg = k;
	k->p.start = k->p.end = 0; /* anywhere: the callback says where it counts */
	kunit_run_on_all_cpus(test, roles, k);

	/* What the NMIs kept, freed with plain kfree; the ring's rest; the deferred frees. */
	for (int i = 0; i < k->nr_held; i++) {
		if (!intact(k->held_obj[i], k->held_size[i]))
			k->bad++;
		kfree(k->held_obj[i]);
		k->freed++;
	}
	k->nr_held = 0;
	free_ring(k, RING);
	kfree_nolock_flush();
	kmalloc_nolock_stats(st1);

	if (k->rc) {
		u64 off = 0;
		const char *sym = k->p.last_ip ? kallsyms_lookup(k->p.last_ip, &off) : NULL;

		KUNIT_FAIL(test, "%s: %llu NMIs sent, %llu landed, %llu hits of %d (rc %d); the "
			   "last one landed in %s+%#llx", k->what, (unsigned long long)k->p.sent,
			   (unsigned long long)k->p.landed, (unsigned long long)k->p.hits, HITS,
			   k->rc, sym ? sym : "?", (unsigned long long)off);
	}
	KUNIT_EXPECT_GE(test, k->hits, (u64)HITS);
	KUNIT_EXPECT_EQ(test, k->bad, 0);
	KUNIT_EXPECT_EQ(test, k->allocated, k->freed);
	KUNIT_EXPECT_EQ(test, kfree_nolock_pending(), 0);
	KUNIT_EXPECT_EQ(test, slab_error_count(), errors);
	KUNIT_EXPECT_EQ(test, slab_bad_input_count(), bad_input);
	for (int m = 0; m < nseen; m++) {
		KUNIT_EXPECT_EQ_MSG(test, live_of(seen[m]), live0[m], "%s: live objects",
				    seen[m]->name);
		if (slub_debug_flags(seen[m]))
			KUNIT_EXPECT_EQ(test, kmem_cache_validate(seen[m]), 0);
	}
	KUNIT_EXPECT_EQ(test, st1[NOLOCK_ALLOC] - st0[NOLOCK_ALLOC], k->allocated);

	for (int i = NOLOCK_FAIL_LIST_LOCK; i <= NOLOCK_FAIL_BAD_CALL && n < 200; i++)
		if (st1[i] != st0[i])
			n += snprintf(why + n, sizeof(why) - n, " %s %llu",
				      kmalloc_nolock_stat_names[i],
				      (unsigned long long)(st1[i] - st0[i]));
	if (!n)
		snprintf(why, sizeof(why), " none");
	kunit_info(test, "%s on %s: cpu %d, %llu NMIs sent, %llu landed, %llu there (%llu with "
		   "interrupts on)", k->what, k->s->name, k->target, (unsigned long long)k->p.sent,
		   (unsigned long long)k->p.landed, (unsigned long long)k->hits,
		   (unsigned long long)k->hits_irqs_on);
	for (int i = 0; i < k->nr_places; i++)
		if (k->places[i].hits)
			kunit_info(test, "  %llu in %s", (unsigned long long)k->places[i].hits,
				   k->places[i].name);
	kunit_info(test, "nolock: %llu allocated (cpu freelist %llu, partial %llu, new slab "
		   "%llu), %llu retried in the next bucket, %llu failed: sizes %zu:%llu %zu:%llu "
		   "%zu:%llu %zu:%llu; why:%s; %llu frees deferred",
		   (unsigned long long)k->allocated,
		   (unsigned long long)(st1[NOLOCK_ALLOC_CPU] - st0[NOLOCK_ALLOC_CPU]),
		   (unsigned long long)(st1[NOLOCK_ALLOC_PARTIAL] - st0[NOLOCK_ALLOC_PARTIAL]),
		   (unsigned long long)(st1[NOLOCK_ALLOC_NEW_SLAB] - st0[NOLOCK_ALLOC_NEW_SLAB]),
		   (unsigned long long)(st1[NOLOCK_RETRY] - st0[NOLOCK_RETRY]),
		   (unsigned long long)k->failed, nl_size(k, 0),
		   (unsigned long long)k->failed_size[0], nl_size(k, 1),
		   (unsigned long long)k->failed_size[1], nl_size(k, 2),
		   (unsigned long long)k->failed_size[2], nl_size(k, 3),
		   (unsigned long long)k->failed_size[3], why,
		   (unsigned long long)(st1[NOLOCK_FREE_DEFERRED] - st0[NOLOCK_FREE_DEFERRED]));
}

static struct nl_case *new_case(struct kunit *test, const char *what, size_t size,
				void (*work)(struct nl_case *))
{
	struct page *pg = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	struct nl_case *k;

	_Static_assert(sizeof(struct nl_case) <= (PAGE_SIZE << 2), "a case fits 4 pages");
	KUNIT_ASSERT_NOT_NULL(test, pg);
	k = page_address(pg);
	k->what = what;
	k->size = size;
	k->s = kmalloc_caches[kmalloc_index(size)];
	k->work = work;
	return k;
}

static void free_case(struct nl_case *k)
{
	free_pages((unsigned long)(uptr)k, 2);
}

/* ---- the cases ---- */

/* Outside NMI context the calls are kmalloc's and kfree's, with the contract's limits. */
static void nolock_calls_outside_nmi(struct kunit *test)
{
	u64 st0[NR_NOLOCK_STATS], st1[NR_NOLOCK_STATS];
	u8 *p, *q;

	kmalloc_nolock_stats(st0);
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_nolock(0, 0, NUMA_NO_NODE), ZERO_SIZE_PTR);
	KUNIT_EXPECT_NULL(test, kmalloc_nolock(KMALLOC_MAX_CACHE_SIZE + 1, 0, NUMA_NO_NODE));
	KUNIT_EXPECT_NULL(test, kmalloc_nolock(64, GFP_KERNEL, NUMA_NO_NODE)); /* said why */
	p = kmalloc_nolock(100, __GFP_ZERO, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_GE(test, ksize(p), 100);
	KUNIT_EXPECT_TRUE(test, p[0] == 0 && p[99] == 0);
	fill(p, 100);
	q = kmalloc(100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	kfree(p);        /* kfree takes kmalloc_nolock's objects ... */
	kfree_nolock(q); /* ... and kfree_nolock kmalloc's */
	kfree_nolock(NULL);
	kfree_nolock(ZERO_SIZE_PTR);
	kmalloc_nolock_stats(st1);
	KUNIT_EXPECT_EQ(test, st1[NOLOCK_ALLOC_OUTSIDE_NMI] - st0[NOLOCK_ALLOC_OUTSIDE_NMI], 1);
	KUNIT_EXPECT_EQ(test, st1[NOLOCK_FAIL_BAD_CALL] - st0[NOLOCK_FAIL_BAD_CALL], 2);
	KUNIT_EXPECT_EQ(test, st1[NOLOCK_FREE_OUTSIDE_NMI] - st0[NOLOCK_FREE_OUTSIDE_NMI], 1);
	KUNIT_EXPECT_EQ(test, kfree_nolock_pending(), 0);
}

static void nmi_in_fastpath(struct kunit *test)
{
	struct nl_case *k = new_case(test, "fastpath", 64, work_fastpath);
	struct place *pl = &k->places[0];
	/* A debug bucket has no fastpath: its layer's alloc is the entry. */
	const void *fn = k->s->dbg ? (const void *)k->s->layer_alloc
				   : (const void *)k->s->entry.alloc;

	KUNIT_ASSERT_TRUE(test, nmi_code_range(fn, &pl->start, &pl->end));
	pl->name = "the bucket's kmem_cache_alloc entry";
	k->nr_places = 1;
	if (nmi_code_range((const void *)k->s->entry.free, &k->places[1].start,
			   &k->places[1].end)) {
		k->places[1].name = "the bucket's kmem_cache_free entry";
		k->nr_places = 2;
	}
	run_case(test, k);
	free_case(k);
}

static void nmi_in_slow_path(struct kunit *test)
{
	static const char *const slow[] = {
		/* the core's */
		"slab_alloc_slow", "slab_alloc_slow_soft_plain", "slab_alloc_slow_irq_plain",
		"get_freelist", "get_partial_from", "get_partial_node", "get_partial_remote",
		"acquire_slab", "allocate_slab", "allocate_slab_bare", "discard_slab",
		"__slab_free", "slab_free_slow_plain", "deactivate_slab", "unfreeze_partials",
		"slab_alloc_for_layer", "slab_free_for_layer",
		/* partial's, sheaves', the owner schemes', debug's */
		"partial_get_partial", "partial_put_cpu_partial", "barn_get", "barn_put",
		"barn_exchange", "alloc_slow", "load_cpu_slab", "alloc_refill", "locked_pop",
		"locked_push", "partial_pop",
		/* the node's lists */
		"add_partial", "remove_partial", NULL,
	};
	struct nl_case *k = new_case(test, "slow path", 512, work_slowpath);

	run_in_functions(test, k, slow);
}

static void nmi_holding_list_lock(struct kunit *test)
{
	struct nl_case *k = new_case(test, "holding list_lock", 64, work_hold_lock);

	k->held = &get_node_nid(k->s, cpu_to_node(nr_cpu_ids - 1))->list_lock;
	run_case(test, k);
	free_case(k);
}

static void nmi_holding_barn_lock(struct kunit *test)
{
	struct nl_case *k = new_case(test, "holding a barn lock", 64, work_hold_lock);

	if (!k->s->scheme->node_lock) {
		free_case(k);
		kunit_skip(test, "the kmalloc buckets' scheme has no lock of its own per node");
	}
	k->held = k->s->scheme->node_lock(k->s,
					  get_node_nid(k->s, cpu_to_node(nr_cpu_ids - 1)));
	run_case(test, k);
	free_case(k);
}

static void nmi_in_owner_ipi_handler(struct kunit *test)
{
	static const char *const handler[] = {
		"slab_ipi_interrupt", "process_notified", "drain_remote",
		"accept_transfers", "answer_request", "free_owned", "lab5_ipi_interrupt",
		"drain_inbox", "free_mine", NULL,
	};
	struct nl_case *k;

	if (!(kmem_cache_scheme_flags(kmalloc_caches[kmalloc_index(256)]) &
	      (SLAB_SCHEME_IPI_EACH | SLAB_SCHEME_IPI_BATCH)))
		kunit_skip(test, "the kmalloc buckets' scheme sends no IPIs of its own");
	k = new_case(test, "an owner scheme's IPI handler", 256, work_owner);
	run_in_functions(test, k, handler);
}

static void nmi_in_slub_debug_checks(struct kunit *test)
{
	static const char *const checks[] = {
		"check_object", "check_bytes", "looks_free", "mark_object", "poison_object",
		"set_track", "slub_debug_free", "debug_alloc", "is_isolated", "is_quarantined",
		NULL,
	};
	struct nl_case *k;

	if (!slub_debug_flags(kmalloc_caches[kmalloc_index(1024)]))
		kunit_skip(test, "the kmalloc buckets have no debug flags (slub_debug=)");
	k = new_case(test, "slub_debug's checks", 1024, work_debug);
	run_in_functions(test, k, checks);
}

/*
 * One CPU is enough for this one: it holds a bucket's list_lock with interrupts off and
 * sends itself an NMI (nothing masks it), whose handler allocates and frees with the
 * nolock calls before the lock is let go. A nolock path that waited for list_lock would
 * never return; one that took it would panic (a recursive acquire).
 */
struct self_nmi {
	struct nl_case *k;
	int armed, ran;
};

static bool self_nmi_handler(const struct nmi_frame *f, void *arg)
{
	struct self_nmi *sn = arg;

	if (!__atomic_exchange_n(&sn->armed, 0, __ATOMIC_ACQ_REL))
		return false;
	if (spin_held_by_me(sn->k->held)) {
		sn->k->hits++;
		nmi_work(sn->k);
	}
	__atomic_store_n(&sn->ran, 1, __ATOMIC_RELEASE);
	return true;
}

static void nmi_to_self_holding_list_lock(struct kunit *test)
{
	struct nl_case *k = new_case(test, "holding list_lock, NMI to self", 64, NULL);
	struct self_nmi sn = { .k = k };
	struct nmi_handler h = { .name = "nolock_test", .fn = self_nmi_handler, .arg = &sn };
	u64 st0[NR_NOLOCK_STATS], st1[NR_NOLOCK_STATS];
	unsigned long errors = slab_error_count();
	unsigned long flags;

	k->held = &get_node(k->s)->list_lock;
	KUNIT_ASSERT_EQ(test, nmi_handler_register(&h), 0);
	kmalloc_nolock_stats(st0);
	for (int i = 0; i < HITS; i++) {
		u64 end = deadline(DEADLINE_NS);

		__atomic_store_n(&sn.ran, 0, __ATOMIC_RELAXED);
		spin_lock_irqsave(k->held, flags);
		__atomic_store_n(&sn.armed, 1, __ATOMIC_RELEASE);
		nmi_send(smp_processor_id());
		while (!__atomic_load_n(&sn.ran, __ATOMIC_ACQUIRE) && get_cycles() < end)
			cpu_relax();
		spin_unlock_irqrestore(k->held, flags);
		KUNIT_EXPECT_TRUE_MSG(test, sn.ran, "no NMI taken within %llu s",
				      DEADLINE_NS / 1000000000ULL);
	}
	nmi_handler_unregister(&h);
	for (int i = 0; i < k->nr_held; i++) {
		if (!intact(k->held_obj[i], k->held_size[i]))
			k->bad++;
		kfree(k->held_obj[i]);
		k->freed++;
	}
	kfree_nolock_flush();
	kmalloc_nolock_stats(st1);
	KUNIT_EXPECT_EQ(test, k->hits, (u64)HITS);
	KUNIT_EXPECT_EQ(test, k->bad, 0);
	KUNIT_EXPECT_EQ(test, k->allocated, k->freed);
	KUNIT_EXPECT_EQ(test, kfree_nolock_pending(), 0);
	KUNIT_EXPECT_EQ(test, slab_error_count(), errors);
	/* kmalloc-64's list_lock was held: those calls went on in kmalloc-96, or said why not */
	KUNIT_EXPECT_GE(test, st1[NOLOCK_RETRY] - st0[NOLOCK_RETRY], (u64)HITS);
	kunit_info(test, "%d NMIs to cpu %d holding %s's list_lock: %llu allocated, %llu failed, "
		   "%llu retried in the next bucket", HITS, smp_processor_id(), k->s->name,
		   (unsigned long long)k->allocated, (unsigned long long)k->failed,
		   (unsigned long long)(st1[NOLOCK_RETRY] - st0[NOLOCK_RETRY]));
	free_case(k);
}

/*
 * NMIs from cpu 1 to cpu 0 while cpu 0 waits with interrupts on (none of the allocator's
 * per-cpu state is being changed there; an NMI that finds interrupts off, under a timer
 * interrupt, is sent again), whose handler allocates more kmalloc-256 objects than a few
 * slabs hold: past the cpu freelist, every scheme must go on (a node partial slab or a new
 * one; an owner scheme through its nmi_refill), with no failure. Only a scheme that gives
 * its NMIs the cpu freelist alone (an owner scheme without nmi_refill, a debug cache of an
 * owner scheme) is let off, saying so.
 */
#define PAST_FREELIST 200

struct past_freelist {
	struct kmem_cache *s;
	void *obj[PAST_FREELIST];
	int armed, ran, waiting, done, got, failed, resent;
};

static bool past_freelist_handler(const struct nmi_frame *f, void *arg)
{
	struct past_freelist *pf = arg;

	if (!__atomic_exchange_n(&pf->armed, 0, __ATOMIC_ACQ_REL))
		return false;
	if (!nmi_interrupted_irqs_on()) {
		__atomic_store_n(&pf->ran, 2, __ATOMIC_RELEASE); /* send another */
		return true;
	}
	for (int i = 0; i < PAST_FREELIST; i++) {
		void *p = kmalloc_nolock(256, 0, NUMA_NO_NODE);

		if (!p) {
			pf->failed++;
			continue;
		}
		memset(p, 0x6b, 256);
		pf->obj[pf->got++] = p;
	}
	__atomic_store_n(&pf->ran, 1, __ATOMIC_RELEASE);
	return true;
}

static void past_freelist_roles(struct kunit *test, void *arg)
{
	struct past_freelist *pf = arg;
	u64 end = deadline(DEADLINE_NS);

	if (smp_processor_id() == 0) {
		__atomic_store_n(&pf->waiting, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&pf->done, __ATOMIC_ACQUIRE) && get_cycles() < end)
			cpu_relax(); /* interrupts on: where the NMIs land */
		return;
	}
	if (smp_processor_id() != 1)
		return;
	while (!__atomic_load_n(&pf->waiting, __ATOMIC_ACQUIRE) && get_cycles() < end)
		cpu_relax();
	for (int tries = 0; tries < 100 && get_cycles() < end; tries++) {
		__atomic_store_n(&pf->ran, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pf->armed, 1, __ATOMIC_RELEASE);
		nmi_send(0);
		while (!__atomic_load_n(&pf->ran, __ATOMIC_ACQUIRE) && get_cycles() < end)
			cpu_relax();
		if (__atomic_load_n(&pf->ran, __ATOMIC_ACQUIRE) != 2)
			break;
		pf->resent++;
	}
	__atomic_store_n(&pf->done, 1, __ATOMIC_RELEASE);
}

static void nmi_with_interrupts_on_allocates_past_the_cpu_freelist(struct kunit *test)
{
	struct past_freelist *pf;
	struct nmi_handler h = { .name = "nolock_test", .fn = past_freelist_handler };
	u64 st0[NR_NOLOCK_STATS], st1[NR_NOLOCK_STATS];
	unsigned long errors = slab_error_count(), live0;
	struct kmem_cache *s = kmalloc_caches[kmalloc_index(256)];
	const struct slab_scheme *sch = s->scheme;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs (an NMI to self lands inside its own send, "
			   "interrupts off)");
	if ((sch->flags & SLAB_SCHEME_OWNER) && (!sch->nmi_refill || s->dbg))
		kunit_skip(test, "%s: scheme %s gives NMIs its cpu freelist only", s->name,
			   sch->name);
	if (!(sch->flags & SLAB_SCHEME_OWNER) && (s->flags & SLAB_NO_CMPXCHG))
		kunit_skip(test, "%s has no CMPXCHG16B (SLAB_NO_CMPXCHG): a slab's freelist is "
			   "updated under a lock byte, so NMIs get the cpu freelist only", s->name);
	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pf);
	pf->s = s;
	h.arg = pf;
	KUNIT_ASSERT_EQ(test, nmi_handler_register(&h), 0);
	kfree_nolock_flush();
	live0 = live_of(s);
	kmalloc_nolock_stats(st0);
	kunit_run_on_all_cpus(test, past_freelist_roles, pf);
	nmi_handler_unregister(&h);
	kmalloc_nolock_stats(st1);
	KUNIT_EXPECT_EQ_MSG(test, __atomic_load_n(&pf->ran, __ATOMIC_ACQUIRE), 1,
			    "no NMI landed where cpu 0 had interrupts on (%d sent again)",
			    pf->resent);
	KUNIT_EXPECT_EQ_MSG(test, pf->failed, 0, "%s on scheme %s: %d of %d kmalloc_nolock calls "
			    "failed in an NMI that interrupted code with interrupts on", s->name,
			    sch->name, pf->failed, PAST_FREELIST);
	KUNIT_EXPECT_EQ(test, pf->got, pf->ran == 1 ? PAST_FREELIST : 0);
	KUNIT_EXPECT_EQ(test, live_of(s), live0 + pf->got);
	/* beyond the cpu freelist: a slab more at least (16 kmalloc-256 objects a page) */
	KUNIT_EXPECT_GT(test, st1[NOLOCK_ALLOC_PARTIAL] - st0[NOLOCK_ALLOC_PARTIAL] +
			      st1[NOLOCK_ALLOC_NEW_SLAB] - st0[NOLOCK_ALLOC_NEW_SLAB], 0);
	for (int i = 0; i < pf->got; i++) {
		const u8 *b = pf->obj[i];

		for (int j = 0; j < 256; j++)
			if (b[j] != 0x6b) {
				KUNIT_FAIL(test, "object %d damaged at byte %d", i, j);
				break;
			}
		kfree(pf->obj[i]);
	}
	KUNIT_EXPECT_EQ(test, live_of(s), live0);
	KUNIT_EXPECT_EQ(test, slab_error_count(), errors);
	kunit_info(test, "%s on %s: %d allocated in one NMI to cpu 0 (cpu freelist %llu, partial "
		   "%llu, new slab %llu), %d NMIs sent again", s->name, sch->name, pf->got,
		   (unsigned long long)(st1[NOLOCK_ALLOC_CPU] - st0[NOLOCK_ALLOC_CPU]),
		   (unsigned long long)(st1[NOLOCK_ALLOC_PARTIAL] - st0[NOLOCK_ALLOC_PARTIAL]),
		   (unsigned long long)(st1[NOLOCK_ALLOC_NEW_SLAB] - st0[NOLOCK_ALLOC_NEW_SLAB]),
		   pf->resent);
	kfree(pf);
}

static struct kunit_case nolock_cases[] = {
	KUNIT_CASE(nolock_calls_outside_nmi),
	KUNIT_CASE(nmi_in_fastpath),
	KUNIT_CASE(nmi_in_slow_path),
	KUNIT_CASE(nmi_holding_list_lock),
	KUNIT_CASE(nmi_to_self_holding_list_lock),
	KUNIT_CASE(nmi_with_interrupts_on_allocates_past_the_cpu_freelist),
	KUNIT_CASE(nmi_holding_barn_lock),
	KUNIT_CASE(nmi_in_owner_ipi_handler),
	KUNIT_CASE(nmi_in_slub_debug_checks),
	{}
};

static struct kunit_suite nolock_suite = {
	.name = "nolock",
	.test_cases = nolock_cases,
};
kunit_test_suite(nolock_suite);
