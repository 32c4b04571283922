/* SPDX-License-Identifier: MIT */
/*
 * The owner schemes' per-cpu state and counters (mm/scheme_ipi.c), in a header only so that
 * the white-box tests (tests/kernel/slab_ipi_test.c) can look at the remote-free lists. A
 * scheme needs no header of its own.
 */
#ifndef SLABLAB_SCHEME_IPI_H
#define SLABLAB_SCHEME_IPI_H

#include "mm/slub.h"

/* The counters (struct ipi_cpu's stat); their names are in mm/scheme_ipi.c. */
enum ipi_stat {
	REMOTE_FREE,       /* free sent to the slab's owner cpu */
	REMOTE_FORWARD,    /* drained object whose slab moved on, sent on */
	IPI_SENT,          /* slab IPIs sent (remote frees, transfers) */
	IPI_RECEIVED,      /* slab IPIs that found work for this cache */
	REMOTE_DRAIN,      /* remote-free lists drained (non-empty) */
	REMOTE_DRAINED,    /* objects those drains freed */
	REMOTE_DRAIN_MAX,  /* most objects in one drain (a maximum, not a sum) */
	OWNER_REQ_SENT,    /* asked another cpu for slabs */
	OWNER_REQ_GRANTED, /* requests this cpu answered with slabs */
	OWNER_REQ_REFUSED, /* requests this cpu answered with none */
	OWNER_REQ_TIMEOUT, /* no answer in time, allocated a slab instead */
	OWNER_SLABS_MOVED, /* slabs this cpu handed to another */
	NR_IPI_STATS
};

/*
 * Per cache and cpu (c->priv): the owned slabs and what other cpus send here. Fields other
 * cpus touch say so.
 */
struct ipi_cpu {
	struct kmem_cache *cache;       /* the cache this belongs to (for the IPI handler) */
	struct list_head owned;         /* owned slabs with free objects, not the cpu slab */
	unsigned int nr_owned;          /* slabs on owned (read racily by other cpus) */
	unsigned int nr_empty;          /* of which empty */
	void *remote_free;              /* objects other cpus freed, linked through themselves */
	struct slab *transfer_in;       /* slabs another cpu handed over, linked by slab->next */
	int transfer_req;               /* cpu + 1 that asks this cpu for slabs, 0: none */
	int notify_queued;              /* on its cpu's notify list (IPI pending) */
	struct kmem_cache_cpu *notify_next;
	int transfer_asked;             /* cpu + 1 asked and not answered yet, 0: none */
	u64 stat[NR_IPI_STATS];         /* the counters (enum ipi_stat) */
};

static inline struct ipi_cpu *ic(struct kmem_cache_cpu *c)
{
	return c->priv;
}

#endif
