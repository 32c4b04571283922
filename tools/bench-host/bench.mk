# SPDX-License-Identifier: MIT
# make bench-host (included by the Makefile's bench-host block): slablab's kmem_cache next to
# glibc malloc, jemalloc, mimalloc and tcmalloc on this machine. The kernel sources are built
# once more with arch/host/build.mk's host_flavour, like the host tests but without
# sanitizers, at -O2, with -DHOST_SMP=2: threads are CPUs and "interrupts off" is a
# thread-local flag, no system call (arch/host/cpu.h). Every mm/scheme_*.c is built
# (HOST_KSRCS), so a new scheme is benchmarked without editing this file.
# tools/bench-host/run.sh installs the peers' Debian packages when missing and runs it.

BH := $(B)/bench-host
BH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-I. -DARCH_HOST -DHOST_SMP=2
$(eval $(call host_flavour,$(BH),$(HOSTCC),$(BH_CFLAGS),))
# The benchmark and the glue call malloc/free as functions (the peers are LD_PRELOADed).
$(BH)/t/%.o: HOST_GLUE_CFLAGS := -fno-builtin-malloc -fno-builtin-free
BH_OBJS := $(call host_objs,$(BH)) $(BH)/t/tools/bench-host/bench.o

# The kernel's benchmark suite on real cores (tools/bench-host/suite.c): every bench/*.c, the
# replay sample the kernel links, and the .benches section (arch/host/benches.ld).
# bench-suite-peer is the same program with the kmem_cache calls bench/ makes wrapped
# (tools/bench-host/peer.c): the peers' malloc/free.
BS_OBJS := $(call host_objs,$(BH)) $(patsubst %.c,$(BH)/k/%.o,$(wildcard bench/*.c)) \
	$(BH)/k/$(B)/gen/replay_sample.o \
	$(BH)/t/tools/bench-host/suite.o
BS_LDFLAGS := $(HOST_SMP_LDFLAGS) -Wl,-T,arch/host/benches.ld
PEER_WRAPS := kmem_cache_create_scheme kmem_cache_alloc_zeroed kmem_cache_destroy \
	kmem_cache_info kmem_cache_stat_by_name kmem_cache_shrink kmem_cache_alloc_bulk_zeroed \
	kmem_cache_has_layer slab_scheme_flags kmem_cache_mem_info kmem_cache_mem_reset_peak \
	kmem_cache_set_param kmem_cache_get_param

# make bench-host: the suite for every scheme, then the peers on hackbench, remote, scaling
# and latency, then the micro-benchmarks of bench-host (pairs, batches, bulk, spsc) with the
# peers (tools/bench-host/run.sh). CPUS=N (default: every core this process may use),
# BENCH="bench=... scheme=... bench_reps=..." (the kernel's options), BENCH_ARGS for the
# micro-benchmarks (--quick, --rounds N, --work ID,...); BENCH_HOST_MICRO=0 leaves them out.
CPUS ?=
BENCH ?=
BENCH_HOST_MICRO ?= 1
.PHONY: bench-host
bench-host:
	@tools/deps.sh host
	@$(MAKE) --no-print-directory $(BH)/bench-host $(BH)/bench-suite $(BH)/bench-suite-peer
	@CPUS=$(call sq,$(CPUS)) BENCH=$(call sq,$(BENCH)) BENCH_HOST_MICRO=$(call sq,$(BENCH_HOST_MICRO)) \
	  tools/bench-host/run.sh $(BH) $(BENCH_ARGS)

$(BH)/bench-host: $(BH_OBJS) $(HOST_LDSCRIPT)
	$(Q)$(HOSTCC) $(BH_CFLAGS) $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

$(BH)/bench-suite: $(BS_OBJS) $(HOST_LDSCRIPT) arch/host/benches.ld
	$(Q)$(HOSTCC) $(BH_CFLAGS) $(BS_LDFLAGS) -o $@ $(filter %.o,$^)

$(BH)/bench-suite-peer: $(BS_OBJS) $(BH)/t/tools/bench-host/peer.o $(HOST_LDSCRIPT) arch/host/benches.ld
	$(Q)$(HOSTCC) $(BH_CFLAGS) $(BS_LDFLAGS) $(foreach f,$(PEER_WRAPS),-Wl,--wrap=$(f)) -o $@ \
	  $(filter %.o,$^)

# make test runs tests/host/test_bench_host.sh over both.
host-tests: $(BH)/bench-suite $(BH)/bench-suite-peer $(BH)/bench-host

.SECONDARY: $(BH_OBJS) $(BS_OBJS) $(BH)/t/tools/bench-host/peer.o
