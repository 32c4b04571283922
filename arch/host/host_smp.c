// SPDX-License-Identifier: MIT
/*
 * Threads as CPUs for the host builds of the SMP kernel code (cpu.h's HOST_SMP flavours):
 *
 * - CPU n is a thread. Its logical number and per-cpu offset are thread-local (host_cpu,
 *   host_percpu_off), read by smp_processor_id() and this_cpu_ptr() through arch/host/cpu.h.
 *   The per-cpu section ([__percpu_start, __percpu_end), gathered by arch/host/percpu.ld) is
 *   copied once per CPU past CPU 0, which runs on the section itself, as the boot CPU does
 *   before its copy exists; __per_cpu_offset[] holds each copy's distance.
 * - An IPI is a signal sent to the CPU's thread with pthread_kill: SIGUSR1 is the
 *   cross-call vector, SIGUSR2 the wake-up vector, SIGURG the vectors of kernel/smp.c's
 *   IPI handler table (which ones: bits in the target's handler_pending, set before the
 *   signal is sent). The signal handler is the interrupt entry: it brackets the kernel's
 *   handler with irq_enter/irq_exit and runs with all three signals blocked, i.e. with
 *   interrupts off.
 * - "Interrupts off": HOST_SMP=1 blocks the IPI signals (pthread_sigmask); HOST_SMP=2 sets
 *   a thread-local flag, and a signal that finds it set is recorded and run when the flag
 *   is cleared (host_irq_replay), so the benchmark's fastpath makes no system call.
 * - host_ipi=poll (HOST_SMP=2, host_ipi_poll set by tools/bench-host/suite.c): no signal;
 *   the sender sets the IPI's bit in the target's host_irq_pending, which the target takes
 *   when it enables interrupts, in cpu_relax() and when it halts (on a futex word).
 * - arch_idle ("sti; hlt") is ppoll with the IPI signals let in, atomically (sigsuspend's way),
 *   or a futex wait with host_ipi=poll; arch_idle_timeout the same, bounded.
 * - host_smp_pin: each CPU's thread binds itself to a core of its own before it runs.
 * - CPUs 1.. run the kernel's own cpu_idle_loop(), so kernel/smp.c's smp_run_on_cpus()
 *   gives them work and its cross-calls reach them; on_each_cpu() from slub.c works as in
 *   the kernel, on CPUs that are busy in the allocator or idle alike.
 * - RAM is an mmap'd arena at a fixed low address, virtual == "physical", because
 *   page_address() is pfn << 12 as in the kernel's direct map.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/host/host_smp.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/kallsyms.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"

#ifndef HOST_SMP
#error "host_smp.c is built with -DHOST_SMP=1 or 2 (see arch/host/cpu.h)"
#endif

#define SIG_CALL SIGUSR1
#define SIG_WAKE SIGUSR2
#define SIG_HANDLER SIGURG /* kernel/smp.c's IPI handlers (x86: VEC_IPI_HANDLER + slot) */
#define IPI_CALL 1u
#define IPI_WAKE 2u
#define IPI_HANDLER 4u

__thread int host_cpu;
__thread unsigned long host_percpu_off;
__thread struct host_fast_words host_fast_w;
_Static_assert(__builtin_offsetof(struct host_fast_words, pending) == 4 &&
		       __builtin_offsetof(struct host_fast_words, slub_off) == 8,
	       "arch/host/cpu.h's asm reaches pending at 4 and slub_off at 8");
static __thread unsigned long ipis_handled;

int host_ipi_poll;
bool host_smp_pin;

unsigned long __per_cpu_offset[NR_CPUS];
extern char __percpu_start[], __percpu_end[]; /* arch/host/percpu.ld */

static pthread_t cpu_thread[NR_CPUS];
static void *percpu_copy[NR_CPUS];
static sigset_t ipi_set; /* SIG_CALL, SIG_WAKE, SIG_HANDLER */
/* Per target CPU: bit n set = IPI handler slot n was sent and its signal not yet taken. */
static unsigned int handler_pending[NR_CPUS];

/*
 * host_ipi=poll (HOST_SMP=2 only): the sender sets the IPI's bit in the target's own
 * host_irq_pending (pending_of[]), the word a signal that finds interrupts off sets, and the
 * target takes it where it would take a recorded one: when it enables interrupts, in
 * cpu_relax() and when it halts. A halted CPU waits on its futex word, 1 while it sleeps.
 */
#if HOST_SMP == HOST_SMP_SOFT
static unsigned int *pending_of[NR_CPUS];
#endif
static struct {
	int halted;
	pid_t tid;
	unsigned long signals, posts, futex_wakes; /* sent by this CPU */
} __attribute__((aligned(64))) cpu_state[NR_CPUS];

static void die(const char *what)
{
	fprintf(stderr, "host_smp: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- interrupts ---- */

/* The interrupt entry: what arch/x86/traps.c does for the IPI vectors. */
static void run_ipis(unsigned int bits)
{
	irq_enter();
	if (bits & IPI_CALL)
		smp_call_function_interrupt();
	if (bits & IPI_WAKE)
		smp_wakeup_interrupt();
	if (bits & IPI_HANDLER) {
		unsigned int slots = __atomic_exchange_n(&handler_pending[host_cpu], 0,
							 __ATOMIC_ACQUIRE);

		for (unsigned int slot = 0; slots; slot++, slots >>= 1)
			if (slots & 1)
				smp_ipi_interrupt(slot);
	}
	irq_exit();
	ipis_handled++;
}

static void ipi_handler(int sig)
{
	unsigned int bit = sig == SIG_CALL ? IPI_CALL : sig == SIG_WAKE ? IPI_WAKE : IPI_HANDLER;
	int saved_errno = errno;

#if HOST_SMP == HOST_SMP_SIGMASK
	/* Both signals are blocked while this runs (sa_mask): interrupts are off. */
	int was_off = host_irq_off;

	host_irq_off = 1;
	run_ipis(bit);
	host_irq_off = was_off;
#else
	if (host_irq_off || host_irq_soft) {
		/* One instruction (lock or), so it cannot be torn by the replay's exchange. */
		__atomic_fetch_or(&host_irq_pending, bit, __ATOMIC_RELAXED);
	} else {
		host_irq_off = 1;
		__asm__ __volatile__("" ::: "memory");
		run_ipis(bit);
		__asm__ __volatile__("" ::: "memory");
		host_irq_off = 0;
	}
#endif
	errno = saved_errno;
}

#if HOST_SMP == HOST_SMP_SIGMASK

void host_irq_block(void)
{
	pthread_sigmask(SIG_BLOCK, &ipi_set, NULL);
	host_irq_off = 1;
}

void host_irq_unblock(void)
{
	host_irq_off = 0;
	pthread_sigmask(SIG_UNBLOCK, &ipi_set, NULL); /* a pending IPI is taken here */
}

void host_cpu_relax(void)
{
	sched_yield();
}

/*
 * sti; hlt: enable interrupts and wait for one, with no gap between the two; with ts, for
 * at most that long. ppoll swaps the signal mask as sigsuspend does (NULL ts: no limit).
 */
static void idle_wait(const struct timespec *ts)
{
	sigset_t wait;

	pthread_sigmask(SIG_BLOCK, &ipi_set, &wait);
	sigdelset(&wait, SIG_CALL);
	sigdelset(&wait, SIG_WAKE);
	sigdelset(&wait, SIG_HANDLER);
	host_irq_off = 0; /* true from the moment ppoll swaps the mask */
	ppoll(NULL, 0, ts, &wait);
	pthread_sigmask(SIG_UNBLOCK, &ipi_set, NULL);
}

#else /* HOST_SMP_SOFT */

void host_irq_replay(void)
{
	do {
		unsigned int bits;

		host_irq_off = 1;
		__asm__ __volatile__("" ::: "memory");
		/* Acquire: with host_ipi=poll the bits come from other CPUs (send_ipi). */
		bits = __atomic_exchange_n(&host_irq_pending, 0, __ATOMIC_ACQUIRE);
		if (bits)
			run_ipis(bits);
		__asm__ __volatile__("" ::: "memory");
		host_irq_off = 0;
		__asm__ __volatile__("" ::: "memory");
	} while (host_irq_pending);
}

/* The unmask found IPIs recorded: they run now if interrupts are on (the fastpath may have
 * been called with them off; then their local_irq_restore runs them). */
__attribute__((used)) static void replay_unmasked(void)
{
	if (!host_irq_off)
		host_irq_replay();
}

/*
 * arch_irq_soft_unmask's call (arch/host/cpu.h): replay_unmasked with every register kept
 * but the condition codes, as the kernel's arch_irq_soft_replay (no_caller_saved_registers)
 * keeps them, here the SSE registers too (fxsave64: every XMM register and MXCSR), since
 * the IPI handlers it runs may use them and the code around the unmask may keep values
 * there. The caller has stepped over the red zone; the stack is aligned to 16 bytes here,
 * as fxsave and the C call need.
 */
__asm__(".text\n"
	".globl host_irq_replay_saved\n"
	".type host_irq_replay_saved, @function\n"
	"host_irq_replay_saved:\n"
	"push %rbp\n"
	"mov %rsp, %rbp\n"
	"push %rax\n push %rcx\n push %rdx\n push %rsi\n push %rdi\n"
	"push %r8\n push %r9\n push %r10\n push %r11\n"
	"and $-16, %rsp\n"
	"sub $512, %rsp\n"
	"fxsave64 (%rsp)\n"
	"call replay_unmasked\n"
	"fxrstor64 (%rsp)\n"
	"lea -72(%rbp), %rsp\n"
	"pop %r11\n pop %r10\n pop %r9\n pop %r8\n"
	"pop %rdi\n pop %rsi\n pop %rdx\n pop %rcx\n pop %rax\n"
	"pop %rbp\n"
	"ret\n"
	".size host_irq_replay_saved, . - host_irq_replay_saved\n");

/* hlt with host_ipi=poll: interrupts on, then sleep on the futex word until a sender has
 * posted a bit (post_ipi clears the word before it wakes us, so no wake-up is lost), or
 * once for at most ts. */
static void idle_poll(const struct timespec *ts)
{
	int *w = &cpu_state[host_cpu].halted;

	__asm__ __volatile__("" ::: "memory");
	host_irq_off = 0;
	__atomic_store_n(w, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&host_irq_pending, __ATOMIC_SEQ_CST)) {
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 1, ts, NULL, 0);
		__atomic_store_n(w, 1, __ATOMIC_SEQ_CST);
		if (ts)
			break;
	}
	__atomic_store_n(w, 0, __ATOMIC_RELAXED);
	host_irq_replay();
}

/* sti; hlt, for at most ts if not NULL: a recorded IPI ends it at once. */
static void idle_wait(const struct timespec *ts)
{
	sigset_t old, wait;

	if (host_ipi_poll) {
		idle_poll(ts);
		return;
	}
	pthread_sigmask(SIG_BLOCK, &ipi_set, &old);
	host_irq_off = 0;
	if (host_irq_pending) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		host_irq_replay();
		return;
	}
	wait = old;
	sigdelset(&wait, SIG_CALL);
	sigdelset(&wait, SIG_WAKE);
	sigdelset(&wait, SIG_HANDLER);
	ppoll(NULL, 0, ts, &wait);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

#endif

void arch_idle(void)
{
	idle_wait(NULL);
}

/* arch_idle, woken at the latest after ns (kernel/rcu.c's waits look at the time). */
void arch_idle_timeout(u64 ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	idle_wait(&ts);
}

/* An IPI: the signal, or with host_ipi=poll the bit in the target's mailbox (and a futex
 * wake-up if it halts). Counted per sending CPU (host_ipi_counts). */
static void send_ipi(int cpu, int sig, unsigned int bit)
{
#if HOST_SMP == HOST_SMP_SOFT
	if (host_ipi_poll) {
		int *w = &cpu_state[cpu].halted;

		/* Seq-cst on both sides (idle_poll): the sleeper sees the bit, or we see it asleep. */
		__atomic_fetch_or(pending_of[cpu], bit, __ATOMIC_SEQ_CST);
		cpu_state[host_cpu].posts++;
		if (__atomic_load_n(w, __ATOMIC_SEQ_CST) && __atomic_exchange_n(w, 0, __ATOMIC_SEQ_CST)) {
			syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			cpu_state[host_cpu].futex_wakes++;
		}
		return;
	}
#else
	(void)bit;
#endif
	cpu_state[host_cpu].signals++;
	pthread_kill(cpu_thread[cpu], sig);
}

void arch_send_call_ipi(int cpu)
{
	send_ipi(cpu, SIG_CALL, IPI_CALL);
}

void arch_send_wakeup_ipi(int cpu)
{
	send_ipi(cpu, SIG_WAKE, IPI_WAKE);
}

void arch_send_ipi(int cpu, unsigned int slot)
{
	/* Release: what the sender did before is seen by the handler's acquire exchange. */
	__atomic_fetch_or(&handler_pending[cpu], 1u << slot, __ATOMIC_RELEASE);
	send_ipi(cpu, SIG_HANDLER, IPI_HANDLER);
}

void host_ipi_counts(int cpu, unsigned long *signals, unsigned long *posts,
		     unsigned long *futex_wakes)
{
	*signals = cpu_state[cpu].signals;
	*posts = cpu_state[cpu].posts;
	*futex_wakes = cpu_state[cpu].futex_wakes;
}

int host_cpu_tid(int cpu)
{
	return __atomic_load_n(&cpu_state[cpu].tid, __ATOMIC_ACQUIRE);
}

unsigned long host_ipis_handled(void)
{
	return ipis_handled;
}

/* ---- symbols for slub.c's bad-free reports (the binaries link with -rdynamic) ---- */

const char *kallsyms_lookup(u64 addr, u64 *offset)
{
	Dl_info info;

	if (!dladdr((void *)(uintptr_t)addr, &info) || !info.dli_sname)
		return NULL;
	*offset = addr - (u64)(uintptr_t)info.dli_saddr;
	return info.dli_sname;
}

/* ---- RAM ---- */

static unsigned long arena_pages;

void host_arena_init(unsigned long base, unsigned long size)
{
	unsigned long end_pfn = (base + size) >> PAGE_SHIFT;
	void *p = mmap((void *)base, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	struct page *map;

	if (p == MAP_FAILED || p != (void *)base) {
		fprintf(stderr, "host_smp: cannot map the arena at %#lx (%lu MiB): %s\n", base,
			size >> 20, p == MAP_FAILED ? strerror(errno) : "kernel chose another address");
		exit(2);
	}
	map = calloc(end_pfn, sizeof(*map));
	if (!map)
		die("calloc mem_map");
	page_alloc_setup(map, end_pfn);
	page_alloc_add_range(base >> PAGE_SHIFT, end_pfn);
	arena_pages = size >> PAGE_SHIFT;
}

unsigned long host_arena_pages(void)
{
	return arena_pages;
}

/* ---- CPUs ---- */

static void become_cpu(int cpu)
{
	host_cpu = cpu;
	host_percpu_off = __per_cpu_offset[cpu];
#if HOST_SMP == HOST_SMP_SOFT
	pending_of[cpu] = &host_irq_pending;
#endif
	if (host_smp_pin)
		host_pin_to_core(cpu);
	__atomic_store_n(&cpu_state[cpu].tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	host_slub_off = (unsigned long)cpu * percpu_slub_stride;
}

static void *cpu_main(void *arg)
{
	become_cpu((int)(uintptr_t)arg);
	/* Started with the signals blocked (inherited): interrupts are off, as on an AP. */
#if HOST_SMP == HOST_SMP_SIGMASK
	host_irq_off = 1;
#else
	host_irq_off = 1;
	pthread_sigmask(SIG_UNBLOCK, &ipi_set, NULL); /* the soft flag masks from here on */
#endif
	cpu_idle_loop();
}

void host_smp_init(int ncpus)
{
	unsigned long size = (unsigned long)(__percpu_end - __percpu_start);
	struct sigaction sa;
	sigset_t old;

	if (ncpus < 1 || ncpus > NR_CPUS) {
		fprintf(stderr, "host_smp: %d CPUs?\n", ncpus);
		exit(2);
	}
#if HOST_SMP != HOST_SMP_SOFT
	if (host_ipi_poll) {
		fprintf(stderr, "host_smp: host_ipi=poll needs the HOST_SMP=2 build\n");
		exit(2);
	}
#endif
	host_nr_cores(); /* remember the allowed cores before anyone is pinned */
	cmdline_defaults();
	nr_cpu_ids = ncpus;
	nr_cpus_found = ncpus;
	cpu_thread[0] = pthread_self();
	__per_cpu_offset[0] = 0;
	for (int cpu = 1; cpu < ncpus; cpu++) {
		percpu_copy[cpu] = aligned_alloc(64, ALIGN_UP(size, 64UL) + 64);
		if (!percpu_copy[cpu])
			die("aligned_alloc per-cpu area");
		memcpy(percpu_copy[cpu], __percpu_start, size);
		__per_cpu_offset[cpu] = (uintptr_t)percpu_copy[cpu] - (uintptr_t)__percpu_start;
	}
	become_cpu(0);

	sigemptyset(&ipi_set);
	sigaddset(&ipi_set, SIG_CALL);
	sigaddset(&ipi_set, SIG_WAKE);
	sigaddset(&ipi_set, SIG_HANDLER);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ipi_handler;
	sa.sa_mask = ipi_set;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIG_CALL, &sa, NULL) || sigaction(SIG_WAKE, &sa, NULL) ||
	    sigaction(SIG_HANDLER, &sa, NULL))
		die("sigaction");

	smp_init(); /* the cross-call queues */

	pthread_sigmask(SIG_BLOCK, &ipi_set, &old);
	for (int cpu = 1; cpu < ncpus; cpu++) {
		int err = pthread_create(&cpu_thread[cpu], NULL, cpu_main, (void *)(uintptr_t)cpu);

		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	/* Every CPU has its mailbox and thread id (become_cpu) before anyone sends it an IPI. */
	for (int cpu = 1; cpu < ncpus; cpu++)
		while (!host_cpu_tid(cpu))
			sched_yield();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void host_run_on_cpus(int n, void (*fn)(void *arg), void *arg)
{
	struct cpumask mask;

	cpumask_clear(&mask);
	for (int cpu = 0; cpu < n && cpu < nr_cpu_ids; cpu++)
		cpumask_set_cpu(cpu, &mask);
	smp_run_on_cpus(&mask, fn, arg);
}

static pthread_mutex_t barrier_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t barrier_cond = PTHREAD_COND_INITIALIZER;
static int barrier_count;
static unsigned long barrier_generation;

void host_cpu_barrier(int n)
{
	unsigned long gen;

	pthread_mutex_lock(&barrier_lock);
	gen = barrier_generation;
	if (++barrier_count == n) {
		barrier_count = 0;
		barrier_generation++;
		pthread_cond_broadcast(&barrier_cond);
	} else {
		while (gen == barrier_generation)
			pthread_cond_wait(&barrier_cond, &barrier_lock);
	}
	pthread_mutex_unlock(&barrier_lock);
}

static cpu_set_t allowed_cores; /* as the process started, before anyone was pinned */
static int allowed_cores_known;

int host_nr_cores(void)
{
	if (!allowed_cores_known) {
		if (sched_getaffinity(0, sizeof(allowed_cores), &allowed_cores))
			return 1;
		allowed_cores_known = 1;
	}
	return CPU_COUNT(&allowed_cores) ? CPU_COUNT(&allowed_cores) : 1;
}

void host_pin_to_core(int k)
{
	cpu_set_t one;
	int n = host_nr_cores(), seen = 0;

	if (!allowed_cores_known)
		return;
	k %= n;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &allowed_cores))
			continue;
		if (seen++ == k) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			sched_setaffinity(0, sizeof(one), &one);
			return;
		}
	}
}
