// SPDX-License-Identifier: MIT
/*
 * build/host/trace_check FILE: the kernel's trace reader (bench/trace.c) on a file, for
 * tests/host/test_trace.sh to hold against tools/trace/slabtrace.py check. Prints
 * "ok events E allocs A frees F never_allocated N double_free D size_zero Z size_too_big B
 * page_allocs P live_at_end L peak_live K duration_ns T kfree_rcu C rcu_frees R
 * rcu_pending_at_end G nolock N node_allocs A" (T: the latest event's time, ns; the last five:
 * format version 2's, 0 in a version 1 trace), or "bad: MESSAGE" and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/trace.h"

#define MAX_SIZE (4096ull << 10) /* the page allocator's largest block, as in the kernel */

static u8 *states;

static u8 *state(void *ctx, u64 id)
{
	return &states[id];
}

int main(int argc, char **argv)
{
	static char err[512];
	struct trace_summary sum;
	struct trace_cursor *cur;
	struct trace t;
	FILE *f;
	u8 *buf;
	long len;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: trace_check FILE\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	if (trace_open(&t, buf, (u64)len, err, sizeof(err))) {
		printf("bad: %s\n", err);
		free(buf);
		return 1;
	}
	states = calloc(t.nr_ids ? t.nr_ids : 1, 1);
	cur = calloc(t.nr_streams, sizeof(*cur));
	if (!states || !cur)
		return 2;
	if (trace_analyze(&t, state, NULL, cur, MAX_SIZE, &sum, err, sizeof(err))) {
		printf("bad: %s\n", err);
		free(cur);
		free(states);
		free(buf);
		return 1;
	}
	printf("ok events %llu allocs %llu frees %llu never_allocated %llu double_free %llu "
	       "size_zero %llu size_too_big %llu page_allocs %llu live_at_end %llu peak_live %llu "
	       "duration_ns %llu kfree_rcu %llu rcu_frees %llu rcu_pending_at_end %llu nolock %llu "
	       "node_allocs %llu\n",
	       (unsigned long long)sum.events, (unsigned long long)sum.allocs,
	       (unsigned long long)sum.frees, (unsigned long long)sum.free_never_allocated,
	       (unsigned long long)sum.double_free, (unsigned long long)sum.size_zero,
	       (unsigned long long)sum.size_too_big, (unsigned long long)sum.page_allocs,
	       (unsigned long long)sum.live_at_end, (unsigned long long)sum.peak_live,
	       (unsigned long long)sum.duration_ns, (unsigned long long)sum.kfree_rcu,
	       (unsigned long long)sum.rcu_frees, (unsigned long long)sum.rcu_pending_at_end,
	       (unsigned long long)sum.nolock, (unsigned long long)sum.node_allocs);
	free(cur);
	free(states);
	free(buf);
	return 0;
}
