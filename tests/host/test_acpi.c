// SPDX-License-Identifier: MIT
/*
 * arch/x86/acpi.c: acpi_checksum_ok, acpi_parse_madt on hand-built MADTs (xAPIC and x2APIC
 * entries, overrides, duplicates, too many CPUs, broken entries), acpi_parse_fadt's PM timer
 * (PM_TMR_BLK, X_PM_TMR_BLK, widths, what is refused), and acpi_init over a
 * RSDP -> XSDT/RSDT -> MADT/HPET/FADT chain placed in low host memory that ASan guards, the
 * \_S5 object in the DSDT or an SSDT, hardware-reduced ACPI's sleep registers and
 * acpi_poweroff_method, and the SRAT and SLIT (QEMU's 2- and 4-node samples, and bad ones)
 * with acpi_numa_layout. tests/host/test_acpi_check.sh runs the same code on real machines'
 * tables (tools/acpi-check over tests/host/acpi-samples/real/).
 */
#include <errno.h>
#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/host/host_env.h"
#include "arch/x86/acpi.h"
#include "mm/page_alloc.h" /* memblock_reserve's declaration */
#include "tests/host/ktest.h"

/* arch/x86/boot/entry.asm's copy of the BIOS data area's EBDA pointer (acpi.c's RSDP scan, unused here) */
u16 boot_bda_ebda;

/* ---- memblock_reserve, as acpi.c calls it: only recorded ---- */

static struct {
	u64 base, len;
	char what[16];
} resv[64];
static int nr_resv;

void memblock_reserve(u64 base, u64 len, const char *what)
{
	if (nr_resv < (int)ARRAY_SIZE(resv)) {
		resv[nr_resv].base = base;
		resv[nr_resv].len = len;
		snprintf(resv[nr_resv].what, sizeof(resv[nr_resv].what), "%s", what);
	}
	nr_resv++;
}

/* Was [base, base + len) reserved by one call, under the name what? */
static bool reserved(const void *p, u64 len, const char *what)
{
	u64 base = (u64)(uintptr_t)p;

	for (int i = 0; i < nr_resv && i < (int)ARRAY_SIZE(resv); i++)
		if (resv[i].base <= base && resv[i].base + resv[i].len >= base + len &&
		    !strcmp(resv[i].what, what))
			return true;
	return false;
}

/* ---- building tables ---- */

struct tbl {
	u8 b[(NR_CPUS + 64) * 16 + 4096]; /* a MADT of NR_CPUS + 44 x2APIC entries and more */
	size_t len;
};

static void put(struct tbl *t, const void *p, size_t n)
{
	if (t->len + n > sizeof(t->b))
		abort();
	memcpy(t->b + t->len, p, n);
	t->len += n;
}

static void put8(struct tbl *t, u8 v)
{
	put(t, &v, 1);
}

static void put16(struct tbl *t, u16 v)
{
	put(t, &v, 2);
}

static void put32(struct tbl *t, u32 v)
{
	put(t, &v, 4);
}

static void put64(struct tbl *t, u64 v)
{
	put(t, &v, 8);
}

/* The 36-byte header every ACPI table starts with; length and checksum come at the end. */
static void sdt_begin(struct tbl *t, const char *sig)
{
	t->len = 0;
	put(t, sig, 4);
	put32(t, 0); /* length */
	put8(t, 2);  /* revision */
	put8(t, 0);  /* checksum */
	put(t, "SLABLB", 6);
	put(t, "HOSTTEST", 8);
	put32(t, 1);
	put(t, "TEST", 4);
	put32(t, 1);
}

/* Sets the length field (claimed, or the bytes written if 0) and the checksum. */
static void sdt_finish_len(struct tbl *t, u32 claimed)
{
	u8 sum = 0;
	u32 len = claimed ? claimed : (u32)t->len;

	memcpy(t->b + 4, &len, 4);
	t->b[9] = 0;
	for (size_t i = 0; i < t->len; i++)
		sum += t->b[i];
	t->b[9] = (u8)-sum;
}

static void sdt_finish(struct tbl *t)
{
	sdt_finish_len(t, 0);
}

static void madt_begin(struct tbl *t, u32 lapic_addr, u32 flags)
{
	sdt_begin(t, "APIC");
	put32(t, lapic_addr);
	put32(t, flags);
}

static void lapic(struct tbl *t, u8 uid, u8 apic_id, u32 flags) /* type 0 */
{
	put8(t, 0);
	put8(t, 8);
	put8(t, uid);
	put8(t, apic_id);
	put32(t, flags);
}

static void x2apic(struct tbl *t, u32 id, u32 uid, u32 flags) /* type 9 */
{
	put8(t, 9);
	put8(t, 16);
	put16(t, 0);
	put32(t, id);
	put32(t, flags);
	put32(t, uid);
}

static void lapic_override(struct tbl *t, u64 addr) /* type 5 */
{
	put8(t, 5);
	put8(t, 12);
	put16(t, 0);
	put64(t, addr);
}

/*
 * An entry of any type and length, `bytes` long in all, filled with 0x01 after its two-byte
 * header: read as a CPU entry, that fill is an enabled CPU, so reading it shows.
 */
static void raw_entry(struct tbl *t, u8 type, u8 length, size_t bytes)
{
	put8(t, type);
	put8(t, length);
	for (size_t i = 2; i < bytes; i++)
		put8(t, 0x01);
}

/* A heap copy of exactly the bytes written: ASan reports a read past them. */
static void *exact(const struct tbl *t)
{
	void *p = malloc(t->len ? t->len : 1);

	memcpy(p, t->b, t->len);
	return p;
}

/* ---- acpi_parse_madt ---- */

static struct acpi_info info;
static struct tbl t;

/* Finishes t, parses an exact copy into a zeroed info. */
static int parse_len(u32 claimed)
{
	void *p;
	int rc;

	sdt_finish_len(&t, claimed);
	p = exact(&t);
	memset(&info, 0, sizeof(info));
	host_console_reset();
	rc = acpi_parse_madt(p, &info);
	free(p);
	return rc;
}

static int parse(void)
{
	return parse_len(0);
}

static void checksum(void)
{
	u8 zero[36] = {0}, wrap[2] = {0x80, 0x80}, wrap2[3] = {0xff, 0x01, 0x00}, one = 1;

	kt_check(acpi_checksum_ok(zero, sizeof(zero)), "checksum: all zero bytes are valid",
		 "rejected");
	kt_check(acpi_checksum_ok(zero, 0), "checksum: an empty range is valid", "rejected");
	kt_check(acpi_checksum_ok(wrap, 2), "checksum: sums wrap at 256 (0x80+0x80)", "rejected");
	kt_check(acpi_checksum_ok(wrap2, 3), "checksum: sums wrap at 256 (0xff+0x01)", "rejected");
	kt_check(!acpi_checksum_ok(&one, 1), "checksum: a single 1 is invalid", "accepted");
	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	sdt_finish(&t);
	kt_check(acpi_checksum_ok(t.b, t.len), "checksum: a finished table is valid", "rejected");
	t.b[40] ^= 0x10;
	kt_check(!acpi_checksum_ok(t.b, t.len), "checksum: one changed bit is caught", "accepted");
	t.b[40] ^= 0x10;
	t.b[41] += 1;
	t.b[42] -= 1;
	kt_check(acpi_checksum_ok(t.b, t.len), "checksum: changes that cancel out pass",
		 "rejected");
}

static void madt_basics(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	memcpy(t.b, "APIX", 4);
	rc = parse();
	kt_check(rc == -1 && !info.have_madt && !info.nr_cpus, "madt: wrong signature is refused",
		 "rc %d have_madt %d", rc, info.have_madt);

	/* Shorter than header + lapic_addr + flags: refused without reading the flags. */
	madt_begin(&t, 0xfee00000, 1);
	t.len = 43;
	rc = parse();
	kt_check(rc == -1 && !info.have_madt, "madt: length 43 (< 44) is refused", "rc %d", rc);

	madt_begin(&t, 0xfee00000, 1);
	rc = parse();
	kt_check(rc == 0 && info.have_madt && info.lapic_addr == 0xfee00000 && info.pcat_compat &&
		     !info.nr_cpus && !info.nr_disabled && !info.nr_ignored,
		 "madt: no entries", "rc %d have_madt %d lapic %#llx pcat %d cpus %d", rc,
		 info.have_madt, (unsigned long long)info.lapic_addr, info.pcat_compat,
		 info.nr_cpus);
	madt_begin(&t, 0xfec01000, 0);
	rc = parse();
	kt_check(rc == 0 && !info.pcat_compat && info.lapic_addr == 0xfec01000,
		 "madt: flags 0 means no PC-AT 8259s; other lapic address", "pcat %d lapic %#llx",
		 info.pcat_compat, (unsigned long long)info.lapic_addr);
	madt_begin(&t, 0xfee00000, 0xfffffffe);
	rc = parse();
	kt_check(rc == 0 && !info.pcat_compat, "madt: only flag bit 0 is PC-AT", "pcat %d",
		 info.pcat_compat);
}

static void madt_lapic(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	lapic(&t, 1, 2, 1);
	lapic(&t, 2, 4, 1);
	lapic(&t, 7, 255 - 1, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 4 && info.cpus[0].apic_id == 0 &&
		     info.cpus[1].apic_id == 2 && info.cpus[2].apic_id == 4 &&
		     info.cpus[3].apic_id == 254 && info.cpus[3].uid == 7 &&
		     info.cpus[1].uid == 1 && !info.cpus[0].x2apic && !info.cpus[3].x2apic,
		 "lapic: four enabled CPUs, in table order",
		 "rc %d cpus %d: ids %u %u %u %u uid[3] %u", rc, info.nr_cpus, info.cpus[0].apic_id,
		 info.cpus[1].apic_id, info.cpus[2].apic_id, info.cpus[3].apic_id,
		 info.cpus[3].uid);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	lapic(&t, 1, 1, 0);
	lapic(&t, 2, 2, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 2 && info.nr_disabled == 1 && info.cpus[1].apic_id == 2,
		 "lapic: a disabled CPU is counted, not listed", "cpus %d disabled %d, cpus[1] %u",
		 info.nr_cpus, info.nr_disabled, info.cpus[1].apic_id);

	/* acpi.h: nr_disabled counts entries "neither enabled nor online-capable". */
	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	lapic(&t, 1, 1, 2);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1, "lapic: an online-capable CPU is not started",
		 "cpus %d", info.nr_cpus);
	kt_check(info.nr_disabled == 0, "lapic: an online-capable CPU is not counted as disabled",
		 "nr_disabled %d, but acpi.h says it counts entries neither enabled nor "
		 "online-capable (flags 2 is online-capable)",
		 info.nr_disabled);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 3, 9, 3);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.cpus[0].apic_id == 9 && !info.nr_disabled,
		 "lapic: enabled and online-capable is enabled", "cpus %d disabled %d",
		 info.nr_cpus, info.nr_disabled);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 5, 1);
	lapic(&t, 1, 5, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.cpus[0].uid == 0,
		 "lapic: the same APIC id twice is one CPU (the first)", "cpus %d uid %u",
		 info.nr_cpus, info.cpus[0].uid);

	/* Entries too short for their type are skipped; parsing goes on. */
	madt_begin(&t, 0xfee00000, 1);
	raw_entry(&t, 0, 6, 6);
	lapic(&t, 1, 2, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.cpus[0].apic_id == 2,
		 "lapic: a 6-byte type 0 entry is skipped", "cpus %d", info.nr_cpus);
}

static void madt_x2apic(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	x2apic(&t, 256, 100, 1);
	x2apic(&t, 300, 101, 1);
	x2apic(&t, 0xfffffffe, 0xabcdef01, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 4 && info.cpus[1].apic_id == 256 &&
		     info.cpus[1].uid == 100 && info.cpus[1].x2apic &&
		     info.cpus[2].apic_id == 300 && info.cpus[3].apic_id == 0xfffffffe &&
		     info.cpus[3].uid == 0xabcdef01 && !info.cpus[0].x2apic,
		 "x2apic: ids above 255 with their uids", "cpus %d: %u/%u %u %u/%u", info.nr_cpus,
		 info.cpus[1].apic_id, info.cpus[1].uid, info.cpus[2].apic_id, info.cpus[3].apic_id,
		 info.cpus[3].uid);

	madt_begin(&t, 0xfee00000, 1);
	x2apic(&t, 400, 1, 0);
	x2apic(&t, 401, 2, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.nr_disabled == 1 &&
		     info.cpus[0].apic_id == 401,
		 "x2apic: a disabled CPU is counted, not listed", "cpus %d disabled %d",
		 info.nr_cpus, info.nr_disabled);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 4, 5, 1);
	x2apic(&t, 5, 44, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && !info.cpus[0].x2apic && info.cpus[0].uid == 4,
		 "x2apic: a CPU in type 0 and type 9 is one CPU (type 0 first)",
		 "cpus %d x2apic %d uid %u", info.nr_cpus, info.cpus[0].x2apic, info.cpus[0].uid);

	madt_begin(&t, 0xfee00000, 1);
	x2apic(&t, 5, 44, 1);
	lapic(&t, 4, 5, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.cpus[0].x2apic && info.cpus[0].uid == 44,
		 "x2apic: a CPU in type 9 and type 0 is one CPU (type 9 first)",
		 "cpus %d x2apic %d uid %u", info.nr_cpus, info.cpus[0].x2apic, info.cpus[0].uid);

	madt_begin(&t, 0xfee00000, 1);
	raw_entry(&t, 9, 12, 12);
	x2apic(&t, 600, 1, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && info.cpus[0].apic_id == 600,
		 "x2apic: a 12-byte type 9 entry is skipped", "cpus %d", info.nr_cpus);
}

static void madt_many(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	for (u32 i = 0; i < NR_CPUS; i++)
		x2apic(&t, 1000 + i, i, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == NR_CPUS && !info.nr_ignored,
		 "many: exactly NR_CPUS CPUs all fit", "cpus %d ignored %d", info.nr_cpus,
		 info.nr_ignored);

	madt_begin(&t, 0xfee00000, 1);
	for (u32 i = 0; i < NR_CPUS + 44; i++)
		x2apic(&t, 1000 + i, i, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == NR_CPUS && info.nr_ignored == 44 &&
		     info.cpus[NR_CPUS - 1].apic_id == 1000 + NR_CPUS - 1,
		 "many: NR_CPUS + 44 CPUs: the first NR_CPUS kept, 44 ignored",
		 "cpus %d ignored %d last id %u", info.nr_cpus, info.nr_ignored,
		 info.cpus[NR_CPUS - 1].apic_id);

	madt_begin(&t, 0xfee00000, 1);
	for (u32 i = 0; i < 10; i++)
		x2apic(&t, 5000 + i, i, 0);
	for (u32 i = 0; i < NR_CPUS; i++)
		x2apic(&t, 1000 + i, i, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == NR_CPUS && !info.nr_ignored && info.nr_disabled == 10,
		 "many: disabled entries take no CPU slot", "cpus %d ignored %d disabled %d",
		 info.nr_cpus, info.nr_ignored, info.nr_disabled);

	/* One CPU past the limit, listed as type 0 and as type 9: ignored once. */
	madt_begin(&t, 0xfee00000, 1);
	for (u32 i = 0; i < NR_CPUS; i++)
		x2apic(&t, 1000 + i, i, 1);
	lapic(&t, 77, 7, 1);
	x2apic(&t, 7, 77, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == NR_CPUS && info.nr_ignored == 1,
		 "many: a CPU past the limit listed twice is ignored once",
		 "cpus %d nr_ignored %d, want 1 (apic id 7 is in a type 0 and a type 9 entry)",
		 info.nr_cpus, info.nr_ignored);
}

static void madt_other_entries(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	lapic_override(&t, 0x0000000123456000ULL);
	lapic(&t, 0, 0, 1);
	rc = parse();
	kt_check(rc == 0 && info.lapic_addr == 0x123456000ULL && info.nr_cpus == 1,
		 "override: type 5 replaces the 32-bit lapic address", "lapic %#llx cpus %d",
		 (unsigned long long)info.lapic_addr, info.nr_cpus);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	lapic_override(&t, 0xfed00000ULL);
	rc = parse();
	kt_check(rc == 0 && info.lapic_addr == 0xfed00000ULL,
		 "override: type 5 after the CPUs still applies", "lapic %#llx",
		 (unsigned long long)info.lapic_addr);

	madt_begin(&t, 0xfee00000, 1);
	raw_entry(&t, 5, 10, 10);
	lapic(&t, 0, 3, 1);
	rc = parse();
	kt_check(rc == 0 && info.lapic_addr == 0xfee00000 && info.nr_cpus == 1,
		 "override: a 10-byte type 5 entry is skipped", "lapic %#llx cpus %d",
		 (unsigned long long)info.lapic_addr, info.nr_cpus);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	raw_entry(&t, 1, 12, 12); /* I/O APIC */
	raw_entry(&t, 2, 10, 10); /* interrupt source override */
	lapic(&t, 1, 1, 1);
	raw_entry(&t, 4, 6, 6);	   /* local APIC NMI */
	raw_entry(&t, 0x7f, 3, 3); /* unknown */
	raw_entry(&t, 0xff, 40, 40);
	x2apic(&t, 512, 2, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 3 && info.cpus[2].apic_id == 512,
		 "other entry types are stepped over", "cpus %d", info.nr_cpus);
}

static void madt_broken(void)
{
	int rc;

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	raw_entry(&t, 0, 0, 8);
	lapic(&t, 1, 1, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && host_console_has("broken"),
		 "broken: a zero-length entry stops the walk", "rc %d cpus %d, printed \"%s\"", rc,
		 info.nr_cpus, host_console_text());

	/* Stepping one byte on would find a type-1 entry of 8 bytes, then a CPU. */
	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	put8(&t, 0);
	put8(&t, 1);
	raw_entry(&t, 8, 0, 7);
	lapic(&t, 1, 1, 1);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && host_console_has("broken"),
		 "broken: a one-byte entry stops the walk", "rc %d cpus %d", rc, info.nr_cpus);

	/* The last entry says 16 bytes but the table ends 10 bytes in: no read past it. */
	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	raw_entry(&t, 9, 16, 10);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1 && host_console_has("broken"),
		 "broken: an entry running past the table end stops the walk", "rc %d cpus %d", rc,
		 info.nr_cpus);

	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	put8(&t, 9);
	rc = parse();
	kt_check(rc == 0 && info.nr_cpus == 1, "broken: one stray byte at the end is ignored",
		 "rc %d cpus %d", rc, info.nr_cpus);

	/* The header's length, not the buffer, bounds the walk. */
	madt_begin(&t, 0xfee00000, 1);
	lapic(&t, 0, 0, 1);
	lapic(&t, 1, 1, 1);
	lapic(&t, 2, 2, 1);
	rc = parse_len(44 + 16);
	kt_check(rc == 0 && info.nr_cpus == 2,
		 "broken: entries past the header's length are unread", "rc %d cpus %d", rc,
		 info.nr_cpus);
	rc = parse_len(44 + 20);
	kt_check(rc == 0 && info.nr_cpus == 2,
		 "broken: a length that cuts an entry stops before it", "rc %d cpus %d", rc,
		 info.nr_cpus);
}

/* ---- acpi_parse_fadt: the PM timer ---- */

/*
 * A FADT of len bytes (ACPI 1.0: 116, 2.0+: 244) with PM_TMR_BLK blk, PM_TMR_LEN blk_len,
 * the flags, and (len >= 220) X_PM_TMR_BLK in address space x_space at x_addr.
 */
static void fadt_build(struct tbl *f, u32 len, u32 blk, u8 blk_len, u32 flags, u8 x_space,
		       u64 x_addr)
{
	sdt_begin(f, "FACP");
	while (f->len < len)
		put8(f, 0);
	memcpy(f->b + 76, &blk, 4);
	f->b[91] = blk_len;
	if (len >= 116)
		memcpy(f->b + 112, &flags, 4);
	if (len >= 220) {
		f->b[208] = x_space;
		f->b[209] = 32;
		f->b[211] = 3; /* dword access */
		memcpy(f->b + 212, &x_addr, 8);
	}
	sdt_finish(f);
}

static int parse_fadt(u32 len, u32 blk, u8 blk_len, u32 flags, u8 x_space, u64 x_addr)
{
	void *p;
	int rc;

	fadt_build(&t, len, blk, blk_len, flags, x_space, x_addr);
	p = exact(&t);
	memset(&info, 0, sizeof(info));
	host_console_reset();
	rc = acpi_parse_fadt(p, &info);
	free(p);
	return rc;
}

static void fadt_pm_timer(void)
{
	int rc;

	rc = parse_fadt(116, 0xb008, 4, 0, 0, 0);
	kt_check(rc == 0 && info.have_fadt && info.pm_tmr_port == 0xb008 && !info.pm_tmr_32bit,
		 "fadt 1.0: PM_TMR_BLK, 24 bits", "rc %d port %#x 32bit %d", rc, info.pm_tmr_port,
		 info.pm_tmr_32bit);
	rc = parse_fadt(116, 0xb008, 4, 1u << 8, 0, 0);
	kt_check(rc == 0 && info.pm_tmr_port == 0xb008 && info.pm_tmr_32bit,
		 "fadt: TMR_VAL_EXT makes it 32 bits", "rc %d port %#x 32bit %d", rc,
		 info.pm_tmr_port, info.pm_tmr_32bit);
	rc = parse_fadt(244, 0xb008, 4, 0, 1, 0x608);
	kt_check(rc == 0 && info.pm_tmr_port == 0x608,
		 "fadt 2.0: a non-zero X_PM_TMR_BLK replaces PM_TMR_BLK", "rc %d port %#x", rc,
		 info.pm_tmr_port);
	rc = parse_fadt(244, 0xb008, 4, 0, 1, 0);
	kt_check(rc == 0 && info.pm_tmr_port == 0xb008,
		 "fadt 2.0: X_PM_TMR_BLK zero, PM_TMR_BLK used", "rc %d port %#x", rc,
		 info.pm_tmr_port);
	rc = parse_fadt(244, 0xb008, 4, 0, 0, 0xfed00000);
	kt_check(rc == 0 && info.pm_tmr_port == 0 && host_console_has("not an I/O port"),
		 "fadt: a PM timer in memory space is refused with a message",
		 "rc %d port %#x printed \"%s\"", rc, info.pm_tmr_port, host_console_text());
	rc = parse_fadt(244, 0, 0, 0, 1, 0x10000);
	kt_check(rc == 0 && info.pm_tmr_port == 0 && host_console_has("not an I/O port"),
		 "fadt: an X_PM_TMR_BLK port above 0xfffc is refused", "rc %d port %#x", rc,
		 info.pm_tmr_port);
	rc = parse_fadt(116, 0xb008, 0, 0, 0, 0);
	kt_check(rc == 0 && info.pm_tmr_port == 0 && host_console_has("PM_TMR_LEN"),
		 "fadt: PM_TMR_LEN other than 4 is refused with a message",
		 "rc %d port %#x printed \"%s\"", rc, info.pm_tmr_port, host_console_text());
	rc = parse_fadt(244, 0xb008, 4, 1u << 20, 1, 0x608);
	kt_check(rc == 0 && info.have_fadt && info.pm_tmr_port == 0,
		 "fadt: hardware-reduced ACPI has no PM timer", "rc %d port %#x", rc,
		 info.pm_tmr_port);
	rc = parse_fadt(116, 0, 0, 0, 0, 0);
	kt_check(rc == 0 && info.pm_tmr_port == 0 && !host_console_text()[0],
		 "fadt: no PM timer, quietly", "rc %d port %#x printed \"%s\"", rc,
		 info.pm_tmr_port, host_console_text());
	/* Shorter than PM_TMR_LEN: nothing past the table is read (ASan would say). */
	sdt_begin(&t, "FACP");
	while (t.len < 80)
		put8(&t, 0);
	{
		void *p;

		sdt_finish(&t);
		p = exact(&t);
		memset(&info, 0, sizeof(info));
		rc = acpi_parse_fadt(p, &info);
		free(p);
	}
	kt_check(rc == -1 && !info.have_fadt && !info.pm_tmr_port,
		 "fadt: a FADT cut before PM_TMR_LEN is not used", "rc %d", rc);
	rc = parse_fadt(116, 0xb008, 4, 0, 0, 0);
	memcpy(t.b, "FACX", 4);
	{
		void *p = exact(&t);

		memset(&info, 0, sizeof(info));
		rc = acpi_parse_fadt(p, &info);
		free(p);
	}
	kt_check(rc == -1 && !info.have_fadt, "fadt: another signature is not a FADT", "rc %d", rc);
}

/* ---- acpi_init over tables in low memory ---- */

#define ARENA_BASE 0x40000000UL
#define ARENA_SIZE (1UL << 20)

static u8 *arena;
static size_t arena_used;

/* Everything in the arena poisoned again: only what place() puts there may be read. */
static void arena_reset(void)
{
	ASAN_UNPOISON_MEMORY_REGION(arena, ARENA_SIZE);
	memset(arena, 0xcc, ARENA_SIZE);
	ASAN_POISON_MEMORY_REGION(arena, ARENA_SIZE);
	arena_used = 0;
}

/* Copies n bytes into the arena (16-byte aligned, poisoned gaps around); returns where. */
static void *place(const void *src, size_t n)
{
	u8 *p = arena + ((arena_used + 64 + 15) & ~15UL);

	if (p + n > arena + ARENA_SIZE)
		abort();
	ASAN_UNPOISON_MEMORY_REGION(p, n);
	memcpy(p, src, n);
	arena_used = (size_t)(p - arena) + n;
	return p;
}

static u64 addr_of(const void *p)
{
	return (u64)(uintptr_t)p;
}

/* A RSDP: revision 0 is the 20-byte ACPI 1.0 form, 2 the 36-byte one. */
static void *place_rsdp(u8 revision, u64 rsdt, u64 xsdt, bool good_sig, bool good_sum)
{
	struct tbl r;
	u8 sum = 0;

	r.len = 0;
	put(&r, good_sig ? "RSD PTR " : "RSD PTX ", 8);
	put8(&r, 0);
	put(&r, "SLABLB", 6);
	put8(&r, revision);
	put32(&r, (u32)rsdt);
	if (revision >= 2) {
		put32(&r, 36);
		put64(&r, xsdt);
		put8(&r, 0);
		put8(&r, 0);
		put8(&r, 0);
		put8(&r, 0);
	}
	for (int i = 0; i < 20; i++)
		sum += r.b[i];
	r.b[8] = (u8)(-sum + (good_sum ? 0 : 1));
	if (revision >= 2) {
		sum = 0;
		for (size_t i = 0; i < r.len; i++)
			sum += r.b[i];
		r.b[32] = (u8)-sum;
	}
	return place(r.b, r.len);
}

/* A MADT with `n` enabled CPUs: apic ids 0, 1, ... then x2APIC ids from 300. */
static void *place_madt(int n, u32 *len)
{
	struct tbl m;

	madt_begin(&m, 0xfee00000, 1);
	for (int i = 0; i < n; i++) {
		if (i < 2)
			lapic(&m, (u8)i, (u8)i, 1);
		else
			x2apic(&m, 300 + (u32)i, (u32)i, 1);
	}
	sdt_finish(&m);
	*len = (u32)m.len;
	return place(m.b, m.len);
}

static void *place_hpet(u8 space_id, u64 address, u32 claimed_len, u32 *len)
{
	struct tbl h;

	sdt_begin(&h, "HPET");
	put32(&h, 0x8086a201);
	put8(&h, space_id);
	put8(&h, 64);
	put8(&h, 0);
	put8(&h, 0);
	put64(&h, address);
	if (claimed_len) { /* a short table: only that many bytes exist */
		h.len = claimed_len;
	}
	sdt_finish(&h);
	*len = (u32)h.len;
	return place(h.b, h.len);
}

static void *place_other(const char *sig)
{
	struct tbl o;

	sdt_begin(&o, sig);
	put32(&o, 0x12345678);
	sdt_finish(&o);
	return place(o.b, o.len);
}

/* An XSDT (8-byte entries) or RSDT (4-byte entries) listing addrs. */
static void *place_root(bool xsdt, const u64 *addrs, int n, u32 *len)
{
	struct tbl r;

	sdt_begin(&r, xsdt ? "XSDT" : "RSDT");
	for (int i = 0; i < n; i++) {
		if (xsdt)
			put64(&r, addrs[i]);
		else
			put32(&r, (u32)addrs[i]);
	}
	sdt_finish(&r);
	*len = (u32)r.len;
	return place(r.b, r.len);
}

static int run_init(u64 rsdp)
{
	int rc;

	memset(&acpi, 0, sizeof(acpi));
	nr_resv = 0;
	host_console_reset();
	rc = acpi_init(rsdp);
	return rc;
}

static bool map_arena(void)
{
	void *p = mmap((void *)ARENA_BASE, ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return false;
	if (p != (void *)ARENA_BASE) { /* a kernel before 4.17 takes the address as a hint */
		munmap(p, ARENA_SIZE);
		return false;
	}
	arena = p;
	return true;
}

static void init_chain(void)
{
	u64 ents[8];
	u32 madt_len, hpet_len, root_len, madt2_len;
	void *madt, *hpet, *root, *rsdp, *madt2, *root2, *other;
	int rc;

	/* ACPI 2.0: RSDP -> XSDT -> FACP, MADT, HPET. */
	arena_reset();
	other = place_other("FACP");
	madt = place_madt(4, &madt_len);
	hpet = place_hpet(0, 0xfed00000, 0, &hpet_len);
	ents[0] = addr_of(other);
	ents[1] = addr_of(madt);
	ents[2] = addr_of(hpet);
	root = place_root(true, ents, 3, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.have_madt, "init xsdt: succeeds with a MADT", "rc %d", rc);
	kt_check(acpi.nr_cpus == 4 && acpi.cpus[0].apic_id == 0 && acpi.cpus[3].apic_id == 303 &&
		     acpi.cpus[3].x2apic && acpi.lapic_addr == 0xfee00000,
		 "init xsdt: the MADT's CPUs", "cpus %d, cpus[3] %u", acpi.nr_cpus,
		 acpi.cpus[3].apic_id);
	KT_EQ_U("init xsdt: HPET address", acpi.hpet_addr, 0xfed00000);
	KT_EQ_S("init xsdt: OEM id from the RSDP", acpi.oem, "SLABLB");
	KT_EQ_S("init xsdt: the root table is named", acpi.root, "XSDT");
	kt_check(reserved(root, root_len, "XSDT") && reserved(madt, madt_len, "MADT") &&
		     reserved(hpet, hpet_len, "HPET"),
		 "init xsdt: XSDT, MADT and HPET are reserved whole",
		 "%d reservations; XSDT %d MADT %d HPET %d", nr_resv,
		 reserved(root, root_len, "XSDT"), reserved(madt, madt_len, "MADT"),
		 reserved(hpet, hpet_len, "HPET"));
	kt_check(!host_console_has("checksum"), "init xsdt: good checksums pass quietly",
		 "printed \"%s\"", host_console_text());

	/* ACPI 1.0: a 20-byte RSDP (revision 0) -> RSDT with 32-bit entries. */
	arena_reset();
	madt = place_madt(2, &madt_len);
	hpet = place_hpet(0, 0xfed01000, 0, &hpet_len);
	ents[0] = addr_of(madt);
	ents[1] = addr_of(hpet);
	root = place_root(false, ents, 2, &root_len);
	rsdp = place_rsdp(0, addr_of(root), 0, true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 2 && acpi.hpet_addr == 0xfed01000 &&
		     reserved(root, root_len, "RSDT") && reserved(madt, madt_len, "MADT"),
		 "init rsdt: ACPI 1.0 chain", "rc %d cpus %d hpet %#llx, RSDT reserved %d", rc,
		 acpi.nr_cpus, (unsigned long long)acpi.hpet_addr,
		 reserved(root, root_len, "RSDT"));
	KT_EQ_S("init rsdt: the root table is named", acpi.root, "RSDT");

	/* Revision 2 without an XSDT address falls back to the RSDT. */
	rsdp = place_rsdp(2, addr_of(root), 0, true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 2 && reserved(root, root_len, "RSDT"),
		 "init: revision 2 with XSDT 0 uses the RSDT", "rc %d cpus %d", rc, acpi.nr_cpus);
	KT_EQ_S("init: revision 2 with XSDT 0 names the RSDT", acpi.root, "RSDT");

	/* Both: the XSDT wins. */
	madt2 = place_madt(3, &madt2_len);
	ents[0] = addr_of(madt2);
	root2 = place_root(true, ents, 1, &root_len);
	rsdp = place_rsdp(2, addr_of(root), addr_of(root2), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 3, "init: the XSDT is preferred to the RSDT",
		 "rc %d cpus %d (3 from the XSDT's MADT, 2 from the RSDT's)", rc, acpi.nr_cpus);
	KT_EQ_S("init: both, the XSDT named", acpi.root, "XSDT");
	rsdp = place_rsdp(1, addr_of(root), addr_of(root2), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 2, "init: revision 1 ignores the XSDT field",
		 "rc %d cpus %d", rc, acpi.nr_cpus);
	KT_EQ_S("init: revision 1, the RSDT named", acpi.root, "RSDT");

	/* A bad RSDP. */
	rsdp = place_rsdp(2, addr_of(root), addr_of(root2), false, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt && host_console_has("not valid"),
		 "init: a RSDP with a bad signature is refused", "rc %d, printed \"%s\"", rc,
		 host_console_text());
	rsdp = place_rsdp(2, addr_of(root), addr_of(root2), true, false);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt && host_console_has("not valid"),
		 "init: a RSDP with a bad checksum is refused", "rc %d, printed \"%s\"", rc,
		 host_console_text());
}

static void init_odd_tables(void)
{
	u64 ents[8];
	u32 madt_len, hpet_len, root_len;
	void *madt, *hpet, *root, *rsdp;
	struct tbl x;
	int rc;

	/* A table with a bad checksum is used anyway, with a message. */
	arena_reset();
	madt = place_madt(3, &madt_len);
	((u8 *)madt)[9] ^= 0x55;
	ents[0] = addr_of(madt);
	root = place_root(true, ents, 1, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 3 && host_console_has("bad checksum"),
		 "init: a MADT with a bad checksum is used and reported",
		 "rc %d cpus %d, printed "
		 "\"%s\"",
		 rc, acpi.nr_cpus, host_console_text());

	/* No MADT: an error, but the HPET is still taken. */
	arena_reset();
	hpet = place_hpet(0, 0xfed00000, 0, &hpet_len);
	ents[0] = addr_of(hpet);
	root = place_root(true, ents, 1, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt && acpi.hpet_addr == 0xfed00000 &&
		     host_console_has("no MADT"),
		 "init: no MADT is an error", "rc %d hpet %#llx, printed \"%s\"", rc,
		 (unsigned long long)acpi.hpet_addr, host_console_text());

	/* HPET in I/O space, and a HPET too short to hold an address (exact size). */
	arena_reset();
	madt = place_madt(1, &madt_len);
	hpet = place_hpet(1, 0xfed00000, 0, &hpet_len);
	ents[0] = addr_of(madt);
	ents[1] = addr_of(hpet);
	root = place_root(true, ents, 2, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.hpet_addr == 0, "init: a HPET in I/O space is not used",
		 "rc %d hpet %#llx", rc, (unsigned long long)acpi.hpet_addr);
	hpet = place_hpet(0, 0xfed00000, 44, &hpet_len);
	ents[1] = addr_of(hpet);
	root = place_root(true, ents, 2, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.hpet_addr == 0, "init: a 44-byte HPET is not used",
		 "rc %d hpet %#llx", rc, (unsigned long long)acpi.hpet_addr);

	/* Entries at 0 and at or above 64 GiB are skipped, never read. */
	arena_reset();
	madt = place_madt(2, &madt_len);
	ents[0] = 0;
	ents[1] = 64 * GiB;
	ents[2] = ~0ULL;
	ents[3] = addr_of(madt);
	root = place_root(true, ents, 4, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 2, "init: XSDT entries 0 and >= 64 GiB are skipped",
		 "rc %d cpus %d", rc, acpi.nr_cpus);

	/* The root table itself at 64 GiB: refused without a read. */
	rsdp = place_rsdp(2, 0, 64 * GiB, true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt, "init: an XSDT at 64 GiB is refused", "rc %d", rc);
	rsdp = place_rsdp(0, 0, 0, true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt, "init: a RSDT address of 0 is refused", "rc %d", rc);

	/* An XSDT whose length leaves half an entry: only whole entries are read. */
	arena_reset();
	madt = place_madt(2, &madt_len);
	sdt_begin(&x, "XSDT");
	put64(&x, addr_of(madt));
	put32(&x, 0xdeadbeef);
	sdt_finish(&x);
	root = place(x.b, x.len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.nr_cpus == 2, "init: a trailing half XSDT entry is not read",
		 "rc %d cpus %d", rc, acpi.nr_cpus);

	/* An XSDT whose length is less than its header: no entries, no MADT. */
	sdt_begin(&x, "XSDT");
	sdt_finish_len(&x, 20);
	root = place(x.b, x.len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.have_madt,
		 "init: an XSDT shorter than its header has no entries", "rc %d", rc);
}

/* The FADT in a chain: acpi_init finds its PM timer and reserves it; ACPI is present. */
static void init_fadt(void)
{
	struct tbl f;
	u64 ents[2];
	u32 madt_len, root_len;
	void *fadt, *root, *rsdp;
	int rc;

	arena_reset();
	fadt_build(&f, 244, 0xb008, 4, 1u << 8, 1, 0x608);
	fadt = place(f.b, f.len);
	ents[0] = addr_of(fadt);
	ents[1] = addr_of(place_madt(2, &madt_len));
	root = place_root(true, ents, 2, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.present && acpi.have_fadt && acpi.pm_tmr_port == 0x608 &&
		     acpi.pm_tmr_32bit && reserved(fadt, f.len, "FADT"),
		 "init: the FADT's PM timer, the FADT reserved",
		 "rc %d present %d fadt %d port %#x 32bit %d reserved %d", rc, acpi.present,
		 acpi.have_fadt, acpi.pm_tmr_port, acpi.pm_tmr_32bit, reserved(fadt, f.len, "FADT"));
	rsdp = place_rsdp(2, 0, addr_of(root), false, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == -1 && !acpi.present && !acpi.pm_tmr_port,
		 "init: a bad RSDP leaves ACPI absent", "rc %d present %d", rc, acpi.present);
}

/* ---- the DSDT's \_S5 (acpi_find_s5) and the FADT's reset and PM1 control fields ---- */

/* A file of the tree into *len bytes of malloc'd memory, or NULL. */
static u8 *read_sample(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	u8 *b;

	if (!f)
		return NULL;
	b = malloc(65536);
	*len = fread(b, 1, 65536, f);
	fclose(f);
	return b;
}

static u8 s5_typa, s5_typb;
static char s5_err[128];

/* acpi_find_s5 over a DSDT of the header and aml, in an exact-size buffer. */
static int find_s5(const u8 *aml, size_t n)
{
	struct tbl d;
	void *p;
	int rc;

	sdt_begin(&d, "DSDT");
	put(&d, aml, n);
	sdt_finish(&d);
	p = exact(&d);
	s5_typa = s5_typb = 0xee;
	s5_err[0] = '\0';
	rc = acpi_find_s5(p, d.len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
	free(p);
	return rc;
}

/* aml must give SLP_TYPa a and SLP_TYPb b. */
static void s5_ok(const char *name, const u8 *aml, size_t n, u8 a, u8 b)
{
	int rc = find_s5(aml, n);

	kt_check(rc == 0 && s5_typa == a && s5_typb == b, name, "rc %d typa %u typb %u (want %u %u) %s",
		 rc, s5_typa, s5_typb, a, b, s5_err);
}

/* aml must be refused with a message that holds needle. */
static void s5_bad(const char *name, const u8 *aml, size_t n, const char *needle)
{
	int rc = find_s5(aml, n);

	kt_check(rc == -1 && strstr(s5_err, needle), name, "rc %d message \"%s\", want \"%s\"", rc,
		 s5_err, needle);
}

/* aml has no \_S5 object at all: ACPI_S5_NONE, so that acpi_init goes on to the SSDTs. */
static void s5_none(const char *name, const u8 *aml, size_t n)
{
	int rc = find_s5(aml, n);

	kt_check(rc == ACPI_S5_NONE && strstr(s5_err, "the DSDT has no \\_S5 object"), name,
		 "rc %d message \"%s\"", rc, s5_err);
}

#define AML(...) ((const u8[]){ __VA_ARGS__ }), sizeof((const u8[]){ __VA_ARGS__ })
#define S5 '_', 'S', '5', '_'

static void s5_qemu_samples(void)
{
	static const char *const machines[] = { "pc", "q35" };

	for (size_t m = 0; m < ARRAY_SIZE(machines); m++) {
		char path[128], name[160];
		size_t len, at;
		u8 *d, *hit;
		int rc;

		snprintf(path, sizeof(path), "tests/host/acpi-samples/qemu-7.2-%s/DSDT.bin", machines[m]);
		d = read_sample(path, &len);
		if (!d) {
			snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT", machines[m]);
			kt_check(false, name, "cannot read %s (run from the tree's top)", path);
			continue;
		}
		/* QEMU's hw/i386/acpi-build.c: Name (_S5, Package (0x04) {Zero, Zero, Zero, Zero}) */
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT gives SLP_TYP 0, 0", machines[m]);
		rc = acpi_find_s5(d, len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == 0 && s5_typa == 0 && s5_typb == 0, name, "rc %d typa %u typb %u %s", rc,
			 s5_typa, s5_typb, s5_err);
		hit = memmem(d, len, "\x08_S5_\x12\x06\x04\x00\x00", 10);
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT holds the bytes of that _S5",
			 machines[m]);
		if (!kt_check(hit != NULL, name, "no Name(_S5, Package(4){Zero...}) in %s", path)) {
			free(d);
			continue;
		}
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT: its _S5 with OneOp, BytePrefix 6",
			 machines[m]);
		at = (size_t)(hit - d);
		/* Package (0x04) {One, 0x06, Zero} in the same 6 bytes: 06 04 01 0a 06 00 */
		memcpy(d + at + 8, "\x01\x0a\x06", 3);
		rc = acpi_find_s5(d, len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == 0 && s5_typa == 1 && s5_typb == 6, name, "rc %d typa %u typb %u %s", rc,
			 s5_typa, s5_typb, s5_err);
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT longer than its bytes", machines[m]);
		rc = acpi_find_s5(d, at + 8, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == -1 && strstr(s5_err, "is not within 36.."), name, "rc %d \"%s\"", rc,
			 s5_err);
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT cut inside _S5's package", machines[m]);
		memcpy(&d[4], &(u32){ (u32)(at + 8) }, 4);
		rc = acpi_find_s5(d, at + 8, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == -1 && strstr(s5_err, "runs past the end of the DSDT"), name,
			 "rc %d \"%s\"", rc, s5_err);
		memcpy(&d[4], &(u32){ (u32)len }, 4);
		d[at + 3] = '4'; /* _S4_ */
		snprintf(name, sizeof(name), "s5: QEMU 7.2 %s DSDT with _S5 renamed has none", machines[m]);
		rc = acpi_find_s5(d, len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == ACPI_S5_NONE && strstr(s5_err, "no \\_S5 object"), name, "rc %d \"%s\"",
			 rc, s5_err);
		free(d);
	}
}

static void s5_encodings(void)
{
	s5_ok("s5: Name (_S5, Package () {5, 6, 0, 0}) with BytePrefix",
	      AML(0x08, S5, 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x06, 0x00, 0x00), 5, 6);
	s5_ok("s5: the root prefix \\_S5", AML(0x08, '\\', S5, 0x12, 0x05, 0x02, 0x01, 0x0a, 0x07),
	      1, 7);
	s5_ok("s5: inside Scope (\\) { }",
	      AML(0x10, 0x0d, '\\', 0x08, S5, 0x12, 0x06, 0x02, 0x0a, 0x03, 0x0a, 0x04), 3, 4);
	s5_ok("s5: WordPrefix and DWordPrefix elements",
	      AML(0x08, S5, 0x12, 0x0a, 0x02, 0x0b, 0x02, 0x00, 0x0c, 0x05, 0, 0, 0), 2, 5);
	s5_ok("s5: one integer holds SLP_TYPa in bits 7-0 and SLP_TYPb in 15-8",
	      AML(0x08, S5, 0x12, 0x05, 0x01, 0x0b, 0x05, 0x07), 5, 7);
	s5_ok("s5: a two-byte PkgLength",
	      AML(0x08, S5, 0x12, 0x40 | 0x07, 0x00, 0x02, 0x0a, 0x07, 0x0a, 0x01), 7, 1);
	s5_ok("s5: a reference to \\_S5 in a method before it is not the object",
	      AML(0x14, 0x08, 'M', 'T', 'H', '0', 0x00, 0xa4, '\\', S5, 0x08, S5, 0x12, 0x04,
		  0x02, 0x01, 0x00),
	      1, 0);
	s5_ok("s5: a Name (_S5, 5) before the package is passed over",
	      AML(0x08, S5, 0x0a, 0x05, 0x08, S5, 0x12, 0x04, 0x02, 0x00, 0x01), 0, 1);
	s5_bad("s5: Name (_S5, 5) is not a Package", AML(0x08, S5, 0x0a, 0x05),
	       "not a Package (opcode 0xa)");
	s5_none("s5: no _S5 at all", AML(0x08, '_', 'S', '3', '_', 0x12, 0x04, 0x02, 0x00, 0x00));
	s5_none("s5: _S5_ in a string is not a name", AML(0x0d, S5, 0x12, 0x04, 0x02, 0x00, 0x00));
	s5_bad("s5: an empty package", AML(0x08, S5, 0x12, 0x02, 0x00), "empty");
	s5_bad("s5: a package that encodes no elements", AML(0x08, S5, 0x12, 0x02, 0x04),
	       "encodes none");
	s5_bad("s5: a string element", AML(0x08, S5, 0x12, 0x06, 0x02, 0x0d, 'a', 0x00, 0x00),
	       "element 0 of \\_S5 is not an integer (opcode 0xd)");
	s5_bad("s5: an element cut off by its package", AML(0x08, S5, 0x12, 0x04, 0x02, 0x00, 0x0b,
							   0x05, 0x00),
	       "element 1 of \\_S5 is cut off");
	s5_bad("s5: SLP_TYPb 8 does not fit 3 bits",
	       AML(0x08, S5, 0x12, 0x06, 0x02, 0x0a, 0x05, 0x0a, 0x08), "SLP_TYPb is 0x8");
	s5_bad("s5: OnesOp does not fit 3 bits", AML(0x08, S5, 0x12, 0x04, 0x02, 0xff, 0x00),
	       "SLP_TYPa is 0xffffffffffffffff");
	s5_bad("s5: a package past the end of the DSDT", AML(0x08, S5, 0x12, 0x30, 0x02, 0x00, 0x00),
	       "runs past the end of the DSDT");
	s5_bad("s5: reserved PkgLength bits", AML(0x08, S5, 0x12, 0x50, 0x00, 0x02, 0x00, 0x00),
	       "reserved bits");
	s5_bad("s5: the DSDT ends after the name", AML(0x08, S5), "cut off by the end of the DSDT");
	s5_bad("s5: the DSDT ends after PackageOp", AML(0x08, S5, 0x12),
	       "package length is cut off");
	s5_bad("s5: the first of two broken candidates is reported",
	       AML(0x08, S5, 0x0a, 0x05, 0x08, S5, 0x12, 0x02, 0x00), "not a Package");

	{
		u8 hdr[36] = "SSDT";
		struct tbl d;
		void *p;
		int rc;

		rc = acpi_find_s5(hdr, 20, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == -1 && strstr(s5_err, "shorter than its header"),
			 "s5: a DSDT shorter than its header", "rc %d \"%s\"", rc, s5_err);
		memcpy(hdr, "FACP", 4);
		rc = acpi_find_s5(hdr, 36, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == -1 && strstr(s5_err, "a FACP table is not a definition block"),
			 "s5: a FACP is not a definition block", "rc %d \"%s\"", rc, s5_err);
		sdt_begin(&d, "DSDT");
		put(&d, (const u8[]){ 0x08, S5, 0x12, 0x04, 0x02, 0x00, 0x00 }, 9);
		sdt_finish_len(&d, 4096);
		p = exact(&d);
		rc = acpi_find_s5(p, d.len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
		kt_check(rc == -1 && strstr(s5_err, "length 4096 is not within"),
			 "s5: a DSDT length past the table's bytes", "rc %d \"%s\"", rc, s5_err);
		free(p);
	}
}

static void fadt_reboot_samples(void)
{
	size_t len;
	u8 *f;

	f = read_sample("tests/host/acpi-samples/qemu-7.2-q35/FACP.bin", &len);
	memset(&info, 0, sizeof(info));
	kt_check(f && acpi_parse_fadt(f, &info) == 0 && info.have_reset_reg &&
			 info.reset_reg.space == ACPI_GAS_IO && info.reset_reg.addr == 0xcf9 &&
			 info.reset_value == 0x0f && info.pm1a_cnt == 0x604 && !info.pm1b_cnt &&
			 info.smi_cmd == 0xb2 && info.acpi_enable == 2 && info.dsdt_addr &&
			 !info.hw_reduced,
		 "fadt: QEMU 7.2 q35: reset register port 0xcf9 value 0xf, PM1a_CNT 0x604",
		 "read %d reset %d space %u addr %#llx value %#x pm1a %#x pm1b %#x smi %#x enable %#x",
		 f != NULL, info.have_reset_reg, info.reset_reg.space,
		 (unsigned long long)info.reset_reg.addr, info.reset_value, info.pm1a_cnt,
		 info.pm1b_cnt, info.smi_cmd, info.acpi_enable);
	free(f);
	f = read_sample("tests/host/acpi-samples/qemu-7.2-pc/FACP.bin", &len);
	memset(&info, 0, sizeof(info));
	kt_check(f && len == 116 && acpi_parse_fadt(f, &info) == 0 && !info.have_reset_reg &&
			 info.pm1a_cnt == 0x604 && info.smi_cmd == 0xb2 && info.acpi_enable == 0xf1 &&
			 info.dsdt_addr,
		 "fadt: QEMU 7.2 pc (ACPI 1.0, 116 bytes): no reset register, PM1a_CNT 0x604",
		 "read %d len %zu reset %d pm1a %#x smi %#x enable %#x", f != NULL, len,
		 info.have_reset_reg, info.pm1a_cnt, info.smi_cmd, info.acpi_enable);
	free(f);

	/* Hand-built: RESET_REG_SUP in a 116-byte FADT has no register to name. */
	parse_fadt(116, 0, 0, 1u << 10, 0, 0);
	kt_check(!info.have_reset_reg, "fadt: RESET_REG_SUP in an ACPI 1.0 FADT is not used",
		 "have_reset_reg %d", info.have_reset_reg);
	fadt_build(&t, 244, 0, 0, 1u << 10, 0, 0);
	t.b[116] = ACPI_GAS_MEMORY;
	memcpy(t.b + 120, &(u64){ 0xfee01000 }, 8);
	t.b[128] = 0x5a;
	t.b[89] = 2;
	memcpy(t.b + 64, &(u32){ 0x1004 }, 4);
	t.b[172] = ACPI_GAS_MEMORY; /* X_PM1a_CNT_BLK in memory space: refused */
	memcpy(t.b + 176, &(u64){ 0xfed40000 }, 8);
	memcpy(t.b + 40, &(u32){ 0x1000 }, 4);
	memcpy(t.b + 140, &(u64){ 0x123456000 }, 8);
	sdt_finish(&t);
	{
		void *p = exact(&t);

		memset(&info, 0, sizeof(info));
		host_console_reset();
		acpi_parse_fadt(p, &info);
		free(p);
	}
	kt_check(info.have_reset_reg && info.reset_reg.space == ACPI_GAS_MEMORY &&
			 info.reset_reg.addr == 0xfee01000 && info.reset_value == 0x5a &&
			 info.pm1a_cnt == 0 && host_console_has("PM1a_CNT_BLK is at 0xfed40000") &&
			 info.dsdt_addr == 0x123456000,
		 "fadt 2.0: reset register in memory, X_DSDT wins, X_PM1a_CNT_BLK in memory refused",
		 "reset %d space %u addr %#llx value %#x pm1a %#x dsdt %#llx printed \"%s\"",
		 info.have_reset_reg, info.reset_reg.space, (unsigned long long)info.reset_reg.addr,
		 info.reset_value, info.pm1a_cnt, (unsigned long long)info.dsdt_addr,
		 host_console_text());
	fadt_build(&t, 244, 0, 0, 1u << 20, 0, 0);
	memcpy(t.b + 64, &(u32){ 0x1004 }, 4);
	t.b[89] = 2;
	sdt_finish(&t);
	{
		void *p = exact(&t);

		memset(&info, 0, sizeof(info));
		acpi_parse_fadt(p, &info);
		free(p);
	}
	kt_check(info.hw_reduced && !info.pm1a_cnt,
		 "fadt: hardware-reduced ACPI has no PM1 control", "hw_reduced %d pm1a %#x",
		 info.hw_reduced, info.pm1a_cnt);
	fadt_build(&t, 244, 0, 0, 0, 0, 0);
	memcpy(t.b + 64, &(u32){ 0x1004 }, 4);
	t.b[89] = 1;
	sdt_finish(&t);
	{
		void *p = exact(&t);

		memset(&info, 0, sizeof(info));
		host_console_reset();
		acpi_parse_fadt(p, &info);
		free(p);
	}
	kt_check(!info.pm1a_cnt && host_console_has("PM1_CNT_LEN is 1"),
		 "fadt: PM1_CNT_LEN 1 is refused with a message", "pm1a %#x printed \"%s\"",
		 info.pm1a_cnt, host_console_text());
}

/* A FADT naming a DSDT (QEMU's q35 one): acpi_init reads \_S5 and reserves the DSDT. */
static void init_dsdt(void)
{
	struct tbl f;
	u64 ents[2];
	u32 madt_len, root_len, dsdt32;
	size_t len;
	u8 *sample = read_sample("tests/host/acpi-samples/qemu-7.2-q35/DSDT.bin", &len);
	void *dsdt, *root, *rsdp;
	int rc;

	if (!kt_check(sample != NULL, "init: the q35 DSDT sample is there", "cannot read it"))
		return;
	arena_reset();
	dsdt = place(sample, len);
	free(sample);
	fadt_build(&f, 244, 0xb008, 4, 0, 0, 0);
	dsdt32 = (u32)addr_of(dsdt);
	memcpy(f.b + 40, &dsdt32, 4);
	sdt_finish(&f);
	ents[0] = addr_of(place(f.b, f.len));
	ents[1] = addr_of(place_madt(2, &madt_len));
	root = place_root(true, ents, 2, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && acpi.have_s5 && acpi.slp_typa == 0 && acpi.slp_typb == 0 &&
			 reserved(dsdt, len, "DSDT"),
		 "init: the FADT's DSDT gives \\_S5", "rc %d have_s5 %d (%s) reserved %d", rc,
		 acpi.have_s5, acpi.s5_err, reserved(dsdt, len, "DSDT"));
	fadt_build(&f, 244, 0xb008, 4, 0, 0, 0);
	ents[0] = addr_of(place(f.b, f.len));
	root = place_root(true, ents, 2, &root_len);
	rsdp = place_rsdp(2, 0, addr_of(root), true, true);
	rc = run_init(addr_of(rsdp));
	kt_check(rc == 0 && !acpi.have_s5 && strstr(acpi.s5_err, "DSDT address 0 is not usable"),
		 "init: a FADT without a DSDT says so", "rc %d have_s5 %d \"%s\"", rc, acpi.have_s5,
		 acpi.s5_err);
}

/* ---- \_S5 in an SSDT, hardware-reduced ACPI's sleep registers, how slablab powers off ---- */

/*
 * The bytes of the Dell Precision T3500's SSDT "st_ex" around its \_S5 (linuxhw/ACPI, the
 * dump vendored as tests/host/acpi-samples/real/): Name (\_S5, Package (0x04) {2, 2, 0, 0}),
 * the DSDT having none.
 */
#define T3500_S5 0x08, '\\', S5, 0x12, 0x08, 0x04, 0x0a, 0x02, 0x0a, 0x02, 0x00, 0x00

/* An SSDT (or DSDT) of aml, exact size, in the arena or on the heap. */
static void defblock(struct tbl *d, const char *sig, const char *oem_table, const u8 *aml, size_t n)
{
	sdt_begin(d, sig);
	if (oem_table)
		memcpy(d->b + 16, oem_table, 8);
	put(d, aml, n);
	sdt_finish(d);
}

static void s5_ssdt(void)
{
	struct tbl d;
	void *p;
	int rc;

	defblock(&d, "SSDT", NULL, AML(0x10, 0x05, '\\', 0x00, T3500_S5));
	p = exact(&d);
	rc = acpi_find_s5(p, d.len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
	kt_check(rc == 0 && s5_typa == 2 && s5_typb == 2, "s5: an SSDT's \\_S5 (Dell Precision T3500)",
		 "rc %d typa %u typb %u \"%s\"", rc, s5_typa, s5_typb, s5_err);
	free(p);
	defblock(&d, "SSDT", NULL, AML(0x08, S5, 0x12, 0x30, 0x02, 0x00, 0x00));
	p = exact(&d);
	rc = acpi_find_s5(p, d.len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
	kt_check(rc == -1 && strstr(s5_err, "runs past the end of the SSDT"),
		 "s5: an SSDT's broken \\_S5 names the SSDT", "rc %d \"%s\"", rc, s5_err);
	free(p);
	defblock(&d, "SSDT", NULL, AML(0x08, 'C', 'F', 'G', 'D', 0x0a, 0x01));
	p = exact(&d);
	rc = acpi_find_s5(p, d.len, &s5_typa, &s5_typb, s5_err, sizeof(s5_err));
	kt_check(rc == ACPI_S5_NONE && strstr(s5_err, "the SSDT has no \\_S5"),
		 "s5: an SSDT without \\_S5", "rc %d \"%s\"", rc, s5_err);
	free(p);
}

/* A FADT of len bytes with flags, PM1a_CNT_BLK pm1a, and the sleep registers from 244. */
static void fadt_sleep(struct tbl *f, u32 len, u32 flags, u16 pm1a, const struct acpi_gas *ctl,
		       const struct acpi_gas *sts)
{
	const struct acpi_gas *g[2] = { ctl, sts };

	fadt_build(f, len, 0, 0, flags, 0, 0);
	memcpy(f->b + 64, &(u32){ pm1a }, 4);
	f->b[89] = pm1a ? 2 : 0;
	for (int i = 0; i < 2 && len >= 268; i++) {
		u8 *b = f->b + 244 + 12 * i;

		b[0] = g[i]->space;
		b[1] = g[i]->bit_width;
		b[2] = g[i]->bit_offset;
		b[3] = g[i]->access_size;
		memcpy(b + 4, &g[i]->addr, 8);
	}
	sdt_finish(f);
}

static enum acpi_poweroff how;
static char why[192];

/* info := a parsed FADT built by fadt_sleep, with \_S5 (2, 2) read unless s5 is false. */
static void poweroff_case(u32 len, u32 flags, u16 pm1a, const struct acpi_gas *ctl,
			  const struct acpi_gas *sts, bool s5)
{
	void *p;

	fadt_sleep(&t, len, flags, pm1a, ctl, sts);
	p = exact(&t);
	memset(&info, 0, sizeof(info));
	acpi_parse_fadt(p, &info);
	free(p);
	info.present = true;
	info.have_s5 = s5;
	info.slp_typa = info.slp_typb = 2;
	snprintf(info.s5_err, sizeof(info.s5_err), "the DSDT has no \\_S5 object");
	why[0] = '\0';
	how = acpi_poweroff_method(&info, why, sizeof(why));
}

static void poweroff_methods(void)
{
	/* The Bay Trail and Cherry Trail tablets of the vendored set: I/O 0x405 and 0x401. */
	const struct acpi_gas ctl = { ACPI_GAS_IO, 8, 0, 1, 0x405 }, sts = { ACPI_GAS_IO, 8, 0, 1, 0x401 };
	const struct acpi_gas none = { 0 }, mem_low = { ACPI_GAS_MEMORY, 8, 0, 1, 0x1000 };
	const struct acpi_gas mem_ok = { ACPI_GAS_MEMORY, 8, 0, 1, 0xfed80000 };
	const struct acpi_gas wide = { ACPI_GAS_IO, 16, 0, 2, 0x405 };
	const struct acpi_gas pci = { ACPI_GAS_PCI, 8, 0, 1, 0x1f00000044ULL };
	const struct acpi_gas pci_bus1 = { ACPI_GAS_PCI, 8, 0, 1, 1ULL << 48 };
	const struct acpi_gas odd = { 3, 8, 0, 1, 0x405 };
	char w[96];

	poweroff_case(276, 1u << 20, 0, &ctl, &sts, true);
	kt_check(info.hw_reduced && info.sleep_control.space == ACPI_GAS_IO &&
			 info.sleep_control.addr == 0x405 && info.sleep_control.bit_width == 8 &&
			 info.sleep_status.addr == 0x401 && how == ACPI_POWEROFF_SLEEP_CONTROL,
		 "poweroff: hardware-reduced, sleep control register at I/O 0x405",
		 "hw_reduced %d ctl space %u addr %#llx width %u sts %#llx how %d \"%s\"",
		 info.hw_reduced, info.sleep_control.space, (unsigned long long)info.sleep_control.addr,
		 info.sleep_control.bit_width, (unsigned long long)info.sleep_status.addr, how, why);
	KT_EQ_U("poweroff: the sleep control byte for SLP_TYP 7 (SLP_TYP in 4:2, SLP_EN bit 5)",
		acpi_sleep_control_value(7), 0x3c);
	KT_EQ_U("poweroff: the sleep control byte for SLP_TYP 5", acpi_sleep_control_value(5), 0x34);
	KT_EQ_U("poweroff: the sleep control byte for SLP_TYP 0", acpi_sleep_control_value(0), 0x20);
	KT_EQ_U("poweroff: a SLP_TYP past 3 bits does not reach SLP_EN's neighbours",
		acpi_sleep_control_value(0xff), 0x3c);
	poweroff_case(276, 1u << 20, 0, &none, &none, true);
	kt_check(how == ACPI_POWEROFF_NONE && strstr(why, "names no sleep control register"),
		 "poweroff: hardware-reduced without a sleep control register (Dell Venue 8 Pro)",
		 "how %d \"%s\"", how, why);
	poweroff_case(244, 1u << 20, 0, &ctl, &sts, true);
	kt_check(how == ACPI_POWEROFF_NONE && !info.sleep_control.addr &&
			 strstr(why, "FADT (244 bytes) is too short"),
		 "poweroff: hardware-reduced with a 244-byte FADT: no sleep registers",
		 "how %d addr %#llx \"%s\"", how, (unsigned long long)info.sleep_control.addr, why);
	poweroff_case(276, 1u << 20, 0, &ctl, &sts, false);
	kt_check(how == ACPI_POWEROFF_NONE && strstr(why, "no \\_S5"),
		 "poweroff: hardware-reduced without \\_S5 says why", "how %d \"%s\"", how, why);
	poweroff_case(276, 1u << 20, 0, &wide, &sts, true);
	kt_check(how == ACPI_POWEROFF_NONE && strstr(why, "16 bits at bit 0"),
		 "poweroff: a 16-bit sleep control register is refused", "how %d \"%s\"", how, why);
	poweroff_case(276, 1u << 20, 0, &mem_low, &sts, true);
	kt_check(how == ACPI_POWEROFF_NONE && strstr(why, "outside the 3..4 GiB"),
		 "poweroff: a sleep control register in memory below 3 GiB is refused",
		 "how %d \"%s\"", how, why);
	poweroff_case(276, 1u << 20, 0, &mem_ok, &none, true);
	kt_check(how == ACPI_POWEROFF_SLEEP_CONTROL,
		 "poweroff: a sleep control register in memory at 0xfed80000, no status register",
		 "how %d \"%s\"", how, why);
	/* Not hardware-reduced: PM1 control, whatever the sleep registers say (as ACPICA). */
	poweroff_case(276, 0, 0x404, &ctl, &sts, true);
	kt_check(how == ACPI_POWEROFF_PM1 && info.pm1a_cnt == 0x404,
		 "poweroff: with PM1 control, the sleep registers are not used", "how %d pm1a %#x \"%s\"",
		 how, info.pm1a_cnt, why);
	poweroff_case(276, 0, 0, &ctl, &sts, true);
	kt_check(how == ACPI_POWEROFF_NONE && strstr(why, "no PM1a control port"),
		 "poweroff: no PM1a control port, not hardware-reduced", "how %d \"%s\"", how, why);
	poweroff_case(276, 0, 0x404, &ctl, &sts, false);
	kt_check(how == ACPI_POWEROFF_NONE && !strcmp(why, info.s5_err),
		 "poweroff: no \\_S5 gives \\_S5's reason", "how %d \"%s\"", how, why);
	memset(&info, 0, sizeof(info));
	how = acpi_poweroff_method(&info, why, sizeof(why));
	kt_check(how == ACPI_POWEROFF_NONE && !strcmp(why, "no ACPI tables"),
		 "poweroff: no ACPI tables", "how %d \"%s\"", how, why);
	info.present = true;
	how = acpi_poweroff_method(&info, why, sizeof(why));
	kt_check(how == ACPI_POWEROFF_NONE && !strcmp(why, "there is no FADT"),
		 "poweroff: no FADT", "how %d \"%s\"", how, why);

	kt_check(acpi_gas_writable(&pci, w, sizeof(w)) && !acpi_gas_writable(&pci_bus1, w, sizeof(w)) &&
			 strstr(w, "not on bus 0"),
		 "gas: PCI configuration space of bus 0 only", "\"%s\"", w);
	kt_check(!acpi_gas_writable(&odd, w, sizeof(w)) && strstr(w, "address space 3"),
		 "gas: embedded controller space is not written", "\"%s\"", w);
	kt_check(!acpi_gas_writable(&(struct acpi_gas){ ACPI_GAS_IO, 8, 0, 1, 0x10000 }, w, sizeof(w)) &&
			 strstr(w, "past 0xffff"),
		 "gas: an I/O port past 0xffff", "\"%s\"", w);
}

/*
 * acpi_init over a DSDT and SSDTs: \_S5 from the first SSDT that has one when the DSDT has
 * none; a DSDT's \_S5 that cannot be read ends the search; neither says so. The FADT is
 * hardware-reduced in one case: \_S5 is read for it too.
 */
static void init_ssdt(void)
{
	struct tbl d, f, s1, s2;
	u64 ents[5];
	u32 madt_len, root_len, dsdt32;
	void *root, *rsdp, *ssdt2;
	int rc;

	for (int variant = 0; variant < 4; variant++) {
		arena_reset();
		if (variant == 1) /* the DSDT's \_S5 runs past its end */
			defblock(&d, "DSDT", NULL, AML(0x08, S5, 0x12, 0x30, 0x02, 0x00, 0x00));
		else
			defblock(&d, "DSDT", NULL, AML(0x08, 'C', 'F', 'G', 'D', 0x0a, 0x01));
		fadt_build(&f, 276, 0, 0, variant == 3 ? 1u << 20 : 0, 0, 0);
		dsdt32 = (u32)addr_of(place(d.b, d.len));
		memcpy(f.b + 40, &dsdt32, 4);
		sdt_finish(&f);
		defblock(&s1, "SSDT", "CpuPm   ", AML(0x08, 'P', 'D', 'C', '0', 0x0a, 0x01));
		defblock(&s2, "SSDT", "st_ex\0\0\0", AML(0x10, 0x05, '\\', 0x00, T3500_S5));
		ents[0] = addr_of(place(f.b, f.len));
		ents[1] = addr_of(place(s1.b, s1.len));
		ents[2] = addr_of(place_madt(2, &madt_len));
		ssdt2 = variant == 2 ? place(s1.b, s1.len) : place(s2.b, s2.len);
		ents[3] = addr_of(ssdt2);
		root = place_root(true, ents, 4, &root_len);
		rsdp = place_rsdp(2, 0, addr_of(root), true, true);
		rc = run_init(addr_of(rsdp));
		if (variant == 0)
			kt_check(rc == 0 && acpi.nr_ssdt == 2 && acpi.have_s5 && acpi.slp_typa == 2 &&
					 acpi.slp_typb == 2 &&
					 !strcmp(acpi.s5_from, "SSDT 2 of 2 (OEM table id st_ex)"),
				 "init: \\_S5 from the second SSDT when the DSDT has none",
				 "rc %d ssdts %d have_s5 %d typ %u %u from \"%s\" err \"%s\"", rc,
				 acpi.nr_ssdt, acpi.have_s5, acpi.slp_typa, acpi.slp_typb, acpi.s5_from,
				 acpi.s5_err);
		else if (variant == 1)
			kt_check(rc == 0 && !acpi.have_s5 && strstr(acpi.s5_err, "end of the DSDT"),
				 "init: a DSDT \\_S5 that cannot be read is not looked for in the SSDTs",
				 "rc %d have_s5 %d \"%s\"", rc, acpi.have_s5, acpi.s5_err);
		else if (variant == 2)
			kt_check(rc == 0 && !acpi.have_s5 &&
					 !strcmp(acpi.s5_err, "neither the DSDT nor any of the 2 SSDTs has a "
							      "\\_S5 object"),
				 "init: no \\_S5 in the DSDT or any SSDT", "rc %d have_s5 %d \"%s\"", rc,
				 acpi.have_s5, acpi.s5_err);
		else
			kt_check(rc == 0 && acpi.hw_reduced && acpi.have_s5 && acpi.slp_typa == 2,
				 "init: a hardware-reduced FADT's \\_S5 is read", "rc %d hwr %d have_s5 %d \"%s\"",
				 rc, acpi.hw_reduced, acpi.have_s5, acpi.s5_err);
	}
}

/* ---- SRAT and SLIT (acpi_parse_srat, acpi_parse_slit) and the layout they make ---- */

/* QEMU's 128 MiB guest: RAM below 640 KiB and from 1 MiB up. */
static const struct mem_region ram128[] = {
	{ 0, 0x9fc00, MEM_USABLE }, { 0x9fc00, 0x400, MEM_RESERVED },
	{ 0x100000, 0x7f00000 - 0x100000, MEM_USABLE }, { 0xfffc0000, 0x40000, MEM_RESERVED },
};
static struct numa_layout lay;
static char lerr[160];
static u8 *numa_tables[3]; /* the last sample's: info.slit points into [2] */

/* info := the sample's MADT, SRAT and SLIT (as read from files, patched by fix). */
static int numa_sample(const char *dir, void (*fix)(u8 *srat, u8 *slit))
{
	u8 **t = numa_tables;
	char path[128];
	size_t len;
	const char *names[3] = { "APIC", "SRAT", "SLIT" };
	int rc = 0;

	memset(&info, 0, sizeof(info));
	for (int i = 0; i < 3; i++) {
		free(t[i]);
		snprintf(path, sizeof(path), "tests/host/acpi-samples/%s/%s.bin", dir, names[i]);
		t[i] = read_sample(path, &len);
		if (!t[i])
			return -1;
	}
	if (fix)
		fix(t[1], t[2]);
	rc |= acpi_parse_madt(t[0], &info);
	rc |= acpi_parse_srat(t[1], &info);
	rc |= acpi_parse_slit(t[2], &info);
	lerr[0] = 0;
	return rc ? rc : acpi_numa_layout(&info, ram128, ARRAY_SIZE(ram128), &lay, lerr, sizeof(lerr));
}

static int node_of_apic(u32 id)
{
	for (int i = 0; i < lay.nr_cpus; i++)
		if (lay.cpu_apic[i] == id)
			return lay.cpu_node[i];
	return -1;
}

static void srat_two_nodes(void)
{
	int rc = numa_sample("qemu-7.2-numa2", NULL);

	kt_check(rc == 0 && info.have_srat && info.have_slit && info.nr_srat_cpus == 4 &&
			 lay.nr_nodes == 2 && node_of_apic(0) == 0 && node_of_apic(1) == 0 &&
			 node_of_apic(2) == 1 && node_of_apic(3) == 1,
		 "srat: QEMU 7.2, 2 nodes: CPUs 0-1 on node 0, 2-3 on node 1",
		 "rc %d \"%s\" srat %d slit %d cpus %d nodes %d: %d %d %d %d", rc, lerr, info.have_srat,
		 info.have_slit, info.nr_srat_cpus, lay.nr_nodes, node_of_apic(0), node_of_apic(1),
		 node_of_apic(2), node_of_apic(3));
	kt_check(rc == 0 && lay.nr_memblks == 3 && lay.memblks[0].base == 0 &&
			 lay.memblks[0].end == 0xa0000 && lay.memblks[0].nid == 0 &&
			 lay.memblks[1].base == 0x100000 && lay.memblks[1].end == 0x4000000 &&
			 lay.memblks[1].nid == 0 && lay.memblks[2].base == 0x4000000 &&
			 lay.memblks[2].end == 0x8000000 && lay.memblks[2].nid == 1,
		 "srat: QEMU 7.2, 2 nodes: 64 MiB each, the low 640 KiB on node 0",
		 "%d blocks: %#llx-%#llx n%d, %#llx-%#llx n%d, %#llx-%#llx n%d", lay.nr_memblks,
		 (unsigned long long)lay.memblks[0].base, (unsigned long long)lay.memblks[0].end,
		 lay.memblks[0].nid, (unsigned long long)lay.memblks[1].base,
		 (unsigned long long)lay.memblks[1].end, lay.memblks[1].nid,
		 (unsigned long long)lay.memblks[2].base, (unsigned long long)lay.memblks[2].end,
		 lay.memblks[2].nid);
	kt_check(rc == 0 && lay.distance[0][0] == 10 && lay.distance[0][1] == 20 &&
			 lay.distance[1][0] == 20 && lay.distance[1][1] == 10,
		 "slit: QEMU 7.2, 2 nodes: 10/20", "%u %u %u %u", lay.distance[0][0],
		 lay.distance[0][1], lay.distance[1][0], lay.distance[1][1]);
}

static void srat_four_nodes(void)
{
	int rc = numa_sample("qemu-7.2-numa4", NULL);
	bool mem[4] = { false };

	for (int i = 0; i < lay.nr_memblks; i++)
		mem[lay.memblks[i].nid] = true;
	kt_check(rc == 0 && lay.nr_nodes == 4 && node_of_apic(0) == 0 && node_of_apic(1) == 1 &&
			 node_of_apic(2) == 1 && node_of_apic(3) == 2 && mem[0] && !mem[1] && mem[2] &&
			 mem[3],
		 "srat: 4 nodes: node 1 has CPUs and no memory, node 3 memory and no CPUs",
		 "rc %d \"%s\" nodes %d cpus %d %d %d %d mem %d %d %d %d", rc, lerr, lay.nr_nodes,
		 node_of_apic(0), node_of_apic(1), node_of_apic(2), node_of_apic(3), mem[0], mem[1],
		 mem[2], mem[3]);
	kt_check(rc == 0 && lay.distance[0][1] == 15 && lay.distance[1][0] == 20 &&
			 lay.distance[1][3] == 40 && lay.distance[3][1] == 35 &&
			 lay.distance[2][3] == 15 && lay.distance[3][3] == 10,
		 "slit: 4 nodes, asymmetric distances by domain",
		 "0-1 %u 1-0 %u 1-3 %u 3-1 %u 2-3 %u 3-3 %u", lay.distance[0][1], lay.distance[1][0],
		 lay.distance[1][3], lay.distance[3][1], lay.distance[2][3], lay.distance[3][3]);
}

/* The 2-node sample's SRAT entries: CPUs at 48, 64, 80, 96; memory from 112, 40 bytes each. */
static void fix_cpu_absent(u8 *srat, u8 *slit)
{
	srat[64 + 3] = 77; /* CPU 1's APIC id: no such CPU in the MADT */
}

static void fix_overlap(u8 *srat, u8 *slit)
{
	u64 base = 0x3000000; /* node 1's range now starts inside node 0's */

	memcpy(srat + 112 + 2 * 40 + 8, &base, 8);
}

static void fix_no_ram(u8 *srat, u8 *slit)
{
	u64 base = 0x40000000; /* node 1's range at 1 GiB, past the 128 MiB of RAM */

	memcpy(srat + 112 + 2 * 40 + 8, &base, 8);
}

static void fix_small_slit(u8 *srat, u8 *slit)
{
	srat[80 + 2] = srat[96 + 2] = 5; /* CPUs 2 and 3 in domain 5: the SLIT has 2 */
	srat[112 + 2 * 40 + 2] = 5;
}

static void fix_bad_distance(u8 *srat, u8 *slit)
{
	slit[44 + 1] = 10; /* remote distance 10: invalid */
}

static void srat_bad(void)
{
	int rc;

	memset(&info, 0, sizeof(info));
	rc = acpi_numa_layout(&info, ram128, ARRAY_SIZE(ram128), &lay, lerr, sizeof(lerr));
	kt_check(rc == -1 && strstr(lerr, "no SRAT"), "srat: none: one node, and why",
		 "rc %d \"%s\"", rc, lerr);
	rc = numa_sample("qemu-7.2-numa2", fix_cpu_absent);
	kt_check(rc == -1 && strstr(lerr, "APIC id 77") && strstr(lerr, "MADT does not list"),
		 "srat: a CPU the MADT does not have is refused", "rc %d \"%s\"", rc, lerr);
	rc = numa_sample("qemu-7.2-numa2", fix_overlap);
	kt_check(rc == -1 && strstr(lerr, "overlap"), "srat: overlapping memory ranges are refused",
		 "rc %d \"%s\"", rc, lerr);
	rc = numa_sample("qemu-7.2-numa2", fix_no_ram);
	kt_check(rc == -1 && strstr(lerr, "no RAM"), "srat: memory that does not exist is refused",
		 "rc %d \"%s\"", rc, lerr);
	rc = numa_sample("qemu-7.2-numa2", fix_small_slit);
	kt_check(rc == -1 && strstr(lerr, "SLIT has 2 localities"),
		 "slit: a domain past the SLIT's localities is refused", "rc %d \"%s\"", rc, lerr);
	rc = numa_sample("qemu-7.2-numa2", fix_bad_distance);
	kt_check(rc == -1 && strstr(lerr, "distance from domain 0 to 1 is 10"),
		 "slit: a remote distance of 10 is refused", "rc %d \"%s\"", rc, lerr);

	/* More domains than MAX_NUMNODES: one hand-built SRAT of 9 CPUs in 9 domains. */
	{
		static u8 srat[48 + 9 * 16 + 40];
		u32 len = sizeof(srat);

		memset(&info, 0, sizeof(info));
		memcpy(srat, "SRAT", 4);
		memcpy(srat + 4, &len, 4);
		srat[8] = 3;
		for (int i = 0; i < 9; i++) {
			u8 *e = srat + 48 + i * 16;

			e[0] = 0;
			e[1] = 16;
			e[2] = (u8)i;
			e[3] = (u8)i;
			e[4] = 1;
			info.cpus[info.nr_cpus++].apic_id = (u32)i;
		}
		u8 *m = srat + 48 + 9 * 16;
		u64 base = 0x100000, mlen = 0x1000000;

		m[0] = 1;
		m[1] = 40;
		memcpy(m + 8, &base, 8);
		memcpy(m + 16, &mlen, 8);
		m[28] = 1;
		rc = acpi_parse_srat(srat, &info);
		rc = rc ? rc : acpi_numa_layout(&info, ram128, ARRAY_SIZE(ram128), &lay, lerr,
						  sizeof(lerr));
		kt_check(rc == -1 && strstr(lerr, "more than 8 proximity domains"),
			 "srat: 9 domains, more than MAX_NUMNODES, are refused", "rc %d \"%s\"", rc,
			 lerr);
		/* The same with 8 CPUs (domains 0..7) is taken: 8 nodes, x2APIC entries too. */
		srat[48 + 8 * 16 + 4] = 0; /* the ninth CPU disabled */
		memset(&info.srat_cpus, 0, sizeof(info.srat_cpus));
		info.nr_srat_cpus = info.nr_srat_mem = 0;
		info.have_srat = false;
		rc = acpi_parse_srat(srat, &info);
		rc = rc ? rc : acpi_numa_layout(&info, ram128, ARRAY_SIZE(ram128), &lay, lerr,
						  sizeof(lerr));
		kt_check(rc == 0 && lay.nr_nodes == 8 && node_of_apic(7) == 7 && node_of_apic(8) == 0,
			 "srat: 8 domains are 8 nodes; a CPU the SRAT leaves out is on node 0",
			 "rc %d \"%s\" nodes %d cpu7 %d cpu8 %d", rc, lerr, lay.nr_nodes,
			 node_of_apic(7), node_of_apic(8));
	}

	/* x2APIC affinity (type 2): a 32-bit APIC id and domain; revision 1's 8-bit domain of a
	 * type 0 entry, revision 2's 32-bit one (bits 31-8 at bytes 9..11). */
	{
		static u8 srat[48 + 24 + 16 + 40];
		u32 len = sizeof(srat), v;
		u8 *x = srat + 48, *l = srat + 48 + 24, *m = srat + 48 + 24 + 16;
		u64 base = 0x100000, mlen = 0x1000000;

		memset(&info, 0, sizeof(info));
		memcpy(srat, "SRAT", 4);
		memcpy(srat + 4, &len, 4);
		srat[8] = 2;
		x[0] = 2;
		x[1] = 24;
		v = 0x1234; /* domain */
		memcpy(x + 4, &v, 4);
		v = 300; /* x2APIC id past 255 */
		memcpy(x + 8, &v, 4);
		x[12] = 1;
		l[0] = 0;
		l[1] = 16;
		l[2] = 0x34;
		l[3] = 7;
		l[4] = 1;
		l[9] = 0x12; /* revision 2: domain 0x1234 too */
		m[0] = 1;
		m[1] = 40;
		v = 0x1234;
		memcpy(m + 2, &v, 4);
		memcpy(m + 8, &base, 8);
		memcpy(m + 16, &mlen, 8);
		m[28] = 1;
		info.cpus[0].apic_id = 300;
		info.cpus[1].apic_id = 7;
		info.nr_cpus = 2;
		rc = acpi_parse_srat(srat, &info);
		rc = rc ? rc : acpi_numa_layout(&info, ram128, ARRAY_SIZE(ram128), &lay, lerr,
						  sizeof(lerr));
		kt_check(rc == 0 && info.nr_srat_cpus == 2 && info.srat_cpus[0].apic_id == 300 &&
				 info.srat_cpus[0].pxm == 0x1234 && info.srat_cpus[1].pxm == 0x1234 &&
				 lay.nr_nodes == 1 && lay.pxm[0] == 0x1234 && node_of_apic(300) == 0 &&
				 node_of_apic(7) == 0,
			 "srat: an x2APIC entry (id 300) and a revision-2 domain of 32 bits",
			 "rc %d \"%s\" cpus %d id %u pxm %#x %#x nodes %d", rc, lerr,
			 info.nr_srat_cpus, info.srat_cpus[0].apic_id, info.srat_cpus[0].pxm,
			 info.srat_cpus[1].pxm, lay.nr_nodes);
	}
}

int main(void)
{
	checksum();
	madt_basics();
	madt_lapic();
	madt_x2apic();
	madt_many();
	madt_other_entries();
	madt_broken();
	fadt_pm_timer();
	fadt_reboot_samples();
	s5_qemu_samples();
	s5_encodings();
	s5_ssdt();
	poweroff_methods();
	srat_two_nodes();
	srat_four_nodes();
	srat_bad();
	for (int i = 0; i < 3; i++)
		free(numa_tables[i]);
	if (map_arena()) {
		init_chain();
		init_odd_tables();
		init_fadt();
		init_dsdt();
		init_ssdt();
	} else {
		int e = errno;

		kt_skip("init: RSDP/XSDT/RSDT chains",
			"cannot map memory at %#lx (below the 64 GiB "
			"acpi_init accepts): %s",
			ARENA_BASE, strerror(e));
	}
	return kt_finish();
}
