// SPDX-License-Identifier: MIT
/* The benchmark runner and its output helpers (see bench.h). */
#include "arch.h"
#include "bench.h"
#include "printk.h"
#include "smp.h"
#include "string.h"
#include "time.h"

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

void bench_json(const char *bench, const char *params, const char *figure, u64 value,
		const char *unit, const struct bench_stats *sp)
{
	char v[32], a[32], b[32], c[32], d[32];

	if (sp)
		printk("{\"bench\":\"%s\",%s,\"figure\":\"%s\",\"value\":%s,\"unit\":\"%s\","
		       "\"p10\":%s,\"p90\":%s,\"min\":%s,\"max\":%s,\"accel\":\"%s\",\"emulated\":%s,"
		       "\"cpus\":%d}\n",
		       bench, params, figure, bench_fmt(v, sizeof(v), value), unit,
		       bench_fmt(a, sizeof(a), sp->p10), bench_fmt(b, sizeof(b), sp->p90),
		       bench_fmt(c, sizeof(c), sp->min), bench_fmt(d, sizeof(d), sp->max),
		       bench_accel(), bench_emulated() ? "true" : "false", nr_cpu_ids);
	else
		printk("{\"bench\":\"%s\",%s,\"figure\":\"%s\",\"value\":%s,\"unit\":\"%s\","
		       "\"accel\":\"%s\",\"emulated\":%s,\"cpus\":%d}\n",
		       bench, params, figure, bench_fmt(v, sizeof(v), value), unit, bench_accel(),
		       bench_emulated() ? "true" : "false", nr_cpu_ids);
}

static bool selected(const char *filter, const char *name)
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

static void list_benches(void)
{
	printk("bench: valid: none all");
	for (const struct bench *const *b = __benches_start; b < __benches_end; b++)
		printk(" %s", (*b)->name);
	printk("\n");
}

int bench_run_selected(const char *filter)
{
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
	if (bench_emulated())
		printk("bench: running under QEMU's TCG: the TSC runs at host time, every figure is "
		       "emulated (\"emulated\":true); ICOUNT=1 makes it count instructions\n");
	for (const struct bench *const *b = __benches_start; b < __benches_end; b++) {
		u64 t0 = ktime_ns();

		if (!selected(filter, (*b)->name))
			continue;
		printk("\n== bench %s: %s ==\n", (*b)->name, (*b)->what);
		(*b)->run();
		printk("== bench %s: %llu ms ==\n", (*b)->name,
		       (unsigned long long)((ktime_ns() - t0) / 1000000));
	}
	return 0;
}
