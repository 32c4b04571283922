// SPDX-License-Identifier: MIT
/*
 * build/trace/slabtrace (built by the Makefile; docs/traces.md): the two commands of
 * tools/trace/slabtrace.py that traces of millions of events need, in C.
 *
 *   slabtrace from-linux TEXT -o OUT [--source S]
 *       the text of tracefs's trace file, of trace-cmd report or of perf script with Linux's
 *       kmem events (and RCU's where the capture has them) into a trace. slabtrace.py
 *       from-linux is its reference: the same trace, byte for byte, and the same report
 *       (tests/host/test_trace.sh holds the two against each other), ten times as fast or
 *       more, in the memory its events and objects take (40 and 64 bytes each).
 *   slabtrace check FILE
 *       the kernel's own reader (bench/trace.c, what bench=replay runs before a replay) on
 *       FILE: slabtrace.py check's summary but remote_frees; a bad trace exits 1 with what
 *       and where.
 *
 * Exit codes: 0 good, 1 a bad trace or a failed conversion, 2 bad usage.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/trace.h"

#define MAX_CACHE_SIZE 32768
#define MAX_CPU 65536u /* CPU numbers a text may have */

static const char *prog_file; /* the file named in error messages */

static __attribute__((noreturn, format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "slabtrace: %s: ", prog_file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "slabtrace: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

/* A growable array of any element: v->n elements of `size` bytes. */
#define VEC(T)                                                                                     \
	struct {                                                                                   \
		T *a;                                                                              \
		size_t n, cap;                                                                     \
	}
#define VEC_PUSH(v, x)                                                                             \
	do {                                                                                       \
		if ((v).n == (v).cap) {                                                            \
			(v).cap = (v).cap ? (v).cap * 2 : 1024;                                    \
			(v).a = xrealloc((v).a, (v).cap * sizeof(*(v).a));                         \
		}                                                                                  \
		(v).a[(v).n++] = (x);                                                      \
	} while (0)

/* ---- the characters of Python's re (\s, \w, \d) for ASCII text ---- */

static inline bool ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static inline bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool word(unsigned char c)
{
	return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* ---- strings, interned: 1.. (0: none) ---- */

static struct {
	char *arena;
	size_t used, cap;
	u32 *off, *len; /* [id] */
	u32 n, cap_ids;
	u32 *slot; /* open addressing: ids */
	u32 mask;
} strs;

static u64 hash_bytes(const char *s, size_t n)
{
	u64 h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static const char *str_of(u32 id)
{
	return strs.arena + strs.off[id];
}

static u32 intern(const char *s, size_t n)
{
	u64 h;
	u32 i;

	if (strs.n + 1 >= strs.mask / 2) { /* grow the table (and start it) */
		u32 newmask = strs.mask ? strs.mask * 2 + 1 : 1023;
		u32 *slot = calloc((size_t)newmask + 1, sizeof(u32));

		if (!slot)
			xrealloc(NULL, ~(size_t)0 >> 1);
		for (u32 id = 1; id <= strs.n; id++) {
			u32 j = (u32)hash_bytes(str_of(id), strs.len[id]) & newmask;

			while (slot[j])
				j = (j + 1) & newmask;
			slot[j] = id;
		}
		free(strs.slot);
		strs.slot = slot;
		strs.mask = newmask;
	}
	h = hash_bytes(s, n);
	for (i = (u32)h & strs.mask; strs.slot[i]; i = (i + 1) & strs.mask) {
		u32 id = strs.slot[i];

		if (strs.len[id] == n && !memcmp(str_of(id), s, n))
			return id;
	}
	if (strs.n + 2 > strs.cap_ids) {
		strs.cap_ids = strs.cap_ids ? strs.cap_ids * 2 : 1024;
		strs.off = xrealloc(strs.off, strs.cap_ids * sizeof(u32));
		strs.len = xrealloc(strs.len, strs.cap_ids * sizeof(u32));
	}
	if (strs.used + n + 1 > strs.cap) {
		strs.cap = (strs.used + n + 1) * 2;
		strs.arena = xrealloc(strs.arena, strs.cap);
	}
	memcpy(strs.arena + strs.used, s, n);
	strs.arena[strs.used + n] = '\0';
	strs.n++;
	strs.off[strs.n] = (u32)strs.used;
	strs.len[strs.n] = (u32)n;
	strs.used += n + 1;
	strs.slot[i] = strs.n;
	return strs.n;
}

/* ---- u64 -> u32 maps (open addressing, backward-shift deletion); key 0 is never used ---- */

struct map {
	u64 *key;
	u32 *val;
	size_t mask, n;
};

static size_t map_home(const struct map *m, u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & m->mask;
}

static void map_put(struct map *m, u64 k, u32 v);

static void map_grow(struct map *m)
{
	struct map old = *m;

	m->mask = m->mask ? m->mask * 2 + 1 : 4095;
	m->key = calloc(m->mask + 1, sizeof(u64));
	m->val = calloc(m->mask + 1, sizeof(u32));
	if (!m->key || !m->val)
		xrealloc(NULL, ~(size_t)0 >> 1);
	m->n = 0;
	for (size_t i = 0; old.key && i <= old.mask; i++)
		if (old.key[i])
			map_put(m, old.key[i], old.val[i]);
	free(old.key);
	free(old.val);
}

/* The slot of k, or of the empty slot where it would go. */
static size_t map_find(const struct map *m, u64 k)
{
	size_t i = map_home(m, k);

	while (m->key[i] && m->key[i] != k)
		i = (i + 1) & m->mask;
	return i;
}

static void map_put(struct map *m, u64 k, u32 v)
{
	size_t i;

	if (2 * (m->n + 1) > m->mask)
		map_grow(m);
	i = map_find(m, k);
	if (!m->key[i]) {
		m->key[i] = k;
		m->n++;
	}
	m->val[i] = v;
}

static bool map_get(const struct map *m, u64 k, u32 *v)
{
	size_t i;

	if (!m->mask)
		return false;
	i = map_find(m, k);
	if (!m->key[i])
		return false;
	*v = m->val[i];
	return true;
}

static bool map_del(struct map *m, u64 k, u32 *v)
{
	size_t i, j;

	if (!m->mask)
		return false;
	i = map_find(m, k);
	if (!m->key[i])
		return false;
	*v = m->val[i];
	/* backward shift: move up each later entry of the run that may sit in the hole */
	for (j = (i + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask) {
		size_t h = map_home(m, m->key[j]);

		if (((j - h) & m->mask) >= ((j - i) & m->mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = 0;
	m->n--;
	return true;
}

/* ---- from-linux: the reading ---- */

enum ev_type {
	E_KMALLOC, E_CACHE_ALLOC, /* kmalloc(_node), kmem_cache_alloc(_node) */
	E_KFREE, E_CACHE_FREE,
	E_RCU_CALL, E_RCU_INVOKE, E_RCU_BULK,
};

struct ev {
	u64 ts;
	u64 ptr; /* rcu call and invoke: rhp - func, the object; bulk: nr_records */
	u32 line, site, name, size;
	s32 node;
	u16 cpu;
	u8 type;
};

/* The notes, as slabtrace.py words them (it prints them sorted: so does this). */
enum note {
	N_OVERWRITTEN, N_DROPPED, N_FAILED, N_REALLOC, N_FREE_NULL, N_BEFORE, N_LIVE, N_LEARNED,
	N_BY_SIZE, N_BIG, N_RCU_CALL_BEFORE, N_RCU_FREES, N_RCU_PLACED, N_RCU_UNMATCHED,
	N_RCU_BULK, N_NODE, NR_NOTES
};
static const char *const note_text[NR_NOTES] = {
	[N_OVERWRITTEN] = "overwritten (ring buffer full)",
	[N_DROPPED] = "dropped (reported in the text)",
	[N_FAILED] = "failed allocations (NULL)",
	[N_REALLOC] = "allocations of a pointer still live (its free was not traced)",
	[N_FREE_NULL] = "frees of NULL",
	[N_BEFORE] = "frees of objects allocated before the trace began (skipped)",
	[N_LIVE] = "objects live at the end (freed at the end of the replay)",
	[N_LEARNED] = "cache names learned from other objects' frees",
	[N_BY_SIZE] = "cache objects whose cache is known only by size",
	[N_BIG] = "cache objects past 32 KiB, made kmallocs",
	[N_RCU_CALL_BEFORE] = "kfree_rcu calls of objects allocated before the trace began (skipped)",
	[N_RCU_FREES] = "frees after an RCU grace period (rcu_invoke_kvfree_callback)",
	[N_RCU_PLACED] = "kfree_rcu calls not traced, placed at their free (tree RCU has no "
			 "tracepoint for the call)",
	[N_RCU_UNMATCHED] = "rcu_invoke_kvfree_callback without a kfree of its object on that CPU "
			    "(vmalloc'd, or not traced)",
	[N_RCU_BULK] = "objects freed in bulk after an RCU grace period (not named, not in the "
		       "trace)",
	[N_NODE] = "allocations on a given NUMA node",
};
static u64 notes[NR_NOTES];

static VEC(struct ev) evs;
static u32 site_unknown; /* "?" */
static u32 cpu_max_seen;
static bool cpu_seen[MAX_CPU];

/* A line's start, its length and its number, for the messages. */
struct line {
	const char *s;
	size_t n;
	u64 no;
};

static __attribute__((noreturn)) void line_fail(const struct line *l, const char *what)
{
	fail("line %llu: %s", (unsigned long long)l->no, what);
}

/* digits at p (at least one): the end, or NULL */
static const char *digits(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && digit((unsigned char)*q))
		q++;
	return q > p ? q : NULL;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && ws((unsigned char)*p))
		p++;
	return p;
}

/* \d+\.\d+: the end, and the time in ns (slabtrace.py's _ns) */
static const char *timestamp(const char *p, const char *e, u64 *ns)
{
	const char *q = digits(p, e), *f;
	u64 sec = 0, frac = 0;
	int n = 0;

	if (!q || q >= e || *q != '.' || !(f = digits(q + 1, e)))
		return NULL;
	for (const char *r = p; r < q; r++)
		sec = sec * 10 + (u64)(*r - '0');
	for (const char *r = q + 1; r < f && n < 9; r++, n++)
		frac = frac * 10 + (u64)(*r - '0');
	for (; n < 9; n++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return f;
}

/* The parts of a line that the tracers' formats have in common. */
struct fields {
	u64 cpu, ts;
	const char *ev, *ev_end; /* the event's name, after its last ':' */
	const char *args;
};

/* "[CPU]" at b (b[0] == '['): the CPU and the end past ']', or NULL. */
static const char *cpu_at(const char *b, const char *e, u64 *cpu)
{
	const char *q = digits(b + 1, e);

	if (!q || q >= e || *q != ']')
		return NULL;
	*cpu = 0;
	for (const char *r = b + 1; r < q; r++)
		*cpu = *cpu * 10 + (u64)(*r - '0');
	if (q - b > 12)
		*cpu = ~0ull;
	return q + 1;
}

/* perf script: TASK PID [CPU] SECS.USECS: (PERIOD )?(kmem|rcu):EVENT: ARGS */
static bool match_perf(const char *s, const char *e, struct fields *f)
{
	for (const char *b = memchr(s, '[', (size_t)(e - s)); b;
	     b = b + 1 < e ? memchr(b + 1, '[', (size_t)(e - b - 1)) : NULL) {
		const char *k = b, *d, *p, *q, *w;

		while (k > s && ws((unsigned char)k[-1]))
			k--;
		if (k == b)
			continue;
		d = k;
		while (d > s && digit((unsigned char)d[-1]))
			d--;
		if (d == k || d - s < 2 || !ws((unsigned char)d[-1]))
			continue;
		if (!(p = cpu_at(b, e, &f->cpu)))
			continue;
		q = skip_ws(p, e);
		if (q == p || !(q = timestamp(q, e, &f->ts)) || q >= e || *q != ':')
			continue;
		p = q + 1;
		q = skip_ws(p, e);
		if (q == p)
			continue;
		/* (?:\d+\s+)? */
		if ((w = digits(q, e)) && w < e && ws((unsigned char)*w)) {
			const char *r = skip_ws(w, e);

			if ((size_t)(e - r) >= 4 &&
			    (!strncmp(r, "kmem:", MIN((size_t)(e - r), 5)) || !strncmp(r, "rcu:", 4)))
				q = r;
		}
		if ((size_t)(e - q) >= 5 && !memcmp(q, "kmem:", 5))
			q += 5;
		else if ((size_t)(e - q) >= 4 && !memcmp(q, "rcu:", 4))
			q += 4;
		else
			continue;
		w = q;
		while (w < e && word((unsigned char)*w))
			w++;
		if (w == q || w >= e || *w != ':')
			continue;
		f->ev = q;
		f->ev_end = w;
		f->args = skip_ws(w + 1, e);
		return true;
	}
	return false;
}

/* tracefs, trace-cmd report: TASK-PID (TGID)? [CPU] FLAGS? SECS.USECS: EVENT: ARGS */
static bool match_tracefs(const char *s, const char *e, struct fields *f)
{
	for (const char *b = memchr(s, '[', (size_t)(e - s)); b;
	     b = b + 1 < e ? memchr(b + 1, '[', (size_t)(e - b - 1)) : NULL) {
		const char *k = b, *d, *p, *q, *r, *colon;

		while (k > s && ws((unsigned char)k[-1]))
			k--;
		if (k == b)
			continue;
		if (k > s && k[-1] == ')') { /* (\s*[\d-]+\) */
			const char *o = k - 1;

			while (o > s && (digit((unsigned char)o[-1]) || o[-1] == '-'))
				o--;
			if (o == k - 1)
				continue;
			while (o > s && ws((unsigned char)o[-1]))
				o--;
			if (o == s || o[-1] != '(')
				continue;
			k = o - 1;
			o = k;
			while (k > s && ws((unsigned char)k[-1]))
				k--;
			if (k == o)
				continue;
		}
		d = k;
		while (d > s && digit((unsigned char)d[-1]))
			d--;
		if (d == k || d - s < 2 || d[-1] != '-')
			continue;
		if (!(p = cpu_at(b, e, &f->cpu)))
			continue;
		q = skip_ws(p, e);
		if (q == p)
			continue;
		/* (?:[^\s:]+\s+)? then the time: with the flags first, then without */
		r = q;
		while (r < e && !ws((unsigned char)*r) && *r != ':')
			r++;
		if (r > q && r < e && ws((unsigned char)*r) &&
		    (p = timestamp(skip_ws(r, e), e, &f->ts)) && p < e && *p == ':')
			q = p;
		else if ((p = timestamp(q, e, &f->ts)) && p < e && *p == ':')
			q = p;
		else
			continue;
		p = q + 1;
		q = skip_ws(p, e);
		if (q == p)
			continue;
		/* [\w:]+ up to its last ':' */
		r = q;
		colon = NULL;
		while (r < e && (word((unsigned char)*r) || *r == ':')) {
			if (*r == ':' && r > q)
				colon = r;
			r++;
		}
		if (!colon)
			continue;
		f->ev = q;
		for (const char *c = q; c < colon; c++)
			if (*c == ':')
				f->ev = c + 1;
		f->ev_end = colon;
		f->args = skip_ws(colon + 1, e);
		return true;
	}
	return false;
}

/* The arguments slabtrace.py reads, as its (\w+)=(\S+) finds them (the last one wins). */
enum arg { A_PTR, A_SITE, A_NAME, A_BYTES, A_NODE, A_RHP, A_FUNC, A_NR, NR_ARGS };
static const char *const arg_names[NR_ARGS] = { "ptr", "call_site", "name", "bytes_req", "node",
						"rhp", "func", "nr_records" };

struct span {
	const char *s;
	size_t n;
};

static void find_args(const char *p, const char *e, struct span *a)
{
	memset(a, 0, NR_ARGS * sizeof(*a));
	while (p < e) {
		const char *eq = memchr(p, '=', (size_t)(e - p)), *k, *v;

		if (!eq)
			return;
		k = eq;
		while (k > p && word((unsigned char)k[-1]))
			k--;
		v = eq + 1;
		while (v < e && !ws((unsigned char)*v))
			v++;
		if (k == eq || v == eq + 1) {
			p = eq + 1;
			continue;
		}
		for (int i = 0; i < NR_ARGS; i++)
			if ((size_t)(eq - k) == strlen(arg_names[i]) &&
			    !memcmp(k, arg_names[i], (size_t)(eq - k))) {
				a[i].s = eq + 1;
				a[i].n = (size_t)(v - eq - 1);
			}
		p = v;
	}
}

static char msg[600];

/* slabtrace.py's line.strip()[:100] */
static int stripped(const char *s, const char *e, const char **t)
{
	*t = skip_ws(s, e);
	while (e > *t && ws((unsigned char)e[-1]))
		e--;
	return (int)MIN((size_t)(e - *t), (size_t)100);
}

/* Python's int(v, 16): [+-]?(0x)?hex digits, '_' between them */
static u64 ptr_value(const struct line *l, const char *key, struct span v)
{
	const char *p = v.s, *e = v.s + v.n;
	u64 x = 0;
	bool any = false, neg = false;

	if (p < e && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < e; p++) {
		int c = (unsigned char)*p, d;

		if (c == '_' && any && p + 1 < e && p[1] != '_')
			continue;
		if (digit((unsigned char)c))
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		x = x << 4 | (u64)d;
		any = true;
	}
	if (p == e && any)
		return neg ? -x : x;
	if ((v.n == 6 && !memcmp(v.s, "(null)", 6)) || (v.n == 5 && !memcmp(v.s, "(nil)", 5)))
		return 0;
	snprintf(msg, sizeof(msg), "%s=%.*s is not an address (tracefs prints (____ptrval____) "
		 "until the key of %%p is ready: boot with random.trust_cpu=on)", key, (int)v.n, v.s);
	line_fail(l, msg);
}

/* Python's int(v, 10), within s64 */
static s64 num_value(const struct line *l, const char *key, struct span v)
{
	const char *p = v.s, *e = v.s + v.n;
	bool neg = false, any = false;
	u64 x = 0;

	if (p < e && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	for (; p < e; p++) {
		if (*p == '_' && any && p + 1 < e && digit((unsigned char)p[1]))
			continue;
		if (!digit((unsigned char)*p) || x > (u64)1 << 58)
			break;
		x = x * 10 + (u64)(*p - '0');
		any = true;
	}
	if (p != e || !any) {
		snprintf(msg, sizeof(msg), "%s=%.*s is not a number", key, (int)v.n, v.s);
		line_fail(l, msg);
	}
	return neg ? -(s64)x : (s64)x;
}

/* ")? DROPPED|LOST": (\d+)\s+(?:EVENTS DROPPED|EVENTS LOST)|LOST\s+(\d+)\s+EVENTS, any case */
static bool ci_at(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(e - p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((p[i] | 0x20) != (w[i] | 0x20))
			return false;
	return true;
}

static bool dropped(const char *s, const char *e, u64 *count)
{
	for (const char *p = s; p < e; p++) {
		const char *q, *r;

		if (digit((unsigned char)*p) && (p == s || !digit((unsigned char)p[-1]))) {
			q = digits(p, e);
			r = skip_ws(q, e);
			if (r > q && (ci_at(r, e, "EVENTS DROPPED") || ci_at(r, e, "EVENTS LOST"))) {
				*count = strtoull(p, NULL, 10);
				return true;
			}
		}
		if (ci_at(p, e, "LOST")) {
			q = skip_ws(p + 4, e);
			if (q > p + 4 && (r = digits(q, e))) {
				const char *t = skip_ws(r, e);

				if (t > r && ci_at(t, e, "EVENTS")) {
					*count = strtoull(q, NULL, 10);
					return true;
				}
			}
		}
	}
	return false;
}

static void header_line(const char *s, const char *e)
{
	static const char key[] = "entries-in-buffer/entries-written:";
	const char *p = memmem(s, (size_t)(e - s), key, sizeof(key) - 1), *q, *r;

	if (!p)
		return;
	p = skip_ws(p + sizeof(key) - 1, e);
	if (!(q = digits(p, e)) || q >= e || *q != '/' || !(r = digits(q + 1, e)))
		return;
	u64 a = strtoull(p, NULL, 10), b = strtoull(q + 1, NULL, 10);

	if (a < b)
		notes[N_OVERWRITTEN] += b - a;
}

static bool ev_is(const struct fields *f, const char *name)
{
	size_t n = strlen(name);

	return (size_t)(f->ev_end - f->ev) == n && !memcmp(f->ev, name, n);
}

static void one_line(const struct line *l)
{
	const char *s = l->s, *e = l->s + l->n;
	struct span a[NR_ARGS];
	struct fields f;
	struct ev ev = { 0 };
	int type;

	if (l->n && s[0] == '#') {
		header_line(s, e);
		return;
	}
	if (!match_perf(s, e, &f) && !match_tracefs(s, e, &f)) {
		u64 n;

		if (dropped(s, e, &n))
			notes[N_DROPPED] += n;
		return;
	}
	if (ev_is(&f, "kmalloc") || ev_is(&f, "kmalloc_node"))
		type = E_KMALLOC;
	else if (ev_is(&f, "kmem_cache_alloc") || ev_is(&f, "kmem_cache_alloc_node"))
		type = E_CACHE_ALLOC;
	else if (ev_is(&f, "kfree"))
		type = E_KFREE;
	else if (ev_is(&f, "kmem_cache_free"))
		type = E_CACHE_FREE;
	else if (ev_is(&f, "rcu_kvfree_callback"))
		type = E_RCU_CALL;
	else if (ev_is(&f, "rcu_invoke_kvfree_callback"))
		type = E_RCU_INVOKE;
	else if (ev_is(&f, "rcu_invoke_kfree_bulk_callback"))
		type = E_RCU_BULK;
	else
		return;
	if (f.cpu >= MAX_CPU)
		line_fail(l, "a CPU number past 65535");
	find_args(f.args, e, a);
	ev.ts = f.ts;
	ev.line = (u32)l->no;
	ev.type = (u8)type;
	ev.node = -1;
	if (type <= E_CACHE_FREE) {
		if (!a[A_PTR].s) {
			const char *t;
			int n = stripped(s, e, &t);

			snprintf(msg, sizeof(msg), "%.*s without ptr=: %.*s",
				 (int)(f.ev_end - f.ev), f.ev, n, t);
			line_fail(l, msg);
		}
		ev.ptr = ptr_value(l, "ptr", a[A_PTR]);
		ev.site = a[A_SITE].s ? intern(a[A_SITE].s, a[A_SITE].n) : site_unknown;
		ev.name = a[A_NAME].s ? intern(a[A_NAME].s, a[A_NAME].n) : 0;
		if (type <= E_CACHE_ALLOC) {
			s64 size = a[A_BYTES].s ? num_value(l, "bytes_req", a[A_BYTES]) : 0;
			s64 node = a[A_NODE].s ? num_value(l, "node", a[A_NODE]) : -1;

			if (size < 0 || size > 0xffffffffll)
				line_fail(l, "bytes_req out of range");
			if (node >= TRACE_MAX_NODES) {
				snprintf(msg, sizeof(msg), "node=%lld, the format allows 0..%d",
					 (long long)node, TRACE_MAX_NODES - 1);
				line_fail(l, msg);
			}
			ev.size = (u32)size;
			ev.node = node < 0 ? -1 : (s32)node;
		}
	} else if (type == E_RCU_BULK) {
		ev.ptr = a[A_NR].s ? (u64)num_value(l, "nr_records", a[A_NR]) : 0;
	} else {
		for (int k = A_RHP; k <= A_FUNC; k++)
			if (!a[k].s) {
				const char *t;
				int n = stripped(s, e, &t);

				snprintf(msg, sizeof(msg), "%.*s without %s=: %.*s",
					 (int)(f.ev_end - f.ev), f.ev, arg_names[k], n, t);
				line_fail(l, msg);
			}
		ev.ptr = ptr_value(l, "rhp", a[A_RHP]) - (u64)num_value(l, "func", a[A_FUNC]);
	}
	if (!cpu_seen[f.cpu]) {
		cpu_seen[f.cpu] = true;
		cpu_max_seen = MAX(cpu_max_seen, (u32)f.cpu);
	}
	ev.cpu = (u16)f.cpu;
	VEC_PUSH(evs, ev);
}

/* ---- from-linux: objects, caches, the trace ---- */

enum { O_KMALLOC, O_CACHE };
enum { F_NONE, F_CACHE_FREE, F_KFREE, F_RCU };

struct obj {
	u64 alloc_ts, call_ts, free_ts;
	u32 site, name, freed_as, size, cache;
	s32 node;
	u16 alloc_cpu, call_cpu, free_cpu;
	u8 kind, has_call, free_kind;
};

static VEC(struct obj) objs;

/* What frees of kmem_cache_free name= say about (call site, size): names and counts, in
 * the order first seen (slabtrace.py's Counter.most_common takes the first on a tie). */
struct lname {
	u32 name, count, next;
};
static VEC(struct lname) lnames; /* [0] unused */
static struct map learn;         /* site << 32 | size -> the first lname */

static void learn_name(u32 site, u32 size, u32 name)
{
	u64 key = (u64)site << 32 | size;
	u32 i, last = 0;

	if (!lnames.n)
		VEC_PUSH(lnames, ((struct lname){ 0, 0, 0 }));
	if (map_get(&learn, key, &i)) {
		for (; i; last = i, i = lnames.a[i].next)
			if (lnames.a[i].name == name) {
				lnames.a[i].count++;
				return;
			}
		VEC_PUSH(lnames, ((struct lname){ name, 1, 0 }));
		lnames.a[last].next = (u32)(lnames.n - 1);
		return;
	}
	VEC_PUSH(lnames, ((struct lname){ name, 1, 0 }));
	map_put(&learn, key, (u32)(lnames.n - 1));
}

static u32 learned_name(u32 site, u32 size)
{
	u32 i, best = 0, best_count = 0;

	if (!map_get(&learn, (u64)site << 32 | size, &i))
		return 0;
	for (; i; i = lnames.a[i].next)
		if (lnames.a[i].count > best_count) {
			best = lnames.a[i].name;
			best_count = lnames.a[i].count;
		}
	return best;
}

/* The trace being written: TraceWriter's state. */
struct stream {
	u8 *buf;
	size_t len, cap;
	u64 count, last_ts;
};
static struct stream *streams;
static u32 nr_streams;
static struct {
	char name[48]; /* 31 bytes of it in the file */
	u32 size;
} caches[TRACE_MAX_CACHES];
static u32 nr_caches;
static struct map cache_key;   /* truncated name << 32 | size -> cache + 1 */
static struct map name_used;   /* truncated name -> 1: a cache has it */
static bool v2;

static inline void put_byte(struct stream *st, u8 b)
{
	if (st->len == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 1 << 16;
		st->buf = xrealloc(st->buf, st->cap);
	}
	st->buf[st->len++] = b;
}

static inline void put_varint(struct stream *st, u64 v)
{
	while (v >= 0x80) {
		put_byte(st, (u8)(v | 0x80));
		v >>= 7;
	}
	put_byte(st, (u8)v);
}

static void emit(u32 s, int kind, u64 ts, u64 id, u64 arg, s32 node)
{
	struct stream *st = &streams[s];
	u64 dt = ts > st->last_ts ? ts - st->last_ts : 0;
	u8 flags = node >= 0 ? TRACE_EV_NODE : 0;

	st->last_ts += dt;
	if (flags || kind > TRACE_KFREE)
		v2 = true;
	put_byte(st, (u8)(kind | flags));
	put_varint(st, dt);
	put_varint(st, id);
	if (kind <= TRACE_FREE)
		put_varint(st, arg);
	if (node >= 0)
		put_varint(st, (u64)node);
	st->count++;
}

static u32 cache_of(struct obj *o)
{
	u32 name = o->name ? o->name : o->freed_as, tname, size = MAX(o->size, 1u), v;
	char buf[64];
	u64 key;

	if (!name) {
		name = learned_name(o->site, o->size);
		if (name) {
			notes[N_LEARNED]++;
		} else {
			snprintf(buf, sizeof(buf), "size-%u", o->size);
			name = intern(buf, strlen(buf));
			notes[N_BY_SIZE]++;
		}
	}
	tname = strs.len[name] > 31 ? intern(str_of(name), 31) : name;
	key = (u64)tname << 32 | size;
	if (map_get(&cache_key, key, &v))
		return v - 1;
	if (nr_caches == TRACE_MAX_CACHES)
		fail("more than %d caches", TRACE_MAX_CACHES);
	if (map_get(&name_used, tname, &v))
		snprintf(caches[nr_caches].name, sizeof(caches[0].name), "%.24s-%u", str_of(tname),
			 size);
	else
		snprintf(caches[nr_caches].name, sizeof(caches[0].name), "%s", str_of(tname));
	map_put(&name_used, tname, 1);
	caches[nr_caches].size = MIN(size, (u32)MAX_CACHE_SIZE);
	map_put(&cache_key, key, nr_caches + 1);
	return nr_caches++;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct happen {
	u64 ts;
	u64 order; /* phase << 32 | object */
};

static int cmp_happen(const void *a, const void *b)
{
	const struct happen *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char *read_whole(const char *path, size_t *len)
{
	struct stat sb;
	int fd = open(path, O_RDONLY);
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (fd < 0)
		fail("%s", strerror(errno));
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode)) {
		void *p;

		*len = (size_t)sb.st_size;
		if (!*len) {
			close(fd);
			return "";
		}
		p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			fail("%s", strerror(errno));
		madvise(p, *len, MADV_SEQUENTIAL);
		close(fd);
		return p;
	}
	for (;;) {
		ssize_t r;

		if (n == cap)
			buf = xrealloc(buf, cap = cap ? cap * 2 : 1 << 20);
		r = read(fd, buf + n, cap - n);
		if (r < 0)
			fail("%s", strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static int from_linux(const char *in, const char *out, const char *source)
{
	size_t len, nlines = 0;
	const char *text = read_whole(in, &len), *p = text, *end = text + len;
	struct map live = { 0 };
	static u64 rcu_pend[MAX_CPU];
	static bool rcu_pend_set[MAX_CPU];
	static u32 stream_of[MAX_CPU];
	VEC(struct happen) happen = { 0 };
	bool any_kmem = false;
	u64 t0;
	FILE *f;

	site_unknown = intern("?", 1);
	/* Lines as Python's text mode splits them: \n, \r\n and a lone \r end one. */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *cr = memchr(p, '\r', (size_t)(le - p)), *next;
		struct line l;

		if (cr && cr + 1 < le) { /* a lone \r */
			l.n = (size_t)(cr - p);
			next = cr + 1;
		} else {
			l.n = (size_t)((cr ? cr : le) - p);
			next = nl ? nl + 1 : end;
		}
		l.s = p;
		l.no = ++nlines;
		one_line(&l);
		p = next;
	}
	for (size_t i = 0; i < evs.n; i++)
		if (evs.a[i].type <= E_CACHE_FREE) {
			any_kmem = true;
			break;
		}
	if (!any_kmem)
		fail("no kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc or kmem:kmem_cache_free "
		     "events in the text");
	for (size_t i = 1; i < evs.n; i++)
		if (evs.a[i].ts < evs.a[i - 1].ts) {
			qsort(evs.a, evs.n, sizeof(*evs.a), cmp_ev);
			break;
		}
	for (u32 c = 0; c <= cpu_max_seen; c++)
		if (cpu_seen[c])
			stream_of[c] = nr_streams++;
	if (nr_streams > TRACE_MAX_STREAMS)
		fail("%u CPUs: the format allows %d streams", nr_streams, TRACE_MAX_STREAMS);
	t0 = evs.a[0].ts;

	/* Pass 1: objects (pointer lifetimes) and what their frees say about their caches. */
	for (size_t i = 0; i < evs.n; i++) {
		const struct ev *e = &evs.a[i];
		u32 oi;

		switch (e->type) {
		case E_KMALLOC:
		case E_CACHE_ALLOC: {
			struct obj o = { 0 };

			if (e->ptr <= 16) {
				notes[N_FAILED]++;
				break;
			}
			o.kind = e->type == E_KMALLOC ? O_KMALLOC : O_CACHE;
			o.size = e->size;
			o.site = e->site;
			o.name = e->name;
			o.node = e->node;
			o.alloc_ts = e->ts;
			o.alloc_cpu = e->cpu;
			notes[N_NODE] += e->node >= 0;
			if (map_get(&live, e->ptr, &oi))
				notes[N_REALLOC]++;
			map_put(&live, e->ptr, (u32)objs.n);
			VEC_PUSH(objs, o);
			break;
		}
		case E_RCU_CALL:
			if (!map_get(&live, e->ptr, &oi)) {
				notes[N_RCU_CALL_BEFORE]++;
			} else if (!objs.a[oi].has_call) {
				objs.a[oi].has_call = 1;
				objs.a[oi].call_ts = e->ts;
				objs.a[oi].call_cpu = e->cpu;
			}
			break;
		case E_RCU_INVOKE:
			if (rcu_pend_set[e->cpu])
				notes[N_RCU_UNMATCHED]++;
			rcu_pend_set[e->cpu] = true;
			rcu_pend[e->cpu] = e->ptr;
			break;
		case E_RCU_BULK:
			notes[N_RCU_BULK] += e->ptr;
			break;
		default: { /* E_KFREE, E_CACHE_FREE */
			bool pending = rcu_pend_set[e->cpu];
			struct obj *o;

			if (e->ptr <= 16) {
				notes[N_FREE_NULL]++;
				break;
			}
			rcu_pend_set[e->cpu] = false;
			if (pending && rcu_pend[e->cpu] != e->ptr)
				notes[N_RCU_UNMATCHED]++;
			if (!map_del(&live, e->ptr, &oi)) {
				notes[N_BEFORE]++;
				break;
			}
			o = &objs.a[oi];
			if ((pending && rcu_pend[e->cpu] == e->ptr) || o->has_call) {
				o->free_kind = F_RCU;
				notes[N_RCU_FREES]++;
				if (!o->has_call) {
					o->has_call = 1;
					o->call_ts = e->ts;
					o->call_cpu = e->cpu;
					notes[N_RCU_PLACED]++;
				}
			} else {
				o->free_kind = e->type == E_CACHE_FREE ? F_CACHE_FREE : F_KFREE;
			}
			o->free_ts = e->ts;
			o->free_cpu = e->cpu;
			if (e->type == E_CACHE_FREE && e->name && o->kind == O_CACHE) {
				o->freed_as = e->name;
				learn_name(o->site, o->size, e->name);
			}
		}
		}
	}
	for (u32 c = 0; c <= cpu_max_seen; c++)
		notes[N_RCU_UNMATCHED] += rcu_pend_set[c];
	notes[N_LIVE] += live.n;
	free(live.key);
	free(live.val);
	free(evs.a);

	/* Pass 2: events in time order (at one time: allocations, kfree_rcu calls, frees);
	 * the objects' ids are their order of allocation. */
	streams = calloc(nr_streams, sizeof(*streams));
	happen.cap = objs.n * 2 + 16;
	happen.a = xrealloc(NULL, happen.cap * sizeof(*happen.a));
	for (size_t i = 0; i < objs.n; i++) {
		const struct obj *o = &objs.a[i];

		VEC_PUSH(happen, ((struct happen){ o->alloc_ts, (u64)0 << 32 | i }));
		if (o->has_call)
			VEC_PUSH(happen, ((struct happen){ o->call_ts, (u64)1 << 32 | i }));
		if (o->free_kind)
			VEC_PUSH(happen, ((struct happen){ o->free_ts, (u64)2 << 32 | i }));
	}
	qsort(happen.a, happen.n, sizeof(*happen.a), cmp_happen);
	for (size_t h = 0; h < happen.n; h++) {
		u64 id = (u32)happen.a[h].order, ts = happen.a[h].ts - t0;
		struct obj *o = &objs.a[id];

		switch (happen.a[h].order >> 32) {
		case 0:
			if (o->kind == O_CACHE && o->size > MAX_CACHE_SIZE) {
				notes[N_BIG]++;
				o->kind = O_KMALLOC;
			}
			if (o->kind == O_KMALLOC) {
				emit(stream_of[o->alloc_cpu], TRACE_KMALLOC, ts, id, o->size, o->node);
			} else {
				o->cache = cache_of(o);
				emit(stream_of[o->alloc_cpu], TRACE_ALLOC, ts, id, o->cache, o->node);
			}
			break;
		case 1:
			emit(stream_of[o->call_cpu], TRACE_KFREE_RCU, ts, id, 0, -1);
			break;
		default:
			if (o->free_kind == F_RCU)
				emit(stream_of[o->free_cpu], TRACE_RCU_FREE, ts, id, 0, -1);
			else if (o->kind == O_CACHE)
				emit(stream_of[o->free_cpu], TRACE_FREE, ts, id, o->cache, -1);
			else
				emit(stream_of[o->free_cpu], TRACE_KFREE, ts, id, 0, -1);
		}
	}
	free(happen.a);

	/* The file: header, caches, streams, events (TraceWriter.to_bytes). */
	{
		u8 hdr[TRACE_HEADER_BYTES] = { 0 };
		u64 nr_events = 0, off;
		u32 hb = TRACE_HEADER_BYTES + nr_caches * TRACE_CACHE_BYTES +
			 nr_streams * TRACE_STREAM_BYTES;

		for (u32 s = 0; s < nr_streams; s++)
			nr_events += streams[s].count;
#define PUT(p, v, n)                                                                               \
	do {                                                                                       \
		u64 x_ = (v);                                                                      \
		for (int k_ = 0; k_ < (n); k_++)                                                   \
			(p)[k_] = (u8)(x_ >> (8 * k_));                                            \
	} while (0)
		memcpy(hdr, "SLABTRCE", 8);
		PUT(hdr + 8, v2 ? 2 : 1, 2);
		PUT(hdr + 10, nr_caches, 2);
		PUT(hdr + 12, nr_streams, 4);
		PUT(hdr + 16, nr_events, 8);
		PUT(hdr + 24, objs.n, 8);
		memcpy(hdr + 32, source, MIN(strlen(source), (size_t)31));
		PUT(hdr + 68, hb, 4);
		f = fopen(out, "wb");
		if (!f) {
			prog_file = out;
			fail("%s", strerror(errno));
		}
		fwrite(hdr, 1, sizeof(hdr), f);
		for (u32 c = 0; c < nr_caches; c++) {
			u8 ce[TRACE_CACHE_BYTES] = { 0 };

			memcpy(ce, caches[c].name, MIN(strlen(caches[c].name), (size_t)31));
			PUT(ce + 32, caches[c].size, 4);
			fwrite(ce, 1, sizeof(ce), f);
		}
		off = hb;
		for (u32 s = 0; s < nr_streams; s++) {
			u8 se[TRACE_STREAM_BYTES];

			PUT(se, off, 8);
			PUT(se + 8, streams[s].len, 8);
			PUT(se + 16, streams[s].count, 8);
			fwrite(se, 1, sizeof(se), f);
			off += streams[s].len;
		}
		for (u32 s = 0; s < nr_streams; s++)
			fwrite(streams[s].buf, 1, streams[s].len, f);
		if (fclose(f)) {
			prog_file = out;
			fail("%s", strerror(errno));
		}
		printf("slabtrace: %s: %u streams (CPUs), %u caches, %llu events, %llu objects\n", out,
		       nr_streams, nr_caches, (unsigned long long)nr_events,
		       (unsigned long long)objs.n);
	}
	{
		int order[NR_NOTES];

		for (int i = 0; i < NR_NOTES; i++)
			order[i] = i;
		for (int i = 1; i < NR_NOTES; i++) /* by their text, as slabtrace.py sorts them */
			for (int j = i; j > 0 && strcmp(note_text[order[j - 1]], note_text[order[j]]) > 0;
			     j--) {
				int t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (int i = 0; i < NR_NOTES; i++)
			if (notes[order[i]])
				printf("  %s: %llu\n", note_text[order[i]],
				       (unsigned long long)notes[order[i]]);
	}
	return 0;
}

/* ---- check: the kernel's reader ---- */

static u8 *id_states;

static u8 *id_state(void *ctx, u64 id)
{
	return &id_states[id];
}

static int check(const char *path)
{
	static char err[512];
	struct trace_summary sum;
	struct trace_cursor *cur;
	struct trace t;
	size_t len;
	const char *data = read_whole(path, &len);

	if (trace_open(&t, data, len, err, sizeof(err)))
		fail("%s", err);
	id_states = calloc(t.nr_ids ? t.nr_ids : 1, 1);
	cur = calloc(t.nr_streams, sizeof(*cur));
	if (!id_states || !cur)
		fail("no memory for %llu ids", (unsigned long long)t.nr_ids);
	if (trace_analyze(&t, id_state, NULL, cur, 4096ull << 10, &sum, err, sizeof(err)))
		fail("%s", err);
	printf("%s: version %u, source %s, %u streams, %u caches, %llu events, %llu ids\n", path,
	       t.version, t.source, t.nr_streams, t.nr_caches, (unsigned long long)t.nr_events,
	       (unsigned long long)t.nr_ids);
	printf("  allocs %llu, frees %llu, live_at_end %llu, page_allocs %llu\n",
	       (unsigned long long)sum.allocs, (unsigned long long)sum.frees,
	       (unsigned long long)sum.live_at_end, (unsigned long long)sum.page_allocs);
	if (t.version >= 2)
		printf("  kfree_rcu %llu, rcu_frees %llu, rcu_pending_at_end %llu, nolock %llu, "
		       "node_allocs %llu\n", (unsigned long long)sum.kfree_rcu,
		       (unsigned long long)sum.rcu_frees, (unsigned long long)sum.rcu_pending_at_end,
		       (unsigned long long)sum.nolock, (unsigned long long)sum.node_allocs);
	if (sum.free_never_allocated || sum.double_free || sum.size_zero || sum.size_too_big) {
		const char *sep = "";

		printf("  skipped at replay: ");
		if (sum.free_never_allocated)
			printf("%sfree_never_allocated %llu", sep,
			       (unsigned long long)sum.free_never_allocated), sep = ", ";
		if (sum.double_free)
			printf("%sdouble_free %llu", sep, (unsigned long long)sum.double_free), sep = ", ";
		if (sum.size_zero)
			printf("%ssize_zero %llu", sep, (unsigned long long)sum.size_zero), sep = ", ";
		if (sum.size_too_big)
			printf("%ssize_too_big %llu", sep, (unsigned long long)sum.size_too_big);
		printf("\n");
	}
	return 0;
}

static __attribute__((noreturn)) void usage(void)
{
	fprintf(stderr, "usage: slabtrace from-linux TEXT -o OUT [--source S]\n"
			"       slabtrace check FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "check")) {
		prog_file = argv[2];
		return check(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "from-linux")) {
		const char *in = argv[2], *out = NULL, *source = NULL;
		char def[32];

		for (int i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "-o") && i + 1 < argc)
				out = argv[++i];
			else if (!strcmp(argv[i], "--source") && i + 1 < argc)
				source = argv[++i];
			else
				usage();
		}
		if (!out)
			usage();
		if (!source) {
			const char *b = strrchr(in, '/');

			snprintf(def, sizeof(def), "linux:%s", b ? b + 1 : in);
			source = def;
		}
		prog_file = in;
		return from_linux(in, out, source);
	}
	usage();
}
