// SPDX-License-Identifier: MIT
/*
 * panic() and the kernel's exit. The first CPU to panic stops every other CPU (by NMI),
 * switches printk to lock-free output, prints its message and backtrace and exits with
 * KEXIT_PANIC. A CPU that panics while another one is already panicking just halts and
 * waits to be stopped; a panic inside the panic path exits at once.
 */
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/irqflags.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/screen.h"
#include "kernel/string.h"
#include "kernel/time.h"

static int panic_cpu = -1;

bool panic_begin(void)
{
	int me = smp_processor_id(), old = -1;

	local_irq_disable();
	if (__atomic_compare_exchange_n(&panic_cpu, &old, me, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		arch_stop_other_cpus();
		printk_panic_mode();
		printk_flush();
		return true;
	}
	if (old == me) {
		static const char msg[] = "\nKERNEL PANIC: recursive fault in the panic path\n";

		console_write(msg, sizeof(msg) - 1);
		arch_exit(KEXIT_PANIC);
	}
	return false;
}

void __noreturn panic_end(void)
{
	kernel_exit(KEXIT_PANIC);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	if (!panic_begin())
		for (;;)
			arch_idle(); /* the panicking CPU will NMI us */
	printk("\nKERNEL PANIC on cpu %d: ", smp_processor_id());
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	arch_backtrace();
	panic_end();
}

void kernel_exit(enum kexit code)
{
	const char *what = code == KEXIT_PASS ? "pass" : code == KEXIT_FAIL ? "fail" : "panic";

	printk("{\"event\":\"exit\",\"result\":\"%s\",\"code\":%d,\"uptime_ms\":%llu}\n", what,
	       (int)code, (unsigned long long)(ktime_ns() / 1000000));
	printk_flush();
	screen_show_results(what); /* the final line below then shows under the results page */
	printk("slablab: %s; %s\n", what, arch_exit_action());
	printk_flush();
	arch_exit(code);
}
