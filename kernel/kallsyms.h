/* SPDX-License-Identifier: MIT */
/* Symbol names for addresses in the kernel's text (tables made by tools/kallsyms.sh). */
#ifndef SLABLAB_KALLSYMS_H
#define SLABLAB_KALLSYMS_H

#include "kernel/types.h"

const char *kallsyms_lookup(u64 addr, u64 *offset);
/* [start, end) of the symbol that contains addr (false: not in the kernel's text), and of the
 * symbol called name (false: none; a name without a suffix also finds GCC's copy of the
 * function, name.constprop.0 and the like, when the kernel has no name itself). A symbol ends
 * where the next one starts. */
bool kallsyms_range(u64 addr, u64 *start, u64 *end);
bool kallsyms_lookup_name(const char *name, u64 *start, u64 *end);
/* The i-th symbol by address and its address (NULL past the last one). */
const char *kallsyms_symbol(unsigned int i, u64 *addr);
void kallsyms_print_symbol(u64 addr);   /* "name+0xoff", no newline */
void kallsyms_print_addr(u64 addr);     /* "  [<addr>] name+0xoff\n" */

#endif
