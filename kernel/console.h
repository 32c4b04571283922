/* SPDX-License-Identifier: MIT */
/* The console printk writes to: the 16550 UART on COM1 (arch/x86/uart.c). */
#ifndef SLABLAB_CONSOLE_H
#define SLABLAB_CONSOLE_H

#include "kernel/types.h"

void console_init(void);
void console_write(const char *s, size_t n);

#endif
