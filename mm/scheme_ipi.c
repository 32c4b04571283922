// SPDX-License-Identifier: MIT
/*
 * The owner schemes: every slab has an owner cpu, partial slabs live only on their owner's
 * per-cpu list, and nothing on the alloc or free path takes a lock. This is what Christoph
 * Lameter's remark describes (linux-kernel, June 2011, "SLUB: [RFC] Per cpu partial lists
 * V2": "BSD has gone to a scheme with partial pages only per cpu ... Transfer of cpu
 * ownerships is done using IPIs. Probably too much overhead for our taste"):
 * DragonFly's kern_slaballoc.c, whose zones each belong to one cpu. Three variants:
 *
 *   ipi            a free on another cpu is sent to the owner with one IPI per free, and the
 *                  owner frees it in its IPI handler (DragonFly 2005: one passive IPI message
 *                  per remote free).
 *   ipi-batch      the freeing cpu pushes the object lock-free onto the owner's remote-free
 *                  list and sends an IPI only when the list goes from empty to non-empty; the
 *                  owner drains the list in its IPI handler and in its allocation slow path
 *                  (DragonFly 2010: z_RChunks, "virtually no IPI traffic").
 *   remote-atomic  the same list and no IPI at all: the owner drains only when it allocates
 *                  (mimalloc's thread-free list); separates the cost of the IPI from the list.
 *
 * Slabs and their owner
 *   slab->owner is the cpu that owns the slab. Only the owner touches slab->freelist,
 *   slab->inuse, slab->scheme_state and the slab's place on its owned list, always with
 *   interrupts off. Every other cpu may only read slab->owner and push a freed object onto
 *   the owner's remote-free list (struct ipi_cpu's remote_free, linked through the objects'
 *   free pointers, cmpxchg to push, one xchg by the owner to take them all: no ABA).
 *
 *   state     where                          free objects
 *   CPU       kmem_cache_cpu->slab           on c->freelist (the cpu's), slab->freelist NULL
 *   OWNED     ipi_cpu->owned (with free objects) on slab->freelist
 *   FULL      on no list                     none
 *   TRANSIT   the new owner's transfer_in    on slab->freelist (the new owner's already)
 *
 *   inuse counts the objects not on a freelist of the slab or the cpu: an object on a
 *   remote-free list still counts, so an empty slab (inuse 0) has no object anywhere in
 *   flight, and only then may its owner give it back to the page allocator.
 *
 * Allocation (interrupts off): the cpu freelist; then drain the remote-free list (objects of
 * the cpu slab go straight to the cpu freelist); take slabs handed over by other cpus; the
 * first owned slab; ask a cpu that owns more than its budget to hand some over (ipi and
 * ipi-batch); a new slab from the page allocator.
 *
 * Ownership transfer (ipi, ipi-batch). Cpu A, out of owned slabs, finds the cpu B owning the
 * most slabs beyond its budget (a racy read of B's nr_owned), sets B's transfer_req to A+1
 * (cmpxchg from 0: one request at a time per cpu and cache), and notifies B (below). B, in
 * its IPI handler, takes up to TRANSFER_MAX slabs off its owned list, sets each one's state
 * to TRANSIT and then, with a release store, its owner to A, and pushes it onto A's
 * transfer_in (cmpxchg); then it answers by clearing A's transfer_asked (release) and
 * notifies A. From the release store on, B never touches the slab: a free on B of one of
 * its objects, or a drain on B that finds one, reads owner == A and sends it to A like any
 * remote free (REMOTE_FORWARD). A may free objects of a TRANSIT slab as its owner (they go
 * on slab->freelist) but files the slab on its owned list only when it takes it off
 * transfer_in. A waits for the answer only if the caller had interrupts on, with them on,
 * for at most ipi_wait_us; otherwise, or when the time is up, it allocates a new slab and
 * picks up whatever arrives later.
 *
 * Notification. Each cpu has a notify list of kmem_cache_cpu structures (its own, one per
 * cache) that have work: remote frees, a transfer request, slabs handed over. Whoever posts
 * work sets the structure's notify_queued flag with xchg; only the one that turned it on
 * pushes the structure onto the cpu's notify list; then it sends the slab IPI if the
 * scheme wants one. The handler takes the whole list with xchg, and for each structure
 * reads notify_next, clears notify_queued (xchg: a full barrier), and only then looks at
 * the work: what is posted after the clear queues the structure again, what was posted
 * before it is seen. docs/ipi-protocol.md has the whole argument and the Promela model
 * (tools/model/ipi.pml) that spin checks for 2 and 3 cpus.
 *
 * Shrink and destroy flush every cpu by cross-call (drain, accept, give back the cpu slab,
 * free empty slabs) in rounds until a round forwards nothing and moves no slab: then no
 * object of the cache is on any remote-free list and no structure of it on a notify list.
 */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/scheme_ipi.h"
#include "mm/scheme_partial.h"

enum ipi_mode { MODE_IPI, MODE_BATCH, MODE_ATOMIC };

enum ipi_slab_state {
	IPI_SLAB_CPU = 1,
	IPI_SLAB_OWNED,
	IPI_SLAB_FULL,
	IPI_SLAB_TRANSIT,
};

/* Names for the counters of mm/scheme_ipi.h, in slabinfo and kmem_cache_stat_by_name. */
static const char *const ipi_stat_names[NR_IPI_STATS] = {
	"remote_free", "remote_forward", "ipi_sent", "ipi_received", "remote_drain",
	"remote_drained", "remote_drain_max", "owner_req_sent", "owner_req_granted",
	"owner_req_refused", "owner_req_timeout", "owner_slabs_moved",
};

#define TRANSFER_MAX 8 /* slabs handed over per request */

static DEFINE_PER_CPU(struct kmem_cache_cpu *, slab_notify);
unsigned int slub_ipi_wait_us;
boot_param(ipi_wait_us, slub_ipi_wait_us, uint, (0, 1000000), 200,
	   "ipi schemes: how long a cpu waits for slabs it asked another cpu for (default 200)");

/* The slab IPI: one entry of kernel/smp.c's table of IPI handlers (the arch picks the vector). */
static void slab_ipi_interrupt(void);
smp_ipi_handler(slab_ipi, "slab", slab_ipi_interrupt);

/* From the scheme's flags (a hardened cache runs on a copy of its scheme, flags and all). */
static inline enum ipi_mode mode_of(struct kmem_cache *s)
{
	return (s->scheme->flags & SLAB_SCHEME_IPI_EACH)    ? MODE_IPI
	       : (s->scheme->flags & SLAB_SCHEME_IPI_BATCH) ? MODE_BATCH
							    : MODE_ATOMIC;
}

static inline struct kmem_cache_cpu *cpu_c(struct kmem_cache *s, int cpu)
{
	return &s->cpu_slab[cpu];
}

/* The core's free pointers: obfuscated in hardened caches (freelist_hardened=1). */
#define get_fp get_freepointer
#define set_fp set_freepointer

static inline int slab_owner(struct slab *slab)
{
	return __atomic_load_n(&slab->owner, __ATOMIC_ACQUIRE);
}

/*
 * Owned slabs a cpu keeps before others may ask for some, and the empty ones it keeps: from
 * the partial scheme's budget (cpu_partial=), set when the cache is created (s->priv).
 */
struct ipi_cache {
	unsigned int owned_budget, empty_budget;
};

static inline unsigned int owned_budget(struct kmem_cache *s)
{
	return ((const struct ipi_cache *)s->priv)->owned_budget;
}

static inline unsigned int empty_budget(struct kmem_cache *s)
{
	return ((const struct ipi_cache *)s->priv)->empty_budget;
}

static int ipi_init_cache(struct kmem_cache *s)
{
	struct ipi_cache *i = s->priv;

	i->owned_budget = MAX(2u, cpu_partial_objects(s) / s->objects);
	i->empty_budget = MIN(2u, i->owned_budget);
	return 0;
}

/* Tell cpu `cpu` that its structure oc has work; with an IPI if `ipi`. */
static void notify(struct kmem_cache *s, struct kmem_cache_cpu *me, int cpu,
		   struct kmem_cache_cpu *oc, bool ipi)
{
	if (!__atomic_exchange_n(&ic(oc)->notify_queued, 1, __ATOMIC_ACQ_REL)) {
		struct kmem_cache_cpu **head = &per_cpu(slab_notify, cpu);
		struct kmem_cache_cpu *old = __atomic_load_n(head, __ATOMIC_RELAXED);

		do {
			ic(oc)->notify_next = old;
		} while (!__atomic_compare_exchange_n(head, &old, oc, true, __ATOMIC_RELEASE,
						      __ATOMIC_RELAXED));
	}
	if (ipi) {
		ic(me)->stat[IPI_SENT]++;
		smp_send_ipi(cpu, &slab_ipi);
	}
}

/* ---- the owner's side: interrupts off, on the owner ---- */

/* nr_owned is read by cpus looking for one to ask for slabs: store it whole. */
static inline void set_nr_owned(struct kmem_cache_cpu *c, unsigned int n)
{
	__atomic_store_n(&ic(c)->nr_owned, n, __ATOMIC_RELAXED);
}

static void put_owned(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab)
{
	slab->scheme_state = IPI_SLAB_OWNED;
	set_nr_owned(c, ic(c)->nr_owned + 1);
	if (slab->inuse) {
		list_add(&slab->slab_list, &ic(c)->owned);
		return;
	}
	if (ic(c)->nr_empty >= empty_budget(s)) {
		set_nr_owned(c, ic(c)->nr_owned - 1);
		discard_slab(s, c, slab);
		return;
	}
	ic(c)->nr_empty++;
	list_add_tail(&slab->slab_list, &ic(c)->owned); /* partly used slabs are taken first */
}

static void take_owned(struct kmem_cache_cpu *c, struct slab *slab)
{
	list_del(&slab->slab_list);
	set_nr_owned(c, ic(c)->nr_owned - 1);
	if (!slab->inuse)
		ic(c)->nr_empty--;
}

static void __noinline report_double_free(struct kmem_cache *s, void *object, void *caller)
{
	slab_report_bad(s, object, caller, "double free of");
}

/* Free an object of a slab this cpu owns. */
static void free_owned(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
		       void *object, void *caller)
{
	void *prior;

	if (slab == c->slab) {
		if (unlikely(object == c->freelist)) {
			report_double_free(s, object, caller);
			return;
		}
		set_fp(s, object, c->freelist);
		c->freelist = object;
		return;
	}
	prior = slab->freelist;
	if (unlikely(object == prior)) {
		report_double_free(s, object, caller);
		return;
	}
	set_fp(s, object, prior);
	slab->freelist = object;
	slab->inuse--;
	switch (slab->scheme_state) {
	case IPI_SLAB_FULL:
		put_owned(s, c, slab);
		break;
	case IPI_SLAB_OWNED:
		if (!slab->inuse) { /* now empty: to the tail, or back to the page allocator */
			list_del(&slab->slab_list);
			set_nr_owned(c, ic(c)->nr_owned - 1);
			put_owned(s, c, slab);
		}
		break;
	default: /* TRANSIT: filed when taken off transfer_in */
		break;
	}
}

static void free_remote(struct kmem_cache *s, struct kmem_cache_cpu *me, int owner,
			void *object, void *caller);

/*
 * Take the whole remote-free list and free what is ours; send on what moved away.
 * Returns how many were sent on.
 */
static unsigned long drain_remote(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	void *object = __atomic_exchange_n(&ic(c)->remote_free, NULL, __ATOMIC_ACQUIRE);
	int me = smp_processor_id();
	unsigned long n = 0, forwarded = 0;

	while (object) {
		void *next = get_fp(s, object);
		struct slab *slab = obj_to_slab(object);
		int owner = slab_owner(slab);

		if (owner == me) {
			free_owned(s, c, slab, object, NULL);
		} else {
			ic(c)->stat[REMOTE_FORWARD]++;
			free_remote(s, c, owner, object, NULL);
			forwarded++;
		}
		object = next;
		n++;
	}
	if (n) {
		ic(c)->stat[REMOTE_DRAIN]++;
		ic(c)->stat[REMOTE_DRAINED] += n;
		if (n > ic(c)->stat[REMOTE_DRAIN_MAX])
			ic(c)->stat[REMOTE_DRAIN_MAX] = n;
	}
	return forwarded;
}

/* File the slabs other cpus handed over. */
static __noinline void accept_transfers(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab = __atomic_exchange_n(&ic(c)->transfer_in, NULL, __ATOMIC_ACQUIRE);

	while (slab) {
		struct slab *next = slab->next;

		put_owned(s, c, slab);
		slab = next;
	}
}

/* Answer a request for slabs, if there is one. Returns the slabs handed over. */
static unsigned int answer_request(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	int req = __atomic_exchange_n(&ic(c)->transfer_req, 0, __ATOMIC_ACQUIRE);
	unsigned int budget = owned_budget(s), moved = 0;
	struct kmem_cache_cpu *ac;
	int to;

	if (!req)
		return 0;
	to = req - 1;
	ac = cpu_c(s, to);
	while (ic(c)->nr_owned > budget && moved < TRANSFER_MAX) {
		struct slab *slab = list_last_entry(&ic(c)->owned, struct slab, slab_list);
		struct slab *old;

		take_owned(c, slab);
		slab->scheme_state = IPI_SLAB_TRANSIT;
		/* Everything this cpu wrote to the slab is visible to the new owner first. */
		__atomic_store_n(&slab->owner, to, __ATOMIC_RELEASE);
		old = __atomic_load_n(&ic(ac)->transfer_in, __ATOMIC_RELAXED);
		do {
			slab->next = old;
		} while (!__atomic_compare_exchange_n(&ic(ac)->transfer_in, &old, slab, true,
						      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
		moved++;
	}
	ic(c)->stat[OWNER_SLABS_MOVED] += moved;
	ic(c)->stat[moved ? OWNER_REQ_GRANTED : OWNER_REQ_REFUSED]++;
	__atomic_store_n(&ic(ac)->transfer_asked, 0, __ATOMIC_RELEASE); /* the answer */
	if (moved)
		notify(s, c, to, ac, true);
	return moved;
}

/* All the work other cpus posted to c. Returns the objects and slabs it sent on. */
static unsigned long process(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned long moved = answer_request(s, c);

	accept_transfers(s, c);
	return moved + drain_remote(s, c);
}

static unsigned long process_notified(void)
{
	struct kmem_cache_cpu *c = __atomic_exchange_n(&this_cpu(slab_notify), NULL,
						       __ATOMIC_ACQUIRE);
	unsigned long moved = 0;

	while (c) {
		struct kmem_cache_cpu *next = ic(c)->notify_next;

		__atomic_exchange_n(&ic(c)->notify_queued, 0, __ATOMIC_ACQ_REL);
		ic(c)->stat[IPI_RECEIVED]++;
		moved += process(ic(c)->cache, c);
		c = next;
	}
	return moved;
}

/* The slab IPI: work for this cpu in one or more caches. Interrupts off. */
static void slab_ipi_interrupt(void)
{
	process_notified();
}

/* ---- the freeing cpu's side ---- */

/* Send an object to its owner's remote-free list. Interrupts off (for the counters). */
static void free_remote(struct kmem_cache *s, struct kmem_cache_cpu *me, int owner,
			void *object, void *caller)
{
	struct kmem_cache_cpu *oc = cpu_c(s, owner);
	void *old = __atomic_load_n(&ic(oc)->remote_free, __ATOMIC_RELAXED);
	enum ipi_mode mode = mode_of(s);

	do {
		if (unlikely(old == object)) {
			report_double_free(s, object, caller);
			return;
		}
		set_fp(s, object, old);
	} while (!__atomic_compare_exchange_n(&ic(oc)->remote_free, &old, object, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	ic(me)->stat[REMOTE_FREE]++;
	if (mode == MODE_IPI || (mode == MODE_BATCH && !old))
		notify(s, me, owner, oc, true);
}

static void free_one(struct kmem_cache *s, struct kmem_cache_cpu *c, void *object, void *caller)
{
	struct slab *slab = obj_to_slab(object);
	int owner = slab_owner(slab);

	if (likely(owner == smp_processor_id())) {
		free_owned(s, c, slab, object, caller);
		stat(s, c, FREE_FASTPATH);
	} else {
		free_remote(s, c, owner, object, caller);
	}
}

static FASTPATH_FN void ipi_free(struct kmem_cache *s, void *object, void *caller)
{
	unsigned long flags;

	local_irq_save(flags);
	free_one(s, this_cpu_slab(s), object, caller);
	local_irq_restore(flags);
}

/*
 * kmem_cache_free itself for a plain cache of a power-of-two size (struct slab_scheme's
 * free_entry): an object start in this cpu's slab is this cache's object, of a slab this
 * cpu owns (a cpu slab is never handed over), so it goes onto the cpu freelist without a
 * lookup, as in the core's fastpath. Anything else is looked up and checked in full, then
 * ipi_free. The calls are jumps: slab_report_bad and slab_free_checked find
 * kmem_cache_free's caller as their own.
 */
static FASTPATH_FN void ipi_free_entry(struct kmem_cache *s, void *object)
{
	struct kmem_cache_cpu *c;

	irq_soft_mask(); /* kernel/irqflags.h: as the core's irq fastpath */
	c = this_cpu_slab(s);
	if (likely(cpu_slab_has_object(c, object))) {
		if (unlikely(object == c->freelist)) { /* NULL too, with no cpu slab: no report */
			irq_soft_unmask();
			slab_report_bad(s, object, NULL, "double free of");
			return;
		}
		*(void **)((char *)object + s->offset) = c->freelist; /* never hardened here */
		c->freelist = object;
		stat(s, c, FREE_FASTPATH);
		irq_soft_unmask();
		return;
	}
	irq_soft_unmask();
	slab_free_checked(s, object);
}

/* ---- allocation ---- */

/*
 * Ask the cpu that owns the most slabs beyond its budget for some. Waits for the answer,
 * with interrupts on, only if the caller had them on (flags): then returns true, and the
 * caller must look at its state again (an interrupt handler may have used this cache).
 */
static bool ask_for_slabs(struct kmem_cache *s, struct kmem_cache_cpu *c, unsigned long flags)
{
	int me = smp_processor_id(), best = -1, cpu, zero = 0;
	unsigned int most = owned_budget(s);
	struct kmem_cache_cpu *bc;
	u64 deadline;

	if (!(s->scheme->flags & SLAB_SCHEME_TRANSFER) ||
	    __atomic_load_n(&ic(c)->transfer_asked, __ATOMIC_ACQUIRE))
		return false; /* no transfers in this scheme, or a request is still out */
	for_each_online_cpu(cpu) {
		unsigned int n = __atomic_load_n(&ic(cpu_c(s, cpu))->nr_owned, __ATOMIC_RELAXED);

		if (cpu != me && n > most) {
			most = n;
			best = cpu;
		}
	}
	if (best < 0)
		return false;
	bc = cpu_c(s, best);
	__atomic_store_n(&ic(c)->transfer_asked, best + 1, __ATOMIC_RELAXED); /* the answer clears it */
	if (!__atomic_compare_exchange_n(&ic(bc)->transfer_req, &zero, me + 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED)) {
		__atomic_store_n(&ic(c)->transfer_asked, 0, __ATOMIC_RELAXED); /* someone else asks it */
		return false;
	}
	ic(c)->stat[OWNER_REQ_SENT]++;
	notify(s, c, best, bc, true);
	if (irqs_disabled_flags(flags) || !slub_ipi_wait_us)
		return false; /* whatever comes is picked up later */
	deadline = get_cycles() + ns_to_cycles((u64)slub_ipi_wait_us * 1000);
	local_irq_enable();
	while (__atomic_load_n(&ic(c)->transfer_asked, __ATOMIC_ACQUIRE) && get_cycles() < deadline)
		cpu_relax();
	local_irq_disable();
	if (__atomic_load_n(&ic(c)->transfer_asked, __ATOMIC_ACQUIRE))
		ic(c)->stat[OWNER_REQ_TIMEOUT]++;
	return true;
}

/* The cpu slab is exhausted (every object is out): it stops being the cpu slab. */
static void retire_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	if (c->slab) {
		c->slab->scheme_state = IPI_SLAB_FULL;
		cpu_slab_set(s, c, NULL);
	}
}

/* Make slab this cpu's slab, one it owns (fresh: a new one, now this cpu's): its free objects
 * become the cpu freelist. */
static __noinline void load_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c,
				     struct slab *slab, bool fresh)
{
	if (fresh)
		__atomic_store_n(&slab->owner, smp_processor_id(), __ATOMIC_RELEASE);
	else
		take_owned(c, slab);
	slab->scheme_state = IPI_SLAB_CPU;
	cpu_slab_set(s, c, slab); /* ipi_free_entry's test */
	c->freelist = slab->freelist;
	slab->freelist = NULL;
	slab->inuse = slab->objects;
}

/* The cpu freelist is empty. Interrupts off; flags are the caller's. */
static void *alloc_slow(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp,
			unsigned long flags)
{
	bool asked = false;
	struct slab *slab;
	void *object;

	stat(s, c, ALLOC_SLOWPATH);
	for (;;) {
		drain_remote(s, c);
		if (c->freelist)
			break;
		accept_transfers(s, c);
		retire_cpu_slab(s, c);
		if (!list_empty(&ic(c)->owned)) {
			slab = list_first_entry(&ic(c)->owned, struct slab, slab_list);
			load_cpu_slab(s, c, slab, false);
			stat(s, c, ALLOC_FROM_PARTIAL);
			break;
		}
		if (!asked) {
			asked = true;
			if (ask_for_slabs(s, c, flags))
				continue; /* interrupts were on: look at everything again */
		}
		slab = allocate_slab(s, gfp);
		if (!slab) {
			if (!(gfp & __GFP_NOWARN))
				printk("slab: %s: out of memory (order-%u slab)\n", s->name,
				       s->order);
			return NULL;
		}
		load_cpu_slab(s, c, slab, true);
		stat(s, c, ALLOC_SLAB);
		break;
	}
	object = c->freelist;
	c->freelist = get_fp(s, object);
	return object;
}

/*
 * kmalloc_nolock in an NMI that interrupted this cpu with interrupts on, the cpu freelist
 * empty (struct slab_scheme's nmi_refill): the cpu slab is exhausted; an owned slab becomes
 * the cpu slab, or a new one whose pages were had without waiting. Neither the remote
 * frees (their drain may give slabs back to the page allocator, which waits for its locks)
 * nor another cpu's slabs (asked for by IPI): the next allocation outside NMI takes those.
 */
static bool ipi_nmi_refill(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp,
			   bool *new_slab)
{
	bool fresh = list_empty(&ic(c)->owned);
	struct slab *slab = fresh ? allocate_slab(s, gfp) :
				    list_first_entry(&ic(c)->owned, struct slab, slab_list);

	if (!slab)
		return false;
	retire_cpu_slab(s, c);
	load_cpu_slab(s, c, slab, fresh);
	*new_slab = fresh;
	return true;
}

/* ipi_alloc's slow half, interrupts back as flags had them (the fast half jumps here). */
static __noinline void *ipi_alloc_slow_irq(struct kmem_cache *s, struct kmem_cache_cpu *c,
					   gfp_t gfp, unsigned long flags)
{
	void *object = alloc_slow(s, c, gfp, flags);

	local_irq_restore(flags);
	return object;
}

/* The same from under irq_soft_mask: interrupts off first (kernel/irqflags.h). */
static __noinline void *ipi_alloc_slow_soft(struct kmem_cache *s, struct kmem_cache_cpu *c,
					    gfp_t gfp)
{
	return ipi_alloc_slow_irq(s, c, gfp, irq_soft_to_hard());
}

/* Any cache of the scheme, hardened ones (the debug layer's) included. */
static FASTPATH_FN void *ipi_alloc(struct kmem_cache *s, gfp_t gfp)
{
	return slab_alloc_fast_irq(s, gfp, true, ipi_alloc_slow_soft);
}

/* kmem_cache_alloc itself for a plain cache (struct slab_scheme's alloc_entry). */
static FASTPATH_FN void *ipi_alloc_entry(struct kmem_cache *s, gfp_t gfp)
{
	return slab_alloc_fast_irq(s, gfp, false, ipi_alloc_slow_soft);
}

static int ipi_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	struct kmem_cache_cpu *c;
	unsigned long flags;
	size_t i;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	for (i = 0; i < n; i++) {
		void *object = c->freelist;

		if (likely(object)) {
			c->freelist = get_fp(s, object);
			stat(s, c, ALLOC_FASTPATH);
		} else {
			object = alloc_slow(s, c, gfp, flags);
			if (!object) {
				while (i)
					free_one(s, c, p[--i], NULL);
				local_irq_restore(flags);
				return 0;
			}
		}
		p[i] = object;
	}
	local_irq_restore(flags);
	return (int)n; /* never __GFP_ZERO: the core zeroes after (kmem_cache_alloc_bulk) */
}

/*
 * An object start in the cpu slab (a plain cache of a power-of-two size: the test
 * ipi_free_entry makes) goes onto the cpu freelist with no lookup, as a single free's does;
 * anything else is checked in full and freed by free_one. Like the core's bulk free, the
 * same object twice in a row is reported.
 */
static void ipi_free_bulk(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	bool quick = s->size_mask && !s->dbg && !s->freeptr_xor_key;
	struct kmem_cache_cpu *c;
	unsigned long flags;
	u64 pushed = 0;

	local_irq_save(flags);
	c = this_cpu_slab(s);
	for (size_t i = 0; i < n; i++) {
		void *x = p[i];

		if (!x)
			continue;
		if (quick && cpu_slab_has_object(c, x)) {
			if (unlikely(i && x == p[i - 1]))
				slab_report_bad(s, x, caller, "double free (twice in one bulk) of");
			else if (unlikely(x == c->freelist))
				report_double_free(s, x, caller);
			else {
				*(void **)((char *)x + s->offset) = c->freelist; /* not hardened */
				c->freelist = x;
				pushed++;
			}
			continue;
		}
		if (!slab_free_check(s, x, caller))
			continue;
		if (unlikely(i && x == p[i - 1])) {
			slab_report_bad(s, x, caller, "double free (twice in one bulk) of");
			continue;
		}
		free_one(s, c, x, caller);
	}
	c->stat[FREE_FASTPATH] += pushed;
	local_irq_restore(flags);
}

/* ---- shrink, destroy, counting ---- */

/*
 * On each cpu (cross-call, interrupts off): all posted work, the cpu slab, empty slabs.
 * Returns the objects and slabs it sent to other cpus.
 */
static unsigned long ipi_flush_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned long moved = process_notified(); /* every cache's: nothing is left queued */
	struct slab *slab, *tmp;

	moved += process(s, c); /* remote-atomic queues nothing */
	slab = c->slab;
	if (slab) {
		unsigned int free = 0;

		for (void *p = c->freelist; p; p = get_fp(s, p))
			free++;
		slab->freelist = c->freelist;
		slab->inuse = slab->objects - free;
		cpu_slab_set(s, c, NULL);
		c->freelist = NULL;
		stat(s, c, CPUSLAB_FLUSH);
		if (free)
			put_owned(s, c, slab);
		else
			slab->scheme_state = IPI_SLAB_FULL;
	}
	list_for_each_entry_safe(slab, tmp, &ic(c)->owned, slab_list) {
		if (!slab->inuse) {
			take_owned(c, slab);
			discard_slab(s, c, slab);
		}
	}
	return moved;
}

struct flush_round {
	struct kmem_cache *s;
	unsigned long moved;
};

static void flush_cpu_fn(void *arg)
{
	struct flush_round *r = arg;
	unsigned long moved = ipi_flush_cpu(r->s, &r->s->cpu_slab[smp_processor_id()]);

	__atomic_fetch_add(&r->moved, moved, __ATOMIC_RELAXED);
}

/*
 * After the core flushed every cpu once: flush again until a round moves nothing, so that
 * what one cpu forwarded to another after that one's flush is freed too.
 */
static void ipi_shrink(struct kmem_cache *s)
{
	for (int round = 0;; round++) {
		struct flush_round r = { .s = s, .moved = 0 };

		on_each_cpu(flush_cpu_fn, &r, 1);
		if (!r.moved)
			return;
		if (round == 1000) {
			printk("slab: %s: objects still moving between cpus after %d flushes\n",
			       s->name, round);
			return;
		}
	}
}

/* Free objects this cpu holds besides the cpu freelist. Interrupts off, on the cpu. */
static unsigned long ipi_count_free(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned long n = 0;
	struct slab *slab;

	list_for_each_entry(slab, &ic(c)->owned, slab_list)
		n += slab->objects - slab->inuse;
	/* Pushers only prepend and only this cpu takes: the list behind the head is stable. */
	for (void *p = __atomic_load_n(&ic(c)->remote_free, __ATOMIC_ACQUIRE); p; p = get_fp(s, p))
		n++;
	for (slab = __atomic_load_n(&ic(c)->transfer_in, __ATOMIC_ACQUIRE); slab; slab = slab->next)
		n += slab->objects - slab->inuse;
	return n;
}

static void ipi_flush_hook(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	ipi_flush_cpu(s, c); /* ipi_shrink, which follows, flushes until nothing moves */
}

static int ipi_init_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu)
{
	ic(c)->cache = s;
	INIT_LIST_HEAD(&ic(c)->owned);
	return 0;
}

/* Destroy comes after the flushes of shrink: anything still here was lost by the protocol. */
static void ipi_exit_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu)
{
	struct ipi_cpu *i = ic(c);

	if (i->nr_owned || i->remote_free || i->transfer_in || i->notify_queued)
		printk("slab: %s: destroyed with cpu %d still holding %u owned slabs%s%s%s\n",
		       s->name, cpu, i->nr_owned, i->remote_free ? ", remote frees" : "",
		       i->transfer_in ? ", slabs handed over" : "",
		       i->notify_queued ? ", a notification queued" : "");
}

/* After the counters on slabinfo's line: objects per drain, one decimal. */
static void ipi_slabinfo(struct kmem_cache *s)
{
	u64 drains = kmem_cache_scheme_stat(s, REMOTE_DRAIN);
	u64 drained = kmem_cache_scheme_stat(s, REMOTE_DRAINED);

	if (drains)
		printk(" objects_per_drain=%llu.%llu", (unsigned long long)(drained / drains),
		       (unsigned long long)(drained * 10 / drains % 10));
}

#define OWNER_SCHEME(var, nm, what, fl, ord)                                                       \
	static const struct slab_scheme var = {                                                    \
		.name = nm,                                                                        \
		.summary = what,                                                                   \
		.flags = SLAB_SCHEME_OWNER | (fl),                                                 \
		.order = ord,                                                                      \
		.flush_cpu = ipi_flush_hook,                                                       \
		.alloc = ipi_alloc,                                                                \
		.free = ipi_free,                                                                  \
		.free_entry = ipi_free_entry,                                                      \
		.alloc_entry = ipi_alloc_entry,                                                    \
		.alloc_bulk = ipi_alloc_bulk,                                                      \
		.nmi_refill = ipi_nmi_refill,                                                      \
		.free_bulk = ipi_free_bulk,                                                        \
		.count_free = ipi_count_free,                                                      \
		.shrink = ipi_shrink,                                                              \
		.cache_size = sizeof(struct ipi_cache),                                            \
		.cpu_size = sizeof(struct ipi_cpu),                                                \
		.init_cache = ipi_init_cache,                                                      \
		.init_cpu = ipi_init_cpu,                                                          \
		.exit_cpu = ipi_exit_cpu,                                                          \
		.stat_names = ipi_stat_names,                                                      \
		.nr_stats = NR_IPI_STATS,                                                          \
		.stat_offset = offsetof(struct ipi_cpu, stat),                                     \
		.slabinfo = ipi_slabinfo,                                                          \
	};                                                                                         \
	slab_scheme_register(var)

OWNER_SCHEME(ipi_scheme, "ipi", "owner cpus, one IPI per remote free (DragonFly 2005)",
	     SLAB_SCHEME_TRANSFER | SLAB_SCHEME_IPI_EACH, 40);
OWNER_SCHEME(ipi_batch_scheme, "ipi-batch",
	     "owner cpus, a lock-free remote-free list, an IPI when it was empty (DragonFly 2010)",
	     SLAB_SCHEME_TRANSFER | SLAB_SCHEME_IPI_BATCH, 50);
OWNER_SCHEME(remote_atomic_scheme, "remote-atomic",
	     "owner cpus, a lock-free remote-free list drained when the owner allocates, no IPI",
	     0, 60);
