/* SPDX-License-Identifier: MIT */
/*
 * What slablab takes from ACPI: the CPUs in the MADT, the HPET's address, and from the FADT
 * the PM timer's port, the reset register, the PM1 control ports and the sleep control
 * register of hardware-reduced ACPI, with the sleep type of S5 from the \_S5 object of the
 * DSDT or an SSDT for power-off (arch/x86/reboot.c), and the NUMA layout from the SRAT (CPU
 * and memory affinity) and SLIT (distances) for kernel/numa.c. tools/acpi-check runs the same
 * code on a dump of another machine's tables.
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
	bool hpet_table;    /* the root table lists a HPET table */
	u64 hpet_addr;      /* 0: no HPET table, or one not in memory space */
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
	/* FADT (ACPI 5.0+): hardware-reduced ACPI's sleep control and status registers; addr 0:
	 * none (or a FADT too short to name them) */
	struct acpi_gas sleep_control, sleep_status;
	u32 fadt_len;       /* the FADT's length: which fields it has */
	u64 dsdt_addr;      /* 0: the FADT names none */
	int nr_ssdt;        /* SSDTs the root table lists */
	bool have_s5;       /* \_S5 was read: slp_typa, slp_typb, from the table s5_from names */
	u8 slp_typa, slp_typb;
	char s5_from[40];   /* "DSDT", or "SSDT 2 of 9 (OEM table id st_ex)" */
	char s5_err[128];   /* why there is no S5 sleep type, when !have_s5 */
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
 * Reads Name(\_S5, Package () {SLP_TYPa, SLP_TYPb, ...}) from a definition block (a DSDT
 * or an SSDT) of len bytes (its header's length is checked against len): 0 with the two
 * sleep types; ACPI_S5_NONE when the table has no \_S5 object; -1 when it has one that cannot
 * be read, or the table is broken; err says why.
 */
#define ACPI_S5_NONE (-2)
int acpi_find_s5(const void *table, size_t len, u8 *typa, u8 *typb, char *err, size_t errlen);

/*
 * Whether slablab can write the 8-bit register a generic address names (the reset
 * register, the sleep control and status registers): an I/O port, memory in the 3..4 GiB
 * window the kernel maps uncached, or PCI configuration space of bus 0. false with why.
 */
bool acpi_gas_writable(const struct acpi_gas *g, char *why, size_t len);

/*
 * How slablab powers the machine off (ACPI 6.5, 16.1.7): PM1 control with \_S5's sleep
 * types, or on a hardware-reduced machine the FADT's sleep control register (4.8.3.7);
 * ACPI_POWEROFF_NONE with why when it cannot.
 */
enum acpi_poweroff { ACPI_POWEROFF_NONE, ACPI_POWEROFF_PM1, ACPI_POWEROFF_SLEEP_CONTROL };
enum acpi_poweroff acpi_poweroff_method(const struct acpi_info *a, char *why, size_t len);

/* The sleep control register's fields (ACPI 6.5, 4.8.3.7) and the sleep status register's. */
#define ACPI_SLEEP_TYP_SHIFT 2
#define ACPI_SLEEP_TYP_MASK (7u << ACPI_SLEEP_TYP_SHIFT)
#define ACPI_SLEEP_EN (1u << 5)
#define ACPI_SLEEP_WAK_STS (1u << 7)

/* The byte that enters sleep type typ (\_S5's SLP_TYPa) through the sleep control register. */
static inline u8 acpi_sleep_control_value(u8 typ)
{
	return (u8)(((u32)typ << ACPI_SLEEP_TYP_SHIFT & ACPI_SLEEP_TYP_MASK) | ACPI_SLEEP_EN);
}

#endif
