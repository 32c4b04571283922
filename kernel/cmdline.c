// SPDX-License-Identifier: MIT
/*
 * The boot command line: space-separated name=value options, each declared with
 * boot_param() beside the code that uses it (kernel/cmdline.h); this file is the parser and
 * its messages, and knows no option by name. An unknown option, a bad value or an option
 * given twice is an error that names what is valid; nothing is silently ignored. GRUB's
 * multiboot2 command passes the words after the kernel's path, not the path (GRUB 2.06,
 * grub-core/loader/multiboot.c: "Skip filename"), so a first word starting with '/' is an
 * unknown option like any other. Numbers are decimal or 0x hex; a decimal number has no
 * leading zero (Linux's parsers read 010 as octal). Pure code, also built on the host
 * (tests/host/test_cmdline.c).
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

extern struct boot_param *const __boot_params_start[], *const __boot_params_end[];

struct boot_param *boot_param_at(unsigned int i)
{
	return i < (size_t)(__boot_params_end - __boot_params_start) ? __boot_params_start[i]
								     : NULL;
}

#define for_each_boot_param(p, i) for (unsigned int i = 0; ((p) = boot_param_at(i)); i++)

struct boot_param *boot_param_find(const char *name, size_t len)
{
	struct boot_param *p;

	for_each_boot_param(p, i)
		if (strlen(p->name) == len && !strncmp(p->name, name, len))
			return p;
	return NULL;
}

void cmdline_defaults(void)
{
	struct boot_param *p;

	for_each_boot_param(p, i) {
		p->given = false;
		memset(p->var, 0, p->size);
		if (p->type == BOOT_PARAM_UINT && p->size == 8)
			memcpy(p->var, &p->dflt, 8);
		else if (p->type == BOOT_PARAM_UINT) {
			u32 v32 = (u32)p->dflt;

			memcpy(p->var, &v32, 4);
		} else {
			strlcpy(p->var, p->dflt_str, p->size);
		}
	}
}

const char *cmdline_help(void)
{
	static char buf[1536];
	struct boot_param *p;
	size_t n = 0;

	buf[0] = '\0';
	for_each_boot_param(p, i)
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=", i ? " " : "", p->name);
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

/* A list's value: no empty item, no item twice, "all" and "none" only alone. */
static int check_list(const struct boot_param *opt, const char *val, size_t len, char *err,
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

static int set_option(const struct boot_param *opt, const char *val, size_t len, char *err,
		      size_t errlen)
{
	char *field = opt->var;

	if (!len) {
		snprintf(err, errlen, "%s= needs a value (%s)", opt->name, opt->help);
		return -1;
	}
	switch (opt->type) {
	case BOOT_PARAM_LIST:
		if (check_list(opt, val, len, err, errlen))
			return -1;
		/* fall through */
	case BOOT_PARAM_STR:
		if (len + 1 > opt->size) {
			snprintf(err, errlen, "value of %s= is longer than %zu characters", opt->name,
				 opt->size - 1);
			return -1;
		}
		memcpy(field, val, len);
		field[len] = '\0';
		return opt->check ? opt->check(field, err, errlen) : 0;
	case BOOT_PARAM_ENUM:
		for (const char *const *c = opt->choices; *c; c++) {
			if (strlen(*c) == len && !strncmp(*c, val, len)) {
				strlcpy(field, *c, opt->size);
				return 0;
			}
		}
		snprintf(err, errlen, "bad value '%.*s' for %s= (%s)", (int)len, val, opt->name,
			 opt->help);
		return -1;
	case BOOT_PARAM_UINT: {
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

/* The next word of s at or after *s (NULL: none), its length in *len; *s moves past it. */
static const char *next_word(const char **s, size_t *len)
{
	const char *w;

	while (is_blank(**s))
		(*s)++;
	if (!**s)
		return NULL;
	w = *s;
	while (**s && !is_blank(**s))
		(*s)++;
	*len = (size_t)(*s - w);
	return w;
}

/* The length of word's option name: up to its '=', or all of it. */
static size_t name_len(const char *word, size_t len)
{
	const char *eq = memchr(word, '=', len);

	return eq ? (size_t)(eq - word) : len;
}

int cmdline_parse(const char *line, char *err, size_t errlen)
{
	const char *s = line, *tok;
	size_t len;

	cmdline_defaults();
	while ((tok = next_word(&s, &len))) {
		size_t nlen = name_len(tok, len);
		struct boot_param *opt = boot_param_find(tok, nlen);

		if (!opt) {
			snprintf(err, errlen, "unknown option '%.*s'; valid options: %s", (int)nlen, tok,
				 cmdline_help());
			return -1;
		}
		if (nlen == len) {
			snprintf(err, errlen, "option %s needs a value: %s=... (%s)", opt->name,
				 opt->name, opt->help);
			return -1;
		}
		if (opt->given) {
			const char *p = line, *first;
			size_t flen;

			/* The earlier word of this name, for the message. */
			while ((first = next_word(&p, &flen)) && (name_len(first, flen) != nlen ||
								 strncmp(first, tok, nlen)))
				;
			snprintf(err, errlen, "option %s= given twice (%.*s, then %.*s): give each "
				 "option once", opt->name, (int)flen, first, (int)len, tok);
			return -1;
		}
		opt->given = true;
		if (set_option(opt, tok + nlen + 1, len - nlen - 1, err, errlen))
			return -1;
	}
	return 0;
}
