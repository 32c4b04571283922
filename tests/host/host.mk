# SPDX-License-Identifier: MIT
# Host unit tests (see tests/host/README.md): arch-neutral kernel sources built for Linux user
# space with ASan+UBSan, each test linked into build/host/test_NAME. Included by the Makefile
# after arch/host/build.mk, whose host_flavour makes the compile rules.

HT := $(B)/host
HT_OBJ := $(HT)/obj

# ---- one CPU, HOST_CFLAGS (ASan+UBSan): objects under $(HT_OBJ)/plain/ ----
$(eval $(call host_flavour,$(HT_OBJ)/plain,$(HOSTCC),$(HOST_CFLAGS),))

# Linked into every such test: printk (with the real vsnprintf), the real spinlocks, the
# kernel's strlcpy and the host glue (console_write to stdout, panic, the IF flag).
HT_COMMON := $(HT_OBJ)/plain/t/arch/host/host_env.o $(HT_OBJ)/plain/k/kernel/printk.o \
	$(HT_OBJ)/plain/k/kernel/spinlock.o $(HT_OBJ)/plain/strlcpy.o

# The kernel sources each test needs besides HT_COMMON.
$(HT)/test_buddy: $(HT_OBJ)/plain/k/mm/page_alloc.o $(HT_OBJ)/plain/k/kernel/numa.o
$(HT)/test_acpi: $(HT_OBJ)/plain/k/arch/x86/acpi.o
$(HT)/test_multiboot: $(HT_OBJ)/plain/k/arch/x86/multiboot.o
$(HT)/test_tsc_calib: $(HT_OBJ)/plain/k/arch/x86/tsc_calib.o
$(HT)/test_qrcode: $(HT_OBJ)/plain/k/kernel/qrcode.o
$(HT)/test_screen: $(HT_OBJ)/plain/k/kernel/screen.o $(HT_OBJ)/plain/k/kernel/fbcon.o \
	$(HT_OBJ)/plain/k/$(B)/gen/font.o $(HT_OBJ)/plain/k/kernel/qrcode.o

$(HT)/test_%: $(HT_OBJ)/plain/t/tests/host/test_%.o $(HT_COMMON)
	$(HOSTCC) $(HOST_CFLAGS) $(HT_LDFLAGS) -o $@ $(filter %.o,$^)

# trace_check: the kernel's slab trace reader (bench/trace.c) on a file, for
# tests/host/test_trace.sh (not a test of its own: it takes the file to read).
$(HT)/trace_check: $(HT_OBJ)/plain/t/tests/host/trace_check.o $(HT_OBJ)/plain/k/bench/trace.o $(HT_COMMON)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.o,$^)

# test_cmdline: the parser (kernel/cmdline.c) and the real options, those of every kernel
# source with a line that starts with the word boot_param (so an option added anywhere is tested
# without an edit here; kernel/cmdline.h). Those sources are built once more under
# $(HT_OBJ)/opts/ with -ffunction-sections -fdata-sections and linked with --gc-sections:
# arch/host/boot_params.ld KEEPs the options' descriptors and so their variables, strings,
# choices and check functions (slub_debug_parse), and the rest of those files (the AP
# start-up, the benchmarks, kmain) is never referenced, dropped, and needs nothing in user
# space. ASan leaves their globals alone (--param asan-globals=0): its table of globals
# would reference, and so keep, every one. arch/x86/ files get the x86 headers they include.
BOOT_PARAM_SRCS := $(shell grep -lw '^boot_param' $(CSRCS))
HT_OPTS_CFLAGS := $(HOST_CFLAGS) --param asan-globals=0 -ffunction-sections -fdata-sections
$(eval $(call host_flavour,$(HT_OBJ)/opts,$(HOSTCC),$(HT_OPTS_CFLAGS),))
$(HT_OBJ)/opts/k/arch/x86/%.o: HOST_KDIR_CFLAGS := -UARCH_HOST -DARCH_X86
HT_OPTS_OBJS := $(patsubst %.c,$(HT_OBJ)/opts/k/%.o,$(BOOT_PARAM_SRCS))
$(HT)/test_cmdline: $(HT_OBJ)/plain/k/kernel/cmdline.o $(HT_OPTS_OBJS) arch/host/boot_params.ld \
	tests/host/cmdline_schemes.ld
$(HT)/test_cmdline: HT_LDFLAGS := -Wl,--gc-sections -Wl,-T,arch/host/boot_params.ld \
	-Wl,-T,tests/host/cmdline_schemes.ld

# ---- the slab allocator with threads as CPUs: test_slab (ASan+UBSan), test_slab_tsan (TSan) ----
# HOST_KSRCS built again with -DHOST_SMP=1: arch/host/cpu.h then makes each thread a CPU
# with a thread-local number and per-cpu offset, an IPI a signal, and "interrupts off" the
# IPI signals blocked; arch/host/host_smp.c starts the CPUs and maps the page allocator's
# arena (docs/host-build.md). arch/host/percpu.ld gathers the per-cpu section so each thread
# gets a copy; -rdynamic lets slub.c's bad-free reports name the caller (dladdr).
$(eval $(call host_flavour,$(HT_OBJ)/smp,$(HOSTCC),$(HOST_CFLAGS) -DHOST_SMP=1,$(HOST_PERCPU_UBSAN)))
HT_SMP_OBJS := $(call host_objs,$(HT_OBJ)/smp)

$(HT)/test_slab: $(HT_OBJ)/smp/t/tests/host/test_slab.o $(HT_SMP_OBJS) $(HOST_LDSCRIPT)
	$(HOSTCC) $(HOST_CFLAGS) $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

# test_sheaves: the sheaves' capacities (linux7's rule, kmem_cache_set_sheaf_capacity), the
# same objects as test_slab.
$(HT)/test_sheaves: $(HT_OBJ)/smp/t/tests/host/test_sheaves.o $(HT_SMP_OBJS) $(HOST_LDSCRIPT)
	$(HOSTCC) $(HOST_CFLAGS) $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

# ThreadSanitizer flavour: the same sources with -fsanitize=thread instead of ASan+UBSan,
# objects under $(HT_OBJ)/tsan/. Its suppressions are compiled into the test (tsan_supp.c).
HT_TSAN_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(HOST_CFLAGS)) -fsanitize=thread
$(eval $(call host_flavour,$(HT_OBJ)/tsan,$(HOSTCC),$(HT_TSAN_CFLAGS) -DHOST_SMP=1,))
HT_TSAN_OBJS := $(call host_objs,$(HT_OBJ)/tsan) $(HT_OBJ)/tsan/t/arch/host/tsan_supp.o

$(HT)/test_slab_tsan: $(HT_OBJ)/tsan/t/tests/host/test_slab_tsan.o $(HT_TSAN_OBJS) $(HOST_LDSCRIPT)
	$(HOSTCC) $(HT_TSAN_CFLAGS) $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

# ---- fuzz_slab: libFuzzer (clang) over the slab allocator with every debug check on ----
# The same kernel sources as test_slab, built by clang with -fsanitize=fuzzer-no-link plus
# ASan and UBSan, objects under $(HT_OBJ)/fuzz/. `make fuzz` runs it for FUZZ_TIME seconds;
# tests/host/test_fuzz.sh (make test) runs a short pass from a fixed seed.
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wno-unused-parameter -Wno-sign-compare \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -DHOST_SMP=1 \
	-I. -DARCH_HOST
$(eval $(call host_flavour,$(HT_OBJ)/fuzz,$(FUZZ_CC),$(FUZZ_CFLAGS),$(HOST_PERCPU_UBSAN)))
FUZZ_OBJS := $(call host_objs,$(HT_OBJ)/fuzz)

$(HT)/fuzz_slab: $(HT_OBJ)/fuzz/t/tests/host/fuzz_slab.o $(FUZZ_OBJS) $(HOST_LDSCRIPT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(HOST_SMP_LDFLAGS) -o $@ $(filter %.o,$^)

# Keep the objects: make would delete those it made only through the pattern rules.
.SECONDARY: $(patsubst $(HT)/%,$(HT_OBJ)/plain/t/tests/host/%.o,$(HOST_TESTS)) $(HT_COMMON) \
	$(HT_SMP_OBJS) $(HT_TSAN_OBJS) $(FUZZ_OBJS) $(HT_OPTS_OBJS) $(HT_OBJ)/smp/t/tests/host/test_slab.o \
	$(HT_OBJ)/smp/t/tests/host/test_sheaves.o \
	$(HT_OBJ)/plain/t/tests/host/trace_check.o $(HT_OBJ)/plain/k/bench/trace.o \
	$(HT_OBJ)/tsan/t/tests/host/test_slab_tsan.o $(HT_OBJ)/fuzz/t/tests/host/fuzz_slab.o

# tools/acpi-check's program (tools/acpi-check.c): the kernel's ACPI reading (arch/x86/acpi.c),
# its HPET check (tsc_calib.c) and NUMA layout (kernel/numa.c) on a dump of another machine's
# tables; tests/host/test_acpi_check.sh runs it on tests/host/acpi-samples/.
$(HT)/acpi-check: $(HT_OBJ)/plain/t/tools/acpi-check.o $(HT_OBJ)/plain/k/arch/x86/acpi.o \
	$(HT_OBJ)/plain/k/arch/x86/tsc_calib.o $(HT_OBJ)/plain/k/kernel/numa.o $(HT_COMMON)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.o,$^)
.SECONDARY: $(HT_OBJ)/plain/t/tools/acpi-check.o
