// SPDX-License-Identifier: MIT
/*
 * The boot option slub_debug= (Linux's syntax) and its parser, which says what is wrong with
 * a spec at boot and which flags a new cache gets from it; the debugging itself is
 * mm/slub_debug.c's.
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/slub_debug.h"

char slub_debug_string[OPT_STR_MAX];

static int check_slub_debug(const char *val, char *err, size_t errlen)
{
	unsigned long flags;

	return slub_debug_parse(val, NULL, &flags, err, errlen);
}

boot_param(slub_debug, slub_debug_string, str, check_slub_debug, "",
	   "debug letters F Z P U (none: all), optionally ,cache,cache... ; blocks split by ;");

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

unsigned long slub_debug_boot_flags(const char *name)
{
	unsigned long flags = 0;
	char err[8];

	if (slub_debug_string[0])
		slub_debug_parse(slub_debug_string, name, &flags, err, sizeof(err));
	return flags;
}
