// SPDX-License-Identifier: MIT
/*
 * Bringing up the APs. Boot slots are the CPUs we try to start: slot 0 is the BSP, then the
 * MADT's other enabled CPUs in table order but the one ap_skip= names, at most cpus= of them
 * in all (so cpus=N ap_skip=ID starts N CPUs when the MADT has N + 1). Every slot gets a
 * per-cpu copy, and every AP a stack, before any AP runs.
 *
 *   smp_boot_begin():  copy the trampoline to a free page below 1 MiB, fill its parameter
 *                      block, send INIT to every AP slot. The 10 ms the INITs want before
 *                      the SIPIs is spent calibrating the TSC (tsc_init()).
 *   smp_boot_finish(): SIPI every slot, 200 us later SIPI those not yet arrived, start the
 *                      page allocator (the APs need a while under emulation), then wait
 *                      at most ap_timeout_ms for the rest. An AP arrives by moving its slot
 *                      from WAITING to ARRIVED with compare-and-swap; at the deadline the BSP
 *                      moves every slot still WAITING to GAVE_UP the same way, so an AP that
 *                      is late finds GAVE_UP and parks for good. Arrived slots get logical
 *                      numbers 1, 2, ... in slot order (deterministic, dense), and are
 *                      released; each AP then sets up its tables and reports ONLINE.
 */
#include "arch/x86/acpi.h"
#include "arch/x86/apic.h"
#include "arch/x86/trampoline.h"
#include "arch/x86/traps.h"
#include "arch/x86/x86.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/page_alloc.h"

enum slot_state { SLOT_WAITING, SLOT_ARRIVED, SLOT_ONLINE, SLOT_GAVE_UP };

struct boot_slot {
	u32 apic_id;
	int state; /* enum slot_state, changed with compare-and-swap */
	int cpu;   /* logical number once released */
};

struct tramp_params {
	u64 cr3;
	u64 entry;
	u64 stacks;
	u64 ticket;
	u32 nstacks;
};
_Static_assert(offsetof(struct tramp_params, cr3) == TRAMP_CR3 - TRAMP_PARAMS, "trampoline.h");
_Static_assert(offsetof(struct tramp_params, entry) == TRAMP_ENTRY - TRAMP_PARAMS, "trampoline.h");
_Static_assert(offsetof(struct tramp_params, stacks) == TRAMP_STACKS - TRAMP_PARAMS, "trampoline.h");
_Static_assert(offsetof(struct tramp_params, ticket) == TRAMP_TICKET - TRAMP_PARAMS, "trampoline.h");
_Static_assert(offsetof(struct tramp_params, nstacks) == TRAMP_NSTACKS - TRAMP_PARAMS, "trampoline.h");

extern const char trampoline_start[], trampoline_end[];
extern const char tr_gdtr[], tr_jmp32[], tr_jmp64[], tr_pm32[], tr_lm64[], tr_gdt[];
extern u64 boot_pml4[];
void screen_pat_init_cpu(void); /* arch/x86/screen.c */

static struct boot_slot slots[NR_CPUS];
static int nr_slots;
static u64 tramp_page;
static u64 *ap_stacks;
/* LAB2: BEGIN */
static u64 init_sent_tsc;
/* LAB2: END */
static u32 ap_ticket;
static volatile int released; /* APs may go on past their arrival */
u64 boot_aps_online_tsc;
int nr_cpus_gave_up;
int nr_cpus_skipped;
int nr_cpus_unreachable;
int nr_cpus_tried = 1;

/* Boot options (docs/options.md's table). */
unsigned int setup_max_cpus;
long ap_skip;
static unsigned int ap_timeout_ms;
boot_param(cpus, setup_max_cpus, uint, (1, NR_CPUS), 0, "use at most N CPUs");
boot_param(ap_timeout_ms, ap_timeout_ms, uint, (1, 60000), 5000,
	   "how long to wait for the other CPUs to start, in ms");
unsigned int observer_clock_on;
boot_param(observer_clock, observer_clock_on, uint, (0, 1), 0,
	   "1: PIT channel 0 ticks every 10 us while the APs start and in ipi_rtt (lab 2's grader)");
boot_param(ap_skip, ap_skip, uint, (0, 0xffffffffULL), -1,
	   "do not start the CPU with this APIC id (tests the missing-CPU path)");

/* ap_skip= names no CPU that could be left out: say which ones could, and stop. */
static void __noreturn bad_ap_skip(u32 me)
{
	int n = 0;

	if (ap_skip == (long)me) {
		printk("smp: ap_skip=%ld names the boot CPU (APIC id %u), which runs the kernel and "
		       "cannot be left out\n", ap_skip, me);
	} else {
		printk("smp: ap_skip=%ld: no enabled CPU with APIC id %ld in the ACPI MADT; the "
		       "other CPUs' APIC ids:", ap_skip, ap_skip);
		for (int i = 0; i < acpi.nr_cpus; i++) {
			if (acpi.cpus[i].apic_id == me)
				continue;
			if (n++ == 32) {
				printk(" ...");
				break;
			}
			printk(" %u", acpi.cpus[i].apic_id);
		}
		printk("%s\n", n ? "" : " none");
	}
	kernel_exit(KEXIT_FAIL);
}

/*
 * Slots: the BSP first, then the MADT's other CPUs in order, but the one ap_skip= names (it
 * does not count against cpus=), at most max_cpus in all.
 */
int smp_prepare(unsigned int max_cpus)
{
	u32 me = apic_id();
	bool skip_found = false, me_found = false;

	slots[0].apic_id = me;
	nr_slots = 1;
	nr_cpus_found = acpi.nr_cpus ? acpi.nr_cpus : 1;
	for (int i = 0; i < acpi.nr_cpus; i++) {
		if (acpi.cpus[i].apic_id == me) {
			me_found = true;
			continue;
		}
		if ((long)acpi.cpus[i].apic_id == ap_skip) {
			skip_found = true;
			nr_cpus_skipped++;
			printk("smp: not starting the CPU with APIC id %u (ap_skip=)\n",
			       acpi.cpus[i].apic_id);
			continue;
		}
		if (!x2apic_mode && apic_id_needs_x2apic(acpi.cpus[i].apic_id)) {
			nr_cpus_unreachable++;
			continue;
		}
		if (max_cpus && (unsigned)nr_slots >= max_cpus)
			continue; /* full, but ap_skip='s CPU may come later in the table */
		slots[nr_slots].apic_id = acpi.cpus[i].apic_id;
		slots[nr_slots].state = SLOT_WAITING;
		nr_slots++;
	}
	if (acpi.nr_cpus && !me_found)
		printk("smp: the boot CPU (APIC id %u) is not in the MADT\n", me);
	if (ap_skip >= 0 && !skip_found)
		bad_ap_skip(me); /* also when it names the boot CPU */
	nr_cpus_tried = nr_slots;
	if (acpi.nr_ignored)
		printk("smp: %d more CPUs than slablab's limit of %d are left out\n", acpi.nr_ignored,
		       NR_CPUS);
	if (nr_cpus_unreachable)
		printk("smp: %d CPUs with APIC ids above 254 are left out: they need x2APIC mode (%s)\n",
		       nr_cpus_unreachable,
		       apic_has_x2apic() ? "x2apic=off chose xAPIC" : "this CPU has no x2APIC");
	return nr_slots;
}

/* In the copy of the trampoline, store at `where` the address the copy has for `what`. */
static void patch32(const char *where, const char *what)
{
	u32 v = (u32)(tramp_page + (u64)(what - trampoline_start));

	memcpy((void *)(tramp_page + (u64)(where - trampoline_start)), &v, 4);
}

void smp_boot_begin(void)
{
	struct tramp_params *tp;
	size_t code = (size_t)(trampoline_end - trampoline_start);

	if (nr_slots == 1)
		return;
	tramp_page = early_alloc_low_page();
	if (!tramp_page) {
		printk("smp: no free page below 1 MiB for the AP trampoline; running on one CPU\n");
		nr_slots = 1;
		return;
	}
	ap_stacks = early_alloc(sizeof(u64) * (size_t)nr_slots, 8);
	for (int i = 0; i < nr_slots - 1; i++)
		ap_stacks[i] = (u64)(uptr)early_alloc(KERNEL_STACK_SIZE, PAGE_SIZE) + KERNEL_STACK_SIZE;
	memcpy((void *)tramp_page, trampoline_start, code);
	patch32(tr_gdtr + 2, tr_gdt);
	patch32(tr_jmp32, tr_pm32);
	patch32(tr_jmp64, tr_lm64);
	tp = (struct tramp_params *)(tramp_page + TRAMP_PARAMS);
	tp->cr3 = (u64)(uptr)boot_pml4;
	tp->entry = (u64)(uptr)ap_entry;
	tp->stacks = (u64)(uptr)ap_stacks;
	tp->ticket = (u64)(uptr)&ap_ticket;
	tp->nstacks = (u32)(nr_slots - 1);
	mb();
	/* LAB2: BEGIN */
	for (int i = 1; i < nr_slots; i++)
		apic_send_init(slots[i].apic_id);
	init_sent_tsc = rdtsc();
	/* LAB2: END */
}

static int slot_state(int i)
{
	return __atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE);
}

static int count_state(int state)
{
	int n = 0;

	for (int i = 1; i < nr_slots; i++)
		n += slot_state(i) == state;
	return n;
}

void smp_boot_finish(void)
{
	u64 deadline;
	int next_cpu = 1;

	nr_cpu_ids = 1;
	percpu_assign(0, 0, slots[0].apic_id);
	if (nr_slots == 1) {
		page_alloc_init();
		goto done;
	}
	/* LAB2: BEGIN */
	/* The INIT wants 10 ms before the SIPI (Intel SDM, MP initialisation). */
	while (rdtsc() - init_sent_tsc < ns_to_cycles(10000000))
		cpu_relax();
	for (int i = 1; i < nr_slots; i++)
		if (slot_state(i) == SLOT_WAITING)
			apic_send_sipi(slots[i].apic_id, (u8)(tramp_page >> 12));
	udelay(200);
	for (int i = 1; i < nr_slots; i++)
		if (slot_state(i) == SLOT_WAITING)
			apic_send_sipi(slots[i].apic_id, (u8)(tramp_page >> 12));
	/* LAB2: END */
	page_alloc_init(); /* useful work while the APs come up */
	deadline = rdtsc() + ns_to_cycles((u64)ap_timeout_ms * 1000000);
	while (count_state(SLOT_WAITING) && rdtsc() < deadline)
		cpu_relax();
	for (int i = 1; i < nr_slots; i++) {
		int expect = SLOT_WAITING;

		if (__atomic_compare_exchange_n(&slots[i].state, &expect, SLOT_GAVE_UP, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			nr_cpus_gave_up++;
			printk("smp: CPU with APIC id %u did not answer within %u ms; left out\n",
			       slots[i].apic_id, ap_timeout_ms);
		}
	}
	for (int i = 1; i < nr_slots; i++) {
		if (slot_state(i) != SLOT_ARRIVED)
			continue;
		slots[i].cpu = next_cpu;
		percpu_assign(i, next_cpu, slots[i].apic_id);
		next_cpu++;
	}
	nr_cpu_ids = next_cpu;
done:
	smp_init();
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	for (int i = 1; i < nr_slots; i++) /* they wait in hlt: wake them */
		if (slot_state(i) == SLOT_ARRIVED)
			apic_send_ipi(slots[i].apic_id, VEC_WAKEUP);
	/* Released APs report ONLINE quickly; a bounded wait all the same. */
	deadline = rdtsc() + ns_to_cycles((u64)ap_timeout_ms * 1000000);
	while (count_state(SLOT_ARRIVED) && rdtsc() < deadline)
		cpu_relax();
	if (count_state(SLOT_ARRIVED))
		panic("smp: %d CPUs arrived but did not finish coming online",
		      count_state(SLOT_ARRIVED));
	boot_aps_online_tsc = rdtsc();
}

static void __noreturn park(void)
{
	for (;;) {
		irq_disable_raw();
		halt();
	}
}

/* Each AP, from the trampoline, on the stack of its ticket. */
void __noreturn ap_entry(u32 ticket)
{
	int slot = -1, expect = SLOT_WAITING;
	u32 id;

	apic_init_cpu();
	id = apic_id();
	for (int i = 1; i < nr_slots; i++)
		if (slots[i].apic_id == id)
			slot = i;
	if (slot < 0)
		park(); /* nobody asked this CPU to start */
	percpu_enter(slot);
	cpu_tables_init();
	screen_pat_init_cpu(); /* the BSP's PAT: the framebuffer's write-combining entry */
	if (!__atomic_compare_exchange_n(&slots[slot].state, &expect, SLOT_ARRIVED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		park(); /* too late: the BSP gave up on us and went on without */
	/*
	 * Wait in hlt, not in a spin: under emulation hundreds of spinning vCPUs would take the
	 * host's cores from the ones still starting. The BSP's wake-up IPI ends the wait; sti;hlt
	 * cannot miss it.
	 */
	for (;;) {
		irq_disable_raw();
		if (__atomic_load_n(&released, __ATOMIC_ACQUIRE))
			break;
		safe_halt();
	}
	__atomic_store_n(&slots[slot].state, SLOT_ONLINE, __ATOMIC_RELEASE);
	cpu_idle_loop();
}
