// SPDX-License-Identifier: MIT
/*
 * ACPI tables: RSDP -> XSDT (or RSDT on ACPI 1.0) -> MADT for the CPUs, HPET and FADT (its PM
 * timer) for the TSC calibration (arch/x86/tsc.c).
 * Tables are read in place through the direct map and their pages are reserved so the page
 * allocator never hands them out. A bad checksum is reported; the table is still used, as
 * Linux does, since firmware gets this wrong more often than the tables are unusable.
 */
#include "arch/x86/acpi.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/page_alloc.h"

struct acpi_info acpi;

struct __packed rsdp {
	char sig[8];
	u8 checksum;
	char oem[6];
	u8 revision;
	u32 rsdt;
	/* ACPI 2.0+ */
	u32 length;
	u64 xsdt;
	u8 xchecksum;
	u8 reserved[3];
};

struct __packed sdt_header {
	char sig[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem[6];
	char oem_table[8];
	u32 oem_rev;
	u32 creator;
	u32 creator_rev;
};

struct __packed madt {
	struct sdt_header h;
	u32 lapic_addr;
	u32 flags;
};

struct __packed madt_entry {
	u8 type;
	u8 length;
};

struct __packed madt_lapic { /* type 0 */
	struct madt_entry e;
	u8 uid;
	u8 apic_id;
	u32 flags;
};

struct __packed madt_lapic_override { /* type 5 */
	struct madt_entry e;
	u16 reserved;
	u64 addr;
};

struct __packed madt_x2apic { /* type 9 */
	struct madt_entry e;
	u16 reserved;
	u32 x2apic_id;
	u32 flags;
	u32 uid;
};

struct __packed hpet_table {
	struct sdt_header h;
	u32 block_id;
	u8 space_id; /* 0: memory */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
};

/*
 * FADT fields by byte offset (ACPI 6.5, 5.2.9, table 5.9): the 32-bit PM_TMR_BLK port and
 * its length (4 when there is a PM timer), the flags, and the ACPI 2.0+ X_PM_TMR_BLK generic
 * address, which replaces PM_TMR_BLK when it is not zero.
 */
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_X_PM_TMR_BLK 208
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)
#define FADT_FLAG_HW_REDUCED (1u << 20)
#define GAS_SYSTEM_MEMORY 0
#define GAS_SYSTEM_IO 1

#define MADT_ENABLED 1u
#define MADT_ONLINE_CAPABLE 2u

bool acpi_checksum_ok(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static bool listed(const u32 *ids, int n, u32 id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static void add_cpu(struct acpi_info *out, u32 apic_id, u32 uid, bool x2, u32 flags)
{
	if (!(flags & MADT_ENABLED)) {
		if (flags & MADT_ONLINE_CAPABLE)
			out->nr_online_capable++; /* for hotplug; we do not hot-add */
		else
			out->nr_disabled++;
		return;
	}
	for (int i = 0; i < out->nr_cpus; i++)
		if (out->cpus[i].apic_id == apic_id)
			return; /* listed twice (type 0 and type 9): keep the first */
	if (out->nr_cpus == NR_CPUS) {
		if (listed(out->ignored_ids, MIN(out->nr_ignored, NR_CPUS), apic_id))
			return;
		if (out->nr_ignored < NR_CPUS)
			out->ignored_ids[out->nr_ignored] = apic_id;
		out->nr_ignored++;
		return;
	}
	out->cpus[out->nr_cpus].apic_id = apic_id;
	out->cpus[out->nr_cpus].uid = uid;
	out->cpus[out->nr_cpus].x2apic = x2;
	out->nr_cpus++;
}

int acpi_parse_madt(const void *table, struct acpi_info *out)
{
	const struct madt *m = table;
	const u8 *p, *end;

	if (memcmp(m->h.sig, "APIC", 4) || m->h.length < sizeof(*m))
		return -1;
	out->have_madt = true;
	out->lapic_addr = m->lapic_addr;
	out->pcat_compat = m->flags & 1;
	p = (const u8 *)table + sizeof(*m);
	end = (const u8 *)table + m->h.length;
	while (p + sizeof(struct madt_entry) <= end) {
		const struct madt_entry *e = (const void *)p;

		if (e->length < 2 || p + e->length > end) {
			printk("acpi: MADT entry of length %u at offset %ld is broken; stopping\n",
			       e->length, (long)(p - (const u8 *)table));
			break;
		}
		switch (e->type) {
		case 0:
			if (e->length >= sizeof(struct madt_lapic)) {
				const struct madt_lapic *l = (const void *)p;

				add_cpu(out, l->apic_id, l->uid, false, l->flags);
			}
			break;
		case 5:
			if (e->length >= sizeof(struct madt_lapic_override))
				out->lapic_addr = ((const struct madt_lapic_override *)p)->addr;
			break;
		case 9:
			if (e->length >= sizeof(struct madt_x2apic)) {
				const struct madt_x2apic *x = (const void *)p;

				add_cpu(out, x->x2apic_id, x->uid, true, x->flags);
			}
			break;
		default:
			break;
		}
		p += e->length;
	}
	return 0;
}

int acpi_parse_fadt(const void *table, struct acpi_info *out)
{
	const struct sdt_header *h = table;
	const u8 *b = table;
	u32 blk = 0, flags = 0;
	u64 xaddr = 0;
	bool have_x = false;

	if (memcmp(h->sig, "FACP", 4) || h->length < FADT_PM_TMR_LEN + 1)
		return -1;
	out->have_fadt = true;
	if (h->length >= FADT_FLAGS + 4)
		memcpy(&flags, b + FADT_FLAGS, 4);
	if (flags & FADT_FLAG_HW_REDUCED)
		return 0; /* hardware-reduced ACPI: no PM timer */
	if (h->length >= FADT_X_PM_TMR_BLK + 12) {
		memcpy(&xaddr, b + FADT_X_PM_TMR_BLK + 4, 8);
		have_x = xaddr != 0;
	}
	if (have_x) {
		u8 space = b[FADT_X_PM_TMR_BLK];

		if (space != GAS_SYSTEM_IO || xaddr > 0xfffc) {
			printk("acpi: the PM timer is at %#llx in address space %u, not an I/O port; "
			       "not used\n", (unsigned long long)xaddr, space);
			return 0;
		}
		blk = (u32)xaddr;
	} else {
		memcpy(&blk, b + FADT_PM_TMR_BLK, 4);
		if (blk && b[FADT_PM_TMR_LEN] != 4) {
			printk("acpi: FADT PM_TMR_LEN is %u, not 4; the PM timer is not used\n",
			       b[FADT_PM_TMR_LEN]);
			return 0;
		}
		if (blk > 0xfffc) {
			printk("acpi: FADT PM_TMR_BLK %#x is not an I/O port; not used\n", blk);
			return 0;
		}
	}
	out->pm_tmr_port = (u16)blk;
	out->pm_tmr_32bit = flags & FADT_FLAG_TMR_VAL_EXT;
	return 0;
}

static const struct sdt_header *map_table(u64 addr, const char *what)
{
	const struct sdt_header *h = (const void *)(uptr)addr;

	if (!addr || addr >= 64 * GiB)
		return NULL;
	memblock_reserve(addr, sizeof(*h), what);
	memblock_reserve(addr, h->length, what);
	if (!acpi_checksum_ok(h, h->length))
		printk("acpi: table %.4s at %#llx has a bad checksum; using it anyway\n", h->sig,
		       (unsigned long long)addr);
	return h;
}

/*
 * Legacy BIOS: the RSDP is on a 16-byte boundary in the EBDA's first KiB or 0xe0000-0xfffff
 * (ACPI 6.5, 5.2.5.1). The EBDA's segment is the BIOS data area's word at 0x40e, in page 0,
 * which the direct map leaves out: boot/entry.asm copies it before paging is on. An EBDA
 * outside conventional memory (above 640 KiB, or in page 0) is not one.
 */
extern u16 boot_bda_ebda;

static u64 scan_rsdp(void)
{
	u64 ebda = (u64)boot_bda_ebda << 4;
	u64 ranges[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };

	for (int r = 0; r < 2; r++) {
		if (r == 0 && (ebda < 0x1000 || ebda + 1024 > 0xa0000))
			continue;
		for (u64 a = ranges[r][0]; a + 20 <= ranges[r][1]; a += 16)
			if (!memcmp((void *)a, "RSD PTR ", 8) && acpi_checksum_ok((void *)a, 20))
				return a;
	}
	return 0;
}

int acpi_init(u64 rsdp_addr)
{
	const struct rsdp *rsdp;
	const struct sdt_header *root;
	bool xsdt;
	int n;

	if (!rsdp_addr)
		rsdp_addr = scan_rsdp();
	if (!rsdp_addr) {
		printk("acpi: no RSDP (no multiboot2 ACPI tag, nothing in the BIOS area)\n");
		return -1;
	}
	rsdp = (const void *)(uptr)rsdp_addr;
	if (memcmp(rsdp->sig, "RSD PTR ", 8) || !acpi_checksum_ok(rsdp, 20)) {
		printk("acpi: the RSDP at %#llx is not valid\n", (unsigned long long)rsdp_addr);
		return -1;
	}
	memcpy(acpi.oem, rsdp->oem, 6);
	xsdt = rsdp->revision >= 2 && rsdp->xsdt;
	root = map_table(xsdt ? rsdp->xsdt : rsdp->rsdt, xsdt ? "XSDT" : "RSDT");
	if (!root)
		return -1;
	if (root->length < sizeof(*root)) {
		printk("acpi: the %s is shorter than its header\n", xsdt ? "XSDT" : "RSDT");
		return -1;
	}
	acpi.present = true;
	n = (int)((root->length - sizeof(*root)) / (xsdt ? 8 : 4));
	for (int i = 0; i < n; i++) {
		const u8 *ents = (const u8 *)root + sizeof(*root);
		u64 addr = 0;
		const struct sdt_header *t;

		/* Entries are not naturally aligned in the XSDT: copy them out. */
		memcpy(&addr, ents + i * (xsdt ? 8 : 4), xsdt ? 8 : 4);
		t = (const void *)(uptr)addr;
		if (!addr || addr >= 64 * GiB)
			continue;
		if (!memcmp(t->sig, "APIC", 4)) {
			map_table(addr, "MADT");
			acpi_parse_madt(t, &acpi);
		} else if (!memcmp(t->sig, "HPET", 4)) {
			const struct hpet_table *h = (const void *)map_table(addr, "HPET");

			if (h->h.length >= sizeof(*h) && h->space_id == 0)
				acpi.hpet_addr = h->address;
		} else if (!memcmp(t->sig, "FACP", 4)) {
			acpi_parse_fadt(map_table(addr, "FADT"), &acpi);
		}
	}
	if (!acpi.have_madt) {
		printk("acpi: no MADT; only the boot CPU will run\n");
		return -1;
	}
	return 0;
}
