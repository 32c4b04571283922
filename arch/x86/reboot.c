// SPDX-License-Identifier: MIT
/*
 * Leaving the machine (arch_exit): exit= chooses how.
 *
 *   (not given)  under a hypervisor QEMU's isa-debug-exit port (0xf4), which ends QEMU with
 *                status code * 2 + 1; on real hardware, where port 0xf4 may belong to
 *                something else, halt, so the screen can be read
 *   halt         every CPU halts, under a hypervisor too
 *   reboot       reset the machine, each way in turn until one works:
 *                  acpi    the FADT's reset register and value (ACPI 6.5, 4.8.3.6)
 *                  pci     the reset control register at port 0xcf9 of Intel's chipsets
 *                          (PIIX3 onwards; also QEMU's q35): a hard reset request (bit 1),
 *                          then bits 3-1 for a full reset, the way Linux's
 *                          arch/x86/kernel/reboot.c writes it
 *                  kbd     the keyboard controller's pulse of the reset line (command 0xfe to
 *                          port 0x64, once its input buffer is empty)
 *                  triple  an empty IDT and an int3: a triple fault, which resets the CPU
 *                reboot= starts the chain at one of them (Linux's reboot= names the same
 *                ones), to try them one by one
 *   poweroff     ACPI S5: SLP_TYPa and SLP_TYPb from \_S5 (the DSDT's or an SSDT's,
 *                arch/x86/acpi.c) into PM1a_CNT and PM1b_CNT, then SLP_EN (ACPI 6.5, 16.1.7
 *                "Transitioning from the Working to the Soft Off State"); ACPI mode is
 *                switched on first if the firmware left it off (SCI_EN clear: ACPI_ENABLE to
 *                SMI_CMD, 4.8.2.5). A hardware-reduced machine has no PM1 blocks: WAK_STS
 *                cleared in the sleep status register, then SLP_TYPa and SLP_EN in one write
 *                of the sleep control register (4.8.3.7), as ACPICA's hwesleep.c does. With
 *                no FADT, no such register or no usable \_S5 (acpi_poweroff_method says
 *                which), or a machine still running after the write, it says why and does
 *                what exit= not given does.
 * Each way is announced on the console before it is tried, and one that leaves the machine
 * running for about 100 ms is reported as not working. Other CPUs are stopped first
 * (NMI), so printing here takes no lock.
 */
#include "arch/x86/acpi.h"
#include "arch/x86/x86.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

#define ISA_DEBUG_EXIT_PORT 0xf4
#define PORT_RESET_CONTROL 0xcf9
#define PORT_KBD_STATUS 0x64
#define KBD_INPUT_FULL 0x02
#define KBD_CMD_RESET 0xfe
#define PM1_SCI_EN (1u << 0)
#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_TYP_MASK (7u << PM1_SLP_TYP_SHIFT)
#define PM1_SLP_EN (1u << 13)

static char exit_mode[16];
static const char *const exit_modes[] = { "halt", "reboot", "poweroff", NULL };
boot_param(exit, exit_mode, enum, exit_modes, "",
	   "how the kernel leaves the machine at the end: halt, reboot or poweroff (not given: "
	   "QEMU's isa-debug-exit under a hypervisor, halt on real hardware)");

static char reboot_from[16];
static const char *const reboot_ways[] = { "acpi", "pci", "kbd", "triple", NULL };
boot_param(reboot, reboot_from, enum, reboot_ways, "",
	   "exit=reboot: the first way to try, then the ones after it: acpi pci kbd triple");

const char *arch_exit_action(void)
{
	if (!strcmp(exit_mode, "reboot"))
		return "rebooting";
	if (!strcmp(exit_mode, "poweroff"))
		return "powering off";
	return "halting all CPUs";
}

/*
 * About n microseconds on a PC, without the TSC (arch_exit may run before it is calibrated):
 * a read of port 0x80, the POST code port nothing answers, takes about 1 us on the LPC bus.
 */
static void io_delay_us(unsigned int n)
{
	while (n--)
		(void)inb(0x80);
}

/* 32-bit accesses to PCI configuration space, mechanism 1 (PCI Local Bus 3.0, 3.2.2.3.2). */
static void pci_conf_write8(u32 dev, u32 fn, u32 off, u8 v)
{
	outl(0xcf8, 0x80000000u | dev << 11 | fn << 8 | (off & 0xfc));
	outb((u16)(0xcfc + (off & 3)), v);
}

/* One byte to the register g names; acpi_gas_writable(g) must have said yes. */
static void gas_write8(const struct acpi_gas *g, u8 v)
{
	switch (g->space) {
	case ACPI_GAS_IO:
		outb((u16)g->addr, v);
		break;
	case ACPI_GAS_MEMORY:
		*(volatile u8 *)(uptr)g->addr = v;
		mb();
		break;
	case ACPI_GAS_PCI:
		pci_conf_write8((u32)(g->addr >> 32) & 0x1f, (u32)(g->addr >> 16) & 7,
				(u32)g->addr & 0xff, v);
		break;
	}
}

static bool reboot_acpi(void)
{
	const struct acpi_gas *r = &acpi.reset_reg;
	char why[96];

	if (!acpi.have_reset_reg) {
		printk("reboot: %s; skipping the ACPI reset register\n",
		       !acpi.present  ? "no ACPI tables"
		       : !acpi.have_fadt ? "no FADT"
					 : "the FADT has no reset register (RESET_REG_SUP clear, or "
					   "an ACPI 1.0 FADT)");
		return false;
	}
	if (!acpi_gas_writable(r, why, sizeof(why))) {
		printk("reboot: the ACPI reset register is not one slablab can write (%s); skipping "
		       "it\n", why);
		return false;
	}
	printk("reboot: writing %#x to the ACPI reset register, ", acpi.reset_value);
	if (r->space == ACPI_GAS_IO)
		printk("I/O port %#llx\n", (unsigned long long)r->addr);
	else if (r->space == ACPI_GAS_MEMORY)
		printk("memory at %#llx\n", (unsigned long long)r->addr);
	else
		printk("PCI 00:%02llx.%llx offset %#llx\n", (unsigned long long)(r->addr >> 32 & 0x1f),
		       (unsigned long long)(r->addr >> 16 & 7), (unsigned long long)(r->addr & 0xff));
	gas_write8(r, acpi.reset_value);
	return true;
}

static bool reboot_pci(void)
{
	u8 v = inb(PORT_RESET_CONTROL) & (u8)~0x0e;

	printk("reboot: writing the reset control register, port %#x\n", PORT_RESET_CONTROL);
	outb(PORT_RESET_CONTROL, v | 0x02); /* hard reset, armed */
	io_delay_us(50);
	outb(PORT_RESET_CONTROL, v | 0x0e); /* full reset, go */
	return true;
}

static bool reboot_kbd(void)
{
	int i;

	printk("reboot: pulsing the reset line through the keyboard controller\n");
	for (i = 0; i < 100000 && (inb(PORT_KBD_STATUS) & KBD_INPUT_FULL); i++)
		io_delay_us(1);
	if (i == 100000) {
		printk("reboot: the keyboard controller's input buffer stays full (or there is "
		       "none); trying anyway\n");
	}
	outb(PORT_KBD_STATUS, KBD_CMD_RESET);
	return true;
}

static void __noreturn reboot_triple(void)
{
	static const struct desc_ptr no_idt = { 0, 0 };

	printk("reboot: triple fault (an empty IDT and int3)\n");
	lidt(&no_idt);
	__asm__ __volatile__("int3");
	for (;;)
		halt();
}

static void __noreturn machine_reboot(void)
{
	static const struct {
		const char *name;
		bool (*try)(void);
	} ways[] = { { "acpi", reboot_acpi }, { "pci", reboot_pci }, { "kbd", reboot_kbd } };
	unsigned int i = 0;

	if (reboot_from[0])
		while (i < ARRAY_SIZE(ways) && strcmp(ways[i].name, reboot_from))
			i++;
	for (; i < ARRAY_SIZE(ways); i++) {
		if (!ways[i].try())
			continue;
		io_delay_us(100000);
		printk("reboot: the machine is still running after '%s'\n", ways[i].name);
	}
	reboot_triple();
}

static void __noreturn halt_forever(void)
{
	for (;;)
		halt();
}

static void pm1_write_sleep(u16 port, u8 typ, bool enable)
{
	u16 v = inw(port) & (u16)~(PM1_SLP_TYP_MASK | PM1_SLP_EN);

	v |= (u16)(typ << PM1_SLP_TYP_SHIFT);
	if (enable)
		v |= PM1_SLP_EN;
	outw(port, v);
}

/* What arch_exit does when exit= is not given: QEMU's isa-debug-exit, or halt. */
static void __noreturn default_exit(int code)
{
	if (arch_hypervisor())
		outb(ISA_DEBUG_EXIT_PORT, (u8)code);
	halt_forever();
}

/* Hardware-reduced ACPI: WAK_STS cleared, then SLP_TYPa with SLP_EN (ACPI 6.5, 4.8.3.7). */
static void poweroff_sleep_control(void)
{
	const struct acpi_gas *c = &acpi.sleep_control, *st = &acpi.sleep_status;
	char why[96];

	if (st->addr && acpi_gas_writable(st, why, sizeof(why)))
		gas_write8(st, ACPI_SLEEP_WAK_STS); /* write 1 to clear */
	printk("poweroff: ACPI S5 (hardware-reduced), %#x (SLP_TYPa %u, SLP_EN) to the sleep "
	       "control register, %s %#llx (\\_S5 of the %s)\n",
	       acpi_sleep_control_value(acpi.slp_typa), acpi.slp_typa,
	       c->space == ACPI_GAS_IO ? "I/O port" : c->space == ACPI_GAS_MEMORY ? "memory at" : "PCI",
	       (unsigned long long)c->addr, acpi.s5_from);
	gas_write8(c, acpi_sleep_control_value(acpi.slp_typa));
	io_delay_us(100000);
	printk("poweroff: the machine is still running after the sleep control write; %s instead\n",
	       arch_hypervisor() ? "leaving through QEMU's isa-debug-exit" : "halting");
}

static void machine_poweroff(void)
{
	char why[160];
	enum acpi_poweroff how = acpi_poweroff_method(&acpi, why, sizeof(why));

	if (how == ACPI_POWEROFF_NONE) {
		printk("poweroff: %s; %s instead\n", why,
		       arch_hypervisor() ? "leaving through QEMU's isa-debug-exit" : "halting");
		return;
	}
	if (how == ACPI_POWEROFF_SLEEP_CONTROL) {
		poweroff_sleep_control();
		return;
	}
	if (!(inw(acpi.pm1a_cnt) & PM1_SCI_EN) && acpi.smi_cmd && acpi.acpi_enable) {
		int i;

		printk("poweroff: switching to ACPI mode (%#x to SMI_CMD %#x)\n", acpi.acpi_enable,
		       acpi.smi_cmd);
		outb((u16)acpi.smi_cmd, acpi.acpi_enable);
		for (i = 0; i < 3000 && !(inw(acpi.pm1a_cnt) & PM1_SCI_EN); i++)
			io_delay_us(1000);
		if (i == 3000)
			printk("poweroff: SCI_EN still clear after 3 s; trying anyway\n");
	}
	printk("poweroff: ACPI S5, SLP_TYPa %u to PM1a_CNT %#x", acpi.slp_typa, acpi.pm1a_cnt);
	if (acpi.pm1b_cnt)
		printk(", SLP_TYPb %u to PM1b_CNT %#x", acpi.slp_typb, acpi.pm1b_cnt);
	printk(" (\\_S5 of the %s)\n", acpi.s5_from);
	/* The sleep type first, then SLP_EN with it, as ACPICA's hwsleep.c does. */
	pm1_write_sleep(acpi.pm1a_cnt, acpi.slp_typa, false);
	if (acpi.pm1b_cnt)
		pm1_write_sleep(acpi.pm1b_cnt, acpi.slp_typb, false);
	pm1_write_sleep(acpi.pm1a_cnt, acpi.slp_typa, true);
	if (acpi.pm1b_cnt)
		pm1_write_sleep(acpi.pm1b_cnt, acpi.slp_typb, true);
	io_delay_us(100000);
	printk("poweroff: the machine is still running after the S5 write; %s instead\n",
	       arch_hypervisor() ? "leaving through QEMU's isa-debug-exit" : "halting");
}

void arch_exit(int code)
{
	irq_disable_raw();
	arch_stop_other_cpus();
	printk_panic_mode(); /* the others are stopped: no lock they might hold */
	if (!strcmp(exit_mode, "reboot"))
		machine_reboot();
	if (!strcmp(exit_mode, "poweroff"))
		machine_poweroff(); /* returns if it could not */
	if (!strcmp(exit_mode, "halt"))
		halt_forever();
	default_exit(code);
}
