// SPDX-License-Identifier: MIT
/*
 * The ipi schemes (mm/scheme_ipi.c): frees sent to the owner cpu, by IPI per free (ipi), by
 * a lock-free list and an IPI when it was empty (ipi-batch), or by the list alone
 * (remote-atomic); ownership transfer; shrink and destroy while frees are in flight. The
 * producer/consumer chain runs under every scheme, for comparison.
 */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "mm/scheme_ipi.h"
#include "mm/scheme_partial.h"
#include "mm/slub_debug.h"

/* The registry's owner schemes (SLAB_SCHEME_OWNER), found once. */
static const char *ipi_schemes[32];
static unsigned int nr_ipi_schemes;

static const char *const *owner_schemes(void)
{
	const char *name;

	if (!nr_ipi_schemes)
		for (unsigned int i = 0; (name = slab_scheme_name(i)) && nr_ipi_schemes < 32; i++)
			if (slab_scheme_flags(name) & SLAB_SCHEME_OWNER)
				ipi_schemes[nr_ipi_schemes++] = name;
	return ipi_schemes;
}

#define for_each_ipi_scheme(sch)                                                                   \
	for (const char *const *sch = owner_schemes(); sch < ipi_schemes + nr_ipi_schemes; sch++)

/* Remote frees are sent with IPIs: one per free, or one when the owner's list was empty. */
static bool sends_ipis(const char *scheme)
{
	return slab_scheme_flags(scheme) & (SLAB_SCHEME_IPI_EACH | SLAB_SCHEME_IPI_BATCH);
}

/*
 * The white-box checks below read struct ipi_cpu (mm/scheme_ipi.h): only for caches whose
 * per-cpu state is one, the schemes of mm/scheme_ipi.c. Another owner scheme (lab 5's, or
 * yours) gets the same cases with the checks that go by counter names.
 */
static bool ipi_layout(struct kmem_cache *s)
{
	return s->scheme->cpu_size == sizeof(struct ipi_cpu) && s->scheme->nr_stats == NR_IPI_STATS &&
	       !strcmp(s->scheme->stat_names[REMOTE_FORWARD], "remote_forward");
}

static struct kmem_cache *make(struct kunit *test, const char *scheme, unsigned int size)
{
	struct kmem_cache *s = kmem_cache_create_scheme("ipitest", size, 0, 0, NULL, scheme,
							 SLAB_FASTPATH_IRQ);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/*
 * The cases below but the chain test the ipi schemes' own paths. A debug cache (slub_debug=)
 * runs its debug mode in place of the scheme it was created with: then they skip, saying so.
 */
static void skip_if_debug_replaces(struct kunit *test)
{
	for_each_ipi_scheme(sch) {
		struct kmem_cache *s = make(test, *sch, 64);
		const struct slab_scheme *replaced = slub_debug_replaced_scheme(s);
		bool locked = slub_debug_mode(s) == SLAB_DEBUG_LOCKED;

		kmem_cache_destroy(s);
		if (replaced)
			kunit_skip(test, "debug caches replace scheme %s (slub_debug=, %s mode)",
				   replaced->name, locked ? "locked" : "partial");
	}
}

/* Wait (interrupts as they are) until *flag is set; false after 10 s. */
static bool wait_flag(int *flag)
{
	u64 deadline = get_cycles() + ns_to_cycles(10000000000ULL);

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		if (get_cycles() > deadline)
			return false;
		else
			cpu_relax();
	return true;
}

/* ---- a producer/consumer chain through every cpu ---- */

/* Objects each cpu sends down the chain: fewer per cpu as cpus grow (TCG runs every vCPU
 * on the host's few cores, and a waiting consumer spins). */
#define CHAIN_OBJECTS MAX(60, 6000 / nr_cpu_ids)
#define CHAIN_RING 64

struct chain {
	struct kmem_cache *s;
	long produced, consumed;
	int errors;
	struct {
		void *ring[CHAIN_RING]; /* filled by the previous cpu, emptied by this one */
		unsigned int head, tail; /* head: producer's, tail: consumer's */
		int sleeping;            /* the consumer halts until the producer's wake-up IPI */
	} __aligned(64) q[]; /* [nr_cpu_ids] */
};

static void chain_cpu(struct kunit *test, void *arg)
{
	struct chain *ch = arg;
	int cpu = smp_processor_id(), next = (cpu + 1) % nr_cpu_ids;
	int made = 0, eaten = 0;
	u64 deadline = get_cycles() + ns_to_cycles(60000000000ULL);

	while (made < CHAIN_OBJECTS || eaten < CHAIN_OBJECTS) {
		bool idle = true;
		unsigned int h, t;

		/* Produce into the next cpu's ring. */
		h = ch->q[next].head;
		t = __atomic_load_n(&ch->q[next].tail, __ATOMIC_ACQUIRE);
		if (made < CHAIN_OBJECTS && h - t < CHAIN_RING) {
			u64 *p = kmem_cache_alloc(ch->s, GFP_KERNEL);

			KUNIT_ASSERT_NOT_NULL(test, p);
			p[0] = (u64)cpu << 32 | (u64)made;
			p[1] = ~p[0];
			ch->q[next].ring[h % CHAIN_RING] = p;
			__atomic_store_n(&ch->q[next].head, h + 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&ch->q[next].sleeping, __ATOMIC_SEQ_CST))
				smp_send_reschedule(next);
			made++;
			idle = false;
		}
		/* Consume from our own ring: the previous cpu's objects, freed here. */
		t = ch->q[cpu].tail;
		h = __atomic_load_n(&ch->q[cpu].head, __ATOMIC_ACQUIRE);
		if (t != h) {
			int prev = (cpu + nr_cpu_ids - 1) % nr_cpu_ids;
			u64 *p = ch->q[cpu].ring[t % CHAIN_RING];

			if (p[0] != ((u64)prev << 32 | (u64)eaten) || p[1] != ~p[0])
				__atomic_fetch_add(&ch->errors, 1, __ATOMIC_RELAXED);
			kmem_cache_free(ch->s, p);
			__atomic_store_n(&ch->q[cpu].tail, t + 1, __ATOMIC_RELEASE);
			eaten++;
			idle = false;
		}
		if (idle) {
			KUNIT_ASSERT_TRUE_MSG(test, get_cycles() < deadline, "chain stuck: made %d eaten %d",
					      made, eaten);
			/* Nothing to eat and nothing left to make: under TCG a spinning vCPU keeps
			 * the others off the host's cores, so halt until the producer's IPI. (Not
			 * while the next cpu's ring is full: its consumer does not wake us.) */
			if (made == CHAIN_OBJECTS) {
				local_irq_disable();
				__atomic_store_n(&ch->q[cpu].sleeping, 1, __ATOMIC_SEQ_CST);
				if (__atomic_load_n(&ch->q[cpu].head, __ATOMIC_SEQ_CST) == ch->q[cpu].tail)
					arch_idle(); /* sti; hlt: the wake-up IPI ends it */
				__atomic_store_n(&ch->q[cpu].sleeping, 0, __ATOMIC_RELAXED);
				local_irq_enable();
			} else {
				cpu_relax();
			}
		}
	}
	__atomic_fetch_add(&ch->produced, made, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ch->consumed, eaten, __ATOMIC_RELAXED);
}

static void producer_consumer_chain(struct kunit *test)
{
	size_t size = sizeof(struct chain) + (size_t)nr_cpu_ids * sizeof(((struct chain *)0)->q[0]);
	struct chain *ch = kzalloc(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ch);
	for (unsigned int i = 0; slab_scheme_name(i); i++) {
		const char *scheme = slab_scheme_name(i);
		unsigned long free_before = nr_free_pages();
		struct slab_cache_info info;
		u64 t0;

		memset(ch, 0, size);
		ch->s = make(test, scheme, 64);
		t0 = get_cycles();
		kunit_run_on_all_cpus(test, chain_cpu, ch);
		KUNIT_EXPECT_EQ_MSG(test, ch->errors, 0, "%s", scheme);
		KUNIT_EXPECT_EQ(test, ch->produced, (long)CHAIN_OBJECTS * nr_cpu_ids);
		KUNIT_EXPECT_EQ(test, ch->consumed, (long)CHAIN_OBJECTS * nr_cpu_ids);
		/* A debug cache runs its debug mode instead: the objects still pass intact. */
		if (nr_cpu_ids > 1 && (slab_scheme_flags(scheme) & SLAB_SCHEME_IPI_EACH) &&
		    !slub_debug_replaced_scheme(ch->s))
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(ch->s, "remote_free"),
					(u64)CHAIN_OBJECTS * nr_cpu_ids);
		kmem_cache_shrink(ch->s);
		kmem_cache_info(ch->s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s", scheme);
		kunit_info(test, "%-13s %ld objects through %d cpus in %llu ms, %llu remote frees, "
			   "%llu IPIs", scheme, ch->consumed, nr_cpu_ids,
			   (unsigned long long)(cycles_to_ns(get_cycles() - t0) / 1000000),
			   (unsigned long long)kmem_cache_stat_by_name(ch->s, "remote_free"),
			   (unsigned long long)kmem_cache_stat_by_name(ch->s, "ipi_sent"));
		kmem_cache_destroy(ch->s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s", scheme);
	}
	kfree(ch);
}

/* ---- frees that arrive while the owner has interrupts off ---- */

#define HELD 200

struct held {
	struct kmem_cache *s;
	void *objs[HELD];
	int go, done, errors;
	u64 drained_while_off, queued_while_off;
};

static unsigned long remote_list_length(struct kmem_cache *s, int cpu)
{
	unsigned long n = 0;

	for (void *p = __atomic_load_n(&ic(&s->cpu_slab[cpu])->remote_free, __ATOMIC_ACQUIRE); p;
	     p = get_freepointer(s, p)) /* decoded when freelist_hardened=1 */
		n++;
	return n;
}

static void held_cpu(struct kunit *test, void *arg)
{
	struct held *h = arg;
	unsigned long flags;

	if (smp_processor_id() == 1) {
		KUNIT_ASSERT_TRUE(test, wait_flag(&h->go));
		for (int i = 0; i < HELD; i++)
			kmem_cache_free(h->s, h->objs[i]);
		__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
		return;
	}
	if (smp_processor_id() != 0)
		return;
	for (int i = 0; i < HELD; i++)
		h->objs[i] = kmem_cache_alloc(h->s, GFP_KERNEL);
	local_irq_save(flags);
	__atomic_store_n(&h->go, 1, __ATOMIC_RELEASE);
	if (!wait_flag(&h->done))
		h->errors++;
	/* Nothing was freed behind our back: everything waits on our remote-free list. */
	h->drained_while_off = kmem_cache_stat_by_name(h->s, "remote_drained");
	h->queued_while_off = ipi_layout(h->s) ? remote_list_length(h->s, 0) : 0;
	local_irq_restore(flags);
}

static void frees_wait_while_owner_has_interrupts_off(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	skip_if_debug_replaces(test);
	for_each_ipi_scheme(sch) {
		struct held *h = kzalloc(sizeof(*h), GFP_KERNEL);
		struct slab_cache_info info;

		KUNIT_ASSERT_NOT_NULL(test, h);
		h->s = make(test, *sch, 128);
		kunit_run_on_all_cpus(test, held_cpu, h);
		KUNIT_EXPECT_EQ(test, h->errors, 0);
		KUNIT_EXPECT_EQ_MSG(test, h->drained_while_off, 0, "%s", *sch);
		if (ipi_layout(h->s))
			KUNIT_EXPECT_EQ_MSG(test, h->queued_while_off, HELD, "%s", *sch);
		KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(h->s, "remote_free"), HELD);
		if (sends_ipis(*sch)) {
			/* The IPI was taken when cpu 0 turned interrupts back on. (A scheme whose
			 * senders batch, lab 5's, may still hold the last few in an outbox.) */
			if (ipi_layout(h->s))
				KUNIT_EXPECT_EQ_MSG(test, kmem_cache_stat_by_name(h->s, "remote_drained"),
						    HELD, "%s", *sch);
			else
				KUNIT_EXPECT_GE_MSG(test, kmem_cache_stat_by_name(h->s, "remote_drained"),
						    1, "%s", *sch);
			KUNIT_EXPECT_GE(test, kmem_cache_stat_by_name(h->s, "ipi_received"), 1);
		} else {
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(h->s, "ipi_sent"), 0);
		}
		kmem_cache_shrink(h->s);
		kmem_cache_info(h->s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s", *sch);
		if (ipi_layout(h->s))
			KUNIT_EXPECT_EQ(test, remote_list_length(h->s, 0), 0);
		kmem_cache_destroy(h->s);
		kfree(h);
	}
}

/* ---- two cpus freeing each other's objects as fast as they can ---- */

#define PINGPONG_ROUNDS 100
#define PINGPONG_BATCH 48

struct pingpong {
	struct kmem_cache *s;
	void *box[2][PINGPONG_BATCH]; /* box[c]: objects for cpu c to free */
	int full[2];
	long freed[2];
	int errors;
};

static void pingpong_cpu(struct kunit *test, void *arg)
{
	struct pingpong *pp = arg;
	int me = smp_processor_id(), other = 1 - me, sent = 0, got = 0;
	u64 deadline = get_cycles() + ns_to_cycles(60000000000ULL);

	if (me > 1)
		return;
	while (sent < PINGPONG_ROUNDS || got < PINGPONG_ROUNDS) {
		if (got < PINGPONG_ROUNDS && __atomic_load_n(&pp->full[me], __ATOMIC_ACQUIRE)) {
			unsigned long flags = 0;

			/* Every other batch freed with interrupts off: IPIs to us wait, none lost. */
			if (got & 1)
				local_irq_save(flags);
			for (int i = 0; i < PINGPONG_BATCH; i++) {
				u64 *p = pp->box[me][i];

				if (p[0] != ((u64)other << 32 | (u64)i))
					__atomic_fetch_add(&pp->errors, 1, __ATOMIC_RELAXED);
				kmem_cache_free(pp->s, p);
			}
			if (got & 1)
				local_irq_restore(flags);
			got++;
			__atomic_store_n(&pp->full[me], 0, __ATOMIC_RELEASE);
			continue;
		}
		if (sent < PINGPONG_ROUNDS && !__atomic_load_n(&pp->full[other], __ATOMIC_ACQUIRE)) {
			for (int i = 0; i < PINGPONG_BATCH; i++) {
				u64 *p = kmem_cache_alloc(pp->s, GFP_KERNEL);

				KUNIT_ASSERT_NOT_NULL(test, p);
				p[0] = (u64)me << 32 | (u64)i;
				pp->box[other][i] = p;
			}
			sent++;
			__atomic_store_n(&pp->full[other], 1, __ATOMIC_RELEASE);
			continue;
		}
		KUNIT_ASSERT_TRUE_MSG(test, get_cycles() < deadline, "stuck: sent %d got %d", sent, got);
		cpu_relax();
	}
	pp->freed[me] = (long)got * PINGPONG_BATCH;
}

static void two_cpus_free_to_each_other(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	skip_if_debug_replaces(test);
	for_each_ipi_scheme(sch) {
		struct pingpong *pp = kzalloc(sizeof(*pp), GFP_KERNEL);
		unsigned long free_before = nr_free_pages();

		KUNIT_ASSERT_NOT_NULL(test, pp);
		pp->s = make(test, *sch, 64);
		kunit_run_on_all_cpus(test, pingpong_cpu, pp);
		KUNIT_EXPECT_EQ(test, pp->errors, 0);
		KUNIT_EXPECT_EQ_MSG(test, pp->freed[0], (long)PINGPONG_ROUNDS * PINGPONG_BATCH, "%s",
				    *sch);
		KUNIT_EXPECT_EQ(test, pp->freed[1], (long)PINGPONG_ROUNDS * PINGPONG_BATCH);
		KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(pp->s, "remote_free"),
				2ULL * PINGPONG_ROUNDS * PINGPONG_BATCH);
		kunit_info(test, "%s: %llu IPIs for %llu remote frees, %llu drains, most %llu at once",
			   *sch, (unsigned long long)kmem_cache_stat_by_name(pp->s, "ipi_sent"),
			   (unsigned long long)kmem_cache_stat_by_name(pp->s, "remote_free"),
			   (unsigned long long)kmem_cache_stat_by_name(pp->s, "remote_drain"),
			   (unsigned long long)kmem_cache_stat_by_name(pp->s, "remote_drain_max"));
		kmem_cache_destroy(pp->s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s", *sch);
		kfree(pp);
	}
}

/* ---- remote frees for two owners, sent from one cpu, each reach its own owner ---- */

#define TWO_OWNERS_N 16 /* objects per owner: part of one slab, its owner's cpu slab */

struct two_owners {
	struct kmem_cache *s;
	int owner[2];      /* cpu 0 and another; cpu 1 frees for both */
	void *objs[2][TWO_OWNERS_N];
	int ready, freed, done;
	int foreign[2];    /* objects each owner allocated afterwards from a slab it does not own */
	int errors;
};

static void two_owners_cpu(struct kunit *test, void *arg)
{
	struct two_owners *t = arg;
	int me = smp_processor_id();
	int k = me == t->owner[0] ? 0 : me == t->owner[1] ? 1 : -1;

	if (k >= 0) {
		void *got[2 * TWO_OWNERS_N];

		for (int i = 0; i < TWO_OWNERS_N; i++) {
			u64 *p = kmem_cache_alloc(t->s, GFP_KERNEL);

			KUNIT_ASSERT_NOT_NULL(test, p);
			p[0] = (u64)me << 32 | (u64)i;
			t->objs[k][i] = p;
		}
		__atomic_fetch_add(&t->ready, 1, __ATOMIC_RELEASE);
		if (!wait_flag(&t->freed)) {
			__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
			return;
		}
		/* The frees come by IPI (or wait on a list for the owner's next refill): 20 ms
		 * with interrupts on lets every IPI sent before the flag land here first. */
		for (u64 end = get_cycles() + ns_to_cycles(20000000ULL); get_cycles() < end;)
			cpu_relax();
		for (int i = 0; i < 2 * TWO_OWNERS_N; i++) {
			got[i] = kmem_cache_alloc(t->s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, got[i]);
			if (__atomic_load_n(&obj_to_slab(got[i])->owner, __ATOMIC_ACQUIRE) != me)
				t->foreign[k]++;
		}
		for (int i = 0; i < 2 * TWO_OWNERS_N; i++)
			kmem_cache_free(t->s, got[i]);
		__atomic_fetch_add(&t->done, 1, __ATOMIC_RELEASE);
		return;
	}
	if (me != 1)
		return;
	for (u64 end = get_cycles() + ns_to_cycles(10000000000ULL);
	     __atomic_load_n(&t->ready, __ATOMIC_ACQUIRE) < 2;)
		if (get_cycles() > end) {
			__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&t->freed, 1, __ATOMIC_RELEASE);
			return;
		}
	/* One owner's object, then the other's: a sender that collects per owner must keep
	 * them apart even where both owners map to one place (lab 5: owner % 4). */
	for (int i = 0; i < TWO_OWNERS_N; i++)
		for (int j = 0; j < 2; j++) {
			u64 *p = t->objs[j][i];

			if (p[0] != ((u64)t->owner[j] << 32 | (u64)i))
				__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED);
			kmem_cache_free(t->s, p);
		}
	__atomic_store_n(&t->freed, 1, __ATOMIC_RELEASE);
}

/*
 * Cpu 1 frees objects of two owners' slabs in turn. Each owner then allocates: every object
 * it gets must come from a slab it owns; an object that went to the wrong owner sits on that
 * owner's cpu freelist or partial list and comes out here. Owners 0 and 4 where there are 5
 * CPUs or more (they share lab 5's outbox 0), and 0 and the last CPU.
 */
static void frees_for_two_owners_reach_each(struct kunit *test)
{
	int others[2] = {MIN(4, (int)nr_cpu_ids - 1), (int)nr_cpu_ids - 1};

	if (nr_cpu_ids < 3)
		kunit_skip(test, "needs 3 CPUs (two owners and a cpu that frees for both)");
	skip_if_debug_replaces(test);
	for_each_ipi_scheme(sch)
		for (int r = 0; r < 2; r++) {
			struct two_owners *t;
			unsigned long free_before;

			if (r == 1 && others[1] == others[0])
				break;
			t = kzalloc(sizeof(*t), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, t);
			free_before = nr_free_pages();
			t->owner[0] = 0;
			t->owner[1] = others[r];
			t->s = make(test, *sch, 64);
			kunit_run_on_all_cpus(test, two_owners_cpu, t);
			KUNIT_EXPECT_EQ_MSG(test, t->errors, 0, "%s: owners 0 and %d", *sch, others[r]);
			KUNIT_EXPECT_EQ(test, t->done, 2);
			for (int k = 0; k < 2; k++)
				KUNIT_EXPECT_EQ_MSG(test, t->foreign[k], 0,
						    "%s: cpu %d allocated %d objects of slabs it does not own "
						    "after cpu 1 freed objects of owners 0 and %d in turn",
						    *sch, t->owner[k], t->foreign[k], others[r]);
			kmem_cache_destroy(t->s);
			KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s", *sch);
			kfree(t);
		}
}

/* ---- ownership transfer under load ---- */

#define TRANSFER_CPUS 8

struct transfer {
	struct kmem_cache *s;
	void **objs; /* allocated on cpu 0 */
	int n;
	void **got;  /* allocated on cpu 1 after cpu 0's slabs went partial */
	int ngot;
	int phase, errors;
	int from_cpu0_slabs; /* cpu 1's objects in slabs cpu 0 had allocated */
};

static void transfer_cpu(struct kunit *test, void *arg)
{
	struct transfer *t = arg;
	int me = smp_processor_id();

	if (me == 0) {
		for (int i = 0; i < t->n; i++) {
			t->objs[i] = kmem_cache_alloc(t->s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, t->objs[i]);
			*(u64 *)t->objs[i] = (u64)i;
		}
		__atomic_store_n(&t->phase, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&t->phase, __ATOMIC_ACQUIRE) < 2)
			cpu_relax();
		/* Under the IPI schemes the frees come in by IPI: let them all arrive. */
		if (ipi_layout(t->s) &&
		    (kmem_cache_scheme_flags(t->s) & (SLAB_SCHEME_IPI_EACH | SLAB_SCHEME_IPI_BATCH)))
			for (u64 end = get_cycles() + ns_to_cycles(10000000000ULL);
			     ic(&t->s->cpu_slab[0])->stat[REMOTE_DRAINED] < (u64)t->n / 4 && get_cycles() < end;)
				cpu_relax();
		__atomic_store_n(&t->phase, 3, __ATOMIC_RELEASE);
		/* Keep working on this cache while cpu 1 asks for slabs: free our odd ones. */
		for (int i = 1; i < t->n; i += 4) {
			if (*(u64 *)t->objs[i] != (u64)i)
				t->errors++;
			kmem_cache_free(t->s, t->objs[i]);
			t->objs[i] = NULL;
		}
		return;
	}
	if (me == 1) {
		while (__atomic_load_n(&t->phase, __ATOMIC_ACQUIRE) < 1)
			cpu_relax();
		/* Every fourth object: each of cpu 0's slabs becomes partial, owned by cpu 0. */
		for (int i = 0; i < t->n; i += 4) {
			kmem_cache_free(t->s, t->objs[i]);
			t->objs[i] = NULL;
		}
		__atomic_store_n(&t->phase, 2, __ATOMIC_RELEASE);
		while (__atomic_load_n(&t->phase, __ATOMIC_ACQUIRE) < 3)
			cpu_relax();
		for (int i = 0; i < t->ngot; i++) {
			t->got[i] = kmem_cache_alloc(t->s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, t->got[i]);
		}
		return;
	}
	/* Cpus 2..7: remote frees of cpu 0's objects at the same time (every 4th + 2). More
	 * would only spin: under TCG that starves cpus 0 and 1 of host time. */
	if (me >= TRANSFER_CPUS)
		return;
	while (__atomic_load_n(&t->phase, __ATOMIC_ACQUIRE) < 3)
		cpu_relax();
	for (int i = 2 + 4 * (me - 2); i < t->n; i += 4 * (MIN(nr_cpu_ids, TRANSFER_CPUS) - 2)) {
		void *p = __atomic_exchange_n(&t->objs[i], NULL, __ATOMIC_ACQ_REL);

		if (p)
			kmem_cache_free(t->s, p);
	}
}

static void ownership_moves_to_a_cpu_that_runs_out(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	skip_if_debug_replaces(test);
	/* cpu 0's 40 slabs must exceed its budget, cpu_partial / 16 slabs of 256-byte objects:
	 * true of the default (52), not of much larger budgets. */
	if (slub_cpu_partial_override > 52)
		kunit_skip(test, "cpu_partial= above the default budget");
	for_each_ipi_scheme(sch) {
		struct transfer *t = kzalloc(sizeof(*t), GFP_KERNEL);
		unsigned long free_before;
		struct slab_cache_info info;
		bool atomic = !(slab_scheme_flags(*sch) & SLAB_SCHEME_TRANSFER);

		KUNIT_ASSERT_NOT_NULL(test, t);
		t->n = 16 * 40; /* 40 order-0 slabs of 256-byte objects */
		t->ngot = t->n / 8;
		t->objs = kcalloc((size_t)t->n, sizeof(void *), GFP_KERNEL);
		t->got = kcalloc((size_t)t->ngot, sizeof(void *), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t->objs);
		KUNIT_ASSERT_NOT_NULL(test, t->got);
		free_before = nr_free_pages();
		t->s = make(test, *sch, 256);
		kunit_run_on_all_cpus(test, transfer_cpu, t);
		KUNIT_EXPECT_EQ(test, t->errors, 0);
		if (atomic) {
			KUNIT_EXPECT_EQ(test, kmem_cache_stat_by_name(t->s, "owner_req_sent"), 0);
		} else {
			KUNIT_EXPECT_GE_MSG(test, kmem_cache_stat_by_name(t->s, "owner_req_sent"), 1, "%s", *sch);
			KUNIT_EXPECT_GE_MSG(test, kmem_cache_stat_by_name(t->s, "owner_req_granted"), 1, "%s",
					    *sch);
			KUNIT_EXPECT_GE(test, kmem_cache_stat_by_name(t->s, "owner_slabs_moved"), 1);
		}
		kunit_info(test, "%s: %llu requests, %llu granted, %llu refused, %llu timed out, "
			   "%llu slabs moved, %llu forwarded", *sch,
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "owner_req_sent"),
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "owner_req_granted"),
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "owner_req_refused"),
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "owner_req_timeout"),
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "owner_slabs_moved"),
			   (unsigned long long)kmem_cache_stat_by_name(t->s, "remote_forward"));
		/* Everything back, from cpu 0 (remote frees for most of it now). */
		for (int i = 0; i < t->n; i++)
			kmem_cache_free(t->s, t->objs[i]);
		for (int i = 0; i < t->ngot; i++) {
			memset(t->got[i], 0x5a, 256);
			kmem_cache_free(t->s, t->got[i]);
		}
		kmem_cache_shrink(t->s);
		kmem_cache_info(t->s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.active_objects, 0, "%s", *sch);
		kmem_cache_destroy(t->s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s", *sch);
		kfree(t->objs);
		kfree(t->got);
		kfree(t);
	}
}

/* ---- shrink and destroy while other cpus are still freeing ---- */

#define INFLIGHT 3000
#define INFLIGHT_CPUS 8

struct inflight {
	struct kmem_cache *s;
	void *objs[INFLIGHT];
	int go, freers_done, shrinks;
};

static void inflight_cpu(struct kunit *test, void *arg)
{
	struct inflight *f = arg;
	int me = smp_processor_id(), freers = MIN(nr_cpu_ids, INFLIGHT_CPUS) - 1;

	if (me == 0) {
		for (int i = 0; i < INFLIGHT; i++) {
			f->objs[i] = kmem_cache_alloc(f->s, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, f->objs[i]);
		}
		__atomic_store_n(&f->go, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&f->freers_done, __ATOMIC_ACQUIRE) < freers) {
			kmem_cache_shrink(f->s);
			f->shrinks++;
		}
		return;
	}
	if (me > freers)
		return; /* more would only spin (see TRANSFER_CPUS) */
	KUNIT_ASSERT_TRUE(test, wait_flag(&f->go));
	for (int i = me - 1; i < INFLIGHT; i += freers)
		kmem_cache_free(f->s, f->objs[i]);
	__atomic_fetch_add(&f->freers_done, 1, __ATOMIC_RELEASE);
}

static void shrink_and_destroy_during_remote_frees(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs 2 CPUs");
	for_each_ipi_scheme(sch) {
		struct inflight *f = kzalloc(sizeof(*f), GFP_KERNEL);
		unsigned long free_before = nr_free_pages();

		KUNIT_ASSERT_NOT_NULL(test, f);
		f->s = make(test, *sch, 32);
		kunit_run_on_all_cpus(test, inflight_cpu, f);
		/* Every free has returned; many objects are still on remote-free lists. */
		kmem_cache_destroy(f->s);
		KUNIT_EXPECT_EQ_MSG(test, nr_free_pages(), free_before, "%s: %d shrinks", *sch,
				    f->shrinks);
		kfree(f);
	}
}

static struct kunit_case slab_ipi_cases[] = {
	KUNIT_CASE(producer_consumer_chain),
	KUNIT_CASE(frees_wait_while_owner_has_interrupts_off),
	KUNIT_CASE(two_cpus_free_to_each_other),
	KUNIT_CASE(frees_for_two_owners_reach_each),
	KUNIT_CASE(ownership_moves_to_a_cpu_that_runs_out),
	KUNIT_CASE(shrink_and_destroy_during_remote_frees),
	{}
};

static struct kunit_suite slab_ipi_suite = {
	.name = "slab_ipi",
	.test_cases = slab_ipi_cases,
};
kunit_test_suite(slab_ipi_suite);
