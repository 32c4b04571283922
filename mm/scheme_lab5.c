// SPDX-License-Identifier: MIT
/*
 * The "lab5" scheme (docs/labs/lab5.md): owner cpus, and remote frees sent to the owner in
 * batches that the freeing cpu collects. No lock on any path, and one IPI per batch.
 *
 * Every slab belongs to the cpu that took it from the page allocator, for its whole life
 * (slab->owner; nothing moves ownership). Only the owner touches the slab's freelist, inuse,
 * scheme_state and its place on the owner's partial list, with interrupts off.
 *
 * A free on another cpu does not go to the owner at once. The freeing cpu keeps a few
 * outboxes (LAB5_OUTBOXES, the owner's number modulo that picks one), each a chain of
 * objects for one owner, linked through the objects' free pointers. When an outbox holds
 * LAB5_BATCH objects, or another owner needs its place, the whole chain is spliced onto the
 * owner's inbox with one cmpxchg and the owner gets one IPI. The owner takes its whole inbox
 * with one xchg (so no ABA: only the owner ever takes) in the IPI handler and in its
 * allocation slow path, and frees each object as its own.
 *
 * This is the other end from ipi-batch (mm/scheme_ipi.c), which pushes every remote free onto
 * the owner's list at once and sends an IPI when the list was empty: there the owner decides
 * how much one IPI carries (whatever arrived before it ran), here the sender does (a batch),
 * at the price of objects that wait in an outbox until it fills or the cache is shrunk. One
 * IPI per LAB5_BATCH remote frees, whatever the timing: 1000 / 32 = 31.25 per thousand.
 *
 *   scheme_state   where                       free objects
 *   LAB5_CPU       kmem_cache_cpu->slab        on c->freelist; slab->freelist NULL
 *   LAB5_PARTIAL   lab5_cpu->partial           on slab->freelist
 *   LAB5_FULL      no list                     none
 *
 * inuse counts the objects on neither freelist: an object in an outbox or an inbox still
 * counts, so a slab with inuse 0 has nothing in flight and its owner may give it back.
 *
 * The IPI handler finds the caches through a list of this scheme's caches (lab5_caches,
 * under lab5_caches_lock; a cache joins at create, leaves at destroy after its last flush).
 * Shrink and destroy: every cpu sends its outboxes and drains its inbox (the core's flush,
 * one cross-call round), then every cpu drains again (this scheme's shrink): what was sent
 * in the first round arrives in the second, and draining sends nothing on, as slabs never
 * change owner.
 */
#include "kernel/irqflags.h"
#include "kernel/list.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "mm/slub.h"

#define LAB5_BATCH 32    /* remote frees per batch: one IPI each */
#define LAB5_OUTBOXES 4  /* owners a cpu collects for at once */
#define LAB5_KEEP_EMPTY 1 /* empty slabs an owner keeps on its partial list */

enum { LAB5_CPU = 1, LAB5_PARTIAL, LAB5_FULL };

enum {
	L5_REMOTE_FREE,     /* objects put in an outbox */
	L5_BATCH_SENT,      /* outboxes spliced onto an owner's inbox */
	L5_BATCH_SHORT,     /* of which before they were full (another owner, a flush) */
	L5_IPI_SENT,        /* IPIs for batches */
	L5_IPI_RECEIVED,    /* IPIs that found this cache's inbox non-empty */
	L5_DRAIN,           /* inboxes taken (non-empty) */
	L5_DRAINED,         /* objects in them */
	L5_DRAIN_MAX,       /* most objects in one (a maximum) */
	NR_L5_STATS
};

static const char *const lab5_stat_names[NR_L5_STATS] = {
	"remote_free", "batch_sent", "batch_short", "ipi_sent", "ipi_received",
	"remote_drain", "remote_drained", "remote_drain_max",
};

struct lab5_outbox {
	int owner;           /* cpu the chain is for, when count > 0 */
	unsigned int count;
	void *head, *tail;   /* objects linked through their free pointers */
};

/* Per cache and cpu (c->priv). */
struct lab5_cpu {
	void *inbox;                 /* batches for this cpu: other cpus splice, this one takes */
	struct list_head partial;    /* owned slabs with free objects, not the cpu slab */
	unsigned int nr_empty;       /* of them, with inuse 0 */
	struct lab5_outbox out[LAB5_OUTBOXES];
	u64 stat[NR_L5_STATS];
};

/* Per cache (n->priv): its place on lab5_caches. */
struct lab5_node {
	struct list_head link;
	struct kmem_cache *cache;
};

static LIST_HEAD(lab5_caches);
static DEFINE_SPINLOCK(lab5_caches_lock);

static void lab5_ipi_interrupt(void);
smp_ipi_handler(lab5_ipi, "lab5", lab5_ipi_interrupt);

static inline struct lab5_cpu *l5(struct kmem_cache_cpu *c)
{
	return c->priv;
}

static void __noinline __used double_free(struct kmem_cache *s, void *object, void *caller)
{
	slab_report_bad(s, object, caller, "double free of");
}

/* ---- the owner: interrupts off ---- */

/* An object of a slab this cpu owns comes back. */
static void free_mine(struct kmem_cache *s, struct kmem_cache_cpu *c, struct slab *slab,
		      void *object, void *caller)
{
	/* LAB5: BEGIN */
	struct lab5_cpu *me = l5(c);

	if (slab->scheme_state == LAB5_CPU) {
		if (unlikely(object == c->freelist)) {
			double_free(s, object, caller);
			return;
		}
		set_freepointer(s, object, c->freelist);
		c->freelist = object;
		return;
	}
	if (unlikely(object == slab->freelist)) {
		double_free(s, object, caller);
		return;
	}
	set_freepointer(s, object, slab->freelist);
	slab->freelist = object;
	slab->inuse--;
	if (slab->scheme_state == LAB5_FULL) {
		slab->scheme_state = LAB5_PARTIAL;
		list_add(&slab->slab_list, &me->partial);
	}
	if (slab->inuse)
		return;
	/* Empty: keep one at the tail (partly used slabs are taken first), give back more. */
	list_del(&slab->slab_list);
	if (me->nr_empty >= LAB5_KEEP_EMPTY) {
		discard_slab(s, c, slab);
		return;
	}
	me->nr_empty++;
	list_add_tail(&slab->slab_list, &me->partial);
	/* LAB5: END */
}

/* Take everything other cpus sent here and free it. */
static void drain_inbox(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	/* LAB5: BEGIN */
	struct lab5_cpu *me = l5(c);
	void *object = __atomic_exchange_n(&me->inbox, NULL, __ATOMIC_ACQUIRE);
	u64 n = 0;

	for (; object; n++) {
		void *next = get_freepointer(s, object);

		free_mine(s, c, obj_to_slab(object), object, NULL);
		object = next;
	}
	if (!n)
		return;
	me->stat[L5_DRAIN]++;
	me->stat[L5_DRAINED] += n;
	if (n > me->stat[L5_DRAIN_MAX])
		me->stat[L5_DRAIN_MAX] = n;
	/* LAB5: END */
}

/* The IPI: drain this cpu's inbox in every cache of the scheme that has mail. */
static void lab5_ipi_interrupt(void)
{
	/* LAB5: BEGIN */
	int cpu = smp_processor_id();
	struct lab5_node *ln;

	spin_lock(&lab5_caches_lock);
	list_for_each_entry(ln, &lab5_caches, link) {
		struct kmem_cache_cpu *c = &ln->cache->cpu_slab[cpu];

		if (__atomic_load_n(&l5(c)->inbox, __ATOMIC_RELAXED)) {
			l5(c)->stat[L5_IPI_RECEIVED]++;
			drain_inbox(ln->cache, c);
		}
	}
	spin_unlock(&lab5_caches_lock);
	/* LAB5: END */
}

/* ---- the freeing cpu: interrupts off ---- */

/* Splice outbox o onto its owner's inbox; with an IPI if ipi. */
static void send_outbox(struct kmem_cache *s, struct kmem_cache_cpu *c, struct lab5_outbox *o,
			bool ipi)
{
	/* LAB5: BEGIN */
	struct lab5_cpu *to = l5(&s->cpu_slab[o->owner]);
	void *old = __atomic_load_n(&to->inbox, __ATOMIC_RELAXED);

	if (!o->count)
		return;
	do {
		set_freepointer(s, o->tail, old);
	} while (!__atomic_compare_exchange_n(&to->inbox, &old, o->head, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	l5(c)->stat[L5_BATCH_SENT]++;
	if (o->count < LAB5_BATCH)
		l5(c)->stat[L5_BATCH_SHORT]++;
	if (ipi) {
		l5(c)->stat[L5_IPI_SENT]++;
		smp_send_ipi(o->owner, &lab5_ipi);
	}
	o->count = 0;
	o->head = o->tail = NULL;
	/* LAB5: END */
}

/* An object of another cpu's slab: into the outbox for its owner. */
static void free_remote(struct kmem_cache *s, struct kmem_cache_cpu *c, int owner, void *object,
			void *caller)
{
	/* LAB5: BEGIN */
	struct lab5_outbox *o = &l5(c)->out[owner % LAB5_OUTBOXES];

	if (o->count && o->owner != owner)
		send_outbox(s, c, o, true); /* the place is another owner's: send what it has */
	if (unlikely(o->count && object == o->head)) {
		double_free(s, object, caller);
		return;
	}
	set_freepointer(s, object, o->head);
	o->head = object;
	if (!o->count++) {
		o->tail = object;
		o->owner = owner;
	}
	if (o->count == LAB5_BATCH)
		send_outbox(s, c, o, true);
	/* LAB5: END */
}

static void free_one(struct kmem_cache *s, struct kmem_cache_cpu *c, void *object, void *caller)
{
	struct slab *slab = obj_to_slab(object);
	int owner = __atomic_load_n(&slab->owner, __ATOMIC_RELAXED);

	if (owner == smp_processor_id()) {
		free_mine(s, c, slab, object, caller);
		stat(s, c, FREE_FASTPATH);
	} else {
		l5(c)->stat[L5_REMOTE_FREE]++; /* counted here, not by the lab's code */
		free_remote(s, c, owner, object, caller);
	}
}

/* ---- allocation: interrupts off ---- */

/* The cpu freelist is empty: refill it and take one object. */
static void *alloc_refill(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp)
{
	stat(s, c, ALLOC_SLOWPATH);
	drain_inbox(s, c); /* objects of the cpu slab land on c->freelist */
	/* LAB5: BEGIN */
	struct lab5_cpu *me = l5(c);
	struct slab *slab;
	void *object;

	if (!c->freelist) {
		if (c->slab) { /* every object of the cpu slab is out */
			c->slab->scheme_state = LAB5_FULL;
			c->slab = NULL;
		}
		if (!list_empty(&me->partial)) {
			slab = list_first_entry(&me->partial, struct slab, slab_list);
			list_del(&slab->slab_list);
			if (!slab->inuse)
				me->nr_empty--;
			stat(s, c, ALLOC_FROM_PARTIAL);
		} else if ((slab = allocate_slab(s, gfp))) {
			__atomic_store_n(&slab->owner, smp_processor_id(), __ATOMIC_RELAXED);
			stat(s, c, ALLOC_SLAB);
		} else {
			if (!(gfp & __GFP_NOWARN))
				printk("slab: %s: out of memory for another slab (order %u)\n", s->name,
				       s->order);
			return NULL;
		}
		/* The cpu slab: all its free objects on the cpu freelist, none left in it. */
		c->freelist = slab->freelist;
		c->slab = slab;
		slab->scheme_state = LAB5_CPU;
		slab->inuse = slab->objects;
		slab->freelist = NULL;
	}
	object = c->freelist;
	c->freelist = get_freepointer(s, object);
	return object;
	/* LAB5: END */
}

static inline void *alloc_one(struct kmem_cache *s, struct kmem_cache_cpu *c, gfp_t gfp)
{
	void *object = c->freelist;

	if (unlikely(!object))
		return alloc_refill(s, c, gfp);
	c->freelist = get_freepointer(s, object);
	stat(s, c, ALLOC_FASTPATH);
	return object;
}

/* This cpu's structure of s: interrupts off, as long as it is used. */
static inline struct kmem_cache_cpu *this_c(struct kmem_cache *s)
{
	return s->cpu_slab + smp_processor_id();
}

static void *lab5_alloc(struct kmem_cache *s, gfp_t gfp)
{
	unsigned long flags;
	void *object;

	local_irq_save(flags);
	object = alloc_one(s, this_c(s), gfp);
	local_irq_restore(flags);
	return object;
}

/* kmem_cache_free and kfree: the core has checked the object. */
static void lab5_free(struct kmem_cache *s, void *object, void *caller)
{
	unsigned long flags;

	local_irq_save(flags);
	free_one(s, this_c(s), object, caller);
	local_irq_restore(flags);
}

/* All n or none. */
static int lab5_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	struct kmem_cache_cpu *c;
	unsigned long flags;
	size_t got;

	local_irq_save(flags);
	c = this_c(s);
	for (got = 0; got < n; got++) {
		p[got] = alloc_one(s, c, gfp);
		if (!p[got])
			break;
	}
	if (got < n) /* all or nothing */
		while (got)
			free_one(s, c, p[--got], NULL);
	local_irq_restore(flags);
	return (int)got; /* never __GFP_ZERO: the core zeroes after (kmem_cache_alloc_bulk) */
}

/* The caller's pointers, unchecked: each one through slab_free_check() first. */
static void lab5_free_bulk(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	unsigned long flags;
	void *prev = NULL;

	local_irq_save(flags);
	for (size_t i = 0; i < n; prev = p[i++]) {
		if (!p[i])
			continue;
		if (unlikely(p[i] == prev)) /* as the core's bulk free: twice in a row */
			slab_report_bad(s, p[i], caller, "double free (twice in one bulk) of");
		else if (slab_free_check(s, p[i], caller))
			free_one(s, this_c(s), p[i], caller);
	}
	local_irq_restore(flags);
}

/* ---- shrink, destroy, counting ---- */

/*
 * On every cpu (the core's cross-call, interrupts off): send every outbox, drain the inbox,
 * give back the cpu slab, free the empty slabs.
 */
static void lab5_flush(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct lab5_cpu *me = l5(c);

	for (int i = 0; i < LAB5_OUTBOXES; i++)
		send_outbox(s, c, &me->out[i], false); /* the drain round after this takes them */
	drain_inbox(s, c);
	/* LAB5: BEGIN */
	struct slab *slab = c->slab, *tmp;
	void *object = c->freelist;

	if (slab) {
		/* Every object out, then each free one back as a free would bring it: the slab
		 * ends up on the partial list (or given back, if it was all free). */
		c->slab = NULL;
		c->freelist = NULL;
		slab->scheme_state = LAB5_FULL;
		while (object) {
			void *next = get_freepointer(s, object);

			free_mine(s, c, slab, object, NULL);
			object = next;
		}
		stat(s, c, CPUSLAB_FLUSH);
	}
	list_for_each_entry_safe(slab, tmp, &me->partial, slab_list)
		if (!slab->inuse) {
			list_del(&slab->slab_list);
			discard_slab(s, c, slab);
		}
	me->nr_empty = 0;
	/* LAB5: END */
}

static void drain_and_free_empty(void *arg)
{
	struct kmem_cache *s = arg;

	lab5_flush(s, this_c(s));
}

/* After the core's flush of every cpu: once more, for what that round sent. */
static void lab5_shrink(struct kmem_cache *s)
{
	on_each_cpu(drain_and_free_empty, s, 1);
}

static unsigned long chain_length(struct kmem_cache *s, void *p)
{
	unsigned long n = 0;

	for (; p; p = get_freepointer(s, p))
		n++;
	return n;
}

/* Free objects this cpu holds besides its cpu freelist: partial slabs, inbox, outboxes. */
static unsigned long lab5_count_free(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct lab5_cpu *me = l5(c);
	/* Senders only splice in front of the head, and only this cpu takes. */
	unsigned long n = chain_length(s, __atomic_load_n(&me->inbox, __ATOMIC_ACQUIRE));
	struct slab *slab;

	for (int i = 0; i < LAB5_OUTBOXES; i++)
		n += me->out[i].count;
	list_for_each_entry(slab, &me->partial, slab_list)
		n += (unsigned long)(slab->objects - slab->inuse);
	return n;
}

static int lab5_init_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu)
{
	INIT_LIST_HEAD(&l5(c)->partial);
	return 0;
}

static void lab5_exit_cpu(struct kmem_cache *s, struct kmem_cache_cpu *c, int cpu)
{
	struct lab5_cpu *me = l5(c);
	unsigned long held = 0;

	for (int i = 0; i < LAB5_OUTBOXES; i++)
		held += me->out[i].count;
	if (me->inbox || held || !list_empty(&me->partial))
		printk("slab: %s: destroyed with cpu %d still holding %s%s%lu objects in outboxes\n",
		       s->name, cpu, me->inbox ? "an inbox, " : "",
		       list_empty(&me->partial) ? "" : "partial slabs, ", held);
}

static int lab5_init_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct lab5_node *ln = n->priv;
	unsigned long flags;

	ln->cache = s;
	spin_lock_irqsave(&lab5_caches_lock, flags);
	list_add(&ln->link, &lab5_caches);
	spin_unlock_irqrestore(&lab5_caches_lock, flags);
	return 0;
}

static void lab5_exit_node(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct lab5_node *ln = n->priv;
	unsigned long flags;

	spin_lock_irqsave(&lab5_caches_lock, flags);
	list_del(&ln->link);
	spin_unlock_irqrestore(&lab5_caches_lock, flags);
}

/* __used: in lab 5's handout the registration, the file's last line, is yours to write
 * (docs/writing-a-scheme.md); until then nothing else refers to this. */
static const struct slab_scheme lab5_scheme __used = {
	.name = "lab5",
	.summary = "owner cpus; remote frees collected by the freeing cpu, sent in batches of 32 "
		   "with one IPI (lab 5)",
	.flags = SLAB_SCHEME_OWNER | SLAB_SCHEME_IPI_BATCH | SLAB_SCHEME_ON_REQUEST,
	.order = 70,
	.flush_cpu = lab5_flush,
	.alloc = lab5_alloc,
	.free = lab5_free,
	.alloc_bulk = lab5_alloc_bulk,
	.free_bulk = lab5_free_bulk,
	.count_free = lab5_count_free,
	.shrink = lab5_shrink,
	.cpu_size = sizeof(struct lab5_cpu),
	.node_size = sizeof(struct lab5_node),
	.init_cpu = lab5_init_cpu,
	.exit_cpu = lab5_exit_cpu,
	.init_node = lab5_init_node,
	.exit_node = lab5_exit_node,
	.stat_names = lab5_stat_names,
	.nr_stats = NR_L5_STATS,
	.stat_offset = offsetof(struct lab5_cpu, stat),
};
/* LAB5: BEGIN */
slab_scheme_register(lab5_scheme);
/* LAB5: END */
