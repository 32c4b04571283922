// SPDX-License-Identifier: MIT
/*
 * slub_debug and hardening: what Linux's SLUB does for caches created with SLAB_* debug
 * flags or named in the boot option slub_debug=, and for the hardening options
 * freelist_hardened=, freelist_random=, init_on_alloc=, init_on_free=.
 *
 * How a cache gets here (the one place this is explained)
 *   A cache with debug flags or any hardening option gets a struct slub_debug_state (s->dbg)
 *   and its own copy of a scheme whose alloc/free (and bulk) are the functions below: for
 *   debug flags the debug mode's scheme (below), for hardening alone its own. mm/slub.c
 *   already tests s->layer_alloc and s->layer_free for scheme layers, so such a cache
 *   leaves the inlined fastpaths at no cost to the others. Frees reach slub_debug_free from
 *   kmem_cache_free/kfree either through layer_free or, for caches with a left red zone,
 *   through free_check's "not at an object start" branch (their objects start red_left_pad
 *   into each slot): that branch is out of line already.
 *
 * Layout of one slot of a debug cache (offsets from the object, which the user gets):
 *
 *   -red_left_pad  left red zone (Z): 0xbb free, 0xcc allocated
 *   0              the object: object_size bytes; free and poisoned (P): 0x6b... 0xa5
 *   object_size    right red zone (Z) up to rz_end, at least one byte; for kmalloc the
 *                  bytes from the requested size on are red zone too while allocated
 *   rz_end         free pointer, outside the object with P or a constructor (s->offset)
 *                  state word (F): OBJ_ACTIVE or OBJ_FREE, so a double free is O(1)
 *                  requested size (Z): for the kmalloc tail red zone
 *                  two struct slub_track (U): last alloc and last free
 *   meta_end       padding (P: 0x5a) up to s->size - red_left_pad
 *
 * The two debug modes (boot option slub_debug_mode=, or per cache at create time):
 *   locked   no cpu slab: every alloc and free takes list_lock and works on slab->freelist
 *            of the first node partial slab, as Linux does for debug caches
 *            (alloc_single_from_partial, free_to_partial_list). Runs on the scheme
 *            registered SLAB_SCHEME_DEBUG_LOCKED (lock).
 *   partial  the checks stay, but objects come from this cpu's slab and go back through the
 *            core's cpu slab and per-cpu partial lists of the SLAB_SCHEME_DEBUG_PARTIAL
 *            scheme (partial), as Joonsoo Kim proposed (linux-mm, April 2016, replying to
 *            Laura Abbott's "mm/slub: Skip CPU slab activation when debugging"); every
 *            pointer taken from a cpu freelist is checked before it is followed.
 *   A debug cache asked for with any other scheme runs on one of these two, and says so in
 *   slabinfo (slub_debug_replaced_scheme): Linux too turns sheaves off for debug caches.
 *
 * Damage found is reported like Linux ("BUG kmalloc-64: Right Redzone overwritten", the
 * address, a hex dump around the damage, the tracking) and counted (slab_error_count()).
 * Then it is set aside, never reused: a damaged object stays allocated for good (isolated);
 * a slab whose freelist cannot be trusted leaves every list with all its objects counted in
 * use (quarantined, Linux's "Marking all objects used"). Live objects of a quarantined slab
 * may still be freed: they are checked and then left where they are.
 *
 * Concurrency: in locked mode everything about a slab happens under list_lock. In partial
 * mode the core's rules hold (mm/slub.c); the tables of isolated objects and quarantined
 * slabs have their own lock. kmem_cache_validate walks slabs under list_lock after flushing
 * every cpu: it is exact when no other cpu uses the cache meanwhile (as in Linux's tests).
 */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/irqflags.h"
#include "kernel/kallsyms.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/random.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub_debug.h"

#define SLUB_RED_INACTIVE 0xbb
#define SLUB_RED_ACTIVE 0xcc
#define POISON_INUSE 0x5a /* padding */
#define POISON_FREE 0x6b
#define POISON_END 0xa5
#define OBJ_ACTIVE 0xa11ca7eda11ca7edUL
#define OBJ_FREE 0xf7eef7eef7eef7eeUL
#define OBJ_ISOLATED 0xdeadb1ecdeadb1ecUL

#define MAX_OBJS_PER_SLAB (KMEM_CACHE_MAX_SIZE / 8)
#define ISOLATED_MAX 192
#define QUARANTINE_MAX 48

struct slub_track {
	void *caller;
	u64 when; /* TSC */
	u32 cpu;
	u32 _pad;
};

struct slub_debug_state {
	const struct slab_scheme *base; /* the scheme the cache would have otherwise */
	const struct slab_scheme *asked; /* the one it was created with (debug may replace it) */
	struct slab_scheme scheme;      /* base with the functions below in front */
	unsigned long debug;            /* SLAB_* debug flags */
	enum slab_debug_mode mode;      /* LOCKED or PARTIAL (debug caches) */
	bool init_on_alloc, init_on_free;
	/* From the object start; 0: not there. */
	unsigned int rz_end, state_off, orig_off, track_off, meta_end;
	u16 *random_seq; /* freelist_random: objects' order in a new slab */
	unsigned int random_seq_order;
	unsigned long errors; /* reports about this cache */
	unsigned long min_pfn, max_pfn; /* where its slabs have been: validation looks there */
	struct spinlock lock;
	/* lock must be held to use these: */
	unsigned long nr_isolated, nr_quarantined; /* all time */
	unsigned int n_isolated, n_quarantined;    /* in the tables */
	void *isolated[ISOLATED_MAX];
	struct slab *quarantined[QUARANTINE_MAX];
	/* kmem_cache_validate, list_lock held: */
	unsigned long free_bits[MAX_OBJS_PER_SLAB / 64];
	unsigned long bad_bits[MAX_OBJS_PER_SLAB / 64];
};
_Static_assert(sizeof(struct slub_debug_state) <= PAGE_SIZE, "a cache's debug state fits a page");

static unsigned long slab_errors;
static DEFINE_SPINLOCK(report_lock);
static enum slab_debug_mode boot_mode = SLAB_DEBUG_LOCKED;
static bool hardened, random_order, init_alloc, init_free;

/* Boot options (docs/options.md), read by slub_debug_boot_init (slub_debug=: in
 * mm/slub_debug_option.c, with its parser). */
static char debug_mode_name[16];
unsigned int slub_freelist_hardened, slub_freelist_random, slub_init_on_alloc, slub_init_on_free;
static const char *const debug_mode_names[] = { "locked", "partial", NULL };

boot_param(slub_debug_mode, debug_mode_name, enum, debug_mode_names, "locked",
	   "debug caches: locked (every operation under list_lock) or partial (per-cpu partial lists)");
boot_param(freelist_hardened, slub_freelist_hardened, uint, (0, 1), 0,
	   "1: free pointers stored obfuscated");
boot_param(freelist_random, slub_freelist_random, uint, (0, 1), 0,
	   "1: new slabs hand out objects in a shuffled order");
boot_param(init_on_alloc, slub_init_on_alloc, uint, (0, 1), 0,
	   "1: zero objects when they are allocated");
boot_param(init_on_free, slub_init_on_free, uint, (0, 1), 0,
	   "1: zero objects when they are freed");

static inline struct slub_debug_state *dbg_of(struct kmem_cache *s)
{
	return s->dbg;
}

/* ---- layout helpers ---- */

static inline char *slot_of(struct kmem_cache *s, void *obj)
{
	return (char *)obj - s->red_left_pad;
}

static inline void *obj_at(struct kmem_cache *s, struct slab *slab, unsigned int i)
{
	return (char *)slab_address(slab) + (unsigned long)i * s->size + s->red_left_pad;
}

/* Is p the start of an object of slab? (The core's object_start without a left pad.) */
static bool valid_obj(struct kmem_cache *s, struct slab *slab, const void *p)
{
	uptr base = (uptr)slab_address(slab) + s->red_left_pad;
	unsigned long off;

	if (!slab || (uptr)p < base)
		return false;
	off = (unsigned long)((uptr)p - base);
	return off % s->size == 0 && off / s->size < slab->objects;
}

static inline unsigned int obj_index(struct kmem_cache *s, struct slab *slab, const void *p)
{
	return (unsigned int)(((uptr)p - (uptr)slab_address(slab) - s->red_left_pad) / s->size);
}

static inline u64 *state_word(struct slub_debug_state *x, void *obj)
{
	return (u64 *)((char *)obj + x->state_off);
}

static inline u64 *orig_word(struct slub_debug_state *x, void *obj)
{
	return (u64 *)((char *)obj + x->orig_off);
}

static inline struct slub_track *track_of(struct slub_debug_state *x, void *obj, bool freed)
{
	return (struct slub_track *)((char *)obj + x->track_off) + freed;
}

/* The requested size of an allocated object (kmalloc), object_size if out of range. */
static unsigned int orig_size(struct kmem_cache *s, void *obj)
{
	struct slub_debug_state *x = dbg_of(s);
	u64 v;

	if (!x->orig_off)
		return s->object_size;
	v = *orig_word(x, obj);
	return v <= s->object_size ? (unsigned int)v : s->object_size;
}

static __noinline void set_track(struct kmem_cache *s, void *obj, bool freed, void *caller)
{
	struct slub_debug_state *x = dbg_of(s);
	struct slub_track *t;

	if (!(x->debug & SLAB_STORE_USER))
		return;
	t = track_of(x, obj, freed);
	t->caller = caller;
	t->when = get_cycles();
	t->cpu = (u32)smp_processor_id();
}

/* Red zones and state of an object becoming allocated (active) or free. */
static void mark_object(struct kmem_cache *s, void *obj, bool active)
{
	struct slub_debug_state *x = dbg_of(s);
	u8 rz = active ? SLUB_RED_ACTIVE : SLUB_RED_INACTIVE;

	if (x->debug & SLAB_RED_ZONE) {
		memset(slot_of(s, obj), rz, s->red_left_pad);
		memset((char *)obj + s->object_size, rz, x->rz_end - s->object_size);
		*orig_word(x, obj) = s->object_size;
	}
	if (x->debug & SLAB_CONSISTENCY_CHECKS)
		*state_word(x, obj) = active ? OBJ_ACTIVE : OBJ_FREE;
}

static void poison_object(struct kmem_cache *s, void *obj)
{
	if (!(dbg_of(s)->debug & SLAB_POISON) || slab_keeps_content(s))
		return; /* a constructed object keeps its content while free */
	memset(obj, POISON_FREE, s->object_size - 1);
	((u8 *)obj)[s->object_size - 1] = POISON_END;
}

/* ---- reports ---- */

static const char *region_name(struct kmem_cache *s, long off)
{
	struct slub_debug_state *x = dbg_of(s);

	if (off < 0)
		return "Redzone";
	if (off < s->object_size)
		return "Object";
	if (off < x->rz_end)
		return (x->debug & SLAB_RED_ZONE) ? "Redzone" : "Object";
	if (off < x->meta_end)
		return "Metadata";
	return "Padding";
}

/* Lines of 16 bytes of obj's slot from..to (offsets from obj), labelled by region. */
static void hex_dump(struct kmem_cache *s, void *obj, long from, long to)
{
	long lo = -(long)s->red_left_pad, hi = (long)(s->size - s->red_left_pad);

	from = MAX(lo, from & ~15L);
	to = MIN(hi, to);
	for (long off = from, end; off < to; off = end) {
		const char *region = region_name(s, off);
		char line[16 * 3 + 1];
		unsigned n = 0;

		/* Up to 16 bytes, and a new line where the next region starts. */
		for (end = off; end < MIN(to, off + 16) && region_name(s, end) == region; end++)
			n += (unsigned)snprintf(line + n, sizeof(line) - n, " %02x",
						((u8 *)obj)[end]);
		printk("%-8s %#lx:%s\n", region, (unsigned long)((uptr)obj + off), line);
	}
}

static void print_track(struct slub_debug_state *x, void *obj, bool freed)
{
	struct slub_track *t = track_of(x, obj, freed);
	const char *fn;
	u64 off;

	if (!t->caller)
		return;
	fn = kallsyms_lookup((u64)(uptr)t->caller, &off);
	printk("%s in %s+%#llx age=%llu cycles cpu=%u\n", freed ? "Freed" : "Allocated",
	       fn ? fn : "?", (unsigned long long)(fn ? off : (u64)(uptr)t->caller),
	       (unsigned long long)(get_cycles() - t->when), t->cpu);
}

/*
 * report_lock keeps one report's lines together. In an NMI (kmalloc_nolock's checks) it is
 * only tried: the code the NMI interrupted may be printing a report itself, and an NMI's
 * printk goes to its cpu's own buffer, whose lines no other cpu splits. flags then says
 * whether it was had: REPORT_NMI_LOCKED or REPORT_NMI_UNLOCKED (saved flags are never
 * these: bit 1 of RFLAGS is always set).
 */
#define REPORT_NMI_UNLOCKED 0UL
#define REPORT_NMI_LOCKED 1UL

static void report_begin(struct kmem_cache *s, const char *what, unsigned long *flags)
{
	if (in_nmi())
		*flags = spin_trylock_nmi(&report_lock) ? REPORT_NMI_LOCKED : REPORT_NMI_UNLOCKED;
	else
		spin_lock_irqsave(&report_lock, *flags);
	__atomic_fetch_add(&slab_errors, 1, __ATOMIC_RELAXED);
	if (s->dbg)
		__atomic_fetch_add(&dbg_of(s)->errors, 1, __ATOMIC_RELAXED);
	printk("=============================================================================\n");
	printk("BUG %s: %s\n", s->name, what);
	printk("-----------------------------------------------------------------------------\n");
}

static void report_end(struct kmem_cache *s, const char *fix, unsigned long flags)
{
	printk("FIX %s: %s\n\n", s->name, fix);
	if (!in_nmi())
		spin_unlock_irqrestore(&report_lock, flags);
	else if (flags == REPORT_NMI_LOCKED)
		spin_unlock(&report_lock);
}

static void print_object_info(struct kmem_cache *s, struct slab *slab, void *obj)
{
	struct slub_debug_state *x = dbg_of(s);

	if (x->debug & SLAB_STORE_USER) {
		print_track(x, obj, false);
		print_track(x, obj, true);
	}
	printk("Slab %#lx objects=%u used=%u fp=%#lx\n", (unsigned long)(uptr)slab_address(slab),
	       slab->objects, slab->inuse, (unsigned long)(uptr)slab->freelist);
	printk("Object %#lx @offset=%lu\n", (unsigned long)(uptr)obj,
	       (unsigned long)((uptr)obj - (uptr)slab_address(slab)));
}

/* Damage at bytes bad..bad_end of obj (first byte found and expected). */
static void report_bytes(struct kmem_cache *s, struct slab *slab, void *obj, const char *what,
			 u8 *bad, u8 *bad_end, u8 expected, const char *fix)
{
	unsigned long flags;
	long off = (long)(bad - (u8 *)obj);

	report_begin(s, what, &flags);
	printk("\n%#lx-%#lx @offset=%lu. First byte %#x instead of %#x\n",
	       (unsigned long)(uptr)bad, (unsigned long)(uptr)(bad_end - 1),
	       (unsigned long)((uptr)bad - (uptr)slab_address(slab)), *bad, expected);
	print_object_info(s, slab, obj);
	printk("\n");
	hex_dump(s, obj, off - 32, off + 48);
	report_end(s, fix, flags);
}

/* A report about an object without one damaged byte range. */
static void report_object(struct kmem_cache *s, struct slab *slab, void *obj, const char *what,
			  const char *fix)
{
	unsigned long flags;

	report_begin(s, what, &flags);
	printk("\n");
	print_object_info(s, slab, obj);
	printk("\n");
	hex_dump(s, obj, -(long)s->red_left_pad, 32);
	report_end(s, fix, flags);
}

static void report_pointer(struct kmem_cache *s, struct slab *slab, const void *p,
			   const char *what, void *caller, const char *fix)
{
	unsigned long flags;
	const char *fn;
	u64 off;

	report_begin(s, what, &flags);
	if (caller) {
		fn = kallsyms_lookup((u64)(uptr)caller, &off);
		printk("\nPointer %#lx, caller %s+%#llx\n", (unsigned long)(uptr)p, fn ? fn : "?",
		       (unsigned long long)(fn ? off : (u64)(uptr)caller));
	} else {
		printk("\nPointer %#lx\n", (unsigned long)(uptr)p);
	}
	if (slab)
		printk("Slab %#lx objects=%u used=%u fp=%#lx\n",
		       (unsigned long)(uptr)slab_address(slab), slab->objects, slab->inuse,
		       (unsigned long)(uptr)slab->freelist);
	report_end(s, fix, flags);
}

void slab_error_counted(void)
{
	__atomic_fetch_add(&slab_errors, 1, __ATOMIC_RELAXED);
}

unsigned long slab_error_count(void)
{
	return __atomic_load_n(&slab_errors, __ATOMIC_RELAXED);
}

/* ---- setting damage aside ---- */

/*
 * Isolated objects: with F the state word says so (no bound); otherwise a table of the
 * last ISOLATED_MAX (beyond it they are still never reused, but validation would report
 * them again).
 */
static bool is_isolated(struct kmem_cache *s, void *obj)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags;
	bool found = false;

	if ((x->debug & SLAB_CONSISTENCY_CHECKS) && *state_word(x, obj) == OBJ_ISOLATED)
		return true;
	if (!__atomic_load_n(&x->n_isolated, __ATOMIC_RELAXED))
		return false; /* the usual case, without the lock */
	spin_lock_irqsave(&x->lock, flags);
	for (unsigned int i = 0; i < x->n_isolated && !found; i++)
		found = x->isolated[i] == obj;
	spin_unlock_irqrestore(&x->lock, flags);
	return found;
}

static void isolate_object(struct kmem_cache *s, void *obj)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags;

	spin_lock_irqsave(&x->lock, flags);
	x->nr_isolated++;
	if (x->debug & SLAB_CONSISTENCY_CHECKS)
		*state_word(x, obj) = OBJ_ISOLATED;
	else if (x->n_isolated < ISOLATED_MAX)
		__atomic_store_n(&x->isolated[x->n_isolated], obj, __ATOMIC_RELAXED),
		__atomic_store_n(&x->n_isolated, x->n_isolated + 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&x->lock, flags);
}

static bool is_quarantined(struct kmem_cache *s, struct slab *slab)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags;
	bool found = false;

	if (!__atomic_load_n(&x->n_quarantined, __ATOMIC_RELAXED))
		return false; /* the usual case, without the lock */
	spin_lock_irqsave(&x->lock, flags);
	for (unsigned int i = 0; i < x->n_quarantined && !found; i++)
		found = x->quarantined[i] == slab;
	spin_unlock_irqrestore(&x->lock, flags);
	return found;
}

static void add_quarantine(struct kmem_cache *s, struct slab *slab)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags;

	spin_lock_irqsave(&x->lock, flags);
	x->nr_quarantined++;
	if (x->n_quarantined < QUARANTINE_MAX)
		x->quarantined[x->n_quarantined] = slab,
		__atomic_store_n(&x->n_quarantined, x->n_quarantined + 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&x->lock, flags);
}

/* An unfrozen slab with a bad freelist (list_lock held): off the list, all objects used. */
static void quarantine_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
				   struct slab *slab)
{
	if (slab->freelist)
		remove_partial(n, slab); /* unfrozen with free objects: on the node list */
	slab->freelist = NULL;
	slab->inuse = slab->objects;
	add_quarantine(s, slab);
}

/* This cpu's slab has a bad cpu freelist (interrupts off): drop both, all objects used. */
static void quarantine_cpu_slab(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct slab *slab = c->slab, new;
	unsigned long counters;
	void *freelist;

	cpu_freelist_set(s, c, NULL); /* with a tid, the next: an interrupted cmpxchg retries */
	cpu_slab_set(s, c, NULL);
	cpu_freelist_forget(s, c);
	if (!slab)
		return;
	do {
		slab_read_freelist(slab, &freelist, &counters);
		new.counters = counters;
		new.inuse = new.objects;
		new.frozen = 0;
	} while (!slab_update_freelist(s, slab, freelist, counters, NULL, new.counters));
	add_quarantine(s, slab);
}

/* ---- checks ---- */

/* Are len bytes at p all v? Else report what and return false. */
static bool check_bytes(struct kmem_cache *s, struct slab *slab, void *obj, u8 *p, unsigned long len,
			u8 v, const char *what)
{
	u8 *end = p + len, *bad = p, *bad_end;
	u64 word = v * 0x0101010101010101ULL;

	/* Eight bytes at a time while aligned (poison checks cover whole objects), then bytes. */
	while (bad < end && ((uptr)bad & 7))
		if (*bad++ != v) {
			bad--;
			goto found;
		}
	while (bad + 8 <= end && *(u64 *)bad == word)
		bad += 8;
	while (bad < end && *bad == v)
		bad++;
found:
	if (bad == end)
		return true;
	for (bad_end = end; bad_end > bad && bad_end[-1] == v; bad_end--)
		;
	report_bytes(s, slab, obj, what, bad, bad_end, v, "object isolated, never reused");
	return false;
}

/*
 * Everything about one object that its state (allocated or free) says: red zones, poison,
 * padding, state word. Reports the first damage and returns false.
 */
static bool check_object(struct kmem_cache *s, struct slab *slab, void *obj, bool active)
{
	struct slub_debug_state *x = dbg_of(s);
	u8 rz = active ? SLUB_RED_ACTIVE : SLUB_RED_INACTIVE;
	unsigned int from;

	if (x->debug & SLAB_RED_ZONE) {
		if (!check_bytes(s, slab, obj, (u8 *)slot_of(s, obj), s->red_left_pad, rz,
				 "Left Redzone overwritten"))
			return false;
		from = active ? orig_size(s, obj) : s->object_size;
		if (!check_bytes(s, slab, obj, (u8 *)obj + from, x->rz_end - from, rz,
				 "Right Redzone overwritten"))
			return false;
	}
	if ((x->debug & SLAB_POISON) && !active && !slab_keeps_content(s)) {
		if (!check_bytes(s, slab, obj, obj, s->object_size - 1, POISON_FREE,
				 "Poison overwritten") ||
		    !check_bytes(s, slab, obj, (u8 *)obj + s->object_size - 1, 1, POISON_END,
				 "Poison overwritten"))
			return false;
	}
	if (x->debug & SLAB_POISON) {
		if (!check_bytes(s, slab, obj, (u8 *)obj + x->meta_end,
				 s->size - s->red_left_pad - x->meta_end, POISON_INUSE,
				 "Object padding overwritten"))
			return false;
	}
	if ((x->debug & SLAB_CONSISTENCY_CHECKS) &&
	    *state_word(x, obj) != (active ? OBJ_ACTIVE : OBJ_FREE)) {
		report_object(s, slab, obj, active ? "Object state corrupt (not allocated)"
						   : "Object state corrupt (not free)",
			      "object isolated, never reused");
		return false;
	}
	return true;
}

/*
 * Is an object being freed free already? With F its state word says so; without, its red
 * zones (Z) do: an allocated object's are 0xcc. Other caches rely on the core's check (the
 * object is the freelist's head).
 */
static __noinline bool looks_free(struct kmem_cache *s, void *obj)
{
	struct slub_debug_state *x = dbg_of(s);
	u8 *p;

	if (x->debug & SLAB_CONSISTENCY_CHECKS)
		return *state_word(x, obj) == OBJ_FREE;
	if (x->debug & SLAB_RED_ZONE) {
		for (p = (u8 *)slot_of(s, obj); p < (u8 *)obj; p++)
			if (*p != SLUB_RED_INACTIVE)
				return false;
		for (p = (u8 *)obj + s->object_size; p < (u8 *)obj + x->rz_end; p++)
			if (*p != SLUB_RED_INACTIVE)
				return false;
		return true;
	}
	/* Poison cannot tell: an object nobody wrote since its allocation still has it. */
	return false;
}

/* ---- the two debug modes ---- */

/* locked: one object off the first node partial slab, or a new slab, under list_lock. */
static __noinline void *locked_pop(struct kmem_cache *s, gfp_t gfp)
{
	struct kmem_cache_node *n = get_node(s);
	struct kmem_cache_cpu *c;
	unsigned long flags;
	struct slab *slab;
	void *obj;

	local_irq_save(flags);
	c = &s->cpu_slab[smp_processor_id()];
	slub_lock_node(s, c, n);
	stat(s, c, ALLOC_SLOWPATH);
	for (;;) {
		if (list_empty(&n->partial)) {
			/* The page allocator's lock nests inside list_lock (mm/slub.c). */
			slab = allocate_slab(s, gfp);
			if (!slab) {
				spin_unlock(&n->list_lock);
				local_irq_restore(flags);
				if (!(gfp & __GFP_NOWARN))
					printk("slab: %s: out of memory (order-%u slab)\n", s->name,
					       s->order);
				return NULL;
			}
			stat(s, c, ALLOC_SLAB);
			add_partial(n, slab, false);
		}
		slab = list_first_entry(&n->partial, struct slab, slab_list);
		obj = slab->freelist;
		if (unlikely(!valid_obj(s, slab, obj))) {
			report_pointer(s, slab, obj, "Freepointer corrupt", NULL,
				       "slab quarantined: all objects marked used");
		} else if ((dbg_of(s)->debug & SLAB_CONSISTENCY_CHECKS) &&
			   unlikely(slab->inuse >= slab->objects)) {
			report_pointer(s, slab, obj, "Wrong object count: all in use, yet one is free",
				       NULL, "slab quarantined: all objects marked used");
		} else {
			break;
		}
		quarantine_slab_locked(s, n, slab);
	}
	slab->freelist = get_freepointer(s, obj);
	slab->inuse++;
	if (!slab->freelist)
		remove_partial(n, slab); /* full: on no list until a free */
	spin_unlock(&n->list_lock);
	local_irq_restore(flags);
	return obj;
}

/* locked: an object back onto its slab's freelist, under list_lock. */
static __noinline void locked_push(struct kmem_cache *s, struct slab *slab, void *obj, void *caller)
{
	struct kmem_cache_node *n = get_node(s);
	struct kmem_cache_cpu *c;
	unsigned long flags;
	void *prior;

	local_irq_save(flags);
	c = &s->cpu_slab[smp_processor_id()];
	slub_lock_node(s, c, n);
	stat(s, c, FREE_SLOWPATH);
	prior = slab->freelist;
	if ((dbg_of(s)->debug & SLAB_CONSISTENCY_CHECKS) && unlikely(!slab->inuse)) {
		spin_unlock(&n->list_lock);
		local_irq_restore(flags);
		report_pointer(s, slab, obj, "Wrong object count: none in use, yet one is freed",
			       caller, "free refused");
		return;
	}
	if (unlikely(prior == obj)) { /* without F this is the only double free check */
		spin_unlock(&n->list_lock);
		local_irq_restore(flags);
		slab_report_bad(s, obj, caller, "double free of");
		return;
	}
	set_freepointer(s, obj, prior);
	slab->freelist = obj;
	slab->inuse--;
	if (!slab->inuse && n->nr_partial >= s->min_partial) {
		if (prior)
			remove_partial(n, slab);
		spin_unlock(&n->list_lock);
		discard_slab(s, c, slab);
		local_irq_restore(flags);
		return;
	}
	if (!prior) {
		add_partial(n, slab, true);
		stat(s, c, FREE_ADD_PARTIAL);
	}
	spin_unlock(&n->list_lock);
	local_irq_restore(flags);
}

/* partial: one object from this cpu's slab, its pointer checked before it is followed. */
static __noinline void *partial_pop(struct kmem_cache *s, gfp_t gfp)
{
	struct kmem_cache_cpu *c;
	unsigned long flags;
	void *obj;

	local_irq_save(flags);
	c = &s->cpu_slab[smp_processor_id()];
	obj = cpu_freelist(c);
	if (obj && unlikely(!valid_obj(s, c->slab, obj))) {
		report_pointer(s, c->slab, obj, "Freepointer corrupt", NULL,
			       "cpu slab quarantined: all objects marked used");
		quarantine_cpu_slab(s, c);
	}
	if (cpu_freelist(c))
		stat(s, c, ALLOC_FASTPATH); /* the slow path counts itself */
	obj = slab_alloc_for_layer(s, c, gfp);
	local_irq_restore(flags);
	return obj;
}

/* Interrupts off, this cpu: check the cpu freelist before the core walks it. */
void slub_debug_cpu_freelist(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned int n = 0;

	if (!s->dbg || !c->slab)
		return;
	for (void *p = cpu_freelist(c); p; p = get_freepointer(s, p)) {
		if (!valid_obj(s, c->slab, p) || ++n > c->slab->objects) {
			report_pointer(s, c->slab, p, "Freepointer corrupt", NULL,
				       "cpu slab quarantined: all objects marked used");
			quarantine_cpu_slab(s, c);
			return;
		}
	}
}

/* ---- allocation and free of debug caches ---- */

/*
 * init_on_free: zero the object but the free pointer's word, which the free writes anyway:
 * a double free (refused later, with the object on a freelist) must not cut that freelist.
 */
static void zero_but_free_pointer(struct kmem_cache *s, void *p)
{
	if (s->offset + sizeof(void *) > s->object_size) {
		memset(p, 0, s->object_size);
		return;
	}
	memset(p, 0, s->offset);
	memset((char *)p + s->offset + sizeof(void *), 0,
	       s->object_size - s->offset - sizeof(void *));
}


static void *debug_alloc(struct kmem_cache *s, gfp_t gfp, void *caller)
{
	struct slub_debug_state *x = dbg_of(s);
	void *obj;

	for (;;) {
		obj = x->mode == SLAB_DEBUG_LOCKED ? locked_pop(s, gfp) : partial_pop(s, gfp);
		if (!obj)
			return NULL;
		/* Ours now: checked outside any lock. Damaged: set aside, take the next. */
		if (check_object(s, virt_to_slab(obj), obj, false))
			break;
		isolate_object(s, obj);
	}
	mark_object(s, obj, true);
	set_track(s, obj, false, caller);
	if ((gfp & __GFP_ZERO) || (x->init_on_alloc && !slab_keeps_content(s))) /* Linux: not over a ctor */
		memset(obj, 0, s->object_size);
	return obj;
}

void slub_debug_free(struct kmem_cache *s, void *p, void *caller)
{
	struct slub_debug_state *x = dbg_of(s);
	struct slab *slab = virt_to_slab(p);
	unsigned long flags;

	if (!slab) {
		slab_report_bad(s, p, caller, "free of a pointer that is not a slab object:");
		return;
	}
	if (slab->slab_cache != s) {
		char what[80];

		snprintf(what, sizeof(what), "free of an object of cache %s:", slab->slab_cache->name);
		slab_report_bad(s, p, caller, what);
		return;
	}
	if (!valid_obj(s, slab, p)) {
		report_pointer(s, slab, p, "Invalid object pointer (not at an object start)", caller,
			       "free refused");
		return;
	}
	if (is_isolated(s, p))
		return; /* reported when it was set aside; it stays allocated */
	if (looks_free(s, p)) {
		report_pointer(s, slab, p, "Object already free", caller, "free refused");
		return;
	}
	if (!check_object(s, slab, p, true)) {
		isolate_object(s, p);
		return;
	}
	mark_object(s, p, false);
	set_track(s, p, true, caller);
	if ((x->debug & SLAB_POISON) && !slab_keeps_content(s))
		poison_object(s, p);
	else if (x->init_on_free && !slab_keeps_content(s))
		zero_but_free_pointer(s, p);
	if (is_quarantined(s, slab))
		return; /* checked, but its slab hands out nothing any more */
	if (x->mode == SLAB_DEBUG_LOCKED) {
		locked_push(s, slab, p, caller);
		return;
	}
	local_irq_save(flags);
	slab_free_object_for_layer(s, &s->cpu_slab[smp_processor_id()], slab, p, caller);
	local_irq_restore(flags);
}

/*
 * kmalloc_nolock's object of a debug or hardened cache, taken off a slab by
 * mm/slub_nolock.c (list_lock tried, never waited for): what debug_alloc and
 * slub_kmalloc_layer do to an object, taking no lock. NULL when it is damaged: reported,
 * and left allocated for good (with F its state word says isolated; the table of isolated
 * objects, under x->lock, is left alone).
 */
void *slub_debug_nolock_alloc(struct kmem_cache *s, void *obj, size_t size, gfp_t gfp,
			      void *caller)
{
	struct slub_debug_state *x = dbg_of(s);

	if (x->debug) {
		if (!check_object(s, virt_to_slab(obj), obj, false)) {
			if (x->debug & SLAB_CONSISTENCY_CHECKS)
				*state_word(x, obj) = OBJ_ISOLATED;
			return NULL;
		}
		mark_object(s, obj, true);
		set_track(s, obj, false, caller);
	}
	if ((gfp & __GFP_ZERO) || (x->init_on_alloc && !s->ctor))
		memset(obj, 0, s->object_size);
	if ((x->debug & SLAB_RED_ZONE) && size && size <= s->object_size) {
		*orig_word(x, obj) = size;
		memset((char *)obj + size, SLUB_RED_ACTIVE, s->object_size - size);
	}
	return obj;
}

bool slub_debug_valid_obj(struct kmem_cache *s, struct slab *slab, const void *p)
{
	return valid_obj(s, slab, p);
}

/* ---- the debug scheme's entry points (debug or hardened caches) ---- */

/*
 * The caller of kmem_cache_alloc, which calls us through s->layer_alloc: one frame up. The
 * kernel keeps frame pointers; the host build may not, so there we name ourselves.
 */
#ifdef SLABLAB_HOST_KERNEL_H
#define ALLOC_CALLER() __builtin_return_address(0)
#else
#define ALLOC_CALLER() __builtin_return_address(1)
#endif

static void *plain_alloc(struct kmem_cache *s, gfp_t gfp)
{
	struct slub_debug_state *x = dbg_of(s);
	void *p;

	if (x->base->alloc)
		p = x->base->alloc(s, gfp);
	else
		p = slab_alloc_hardened(s, gfp); /* the fastpath, decoding free pointers */
	if (p && x->init_on_alloc && !slab_keeps_content(s) && !(gfp & __GFP_ZERO))
		memset(p, 0, s->object_size);
	return p;
}

/* An object the core has checked (free_check). */
static void plain_free(struct kmem_cache *s, void *p, void *caller)
{
	struct slub_debug_state *x = dbg_of(s);

	if (x->init_on_free && !slab_keeps_content(s))
		zero_but_free_pointer(s, p);
	if (x->base->free)
		x->base->free(s, p, caller);
	else
		slab_free_hardened(s, p, caller);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wframe-address"
static __noinline void *dbg_alloc(struct kmem_cache *s, gfp_t gfp)
{
	if (dbg_of(s)->debug)
		return debug_alloc(s, gfp, ALLOC_CALLER());
	return plain_alloc(s, gfp);
}
#pragma GCC diagnostic pop

static void dbg_free(struct kmem_cache *s, void *p, void *caller)
{
	if (dbg_of(s)->debug)
		slub_debug_free(s, p, caller);
	else
		plain_free(s, p, caller);
}

static void dbg_free_unchecked(struct kmem_cache *s, void *p, void *caller)
{
	struct slab *slab;

	if (!p)
		return;
	if (dbg_of(s)->debug) {
		slub_debug_free(s, p, caller);
		return;
	}
	slab = slab_free_check(s, p, caller);
	if (slab)
		plain_free(s, p, caller);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wframe-address"
static __noinline int dbg_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
	struct slub_debug_state *x = dbg_of(s);
	void *caller = ALLOC_CALLER();
	size_t i;

	if (!x->debug && x->base->alloc_bulk) {
		if (!x->base->alloc_bulk(s, gfp, n, p))
			return 0;
		if (x->init_on_alloc && !slab_keeps_content(s) && !(gfp & __GFP_ZERO))
			for (i = 0; i < n; i++)
				memset(p[i], 0, s->object_size);
		return (int)n;
	}
	for (i = 0; i < n; i++) {
		p[i] = x->debug ? debug_alloc(s, gfp, caller) : plain_alloc(s, gfp);
		if (!p[i]) {
			while (i--)
				dbg_free(s, p[i], caller);
			return 0;
		}
	}
	return (int)n;
}
#pragma GCC diagnostic pop

/*
 * One object at a time, each checked as a single free. A duplicate among the eight entries
 * before it is refused first, as sheaves' own bulk free does, unless the consistency checks
 * are on (they find any object freed twice, with their own report): a single free, which a
 * hardened cache's goes on to, catches only the object freed last.
 */
static void dbg_free_bulk(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	bool window = !(dbg_of(s)->debug & SLAB_CONSISTENCY_CHECKS);

	for (size_t i = 0; i < n; i++) {
		if (window && p[i] && bulk_free_seen_recently(p, i)) {
			slab_report_bad(s, p[i], caller, "double free (twice in one bulk) of");
			continue;
		}
		dbg_free_unchecked(s, p[i], caller);
	}
}

bool slub_debug_checks_bulk(struct kmem_cache *s)
{
	return s->scheme->free_bulk == dbg_free_bulk;
}

void *slub_kmalloc_layer(struct kmem_cache *s, size_t size, gfp_t gfp, void *caller)
{
	struct slub_debug_state *x = dbg_of(s);
	void *p;

	if (!x || !x->debug) {
		p = s->layer_alloc(s, gfp);
		if (p && (gfp & __GFP_ZERO))
			memset(p, 0, s->object_size);
		return p;
	}
	if (!size || size > s->object_size) {
		printk("kmalloc_from_cache(%s): size %zu is not in 1..%u\n", s->name, size,
		       s->object_size);
		return NULL;
	}
	p = debug_alloc(s, gfp, caller);
	if (p && (x->debug & SLAB_RED_ZONE)) {
		*orig_word(x, p) = size;
		memset((char *)p + size, SLUB_RED_ACTIVE, s->object_size - size);
	}
	return p;
}

void *kmalloc_from_cache(struct kmem_cache *s, size_t size, gfp_t gfp)
{
	return slub_kmalloc_layer(s, size, gfp, __builtin_return_address(0));
}

void slub_debug_resize(struct kmem_cache *s, void *p, size_t size)
{
	struct slub_debug_state *x = dbg_of(s);
	struct slab *slab = virt_to_slab(p);

	if (!x || !(x->debug & SLAB_RED_ZONE) || !slab || !valid_obj(s, slab, p) ||
	    size > s->object_size)
		return;
	if (size > orig_size(s, p))
		memset((char *)p + orig_size(s, p), 0, size - orig_size(s, p));
	*orig_word(x, p) = size;
	memset((char *)p + size, SLUB_RED_ACTIVE, s->object_size - size);
}

/* ---- new slabs ---- */

void *slub_debug_setup_slab(struct kmem_cache *s, struct slab *slab)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned int n = slab->objects, start = 0;
	unsigned long pfn = page_to_pfn((struct page *)slab), seen;
	void *head = NULL;

	/* Without x->lock: kmalloc_nolock's new slabs come here from NMI context too. */
	seen = __atomic_load_n(&x->min_pfn, __ATOMIC_RELAXED);
	while (pfn < seen && !__atomic_compare_exchange_n(&x->min_pfn, &seen, pfn, true,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	seen = __atomic_load_n(&x->max_pfn, __ATOMIC_RELAXED);
	while (pfn > seen && !__atomic_compare_exchange_n(&x->max_pfn, &seen, pfn, true,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;

	for (unsigned int i = 0; i < n; i++) {
		void *obj = obj_at(s, slab, i);

		if (x->debug) {
			if (x->debug & SLAB_POISON)
				memset((char *)obj + x->meta_end, POISON_INUSE,
				       s->size - s->red_left_pad - x->meta_end);
			if (x->debug & SLAB_STORE_USER)
				memset(track_of(x, obj, false), 0, 2 * sizeof(struct slub_track));
			mark_object(s, obj, false);
			poison_object(s, obj);
		}
		if (s->ctor)
			s->ctor(obj);
	}
	/* Linked from the last: the freelist runs in index order, or in the shuffled one
	 * starting at a random place of it (Linux's freelist_randomize). */
	if (x->random_seq)
		start = (unsigned int)(get_random_u64() % n);
	for (unsigned int k = n; k-- > 0;) {
		unsigned int i = x->random_seq ? x->random_seq[(start + k) % n] : k;
		void *obj = obj_at(s, slab, i);

		set_freepointer(s, obj, head);
		head = obj;
	}
	return head;
}

/* ---- validation ---- */

static inline bool test_bit_(const unsigned long *b, unsigned int i)
{
	return b[i / 64] & (1UL << (i % 64));
}

static inline void set_bit_(unsigned long *b, unsigned int i)
{
	b[i / 64] |= 1UL << (i % 64);
}

/* One unfrozen slab, list_lock held. */
static void validate_slab(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned int objects = slab->objects, nfree = 0, nbad = 0;
	void *p, *prev = NULL;

	memset(x->free_bits, 0, sizeof(x->free_bits));
	memset(x->bad_bits, 0, sizeof(x->bad_bits));
	for (p = slab->freelist; p; prev = p, p = get_freepointer(s, p)) {
		if (!valid_obj(s, slab, p) || test_bit_(x->free_bits, obj_index(s, slab, p))) {
			report_pointer(s, slab, p, "Freepointer corrupt", NULL,
				       "slab quarantined: all objects marked used");
			quarantine_slab_locked(s, n, slab);
			return;
		}
		set_bit_(x->free_bits, obj_index(s, slab, p));
		nfree++;
	}
	if (slab->inuse != objects - nfree) {
		char what[80];

		snprintf(what, sizeof(what), "Wrong object count: %u in use, counted %u",
			 slab->inuse, objects - nfree);
		report_pointer(s, slab, slab_address(slab), what, NULL, "count corrected");
		slab->inuse = objects - nfree;
	}
	for (unsigned int i = 0; i < objects; i++) {
		void *obj = obj_at(s, slab, i);
		bool is_free = test_bit_(x->free_bits, i);

		if (!is_free && is_isolated(s, obj))
			continue;
		if (check_object(s, slab, obj, !is_free))
			continue;
		if (is_free) {
			set_bit_(x->bad_bits, i);
			nbad++;
		}
		isolate_object(s, obj);
	}
	if (!nbad)
		return;
	/* Unlink the damaged free objects: they count as in use from now on. */
	prev = NULL;
	for (p = slab->freelist; p; p = get_freepointer(s, p)) {
		if (test_bit_(x->bad_bits, obj_index(s, slab, p))) {
			if (prev)
				set_freepointer(s, prev, get_freepointer(s, p));
			else
				slab->freelist = get_freepointer(s, p);
			continue;
		}
		prev = p;
	}
	slab->inuse += nbad;
	if (!slab->freelist)
		remove_partial(n, slab); /* it had free objects, so it was on the list */
}

/* Visit every slab page of s (list_lock held): the page array between the lowest and the
 * highest page its slabs have had, not lists, so full slabs (on no list) are found too. */
static void for_each_slab_of(struct kmem_cache *s,
			     void (*fn)(struct kmem_cache *s, struct kmem_cache_node *n,
					struct slab *slab, void *arg),
			     void *arg)
{
	struct kmem_cache_node *n = get_node(s);
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags, lo, hi;

	spin_lock_irqsave(&x->lock, flags);
	lo = x->min_pfn;
	hi = x->max_pfn;
	spin_unlock_irqrestore(&x->lock, flags);
	for (unsigned long pfn = lo; pfn <= hi && pfn < max_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		struct slab *slab = (struct slab *)page;

		if (!(__atomic_load_n(&page->flags, __ATOMIC_RELAXED) & PG_slab) ||
		    slab->slab_cache != s || slab->frozen || is_quarantined(s, slab))
			continue;
		fn(s, n, slab, arg);
	}
}

static void validate_one(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab,
			 void *arg)
{
	validate_slab(s, n, slab);
}

int kmem_cache_validate(struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s);
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags, before;

	if (!x || !x->debug) {
		printk("kmem_cache_validate(%s): not a debug cache (no SLAB_* debug flags)\n",
		       s->name);
		return -1;
	}
	before = __atomic_load_n(&x->errors, __ATOMIC_RELAXED);
	if (x->mode == SLAB_DEBUG_PARTIAL)
		slub_flush_all(s); /* every cpu slab back on the lists, cpu freelists checked */
	spin_lock_irqsave(&n->list_lock, flags);
	for_each_slab_of(s, validate_one, NULL);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return (int)(__atomic_load_n(&x->errors, __ATOMIC_RELAXED) - before);
}

/* ---- destroy with objects in use ---- */

struct leaks {
	unsigned long active, isolated;
	unsigned int listed;
	bool print;
};

static void count_leaks(struct kmem_cache *s, struct kmem_cache_node *n, struct slab *slab,
			void *arg)
{
	struct slub_debug_state *x = dbg_of(s);
	struct leaks *l = arg;

	memset(x->free_bits, 0, sizeof(x->free_bits));
	for (void *p = slab->freelist; p && valid_obj(s, slab, p); p = get_freepointer(s, p)) {
		if (test_bit_(x->free_bits, obj_index(s, slab, p)))
			break;
		set_bit_(x->free_bits, obj_index(s, slab, p));
	}
	for (unsigned int i = 0; i < slab->objects; i++) {
		void *obj = obj_at(s, slab, i);

		if (test_bit_(x->free_bits, i))
			continue;
		if (is_isolated(s, obj)) {
			l->isolated++;
			continue;
		}
		l->active++;
		if (l->print && l->listed < 16) {
			l->listed++;
			printk("Object %#lx @offset=%lu\n", (unsigned long)(uptr)obj,
			       (unsigned long)((uptr)obj - (uptr)slab_address(slab)));
			if (x->debug & SLAB_STORE_USER)
				print_track(x, obj, false);
		}
	}
}

unsigned long slub_debug_destroy_leaks(struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s);
	struct slub_debug_state *x = dbg_of(s);
	struct leaks l = { 0, 0, 0, false };
	unsigned long flags, rflags;

	/* Count; only objects in use that were not set aside are an error, then listed. */
	spin_lock_irqsave(&n->list_lock, flags);
	for_each_slab_of(s, count_leaks, &l);
	if (l.active) {
		spin_lock_irqsave(&report_lock, rflags);
		__atomic_fetch_add(&slab_errors, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&x->errors, 1, __ATOMIC_RELAXED);
		printk("=============================================================================\n");
		printk("BUG %s: Objects remaining on __kmem_cache_shutdown()\n", s->name);
		printk("-----------------------------------------------------------------------------\n\n");
		l = (struct leaks){ 0, 0, 0, true };
		for_each_slab_of(s, count_leaks, &l);
		printk("FIX %s: %lu objects in use%s; the cache is kept\n\n", s->name, l.active,
		       l.active > 16 ? " (the first 16 listed)" : "");
		spin_unlock_irqrestore(&report_lock, rflags);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	printk("kmem_cache_destroy %s: %lu objects still allocated, %lu isolated, %lu slabs "
	       "quarantined; the cache is kept\n",
	       s->name, l.active, l.isolated, x->nr_quarantined);
	return l.active;
}

/* ---- creation ---- */

void slub_debug_boot_init(void)
{
	random_init(boot_seed);
	boot_mode = !strcmp(debug_mode_name, "partial") ? SLAB_DEBUG_PARTIAL
								 : SLAB_DEBUG_LOCKED;
	hardened = slub_freelist_hardened;
	random_order = slub_freelist_random;
	init_alloc = slub_init_on_alloc;
	init_free = slub_init_on_free;
	if (slub_debug_string[0])
		printk("slub: slub_debug=%s, debug caches in %s mode\n", slub_debug_string,
		       boot_mode == SLAB_DEBUG_LOCKED ? "locked" : "partial");
	if (hardened || random_order || init_alloc || init_free)
		printk("slub: hardening:%s%s%s%s (random source %s)\n",
		       hardened ? " freelist_hardened" : "", random_order ? " freelist_random" : "",
		       init_alloc ? " init_on_alloc" : "", init_free ? " init_on_free" : "",
		       random_source());
}

int slub_debug_layout(struct kmem_cache *s, enum slab_debug_mode mode)
{
	unsigned long debug = s->flags & SLAB_DEBUG_FLAGS;
	struct slub_debug_state *x;
	struct page *page;
	unsigned int meta;

	if (!debug && !hardened && !random_order && !init_alloc && !init_free)
		return 0;
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!page)
		return -1;
	x = page_address(page);
	spin_lock_init(&x->lock, "slub_debug");
	x->min_pfn = ~0UL;
	x->base = x->asked = s->scheme;
	x->debug = debug;
	x->init_on_alloc = init_alloc;
	x->init_on_free = init_free;
	if (debug) {
		x->mode = mode == SLAB_DEBUG_MODE_DEFAULT ? boot_mode : mode;
		x->base = slab_scheme_for_debug(x->mode);
		if (debug & SLAB_RED_ZONE) {
			x->rz_end = ALIGN_UP(s->object_size, 8u);
			if (x->rz_end == s->object_size)
				x->rz_end += 8;
		} else {
			x->rz_end = ALIGN_UP(MAX(s->object_size, 8u), 8u);
		}
		meta = x->rz_end;
		if (freeptr_outside(s, debug & SLAB_POISON)) {
			s->offset = meta; /* the free pointer must not be in poison or built state */
			meta += 8;
		} else {
			s->offset = s->use_freeptr_offset ? s->freeptr_offset : 0;
		}
		if (debug & SLAB_CONSISTENCY_CHECKS) {
			x->state_off = meta;
			meta += 8;
		}
		if (debug & SLAB_RED_ZONE) {
			x->orig_off = meta;
			meta += 8;
		}
		if (debug & SLAB_STORE_USER) {
			x->track_off = meta;
			meta += 2 * sizeof(struct slub_track);
		}
		x->meta_end = meta;
		s->red_left_pad = (debug & SLAB_RED_ZONE) ? ALIGN_UP(8u, s->align) : 0;
		s->size = ALIGN_UP(s->red_left_pad + meta, s->align);
		if (s->size > KMEM_CACHE_MAX_SIZE) {
			printk("kmem_cache_create(%s): %u bytes with debug metadata, more than %lu\n",
			       s->name, s->size, KMEM_CACHE_MAX_SIZE);
			free_pages((unsigned long)x, 0);
			return -1;
		}
	}
	if (hardened)
		while (!s->freeptr_xor_key)
			s->freeptr_xor_key = get_random_u64();
	s->dbg = x;
	/* A shuffled freelist only changes new slabs: such a cache keeps the fastpaths. */
	if (!debug && !hardened && !init_alloc && !init_free)
		return 0;
	x->scheme = *x->base;
	x->scheme.alloc = dbg_alloc;
	x->scheme.free = dbg_free;
	x->scheme.alloc_bulk = dbg_alloc_bulk;
	x->scheme.free_bulk = dbg_free_bulk;
	if (!debug && !init_alloc && !init_free && !x->base->alloc) {
		/* Only obfuscated pointers: straight to the decoding fastpath, one call. */
		x->scheme.alloc = slab_alloc_hardened;
		x->scheme.free = slab_free_hardened;
	}
	s->scheme = &x->scheme;
	s->layer_alloc = x->scheme.alloc;
	s->layer_free = x->scheme.free;
	return 0;
}

static unsigned int order_for(size_t bytes)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

int slub_debug_init(struct kmem_cache *s)
{
	struct slub_debug_state *x = dbg_of(s);
	struct page *page;
	unsigned int n = s->objects;

	if (!random_order)
		return 0;
	x->random_seq_order = order_for(n * sizeof(u16));
	page = alloc_pages(GFP_KERNEL, x->random_seq_order);
	if (!page)
		return -1; /* the caller releases x (slub_debug_release) */
	x->random_seq = page_address(page);
	/* Fisher-Yates: a uniform permutation of the slab's object indices, per cache. */
	for (unsigned int i = 0; i < n; i++)
		x->random_seq[i] = (u16)i;
	for (unsigned int i = n - 1; i > 0; i--) {
		unsigned int j = (unsigned int)(get_random_u64() % (i + 1));
		u16 t = x->random_seq[i];

		x->random_seq[i] = x->random_seq[j];
		x->random_seq[j] = t;
	}
	return 0;
}

void slub_debug_release(struct kmem_cache *s)
{
	struct slub_debug_state *x = dbg_of(s);

	if (x->random_seq)
		free_pages((unsigned long)x->random_seq, x->random_seq_order);
	free_pages((unsigned long)x, 0);
	s->dbg = NULL;
}

/* ---- information ---- */

unsigned long slub_debug_flags(struct kmem_cache *s)
{
	return s->dbg ? dbg_of(s)->debug : 0;
}

enum slab_debug_mode slub_debug_mode(struct kmem_cache *s)
{
	return s->dbg && dbg_of(s)->debug ? dbg_of(s)->mode : SLAB_DEBUG_MODE_DEFAULT;
}

const struct slab_scheme *slub_debug_replaced_scheme(struct kmem_cache *s)
{
	struct slub_debug_state *x = dbg_of(s);

	return x && x->debug && x->asked != x->base ? x->asked : NULL;
}

unsigned long slub_debug_isolated(struct kmem_cache *s, unsigned long *slabs)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long flags, objs;

	if (!x) {
		*slabs = 0;
		return 0;
	}
	spin_lock_irqsave(&x->lock, flags);
	objs = x->nr_isolated;
	*slabs = x->nr_quarantined;
	spin_unlock_irqrestore(&x->lock, flags);
	return objs;
}

void slub_debug_slabinfo(struct kmem_cache *s)
{
	struct slub_debug_state *x = dbg_of(s);
	unsigned long slabs, objs = slub_debug_isolated(s, &slabs);

	if (x->debug)
		printk(" debug=%s%s%s%s mode=%s isolated=%lu quarantined=%lu errors=%lu",
		       (x->debug & SLAB_CONSISTENCY_CHECKS) ? "F" : "",
		       (x->debug & SLAB_RED_ZONE) ? "Z" : "", (x->debug & SLAB_POISON) ? "P" : "",
		       (x->debug & SLAB_STORE_USER) ? "U" : "",
		       x->mode == SLAB_DEBUG_LOCKED ? "locked" : "partial", objs, slabs, x->errors);
	if (slub_debug_replaced_scheme(s))
		printk(" (created as %s: debug caches use the %s mode instead)", x->asked->name,
		       x->mode == SLAB_DEBUG_LOCKED ? "locked" : "partial");
	if (s->freeptr_xor_key)
		printk(" freelist_hardened");
	if (x->random_seq)
		printk(" freelist_random");
	if (x->init_on_alloc)
		printk(" init_on_alloc");
	if (x->init_on_free)
		printk(" init_on_free");
}
