// SPDX-License-Identifier: MIT
/*
 * NUMA nodes (kernel/numa.h): the node of each CPU and of each page, node-local slabs on every
 * scheme, a slow free landing on the slab's own node's list, and a node out of memory
 * falling back to the nearest. Run on any layout: one node (no SRAT, numa=off) checks that
 * everything is node 0; the layout tools/qemu-run.sh's NODES=N makes (CPUs and memory split
 * evenly in order, distances 10/20) is checked CPU by CPU and page by page.
 */
#include "kernel/kunit.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/numa.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slub.h"

/* qemu-run.sh's NODES=: every distance 10 or 20 (from a SLIT). */
static bool even_layout(void)
{
	if (!numa_from_slit)
		return false;
	for (int a = 0; a < nr_node_ids; a++)
		for (int b = 0; b < nr_node_ids; b++)
			if (node_distance(a, b) != (a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE))
				return false;
	return true;
}

/* The node qemu-run.sh puts CPU index (= APIC id, default topology) `id` on. */
static int even_node_of(u32 id)
{
	u32 first = 0;

	for (int i = 0; i < nr_node_ids; i++) {
		u32 n = (u32)(nr_cpus_found / nr_node_ids + (i < nr_cpus_found % nr_node_ids));

		if (id < first + n)
			return i;
		first += n;
	}
	return -1;
}

static void here_matches(struct kunit *test, void *arg)
{
	int cpu = smp_processor_id();

	KUNIT_EXPECT_EQ_MSG(test, numa_node_id(), cpu_to_node(cpu), "cpu %d", cpu);
}

static void cpus_on_their_nodes(struct kunit *test)
{
	int cpu;

	for_each_online_cpu(cpu) {
		u32 id = per_cpu(percpu_hdr, cpu).apic_id;

		if (nr_node_ids == 1)
			KUNIT_EXPECT_EQ_MSG(test, cpu_to_node(cpu), 0, "cpu %d", cpu);
		else if (even_layout())
			KUNIT_EXPECT_EQ_MSG(test, cpu_to_node(cpu), even_node_of(id),
					    "cpu %d (APIC id %u)", cpu, id);
		KUNIT_EXPECT_LT(test, cpu_to_node(cpu), nr_node_ids);
	}
	kunit_run_on_all_cpus(test, here_matches, NULL);
}

static void pages_on_their_nodes(struct kunit *test)
{
	unsigned long per_node[MAX_NUMNODES] = { 0 }, managed = 0;
	struct page_alloc_stats st;
	int last = 0;

	/* Every page's node is its address's; in qemu-run's layout nodes follow in order. */
	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		int nid = page_to_nid(pfn_to_page(pfn));

		if (nid != numa_phys_to_nid((u64)pfn << PAGE_SHIFT)) {
			KUNIT_FAIL(test, "pfn %#lx: node %d, its address's is %d", pfn, nid,
				   numa_phys_to_nid((u64)pfn << PAGE_SHIFT));
			return;
		}
		if (even_layout() && nid < last) {
			KUNIT_FAIL(test, "pfn %#lx on node %d after node %d's memory", pfn, nid, last);
			return;
		}
		last = nid;
		per_node[nid]++;
	}
	for (int n = 0; n < nr_node_ids; n++) {
		page_alloc_get_node_stats(n, &st);
		managed += st.managed;
		if (nr_node_ids > 1 && even_layout())
			/* Each node's even share of RAM, less what boot reserved (node 0). */
			KUNIT_EXPECT_GT_MSG(test, per_node[n] * nr_node_ids, max_pfn * 8 / 10,
					    "node %d: %lu of %lu pages", n, per_node[n], max_pfn);
	}
	page_alloc_get_stats(&st);
	KUNIT_EXPECT_EQ(test, managed, st.managed);
	for (int n = nr_node_ids; n < MAX_NUMNODES; n++)
		KUNIT_EXPECT_EQ(test, per_node[n], 0UL);
}

/* The nearest node with memory (this node, when it has some). */
static int nearest_with_memory(int nid)
{
	for (int i = 0; i < nr_node_ids; i++)
		if (numa_node_has_memory[numa_fallback[nid][i]])
			return numa_fallback[nid][i];
	return 0;
}

struct local_arg {
	struct kmem_cache *s;
};

static void alloc_here(struct kunit *test, void *arg)
{
	struct local_arg *a = arg;
	int want = nearest_with_memory(numa_node_id());
	void *p[8];

	for (int i = 0; i < 8; i++) {
		p[i] = kmem_cache_alloc(a->s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (int i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, slab_nid(obj_to_slab(p[i])), want,
				    "%s: cpu %d (node %d)", a->s->scheme->name, smp_processor_id(),
				    numa_node_id());
	for (int i = 0; i < 8; i++)
		kmem_cache_free(a->s, p[i]);
}

/* Every scheme the suites test (mm/slab.h's slab_scheme_name: a scheme added is one more). */
static void new_slabs_are_node_local(struct kunit *test)
{
	const char *name;

	for (unsigned int i = 0; (name = slab_scheme_name(i)); i++) {
		struct local_arg a;

		a.s = kmem_cache_create_scheme("numa_local", 192, 0, 0, NULL, name,
					       SLAB_FASTPATH_IRQ);
		KUNIT_ASSERT_TRUE_MSG(test, a.s != NULL, "scheme %s: no cache", name);
		kunit_info(test, "scheme %s", name);
		kunit_run_on_all_cpus(test, alloc_here, &a);
		kmem_cache_destroy(a.s);
	}
}

/* A CPU on node nid, or -1. */
static int cpu_of_node(int nid)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu_to_node(cpu) == nid)
			return cpu;
	return -1;
}

struct remote_arg {
	struct kmem_cache *s;
	void **objs;
	unsigned int n;
};

static void fill(void *arg)
{
	struct remote_arg *r = arg;

	for (unsigned int i = 0; i < r->n; i++)
		r->objs[i] = kmem_cache_alloc(r->s, GFP_ATOMIC);
}

static void free_first(void *arg)
{
	struct remote_arg *r = arg;

	kmem_cache_free(r->s, r->objs[0]);
}

static void free_rest(void *arg)
{
	struct remote_arg *r = arg;

	for (unsigned int i = 1; i < r->n; i++)
		if (r->objs[i])
			kmem_cache_free(r->s, r->objs[i]);
}

static void remote_free_goes_to_the_slabs_node(struct kunit *test)
{
	int home, away, home_nid;
	struct remote_arg r;
	struct slab *slab;
	unsigned long partial0, remote0, partial1;

	if (nr_node_ids < 2)
		kunit_skip(test, "one node");
	home = cpu_of_node(0);
	away = -1;
	for (int n = 1; n < nr_node_ids && away < 0; n++)
		away = cpu_of_node(n);
	if (home < 0 || away < 0 || !numa_node_has_memory[0])
		kunit_skip(test, "no CPU on node 0 with memory and a CPU on another node");
	home_nid = 0;
	/* lock: no cpu partial lists, so a full slab's first free puts it on a node list. */
	r.s = kmem_cache_create_scheme("numa_remote", 256, 0, 0, NULL, "lock", SLAB_FASTPATH_IRQ);
	if (!r.s)
		kunit_skip(test, "no lock scheme");
	r.n = 2 * r.s->objects + 1; /* the first slab full, and no longer the cpu slab */
	r.objs = kmalloc(r.n * sizeof(void *), GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, r.objs);
	smp_call_function_single(home, fill, &r, 1);
	for (unsigned int i = 0; i < r.n; i++)
		KUNIT_ASSERT_NOT_NULL(test, r.objs[i]);
	slab = obj_to_slab(r.objs[0]);
	KUNIT_EXPECT_EQ(test, slab_nid(slab), home_nid);
	partial0 = r.s->node[home_nid].nr_partial;
	remote0 = r.s->node[home_nid].free_remote;
	partial1 = r.s->node[cpu_to_node(away)].nr_partial;
	smp_call_function_single(away, free_first, &r, 1);
	KUNIT_EXPECT_EQ_MSG(test, r.s->node[home_nid].nr_partial, partial0 + 1,
			    "the slab is on node %d's list", home_nid);
	KUNIT_EXPECT_EQ(test, r.s->node[home_nid].free_remote, remote0 + 1);
	KUNIT_EXPECT_EQ(test, r.s->node[cpu_to_node(away)].nr_partial, partial1);
	KUNIT_EXPECT_TRUE(test, !list_empty(&r.s->node[home_nid].partial) &&
				    list_first_entry(&r.s->node[home_nid].partial, struct slab,
						     slab_list) == slab);
	smp_call_function_single(home, free_rest, &r, 1);
	kfree(r.objs);
	kmem_cache_destroy(r.s);
}

struct chain {
	struct chain *next;
	unsigned int order;
};

static void slab_on_cpu(void *arg)
{
	struct local_arg *a = arg;
	void *p = kmem_cache_alloc(a->s, GFP_ATOMIC);

	*(int *)((char *)arg + sizeof(*a)) = p ? slab_nid(obj_to_slab(p)) : -1;
	if (p)
		kmem_cache_free(a->s, p);
}

static void empty_node_falls_back_to_nearest(struct kunit *test)
{
	struct chain *held = NULL;
	struct page *pg;
	int victim = -1, cpu, want;
	unsigned long taken = 0;
	struct {
		struct local_arg a;
		int nid;
	} arg;

	if (nr_node_ids < 2)
		kunit_skip(test, "one node");
	for (int n = nr_node_ids - 1; n >= 0 && victim < 0; n--)
		if (numa_node_has_memory[n] && cpu_of_node(n) >= 0 && n != 0)
			victim = n;
	if (victim < 0)
		kunit_skip(test, "no node but node 0 with both CPUs and memory");
	cpu = cpu_of_node(victim);
	want = -1;
	for (int i = 1; i < nr_node_ids && want < 0; i++)
		if (numa_node_has_memory[numa_fallback[victim][i]])
			want = numa_fallback[victim][i];
	arg.a.s = kmem_cache_create_scheme("numa_empty", 512, 0, 0, NULL, "lock",
					   SLAB_FASTPATH_IRQ);
	KUNIT_ASSERT_NOT_NULL(test, arg.a.s);
	/* Take every page of the victim node (largest blocks first), chained through them. */
	for (int order = MAX_ORDER; order >= 0; order--)
		while ((pg = alloc_pages_node(victim, __GFP_THISNODE | __GFP_NOWARN, order))) {
			struct chain *c = page_address(pg);

			KUNIT_EXPECT_EQ(test, page_to_nid(pg), victim);
			c->order = (unsigned)order;
			c->next = held;
			held = c;
			taken += 1UL << order;
		}
	KUNIT_EXPECT_EQ(test, nr_free_pages_node(victim), 0UL);
	pg = alloc_pages_node(victim, __GFP_NOWARN, 0);
	KUNIT_EXPECT_TRUE(test, pg != NULL);
	if (pg) {
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(pg), want, "node %d empty", victim);
		__free_pages(pg, 0);
	}
	/* A slab for a CPU of the empty node comes from the nearest node. */
	smp_call_function_single(cpu, slab_on_cpu, &arg, 1);
	KUNIT_EXPECT_EQ_MSG(test, arg.nid, want, "slab for cpu %d of empty node %d", cpu, victim);
	while (held) {
		struct chain *c = held;

		held = c->next;
		free_pages((unsigned long)c, c->order);
	}
	KUNIT_EXPECT_GT(test, taken, 0UL);
	kmem_cache_destroy(arg.a.s);
}

static struct kunit_case numa_cases[] = {
	KUNIT_CASE(cpus_on_their_nodes),
	KUNIT_CASE(pages_on_their_nodes),
	KUNIT_CASE(new_slabs_are_node_local),
	KUNIT_CASE(remote_free_goes_to_the_slabs_node),
	KUNIT_CASE(empty_node_falls_back_to_nearest),
	{}
};

static struct kunit_suite numa_suite = {
	.name = "numa",
	.test_cases = numa_cases,
};
kunit_test_suite(numa_suite);
