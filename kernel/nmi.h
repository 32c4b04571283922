/* SPDX-License-Identifier: MIT */
/*
 * NMIs, sent on purpose and taken when they come unasked (kernel/nmi.c; docs/nmi.md).
 *
 * slablab owns the machine, so it can do what a kernel on a user's PC cannot: interrupt a
 * chosen CPU at a chosen place with an interrupt nothing can mask. This is how the nolock
 * allocator calls are tested: a probe sends NMIs to one CPU until one lands in a given range
 * of code (a function, by the kernel's symbols), and runs a callback there, in NMI context.
 *
 *	struct nmi_probe p = { .fn = in_fastpath, .arg = &state };
 *	nmi_code_range(slab_alloc_fastpath, &p.start, &p.end);
 *	if (nmi_probe_cpu(2, &p, 1, 2000000000ULL) == 0)
 *		... in_fastpath ran once on cpu 2 in NMI context, with the RIP inside it ...
 *
 * What NMI context may do (the callbacks of probes and handlers): read and write memory, use
 * per-cpu data, atomics, printk (kept in a per-cpu buffer and printed by irq_work once the
 * CPU takes interrupts again: no console lock is taken in an NMI) and irq_work_queue(). It
 * may not take a lock the interrupted code may hold (spin_lock), turn interrupts on, send an
 * IPI to another CPU, call call_rcu or synchronize_rcu, or wait for another CPU. Readers may
 * use rcu_read_lock() (kernel/rcu.h).
 *
 * Nesting: the CPU holds a second NMI back until the first one's IRET. slablab's handler
 * executes no IRET of its own (interrupts stay off, every exception is fatal), takes NMIs
 * on the stack it interrupts (no IST stack whose frame a nested NMI would overwrite) and,
 * should an NMI arrive inside the handler all the same (an IRET ran: nmi_iret_for_test(), or
 * a callback that turned interrupts on), only latches it: the outer handler runs once more
 * before it returns. No callback ever runs nested in another.
 */
#ifndef SLABLAB_NMI_H
#define SLABLAB_NMI_H

#include "kernel/arch.h"
#include "kernel/types.h"

#define in_nmi() arch_in_nmi()

/* The interrupted context, as the NMI found it. */
struct nmi_frame {
	u64 ip, sp, bp, flags;
	int cpu;
	u32 soft_mask; /* the interrupted code's soft interrupt mask word (kernel/irqflags.h):
			* non-zero while it was inside a section interrupts must not enter */
};

/*
 * A probe: NMIs sent to one CPU until they find it where wanted. The target's NMI handler
 * counts every landing while the probe is armed; when the interrupted RIP is in [start, end)
 * (both 0: anywhere) it calls fn(frame, arg) in NMI context, and fn's true counts a hit (fn
 * may look at more than the RIP, e.g. whether a lock is held, and say no).
 */
struct nmi_probe {
	u64 start, end;
	bool (*fn)(const struct nmi_frame *f, void *arg);
	void *arg;
	/* results: sent by the sender; the rest by the target's NMI handler */
	u64 sent, landed, in_range, hits;
	u64 last_ip; /* the interrupted RIP of the last landing */
};

/*
 * Send NMIs to cpu (not this one), one at a time, each waited for (at most 50 ms) and then a
 * pause (at least NMI_PROBE_GAP_NS, random, longer while they keep landing at one RIP) in
 * which the target runs on, until p has `hits` hits or timeout_ns has passed. Returns 0 when
 * it has them, -1 for a bad cpu or a call from NMI context, -2 when another probe is armed
 * on cpu, -3 on timeout (p's counts say what happened). When it returns, p's fn is not
 * running and will not run.
 */
int nmi_probe_cpu(int cpu, struct nmi_probe *p, u64 hits, u64 timeout_ns);
#define NMI_PROBE_GAP_NS 10000ULL

/* [start, end) of the function that contains fn (the kernel's symbols); false: not in text. */
bool nmi_code_range(const void *fn, u64 *start, u64 *end);
/* The same by the function's name; false if the kernel has no such function. */
bool nmi_code_range_by_name(const char *name, u64 *start, u64 *end);

/*
 * Handlers for every NMI, e.g. a watchdog's: fn(frame, arg) runs on each NMI any CPU takes
 * and returns true if the NMI was its own. At most NMI_MAX_HANDLERS at a time; register
 * returns 0, or -1 when they are all taken. Unregister returns once no CPU runs fn any more
 * (synchronize_rcu: the NMI handler reads the table inside rcu_read_lock).
 */
#define NMI_MAX_HANDLERS 4
struct nmi_handler {
	const char *name;
	bool (*fn)(const struct nmi_frame *f, void *arg);
	void *arg;
	u64 claimed; /* NMIs fn said were its own */
};
int nmi_handler_register(struct nmi_handler *h);
void nmi_handler_unregister(struct nmi_handler *h);

/*
 * Count, on every CPU, the NMIs that land in [start, end) (a global window; 0, 0: none). The
 * counts are nmi_stats.watch_hits.
 */
void nmi_watch_range(u64 start, u64 end);

/* One NMI to cpu (this one too), slablab's own; false when one of slablab's is on its way
 * there already (not yet taken), which then serves: none is sent. */
bool nmi_send(int cpu);
void nmi_send_unasked(int cpu); /* one NMI that slablab does not count as its own, as a
				 * watchdog or a front-panel button sends: for tests */

struct nmi_stats {
	u64 sent;        /* NMIs slablab sent this cpu (nmi_send) */
	u64 received;    /* NMIs this cpu's handler ran for (coalesced ones count once) */
	u64 ours;        /* of them, slablab's (kernel/nmi.c says how it tells) */
	u64 kicks;       /* spinlock wake-ups (kernel/spinlock.c's halted waiters) */
	u64 probe_landed, probe_in_range, probe_hits; /* while a probe was armed on this cpu */
	u64 handled;     /* claimed by a registered handler */
	u64 unknown;     /* claimed by nothing: reported (rate-limited), counted, the cpu goes on */
	u64 watch_hits;  /* landed in nmi_watch_range()'s window */
	u64 latched;     /* arrived inside the handler (after an IRET there) and were run after it */
	u64 irqs_turned_on; /* callbacks that returned with interrupts on (turned off again) */
};
void nmi_stats_get(int cpu, struct nmi_stats *out);

/*
 * The arch's NMI entry calls this for every NMI, interrupts off, on the interrupted stack,
 * once it has dealt with what only it knows (x86: the halt window, stopping for a panic).
 */
void nmi_entry(const struct nmi_frame *f);

/*
 * In NMI context: could the interrupted code have taken an ordinary interrupt where it was
 * (interrupts on, and not held back by the soft mask)? Then it was inside no section that
 * an interrupt handler must stay out of, and per-cpu state that only such sections change
 * is consistent (mm/slub_nolock.c). false outside NMI context.
 */
bool nmi_interrupted_irqs_on(void);

/* Tests: run an IRET inside the NMI handler, as an exception's return would (x86 only). */
void nmi_iret_for_test(void);

#endif
