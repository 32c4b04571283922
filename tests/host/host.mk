# SPDX-License-Identifier: MIT
# Host unit tests (see tests/host/README.md): arch-neutral kernel sources built for Linux user
# space with ASan+UBSan, each test linked into build/host/test_NAME. Included by the Makefile.

HT := $(B)/host
HT_OBJ := $(HT)/obj

# Kernel sources: HOST_CFLAGS as the Makefile sets them (-Itests/host/shim first, so the shim
# cpu.h wins over arch/cpu.h), plus the renames in host_kernel.h.
HT_KCFLAGS = $(HOST_CFLAGS) -include tests/host/shim/host_kernel.h -MMD -MP
# Test files and host glue: the kernel directories go in as -iquote, not -I, so that
# <string.h> and <time.h> are glibc's and not kernel/string.h and kernel/time.h.
HT_TCFLAGS = $(filter-out -I%,$(HOST_CFLAGS)) \
	$(addprefix -iquote ,tests/host/shim tests/host $(KERNEL_DIRS)) -D_GNU_SOURCE -MMD -MP

# Kernel sources built for the host (add the ones a new test needs here and below).
HT_KOBJS := $(addprefix $(HT_OBJ)/k/,kernel/printk.o kernel/spinlock.o kernel/cmdline.o \
	mm/page_alloc.o arch/acpi.o)

# Linked into every host test: printk (with the real vsnprintf), the real spinlocks, the
# kernel's strlcpy and the host glue (console_write to stdout, panic, the IF flag).
HT_COMMON := $(HT_OBJ)/t/shim/host_env.o $(HT_OBJ)/k/kernel/printk.o \
	$(HT_OBJ)/k/kernel/spinlock.o $(HT_OBJ)/k/strlcpy.o

# The kernel sources each test needs besides HT_COMMON.
$(HT)/test_cmdline: $(HT_OBJ)/k/kernel/cmdline.o
$(HT)/test_buddy: $(HT_OBJ)/k/mm/page_alloc.o
$(HT)/test_acpi: $(HT_OBJ)/k/arch/acpi.o

$(HT)/test_%: $(HT_OBJ)/t/test_%.o $(HT_COMMON)
	$(HOSTCC) $(HOST_CFLAGS) -o $@ $(filter %.o,$^)

$(HT_OBJ)/t/%.o: tests/host/%.c
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_TCFLAGS) -c $< -o $@

$(HT_OBJ)/k/%.o: %.c tests/host/shim/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_KCFLAGS) -c $< -o $@

# glibc 2.36 has no strlcpy, so cmdline.c uses kernel/string.c's. Every other global of that
# file is made local: the rest of the program keeps glibc's (ASan-checked) memmove, strlen...
$(HT_OBJ)/k/strlcpy.o: kernel/string.c tests/host/shim/host_kernel.h
	@mkdir -p $(@D)
	$(HOSTCC) $(HT_KCFLAGS) -fno-builtin -fno-tree-loop-distribute-patterns \
		-MF $(@:.o=.d) -MT $@ -c $< -o $@.full
	objcopy --keep-global-symbol=strlcpy $@.full $@
	rm -f $@.full

# Keep the objects: make would delete them as intermediates of the pattern rules.
.SECONDARY: $(patsubst $(HT)/%,$(HT_OBJ)/t/%.o,$(HOST_TESTS)) $(HT_KOBJS) $(HT_COMMON)

-include $(wildcard $(HT_OBJ)/*/*.d $(HT_OBJ)/*/*/*.d)
