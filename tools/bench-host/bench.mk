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

.PHONY: bench-host
bench-host: $(BH)/bench-host
	@tools/bench-host/run.sh $(BH)/bench-host $(BENCH_ARGS)

$(BH)/bench-host: $(BH_OBJS) $(HOST_LDSCRIPT)
	$(HOSTCC) $(BH_CFLAGS) $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

.SECONDARY: $(BH_OBJS)
