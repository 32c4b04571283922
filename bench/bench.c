// SPDX-License-Identifier: MIT
/*
 * The benchmark runner and what every benchmark shares (see bench.h): output helpers, the
 * scheme selection, the meta line before and the summary after, self-check failures,
 * seeded random numbers, and starting and handing off work between CPUs without spinning.
 */
#include "bench/bench.h"
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
#include "kernel/screen.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

extern const struct bench *const __benches_start[], *const __benches_end[];

const char *bench_accel(void)
{
	return arch_accel();
}

bool bench_emulated(void)
{
	return !strcmp(arch_accel(), "tcg");
}

char *bench_fmt(char *buf, size_t n, u64 tenths)
{
	snprintf(buf, n, "%llu.%llu", (unsigned long long)(tenths / 10),
		 (unsigned long long)(tenths % 10));
	return buf;
}

u64 bench_tenths_to_ns(u64 cycles_tenths)
{
	return cycles_to_ns(cycles_tenths);
}

static void sort_u64(u64 *a, int n)
{
	for (int i = 1; i < n; i++) {
		u64 v = a[i];
		int j = i - 1;

		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

/* Per operation, in tenths, rounded to nearest. */
static u64 per_op(u64 total, u64 ops)
{
	return (total * 10 + ops / 2) / ops;
}

void bench_summarize(u64 *s, int n, u64 ops, struct bench_stats *out)
{
	sort_u64(s, n);
	out->min = per_op(s[0], ops);
	out->max = per_op(s[n - 1], ops);
	out->median = n % 2 ? per_op(s[n / 2], ops) : per_op(s[n / 2 - 1] + s[n / 2], ops * 2);
	out->p10 = per_op(s[n / 10], ops);
	out->p90 = per_op(s[n - 1 - n / 10], ops);
}

void bench_stats_cycles_to_ms(struct bench_stats *st)
{
	/* Tenths of a cycle count -> tenths of a millisecond: the same factor as cycles -> ms. */
	st->median = cycles_to_ns(st->median) / 1000000;
	st->p10 = cycles_to_ns(st->p10) / 1000000;
	st->p90 = cycles_to_ns(st->p90) / 1000000;
	st->min = cycles_to_ns(st->min) / 1000000;
	st->max = cycles_to_ns(st->max) / 1000000;
}

/*
 * What an arch adds to the run (arch hooks, weak here: the kernel adds nothing). The host
 * build (tools/bench-host/suite.c) puts the machine's noise there: a fragment for every
 * figure's JSON line (",\"nivcsw\":3", involuntary context switches since the line before),
 * and lines after the meta line and after the summary.
 */
__attribute__((weak)) const char *bench_arch_figure_extra(void)
{
	return "";
}

__attribute__((weak)) void bench_arch_meta(void)
{
}

__attribute__((weak)) void bench_arch_end(void)
{
}

static const char *params_extra = "";
void (*bench_cache_tune)(struct kmem_cache *s);

void bench_set_params_extra(const char *fragment)
{
	params_extra = fragment ? fragment : "";
}

void bench_json(const char *bench, const char *params, const char *figure, u64 value,
		const char *unit, const struct bench_stats *sp)
{
	char v[32], a[32], b[32], c[32], d[32];

	if (sp)
		printk("{\"bench\":\"%s\",%s%s,\"figure\":\"%s\",\"value\":%s,\"unit\":\"%s\","
		       "\"p10\":%s,\"p90\":%s,\"min\":%s,\"max\":%s,\"accel\":\"%s\",\"emulated\":%s,"
		       "\"cpus\":%d%s}\n",
		       bench, params, params_extra, figure, bench_fmt(v, sizeof(v), value), unit,
		       bench_fmt(a, sizeof(a), sp->p10), bench_fmt(b, sizeof(b), sp->p90),
		       bench_fmt(c, sizeof(c), sp->min), bench_fmt(d, sizeof(d), sp->max),
		       bench_accel(), bench_emulated() ? "true" : "false", nr_cpu_ids,
		       bench_arch_figure_extra());
	else
		printk("{\"bench\":\"%s\",%s%s,\"figure\":\"%s\",\"value\":%s,\"unit\":\"%s\","
		       "\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%d%s}\n",
		       bench, params, params_extra, figure, bench_fmt(v, sizeof(v), value), unit,
		       bench_accel(), bench_emulated() ? "true" : "false", nr_cpu_ids,
		       bench_arch_figure_extra());
}

void bench_json_signed(const char *bench, const char *params, const char *figure, s64 value,
		       const char *unit)
{
	char v[32];

	printk("{\"bench\":\"%s\",%s%s,\"figure\":\"%s\",\"value\":%s,\"unit\":\"%s\","
	       "\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%d%s}\n",
	       bench, params, params_extra, figure, bench_fmt_signed(v, sizeof(v), value), unit,
	       bench_accel(), bench_emulated() ? "true" : "false", nr_cpu_ids,
	       bench_arch_figure_extra());
}

/* ---- memory figures ---- */

/* The figures of one cache's memory, or of the sums ("all"): m's fields as u64. */
static void mem_figures(const char *bench, const char *params, const char *cache,
			const struct bench_mem_sum *m)
{
	char p[400];
	u64 live = m->live_bytes, held = m->pages * PAGE_SIZE;

	snprintf(p, sizeof(p), "%s,\"cache\":\"%s\"", params, cache);
	bench_json(bench, p, "mem_pages", m->pages * 10, "pages", NULL);
	bench_json(bench, p, "mem_pages_peak", m->pages_peak * 10, "pages", NULL);
	bench_json(bench, p, "mem_live", live * 10, "bytes", NULL);
	bench_json(bench, p, "mem_cpu_cached", m->cpu_cached * 10, "objects", NULL);
	bench_json(bench, p, "mem_cpu_cached_per_cpu",
		   (m->cpu_cached * 10 + (u64)nr_cpu_ids / 2) / (u64)nr_cpu_ids, "objects", NULL);
	bench_json(bench, p, "mem_node_cached", m->node_cached * 10, "objects", NULL);
	bench_json(bench, p, "mem_cpu_free", m->cpu_free * 10, "objects", NULL);
	bench_json(bench, p, "mem_partial_slabs", m->partial_slabs * 10, "slabs", NULL);
	if (m->partial_objects) /* objects in use on the partial slabs, of their slots */
		bench_json(bench, p, "mem_partial_fill",
			   (m->partial_objects - m->partial_free) * 1000 / m->partial_objects,
			   "percent", NULL);
	bench_json(bench, p, "mem_layer_pages", m->layer_pages * 10, "pages", NULL);
	bench_json(bench, p, "mem_layer_bytes_linux7", m->layer_bytes_linux7 * 10, "bytes", NULL);
	if (live) /* pages held x page size / bytes live, as a percentage */
		bench_json(bench, p, "mem_ratio", held * 1000 / live, "percent", NULL);
	if (m->live_peak_bytes) {
		bench_json(bench, p, "mem_live_peak", m->live_peak_bytes * 10, "bytes", NULL);
		bench_json(bench, p, "mem_ratio_peak",
			   m->pages_peak * PAGE_SIZE * 1000 / m->live_peak_bytes, "percent", NULL);
	}
}

void bench_mem_json(const char *bench, const char *params, struct kmem_cache *s,
		    u64 live_peak_bytes, struct bench_mem_sum *sum)
{
	struct kmem_cache_mem mi;
	struct slab_cache_info info;
	struct bench_mem_sum m;

	kmem_cache_mem_info(s, &mi);
	kmem_cache_info(s, &info);
	m = (struct bench_mem_sum){
		.pages = mi.pages, .pages_peak = mi.pages_peak,
		.live_bytes = (u64)mi.live * info.object_size, .live_peak_bytes = live_peak_bytes,
		.cpu_cached = mi.cpu_cached, .node_cached = mi.node_cached, .cpu_free = mi.cpu_free,
		.partial_slabs = mi.partial_slabs, .partial_objects = mi.partial_objects,
		.partial_free = mi.partial_free, .layer_pages = mi.layer_pages,
		.layer_bytes_linux7 = mi.layer_bytes_linux7,
	};
	if (sum) {
		u64 *a = (u64 *)sum;
		const u64 *b = (const u64 *)&m;

		for (size_t i = 0; i < sizeof(m) / sizeof(u64); i++)
			a[i] += b[i];
	}
	if (!m.pages_peak && !m.pages)
		return; /* never used: no figures */
	mem_figures(bench, params, info.name, &m);
}

void bench_mem_total(const char *bench, const char *params, const struct bench_mem_sum *sum)
{
	mem_figures(bench, params, "all", sum);
}

/* Is name in the comma list (or is "all" in it)? For bench= and scheme=. */
static bool list_has(const char *filter, const char *name)
{
	const char *p = filter;
	size_t nl = strlen(name);

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if ((len == 3 && !strncmp(p, "all", 3)) || (len == nl && !strncmp(p, name, nl)))
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

bool bench_list_names(const char *filter, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = filter; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == nl && !strncmp(p, name, nl))
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

/* ---- schemes (scheme=) ---- */

#define MAX_SCHEMES 16
static const char *schemes[MAX_SCHEMES];
static int nr_schemes;

void bench_select_schemes(void)
{
	const char *name;

	nr_schemes = 0;
	for (unsigned i = 0; (name = slab_scheme_chosen(i)) && nr_schemes < MAX_SCHEMES; i++)
		schemes[nr_schemes++] = name;
}

void bench_select_peer(const char *name)
{
	schemes[0] = name;
	nr_schemes = 1;
}

int bench_nr_schemes(void)
{
	return nr_schemes;
}

const char *bench_scheme(int i)
{
	return i < nr_schemes ? schemes[i] : NULL;
}

bool bench_scheme_selected(const char *name)
{
	for (int i = 0; i < nr_schemes; i++)
		if (!strcmp(schemes[i], name))
			return true;
	return false;
}

static unsigned int reps_option;
boot_param(bench_reps, reps_option, uint, (1, 1001), 0,
	   "repetitions of every benchmark figure (default: each benchmark's own)");

unsigned int bench_reps(unsigned int dflt)
{
	return reps_option ? reps_option : dflt;
}

/* ---- failures and the summary ---- */

static int nr_failures;

void bench_fail(const char *bench, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("bench %s: SELF-CHECK FAILED: %s\n", bench, msg);
	__atomic_add_fetch(&nr_failures, 1, __ATOMIC_RELAXED);
}

struct headline {
	const char *bench, *scheme, *figure, *unit;
	u64 value;
};
static struct headline headlines[128];
static int nr_headlines;

void bench_headline(const char *bench, const char *scheme, const char *figure, u64 value,
		    const char *unit)
{
	if (*params_extra)
		return; /* a run of the sweep's, with its own setting: not the benchmark's headline */
	if (nr_headlines < (int)ARRAY_SIZE(headlines))
		headlines[nr_headlines++] = (struct headline){ bench, scheme, figure, unit, value };
}

char *bench_fmt_signed(char *buf, size_t n, s64 tenths)
{
	u64 m = tenths < 0 ? (u64)-tenths : (u64)tenths;

	snprintf(buf, n, "%s%llu.%llu", tenths < 0 ? "-" : "", (unsigned long long)(m / 10),
		 (unsigned long long)(m % 10));
	return buf;
}

s64 bench_change_pct(u64 base, u64 now)
{
	if (!base)
		return 0;
	return ((s64)now - (s64)base) * 1000 / (s64)base;
}

/* Does a headline before headlines[i] have its benchmark and figure (its group's first)? */
static bool headline_group_seen(int i)
{
	for (int j = 0; j < i; j++)
		if (!strcmp(headlines[j].bench, headlines[i].bench) &&
		    !strcmp(headlines[j].figure, headlines[i].figure))
			return true;
	return false;
}

/* For each benchmark with headlines: each scheme's figure and its ratio to the baseline's. */
static void print_summary(void)
{
	char v[32], r[32], params[160];
	const char *baseline = slab_scheme_with(SLAB_SCHEME_BASELINE) ?: "";

	if (!nr_headlines)
		return;
	printk("\n== summary: each benchmark's headline figure per scheme, and its ratio to %s "
	       "(x1.00 = same; for times and cycles lower is better, for throughput higher)%s ==\n",
	       baseline, bench_emulated() ? ", emulated" : "");
	for (int i = 0; i < nr_headlines; i++) {
		const struct headline *h = &headlines[i], *lock = NULL;

		if (headline_group_seen(i))
			continue; /* printed with the first of its group */
		printk("%-10s %s (%s):\n", h->bench, h->figure, h->unit);
		for (int j = i; j < nr_headlines; j++)
			if (!strcmp(headlines[j].bench, h->bench) &&
			    !strcmp(headlines[j].figure, h->figure) &&
			    !strcmp(headlines[j].scheme, baseline))
				lock = &headlines[j];
		for (int j = i; j < nr_headlines; j++) {
			const struct headline *x = &headlines[j];

			if (strcmp(x->bench, h->bench) || strcmp(x->figure, h->figure))
				continue;

			snprintf(params, sizeof(params), "\"of\":\"%s\",\"headline\":\"%s\","
				 "\"scheme\":\"%s\"", x->bench, x->figure, x->scheme);
			bench_json("summary", params, "value", x->value, x->unit, NULL);
			if (lock && lock->value) {
				u64 ratio = (x->value * 100 + lock->value / 2) / lock->value;

				snprintf(r, sizeof(r), "x%llu.%02llu", (unsigned long long)(ratio / 100),
					 (unsigned long long)(ratio % 100));
				bench_json("summary", params, "ratio_to_lock", ratio * 10, "percent",
					   NULL);
			} else {
				strlcpy(r, "(no lock figure)", sizeof(r));
			}
			printk("    %-14s %12s  %s\n", x->scheme, bench_fmt(v, sizeof(v), x->value), r);
		}
	}
}

/*
 * The results for the screen's QR code (kernel/screen.h): the machine and each headline
 * figure per scheme, the figures of the summary's JSON lines, as one compact object:
 *	{"slablab":"results","cpu":...,"cpus":4,"tsc_mhz":2099,"accel":"tcg","emulated":true,
 *	 "seed":0,"summary":[{"of":"fastpath","headline":"alloc_free_pair","unit":"cycles",
 *	 "values":{"lock":360.7,...}},...]}
 * tools/benchreport.py --from-qr turns it back into the report's summary.
 */
static void results_for_screen(void)
{
	static char json[3000];
	char v[32];
	size_t n;

	n = (size_t)snprintf(json, sizeof(json),
			     "{\"slablab\":\"results\",\"cpu\":\"%s\",\"cpus\":%d,\"tsc_mhz\":%llu,"
			     "\"accel\":\"%s\",\"emulated\":%s,\"seed\":%llu,\"summary\":[",
			     arch_cpu_model(), nr_cpu_ids, (unsigned long long)(tsc_khz / 1000),
			     bench_accel(), bench_emulated() ? "true" : "false",
			     (unsigned long long)boot_seed);
	for (int i = 0; i < nr_headlines; i++) {
		const struct headline *h = &headlines[i];
		bool seen = false, first = true;

		for (int j = 0; j < i; j++)
			seen = seen || (!strcmp(headlines[j].bench, h->bench) &&
					!strcmp(headlines[j].figure, h->figure));
		if (seen)
			continue;
		n += (size_t)snprintf(json + MIN(n, sizeof(json)), sizeof(json) - MIN(n, sizeof(json)),
				      "%s{\"of\":\"%s\",\"headline\":\"%s\",\"unit\":\"%s\",\"values\":{",
				      json[n - 1] == '[' ? "" : ",", h->bench, h->figure, h->unit);
		for (int j = i; j < nr_headlines; j++) {
			const struct headline *x = &headlines[j];

			if (strcmp(x->bench, h->bench) || strcmp(x->figure, h->figure))
				continue;
			n += (size_t)snprintf(json + MIN(n, sizeof(json)),
					      sizeof(json) - MIN(n, sizeof(json)), "%s\"%s\":%s",
					      first ? "" : ",", x->scheme,
					      bench_fmt(v, sizeof(v), x->value));
			first = false;
		}
		n += (size_t)snprintf(json + MIN(n, sizeof(json)), sizeof(json) - MIN(n, sizeof(json)),
				      "}}");
	}
	n += (size_t)snprintf(json + MIN(n, sizeof(json)), sizeof(json) - MIN(n, sizeof(json)), "]}");
	if (n >= sizeof(json)) {
		printk("bench: the results for the screen's QR code need %zu bytes, more than %zu; "
		       "no QR code\n", n, sizeof(json) - 1);
		return;
	}
	screen_set_results(json);
}

/*
 * The results page's table and machine line (kernel/screen.h): the summary's rows as
 * print_summary prints them, and the meta line's machine part.
 */
static void summary_for_screen(void)
{
	const char *baseline = slab_scheme_with(SLAB_SCHEME_BASELINE) ?: "";
	char v[32], r[32], line[200];

	snprintf(line, sizeof(line), "cpu \"%s\", %d CPUs, TSC %llu.%llu MHz, accel %s%s, seed %llu",
		 arch_cpu_model(), nr_cpu_ids, (unsigned long long)(tsc_khz / 1000),
		 (unsigned long long)(tsc_khz % 1000 / 100), bench_accel(),
		 bench_emulated() ? " (figures emulated)" : "", (unsigned long long)boot_seed);
	screen_results_machine(line);
	for (int i = 0; i < nr_headlines; i++) {
		const struct headline *h = &headlines[i], *lock = NULL;

		if (headline_group_seen(i))
			continue;
		snprintf(line, sizeof(line), "%s %s (%s):", h->bench, h->figure, h->unit);
		screen_results_group(line);
		for (int j = i; j < nr_headlines; j++)
			if (!strcmp(headlines[j].bench, h->bench) &&
			    !strcmp(headlines[j].figure, h->figure) && !strcmp(headlines[j].scheme, baseline))
				lock = &headlines[j];
		for (int j = i; j < nr_headlines; j++) {
			const struct headline *x = &headlines[j];
			u64 ratio;

			if (strcmp(x->bench, h->bench) || strcmp(x->figure, h->figure))
				continue;
			if (lock && lock->value) {
				ratio = (x->value * 100 + lock->value / 2) / lock->value;
				snprintf(r, sizeof(r), "x%llu.%02llu", (unsigned long long)(ratio / 100),
					 (unsigned long long)(ratio % 100));
			} else {
				strlcpy(r, "(no lock figure)", sizeof(r));
			}
			screen_results_row(x->scheme, bench_fmt(v, sizeof(v), x->value), r);
		}
	}
}

/* ---- the meta line ---- */

static void print_meta(const char *benches)
{
	char sch[96], opts[200], cmd[400];
	size_t n = 0, c = 0;

	sch[0] = '\0';
	for (int i = 0; i < nr_schemes; i++)
		n += (size_t)snprintf(sch + n, sizeof(sch) - MIN(n, sizeof(sch)), "%s%s",
				      i ? "," : "", schemes[i]);
	snprintf(opts, sizeof(opts),
		 "fastpath=%s bench_reps=%u hackbench_groups=%u hackbench_loops=%u "
		 "remote_objects=%u scaling_ops=%u latency_samples=%u",
		 slab_fastpath_name(slab_boot_fastpath()), reps_option, hackbench_groups, hackbench_loops,
		 remote_objects, scaling_ops, latency_samples);
	printk("bench: cpu \"%s\", %d CPUs, TSC %llu.%llu MHz, accel %s%s, seed %llu\n",
	       arch_cpu_model(), nr_cpu_ids, (unsigned long long)(tsc_khz / 1000),
	       (unsigned long long)(tsc_khz % 1000 / 100), bench_accel(),
	       bench_emulated() ? " (figures emulated)" : "", (unsigned long long)boot_seed);
	printk("bench: benchmarks %s; schemes %s; %s (bench_reps=0: each benchmark's own)\n",
	       benches, sch, opts);
	/* Longer than printk's 511-character line: in pieces, one line still (only this CPU
	 * prints now). Keys as bench_json's, the run's description first. */
	printk("{\"bench\":\"meta\",\"cpu_model\":\"%s\",\"tsc_mhz\":%llu,\"seed\":%llu,",
	       arch_cpu_model(), (unsigned long long)(tsc_khz / 1000),
	       (unsigned long long)boot_seed);
	/* The whole command line as a JSON string (quotes, backslashes and control characters
	 * dropped), in pieces of cmd[]. */
	printk("\"cmdline\":\"");
	for (const char *p = boot_info.cmdline; *p;) {
		for (c = 0; *p && c < sizeof(cmd) - 1; p++)
			if (*p != '"' && *p != '\\' && (u8)*p >= 0x20)
				cmd[c++] = *p;
		cmd[c] = '\0';
		printk("%s", cmd);
	}
	/* baseline: the scheme the summary's ratios are to (SLAB_SCHEME_BASELINE) */
	printk("\",\"benches\":\"%s\",\"schemes\":\"%s\",\"baseline\":\"%s\",", benches, sch,
	       slab_scheme_with(SLAB_SCHEME_BASELINE) ?: "");
	printk("\"options\":\"%s\",\"figure\":\"run\",\"value\":0,\"unit\":\"none\","
	       "\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%d}\n", opts, bench_accel(),
	       bench_emulated() ? "true" : "false", nr_cpu_ids);
	bench_arch_meta();
}

/* ---- seeded random numbers ---- */

void bench_rng_init(struct bench_rng *r, u64 stream)
{
	/* splitmix64 of (seed, stream): nearby streams start far apart; never 0 */
	u64 z = boot_seed + 0x9e3779b97f4a7c15ULL * (stream + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

/* ---- CPUs working together ---- */

struct together {
	void (*fn)(void *arg);
	void *arg;
	int waiting; /* CPUs still to arrive */
	u64 t_release;
	const struct cpumask *mask;
};

/* Early arrivals halt; the last one wakes them (no vCPU spins while others are not yet on
 * a host core), as kunit_run_on_all_cpus does. */
static void together_fn(void *p)
{
	struct together *t = p;
	int cpu;

	if (__atomic_sub_fetch(&t->waiting, 1, __ATOMIC_ACQ_REL) == 0) {
		t->t_release = get_cycles_ordered();
		for_each_cpu(cpu, t->mask)
			if (cpu != smp_processor_id())
				smp_send_reschedule(cpu);
	} else {
		smp_wait_event(&t->waiting, 0);
	}
	t->fn(t->arg);
}

u64 bench_run_together(const struct cpumask *mask, void (*fn)(void *arg), void *arg)
{
	struct together t = { .fn = fn, .arg = arg, .waiting = cpumask_weight(mask), .mask = mask };

	smp_run_on_cpus(mask, together_fn, &t);
	rcu_quiescent_state(); /* a step's end; the others pass one in their idle loops */
	return t.t_release;
}

int bench_cpu_index(const struct cpumask *mask, int cpu)
{
	int i = 0, c;

	for_each_cpu(c, mask) {
		if (c == cpu)
			return i;
		i++;
	}
	return -1;
}

/*
 * Sleeping and waking. The sleeper stores its flag, then (full barrier) looks for work; the
 * waker publishes work, then (full barrier) reads the flag. Whichever goes second sees the
 * other: either the sleeper finds the work, or the waker finds the flag, clears it and sends
 * the wake-up IPI. The sleeper checks the flag again with interrupts off and halts with
 * sti;hlt, so an IPI that comes after that check still ends the halt.
 */
static DEFINE_PER_CPU(int, bench_sleeping);
static DEFINE_PER_CPU(u64, bench_wakeups);

void bench_sleep_prepare(void)
{
	__atomic_store_n(this_cpu_ptr(&bench_sleeping), 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void bench_sleep(void)
{
	local_irq_disable();
	if (__atomic_load_n(this_cpu_ptr(&bench_sleeping), __ATOMIC_ACQUIRE))
		arch_idle(); /* sti; hlt */
	else
		local_irq_enable();
	__atomic_store_n(this_cpu_ptr(&bench_sleeping), 0, __ATOMIC_RELAXED);
}

void bench_sleep_cancel(void)
{
	__atomic_store_n(this_cpu_ptr(&bench_sleeping), 0, __ATOMIC_RELAXED);
}

void bench_wake(int cpu)
{
	int *f = per_cpu_ptr(&bench_sleeping, cpu);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(f, __ATOMIC_RELAXED) && __atomic_exchange_n(f, 0, __ATOMIC_ACQ_REL)) {
		this_cpu(bench_wakeups)++;
		smp_send_reschedule(cpu);
	}
}

u64 bench_wakeups_sent(void)
{
	return this_cpu(bench_wakeups);
}

static void list_benches(void)
{
	printk("bench: valid: none all");
	for (const struct bench *const *b = __benches_start; b < __benches_end; b++)
		printk(" %s", (*b)->name);
	printk("\nbench: not in all, by name only:");
	for (const struct bench *const *b = __benches_start; b < __benches_end; b++)
		if ((*b)->on_request)
			printk(" %s", (*b)->name);
	printk("\n");
}

/* bench=all's order: by .order (0: after the numbered ones), then by name. */
static bool runs_before(const struct bench *a, const struct bench *b)
{
	unsigned oa = a->order ? (unsigned)a->order : ~0u, ob = b->order ? (unsigned)b->order : ~0u;

	return oa != ob ? oa < ob : strcmp(a->name, b->name) < 0;
}

int bench_run_selected(const char *filter)
{
	const struct bench *run[64];
	int nr_run = 0;
	char names[256];
	size_t n = 0;
	const char *p = filter;

	if (!strcmp(filter, "none"))
		return 0;
	while (*p) { /* every item must name a benchmark */
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool found = len == 3 && !strncmp(p, "all", 3);

		for (const struct bench *const *b = __benches_start; !found && b < __benches_end; b++)
			found = strlen((*b)->name) == len && !strncmp((*b)->name, p, len);
		if (!found) {
			printk("bench: no benchmark named '%.*s' in this kernel\n", (int)len, p);
			list_benches();
			return -1;
		}
		p += len + (end ? 1 : 0);
	}
	for (const struct bench *const *b = __benches_start; b < __benches_end; b++) {
		int i = nr_run;

		if (!list_has(filter, (*b)->name) || nr_run == (int)ARRAY_SIZE(run))
			continue;
		if ((*b)->on_request && !bench_list_names(filter, (*b)->name))
			continue;
		while (i > 0 && runs_before(*b, run[i - 1])) { /* insertion sort */
			run[i] = run[i - 1];
			i--;
		}
		run[i] = *b;
		nr_run++;
	}
	names[0] = '\0';
	for (int i = 0; i < nr_run; i++)
		n += (size_t)snprintf(names + n, sizeof(names) - MIN(n, sizeof(names)), "%s%s",
				      i ? "," : "", run[i]->name);
	if (bench_emulated())
		printk("bench: running under QEMU's TCG: the TSC runs at host time, every figure is "
		       "emulated (\"emulated\":true); ICOUNT=1 makes it count instructions\n");
	if (!nr_schemes) /* no peer chosen (the host build's): scheme='s */
		bench_select_schemes();
	print_meta(names);
	for (int i = 0; i < nr_run; i++) {
		u64 t0 = ktime_ns();

		printk("\n== bench %s: %s ==\n", run[i]->name, run[i]->what);
		run[i]->run();
		rcu_quiescent_state(); /* between steps: no reader, RCU callbacks may run */
		printk("== bench %s: %llu ms ==\n", run[i]->name,
		       (unsigned long long)((ktime_ns() - t0) / 1000000));
	}
	print_summary();
	bench_arch_end();
	if (nr_headlines) {
		results_for_screen();
		summary_for_screen();
	}
	if (nr_failures) {
		printk("bench: %d self-check failure%s (see SELF-CHECK FAILED above)\n", nr_failures,
		       nr_failures == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* ---- tables larger than one allocation ---- */

static size_t table_pieces(size_t n, size_t size)
{
	return (n + BENCH_PER_PIECE(size) - 1) / BENCH_PER_PIECE(size);
}

u64 bench_table_bytes(size_t n, size_t size)
{
	return (u64)n * size + table_pieces(n, size) * sizeof(void *);
}

int bench_table_alloc(struct bench_table *t, size_t n, size_t size)
{
	size_t per = BENCH_PER_PIECE(size);

	t->nr_pieces = table_pieces(n, size);
	t->pieces = kcalloc(MAX(t->nr_pieces, 1ul), sizeof(void *), GFP_KERNEL | __GFP_NOWARN);
	if (!t->pieces)
		return -1;
	for (size_t i = 0; i < t->nr_pieces; i++) {
		t->pieces[i] = kzalloc(MIN(n - i * per, per) * size, GFP_KERNEL | __GFP_NOWARN);
		if (!t->pieces[i]) {
			bench_table_free(t);
			return -1;
		}
	}
	return 0;
}

void bench_table_free(struct bench_table *t)
{
	for (size_t i = 0; t->pieces && i < t->nr_pieces; i++)
		kfree(t->pieces[i]);
	kfree(t->pieces);
	t->pieces = NULL;
	t->nr_pieces = 0;
}

unsigned long bench_free_mib(void)
{
	return (unsigned long)(nr_free_pages() * PAGE_SIZE / MiB);
}

u64 bench_mul_div(u64 a, u64 b, u64 c)
{
	unsigned __int128 n = (unsigned __int128)a * b, r = 0, q = 0;

	if (!c)
		return ~0ULL;
	if (!(u64)(n >> 64))
		return (u64)n / c;
	/* Long division, a bit at a time (no libgcc for a 128-bit divide here). */
	for (int i = 127; i >= 0; i--) {
		r = r << 1 | (u64)(n >> i & 1);
		if (r >= c) {
			r -= c;
			q |= (unsigned __int128)1 << i;
		}
	}
	return q >> 64 ? ~0ULL : (u64)q;
}
