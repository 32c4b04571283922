/* SPDX-License-Identifier: MIT */
/*
 * The producer/consumer ring of bench=remote and bench=numa: a producer allocates objects,
 * stamps each with its pair's tag and its sequence number, and publishes them in batches of
 * RING_BATCH (one release store and one wake-up per batch); the consumer checks each stamp
 * and frees the object. A side that finds the ring full or empty halts until the other
 * wakes it. A failed allocation or a damaged or out-of-order object stops every side of the
 * run (ring_abort) with what went wrong in r->why.
 */
#ifndef SLABLAB_BENCH_RING_H
#define SLABLAB_BENCH_RING_H

#include "bench/bench.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "mm/slab.h"

#define RING_SLOTS 256
#define RING_BATCH 16

struct obj_ring {
	u32 tail __aligned(64); /* producer's */
	u32 head __aligned(64); /* consumer's */
	u64 *slot[RING_SLOTS];
} __aligned(64);

/* What the sides of one run share. */
struct ring_run {
	struct kmem_cache *s;
	u64 objects; /* per pair */
	u64 tag;     /* the benchmark's stamp; the pair's number goes in its low bits */
	int abort;
	char why[128];
};

/* IPIs this CPU has sent, less the wake-ups the benchmarks send themselves. */
static inline u64 ring_ipis_sent(void)
{
	struct ipi_stats st;

	ipi_stats_get(smp_processor_id(), &st);
	return st.call_sent + st.wakeup_sent + st.handler_sent - bench_wakeups_sent();
}

static inline bool ring_aborted(struct ring_run *r)
{
	return __atomic_load_n(&r->abort, __ATOMIC_ACQUIRE);
}

static inline void ring_abort(struct ring_run *r, int pair, const char *what, u64 got, u64 want)
{
	if (__atomic_exchange_n(&r->abort, 1, __ATOMIC_ACQ_REL))
		return;
	snprintf(r->why, sizeof(r->why), "pair %d: %s: got %llx, want %llx", pair, what,
		 (unsigned long long)got, (unsigned long long)want);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != smp_processor_id())
			bench_wake(cpu);
}

/* The producer of pair `pair`: r->objects objects into q, waking `peer` per batch. */
static inline void ring_produce(struct ring_run *r, struct obj_ring *q, int pair, int peer)
{
	u32 tail = q->tail;

	for (u64 i = 0; i < r->objects && !ring_aborted(r);) {
		u32 room = RING_SLOTS - (tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE));
		u32 n = (u32)MIN((u64)MIN(room, RING_BATCH), r->objects - i);

		if (!n) { /* full: halt until the consumer has taken some */
			bench_sleep_prepare();
			if (RING_SLOTS - (tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE)) ||
			    ring_aborted(r))
				bench_sleep_cancel();
			else
				bench_sleep();
			continue;
		}
		for (u32 k = 0; k < n; k++, i++) {
			u64 *p = kmem_cache_alloc(r->s, GFP_KERNEL);

			if (!p) {
				ring_abort(r, pair, "allocation failed at object", i, i);
				return;
			}
			p[0] = r->tag | (u64)pair;
			p[1] = i;
			q->slot[(tail + k) % RING_SLOTS] = p;
		}
		tail += n;
		__atomic_store_n(&q->tail, tail, __ATOMIC_RELEASE);
		bench_wake(peer);
	}
}

/*
 * The consumer of pair `pair`: checks and frees what q brings, waking `peer` per batch;
 * seen(r, p), if given, looks at each object before it is freed.
 */
static inline void ring_consume(struct ring_run *r, struct obj_ring *q, int pair, int peer,
				void (*seen)(struct ring_run *r, const void *p))
{
	u64 want_tag = r->tag | (u64)pair;
	u32 head = q->head;

	for (u64 i = 0; i < r->objects && !ring_aborted(r);) {
		u32 tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);

		if (tail == head) { /* empty: halt until the producer has published more */
			bench_sleep_prepare();
			if (__atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) != head || ring_aborted(r))
				bench_sleep_cancel();
			else
				bench_sleep();
			continue;
		}
		for (; head != tail; head++, i++) {
			u64 *p = q->slot[head % RING_SLOTS];

			if (p[0] != want_tag || p[1] != i) {
				__atomic_store_n(&q->head, head, __ATOMIC_RELEASE); /* drain frees it */
				if (p[0] != want_tag)
					ring_abort(r, pair, "bad tag", p[0], want_tag);
				else
					ring_abort(r, pair, "sequence", p[1], i);
				return;
			}
			if (seen)
				seen(r, p);
			kmem_cache_free(r->s, p);
		}
		__atomic_store_n(&q->head, head, __ATOMIC_RELEASE);
		bench_wake(peer);
	}
}

/* Frees what an aborted run left in q. */
static inline void ring_drain(struct kmem_cache *s, struct obj_ring *q)
{
	for (; q->head != q->tail; q->head++)
		kmem_cache_free(s, q->slot[q->head % RING_SLOTS]);
}

#endif
