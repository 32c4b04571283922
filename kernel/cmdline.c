// SPDX-License-Identifier: MIT
/*
 * The boot command line: space-separated name=value options. An unknown option, a bad
 * value or an option given twice is an error that names what is valid; nothing is silently
 * ignored. GRUB's multiboot2 command passes the words after the kernel's path, not the path
 * (GRUB 2.06, grub-core/loader/multiboot.c: "Skip filename"), so a first word starting
 * with '/' is an unknown option like any other. Numbers are decimal or 0x hex; a decimal
 * number has no leading zero (Linux's parsers read 010 as octal). Pure code, also built on
 * the host (tests/host/test_cmdline.c).
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/slab.h"

struct boot_options boot_opts;

static const char *const fastpath_names[] = { "irq", "cmpxchg", NULL };
static const char *const debug_mode_names[] = { "locked", "partial", NULL };
static const char *const crash_kinds[] = { "pf", "gp", "ud", "de", "df", "pf-ap", "lockrec",
					   "panic", NULL };

/*
 * OPT_LIST: an OPT_STR that is a comma list of names: no empty item, no name twice, and
 * "all" or "none" only alone.
 */
enum opt_kind { OPT_STR, OPT_LIST, OPT_UINT, OPT_ENUM };

struct option {
	const char *name;
	enum opt_kind kind;
	size_t off;    /* offset of the field in struct boot_options */
	size_t size;   /* OPT_STR, OPT_ENUM: buffer size; OPT_UINT: field size (4 or 8) */
	u64 min, max;  /* OPT_UINT */
	const char *const *choices; /* OPT_ENUM */
	const char *help;
	int (*check)(const char *val, char *err, size_t errlen); /* OPT_STR, optional */
};

static int check_slub_debug(const char *val, char *err, size_t errlen)
{
	unsigned long flags;

	return slub_debug_parse(val, NULL, &flags, err, errlen);
}

#define FIELD(f) .off = offsetof(struct boot_options, f), .size = sizeof(((struct boot_options *)0)->f)

static const struct option options[] = {
	{ .name = "test", .kind = OPT_LIST, FIELD(test),
	  .help = "in-kernel test suites: all, none, or a comma list of suite or suite.case names" },
	{ .name = "bench", .kind = OPT_LIST, FIELD(bench),
	  .help = "benchmarks: all, none, or a comma list of names" },
	{ .name = "cpus", .kind = OPT_UINT, FIELD(cpus), .min = 1, .max = NR_CPUS,
	  .help = "use at most N CPUs" },
	{ .name = "seed", .kind = OPT_UINT, FIELD(seed), .min = 0, .max = ~0ULL,
	  .help = "seed for randomised tests and workloads" },
	{ .name = "crash", .kind = OPT_ENUM, FIELD(crash), .choices = crash_kinds,
	  .help = "trigger a fault on purpose to show the trap path: pf gp ud de df pf-ap lockrec panic" },
	{ .name = "ap_timeout_ms", .kind = OPT_UINT, FIELD(ap_timeout_ms), .min = 1, .max = 60000,
	  .help = "how long to wait for the other CPUs to start, in ms" },
	{ .name = "scheme", .kind = OPT_LIST, FIELD(scheme),
	  .help = "slab schemes: all, or a comma list (lock,partial,...); the first is the boot "
		  "caches' scheme, benchmarks compare them all" },
	{ .name = "fastpath", .kind = OPT_ENUM, FIELD(fastpath), .choices = fastpath_names,
	  .help = "slab fastpath of the caches created at boot: irq cmpxchg" },
	{ .name = "cpu_partial", .kind = OPT_UINT, FIELD(cpu_partial), .min = 1, .max = 100000,
	  .help = "per-cpu partial list budget in objects (default: 120, 52, 24 or 6 by size)" },
	{ .name = "sheaf_capacity", .kind = OPT_UINT, FIELD(sheaf_capacity), .min = 1, .max = 500,
	  .help = "objects per sheaf for the sheaves scheme (default: 32, 16 or 8 by size)" },
	{ .name = "ipi_wait_us", .kind = OPT_UINT, FIELD(ipi_wait_us), .min = 0, .max = 1000000,
	  .help = "ipi schemes: how long a cpu waits for slabs it asked another cpu for (default 200)" },
	{ .name = "slabinfo", .kind = OPT_UINT, FIELD(slabinfo), .min = 0, .max = 1,
	  .help = "1: print slabinfo at the end of the run" },
	{ .name = "bench_reps", .kind = OPT_UINT, FIELD(bench_reps), .min = 1, .max = 1001,
	  .help = "repetitions of every benchmark figure (default: each benchmark's own)" },
	{ .name = "hackbench_groups", .kind = OPT_UINT, FIELD(hackbench_groups), .min = 1,
	  .max = 1000, .help = "hackbench: groups of 20 senders and 20 receivers (largest row)" },
	{ .name = "hackbench_loops", .kind = OPT_UINT, FIELD(hackbench_loops), .min = 1,
	  .max = 1000000, .help = "hackbench: messages each sender sends to each receiver" },
	{ .name = "remote_objects", .kind = OPT_UINT, FIELD(remote_objects), .min = 1,
	  .max = 100000000, .help = "remote: objects per producer/consumer pair" },
	{ .name = "scaling_ops", .kind = OPT_UINT, FIELD(scaling_ops), .min = 1, .max = 100000000,
	  .help = "scaling: alloc+free operations per CPU" },
	{ .name = "latency_samples", .kind = OPT_UINT, FIELD(latency_samples), .min = 1,
	  .max = 1000000, .help = "latency: timed allocs and frees per CPU" },
	{ .name = "ap_skip", .kind = OPT_UINT, FIELD(ap_skip), .min = 0, .max = 0xffffffffULL,
	  .help = "do not start the CPU with this APIC id (tests the missing-CPU path)" },
	{ .name = "slub_debug", .kind = OPT_STR, FIELD(slub_debug), .check = check_slub_debug,
	  .help = "debug letters F Z P U (none: all), optionally ,cache,cache... ; blocks split by ;" },
	{ .name = "slub_debug_mode", .kind = OPT_ENUM, FIELD(slub_debug_mode),
	  .choices = debug_mode_names,
	  .help = "debug caches: locked (every operation under list_lock) or partial (per-cpu partial lists)" },
	{ .name = "freelist_hardened", .kind = OPT_UINT, FIELD(freelist_hardened), .min = 0,
	  .max = 1, .help = "1: free pointers stored obfuscated" },
	{ .name = "freelist_random", .kind = OPT_UINT, FIELD(freelist_random), .min = 0, .max = 1,
	  .help = "1: new slabs hand out objects in a shuffled order" },
	{ .name = "init_on_alloc", .kind = OPT_UINT, FIELD(init_on_alloc), .min = 0, .max = 1,
	  .help = "1: zero objects when they are allocated" },
	{ .name = "init_on_free", .kind = OPT_UINT, FIELD(init_on_free), .min = 0, .max = 1,
	  .help = "1: zero objects when they are freed" },
};

void cmdline_defaults(struct boot_options *o)
{
	memset(o, 0, sizeof(*o));
	strlcpy(o->test, "all", sizeof(o->test));
	strlcpy(o->bench, "none", sizeof(o->bench));
	o->ap_timeout_ms = 5000;
	o->ap_skip = -1;
	o->ipi_wait_us = 200;
	strlcpy(o->scheme, "partial", sizeof(o->scheme));
	strlcpy(o->fastpath, "irq", sizeof(o->fastpath));
	o->hackbench_groups = 10;
	o->hackbench_loops = 20;
	o->remote_objects = 50000;
	o->scaling_ops = 50000;
	o->latency_samples = 10000;
	strlcpy(o->slub_debug_mode, "locked", sizeof(o->slub_debug_mode));
}

const char *cmdline_help(void)
{
	static char buf[1536];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(options) && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=", i ? " " : "", options[i].name);
	return buf;
}

/* 0, or -1 (not a number, too large for a u64) or -2 (a decimal number with a leading 0). */
static int parse_uint(const char *s, size_t len, u64 *out)
{
	u64 v = 0;
	unsigned base = 10;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	} else if (len > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
		return -2;
	}
	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (v > (~0ULL - d) / base)
			return -1; /* overflow */
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* The next item of the comma list [p, end): its length. */
static size_t item_len(const char *p, const char *end)
{
	const char *c = memchr(p, ',', (size_t)(end - p));

	return c ? (size_t)(c - p) : (size_t)(end - p);
}

static bool item_is(const char *p, size_t len, const char *word)
{
	return strlen(word) == len && !strncmp(p, word, len);
}

/* An OPT_LIST value: no empty item, no item twice, "all" and "none" only alone. */
static int check_list(const struct option *opt, const char *val, size_t len, char *err,
		      size_t errlen)
{
	const char *end = val + len;

	for (const char *p = val;; p++) {
		size_t n = item_len(p, end);

		if (!n) {
			snprintf(err, errlen,
				 "empty item in %s=%.*s (a comma list without blanks: %s)",
				 opt->name, (int)len, val, opt->help);
			return -1;
		}
		if ((item_is(p, n, "all") || item_is(p, n, "none")) && n != len) {
			snprintf(err, errlen, "%s=%.*s: '%.*s' stands alone, it cannot be combined "
				 "with other names", opt->name, (int)len, val, (int)n, p);
			return -1;
		}
		for (const char *q = val; q < p; q += item_len(q, end) + 1) {
			if (item_len(q, end) == n && !strncmp(q, p, n)) {
				snprintf(err, errlen, "%s=%.*s names '%.*s' twice", opt->name,
					 (int)len, val, (int)n, p);
				return -1;
			}
		}
		p += n;
		if (p == end)
			return 0;
	}
}

static int set_option(const struct option *opt, const char *val, size_t len,
		      struct boot_options *o, char *err, size_t errlen)
{
	char *field = (char *)o + opt->off;

	if (!len) {
		snprintf(err, errlen, "%s= needs a value (%s)", opt->name, opt->help);
		return -1;
	}
	switch (opt->kind) {
	case OPT_LIST:
		if (check_list(opt, val, len, err, errlen))
			return -1;
		/* fall through */
	case OPT_STR:
		if (len + 1 > opt->size) {
			snprintf(err, errlen, "value of %s= is longer than %zu characters", opt->name,
				 opt->size - 1);
			return -1;
		}
		memcpy(field, val, len);
		field[len] = '\0';
		return opt->check ? opt->check(field, err, errlen) : 0;
	case OPT_ENUM:
		for (const char *const *c = opt->choices; *c; c++) {
			if (strlen(*c) == len && !strncmp(*c, val, len)) {
				strlcpy(field, *c, opt->size);
				return 0;
			}
		}
		snprintf(err, errlen, "bad value '%.*s' for %s= (%s)", (int)len, val, opt->name,
			 opt->help);
		return -1;
	case OPT_UINT: {
		u64 v;

		if (parse_uint(val, len, &v) == -2) {
			snprintf(err, errlen,
				 "bad value '%.*s' for %s= (a decimal number has no leading zero: "
				 "Linux would read it as octal; write it without the zeros, or in "
				 "hex as 0x...)", (int)len, val, opt->name);
			return -1;
		}
		if (parse_uint(val, len, &v) || v < opt->min || v > opt->max) {
			snprintf(err, errlen,
				 "bad value '%.*s' for %s= (expected a number %llu..%llu: %s)",
				 (int)len, val, opt->name, (unsigned long long)opt->min,
				 (unsigned long long)opt->max, opt->help);
			return -1;
		}
		if (opt->size == 8)
			memcpy(field, &v, 8);
		else {
			u32 v32 = (u32)v;

			memcpy(field, &v32, 4);
		}
		return 0;
	}
	}
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int cmdline_parse(const char *s, struct boot_options *o, char *err, size_t errlen)
{
	const char *given[ARRAY_SIZE(options)] = { NULL }; /* each option's word, once given */
	size_t given_len[ARRAY_SIZE(options)];

	cmdline_defaults(o);
	while (*s) {
		const char *tok, *eq;
		size_t len, nlen, idx = ARRAY_SIZE(options);
		const struct option *opt;

		while (is_blank(*s))
			s++;
		if (!*s)
			break;
		tok = s;
		while (*s && !is_blank(*s))
			s++;
		len = (size_t)(s - tok);
		eq = memchr(tok, '=', len);
		nlen = eq ? (size_t)(eq - tok) : len;
		for (size_t i = 0; i < ARRAY_SIZE(options); i++)
			if (strlen(options[i].name) == nlen && !strncmp(options[i].name, tok, nlen))
				idx = i;
		if (idx == ARRAY_SIZE(options)) {
			snprintf(err, errlen, "unknown option '%.*s'; valid options: %s", (int)nlen, tok,
				 cmdline_help());
			return -1;
		}
		opt = &options[idx];
		if (!eq) {
			snprintf(err, errlen, "option %s needs a value: %s=... (%s)", opt->name,
				 opt->name, opt->help);
			return -1;
		}
		if (given[idx]) {
			snprintf(err, errlen, "option %s= given twice (%.*s, then %.*s): give each "
				 "option once", opt->name, (int)given_len[idx], given[idx], (int)len,
				 tok);
			return -1;
		}
		given[idx] = tok;
		given_len[idx] = len;
		if (set_option(opt, eq + 1, len - nlen - 1, o, err, errlen))
			return -1;
		if (opt->off == offsetof(struct boot_options, test))
			o->test_given = true;
		if (opt->off == offsetof(struct boot_options, bench))
			o->bench_given = true;
		if (opt->off == offsetof(struct boot_options, scheme))
			o->scheme_given = true;
	}
	return 0;
}

/*
 * slub_debug=: Linux's syntax. Blocks split by ';', each "LETTERS[,cache,cache...]": F
 * consistency checks, Z red zones, P poisoning, U user tracking, '-' none; no letters means
 * all four. A block without caches applies to every cache; a cache name may end in '*' (a
 * prefix). The first block that names a cache decides its flags (as in Linux's
 * kmem_cache_flags). Stricter than Linux, so that no part of a spec is silently without
 * effect: no empty block, at most one block for every cache, '-' alone, '*' only at the end
 * of a name, and no name that an earlier one already covers.
 */
static unsigned long debug_letter(char c)
{
	switch (c) {
	case 'f': case 'F': return SLAB_CONSISTENCY_CHECKS;
	case 'z': case 'Z': return SLAB_RED_ZONE;
	case 'p': case 'P': return SLAB_POISON;
	case 'u': case 'U': return SLAB_STORE_USER;
	}
	return 0;
}

static bool cache_name_matches(const char *pat, size_t len, const char *name)
{
	if (len && pat[len - 1] == '*')
		return !strncmp(pat, name, len - 1);
	return strlen(name) == len && !strncmp(pat, name, len);
}

/* Does the earlier name or prefix a decide every cache the later one b could match? */
static bool name_covers(const char *a, size_t alen, const char *b, size_t blen)
{
	if (a[alen - 1] == '*')
		return blen >= alen - 1 && !strncmp(a, b, alen - 1);
	return alen == blen && !strncmp(a, b, alen);
}

#define SLUB_DEBUG_MAX_NAMES (OPT_STR_MAX / 2)

int slub_debug_parse(const char *spec, const char *name, unsigned long *flags, char *err,
		     size_t errlen)
{
	struct {
		const char *p;
		size_t len;
	} names[SLUB_DEBUG_MAX_NAMES];
	unsigned long global = 0;
	bool named = false;
	const char *s = spec, *global_block = NULL;
	size_t nr_names = 0, global_len = 0;

	*flags = 0;
	for (;;) {
		const char *block = s;
		unsigned long f = 0;
		bool letters = false, none = false;

		if (!*s || *s == ';') {
			snprintf(err, errlen, "slub_debug=%s: empty block (blocks are split by ';', "
				 "each is LETTERS[,cache...])", spec);
			return -1;
		}
		for (; *s && *s != ',' && *s != ';'; s++) {
			letters = true;
			if (*s == '-') {
				none = true;
				continue;
			}
			if (!debug_letter(*s)) {
				snprintf(err, errlen, "slub_debug=%s: '%c' is not a debug letter (F Z P U, or - for none)",
					 spec, *s);
				return -1;
			}
			f |= debug_letter(*s);
		}
		if (none && (f || s - block > 1)) {
			snprintf(err, errlen,
				 "slub_debug=%s: '-' (no debugging) stands alone, without letters",
				 spec);
			return -1;
		}
		if (!letters)
			f = SLAB_DEBUG_FLAGS;
		if (*s != ',') {
			if (global_block) {
				snprintf(err, errlen,
					 "slub_debug=%s: two blocks for every cache ('%.*s' and "
					 "'%.*s'); give one, and name caches in the others", spec,
					 (int)global_len, global_block, (int)(s - block), block);
				return -1;
			}
			global_block = block;
			global_len = (size_t)(s - block);
			global = f;
		}
		while (*s == ',') {
			const char *n = ++s;
			size_t len;

			while (*s && *s != ',' && *s != ';')
				s++;
			len = (size_t)(s - n);
			if (!len || len > KMEM_CACHE_NAME_MAX) {
				snprintf(err, errlen,
					 "slub_debug=%s: a cache name must have 1..%d characters",
					 spec, KMEM_CACHE_NAME_MAX);
				return -1;
			}
			if (memchr(n, '*', len - 1)) {
				snprintf(err, errlen, "slub_debug=%s: '%.*s': '*' only at the end of a "
					 "name (a prefix)", spec, (int)len, n);
				return -1;
			}
			for (size_t i = 0; i < nr_names; i++) {
				if (name_covers(names[i].p, names[i].len, n, len)) {
					snprintf(err, errlen, "slub_debug=%s: '%.*s' would never apply: "
						 "'%.*s' before it already decides (the first block "
						 "naming a cache decides)", spec, (int)len, n,
						 (int)names[i].len, names[i].p);
					return -1;
				}
			}
			if (nr_names < SLUB_DEBUG_MAX_NAMES) {
				names[nr_names].p = n;
				names[nr_names++].len = len;
			}
			if (name && !named && cache_name_matches(n, len, name)) {
				*flags = f;
				named = true;
			}
		}
		if (!*s)
			break;
		s++; /* the ';' */
	}
	if (!named)
		*flags = global;
	return 0;
}
