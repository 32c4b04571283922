# SPDX-License-Identifier: MIT
# The host arch's build, included by the Makefile before tests/host/host.mk and
# tools/bench-host/bench.mk: kernel sources compiled for Linux user space on x86-64, with
# arch/host/ in place of arch/x86/ (-DARCH_HOST picks it in kernel/arch.h; the story is in
# docs/host-build.md). Each flavour of that build (sanitizers, compiler, HOST_SMP) is one
# call of host_flavour, its objects under a directory of its own.

# The kernel sources of the builds that run the allocator on thread-CPUs (test_slab,
# test_slab_tsan, fuzz_slab, bench-host): all of mm/ but boot-time memblock, so a new
# mm/scheme_*.c or mm/ file is built by all four without an edit here.
HOST_KSRCS := $(filter-out mm/memblock.c,$(wildcard mm/*.c)) kernel/smp.c kernel/random.c \
	kernel/printk.c kernel/spinlock.c kernel/cmdline.c kernel/numa.c kernel/rcu.c
# The host arch itself: console and panic on stdout (host_env.c), threads as CPUs, signals
# as IPIs and the page allocator's RAM (host_smp.c), the per-cpu and IPI-table sections
# (percpu.ld) and the boot options' (boot_params.ld).
HOST_GLUE := arch/host/host_env.c arch/host/host_smp.c
HOST_LDSCRIPT := arch/host/percpu.ld arch/host/boot_params.ld
HOST_SMP_LDFLAGS := -rdynamic -pthread $(foreach s,$(HOST_LDSCRIPT),-Wl,-T,$(s))

# The kernel's snprintf/vsnprintf get other link names in user space, so they cannot take
# the place of glibc's (test_printk compares the two) and GCC does not treat calls to them
# as calls to its builtins.
HOST_KNAMES := -Dsnprintf=kernel_snprintf -Dvsnprintf=kernel_vsnprintf

# per_cpu_ptr() is the section's variable plus the distance to a CPU's copy: UBSan's
# object-size check takes that for an access past the variable (Linux hides the sum from
# the compiler with RELOC_HIDE; kernel/percpu.h does not). The flavours that run several
# CPUs with UBSan turn it off for kernel/*.c, which use it.
HOST_PERCPU_UBSAN := -fno-sanitize=object-size

# $(call host_flavour,DIR,CC,CFLAGS,KERNEL_DIR_CFLAGS): the rules of one flavour.
#   DIR/k/PATH.o   kernel source PATH.c (mm/, kernel/, arch/x86/), with HOST_KNAMES;
#                  those under kernel/ also get KERNEL_DIR_CFLAGS
#   DIR/t/PATH.o   user-space source PATH.c (tests/host/, arch/host/, tools/bench-host/),
#                  with glibc's headers (-D_GNU_SOURCE) and HOST_GLUE_CFLAGS, which a
#                  flavour may set for DIR/t/%.o
#   DIR/strlcpy.o  kernel/string.c with strlcpy its only global symbol: glibc 2.36 has no
#                  strlcpy (kernel/cmdline.c uses it), and the rest of the program keeps
#                  glibc's (ASan-checked) memmove, strlen...
define host_flavour
$(1)/k/%.o: %.c
	@mkdir -p $$(@D)
	$(2) $(3) $(HOST_KNAMES) $$(HOST_KDIR_CFLAGS) -MMD -MP -c $$< -o $$@

$(1)/k/kernel/%.o: HOST_KDIR_CFLAGS := $(4)

$(1)/t/%.o: %.c
	@mkdir -p $$(@D)
	$(2) $(3) -D_GNU_SOURCE $$(HOST_GLUE_CFLAGS) -MMD -MP -c $$< -o $$@

$(1)/strlcpy.o: kernel/string.c
	@mkdir -p $$(@D)
	$(2) $(3) $(HOST_KNAMES) -fno-builtin \
		$(if $(findstring clang,$(2)),,-fno-tree-loop-distribute-patterns) \
		-MMD -MP -MF $$(@:.o=.d) -MT $$@ -c $$< -o $$@.full
	objcopy --keep-global-symbol=strlcpy $$@.full $$@
	rm -f $$@.full
endef

# $(call host_objs,DIR): a flavour's objects of HOST_KSRCS and HOST_GLUE, and its strlcpy.
host_objs = $(patsubst %.c,$(1)/k/%.o,$(HOST_KSRCS)) $(patsubst %.c,$(1)/t/%.o,$(HOST_GLUE)) \
	$(1)/strlcpy.o

-include $(shell find $(B)/host $(B)/bench-host -name '*.d' 2>/dev/null)
