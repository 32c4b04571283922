// SPDX-License-Identifier: MIT
/*
 * make bench-host: slablab's kmem_cache (mm/slub.c and its schemes, built for Linux user
 * space) next to glibc malloc, jemalloc, mimalloc and tcmalloc, on this machine, in one run,
 * measured in TSC cycles (rdtsc between lfences).
 *
 *   bench-host [--rounds R] [--quick] [--work ID,...] [--peer NAME=LIB[@VERSION]]...
 *
 * The parent runs R rounds; in each it starts one child process per allocator (this same
 * program with --child), in an order that rotates from round to round so that drift of the
 * machine spreads over all of them. A peer's child runs with LD_PRELOAD=LIB (glibc's with
 * none) and drives malloc/free; slablab's child calls kmem_cache_alloc/kmem_cache_free
 * directly, for each scheme and fastpath. Children print raw samples (cycles per object of
 * one timed loop); the parent pools them over the rounds and prints, per allocator and
 * work, the median with p10/p90 and min/max: a human table, then one JSON line per figure.
 *
 * The work (the same code for every allocator, differing only in the two calls):
 *   pair-S     alloc + free of S bytes, repeated
 *   batch-N    N allocs of 256 B, then the N frees in allocation order; per object
 *   bulk-N     slablab only: kmem_cache_alloc_bulk + kmem_cache_free_bulk of N; per object
 *   spsc       producer/consumer: a producer on one core allocates 256 B objects and passes
 *              them through a single-producer single-consumer ring (a queue of 256 slots,
 *              each side publishing its index once per batch of up to 16, as bench=remote's
 *              ring in the kernel) to a consumer on the other core, which checks and frees
 *              them; per object, from the start until the consumer freed the last; also as
 *              objects per second
 *   spsc-noalloc
 *              the same ring, the same write and check of each object, but no allocator:
 *              the objects come from a fixed pool of 512 (twice the ring) in turn and are not
 *              freed. What the ring costs by itself, moving objects between the cores; not
 *              a bound (an allocator that hands the objects out in another order may do
 *              better), the reference an allocator's spsc is read against
 *   c2c        one cache line passed back and forth between the same two cores: cycles per
 *              round trip. How far apart the cores are in this process (a virtual machine's
 *              two vCPUs may share a core complex or sit on different dies, and that can
 *              change from one process to the next); spsc and spsc-noalloc scale with it.
 *              With spsc, one sample of each comes right before every spsc sample, in
 *              the same process; they run on their own only when asked for without spsc
 *   insn       after the rounds, in this process: what one cmpxchg16b costs on this CPU,
 *              with and without lock prefix, next to a plain store (allocator "cpu")
 *
 * slablab's variants are every scheme the build has (slab_scheme_name()), each with the irq
 * fastpath, and lock and partial also with cmpxchg: the kernel's bench=fastpath variants.
 *
 * slablab in user space (arch/host/cpu.h, HOST_SMP=2): threads are CPUs; "interrupts off" is a
 * thread-local flag set between compiler barriers, no system call (an IPI, a signal, that
 * arrives meanwhile is recorded and run when the flag clears); cmpxchg16b is the kernel's.
 */
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/host/host_smp.h"
#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define ARENA_SIZE (128UL << 20)
#define RING 256 /* slots of the spsc ring */
#define MAX_ALLOCATORS 16
#define MAX_SAMPLES 4096

/* ---- timing ---- */

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The compiler must assume p is used: no allocation is optimised away. */
static inline void escape(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static void __attribute__((noreturn)) oom(void)
{
	fprintf(stderr, "bench-host: an allocation failed\n");
	exit(3);
}

/* ---- the work ---- */

enum kind { PAIR, BATCH, BULK, SPSC, SPSC_NOALLOC, C2C };

struct work {
	const char *id;
	enum kind kind;
	unsigned int size, n;
	long objects; /* per sample */
	int samples;  /* per round */
	const char *what;
};

static const struct work works[] = {
	{ "pair-64", PAIR, 64, 1, 20000, 21, "alloc+free pair, 64 B" },
	{ "pair-256", PAIR, 256, 1, 20000, 21, "alloc+free pair, 256 B" },
	{ "pair-1024", PAIR, 1024, 1, 20000, 21, "alloc+free pair, 1024 B" },
	{ "batch-8", BATCH, 256, 8, 24000, 21, "N allocs then N frees, 256 B, N=8" },
	{ "batch-16", BATCH, 256, 16, 24000, 21, "same, N=16" },
	{ "batch-64", BATCH, 256, 64, 24000, 21, "same, N=64" },
	{ "batch-250", BATCH, 256, 250, 24000, 21, "same, N=250" },
	{ "bulk-8", BULK, 256, 8, 24000, 21, "bulk API, 256 B, N=8" },
	{ "bulk-16", BULK, 256, 16, 24000, 21, "bulk API, N=16" },
	{ "bulk-64", BULK, 256, 64, 24000, 21, "bulk API, N=64" },
	{ "bulk-250", BULK, 256, 250, 24000, 21, "bulk API, N=250" },
	{ "c2c", C2C, 64, 1, 20000, 7, "one cache line's round trip between the two cores (cycles per round trip)" },
	{ "spsc-noalloc", SPSC_NOALLOC, 256, 1, 40000, 7,
	  "spsc's ring and object write and check with no allocator (a pool of 512 in turn)" },
	{ "spsc", SPSC, 256, 1, 40000, 7, "producer allocs, consumer on the other core frees (SPSC ring)" },
};
#define NR_WORKS (sizeof(works) / sizeof(works[0]))

static double sample_scale = 1.0; /* --quick: fewer samples (and shorter two-core ones) */
static char cmdline[512];         /* the options, for the meta line */
#define HOST_CPUS 2               /* the thread-CPUs slablab's child starts (spsc uses both) */
static const char *work_list;     /* --work: the works to run (comma-separated ids), or all */
static bool work_off[NR_WORKS];   /* from work_list, by select_works() */

static bool work_on(const struct work *w)
{
	return !work_off[w - works];
}

/* work_list into work_off[]; a list that is empty or names a work that is none is refused. */
static bool select_works(void)
{
	const char *p = work_list;

	if (!work_list)
		return true;
	if (!*p) {
		fprintf(stderr, "bench-host: --work: an empty list (the works: see --help)\n");
		return false;
	}
	for (size_t k = 0; k < NR_WORKS; k++)
		work_off[k] = true;
	while (*p) {
		size_t len = strcspn(p, ","), k;

		for (k = 0; k < NR_WORKS; k++)
			if (strlen(works[k].id) == len && !strncmp(p, works[k].id, len))
				break;
		if (k == NR_WORKS) {
			fprintf(stderr, "bench-host: --work: no work named %.*s (the works: see --help)\n",
				(int)len, p);
			return false;
		}
		work_off[k] = false;
		p += len + (p[len] == ',');
	}
	return true;
}

/* The works that need two cores: a producer and a consumer, or the two ends of a round trip. */
static bool two_cores(const struct work *w)
{
	return w->kind == SPSC || w->kind == SPSC_NOALLOC || w->kind == C2C;
}

/*
 * spsc's two companions, c2c and spsc-noalloc: with spsc, each of its samples is preceded by
 * one of each, in the same process a moment before (the cores' distance can change from
 * one second to the next), and they are not run on their own.
 */
static bool spsc_on(void)
{
	for (size_t k = 0; k < NR_WORKS; k++)
		if (works[k].kind == SPSC && work_on(&works[k]))
			return true;
	return false;
}

static bool companion(const struct work *w)
{
	return w->kind == C2C || w->kind == SPSC_NOALLOC;
}

/* In the table: asked for, or measured with spsc. */
static bool work_shown(const struct work *w)
{
	return work_on(w) || (companion(w) && spsc_on());
}

struct ring {
	unsigned long head __attribute__((aligned(64))); /* written by the producer */
	unsigned long tail __attribute__((aligned(64))); /* written by the consumer */
	unsigned long ping __attribute__((aligned(64))); /* c2c: written by each side in turn */
	int ready __attribute__((aligned(64)));
	enum kind kind; /* which of the two-core works */
	unsigned long generation, consumer_gen;
	long n;
	unsigned int size;
	unsigned long bad; /* objects that arrived with the wrong contents */
	uint64_t cycles;
	void *slot[RING] __attribute__((aligned(64)));
};

static void ring_start(struct ring *r)
{
	__atomic_fetch_add(&r->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) < 2)
		__builtin_ia32_pause();
}

/*
 * The ring's two sides publish in batches of up to RING_BATCH objects, one release store of
 * their index per batch, as the kernel's bench=remote ring (bench/ring.h) does, and read the
 * other side's index only when the copy they hold says the ring is full (the producer) or
 * empty (the consumer). Publishing every object made both index lines cross between the
 * cores once an object: most of what spsc cost at a far cores' distance, the same for every
 * allocator.
 */
#define RING_BATCH 16

/* The producer at head: how many it may publish now (waits while the ring is full). */
static unsigned long ring_room(struct ring *r, unsigned long head, unsigned long *tail,
			       unsigned long n)
{
	unsigned long want = MIN((unsigned long)RING_BATCH, n - head);

	while (RING - (head - *tail) < want) {
		*tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (RING - (head - *tail) < want)
			__builtin_ia32_pause();
	}
	return want;
}

/* The consumer at tail: how many it may take now (waits while the ring is empty). */
static unsigned long ring_ready(struct ring *r, unsigned long *head, unsigned long tail)
{
	while (*head == tail) {
		*head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (*head == tail)
			__builtin_ia32_pause();
	}
	return MIN((unsigned long)RING_BATCH, *head - tail);
}

/*
 * The timed loops, once per allocator: SETUP runs before the clock starts, ALLOC(size) and
 * FREE(p) are the two calls. The loops are the same for every allocator.
 */
#define DEFINE_WORK(NAME, SETUP, ALLOC, FREE)                                                      \
	static __attribute__((unused)) double NAME##_pair(unsigned int size, long iters)            \
	{                                                                                          \
		SETUP;                                                                             \
		uint64_t t0 = tsc();                                                               \
		for (long i = 0; i < iters; i++) {                                                 \
			void *p = ALLOC(size);                                                     \
			if (__builtin_expect(!p, 0))                                               \
				oom();                                                             \
			escape(p);                                                                 \
			FREE(p);                                                                   \
		}                                                                                  \
		return (double)(tsc() - t0) / (double)iters;                                       \
	}                                                                                          \
	static __attribute__((unused)) double NAME##_batch(unsigned int size, unsigned int n,      \
							   long loops, void **v)                   \
	{                                                                                          \
		SETUP;                                                                             \
		uint64_t t0 = tsc();                                                               \
		for (long l = 0; l < loops; l++) {                                                 \
			for (unsigned int i = 0; i < n; i++) {                                     \
				void *p = ALLOC(size);                                             \
				if (__builtin_expect(!p, 0))                                       \
					oom();                                                     \
				v[i] = p;                                                          \
			}                                                                          \
			escape(v);                                                                 \
			for (unsigned int i = 0; i < n; i++)                                       \
				FREE(v[i]);                                                        \
		}                                                                                  \
		return (double)(tsc() - t0) / ((double)loops * n);                                 \
	}                                                                                          \
	static void NAME##_producer(struct ring *r)                                                \
	{                                                                                          \
		unsigned int size = r->size;                                                       \
		unsigned long head = 0, tail = 0, n = (unsigned long)r->n;                         \
		SETUP;                                                                             \
		ring_start(r);                                                                     \
		uint64_t t0 = tsc();                                                               \
		while (head < n) {                                                                 \
			unsigned long k = ring_room(r, head, &tail, n);                            \
			for (unsigned long end = head + k; head < end; head++) {                   \
				void *p = ALLOC(size);                                             \
				if (__builtin_expect(!p, 0))                                       \
					oom();                                                     \
				*(unsigned long *)p = head;                                        \
				r->slot[head % RING] = p;                                          \
			}                                                                          \
			__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);                        \
		}                                                                                  \
		while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) != n)                           \
			__builtin_ia32_pause();                                                    \
		r->cycles = tsc() - t0;                                                            \
	}                                                                                          \
	static void NAME##_consumer(struct ring *r)                                                \
	{                                                                                          \
		unsigned int size = r->size;                                                       \
		unsigned long head = 0, tail = 0, n = (unsigned long)r->n;                         \
		SETUP;                                                                             \
		ring_start(r);                                                                     \
		while (tail != n) {                                                                \
			unsigned long k = ring_ready(r, &head, tail);                              \
			for (unsigned long end = tail + k; tail < end; tail++) {                   \
				void *p = r->slot[tail % RING];                                    \
				if (*(unsigned long *)p != tail)                                   \
					r->bad++;                                                  \
				FREE(p);                                                           \
			}                                                                          \
			__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);                        \
		}                                                                                  \
		(void)size;                                                                        \
	}

/*
 * spsc-noalloc: the same producer and consumer with no allocator. The producer takes the
 * objects of a fixed pool in turn, twice the ring's slots (so each is back with the producer
 * only after the consumer has read it, as a freed and reallocated object would be), and the
 * consumer frees nothing.
 */
#define NOALLOC_OBJS (2 * RING)
static char noalloc_pool[NOALLOC_OBJS * 256] __attribute__((aligned(4096)));
#define F_SETUP                                                                                    \
	unsigned long f_next_ = 0;                                                                 \
	(void)f_next_
#define F_ALLOC(size) ((void *)(noalloc_pool + (f_next_++ % NOALLOC_OBJS) * MIN((size), 256u)))
#define F_FREE(p) ((void)(p))
DEFINE_WORK(f, F_SETUP, F_ALLOC, F_FREE)

/* c2c: one line, the ping word, passed back and forth; the producer's side times it. */
static void c2c_ping(struct ring *r)
{
	ring_start(r);
	uint64_t t0 = tsc();
	for (unsigned long i = 0; i < (unsigned long)r->n; i++) {
		__atomic_store_n(&r->ping, 2 * i + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&r->ping, __ATOMIC_ACQUIRE) != 2 * i + 2)
			__builtin_ia32_pause();
	}
	r->cycles = tsc() - t0;
}

static void c2c_pong(struct ring *r)
{
	ring_start(r);
	for (unsigned long i = 0; i < (unsigned long)r->n; i++) {
		while (__atomic_load_n(&r->ping, __ATOMIC_ACQUIRE) != 2 * i + 1)
			__builtin_ia32_pause();
		__atomic_store_n(&r->ping, 2 * i + 2, __ATOMIC_RELEASE);
	}
	r->tail = (unsigned long)r->n; /* for spsc_check: every round trip made */
}

/* malloc/free: whichever allocator LD_PRELOAD put in front of glibc's. */
#define M_SETUP (void)0
#define M_ALLOC(size) malloc(size)
#define M_FREE(p) free(p)
DEFINE_WORK(m, M_SETUP, M_ALLOC, M_FREE)

/* slablab: the cache of the variant under test for this size. */
static struct kmem_cache *caches[3]; /* 64, 256, 1024 B */

static struct kmem_cache *cache_for(unsigned int size)
{
	return caches[size <= 64 ? 0 : size <= 256 ? 1 : 2];
}

#define S_SETUP struct kmem_cache *s_ = cache_for(size)
#define S_ALLOC(size) kmem_cache_alloc(s_, GFP_KERNEL)
#define S_FREE(p) kmem_cache_free(s_, p)
DEFINE_WORK(s, S_SETUP, S_ALLOC, S_FREE)

static double s_bulk(unsigned int size, unsigned int n, long loops, void **v)
{
	struct kmem_cache *s = cache_for(size);
	uint64_t t0 = tsc();

	for (long l = 0; l < loops; l++) {
		if (__builtin_expect(kmem_cache_alloc_bulk(s, GFP_KERNEL, n, v) != (int)n, 0))
			oom();
		escape(v);
		kmem_cache_free_bulk(s, n, v);
	}
	return (double)(tsc() - t0) / ((double)loops * n);
}

/* ---- the child: one allocator (slablab: each variant), raw samples on stdout ---- */

static void emit(const char *allocator, const struct work *w, double v)
{
	printf("S %s %s %.3f\n", allocator, w->id, v);
}

static int nsamples(const struct work *w)
{
	int n = (int)(w->samples * sample_scale);

	return n < 3 ? 3 : n;
}

/* One side of a two-core work: the producer's (which times it) or the consumer's. */
static void ring_side(struct ring *r, bool producer, bool slablab)
{
	if (r->kind == C2C)
		(producer ? c2c_ping : c2c_pong)(r);
	else if (r->kind == SPSC_NOALLOC)
		(producer ? f_producer : f_consumer)(r);
	else if (slablab)
		(producer ? s_producer : s_consumer)(r);
	else
		(producer ? m_producer : m_consumer)(r);
}

/* The two-core works for malloc: a consumer thread on the second core, kept for all samples. */
static struct ring the_ring;

static void *m_consumer_thread(void *arg)
{
	struct ring *r = arg;
	unsigned long seen = 0;

	host_pin_to_core(1);
	for (;;) {
		unsigned long gen;

		while ((gen = __atomic_load_n(&r->generation, __ATOMIC_ACQUIRE)) == seen)
			__builtin_ia32_pause();
		if (gen == ~0UL)
			return NULL;
		seen = gen;
		ring_side(r, false, false);
		__atomic_store_n(&r->consumer_gen, gen, __ATOMIC_RELEASE);
	}
}

/* A two-core work's objects (round trips) per sample: fewer with --quick, as samples are. */
static long ring_objects(const struct work *w)
{
	long n = (long)((double)w->objects * (sample_scale < 1 ? sample_scale : 1));

	return n < 1000 ? 1000 : n;
}

static void ring_reset(struct ring *r, const struct work *w)
{
	r->bad = 0;
	r->head = r->tail = 0;
	r->ping = 0;
	r->kind = w->kind;
	r->ready = 0;
	r->n = ring_objects(w);
	r->size = w->size;
	r->cycles = 0;
}

/* The consumer saw every object with the contents the producer wrote, or the run is void. */
static void spsc_check(const char *name, const struct ring *r)
{
	if (r->bad || r->tail != (unsigned long)r->n) {
		fprintf(stderr, "bench-host: %s: spsc: %lu of %ld objects arrived corrupted, %lu freed\n",
			name, r->bad, r->n, r->tail);
		exit(4);
	}
}

/* One sample of a two-core work, malloc's: the consumer thread takes generation gen. */
static double m_two_cores(const char *name, const struct work *w, unsigned long gen)
{
	ring_reset(&the_ring, w);
	__atomic_store_n(&the_ring.generation, gen, __ATOMIC_RELEASE);
	ring_side(&the_ring, true, false);
	while (__atomic_load_n(&the_ring.consumer_gen, __ATOMIC_ACQUIRE) != gen)
		__builtin_ia32_pause();
	spsc_check(name, &the_ring);
	return (double)the_ring.cycles / (double)the_ring.n;
}

static void child_malloc(const char *name)
{
	void **v = calloc(512, sizeof(*v));
	pthread_t consumer;
	unsigned long gen = 0;
	bool thread = false;

	for (size_t k = 0; k < NR_WORKS; k++) {
		const struct work *w = &works[k];

		if (w->kind == BULK || !work_on(w))
			continue;
		if (two_cores(w)) {
			if (host_nr_cores() < 2 || (companion(w) && spsc_on()))
				continue;
			if (!thread && pthread_create(&consumer, NULL, m_consumer_thread, &the_ring))
				oom();
			thread = true;
			for (int i = -1; i < nsamples(w); i++) { /* -1: warm-up */
				for (size_t j = 0; w->kind == SPSC && j < NR_WORKS; j++) {
					double c;

					if (!companion(&works[j]))
						continue;
					c = m_two_cores(name, &works[j], ++gen);
					if (i >= 0)
						emit(name, &works[j], c);
				}
				double c = m_two_cores(name, w, ++gen);

				if (i >= 0)
					emit(name, w, c);
			}
			continue;
		}
		for (int i = -1; i < nsamples(w); i++) {
			double c = w->kind == PAIR ? m_pair(w->size, w->objects)
						   : m_batch(w->size, w->n, w->objects / w->n, v);
			if (i >= 0)
				emit(name, w, c);
		}
	}
	if (thread) {
		__atomic_store_n(&the_ring.generation, ~0UL, __ATOMIC_RELEASE);
		pthread_join(consumer, NULL);
	}
	free(v);
}

static void spsc_on_cpu(void *arg)
{
	struct ring *r = arg;

	if (smp_processor_id() == 0) {
		ring_side(r, true, true);
	} else {
		static __thread int pinned;

		if (!pinned) {
			host_pin_to_core(1);
			pinned = 1;
		}
		ring_side(r, false, true);
	}
}

/* One sample of a two-core work, slablab's: CPU 0 and CPU 1 (pinned to the second core). */
static double s_two_cores(const char *name, const struct work *w)
{
	ring_reset(&the_ring, w);
	host_run_on_cpus(2, spsc_on_cpu, &the_ring);
	spsc_check(name, &the_ring);
	return (double)the_ring.cycles / (double)the_ring.n;
}

/* slablab's variants: the parent's columns and the child's loop, in the same order. */
struct variant {
	char name[48]; /* "slablab-lock-irq", "slablab-sheaves", ... */
	const char *scheme, *fastpath;
	enum slab_fastpath fp;
};

static struct variant variants[MAX_ALLOCATORS];
static int nvariants;

static void list_variants(void)
{
	for (unsigned int i = 0; slab_scheme_name(i) && nvariants < MAX_ALLOCATORS - 6; i++) {
		const char *sc = slab_scheme_name(i);
		bool both = !strcmp(sc, "lock") || !strcmp(sc, "partial");

		for (int fp = 0; fp < (both ? 2 : 1); fp++) {
			struct variant *v = &variants[nvariants++];

			v->scheme = sc;
			v->fp = fp ? SLAB_FASTPATH_CMPXCHG : SLAB_FASTPATH_IRQ;
			v->fastpath = fp ? "cmpxchg" : "irq";
			if (both)
				snprintf(v->name, sizeof(v->name), "slablab-%s-%s", sc, v->fastpath);
			else
				snprintf(v->name, sizeof(v->name), "slablab-%s", sc);
		}
	}
}

static void child_slablab(void)
{
	void **v = calloc(512, sizeof(*v));

	host_arena_init(HOST_ARENA_BASE, ARENA_SIZE);
	host_smp_init(HOST_CPUS);
	list_variants();
	for (int var = 0; var < nvariants; var++) {
		const char *name = variants[var].name;

		for (int k = 0; k < 3; k++) {
			unsigned int size = 64u << (2 * k);

			caches[k] = kmem_cache_create_scheme("bench", size, 0, 0, NULL,
							     variants[var].scheme, variants[var].fp);
			if (!caches[k])
				oom();
		}
		for (size_t k = 0; k < NR_WORKS; k++) {
			const struct work *w = &works[k];

			if ((two_cores(w) && host_nr_cores() < 2) || !work_on(w) ||
			    (companion(w) && spsc_on()))
				continue;
			for (int i = -1; i < nsamples(w); i++) {
				double c;

				for (size_t j = 0; w->kind == SPSC && j < NR_WORKS; j++) {
					if (!companion(&works[j]))
						continue;
					c = s_two_cores(name, &works[j]);
					if (i >= 0)
						emit(name, &works[j], c);
				}
				if (two_cores(w)) {
					c = s_two_cores(name, w);
				} else if (w->kind == PAIR) {
					c = s_pair(w->size, w->objects);
				} else if (w->kind == BATCH) {
					c = s_batch(w->size, w->n, w->objects / w->n, v);
				} else {
					c = s_bulk(w->size, w->n, w->objects / w->n, v);
				}
				if (i >= 0)
					emit(name, w, c);
			}
		}
		for (int k = 0; k < 3; k++)
			kmem_cache_destroy(caches[k]);
	}
	if (slab_bad_input_count()) {
		fprintf(stderr, "bench-host: slablab reported bad input\n");
		exit(4);
	}
	free(v);
}

/* ---- the parent ---- */

struct allocator {
	const char *name;    /* column name: "glibc", "slablab-lock-irq", ... */
	const char *lib;     /* LD_PRELOAD; NULL for none */
	const char *version;
	bool child_slablab;  /* the one child that runs every slablab variant */
};

struct series {
	double v[MAX_SAMPLES];
	int n;
};

static struct allocator procs[MAX_ALLOCATORS]; /* one child each */
static int nprocs;
static const char *columns[MAX_ALLOCATORS];    /* result columns, in table order */
static const char *column_version[MAX_ALLOCATORS];
static const struct variant *column_variant[MAX_ALLOCATORS]; /* NULL for a peer */
static int ncolumns;
static struct series *results[MAX_ALLOCATORS][NR_WORKS];

static int column_of(const char *name)
{
	for (int c = 0; c < ncolumns; c++)
		if (!strcmp(columns[c], name))
			return c;
	return -1;
}

static void run_child(const struct allocator *a)
{
	int pipefd[2];
	pid_t pid;
	FILE *in;
	char line[256];
	int status;

	if (pipe(pipefd))
		oom();
	pid = fork();
	if (pid < 0)
		oom();
	if (pid == 0) {
		char scale[32];

		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		if (a->lib)
			setenv("LD_PRELOAD", a->lib, 1);
		else
			unsetenv("LD_PRELOAD");
		snprintf(scale, sizeof(scale), "%g", sample_scale);
		execl("/proc/self/exe", "bench-host", "--child",
		      a->child_slablab ? "slablab" : a->name, "--scale", scale, "--work",
		      work_list ? work_list : "", (char *)NULL);
		perror("bench-host: exec");
		_exit(127);
	}
	close(pipefd[1]);
	in = fdopen(pipefd[0], "r");
	while (fgets(line, sizeof(line), in)) {
		char who[64], id[64];
		double v;
		int c;

		if (sscanf(line, "S %63s %63s %lf", who, id, &v) != 3)
			continue;
		c = column_of(who);
		for (size_t k = 0; c >= 0 && k < NR_WORKS; k++) {
			if (strcmp(works[k].id, id))
				continue;
			if (!results[c][k])
				results[c][k] = calloc(1, sizeof(struct series));
			if (results[c][k]->n < MAX_SAMPLES)
				results[c][k]->v[results[c][k]->n++] = v;
		}
	}
	fclose(in);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "bench-host: the %s child failed (status %#x)\n", a->name, status);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stats {
	double median, p10, p90, min, max;
	int n;
};

static double pct(const double *v, int n, double p) /* nearest rank */
{
	int k = (int)(p * (n - 1) + 0.5);

	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static bool get_stats(int c, size_t k, struct stats *st)
{
	struct series *s = results[c][k];

	if (!s || !s->n)
		return false;
	qsort(s->v, (size_t)s->n, sizeof(double), cmp_double);
	st->n = s->n;
	st->min = s->v[0];
	st->max = s->v[s->n - 1];
	st->median = s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
	st->p10 = pct(s->v, s->n, 0.10);
	st->p90 = pct(s->v, s->n, 0.90);
	return true;
}

/*
 * What the cmpxchg fastpath's one instruction per call costs on this CPU, measured in the same
 * run so that a pair's figure can be read against it. Each loop is a dependent chain on one
 * 16-byte-aligned word (read both halves, then swap them for the next values): cmpxchg16b
 * without lock prefix (cmpxchg_double_local: the cmpxchg fastpath's until it packed its
 * freelist and tid into one word), with lock (cmpxchg_double, what the slab freelists use),
 * and a plain load/add/store for comparison; then the same chain on the first 8 bytes only
 * with an unlocked cmpxchg (cmpxchg_local, the cmpxchg fastpath's on its freelist word), and a chain of dependent register adds, one core clock each: the TSC
 * cycles of one core cycle, which turn this table's TSC figures into core cycles (a core that
 * runs above or below the TSC's rate shows here). Median of 21 runs of 100000.
 */
struct insn_fig {
	const char *id, *what;
	double median, p10, p90;
};

static struct insn_fig insn_figs[] = {
	{ "cmpxchg16b-local", "cmpxchg16b, no lock prefix (a freelist+tid pair's)", 0, 0, 0 },
	{ "cmpxchg16b-locked", "lock cmpxchg16b (the slabs' freelist+counters)", 0, 0, 0 },
	{ "load-add-store", "plain load, add, store of the same word", 0, 0, 0 },
	{ "cmpxchg8-local", "cmpxchg of one 8-byte word, no lock prefix (the cmpxchg fastpath's)",
	  0, 0, 0 },
	{ "add-chain", "one dependent register add: a core cycle, in TSC cycles", 0, 0, 0 },
};
#define NR_INSN (sizeof(insn_figs) / sizeof(insn_figs[0]))

static void measure_insns(void)
{
	static u64 word[2] __attribute__((aligned(16)));
	enum { RUNS = 21, OPS = 100000 };
	double v[RUNS];

	for (size_t f = 0; f < NR_INSN; f++) {
		for (int r = 0; r < RUNS; r++) {
			uint64_t t0 = tsc();

			/* Ten adds an iteration, of a register: a core that folds adds of an
			 * immediate at rename (Intel's since Golden Cove) runs those several
			 * to a cycle, which is no longer a cycle's measure. */
			for (long i = 0, one = 1; i < OPS && f == 4; i++)
				__asm__ __volatile__(".rept 10\n\taddq %1, %0\n\t.endr"
						     : "+r"(word[1])
						     : "r"(one));
			for (long i = 0; i < OPS && f < 4; i++) {
				u64 a = __atomic_load_n(&word[0], __ATOMIC_RELAXED);
				u64 b = __atomic_load_n(&word[1], __ATOMIC_RELAXED);

				if (f == 0)
					cmpxchg_double_local(word, a, b, a + 1, b + 1);
				else if (f == 1)
					cmpxchg_double(word, a, b, a + 1, b + 1);
				else if (f == 2)
					__atomic_store_n(&word[0], a + 1, __ATOMIC_RELAXED);
				else /* f == 3: rax holds the expected value, as cmpxchg wants */
					__asm__ __volatile__("cmpxchgq %2, %1"
							     : "+a"(a), "+m"(word[0])
							     : "r"(a + 1)
							     : "cc");
				__asm__ __volatile__("" : : : "memory");
			}
			v[r] = (double)(tsc() - t0) / (f == 4 ? OPS * 10.0 : OPS);
		}
		qsort(v, RUNS, sizeof(double), cmp_double);
		insn_figs[f].median = v[RUNS / 2];
		insn_figs[f].p10 = pct(v, RUNS, 0.10);
		insn_figs[f].p90 = pct(v, RUNS, 0.90);
	}
}

static double tsc_mhz(void)
{
	struct timespec a, b;
	uint64_t t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = tsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000000L);
	t1 = tsc();
	return (double)(t1 - t0) /
	       ((double)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)) / 1e3);
}

static void cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(out, len, "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(out, len, "%s", colon + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
	putchar('"');
}

static void add_column(const char *name, const char *version, const struct variant *v)
{
	columns[ncolumns] = name;
	column_version[ncolumns] = version;
	column_variant[ncolumns] = v;
	ncolumns++;
}

static int parent(int rounds, char **peers, int npeers)
{
	char model[256], date[64];
	struct utsname un;
	time_t now = time(NULL);
	double mhz = tsc_mhz();

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	cpu_model(model, sizeof(model));
	uname(&un);

	procs[nprocs++] = (struct allocator){ .name = "slablab", .child_slablab = true };
	list_variants();
	for (int i = 0; i < nvariants; i++)
		add_column(variants[i].name, "", &variants[i]);
	procs[nprocs++] = (struct allocator){ .name = "glibc", .version = gnu_get_libc_version() };
	add_column("glibc", gnu_get_libc_version(), NULL);
	for (int i = 0; i < npeers && nprocs < MAX_ALLOCATORS && ncolumns < MAX_ALLOCATORS; i++) {
		char *spec = strdup(peers[i]), *eq = strchr(spec, '='), *at;

		if (!eq) {
			fprintf(stderr, "bench-host: --peer NAME=LIB[@VERSION], not %s\n", peers[i]);
			return 2;
		}
		*eq = '\0';
		at = strchr(eq + 1, '@');
		if (at)
			*at = '\0';
		procs[nprocs++] = (struct allocator){ .name = spec, .lib = eq + 1,
						      .version = at ? at + 1 : "" };
		add_column(spec, at ? at + 1 : "", NULL);
	}

	printf("bench-host: slablab's kmem_cache next to user-space allocators, %s\n", date);
	printf("machine: %s, %d cores usable, TSC %.0f MHz (measured), Linux %s, glibc %s\n", model,
	       host_nr_cores(), mhz, un.release, gnu_get_libc_version());
	printf("figures: TSC cycles per object (rdtsc between lfences), median of %d rounds x N "
	       "samples, [p10-p90] below; each allocator in its own process per round\n",
	       rounds);
	printf("slablab: mm/slub.c + mm/scheme_*.c + mm/page_alloc.c built for user space; "
	       "threads are CPUs; \"interrupts off\" = a thread-local flag between compiler "
	       "barriers (no system call; an IPI signal arriving meanwhile runs when it clears); "
	       "cmpxchg and cmpxchg16b as in the kernel\n");
	printf("peers: the same driver calling malloc/free, allocator loaded with LD_PRELOAD:");
	for (int p = 2; p < nprocs; p++)
		printf(" %s %s (%s)", procs[p].name, procs[p].version, procs[p].lib);
	printf("\n");
	/* The meta line (tools/benchreport.py's contract): the run, before its figures. */
	printf("{\"bench\":\"meta\",\"cpu_model\":");
	json_string(model);
	printf(",\"tsc_mhz\":%.0f,\"seed\":0,\"cmdline\":", mhz);
	json_string(cmdline);
	printf(",\"benches\":\"host\",\"schemes\":\"");
	for (int i = 0, n = 0; i < nvariants; i++)
		if (i == 0 || strcmp(variants[i].scheme, variants[i - 1].scheme))
			printf("%s%s", n++ ? "," : "", variants[i].scheme);
	printf("\",\"allocators\":\"glibc");
	for (int p = 2; p < nprocs; p++)
		printf(",%s", procs[p].name);
	printf("\",\"date\":\"%s\",\"kernel\":", date);
	json_string(un.release);
	printf(",\"figure\":\"run\",\"value\":0,\"unit\":\"none\",\"accel\":\"host\","
	       "\"emulated\":false,\"cpus\":%d}\n", HOST_CPUS);
	fflush(stdout);

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < nprocs; i++)
			run_child(&procs[(i + r) % nprocs]);

	/* The table of medians, then the spread. */
	for (int pass = 0; pass < 2; pass++) {
		printf("\n%s\n", pass ? "p10-p90 (min-max in the JSON lines)" : "median TSC cycles per object");
		printf("%-28s", "work");
		for (int c = 0; c < ncolumns; c++)
			printf(" %*s", pass ? 15 : 10,
			       strncmp(columns[c], "slablab-", 8) ? columns[c] : columns[c] + 8);
		printf("\n");
		for (size_t k = 0; k < NR_WORKS; k++) {
			if (!work_shown(&works[k]))
				continue;
			printf("%-28s", works[k].id);
			for (int c = 0; c < ncolumns; c++) {
				struct stats st;
				char cell[48];

				if (!get_stats(c, k, &st))
					snprintf(cell, sizeof(cell), "-");
				else if (pass)
					snprintf(cell, sizeof(cell), "%.1f-%.1f", st.p10, st.p90);
				else
					snprintf(cell, sizeof(cell), "%.1f", st.median);
				printf(" %*s", pass ? 15 : 10, cell);
			}
			printf("\n");
		}
	}
	/* Producer/consumer as a rate: the TSC's MHz over cycles per object is millions per second. */
	for (size_t k = 0; k < NR_WORKS; k++) {
		if (works[k].kind != SPSC || !work_on(&works[k]))
			continue;
		printf("\nproducer/consumer (%s): million objects per second (from the median)\n",
		       works[k].id);
		printf("%-28s", "work");
		for (int c = 0; c < ncolumns; c++)
			printf(" %10s", strncmp(columns[c], "slablab-", 8) ? columns[c] : columns[c] + 8);
		printf("\n%-28s", works[k].id);
		for (int c = 0; c < ncolumns; c++) {
			struct stats st;
			char cell[48] = "-";

			if (get_stats(c, k, &st))
				snprintf(cell, sizeof(cell), "%.2f", mhz / st.median);
			printf(" %10s", cell);
		}
		printf("\n");
	}
	measure_insns();
	printf("\nthe cmpxchg fastpath's instruction on this CPU: TSC cycles per operation (read both "
	       "words, then the swap), a dependent chain on one word, median (p10-p90) of 21 runs of "
	       "100000, measured after the rounds; then an 8-byte swap, and one core cycle\n");
	for (size_t f = 0; f < NR_INSN; f++)
		printf("  %-20s %6.2f (%.2f-%.2f)  %s\n", insn_figs[f].id, insn_figs[f].median,
		       insn_figs[f].p10, insn_figs[f].p90, insn_figs[f].what);
	printf("\nwork:");
	for (size_t k = 0, n = 0; k < NR_WORKS; k++)
		if (work_shown(&works[k]))
			printf("%s %s = %s", n++ ? ";" : "", works[k].id, works[k].what);
	printf("\n\n");

	/* One JSON line per figure (tools/benchreport.py's contract: the meta line above). */
	for (int c = 0; c < ncolumns; c++) {
		for (size_t k = 0; k < NR_WORKS; k++) {
			const struct work *w = &works[k];
			static const char *const kinds[] = { "pair", "batch", "bulk", "spsc", "spsc-noalloc",
							     "c2c" };
			struct stats st;
			const struct variant *v = column_variant[c];

			if (!get_stats(c, k, &st))
				continue;
			for (int rate = 0; rate < (w->kind == SPSC ? 2 : 1); rate++) {
				printf("{\"bench\":\"host\",\"allocator\":");
				json_string(v ? "slablab" : columns[c]);
				if (v) {
					printf(",\"scheme\":\"%s\",\"fastpath\":\"%s\"", v->scheme,
					       v->fastpath);
				} else {
					printf(",\"version\":");
					json_string(column_version[c]);
				}
				printf(",\"work\":\"%s\",\"size\":%u,\"n\":%u,", kinds[w->kind], w->size,
				       w->n);
				if (rate) /* producer/consumer per second, from the median */
					printf("\"figure\":\"objects per second\",\"value\":%.0f,"
					       "\"unit\":\"objects/s\",", mhz * 1e6 / st.median);
				else
					printf("\"figure\":\"%s\",\"value\":%.1f,"
					       "\"unit\":\"cycles\",\"p10\":%.1f,\"p90\":%.1f,"
					       "\"min\":%.1f,\"max\":%.1f,",
					       w->kind == C2C ? "cycles per round trip" : "cycles per object",
					       st.median, st.p10, st.p90, st.min, st.max);
				printf("\"reps\":%d,\"accel\":\"host\",\"emulated\":false,\"cpus\":%d}\n",
				       st.n, HOST_CPUS);
			}
		}
	}
	for (size_t f = 0; f < NR_INSN; f++)
		printf("{\"bench\":\"host\",\"allocator\":\"cpu\",\"work\":\"insn\",\"insn\":\"%s\","
		       "\"figure\":\"cycles per operation\",\"value\":%.2f,\"unit\":\"cycles\","
		       "\"p10\":%.2f,\"p90\":%.2f,\"reps\":21,\"accel\":\"host\",\"emulated\":false,"
		       "\"cpus\":1}\n",
		       insn_figs[f].id, insn_figs[f].median, insn_figs[f].p10, insn_figs[f].p90);
	return 0;
}

int main(int argc, char **argv)
{
	const char *child = NULL;
	char **peers = calloc((size_t)argc + 1, sizeof(*peers));
	int npeers = 0, rounds = 5;

	for (int i = 1, len = 0; i < argc && len < (int)sizeof(cmdline); i++)
		len += snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s", i > 1 ? " " : "", argv[i]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--child") && i + 1 < argc)
			child = argv[++i];
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			sample_scale = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--quick"))
			sample_scale = 0.2, rounds = 1;
		else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
			peers[npeers++] = argv[++i];
		else if (!strcmp(argv[i], "--work") && i + 1 < argc)
			work_list = *argv[++i] || !child ? argv[i] : NULL;
		else {
			fprintf(stderr, "usage: bench-host [--rounds R] [--quick] [--work ID,...] "
					"[--peer NAME=LIB[@VERSION]]...\nworks:");
			for (size_t k = 0; k < NR_WORKS; k++)
				fprintf(stderr, " %s", works[k].id);
			fprintf(stderr, "\n");
			return 2;
		}
	}
	if (!select_works())
		return 2;
	host_nr_cores(); /* remember the allowed cores before pinning */
	if (!child)
		return parent(rounds < 1 ? 1 : rounds, peers, npeers);
	host_pin_to_core(0);
	if (!strcmp(child, "slablab"))
		child_slablab();
	else
		child_malloc(child);
	fflush(stdout);
	return 0;
}
