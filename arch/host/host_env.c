// SPDX-License-Identifier: MIT
/*
 * The few kernel services the host tests link against instead of the kernel's own:
 * console_write (to stdout unless host_console_echo is cleared, and kept so tests and
 * tools/acpi-check can look at it), panic (print, abort) and the
 * simulated interrupt flag of arch/host/cpu.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/host/host_env.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/printk.h"

unsigned long host_rflags = 1UL << 9;
/* kernel/irqflags.h's soft mask: the flags at irq_soft_mask (arch/host/cpu.h) */
#ifdef HOST_SMP
__thread unsigned long host_soft_flags;
#else
unsigned long host_soft_flags;
#endif

static char *capture;
static size_t capture_len, capture_cap;
bool host_console_echo = true;

void console_init(void)
{
}

void console_write(const char *s, size_t n)
{
	if (host_console_echo)
		fwrite(s, 1, n, stdout);
	if (capture_len + n + 1 > capture_cap) {
		capture_cap = (capture_len + n + 1) * 2;
		capture = realloc(capture, capture_cap);
		if (!capture)
			abort();
	}
	memcpy(capture + capture_len, s, n);
	capture_len += n;
	capture[capture_len] = '\0';
}

const char *host_console_text(void)
{
	return capture ? capture : "";
}

bool host_console_has(const char *needle)
{
	return strstr(host_console_text(), needle) != NULL;
}

void host_console_reset(void)
{
	capture_len = 0;
	if (capture)
		capture[0] = '\0';
}

void panic(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("PANIC (host): ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	abort();
}

/*
 * What kernel/spinlock.c's halting waiters need. The host has no hypervisor path (spin_pv
 * stays false), so these are never reached; they only have to link. With HOST_SMP the CPUs
 * are threads: kernel/smp.c has nr_cpu_ids and arch/host/host_smp.c the per-cpu offsets.
 */
#ifndef HOST_SMP
unsigned long __per_cpu_offset[NR_CPUS];
int nr_cpu_ids = 1;
#endif
u64 tsc_khz = 1000000;

void arch_kick_cpu(int cpu)
{
	(void)cpu;
}

void arch_halt_while_ne(const volatile u32 *p, u32 v)
{
	(void)p;
	(void)v;
}

bool host_no_cmpxchg_double;

/* The host's own CX16 bit (CPUID.01H:ECX bit 13), unless a test pretends it is missing. */
bool arch_has_cmpxchg_double(void)
{
	unsigned int a, b, c, d;

	__asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	return !host_no_cmpxchg_double && (c & (1u << 13));
}

/* tsc_khz is 1000000 (a cycle a nanosecond) unless the program measured the TSC
 * (tools/bench-host/suite.c does). */
u64 ns_to_cycles(u64 ns)
{
	return (u64)((unsigned __int128)ns * tsc_khz / 1000000);
}
