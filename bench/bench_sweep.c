// SPDX-License-Identifier: MIT
/*
 * bench=sweep: per-cpu partial lists against sheaves over a grid of settings in one boot,
 * with memory as a figure of its own (tools/sweep.py runs it at each CPU count for make
 * sweep; docs/sheaves-study.md is made from what it prints).
 *
 * sweep= names the settings, a comma list of:
 *   lock            no per-cpu layer (the baseline)
 *   partial         per-cpu partial lists, Linux's budget by object size (120, 52, 24, 6)
 *   partial/N       ... with a budget of N objects (kmem_cache_set_param's cpu_partial)
 *   sheaves         sheaves, capacity by the default rule (mm/sheaf.c)
 *   sheaves/N       ... N objects per sheaf (kmem_cache_set_sheaf_capacity)
 *   sheaves/linux7  ... Linux 7.0's capacity by object size
 *   sheaves/slablab ... slablab's own by object size
 * sweep_work= the workloads, a comma list of:
 *   mix        bench=scaling's mixed workload on every CPU (7 size classes, 30% remote
 *              frees), scaling_ops= operations each; its memory is taken at its peak, every
 *              CPU stopped with its working set live, and again once all is freed
 *   hackbench  hackbench_groups= x hackbench_loops= (bench/bench_hackbench.c), its memory
 *              at the end and its peak pages against the bytes in flight sampled then
 *   replay     bench=replay (bench/bench_replay.c) of the trace it would replay, its
 *              memory at the trace's end (what is live then still live)
 *
 * For each workload and setting: fresh caches of the setting's scheme, each given the
 * setting before it is used (bench_cache_tune), one run, then the figures, every one with
 * "workload" and "setting": speed ("elapsed" TSC cycles from the common start to the last
 * CPU done and "ops" operations (an allocation and a free each), from which tools/sweep.py works out instructions per
 * operation under ICOUNT and cycles per operation elsewhere; emulated under TCG), memory per
 * cache and in all (bench_mem_json, exact), and per 1000 operations the list_lock
 * acquisitions and the scheme's counters (barn and cpu partial list traffic). The replay
 * prints its own figures, a "setting" added to each.
 */
#include "bench/bench.h"
#include "bench/hackbench.h"
#include "bench/scaling.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slab.h"

#define SWEEP_MAX 32

static char sweep_option[OPT_STR_MAX];
static int sweep_check(const char *val, char *err, size_t errlen);
boot_param(sweep, sweep_option, str, sweep_check,
	   "lock,partial,partial/30,partial/480,sheaves,sheaves/4,sheaves/8,sheaves/16,"
	   "sheaves/32,sheaves/64,sheaves/128,sheaves/linux7",
	   "bench=sweep: the settings, a comma list of lock, partial, partial/N (cpu_partial "
	   "budget), sheaves, sheaves/N (objects per sheaf), sheaves/linux7, sheaves/slablab");

static char sweep_work[64];
static const char *const sweep_works[] = { "mix", "hackbench", "replay", NULL };
static int sweep_work_check(const char *val, char *err, size_t errlen);
boot_param(sweep_work, sweep_work, list, sweep_work_check, "mix,hackbench,replay",
	   "bench=sweep: the workloads, a comma list of mix, hackbench, replay");

/* One setting: a scheme and, if any, its parameter (a number, or a rule by size). */
enum sweep_rule { SWEEP_NONE, SWEEP_NUMBER, SWEEP_LINUX7, SWEEP_SLABLAB };

struct sweep_setting {
	char text[24];      /* as given: "sheaves/32" */
	const char *scheme; /* "lock", "partial", "sheaves" */
	const char *param;  /* "cpu_partial", "sheaf_capacity" or NULL */
	enum sweep_rule rule;
	unsigned int value;
};

/* "N" (1..max, no leading zero) as a number, else 0. */
static unsigned int parse_number(const char *p, size_t len, unsigned int max)
{
	unsigned int v = 0;

	if (!len || p[0] < '1' || p[0] > '9')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' || v > max)
			return 0;
		v = v * 10 + (unsigned int)(p[i] - '0');
	}
	return v <= max ? v : 0;
}

/* One item of sweep= into *out: 0, or -1 with what is wrong in err. */
static int parse_setting(const char *p, size_t len, struct sweep_setting *out, char *err,
			 size_t errlen)
{
	const char *slash = memchr(p, '/', len);
	size_t head = slash ? (size_t)(slash - p) : len, tlen = slash ? len - head - 1 : 0;
	const char *tail = slash ? slash + 1 : "";

	memset(out, 0, sizeof(*out));
	if (len >= sizeof(out->text))
		goto bad;
	memcpy(out->text, p, len);
	if (head == 4 && !strncmp(p, "lock", 4) && !slash) {
		out->scheme = "lock";
		return 0;
	}
	if (head == 7 && !strncmp(p, "partial", 7)) {
		out->scheme = "partial";
		out->param = "cpu_partial";
		if (!slash)
			return 0;
		out->rule = SWEEP_NUMBER;
		out->value = parse_number(tail, tlen, 100000);
		if (out->value)
			return 0;
		goto bad;
	}
	if (head == 7 && !strncmp(p, "sheaves", 7)) {
		out->scheme = "sheaves";
		out->param = "sheaf_capacity";
		if (!slash)
			return 0;
		if (tlen == 6 && !strncmp(tail, "linux7", 6)) {
			out->rule = SWEEP_LINUX7;
			return 0;
		}
		if (tlen == 7 && !strncmp(tail, "slablab", 7)) {
			out->rule = SWEEP_SLABLAB;
			return 0;
		}
		out->rule = SWEEP_NUMBER;
		out->value = parse_number(tail, tlen, SLAB_SHEAF_MAX);
		if (out->value)
			return 0;
	}
bad:
	snprintf(err, errlen, "sweep=: '%.*s' is not a setting (lock, partial, partial/N with N "
		 "1..100000, sheaves, sheaves/N with N 1..%u, sheaves/linux7, sheaves/slablab)",
		 (int)MIN(len, (size_t)40), p, SLAB_SHEAF_MAX);
	return -1;
}

/* Each item of a comma list: fn(item, len); the first error stops it. */
static int for_each_item(const char *val, int (*fn)(const char *p, size_t len, void *arg),
			 void *arg)
{
	for (const char *p = val; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (fn(p, len, arg))
			return -1;
		p += len + (end ? 1 : 0);
	}
	return 0;
}

struct parse_all {
	struct sweep_setting *settings;
	int n;
	char *err;
	size_t errlen;
};

static int parse_one(const char *p, size_t len, void *arg)
{
	struct parse_all *a = arg;
	struct sweep_setting tmp;

	if (a->n == SWEEP_MAX) {
		snprintf(a->err, a->errlen, "sweep=: more than %d settings", SWEEP_MAX);
		return -1;
	}
	if (parse_setting(p, len, a->settings ? &a->settings[a->n] : &tmp, a->err, a->errlen))
		return -1;
	a->n++;
	return 0;
}

static int sweep_check(const char *val, char *err, size_t errlen)
{
	struct parse_all a = { NULL, 0, err, errlen };

	if (!*val) {
		snprintf(err, errlen, "sweep=: no setting");
		return -1;
	}
	return for_each_item(val, parse_one, &a);
}

static int sweep_work_check(const char *val, char *err, size_t errlen)
{
	for (const char *p = val; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool ok = false;

		for (int i = 0; sweep_works[i]; i++)
			ok = ok || (strlen(sweep_works[i]) == len && !strncmp(sweep_works[i], p, len));
		if (!ok) {
			snprintf(err, errlen, "sweep_work=: '%.*s' is not a workload (mix, hackbench, "
				 "replay)", (int)MIN(len, (size_t)40), p);
			return -1;
		}
		p += len + (end ? 1 : 0);
	}
	return 0;
}

static bool work_chosen(const char *name)
{
	return bench_list_names(sweep_work, name);
}

/* ---- the setting of the caches being created (bench_cache_tune) ---- */

static const struct sweep_setting *current;

static void tune(struct kmem_cache *s)
{
	unsigned int v = current->value;

	if (!current->param || current->rule == SWEEP_NONE)
		return;
	if (current->rule == SWEEP_LINUX7)
		v = kmem_cache_sheaf_rule(s, "linux7");
	else if (current->rule == SWEEP_SLABLAB)
		v = kmem_cache_sheaf_rule(s, "slablab");
	if (kmem_cache_set_param(s, current->param, v)) {
		struct slab_cache_info info;

		kmem_cache_info(s, &info);
		bench_fail("sweep", "%s: %s=%u refused for %s", current->text, current->param, v,
			   info.name);
	}
}

/* ---- figures ---- */

static void params_of(char *buf, size_t n, const char *work, const struct sweep_setting *st,
		      const char *when)
{
	snprintf(buf, n, "\"workload\":\"%s\",\"setting\":\"%s\",\"scheme\":\"%s\"%s%s%s", work,
		 st->text, st->scheme, when ? ",\"when\":\"" : "", when ? when : "",
		 when ? "\"" : "");
}

/* The counters that say how often the slow paths ran, per 1000 operations. */
static const char *const traffic[] = {
	"list_lock", "list_lock_contended", "alloc_slab", "free_slab", "barn_get",
	"barn_get_fail", "barn_put", "barn_put_fail", "sheaf_refill", "sheaf_flush",
	"cpu_partial_alloc", "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain",
};

static void traffic_figures(const char *params, struct kmem_cache **caches, int n, u64 ops,
			    const u64 *before)
{
	for (size_t k = 0; k < ARRAY_SIZE(traffic); k++) {
		u64 v = 0;
		char fig[40];

		for (int i = 0; i < n; i++)
			v += kmem_cache_stat_by_name(caches[i], traffic[k]);
		v -= before[k];
		snprintf(fig, sizeof(fig), "%s_per_1000_ops", traffic[k]);
		bench_json("sweep", params, fig, ops ? v * 10000 / ops : 0, "count", NULL);
	}
}

static void traffic_snapshot(struct kmem_cache **caches, int n, u64 *out)
{
	for (size_t k = 0; k < ARRAY_SIZE(traffic); k++) {
		out[k] = 0;
		for (int i = 0; i < n; i++)
			out[k] += kmem_cache_stat_by_name(caches[i], traffic[k]);
	}
}

static void memory_figures(const char *params, struct kmem_cache **caches, int n,
			   const u64 *live_peak)
{
	struct bench_mem_sum sum = { 0 };

	for (int i = 0; i < n; i++)
		bench_mem_json("sweep", params, caches[i], live_peak ? live_peak[i] : 0, &sum);
	bench_mem_total("sweep", params, &sum);
}

static void speed_figures(const char *params, u64 elapsed, u64 ops)
{
	bench_json("sweep", params, "elapsed", elapsed * 10, "cycles", NULL);
	bench_json("sweep", params, "ops", ops * 10, "count", NULL);
	/* CPU time per operation (an allocation and a free), every CPU counted for the run */
	bench_json("sweep", params, "cycles_per_op",
		   ops ? bench_mul_div(elapsed, 10 * (u64)nr_cpu_ids, ops) : 0, "cycles", NULL);
}

/* ---- the workloads ---- */

struct mix_peak_arg {
	const struct sweep_setting *st;
};

static void mix_at_peak(struct mix_setup *m, u64 live_bytes, void *arg)
{
	struct mix_peak_arg *a = arg;
	char params[200];

	params_of(params, sizeof(params), "mix", a->st, "peak");
	bench_json("sweep", params, "workload_live", live_bytes * 10, "bytes", NULL);
	memory_figures(params, m->caches, MIX_CLASSES, NULL);
}

static bool run_mix(const struct sweep_setting *st)
{
	struct mix_peak_arg pa = { st };
	struct mix_setup m = { .ncpus = nr_cpu_ids, .ops = scaling_ops, .at_peak = mix_at_peak,
			       .at_peak_arg = &pa };
	u64 before[ARRAY_SIZE(traffic)], elapsed, ops = (u64)nr_cpu_ids * scaling_ops;
	char params[200];

	if (mix_caches(&m, st->scheme)) {
		bench_fail("sweep", "cannot create the %s mixed-workload caches", st->scheme);
		return false;
	}
	traffic_snapshot(m.caches, MIX_CLASSES, before);
	elapsed = mix_run(&m, "sweep");
	if (elapsed) {
		params_of(params, sizeof(params), "mix", st, "end");
		memory_figures(params, m.caches, MIX_CLASSES, NULL);
		params_of(params, sizeof(params), "mix", st, NULL);
		speed_figures(params, elapsed, ops);
		traffic_figures(params, m.caches, MIX_CLASSES, ops, before);
	}
	mix_caches_destroy(&m);
	return elapsed != 0;
}

static bool run_hackbench_once(const struct sweep_setting *st)
{
	struct hackbench_setup hb = { .groups = hackbench_groups, .loops = hackbench_loops,
				      .sample_memory = true };
	struct kmem_cache *caches[2];
	u64 before[ARRAY_SIZE(traffic)], elapsed, ops, peak[2], inflight;
	char params[200];

	if (hackbench_caches(st->scheme, &hb.header, &hb.payload)) {
		bench_fail("sweep", "cannot create the %s hackbench caches", st->scheme);
		return false;
	}
	caches[0] = hb.header;
	caches[1] = hb.payload;
	traffic_snapshot(caches, 2, before);
	elapsed = hackbench_run(&hb, "sweep");
	if (elapsed) {
		/* a message is two allocations and two frees: two operations */
		ops = hb.messages * 2;
		inflight = hb.bytes_at_peak / (HB_HEADER_SIZE + HB_PAYLOAD_SIZE);
		peak[0] = inflight * HB_HEADER_SIZE;
		peak[1] = inflight * 128; /* the payload cache's objects */
		params_of(params, sizeof(params), "hackbench", st, "end");
		memory_figures(params, caches, 2, peak);
		params_of(params, sizeof(params), "hackbench", st, NULL);
		speed_figures(params, elapsed, ops);
		traffic_figures(params, caches, 2, ops, before);
	}
	kmem_cache_destroy(hb.header);
	kmem_cache_destroy(hb.payload);
	return elapsed != 0;
}

static const struct bench *find_bench(const char *name)
{
	extern const struct bench *const __benches_start[], *const __benches_end[];

	for (const struct bench *const *b = __benches_start; b < __benches_end; b++)
		if (!strcmp((*b)->name, name))
			return *b;
	return NULL;
}

/* bench=replay on this setting's scheme alone, its figures marked with the setting. */
static void run_replay_once(const struct sweep_setting *st)
{
	const struct bench *replay = find_bench("replay");
	char extra[80];

	if (!replay) {
		bench_fail("sweep", "sweep_work=replay, but this kernel has no replay benchmark");
		return;
	}
	snprintf(extra, sizeof(extra), ",\"workload\":\"replay\",\"setting\":\"%s\"", st->text);
	bench_set_params_extra(extra);
	bench_select_peer(st->scheme);
	replay->run();
	bench_select_schemes();
	bench_set_params_extra(NULL);
}

static void run_sweep(void)
{
	static struct sweep_setting settings[SWEEP_MAX];
	char err[200];
	struct parse_all a = { settings, 0, err, sizeof(err) };

	if (for_each_item(sweep_option, parse_one, &a)) {
		bench_fail("sweep", "%s", err); /* checked at boot: cannot happen */
		return;
	}
	printk("sweep: %d settings (sweep=%s) x workloads %s on %d CPUs; mix: %u operations a "
	       "CPU; hackbench: %u groups x %u loops\n", a.n, sweep_option, sweep_work,
	       nr_cpu_ids, scaling_ops, hackbench_groups, hackbench_loops);
	for (int i = 0; i < a.n; i++) {
		const struct sweep_setting *st = &settings[i];

		if (!slab_scheme_exists(st->scheme)) {
			bench_fail("sweep", "%s: this kernel has no scheme %s", st->text, st->scheme);
			continue;
		}
		current = st;
		bench_cache_tune = tune;
		if (work_chosen("mix")) {
			printk("sweep: %s, mix\n", st->text);
			run_mix(st);
		}
		if (work_chosen("hackbench")) {
			printk("sweep: %s, hackbench\n", st->text);
			run_hackbench_once(st);
		}
		if (work_chosen("replay")) {
			printk("sweep: %s, replay\n", st->text);
			run_replay_once(st);
		}
		bench_cache_tune = NULL;
		current = NULL;
	}
	printk("sweep: done\n");
}

static const struct bench sweep_bench = {
	.name = "sweep",
	.what = "partial lists against sheaves over a grid of settings, speed and memory "
		"(tools/sweep.py, make sweep)",
	.run = run_sweep,
	.order = 95,
	.on_request = true, /* minutes to hours: bench=sweep, never bench=all */
};
bench_register(sweep_bench);
