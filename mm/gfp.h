/* SPDX-License-Identifier: MIT */
/* Allocation flags, with Linux's names. slablab never sleeps, so KERNEL and ATOMIC behave alike. */
#ifndef SLABLAB_GFP_H
#define SLABLAB_GFP_H

typedef unsigned int gfp_t;

#define __GFP_ZERO 0x1u   /* return zeroed memory */
#define __GFP_NOWARN 0x2u /* no message when the allocation fails */
#define __GFP_THISNODE 0x4u /* only the node asked for: no fallback to another node */
/* kmalloc_nolock's pages (mm/slub_nolock.c): no lock waited for, only tried (mm/page_alloc.c) */
#define __GFP_NOLOCK 0x8u
#define GFP_KERNEL 0x10u
#define GFP_ATOMIC 0x20u
#define GFP_NOWAIT GFP_ATOMIC

#endif
