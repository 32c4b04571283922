/* SPDX-License-Identifier: MIT */
/* What arch/host/host_env.c gives the host tests: the console capture and the IF flag. */
#ifndef SLABLAB_HOST_ENV_H
#define SLABLAB_HOST_ENV_H

#include <stdbool.h>
#include <stddef.h>

extern unsigned long host_rflags; /* the simulated RFLAGS; bit 9 (IF) starts set */

/* true: arch_has_cmpxchg_double() says no, as on a CPU without CMPXCHG16B (caches created
 * afterwards update their slab freelists under slab_lock). */
extern bool host_no_cmpxchg_double;

/* console_write() copies to stdout while this is true (the default). */
extern bool host_console_echo;

/* Everything console_write() was given since the last host_console_reset(), NUL-ended. */
const char *host_console_text(void);
bool host_console_has(const char *needle);
void host_console_reset(void);

#endif
