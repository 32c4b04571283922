// SPDX-License-Identifier: MIT
/*
 * Deliberate faults for crash=KIND, so that the exception report (vector, error code, RIP,
 * CR2, registers, backtrace with names) can be seen and tested: tools/test.sh boots each
 * kind and checks the report. Each is its own non-inlined function so it shows up by name.
 */
#include "arch/x86/x86.h"
#include "kernel/crash.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"

static void __noinline crash_page_fault(void)
{
	volatile u64 *p = (volatile u64 *)0x10; /* page 0 is never mapped */

	*p = 0xdead;
}

static void __noinline crash_general_protection(void)
{
	/* A non-canonical address: #GP, not #PF. */
	volatile u64 *p = (volatile u64 *)0x8000000000000000ULL;

	(void)*p;
}

static void __noinline crash_invalid_opcode(void)
{
	__asm__ __volatile__("ud2");
}

static void __noinline crash_divide_error(void)
{
	u64 zero = 0, hi = 0, lo = 1;

	__asm__ __volatile__("divq %2" : "+a"(lo), "+d"(hi) : "r"(zero));
}

/*
 * A stack pointer in the unmapped page 0: the push faults (#PF), delivering the #PF needs
 * the same stack and faults again, which makes a #DF. The #DF handler runs on its own IST
 * stack, so it can still report.
 */
static void __noinline crash_double_fault(void)
{
	__asm__ __volatile__("movq $0x800, %%rsp\n\tpushq $0" ::: "memory");
}

static void crash_page_fault_ipi(void *unused)
{
	crash_page_fault();
}

static void __noinline crash_page_fault_on_cpu1(void)
{
	if (nr_cpu_ids < 2) {
		printk("crash=pf-ap needs two CPUs\n");
		return;
	}
	smp_call_function_single(1, crash_page_fault_ipi, NULL, 1);
}

static void __noinline crash_lock_recursion(void)
{
	static DEFINE_SPINLOCK(crash_lock);

	spin_lock(&crash_lock);
	spin_lock(&crash_lock);
}

void crash(const char *kind)
{
	printk("crash: triggering '%s' on purpose (crash= option)\n", kind);
	if (!strcmp(kind, "pf"))
		crash_page_fault();
	else if (!strcmp(kind, "gp"))
		crash_general_protection();
	else if (!strcmp(kind, "ud"))
		crash_invalid_opcode();
	else if (!strcmp(kind, "de"))
		crash_divide_error();
	else if (!strcmp(kind, "df"))
		crash_double_fault();
	else if (!strcmp(kind, "pf-ap"))
		crash_page_fault_on_cpu1();
	else if (!strcmp(kind, "lockrec"))
		crash_lock_recursion();
	else if (!strcmp(kind, "panic"))
		panic("crash=panic: a deliberate panic");
}
