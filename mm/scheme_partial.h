/* SPDX-License-Identifier: MIT */
/*
 * The "partial" scheme's budget (mm/scheme_partial.c), which the owner schemes take as
 * theirs too (mm/scheme_ipi.c: the slabs an owner keeps before others may ask for some), and
 * the white-box tests read.
 */
#ifndef SLABLAB_SCHEME_PARTIAL_H
#define SLABLAB_SCHEME_PARTIAL_H

#include "mm/slub.h"

/* The boot option cpu_partial= (0: not given, by size). */
extern unsigned int slub_cpu_partial_override;

/* A cpu partial list's budget for s, in objects: cpu_partial=, else 120, 52, 24 or 6 by size. */
unsigned int cpu_partial_objects(const struct kmem_cache *s);

#endif
