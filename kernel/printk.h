/* SPDX-License-Identifier: MIT */
/*
 * printk: formatted output to the console (the COM1 UART). Each CPU collects a line in its
 * own buffer and writes whole lines under the console lock, so lines from different CPUs
 * never interleave. In NMI context printk takes no lock: the line waits in a per-cpu buffer
 * until the cpu takes interrupts again (kernel/nmi.c flushes it by irq_work). Formats: %d %i %u %x %X %o %c %s %p %% with l, ll, z modifiers, width,
 * '-' and '0' flags, and .precision for %s.
 */
#ifndef SLABLAB_PRINTK_H
#define SLABLAB_PRINTK_H

#include "kernel/types.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
void printk_flush(void);
/* printk in NMI context is buffered per cpu (kernel/printk.c); these flush it from outside. */
bool printk_nmi_pending(void);
void printk_nmi_flush(void);
void printk_panic_mode(void);

void __noreturn panic(const char *fmt, ...) __printf(1, 2);

/* Exit codes the kernel reports to QEMU's isa-debug-exit (rc = code * 2 + 1). */
enum kexit {
	KEXIT_PASS = 0x10,  /* everything passed: qemu rc 33 */
	KEXIT_FAIL = 0x11,  /* a test failed or a bad option: qemu rc 35 */
	KEXIT_PANIC = 0x12, /* panic or exception: qemu rc 37 */
};
void __noreturn kernel_exit(enum kexit code);

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (unlikely(cond))                                                                \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__);                   \
	} while (0)

#endif
