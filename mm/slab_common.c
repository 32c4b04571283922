// SPDX-License-Identifier: MIT
/*
 * The slab allocator's half that does not depend on how slabs are kept, as Linux's
 * mm/slab_common.c (Lameter 2012: the code SLAB, SLOB and SLUB shared): the schemes and
 * the defaults the boot options pick, the list of caches, kmem_cache_create's checks and
 * kmem_cache_destroy around mm/slub.c's __kmem_cache_create, __kmem_cache_shutdown and
 * __kmem_cache_release, kmalloc's size classes and caches with large kmalloc, krealloc and
 * ksize, the counters' names and slabinfo. The fastpaths (kmem_cache_alloc/free, kmalloc's
 * small sizes, kfree) are mm/slub.c's, whose opening comment has the design.
 */
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/kallsyms.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slub.h"
#include "mm/slub_debug.h"

const char *const slub_stat_names[NR_SLUB_STAT_ITEMS] = {
	"alloc_fastpath", "alloc_slowpath", "free_fastpath", "free_slowpath", "free_frozen",
	"free_add_partial", "free_remove_partial", "alloc_from_partial", "alloc_slab",
	"alloc_refill", "free_slab", "cpuslab_flush", "deactivate_full", "deactivate_empty",
	"deactivate_to_head", "deactivate_to_tail", "deactivate_remote_frees",
	"deactivate_bypass", "cmpxchg_double_cpu_fail", "cmpxchg_double_fail", "list_lock",
	"list_lock_contended", "kfree_rcu", "kfree_rcu_freed",
};
_Static_assert(ARRAY_SIZE(slub_stat_names) == NR_SLUB_STAT_ITEMS, "a name per counter");

static LIST_HEAD(slab_caches);
static DEFINE_SPINLOCK(slab_mutex);
static const struct slab_scheme *default_scheme;
static enum slab_fastpath default_fastpath = SLAB_FASTPATH_IRQ;

/* Boot options (docs/options.md's table): the schemes, the fastpath and slabinfo at the end. */
static char scheme_list[128];
static char fastpath_option[16];
unsigned int slabinfo_at_end;
/* The fastpaths by enum slab_fastpath, the words of fastpath= (NULL-ended for it). */
static const char *const fastpath_options[NR_SLAB_FASTPATHS + 1] = { "irq", "cmpxchg", NULL };
static int check_schemes(const char *val, char *err, size_t errlen);

boot_param(scheme, scheme_list, list, check_schemes, "partial",
	   "slab schemes: all, or a comma list (lock,partial,...); the first is the boot "
	   "caches' scheme, benchmarks compare them all");
boot_param(fastpath, fastpath_option, enum, fastpath_options, "irq",
	   "slab fastpath of the caches created at boot: irq cmpxchg");
boot_param(slabinfo, slabinfo_at_end, uint, (0, 1), 0, "1: print slabinfo at the end of the run");

/* ---- the scheme registry ---- */

/*
 * slab_scheme_register() puts a pointer to each scheme in the linker section .slab_schemes
 * (linker.ld; arch/host/percpu.ld for the host build). The registry is that table sorted
 * by (order, name), checked once: a name given twice or a scheme that cannot work is a
 * message and a panic at boot, before anything uses it.
 */
extern const struct slab_scheme *const __slab_schemes_start[], *const __slab_schemes_end[];

#define MAX_SCHEMES 32
static const struct slab_scheme *schemes[MAX_SCHEMES];
static unsigned int nr_schemes;

static bool scheme_before(const struct slab_scheme *a, const struct slab_scheme *b)
{
	return a->order != b->order ? a->order < b->order : strcmp(a->name, b->name) < 0;
}

/* The check of one registration: what is wrong with it, or NULL. */
static const char *scheme_problem(const struct slab_scheme *sch)
{
	size_t len = sch->name ? strlen(sch->name) : 0;

	if (!len || len > 20)
		return "a name of 1 to 20 characters is required";
	for (size_t i = 0; i < len; i++) {
		char ch = sch->name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_'))
			return "a name is lower-case letters, digits, - and _ (it is a word of scheme=)";
	}
	if (!strcmp(sch->name, "all") || !strcmp(sch->name, "none"))
		return "all and none are words of scheme= itself";
	if (!!sch->alloc != !!sch->free)
		return "alloc and free come together (a layer has both)";
	if (sch->alloc && (!sch->alloc_bulk || !sch->free_bulk))
		return "a layer needs alloc_bulk and free_bulk too (the core's bulk paths bypass it)";
	if (!sch->alloc && !sch->get_partial)
		return "a scheme without a layer needs get_partial";
	if ((sch->flags & SLAB_SCHEME_CPU_PARTIAL) && !sch->put_frozen)
		return "SLAB_SCHEME_CPU_PARTIAL needs put_frozen";
	if ((sch->flags & SLAB_SCHEME_OWNER) && !sch->alloc)
		return "SLAB_SCHEME_OWNER needs its own alloc and free";
	if (sch->nr_stats && !sch->stat_names)
		return "nr_stats without stat_names";
	if (sch->nr_stats && (sch->stat_offset % 8 ||
			      sch->stat_offset + sch->nr_stats * sizeof(u64) > sch->cpu_size))
		return "the counters (stat_offset, nr_stats) must be an aligned u64 array in cpu_size";
	for (unsigned int i = 0; i < sch->nr_stats; i++)
		if (!sch->stat_names[i])
			return "a stat name is NULL";
	return NULL;
}

static void registry_init(void)
{
	const struct slab_scheme *const *p;

	if (nr_schemes)
		return;
	for (p = __slab_schemes_start; p < __slab_schemes_end; p++) {
		const struct slab_scheme *sch = *p;
		const char *why = scheme_problem(sch);
		unsigned int i;

		if (why)
			panic("slab: scheme %s: %s (docs/writing-a-scheme.md)",
			      sch->name ? sch->name : "(no name)", why);
		if (nr_schemes == MAX_SCHEMES)
			panic("slab: more than %d schemes registered", MAX_SCHEMES);
		for (i = 0; i < nr_schemes; i++)
			if (!strcmp(schemes[i]->name, sch->name))
				panic("slab: two schemes are called %s", sch->name);
		/* Insertion sort: a handful of entries. */
		for (i = nr_schemes++; i > 0 && scheme_before(sch, schemes[i - 1]); i--)
			schemes[i] = schemes[i - 1];
		schemes[i] = sch;
	}
	if (!nr_schemes)
		panic("slab: no scheme registered");
}

/* The flags as the registry reports them: LAYER follows from the hooks. */
static unsigned long scheme_flags(const struct slab_scheme *sch)
{
	return sch->flags | (sch->alloc ? SLAB_SCHEME_LAYER : 0);
}

const char *slab_scheme_registered(unsigned int i)
{
	registry_init();
	return i < nr_schemes ? schemes[i]->name : NULL;
}

/*
 * scheme=, parsed once, by its check below when the command line is: named[k], whether it
 * names registry entry k; named_all, whether it is "all"; named_first, the first it names.
 * Meaningful while boot_param_given(scheme).
 */
static bool named[MAX_SCHEMES], named_all;
static const struct slab_scheme *named_first;

static int check_schemes(const char *val, char *err, size_t errlen)
{
	registry_init();
	memset(named, 0, sizeof(named));
	named_all = false;
	named_first = NULL;
	for (const char *p = val; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p), n = 0;
		unsigned int k;

		for (k = 0; k < nr_schemes; k++)
			if (strlen(schemes[k]->name) == len && !strncmp(schemes[k]->name, p, len))
				break;
		if (k < nr_schemes) {
			named[k] = true;
			named_first = named_first ?: schemes[k];
		} else if (len == 3 && !strncmp(p, "all", 3)) {
			named_all = true;
		} else {
			n = (size_t)snprintf(err, errlen, "no scheme named '%.*s' in this kernel; valid: all",
					     (int)len, p);
			for (k = 0; k < nr_schemes && n < errlen; k++)
				n += (size_t)snprintf(err + n, errlen - n, " %s", schemes[k]->name);
			return -1;
		}
		p += len + (end ? 1 : 0);
	}
	return 0;
}

/* Registry entry k in the suites' list (slab_scheme_name): all but the on-request ones that
 * scheme= does not name. */
static bool scheme_tested(unsigned int k)
{
	return !(schemes[k]->flags & SLAB_SCHEME_ON_REQUEST) ||
	       (boot_param_given(scheme) && named[k]);
}

/* ... in the benchmarks' (slab_scheme_chosen): the ones scheme= names, unless all. */
static bool scheme_chosen(unsigned int k)
{
	return scheme_tested(k) && (!boot_param_given(scheme) || named_all || named[k]);
}

static const char *nth_scheme(unsigned int i, bool (*in)(unsigned int k))
{
	registry_init();
	for (unsigned int k = 0; k < nr_schemes; k++)
		if (in(k) && i-- == 0)
			return schemes[k]->name;
	return NULL;
}

const char *slab_scheme_name(unsigned int i)
{
	return nth_scheme(i, scheme_tested);
}

const char *slab_scheme_chosen(unsigned int i)
{
	return nth_scheme(i, scheme_chosen);
}

enum slab_fastpath slab_boot_fastpath(void)
{
	return default_fastpath;
}

const char *slab_fastpath_name(enum slab_fastpath fastpath)
{
	return fastpath < NR_SLAB_FASTPATHS ? fastpath_options[fastpath] : "?";
}

/* The variants (mm/slab.h): built at the first call, once the registry and scheme= are. */
#define MAX_VARIANTS (2 * MAX_SCHEMES)
static struct slab_variant variants[MAX_VARIANTS];
static unsigned int nr_variants;

const struct slab_variant *slab_variant(unsigned int i)
{
	static bool built;

	registry_init();
	for (unsigned int k = 0; !built && k < nr_schemes; k++) {
		const struct slab_scheme *sch = schemes[k];
		unsigned long flags = scheme_flags(sch);

		if (!scheme_tested(k))
			continue;
		if (flags & SLAB_SCHEME_LAYER) {
			variants[nr_variants++] = (struct slab_variant){
				sch->name, SLAB_FASTPATH_IRQ, sch->layer_name ?: "layer", flags };
			continue;
		}
		for (int f = 0; f < NR_SLAB_FASTPATHS; f++)
			variants[nr_variants++] = (struct slab_variant){
				sch->name, (enum slab_fastpath)f, fastpath_options[f], flags };
	}
	built = true;
	return i < nr_variants ? &variants[i] : NULL;
}

static const struct slab_scheme *find_scheme(const char *name)
{
	registry_init();
	for (unsigned i = 0; i < nr_schemes; i++)
		if (!strcmp(schemes[i]->name, name))
			return schemes[i];
	return NULL;
}

bool slab_scheme_exists(const char *name)
{
	return find_scheme(name) != NULL;
}

unsigned long slab_scheme_flags(const char *name)
{
	const struct slab_scheme *sch = find_scheme(name);

	if (!sch) {
		printk("slab_scheme_flags: no scheme named %s\n", name);
		return 0;
	}
	return scheme_flags(sch);
}

static const struct slab_scheme *scheme_with(unsigned long flags)
{
	registry_init();
	for (unsigned i = 0; i < nr_schemes; i++)
		if ((scheme_flags(schemes[i]) & flags) == flags)
			return schemes[i];
	return NULL;
}

const char *slab_scheme_with(unsigned long flags)
{
	const struct slab_scheme *sch = scheme_with(flags);

	return sch ? sch->name : NULL;
}

const struct slab_scheme *slab_scheme_for_debug(enum slab_debug_mode mode)
{
	return scheme_with(mode == SLAB_DEBUG_PARTIAL ? SLAB_SCHEME_DEBUG_PARTIAL
						       : SLAB_SCHEME_DEBUG_LOCKED);
}

/* The scheme of caches created without one: scheme='s first, else the DEFAULT one. */
static const struct slab_scheme *boot_scheme(void)
{
	if (!default_scheme)
		default_scheme = scheme_with(SLAB_SCHEME_DEFAULT) ?: schemes[0];
	return default_scheme;
}

unsigned long kmem_cache_scheme_flags(const struct kmem_cache *s)
{
	/* The registered scheme's: a debug or hardened cache runs on a copy with other hooks. */
	const struct slab_scheme *sch = find_scheme(s->scheme->name);

	return scheme_flags(sch ? sch : s->scheme);
}

/* ---- caches ---- */

/* freeptr_offset: kmem_cache_create_rcu's, or -1. */
static struct kmem_cache *create_cache(const char *name, unsigned int size, unsigned int align,
				       unsigned long flags, void (*ctor)(void *),
				       const char *scheme_name, enum slab_fastpath fastpath,
				       enum slab_debug_mode debug_mode, long freeptr_offset)
{
	const struct slab_scheme *scheme = scheme_name ? find_scheme(scheme_name) : boot_scheme();
	struct kmem_cache *s;
	struct page *page;

	registry_init();
	if (!name || strlen(name) > KMEM_CACHE_NAME_MAX) {
		printk("kmem_cache_create: name %s is longer than %d characters\n",
		       name ? name : "(null)", KMEM_CACHE_NAME_MAX);
		return NULL;
	}
	if (!size || size > KMEM_CACHE_MAX_SIZE) {
		printk("kmem_cache_create(%s): size %u is not in 1..%lu\n", name, size,
		       KMEM_CACHE_MAX_SIZE);
		return NULL;
	}
	if (!scheme) {
		printk("kmem_cache_create(%s): no scheme named %s\n", name, scheme_name);
		return NULL;
	}
	if (fastpath >= NR_SLAB_FASTPATHS) {
		printk("kmem_cache_create(%s): bad fastpath %d\n", name, (int)fastpath);
		return NULL;
	}
	if (!arch_has_cmpxchg_double())
		flags |= SLAB_NO_CMPXCHG; /* slab freelists under slab_lock */
	if (align & (align - 1)) {
		printk("kmem_cache_create(%s): alignment %u is not a power of two\n", name, align);
		return NULL;
	}
	if (freeptr_offset >= 0 &&
	    (freeptr_offset % sizeof(void *) || freeptr_offset + sizeof(void *) > size)) {
		printk("kmem_cache_create_rcu(%s): freeptr_offset %ld: the free pointer must be an "
		       "aligned word inside the object's %u bytes\n", name, freeptr_offset, size);
		return NULL;
	}
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!page)
		return NULL;
	s = page_address(page);
	_Static_assert(sizeof(struct kmem_cache) <= PAGE_SIZE, "a cache fits a page");
	strlcpy(s->name, name, sizeof(s->name));
	s->scheme = scheme;
	s->layer_alloc = scheme->alloc;
	s->layer_free = scheme->free;
	s->fastpath = fastpath;
	/* The core's cmpxchg fastpath runs for it (a scheme with a layer of its own, sheaves and
	 * the owner schemes, keeps its paths and a plain cpu freelist whatever the fastpath). */
	s->cpu_tid = fastpath == SLAB_FASTPATH_CMPXCHG && !scheme->alloc;
	s->flags = flags | slub_debug_boot_flags(name); /* slub_debug= */
	s->ctor = ctor;
	s->object_size = size;
	s->use_freeptr_offset = freeptr_offset >= 0;
	s->freeptr_offset = s->use_freeptr_offset ? (unsigned int)freeptr_offset : 0;
	if (__kmem_cache_create(s, align, debug_mode)) {
		free_pages((unsigned long)s, 0);
		return NULL;
	}
	spin_lock(&slab_mutex);
	list_add_tail(&s->list, &slab_caches);
	spin_unlock(&slab_mutex);
	return s;
}

struct kmem_cache *kmem_cache_create_scheme(const char *name, unsigned int size,
					    unsigned int align, unsigned long flags,
					    void (*ctor)(void *), const char *scheme_name,
					    enum slab_fastpath fastpath)
{
	return create_cache(name, size, align, flags, ctor, scheme_name, fastpath,
			    SLAB_DEBUG_MODE_DEFAULT, -1);
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     unsigned long flags, void (*ctor)(void *))
{
	return kmem_cache_create_scheme(name, size, align, flags, ctor, NULL, default_fastpath);
}

struct kmem_cache *kmem_cache_create_debug(const char *name, unsigned int size,
					   unsigned int align, unsigned long flags,
					   void (*ctor)(void *), enum slab_debug_mode mode)
{
	return create_cache(name, size, align, flags, ctor, NULL, default_fastpath, mode, -1);
}

struct kmem_cache *kmem_cache_create_rcu(const char *name, unsigned int size,
					 unsigned int freeptr_offset, unsigned long flags)
{
	return create_cache(name, size, 0, flags | SLAB_TYPESAFE_BY_RCU, NULL, NULL,
			    default_fastpath, SLAB_DEBUG_MODE_DEFAULT, (long)freeptr_offset);
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	void *caller = __builtin_return_address(0);
	int kept;

	if (!s)
		return;
	/* kfree_rcu's objects of s still in flight are freed first (Linux 6.12 on). */
	if (kmem_cache_rcu_waiting(s))
		kvfree_rcu_barrier_on_cache(s);
	kmem_cache_shrink(s);
	kept = __kmem_cache_shutdown(s);
	if (kept) {
		/* Objects still allocated: reported, the cache is kept (1: only objects the debug
		 * checks set aside, kept quietly). Linux's WARN, which its KUnit counts too. */
		if (kept > 1) {
			u64 off;
			const char *fn = kallsyms_lookup((u64)(uptr)caller, &off);

			slab_error_counted();
			printk("kmem_cache_destroy %s: Slab cache still has objects when called from "
			       "%s+%#llx\n", s->name, fn ? fn : "?",
			       (unsigned long long)(fn ? off : (u64)(uptr)caller));
		}
		return;
	}
	/* SLAB_TYPESAFE_BY_RCU: the slabs freed above reach the page allocator in callbacks
	 * that count in s. */
	if (__atomic_load_n(&s->rcu_pages, __ATOMIC_RELAXED))
		rcu_barrier();
	spin_lock(&slab_mutex);
	list_del(&s->list);
	spin_unlock(&slab_mutex);
	__kmem_cache_release(s);
	free_pages((unsigned long)s, 0);
}

void slab_for_each_cache(void (*fn)(struct kmem_cache *s, void *arg), void *arg)
{
	struct kmem_cache *s;

	spin_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		fn(s, arg);
	spin_unlock(&slab_mutex);
}

/* ---- kmalloc ---- */

static const unsigned int kmalloc_sizes[] = { 8,   16,  32,   64,   96,   128,  192,
					      256, 512, 1024, 2048, 4096, 8192 };
_Static_assert(ARRAY_SIZE(kmalloc_sizes) == NR_KMALLOC_CACHES, "a cache per kmalloc size");
struct kmem_cache *kmalloc_caches[NR_KMALLOC_CACHES];

static unsigned int get_order(size_t size)
{
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

size_t kmalloc_size_roundup(size_t size)
{
	if (!size)
		return 0;
	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_sizes[kmalloc_index(size)];
	return PAGE_SIZE << get_order(size);
}

/* Above KMALLOC_MAX_CACHE_SIZE: whole pages, flagged so kfree and ksize know them. */
void *kmalloc_large(size_t size, gfp_t gfp)
{
	struct page *page;

	if (get_order(size) > MAX_ORDER) {
		if (!(gfp & __GFP_NOWARN))
			printk("kmalloc(%zu): larger than the page allocator's %lu bytes\n", size,
			       PAGE_SIZE << MAX_ORDER);
		return NULL;
	}
	page = alloc_pages(gfp, get_order(size));
	if (!page)
		return NULL;
	mark_compound(page, page->order, PG_large_kmalloc, NULL);
	return page_address(page);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kmalloc(n * size, gfp);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kmalloc_array(n, size, gfp | __GFP_ZERO);
}

size_t ksize(const void *p)
{
	struct page *page;

	if (ZERO_OR_NULL_PTR(p) || !virt_addr_valid(p))
		return 0;
	page = compound_head(virt_to_page(p));
	if (page->flags & PG_slab)
		return ((struct slab *)page)->slab_cache->object_size;
	if (page->flags & PG_large_kmalloc)
		return PAGE_SIZE << page->order;
	return 0;
}

void *krealloc(const void *p, size_t new_size, gfp_t gfp)
{
	size_t old = ksize(p);
	void *q;

	if (!new_size) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	if (p && !ZERO_OR_NULL_PTR(p) && old >= new_size) {
		struct slab *slab = virt_to_slab(p);

		if (slab && (slab->slab_cache->flags & SLAB_RED_ZONE))
			slub_debug_resize(slab->slab_cache, (void *)p, new_size); /* tail red zone */
		return (void *)p;
	}
	q = kmalloc(new_size, gfp);
	if (!q)
		return NULL;
	if (!ZERO_OR_NULL_PTR(p)) {
		memcpy(q, p, MIN(old, new_size));
		kfree(p);
	}
	return q;
}

/* ---- information ---- */

struct count_free {
	struct kmem_cache *s;
	unsigned long free;  /* every free object the cpus hold */
	unsigned long layer; /* of those, the scheme's (count_free) */
};

/* On each cpu: free objects it holds (cpu freelist, cpu partial slabs). Interrupts off. */
static void count_cpu_free(void *arg)
{
	struct count_free *cf = arg;
	struct kmem_cache_cpu *c = this_cpu_slab(cf->s);
	unsigned long n = 0, layer = 0;

	if (unlikely(cf->s->flags & SLAB_DEBUG_FLAGS))
		slub_debug_cpu_freelist(cf->s, c); /* walked next: no corrupt pointer */
	for (void *p = cpu_freelist(c); p; p = get_freepointer(cf->s, p))
		n++;
	if (c->slab)
		n += c->slab->objects - c->slab->inuse; /* remote frees onto the cpu slab */
	if (cf->s->scheme->count_free)
		layer = cf->s->scheme->count_free(cf->s, c);
	__atomic_fetch_add(&cf->free, n + layer, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cf->layer, layer, __ATOMIC_RELAXED);
}

int kmem_cache_info(struct kmem_cache *s, struct slab_cache_info *out)
{
	struct kmem_cache_node *n;
	struct count_free cf = { .s = s, .free = 0 };
	unsigned long flags, node_free = 0;
	struct slab *slab;
	int nid;

	on_each_cpu(count_cpu_free, &cf, 1);
	out->partial_slabs = 0;
	out->slabs = out->objects = 0;
	for_each_kmem_cache_node(s, nid, n) {
		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry(slab, &n->partial, slab_list)
			node_free += slab->objects - slab->inuse;
		out->partial_slabs += n->nr_partial;
		spin_unlock_irqrestore(&n->list_lock, flags);
		out->slabs += (unsigned long)__atomic_load_n(&n->nr_slabs, __ATOMIC_RELAXED);
		out->objects += (unsigned long)__atomic_load_n(&n->total_objects, __ATOMIC_RELAXED);
	}
	if (s->scheme->count_node_free)
		node_free += s->scheme->count_node_free(s);
	out->name = s->name;
	out->scheme = s->scheme->name;
	out->fastpath = fastpath_options[s->fastpath];
	out->object_size = s->object_size;
	out->size = s->size;
	out->objects_per_slab = s->objects;
	out->order = s->order;
	out->active_objects = out->objects - MIN(out->objects, cf.free + node_free);
	return 0;
}

void kmem_cache_mem_info(struct kmem_cache *s, struct kmem_cache_mem *out)
{
	struct count_free cf = { .s = s };
	struct kmem_cache_node *n;
	struct slab *slab;
	unsigned long flags, freed;
	int nid;

	memset(out, 0, sizeof(*out));
	on_each_cpu(count_cpu_free, &cf, 1);
	out->cpu_free = cf.free - cf.layer;
	out->cpu_cached = cf.layer;
	for_each_kmem_cache_node(s, nid, n) {
		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry(slab, &n->partial, slab_list) {
			out->partial_free += slab->objects - slab->inuse;
			out->partial_objects += slab->objects;
		}
		out->partial_slabs += n->nr_partial;
		spin_unlock_irqrestore(&n->list_lock, flags);
		out->slabs += (unsigned long)__atomic_load_n(&n->nr_slabs, __ATOMIC_RELAXED);
		out->objects += (unsigned long)__atomic_load_n(&n->total_objects, __ATOMIC_RELAXED);
	}
	if (s->scheme->count_node_free)
		out->node_cached = s->scheme->count_node_free(s);
	if (s->scheme->layer_mem)
		s->scheme->layer_mem(s, &out->layer_pages, &out->layer_bytes_linux7);
	freed = out->cpu_free + out->cpu_cached + out->node_cached + out->partial_free;
	out->live = out->objects - MIN(out->objects, freed);
	out->rcu_waiting = kmem_cache_rcu_waiting(s);
	out->rcu_pages = (unsigned long)MAX(0L, __atomic_load_n(&s->rcu_pages, __ATOMIC_RELAXED));
	out->pages = (unsigned long)MAX(0L, __atomic_load_n(&s->pages_held, __ATOMIC_RELAXED));
	out->pages_peak = (unsigned long)MAX(0L, __atomic_load_n(&s->pages_peak, __ATOMIC_RELAXED));
}

void kmem_cache_mem_reset_peak(struct kmem_cache *s)
{
	__atomic_store_n(&s->pages_peak, __atomic_load_n(&s->pages_held, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
}

int kmem_cache_set_param(struct kmem_cache *s, const char *name, unsigned int value)
{
	return s->scheme->set_param ? s->scheme->set_param(s, name, value) : -2;
}

int kmem_cache_get_param(struct kmem_cache *s, const char *name, unsigned int *value)
{
	return s->scheme->get_param ? s->scheme->get_param(s, name, value) : -2;
}

int kmem_cache_node_info(struct kmem_cache *s, int nid, struct kmem_cache_node_info *out)
{
	struct kmem_cache_node *n;

	memset(out, 0, sizeof(*out));
	if (nid < 0 || nid >= kmem_cache_nr_nodes(s))
		return -1;
	n = &s->node[nid];
	out->slabs = (unsigned long)__atomic_load_n(&n->nr_slabs, __ATOMIC_RELAXED);
	out->partial_slabs = __atomic_load_n(&n->nr_partial, __ATOMIC_RELAXED);
	out->alloc_remote = __atomic_load_n(&n->alloc_remote, __ATOMIC_RELAXED);
	out->free_remote = __atomic_load_n(&n->free_remote, __ATOMIC_RELAXED);
	out->list_lock = READ_ONCE(n->list_lock.acquisitions);
	return 0;
}

u64 kmem_cache_stat(struct kmem_cache *s, int item)
{
	u64 sum = 0;

	if (item < 0 || item >= NR_SLUB_STAT_ITEMS)
		return 0;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		sum += READ_ONCE(s->cpu_slab[cpu].stat[item]);
	return sum;
}

u64 kmem_cache_scheme_stat(struct kmem_cache *s, unsigned int i)
{
	const char *name = s->scheme->stat_names[i];
	size_t len = strlen(name);
	bool max = len > 4 && !strcmp(name + len - 4, "_max");
	u64 sum = 0;

	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		u64 v = READ_ONCE(scheme_stats(s->scheme, &s->cpu_slab[cpu])[i]);

		sum = max ? MAX(sum, v) : sum + v;
	}
	return sum;
}

const char *kmem_cache_stat_name(const struct kmem_cache *s, unsigned int i)
{
	if (i < NR_SLUB_STAT_ITEMS)
		return slub_stat_names[i];
	i -= NR_SLUB_STAT_ITEMS;
	return i < s->scheme->nr_stats ? s->scheme->stat_names[i] : NULL;
}

/* Counter i in kmem_cache_stat_name's numbering. */
static u64 stat_by_index(struct kmem_cache *s, unsigned int i)
{
	return i < NR_SLUB_STAT_ITEMS ? kmem_cache_stat(s, (int)i)
				      : kmem_cache_scheme_stat(s, i - NR_SLUB_STAT_ITEMS);
}

u64 kmem_cache_stat_by_name(struct kmem_cache *s, const char *name)
{
	const char *n;

	for (unsigned int i = 0; (n = kmem_cache_stat_name(s, i)); i++)
		if (!strcmp(n, name))
			return stat_by_index(s, i);
	/* Another scheme's counter: this cache has none of those. */
	registry_init();
	for (unsigned int k = 0; k < nr_schemes; k++)
		for (unsigned int i = 0; i < schemes[k]->nr_stats; i++)
			if (!strcmp(schemes[k]->stat_names[i], name))
				return 0;
	printk("kmem_cache_stat_by_name(%s): no counter named %s\n", s->name, name);
	return 0;
}

bool kmem_cache_has_layer(const struct kmem_cache *s)
{
	return s->layer_alloc != NULL;
}

/* Owner schemes' traffic per cpu: the scheme's counters, cpu by cpu, if it has any. */
static void slabinfo_print_per_cpu(struct kmem_cache *s)
{
	const struct slab_scheme *sch = s->scheme;
	bool any = false;

	if (!(sch->flags & SLAB_SCHEME_OWNER))
		return;
	for (unsigned int i = 0; i < sch->nr_stats && !any; i++)
		any = kmem_cache_scheme_stat(s, i) != 0;
	if (!any)
		return;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const u64 *st = scheme_stats(sch, &s->cpu_slab[cpu]);

		printk("  %-18s cpu %d:", s->name, cpu);
		for (unsigned int i = 0; i < sch->nr_stats; i++)
			printk(" %s=%llu", sch->stat_names[i], (unsigned long long)READ_ONCE(st[i]));
		printk("\n");
	}
}

/*
 * With more than one node, a line per node of s that has slabs or counts: its slabs and
 * partial slabs, list_lock acquisitions, and the slabs taken by other nodes' CPUs
 * (alloc_remote) and the slow frees from them (free_remote).
 */
static void slabinfo_print_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node_info ni;

	for (int nid = 0; kmem_cache_nr_nodes(s) > 1 && !kmem_cache_node_info(s, nid, &ni); nid++) {
		if (!ni.slabs && !ni.list_lock)
			continue;
		printk("  %-18s node %d: slabs=%lu partial=%lu list_lock=%llu alloc_remote=%lu "
		       "free_remote=%lu\n", s->name, nid, ni.slabs, ni.partial_slabs,
		       (unsigned long long)ni.list_lock, ni.alloc_remote, ni.free_remote);
	}
}

void slabinfo_print(void)
{
	struct kmem_cache *s;

	printk("slabinfo - version: slablab 1\n");
	printk("# %-18s %-13s %-7s %10s %10s %7s %6s %5s %8s %8s  stats\n", "name", "scheme",
	       "fastpath", "active_objs", "num_objs", "objsize", "objper", "order", "slabs",
	       "partial");
	spin_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		struct slab_cache_info i;
		const char *name;

		kmem_cache_info(s, &i);
		printk("%-20s %-13s %-8s %10lu %10lu %7u %6u %5u %8lu %8lu ", i.name, i.scheme,
		       i.fastpath, i.active_objects, i.objects, i.object_size, i.objects_per_slab,
		       i.order, i.slabs, i.partial_slabs);
		for (unsigned int k = 0; (name = kmem_cache_stat_name(s, k)); k++) {
			u64 v = stat_by_index(s, k);

			if (v)
				printk(" %s=%llu", name, (unsigned long long)v);
		}
		{
			u64 spin = 0;

			for (int nid = 0; nid < kmem_cache_nr_nodes(s); nid++)
				spin += s->node[nid].list_lock.contended ?
					s->node[nid].list_lock.spin_cycles : 0;
			if (spin)
				printk(" list_lock_spin_cycles=%llu", (unsigned long long)spin);
		}
		if (s->stash_max) {
			/* Pages the bulk calls' stashes keep: neither free nor the cache's slabs. */
			unsigned long stashed = slub_stashed_pages(s);

			if (stashed)
				printk(" stash_pages=%lu", stashed);
		}
		{
			unsigned long waiting = kmem_cache_rcu_waiting(s);
			long rcu_pages = __atomic_load_n(&s->rcu_pages, __ATOMIC_RELAXED);

			if (waiting)
				printk(" rcu_waiting=%lu", waiting);
			if (rcu_pages)
				printk(" rcu_pages=%ld", rcu_pages);
			if (s->flags & SLAB_TYPESAFE_BY_RCU)
				printk(" typesafe_by_rcu");
		}
		if (s->scheme->slabinfo)
			s->scheme->slabinfo(s);
		if (s->dbg)
			slub_debug_slabinfo(s); /* debug letters and mode, hardening */
		printk("\n");
		slabinfo_print_nodes(s);
		slabinfo_print_per_cpu(s);
	}
	spin_unlock(&slab_mutex);
}

/*
 * The page allocator's reclaim hook (mm/page_alloc.h): every cache's bulk stashes back to it.
 * A trylock of slab_mutex, as the hook may run anywhere (an allocation under a list_lock, or
 * in an interrupt of a cpu that holds slab_mutex): when it is held, nothing is given back.
 */
static unsigned long slab_reclaim_stashes(void)
{
	unsigned long pages = 0;
	struct kmem_cache *s;

	if (!spin_trylock(&slab_mutex))
		return 0;
	list_for_each_entry(s, &slab_caches, list)
		pages += slub_drain_stashes(s);
	spin_unlock(&slab_mutex);
	return pages;
}

void slab_init(void)
{
	/* The boot caches' scheme: the first scheme= names (its check parsed it), else the
	 * one registered as SLAB_SCHEME_DEFAULT; their fastpath: fastpath='s. */
	registry_init();
	page_alloc_set_reclaim(slab_reclaim_stashes);
	kfree_rcu_init();
	if (boot_param_given(scheme) && named_first)
		default_scheme = named_first;
	default_fastpath = !strcmp(fastpath_option, "cmpxchg") ? SLAB_FASTPATH_CMPXCHG
							       : SLAB_FASTPATH_IRQ;
	slub_debug_boot_init(); /* slub_debug=, hardening options, the random source */
	if (!arch_has_cmpxchg_double())
		printk("slab: this CPU has no CMPXCHG16B: slab freelists are updated under a "
		       "per-slab lock (slab_lock)\n");
	for (unsigned i = 0; i < NR_KMALLOC_CACHES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "kmalloc-%u", kmalloc_sizes[i]);
		/* Power-of-two sizes naturally aligned, also when debugging adds red zones. */
		kmalloc_caches[i] = kmem_cache_create(name, kmalloc_sizes[i],
						      kmalloc_sizes[i] & (kmalloc_sizes[i] - 1) ? 0 : kmalloc_sizes[i],
						      0, NULL);
		if (!kmalloc_caches[i])
			panic("slab: cannot create %s", name);
	}
}
