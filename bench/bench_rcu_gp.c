// SPDX-License-Identifier: MIT
/*
 * bench=rcu_gp: what a grace period costs (kernel/rcu.h). CPU 0 times synchronize_rcu
 * (one grace period asked for and waited out: the RCU IPI to every other CPU, their
 * reports, the wake-up) and call_rcu to its callback (the same, plus the callback's run at
 * CPU 0's next quiescent state), first with the other CPUs idle (halted: each RCU IPI wakes
 * one), then with them busy (spinning, interrupts on: they report from the IPI's handler).
 * Figures in cycles, median and spread over the samples.
 */
#include "bench/bench.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"

#define RCU_GP_SAMPLES 50

struct gp_run {
	u64 *sync, *cb;
	int samples;
	int stop;
	u64 cb_done;
};

struct gp_cb {
	struct rcu_head head;
	struct gp_run *run;
};

static void cb_fn(struct rcu_head *h)
{
	struct gp_cb *cb = container_of(h, struct gp_cb, head);

	WRITE_ONCE(cb->run->cb_done, get_cycles_ordered());
}

static void measure(struct gp_run *r)
{
	struct gp_cb cb = { .run = r };

	for (int i = 0; i < r->samples; i++) {
		u64 t0 = get_cycles_ordered();

		synchronize_rcu();
		r->sync[i] = get_cycles_ordered() - t0;
	}
	for (int i = 0; i < r->samples; i++) {
		u64 t0;

		r->cb_done = 0;
		t0 = get_cycles_ordered();
		call_rcu(&cb.head, cb_fn);
		for (;;) {
			rcu_quiescent_state(); /* runs the callback once its grace period ended */
			local_irq_disable();
			if (READ_ONCE(r->cb_done))
				break;
			arch_idle_timeout(1000000); /* the grace period's end wakes this CPU */
		}
		local_irq_enable();
		r->cb[i] = r->cb_done - t0;
	}
}

static void busy_fn(void *arg)
{
	struct gp_run *r = arg;

	if (smp_processor_id() == 0) {
		measure(r);
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void report(const char *others, struct gp_run *r)
{
	struct bench_stats s, c;
	char params[96], a[24], b[24];

	bench_summarize(r->sync, r->samples, 1, &s);
	bench_summarize(r->cb, r->samples, 1, &c);
	printk("%-8s %16s %16s\n", others, bench_fmt(a, sizeof(a), s.median),
	       bench_fmt(b, sizeof(b), c.median));
	snprintf(params, sizeof(params), "\"others\":\"%s\",\"cpus\":%d", others, nr_cpu_ids);
	bench_json("rcu_gp", params, "synchronize_rcu", s.median, "cycles", &s);
	bench_json("rcu_gp", params, "call_rcu_to_callback", c.median, "cycles", &c);
}

static void run_rcu_gp(void)
{
	struct gp_run r = { .samples = (int)bench_reps(RCU_GP_SAMPLES) };
	struct cpumask all;
	struct rcu_stats before, after;

	r.sync = kmalloc_array((size_t)r.samples * 2, sizeof(u64), GFP_KERNEL);
	if (!r.sync) {
		bench_fail("rcu_gp", "no memory");
		return;
	}
	r.cb = r.sync + r.samples;
	printk("%d CPUs, %d samples each, cycles%s\n", nr_cpu_ids, r.samples,
	       bench_emulated() ? " (emulated)" : "");
	printk("%-8s %16s %16s\n", "others", "synchronize_rcu", "call_rcu->cb");
	rcu_stats_get(&before);
	measure(&r);
	report("idle", &r);
	if (nr_cpu_ids > 1) {
		cpumask_setall(&all);
		bench_run_together(&all, busy_fn, &r);
		report("busy", &r);
	}
	rcu_stats_get(&after);
	if (after.gp_completed - before.gp_completed < (u64)r.samples)
		bench_fail("rcu_gp", "%llu grace periods for %d synchronize_rcu calls",
			   (unsigned long long)(after.gp_completed - before.gp_completed), r.samples);
	kfree(r.sync);
}

static const struct bench rcu_gp_bench = {
	.name = "rcu_gp",
	.what = "RCU grace periods: synchronize_rcu and call_rcu-to-callback latency, others idle and busy",
	.run = run_rcu_gp,
};
bench_register(rcu_gp_bench);
