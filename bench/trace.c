// SPDX-License-Identifier: MIT
/*
 * The slab trace reader (bench/trace.h, docs/traces.md): header, caches, streams, events,
 * and the analysis that finds, before a replay, what it would trip over.
 */
#include "bench/trace.h"
#include "kernel/printk.h"
#include "kernel/string.h"

static const char trace_magic[8] = { 'S', 'L', 'A', 'B', 'T', 'R', 'C', 'E' };

static u16 get16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

static const u8 *cache_at(const struct trace *t, u32 i)
{
	return t->data + TRACE_HEADER_BYTES + (u64)i * TRACE_CACHE_BYTES;
}

static const u8 *stream_at(const struct trace *t, u32 s)
{
	return t->data + TRACE_HEADER_BYTES + (u64)t->nr_caches * TRACE_CACHE_BYTES +
	       (u64)s * TRACE_STREAM_BYTES;
}

void trace_cache_get(const struct trace *t, u32 i, struct trace_cache *c)
{
	const u8 *p = cache_at(t, i);

	memcpy(c->name, p, 31);
	c->name[31] = '\0';
	c->size = get32(p + 32);
	c->align = get32(p + 36);
	c->flags = get32(p + 40);
}

u64 trace_stream_events(const struct trace *t, u32 s)
{
	return get64(stream_at(t, s) + 16);
}

int trace_open(struct trace *t, const void *data, u64 len, char *err, size_t errlen)
{
	const u8 *d = data;
	u64 want, total = 0;
	u16 version;
	u32 flags, hb;

	memset(t, 0, sizeof(*t));
	t->data = d;
	t->len = len;
	if (len < 8 || memcmp(d, trace_magic, 8)) {
		snprintf(err, errlen, "not a slab trace (no SLABTRCE magic at the start)");
		return -1;
	}
	if (len < TRACE_HEADER_BYTES) {
		snprintf(err, errlen, "truncated: %llu bytes, the header alone has %d",
			 (unsigned long long)len, TRACE_HEADER_BYTES);
		return -1;
	}
	version = get16(d + 8);
	t->nr_caches = get16(d + 10);
	t->nr_streams = get32(d + 12);
	t->nr_events = get64(d + 16);
	t->nr_ids = get64(d + 24);
	memcpy(t->source, d + 32, 31);
	t->source[31] = '\0';
	flags = get32(d + 64);
	hb = get32(d + 68);
	if (version < TRACE_MIN_VERSION || version > TRACE_VERSION) {
		snprintf(err, errlen, "format version %u, this kernel reads versions %d and %d",
			 version, TRACE_MIN_VERSION, TRACE_VERSION);
		return -1;
	}
	t->version = version;
	if (flags) {
		snprintf(err, errlen, "header flags %#x: version %u defines none", flags, version);
		return -1;
	}
	if (!t->nr_streams || t->nr_streams > TRACE_MAX_STREAMS) {
		snprintf(err, errlen, "%u streams: the format allows 1..%d", t->nr_streams,
			 TRACE_MAX_STREAMS);
		return -1;
	}
	if (t->nr_caches > TRACE_MAX_CACHES) {
		snprintf(err, errlen, "%u caches: the format allows at most %d", t->nr_caches,
			 TRACE_MAX_CACHES);
		return -1;
	}
	want = TRACE_HEADER_BYTES + (u64)t->nr_caches * TRACE_CACHE_BYTES +
	       (u64)t->nr_streams * TRACE_STREAM_BYTES;
	if (hb != want) {
		snprintf(err, errlen, "header_bytes is %u, want %llu for %u caches and %u streams",
			 hb, (unsigned long long)want, t->nr_caches, t->nr_streams);
		return -1;
	}
	if (len < want) {
		snprintf(err, errlen, "truncated: %llu bytes, the header and its tables have %llu",
			 (unsigned long long)len, (unsigned long long)want);
		return -1;
	}
	for (u32 i = 0; i < t->nr_caches; i++) {
		struct trace_cache c;

		trace_cache_get(t, i, &c);
		if (!c.name[0]) {
			snprintf(err, errlen, "cache %u has no name", i);
			return -1;
		}
		if (!c.size || c.size > TRACE_CACHE_MAX_SIZE) {
			snprintf(err, errlen, "cache %u (%s): object size %u, the kernel takes 1..%d",
				 i, c.name, c.size, TRACE_CACHE_MAX_SIZE);
			return -1;
		}
		if ((c.align & (c.align - 1)) || c.align > 4096) {
			snprintf(err, errlen, "cache %u (%s): alignment %u is not 0 or a power of two "
				 "up to 4096", i, c.name, c.align);
			return -1;
		}
		if (c.flags & ~TRACE_CACHE_FLAGS) {
			snprintf(err, errlen, "cache %u (%s): unknown flags %#x", i, c.name,
				 c.flags & ~TRACE_CACHE_FLAGS);
			return -1;
		}
	}
	for (u32 s = 0; s < t->nr_streams; s++) {
		const u8 *p = stream_at(t, s);
		u64 off = get64(p), bytes = get64(p + 8), n = get64(p + 16);

		if (off < want || off > len || bytes > len - off) {
			snprintf(err, errlen, "truncated: stream %u's %llu bytes at %llu end past the "
				 "file's %llu", s, (unsigned long long)bytes, (unsigned long long)off,
				 (unsigned long long)len);
			return -1;
		}
		total += n;
	}
	if (total != t->nr_events) {
		snprintf(err, errlen, "the streams hold %llu events, the header says %llu",
			 (unsigned long long)total, (unsigned long long)t->nr_events);
		return -1;
	}
	return 0;
}

void trace_cursor_init(struct trace_cursor *c, const struct trace *t, u32 s)
{
	const u8 *p = stream_at(t, s);

	c->t = t;
	c->stream = s;
	c->p = t->data + get64(p);
	c->end = c->p + get64(p + 8);
	c->n = get64(p + 16);
	c->i = 0;
	c->ts = 0;
	c->done = false;
}

static int varint(struct trace_cursor *c, u64 *v, const char *what, char *err, size_t errlen)
{
	unsigned shift = 0;

	*v = 0;
	for (;;) {
		u8 b;

		if (c->p >= c->end) {
			snprintf(err, errlen, "stream %u event %llu: truncated in its %s", c->stream,
				 (unsigned long long)c->i, what);
			return -1;
		}
		b = *c->p++;
		if (shift == 63 && (b & 0x7e)) {
			snprintf(err, errlen, "stream %u event %llu: its %s does not fit 64 bits",
				 c->stream, (unsigned long long)c->i, what);
			return -1;
		}
		*v |= (u64)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
		if (shift > 63) {
			snprintf(err, errlen, "stream %u event %llu: its %s does not fit 64 bits",
				 c->stream, (unsigned long long)c->i, what);
			return -1;
		}
	}
}

static const char *const kind_names[] = {
	[TRACE_ALLOC] = "alloc", [TRACE_KMALLOC] = "kmalloc", [TRACE_FREE] = "free",
	[TRACE_KFREE] = "kfree", [TRACE_KFREE_RCU] = "kfree_rcu", [TRACE_RCU_FREE] = "rcu_free",
};

int trace_next(struct trace_cursor *c, struct trace_event *e, char *err, size_t errlen)
{
	u64 dt, node = TRACE_NO_NODE;
	u8 byte, kind, flags = 0;

	if (c->i == c->n) {
		if (c->p != c->end) {
			snprintf(err, errlen, "stream %u: %llu bytes after its %llu events", c->stream,
				 (unsigned long long)(c->end - c->p), (unsigned long long)c->n);
			return -1;
		}
		return 0;
	}
	if (c->p >= c->end) {
		snprintf(err, errlen, "stream %u event %llu: truncated (the stream ends after %llu "
			 "of %llu events)", c->stream, (unsigned long long)c->i,
			 (unsigned long long)c->i, (unsigned long long)c->n);
		return -1;
	}
	byte = *c->p++;
	kind = byte;
	if (c->t->version >= 2) {
		kind = byte & TRACE_EV_KIND;
		flags = byte & ~TRACE_EV_KIND;
	}
	if (kind < TRACE_ALLOC || kind > (c->t->version >= 2 ? TRACE_RCU_FREE : TRACE_KFREE)) {
		snprintf(err, errlen, "stream %u event %llu: unknown event type %u", c->stream,
			 (unsigned long long)c->i, kind);
		return -1;
	}
	if (flags & ~(TRACE_EV_NOLOCK | TRACE_EV_NODE)) {
		snprintf(err, errlen, "stream %u event %llu: unknown event flags %#x", c->stream,
			 (unsigned long long)c->i, flags & ~(TRACE_EV_NOLOCK | TRACE_EV_NODE));
		return -1;
	}
	if ((flags & TRACE_EV_NODE) && kind != TRACE_ALLOC && kind != TRACE_KMALLOC) {
		snprintf(err, errlen, "stream %u event %llu: a node on a %s (only allocations have "
			 "one)", c->stream, (unsigned long long)c->i, kind_names[kind]);
		return -1;
	}
	if ((flags & TRACE_EV_NOLOCK) && kind == TRACE_RCU_FREE) {
		snprintf(err, errlen, "stream %u event %llu: nolock on an rcu_free (RCU frees it, not "
			 "a caller)", c->stream, (unsigned long long)c->i);
		return -1;
	}
	e->kind = kind;
	e->arg = 0;
	if (varint(c, &dt, "time", err, errlen) || varint(c, &e->id, "id", err, errlen))
		return -1;
	if (kind <= TRACE_FREE &&
	    varint(c, &e->arg, kind == TRACE_KMALLOC ? "size" : "cache", err, errlen))
		return -1;
	if ((flags & TRACE_EV_NODE) && varint(c, &node, "node", err, errlen))
		return -1;
	if (e->id >= c->t->nr_ids) {
		snprintf(err, errlen, "stream %u event %llu: id %llu past the header's %llu ids",
			 c->stream, (unsigned long long)c->i, (unsigned long long)e->id,
			 (unsigned long long)c->t->nr_ids);
		return -1;
	}
	if ((kind == TRACE_ALLOC || kind == TRACE_FREE) && e->arg >= c->t->nr_caches) {
		snprintf(err, errlen, "stream %u event %llu: unknown cache %llu (the trace has %u)",
			 c->stream, (unsigned long long)c->i, (unsigned long long)e->arg,
			 c->t->nr_caches);
		return -1;
	}
	if ((flags & TRACE_EV_NODE) && node >= TRACE_MAX_NODES) {
		snprintf(err, errlen, "stream %u event %llu: node %llu, the format allows 0..%d",
			 c->stream, (unsigned long long)c->i, (unsigned long long)node,
			 TRACE_MAX_NODES - 1);
		return -1;
	}
	e->node = (u32)node;
	e->nolock = flags & TRACE_EV_NOLOCK;
	c->ts += dt;
	e->ts = c->ts;
	c->i++;
	return 1;
}

int trace_analyze(const struct trace *t, trace_id_state_fn state, void *ctx,
		  struct trace_cursor *cursors, u64 max_size, struct trace_summary *out, char *err,
		  size_t errlen)
{
	struct trace_event e;
	u64 live = 0;
	u32 left;
	int r;

	memset(out, 0, sizeof(*out));
	out->events = t->nr_events;
	/* Pass 1: every event read once (any bad one stops here), every allocation noted. */
	for (u32 s = 0; s < t->nr_streams; s++) {
		struct trace_cursor c;

		trace_cursor_init(&c, t, s);
		while ((r = trace_next(&c, &e, err, errlen)) > 0) {
			u8 *st;

			out->duration_ns = MAX(out->duration_ns, e.ts);
			out->nolock += e.nolock;
			if (e.kind == TRACE_KFREE_RCU)
				*state(ctx, e.id) |= TRACE_ID_RCU;
			if (e.kind != TRACE_ALLOC && e.kind != TRACE_KMALLOC)
				continue;
			st = state(ctx, e.id);
			if (*st & TRACE_ID_ALLOCATED) {
				snprintf(err, errlen, "stream %u event %llu: id %llu allocated again (a "
					 "trace gives every allocation a new id)", s,
					 (unsigned long long)(c.i - 1), (unsigned long long)e.id);
				return -1;
			}
			*st |= TRACE_ID_ALLOCATED;
			out->allocs++;
			out->node_allocs += e.node != TRACE_NO_NODE;
			if (e.kind == TRACE_KMALLOC && !e.arg)
				out->size_zero++;
			else if (e.kind == TRACE_KMALLOC && e.arg > max_size)
				out->size_too_big++;
			else if (e.kind == TRACE_KMALLOC && e.arg > 8192)
				out->page_allocs++;
		}
		if (r < 0)
			return -1;
	}
	/*
	 * Pass 2, in an order the replay can take: each stream runs until a free waits for an
	 * allocation not made yet. If every stream left waits, none can go on: a deadlock.
	 */
	for (u32 s = 0; s < t->nr_streams; s++)
		trace_cursor_init(&cursors[s], t, s);
	left = t->nr_streams;
	while (left) {
		bool moved = false;

		for (u32 s = 0; s < t->nr_streams; s++) {
			struct trace_cursor *c = &cursors[s];

			if (c->done)
				continue;
			for (;;) {
				struct trace_cursor save = *c;
				u8 *st;

				r = trace_next(c, &e, err, errlen);
				if (r < 0)
					return -1;
				if (r == 0) {
					c->done = true;
					left--;
					break;
				}
				st = state(ctx, e.id);
				if (e.kind == TRACE_ALLOC || e.kind == TRACE_KMALLOC) {
					*st |= TRACE_ID_LIVE;
					live++;
					out->peak_live = MAX(out->peak_live, live);
				} else if (!(*st & TRACE_ID_ALLOCATED)) {
					out->free_never_allocated++;
				} else if (e.kind == TRACE_RCU_FREE && !(*st & TRACE_ID_RCU)) {
					snprintf(err, errlen, "stream %u event %llu: rcu_free of id %llu, "
						 "which no kfree_rcu hands to RCU", s,
						 (unsigned long long)(c->i - 1),
						 (unsigned long long)e.id);
					return -1;
				} else if ((*st & TRACE_ID_FREED) ||
					   (e.kind != TRACE_RCU_FREE && (*st & TRACE_ID_RCU_PENDING))) {
					out->double_free++;
				} else if (!(*st & TRACE_ID_LIVE) ||
					   (e.kind == TRACE_RCU_FREE && !(*st & TRACE_ID_RCU_PENDING))) {
					*c = save; /* waits for the allocation (the kfree_rcu) */
					break;
				} else if (e.kind == TRACE_KFREE_RCU) {
					*st |= TRACE_ID_RCU_PENDING;
					out->kfree_rcu++;
				} else {
					*st = (u8)((*st & ~(TRACE_ID_LIVE | TRACE_ID_RCU_PENDING)) |
						   TRACE_ID_FREED);
					live--;
					out->frees++;
					out->rcu_frees += e.kind == TRACE_RCU_FREE;
				}
				moved = true;
			}
		}
		if (left && !moved) {
			for (u32 s = 0; s < t->nr_streams; s++) {
				struct trace_cursor *c = &cursors[s];

				if (c->done)
					continue;
				trace_next(c, &e, err, errlen);
				if (e.kind == TRACE_RCU_FREE && (*state(ctx, e.id) & TRACE_ID_LIVE))
					snprintf(err, errlen, "stream %u event %llu: deadlock: the rcu_free "
						 "of id %llu waits for its kfree_rcu, and every stream that "
						 "could make it waits too", s, (unsigned long long)(c->i - 1),
						 (unsigned long long)e.id);
				else
					snprintf(err, errlen, "stream %u event %llu: deadlock: the free of "
						 "id %llu waits for its allocation, and every stream that "
						 "could make it waits too", s, (unsigned long long)(c->i - 1),
						 (unsigned long long)e.id);
				return -1;
			}
		}
	}
	out->live_at_end = live;
	/* each kfree_rcu done made an id pending, each rcu_free done ended one */
	out->rcu_pending_at_end = out->kfree_rcu - out->rcu_frees;
	return 0;
}
