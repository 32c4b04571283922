// SPDX-License-Identifier: MIT
/*
 * The slab allocator under ThreadSanitizer: the same kernel sources and host arch as test_slab
 * (four threads as four CPUs, IPIs as signals, interrupts off as the IPI signals blocked),
 * built with -fsanitize=thread, running slab_stress.h's random stress on four CPUs for each
 * scheme and fastpath: cross-CPU frees through mailboxes, bulk operations, and shrinks that
 * flush every CPU's slabs by cross-call while the others are in the allocator. The run must
 * be race-free: TSan's first report ends it (arch/host/tsan_supp.c), so a race shows as a missing
 * KTAP plan and a non-zero exit. What TSan is told about cmpxchg16b: arch/host/cmpxchg.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arch/host/host_smp.h"
#include "kernel/smp.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/slub.h"
#include "tests/host/ktest.h"
#include "tests/host/slab_stress.h"

#define NCPUS 4
#define ARENA_SIZE (128UL << 20)
#define OPS 30000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	static struct stress st;
	unsigned long start_pages;

	setvbuf(stdout, NULL, _IOLBF, 0);
	host_arena_init(HOST_ARENA_BASE, ARENA_SIZE);
	host_smp_init(NCPUS);
	slab_init();
	start_pages = nr_free_pages();
	for (size_t v = 0; v < stress_variants(); v++) {
		unsigned long base = nr_free_pages(), bad = slab_bad_input_count();
		unsigned long sent = 0, received = 0, allocs = 0, shrinks = 0, resizes = 0;
		struct slab_cache_info info;
		char name[120];
		const char *why;
		double t0 = now_s();

		memset(&st, 0, sizeof(st));
		host_no_cmpxchg_double = variants[v].no_cx16;
		st.s = kmem_cache_create_scheme("tsan-stress", 96, 0, 0, NULL, variants[v].scheme,
						variants[v].fastpath);
		st.ncpus = NCPUS;
		st.ops = OPS;
		st.seed = 0xfeedULL + v;
		st.shrink_every = 1500;
		/* sheaves: every cpu changes the capacity now and then too */
		st.resize_every = kmem_cache_sheaf_capacity(st.s) ? 500 : 0;
		why = stress_run(&st);
		for (int c = 0; c < NCPUS; c++) {
			sent += st.cpu[c].sent;
			received += st.cpu[c].received;
			allocs += st.cpu[c].allocs + st.cpu[c].bulk_allocs;
			shrinks += st.cpu[c].shrinks;
			resizes += st.cpu[c].resizes;
		}
		printf("# %s: %lu allocations, %lu sent to other cpus, %lu shrinks, %lu capacity "
		       "changes, %.2f s\n", variants[v].name, allocs, sent, shrinks, resizes,
		       now_s() - t0);
		snprintf(name, sizeof(name), "%s: 4-cpu stress, patterns and interrupts",
			 variants[v].name);
		kt_check(!*why, name, "%s", why);
		snprintf(name, sizeof(name), "%s: cross-cpu frees happened, all received",
			 variants[v].name);
		kt_check(sent > 0 && sent == received, name, "%lu sent, %lu received", sent,
			 received);
		kmem_cache_info(st.s, &info);
		kmem_cache_destroy(st.s);
		snprintf(name, sizeof(name), "%s: nothing active; destroy gives every page back",
			 variants[v].name);
		kt_check(!info.active_objects && nr_free_pages() == base &&
				 slab_bad_input_count() == bad,
			 name, "active %lu; free pages %lu, want %lu; bad input %lu -> %lu",
			 info.active_objects, nr_free_pages(), base, bad, slab_bad_input_count());
	}
	KT_EQ_U("the page allocator ends where it started", nr_free_pages(), start_pages);
	return kt_finish();
}
