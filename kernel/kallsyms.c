// SPDX-License-Identifier: MIT
/* Address -> "function+offset", by binary search in the tables tools/kallsyms.sh generates. */
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/string.h"

extern const unsigned int kallsyms_count;
extern const unsigned long kallsyms_addrs[];
extern const unsigned int kallsyms_name_off[];
extern const char kallsyms_names[];
extern const char _etext[];

/* The index of the last symbol at or below addr, or -1 if addr is not in the text. */
static int symbol_index(u64 addr)
{
	unsigned int lo = 0, hi = kallsyms_count;

	if (!kallsyms_count || addr < kallsyms_addrs[0] || addr >= (u64)(uptr)_etext)
		return -1;
	while (hi - lo > 1) { /* invariant: addrs[lo] <= addr, and addr < addrs[hi] if hi < count */
		unsigned int mid = lo + (hi - lo) / 2;

		if (kallsyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

const char *kallsyms_lookup(u64 addr, u64 *offset)
{
	int i = symbol_index(addr);

	if (i < 0)
		return NULL;
	*offset = addr - kallsyms_addrs[i];
	return kallsyms_names + kallsyms_name_off[i];
}

/* A symbol's end is the next higher symbol's address (aliases share one), or the text's end. */
static u64 symbol_end(unsigned int i)
{
	for (unsigned int j = i + 1; j < kallsyms_count; j++)
		if (kallsyms_addrs[j] > kallsyms_addrs[i])
			return kallsyms_addrs[j];
	return (u64)(uptr)_etext;
}

bool kallsyms_range(u64 addr, u64 *start, u64 *end)
{
	int i = symbol_index(addr);

	if (i < 0)
		return false;
	*start = kallsyms_addrs[i];
	*end = symbol_end((unsigned int)i);
	return true;
}

/* GCC's copies of a function keep its name with a suffix: foo.constprop.0, foo.isra.0,
 * foo.part.0. A name given without one finds such a copy when there is no foo itself. */
static bool is_copy_of(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && sym[n] == '.';
}

bool kallsyms_lookup_name(const char *name, u64 *start, u64 *end)
{
	int copy = -1;

	for (unsigned int i = 0; i < kallsyms_count; i++) {
		const char *sym = kallsyms_names + kallsyms_name_off[i];

		if (!strcmp(sym, name)) {
			copy = (int)i;
			break;
		}
		if (copy < 0 && is_copy_of(sym, name))
			copy = (int)i;
	}
	if (copy < 0)
		return false;
	*start = kallsyms_addrs[copy];
	*end = symbol_end((unsigned int)copy);
	return true;
}

const char *kallsyms_symbol(unsigned int i, u64 *addr)
{
	if (i >= kallsyms_count)
		return NULL;
	*addr = kallsyms_addrs[i];
	return kallsyms_names + kallsyms_name_off[i];
}

void kallsyms_print_symbol(u64 addr)
{
	u64 off;
	const char *name = kallsyms_lookup(addr, &off);

	if (name)
		printk("%s+%#llx", name, (unsigned long long)off);
	else
		printk("?");
}

void kallsyms_print_addr(u64 addr)
{
	printk("  [<%016llx>] ", (unsigned long long)addr);
	kallsyms_print_symbol(addr);
	printk("\n");
}
