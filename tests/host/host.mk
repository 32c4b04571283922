# SPDX-License-Identifier: MIT
# Host unit tests (see tests/host/README.md): arch-neutral kernel sources built for Linux user
# space with ASan+UBSan, each test linked into build/host/test_NAME. Included by the Makefile.

HT := $(B)/host
HT_OBJ := $(HT)/obj

# Kernel sources: HOST_CFLAGS as the Makefile sets them (-Itests/host/shim first, so the shim
# cpu.h wins over arch/x86/cpu.h), plus the renames in host_kernel.h.
HT_KCFLAGS = $(HOST_CFLAGS) -include arch/host/host_kernel.h -MMD -MP
# Test files and host glue: the kernel directories go in as -iquote, not -I, so that
# <string.h> and <time.h> are glibc's and not kernel/string.h and kernel/time.h.
HT_TCFLAGS = $(HOST_CFLAGS) -D_GNU_SOURCE -MMD -MP

# Kernel sources built for the host (add the ones a new test needs here and below).
HT_KOBJS := $(addprefix $(HT_OBJ)/k/,kernel/printk.o kernel/spinlock.o kernel/cmdline.o \
	mm/page_alloc.o arch/x86/acpi.o)

# Linked into every host test: printk (with the real vsnprintf), the real spinlocks, the
# kernel's strlcpy and the host glue (console_write to stdout, panic, the IF flag).
HT_COMMON := $(HT_OBJ)/t/shim/host_env.o $(HT_OBJ)/k/kernel/printk.o \
	$(HT_OBJ)/k/kernel/spinlock.o $(HT_OBJ)/k/strlcpy.o

# The kernel sources each test needs besides HT_COMMON.
$(HT)/test_cmdline: $(HT_OBJ)/k/kernel/cmdline.o
$(HT)/test_buddy: $(HT_OBJ)/k/mm/page_alloc.o
$(HT)/test_acpi: $(HT_OBJ)/k/arch/x86/acpi.o

$(HT)/test_%: $(HT_OBJ)/t/test_%.o $(HT_COMMON)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.o,$^)

$(HT_OBJ)/t/%.o: tests/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TCFLAGS) -c $< -o $@

$(HT_OBJ)/t/shim/%.o: arch/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TCFLAGS) -c $< -o $@

$(HT_OBJ)/k/%.o: %.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_KCFLAGS) -c $< -o $@

# glibc 2.36 has no strlcpy, so cmdline.c uses kernel/string.c's. Every other global of that
# file is made local: the rest of the program keeps glibc's (ASan-checked) memmove, strlen...
$(HT_OBJ)/k/strlcpy.o: kernel/string.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_KCFLAGS) -fno-builtin -fno-tree-loop-distribute-patterns \
		-MF $(@:.o=.d) -MT $@ -c $< -o $@.full
	objcopy --keep-global-symbol=strlcpy $@.full $@
	rm -f $@.full

# ---- the slab allocator with threads as CPUs: test_slab (ASan+UBSan), test_slab_tsan (TSan) ----
# The kernel sources are built a second (and third) time with -DHOST_SMP=1: arch/host/cpu.h then
# makes each thread a CPU with a thread-local number and per-cpu offset, an IPI a signal, and
# "interrupts off" the IPI signals blocked; arch/host/host_smp.c starts the CPUs and maps the page
# allocator's arena (docs/host-build.md). arch/host/percpu.ld gathers the per-cpu section so each
# thread gets a copy; -rdynamic lets slub.c's bad-free reports name the caller (dladdr).
HT_SMP_KSRCS := mm/slub.c mm/slab_common.c mm/slub_debug.c mm/scheme_lock.c mm/scheme_partial.c mm/scheme_sheaves.c \
	mm/scheme_ipi.c mm/page_alloc.c kernel/smp.c kernel/random.c \
	kernel/printk.c kernel/spinlock.c kernel/cmdline.c
HT_SMP_GLUE := shim/host_env shim/host_smp
HT_SMP_LDFLAGS := -rdynamic -pthread -Wl,-T,arch/host/percpu.ld

# ASan+UBSan flavour: objects under $(HT_OBJ)/smp/.
HT_SMP_OBJS := $(patsubst %.c,$(HT_OBJ)/smp/k/%.o,$(HT_SMP_KSRCS)) \
	$(patsubst %,$(HT_OBJ)/smp/t/%.o,$(HT_SMP_GLUE)) $(HT_OBJ)/k/strlcpy.o

$(HT)/test_slab: $(HT_OBJ)/smp/t/test_slab.o $(HT_SMP_OBJS) arch/host/percpu.ld
	$(HOSTCC) $(HOST_CFLAGS) $(HT_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

$(HT_OBJ)/smp/k/%.o: %.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_KCFLAGS) -DHOST_SMP=1 $(HT_PERCPU_CFLAGS) -c $< -o $@

# per_cpu_ptr() is the section's variable plus the distance to a CPU's copy: UBSan's
# object-size check takes that for an access past the variable (Linux hides the sum from
# the compiler with RELOC_HIDE; kernel/percpu.h does not). Off for the files that use it.
$(HT_OBJ)/smp/k/kernel/%.o: HT_PERCPU_CFLAGS := -fno-sanitize=object-size

$(HT_OBJ)/smp/t/%.o: tests/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TCFLAGS) -DHOST_SMP=1 -c $< -o $@

$(HT_OBJ)/smp/t/shim/%.o: arch/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TCFLAGS) -DHOST_SMP=1 -c $< -o $@

# ThreadSanitizer flavour: the same sources with -fsanitize=thread instead of ASan+UBSan,
# objects under $(HT_OBJ)/tsan/. Its suppressions are compiled into the test (tsan_supp.c).
HT_TSAN_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(HOST_CFLAGS)) -fsanitize=thread
HT_TSAN_KCFLAGS = $(HT_TSAN_CFLAGS) -include arch/host/host_kernel.h -DHOST_SMP=1 -MMD -MP
HT_TSAN_TCFLAGS = $(HT_TSAN_CFLAGS) -D_GNU_SOURCE -DHOST_SMP=1 -MMD -MP
HT_TSAN_OBJS := $(patsubst %.c,$(HT_OBJ)/tsan/k/%.o,$(HT_SMP_KSRCS)) \
	$(patsubst %,$(HT_OBJ)/tsan/t/%.o,$(HT_SMP_GLUE) shim/tsan_supp) $(HT_OBJ)/tsan/k/strlcpy.o

$(HT)/test_slab_tsan: $(HT_OBJ)/tsan/t/test_slab_tsan.o $(HT_TSAN_OBJS) arch/host/percpu.ld
	$(HOSTCC) $(HT_TSAN_CFLAGS) $(HT_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

$(HT_OBJ)/tsan/k/%.o: %.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TSAN_KCFLAGS) -c $< -o $@

$(HT_OBJ)/tsan/t/%.o: tests/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TSAN_TCFLAGS) -c $< -o $@

$(HT_OBJ)/tsan/t/shim/%.o: arch/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TSAN_TCFLAGS) -c $< -o $@

$(HT_OBJ)/tsan/k/strlcpy.o: kernel/string.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TSAN_KCFLAGS) -fno-builtin -fno-tree-loop-distribute-patterns \
		-MF $(@:.o=.d) -MT $@ -c $< -o $@.full
	objcopy --keep-global-symbol=strlcpy $@.full $@
	rm -f $@.full

# Keep the objects: make would delete them as intermediates of the pattern rules.
.SECONDARY: $(patsubst $(HT)/%,$(HT_OBJ)/t/%.o,$(HOST_TESTS)) $(HT_KOBJS) $(HT_COMMON) \
	$(HT_SMP_OBJS) $(HT_TSAN_OBJS) $(HT_OBJ)/smp/t/test_slab.o $(HT_OBJ)/tsan/t/test_slab_tsan.o

-include $(wildcard $(HT_OBJ)/*/*.d $(HT_OBJ)/*/*/*.d $(HT_OBJ)/*/*/*/*.d)

# ---- fuzz_slab: libFuzzer (clang) over the slab allocator with every debug check on ----
# The same kernel sources as test_slab, built by clang with -fsanitize=fuzzer-no-link plus
# ASan and UBSan, objects under $(HT_OBJ)/fuzz/. `make fuzz` runs it for FUZZ_TIME seconds;
# tests/host/test_fuzz.sh (make test) runs a short pass from a fixed seed.
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wno-unused-parameter -Wno-sign-compare \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -DHOST_SMP=1
FUZZ_KCFLAGS = $(FUZZ_CFLAGS) -I. -DARCH_HOST \
	-include arch/host/host_kernel.h -MMD -MP
FUZZ_TCFLAGS = $(FUZZ_CFLAGS) -I. -DARCH_HOST -D_GNU_SOURCE -MMD -MP
FUZZ_OBJS := $(patsubst %.c,$(HT_OBJ)/fuzz/k/%.o,$(HT_SMP_KSRCS)) \
	$(patsubst %,$(HT_OBJ)/fuzz/t/%.o,$(HT_SMP_GLUE)) $(HT_OBJ)/fuzz/k/strlcpy.o

$(HT)/fuzz_slab: $(HT_OBJ)/fuzz/t/fuzz_slab.o $(FUZZ_OBJS) arch/host/percpu.ld
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(HT_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

$(HT_OBJ)/fuzz/k/%.o: %.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_KCFLAGS) $(HT_PERCPU_CFLAGS) -c $< -o $@

$(HT_OBJ)/fuzz/k/kernel/%.o: HT_PERCPU_CFLAGS := -fno-sanitize=object-size

$(HT_OBJ)/fuzz/t/%.o: tests/host/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_TCFLAGS) -c $< -o $@

$(HT_OBJ)/fuzz/t/shim/%.o: arch/host/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_TCFLAGS) -c $< -o $@

$(HT_OBJ)/fuzz/k/strlcpy.o: kernel/string.c arch/host/host_kernel.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_KCFLAGS) -fno-builtin -MF $(@:.o=.d) -MT $@ -c $< -o $@.full
	objcopy --keep-global-symbol=strlcpy $@.full $@
	rm -f $@.full

.SECONDARY: $(FUZZ_OBJS) $(HT_OBJ)/fuzz/t/fuzz_slab.o
