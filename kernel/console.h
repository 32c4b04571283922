/* SPDX-License-Identifier: MIT */
/*
 * The console printk writes to: the 16550 UART on COM1 (arch/x86/uart.c), and the screen
 * when the arch found one (kernel/screen.h). console_write (kernel/console.c) writes both.
 */
#ifndef SLABLAB_CONSOLE_H
#define SLABLAB_CONSOLE_H

#include "kernel/types.h"

void console_init(void);
void console_write(const char *s, size_t n);
void serial_write(const char *s, size_t n); /* the arch's serial port only */

#endif
