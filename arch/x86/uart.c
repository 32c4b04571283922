// SPDX-License-Identifier: MIT
/*
 * COM1 16550 UART at 115200 8N1, polled. The console on every firmware (there is no VGA
 * text mode under UEFI). A board without COM1 reads 0xff from LSR, which looks like "ready",
 * so output to a missing port simply vanishes instead of hanging.
 */
#include "arch/x86/x86.h"
#include "kernel/console.h"

#define COM1 0x3f8
#define UART_THR 0 /* transmit holding register (DLAB=0) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1 /* divisor latch high (DLAB=1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20 /* transmit holding register empty */

void console_init(void)
{
	outb(COM1 + UART_IER, 0x00);  /* no interrupts: we poll */
	outb(COM1 + UART_LCR, 0x80);  /* DLAB on to set the divisor */
	outb(COM1 + UART_DLL, 0x01);  /* 115200 / 1 */
	outb(COM1 + UART_DLM, 0x00);
	outb(COM1 + UART_LCR, 0x03);  /* 8 data bits, no parity, 1 stop bit, DLAB off */
	outb(COM1 + UART_FCR, 0xc7);  /* FIFOs on and cleared, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x03);  /* DTR, RTS */
}

static void uart_putc(char c)
{
	/* Bounded: about 1 ms at 115200 baud per byte is the worst a real UART needs. */
	for (int spins = 0; spins < 1000000; spins++) {
		if (inb(COM1 + UART_LSR) & LSR_THRE)
			break;
		cpu_relax();
	}
	outb(COM1 + UART_THR, (u8)c);
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}
