/* SPDX-License-Identifier: MIT */
/*
 * NUMA nodes: which node each CPU and each page of RAM belongs to, and how far the nodes are
 * from each other (ACPI's SRAT and SLIT, arch/x86/acpi.c). Node ids are dense, 0..nr_node_ids-1,
 * in the order the SRAT first names their proximity domains (as Linux numbers them). Without
 * an SRAT, with a bad one, or with numa=off, everything is node 0 and nr_node_ids is 1.
 *
 * A node may have CPUs and no memory (its CPUs allocate from the nearest node with memory)
 * or memory and no CPUs. numa_fallback[nid] lists every node by distance from nid, nid first
 * (distance ties by node id): the page allocator and the slab allocator's get_partial walk it.
 */
#ifndef SLABLAB_NUMA_H
#define SLABLAB_NUMA_H

#include "kernel/percpu.h"
#include "kernel/types.h"

#define MAX_NUMNODES 8
#define NUMA_MAX_MEMBLKS 32
#define NUMA_NO_NODE (-1)
#define LOCAL_DISTANCE 10
#define REMOTE_DISTANCE 20

/* A layout: what arch/x86/acpi.c builds from the SRAT and SLIT (acpi_numa_layout). */
struct numa_memblk {
	u64 base, end; /* [base, end) */
	int nid;
};

struct numa_layout {
	int nr_nodes;
	bool slit;                             /* distances from a SLIT (else 10/20) */
	u32 pxm[MAX_NUMNODES];                 /* each node's proximity domain */
	u8 distance[MAX_NUMNODES][MAX_NUMNODES];
	int nr_memblks;
	struct numa_memblk memblks[NUMA_MAX_MEMBLKS]; /* sorted by base, never overlapping */
	int nr_cpus;                           /* CPUs (APIC ids) placed, one per MADT CPU */
	u32 cpu_apic[NR_CPUS];
	u8 cpu_node[NR_CPUS];
};

extern int nr_node_ids;
extern u8 numa_cpu_node[NR_CPUS];              /* by logical CPU */
extern u8 numa_distance_table[MAX_NUMNODES][MAX_NUMNODES];
extern u8 numa_fallback[MAX_NUMNODES][MAX_NUMNODES];
extern bool numa_node_has_cpus[MAX_NUMNODES];
extern bool numa_node_has_memory[MAX_NUMNODES];
extern int numa_nr_memblks;
extern struct numa_memblk numa_memblks[NUMA_MAX_MEMBLKS];
extern bool numa_from_slit;
extern char numa_off_reason[128]; /* why there is one node: "" when the SRAT was used */

static inline int cpu_to_node(int cpu)
{
	return numa_cpu_node[cpu];
}

static inline int numa_node_id(void)
{
	int cpu = smp_processor_id();

	/* An AP still starting has a placeholder number past NR_CPUS (kernel/percpu.c). */
	return likely((unsigned)cpu < NR_CPUS) ? numa_cpu_node[cpu] : 0;
}

static inline int node_distance(int a, int b)
{
	return numa_distance_table[a][b];
}

/* The node of a physical address (node 0 for one outside every block). */
int numa_phys_to_nid(u64 phys);

/* Make `l` the machine's layout (NULL or numa=off: one node). Before the page allocator. */
void numa_install(const struct numa_layout *l, const char *why_not);
/* After the CPUs have their logical numbers: each one's node, from its APIC id. */
void numa_assign_cpu(int cpu, u32 apic_id);
/* One node: CPUs and memory of node 0 (the boot default, and the host tests'). */
void numa_reset(void);
/* Sort the nodes by distance from each (numa_fallback); numa_install calls it. */
void numa_build_fallback(void);
/* The layout line and JSON for the boot log (init/main.c or arch setup). */
void numa_print(void);

extern char numa_option[8]; /* boot option numa=on|off */

#endif
