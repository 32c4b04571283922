/* SPDX-License-Identifier: MIT */
/*
 * Layout of the AP trampoline page, shared by arch/x86/boot/trampoline.asm and arch/x86/smpboot.c.
 * This file is the only definition: the Makefile turns each "#define TRAMP_*" line into a
 * NASM %define (build/gen/trampoline.inc), and smpboot.c checks its struct against it.
 * Keep it to plain "#define NAME value" lines.
 *
 * APs never write to the trampoline page: the BSP patches the three absolute addresses
 * in it (the GDT base and two far-jump targets) when it copies it, and the ticket counter
 * lives in kernel memory. Stores into a page of code would make QEMU's TCG throw away and
 * retranslate it on every AP, which costs tens of milliseconds of bring-up.
 */
#define TRAMP_PARAMS 0xf00  /* parameter block, offset in the page */
#define TRAMP_CR3 0xf00     /* u64: the kernel's PML4 (below 4 GiB) */
#define TRAMP_ENTRY 0xf08   /* u64: 64-bit C entry, void ap_entry(u32 ticket) */
#define TRAMP_STACKS 0xf10  /* u64: address of an array of stack tops, one per ticket */
#define TRAMP_TICKET 0xf18  /* u64: address of the u32 next ticket, taken with lock xadd */
#define TRAMP_NSTACKS 0xf20 /* u32: number of stacks; an AP with a ticket past it parks */
#define TRAMP_SEL_CODE32 0x08
#define TRAMP_SEL_DATA 0x10
#define TRAMP_SEL_CODE64 0x18
