/* SPDX-License-Identifier: MIT */
/*
 * What slablab takes from ACPI: the CPUs in the MADT, the HPET's address and the PM timer's
 * port (FADT).
 */
#ifndef SLABLAB_ACPI_H
#define SLABLAB_ACPI_H

#include "kernel/types.h"

struct acpi_cpu {
	u32 apic_id;   /* xAPIC id (type 0) or x2APIC id (type 9) */
	u32 uid;       /* ACPI processor id / uid */
	bool x2apic;   /* listed by an x2APIC entry (type 9) */
};

struct acpi_info {
	bool present;       /* a valid RSDP and root table were found */
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
	char oem[7];
};

extern struct acpi_info acpi;

int acpi_init(u64 rsdp_addr);
int acpi_parse_madt(const void *madt, struct acpi_info *out);
int acpi_parse_fadt(const void *fadt, struct acpi_info *out);
bool acpi_checksum_ok(const void *p, size_t len);

#endif
