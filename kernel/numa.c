// SPDX-License-Identifier: MIT
/*
 * The machine's NUMA layout (kernel/numa.h): installed once at boot, before the page allocator,
 * from what arch/x86/acpi.c made of the SRAT and SLIT; read without locks afterwards.
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/numa.h"

int nr_node_ids = 1;
u8 numa_cpu_node[NR_CPUS];
u8 numa_distance_table[MAX_NUMNODES][MAX_NUMNODES] = { { LOCAL_DISTANCE } };
u8 numa_fallback[MAX_NUMNODES][MAX_NUMNODES];
bool numa_node_has_cpus[MAX_NUMNODES] = { true };
bool numa_node_has_memory[MAX_NUMNODES] = { true };
int numa_nr_memblks;
bool numa_from_slit;
struct numa_memblk numa_memblks[NUMA_MAX_MEMBLKS];
char numa_off_reason[128] = "no SRAT was read";
static u32 node_pxm[MAX_NUMNODES];
static int nr_cpu_apic;
static u32 cpu_apic[NR_CPUS];
static u8 cpu_apic_node[NR_CPUS];

static const char *const numa_choices[] = { "on", "off", NULL };
char numa_option[8];
boot_param(numa, numa_option, enum, numa_choices, "on",
	   "NUMA nodes from the ACPI SRAT and SLIT: on, or off (one node)");

void numa_build_fallback(void)
{
	for (int a = 0; a < nr_node_ids; a++) {
		int n = 0;

		numa_fallback[a][n++] = (u8)a;
		/* Then the others by distance, ties by node id: a selection, at most 8 x 8. */
		for (int d = 0; d <= 255 && n < nr_node_ids; d++)
			for (int b = 0; b < nr_node_ids; b++)
				if (b != a && numa_distance_table[a][b] == d)
					numa_fallback[a][n++] = (u8)b;
	}
}

void numa_reset(void)
{
	nr_node_ids = 1;
	memset(numa_cpu_node, 0, sizeof(numa_cpu_node));
	memset(numa_distance_table, 0, sizeof(numa_distance_table));
	memset(numa_node_has_cpus, 0, sizeof(numa_node_has_cpus));
	memset(numa_node_has_memory, 0, sizeof(numa_node_has_memory));
	numa_distance_table[0][0] = LOCAL_DISTANCE;
	numa_node_has_cpus[0] = numa_node_has_memory[0] = true;
	numa_nr_memblks = 0;
	numa_from_slit = false;
	nr_cpu_apic = 0;
	node_pxm[0] = 0;
	numa_build_fallback();
}

void numa_install(const struct numa_layout *l, const char *why_not)
{
	numa_reset();
	if (!l || l->nr_nodes < 1) {
		strlcpy(numa_off_reason, why_not ? why_not : "no layout", sizeof(numa_off_reason));
		return;
	}
	if (!strcmp(numa_option, "off")) {
		snprintf(numa_off_reason, sizeof(numa_off_reason),
			 "numa=off (the SRAT has %d node%s)", l->nr_nodes, l->nr_nodes == 1 ? "" : "s");
		return;
	}
	numa_off_reason[0] = 0;
	nr_node_ids = l->nr_nodes;
	numa_from_slit = l->slit;
	memcpy(numa_distance_table, l->distance, sizeof(numa_distance_table));
	memcpy(node_pxm, l->pxm, sizeof(node_pxm));
	numa_node_has_memory[0] = false;
	numa_nr_memblks = l->nr_memblks;
	for (int i = 0; i < l->nr_memblks; i++) {
		numa_memblks[i] = l->memblks[i];
		numa_node_has_memory[l->memblks[i].nid] = true;
	}
	nr_cpu_apic = l->nr_cpus;
	memcpy(cpu_apic, l->cpu_apic, sizeof(u32) * (size_t)l->nr_cpus);
	memcpy(cpu_apic_node, l->cpu_node, (size_t)l->nr_cpus);
	numa_node_has_cpus[0] = false;
	for (int i = 0; i < l->nr_cpus; i++)
		numa_node_has_cpus[l->cpu_node[i]] = true;
	numa_build_fallback();
}

void numa_assign_cpu(int cpu, u32 apic_id)
{
	numa_cpu_node[cpu] = 0;
	for (int i = 0; i < nr_cpu_apic; i++)
		if (cpu_apic[i] == apic_id) {
			numa_cpu_node[cpu] = cpu_apic_node[i];
			return;
		}
}

int numa_phys_to_nid(u64 phys)
{
	for (int i = 0; i < numa_nr_memblks; i++)
		if (phys >= numa_memblks[i].base && phys < numa_memblks[i].end)
			return numa_memblks[i].nid;
	return 0;
}

void numa_print(void)
{
	if (nr_node_ids == 1) {
		printk("numa: one node (%s)\n", numa_off_reason[0] ? numa_off_reason : "the SRAT has one");
		return;
	}
	printk("numa: %d nodes from the SRAT and %s\n", nr_node_ids,
	       numa_from_slit ? "SLIT" : "default distances (no SLIT)");
	for (int n = 0; n < nr_node_ids; n++) {
		u64 mem = 0;

		for (int i = 0; i < numa_nr_memblks; i++)
			if (numa_memblks[i].nid == n)
				mem += numa_memblks[i].end - numa_memblks[i].base;
		printk("numa: node %d (proximity domain %u): %llu MiB%s%s, distances", n, node_pxm[n],
		       (unsigned long long)(mem / MiB), numa_node_has_memory[n] ? "" : " (memory-less)",
		       numa_node_has_cpus[n] ? "" : " (no CPUs)");
		for (int m = 0; m < nr_node_ids; m++)
			printk(" %u", numa_distance_table[n][m]);
		printk("\n");
	}
}
