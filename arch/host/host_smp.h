/* SPDX-License-Identifier: MIT */
/*
 * Threads as CPUs, IPIs as signals, and RAM as a fixed arena: what arch/host/host_smp.c
 * gives the host builds of the SMP kernel code (tests/host/test_slab*.c, tools/bench-host/).
 * See docs/host-build.md.
 */
#ifndef SLABLAB_HOST_SMP_H
#define SLABLAB_HOST_SMP_H

#include <stdbool.h>
#include <stddef.h>

/* Where the page allocator's RAM lives: virtual == "physical", as the kernel's direct map. */
#define HOST_ARENA_BASE 0x40000000UL

/*
 * mmap size bytes at base (MAP_FIXED_NOREPLACE, so nothing already there is replaced),
 * give the page allocator a page array covering pfn 0 .. (base + size) / 4096 and hand it
 * the arena's pages. Exits with a message if the range cannot be had.
 */
void host_arena_init(unsigned long base, unsigned long size);
unsigned long host_arena_pages(void); /* pages handed to the page allocator */

/*
 * nr_cpu_ids = ncpus. The calling thread becomes CPU 0; ncpus - 1 threads are started as
 * CPUs 1.. and wait in the kernel's cpu_idle_loop() for work (smp_run_on_cpus) and
 * cross-calls. Call after host_arena_init (kernel/smp.c's queues come from the page
 * allocator). Also sets every boot option to its default (cmdline_defaults()).
 */
void host_smp_init(int ncpus);

/* smp_run_on_cpus() on CPUs 0..n-1, from CPU 0 (the thread that called host_smp_init). */
void host_run_on_cpus(int n, void (*fn)(void *arg), void *arg);

/* A barrier for the n CPUs that host_run_on_cpus(n, ...) runs: all leave it together.
 * Waiting in it, a CPU still answers IPIs (as a kernel CPU spinning with interrupts on). */
void host_cpu_barrier(int n);

/* Bind the calling thread to the k-th CPU the process may run on (k modulo their number). */
void host_pin_to_core(int k);
int host_nr_cores(void); /* cores the process may run on */

/* IPI signals this thread's handler took (both kinds), for tests. */
unsigned long host_ipis_handled(void);

/*
 * Set before host_smp_init: each CPU's thread binds itself to its own core
 * (host_pin_to_core(cpu)) before it runs anything; host_ipi_poll = 1 (HOST_SMP=2 only):
 * IPIs are bits posted to the target's mailbox, taken where it enables interrupts, in
 * cpu_relax() and when it halts (on a futex), instead of signals.
 */
extern bool host_smp_pin;
extern int host_ipi_poll;

/* What CPU cpu sent: IPI signals, mailbox posts (host_ipi=poll), futex wake-ups among them. */
void host_ipi_counts(int cpu, unsigned long *signals, unsigned long *posts,
		     unsigned long *futex_wakes);
/* The Linux thread id of CPU cpu's thread (for sched_getaffinity, /proc). */
int host_cpu_tid(int cpu);

#endif
