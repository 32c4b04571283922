/*
 * SPDX-License-Identifier: MIT
 * kernel/rcu.c's grace periods in Promela (docs/rcu.md), checked by tools/model/rcu.sh.
 *
 * NCPU cpus share one pointer, ptr, to an object (ids 1..3). Each cpu runs up to MAXOPS
 * operations in any order: a reader (rcu_read_lock, load ptr, an interrupt may come, look
 * at the object, rcu_read_unlock), a quiescent-state point, and once each an update: cpu 0 swaps ptr and
 * frees the old object after synchronize_rcu; cpu 1 swaps ptr and frees the old one from a
 * call_rcu callback. Then every cpu idles: it reports in its idle loop, runs its callbacks,
 * halts, and takes IPIs. An IPI is taken between any two steps of a cpu with interrupts on,
 * and its handler may hold a reader of its own (an interrupt-context reader) before it
 * looks at rcu_nesting. Each C statement that touches shared state is one step; a locked
 * instruction is one atomic step; the start of a grace period is under the lock, as in C.
 *
 * Checked: a reader never sees its object freed (the asserts in the readers); no cpu waits
 * forever (invalid end states: every cpu must end halted in its idle loop); and once
 * nothing can move, every grace period asked for has ended and every callback has run
 * (process quiet: no wake-up was lost).
 *
 * Seeded bugs (BUG=n, each must be caught):
 *   1  the RCU IPI reports a quiescent state without looking at rcu_nesting: a grace
 *      period ends while a reader is inside (the assert)
 *   2  call_rcu takes gp_num, not gp_num + 1, as its callback's grace period: a grace
 *      period that began before the update may free the object (the assert)
 *   3  a waiter sets wake_gp after it looks at gp_done: the ender's wake-up is lost and
 *      the waiter halts for good (an invalid end state)
 *
 * Memory is sequentially consistent here: the barriers the C code pairs (docs/rcu.md) are
 * what makes the machine behave so for these accesses.
 */

#ifndef NCPU
#define NCPU 2
#endif
#ifndef MAXOPS
#define MAXOPS 3
#endif
#ifndef BUG
#define BUG 0
#endif
#ifndef IRQ_READER
#define IRQ_READER 1 /* 0: IPI handlers hold no reader of their own (a smaller search) */
#endif

byte gp_num, gp_done, gp_req, pending;
bool gplock;
byte ptr = 1;
bool freed[4];

byte qs_gp[NCPU];
byte nesting[NCPU];
bool deferred[NCPU];
bool ipi[NCPU];     /* the RCU IPI, pending */
bool wakeup[NCPU];  /* the wake-up IPI, pending */
byte wake_gp[NCPU];
byte sync_gp[NCPU];
byte cb_gp[NCPU];   /* the one callback a cpu may have queued: its grace period (0: none) */
byte cb_obj[NCPU];

/* gp_try_start: the first look without the lock, then under it; IPIs to the others. */
inline try_start(me, started) {
	started = false;
	if
	:: gp_num != gp_done || gp_req <= gp_num -> skip
	:: else ->
		atomic { !gplock -> gplock = true };
		if
		:: gp_num == gp_done && gp_req > gp_num ->
			pending = NCPU;
			gp_num = gp_num + 1;
			started = true
		:: else -> skip
		fi;
		gplock = false;
		if
		:: started ->
			/* one step for the N-1 sends: no cpu can report before its IPI is taken */
			d_step {
				j = 0;
				do
				:: j < NCPU -> if :: j != me -> ipi[j] = true :: else -> skip fi; j++
				:: j == NCPU -> break
				od;
				j = 0
			}
		:: else -> skip
		fi
	fi
}

/* report_qs: interrupts off, rcu_nesting 0 in this context. */
inline report_qs(me) {
	deferred[me] = false;
	do
	:: n = gp_num;
		if
		:: n == gp_done || qs_gp[me] >= n -> n = 0; break
		:: else ->
			qs_gp[me] = n;
			atomic { pending--; last = (pending == 0) };
			if
			:: !last -> n = 0; break
			:: else ->
				/* gp_end: gp_done, the wake-ups, the next grace period */
				gp_done = n;
				/* one step for the scan (after the store of gp_done, as in C) */
				d_step {
					j = 0;
					do
					:: j < NCPU ->
						if
						:: j != me && wake_gp[j] != 0 && wake_gp[j] <= n -> wakeup[j] = true
						:: else -> skip
						fi;
						j++
					:: j == NCPU -> break
					od;
					j = 0
				}
				try_start(me, started);
				last = false;
				if
				:: !started -> n = 0; break
				:: else -> started = false /* in no reader still: report for the new one too */
				fi
			fi
		fi
	od
}

/* self_qs: report if in no reader, else leave it to the outermost unlock. */
inline self_qs(me) {
	if
	:: nesting[me] == 0 -> report_qs(me)
	:: else ->
		if
		:: gp_num != gp_done && qs_gp[me] < gp_num -> deferred[me] = true
		:: else -> skip
		fi
	fi
}

inline update_wake(me) {
	d_step {
		w = cb_gp[me];
		if
		:: sync_gp[me] != 0 && (w == 0 || sync_gp[me] < w) -> w = sync_gp[me]
		:: else -> skip
		fi;
		wake_gp[me] = w;
		w = 0
	}
}

inline request(g) {
	atomic { if :: gp_req < g -> gp_req = g :: else -> skip fi }
}

/* The RCU IPI's handler, with an optional interrupt-context reader before it. */
inline take_ipi(me) {
	if
	:: IRQ_READER && nesting[me] < 2 ->
		nesting[me]++;
		ip = ptr;
		assert(!freed[ip]);
		ip = 0;
		nesting[me]--
	:: true -> skip
	fi;
#if BUG == 1
	report_qs(me);
#else
	self_qs(me);
#endif
}

/* Interrupts on: any pending IPI may be taken here. */
inline maybe_irq(me) {
	if
	:: atomic { ipi[me] -> ipi[me] = false }; take_ipi(me)
	:: atomic { wakeup[me] -> wakeup[me] = false }
	:: true -> skip
	fi
}

/* Halted (sti; hlt): only an interrupt ends it. */
inline halt(me) {
	if
	:: atomic { ipi[me] -> ipi[me] = false }; take_ipi(me)
	:: atomic { wakeup[me] -> wakeup[me] = false }
	fi
}

inline run_callbacks(me) {
	if
	:: cb_gp[me] != 0 && cb_gp[me] <= gp_done ->
		freed[cb_obj[me]] = true;
		cb_gp[me] = 0;
		update_wake(me)
	:: else -> skip
	fi
}

proctype cpu(byte me) {
	byte n, j, w, g, p, ip, old, ops = MAXOPS;
	bool last, started, updated = false;

	do
	:: ops > 0 ->
		ops--;
		if
		:: /* a reader, interrupts on */
			nesting[me]++;
			p = ptr;
			maybe_irq(me);
			assert(!freed[p]);
			p = 0;
			nesting[me]--;
			if
			:: nesting[me] == 0 && deferred[me] -> report_qs(me)
			:: else -> skip
			fi;
			maybe_irq(me)
		:: /* a quiescent-state point */
			report_qs(me);
			maybe_irq(me);
			run_callbacks(me)
		:: me == 0 && !updated -> /* synchronize_rcu */
			updated = true;
			atomic { old = ptr; ptr = 2 };
			g = gp_num + 1;
			request(g);
			try_start(me, started);
			started = false;
			self_qs(me);
#if BUG == 3
			do
			:: report_qs(me);
				if
				:: gp_done >= g -> break
				:: else ->
					sync_gp[me] = g;
					update_wake(me);
					halt(me)
				fi
			od;
#else
			sync_gp[me] = g;
			update_wake(me);
			do
			:: report_qs(me);
				if
				:: gp_done >= g -> break
				:: else -> halt(me)
				fi
			od;
#endif
			sync_gp[me] = 0;
			update_wake(me);
			freed[old] = true;
			old = 0;
			g = 0;
			maybe_irq(me)
		:: me == 1 && !updated -> /* call_rcu */
			updated = true;
			atomic { old = ptr; ptr = 3 };
#if BUG == 2
			g = gp_num;
#else
			g = gp_num + 1;
#endif
			cb_obj[me] = old;
			cb_gp[me] = g;
			update_wake(me);
			request(g);
			try_start(me, started);
			started = false;
			self_qs(me);
			old = 0;
			g = 0;
			maybe_irq(me)
		fi
	:: ops == 0 -> break
	od;
	/* the idle loop */
	do
	:: report_qs(me);
		if
		:: cb_gp[me] != 0 && cb_gp[me] <= gp_done -> run_callbacks(me)
		:: else ->
end_idle:		halt(me)
		fi
	od
}

/*
 * When every cpu has halted for good (nothing can move: timeout), every grace period asked
 * for has ended and every callback has run: no wake-up was lost.
 */
active proctype quiet() {
	byte i;

	timeout ->
	assert(gp_done == gp_req && gp_num == gp_done);
	i = 0;
	do
	:: i < NCPU -> assert(cb_gp[i] == 0 && sync_gp[i] == 0 && nesting[i] == 0); i++
	:: i == NCPU -> break
	od
}

init {
	byte i;

	atomic {
		i = 0;
		do
		:: i < NCPU -> run cpu(i); i++
		:: i == NCPU -> break
		od
	}
}
