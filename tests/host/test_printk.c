// SPDX-License-Identifier: MIT
/*
 * kernel/printk.c's vsnprintf/snprintf against glibc's: a table of formats and edge values,
 * truncation at every buffer size, kernel-only behaviour (%p of NULL, unknown conversions),
 * a randomised differential run with a fixed seed, and printk's line buffering.
 */

/* The kernel's functions under other link names (arch/host/build.mk); glibc keeps its own. */
#define snprintf kernel_snprintf
#define vsnprintf kernel_vsnprintf
#include "kernel/printk.h"
#undef snprintf
#undef vsnprintf

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/host/host_env.h"
#include "kernel/arch.h" /* RFLAGS_IF (arch/host/cpu.h) */
#include "tests/host/ktest.h"

#define BUF 600	  /* big enough for every output in the tables */
#define FILL 0x5a /* what the buffers hold before a call */

/* s[0..n) readable in one line: escapes for control characters, quotes and backslashes. */
static const char *show(const char *s, size_t n)
{
	static char ring[4][BUF * 4 + 4];
	static int r;
	char *out = ring[r++ & 3], *o = out;

	for (size_t i = 0; i < n && o < out + BUF * 4 - 5; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			o += sprintf(o, "\\x%02x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Formats fmt with both implementations into buffers of `size` bytes and compares: the
 * return values, the bytes written, and that the kernel wrote nothing past its NUL (glibc's
 * buffer past the NUL is not compared: the standard leaves it alone too, but we only hold
 * the kernel to it). Returns true if they agree; otherwise describes the difference in why.
 */
static bool compare_v(size_t size, char *why, size_t whylen, const char *fmt, va_list ap)
{
	char kb[BUF + 8], gb[BUF + 8];
	va_list ap2;
	int kn, gn;
	size_t kend, gend;

	if (size > BUF)
		size = BUF;
	memset(kb, FILL, sizeof(kb));
	memset(gb, FILL, sizeof(gb));
	va_copy(ap2, ap);
	kn = kernel_vsnprintf(kb, size, fmt, ap);
	gn = vsnprintf(gb, size, fmt, ap2);
	va_end(ap2);
	if (gn < 0) {
		snprintf(why, whylen, "glibc failed on \"%s\"", show(fmt, strlen(fmt)));
		return false;
	}
	kend = size ? ((size_t)kn < size ? (size_t)kn : size - 1) : 0;
	gend = size ? ((size_t)gn < size ? (size_t)gn : size - 1) : 0;
	if (kn != gn || kend != gend || memcmp(kb, gb, size ? gend + 1 : 0)) {
		snprintf(why, whylen, "size %zu: kernel \"%s\" returns %d, glibc \"%s\" returns %d",
			 size, show(kb, size ? kend : 0), kn, show(gb, size ? gend : 0), gn);
		return false;
	}
	for (size_t i = size ? kend + 1 : 0; i < sizeof(kb); i++) {
		if ((unsigned char)kb[i] != FILL) {
			snprintf(why, whylen,
				 "size %zu: the kernel wrote byte %zu (0x%02x) past its NUL", size,
				 i, (unsigned char)kb[i]);
			return false;
		}
	}
	return true;
}

static bool compare(size_t size, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = compare_v(size, why, whylen, fmt, ap);
	va_end(ap);
	return ok;
}

/* One table case: the whole output in a big buffer must match glibc's. */
static void glibc_case(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void glibc_case(const char *name, const char *fmt, ...)
{
	char why[BUF * 10], full[300];
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = compare_v(BUF, why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "glibc %s", name);
	kt_check(ok, full, "%s", why);
}

/* One kernel-only case: the output must be exactly `want`, the return value its length. */
static void kernel_case(const char *name, const char *want, const char *fmt, ...)
{
	char buf[BUF], full[300];
	va_list ap;
	int n;

	memset(buf, FILL, sizeof(buf));
	va_start(ap, fmt);
	n = kernel_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "kernel %s", name);
	kt_check(n == (int)strlen(want) && !strcmp(buf, want), full,
		 "got \"%s\" (returns %d), want \"%s\" (%zu)", show(buf, strlen(buf)), n,
		 show(want, strlen(want)), strlen(want));
}

/* Truncation: every size from 0 to the full length + 2 must agree with glibc. */
static void trunc_case(const char *name, const char *fmt, ...)
{
	char why[BUF * 10], full[300];
	va_list ap, ap2;
	int len;
	bool ok = true;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	for (size_t size = 0; ok && size <= (size_t)len + 2; size++) {
		va_copy(ap2, ap);
		ok = compare_v(size, why, sizeof(why), fmt, ap2);
		va_end(ap2);
	}
	va_end(ap);
	snprintf(full, sizeof(full), "truncate at every size %s", name);
	kt_check(ok, full, "%s", why);
}

/* The check's name is the call's source text: format and arguments (the ", " is cut when
 * there are no arguments). */
#define CASE_NAME(sfmt, sargs) (sizeof(sargs) > 1 ? sfmt ", " sargs : sfmt)
#define G(fmt, ...) glibc_case(CASE_NAME(#fmt, #__VA_ARGS__), fmt, ##__VA_ARGS__)
#define K(want, fmt, ...) kernel_case(CASE_NAME(#fmt, #__VA_ARGS__), want, fmt, ##__VA_ARGS__)
#define T(fmt, ...) trunc_case(CASE_NAME(#fmt, #__VA_ARGS__), fmt, ##__VA_ARGS__)

static void table_integers(void)
{
	G("%d", 0);
	G("%d", 1);
	G("%d", -1);
	G("%d", 42);
	G("%d", -42);
	G("%d", 1000000);
	G("%d", INT_MAX);
	G("%d", INT_MIN);
	G("%i", -7);
	G("%i", INT_MIN);
	G("%5d", 42);
	G("%5d", -42);
	G("%-5d|", 42);
	G("%-5d|", -42);
	G("%05d", 42);
	G("%05d", -42);
	G("%05d", 0);
	G("%2d", 12345);
	G("%1d", -1);
	G("%012d", INT_MIN);
	G("%-12d|", INT_MIN);
	G("%11d", INT_MIN);
	G("%3i", 7);
	G("%u", 0u);
	G("%u", 1u);
	G("%u", 4000000000u);
	G("%u", UINT_MAX);
	G("%10u", 123u);
	G("%-10u|", 123u);
	G("%010u", 123u);
	G("%u", (unsigned)INT_MIN);
	G("%x", 0u);
	G("%x", 255u);
	G("%x", 0xdeadbeefu);
	G("%X", 0xdeadbeefu);
	G("%x", UINT_MAX);
	G("%8x", 0xabcu);
	G("%08x", 0xabcu);
	G("%-8x|", 0xabcu);
	G("%08X", 0xabcu);
	G("%#x", 255u);
	G("%#X", 255u);
	G("%#x", 0u);
	G("%#08x", 255u);
	G("%#8x", 255u);
	G("%-#8x|", 255u);
	G("%#-8x|", 255u);
	G("%#010x", 0u);
	G("%#x", UINT_MAX);
	G("%#3x", 0x1234u);
	G("%o", 0u);
	G("%o", 8u);
	G("%o", 0777u);
	G("%o", UINT_MAX);
	G("%5o", 8u);
	G("%05o", 8u);
	G("%-5o|", 8u);
}

static void table_modifiers(void)
{
	G("%ld", 0L);
	G("%ld", LONG_MAX);
	G("%ld", LONG_MIN);
	G("%li", -1L);
	G("%lu", ULONG_MAX);
	G("%lx", ULONG_MAX);
	G("%lX", 0xfedcba9876543210UL);
	G("%lo", ULONG_MAX);
	G("%#lx", 0xffffffff80100000UL);
	G("%20lu|", 12345678901UL);
	G("%-20ld|", LONG_MIN);
	G("%lld", 0LL);
	G("%lld", LLONG_MAX);
	G("%lld", LLONG_MIN);
	G("%lld", -1LL);
	G("%lli", LLONG_MIN);
	G("%llu", ULLONG_MAX);
	G("%llu", 10000000000000000000ULL);
	G("%llx", ULLONG_MAX);
	G("%llX", ULLONG_MAX);
	G("%llo", ULLONG_MAX);
	G("%llo", 1ULL << 63);
	G("%#llx", 1ULL << 63);
	G("%025lld", LLONG_MIN);
	G("%-25llu|", ULLONG_MAX);
	G("%30llx", 0x123456789abcdefULL);
	G("%zu", (size_t)0);
	G("%zu", SIZE_MAX);
	G("%zx", SIZE_MAX);
	G("%zd", (ssize_t)-1);
	G("%zi", (ssize_t)LONG_MIN);
	G("%8zu|", (size_t)4096);
	G("%hd", 123);
	G("%hu", 65535);
	G("%hhx", 0x7f);
	/* Arguments of mixed sizes: each conversion must take exactly its own argument. */
	G("%lld %d %llx %d", -5LL, 7, 1ULL << 40, -8);
	G("%d %ld %d %lu %d", 1, -2L, 3, 4UL, 5);
	G("%zu %c %zx %s", (size_t)99, 'q', (size_t)0xabc, "end");
	G("%c%lld%c", '<', LLONG_MIN, '>');
	G("%u %llu %u", 1u, 2ULL, 3u);
}

static void table_strings_and_others(void)
{
	static const char abc[3] = {'a', 'b', 'c'}; /* no NUL: precision must bound the read */

	G("%s", "hello");
	G("%s", "");
	G("[%s]", "two words");
	G("%10s|", "right");
	G("%-10s|", "left");
	G("%3s|", "longer than width");
	G("%.3s|", "abcdef");
	G("%.0s|", "abcdef");
	G("%.10s|", "abc");
	G("%8.3s|", "abcdef");
	G("%-8.3s|", "abcdef");
	G("%.*s|", 2, "abcdef");
	G("%.*s|", 0, "abcdef");
	G("%.*s|", -1, "abcdef");
	G("%*s|", 6, "ab");
	G("%*s|", -6, "ab");
	G("%-*s|", 6, "ab");
	G("%*.*s|", 7, 2, "abcdef");
	G("%.3s", abc);
	G("%s", "(null)");
	G("%c", 'A');
	G("%c%c%c", 'a', 'b', 'c');
	G("%3c|", 'x');
	G("%-3c|", 'x');
	G("%*c|", 4, 'y');
	G("%c", 0x7f);
	G("a%cb", 0);
	G("%c", 200);
	G("%%");
	G("100%%");
	G("%%%d%%", 5);
	G("%p", (void *)0x1234);
	G("%p", (void *)0xffffffff80100000UL);
	G("%p", (void *)1);
	G("%20p|", (void *)0xdeadbeef);
	G("%-20p|", (void *)0xdeadbeef);
	G("%*d", 5, 42);
	G("%*d|", -5, 42);
	G("%-*d|", 5, 42);
	G("%0*x", 8, 0xabu);
	G("%*d", 0, 42);
	G("%*u|", 1, 123456u);
	G("%0*d|", -6, -3);
	G("plain text");
	G("tab\there\nnewline");
	G("%s=%d (%#x)%c", "key", 31, 31u, '!');
	G("[%5s|%-5s]", "ab", "cd");
	G("%d%s%d", 1, "", 2);
	G("%100d|", 1);
	G("%-200s|", "wide");
	G("%0100llx", 0xfULL);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat-overflow"
	/* Valid C that GCC warns about: flags glibc ignores (as the kernel does), repeated
	 * flags, an empty format, a NULL string (both print "(null)"). */
	G("");
	G("%s", (char *)NULL);
	G("%--5d|", 3);
	G("%00005d", 3);
	G("%#-#8x|", 10u);
	G("%-05d|", 42);
	G("%0-5d|", -42);
	G("%-08x|", 0xffu);
	G("%-#08x|", 0xffu);
	G("%-0*d|", 6, 9);
	G("%0*d|", -6, 9);
#pragma GCC diagnostic pop
}

static void table_kernel_only(void)
{
	char *fmt;
	char buf[32];
	int n;

	/* %p of NULL is "(null)" in the kernel (glibc says "(nil)"); width still applies. */
	K("(null)", "%p", NULL);
	K("    (null)|", "%10p|", NULL);
	K("(null)    |", "%-10p|", NULL);
	K("(null)", "%3p", NULL);
	K("0x00000000001234", "%016p", (void *)0x1234);
	/* An unknown conversion comes out as it stands. */
	K("%y", "%y");
	K("a%qb", "a%qb");
	K("%y 5", "%y %d", 5);
	/* A format that ends inside a conversion stops there. */
	K("abc", "abc%");
	K("abc", "abc%-5");
	K("x", "x%l");
	K("x", "x%.*", 3);
	/* The '%' conversion takes no argument, even with a width. */
	K("%7", "%5%%d", 7);

	/* The format is read no further than its NUL (ASan checks: exact-size copies). */
	fmt = strdup("tail%");
	n = kernel_snprintf(buf, sizeof(buf), fmt);
	kt_check(n == 4 && !strcmp(buf, "tail"), "kernel format ending in % is not over-read",
		 "got \"%s\" (%d)", buf, n);
	free(fmt);
	fmt = strdup("%-0#");
	n = kernel_snprintf(buf, sizeof(buf), fmt);
	kt_check(n == 0 && !strcmp(buf, ""), "kernel format ending in flags is not over-read",
		 "got \"%s\" (%d)", buf, n);
	free(fmt);
	fmt = strdup("%12");
	n = kernel_snprintf(buf, sizeof(buf), fmt);
	kt_check(n == 0 && !strcmp(buf, ""), "kernel format ending in a width is not over-read",
		 "got \"%s\" (%d)", buf, n);
	free(fmt);
}

/*
 * "%*d" with a width argument of INT_MIN: whatever comes out, computing it must not be
 * undefined behaviour (UBSan aborts on it). Run in a child so a failure is reported, not fatal.
 */
static void star_width_int_min(void)
{
	pid_t pid;
	int status = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char buf[16];
		volatile int width = INT_MIN; /* not a constant: GCC would warn about the size */

		alarm(10);
		kernel_snprintf(buf, sizeof(buf), "%*d|", width, 1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		kt_skip("kernel \"%*d\" with width INT_MIN is defined", "fork failed");
		return;
	}
	kt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "kernel \"%*d\" with width INT_MIN is defined",
		 "the child %s %d (UBSan's report is on stderr: negating INT_MIN in vsnprintf's "
		 "'*' width handling overflows)",
		 WIFEXITED(status) ? "exited" : "was killed by signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static void table_truncation(void)
{
	char buf[16];
	int n;

	T("%d", 123456);
	T("%d", INT_MIN);
	T("%lld", LLONG_MIN);
	T("%llu", ULLONG_MAX);
	T("%#018llx", 0x1234ULL);
	T("%-10d|", -5);
	T("%10s|", "abc");
	T("%.4s and %s", "truncated", "more");
	T("%c%c%c%c", 'w', 'x', 'y', 'z');
	T("%p", (void *)0xdeadbeef);
	T("%s=%d (%#x)%c", "key", 31, 31u, '!');
	T("no conversions at all");
	T("%%%%%%");

	/* The same again by hand, to say plainly what must happen. */
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 5, "%d", 123456);
	kt_check(n == 6 && !strcmp(buf, "1234") && buf[5] == FILL, "snprintf size 5 of 6 digits",
		 "returns %d, buffer \"%s\", buf[5] = 0x%02x", n, show(buf, 4),
		 (unsigned char)buf[5]);
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 1, "%s", "abc");
	kt_check(n == 3 && buf[0] == '\0' && buf[1] == FILL, "snprintf size 1 writes only the NUL",
		 "returns %d, buf[0] = 0x%02x, buf[1] = 0x%02x", n, (unsigned char)buf[0],
		 (unsigned char)buf[1]);
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 0, "%s", "abc");
	kt_check(n == 3 && buf[0] == FILL, "snprintf size 0 writes nothing",
		 "returns %d, buf[0] = 0x%02x", n, (unsigned char)buf[0]);
	n = kernel_snprintf(NULL, 0, "%d-%s", -12345, "xyz");
	kt_check(n == 10, "snprintf NULL buffer size 0 measures", "returns %d, want 10", n);
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 7, "%s", "abcdef");
	kt_check(n == 6 && !strcmp(buf, "abcdef"), "snprintf size exactly length+1 fits",
		 "returns %d, buffer \"%s\"", n, show(buf, 6));
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 6, "%s", "abcdef");
	kt_check(n == 6 && !strcmp(buf, "abcde"), "snprintf size exactly length drops one",
		 "returns %d, buffer \"%s\"", n, show(buf, 5));
	memset(buf, FILL, sizeof(buf));
	n = kernel_snprintf(buf, 4, "%8d", 1);
	kt_check(n == 8 && !strcmp(buf, "   "), "snprintf truncates inside padding",
		 "returns %d, buffer \"%s\"", n, show(buf, 3));
}

/* ---- randomised differential test ---- */

static uint64_t rng_state = 0x5eed5eed12345678ULL;

static uint64_t rnd(void) /* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* A 64-bit value that is often an edge: 0, +-1, powers of two and their neighbours, extremes. */
static uint64_t rnd_value(void)
{
	static const uint64_t edges[] = {0,
					 1,
					 9,
					 10,
					 15,
					 16,
					 99,
					 100,
					 255,
					 256,
					 65535,
					 0x7fffffff,
					 0x80000000,
					 0xffffffff,
					 0x100000000,
					 0x7fffffffffffffff,
					 0x8000000000000000,
					 0xffffffffffffffff,
					 999999999999999999,
					 1000000000000000000};
	uint64_t v;

	switch (rnd_below(4)) {
	case 0:
		v = edges[rnd_below(ARRAY_SIZE(edges))];
		break;
	case 1:
		v = 1ULL << rnd_below(64);
		v += (uint64_t)(int)rnd_below(3) - 1;
		break;
	default:
		v = rnd() >> rnd_below(64);
		break;
	}
	return rnd_below(2) ? v : 0 - v;
}

/*
 * Builds "<" %[flags][width] conv ">" into f. flags: '-', '0' and (for x) '#', each maybe,
 * in any order. Width: none, digits, or '*' (then *star is set and *wval the argument).
 */
static void rnd_spec(char *f, const char *conv, bool hash_ok, bool zero_ok, bool *star, int *wval)
{
	char flags[8];
	int nf = 0;

	*star = false;
	*wval = 0;
	if (rnd_below(3) == 0)
		flags[nf++] = '-';
	if (zero_ok && rnd_below(3) == 0)
		flags[nf++] = '0';
	if (hash_ok && rnd_below(2) == 0)
		flags[nf++] = '#';
	if (nf > 1 && rnd_below(2)) { /* any order */
		char t = flags[0];

		flags[0] = flags[nf - 1];
		flags[nf - 1] = t;
	}
	flags[nf] = '\0';
	f += sprintf(f, "<%%%s", flags);
	switch (rnd_below(5)) {
	case 0:
	case 1:
		break;
	case 2:
	case 3:
		f += sprintf(f, "%u", rnd_below(26));
		break;
	default:
		*star = true;
		*wval = (int)rnd_below(51) - 25;
		*f++ = '*';
		break;
	}
	sprintf(f, "%s>", conv);
}

/* Buffer size for one run: mostly the whole output, sometimes a truncating size. */
static size_t rnd_size(void)
{
	return rnd_below(8) ? BUF : rnd_below(40);
}

#define RANDOM_RUNS 20000

static void random_numbers(const char *conv, bool hash_ok)
{
	char fmt[64], why[BUF * 10], first[BUF * 10] = "", name[80];
	int bad = 0;

	for (int i = 0; i < RANDOM_RUNS; i++) {
		bool star, ok;
		int w;
		uint64_t v = rnd_value();
		size_t size = rnd_size();

		rnd_spec(fmt, conv, hash_ok, true, &star, &w);
#define RUN(type)                                                                                  \
	(star ? compare(size, why, sizeof(why), fmt, w, (type)v)                                   \
	      : compare(size, why, sizeof(why), fmt, (type)v))
		if (!strcmp(conv, "d"))
			ok = RUN(int);
		else if (!strcmp(conv, "u") || !strcmp(conv, "x"))
			ok = RUN(unsigned int);
		else if (!strcmp(conv, "lld"))
			ok = RUN(long long);
		else
			ok = RUN(unsigned long long);
#undef RUN
		if (!ok && bad++ == 0)
			snprintf(first, sizeof(first),
				 "first of them: \"%s\" with %s%d, value %#llx: %.2000s", fmt,
				 star ? "width " : "", star ? w : 0, (unsigned long long)v, why);
	}
	snprintf(name, sizeof(name), "random %d runs of %%%s against glibc", RANDOM_RUNS, conv);
	kt_check(!bad, name, "%d of %d differ; %s", bad, RANDOM_RUNS, first);
}

static void random_strings(void)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 -_%#.";
	char fmt[64], why[BUF * 10], first[BUF * 10] = "", name[80];
	int bad = 0;

	for (int i = 0; i < RANDOM_RUNS; i++) {
		unsigned len = rnd_below(30);
		char *s = malloc(len + 1); /* exact size: ASan sees any over-read */
		bool star, ok, pstar = false;
		int w, prec = -1;
		size_t size = rnd_size();
		char conv[16];

		for (unsigned j = 0; j < len; j++)
			s[j] = alphabet[rnd_below(sizeof(alphabet) - 1)];
		s[len] = '\0';
		switch (rnd_below(4)) {
		case 0:
			strcpy(conv, "s");
			break;
		case 1:
			prec = (int)rnd_below(35);
			sprintf(conv, ".%ds", prec);
			break;
		case 2:
			pstar = true;
			prec = (int)rnd_below(40) - 5;
			strcpy(conv, ".*s");
			break;
		default:
			strcpy(conv, ".s");
			break;
		}
		rnd_spec(fmt, conv, false, false, &star, &w);
		if (star && pstar)
			ok = compare(size, why, sizeof(why), fmt, w, prec, s);
		else if (star)
			ok = compare(size, why, sizeof(why), fmt, w, s);
		else if (pstar)
			ok = compare(size, why, sizeof(why), fmt, prec, s);
		else
			ok = compare(size, why, sizeof(why), fmt, s);
		if (!ok && bad++ == 0)
			snprintf(first, sizeof(first),
				 "first of them: \"%s\" (width %d, precision %d) "
				 "with \"%s\": %.2000s",
				 fmt, w, prec, s, why);
		free(s);
	}
	snprintf(name, sizeof(name), "random %d runs of %%s against glibc", RANDOM_RUNS);
	kt_check(!bad, name, "%d of %d differ; %s", bad, RANDOM_RUNS, first);
}

/* ---- printk: whole lines to the console ---- */

static void printk_lines(void)
{
	char want[800];
	int n;

	printk_flush();
	host_console_reset();
	n = printk("host printk %d %s\n", 42, "ok");
	kt_check(n == 18, "printk returns the formatted length", "returns %d, want 18", n);
	KT_EQ_S("printk writes a finished line", host_console_text(), "host printk 42 ok\n");

	host_console_reset();
	printk("part one, ");
	printk("part %s", "two");
	kt_check(!strcmp(host_console_text(), ""), "printk holds an unfinished line",
		 "the console already got \"%s\"",
		 show(host_console_text(), strlen(host_console_text())));
	printk(", end\n");
	KT_EQ_S("printk line from three calls", host_console_text(), "part one, part two, end\n");

	host_console_reset();
	printk("flushed without a newline");
	printk_flush();
	KT_EQ_S("printk_flush writes a partial line", host_console_text(),
		"flushed without a newline");
	printk("\n");

	host_console_reset();
	printk("a\nb\nc");
	printk_flush();
	KT_EQ_S("printk several lines in one call", host_console_text(), "a\nb\nc");
	printk("\n");

	/* A line longer than the 512-byte line buffer goes out in pieces, nothing lost. */
	host_console_reset();
	want[0] = '\0';
	for (int i = 0; i < 7; i++) {
		char chunk[101];

		memset(chunk, 'a' + i, 100);
		chunk[100] = '\0';
		printk("%s", chunk);
		strcat(want, chunk);
	}
	printk("\n");
	strcat(want, "\n");
	KT_EQ_S("printk 700-character line from 7 calls", host_console_text(), want);
	kt_check(host_rflags & RFLAGS_IF, "printk leaves interrupts as they were",
		 "IF is clear after printk");
	host_console_reset();
}

int main(void)
{
	table_integers();
	table_modifiers();
	table_strings_and_others();
	table_kernel_only();
	star_width_int_min();
	table_truncation();
	random_numbers("d", false);
	random_numbers("u", false);
	random_numbers("x", true);
	random_numbers("lld", false);
	random_numbers("llx", true);
	random_strings();
	printk_lines();
	return kt_finish();
}
