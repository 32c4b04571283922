// SPDX-License-Identifier: MIT
/*
 * acpi-check: what slablab would do on the machine whose ACPI tables a dump holds.
 *
 *	build/host/acpi-check [--json] [--name NAME] DUMP
 *
 * DUMP: the text Linux's acpidump prints (ACPICA's: "SIG @ 0xADDRESS", then lines
 * "OFFSET: HH HH ... ASCII"), "-" for standard input, or a folder of binary tables (acpidump
 * -b, tools/acpi-dump.py); --name says what to call it in the report (for "-").
 * tools/acpi-check is the way to run it: it builds this program and unpacks .xz and .gz dumps.
 *
 * Nothing here reads a table: the kernel's own arch/x86/acpi.c does, through acpi_init(), as
 * at boot. This program only lays the dumped tables out in memory as firmware would leave
 * them (an RSDP, a root table listing them, the FADT pointing at the DSDT), then asks the
 * kernel's decisions what they make of it: acpi_numa_layout (NUMA), tsc_hpet_unusable (the
 * HPET), apic_id_needs_x2apic (CPUs), acpi_gas_writable (the reset register) and
 * acpi_poweroff_method (power-off), and prints the kernel's messages as it would print them.
 *
 * A dump from /sys/firmware/acpi/tables (what Linux's acpidump reads, and every dump of the
 * linuxhw/ACPI collection but one) has no RSDP and no XSDT and gives every table the address
 * 0: the root table is then built from the dump's tables in the dump's order, and the FADT's
 * DSDT address is pointed at the dumped DSDT (its checksum kept as it was). An acpidump has
 * no memory map: RAM is taken to be where the SRAT says, hot-pluggable ranges left empty.
 *
 * Exit: 0 slablab would boot; 1 it would not on what the tables promise (a hardware-reduced
 * machine, which need not have a PIT, with neither HPET nor PM timer to calibrate the TSC
 * against: it boots only if a PIT counts after all, as QEMU's microvm has one, or CPUID leaf
 * 0x15 states the TSC's rate); 2 a dump it cannot read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sanitizer/asan_interface.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "arch/host/host_env.h"
#include "arch/x86/acpi.h"
#include "arch/x86/apic.h"
#include "arch/x86/tsc_calib.h"
#include "kernel/numa.h"

/* What acpi.c links against and the host does not have. */
u16 boot_bda_ebda;

void memblock_reserve(u64 base, u64 len, const char *what)
{
}

/* ---- the dump ---- */

#define MAX_TABLE (16u << 20) /* no ACPI table is near this; a dump that says so is broken */

struct table {
	char sig[5];
	u64 addr;   /* as the dump gives it (0: not known) */
	u8 *b;
	size_t len;
	u8 *placed; /* its copy in the arena */
};

static struct table *tabs;
static int ntabs, captabs;
static const char *dump_name;

static void __attribute__((noreturn, format(printf, 1, 2))) bad_dump(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "acpi-check: %s: ", dump_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("acpi-check");
		exit(2);
	}
	return p;
}

static struct table *new_table(const char *sig, u64 addr)
{
	struct table *t;

	if (ntabs == captabs) {
		captabs = captabs ? 2 * captabs : 64;
		tabs = xrealloc(tabs, sizeof(*tabs) * (size_t)captabs);
	}
	t = &tabs[ntabs++];
	memset(t, 0, sizeof(*t));
	memcpy(t->sig, sig, 4);
	t->addr = addr;
	return t;
}

static void append(struct table *t, const u8 *b, size_t n, size_t *cap)
{
	if (t->len + n > MAX_TABLE)
		bad_dump("table %s is longer than %u bytes", t->sig, MAX_TABLE);
	if (t->len + n > *cap) {
		*cap = (t->len + n) * 2;
		t->b = xrealloc(t->b, *cap);
	}
	memcpy(t->b + t->len, b, n);
	t->len += n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "SIG @ 0xADDRESS" (blanks around), the line that starts a table: 1 with *sig and *addr. */
static int header_line(const char *l, const char *end, char *sig, u64 *addr)
{
	const char *p = l;
	int digits = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 9)
		return 0;
	for (int i = 0; i < 4; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return 0;
	if (memcmp(p + 4, " @ 0x", 5))
		return 0;
	memcpy(sig, p, 4);
	sig[4] = '\0';
	p += 9;
	*addr = 0;
	for (; p < end && hexval(*p) >= 0; p++, digits++)
		*addr = *addr << 4 | (u64)hexval(*p);
	while (p < end && isspace((unsigned char)*p))
		p++;
	return digits > 0 && digits <= 16 && p == end;
}

/*
 * "OFFSET: HH HH ... HH  ASCII": up to 16 bytes, each two hex digits and a blank; two blanks
 * (or the end) close the bytes. The number of bytes, or -1 if the line is not one.
 */
static int data_line(const char *l, const char *end, u32 *off, u8 *out)
{
	const char *p = l;
	int digits = 0, n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*off = 0;
	for (; p < end && hexval(*p) >= 0 && digits < 9; p++, digits++)
		*off = *off << 4 | (u32)hexval(*p);
	if (!digits || digits > 8 || end - p < 2 || p[0] != ':' || p[1] != ' ')
		return -1;
	p += 2;
	while (n < 16 && end - p >= 2 && hexval(p[0]) >= 0 && hexval(p[1]) >= 0 &&
	       (end - p == 2 || isspace((unsigned char)p[2]))) {
		out[n++] = (u8)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
		if (p < end)
			p++;
		if (p < end && *p == ' ')
			break; /* two blanks: the ASCII column follows */
	}
	return n ? n : -1;
}

static void read_text(const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	struct table *cur = NULL;
	size_t cap = 0;
	unsigned line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		char sig[5];
		u64 addr;
		u32 off;
		u8 bytes[16];
		int k;

		line++;
		if (le > p && le[-1] == '\r')
			le--;
		if (header_line(p, le, sig, &addr)) {
			cur = new_table(sig, addr);
			cap = 0;
		} else if (cur && (k = data_line(p, le, &off, bytes)) > 0) {
			if (off != cur->len)
				bad_dump("line %u: table %s continues at offset %#x, after %#zx bytes",
					 line, cur->sig, off, cur->len);
			append(cur, bytes, (size_t)k, &cap);
		} else {
			cur = NULL; /* anything else ends a table */
		}
		p = nl ? nl + 1 : end;
	}
}

/* Natural order, so that ssdt2.dat comes before ssdt10.dat. */
static int natural_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			unsigned long u = strtoul(x, (char **)&x, 10), v = strtoul(y, (char **)&y, 10);

			if (u != v)
				return u < v ? -1 : 1;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x - (unsigned char)*y;
		x++;
		y++;
	}
	return (unsigned char)*x - (unsigned char)*y;
}

static u8 *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	u8 *b = NULL;
	size_t cap = 0, n;

	if (!f)
		bad_dump("%s", strerror(errno));
	*len = 0;
	do {
		if (*len + 65536 > cap)
			b = xrealloc(b, cap = 2 * cap + 65536);
		n = fread(b + *len, 1, cap - *len - 1, f);
		*len += n;
		if (*len > 64 * MAX_TABLE)
			bad_dump("more than %u MiB", 64 * MAX_TABLE >> 20);
	} while (n);
	if (ferror(f))
		bad_dump("%s", strerror(errno));
	if (f != stdin)
		fclose(f);
	b[*len] = '\0';
	return b;
}

/* Every file of the folder that holds one ACPI table (or an RSDP), in natural name order. */
static void read_folder(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	int n = 0;

	if (!d)
		bad_dump("%s", strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			names = xrealloc(names, sizeof(*names) * (size_t)(n + 1));
			names[n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), natural_cmp);
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		size_t len;
		u32 hlen = 0;
		u8 *b;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		free(names[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_TABLE)
			continue;
		b = read_file(path, &len);
		if (len >= 20 && !memcmp(b, "RSD PTR ", 8)) {
			struct table *t = new_table("RSDP", 0);

			t->b = b;
			t->len = len;
			continue;
		}
		if (len >= 36)
			memcpy(&hlen, b + 4, 4);
		if (len < 36 || hlen != len) {
			free(b);
			continue; /* not one table: a README, a disassembly */
		}
		new_table((const char *)b, 0)->b = b;
		tabs[ntabs - 1].len = len;
	}
	free(names);
}

/* Each dumped table is what its header says, and whole. */
static void check_tables(void)
{
	if (!ntabs)
		bad_dump("no ACPI tables in it (acpidump's text, or a folder of binary tables)");
	for (int i = 0; i < ntabs; i++) {
		struct table *t = &tabs[i];
		u32 hlen = 0;

		if (!strcmp(t->sig, "RSDP")) {
			if (t->len < 20 || memcmp(t->b, "RSD PTR ", 8))
				bad_dump("its RSDP is not one (%zu bytes)", t->len);
			continue;
		}
		if (t->len < 36)
			bad_dump("table %s has %zu bytes, less than a header", t->sig, t->len);
		memcpy(&hlen, t->b + 4, 4);
		if (memcmp(t->b, t->sig, 4))
			bad_dump("table %s holds a table that says it is %.4s", t->sig, (const char *)t->b);
		if (hlen != t->len)
			bad_dump("table %s: its header says %u bytes, the dump has %zu", t->sig, hlen, t->len);
	}
}

/* ---- the tables in memory, as firmware leaves them ---- */

#define ARENA_BASE 0x40000000UL /* below 4 GiB (RSDT entries are 32 bits) and ASan's shadow */

static u8 *arena;
static size_t arena_size, arena_used;

/* Copies n bytes into the arena, 16-byte aligned; everything around them stays poisoned, so
 * a read past a table's end is an ASan report. */
static u8 *place(const void *src, size_t n)
{
	u8 *p = arena + ((arena_used + 64 + 15) & ~15UL);

	if (p + n > arena + arena_size)
		bad_dump("the tables do not fit %zu bytes", arena_size);
	ASAN_UNPOISON_MEMORY_REGION(p, n);
	memcpy(p, src, n);
	arena_used = (size_t)(p - arena) + n;
	return p;
}

static void map_arena(size_t need)
{
	arena_size = (need + 0xffff) & ~0xffffUL;
	arena = mmap((void *)ARENA_BASE, arena_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (arena == MAP_FAILED || arena != (void *)ARENA_BASE) {
		fprintf(stderr, "acpi-check: cannot map %zu bytes at %#lx (Linux 4.17 or later needed)\n",
			arena_size, ARENA_BASE);
		exit(2);
	}
	ASAN_POISON_MEMORY_REGION(arena, arena_size);
}

static u64 addr_of(const void *p)
{
	return (u64)(uptr)p;
}

static void set_checksum(u8 *b, size_t len, size_t at)
{
	u8 sum = 0;

	b[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += b[i];
	b[at] = (u8)-sum;
}

/* Writes an n-byte address field and changes the checksum byte so that the sum is unchanged
 * (a table with a bad checksum keeps it, as acpi.c reports those). */
static void patch_addr(u8 *b, size_t off, int n, u64 v)
{
	u8 before = 0, after = 0;

	for (int i = 0; i < n; i++) {
		before += b[off + i];
		b[off + i] = (u8)(v >> (8 * i));
		after += b[off + i];
	}
	b[9] += (u8)(before - after);
}

static u64 get(const u8 *b, size_t off, int n)
{
	u64 v = 0;

	memcpy(&v, b + off, (size_t)n);
	return v;
}

static struct table *find(const char *sig, u64 addr)
{
	for (int i = 0; i < ntabs; i++)
		if (!strcmp(tabs[i].sig, sig) && (!addr || tabs[i].addr == addr))
			return &tabs[i];
	return NULL;
}

/* What the layout took from the dump, for the report. */
static struct {
	char root[5];
	bool root_from_dump, rsdp_from_dump, no_dsdt;
} lay;

/* A root table listing n addresses; its header's ids from the dump's root, or its FADT's. */
static u8 *place_root(const char *sig, const u64 *addrs, int n)
{
	size_t w = strcmp(sig, "XSDT") ? 4 : 8, len = 36 + w * (size_t)n;
	struct table *dumped = find(sig, 0), *fadt = find("FACP", 0);
	u8 *b = calloc(1, len), *p;

	if (!b)
		exit(2);
	if (dumped)
		memcpy(b, dumped->b, 36);
	else if (fadt)
		memcpy(b, fadt->b, 36);
	memcpy(b, sig, 4);
	memcpy(b + 4, &(u32){ (u32)len }, 4);
	b[8] = 1;
	for (int i = 0; i < n; i++)
		memcpy(b + 36 + w * (size_t)i, &addrs[i], w);
	set_checksum(b, len, 9);
	p = place(b, len);
	free(b);
	return p;
}

/*
 * Lays the tables out and returns the RSDP's address. The root table is the dump's when every
 * entry of it names a dumped table by address; otherwise every table but the DSDT, FACS and
 * the RSDP/RSDT/XSDT themselves, in the dump's order.
 */
static u64 lay_out(void)
{
	struct table *rsdp = find("RSDP", 0), *dsdt, *dumped_root;
	size_t need = 4096, w;
	u8 r[36] = "RSD PTR ", *root;
	int n = 0, m = 0;
	bool use_xsdt;
	u64 *ents;

	lay.rsdp_from_dump = rsdp != NULL;
	use_xsdt = rsdp ? rsdp->b[15] >= 2 && rsdp->len >= 36 && get(rsdp->b, 24, 8)
			: find("XSDT", 0) || !find("RSDT", 0);
	strcpy(lay.root, use_xsdt ? "XSDT" : "RSDT");
	w = use_xsdt ? 8 : 4;
	dumped_root = find(lay.root, 0);
	if (dumped_root)
		m = (int)((dumped_root->len - 36) / w);
	ents = calloc((size_t)(ntabs + m + 1), sizeof(u64));
	if (!ents)
		exit(2);
	for (int i = 0; i < ntabs; i++)
		need += tabs[i].len + 96;
	map_arena(need + 36 + 8 * (size_t)(ntabs + m) + 256);
	for (int i = 0; i < ntabs; i++)
		tabs[i].placed = place(tabs[i].b, tabs[i].len);

	/* The FADTs' DSDT addresses: the dumped DSDT at that address, else the first one. */
	for (int i = 0; i < ntabs; i++) {
		u8 *f = tabs[i].placed;
		size_t len = tabs[i].len;

		if (strcmp(tabs[i].sig, "FACP"))
			continue;
		if (len >= 44 && get(f, 40, 4)) {
			dsdt = find("DSDT", get(f, 40, 4));
			dsdt = dsdt ? dsdt : find("DSDT", 0);
			lay.no_dsdt |= !dsdt;
			patch_addr(f, 40, 4, dsdt ? addr_of(dsdt->placed) : 0);
		}
		if (len >= 148 && get(f, 140, 8)) {
			dsdt = find("DSDT", get(f, 140, 8));
			dsdt = dsdt ? dsdt : find("DSDT", 0);
			lay.no_dsdt |= !dsdt;
			patch_addr(f, 140, 8, dsdt ? addr_of(dsdt->placed) : 0);
		}
	}

	/* The dump's own root table, if it names only dumped tables. */
	if (dumped_root) {
		for (n = 0; n < m; n++) {
			u64 a = get(dumped_root->b, 36 + w * (size_t)n, (int)w);
			int j = 0;

			for (; j < ntabs && !(a && tabs[j].addr == a); j++)
				;
			if (j == ntabs)
				break;
			ents[n] = addr_of(tabs[j].placed);
		}
		lay.root_from_dump = n == m;
	}
	if (!lay.root_from_dump) {
		static const char *const unlisted[] = { "DSDT", "FACS", "RSDP", "RSDT", "XSDT" };

		n = 0;
		for (int i = 0; i < ntabs; i++) {
			bool skip = false;

			for (size_t k = 0; k < sizeof(unlisted) / sizeof(unlisted[0]); k++)
				skip |= !strcmp(tabs[i].sig, unlisted[k]);
			if (!skip)
				ents[n++] = addr_of(tabs[i].placed);
		}
	}
	root = place_root(lay.root, ents, n);
	free(ents);

	/* The RSDP: the dump's OEM id and revision when it has one. */
	if (rsdp)
		memcpy(r + 9, rsdp->b + 9, 6);
	else if (find("FACP", 0))
		memcpy(r + 9, find("FACP", 0)->b + 10, 6);
	r[15] = use_xsdt ? 2 : 0;
	memcpy(r + 16, &(u32){ use_xsdt ? 0 : (u32)addr_of(root) }, 4);
	memcpy(r + 20, &(u32){ 36 }, 4);
	memcpy(r + 24, &(u64){ use_xsdt ? addr_of(root) : 0 }, 8);
	set_checksum(r, 20, 8);
	set_checksum(r, 36, 32);
	return addr_of(place(r, use_xsdt ? 36 : 20));
}

/* ---- what the kernel makes of it ---- */

enum refusal_kind { R_ACPI, R_CPUS, R_X2APIC, R_NUMA, R_HPET, R_PM_TIMER, R_RESET, R_POWEROFF,
		    R_CLOCK, NR_R };
static const char *const refusal_name[NR_R] = { "acpi", "cpus", "x2apic", "numa", "hpet",
						"pm_timer", "reset_register", "poweroff", "clock" };

static struct {
	enum refusal_kind kind;
	char why[256];
} refusals[NR_R * 2];
static int nrefusals;

static void __attribute__((format(printf, 2, 3))) refuse(enum refusal_kind k, const char *fmt, ...)
{
	va_list ap;

	if (nrefusals == (int)(sizeof(refusals) / sizeof(refusals[0])))
		return;
	refusals[nrefusals].kind = k;
	va_start(ap, fmt);
	vsnprintf(refusals[nrefusals].why, sizeof(refusals[0].why), fmt, ap);
	va_end(ap);
	nrefusals++;
}

/* The kernel's messages, one a line, and the line that holds needle. */
static char *messages;
static char *message_with(const char *needle, char *out, size_t len)
{
	for (const char *l = messages; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (memmem(l, n, needle, strlen(needle))) {
			snprintf(out, len, "%.*s", (int)n, l);
			return out;
		}
		l += n + (e != NULL);
	}
	return NULL;
}

static struct numa_layout layout;
static char numa_err[160], numa_lines[4096], poweroff_why[192], reset_why[96];
static enum acpi_poweroff poweroff;
static bool have_numa, reset_usable, boots;
static int x2apic_needed, x2apic_entries, clocks;
static u32 max_apic_id;
static u64 node_mem[MAX_NUMNODES];
static int node_cpus[MAX_NUMNODES];

/* RAM where the SRAT says (an acpidump has no memory map), hot-pluggable ranges empty. */
static void numa(void)
{
	static struct mem_region ram[ACPI_SRAT_MAX_MEM];
	int n = 0;

	for (int i = 0; i < acpi.nr_srat_mem; i++)
		if (!acpi.srat_mem[i].hotplug) {
			ram[n].base = acpi.srat_mem[i].base;
			ram[n].len = acpi.srat_mem[i].len;
			ram[n++].type = MEM_USABLE;
		}
	host_console_reset();
	have_numa = !acpi_numa_layout(&acpi, ram, n, &layout, numa_err, sizeof(numa_err));
	if (acpi.have_srat && !have_numa)
		refuse(R_NUMA, "%s; slablab runs as one node", numa_err);
	numa_install(have_numa ? &layout : NULL, numa_err);
	numa_print();
	snprintf(numa_lines, sizeof(numa_lines), "%s", host_console_text());
	for (int i = 0; have_numa && i < layout.nr_memblks; i++)
		node_mem[layout.memblks[i].nid] += layout.memblks[i].end - layout.memblks[i].base;
	for (int i = 0; have_numa && i < layout.nr_cpus; i++)
		node_cpus[layout.cpu_node[i]]++;
}

static void cpus(void)
{
	for (int i = 0; i < acpi.nr_cpus; i++) {
		max_apic_id = MAX(max_apic_id, acpi.cpus[i].apic_id);
		x2apic_entries += acpi.cpus[i].x2apic;
		x2apic_needed += apic_id_needs_x2apic(acpi.cpus[i].apic_id);
	}
	if (!acpi.present)
		refuse(R_ACPI, "no usable RSDP or root table: slablab would run on the boot CPU only, "
		       "without HPET or PM timer");
	else if (!acpi.have_madt)
		refuse(R_ACPI, "no MADT: slablab would run on the boot CPU only");
	if (acpi.nr_ignored)
		refuse(R_CPUS, "%d enabled CPUs past slablab's limit of %d are left out", acpi.nr_ignored,
		       NR_CPUS);
	if (x2apic_needed)
		refuse(R_X2APIC, "%d CPUs have APIC ids above %d: they run only in x2APIC mode (left "
		       "out on a CPU without x2APIC, or with x2apic=off)", x2apic_needed, XAPIC_MAX_ID);
}

static void clock_sources(void)
{
	const char *why = acpi.hpet_addr ? tsc_hpet_unusable(acpi.hpet_addr) : NULL;
	char msg[200];

	if (acpi.hpet_addr && !why)
		clocks++;
	else if (acpi.hpet_addr)
		refuse(R_HPET, "the HPET at %#llx %s; not used", (unsigned long long)acpi.hpet_addr, why);
	else if (acpi.hpet_table)
		refuse(R_HPET, "the HPET table does not give a memory address (too short, or another "
		       "address space); not used");
	if (acpi.pm_tmr_port)
		clocks++;
	else if (acpi.have_fadt && !acpi.hw_reduced)
		refuse(R_PM_TIMER, "%s", message_with("PM timer", msg, sizeof(msg)) ?
			   msg : "the FADT names no ACPI PM timer");
	/* The PIT is not in ACPI: tsc.c probes it. A hardware-reduced machine need not have one. */
	boots = clocks || !acpi.hw_reduced;
	if (!clocks)
		refuse(R_CLOCK, "no HPET or ACPI PM timer to calibrate the TSC against: %s",
		       acpi.hw_reduced ? "a hardware-reduced machine need not have a PIT either; slablab "
					 "boots only if a PIT counts after all or CPUID leaf 0x15 states "
					 "the TSC's rate, and stops otherwise"
				       : "only the PIT (or CPUID's frequency leaves)");
}

static void leaving(void)
{
	reset_usable = acpi.have_reset_reg &&
		       acpi_gas_writable(&acpi.reset_reg, reset_why, sizeof(reset_why));
	if (acpi.have_reset_reg && !reset_usable)
		refuse(R_RESET, "the ACPI reset register is not one slablab can write (%s); reboot "
		       "starts at port 0xcf9", reset_why);
	poweroff = acpi_poweroff_method(&acpi, poweroff_why, sizeof(poweroff_why));
	if (poweroff == ACPI_POWEROFF_NONE && lay.no_dsdt)
		snprintf(poweroff_why, sizeof(poweroff_why), "the dump holds no DSDT, so \\_S5 cannot "
			 "be read from it");
	if (poweroff == ACPI_POWEROFF_NONE)
		refuse(R_POWEROFF, "cannot power off: %s", poweroff_why);
}

/* ---- the report ---- */

static const char *space_name(u8 space)
{
	return space == ACPI_GAS_IO ? "io" : space == ACPI_GAS_MEMORY ? "memory"
		: space == ACPI_GAS_PCI ? "pci" : "other";
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The OEM id without trailing blanks, printable. */
static const char *oem(void)
{
	static char s[7];
	int n = 0;

	for (int i = 0; i < 6 && acpi.oem[i]; i++)
		s[n++] = acpi.oem[i] >= 0x20 && acpi.oem[i] < 0x7f ? acpi.oem[i] : '?';
	while (n && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
	return s;
}

static const char *poweroff_kind(void)
{
	return poweroff == ACPI_POWEROFF_PM1 ? "pm1" : poweroff == ACPI_POWEROFF_SLEEP_CONTROL
		? "sleep_control" : "none";
}

static void print_json(void)
{
	const char *sep = "";

	printf("{\n\"dump\": ");
	json_str(dump_name);
	printf(",\n\"tables\": [");
	for (int i = 0; i < ntabs; i++) {
		printf("%s", i ? ", " : "");
		json_str(tabs[i].sig);
	}
	printf("],\n\"root\": \"%s\", \"root_from_dump\": %s, \"rsdp_from_dump\": %s,\n", lay.root,
	       lay.root_from_dump ? "true" : "false", lay.rsdp_from_dump ? "true" : "false");
	printf("\"oem\": ");
	json_str(oem());
	if (acpi.have_fadt)
		printf(",\n\"fadt\": {\"length\": %u, \"hw_reduced\": %s}", acpi.fadt_len,
		       acpi.hw_reduced ? "true" : "false");
	else
		printf(",\n\"fadt\": null");
	printf(",\n\"cpus\": {\"madt\": %s, \"enabled\": %d, \"apic_ids\": [", acpi.have_madt ? "true"
	       : "false", acpi.nr_cpus + acpi.nr_ignored);
	for (int i = 0; i < acpi.nr_cpus; i++)
		printf("%s%u", i ? ", " : "", acpi.cpus[i].apic_id);
	printf("], \"max_apic_id\": %u, \"x2apic_entries\": %d, \"x2apic_needed\": %d, "
	       "\"past_limit\": %d, \"online_capable\": %d, \"disabled\": %d}", max_apic_id,
	       x2apic_entries, x2apic_needed, acpi.nr_ignored, acpi.nr_online_capable,
	       acpi.nr_disabled);
	printf(",\n\"numa\": {\"srat\": %s, \"slit\": %s, \"nodes\": %d, \"node\": [",
	       acpi.have_srat ? "true" : "false", acpi.have_slit ? "true" : "false",
	       have_numa ? layout.nr_nodes : 1);
	for (int n = 0; have_numa && n < layout.nr_nodes; n++) {
		printf("%s{\"pxm\": %u, \"cpus\": %d, \"mem_mib\": %llu, \"distances\": [", n ? ", " : "",
		       layout.pxm[n], node_cpus[n], (unsigned long long)(node_mem[n] >> 20));
		for (int m = 0; m < layout.nr_nodes; m++)
			printf("%s%u", m ? ", " : "", layout.distance[n][m]);
		printf("]}");
	}
	printf("]}");
	printf(",\n\"clocks\": {\"hpet\": ");
	if (acpi.hpet_addr)
		printf("{\"address\": \"%#llx\", \"used\": %s}", (unsigned long long)acpi.hpet_addr,
		       tsc_hpet_unusable(acpi.hpet_addr) ? "false" : "true");
	else
		printf("null");
	printf(", \"pm_timer\": ");
	if (acpi.pm_tmr_port)
		printf("{\"port\": \"%#x\", \"bits\": %d}", acpi.pm_tmr_port, acpi.pm_tmr_32bit ? 32 : 24);
	else
		printf("null");
	printf(", \"from_tables\": %d}", clocks);
	printf(",\n\"reboot\": {\"acpi_reset_register\": ");
	if (acpi.have_reset_reg)
		printf("{\"space\": \"%s\", \"address\": \"%#llx\", \"value\": \"%#x\", \"used\": %s}",
		       space_name(acpi.reset_reg.space), (unsigned long long)acpi.reset_reg.addr,
		       acpi.reset_value, reset_usable ? "true" : "false");
	else
		printf("null");
	printf(", \"then\": [\"pci\", \"kbd\", \"triple\"]}");
	printf(",\n\"poweroff\": {\"method\": \"%s\"", poweroff_kind());
	if (poweroff != ACPI_POWEROFF_NONE) {
		printf(", \"s5_from\": ");
		json_str(acpi.s5_from);
		printf(", \"slp_typa\": %u, \"slp_typb\": %u", acpi.slp_typa, acpi.slp_typb);
	}
	if (poweroff == ACPI_POWEROFF_PM1)
		printf(", \"pm1a_cnt\": \"%#x\", \"pm1b_cnt\": \"%#x\"", acpi.pm1a_cnt, acpi.pm1b_cnt);
	if (poweroff == ACPI_POWEROFF_SLEEP_CONTROL)
		printf(", \"register\": {\"space\": \"%s\", \"address\": \"%#llx\"}, \"value\": \"%#x\"",
		       space_name(acpi.sleep_control.space),
		       (unsigned long long)acpi.sleep_control.addr,
		       acpi_sleep_control_value(acpi.slp_typa));
	if (poweroff == ACPI_POWEROFF_NONE) {
		printf(", \"why_not\": ");
		json_str(poweroff_why);
	}
	printf("},\n\"refused\": [");
	for (int i = 0; i < nrefusals; i++) {
		printf("%s{\"kind\": \"%s\", \"why\": ", i ? ", " : "", refusal_name[refusals[i].kind]);
		json_str(refusals[i].why);
		printf("}");
	}
	printf("],\n\"messages\": [");
	for (char *l = messages; *l;) {
		char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		l[n] = '\0'; /* messages is ours, and printed once */
		printf("%s", sep);
		json_str(l);
		sep = ", ";
		l += n + (e != NULL);
	}
	printf("],\n\"boots\": %s\n}\n", boots ? "true" : "false");
}

/* APIC ids as ranges: "0-7 16-23". */
static void print_ids(void)
{
	for (int i = 0; i < acpi.nr_cpus;) {
		int j = i;

		while (j + 1 < acpi.nr_cpus && acpi.cpus[j + 1].apic_id == acpi.cpus[j].apic_id + 1)
			j++;
		printf(i ? " %u" : "%u", acpi.cpus[i].apic_id);
		if (j > i)
			printf("-%u", acpi.cpus[j].apic_id);
		i = j + 1;
	}
}

static void print_gas(const struct acpi_gas *g)
{
	if (g->space == ACPI_GAS_IO)
		printf("I/O port %#llx", (unsigned long long)g->addr);
	else if (g->space == ACPI_GAS_MEMORY)
		printf("memory at %#llx", (unsigned long long)g->addr);
	else
		printf("%s %#llx", space_name(g->space), (unsigned long long)g->addr);
}

static void print_text(void)
{
	printf("acpi-check: %s\n", dump_name);
	printf("tables:    %d (", ntabs);
	for (int i = 0; i < ntabs; i++) {
		int seen = 0, copies = 0;

		for (int j = 0; j < ntabs; j++) {
			seen += j < i && !strcmp(tabs[j].sig, tabs[i].sig);
			copies += !strcmp(tabs[j].sig, tabs[i].sig);
		}
		if (seen)
			continue;
		printf("%s%s", i ? " " : "", tabs[i].sig);
		if (copies > 1)
			printf(" x%d", copies);
	}
	printf("); %s %s\n", lay.root, lay.root_from_dump ? "from the dump"
	       : lay.rsdp_from_dump ? "built from them" : "built from them (the dump has no RSDP)");
	printf("firmware:  OEM \"%s\"", oem());
	if (acpi.have_fadt)
		printf(", FADT of %u bytes%s", acpi.fadt_len, acpi.hw_reduced ? ", hardware-reduced ACPI" : "");
	printf("\n");
	if (acpi.have_madt) {
		printf("CPUs:      %d enabled (APIC ids ", acpi.nr_cpus + acpi.nr_ignored);
		print_ids();
		printf(")");
		if (acpi.nr_online_capable)
			printf(", %d online-capable (not started)", acpi.nr_online_capable);
		if (acpi.nr_disabled)
			printf(", %d disabled", acpi.nr_disabled);
		printf("; %s (highest APIC id %u%s)\n",
		       x2apic_needed ? "x2APIC mode needed" : "xAPIC suffices", max_apic_id,
		       x2apic_entries ? ", x2APIC entries in the MADT" : "");
	} else {
		printf("CPUs:      the boot CPU only (no MADT)\n");
	}
	/* numa_print's lines, without their "numa: ", the first on this line */
	printf("NUMA:      ");
	for (const char *l = numa_lines; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);

		printf("%s%.*s\n", l == numa_lines ? "" : "           ",
		       n - (strncmp(l, "numa: ", 6) ? 0 : 6), l + (strncmp(l, "numa: ", 6) ? 0 : 6));
		l += n + (e != NULL);
	}
	printf("clocks:    ");
	if (acpi.hpet_addr && !tsc_hpet_unusable(acpi.hpet_addr))
		printf("HPET at %#llx; ", (unsigned long long)acpi.hpet_addr);
	if (acpi.pm_tmr_port)
		printf("ACPI PM timer at port %#x (%d bits); ", acpi.pm_tmr_port,
		       acpi.pm_tmr_32bit ? 32 : 24);
	printf("the PIT if it counts (probed at boot)\n");
	printf("reboot:    ");
	if (reset_usable) {
		printf("the ACPI reset register (");
		print_gas(&acpi.reset_reg);
		printf(", value %#x), then ", acpi.reset_value);
	}
	printf("port 0xcf9, the keyboard controller, a triple fault\n");
	printf("poweroff:  ");
	if (poweroff == ACPI_POWEROFF_PM1) {
		printf("ACPI S5: SLP_TYPa %u to PM1a_CNT %#x", acpi.slp_typa, acpi.pm1a_cnt);
		if (acpi.pm1b_cnt)
			printf(", SLP_TYPb %u to PM1b_CNT %#x", acpi.slp_typb, acpi.pm1b_cnt);
		printf(" (\\_S5 of the %s)\n", acpi.s5_from);
	} else if (poweroff == ACPI_POWEROFF_SLEEP_CONTROL) {
		printf("ACPI S5 (hardware-reduced): %#x (SLP_TYPa %u, SLP_EN) to the sleep control "
		       "register, ", acpi_sleep_control_value(acpi.slp_typa), acpi.slp_typa);
		print_gas(&acpi.sleep_control);
		printf(" (\\_S5 of the %s)\n", acpi.s5_from);
	} else {
		printf("cannot: %s\n", poweroff_why);
	}
	printf("refused:%s\n", nrefusals ? "" : "   nothing");
	for (int i = 0; i < nrefusals; i++)
		printf("  - %s: %s\n", refusal_name[refusals[i].kind], refusals[i].why);
	if (*messages)
		printf("kernel:    what slablab prints while it reads the tables\n");
	for (const char *l = messages; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);

		printf("  %.*s\n", n, l);
		l += n + (e != NULL);
	}
	printf("verdict:   %s\n", boots ? "slablab would boot"
	       : "slablab would not boot on what these tables promise (clock, above)");
}

int main(int argc, char **argv)
{
	bool json = false;
	const char *path = NULL;
	struct stat st;
	u64 rsdp;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			dump_name = argv[++i];
		} else if (!path && (!strcmp(argv[i], "-") || argv[i][0] != '-')) {
			path = argv[i];
		} else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: acpi-check [--json] [--name NAME] DUMP (acpidump's text, '-', "
			"or a folder of binary tables)\n");
		return 2;
	}
	if (!dump_name)
		dump_name = path;
	if (strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		read_folder(path);
	} else {
		size_t len;
		u8 *text = read_file(path, &len);

		if (len >= 6 && (!memcmp(text, "\xfd" "7zXZ", 6) || !memcmp(text, "\x1f\x8b", 2)))
			bad_dump("compressed: tools/acpi-check unpacks it (or xz -d / gzip -d first)");
		read_text((const char *)text, len);
		free(text);
	}
	check_tables();
	rsdp = lay_out();

	host_console_echo = false;
	host_console_reset();
	memset(&acpi, 0, sizeof(acpi));
	acpi_init(rsdp);
	messages = strdup(host_console_text());
	cpus();
	numa();
	clock_sources();
	leaving();
	if (json)
		print_json();
	else
		print_text();
	return boots ? 0 : 1;
}
