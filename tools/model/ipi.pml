/*
 * A model of mm/scheme_ipi.c's remote frees and ownership transfer, checked with spin
 * (docs/ipi-protocol.md). Build with -DNCPU=2|3 and -DMODE=0 (ipi), 1 (ipi-batch) or
 * 2 (remote-atomic); tools/model/check.sh runs every combination.
 *
 * Each statement below is one indivisible step of the real code: an atomic instruction
 * (xchg, cmpxchg, a whole-word load or store), or a run of the owner's private updates
 * (which other cpus never touch, which is what the asserts check). The cpus' operations
 * interleave at that grain; a cpu's own IPI handler runs only between its operations
 * (they run with interrupts off) or while it waits for slabs with interrupts on.
 *
 * What spin checks: the asserts (only a slab's owner changes its objects and counters;
 * no object is freed twice; a slab given back to the page allocator has no object in
 * use or in flight), that every run ends (no deadlock: no invalid end state), and at
 * the end, after destroy's flush rounds, that every object is back in its slab, no
 * remote-free list, notify list or transfer list holds anything, and every slab went
 * back to the page allocator.
 */
#ifndef NCPU
#define NCPU 2
#endif
#ifndef MODE
#define MODE 1
#endif
#define MODE_IPI 0
#define MODE_BATCH 1
#define MODE_ATOMIC 2

#ifndef BUG
#define BUG 0               /* tools/model/check.sh --mutants: the checks must catch these */
#endif

#define NSLAB 2
#define K 2                 /* objects per slab */
#define NOBJ (NSLAB * K)
#ifndef MAXOPS
#define MAXOPS 2            /* allocations by cpu 0 */
#endif
#ifndef OPSN
#define OPSN MAXOPS         /* allocations by each other cpu */
#endif
#define OPS(c) ((c) == 0 -> MAXOPS : OPSN)
#define NONE 255

/* Where an object is: free in its slab, held by a cpu, on a cpu's remote-free list, or
 * taken off that list by the cpu draining it. */
#define FREE 0
#define HELD(c) (1 + (c))
#define REMOTE(c) (10 + (c))
#define DRAINING(c) (20 + (c))
byte loc[NOBJ];

/* Slabs: page (not a slab), the cpu slab, owned with free objects, full, in transit. */
#define S_PAGE 0
#define S_CPU 1
#define S_OWNED 2
#define S_FULL 3
#define S_TRANSIT 4
byte owner[NSLAB], state[NSLAB], inuse[NSLAB];

/* Per cpu (one cache). Bit masks of slabs for the lists. */
byte cpuslab[NCPU], owned[NCPU], transfer_in[NCPU];
byte transfer_req[NCPU], transfer_asked[NCPU];
bit notify_queued[NCPU], on_list[NCPU], ipi_pending[NCPU];

byte done;      /* cpus that finished their work */
bit finished[NCPU]; /* holds nothing and will take nothing more */
bit flush_req[NCPU]; /* destroy's cross-call to that cpu: run flush() there */
byte moved;     /* objects and slabs sent on to another cpu (destroy counts rounds by it) */
bit destroyed;  /* the flush rounds are over */
byte quiet;     /* cpus that stopped */
byte in_handler; /* cpus inside their IPI handler */

#define SLAB_OF(o) ((o) / K)
#if NCPU == 2
#define NO_IPI_PENDING (!ipi_pending[0] && !ipi_pending[1])
#elif NCPU == 3
#define NO_IPI_PENDING (!ipi_pending[0] && !ipi_pending[1] && !ipi_pending[2])
#else
#error "the model is for 2 or 3 cpus"
#endif
#define BIT(s) (1 << (s))

/* The invariant the owner relies on: inuse counts the slab's objects not free in it. */
inline check_inuse(s)
{
	cnt = 0;
	for (j : 0 .. NOBJ - 1) {
		if
		:: SLAB_OF(j) == s && loc[j] != FREE -> cnt++
		:: else
		fi
	}
	assert(cnt == inuse[s])
}

/* An empty owned slab: kept on the owned list, or given back (either may happen). */
inline empty_slab(me, s)
{
	if
	:: true
	:: true ->
		for (j : 0 .. NOBJ - 1) {
			assert(SLAB_OF(j) != s || loc[j] == FREE)
		}
		owned[me] = owned[me] & ~BIT(s);
		state[s] = S_PAGE;
		owner[s] = NONE
	fi
}

/* free_owned(): the owner frees an object it holds or drained. */
inline free_owned(me, o)
{
	atomic {
		s = SLAB_OF(o);
		assert(owner[s] == me);
		assert(loc[o] == HELD(me) || loc[o] == DRAINING(me)); /* not already free */
		check_inuse(s);
		loc[o] = FREE;
		inuse[s]--;
		if
		:: state[s] == S_FULL ->
			state[s] = S_OWNED;
			owned[me] = owned[me] | BIT(s);
			if
			:: inuse[s] == 0 -> empty_slab(me, s)
			:: else
			fi
		:: state[s] == S_OWNED && inuse[s] == 0 -> empty_slab(me, s)
		:: else /* the cpu slab, or in transit to us: filed when accepted */
		fi
	}
}

/* notify(): mark the target's structure queued; whoever turned it on puts it on the
 * target's notify list; then the IPI, if wanted. */
inline notify(t, ipi)
{
	atomic { was = notify_queued[t]; notify_queued[t] = 1 }
	if
	:: !was -> on_list[t] = 1
	:: else
	fi;
	if
	:: ipi -> ipi_pending[t] = 1
	:: else
	fi
}

/* free_remote(): push onto the owner's remote-free list (one cmpxchg), then notify. */
inline free_remote(me, ow, o)
{
	atomic {
		was_empty = 1;
		for (j : 0 .. NOBJ - 1) {
			if
			:: loc[j] == REMOTE(ow) -> was_empty = 0
			:: else
			fi
		}
		loc[o] = REMOTE(ow)
	}
	if
	:: MODE == MODE_IPI -> notify(ow, 1)
	:: MODE == MODE_BATCH && was_empty -> notify(ow, 1)
	:: else
	fi
}

/* A free on cpu me: read the owner (one load), then free locally or send. */
inline do_free(me, o)
{
	ow = owner[SLAB_OF(o)];
	if
	:: ow == me -> free_owned(me, o)
	:: else -> free_remote(me, ow, o)
	fi
}

/* drain_remote(): take the whole list (xchg), free what is ours, send on the rest. */
inline drain(me)
{
	atomic {
		took = 0;
		for (j : 0 .. NOBJ - 1) {
			if
			:: loc[j] == REMOTE(me) -> loc[j] = DRAINING(me); took = took | (1 << j)
			:: else
			fi
		}
	}
	for (o : 0 .. NOBJ - 1) {
		if
		:: took & (1 << o) ->
			ow = owner[SLAB_OF(o)];
			if
			:: ow == me -> free_owned(me, o)
			:: else -> free_remote(me, ow, o); moved++
			fi
		:: else
		fi
	}
}

/* accept_transfers(): take transfer_in (xchg) and file each slab on the owned list. */
inline accept(me)
{
	atomic { took = transfer_in[me]; transfer_in[me] = 0 }
	atomic { /* the owner's private work on each slab */
		for (s : 0 .. NSLAB - 1) {
			if
			:: took & BIT(s) ->
				assert(owner[s] == me && state[s] == S_TRANSIT);
				check_inuse(s);
				state[s] = S_OWNED;
				owned[me] = owned[me] | BIT(s);
				if
				:: inuse[s] == 0 -> empty_slab(me, s)
				:: else
				fi
			:: else
			fi
		}
	}
}

/* answer_request(): take the request (xchg); hand over an owned slab if there is one:
 * state TRANSIT, then owner (release store), then push onto the asker's transfer_in;
 * answer by clearing the asker's transfer_asked; notify it if a slab went. */
inline answer(me)
{
	atomic { req = transfer_req[me]; transfer_req[me] = 0 }
	if
	:: req != 0 ->
		to = req - 1;
		atomic { /* pick one of our owned slabs, if any (private) */
			gave = 0;
			ow = NONE;
			for (s : 0 .. NSLAB - 1) {
				if
				:: ow == NONE && (owned[me] & BIT(s)) -> ow = s
				:: else
				fi
			}
			s = ow
		}
		if
		:: s != NONE ->
#if BUG == 2
				owner[s] = to; /* the new owner may see the slab before it is in transit */
				atomic {
					owned[me] = owned[me] & ~BIT(s);
					state[s] = S_TRANSIT
				}
#else
				atomic {
					assert(owner[s] == me && state[s] == S_OWNED);
					owned[me] = owned[me] & ~BIT(s);
					state[s] = S_TRANSIT
				}
				owner[s] = to;
#endif
				atomic { transfer_in[to] = transfer_in[to] | BIT(s) } /* cmpxchg push */
				gave = 1;
				moved++
		:: else
		fi;
		transfer_asked[to] = 0;
		if
		:: gave -> notify(to, 1)
		:: else
		fi
	:: else
	fi
}

inline process(me)
{
	answer(me);
	accept(me);
	drain(me)
}

/* The IPI handler: take the notify list (xchg), clear queued (xchg), then the work. */
inline handler(me)
{
	atomic { ipi_pending[me] = 0; in_handler++ }
	process_notified(me);
	in_handler--
}

inline process_notified(me)
{
	atomic { tookn = on_list[me]; on_list[me] = 0 }
	if
	:: tookn ->
#if BUG == 1
		process(me); notify_queued[me] = 0 /* too late: what came meanwhile is never seen */
#else
		notify_queued[me] = 0; process(me)
#endif
	:: else
	fi
}

/* ask_for_slabs(): pick a cpu that owns slabs, post the request (cmpxchg), notify it,
 * and wait with interrupts on until answered, or give up at any moment (the timeout). */
inline ask(me)
{
	if
	:: MODE != MODE_ATOMIC && transfer_asked[me] == 0 ->
		atomic { /* racy reads of the others' counts: any cpu that owns slabs */
			best = NONE;
			for (c : 0 .. NCPU - 1) {
				if
				:: c != me && owned[c] != 0 -> best = c
				:: c != me && owned[c] != 0 -> skip
				:: else
				fi
			}
		}
		if
		:: best != NONE ->
			transfer_asked[me] = best + 1;
			atomic {
				if
				:: transfer_req[best] == 0 -> transfer_req[best] = me + 1; ok = 1
				:: else -> ok = 0
				fi
			}
			if
			:: ok ->
				notify(best, 1);
				do
				:: transfer_asked[me] == 0 -> break
				:: ipi_pending[me] -> handler(me)
				:: true -> break /* the wait timed out */
				od
			:: else -> transfer_asked[me] = 0
			fi
		:: else
		fi
	:: else
	fi
}

/* Take a free object of the cpu slab, if it has one. */
inline take_from_cpu_slab(me)
{
	atomic {
		if
		:: got == NONE && cpuslab[me] != NONE ->
			s = cpuslab[me];
			assert(owner[s] == me && state[s] == S_CPU);
			for (j : 0 .. NOBJ - 1) {
				if
				:: got == NONE && SLAB_OF(j) == s && loc[j] == FREE ->
					loc[j] = HELD(me); inuse[s]++; got = j
				:: else
				fi
			}
			/* Exhausted: full, on no list. (The kernel notices at its next slow path;
			 * here at once, so that a cpu runs out within the model's few steps.) */
			cnt = 0;
			for (j : 0 .. NOBJ - 1) {
				if
				:: SLAB_OF(j) == s && loc[j] == FREE -> cnt++
				:: else
				fi
			}
			if
			:: cnt == 0 -> state[s] = S_FULL; cpuslab[me] = NONE
			:: else
			fi
		:: else
		fi
	}
}

inline alloc(me)
{
	got = NONE;
	take_from_cpu_slab(me);
	if
	:: got == NONE ->
		drain(me);
		accept(me);
		take_from_cpu_slab(me);
	:: else
	fi;
	if
	:: got == NONE ->
		atomic {
			for (s : 0 .. NSLAB - 1) {
				if
				:: cpuslab[me] == NONE && (owned[me] & BIT(s)) ->
					assert(owner[s] == me && state[s] == S_OWNED);
					owned[me] = owned[me] & ~BIT(s);
					state[s] = S_CPU;
					cpuslab[me] = s
				:: else
				fi
			}
		}
		take_from_cpu_slab(me)
	:: else
	fi;
	if
	:: got == NONE && cpuslab[me] == NONE ->
		ask(me);
		accept(me);
		atomic {
			for (s : 0 .. NSLAB - 1) {
				if
				:: cpuslab[me] == NONE && (owned[me] & BIT(s)) ->
					owned[me] = owned[me] & ~BIT(s);
					state[s] = S_CPU;
					cpuslab[me] = s
				:: else
				fi
			}
		}
		take_from_cpu_slab(me)
	:: else
	fi;
	if
	:: got == NONE && cpuslab[me] == NONE ->
		atomic { /* a new slab from the page allocator, if there is a page */
			for (s : 0 .. NSLAB - 1) {
				if
				:: cpuslab[me] == NONE && state[s] == S_PAGE ->
					state[s] = S_CPU; owner[s] = me; inuse[s] = 0; cpuslab[me] = s
				:: else
				fi
			}
		}
		take_from_cpu_slab(me)
	:: else
	fi
}

/* Destroy's flush on one cpu (a cross-call: interrupts off there). */
inline flush(me)
{
	process_notified(me);
	process(me);
	atomic {
		if
		:: cpuslab[me] != NONE ->
			s = cpuslab[me];
			state[s] = S_FULL;
			for (j : 0 .. NOBJ - 1) {
				if
				:: SLAB_OF(j) == s && loc[j] == FREE -> state[s] = S_OWNED
				:: else
				fi
			}
			if
			:: state[s] == S_OWNED -> owned[me] = owned[me] | BIT(s)
			:: else
			fi;
			cpuslab[me] = NONE
		:: else
		fi;
		for (s : 0 .. NSLAB - 1) {
			if
			:: (owned[me] & BIT(s)) && inuse[s] == 0 ->
				for (j : 0 .. NOBJ - 1) {
					assert(SLAB_OF(j) != s || loc[j] == FREE)
				}
				owned[me] = owned[me] & ~BIT(s);
				state[s] = S_PAGE;
				owner[s] = NONE
			:: else
			fi
		}
	}
}

/* Forget the temporaries between operations: fewer states, nothing lost. */
inline clear_locals()
{
	d_step {
		o = 0; s = 0; j = 0; c = 0; cnt = 0; ow = 0; got = 0; took = 0; req = 0; to = 0;
		best = 0; i = 0; was = 0; was_empty = 0; gave = 0; ok = 0; tookn = 0
	}
}

proctype cpu(byte me)
{
	byte ops = 0, o, s, j, c, cnt, ow, got, took, req, to, best, i;
	bit was, was_empty, gave, ok, tookn;

	do
	:: ops < OPS(me) -> alloc(me); ops++; clear_locals()
	:: atomic { i = NONE; for (j : 0 .. NOBJ - 1) { if :: loc[j] == HELD(me) -> i = j :: else fi } };
	   if
	   :: i != NONE -> do_free(me, i)
	   :: else
	   fi;
	   clear_locals()
	:: atomic { i = NONE; for (j : 0 .. NOBJ - 1) { if :: loc[j] == HELD(me) -> i = j :: else fi } };
	   if
	   :: i != NONE -> /* hand it to another cpu, which frees it */
		for (c : 0 .. NCPU - 1) {
			if
			:: atomic { c != me && !finished[c] && loc[i] == HELD(me) -> loc[i] = HELD(c) }
			:: c != me -> skip
			:: else
			fi
		}
	   :: else
	   fi;
	   clear_locals()
	:: ipi_pending[me] -> handler(me); clear_locals()
	:: atomic { ops == OPS(me) -> i = NONE; for (j : 0 .. NOBJ - 1) { if :: loc[j] == HELD(me) -> i = j :: else fi };
	   if
	   :: i == NONE -> finished[me] = 1
	   :: else
	   fi };
	   if
	   :: finished[me] -> break
	   :: else
	   fi
	od;
	done++;
	/* Idle: interrupts and destroy's cross-calls come in, one at a time on this cpu. */
	do
	:: ipi_pending[me] -> handler(me); clear_locals()
	:: flush_req[me] -> flush(me); clear_locals(); flush_req[me] = 0
	:: destroyed -> break
	od;
	quiet++
}

init {
	byte i, round;

	atomic {
		for (i : 0 .. NSLAB - 1) { owner[i] = NONE; state[i] = S_PAGE }
		for (i : 0 .. NCPU - 1) { cpuslab[i] = NONE }
		for (i : 0 .. NCPU - 1) { run cpu(i) }
	}
	/* Every cpu's frees have returned (some objects may be held by a cpu that gave
	 * them away after finishing: there are none, a cpu finishes holding nothing). */
	/*
	 * Quiet: every cpu is done and idle, no IPI pending or being handled. Under the IPI
	 * schemes nothing may be left waiting then: no remote free undrained, no slab not
	 * taken over, no request unanswered, nothing on a notify list.
	 */
	atomic {
		done == NCPU && in_handler == 0 && NO_IPI_PENDING ->
		if
		:: MODE != MODE_ATOMIC ->
			for (i : 0 .. NOBJ - 1) { assert(loc[i] < 10) }
			for (i : 0 .. NCPU - 1) {
				assert(!on_list[i] && transfer_in[i] == 0 && transfer_req[i] == 0)
			}
		:: else
		fi
	}
	round = 0;
	do
	:: moved = 0; /* on_each_cpu(flush): every cpu at once, wait for all */
	   for (i : 0 .. NCPU - 1) { flush_req[i] = 1 }
	   for (i : 0 .. NCPU - 1) { flush_req[i] == 0 }
	   round++;
	   assert(round <= 2 * NCPU + 2);
	   if
	   :: moved == 0 -> break
	   :: else
	   fi
	od;
	destroyed = 1;
	quiet == NCPU;
	for (i : 0 .. NOBJ - 1) { assert(loc[i] == FREE) }
	for (i : 0 .. NSLAB - 1) { assert(state[i] == S_PAGE && inuse[i] == 0) }
	for (i : 0 .. NCPU - 1) {
		assert(!on_list[i] && transfer_in[i] == 0 && owned[i] == 0 && cpuslab[i] == NONE)
	}
}
