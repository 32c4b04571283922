/* SPDX-License-Identifier: MIT */
/*
 * What slablab takes from ACPI: the CPUs in the MADT, the HPET's address, and from the FADT
 * the PM timer's port, the reset register and the PM1 control ports, with the sleep type
 * of S5 from the DSDT's \_S5 object for power-off (arch/x86/reboot.c), and the NUMA layout
 * from the SRAT (CPU and memory affinity) and SLIT (distances) for kernel/numa.c.
 */
#ifndef SLABLAB_ACPI_H
#define SLABLAB_ACPI_H

#include "kernel/bootinfo.h"
#include "kernel/types.h"
#include "kernel/numa.h"

struct acpi_cpu {
	u32 apic_id;   /* xAPIC id (type 0) or x2APIC id (type 9) */
	u32 uid;       /* ACPI processor id / uid */
	bool x2apic;   /* listed by an x2APIC entry (type 9) */
};

/* A generic address structure (ACPI 6.5, 5.2.3.2), as the FADT gives the reset register. */
struct acpi_gas {
	u8 space;  /* ACPI_GAS_MEMORY, ACPI_GAS_IO or ACPI_GAS_PCI */
	u8 bit_width, bit_offset, access_size;
	u64 addr;
};

#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO 1
#define ACPI_GAS_PCI 2 /* PCI configuration space of bus 0: device 47:32, function 31:16, offset 15:0 */

/* SRAT entries as read (ACPI 6.5, 5.2.16): enabled ones only. */
struct acpi_srat_cpu {
	u32 apic_id; /* xAPIC id (type 0) or x2APIC id (type 2) */
	u32 pxm;     /* proximity domain */
};

struct acpi_srat_mem {
	u64 base, len;
	u32 pxm;
	bool hotplug;
};

#define ACPI_SRAT_MAX_MEM 64

struct acpi_info {
	bool present;       /* a valid RSDP and root table were found */
	char root[5];       /* which root table: "XSDT" (ACPI 2.0+ RSDP with one) or "RSDT" */
	bool have_madt;
	u64 lapic_addr;     /* MADT local APIC address, after any type-5 override */
	bool pcat_compat;   /* MADT flag: a legacy 8259 pair is present */
	int nr_cpus;        /* enabled CPUs found, at most NR_CPUS */
	int nr_ignored;     /* enabled CPUs past NR_CPUS */
	int nr_online_capable; /* not enabled now, could be hot-added (we do not) */
	int nr_disabled;    /* entries neither enabled nor online-capable */
	u32 ignored_ids[NR_CPUS]; /* the first NR_CPUS ignored ones, to count each once */
	struct acpi_cpu cpus[NR_CPUS];
	u64 hpet_addr;      /* 0: no HPET table */
	bool have_fadt;
	u16 pm_tmr_port;    /* FADT: ACPI PM timer I/O port; 0: none (or not in I/O space) */
	bool pm_tmr_32bit;  /* FADT flag TMR_VAL_EXT: the PM timer counts 32 bits, else 24 */
	bool hw_reduced;    /* FADT flag HW_REDUCED_ACPI: no fixed hardware (PM1 control...) */
	bool have_reset_reg; /* FADT flag RESET_REG_SUP and a FADT long enough to hold it */
	struct acpi_gas reset_reg;
	u8 reset_value;
	u16 pm1a_cnt, pm1b_cnt; /* PM1 control ports; 0: none (or not in I/O space) */
	u32 smi_cmd;        /* port that takes ACPI_ENABLE to hand the hardware to the OS */
	u8 acpi_enable;
	u64 dsdt_addr;      /* 0: the FADT names none */
	bool have_s5;       /* the DSDT's \_S5 was read: slp_typa, slp_typb */
	u8 slp_typa, slp_typb;
	char s5_err[96];    /* why there is no S5 sleep type, when !have_s5 */
	char oem[7];
	bool have_srat, have_slit;
	int nr_srat_cpus, nr_srat_mem;
	int srat_cpus_dropped, srat_mem_dropped; /* enabled entries past the arrays */
	struct acpi_srat_cpu srat_cpus[NR_CPUS];
	struct acpi_srat_mem srat_mem[ACPI_SRAT_MAX_MEM];
	u64 slit_n;          /* SLIT: localities */
	const u8 *slit;      /* slit_n x slit_n distances, read in place */
};

extern struct acpi_info acpi;

int acpi_init(u64 rsdp_addr);
int acpi_parse_madt(const void *madt, struct acpi_info *out);
int acpi_parse_fadt(const void *fadt, struct acpi_info *out);
int acpi_parse_srat(const void *srat, struct acpi_info *out);
int acpi_parse_slit(const void *slit, struct acpi_info *out);
/*
 * The NUMA layout the SRAT and SLIT in `a` describe, checked against the MADT's CPUs in `a`
 * and the memory map: 0, or -1 with the reason in err (no SRAT, CPUs or memory that do not
 * exist, overlapping ranges, more than MAX_NUMNODES domains, a SLIT that does not fit).
 */
int acpi_numa_layout(const struct acpi_info *a, const struct mem_region *regions, int nr_regions,
		     struct numa_layout *out, char *err, size_t errlen);
bool acpi_checksum_ok(const void *p, size_t len);
/*
 * Reads Name(\_S5, Package () {SLP_TYPa, SLP_TYPb, ...}) from a DSDT of len bytes (its
 * header's length is checked against len): 0 with the two sleep types; -1 with the reason
 * in err.
 */
int acpi_find_s5(const void *dsdt, size_t len, u8 *typa, u8 *typb, char *err, size_t errlen);

#endif
