// SPDX-License-Identifier: MIT
/*
 * Per-cpu areas. The linker collects every DEFINE_PER_CPU variable into the section
 * [__percpu_start, __percpu_end), headed by struct percpu_hdr. At boot each CPU that may
 * come up gets its own copy of that template, made before anyone has written to it, and
 * its GS base points at the copy. Until then the boot CPU runs on the template itself.
 * Copies are made per boot "slot" (the order arch/x86/smpboot.c starts CPUs in); logical CPU
 * numbers are given to the slots that actually came up, densely, by percpu_assign().
 */
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"

__section(".data.percpu.first") struct percpu_hdr percpu_hdr;

unsigned long __per_cpu_offset[NR_CPUS];
extern char __percpu_start[], __percpu_end[];
static char *slot_area[NR_CPUS];
static unsigned int nr_slots;

unsigned long percpu_size(void)
{
	return (unsigned long)(__percpu_end - __percpu_start);
}

/* The boot CPU, before anything else: GS points at the template (offset 0, cpu 0). */
void percpu_early(void)
{
	percpu_hdr.offset = 0;
	percpu_hdr.cpu = 0;
	percpu_hdr.self = &percpu_hdr;
	arch_set_gs_base(__percpu_start);
}

void percpu_setup(unsigned int nslots, void *(*alloc)(size_t size, size_t align))
{
	unsigned long size = percpu_size();

	if (nslots > NR_CPUS)
		nslots = NR_CPUS;
	for (unsigned int i = 0; i < nslots; i++) {
		char *a = alloc(size, PAGE_SIZE);
		struct percpu_hdr *h = (struct percpu_hdr *)a;

		memcpy(a, __percpu_start, size);
		h->offset = (unsigned long)(a - __percpu_start);
		/* No logical number until it is online; a placeholder that no lock owner equals. */
		h->cpu = NR_CPUS + (int)i;
		h->self = h;
		slot_area[i] = a;
	}
	nr_slots = nslots;
}

/* This CPU now uses the copy of boot slot `slot`. */
void percpu_enter(int slot)
{
	arch_set_gs_base(slot_area[slot]);
}

/* Boot slot `slot` is online as logical CPU `cpu` with the given APIC id. */
void percpu_assign(int slot, int cpu, u32 apic_id)
{
	struct percpu_hdr *h = (struct percpu_hdr *)slot_area[slot];

	h->cpu = cpu;
	h->apic_id = apic_id;
	h->slub_off = (unsigned long)cpu * percpu_slub_stride;
	__per_cpu_offset[cpu] = h->offset;
}
