/* SPDX-License-Identifier: MIT */
/* Symbol names for addresses in the kernel's text (tables made by tools/kallsyms.sh). */
#ifndef SLABLAB_KALLSYMS_H
#define SLABLAB_KALLSYMS_H

#include "kernel/types.h"

const char *kallsyms_lookup(u64 addr, u64 *offset);
bool kallsyms_range(const char *name, u64 *start, u64 *end); /* a function's text */
void kallsyms_print_symbol(u64 addr);   /* "name+0xoff", no newline */
void kallsyms_print_addr(u64 addr);     /* "  [<addr>] name+0xoff\n" */

#endif
