/* SPDX-License-Identifier: MIT */
/*
 * A random multi-CPU stress of one slab cache, shared by test_slab.c (ASan+UBSan) and
 * test_slab_tsan.c (ThreadSanitizer). Every CPU (thread) allocates, frees its own objects,
 * hands objects to other CPUs through single-producer single-consumer mailboxes (so they
 * are freed by a CPU that did not allocate them), uses the bulk API, and now and then
 * shrinks the cache, which flushes every CPU's slabs by cross-call (a signal to the other
 * threads, which may be anywhere in the allocator). Each object is filled with a pattern
 * unique to its allocation when it is handed out and checked whenever it changes hands and
 * when it is freed: two owners of one object, or the allocator writing into a live object,
 * break the pattern. The random sequence of each CPU is fixed by the seed.
 */
#ifndef SLABLAB_SLAB_STRESS_H
#define SLABLAB_SLAB_STRESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/host/host_env.h"
#include "arch/host/host_smp.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "mm/slab.h"
#include "mm/slub.h"

/*
 * Every scheme of the registry with every fastpath it has: mm/slab.h's variants
 * (slab_variant), with scheme= naming every registered scheme, so the on-request ones (lab5)
 * too; both host tests run all of them. no_cx16: the cache is created as on a CPU without
 * CMPXCHG16B (host_no_cmpxchg_double), so its slab freelists are updated under slab_lock;
 * the schemes that use those updates (all but the owner schemes, whose owners update their
 * slabs alone) get such a run.
 */
struct variant {
	const char *scheme;
	enum slab_fastpath fastpath;
	char name[48];
	bool no_cx16;
};

static struct variant variants[64];
static size_t nr_variants;

static void add_variant(const struct slab_variant *v, bool no_cx16)
{
	struct variant *x = &variants[nr_variants++];
	const char *how = v->scheme_flags & SLAB_SCHEME_LAYER ? "" : v->path;

	x->scheme = v->scheme;
	x->fastpath = v->fastpath;
	x->no_cx16 = no_cx16;
	snprintf(x->name, sizeof(x->name), "%s%s%s%s", v->scheme, *how ? "/" : "", how,
		 no_cx16 ? ", no cx16" : "");
}

/* The host tests' boot-time choice: scheme= every registered scheme, on-request ones too. */
static void stress_choose_every_scheme(void)
{
	char line[256], err[256];
	size_t n = (size_t)snprintf(line, sizeof(line), "scheme=");
	const char *name;

	for (unsigned int i = 0; (name = slab_scheme_registered(i)) && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? "," : "", name);
	if (n >= sizeof(line) || cmdline_parse(line, err, sizeof(err))) {
		fprintf(stderr, "slab_stress: %s: %s\n", line, n >= sizeof(line) ? "too long" : err);
		exit(2);
	}
}

/* Fills variants[] (once); returns how many there are. */
static __attribute__((unused)) size_t stress_variants(void)
{
	const struct slab_variant *v;

	if (nr_variants)
		return nr_variants;
	stress_choose_every_scheme();
	for (int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; (v = slab_variant(i)) && nr_variants < 64; i++)
			if (!pass || !(v->scheme_flags & SLAB_SCHEME_OWNER))
				add_variant(v, pass);
	return nr_variants;
}

#define STRESS_MAX_CPUS 4
#define STRESS_HOLD 384  /* objects one CPU holds at most */
#define STRESS_MBOX 64   /* slots of one mailbox (a power of two) */
#define STRESS_BULK 24   /* largest bulk operation */

struct stress_mbox {
	unsigned long head __attribute__((aligned(64))); /* written by the sender */
	unsigned long tail __attribute__((aligned(64))); /* written by the receiver */
	void *slot[STRESS_MBOX];
};

struct stress_cpu {
	unsigned long allocs, frees, sent, received, bulk_allocs, bulk_frees, shrinks;
	unsigned long resizes; /* kmem_cache_set_sheaf_capacity calls (resize_every) */
	unsigned long ipis; /* IPI signals this CPU's thread took during the run */
	unsigned long errors; /* every failed check; the first is described below */
	char first_error[200];
} __attribute__((aligned(64)));

struct stress {
	struct kmem_cache *s;
	int ncpus;
	long ops;           /* random operations per CPU */
	uint64_t seed;
	unsigned int shrink_every; /* 1 in this many operations shrinks the cache (0: never) */
	/* 1 in this many changes the cache's sheaf capacity (0: never; a sheaves cache) */
	unsigned int resize_every;
	struct stress_mbox box[STRESS_MAX_CPUS][STRESS_MAX_CPUS]; /* [to][from] */
	struct stress_cpu cpu[STRESS_MAX_CPUS];
};

static inline uint64_t stress_rnd(uint64_t *state) /* xorshift64* */
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

static void stress_error(struct stress_cpu *me, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void stress_error(struct stress_cpu *me, const char *fmt, ...)
{
	va_list ap;

	if (!me->errors++) {
		va_start(ap, fmt);
		vsnprintf(me->first_error, sizeof(me->first_error), fmt, ap);
		va_end(ap);
	}
}

/* Byte i of the object stamped with tag (the tag itself is in its first 8 bytes). */
static inline uint8_t stress_byte(uint64_t tag, size_t i)
{
	return (uint8_t)((tag * 0x9e3779b97f4a7c15ULL >> 56) + i * 37);
}

static void stress_fill(void *p, size_t size, uint64_t tag)
{
	uint8_t *b = p;

	memcpy(b, &tag, sizeof(tag));
	for (size_t i = sizeof(tag); i < size; i++)
		b[i] = stress_byte(tag, i);
}

/* The object's pattern is whole; returns its tag, or 0 after recording what is wrong. */
static uint64_t stress_check(struct stress_cpu *me, const void *p, size_t size, const char *when)
{
	const uint8_t *b = p;
	uint64_t tag;

	memcpy(&tag, b, sizeof(tag));
	for (size_t i = sizeof(tag); i < size; i++) {
		if (b[i] != stress_byte(tag, i)) {
			stress_error(me, "cpu %d: %s: object %p byte %zu is %#x, want %#x (tag %#llx)",
				     smp_processor_id(), when, p, i, b[i], stress_byte(tag, i),
				     (unsigned long long)tag);
			return 0;
		}
	}
	return tag;
}

/* Checks every object handed out: in the arena, on the cache's alignment. */
static void stress_new(struct stress *st, struct stress_cpu *me, void *p, uint64_t tag)
{
	uintptr_t a = (uintptr_t)p;

	if (a < HOST_ARENA_BASE || a >= HOST_ARENA_BASE + (host_arena_pages() << PAGE_SHIFT) ||
	    a % st->s->align)
		stress_error(me, "cpu %d: object %p is outside the arena or not %u-aligned",
			     smp_processor_id(), p, st->s->align);
	stress_fill(p, st->s->object_size, tag);
}

static void stress_irqs(struct stress_cpu *me, const char *after)
{
	if (irqs_disabled())
		stress_error(me, "cpu %d: interrupts left off after %s", smp_processor_id(), after);
}

static bool stress_send(struct stress *st, int to, void *p)
{
	struct stress_mbox *m = &st->box[to][smp_processor_id()];
	unsigned long head = m->head; /* only this CPU writes it */

	if (head - __atomic_load_n(&m->tail, __ATOMIC_ACQUIRE) == STRESS_MBOX)
		return false;
	m->slot[head % STRESS_MBOX] = p;
	__atomic_store_n(&m->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/* Free everything the other CPUs sent us. */
static void stress_drain(struct stress *st, struct stress_cpu *me)
{
	int cpu = smp_processor_id();

	for (int from = 0; from < st->ncpus; from++) {
		struct stress_mbox *m = &st->box[cpu][from];
		unsigned long tail = m->tail, head = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE);

		for (; tail != head; tail++) {
			void *p = m->slot[tail % STRESS_MBOX];

			stress_check(me, p, st->s->object_size, "received");
			kmem_cache_free(st->s, p);
			stress_irqs(me, "kmem_cache_free (remote)");
			me->received++;
		}
		__atomic_store_n(&m->tail, tail, __ATOMIC_RELEASE);
	}
}

static void stress_cpu_run(void *arg)
{
	struct stress *st = arg;
	int cpu = smp_processor_id();
	struct stress_cpu *me = &st->cpu[cpu];
	size_t size = st->s->object_size;
	uint64_t rng = st->seed ^ (0x5bd1e995ULL * (uint64_t)(cpu + 1)), seq = 0;
	void *held[STRESS_HOLD], *bulk[STRESS_BULK];
	int nheld = 0;
	unsigned long ipis = host_ipis_handled();

	host_cpu_barrier(st->ncpus); /* all start together */
	for (long op = 0; op < st->ops; op++) {
		unsigned int r = (unsigned int)(stress_rnd(&rng) % 1000);

		if (op % 8 == 0)
			stress_drain(st, me);
		if (st->shrink_every && stress_rnd(&rng) % st->shrink_every == 0) {
			kmem_cache_shrink(st->s);
			stress_irqs(me, "kmem_cache_shrink");
			me->shrinks++;
		} else if (st->resize_every && stress_rnd(&rng) % st->resize_every == 0) {
			static const unsigned int caps[] = { 1, 4, 16, 60, 128, 500 };
			unsigned int cap = caps[stress_rnd(&rng) % (sizeof(caps) / sizeof(caps[0]))];

			if (kmem_cache_set_sheaf_capacity(st->s, cap))
				stress_error(me, "cpu %d: kmem_cache_set_sheaf_capacity(%u) failed", cpu,
					     cap);
			stress_irqs(me, "kmem_cache_set_sheaf_capacity");
			me->resizes++;
		} else if (r < 420 && nheld < STRESS_HOLD) {
			void *p = kmem_cache_alloc(st->s, GFP_KERNEL);

			stress_irqs(me, "kmem_cache_alloc");
			if (!p) {
				stress_error(me, "cpu %d: kmem_cache_alloc failed", cpu);
				continue;
			}
			stress_new(st, me, p, ((uint64_t)(cpu + 1) << 48) | ++seq);
			held[nheld++] = p;
			me->allocs++;
		} else if (r < 470 && nheld + STRESS_BULK <= STRESS_HOLD) {
			size_t n = 1 + stress_rnd(&rng) % STRESS_BULK;

			if (kmem_cache_alloc_bulk(st->s, GFP_KERNEL, n, bulk) != (int)n) {
				stress_error(me, "cpu %d: kmem_cache_alloc_bulk(%zu) failed", cpu, n);
				continue;
			}
			stress_irqs(me, "kmem_cache_alloc_bulk");
			for (size_t i = 0; i < n; i++) {
				stress_new(st, me, bulk[i], ((uint64_t)(cpu + 1) << 48) | ++seq);
				held[nheld++] = bulk[i];
			}
			me->bulk_allocs++;
		} else if (r < 520 && nheld) {
			size_t n = 1 + stress_rnd(&rng) % STRESS_BULK;

			if (n > (size_t)nheld)
				n = (size_t)nheld;
			for (size_t i = 0; i < n; i++) {
				int k = (int)(stress_rnd(&rng) % (uint64_t)nheld);

				bulk[i] = held[k];
				held[k] = held[--nheld];
				stress_check(me, bulk[i], size, "bulk free");
			}
			kmem_cache_free_bulk(st->s, n, bulk);
			stress_irqs(me, "kmem_cache_free_bulk");
			me->bulk_frees++;
		} else if (r < 760 && nheld) {
			int k = (int)(stress_rnd(&rng) % (uint64_t)nheld);
			void *p = held[k];

			held[k] = held[--nheld];
			stress_check(me, p, size, "free");
			kmem_cache_free(st->s, p);
			stress_irqs(me, "kmem_cache_free");
			me->frees++;
		} else if (nheld && st->ncpus > 1) {
			int k = (int)(stress_rnd(&rng) % (uint64_t)nheld);
			int to = (cpu + 1 + (int)(stress_rnd(&rng) % (uint64_t)(st->ncpus - 1))) %
				 st->ncpus;

			stress_check(me, held[k], size, "send");
			if (stress_send(st, to, held[k])) {
				held[k] = held[--nheld];
				me->sent++;
			}
		}
	}
	host_cpu_barrier(st->ncpus); /* nobody sends any more */
	stress_drain(st, me);
	while (nheld) {
		void *p = held[--nheld];

		stress_check(me, p, size, "final free");
		kmem_cache_free(st->s, p);
		me->frees++;
	}
	stress_irqs(me, "the last free");
	me->ipis = host_ipis_handled() - ipis;
}

/* Runs the stress on CPUs 0..ncpus-1; returns "" or what went wrong first. */
static const char *stress_run(struct stress *st)
{
	static char why[256];

	for (int c = 0; c < st->ncpus; c++)
		memset(&st->cpu[c], 0, sizeof(st->cpu[c]));
	memset(st->box, 0, sizeof(st->box));
	host_run_on_cpus(st->ncpus, stress_cpu_run, st);
	why[0] = '\0';
	for (int c = 0; c < st->ncpus && !why[0]; c++)
		if (st->cpu[c].errors)
			snprintf(why, sizeof(why), "%lu errors on cpu %d, first: %s",
				 st->cpu[c].errors, c, st->cpu[c].first_error);
	return why;
}

#endif
