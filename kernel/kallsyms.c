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
