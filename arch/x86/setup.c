// SPDX-License-Identifier: MIT
/*
 * boot_main: the BSP's first C code (called by arch/x86/boot/entry.asm in long mode with the direct
 * map in place). It brings up the machine in this order, then hands over to kmain():
 *
 *   per-cpu template on GS -> console -> multiboot2 info -> command line -> traps (BSP)
 *   -> ACPI (none: the boot CPU alone) -> APIC -> boot slots -> per-cpu copies
 *   -> trampoline + INIT -> TSC calibration (covers the INIT delay; no clock at all stops
 *   the boot) -> SIPI -> page allocator -> wait, release
 *   -> {"event":"boot"} -> kmain()
 */
#include "arch/x86/acpi.h"
#include "arch/x86/apic.h"
#include "arch/x86/traps.h"
#include "arch/x86/x86.h"
#include "kernel/arch.h"
#include "kernel/bootinfo.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "init/main.h"
#include "kernel/percpu.h"
#include "kernel/numa.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"

int multiboot_parse(u32 magic, u64 mbi);
void screen_init(void); /* arch/x86/screen.c */
void multiboot_print_map(void);
extern char _kernel_start[], _kernel_end[];

static char accel_name[16] = "hw";
static char cpu_model[49];
static bool cpu_cx16;

/*
 * Features every x86-64 CPU of ours must have (CPUID.01H:EDX, Intel SDM vol. 2A, CPUID):
 * rdtsc, rdmsr/wrmsr, the local APIC, lfence/mfence. Long mode itself is checked before it is
 * entered (arch/x86/boot/entry.asm). Everything else is asked for where it is used: CMPXCHG16B
 * (arch_has_cmpxchg_double), x2APIC (apic.c), RDRAND and RDSEED (rdrand.h), the TSC leaves.
 */
static const struct {
	u32 bit;
	const char *name;
} cpu_required[] = {
	{ 1u << 4, "TSC" },
	{ 1u << 5, "MSR" },
	{ 1u << 9, "APIC" },
	{ 1u << 26, "SSE2" },
};

static void detect_cpu(void)
{
	u32 a, b, c, d, max;
	bool missing = false;

	cpuid(1, &a, &b, &c, &d);
	cpu_cx16 = c & (1u << 13); /* CPUID.01H:ECX.CX16[bit 13] */
	for (unsigned i = 0; i < ARRAY_SIZE(cpu_required); i++) {
		if (!(d & cpu_required[i].bit)) {
			printk("cpu: this CPU has no %s (CPUID.01H:EDX bit %d), which slablab needs\n",
			       cpu_required[i].name, __builtin_ctz(cpu_required[i].bit));
			missing = true;
		}
	}
	if (missing)
		arch_exit(KEXIT_FAIL);
	if (c & (1u << 31)) { /* running under a hypervisor */
		u32 sig[3];

		cpuid(0x40000000, &max, &sig[0], &sig[1], &sig[2]);
		if (!memcmp(sig, "TCGTCGTCGTCG", 12))
			strlcpy(accel_name, "tcg", sizeof(accel_name));
		else if (!memcmp(sig, "KVMKVMKVM\0\0\0", 12))
			strlcpy(accel_name, "kvm", sizeof(accel_name));
		else {
			memcpy(accel_name, sig, 12);
			accel_name[12] = '\0';
		}
	}
	cpuid(0x80000000, &max, &b, &c, &d);
	if (max >= 0x80000004) {
		u32 *w = (u32 *)cpu_model;

		for (u32 leaf = 0; leaf < 3; leaf++)
			cpuid(0x80000002 + leaf, &w[leaf * 4], &w[leaf * 4 + 1], &w[leaf * 4 + 2],
			      &w[leaf * 4 + 3]);
		cpu_model[48] = '\0';
	}
}

bool arch_has_cmpxchg_double(void)
{
	return cpu_cx16;
}

const char *arch_accel(void)
{
	return accel_name;
}

const char *arch_cpu_model(void)
{
	const char *m = cpu_model;

	while (*m == ' ')
		m++;
	return *m ? m : "unknown";
}

/*
 * The NUMA layout from the SRAT and SLIT (kernel/numa.h), before the page allocator sorts its
 * pages by node. Without an SRAT: one node, silently (most PCs); with a bad one: one node,
 * and the reason.
 */
static void numa_init_from_acpi(void)
{
	static struct numa_layout layout;
	char err[160];

	if (acpi_numa_layout(&acpi, boot_info.regions, boot_info.nr_regions, &layout, err,
			     sizeof(err))) {
		if (acpi.have_srat)
			printk("numa: %s; running as one node\n", err);
		numa_install(NULL, err);
		return;
	}
	numa_install(&layout, NULL);
}

void __noreturn boot_main(u32 magic, u64 mbi)
{
	static char err[512];
	u64 t_aps_begin;

	percpu_early();
	console_init();
	printk("\nslablab: booting\n");
	detect_cpu();
	cpu_tables_init();
	pic_disable();
	if (multiboot_parse(magic, mbi))
		arch_exit(KEXIT_FAIL);
	screen_init();
	if (boot_info.cmdline_len >= BOOT_CMDLINE_MAX) {
		printk("cmdline: the command line has %zu characters, more than the %d slablab "
		       "takes; none of it was used\n", boot_info.cmdline_len, BOOT_CMDLINE_MAX - 1);
		kernel_exit(KEXIT_FAIL);
	}
	if (cmdline_parse(boot_info.cmdline, err, sizeof(err))) {
		printk("cmdline: %s\n", err);
		printk("cmdline: the command line was: %s\n", boot_info.cmdline);
		kernel_exit(KEXIT_FAIL);
	}
	multiboot_print_map();

	memblock_reserve((u64)(uptr)_kernel_start, (u64)(_kernel_end - _kernel_start), "kernel");
	memblock_reserve(boot_info.mbi_start, boot_info.mbi_end - boot_info.mbi_start, "multiboot");
	for (int i = 0; i < boot_info.nr_modules; i++) /* bench=replay reads them in place */
		if (boot_info.modules[i].end > boot_info.modules[i].start)
			memblock_reserve(boot_info.modules[i].start,
					 boot_info.modules[i].end - boot_info.modules[i].start, "module");
	if (acpi_init(boot_info.rsdp))
		printk("slablab: no ACPI %s: running on the boot CPU only%s\n",
		       acpi.present ? "MADT" : "tables",
		       acpi.present ? "" : " (no MADT to find the others), without HPET or PM timer");
	numa_init_from_acpi();
	apic_init_bsp(acpi.lapic_addr);
	apic_init_cpu();

	percpu_setup((unsigned)smp_prepare(setup_max_cpus), early_alloc);
	percpu_enter(0);
	percpu_assign(0, 0, apic_id());
	cpu_tables_init(); /* again, now in the BSP's own per-cpu copy */
	t_aps_begin = rdtsc();
	observer_clock(true); /* an outside clock for the INIT and SIPIs (kernel/time.h) */
	smp_boot_begin();
	tsc_init();
	spin_pv_init(arch_hypervisor());
	smp_boot_finish(); /* also starts the page allocator while the APs come up */
	observer_clock(false);
	irq_enable_raw();  /* from here on the boot CPU takes IPIs like every other */
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		numa_assign_cpu(cpu, per_cpu(percpu_hdr, cpu).apic_id);

	printk("slablab: %d of %d CPUs online (%s APIC), TSC %llu kHz (%s), %llu MiB RAM, "
	       "accel %s, cpu \"%s\"\n",
	       nr_cpu_ids, nr_cpus_found, x2apic_mode ? "x2" : "x", (unsigned long long)tsc_khz,
	       tsc_source, (unsigned long long)(mem_total_usable() / MiB), arch_accel(),
	       arch_cpu_model());
	printk("{\"event\":\"boot\",\"cpus_online\":%d,\"cpus_found\":%d,\"tsc_khz\":%llu,"
	       "\"tsc_source\":\"%s\",\"tsc_spread_ppm\":%u,\"tsc_windows\":%d,"
	       "\"tsc_windows_kept\":%d,\"tsc_clocks\":\"%s\",\"acpi\":%s,\"acpi_root\":\"%s\","
	       "\"mem_mib\":%llu,\"boot_ms\":%llu.%03llu,\"ap_bringup_ms\":%llu.%03llu,"
	       "\"x2apic\":%s,\"cx16\":%s,\"slab_freelist\":\"%s\",\"accel\":\"%s\","
	       "\"firmware\":\"%s\",\"numa_nodes\":%d}\n",
	       nr_cpu_ids, nr_cpus_found, (unsigned long long)tsc_khz, tsc_source, tsc_spread_ppm,
	       tsc_windows, tsc_windows_kept, tsc_clocks, acpi.present ? "true" : "false",
	       acpi.present ? acpi.root : "none",
	       (unsigned long long)(mem_total_usable() / MiB),
	       (unsigned long long)(cycles_to_ns(boot_aps_online_tsc - boot_entry_tsc) / 1000000),
	       (unsigned long long)(cycles_to_ns(boot_aps_online_tsc - boot_entry_tsc) / 1000 % 1000),
	       (unsigned long long)(cycles_to_ns(boot_aps_online_tsc - t_aps_begin) / 1000000),
	       (unsigned long long)(cycles_to_ns(boot_aps_online_tsc - t_aps_begin) / 1000 % 1000),
	       x2apic_mode ? "true" : "false", cpu_cx16 ? "true" : "false",
	       /* mm/ takes slab_lock exactly when arch_has_cmpxchg_double() says no; the slab
	        * suite checks that slab_freelist_method() agrees with the boot JSON. */
	       cpu_cx16 ? "cmpxchg16b" : "slab_lock",
	       arch_accel(), boot_info.efi ? "uefi" : "bios", nr_node_ids);
	numa_print();
	kmain();
}
