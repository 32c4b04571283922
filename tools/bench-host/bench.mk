# SPDX-License-Identifier: MIT
# make bench-host (included by the Makefile's bench-host block): slablab's kmem_cache next to
# glibc malloc, jemalloc, mimalloc and tcmalloc on this machine. The kernel sources are built
# a fourth time, like the host tests but without sanitizers, at -O2, with -DHOST_SMP=2: threads
# are CPUs and "interrupts off" is a thread-local flag, no system call (arch/host/cpu.h).
# Every mm/scheme_*.c is built, so a new scheme is benchmarked without editing this file.
# tools/bench-host/run.sh installs the peers' Debian packages when missing and runs it.

BH := $(B)/bench-host
BH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
BH_KCFLAGS := $(BH_CFLAGS) -I. -DARCH_HOST \
	-include arch/host/host_kernel.h -DHOST_SMP=2 -MMD -MP
BH_TCFLAGS := $(BH_CFLAGS) -I. -DARCH_HOST \
	-D_GNU_SOURCE -DHOST_SMP=2 -fno-builtin-malloc -fno-builtin-free -MMD -MP
BH_KSRCS := mm/slub.c mm/slab_common.c mm/slub_debug.c $(wildcard mm/scheme_*.c) mm/page_alloc.c kernel/smp.c \
	kernel/printk.c kernel/spinlock.c kernel/cmdline.c kernel/random.c
BH_OBJS := $(patsubst %.c,$(BH)/k/%.o,$(BH_KSRCS)) $(BH)/t/bench.o $(BH)/t/host_smp.o \
	$(BH)/t/host_env.o $(BH)/k/strlcpy.o

.PHONY: bench-host
bench-host: $(BH)/bench-host
	@tools/bench-host/run.sh $(BH)/bench-host $(BENCH_ARGS)

$(BH)/bench-host: $(BH_OBJS) arch/host/percpu.ld
	$(HOSTCC) $(BH_CFLAGS) -pthread -rdynamic -Wl,-T,arch/host/percpu.ld -o $@ $(filter %.o,$^)

$(BH)/k/%.o: %.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(BH_KCFLAGS) -c $< -o $@

$(BH)/t/bench.o: tools/bench-host/bench.c
	@mkdir -p $(@D)
	$(HOSTCC) $(BH_TCFLAGS) -c $< -o $@

$(BH)/t/%.o: arch/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(BH_TCFLAGS) -c $< -o $@

$(BH)/k/strlcpy.o: kernel/string.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(BH_KCFLAGS) -fno-builtin -fno-tree-loop-distribute-patterns \
		-MF $(@:.o=.d) -MT $@ -c $< -o $@.full
	objcopy --keep-global-symbol=strlcpy $@.full $@
	rm -f $@.full

.SECONDARY: $(BH_OBJS)

-include $(wildcard $(BH)/*/*.d $(BH)/*/*/*.d)
