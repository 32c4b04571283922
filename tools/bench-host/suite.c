// SPDX-License-Identifier: MIT
/*
 * bench-suite: the kernel's benchmark suite (every benchmark of bench/, unchanged) in Linux user space
 * on real cores: the host arch (arch/host/, HOST_SMP=2) makes each CPU a thread, pinned to
 * a core of its own, and an IPI a signal or, with host_ipi=poll, a bit in a mailbox the
 * target polls. docs/host-build.md tells the story; make bench-host runs it.
 *
 *   bench-suite [OPTION=VALUE]...
 *
 * The options are the kernel command line's (bench=, scheme=, bench_reps=, fastpath=,
 * seed=, hackbench_groups=, remote_objects=...; docs/options.md's table), parsed by the kernel's
 * own parser, plus those of this program only:
 *   cpus=N           CPUs (threads), default every core the process may use (its affinity);
 *                    more than that shares cores, and the meta line says so
 *   host_ipi=MODE    signal (default) or poll
 *   host_mem=MIB     the page allocator's RAM (default 1024)
 *   host_trace=FILE  bench=replay's trace (the kernel's is GRUB's module)
 *   host_peer=NAME   bench-suite-peer only: every cache is malloc/free of the allocator
 *                    the process has (LD_PRELOAD, or glibc's), named NAME in the output
 *   host_peer_version=V   that allocator's version, for the meta line
 *
 * Exit status: 0, 1 when a self-check failed, 2 for a bad option.
 */
#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "arch/host/host_smp.h"
#include "bench/bench.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#include "tools/bench-host/suite.h"

/* ---- what bench/ and kernel/ need from an arch, in user space ---- */

struct boot_info boot_info;

const char *arch_accel(void)
{
	return "host";
}

static char cpu_model[128] = "unknown";

const char *arch_cpu_model(void)
{
	return cpu_model;
}

static u64 start_ns;

static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

u64 cycles_to_ns(u64 cycles)
{
	return (u64)((unsigned __int128)cycles * 1000000 / tsc_khz);
}

u64 ktime_ns(void)
{
	return mono_ns() - start_ns;
}

void udelay(unsigned long us)
{
	u64 end = get_cycles() + ns_to_cycles((u64)us * 1000);

	while (get_cycles() < end)
		cpu_relax();
}

void mdelay(unsigned long ms)
{
	udelay(ms * 1000);
}

/* No screen here: the summary's table and JSON lines carry the same figures. */
void screen_set_results(const char *json)
{
	(void)json;
}

void screen_results_machine(const char *line)
{
	(void)line;
}

void screen_results_group(const char *title)
{
	(void)title;
}

void screen_results_row(const char *scheme, const char *value, const char *ratio)
{
	(void)scheme, (void)value, (void)ratio;
}

/* ---- options of this program ---- */

static char bench_list[OPT_STR_MAX];
static unsigned int cpus_option;
static char ipi_mode[16];
static const char *const ipi_modes[] = { "signal", "poll", NULL };
static unsigned int mem_mib;
static char trace_file[OPT_STR_MAX];
static char peer_name[32];
static char peer_version[64];

boot_param(bench, bench_list, list, NULL, "none",
	   "benchmarks: all, none, or a comma list of names");
boot_param(cpus, cpus_option, uint, (1, NR_CPUS), 0,
	   "CPUs, one thread each pinned to a core (default: every core this process may use)");
boot_param(host_ipi, ipi_mode, enum, ipi_modes, "signal",
	   "how an IPI reaches a thread-CPU: signal, or poll (a mailbox it polls)");
boot_param(host_mem, mem_mib, uint, (64, 65536), 1024, "the page allocator's RAM in MiB");
boot_param(host_trace, trace_file, str, NULL, "", "bench=replay's trace file");
boot_param(host_peer, peer_name, str, NULL, "",
	   "bench-suite-peer: benchmark this process's malloc/free under this name");
boot_param(host_peer_version, peer_version, str, NULL, "", "the peer's version");

/* bench-suite-peer's tools/bench-host/peer.c replaces this: 0 once every cache of scheme
 * name is the process's malloc. */
__attribute__((weak)) int peer_setup(const char *name)
{
	(void)name;
	return -1;
}

__attribute__((weak)) const char *peer_malloc_file(void)
{
	return "";
}

/* ---- the machine and its noise (meta lines) ---- */

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)n, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Drop what a JSON string cannot hold as is. */
static void json_clean(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			*p = ' ';
}

static void read_cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(cpu_model, sizeof(cpu_model), "%s", colon + 2);
			cpu_model[strcspn(cpu_model, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
	json_clean(cpu_model);
}

/* The TSC against CLOCK_MONOTONIC_RAW: the median of 5 windows of 20 ms. */
static u64 measure_tsc_khz(void)
{
	u64 k[5];

	for (int i = 0; i < 5; i++) {
		u64 n0 = mono_ns(), c0 = get_cycles_ordered(), n1, c1;

		do
			n1 = mono_ns();
		while (n1 - n0 < 20000000);
		c1 = get_cycles_ordered();
		k[i] = (c1 - c0) * 1000000 / (n1 - n0);
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && k[j - 1] > k[j]; j--) {
			u64 t = k[j];

			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	return k[2];
}

static char loadavg_start[64];
static struct rusage ru_start;
static u64 t_start;

static long involuntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru); /* every thread of the process: the thread-CPUs */
	return ru.ru_nivcsw;
}

/* Every figure's JSON line: involuntary context switches of the process's threads (the
 * CPUs) since the line before (the first line of a benchmark's group carries its runs). */
static long csw_last;
static char figure_extra[64];

const char *bench_arch_figure_extra(void)
{
	long now = involuntary_switches();

	snprintf(figure_extra, sizeof(figure_extra), ",\"nivcsw\":%ld", now - csw_last);
	csw_last = now;
	return figure_extra;
}

/* The sysfs list of CPU c's file (topology/thread_siblings_list ...), or "?". */
static void cpu_file(int c, const char *file, char *buf, size_t n)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", c, file);
	if (read_line(path, buf, n))
		snprintf(buf, n, "?");
	json_clean(buf);
}

/* The NUMA node of host core c (from /sys/devices/system/node/nodeN/cpulist), or -1. */
static int node_of(int c)
{
	for (int node = 0; node < 1024; node++) {
		char path[96], list[1024], *p;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
		if (read_line(path, list, sizeof(list)))
			continue;
		for (p = list; *p;) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;

			if (end == p)
				break;
			if (*end == '-')
				hi = strtol(end + 1, &end, 10);
			if (c >= lo && c <= hi)
				return node;
			p = *end == ',' ? end + 1 : end;
		}
	}
	return -1;
}

static int host_core[NR_CPUS]; /* the core each CPU's thread runs on (its affinity) */

/*
 * Each CPU's affinity as the kernel has it now (sched_getaffinity of its thread): the one
 * core it is pinned to, or -1 when it is not exactly one core. Returns the number of CPUs
 * whose pinning is wrong or shared with another CPU.
 */
static int check_pinning(int ncores)
{
	int bad = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		cpu_set_t set;

		host_core[cpu] = -1;
		if (sched_getaffinity(host_cpu_tid(cpu), sizeof(set), &set) || CPU_COUNT(&set) != 1) {
			bad++;
			continue;
		}
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				host_core[cpu] = c;
		for (int o = 0; o < cpu && nr_cpu_ids <= ncores; o++)
			if (host_core[o] == host_core[cpu])
				bad++;
	}
	return bad;
}

static int pin_errors, nr_cores;

void bench_arch_meta(void)
{
	char gov[64], boost[32], smt[64], kernel[160];
	struct utsname u;

	cpu_file(host_core[0] < 0 ? 0 : host_core[0], "cpufreq/scaling_governor", gov, sizeof(gov));
	if (read_line("/sys/devices/system/cpu/cpufreq/boost", boost, sizeof(boost)) == 0)
		; /* 1: boost on */
	else if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", boost,
			   sizeof(boost)) == 0)
		snprintf(boost, sizeof(boost), "%s", boost[0] == '1' ? "0" : "1");
	else
		snprintf(boost, sizeof(boost), "?");
	json_clean(boost);
	uname(&u);
	snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	json_clean(kernel);
	printk("bench-host: %s, glibc %s; %d CPUs on %d allowed cores (%ld online)%s; IPIs by %s; "
	       "governor %s, boost %s; loadavg %s%s%s\n", kernel, gnu_get_libc_version(),
	       nr_cpu_ids, nr_cores, sysconf(_SC_NPROCESSORS_ONLN),
	       nr_cpu_ids > nr_cores ? " (MORE CPUs THAN CORES: they share, figures are not "
	       "real-core figures)" : "", ipi_mode, gov, boost, loadavg_start,
	       peer_name[0] ? "; peer " : "", peer_name);
	printk("{\"bench\":\"host_meta\",\"kernel\":\"%s\",\"glibc\":\"%s\",\"cores_online\":%ld,"
	       "\"cores_allowed\":%d,"
	       "\"host_ipi\":\"%s\",\"governor\":\"%s\",\"boost\":\"%s\",\"loadavg_start\":\"%s\","
	       "\"peer\":\"%s\",\"peer_version\":\"%s\",\"malloc_from\":\"%s\",\"pin_errors\":%d,"
	       "\"figure\":\"machine\",\"value\":0,\"unit\":\"none\",\"accel\":\"host\","
	       "\"emulated\":false,\"cpus\":%d}\n",
	       kernel, gnu_get_libc_version(), sysconf(_SC_NPROCESSORS_ONLN), nr_cores, ipi_mode,
	       gov, boost, loadavg_start, peer_name, peer_version,
	       peer_name[0] ? peer_malloc_file() : "", pin_errors,
	       nr_cpu_ids);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int c = host_core[cpu];

		cpu_file(c < 0 ? 0 : c, "topology/thread_siblings_list", smt, sizeof(smt));
		printk("{\"bench\":\"host_cpu\",\"cpu_index\":%d,\"core\":%d,\"smt_siblings\":\"%s\","
		       "\"numa_node\":%d,\"figure\":\"pinned\",\"value\":%d.0,\"unit\":\"core\","
		       "\"accel\":\"host\",\"emulated\":false,\"cpus\":%d}\n", cpu, c,
		       c < 0 ? "?" : smt, c < 0 ? -1 : node_of(c), c, nr_cpu_ids);
		printk("bench-host: cpu %d pinned to core %d (SMT siblings %s, NUMA node %d)\n", cpu, c,
		       c < 0 ? "?" : smt, c < 0 ? -1 : node_of(c));
	}
	csw_last = involuntary_switches();
}

void bench_arch_end(void)
{
	char load[64];
	struct rusage ru;
	unsigned long sig = 0, posts = 0, wakes = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		unsigned long s, p, w;

		host_ipi_counts(cpu, &s, &p, &w);
		sig += s;
		posts += p;
		wakes += w;
	}
	getrusage(RUSAGE_SELF, &ru);
	if (read_line("/proc/loadavg", load, sizeof(load)))
		snprintf(load, sizeof(load), "?");
	json_clean(load);
	printk("bench-host: loadavg at the end %s (at the start %s); %ld involuntary and %ld "
	       "voluntary context switches in %llu ms; IPIs: %lu signals, %lu mailbox posts "
	       "(%lu futex wake-ups)\n", load, loadavg_start, ru.ru_nivcsw - ru_start.ru_nivcsw,
	       ru.ru_nvcsw - ru_start.ru_nvcsw, (unsigned long long)((mono_ns() - t_start) / 1000000),
	       sig, posts, wakes);
	printk("{\"bench\":\"host_end\",\"loadavg_start\":\"%s\",\"loadavg_end\":\"%s\","
	       "\"nivcsw\":%ld,\"nvcsw\":%ld,\"ipi_signals\":%lu,\"ipi_posts\":%lu,"
	       "\"ipi_futex_wakes\":%lu,\"figure\":\"run_ms\",\"value\":%llu.0,\"unit\":\"ms\","
	       "\"accel\":\"host\",\"emulated\":false,\"cpus\":%d}\n", loadavg_start, load,
	       ru.ru_nivcsw - ru_start.ru_nivcsw, ru.ru_nvcsw - ru_start.ru_nvcsw, sig, posts, wakes,
	       (unsigned long long)((mono_ns() - t_start) / 1000000), nr_cpu_ids);
}

/*
 * ---- bench=host_ipi_rtt: what an IPI costs here ----
 * A synchronous cross-call from CPU 0 to CPU 1 and back (what kernel/smp_rtt.c measures for
 * the ipi_rtt suite): to a CPU halted in its idle loop (sigsuspend, or a futex with
 * host_ipi=poll; 50 us between calls, so it is asleep) and to one spinning with interrupts
 * on (in cpu_relax, a poll point). The
 * figure a hardware IPI has on current x86 servers is about 1-2 us end to end.
 */
struct rtt_busy {
	int stop;
	u64 *samples;
	unsigned int n, hits;
	bool gap;
};

static void rtt_ping(void *arg)
{
	__atomic_fetch_add((unsigned int *)arg, 1, __ATOMIC_RELAXED);
}

/* n round trips CPU 0 -> 1 -> 0; with gap, 50 us between them, so that CPU 1 is asleep
 * (in sigsuspend or on its futex) when each arrives, not still on its way there. */
static void rtt_measure(struct rtt_busy *b)
{
	for (unsigned int i = 0; i < b->n; i++) {
		u64 t0;

		if (b->gap)
			udelay(50);
		t0 = get_cycles_ordered();
		smp_call_function_single(1, rtt_ping, &b->hits, 1);
		b->samples[i] = get_cycles_ordered() - t0;
	}
}

static void rtt_busy_cpu(void *arg)
{
	struct rtt_busy *b = arg;

	if (smp_processor_id() == 0) {
		rtt_measure(b);
		__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	} else {
		while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE))
			cpu_relax();
	}
}

static void run_ipi_rtt(void)
{
	unsigned int n = bench_reps(1000);
	u64 *samples = kmalloc_array(n, sizeof(u64), GFP_KERNEL);
	char params[96], a[24], b[24], c[24], d[24];

	if (nr_cpu_ids < 2) {
		printk("host_ipi_rtt: needs 2 CPUs (this run has 1): nothing measured\n");
		kfree(samples);
		return;
	}
	if (!samples) {
		bench_fail("host_ipi_rtt", "no memory for %u samples", n);
		return;
	}
	printk("%u synchronous cross-calls CPU 0 -> CPU 1 -> CPU 0, IPIs by %s (to a halted CPU: "
	       "50 us apart); median and p10/p90\n", n, ipi_mode);
	printk("%-10s %12s %12s %12s %10s\n", "target", "cycles", "p10", "p90", "ns");
	for (int busy = 0; busy < 2; busy++) {
		struct rtt_busy rb = { .samples = samples, .n = n, .gap = !busy };
		struct cpumask mask;
		struct bench_stats st;
		const char *target = busy ? "spinning" : "halted";

		if (busy) {
			cpumask_clear(&mask);
			cpumask_set_cpu(0, &mask);
			cpumask_set_cpu(1, &mask);
			smp_run_on_cpus(&mask, rtt_busy_cpu, &rb);
		} else {
			rtt_measure(&rb);
		}
		if (rb.hits != n) {
			bench_fail("host_ipi_rtt", "a cross-call to a %s CPU was lost", target);
			break;
		}
		bench_summarize(samples, (int)n, 1, &st);
		snprintf(params, sizeof(params), "\"target\":\"%s\",\"host_ipi\":\"%s\"", target,
			 ipi_mode);
		bench_json("host_ipi_rtt", params, "round_trip", st.median, "cycles", &st);
		bench_json("host_ipi_rtt", params, "round_trip_ns", bench_tenths_to_ns(st.median),
			   "ns", NULL);
		printk("%-10s %12s %12s %12s %10s\n", target, bench_fmt(a, sizeof(a), st.median),
		       bench_fmt(b, sizeof(b), st.p10), bench_fmt(c, sizeof(c), st.p90),
		       bench_fmt(d, sizeof(d), bench_tenths_to_ns(st.median)));
	}
	kfree(samples);
}

static const struct bench ipi_rtt_bench = {
	.name = "host_ipi_rtt",
	.what = "the host's IPI (signal or mailbox): a cross-call's round trip to a halted and "
		"a spinning CPU",
	.run = run_ipi_rtt,
	.order = 5,
};
bench_register(ipi_rtt_bench);

/* ---- the replay trace: a file where the kernel has GRUB's module ---- */

static int load_trace(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;
	void *buf;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "bench-suite: host_trace=%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = aligned_alloc(8, (size_t)len + 8);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "bench-suite: host_trace=%s: cannot read %ld bytes\n", path, len);
		fclose(f);
		return -1;
	}
	fclose(f);
	boot_info.modules[0].start = (u64)(uintptr_t)buf;
	boot_info.modules[0].end = (u64)(uintptr_t)buf + (u64)len;
	snprintf(boot_info.modules[0].cmdline, sizeof(boot_info.modules[0].cmdline), "%.63s", path);
	boot_info.nr_modules = 1;
	return 0;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	char line[BOOT_CMDLINE_MAX], err[512];
	size_t n = 0;
	int rc, ncpus;

	setvbuf(stdout, NULL, _IOLBF, 0);
	start_ns = mono_ns();
	line[0] = '\0';
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: %s [OPTION=VALUE]... (the kernel's options, docs/options.md, and "
			       "cpus= host_ipi= host_mem= host_trace= host_peer=)\n", argv[0]);
			return 0;
		}
		if (n + strlen(argv[i]) + 2 > sizeof(line)) {
			fprintf(stderr, "bench-suite: the options are longer than %zu characters\n",
				sizeof(line) - 1);
			return 2;
		}
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", n ? " " : "", argv[i]);
	}
	/* Once for cpus= and host_ipi=, which the CPUs need; host_smp_init resets every option
	 * to its default, and the line is parsed again once they are up. */
	if (cmdline_parse(line, err, sizeof(err))) {
		fprintf(stderr, "bench-suite: %s\n", err);
		return 2;
	}
	nr_cores = host_nr_cores();
	ncpus = cpus_option ? (int)cpus_option : nr_cores;
	host_ipi_poll = !strcmp(ipi_mode, "poll");
	host_smp_pin = true;
	read_cpu_model();
	if (read_line("/proc/loadavg", loadavg_start, sizeof(loadavg_start)))
		snprintf(loadavg_start, sizeof(loadavg_start), "?");
	json_clean(loadavg_start);
	tsc_khz = measure_tsc_khz();
	host_arena_init(HOST_ARENA_BASE, (unsigned long)mem_mib << 20);
	host_smp_init(ncpus);
	cmdline_parse(line, err, sizeof(err));
	snprintf(boot_info.cmdline, sizeof(boot_info.cmdline), "%s", line);
	boot_info.cmdline_len = strlen(line);
	pin_errors = check_pinning(nr_cores);
	if (pin_errors)
		fprintf(stderr, "bench-suite: %d CPUs are not pinned to a core of their own\n",
			pin_errors);
	if (trace_file[0] && load_trace(trace_file))
		return 2;

	if (peer_name[0]) {
		if (boot_param_given(scheme)) {
			fprintf(stderr, "bench-suite: host_peer=%s benchmarks malloc/free; scheme= "
				"has no meaning with it\n", peer_name);
			return 2;
		}
		if (peer_setup(peer_name)) {
			fprintf(stderr, "bench-suite: host_peer= needs bench-suite-peer (this is "
				"%s)\n", argv[0]);
			return 2;
		}
		slab_init();
		bench_select_peer(peer_name);
	} else {
		bench_select_schemes(); /* scheme=, checked when the line was parsed */
		slab_init();
	}
	if (!boot_param_given(bench))
		snprintf(bench_list, sizeof(bench_list), "%s", BENCH_DEFAULT);
	getrusage(RUSAGE_SELF, &ru_start);
	t_start = mono_ns();
	rc = bench_run_selected(bench_list);
	if (slabinfo_at_end)
		slabinfo_print();
	fflush(stdout);
	/* The thread-CPUs idle in cpu_idle_loop: leave without joining them. */
	_exit(rc < 0 ? 1 : pin_errors ? 1 : 0);
}
