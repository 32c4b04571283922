/* SPDX-License-Identifier: MIT */
/*
 * Debugging and hardening of slab caches (mm/slub_debug.c): the hooks mm/slub.c calls, and
 * the calls tests and benchmarks use. Caches without either never reach this code.
 */
#ifndef SLABLAB_SLUB_DEBUG_H
#define SLABLAB_SLUB_DEBUG_H

#include "mm/slub.h"

/* Boot options: slub_debug= and the hardening ones (0 or 1). */
extern char slub_debug_string[];
extern unsigned int slub_freelist_hardened, slub_freelist_random, slub_init_on_alloc,
	slub_init_on_free;

/*
 * The debug flags (SLAB_* of mm/slab.h) that slub_debug=SPEC gives the cache NAME (NULL:
 * only check SPEC). 0, or -1 with a message in err when SPEC is malformed.
 */
int slub_debug_parse(const char *spec, const char *name, unsigned long *flags, char *err,
		     size_t errlen);

/* ---- hooks in mm/slub.c ---- */
void slub_debug_boot_init(void);                      /* slab_init: boot options, random source */
unsigned long slub_debug_boot_flags(const char *name); /* slub_debug= flags for a new cache */
int slub_debug_layout(struct kmem_cache *s, enum slab_debug_mode mode); /* create, before order */
int slub_debug_init(struct kmem_cache *s);            /* create, once s->objects is known */
void slub_debug_release(struct kmem_cache *s);        /* destroy */
void *slub_debug_setup_slab(struct kmem_cache *s, struct slab *slab); /* new slab: its freelist */
void slub_debug_free(struct kmem_cache *s, void *p, void *caller);  /* any pointer, checked */
void slub_debug_cpu_freelist(struct kmem_cache *s, struct kmem_cache_cpu *c); /* irqs off */
/* destroy found objects in use: reported (one slab error) if any are live; how many */
unsigned long slub_debug_destroy_leaks(struct kmem_cache *s);
/* A report of the core's counted in slab_error_count() (a destroy's leak). */
void slab_error_counted(void);
void slub_debug_slabinfo(struct kmem_cache *s);       /* the end of a slabinfo line */
void slub_debug_resize(struct kmem_cache *s, void *p, size_t size); /* krealloc in place */
void *slub_kmalloc_layer(struct kmem_cache *s, size_t size, gfp_t gfp, void *caller);
/* kmalloc_nolock (mm/slub_nolock.c): an object it took off a slab of a debug or hardened
 * cache, checked and marked as kmalloc(size) would (no lock taken); NULL: damaged. */
void *slub_debug_nolock_alloc(struct kmem_cache *s, void *obj, size_t size, gfp_t gfp,
			      void *caller);
/* Is p an object start of slab (a debug cache's objects start red_left_pad into a slot)? */
bool slub_debug_valid_obj(struct kmem_cache *s, struct slab *slab, const void *p);

/*
 * kmalloc(size) from cache s: for a debug cache with red zones the bytes from size to the
 * object size become red zone too (Linux's kmalloc redzone), so kmalloc(18) then writing
 * byte 18 is caught. Used by kmalloc for caches with a layer, and by tests on their caches.
 */
void *kmalloc_from_cache(struct kmem_cache *s, size_t size, gfp_t gfp);

/* What a cache's debugging is: its SLAB_* debug flags and mode, for tests and benchmarks. */
unsigned long slub_debug_flags(struct kmem_cache *s);
enum slab_debug_mode slub_debug_mode(struct kmem_cache *s); /* LOCKED or PARTIAL; 0: none */
/*
 * The scheme s was created with, when its debug mode runs in that scheme's place (locked
 * mode replaces every scheme but lock, partial mode every one but partial); NULL when s runs
 * the scheme it asked for. s->scheme's properties are then the debug mode's.
 */
const struct slab_scheme *slub_debug_replaced_scheme(struct kmem_cache *s);
/*
 * Do s's bulk frees go through the debug and hardening layer (one object at a time, a
 * duplicate among the eight entries before refused unless the consistency checks find it)?
 */
bool slub_debug_checks_bulk(struct kmem_cache *s);
/* Objects and slabs set aside after damage was found (never reused). */
unsigned long slub_debug_isolated(struct kmem_cache *s, unsigned long *slabs);

#endif
