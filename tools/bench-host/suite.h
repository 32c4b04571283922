/* SPDX-License-Identifier: MIT */
/* Between tools/bench-host/suite.c (bench-suite's main) and peer.c (bench-suite-peer's). */
#ifndef SLABLAB_BENCH_HOST_SUITE_H
#define SLABLAB_BENCH_HOST_SUITE_H

/*
 * bench-suite-peer: from now on kmem_cache_create_scheme(..., scheme name, ...) called from
 * bench/ makes a cache whose objects are this process's malloc/free (glibc's, or what
 * LD_PRELOAD put in front of it). 0, or -1 in bench-suite, which has no peers.
 */
int peer_setup(const char *name);
/* The shared object whose malloc the process calls ("?" in bench-suite). */
const char *peer_malloc_file(void);

#endif
