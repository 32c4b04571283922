/* SPDX-License-Identifier: MIT */
/* Symbol names for addresses in the kernel's text (tables made by tools/kallsyms.sh). */
#ifndef SLABLAB_KALLSYMS_H
#define SLABLAB_KALLSYMS_H

#include "kernel/types.h"

const char *kallsyms_lookup(u64 addr, u64 *offset);
/* [start, end) of the symbol that contains addr (false: not in the kernel's text), and of the
 * symbol called name (false: none). A symbol ends where the next one starts. */
bool kallsyms_range(u64 addr, u64 *start, u64 *end);
bool kallsyms_lookup_name(const char *name, u64 *start, u64 *end);
void kallsyms_print_symbol(u64 addr);   /* "name+0xoff", no newline */
void kallsyms_print_addr(u64 addr);     /* "  [<addr>] name+0xoff\n" */

#endif
