// SPDX-License-Identifier: MIT
/* Address -> "function+offset", by binary search in the tables tools/kallsyms.sh generates. */
#include "kernel/kallsyms.h"
#include "kernel/printk.h"

extern const unsigned int kallsyms_count;
extern const unsigned long kallsyms_addrs[];
extern const unsigned int kallsyms_name_off[];
extern const char kallsyms_names[];
extern const char _etext[];

const char *kallsyms_lookup(u64 addr, u64 *offset)
{
	unsigned int lo = 0, hi = kallsyms_count;

	if (!kallsyms_count || addr < kallsyms_addrs[0] || addr >= (u64)(uptr)_etext)
		return NULL;
	while (hi - lo > 1) { /* invariant: addrs[lo] <= addr, and addr < addrs[hi] if hi < count */
		unsigned int mid = lo + (hi - lo) / 2;

		if (kallsyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - kallsyms_addrs[lo];
	return kallsyms_names + kallsyms_name_off[lo];
}

/* The text of function name: [*start, *end), end the next symbol's start; false if none. */
bool kallsyms_range(const char *name, u64 *start, u64 *end)
{
	for (unsigned int i = 0; i < kallsyms_count; i++) {
		const char *n = kallsyms_names + kallsyms_name_off[i];
		unsigned int j = 0;

		while (n[j] && n[j] == name[j])
			j++;
		if (n[j] || name[j])
			continue;
		*start = kallsyms_addrs[i];
		*end = i + 1 < kallsyms_count ? kallsyms_addrs[i + 1] : (u64)(uptr)_etext;
		return true;
	}
	return false;
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
