// SPDX-License-Identifier: MIT
/*
 * kernel/cmdline.c's cmdline_parse over the options the kernel's sources declare with
 * boot_param() (tests/host/host.mk links them in): defaults, every option, number syntax and
 * bounds, bad and missing values, repeated options, comma lists, a leading path (an unknown
 * option: GRUB's multiboot2 passes none), blanks, slub_debug= specs and the error messages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "mm/slab.h"
#include "mm/slub_debug.h"
#include "tests/host/ktest.h"

/*
 * The scheme registry scheme='s check reads (mm/slab_common.c): this test's own three
 * registrations, the only ones its link keeps (tests/host/cmdline_schemes.ld). Their hooks
 * are never called here.
 */
static void *no_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	return NULL;
}

static const struct slab_scheme t_lock = { .name = "lock", .order = 10, .get_partial = no_partial };
static const struct slab_scheme t_partial = { .name = "partial", .order = 20,
					      .flags = SLAB_SCHEME_DEFAULT, .get_partial = no_partial };
static const struct slab_scheme t_sheaves = { .name = "sheaves", .order = 30,
					      .get_partial = no_partial };
slab_scheme_register(t_lock);
slab_scheme_register(t_partial);
slab_scheme_register(t_sheaves);

/*
 * What the options hold after a parse, by name, read from the variables they fill (snap());
 * the sizes are the ones the kernel's options must have.
 */
struct boot_options {
	char test[OPT_STR_MAX];  /* in-kernel suites: "all", "none" or names (suite or suite.case) */
	bool test_given;
	char bench[OPT_STR_MAX]; /* benchmarks */
	bool bench_given;
	unsigned int cpus;       /* use at most this many CPUs; 0: all */
	u64 seed;                /* seed for randomised tests and workloads */
	char crash[32];          /* deliberately trigger a fault (tests the trap path) */
	char test_fail[OPT_STR_MAX]; /* cases that fail on purpose after they run */
	unsigned int ap_timeout_ms; /* how long to wait for APs to answer */
	long ap_skip;            /* do not start the AP with this APIC id (-1: none) */
	char x2apic[8];          /* APIC mode: auto, off */
	char numa[8];            /* NUMA nodes from the SRAT: on, off */
	char scheme[128];        /* schemes: "all" or a comma list */
	bool scheme_given;
	char fastpath[16];       /* default slab fastpath: irq, cmpxchg */
	unsigned int cpu_partial; /* per-cpu partial budget in objects; 0: by object size */
	unsigned int slabinfo;   /* 1: print slabinfo at the end */
	unsigned int ipi_wait_us;    /* ipi schemes: wait for a slab transfer, us */
	char sheaf_capacity[8];  /* objects per sheaf ("sheaves"): N, linux7, slablab; "": default */
	unsigned int bench_reps;
	unsigned int hackbench_groups, hackbench_loops;
	unsigned int remote_objects;
	unsigned int scaling_ops;
	unsigned int latency_samples;
	char slub_debug[OPT_STR_MAX];
	char slub_debug_mode[16];
	unsigned int freelist_hardened;
	unsigned int freelist_random;
	unsigned int init_on_alloc;
	unsigned int init_on_free;
	unsigned int mem_map;    /* 1: print the multiboot2 memory map at boot */
	unsigned int pcp;        /* 1: the page allocator's per-cpu lists of free pages */
	unsigned int observer_clock; /* 1: PIT channel 0 as lab 2's outside clock */
	char replay_cpus[OPT_STR_MAX]; /* bench=replay: the CPU of each trace stream */
	char replay_pace[16];    /* bench=replay: asap, original */
	unsigned int replay_scale; /* replay_pace=original: recorded times in percent */
	char sweep[OPT_STR_MAX]; /* bench=sweep: the settings */
	char sweep_work[64];     /* bench=sweep: the workloads */
	char exit[16];           /* how the kernel leaves the machine: halt, reboot, poweroff */
	char reboot[16];         /* exit=reboot: the first way to try */
};

static struct boot_options opts, want;
static char err[1024];

/* Each field of struct boot_options: the option's name, type and where the field is. */
static const struct field {
	const char *name;
	enum boot_param_type type;
	size_t off, size;
	size_t given_off; /* of its _given flag; 0: none */
} fields[] = {
#define F(n, t) { #n, BOOT_PARAM_##t, offsetof(struct boot_options, n), sizeof(opts.n), 0 }
#define FG(n, t)                                                                                   \
	{ #n, BOOT_PARAM_##t, offsetof(struct boot_options, n), sizeof(opts.n),                    \
	  offsetof(struct boot_options, n##_given) }
	FG(test, LIST), FG(bench, LIST), F(cpus, UINT), F(seed, UINT), F(crash, ENUM),
	F(test_fail, LIST),
	F(ap_timeout_ms, UINT), F(ap_skip, UINT), F(x2apic, ENUM), F(numa, ENUM), FG(scheme, LIST), F(fastpath, ENUM),
	F(cpu_partial, UINT), F(slabinfo, UINT), F(ipi_wait_us, UINT), F(sheaf_capacity, STR),
	F(bench_reps, UINT), F(hackbench_groups, UINT), F(hackbench_loops, UINT),
	F(remote_objects, UINT), F(scaling_ops, UINT), F(latency_samples, UINT),
	F(slub_debug, STR), F(slub_debug_mode, ENUM), F(freelist_hardened, UINT),
	F(freelist_random, UINT), F(init_on_alloc, UINT), F(init_on_free, UINT), F(mem_map, UINT),
	F(pcp, UINT), F(observer_clock, UINT),
	F(replay_cpus, STR), F(replay_pace, ENUM), F(replay_scale, UINT),
	F(sweep, STR), F(sweep_work, LIST), F(exit, ENUM), F(reboot, ENUM),
#undef F
#undef FG
};

/* The option a field reads, if it is registered with the field's type and size. */
static struct boot_param *param_of(const struct field *f)
{
	struct boot_param *p = boot_param_find(f->name, strlen(f->name));

	return p && p->type == f->type && p->size == f->size ? p : NULL;
}

/* o = what the registered options hold now. */
static void snap(struct boot_options *o)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		struct boot_param *p = param_of(&fields[i]);

		if (!p)
			continue; /* registry() reports it */
		memcpy((char *)o + fields[i].off, p->var, p->size);
		if (fields[i].given_off)
			*(bool *)((char *)o + fields[i].given_off) = p->given;
	}
}

/* Every registered option's variable and given flag full of garbage. */
static void scribble(void)
{
	struct boot_param *p;

	for (unsigned int i = 0; (p = boot_param_at(i)); i++) {
		memset(p->var, 0xa5, p->size);
		p->given = true;
	}
}

/*
 * Parses a private, exact-size copy of s (ASan sees any read past its NUL) into the options,
 * which start out full of garbage, and reads them into opts; the message, if any, lands in
 * err.
 */
static int parse(const char *s)
{
	char *copy = strdup(s);
	int rc;

	scribble();
	memset(&opts, 0xa5, sizeof(opts));
	memset(err, 0, sizeof(err));
	rc = cmdline_parse(copy, err, sizeof(err));
	free(copy);
	snap(&opts);
	return rc;
}

/* cmdline_defaults() from garbage, read into o. */
static void defaults_into(struct boot_options *o)
{
	scribble();
	cmdline_defaults();
	snap(o);
}

/* A field's number (UINT fields: 1, 4 or 8 bytes wide; 8-byte ones may be signed). */
static long long field_num(const struct boot_options *o, const struct field *f)
{
	const char *v = (const char *)o + f->off;

	switch (f->size) {
	case 1: return *(const u8 *)v;
	case 4: return *(const u32 *)v;
	default: return *(const long long *)v;
	}
}

/*
 * Lists the fields in which opts and want differ, from fields[] (so a new option is compared
 * once it has its row there); "" when none do. Strings are shown up to 40 characters.
 */
static const char *diff_opts(void)
{
	static char out[4096];
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(fields) && n < sizeof(out) - 1; i++) {
		const struct field *f = &fields[i];
		const char *a = (const char *)&opts + f->off, *b = (const char *)&want + f->off;

		if (f->type == BOOT_PARAM_UINT) {
			if (field_num(&opts, f) != field_num(&want, f))
				n += (size_t)snprintf(out + n, sizeof(out) - n, "%s %lld want %lld; ",
						      f->name, field_num(&opts, f),
						      field_num(&want, f));
		} else if (strncmp(a, b, f->size)) {
			n += (size_t)snprintf(out + n, sizeof(out) - n,
					      "%s \"%.40s\" want \"%.40s\"; ", f->name, a, b);
		}
		if (n < sizeof(out) - 1 && f->given_off &&
		    *(const bool *)((const char *)&opts + f->given_off) !=
			    *(const bool *)((const char *)&want + f->given_off))
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s_given %d want %d; ",
					      f->name,
					      *(const bool *)((const char *)&opts + f->given_off),
					      *(const bool *)((const char *)&want + f->given_off));
	}
	return out;
}

/* Starts the expectation for the next accept() from the defaults. */
static void want_defaults(void)
{
	memset(&want, 0, sizeof(want));
	defaults_into(&want);
}

/* cmdline must parse, and give exactly the options in want. */
static void accept(const char *name, const char *cmdline)
{
	int rc = parse(cmdline);
	const char *d = rc ? "" : diff_opts();

	kt_check(rc == 0 && !*d, name, "cmdline \"%s\": %s%s", cmdline,
		 rc ? "rejected: " : "wrong options: ", rc ? err : d);
}

/*
 * cmdline must be rejected with a message holding every string in needles (NULL-ended).
 */
static void reject(const char *name, const char *cmdline, ...)
{
	va_list ap;
	const char *needle, *missing = NULL;
	int rc = parse(cmdline);

	va_start(ap, cmdline);
	while ((needle = va_arg(ap, const char *)))
		if (!missing && !strstr(err, needle))
			missing = needle;
	va_end(ap);
	if (rc != -1)
		kt_check(false, name, "cmdline \"%s\" returned %d, want -1 (err \"%s\")", cmdline,
			 rc, err);
	else
		kt_check(!missing && strlen(err) > 0, name,
			 "cmdline \"%s\": message \"%s\" lacks \"%s\"", cmdline, err,
			 missing ? missing : "(it is empty)");
}

static void defaults(void)
{
	struct boot_options d;

	memset(&d, 0x5a, sizeof(d));
	defaults_into(&d);
	KT_EQ_S("default test=all", d.test, "all");
	KT_EQ_U("default test_given false", d.test_given, 0);
	KT_EQ_S("default bench=none", d.bench, "none");
	KT_EQ_U("default bench_given false", d.bench_given, 0);
	KT_EQ_U("default cpus 0 (all)", d.cpus, 0);
	KT_EQ_U("default seed 0", d.seed, 0);
	KT_EQ_S("default crash empty", d.crash, "");
	KT_EQ_S("default test_fail empty", d.test_fail, "");
	KT_EQ_U("default ap_timeout_ms 5000", d.ap_timeout_ms, 5000);
	kt_check(d.ap_skip == -1, "default ap_skip -1", "ap_skip %ld", d.ap_skip);
	KT_EQ_S("default x2apic=auto", d.x2apic, "auto");
	KT_EQ_S("default numa=on", d.numa, "on");

	KT_EQ_S("default scheme=partial", d.scheme, "partial");
	KT_EQ_U("default scheme_given false", d.scheme_given, 0);
	KT_EQ_U("default bench_reps 0 (each benchmark's own)", d.bench_reps, 0);
	KT_EQ_U("default hackbench_groups 10", d.hackbench_groups, 10);
	KT_EQ_U("default hackbench_loops 20", d.hackbench_loops, 20);
	KT_EQ_U("default remote_objects 50000", d.remote_objects, 50000);
	KT_EQ_U("default scaling_ops 50000", d.scaling_ops, 50000);
	KT_EQ_U("default latency_samples 10000", d.latency_samples, 10000);
	KT_EQ_S("default fastpath=irq", d.fastpath, "irq");
	KT_EQ_U("default cpu_partial 0 (by size)", d.cpu_partial, 0);
	KT_EQ_S("default sheaf_capacity empty (the default rule)", d.sheaf_capacity, "");
	KT_EQ_U("default ipi_wait_us 200", d.ipi_wait_us, 200);
	KT_EQ_U("default slabinfo 0", d.slabinfo, 0);
	KT_EQ_S("default slub_debug empty", d.slub_debug, "");
	KT_EQ_S("default slub_debug_mode=locked", d.slub_debug_mode, "locked");
	KT_EQ_U("default freelist_hardened 0", d.freelist_hardened, 0);
	KT_EQ_U("default freelist_random 0", d.freelist_random, 0);
	KT_EQ_U("default init_on_alloc 0", d.init_on_alloc, 0);
	KT_EQ_U("default init_on_free 0", d.init_on_free, 0);
	KT_EQ_S("default replay_cpus empty", d.replay_cpus, "");
	KT_EQ_S("default replay_pace=asap", d.replay_pace, "asap");
	KT_EQ_U("default replay_scale 100 (as recorded)", d.replay_scale, 100);
	KT_EQ_S("default sweep: the study's grid", d.sweep,
		"lock,partial,partial/30,partial/480,sheaves,sheaves/4,sheaves/8,sheaves/16,"
		"sheaves/32,sheaves/64,sheaves/128,sheaves/linux7");
	KT_EQ_S("default sweep_work=mix,hackbench,replay", d.sweep_work, "mix,hackbench,replay");
	KT_EQ_S("default exit empty (debug-exit under a hypervisor, else halt)", d.exit, "");
	KT_EQ_S("default reboot empty (every way from acpi)", d.reboot, "");
	KT_EQ_U("default mem_map 0", d.mem_map, 0);
	KT_EQ_U("default pcp 1", d.pcp, 1);

	want_defaults();
	accept("empty command line: defaults", "");
	accept("blanks only: defaults", " \t  \t");
}

static void options(void)
{
	static const char *const crashes[] = {"pf", "gp",    "ud",	"de",
					      "df", "pf-ap", "lockrec", "panic"};
	char name[80], line[80];

	want_defaults();
	strcpy(want.test, "smp");
	want.test_given = true;
	accept("test=smp", "test=smp");

	want_defaults();
	want.test_given = true;
	accept("test=all still sets test_given", "test=all");

	want_defaults();
	strcpy(want.test, "smp.ipi,slab.alloc");
	want.test_given = true;
	accept("test= keeps commas and dots", "test=smp.ipi,slab.alloc");

	want_defaults();
	strcpy(want.test, "a=b");
	want.test_given = true;
	accept("test= value may hold '='", "test=a=b");

	want_defaults();
	want.bench_given = true;
	accept("bench=none sets bench_given only", "bench=none");

	want_defaults();
	strcpy(want.bench, "x");
	want.bench_given = true;
	accept("bench=x", "bench=x");

	want_defaults();
	want.cpus = 4;
	accept("cpus=4 leaves test_given false", "cpus=4");

	for (size_t i = 0; i < ARRAY_SIZE(crashes); i++) {
		want_defaults();
		strcpy(want.crash, crashes[i]);
		snprintf(name, sizeof(name), "crash=%s", crashes[i]);
		snprintf(line, sizeof(line), "crash=%s", crashes[i]);
		accept(name, line);
	}

	{
		static const char *const exits[] = { "halt", "reboot", "poweroff" };
		static const char *const ways[] = { "acpi", "pci", "kbd", "triple" };

		for (size_t i = 0; i < ARRAY_SIZE(exits); i++) {
			want_defaults();
			strcpy(want.exit, exits[i]);
			snprintf(line, sizeof(line), "exit=%s", exits[i]);
			accept(line, line);
		}
		for (size_t i = 0; i < ARRAY_SIZE(ways); i++) {
			want_defaults();
			strcpy(want.exit, "reboot");
			strcpy(want.reboot, ways[i]);
			snprintf(line, sizeof(line), "exit=reboot reboot=%s", ways[i]);
			accept(line, line);
		}
	}

	want_defaults();
	strcpy(want.test, "smp");
	want.test_given = true;
	want.cpus = 2;
	want.seed = 7;
	want.ap_timeout_ms = 500;
	want.ap_skip = 3;
	strcpy(want.crash, "gp");
	strcpy(want.bench, "none");
	want.bench_given = true;
	accept("all options at once",
	       "test=smp bench=none cpus=2 seed=7 crash=gp ap_timeout_ms=500 ap_skip=3");

	/* Every option at most once: the last one winning would drop the first silently. */
	reject("a repeated option is an error naming it", "cpus=2 cpus=3", "cpus= given twice",
	       "cpus=2", "cpus=3", NULL);
	reject("a repeated option with the same value", "test=smp test=smp", "test= given twice",
	       NULL);
	reject("a repeated option with other options between", "seed=1 test=smp cpus=2 seed=1",
	       "seed= given twice", NULL);
	reject("a repeated string option", "slub_debug=P slub_debug=Z", "slub_debug= given twice",
	       NULL);
	reject("a repeated option whose second value is bad", "cpus=2 cpus=x", "cpus=", NULL);
}

static void apic_mode(void)
{
	want_defaults();
	strcpy(want.x2apic, "off");
	accept("x2apic=off", "x2apic=off");
	strcpy(want.x2apic, "auto");
	accept("x2apic=auto", "x2apic=auto");
	reject("x2apic=on rejected, naming the choices", "x2apic=on", "x2apic", "auto", "off", NULL);
	strcpy(want.numa, "off");
	accept("numa=off", "numa=off");
	strcpy(want.numa, "on");
	reject("numa=2 rejected, naming the choices", "numa=2", "numa", "on", "off", NULL);
}

static void numbers(void)
{
	/* cpus: 1..4096 (NR_CPUS) */
	want_defaults();
	want.cpus = 1;
	accept("cpus=1 lowest", "cpus=1");
	want.cpus = 4096;
	accept("cpus=4096 highest", "cpus=4096");
	reject("cpus=0 rejected", "cpus=0", "cpus", "'0'", "1..4096", NULL);
	reject("cpus=4097 rejected", "cpus=4097", "cpus", "'4097'", "1..4096", NULL);
	reject("cpus=4294967297 rejected, not wrapped to 1", "cpus=4294967297", "cpus", NULL);
	reject("cpus=4294967296 rejected, not wrapped to 0", "cpus=4294967296", "cpus", NULL);
	want.cpus = 16;
	accept("cpus=0x10 hex", "cpus=0x10");
	want.cpus = 31;
	accept("cpus=0X1f hex, upper X, mixed case", "cpus=0X1f");
	want.cpus = 4096;
	accept("cpus=0x1000 hex highest", "cpus=0x1000");
	reject("cpus=0x1001 rejected", "cpus=0x1001", "cpus", NULL);
	/* No octal (Linux's kstrtoul base 0 reads 010 as 8): a decimal leading zero is an error. */
	reject("cpus=010 leading zero rejected", "cpus=010", "'010'", "cpus=", "leading zero",
	       "octal", NULL);
	reject("cpus=0000007 leading zeros rejected", "cpus=0000007", "'0000007'", "leading zero",
	       NULL);
	reject("cpus=00 rejected", "cpus=00", "leading zero", NULL);
	want.cpus = 7;
	accept("cpus=0x0000007 hex may have leading zeros", "cpus=0x0000007");
	want.cpus = 16;
	accept("cpus=0x010 is hex 16", "cpus=0x010");
	reject("cpus=2x trailing garbage", "cpus=2x", "'2x'", "cpus=", NULL);
	reject("cpus=2, trailing comma", "cpus=2,", "'2,'", NULL);
	reject("cpus= 2: a blank ends the value, which is empty", "cpus= 2", "cpus= needs a value",
	       NULL);
	reject("cpus= empty value", "cpus=", "cpus", NULL);
	reject("cpus=0x without digits", "cpus=0x", "cpus", "'0x'", NULL);
	reject("cpus=0xg bad hex digit", "cpus=0xg", "cpus", NULL);
	reject("cpus=12a trailing garbage", "cpus=12a", "cpus", "'12a'", NULL);
	reject("cpus=a12 leading garbage", "cpus=a12", "cpus", NULL);
	reject("cpus=-1 no sign", "cpus=-1", "cpus", NULL);
	reject("cpus=+4 no sign", "cpus=+4", "cpus", NULL);
	reject("cpus=4k no suffix", "cpus=4k", "cpus", NULL);
	reject("cpus=abc names the value", "cpus=abc", "cpus", "'abc'", NULL);
	reject("cpus=ff hex digits need 0x", "cpus=ff", "cpus", NULL);

	/* seed: the whole u64 */
	want_defaults();
	want.seed = 0;
	accept("seed=0", "seed=0");
	want.seed = 12345678901234567890ULL;
	accept("seed=12345678901234567890", "seed=12345678901234567890");
	want.seed = UINT64_MAX;
	accept("seed=18446744073709551615 (u64 max)", "seed=18446744073709551615");
	accept("seed=0xffffffffffffffff (u64 max)", "seed=0xffffffffffffffff");
	accept("seed=0xFFFFFFFFFFFFFFFF upper case", "seed=0xFFFFFFFFFFFFFFFF");
	reject("seed=18446744073709551616 overflows", "seed=18446744073709551616", "seed", NULL);
	reject("seed=18446744073709551620 overflows", "seed=18446744073709551620", "seed", NULL);
	reject("seed=99999999999999999999 overflows", "seed=99999999999999999999", "seed", NULL);
	reject("seed=0x10000000000000000 overflows", "seed=0x10000000000000000", "seed", NULL);
	reject("seed=0x1ffffffffffffffff overflows", "seed=0x1ffffffffffffffff", "seed", NULL);
	want.seed = 1;
	accept("seed=0x0000000000000000000001 leading zeros do not overflow",
	       "seed=0x0000000000000000000001");
	reject("seed=000000000000000000000000001 leading zeros rejected",
	       "seed=000000000000000000000000001", "leading zero", NULL);
	reject("seed=00 rejected", "seed=00", "leading zero", NULL);
	want.seed = 0xdeadbeefULL;
	accept("seed=0xDeadBeef", "seed=0xDeadBeef");
	reject("seed= empty value", "seed=", "seed", NULL);
	reject("seed=0x without digits", "seed=0x", "seed", NULL);
	want.seed = 1ULL << 63;
	accept("seed=9223372036854775808 (2^63)", "seed=9223372036854775808");

	/* ap_timeout_ms: 1..60000 in a u32 */
	want_defaults();
	want.ap_timeout_ms = 1;
	accept("ap_timeout_ms=1 lowest", "ap_timeout_ms=1");
	want.ap_timeout_ms = 60000;
	accept("ap_timeout_ms=60000 highest", "ap_timeout_ms=60000");
	reject("ap_timeout_ms=0 rejected", "ap_timeout_ms=0", "ap_timeout_ms", "1..60000", NULL);
	reject("ap_timeout_ms=60001 rejected", "ap_timeout_ms=60001", "ap_timeout_ms", NULL);
	reject("ap_timeout_ms=4294967297 rejected, not wrapped", "ap_timeout_ms=4294967297",
	       "ap_timeout_ms", NULL);

	/* ap_skip: 0..0xffffffff in a long */
	want_defaults();
	want.ap_skip = 0;
	accept("ap_skip=0", "ap_skip=0");
	want.ap_skip = 255;
	accept("ap_skip=0xff", "ap_skip=0xff");
	want.ap_skip = 4294967295L;
	accept("ap_skip=4294967295 highest", "ap_skip=4294967295");
	reject("ap_skip=4294967296 rejected", "ap_skip=4294967296", "ap_skip", NULL);
	reject("ap_skip=-1 rejected", "ap_skip=-1", "ap_skip", NULL);
	reject("ap_skip= empty value", "ap_skip=", "ap_skip", NULL);
}

static void bad_input(void)
{
	char *line, *expect;
	const char *names[] = {
	    "test=", "bench=", "cpus=", "seed=", "crash=", "ap_timeout_ms=", "ap_skip="};
	bool all = true;

	/* Unknown options name themselves and list the valid ones. */
	reject("unknown option bogus=1", "bogus=1", "unknown option", "'bogus'", "valid options",
	       NULL);
	parse("bogus=1");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		all = all && strstr(err, names[i]);
	kt_check(all, "unknown option message lists every option", "message \"%s\"", err);
	reject("unknown option without a value", "verbose", "unknown option", "'verbose'",
	       "valid options", NULL);
	reject("option name prefix cpu= is unknown", "cpu=4", "unknown option", "'cpu'", NULL);
	reject("option name extension cpusx= is unknown", "cpusx=4", "unknown option", "'cpusx'",
	       NULL);
	reject("option names are case-sensitive", "CPUS=4", "unknown option", "'CPUS'", NULL);
	reject("empty option name", "=5", "unknown option", NULL);
	reject("unknown option after good ones", "test=smp cpus=2 bogus", "unknown option",
	       "'bogus'", NULL);

	/* Values: missing, empty, too long, not one of the choices. */
	reject("cpus without '=' needs a value", "cpus", "needs a value", "cpus=", NULL);
	reject("test without '=' needs a value", "test", "needs a value", "test=", NULL);
	reject("test= empty needs a value", "test=", "test=", "needs a value", NULL);
	reject("bench= empty needs a value", "bench=", "bench=", "needs a value", NULL);
	reject("crash= empty needs a value", "crash=", "crash= needs a value", NULL);
	reject("exit=shutdown is a bad value listing the choices", "exit=shutdown",
	       "bad value 'shutdown'", "halt", "reboot", "poweroff", NULL);
	reject("exit=Reboot (case) is a bad value", "exit=Reboot", "bad value 'Reboot'", NULL);
	reject("reboot=bios is a bad value listing the choices", "exit=reboot reboot=bios",
	       "bad value 'bios'", "acpi", "pci", "kbd", "triple", NULL);
	reject("crash=PF (case) is a bad value", "crash=PF", "bad value 'PF'", "crash=", NULL);
	reject("crash=p (prefix) is a bad value", "crash=p", "bad value 'p'", NULL);
	reject("crash=pfx (extension) is a bad value", "crash=pfx", "bad value 'pfx'", NULL);
	reject("crash=pf,gp is a bad value", "crash=pf,gp", "bad value", NULL);
	reject("crash bad value lists the choices", "crash=boom",
	       "pf gp ud de df pf-ap lockrec panic", NULL);
	reject("cpus=4=5 is a bad value", "cpus=4=5", "'4=5'", NULL);

	want_defaults();
	want.test_given = true;
	memset(want.test, 'x', OPT_STR_MAX - 1);
	want.test[OPT_STR_MAX - 1] = '\0';
	line = malloc(OPT_STR_MAX + 16);
	sprintf(line, "test=%s", want.test);
	accept("test= of 255 characters fits", line);
	strcat(line, "y");
	expect = malloc(64);
	sprintf(expect, "longer than %d", OPT_STR_MAX - 1);
	reject("test= of 256 characters is too long", line, "test=", expect, NULL);
	sprintf(line, "bench=%0*d", OPT_STR_MAX, 0);
	reject("bench= of 256 characters is too long", line, "bench=", expect, NULL);
	free(line);
	free(expect);
	line = malloc(400);
	sprintf(line, "crash=%0*d", 300, 7);
	reject("crash= of 300 characters is a bad value", line, "crash=", NULL);
	free(line);
}

/* scheme= is a comma list of schemes of the registry (its check), "all" alone. */
static void schemes_and_bench_sizes(void)
{
	want_defaults();
	strcpy(want.scheme, "lock");
	want.scheme_given = true;
	accept("scheme=lock", "scheme=lock");
	strcpy(want.scheme, "partial");
	accept("scheme=partial (the default, given) sets scheme_given", "scheme=partial");
	strcpy(want.scheme, "sheaves,lock,partial");
	accept("scheme= list keeps its order", "scheme=sheaves,lock,partial");
	strcpy(want.scheme, "all");
	accept("scheme=all", "scheme=all");
	reject("scheme=nosuch: no such scheme, the valid ones listed", "scheme=nosuch",
	       "no scheme named 'nosuch' in this kernel; valid: all lock partial sheaves", NULL);
	reject("scheme=lock,nosuch: a bad name after a good one", "scheme=lock,nosuch",
	       "no scheme named 'nosuch'", NULL);
	reject("scheme=lockx: a name is whole, not a prefix", "scheme=lockx", "'lockx'", NULL);
	reject("scheme= empty needs a value", "scheme=", "scheme=", "needs a value", NULL);
	reject("scheme=lock, trailing comma", "scheme=lock,", "empty item", NULL);
	reject("scheme=,lock leading comma", "scheme=,lock", "empty item", NULL);
	reject("scheme=lock,,partial empty item", "scheme=lock,,partial", "empty item",
	       "lock,,partial", NULL);
	reject("scheme=, alone", "scheme=,", "empty item", NULL);

	want_defaults();
	want.bench_reps = 1;
	want.hackbench_groups = 1;
	want.hackbench_loops = 1;
	want.remote_objects = 1;
	want.scaling_ops = 1;
	want.latency_samples = 1;
	accept("benchmark sizes at their lowest",
	       "bench_reps=1 hackbench_groups=1 hackbench_loops=1 remote_objects=1 scaling_ops=1 "
	       "latency_samples=1");
	want.bench_reps = 1001;
	want.hackbench_groups = 1000;
	want.hackbench_loops = 1000000;
	want.remote_objects = 100000000;
	want.scaling_ops = 100000000;
	want.latency_samples = 1000000;
	accept("benchmark sizes at their highest",
	       "bench_reps=1001 hackbench_groups=1000 hackbench_loops=1000000 "
	       "remote_objects=100000000 scaling_ops=100000000 latency_samples=1000000");
	reject("bench_reps=0 rejected", "bench_reps=0", "bench_reps", "1..1001", NULL);
	reject("bench_reps=1002 rejected", "bench_reps=1002", "bench_reps", NULL);
	reject("hackbench_groups=0 rejected", "hackbench_groups=0", "hackbench_groups", NULL);
	reject("hackbench_groups=1001 rejected", "hackbench_groups=1001", "1..1000", NULL);
	reject("hackbench_loops=0 rejected", "hackbench_loops=0", "hackbench_loops", NULL);
	reject("remote_objects=0 rejected", "remote_objects=0", "remote_objects", NULL);
	reject("scaling_ops=x rejected", "scaling_ops=x", "scaling_ops", "'x'", NULL);
	reject("latency_samples=1000001 rejected", "latency_samples=1000001", "latency_samples",
	       NULL);
}

/* replay_cpus=: CPU numbers, checked for shape here (against the CPUs online at replay). */
static void replay_options(void)
{
	want_defaults();
	strcpy(want.replay_cpus, "0,1,1,3");
	accept("replay_cpus=0,1,1,3", "replay_cpus=0,1,1,3");
	strcpy(want.replay_cpus, "7");
	accept("replay_cpus=7 (one CPU for every stream)", "replay_cpus=7");
	reject("replay_cpus= empty", "replay_cpus=", "replay_cpus=", NULL);
	reject("replay_cpus=0,x", "replay_cpus=0,x", "'x' is not a CPU number", NULL);
	reject("replay_cpus=0,,1", "replay_cpus=0,,1", "'' is not a CPU number", NULL);
	reject("replay_cpus=1, trailing comma", "replay_cpus=1,", "ends with a comma", NULL);
	reject("replay_cpus=01 leading zero", "replay_cpus=01", "'01' is not a CPU number", NULL);
	reject("replay_cpus=-1", "replay_cpus=-1", "'-1' is not a CPU number", NULL);

	want_defaults();
	strcpy(want.replay_pace, "original");
	accept("replay_pace=original", "replay_pace=original");
	want.replay_scale = 500;
	accept("replay_pace=original replay_scale=500", "replay_pace=original replay_scale=500");
	want.replay_scale = 1;
	accept("replay_scale=1 (the lowest)", "replay_pace=original replay_scale=1");
	want.replay_scale = 1000000;
	accept("replay_scale=1000000 (the highest)", "replay_pace=original replay_scale=1000000");
	want_defaults();
	accept("replay_pace=asap", "replay_pace=asap");
	reject("replay_pace=fast names the choices", "replay_pace=fast",
	       "bad value 'fast' for replay_pace=", "asap", "original", NULL);
	reject("replay_pace= empty", "replay_pace=", "replay_pace", NULL);
	reject("replay_scale=0", "replay_scale=0", "replay_scale", "1..1000000", NULL);
	reject("replay_scale=1000001", "replay_scale=1000001", "1..1000000", NULL);
	reject("replay_scale=1.5", "replay_scale=1.5", "bad value '1.5' for replay_scale=", NULL);
}

/* sweep= and sweep_work= (bench=sweep's grid). */
static void sweep_options(void)
{
	want_defaults();
	strcpy(want.sweep, "lock,partial/1,partial/100000,sheaves/1,sheaves/500,sheaves/linux7,"
			   "sheaves/slablab,sheaves,partial");
	accept("sweep= every kind of setting, numbers at their ends",
	       "sweep=lock,partial/1,partial/100000,sheaves/1,sheaves/500,sheaves/linux7,"
	       "sheaves/slablab,sheaves,partial");
	strcpy(want.sweep_work, "replay");
	accept("sweep_work=replay", "sweep=lock,partial/1,partial/100000,sheaves/1,sheaves/500,"
	       "sheaves/linux7,sheaves/slablab,sheaves,partial sweep_work=replay");
	reject("sweep=sheaves/0", "sweep=sheaves/0", "'sheaves/0' is not a setting", NULL);
	reject("sweep=sheaves/501", "sweep=lock,sheaves/501", "'sheaves/501' is not a setting", NULL);
	reject("sweep=partial/100001", "sweep=partial/100001", "'partial/100001' is not a setting",
	       NULL);
	reject("sweep=lock/3", "sweep=lock/3", "'lock/3' is not a setting", NULL);
	reject("sweep=sheaves/linux6", "sweep=sheaves/linux6", "'sheaves/linux6' is not a setting",
	       NULL);
	reject("sweep=ipi", "sweep=ipi", "'ipi' is not a setting", NULL);
	reject("sweep=sheaves/032", "sweep=sheaves/032", "'sheaves/032' is not a setting", NULL);
	reject("sweep_work=fastpath", "sweep_work=mix,fastpath", "'fastpath' is not a workload",
	       NULL);
}

/* test=, bench=, scheme=: comma lists without empty items, repeats or a lone word mixed in. */
static void lists(void)
{
	reject("test=smp, trailing comma", "test=smp,", "empty item in test=smp,", NULL);
	reject("test=smp,,time empty item", "test=smp,,time", "empty item in test=smp,,time",
	       NULL);
	reject("test=,smp leading comma", "test=,smp", "empty item in test=,smp", NULL);
	reject("test=, alone", "test=,", "empty item in test=,", NULL);
	reject("bench=fastpath, trailing comma", "bench=fastpath,", "empty item in bench=", NULL);
	reject("bench=none,fastpath: none stands alone", "bench=none,fastpath", "'none'",
	       "stands alone", NULL);
	reject("bench=fastpath,all: all stands alone", "bench=fastpath,all", "'all'",
	       "stands alone", NULL);
	reject("test=all,smp: all stands alone", "test=all,smp", "'all'", "stands alone", NULL);
	reject("test=none,none", "test=none,none", "stands alone", NULL);
	reject("scheme=all,lock: all stands alone", "scheme=all,lock", "stands alone", NULL);
	reject("test=smp,smp names smp twice", "test=smp,smp", "test=smp,smp names 'smp' twice",
	       NULL);
	reject("bench=bulk,fastpath,bulk names bulk twice", "bench=bulk,fastpath,bulk",
	       "names 'bulk' twice", NULL);
	reject("scheme=lock,partial,lock names lock twice", "scheme=lock,partial,lock",
	       "names 'lock' twice", NULL);
	want_defaults();
	strcpy(want.test, "smp,smp.cpus_online,smpx");
	want.test_given = true;
	accept("test=smp,smp.cpus_online,smpx: different items", "test=smp,smp.cpus_online,smpx");
	want_defaults();
	strcpy(want.test, "none");
	want.test_given = true;
	accept("test=none alone", "test=none");
	want_defaults();
	strcpy(want.bench, "all");
	want.bench_given = true;
	accept("bench=all alone", "bench=all");
	want_defaults();
	strcpy(want.bench, "nonesuch,allx");
	want.bench_given = true;
	accept("bench=nonesuch,allx: only whole items are all and none", "bench=nonesuch,allx");
}

static void blanks_and_path(void)
{
	want_defaults();
	strcpy(want.test, "smp");
	want.test_given = true;
	want.cpus = 2;
	want.seed = 7;
	accept("blanks: spaces and tabs between, before and after",
	       " \t test=smp\t\tcpus=2   seed=7 \t");
	accept("blanks: one tab between options", "test=smp\tcpus=2\tseed=7");

	/* GRUB 2.06's multiboot2 passes no kernel path: a path is an unknown option anywhere. */
	reject("a leading kernel path is an unknown option", "/boot/slablab.elf test=smp",
	       "unknown option", "'/boot/slablab.elf'", NULL);
	reject("a leading kernel path after blanks is an unknown option",
	       " \t/boot/slablab.elf  test=smp", "unknown option", "'/boot/slablab.elf'", NULL);
	reject("a kernel path alone is an unknown option", "/boot/slablab.elf", "unknown option",
	       "'/boot/slablab.elf'", NULL);
	reject("a path after the first token is an unknown option", "test=smp /boot/slablab.elf",
	       "unknown option", "'/boot/slablab.elf'", NULL);
	reject("a path with '=' is an unknown option", "/x=1", "unknown option", "'/x'", NULL);
}

static void messages(void)
{
	char full[1024], *small;
	int rc;

	/* The same message in a small buffer: cut short and terminated, nothing past it. */
	parse("cpus=9999");
	strcpy(full, err);
	small = malloc(16); /* exact size: ASan sees a write past it */
	memset(small, 0x5a, 16);
	rc = cmdline_parse("cpus=9999", small, 16);
	kt_check(rc == -1 && strlen(full) > 15 && !strncmp(small, full, 15) && small[15] == '\0',
		 "error message cut to a 16-byte buffer", "rc %d, got \"%.16s\", full \"%s\"", rc,
		 small, full);
	rc = cmdline_parse("nope", small, 1);
	kt_check(rc == -1 && small[0] == '\0', "error message in a 1-byte buffer is empty",
		 "rc %d, small[0] = 0x%02x", rc, (unsigned char)small[0]);
	free(small);
	rc = cmdline_parse("nope", NULL, 0);
	kt_check(rc == -1, "error with no message buffer (NULL, 0)", "rc %d", rc);

	/* cmdline_help() lists every option as name=. */
	kt_check(strstr(cmdline_help(), "test=") && strstr(cmdline_help(), "bench=") &&
		     strstr(cmdline_help(), "cpus=") && strstr(cmdline_help(), "seed=") &&
		     strstr(cmdline_help(), "crash=") && strstr(cmdline_help(), "ap_timeout_ms=") &&
		     strstr(cmdline_help(), "ap_skip="),
		 "cmdline_help lists every option", "help \"%s\"", cmdline_help());
}

/* slub_debug=: Linux's letters, cache lists, prefixes and blocks; bad specs rejected. */
static void flags_for(const char *spec, const char *cache, unsigned long want_flags)
{
	unsigned long f = 0xdead;
	int rc = slub_debug_parse(spec, cache, &f, err, sizeof(err));
	char name[128];

	snprintf(name, sizeof(name), "slub_debug=%s gives %s %#lx", spec, cache, want_flags);
	kt_check(rc == 0 && f == want_flags, name,
		 "rc %d, flags %#lx (err \"%s\")", rc, f, err);
}

static void slub_debug_specs(void)
{
	const unsigned long F = SLAB_CONSISTENCY_CHECKS, Z = SLAB_RED_ZONE, P = SLAB_POISON,
			    U = SLAB_STORE_USER;

	flags_for("FZPU", "kmalloc-64", F | Z | P | U);
	flags_for("P", "anything", P);
	flags_for("fz", "anything", F | Z);
	flags_for("-", "kmalloc-64", 0);
	flags_for(",kmalloc-64", "kmalloc-64", F | Z | P | U);
	flags_for(",kmalloc-64", "kmalloc-128", 0);
	flags_for("P,kmalloc-*", "kmalloc-8", P);
	flags_for("P,kmalloc-*", "dentry", 0);
	flags_for("U,a,b", "b", U);
	flags_for("FZ;P,kmalloc-64", "kmalloc-64", P);
	flags_for("FZ;P,kmalloc-64", "other", F | Z);
	flags_for("P,kmalloc-64;Z,kmalloc-*", "kmalloc-64", P); /* the first naming it decides */
	flags_for("P,kmalloc-64;Z,kmalloc-*", "kmalloc-8", Z);
	flags_for("P,kmalloc-6*;Z,kmalloc-*", "kmalloc-8", Z);
	flags_for("-,kmalloc-64;P", "kmalloc-64", 0);
	flags_for("-,kmalloc-64;P", "kmalloc-8", P);
	flags_for("PZ,a", "b", 0);
	want_defaults();
	strcpy(want.slub_debug, "FZPU,kmalloc-*");
	strcpy(want.slub_debug_mode, "partial");
	want.freelist_hardened = want.freelist_random = want.init_on_alloc = want.init_on_free = 1;
	accept("slub_debug and the hardening options",
	       "slub_debug=FZPU,kmalloc-* slub_debug_mode=partial freelist_hardened=1 "
	       "freelist_random=1 init_on_alloc=1 init_on_free=1");
	kt_check(!strcmp(opts.slub_debug, "FZPU,kmalloc-*") && !strcmp(opts.slub_debug_mode, "partial") &&
			 opts.freelist_hardened && opts.freelist_random && opts.init_on_alloc &&
			 opts.init_on_free,
		 "slub_debug options land in boot_options", "slub_debug \"%s\" mode \"%s\"",
		 opts.slub_debug, opts.slub_debug_mode);
	reject("slub_debug with a letter Linux has but slablab not", "slub_debug=FA",
	       "'A' is not a debug letter", NULL);
	reject("slub_debug with an empty cache name", "slub_debug=F,,x", "cache name", NULL);
	reject("slub_debug with a cache name too long", "slub_debug=F,a_cache_name_of_more_than_31_chars",
	       "1..31 characters", NULL);
	reject("slub_debug with no value", "slub_debug=", "needs a value", NULL);
	/* Nothing in a spec may be without effect (stricter than Linux, which lets the last
	 * block for every cache win and ignores empty blocks and shadowed names). */
	reject("slub_debug=P; trailing empty block", "slub_debug=P;", "empty block", NULL);
	reject("slub_debug=;P leading empty block", "slub_debug=;P", "empty block", NULL);
	reject("slub_debug=P;;Z empty block", "slub_debug=P;;Z", "empty block", NULL);
	reject("slub_debug=; alone", "slub_debug=;", "empty block", NULL);
	reject("slub_debug=P;Z two blocks for every cache", "slub_debug=P;Z",
	       "two blocks for every cache", "'P'", "'Z'", NULL);
	reject("slub_debug=P;Z,a;F two blocks for every cache", "slub_debug=P;Z,a;F",
	       "two blocks for every cache", "'P'", "'F'", NULL);
	reject("slub_debug=P,a,a a name twice", "slub_debug=P,a,a", "'a' would never apply",
	       NULL);
	reject("slub_debug=Z,x;P,x a name in two blocks", "slub_debug=Z,x;P,x",
	       "'x' would never apply", "first block", NULL);
	reject("slub_debug=Z,kmalloc-*;P,kmalloc-64 a name a prefix covers",
	       "slub_debug=Z,kmalloc-*;P,kmalloc-64", "'kmalloc-64' would never apply",
	       "'kmalloc-*'", NULL);
	reject("slub_debug=Z,kmalloc-*;P,kmalloc-6* a prefix a prefix covers",
	       "slub_debug=Z,kmalloc-*;P,kmalloc-6*", "'kmalloc-6*' would never apply", NULL);
	reject("slub_debug=Z,* then any name", "slub_debug=Z,*,a", "'a' would never apply", NULL);
	reject("slub_debug=P,kmal*oc '*' inside a name", "slub_debug=P,kmal*oc",
	       "only at the end", NULL);
	reject("slub_debug=-P '-' with letters", "slub_debug=-P", "'-'", "stands alone", NULL);
	reject("slub_debug=F- '-' with letters", "slub_debug=F-", "stands alone", NULL);
	reject("slub_debug_mode unknown", "slub_debug_mode=fast", "slub_debug_mode", "partial", NULL);
	reject("init_on_alloc=2", "init_on_alloc=2", "0..1", NULL);
}

/*
 * The options this program links are the kernel's (tests/host/host.mk): each field above is
 * one of them with its type and size, each has a name, help and a sane range, and the parser
 * finds every one by its name and lists it.
 */
static void registry(void)
{
	struct boot_param *p;
	unsigned int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		struct boot_param *q = boot_param_find(fields[i].name, strlen(fields[i].name));
		char name[80];

		snprintf(name, sizeof(name), "option %s= registered with its type and size",
			 fields[i].name);
		kt_check(param_of(&fields[i]) != NULL, name, "%s: type %d size %zu, want type %d size %zu",
			 q ? "registered" : "not registered", q ? (int)q->type : -1,
			 q ? q->size : 0, (int)fields[i].type, fields[i].size);
	}
	for (unsigned int i = 0; (p = boot_param_at(i)); i++, n++) {
		char name[80], word[64];
		bool ok = p->name[0] && p->help && p->help[0] && p->var && p->size;
		const char *why = "a name, help, a variable";

		if (ok && p->type == BOOT_PARAM_UINT) {
			ok = (p->size == 4 || p->size == 8) && p->min <= p->max &&
			     (p->size == 8 || p->max <= 0xffffffffULL);
			why = "a range that fits its variable";
		} else if (ok && p->type == BOOT_PARAM_ENUM) {
			ok = p->choices && p->choices[0] && p->dflt_str;
			for (const char *const *c = p->choices; ok && *c; c++)
				ok = strlen(*c) < p->size;
			why = "choices that fit its variable";
		} else if (ok) {
			ok = p->dflt_str && strlen(p->dflt_str) < p->size;
			why = "a default that fits";
		}
		snprintf(word, sizeof(word), "%s=", p->name);
		ok = ok && boot_param_find(p->name, strlen(p->name)) == p &&
		     strstr(cmdline_help(), word);
		snprintf(name, sizeof(name), "option %s= is well-formed and listed", p->name);
		kt_check(ok, name, "needs %s, to be found by name and in \"%s\"", why,
			 cmdline_help());
	}
	KT_EQ_U("every registered option is a field of this test", n, ARRAY_SIZE(fields));
}

/* The slab allocator's options: scheme= and fastpath= (mm/slab_common.c), the budgets. */
static void slab_options(void)
{
	want_defaults();
	strcpy(want.fastpath, "cmpxchg");
	accept("fastpath=cmpxchg", "fastpath=cmpxchg");
	strcpy(want.fastpath, "irq");
	accept("fastpath=irq", "fastpath=irq");
	reject("fastpath=fast", "fastpath=fast", "bad value 'fast' for fastpath=", "irq cmpxchg",
	       NULL);

	want_defaults();
	want.cpu_partial = 1;
	strcpy(want.sheaf_capacity, "1");
	want.ipi_wait_us = 0;
	want.slabinfo = 1;
	accept("cpu_partial, sheaf_capacity, ipi_wait_us at their lowest, slabinfo=1",
	       "cpu_partial=1 sheaf_capacity=1 ipi_wait_us=0 slabinfo=1");
	want.cpu_partial = 100000;
	strcpy(want.sheaf_capacity, "500");
	want.ipi_wait_us = 1000000;
	want.slabinfo = 0;
	accept("cpu_partial, sheaf_capacity, ipi_wait_us at their highest, slabinfo=0",
	       "cpu_partial=100000 sheaf_capacity=500 ipi_wait_us=1000000 slabinfo=0");
	reject("cpu_partial=0 rejected", "cpu_partial=0", "cpu_partial", "1..100000", NULL);
	reject("cpu_partial=100001 rejected", "cpu_partial=100001", "cpu_partial", NULL);
	reject("sheaf_capacity=0 rejected", "sheaf_capacity=0", "sheaf_capacity", "1..500", NULL);
	reject("sheaf_capacity=501 rejected", "sheaf_capacity=501", "sheaf_capacity", NULL);
	reject("sheaf_capacity=050 rejected (a leading zero)", "sheaf_capacity=050",
	       "sheaf_capacity", "linux7 or slablab", NULL);
	reject("sheaf_capacity=linux6 rejected", "sheaf_capacity=linux6", "sheaf_capacity",
	       "linux7 or slablab", NULL);
	want_defaults();
	strcpy(want.sheaf_capacity, "linux7");
	accept("sheaf_capacity=linux7", "sheaf_capacity=linux7");
	strcpy(want.sheaf_capacity, "slablab");
	accept("sheaf_capacity=slablab", "sheaf_capacity=slablab");
	reject("ipi_wait_us=1000001 rejected", "ipi_wait_us=1000001", "ipi_wait_us",
	       "0..1000000", NULL);
	reject("slabinfo=2 rejected", "slabinfo=2", "slabinfo", "0..1", NULL);
	reject("pcp=2 rejected", "pcp=2", "pcp", "0..1", NULL);
	want_defaults();
	want.pcp = 0;
	accept("pcp=0", "pcp=0");
	reject("a repeated slab option", "scheme=lock test=smp scheme=lock",
	       "option scheme= given twice (scheme=lock, then scheme=lock)", NULL);
}

int main(void)
{
	registry();
	defaults();
	options();
	numbers();
	apic_mode();
	bad_input();
	schemes_and_bench_sizes();
	lists();
	blanks_and_path();
	messages();
	slub_debug_specs();
	slab_options();
	replay_options();
	sweep_options();
	return kt_finish();
}
