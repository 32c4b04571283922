// SPDX-License-Identifier: MIT
/*
 * The LD_PRELOAD recorder of tools/trace/record (docs/traces.md): every malloc, calloc,
 * realloc, free, posix_memalign, aligned_alloc, memalign, valloc and pvalloc of the program
 * is passed to glibc's allocator (its __libc_* entry points, so no dlsym and no recursion)
 * and noted in a per-thread buffer: time (CLOCK_MONOTONIC, from the vDSO), pointer, old
 * pointer, size and kind, 32 bytes. A full buffer goes to the thread's own file
 * SLABTRACE_DIR/PID-TID.raw with one write(); the buffers of every thread are flushed
 * when the process exits. malloc_usable_size is not interposed: the pointers are glibc's,
 * so glibc's answers it. tools/trace/slabtrace.py from-raw orders the records of all
 * threads by time and turns pointers into dense ids (a pointer reused after a free is a
 * new id).
 *
 * An allocation's time is taken after glibc returned it and a free's before it is given
 * back, so another thread that is handed the same memory records a later time: the merge
 * by time never sees a pointer allocated twice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

enum { OP_MALLOC = 1, OP_FREE = 2, OP_REALLOC = 3 };

struct rec {
	uint64_t ts, ptr, old;
	uint32_t size_op; /* size << 8 | op: sizes up to 16 MiB - 1 exactly, larger saturate */
	uint32_t pad;
};
_Static_assert(sizeof(struct rec) == 32, "the raw format of slabtrace.py");

#define BUF_RECS 4096

struct tbuf {
	struct tbuf *next; /* every thread's, for the flush at exit */
	int fd;
	pid_t pid, tid;
	unsigned int n;
	struct rec r[BUF_RECS];
};

static struct tbuf *_Atomic all_bufs;
static __thread struct tbuf *my;
static __thread int in_rec; /* the recorder's own calls (open, mmap) are not recorded */
static char dir[4096];
static int enabled = -1;
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;

static void flush(struct tbuf *b)
{
	size_t len = b->n * sizeof(struct rec), off = 0;

	if (b->fd < 0) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%d-%d.raw", dir, (int)b->pid, (int)b->tid);
		b->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (b->fd < 0 || write(b->fd, "SLBRAW01", 8) != 8) {
			static const char m[] = "slabtrace recorder: cannot write into SLABTRACE_DIR\n";
			(void)!write(2, m, sizeof(m) - 1);
			_exit(127);
		}
	}
	while (off < len) {
		ssize_t w = write(b->fd, (char *)b->r + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			static const char m[] = "slabtrace recorder: a write failed (disk full?)\n";
			(void)!write(2, m, sizeof(m) - 1);
			_exit(127);
		}
		off += (size_t)w;
	}
	b->n = 0;
}

static struct tbuf *get_buf(void)
{
	struct tbuf *b;

	if (my)
		return my; /* reset in a forked child (after_fork_child) */
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	b->fd = -1;
	b->pid = getpid();
	b->tid = (pid_t)syscall(SYS_gettid);
	b->n = 0;
	b->next = atomic_load_explicit(&all_bufs, memory_order_relaxed);
	while (!atomic_compare_exchange_weak(&all_bufs, &b->next, b))
		;
	my = b;
	return b;
}

static inline uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void note(uint64_t ts, int op, void *ptr, void *old, size_t size)
{
	struct tbuf *b;
	struct rec *r;

	if (enabled <= 0 || in_rec)
		return;
	in_rec = 1;
	b = get_buf();
	if (b) {
		r = &b->r[b->n++];
		r->ts = ts;
		r->ptr = (uint64_t)(uintptr_t)ptr;
		r->old = (uint64_t)(uintptr_t)old;
		r->size_op = (uint32_t)((size > 0xffffff ? 0xffffff : size) << 8) | (uint32_t)op;
		r->pad = 0;
		if (b->n == BUF_RECS)
			flush(b);
	}
	in_rec = 0;
}

/* At exit, every thread's buffer of this process (threads still running may add to theirs;
 * what they add after this is lost, as a tracer stopped at exit loses it). */
static void flush_all(void)
{
	pid_t pid = getpid();

	in_rec = 1;
	pthread_mutex_lock(&flush_lock);
	for (struct tbuf *b = atomic_load(&all_bufs); b; b = b->next)
		if (b->pid == pid && (b->n || b->fd < 0))
			flush(b);
	pthread_mutex_unlock(&flush_lock);
	enabled = 0;
	in_rec = 0;
}

/* A forked child starts with no buffers of its own: its parent's stay the parent's. */
static void after_fork_child(void)
{
	atomic_store(&all_bufs, NULL);
	my = NULL;
}

__attribute__((constructor)) static void recorder_init(void)
{
	const char *d = getenv("SLABTRACE_DIR");

	if (!d || !*d || strlen(d) >= sizeof(dir)) {
		enabled = 0;
		return;
	}
	strcpy(dir, d);
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(flush_all);
	enabled = 1;
}

__attribute__((destructor)) static void recorder_fini(void)
{
	if (enabled > 0)
		flush_all();
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	note(now(), OP_MALLOC, p, NULL, n);
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p = __libc_calloc(n, m);

	note(now(), OP_MALLOC, p, NULL, n * m); /* glibc returned NULL if n * m overflows */
	return p;
}

void free(void *p)
{
	if (!p)
		return;
	note(now(), OP_FREE, NULL, p, 0);
	__libc_free(p);
}

void *realloc(void *old, size_t n)
{
	uint64_t t0 = now();
	void *p = __libc_realloc(old, n);

	if (!old) {
		note(now(), OP_MALLOC, p, NULL, n);
	} else if (p) {
		/* moved or not: the old object ends, a new one of n bytes begins */
		note(t0, OP_FREE, NULL, old, 0);
		note(now(), OP_MALLOC, p, NULL, n);
	} else if (n == 0) {
		note(t0, OP_FREE, NULL, old, 0); /* glibc's realloc(p, 0) frees p */
	}
	return p;
}

static void *aligned(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	note(now(), OP_MALLOC, p, NULL, n);
	return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = aligned(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	return aligned(align, n);
}

void *memalign(size_t align, size_t n)
{
	return aligned(align, n);
}

void *valloc(size_t n)
{
	return aligned((size_t)sysconf(_SC_PAGESIZE), n);
}

void *pvalloc(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return aligned(pg, (n + pg - 1) & ~(pg - 1));
}
