/*
 * A model of mm/scheme_sheaves.c's sheaves and barn, checked with spin (tools/model/check.sh;
 * docs/models.md says what it covers and what it found). Build with
 * -DNCPU=2|3, -DOPS=N (operations per cpu), -DROLES=0|1, -DBUG=0 or a seeded bug. With
 * ROLES=1 cpu 0 only frees and cpu 1 only allocates (a producer and a consumer: sheaves go
 * from one to the other through the barn in few steps; a third cpu does both), with ROLES=0
 * every cpu does either at each step.
 *
 * What is modelled, as the C does it:
 *   - each cpu's main and spare sheaf (struct sheaves_cpu), touched only by that cpu with
 *     interrupts off: an allocation or a free runs to its end without the cpu's other work
 *     in between, but the other cpus' steps interleave with every step of it;
 *   - the node's barn: a stack of full sheaves and one of empty ones (at most BARN_MAX of
 *     each), changed only under barn->lock; barn_get's racy peek at a count, then the pop
 *     under the lock; barn_put; barn_exchange, which gives the barn one sheaf and takes one
 *     of the other kind under one acquisition;
 *   - the hand-over of sheaves between cpus: a sheaf a cpu put into the barn is taken by
 *     whichever cpu pops it, and from then on is only that cpu's;
 *   - sheaves_alloc (main_has_objects: main, a swap with the spare, barn_exchange,
 *     barn_get, a refill from the slabs) and sheaves_free (main_has_room: main, a swap,
 *     barn_exchange, barn_get of an empty sheaf or a new one and barn_put of main, a flush
 *     of main into the slabs), with no sheaf (no_sheaf) at first and when the pages run out;
 *   - frees of objects another cpu allocated (they go into the freeing cpu's sheaves);
 *   - destroy: every cpu flushes its sheaves (sheaves_flush_cpu), then the barn is emptied
 *     (sheaves_shrink_barn).
 * The slabs behind the sheaves (slab_alloc_for_layer, slab_free_for_layer, under list_lock)
 * are one atomic step each. The barn's stacks are arrays; a push or a pop is two steps (the
 * count read, then the entry and the count written), as the C's loads and stores are.
 *
 * What spin checks: an object is in exactly one place (a slab, the program, one sheaf's
 * first `size` entries) and is never handed out twice; a sheaf is in exactly one place (the
 * page allocator, a cpu's main or spare, a cpu's hands during an operation, one barn
 * stack) and only its holder changes it; the barn's counts are its stacks' lengths, never
 * past BARN_MAX, its stacks hold sheaves of their kind, and only barn->lock's holder changes
 * them; every run ends (no invalid end state); after destroy every object is back in the
 * slabs, every sheaf back in the page allocator and the barn empty.
 *
 * Seeded bugs (-DBUG=n; check.sh runs each and wants it caught):
 *   1  barn_exchange takes a sheaf of the other kind but loses the one it is given (no push)
 *   2  barn_put pushes without barn->lock
 */
#ifndef NCPU
#define NCPU 2
#endif
#ifndef OPS
#define OPS 3
#endif
#ifndef BUG
#define BUG 0
#endif
#ifndef ROLES
#define ROLES 0
#endif
#define MAY_ALLOC(c) (!ROLES || (c) != 0)
#define MAY_FREE(c) (!ROLES || (c) != 1)

#define NOBJ 4        /* objects of the cache */
#define NINUSE 2      /* of them held by the program at the start (so frees come first too) */
#define CAP 1         /* objects a sheaf holds (the C's capacity_of(s)) */
#define NSHEAF 4      /* pages the page allocator has for sheaves */
#define BARN_MAX 1    /* full sheaves a barn keeps, and empty ones */
#define NONE 255

/* Where an object is. */
#define L_SLAB 0
#define L_USE 1              /* the program holds it */
#define L_SHEAF(s) (10 + (s))
#define L_FREEING(c) (30 + (c)) /* cpu c is freeing it */
byte loc[NOBJ];

/* Where a sheaf is. */
#define W_PAGE 0             /* the page allocator's */
#define W_FULL 1             /* in the barn's stack of full sheaves */
#define W_EMPTY 2
#define W_MAIN(c) (10 + (c))
#define W_SPARE(c) (20 + (c))
#define W_HAND(c) (30 + (c)) /* taken by cpu c during an operation */
byte where[NSHEAF];
byte size[NSHEAF];
byte obj[NSHEAF * CAP];

byte main_[NCPU], spare[NCPU];

/* The barn: stack[k * BARN_MAX + i], i < nr[k], k = K_EMPTY or K_FULL. */
#define K_EMPTY 0
#define K_FULL 1
#define KIND(s) (size[s] > 0 -> K_FULL : K_EMPTY)
#define W_OF(k) ((k) == K_FULL -> W_FULL : W_EMPTY)
byte stack[2 * BARN_MAX];
byte nr[2];
byte barn_lock; /* 0, or 1 + the holder */

byte done;   /* cpus that did their operations, then those that were flushed */
bit destroyed;

inline mine(me, s)
{
	assert(s < NSHEAF && (where[s] == W_MAIN(me) || where[s] == W_SPARE(me) || where[s] == W_HAND(me)))
}

inline lock(me)
{
	atomic { barn_lock == 0 -> barn_lock = 1 + me }
}

inline unlock(me)
{
	assert(barn_lock == 1 + me);
	barn_lock = 0
}

/* Push s (in our hands) onto stack k; the lock is held (but for BUG 2's barn_put). */
inline push(me, k, s)
{
	t = nr[k];
	atomic {
		assert(t < BARN_MAX && t == nr[k] && where[s] == W_HAND(me) && KIND(s) == k);
		stack[(k) * BARN_MAX + t] = s;
		nr[k] = t + 1;
		where[s] = W_OF(k)
	}
}

/* Pop the top of stack k into our hands, or got = NONE; the lock is held. */
inline pop(me, k, got)
{
	t = nr[k];
	atomic {
		assert(barn_lock == 1 + me && t == nr[k]);
		if
		:: t > 0 ->
			got = stack[(k) * BARN_MAX + t - 1];
			assert(where[got] == W_OF(k) && KIND(got) == k);
			nr[k] = t - 1;
			where[got] = W_HAND(me)
		:: else -> got = NONE
		fi
	}
}

/* barn_get: a racy peek at the count, then the pop under the lock. */
inline barn_get(me, k, got)
{
	got = NONE;
	if
	:: nr[k] > 0 ->
		lock(me);
		pop(me, k, got);
		unlock(me)
	:: else
	fi
}

/* barn_put: false (ok = 0) when the barn has BARN_MAX of that kind. s is in our hands. */
inline barn_put(me, s, ok)
{
	k = KIND(s);
#if BUG == 2
	if
	:: nr[k] < BARN_MAX -> push(me, k, s); ok = 1
	:: else -> ok = 0
	fi
#else
	lock(me);
	if
	:: nr[k] < BARN_MAX -> push(me, k, s); ok = 1
	:: else -> ok = 0
	fi;
	unlock(me)
#endif
}

/* barn_exchange: give s, take one of the other kind, one acquisition; got = NONE and the
 * barn unchanged if it has none or no room for s. */
inline barn_exchange(me, s, got)
{
	k = KIND(s);
	got = NONE;
	lock(me);
	if
	:: nr[k] < BARN_MAX ->
		x = 1 - k; /* (an inline's argument is its text: not 1 - k itself) */
		pop(me, x, got);
		if
		:: got != NONE ->
#if BUG == 1
			skip /* s is not pushed: it is lost */
#else
			push(me, k, s)
#endif
		:: else
		fi
	:: else
	fi;
	unlock(me)
}

/* new_sheaf: a page for an empty sheaf, or got = NONE. */
inline new_sheaf(me, got)
{
	atomic {
		got = NONE;
		for (i : 0 .. NSHEAF - 1) {
			if
			:: got == NONE && where[i] == W_PAGE -> got = i; where[i] = W_HAND(me); size[i] = 0
			:: else
			fi
		}
	}
}

inline free_sheaf(me, s)
{
	atomic { mine(me, s); assert(size[s] == 0); where[s] = W_PAGE }
}

/* refill: up to CAP objects from the slabs into s. */
inline refill(me, s)
{
	atomic {
		mine(me, s);
		for (i : 0 .. NOBJ - 1) {
			if
			:: size[s] < CAP && loc[i] == L_SLAB ->
				obj[s * CAP + size[s]] = i; loc[i] = L_SHEAF(s); size[s]++
			:: else
			fi
		}
	}
}

/* flush: every object of s back into the slabs. */
inline flush(me, s)
{
	atomic {
		mine(me, s);
		for (i : 0 .. CAP - 1) {
			if
			:: i < size[s] -> assert(loc[obj[s * CAP + i]] == L_SHEAF(s)); loc[obj[s * CAP + i]] = L_SLAB
			:: else
			fi
		}
		size[s] = 0
	}
}

inline set_main(me, s)
{
	atomic { main_[me] = s; if :: s != NONE -> where[s] = W_MAIN(me) :: else fi }
}

inline set_spare(me, s)
{
	atomic { spare[me] = s; if :: s != NONE -> where[s] = W_SPARE(me) :: else fi }
}

inline swap(me)
{
	atomic { s = main_[me]; set_main(me, spare[me]); set_spare(me, s) }
}

/* The hand of cpu me takes its main sheaf (a sheaf leaving main goes through the hand). */
inline take_main(me, s)
{
	atomic { s = main_[me]; main_[me] = NONE; where[s] = W_HAND(me) }
}

/* sheaves_alloc: main_has_objects, then a pop; straight from the slabs with no sheaf. */
inline alloc(me)
{
	if
	:: main_[me] != NONE && size[main_[me]] > 0
	:: else ->
		if
		:: main_[me] == NONE ->
			new_sheaf(me, got);
			set_main(me, got)
		:: else
		fi;
		if
		:: main_[me] == NONE
		:: else ->
			if
			:: spare[me] != NONE && size[spare[me]] > 0 -> swap(me)
			:: else ->
				got = NONE;
				if
				:: spare[me] != NONE ->
					take_main(me, s);
					barn_exchange(me, s, got);
					if
					:: got != NONE -> set_main(me, got)
					:: else -> set_main(me, s)
					fi
				:: else
				fi;
				if
				:: got == NONE ->
					barn_get(me, K_FULL, got);
					if
					:: got != NONE ->
						take_main(me, s);
						if
						:: spare[me] == NONE -> set_spare(me, s)
						:: else ->
							barn_put(me, s, ok);
							if
							:: !ok -> free_sheaf(me, s)
							:: else
							fi
						fi;
						set_main(me, got)
					:: else -> refill(me, main_[me])
					fi
				:: else
				fi
			fi
		fi
	fi;
	atomic {
		if
		:: main_[me] != NONE && size[main_[me]] > 0 ->
			s = main_[me];
			size[s]--;
			o = obj[s * CAP + size[s]];
			assert(loc[o] == L_SHEAF(s)); /* not handed out twice */
			loc[o] = L_USE
		:: main_[me] == NONE -> /* no sheaf at all: straight from the slabs */
			for (i : 0 .. NOBJ - 1) {
				if
				:: loc[i] == L_SLAB -> loc[i] = L_USE; break
				:: else
				fi
			}
		:: else /* out of memory */
		fi
	}
}

/* sheaves_free of o (L_FREEING(me)): main_has_room, then a push; to the slabs without a
 * sheaf. */
inline free(me, o)
{
	if
	:: main_[me] != NONE && size[main_[me]] < CAP
	:: main_[me] == NONE ->
		new_sheaf(me, got);
		set_main(me, got)
	:: else ->
		if
		:: spare[me] != NONE && size[spare[me]] == 0 -> swap(me)
		:: else ->
			take_main(me, s);
			barn_exchange(me, s, got);
			if
			:: got != NONE -> set_main(me, got)
			:: else ->
				barn_get(me, K_EMPTY, got);
				if
				:: got == NONE -> new_sheaf(me, got)
				:: else
				fi;
				ok = 0;
				if
				:: got != NONE -> barn_put(me, s, ok)
				:: else
				fi;
				if
				:: ok -> set_main(me, got)
				:: else ->
					if
					:: got != NONE ->
						barn_put(me, got, ok);
						if
						:: !ok -> free_sheaf(me, got)
						:: else
						fi
					:: else
					fi;
					set_main(me, s);
					flush(me, s)
				fi
			fi
		fi
	fi;
	atomic {
		assert(loc[o] == L_FREEING(me));
		if
		:: main_[me] != NONE ->
			s = main_[me];
			mine(me, s);
			assert(size[s] < CAP);
			obj[s * CAP + size[s]] = o; size[s]++; loc[o] = L_SHEAF(s)
		:: else -> loc[o] = L_SLAB
		fi
	}
}

/* sheaves_flush_cpu: main and spare into the slabs, their pages back. */
inline flush_cpu(me)
{
	for (j : 0 .. 1) {
		atomic {
			if
			:: j == 0 -> s = main_[me]; main_[me] = NONE
			:: else -> s = spare[me]; spare[me] = NONE
			fi;
			if
			:: s != NONE -> where[s] = W_HAND(me)
			:: else
			fi
		}
		if
		:: s != NONE -> flush(me, s); free_sheaf(me, s)
		:: else
		fi
	}
}

/* sheaves_shrink_barn: every sheaf off the barn under the lock, then flushed and freed. */
inline shrink_barn(me)
{
	lock(me);
	for (k : 0 .. 1) {
		do
		:: nr[k] > 0 -> pop(me, k, got); flush(me, got); free_sheaf(me, got)
		:: else -> break
		od
	}
	unlock(me)
}

inline clear_locals()
{
	d_step { o = 0; s = 0; got = 0; t = 0; i = 0; k = 0; j = 0; x = 0; ok = 0 }
}

proctype cpu(byte me)
{
	byte n = 0, o, s, got, t, i, k, j, x;
	bit ok;

	do
	:: n < OPS && MAY_ALLOC(me) -> alloc(me); n++; clear_locals()
	:: n < OPS && MAY_FREE(me) -> /* free an object the program holds: any cpu may have allocated it */
		atomic {
			o = NONE;
			for (i : 0 .. NOBJ - 1) {
				if
				:: loc[i] == L_USE -> o = i
				:: loc[i] == L_USE -> skip
				:: else
				fi
			}
			if
			:: o != NONE -> loc[o] = L_FREEING(me)
			:: else
			fi
		}
		if
		:: o != NONE -> free(me, o)
		:: else
		fi;
		n++;
		clear_locals()
	:: n == OPS -> break
	od;
	done++;
	/* destroy, which no other use of the cache overlaps: the program frees what it holds,
	 * every cpu is flushed (one after the other: each touches only its own sheaves and the
	 * barn), then the barn is emptied (init) */
	done == NCPU + me;
	do
	:: atomic {
		o = NONE;
		for (i : 0 .. NOBJ - 1) {
			if
			:: o == NONE && loc[i] == L_USE -> o = i; loc[i] = L_FREEING(me)
			:: else
			fi
		}
	   };
	   if
	   :: o != NONE -> free(me, o); clear_locals()
	   :: else -> break
	   fi
	od;
	flush_cpu(me);
	clear_locals();
	done++
}

init {
	byte i, o, s, got, t, k, j, x;
	bit ok;

	atomic {
		for (i : 0 .. NOBJ - 1) {
			if
			:: i < NINUSE -> loc[i] = L_USE
			:: else -> loc[i] = L_SLAB
			fi
		}
		for (i : 0 .. NCPU - 1) { main_[i] = NONE; spare[i] = NONE }
		for (i : 0 .. NCPU - 1) { run cpu(i) }
	}
	done == 2 * NCPU;
	shrink_barn(NCPU - 1);
	/* every object in the slabs, every sheaf in the page allocator, the barn empty */
	for (i : 0 .. NOBJ - 1) { assert(loc[i] == L_SLAB) }
	for (i : 0 .. NSHEAF - 1) { assert(where[i] == W_PAGE) }
	assert(nr[K_EMPTY] == 0 && nr[K_FULL] == 0 && barn_lock == 0)
}
