// SPDX-License-Identifier: MIT
/*
 * The test runner: KTAP version 1 on the console, laid out as Linux's KUnit prints it
 * (a suite is a subtest indented by four spaces). A failing expectation prints its block
 * under kunit_lock so blocks from several CPUs do not mix. An assertion ends the case on
 * the CPU that failed it, by __builtin_longjmp back to the point its runner armed; outside
 * an armed context (an interrupt handler) it is recorded like an expectation.
 */
#include "kernel/cmdline.h"
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

extern struct kunit_suite *__kunit_suites_start[], *__kunit_suites_end[];

struct kunit_abort_point {
	void *jmp[5]; /* __builtin_setjmp buffer */
	bool armed;
};

static DEFINE_PER_CPU(struct kunit_abort_point, kunit_abort_point);
static DEFINE_SPINLOCK(kunit_lock);

/* test_fail=: cases that fail on purpose once they have run, so that a report of a failure
 * (tools/ktap.py, a LAVA job, KCIDB) can be seen end to end on a kernel with none. */
static char test_fail_list[OPT_STR_MAX];
boot_param(test_fail, test_fail_list, list, NULL, "",
	   "fail these cases on purpose after they run: a comma list of suite.case or suite names");

static void mark_failed(struct kunit *test)
{
	__atomic_store_n(&test->status, KUNIT_FAILURE, __ATOMIC_RELAXED);
}

/* Print one failure block: header, the comparison, the optional message. */
static void fail_block(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		       const char *body, const char *fmt, va_list ap)
{
	unsigned long flags;

	mark_failed(test);
	spin_lock_irqsave(&kunit_lock, flags);
	printk("    # %s: %s FAILED at %s:%d (cpu %d)\n", test->name,
	       kind == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION", file, line,
	       smp_processor_id());
	printk("%s", body);
	if (fmt) {
		printk("    ");
		vprintk(fmt, ap);
		printk("\n");
	}
	spin_unlock_irqrestore(&kunit_lock, flags);
}

void kunit_fail_bool(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		     const char *expr, bool expected, const char *fmt, ...)
{
	char body[256];
	va_list ap;

	snprintf(body, sizeof(body), "    Expected %s to be %s, but is %s\n", expr,
		 expected ? "true" : "false", expected ? "false" : "true");
	va_start(ap, fmt);
	fail_block(test, kind, file, line, body, fmt, ap);
	va_end(ap);
}

void kunit_fail_int(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *l, const char *op, const char *r, long long lv, long long rv,
		    const char *fmt, ...)
{
	char body[512];
	va_list ap;

	snprintf(body, sizeof(body),
		 "    Expected %s %s %s, but\n        %s == %lld (%#llx)\n        %s == %lld (%#llx)\n",
		 l, op, r, l, lv, (unsigned long long)lv, r, rv, (unsigned long long)rv);
	va_start(ap, fmt);
	fail_block(test, kind, file, line, body, fmt, ap);
	va_end(ap);
}

void kunit_fail_ptr(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *l, const char *op, const char *r, const void *lv, const void *rv,
		    const char *fmt, ...)
{
	char body[512];
	va_list ap;

	snprintf(body, sizeof(body), "    Expected %s %s %s, but\n        %s == %p\n        %s == %p\n",
		 l, op, r, l, lv, r, rv);
	va_start(ap, fmt);
	fail_block(test, kind, file, line, body, fmt, ap);
	va_end(ap);
}

void kunit_fail_str(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *l, const char *op, const char *r, const char *lv, const char *rv,
		    const char *fmt, ...)
{
	char body[512];
	va_list ap;

	snprintf(body, sizeof(body),
		 "    Expected %s %s %s, but\n        %s == \"%s\"\n        %s == \"%s\"\n", l, op,
		 r, l, lv, r, rv);
	va_start(ap, fmt);
	fail_block(test, kind, file, line, body, fmt, ap);
	va_end(ap);
}

void kunit_fail_msg(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_block(test, kind, file, line, "", fmt, ap);
	va_end(ap);
}

void kunit_log(struct kunit *test, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("    # %s: %s\n", test->name, msg);
}

void __kunit_skip(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
	va_end(ap);
	if (__atomic_load_n(&test->status, __ATOMIC_RELAXED) != KUNIT_FAILURE)
		__atomic_store_n(&test->status, KUNIT_SKIPPED, __ATOMIC_RELAXED);
}

void kunit_abort(struct kunit *test)
{
	struct kunit_abort_point *ap = this_cpu_ptr(&kunit_abort_point);

	if (ap->armed && !in_irq_context())
		__builtin_longjmp(ap->jmp, 1);
	/* No place to return to (an interrupt handler, or outside a test): keep going. */
	printk("    # %s: assertion failed where the case cannot be stopped (cpu %d); continuing\n",
	       test->name, smp_processor_id());
	for (;;)
		; /* unreachable in practice; kunit_abort is noreturn by contract */
}

/* Call fn(test, arg) so that an assertion on this CPU comes back here. */
static void __noinline run_guarded(struct kunit *test, void (*fn)(struct kunit *, void *),
				   void *arg)
{
	struct kunit_abort_point *ap = this_cpu_ptr(&kunit_abort_point);
	bool was_armed = ap->armed;
	void *saved[5];

	memcpy(saved, ap->jmp, sizeof(saved));
	if (__builtin_setjmp(ap->jmp) == 0) {
		ap->armed = true;
		fn(test, arg);
	}
	ap->armed = was_armed;
	memcpy(ap->jmp, saved, sizeof(saved));
}

struct on_all_cpus {
	struct kunit *test;
	void (*fn)(struct kunit *, void *);
	void *arg;
	int waiting; /* start barrier: CPUs still to arrive */
};

/*
 * The start barrier halts the early arrivals and the last one wakes them all, so that no
 * CPU burns a host core spinning while others have yet to be scheduled (under emulation).
 */
static void on_all_cpus_fn(void *p)
{
	struct on_all_cpus *w = p;

	if (__atomic_sub_fetch(&w->waiting, 1, __ATOMIC_ACQ_REL) == 0) {
		for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (cpu != smp_processor_id())
				smp_send_reschedule(cpu);
	} else {
		smp_wait_event(&w->waiting, 0);
	}
	run_guarded(w->test, w->fn, w->arg);
}

void kunit_run_on_all_cpus(struct kunit *test, void (*fn)(struct kunit *, void *), void *arg)
{
	struct on_all_cpus w = { .test = test, .fn = fn, .arg = arg, .waiting = nr_cpu_ids };

	smp_run_on_all_cpus(on_all_cpus_fn, &w);
}

/* ---- selection: test=all|none|name[,name...], a name being "suite" or "suite.case" ---- */

static bool item_matches(const char *item, size_t len, const char *suite, const char *tcase)
{
	size_t sl = strlen(suite);

	if (len == 3 && !strncmp(item, "all", 3))
		return true;
	if (len == sl && !strncmp(item, suite, sl))
		return true; /* the whole suite */
	if (tcase && len == sl + 1 + strlen(tcase) && !strncmp(item, suite, sl) &&
	    item[sl] == '.' && !strncmp(item + sl + 1, tcase, len - sl - 1))
		return true;
	return false;
}

/* Does the filter select this suite (tcase NULL) or this case? */
static bool selected(const char *filter, const char *suite, const char *tcase)
{
	const char *p = filter;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (tcase ? item_matches(p, len, suite, tcase)
			  : (item_matches(p, len, suite, NULL) ||
			     (len > strlen(suite) && !strncmp(p, suite, strlen(suite)) &&
			      p[strlen(suite)] == '.')))
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

static void list_suites(void)
{
	printk("kunit: suites in this kernel:");
	for (struct kunit_suite **s = __kunit_suites_start; s < __kunit_suites_end; s++)
		printk(" %s", (*s)->name);
	printk("\n");
}

/* Every item of the filter (the value of option opt=) must name a suite or a case. */
static int check_filter(const char *opt, const char *filter)
{
	const char *p = filter;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool found = len == 3 && !strncmp(p, "all", 3);

		for (struct kunit_suite **s = __kunit_suites_start; !found && s < __kunit_suites_end;
		     s++) {
			found = item_matches(p, len, (*s)->name, NULL);
			for (struct kunit_case *c = (*s)->test_cases; !found && c->run_case; c++)
				found = item_matches(p, len, (*s)->name, c->name);
		}
		if (!found) {
			printk("kunit: %s=%.*s matches no suite or case (use suite or suite.case)\n",
			       opt, (int)len, p);
			list_suites();
			return -1;
		}
		p += len + (end ? 1 : 0);
	}
	return 0;
}

/* Every item of test_fail= must name a case that test= runs: none is ignored. */
static int check_fail_list(const char *filter)
{
	const char *p = test_fail_list;

	if (check_filter("test_fail", test_fail_list))
		return -1;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool runs = false;

		for (struct kunit_suite **s = __kunit_suites_start; !runs && s < __kunit_suites_end;
		     s++)
			for (struct kunit_case *c = (*s)->test_cases; !runs && c->run_case; c++)
				runs = item_matches(p, len, (*s)->name, c->name) &&
				       selected(filter, (*s)->name, c->name);
		if (!runs) {
			printk("kunit: test_fail=%.*s names no case that test=%s runs\n", (int)len,
			       p, filter);
			return -1;
		}
		p += len + (end ? 1 : 0);
	}
	return 0;
}

static void run_case_fn(struct kunit *test, void *arg)
{
	struct kunit_case *c = arg;

	c->run_case(test);
}

/* Run one suite as KTAP subtest number n. Returns the number of failed cases. */
static int run_suite(struct kunit_suite *suite, int n, const char *filter, int *tp, int *tf,
		     int *ts)
{
	int ncases = 0, idx = 0, pass = 0, fail = 0, skip = 0;
	bool suite_ok = true;
	u64 t0 = ktime_ns();

	for (struct kunit_case *c = suite->test_cases; c->run_case; c++)
		ncases += selected(filter, suite->name, c->name);
	printk("    KTAP version 1\n");
	printk("    # Subtest: %s\n", suite->name);
	printk("    1..%d\n", ncases);
	if (suite->suite_init && suite->suite_init(suite)) {
		printk("    # %s: suite_init failed\n", suite->name);
		suite_ok = false;
	}
	for (struct kunit_case *c = suite->test_cases; c->run_case; c++) {
		struct kunit test = { .name = c->name, .suite = suite, .status = KUNIT_SUCCESS };

		if (!selected(filter, suite->name, c->name))
			continue;
		idx++;
		if (!suite_ok) {
			test.status = KUNIT_FAILURE;
		} else if (suite->init && suite->init(&test)) {
			printk("    # %s: suite init failed\n", c->name);
			test.status = KUNIT_FAILURE;
		} else {
			run_guarded(&test, run_case_fn, c);
			if (suite->exit)
				suite->exit(&test);
			if (test_fail_list[0] && selected(test_fail_list, suite->name, c->name))
				KUNIT_FAIL(&test, "failing on purpose: test_fail=%s", test_fail_list);
		}
		rcu_quiescent_state(); /* between cases: no reader, the case's callbacks may run */
		switch (test.status) {
		case KUNIT_SUCCESS:
			pass++;
			printk("    ok %d %s\n", idx, c->name);
			break;
		case KUNIT_SKIPPED:
			skip++;
			printk("    ok %d %s # SKIP %s\n", idx, c->name, test.status_comment);
			break;
		default:
			fail++;
			printk("    not ok %d %s\n", idx, c->name);
			break;
		}
	}
	if (suite_ok && suite->suite_exit)
		suite->suite_exit(suite);
	printk("# %s: pass:%d fail:%d skip:%d total:%d\n", suite->name, pass, fail, skip, idx);
	printk("# %s: %llu ms on %d cpus\n", suite->name,
	       (unsigned long long)((ktime_ns() - t0) / 1000000), nr_cpu_ids);
	printk("%s %d %s\n", fail || !suite_ok ? "not ok" : "ok", n, suite->name);
	*tp += pass;
	*tf += fail;
	*ts += skip;
	return fail;
}

int kunit_run_selected(const char *filter)
{
	int nsuites = 0, n = 0, pass = 0, fail = 0, skip = 0;

	if (!strcmp(filter, "none")) {
		if (!test_fail_list[0])
			return 0;
		printk("kunit: test_fail=%s but no test runs (test=none, or bench= without test=)\n",
		       test_fail_list);
		return -1;
	}
	if (check_filter("test", filter) || (test_fail_list[0] && check_fail_list(filter)))
		return -1;
	for (struct kunit_suite **s = __kunit_suites_start; s < __kunit_suites_end; s++)
		nsuites += selected(filter, (*s)->name, NULL);
	printk("KTAP version 1\n");
	printk("1..%d\n", nsuites);
	for (struct kunit_suite **s = __kunit_suites_start; s < __kunit_suites_end; s++)
		if (selected(filter, (*s)->name, NULL))
			run_suite(*s, ++n, filter, &pass, &fail, &skip);
	printk("# Totals: pass:%d fail:%d skip:%d total:%d\n", pass, fail, skip,
	       pass + fail + skip);
	return fail;
}
