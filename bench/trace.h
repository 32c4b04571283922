/* SPDX-License-Identifier: MIT */
/*
 * Slab traces (docs/traces.md): the reader the replay benchmark (bench/bench_replay.c) uses,
 * arch-neutral and allocation-free so the host tests run it on the same files as the
 * kernel. Little-endian, version 2 (version 1: events 1-4, no flags), both read:
 *
 *   header   "SLABTRCE", u16 version, u16 nr_caches, u32 nr_streams, u64 nr_events,
 *            u64 nr_ids, char source[32], u32 flags (0), u32 header_bytes      (72 bytes)
 *   caches   nr_caches x { char name[32], u32 size, u32 align, u32 flags, u32 0 }  (48)
 *   streams  nr_streams x { u64 offset, u64 bytes, u64 nr_events }               (24)
 *   events   per stream: u8 kind (low 4 bits; version 2: 0x10 nolock, 0x20 a node
 *            follows), then LEB128 varints: time since the stream's last event (ns), id, the
 *            cache (alloc, free) or the size in bytes (kmalloc), and the node (0x20)
 *
 * Every error message says what is wrong and where ("stream S event E: ...").
 */
#ifndef SLABLAB_BENCH_TRACE_H
#define SLABLAB_BENCH_TRACE_H

#include "kernel/types.h"

#define TRACE_VERSION 2     /* the newest this reader takes; version 1 too */
#define TRACE_MIN_VERSION 1
#define TRACE_MAX_STREAMS 1024
#define TRACE_MAX_CACHES 1024
#define TRACE_HEADER_BYTES 72
#define TRACE_CACHE_BYTES 48
#define TRACE_STREAM_BYTES 24
#define TRACE_CACHE_MAX_SIZE 32768 /* an object must fit an order-3 slab (mm/slab.h) */
#define TRACE_CACHE_HWCACHE_ALIGN 0x1u
#define TRACE_CACHE_FLAGS TRACE_CACHE_HWCACHE_ALIGN
#define TRACE_MAX_NODES 1024  /* version 2: an allocation's node is 0..1023 */
#define TRACE_NO_NODE 0xffffffffu
#define TRACE_EV_KIND 0x0f     /* version 2's kind byte: the event type, */
#define TRACE_EV_NOLOCK 0x10   /* kmalloc_nolock / kfree_nolock (allocations, frees, kfree_rcu) */
#define TRACE_EV_NODE 0x20     /* an allocation on a given node: a varint after the others */

enum trace_kind {
	TRACE_ALLOC = 1, /* kmem_cache_alloc(cache) */
	TRACE_KMALLOC,   /* kmalloc(size) */
	TRACE_FREE,      /* kmem_cache_free(cache, id) */
	TRACE_KFREE,     /* kfree(id) */
	TRACE_KFREE_RCU, /* version 2: kfree_rcu(id): freed by its TRACE_RCU_FREE */
	TRACE_RCU_FREE,  /* version 2: the free of a kfree_rcu'd id after its grace period */
};

struct trace {
	const u8 *data;
	u64 len;
	char source[32];
	u16 version;
	u32 nr_caches, nr_streams;
	u64 nr_events, nr_ids;
};

struct trace_cache {
	char name[32];
	u32 size, align, flags;
};

struct trace_event {
	enum trace_kind kind;
	u64 ts; /* ns from the trace's start */
	u64 id;
	u64 arg; /* the cache (alloc, free) or the size (kmalloc); 0 for the others */
	u32 node; /* allocations: the node asked for, or TRACE_NO_NODE */
	bool nolock;
};

struct trace_cursor {
	const struct trace *t;
	u32 stream;
	const u8 *p, *end;
	u64 i, n, ts;
	bool done; /* trace_analyze: the stream has no events left */
};

/* 0, or -1 with what is wrong in err: not a trace, another version, truncated, too many
 * streams or caches, a cache the kernel cannot create, counts that do not add up. */
int trace_open(struct trace *t, const void *data, u64 len, char *err, size_t errlen);
void trace_cache_get(const struct trace *t, u32 i, struct trace_cache *c);
u64 trace_stream_events(const struct trace *t, u32 s);
void trace_cursor_init(struct trace_cursor *c, const struct trace *t, u32 s);
/* 1: an event in *e; 0: the stream is done; -1: a bad event, what and where in err. */
int trace_next(struct trace_cursor *c, struct trace_event *e, char *err, size_t errlen);

/*
 * What a trace does, found before it is replayed. A free of an id the trace never
 * allocates and a second free of an id are skipped at replay and counted; so are kmallocs
 * of 0 bytes and of more than the page allocator's largest block (max_size). An id
 * allocated twice, and a trace whose streams cannot all finish (a free that waits for an
 * allocation that comes after it on its own stream, or a cycle of such waits) are errors.
 * Version 2: a kfree_rcu hands a live id to RCU (it stays allocated); its rcu_free, which
 * waits for the kfree_rcu as a free waits for its allocation, frees it. A free or a second
 * kfree_rcu of an id handed to RCU is a double free; an rcu_free of an id that no kfree_rcu
 * hands over is an error.
 */
struct trace_summary {
	u64 events, allocs, frees; /* frees: rcu_frees among them */
	u64 free_never_allocated, double_free, size_zero, size_too_big, page_allocs;
	u64 live_at_end, peak_live; /* live_at_end: rcu_pending_at_end among them */
	u64 kfree_rcu, rcu_frees, rcu_pending_at_end, nolock, node_allocs;
	u64 duration_ns; /* the latest event's time: how long the recording took */
};

/* One byte of state per id, from the caller's table (zeroed): TRACE_ID_* bits. */
#define TRACE_ID_ALLOCATED 0x1 /* the trace allocates it somewhere */
#define TRACE_ID_LIVE 0x2
#define TRACE_ID_FREED 0x4
#define TRACE_ID_RCU 0x8          /* a kfree_rcu of it is in the trace */
#define TRACE_ID_RCU_PENDING 0x10 /* handed to RCU, its rcu_free not done yet */
typedef u8 *(*trace_id_state_fn)(void *ctx, u64 id);

/*
 * cursors: nr_streams of them, the caller's. max_size: the largest kmalloc the replay can
 * serve. 0 and *out, or -1 with what and where in err.
 */
int trace_analyze(const struct trace *t, trace_id_state_fn state, void *ctx,
		  struct trace_cursor *cursors, u64 max_size, struct trace_summary *out, char *err,
		  size_t errlen);

#endif
