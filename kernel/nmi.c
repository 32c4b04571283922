// SPDX-License-Identifier: MIT
/*
 * NMIs: the arch-neutral half of the handler, probes, registered handlers and statistics
 * (kernel/nmi.h; docs/nmi.md). The arch's entry (arch/x86/traps.c) calls nmi_entry() for
 * every NMI once it has handled what only it knows.
 *
 * Whose NMI is it? NMIs carry no vector or payload, and two sent before the first is taken
 * arrive as one. So every reason is state the handler looks at. slablab keeps at most one
 * NMI of its own outstanding per target: nmi_send() sets the target's `outstanding` from 0
 * to 1 and only then sends (when it is 1 already, the NMI on its way will do, and none is
 * sent); the handler's exchange of it back to 0 says the NMI is slablab's. With no two of
 * slablab's NMIs ever pending at one CPU, none coalesce with each other, and the count is
 * exact. A spinlock kick, an armed probe and a registered handler that says yes claim an
 * NMI too. One that nothing claims came from outside (a watchdog, a front-panel button, a
 * parity or bus error): it is reported with what the arch can tell about its source,
 * counted, and the CPU goes on. (An outside NMI that arrives between a sender's exchange
 * and its send is taken for slablab's, and slablab's then for an outside one.)
 */
#include "kernel/irq_work.h"
#include "kernel/kallsyms.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/random.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"

#define NMI_UNKNOWN_REPORTS 8 /* per cpu; after that unknown NMIs are only counted */
#define NMI_WAIT_ONE_NS 50000000ULL /* a probe's wait for one NMI to be taken */

struct nmi_cpu {
	struct nmi_stats stats; /* written by this cpu's NMI handler only */
	u32 outstanding;        /* 1: an NMI of slablab's is on its way here (above) */
	u64 sent;               /* NMIs slablab sent here (atomic, any cpu) */
	u64 passes;             /* handler passes finished (a probe's sender waits on it) */
	struct nmi_probe *probe; /* armed probe (compare-and-swap by the sender) */
	int probe_busy;         /* the handler is looking at probe */
	u32 latched;            /* an NMI arrived inside the handler: run it again */
	const struct nmi_frame *frame; /* the NMI being handled (nmi_interrupted_irqs_on) */
	struct irq_work printk_work;
};

static void printk_work_fn(struct irq_work *w)
{
	printk_nmi_flush();
}

static DEFINE_PER_CPU(struct nmi_cpu, nmi_cpu) = {
	.printk_work = IRQ_WORK_INIT(printk_work_fn),
};
static struct nmi_handler *nmi_handlers[NMI_MAX_HANDLERS];
static u64 watch_start, watch_end;

static bool in_range(u64 ip, u64 start, u64 end)
{
	return (!start && !end) || (ip >= start && ip < end);
}

/*
 * A callback must leave interrupts off: one turned on lets an interrupt in, and its IRET
 * unblocks NMIs. Turn them off again and say which callback it was.
 */
static void check_irqs(struct nmi_cpu *nc, const char *what, const void *fn)
{
	u64 off;
	const char *name;

	if (irqs_disabled())
		return;
	local_irq_disable();
	nc->stats.irqs_turned_on++;
	name = kallsyms_lookup((u64)(uptr)fn, &off);
	printk("nmi: %s %s on cpu %d returned with interrupts on; turned off again (NMI "
	       "callbacks must leave them off)\n", what, name ? name : "?", smp_processor_id());
}

static bool run_probe(struct nmi_cpu *nc, const struct nmi_frame *f)
{
	struct nmi_probe *p;
	bool hit = false;

	/* Dekker with nmi_probe_cpu's disarm: busy before the look, the sender's NULL before
	 * its look at busy; one of the two sees the other. */
	__atomic_store_n(&nc->probe_busy, 1, __ATOMIC_SEQ_CST);
	p = __atomic_load_n(&nc->probe, __ATOMIC_SEQ_CST);
	if (!p) {
		__atomic_store_n(&nc->probe_busy, 0, __ATOMIC_RELEASE);
		return false;
	}
	nc->stats.probe_landed++;
	WRITE_ONCE(p->landed, p->landed + 1);
	WRITE_ONCE(p->last_ip, f->ip);
	if (in_range(f->ip, p->start, p->end)) {
		nc->stats.probe_in_range++;
		WRITE_ONCE(p->in_range, p->in_range + 1);
		if (p->fn && p->fn(f, p->arg))
			hit = true;
		else if (!p->fn)
			hit = true;
		check_irqs(nc, "probe callback", p->fn);
		if (hit) {
			nc->stats.probe_hits++;
			__atomic_store_n(&p->hits, p->hits + 1, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&nc->probe_busy, 0, __ATOMIC_RELEASE);
	return true;
}

static bool run_handlers(struct nmi_cpu *nc, const struct nmi_frame *f)
{
	bool claimed = false;

	rcu_read_lock();
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmi_handler *h = __atomic_load_n(&nmi_handlers[i], __ATOMIC_ACQUIRE);

		if (!h)
			continue;
		if (h->fn(f, h->arg)) {
			claimed = true;
			nc->stats.handled++;
			__atomic_fetch_add(&h->claimed, 1, __ATOMIC_RELAXED);
		}
		check_irqs(nc, "handler", h->fn);
	}
	rcu_read_unlock();
	return claimed;
}

static void report_unknown(struct nmi_cpu *nc, const struct nmi_frame *f)
{
	char why[128];
	u64 off;
	const char *sym = kallsyms_lookup(f->ip, &off);

	nc->stats.unknown++;
	if (nc->stats.unknown > NMI_UNKNOWN_REPORTS)
		return;
	arch_nmi_reason(why, sizeof(why));
	printk("nmi: cpu %d took an NMI slablab did not send, at %s+%#llx (RIP %#llx); %s; "
	       "counted, going on%s\n", f->cpu, sym ? sym : "?", (unsigned long long)off,
	       (unsigned long long)f->ip, why,
	       nc->stats.unknown == NMI_UNKNOWN_REPORTS ? " (further ones on this cpu only counted)"
							 : "");
}

static void nmi_handle(struct nmi_cpu *nc, const struct nmi_frame *f)
{
	bool claimed = false;
	u64 ws = READ_ONCE(watch_start), we = READ_ONCE(watch_end);

	/* Release: a probe's sender waits for this count, and then reads what the pass did. */
	__atomic_store_n(&nc->stats.received, nc->stats.received + 1, __ATOMIC_RELEASE);
	if (__atomic_exchange_n(&nc->outstanding, 0, __ATOMIC_ACQ_REL)) {
		nc->stats.ours++;
		claimed = true;
	}
	if (spin_kick_received()) {
		nc->stats.kicks++;
		claimed = true;
	}
	if ((ws || we) && f->ip >= ws && f->ip < we)
		nc->stats.watch_hits++;
	claimed |= run_probe(nc, f);
	claimed |= run_handlers(nc, f);
	if (!claimed)
		report_unknown(nc, f);
	__atomic_store_n(&nc->passes, nc->passes + 1, __ATOMIC_RELEASE);
}

void nmi_entry(const struct nmi_frame *f)
{
	struct percpu_hdr *hdr = this_cpu_ptr(&percpu_hdr);
	struct nmi_cpu *nc = this_cpu_ptr(&nmi_cpu);

	if (hdr->nmi_depth) {
		/* An IRET ran inside the handler and let this one in: hold it as the CPU would
		 * have, until the outer handler is done; it runs once more for it. */
		nc->latched = 1;
		nc->stats.latched++;
		return;
	}
again:
	nc->frame = f;
	WRITE_ONCE(hdr->nmi_depth, 1);
	do {
		WRITE_ONCE(nc->latched, 0);
		barrier();
		nmi_handle(nc, f);
		barrier();
	} while (READ_ONCE(nc->latched));
	WRITE_ONCE(hdr->nmi_depth, 0);
	barrier();
	nc->frame = NULL;
	/* One latched between the last look and depth 0 would be lost: look once more. One
	 * that comes after depth 0 runs as an NMI of its own. */
	if (READ_ONCE(nc->latched))
		goto again;
	if (printk_nmi_pending())
		irq_work_queue(&nc->printk_work);
}

bool nmi_interrupted_irqs_on(void)
{
	const struct nmi_frame *f;

	if (!in_nmi())
		return false;
	f = this_cpu_ptr(&nmi_cpu)->frame;
	return f && (f->flags & RFLAGS_IF) && !f->soft_mask;
}

/* ---- sending ---- */

bool nmi_send(int cpu)
{
	struct nmi_cpu *nc = per_cpu_ptr(&nmi_cpu, cpu);
	u32 none = 0;

	if (!__atomic_compare_exchange_n(&nc->outstanding, &none, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return false; /* one is on its way: it will do */
	__atomic_fetch_add(&nc->sent, 1, __ATOMIC_RELAXED);
	arch_send_nmi(cpu);
	return true;
}

void nmi_send_unasked(int cpu)
{
	arch_send_nmi(cpu);
}

static u64 target_passes(struct nmi_cpu *nc)
{
	return __atomic_load_n(&nc->passes, __ATOMIC_ACQUIRE);
}

/*
 * The pause after a landing, before the next NMI. A pass ends a few instructions before the
 * handler's IRET, and an NMI sent at once is held until that IRET and taken before the
 * interrupted code has run more than a few instructions: the target would spend nearly all
 * its time in the handler, and the probe sample little of what it does. So the sender waits
 * a random time in [gap, 2 gap), gap doubling while the NMIs keep finding the same RIP (a
 * target that is not running, a spin loop, a long REP STOS) and back to the least once one
 * lands elsewhere. The random part keeps the landings from locking to a period of the
 * target's loop; its sequence is the sender's own, not the boot's (seed= runs repeat).
 */
#define PROBE_GAP_MAX_SHIFT 8     /* NMI_PROBE_GAP_NS << 8: about 2.5 ms at most */

struct probe_gap {
	u64 rnd, last_ip;
	unsigned int shift;
};

static void probe_gap(struct probe_gap *g, u64 ip, u64 deadline)
{
	u64 gap, until;

	if (ip != g->last_ip)
		g->shift = 0;
	else if (g->shift < PROBE_GAP_MAX_SHIFT)
		g->shift++;
	g->last_ip = ip;
	gap = ns_to_cycles(NMI_PROBE_GAP_NS << g->shift) + 1;
	until = get_cycles() + gap + splitmix64(&g->rnd) % gap;
	while (get_cycles() < MIN(until, deadline))
		cpu_relax();
}

int nmi_probe_cpu(int cpu, struct nmi_probe *p, u64 hits, u64 timeout_ns)
{
	struct nmi_cpu *nc;
	struct nmi_probe *none = NULL;
	struct probe_gap g = { .rnd = get_cycles() };
	u64 deadline;

	if (cpu < 0 || cpu >= nr_cpu_ids || cpu == smp_processor_id() || in_nmi())
		return -1;
	nc = per_cpu_ptr(&nmi_cpu, cpu);
	p->sent = p->landed = p->in_range = p->hits = p->last_ip = 0;
	if (!__atomic_compare_exchange_n(&nc->probe, &none, p, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return -2;
	deadline = get_cycles() + ns_to_cycles(timeout_ns);
	while (__atomic_load_n(&p->hits, __ATOMIC_ACQUIRE) < hits && get_cycles() < deadline) {
		u64 before = target_passes(nc);
		u64 wait = get_cycles() + ns_to_cycles(NMI_WAIT_ONE_NS);

		p->sent++;
		nmi_send(cpu);
		while (target_passes(nc) == before && get_cycles() < MIN(wait, deadline))
			cpu_relax();
		if (target_passes(nc) != before)
			probe_gap(&g, READ_ONCE(p->last_ip), deadline);
	}
	__atomic_store_n(&nc->probe, NULL, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&nc->probe_busy, __ATOMIC_SEQ_CST))
		cpu_relax();
	return __atomic_load_n(&p->hits, __ATOMIC_ACQUIRE) >= hits ? 0 : -3;
}

/* ---- ranges, handlers, statistics ---- */

bool nmi_code_range(const void *fn, u64 *start, u64 *end)
{
	return kallsyms_range((u64)(uptr)fn, start, end);
}

bool nmi_code_range_by_name(const char *name, u64 *start, u64 *end)
{
	return kallsyms_lookup_name(name, start, end);
}

void nmi_watch_range(u64 start, u64 end)
{
	WRITE_ONCE(watch_start, 0);
	WRITE_ONCE(watch_end, 0);
	barrier();
	WRITE_ONCE(watch_end, end);
	WRITE_ONCE(watch_start, start);
}

int nmi_handler_register(struct nmi_handler *h)
{
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmi_handler *none = NULL;

		if (__atomic_compare_exchange_n(&nmi_handlers[i], &none, h, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
	return -1;
}

void nmi_handler_unregister(struct nmi_handler *h)
{
	for (int i = 0; i < NMI_MAX_HANDLERS; i++) {
		struct nmi_handler *mine = h;

		__atomic_compare_exchange_n(&nmi_handlers[i], &mine, NULL, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	}
	/* Every NMI that could still see h is inside rcu_read_lock (run_handlers). */
	synchronize_rcu();
}

void nmi_stats_get(int cpu, struct nmi_stats *out)
{
	const struct nmi_stats *s = &per_cpu(nmi_cpu, cpu).stats;

	/* Field by field: each is written whole by one cpu; a snapshot need not be atomic. */
	out->received = READ_ONCE(s->received);
	out->sent = __atomic_load_n(&per_cpu(nmi_cpu, cpu).sent, __ATOMIC_RELAXED);
	out->ours = READ_ONCE(s->ours);
	out->kicks = READ_ONCE(s->kicks);
	out->probe_landed = READ_ONCE(s->probe_landed);
	out->probe_in_range = READ_ONCE(s->probe_in_range);
	out->probe_hits = READ_ONCE(s->probe_hits);
	out->handled = READ_ONCE(s->handled);
	out->unknown = READ_ONCE(s->unknown);
	out->watch_hits = READ_ONCE(s->watch_hits);
	out->latched = READ_ONCE(s->latched);
	out->irqs_turned_on = READ_ONCE(s->irqs_turned_on);
}

void nmi_iret_for_test(void)
{
	arch_nmi_iret_for_test();
}

/* ---- for RCU's stall reports (kernel/rcu.c): where is a CPU that does not answer? ---- */

static bool note_ip(const struct nmi_frame *f, void *arg)
{
	return true; /* the probe keeps last_ip */
}

bool rcu_stall_where(int cpu, char *buf, size_t len)
{
	struct nmi_probe p = { .fn = note_ip };
	const char *sym;
	u64 off;

	if (nmi_probe_cpu(cpu, &p, 1, 200000000ULL))
		return false;
	sym = kallsyms_lookup(p.last_ip, &off);
	snprintf(buf, len, "%s+%#llx (RIP %#llx, by NMI)", sym ? sym : "?",
		 (unsigned long long)off, (unsigned long long)p.last_ip);
	return true;
}
