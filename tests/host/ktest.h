/* SPDX-License-Identifier: MIT */
/*
 * A small KTAP v1 harness for the host tests: kt_check() records one named result, and
 * kt_finish() prints "KTAP version 1", the plan and every result, and gives the exit code.
 */
#ifndef SLABLAB_KTEST_H
#define SLABLAB_KTEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_result {
	char *name;
	bool ok;
	char *skip; /* non-NULL: skipped, with this reason */
	char *diag; /* why it failed (may hold several lines) */
};

static struct kt_result *kt_results;
static size_t kt_count, kt_cap;

static char *kt_vasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		perror("ktest: vasprintf");
		abort();
	}
	return s;
}

static char *kt_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static char *kt_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = kt_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* A result name that is one line and cannot be read as a KTAP directive ("# SKIP"). */
static char *kt_clean_name(const char *name)
{
	size_t n = strlen(name);
	char *out = malloc(n * 4 + 1), *o = out;

	if (!out)
		abort();
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '#' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p;
		} else if (*p < 0x20 || *p >= 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	return out;
}

static struct kt_result *kt_add(const char *name)
{
	struct kt_result *r;

	if (kt_count == kt_cap) {
		kt_cap = kt_cap ? kt_cap * 2 : 64;
		kt_results = realloc(kt_results, kt_cap * sizeof(*kt_results));
		if (!kt_results)
			abort();
	}
	r = &kt_results[kt_count++];
	memset(r, 0, sizeof(*r));
	r->name = kt_clean_name(name);
	return r;
}

/* Records one result; on failure the printf-style message says what went wrong. */
static bool kt_check(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));
static bool kt_check(bool ok, const char *name, const char *fmt, ...)
{
	struct kt_result *r = kt_add(name);

	r->ok = ok;
	if (!ok) {
		va_list ap;

		va_start(ap, fmt);
		r->diag = kt_vasprintf(fmt, ap);
		va_end(ap);
	}
	return ok;
}

static void kt_skip(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), unused));
static void kt_skip(const char *name, const char *fmt, ...)
{
	struct kt_result *r = kt_add(name);
	va_list ap;

	r->ok = true;
	va_start(ap, fmt);
	r->skip = kt_vasprintf(fmt, ap);
	va_end(ap);
	for (char *p = r->skip; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = ' ';
}

/* Equality checks that print both sides; each argument is evaluated once. */
#define KT_EQ_U(name, got, want)                                                                   \
	({                                                                                         \
		unsigned long long kt_g_ = (unsigned long long)(got);                              \
		unsigned long long kt_w_ = (unsigned long long)(want);                             \
		kt_check(kt_g_ == kt_w_, name, "%s = %llu (%#llx), expected %llu (%#llx)", #got,   \
			 kt_g_, kt_g_, kt_w_, kt_w_);                                              \
	})
#define KT_EQ_S(name, got, want)                                                                   \
	({                                                                                         \
		const char *kt_g_ = (got), *kt_w_ = (want);                                        \
		kt_check(kt_g_ != NULL && kt_w_ != NULL && !strcmp(kt_g_, kt_w_), name,            \
			 "%s = \"%s\", expected \"%s\"", #got, kt_g_ ? kt_g_ : "(NULL)",           \
			 kt_w_ ? kt_w_ : "(NULL)");                                                \
	})

/* Prints the KTAP report; returns the process exit code (1 if anything failed). */
static int kt_finish(void)
{
	int failed = 0, skipped = 0;

	/* Two results with one name would make a log ambiguous: that is a failure too. */
	for (size_t i = 0; i < kt_count; i++)
		for (size_t j = i + 1; j < kt_count; j++)
			if (!strcmp(kt_results[i].name, kt_results[j].name)) {
				char *n = kt_asprintf("%s", kt_results[j].name);

				kt_check(false, "ktest_unique_names",
					 "two results are named \"%s\"", n);
				free(n);
				i = j = kt_count;
			}
	fflush(stdout);
	printf("KTAP version 1\n1..%zu\n", kt_count);
	for (size_t i = 0; i < kt_count; i++) {
		struct kt_result *r = &kt_results[i];

		if (r->skip) {
			skipped++;
			printf("ok %zu %s # SKIP %s\n", i + 1, r->name, r->skip);
			continue;
		}
		if (!r->ok) {
			const char *d = r->diag && *r->diag ? r->diag : "failed";
			bool first = true;

			failed++;
			/* Diagnostics go before the result line: ktap.py attaches them to it. */
			while (*d) {
				int n = (int)strcspn(d, "\n");

				if (first)
					printf("# %s: %.*s\n", r->name, n, d);
				else
					printf("#     %.*s\n", n, d);
				first = false;
				d += n;
				if (*d)
					d++;
			}
		}
		printf("%s %zu %s\n", r->ok ? "ok" : "not ok", i + 1, r->name);
	}
	printf("# %zu checks: %zu passed, %d failed, %d skipped\n", kt_count,
	       kt_count - (size_t)failed - (size_t)skipped, failed, skipped);
	fflush(stdout);
	return failed ? 1 : 0;
}

#endif
