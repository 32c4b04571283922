// SPDX-License-Identifier: MIT
/* console_write: every line to the serial port (the arch's) and to the screen, if any. */
#include "kernel/console.h"
#include "kernel/screen.h"

void console_write(const char *s, size_t n)
{
	serial_write(s, n);
	screen_write(s, n);
}
