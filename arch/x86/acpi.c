// SPDX-License-Identifier: MIT
/*
 * ACPI tables: RSDP -> XSDT (or RSDT on ACPI 1.0) -> MADT for the CPUs, HPET and FADT (its PM
 * timer) for the TSC calibration (arch/x86/tsc.c), FADT -> DSDT, and the SSDTs, for what
 * arch/x86/reboot.c needs to reset the machine and to power it off, SRAT and SLIT for the
 * NUMA layout.
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
 * FADT fields by byte offset (ACPI 6.5, 5.2.9, table 5.9): the 32-bit DSDT address, SMI_CMD
 * and ACPI_ENABLE, the PM1a/PM1b control ports and their length, the PM_TMR_BLK port and its
 * length (4 when there is a PM timer), the flags, the reset register (a generic address) and
 * the value to write to it (ACPI 2.0+), the 64-bit X_ fields of ACPI 2.0+, each of which
 * replaces its 32-bit field when it is not zero, and the sleep control and status registers
 * of ACPI 5.0+ (generic addresses). ACPI 1.0's FADT ends at the flags (116 bytes: QEMU's pc
 * machine has one), 2.0's to 4.0's at X_GPE1_BLK (244); the code reads only the fields the
 * length covers.
 */
#define FADT_DSDT 40
#define FADT_SMI_CMD 48
#define FADT_ACPI_ENABLE 52
#define FADT_PM1A_CNT_BLK 64
#define FADT_PM1B_CNT_BLK 68
#define FADT_PM_TMR_BLK 76
#define FADT_PM1_CNT_LEN 89
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_RESET_REG 116
#define FADT_RESET_VALUE 128
#define FADT_X_DSDT 140
#define FADT_X_PM1A_CNT_BLK 172
#define FADT_X_PM1B_CNT_BLK 184
#define FADT_X_PM_TMR_BLK 208
#define FADT_SLEEP_CONTROL_REG 244
#define FADT_SLEEP_STATUS_REG 256
#define FADT_FLAG_TMR_VAL_EXT (1u << 8)
#define FADT_FLAG_RESET_REG_SUP (1u << 10)
#define FADT_FLAG_HW_REDUCED (1u << 20)
#define GAS_SYSTEM_MEMORY ACPI_GAS_MEMORY
#define GAS_SYSTEM_IO ACPI_GAS_IO

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

static void read_gas(const u8 *b, struct acpi_gas *g)
{
	g->space = b[0];
	g->bit_width = b[1];
	g->bit_offset = b[2];
	g->access_size = b[3];
	memcpy(&g->addr, b + 4, 8);
}

/*
 * A PM1 control port: the X_ generic address when the FADT has one that is not zero (it
 * must be in I/O space, as on every PC), else the 32-bit port. 0: none usable.
 */
static u16 fadt_pm1_cnt(const u8 *b, u32 len, int off32, int offx, const char *name)
{
	u32 port = 0;

	if (len >= (u32)offx + 12) {
		struct acpi_gas g;

		read_gas(b + offx, &g);
		if (g.addr) {
			if (g.space != GAS_SYSTEM_IO || g.addr > 0xfffe) {
				printk("acpi: %s is at %#llx in address space %u, not an I/O port; "
				       "not used\n", name, (unsigned long long)g.addr, g.space);
				return 0;
			}
			return (u16)g.addr;
		}
	}
	memcpy(&port, b + off32, 4);
	if (port > 0xfffe) {
		printk("acpi: FADT %s %#x is not an I/O port; not used\n", name, port);
		return 0;
	}
	return (u16)port;
}

/*
 * The fields arch/x86/reboot.c needs: the DSDT, SMI_CMD, PM1 control, the reset register,
 * the sleep control and status registers.
 */
static void fadt_reboot_fields(const u8 *b, u32 len, u32 flags, struct acpi_info *out)
{
	u32 dsdt = 0;
	u64 xdsdt = 0;

	memcpy(&dsdt, b + FADT_DSDT, 4);
	if (len >= FADT_X_DSDT + 8)
		memcpy(&xdsdt, b + FADT_X_DSDT, 8);
	out->dsdt_addr = xdsdt ? xdsdt : dsdt;
	memcpy(&out->smi_cmd, b + FADT_SMI_CMD, 4);
	out->acpi_enable = b[FADT_ACPI_ENABLE];
	if (!(flags & FADT_FLAG_HW_REDUCED)) {
		out->pm1a_cnt = fadt_pm1_cnt(b, len, FADT_PM1A_CNT_BLK, FADT_X_PM1A_CNT_BLK,
					     "PM1a_CNT_BLK");
		out->pm1b_cnt = fadt_pm1_cnt(b, len, FADT_PM1B_CNT_BLK, FADT_X_PM1B_CNT_BLK,
					     "PM1b_CNT_BLK");
		if (out->pm1a_cnt && b[FADT_PM1_CNT_LEN] < 2) {
			printk("acpi: FADT PM1_CNT_LEN is %u, less than 2; PM1 control not used\n",
			       b[FADT_PM1_CNT_LEN]);
			out->pm1a_cnt = out->pm1b_cnt = 0;
		}
	}
	if ((flags & FADT_FLAG_RESET_REG_SUP) && len >= FADT_RESET_VALUE + 1) {
		read_gas(b + FADT_RESET_REG, &out->reset_reg);
		out->reset_value = b[FADT_RESET_VALUE];
		out->have_reset_reg = out->reset_reg.addr != 0;
	}
	if (len >= FADT_SLEEP_STATUS_REG + 12) {
		read_gas(b + FADT_SLEEP_CONTROL_REG, &out->sleep_control);
		read_gas(b + FADT_SLEEP_STATUS_REG, &out->sleep_status);
	}
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
	out->fadt_len = h->length;
	if (h->length >= FADT_FLAGS + 4)
		memcpy(&flags, b + FADT_FLAGS, 4);
	out->hw_reduced = flags & FADT_FLAG_HW_REDUCED;
	fadt_reboot_fields(b, h->length, flags, out);
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

/*
 * The \_S5 object, read from the AML byte code (ACPI 6.5, chapter 20, "ACPI Machine Language
 * Specification"): no interpreter, only the encoding of the one object,
 *
 *	DefName    := NameOp (0x08) NameString DataRefObject
 *	NameString := RootChar ('\') NamePath | PrefixPath ('^'...) NamePath
 *	DefPackage := PackageOp (0x12) PkgLength NumElements (a byte) PackageElementList
 *	PkgLength  := a lead byte whose bits 7-6 count the bytes that follow (0..3); with none,
 *		      bits 5-0 are the length, else bits 3-0 are its low nibble and each byte
 *		      that follows the next 8 bits (bits 5-4 then must be 0). The length counts
 *		      itself and what follows, up to the end of the package.
 *	integer    := ZeroOp (0x00) | OneOp (0x01) | OnesOp (0xff) | BytePrefix (0x0a) u8 |
 *		      WordPrefix (0x0b) u16 | DWordPrefix (0x0c) u32 | QWordPrefix (0x0e) u64
 *
 * Found by its name: every "_S5_" in the table's AML that follows a NameOp (with a root or
 * parent prefix between them) is a candidate; the first that decodes is the one. That
 * takes a \_S5 inside a Scope or an If as well, as firmware writes it both ways. The
 * package's first two elements are SLP_TYPa and SLP_TYPb; a package of one integer holds
 * SLP_TYPa in bits 7-0 and SLP_TYPb in bits 15-8, the older encoding ACPICA still reads
 * (ACPICA, hwxface.c, acpi_get_sleep_type_data). SLP_TYP is a 3-bit field of PM1_CNT
 * (ACPI 6.5, 4.8.2.2.1), so a larger value is refused.
 */
#define AML_NAME_OP 0x08
#define AML_PACKAGE_OP 0x12
#define AML_ROOT_CHAR '\\'
#define AML_PARENT_CHAR '^'

struct aml_cursor {
	const u8 *p, *end;
};

/*
 * An integer data object at c->p (before c->end) into *v: 0; -1 if the opcode is not one,
 * -2 if its bytes run past c->end.
 */
static int aml_integer(struct aml_cursor *c, u64 *v)
{
	static const u8 size_of[] = { [0x0a] = 1, [0x0b] = 2, [0x0c] = 4, [0x0e] = 8 };
	u8 op, n;

	op = *c->p++;
	if (op == 0x00 || op == 0x01) {
		*v = op;
		return 0;
	}
	if (op == 0xff) {
		*v = ~0ULL;
		return 0;
	}
	if (op >= sizeof(size_of) || !size_of[op])
		return -1;
	n = size_of[op];
	if (c->end - c->p < n)
		return -2;
	*v = 0;
	memcpy(v, c->p, n); /* little-endian */
	c->p += n;
	return 0;
}

/* Decodes the Package that starts at p (its PackageOp) in table sig; 0 or -1 with err. */
static int s5_package(const u8 *p, const u8 *end, const char *sig, u8 *typa, u8 *typb, char *err,
		      size_t errlen)
{
	const u8 *pkg_start, *pkg_end;
	u64 len, v[2];
	u8 lead, nbytes, count;
	struct aml_cursor c;
	int got = 0;

	if (p >= end || *p != AML_PACKAGE_OP) {
		if (p >= end)
			snprintf(err, errlen, "\\_S5 is cut off by the end of the %.4s", sig);
		else
			snprintf(err, errlen, "\\_S5 is not a Package (opcode %#x)", *p);
		return -1;
	}
	pkg_start = ++p;
	if (p >= end) {
		snprintf(err, errlen, "\\_S5's package length is cut off by the end of the %.4s",
			 sig);
		return -1;
	}
	lead = *p++;
	nbytes = lead >> 6;
	if (nbytes && (lead & 0x30)) {
		snprintf(err, errlen, "\\_S5's package length has reserved bits set (lead byte %#x)",
			 lead);
		return -1;
	}
	if (end - p < nbytes) {
		snprintf(err, errlen, "\\_S5's package length is cut off by the end of the %.4s",
			 sig);
		return -1;
	}
	len = nbytes ? lead & 0x0f : lead & 0x3f;
	for (int i = 0; i < nbytes; i++)
		len |= (u64)*p++ << (4 + 8 * i);
	if (len > (u64)(end - pkg_start)) {
		snprintf(err, errlen, "\\_S5's package (%llu bytes) runs past the end of the %.4s",
			 (unsigned long long)len, sig);
		return -1;
	}
	pkg_end = pkg_start + len;
	if (p >= pkg_end) {
		snprintf(err, errlen, "\\_S5's package (%llu bytes) has no room for its element count",
			 (unsigned long long)len);
		return -1;
	}
	count = *p++;
	if (!count) {
		snprintf(err, errlen, "\\_S5's package is empty");
		return -1;
	}
	c.p = p;
	c.end = pkg_end;
	for (; got < 2 && got < count && c.p < c.end; got++) {
		u8 op = *c.p;
		int rc = aml_integer(&c, &v[got]);

		if (rc == -1) {
			snprintf(err, errlen, "element %d of \\_S5 is not an integer (opcode %#x)",
				 got, op);
			return -1;
		}
		if (rc == -2) {
			snprintf(err, errlen, "element %d of \\_S5 is cut off by the end of its package",
				 got);
			return -1;
		}
	}
	if (!got) {
		snprintf(err, errlen, "\\_S5's package holds %u elements but encodes none", count);
		return -1;
	}
	if (got == 1) { /* one integer: SLP_TYPa in bits 7-0, SLP_TYPb in 15-8 */
		v[1] = (v[0] >> 8) & 0xff;
		v[0] &= 0xff;
	}
	for (int i = 0; i < 2; i++)
		if (v[i] > 7) {
			snprintf(err, errlen, "\\_S5's SLP_TYP%c is %#llx; it has 3 bits (0..7)",
				 i ? 'b' : 'a', (unsigned long long)v[i]);
			return -1;
		}
	*typa = (u8)v[0];
	*typb = (u8)v[1];
	return 0;
}

int acpi_find_s5(const void *table, size_t len, u8 *typa, u8 *typb, char *err, size_t errlen)
{
	const struct sdt_header *h = table;
	const u8 *b = table, *end;
	char first_err[128] = "";
	int candidates = 0;

	if (len < sizeof(*h)) {
		snprintf(err, errlen, "the definition block is shorter than its header");
		return -1;
	}
	if (memcmp(h->sig, "DSDT", 4) && memcmp(h->sig, "SSDT", 4)) {
		snprintf(err, errlen, "a %.4s table is not a definition block (DSDT or SSDT)", h->sig);
		return -1;
	}
	if (h->length < sizeof(*h) || h->length > len) {
		snprintf(err, errlen, "the %.4s's length %u is not within 36..%zu", h->sig, h->length,
			 len);
		return -1;
	}
	end = b + h->length;
	for (const u8 *p = b + sizeof(*h); p + 4 <= end; p++) {
		const u8 *q = p, *aml = b + sizeof(*h);

		if (memcmp(p, "_S5_", 4))
			continue;
		if (q > aml && q[-1] == AML_ROOT_CHAR)
			q--;
		else
			while (q > aml && q[-1] == AML_PARENT_CHAR)
				q--;
		if (q == aml || q[-1] != AML_NAME_OP)
			continue; /* a reference to \_S5 or bytes of something else */
		candidates++;
		if (!s5_package(p + 4, end, h->sig, typa, typb, err, errlen))
			return 0;
		if (candidates == 1)
			strlcpy(first_err, err, sizeof(first_err));
	}
	if (candidates) {
		snprintf(err, errlen, "%s", first_err);
		return -1;
	}
	snprintf(err, errlen, "the %.4s has no \\_S5 object", h->sig);
	return ACPI_S5_NONE;
}

/*
 * The registers slablab writes to leave the machine are 8 bits wide (the reset register,
 * ACPI 6.5 4.8.3.6; the sleep control and status registers, 4.8.3.7: "Register_Bit_Width
 * must be 8 and Register_Bit_Offset must be 0", table 5.9). The kernel maps memory uncached
 * only in 3..4 GiB (arch/x86/boot/entry.asm), where chipsets put such registers.
 */
bool acpi_gas_writable(const struct acpi_gas *g, char *why, size_t len)
{
	switch (g->space) {
	case ACPI_GAS_IO:
		if (g->addr <= 0xffff)
			return true;
		snprintf(why, len, "I/O port %#llx is past 0xffff", (unsigned long long)g->addr);
		return false;
	case ACPI_GAS_MEMORY:
		if (g->addr >= 0xc0000000ULL && g->addr < 0x100000000ULL)
			return true;
		snprintf(why, len, "memory at %#llx is outside the 3..4 GiB that slablab maps uncached",
			 (unsigned long long)g->addr);
		return false;
	case ACPI_GAS_PCI:
		if (!(g->addr >> 48))
			return true;
		snprintf(why, len, "PCI configuration space %#llx is not on bus 0",
			 (unsigned long long)g->addr);
		return false;
	}
	snprintf(why, len, "%#llx is in address space %u, which slablab does not write",
		 (unsigned long long)g->addr, g->space);
	return false;
}

enum acpi_poweroff acpi_poweroff_method(const struct acpi_info *a, char *why, size_t len)
{
	char reg[96];

	if (!a->present || !a->have_fadt) {
		snprintf(why, len, "%s", !a->present ? "no ACPI tables" : "there is no FADT");
		return ACPI_POWEROFF_NONE;
	}
	if (!a->have_s5) {
		snprintf(why, len, "%s", a->s5_err);
		return ACPI_POWEROFF_NONE;
	}
	if (!a->hw_reduced) {
		if (a->pm1a_cnt)
			return ACPI_POWEROFF_PM1;
		snprintf(why, len, "the FADT names no PM1a control port");
		return ACPI_POWEROFF_NONE;
	}
	/* Hardware-reduced: no PM1 blocks; the sleep control register or nothing (ACPI 6.5, 16.1.7). */
	if (!a->sleep_control.addr) {
		if (a->fadt_len < FADT_SLEEP_STATUS_REG + 12)
			snprintf(why, len, "hardware-reduced ACPI, and the FADT (%u bytes) is too short "
				 "to name a sleep control register (ACPI 5.0+: 268 bytes)", a->fadt_len);
		else
			snprintf(why, len, "hardware-reduced ACPI, and the FADT names no sleep control "
				 "register");
		return ACPI_POWEROFF_NONE;
	}
	if (a->sleep_control.bit_offset + a->sleep_control.bit_width > 8) {
		snprintf(why, len, "the sleep control register is %u bits at bit %u, not within one "
			 "byte (ACPI 6.5, table 5.9: 8 bits at bit 0)", a->sleep_control.bit_width,
			 a->sleep_control.bit_offset);
		return ACPI_POWEROFF_NONE;
	}
	if (!acpi_gas_writable(&a->sleep_control, reg, sizeof(reg))) {
		snprintf(why, len, "the sleep control register is not one slablab can write: %s", reg);
		return ACPI_POWEROFF_NONE;
	}
	return ACPI_POWEROFF_SLEEP_CONTROL;
}

/*
 * SRAT (ACPI 6.5, 5.2.16): after the header, 12 reserved bytes, then entries of
 *	type 0, 16 bytes: processor local APIC affinity: pxm bits 7-0 at 2, APIC id at 3,
 *	    flags at 4 (bit 0 enabled), pxm bits 31-8 at 9..11 (SRAT revision 2 and later)
 *	type 1, 40 bytes: memory affinity: pxm at 2, base at 8, length at 16, flags at 28
 *	    (bit 0 enabled, bit 1 hot-pluggable)
 *	type 2, 24 bytes: processor x2APIC affinity: pxm at 4, x2APIC id at 8, flags at 12
 * Other types (GICC, generic initiators) are skipped. Disabled entries are left out, as
 * Linux leaves them (acpi_numa_processor_affinity_init, acpi_numa_memory_affinity_init).
 */
#define SRAT_ENTRIES 48
#define SRAT_ENABLED 1u
#define SRAT_MEM_HOTPLUG 2u

static u32 get32(const u8 *b)
{
	u32 v;

	memcpy(&v, b, 4);
	return v;
}

static u64 get64(const u8 *b)
{
	u64 v;

	memcpy(&v, b, 8);
	return v;
}

static void srat_add_cpu(struct acpi_info *out, u32 apic_id, u32 pxm)
{
	for (int i = 0; i < out->nr_srat_cpus; i++)
		if (out->srat_cpus[i].apic_id == apic_id)
			return; /* type 0 and type 2 for one CPU: keep the first */
	if (out->nr_srat_cpus == NR_CPUS) {
		out->srat_cpus_dropped++;
		return;
	}
	out->srat_cpus[out->nr_srat_cpus].apic_id = apic_id;
	out->srat_cpus[out->nr_srat_cpus].pxm = pxm;
	out->nr_srat_cpus++;
}

int acpi_parse_srat(const void *table, struct acpi_info *out)
{
	const struct sdt_header *h = table;
	const u8 *b = table, *p, *end;

	if (memcmp(h->sig, "SRAT", 4) || h->length < SRAT_ENTRIES)
		return -1;
	out->have_srat = true;
	end = b + h->length;
	for (p = b + SRAT_ENTRIES; p + 2 <= end; p += p[1]) {
		if (p[1] < 2 || p + p[1] > end) {
			printk("acpi: SRAT entry of length %u at offset %ld is broken; stopping\n", p[1],
			       (long)(p - b));
			break;
		}
		if (p[0] == 0 && p[1] >= 16 && (get32(p + 4) & SRAT_ENABLED)) {
			u32 pxm = p[2];

			if (h->revision >= 2)
				pxm |= (u32)p[9] << 8 | (u32)p[10] << 16 | (u32)p[11] << 24;
			srat_add_cpu(out, p[3], pxm);
		} else if (p[0] == 2 && p[1] >= 24 && (get32(p + 12) & SRAT_ENABLED)) {
			srat_add_cpu(out, get32(p + 8), get32(p + 4));
		} else if (p[0] == 1 && p[1] >= 40 && (get32(p + 28) & SRAT_ENABLED) &&
			   get64(p + 16)) {
			struct acpi_srat_mem *m;
			u32 pxm = get32(p + 2);

			if (h->revision <= 1)
				pxm &= 0xff; /* ACPI 2.0's SRAT has an 8-bit domain here (Linux) */
			if (out->nr_srat_mem == ACPI_SRAT_MAX_MEM) {
				out->srat_mem_dropped++;
				continue;
			}
			m = &out->srat_mem[out->nr_srat_mem++];
			m->base = get64(p + 8);
			m->len = get64(p + 16);
			m->pxm = pxm;
			m->hotplug = get32(p + 28) & SRAT_MEM_HOTPLUG;
		}
	}
	return 0;
}

/* SLIT (ACPI 6.5, 5.2.17): the locality count (u64) at 36, then count x count bytes. */
int acpi_parse_slit(const void *table, struct acpi_info *out)
{
	const struct sdt_header *h = table;
	u64 n;

	if (memcmp(h->sig, "SLIT", 4) || h->length < 44)
		return -1;
	n = get64((const u8 *)table + 36);
	if (n > 255 || 44 + n * n > h->length) {
		printk("acpi: the SLIT's %llu localities do not fit its %u bytes; not used\n",
		       (unsigned long long)n, h->length);
		return -1;
	}
	out->have_slit = true;
	out->slit_n = n;
	out->slit = (const u8 *)table + 44;
	return 0;
}

static int pxm_node(struct numa_layout *l, u32 pxm, bool add)
{
	for (int n = 0; n < l->nr_nodes; n++)
		if (l->pxm[n] == pxm)
			return n;
	if (!add)
		return -1;
	if (l->nr_nodes == MAX_NUMNODES)
		return -2;
	l->pxm[l->nr_nodes] = pxm;
	return l->nr_nodes++;
}

static bool madt_has(const struct acpi_info *a, u32 apic_id)
{
	for (int i = 0; i < a->nr_cpus; i++)
		if (a->cpus[i].apic_id == apic_id)
			return true;
	return listed(a->ignored_ids, MIN(a->nr_ignored, NR_CPUS), apic_id);
}

static bool usable_overlap(const struct mem_region *r, int nr, u64 base, u64 end)
{
	for (int i = 0; i < nr; i++)
		if (r[i].type == MEM_USABLE && r[i].base < end && base < r[i].base + r[i].len)
			return true;
	return false;
}

int acpi_numa_layout(const struct acpi_info *a, const struct mem_region *regions, int nr_regions,
		     struct numa_layout *out, char *err, size_t errlen)
{
	int absent = 0;

	memset(out, 0, sizeof(*out));
	if (!a->have_srat) {
		snprintf(err, errlen, "the firmware has no SRAT");
		return -1;
	}
	if (a->srat_cpus_dropped || a->srat_mem_dropped) {
		snprintf(err, errlen, "the SRAT has more entries than slablab reads (%d CPUs past %d, "
			 "%d memory ranges past %d)", a->srat_cpus_dropped, NR_CPUS,
			 a->srat_mem_dropped, ACPI_SRAT_MAX_MEM);
		return -1;
	}
	/* Node ids: CPUs' domains first, in table order, then memory-only domains. */
	for (int i = 0; i < a->nr_srat_cpus + a->nr_srat_mem; i++) {
		u32 pxm = i < a->nr_srat_cpus ? a->srat_cpus[i].pxm
					      : a->srat_mem[i - a->nr_srat_cpus].pxm;

		if (i >= a->nr_srat_cpus && a->srat_mem[i - a->nr_srat_cpus].hotplug &&
		    !usable_overlap(regions, nr_regions, a->srat_mem[i - a->nr_srat_cpus].base,
				    a->srat_mem[i - a->nr_srat_cpus].base +
				    a->srat_mem[i - a->nr_srat_cpus].len))
			continue; /* a hot-plug range with nothing in it now: no node for it */
		if (pxm_node(out, pxm, true) == -2) {
			snprintf(err, errlen, "the SRAT names more than %d proximity domains, "
				 "slablab's limit", MAX_NUMNODES);
			return -1;
		}
	}
	if (!out->nr_nodes) {
		snprintf(err, errlen, "the SRAT has no enabled CPU or memory entry");
		return -1;
	}
	/* CPUs: every SRAT CPU must be one the MADT lists (enabled, or counted as not). */
	for (int i = 0; i < a->nr_srat_cpus; i++)
		if (!madt_has(a, a->srat_cpus[i].apic_id))
			absent++;
	if (absent > a->nr_online_capable + a->nr_disabled) {
		for (int i = 0; i < a->nr_srat_cpus; i++)
			if (!madt_has(a, a->srat_cpus[i].apic_id)) {
				snprintf(err, errlen, "the SRAT names CPU (APIC id %u) in domain %u "
					 "that the MADT does not list (%d such CPUs)",
					 a->srat_cpus[i].apic_id, a->srat_cpus[i].pxm, absent);
				break;
			}
		return -1;
	}
	for (int i = 0; i < a->nr_cpus; i++) {
		int node = 0;

		for (int j = 0; j < a->nr_srat_cpus; j++)
			if (a->srat_cpus[j].apic_id == a->cpus[i].apic_id) {
				node = pxm_node(out, a->srat_cpus[j].pxm, false);
				break;
			}
		out->cpu_apic[i] = a->cpus[i].apic_id;
		out->cpu_node[i] = (u8)node; /* not in the SRAT: node 0, as Linux does */
	}
	out->nr_cpus = a->nr_cpus;
	/* Memory: sorted by base (insertion: at most 64), then no overlaps, each in RAM. */
	for (int i = 0; i < a->nr_srat_mem; i++) {
		const struct acpi_srat_mem *m = &a->srat_mem[i];
		int k, node = pxm_node(out, m->pxm, false);

		if (m->base + m->len < m->base) {
			snprintf(err, errlen, "the SRAT's memory range at %#llx of %#llx bytes wraps",
				 (unsigned long long)m->base, (unsigned long long)m->len);
			return -1;
		}
		if (!usable_overlap(regions, nr_regions, m->base, m->base + m->len)) {
			if (m->hotplug)
				continue;
			snprintf(err, errlen, "the SRAT gives domain %u memory %#llx-%#llx where the "
				 "memory map has no RAM", m->pxm, (unsigned long long)m->base,
				 (unsigned long long)(m->base + m->len - 1));
			return -1;
		}
		if (out->nr_memblks == NUMA_MAX_MEMBLKS) {
			snprintf(err, errlen, "the SRAT has more than %d memory ranges with RAM",
				 NUMA_MAX_MEMBLKS);
			return -1;
		}
		for (k = out->nr_memblks; k > 0 && out->memblks[k - 1].base > m->base; k--)
			out->memblks[k] = out->memblks[k - 1];
		out->memblks[k].base = m->base;
		out->memblks[k].end = m->base + m->len;
		out->memblks[k].nid = node;
		out->nr_memblks++;
	}
	for (int i = 1; i < out->nr_memblks; i++)
		if (out->memblks[i].base < out->memblks[i - 1].end) {
			snprintf(err, errlen, "the SRAT's memory ranges %#llx-%#llx (domain %u) and "
				 "%#llx-%#llx (domain %u) overlap",
				 (unsigned long long)out->memblks[i - 1].base,
				 (unsigned long long)out->memblks[i - 1].end - 1,
				 out->pxm[out->memblks[i - 1].nid],
				 (unsigned long long)out->memblks[i].base,
				 (unsigned long long)out->memblks[i].end - 1,
				 out->pxm[out->memblks[i].nid]);
			return -1;
		}
	if (!out->nr_memblks) {
		snprintf(err, errlen, "the SRAT gives no node memory");
		return -1;
	}
	/* Distances: the SLIT's, by domain; else 10 to itself and 20 to the others. */
	for (int i = 0; i < out->nr_nodes; i++)
		for (int j = 0; j < out->nr_nodes; j++)
			out->distance[i][j] = i == j ? LOCAL_DISTANCE : REMOTE_DISTANCE;
	if (a->have_slit) {
		out->slit = true;
		for (int i = 0; i < out->nr_nodes; i++)
			if (out->pxm[i] >= a->slit_n) {
				snprintf(err, errlen, "the SLIT has %llu localities; the SRAT names "
					 "domain %u", (unsigned long long)a->slit_n, out->pxm[i]);
				return -1;
			}
		for (int i = 0; i < out->nr_nodes; i++)
			for (int j = 0; j < out->nr_nodes; j++) {
				u8 d = a->slit[out->pxm[i] * a->slit_n + out->pxm[j]];

				/* Linux's slit_valid: 10 on the diagonal, more elsewhere. */
				if ((i == j) != (d == LOCAL_DISTANCE) || d < LOCAL_DISTANCE ||
				    d == 255) {
					snprintf(err, errlen, "the SLIT's distance from domain %u to %u "
						 "is %u (10 to itself, 11..254 to others)",
						 out->pxm[i], out->pxm[j], d);
					return -1;
				}
				out->distance[i][j] = d;
			}
	}
	return 0;
}

/* The table at physical address addr, through the direct map; NULL for 0 or past 64 GiB. */
static const struct sdt_header *table_at(u64 addr)
{
	if (!addr || addr >= 64 * GiB)
		return NULL;
	return (const void *)(uptr)addr;
}

/* table_at, with the table's pages reserved and its checksum checked. */
static const struct sdt_header *map_table(u64 addr, const char *what)
{
	const struct sdt_header *h = table_at(addr);

	if (!h)
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
 * which the direct map leaves out: arch/x86/boot/entry.asm copies it before paging is on. An EBDA
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

/* Entry i of the root table (8-byte entries in the XSDT, not naturally aligned; 4 in the RSDT). */
static u64 root_entry(const struct sdt_header *root, bool xsdt, int i)
{
	u64 addr = 0;

	memcpy(&addr, (const u8 *)root + sizeof(*root) + i * (xsdt ? 8 : 4), xsdt ? 8 : 4);
	return addr;
}

/*
 * \_S5 into acpi (have_s5 and s5_from, or s5_err); reboot.c says what it means, if asked to.
 * The DSDT's, else the first one an SSDT of the root table has: the order in which ACPICA
 * loads them into Linux's namespace, where a second definition of a name is refused and the
 * first one stays (three machines of the linuxhw/ACPI collection define \_S5 only in an
 * SSDT). A \_S5 that is there but cannot be read ends the search: it is the one. SSDTs are
 * read only here, during acpi_init, so they are not reserved.
 */
static void acpi_read_s5(const struct sdt_header *root, bool xsdt, int n)
{
	const struct sdt_header *d;
	int rc, k = 0;

	if (!acpi.have_fadt) {
		strlcpy(acpi.s5_err, "there is no FADT", sizeof(acpi.s5_err));
		return;
	}
	d = map_table(acpi.dsdt_addr, "DSDT");
	if (!d) {
		snprintf(acpi.s5_err, sizeof(acpi.s5_err), "the FADT's DSDT address %#llx is not usable",
			 (unsigned long long)acpi.dsdt_addr);
		return;
	}
	rc = acpi_find_s5(d, d->length, &acpi.slp_typa, &acpi.slp_typb, acpi.s5_err,
			  sizeof(acpi.s5_err));
	if (rc != ACPI_S5_NONE) {
		acpi.have_s5 = rc == 0;
		if (acpi.have_s5)
			strlcpy(acpi.s5_from, "DSDT", sizeof(acpi.s5_from));
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct sdt_header *t = table_at(root_entry(root, xsdt, i));
		char err[128], id[9];
		int j = 0;

		if (!t || memcmp(t->sig, "SSDT", 4))
			continue;
		k++;
		rc = acpi_find_s5(t, t->length, &acpi.slp_typa, &acpi.slp_typb, err, sizeof(err));
		if (rc == ACPI_S5_NONE)
			continue;
		for (int c = 0; c < 8 && t->oem_table[c]; c++)
			if (t->oem_table[c] > ' ' && t->oem_table[c] < 0x7f)
				id[j++] = t->oem_table[c];
		id[j] = '\0';
		if (rc == 0) {
			acpi.have_s5 = true;
			snprintf(acpi.s5_from, sizeof(acpi.s5_from), "SSDT %d of %d (OEM table id %s)", k,
				 acpi.nr_ssdt, id);
		} else {
			snprintf(acpi.s5_err, sizeof(acpi.s5_err), "SSDT %d of %d (%s): %s", k,
				 acpi.nr_ssdt, id, err);
		}
		return;
	}
	if (acpi.nr_ssdt)
		snprintf(acpi.s5_err, sizeof(acpi.s5_err), "neither the DSDT nor any of the %d SSDTs "
			 "has a \\_S5 object", acpi.nr_ssdt);
	else
		snprintf(acpi.s5_err, sizeof(acpi.s5_err), "the DSDT has no \\_S5 object, and the root "
			 "table lists no SSDT");
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
	strlcpy(acpi.root, xsdt ? "XSDT" : "RSDT", sizeof(acpi.root));
	n = (int)((root->length - sizeof(*root)) / (xsdt ? 8 : 4));
	for (int i = 0; i < n; i++) {
		u64 addr = root_entry(root, xsdt, i);
		const struct sdt_header *t = table_at(addr);

		if (!t)
			continue;
		if (!memcmp(t->sig, "APIC", 4)) {
			map_table(addr, "MADT");
			acpi_parse_madt(t, &acpi);
		} else if (!memcmp(t->sig, "HPET", 4)) {
			const struct hpet_table *h = (const void *)map_table(addr, "HPET");

			acpi.hpet_table = true;
			if (h->h.length >= sizeof(*h) && h->space_id == 0)
				acpi.hpet_addr = h->address;
		} else if (!memcmp(t->sig, "FACP", 4)) {
			acpi_parse_fadt(map_table(addr, "FADT"), &acpi);
		} else if (!memcmp(t->sig, "SRAT", 4)) {
			acpi_parse_srat(map_table(addr, "SRAT"), &acpi);
		} else if (!memcmp(t->sig, "SLIT", 4)) {
			acpi_parse_slit(map_table(addr, "SLIT"), &acpi);
		} else if (!memcmp(t->sig, "SSDT", 4)) {
			acpi.nr_ssdt++;
		}
	}
	acpi_read_s5(root, xsdt, n);
	if (!acpi.have_madt) {
		printk("acpi: no MADT; only the boot CPU will run\n");
		return -1;
	}
	return 0;
}
