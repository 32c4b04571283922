# SPDX-License-Identifier: MIT
# slablab: build the kernel and its ISO, boot it in QEMU, run the tests.
#
#   make            build build/slablab.elf and the BIOS+UEFI ISO build/slablab.iso
#   make run        boot in QEMU, serial console on stdout; exit 0 iff the kernel reports success
#   make test       host tests + a boot matrix of the in-kernel suites; ends "N passed, N failed"
#   make debug      QEMU halted with a gdb stub on :1234; then gdb -x build/gdbinit
#   make deps       install the Debian packages the above need (as root), or print the apt
#                   line; fetch QEMU 10 for the x2APIC boots (tools/qemu10.sh). Every target
#                   checks its own tools first (tools/deps.sh GROUP), make alone the build group
#   make bench      boot the benchmark suite, keep build/bench.log, write build/report/ from it
#   make replay TRACE=FILE  replay a slab trace on every scheme (docs/traces.md)
#   make trace-linux WORKLOAD=hackbench  trace Linux's own slab calls (Debian's kernel in QEMU;
#                   WORKLOAD=hackbench|fs|fswalk|net|forkexec, SCALE=N repeats it N times)
#   make sweep      partial lists against sheaves over a grid of settings and CPU counts (1 to
#                   1024): build/sweep/sweep.jsonl, a point a line, and the study from it
#                   (docs/sheaves-study.md); resumes where it stopped (hours on a 2-core host)
#   make bench-host slablab's allocator natively next to glibc, jemalloc, mimalloc, tcmalloc
#   make bench-linux  bench=fastpath,bulk,remote on Debian's Linux 6.1 (a module) and on
#                   slablab with the same QEMU command, ROUNDS=5 interleaved boots each (1
#                   with ICOUNT=1), side by side: each side's fastest round per figure
#   make bench-doc  rerun every command docs/BENCHMARKS.md documents into docs/results/ and
#                   make its tables again from those logs (tools/bench-doc.sh)
#   make fuzz       libFuzzer over the slab allocator with all debug checks (FUZZ_TIME=60 s)
#   make handout LAB=n [OUT=dir]   the student tree of lab n (docs/labs/), default build/labN
#   make grade [LAB=n] [TREE=path] [CHECK=regex]  boot TREE's kernel per lab check; the score
#   make test-labs  every lab's handout fails its grader, the full tree passes it, every wrong
#                   solution in tests/labs/mutants/ loses points (slow: docs/labs/README.md)
#   make autograder LAB=n  Gradescope's autograder of lab n: build/autograder-labN.zip
#   make netboot [CMDLINE=...] [OUT=dir]  a TFTP tree: GRUB's network images, grub.cfg, the kernel
#   make lava-job CMDLINE=... [DEVICE=qemu|TYPE] [LAVA_URL=] [OUT=dir]  a LAVA job (docs/lava.md)
#   make test-lava  LAVA's lava-run runs slablab's qemu jobs offline; results = serial KTAP (root)
#
# Knobs (make run / make debug; make test boots its own matrix and ignores them, with a note):
#   SMP=4           number of CPUs QEMU gives the guest (1..255 under QEMU 7.2's TCG; up to
#                   1024 with a QEMU whose TCG has x2APIC, which tools/qemu10.sh provides:
#                   q35, -cpu max,+x2apic and an intel-iommu in EIM mode are then chosen)
#   APIC=auto       x2apic: the guest CPU gets x2APIC (QEMU 8 or later: tools/qemu10.sh's is
#                   taken when the installed one is older); xapic: takes it away
#   TOPOLOGY=       appended to -smp, e.g. TOPOLOGY=sockets=2,cores=3,threads=2 (APIC ids
#                   with gaps)
#   MEM=256M        guest memory (128M .. 16G)
#   NODES=1         NUMA nodes (1..8): SMP and MEM split evenly, SLIT distances 10/20
#                   (tools/qemu-run.sh's header has the -numa arguments this becomes)
#   ACCEL=auto      auto: KVM only if /dev/kvm is usable AND the CPU has vmx/svm, else TCG; tcg; kvm
#   ICOUNT=0        1: TCG with -icount shift=0, the TSC counts guest instructions (deterministic)
#   FIRMWARE=bios   bios (SeaBIOS) or uefi (OVMF)
#   CMDLINE=        kernel command line, e.g. CMDLINE="test=smp cpus=2" (docs/options.md); taken
#                   as written ($ is not make's here: CMDLINE='slub_debug=P;FZ,kmalloc-64' or
#                   CMDLINE='test=$x' reach GRUB unchanged), each word quoted for grub.cfg
#   TIMEOUT=300     seconds before a hung kernel is killed and reported as a failure
#                   (make bench: 600 unless given)
#   SCREEN=1        show QEMU's window (the kernel's framebuffer console) instead of
#                   -display none; GFXPAYLOAD= (e.g. 800x600x16, text) picks GRUB's mode

SMP ?= 4
MEM ?= 256M
ACCEL ?= auto
ICOUNT ?= 0
FIRMWARE ?= bios
CMDLINE ?=
TIMEOUT ?= 300
APIC ?= auto
TOPOLOGY ?=
NODES ?= 1
export SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT APIC TOPOLOGY NODES

B := build
# V=1 shows every command.
ifeq ($(V),1)
Q :=
else
Q := @
endif
CC := gcc
LD := ld
NASM := nasm
HOSTCC := gcc

CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie -mno-red-zone -mgeneral-regs-only \
	-mcmodel=small -fno-stack-protector -fno-asynchronous-unwind-tables -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-fno-common -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Werror --param=min-pagesize=0 \
	-MMD -MP -I. -I$(B)/gen -DARCH_X86
NASMFLAGS := -f elf64 -g -I$(B)/gen -Iarch/x86/boot
LDFLAGS := -n -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -T linker.ld

CSRCS := $(wildcard arch/x86/*.c init/*.c kernel/*.c mm/*.c bench/*.c tests/kernel/*.c)
ASRCS := $(wildcard arch/x86/boot/*.asm arch/x86/*.asm)
OBJS := $(patsubst %.c,$(B)/%.o,$(CSRCS)) $(patsubst %.asm,$(B)/%.asm.o,$(ASRCS)) $(B)/gen/font.o \
	$(B)/gen/replay_sample.o

# The screen font (kernel/font.h), from a PSF console font: Debian's psf-unifont by default
# (tools/deps.sh installs it); tools/font.py reads screendumps back with the same file.
FONT ?= /usr/share/consolefonts/Unifont-APL8x16.psf.gz

.PHONY: all run test test-big test-numa debug deps clean iso-cmdline host-tests bench-host model \
	fuzz bench bench-doc replay trace-linux bench-linux handout grade test-labs autograder lava-job test-lava \
	netboot sweep
# Like every target below, the default one first checks its tools (tools/deps.sh: installs
# what is missing as root, else prints the apt-get line and stops).
all:
	@tools/deps.sh build
	@$(MAKE) --no-print-directory $(B)/slablab.elf $(B)/slablab.iso

$(B)/gen/trampoline.inc: arch/x86/trampoline.h
	@mkdir -p $(@D)
	$(Q)sed -n 's/^#define \(TRAMP_[A-Z0-9_]*\) \([0-9a-fx]*\).*/%define \1 \2/p' $< > $@

# bench=replay's trace when GRUB loads none (bench/bench_replay.c): a recording, as bytes.
REPLAY_SAMPLE := tests/traces/python-threads.trace
$(B)/gen/replay_sample.c: $(REPLAY_SAMPLE)
	@mkdir -p $(@D)
	$(Q){ echo '/* $(REPLAY_SAMPLE), made by the Makefile */'; \
	  echo '#include "kernel/types.h"'; \
	  echo 'const u8 replay_sample[] __aligned(8) = {'; \
	  od -An -v -tx1 $< | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const u64 replay_sample_len = sizeof(replay_sample);'; } > $@.tmp
	$(Q)mv $@.tmp $@

$(B)/gen/replay_sample.o: $(B)/gen/replay_sample.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# build/gen/font.psf: the font the kernel was built with, which tools/test.sh reads
# screendumps back with.
$(B)/gen/font.psf: $(FONT)
	@mkdir -p $(@D)
	$(Q)cp $(FONT) $@

$(B)/gen/font.c: $(B)/gen/font.psf tools/font.py
	$(Q)tools/font.py c $< > $@.tmp && mv $@.tmp $@

$(B)/gen/font.o: $(B)/gen/font.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# string.c must not be turned back into calls to memset/memcpy by the optimiser.
$(B)/kernel/string.o: CFLAGS += -fno-builtin -fno-tree-loop-distribute-patterns

$(B)/%.asm.o: %.asm $(B)/gen/trampoline.inc
	@mkdir -p $(@D)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(NASMFLAGS) -MD $(B)/$*.asm.d -MP $< -o $@

# Two links: the first without symbols, then tools/kallsyms.sh turns its text symbols into
# a table that the second link places after everything it describes, so no address moves.
$(B)/slablab.elf: $(OBJS) linker.ld tools/kallsyms.sh
	@$(if $(Q),echo "  LD      $@")
	$(Q)tools/kallsyms.sh /dev/null > $(B)/kallsyms0.c
	$(Q)$(CC) $(CFLAGS) -c $(B)/kallsyms0.c -o $(B)/kallsyms0.o
	$(Q)$(LD) $(LDFLAGS) -o $(B)/slablab.pass1.elf $(OBJS) $(B)/kallsyms0.o
	$(Q)tools/kallsyms.sh $(B)/slablab.pass1.elf > $(B)/kallsyms.c
	$(Q)$(CC) $(CFLAGS) -c $(B)/kallsyms.c -o $(B)/kallsyms.o
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms.o
	@nm $(B)/slablab.pass1.elf | grep -i ' t ' > $(B)/syms1.txt; nm $@ | grep -i ' t ' > $(B)/syms2.txt; \
	  cmp -s $(B)/syms1.txt $(B)/syms2.txt || { echo "kallsyms: text moved between links"; exit 1; }
	@if command -v grub-file >/dev/null; then grub-file --is-x86-multiboot2 $@ || \
	  { echo "$@ is not a multiboot2 kernel"; exit 1; }; fi

$(B)/slablab.iso: $(B)/slablab.elf iso/boot/grub/grub.cfg tools/mkiso.sh
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh $@ $(B)/slablab.elf iso/boot/grub/grub.cfg

# A make variable's text as one single-quoted shell word. CMDLINE goes through it as
# $(value CMDLINE): its raw text, from the command line or the environment, so a $ in it is
# neither a make variable nor the shell's (tools/mkiso.sh then quotes each word for GRUB).
sq = '$(subst ','\'',$(1))'
cmdline_q = $(call sq,$(value CMDLINE))

# An ISO whose only entry boots with CMDLINE and no menu delay (make run, tools/test.sh).
# MODULE=FILE: the entry also loads FILE as a multiboot2 module (a trace for bench=replay).
OUT ?= $(B)/run.iso
MODULE ?=
iso-cmdline: $(B)/slablab.elf tools/mkiso.sh
	$(Q)tools/mkiso.sh $(OUT) $(B)/slablab.elf --cmdline $(cmdline_q) \
	  $(if $(MODULE),--module $(call sq,$(MODULE)))

$(B)/test.iso: $(B)/slablab.elf tools/mkiso.sh
	@$(if $(Q),echo "  ISO     $@")
	$(Q)tools/mkiso.sh $@ $(B)/slablab.elf --cmdline "test=all"

deps:
	@tools/deps.sh test

run:
	@tools/deps.sh run
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@$(MAKE) --no-print-directory iso-cmdline OUT=$(B)/run.iso CMDLINE=$(cmdline_q) >/dev/null
	@ISO=$(B)/run.iso tools/qemu-run.sh

# make bench: the suite with the knobs of make run; the serial log is kept in build/bench.log
# and tools/benchreport.py turns it into build/report/ (CSVs, PNGs, report.md). With CMDLINE
# empty the kernel runs its default selection (about a minute at 4 CPUs under TCG); give
# CMDLINE="bench=all" for every benchmark. The exit code is the boot's, or 1 if the report
# could not be made.
BENCH_CMDLINE :=
BENCH_TIMEOUT := $(if $(filter file,$(origin TIMEOUT)),600,$(TIMEOUT))
bench:
	@tools/deps.sh bench
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@$(MAKE) --no-print-directory iso-cmdline OUT=$(B)/bench.iso \
	  CMDLINE=$(call sq,$(if $(value CMDLINE),$(value CMDLINE),$(value BENCH_CMDLINE))) >/dev/null
	@rm -rf $(B)/bench.log $(B)/report
	@rc=0; ISO=$(B)/bench.iso LOG=$(B)/bench.log TIMEOUT=$(BENCH_TIMEOUT) tools/qemu-run.sh || rc=$$?; \
	  python3 tools/benchreport.py $(B)/bench.log -o $(B)/report || { [ $$rc != 0 ] || rc=1; }; \
	  exit $$rc

# make bench-doc: the logs behind docs/BENCHMARKS.md made again (each documented command
# into docs/results/NAME.log, tools/bench-doc.sh --list names them), then the doc's tables
# from those logs (tools/benchreport.py --doc docs/BENCHMARKS.md). LOGS="NAME ..." for some.
LOGS ?=
bench-doc:
	@tools/bench-doc.sh $(LOGS)

# build/trace/slabtrace (tools/trace/slabtrace.c with the kernel's own trace reader,
# bench/trace.c): slabtrace.py's from-linux and check in C, for traces of millions of events
# (docs/traces.md). make replay checks with it, make trace-linux converts with it.
TRACE_TOOL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-I. -DARCH_HOST
$(B)/trace/slabtrace: tools/trace/slabtrace.c bench/trace.c bench/trace.h kernel/types.h \
	kernel/printk.h kernel/string.h
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(HOSTCC) $(TRACE_TOOL_CFLAGS) -o $@ tools/trace/slabtrace.c bench/trace.c

# make replay TRACE=FILE: bench=replay of a slab trace (docs/traces.md) on every scheme, the
# knobs of make run; CMDLINE adds options (replay_cpus=, scheme=; a bench= of its own
# replaces bench=replay, e.g. bench=replay,hackbench). The log is kept in
# build/replay.log; build/trace/slabtrace check (the kernel's reader) runs first and stops a
# bad trace here.
replay:
	@tools/deps.sh run
	@[ -n "$(TRACE)" ] || { echo "make replay: give the trace, TRACE=FILE (docs/traces.md)"; exit 2; }
	@[ -f "$(TRACE)" ] || { echo "make replay: no file $(TRACE)"; exit 2; }
	@$(MAKE) --no-print-directory $(B)/trace/slabtrace $(B)/slablab.elf
	@$(B)/trace/slabtrace check $(call sq,$(TRACE))
	@$(MAKE) --no-print-directory iso-cmdline OUT=$(B)/replay.iso MODULE=$(call sq,$(TRACE)) \
	  CMDLINE=$(call sq,$(if $(filter bench=%,$(value CMDLINE)),,bench=replay )$(value CMDLINE)) >/dev/null
	@ISO=$(B)/replay.iso LOG=$(B)/replay.log tools/qemu-run.sh

# make trace-linux WORKLOAD=hackbench|fs|fswalk|net|forkexec: Debian's kernel
# (linux-image-amd64) booted in QEMU traces Linux's kmem events while it runs the workload
# (tools/trace/linux/capture.sh, a minute or two under TCG); the texts of tracefs, trace-cmd
# report and perf script are kept in build/trace/linux/ and trace-cmd's is converted to
# build/trace/linux-WORKLOAD.trace, ready for make replay TRACE=build/trace/linux-WORKLOAD.trace.
# SCALE=N repeats the workload N times and traces it with trace-cmd alone (TRACERS= to
# choose): build/trace/linux-xN/ and build/trace/linux-WORKLOAD-xN.trace (SCALE=160 of
# hackbench: 10.5 million events, MEM=3G for the guest's copy of the trace).
WORKLOAD ?= hackbench
SCALE ?= 1
TRACERS ?=
tl_dir = $(B)/trace/linux$(if $(filter-out 1,$(SCALE)),-x$(SCALE))
tl_trace = $(B)/trace/linux-$(WORKLOAD)$(if $(filter-out 1,$(SCALE)),-x$(SCALE)).trace
trace-linux:
	@tools/deps.sh trace
	@$(MAKE) --no-print-directory $(B)/trace/slabtrace
	@SCALE=$(call sq,$(SCALE)) TRACERS=$(call sq,$(TRACERS)) \
	  MEM=$(if $(filter file,$(origin MEM)),,$(call sq,$(MEM))) \
	  TIMEOUT=$(if $(filter file,$(origin TIMEOUT)),,$(call sq,$(TIMEOUT))) \
	  tools/trace/linux/capture.sh $(call sq,$(WORKLOAD)) $(tl_dir)
	@$(B)/trace/slabtrace from-linux $(tl_dir)/$(WORKLOAD).trace-cmd.txt -o $(tl_trace) \
	  --source linux-6.1:$(WORKLOAD)$(if $(filter-out 1,$(SCALE)),x$(SCALE))
	@echo "make replay TRACE=$(tl_trace)"

# make bench-linux: slablab's bench=fastpath,bulk,remote on Linux's own SLUB and on slablab,
# with the same QEMU command (tools/qemu-run.sh's for SMP, MEM, ACCEL, ICOUNT):
# tools/bench-linux/run.sh builds slabbench.ko against Debian's linux-headers for the
# installed linux-image-amd64 and boots that kernel (init_on_alloc=0); slablab boots
# BENCH_LINUX_CMDLINE (or CMDLINE). tools/bench-linux/rounds.sh interleaves ROUNDS boots of
# each (Linux, slablab, Linux, ...) into build/bench-linux/linux-R.log and slablab-R.log;
# build/bench-linux/compare.md sets Linux against lock and partial with each fastpath
# (tools/benchreport.py --compare --pair), per figure each side's fastest round and their
# ratio. ROUNDS: 5 under TCG (its TSC is host time: the load moves each boot; about 12 s a
# boot on the development host), 1 with ICOUNT=1 (instruction counts, exact). ICOUNT=1
# boots both with SMP=1: Linux 6.1 hangs at "x86: Booting SMP configuration" under -icount
# with more CPUs (and remote, which needs two, measures nothing). BENCH_REPS=N: bench_reps=
# on both sides.
BENCH_LINUX_CMDLINE := bench=fastpath,bulk,remote scheme=lock,partial
BENCH_REPS ?=
ROUNDS ?=
bl_smp := $(if $(filter 1,$(ICOUNT)),1,$(SMP))
bl_rounds = $(if $(ROUNDS),$(ROUNDS),$(if $(filter 1,$(ICOUNT)),1,5))
bench-linux:
	@r=$(call sq,$(bl_rounds)); case "$$r" in ''|*[!0-9]*|0*) false;; *) [ "$$r" -le 20 ];; esac || \
	  { echo "bench-linux: ROUNDS='$$r' is not a number of rounds from 1 to 20 (each round boots Linux and slablab once)" >&2; exit 2; }
	@tools/deps.sh linux
	@$(if $(filter 1,$(ICOUNT)),$(if $(filter-out 1,$(SMP)),echo "bench-linux: ICOUNT=1: both boots get SMP=1 (Linux 6.1 hangs at \"x86: Booting SMP configuration\" under -icount with more CPUs)";))
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@mkdir -p $(B)/bench-linux
	@$(MAKE) --no-print-directory iso-cmdline OUT=$(B)/bench-linux/slablab.iso \
	  CMDLINE=$(call sq,$(if $(value CMDLINE),$(value CMDLINE),$(value BENCH_LINUX_CMDLINE))$(if $(BENCH_REPS), bench_reps=$(BENCH_REPS))) >/dev/null
	@SMP=$(bl_smp) TIMEOUT=$(BENCH_TIMEOUT) BENCH_REPS=$(or $(BENCH_REPS),0) \
	  tools/bench-linux/rounds.sh $(B)/bench-linux $(call sq,$(bl_rounds))
	@echo "bench-linux: A is Linux, B slablab; a few rows of $(B)/bench-linux/compare.md:"
	@grep -E -e '^\| scheme \|' -e '\| 256 \| alloc_free_pair \| cycles' \
	  -e '\| (16|250) \| bulk_per_object \| cycles' -e '\| (throughput|per_object) \|' \
	  $(B)/bench-linux/compare.md | grep -v -e '| — |' || true

# make sweep: bench=sweep (bench/bench_sweep.c) at 1, 4, 16, 64, 256 and 1024 CPUs, a boot
# each (under ICOUNT; past 255 CPUs on tools/qemu10.sh's QEMU), every setting and workload in
# each boot: tools/sweep.py keeps each boot's log in build/sweep/logs/ (a complete one is
# not booted again: make sweep resumes) and writes build/sweep/sweep.jsonl, one point a
# line; then tools/benchreport.py --study writes build/sweep/sheaves-study.md and its
# plots. SWEEP_ARGS for tools/sweep.py (--cpus 1,4, --host for real cycles from the host
# build, --keep DIR for the big boots' logs, --help). docs/sheaves-study.md is made the
# same way from docs/results/sweep/sweep.jsonl.
SWEEP_ARGS ?=
sweep:
	@tools/deps.sh test
	@python3 tools/sweep.py $(SWEEP_ARGS)
	@python3 tools/benchreport.py --study build/sweep/sweep.jsonl -o build/sweep

debug:
	@tools/deps.sh run
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@$(MAKE) --no-print-directory iso-cmdline OUT=$(B)/run.iso CMDLINE=$(cmdline_q) >/dev/null
	@ISO=$(B)/run.iso tools/qemu-run.sh --debug

# ---- host tests: arch-neutral kernel code built for Linux user space, with sanitizers ----
# The host arch (arch/host/, -DARCH_HOST) and its build rules: arch/host/build.mk.
HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-fsanitize=address,undefined -fno-sanitize-recover=all -I. -DARCH_HOST
HOST_TESTS := $(patsubst tests/host/%.c,$(B)/host/%,$(wildcard tests/host/test_*.c))
include arch/host/build.mk
include tests/host/host.mk

host-tests: $(HOST_TESTS) $(B)/host/fuzz_slab $(B)/host/trace_check $(B)/trace/slabtrace $(B)/host/acpi-check

# libFuzzer over the slab allocator with every debug check on (tests/host/fuzz_slab.c), for
# FUZZ_TIME seconds; its corpus is kept in build/fuzz-corpus/, a crash input in build/.
FUZZ_TIME ?= 60
fuzz:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/host/fuzz_slab
	@mkdir -p $(B)/fuzz-corpus
	$(B)/host/fuzz_slab -max_total_time=$(FUZZ_TIME) -max_len=1024 -artifact_prefix=$(B)/ \
		$(B)/fuzz-corpus

# The matrix sets every run knob itself: the exported ones still at this file's defaults are
# left out of tools/test.sh's environment, and it names (and ignores) any that are left, i.e.
# given on the command line or in the environment (MEM=64M make test).
RUN_KNOBS := SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT APIC TOPOLOGY NODES
test:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/slablab.elf $(B)/test.iso host-tests
	@$(foreach v,$(RUN_KNOBS),$(if $(filter file,$(origin $(v))),unset $(v);)) tools/test.sh

# make test-big: the x2APIC boots and the 256-, 512- and 1024-CPU boots of test=smp,ipi,spinlock,slab,
# with test=nolock and test=rcu,nmi at 1024 (tools/test.sh with TEST_BIG=1), on a QEMU whose TCG
# has x2APIC (tools/qemu10.sh). About 12 minutes for 1024 CPUs on the busy 2-core development
# host; not part of make test.
test-big:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/slablab.elf $(B)/test.iso host-tests
	@$(foreach v,$(RUN_KNOBS),$(if $(filter file,$(origin $(v))),unset $(v);)) TEST_BIG=1 \
	  TEST_FILTER='^(x2apic|big)\[' tools/test.sh

# make test-numa: the slab suites on every scheme on two nodes (NODES=2) and two nodes of
# 144 x2APIC CPUs each (tools/test.sh with TEST_NUMA=1; the QEMU of tools/qemu10.sh for the
# latter). A few minutes; make test has the cheaper NUMA boots.
test-numa:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/slablab.elf $(B)/test.iso host-tests
	@$(foreach v,$(RUN_KNOBS),$(if $(filter file,$(origin $(v))),unset $(v);)) TEST_NUMA=1 \
	  TEST_FILTER='^numa\[(scheme=|x2apic)' tools/test.sh

# The Promela models (tools/model/: the ipi schemes' protocol, the sheaves barn, RCU's grace
# periods), checked with spin at length (make test does a short pass of each): docs/models.md,
# docs/rcu.md.
model:
	@tools/deps.sh test
	@tools/model/check.sh --full
	@tools/model/rcu.sh --full

# The course labs (docs/labs/, tools/lab.py). OUT is also iso-cmdline's: its default here is
# build/labN. TREE: the tree to grade (default this one), built with its own Makefile and
# booted with this tree's ISO tool, QEMU runner and checks; CHECK: only the checks whose
# name matches this regex.
LAB ?=
TREE ?= .
CHECK ?=
handout:
	@[ -n "$(LAB)" ] || { echo "make handout: give LAB=n (docs/labs/)"; exit 2; }
	@tools/deps.sh build
	@python3 tools/lab.py handout $(call sq,$(LAB)) \
	  $(call sq,$(if $(filter file,$(origin OUT)),$(B)/lab$(LAB),$(OUT)))

grade:
	@tools/deps.sh run
	@python3 tools/lab.py grade $(if $(LAB),--lab $(call sq,$(LAB))) --tree $(call sq,$(TREE)) \
	  $(if $(CHECK),--only $(call sq,$(CHECK)))

test-labs:
	@tools/deps.sh test
	@$(MAKE) --no-print-directory $(B)/slablab.elf $(B)/test.iso host-tests
	@$(foreach v,$(RUN_KNOBS),$(if $(filter file,$(origin $(v))),unset $(v);)) \
	  TEST_LABS=all TEST_FILTER='^(lab\[|host\[test_autograder\])' tools/test.sh

autograder:
	@[ -n "$(LAB)" ] || { echo "make autograder: give LAB=n (docs/labs/)"; exit 2; }
	@python3 tools/lab.py autograder $(call sq,$(LAB)) \
	  $(call sq,$(if $(filter file,$(origin OUT)),$(B)/autograder-lab$(LAB).zip,$(OUT)))

# make netboot [CMDLINE=...] [MODULE=FILE] [OUT=dir] [NETBOOT_SUBDIR=DIR] [GRUB_TIMEOUT=5]: a TFTP
# tree that boots slablab over the network (tools/netboot.sh; docs/real-hardware.md): GRUB's
# PXE image for BIOS (boot/grub/i386-pc/core.0) and its image for UEFI
# (boot/grub/x86_64-efi/core.efi), boot/grub/grub.cfg, boot/slablab.elf and MODULE as
# boot/trace. With CMDLINE the menu has one entry that boots it, else the ISO's menu; it is
# shown for GRUB_TIMEOUT seconds. OUT (default build/netboot) is the TFTP root, or holds the
# tree under NETBOOT_SUBDIR. make run NETBOOT=OUT boots the tree in QEMU (tools/qemu-run.sh).
NETBOOT_SUBDIR ?=
GRUB_TIMEOUT ?= 5
netboot:
	@tools/deps.sh build
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@tools/netboot.sh $(call sq,$(if $(filter file,$(origin OUT)),$(B)/netboot,$(OUT))) $(B)/slablab.elf \
	  $(if $(filter-out file,$(origin CMDLINE)),--cmdline $(cmdline_q)) $(if $(MODULE),--module $(call sq,$(MODULE))) \
	  $(if $(NETBOOT_SUBDIR),--subdir $(call sq,$(NETBOOT_SUBDIR))) --timeout $(call sq,$(GRUB_TIMEOUT))

# make lava-job CMDLINE=... [DEVICE=qemu|TYPE] [LAVA_URL=URL] [OUT=dir]: a LAVA job booting
# CMDLINE (docs/lava.md; tools/lava/mkjob.py). DEVICE=qemu (the default): OUT/job.yaml for
# LAVA's qemu device type, with OUT/slablab.iso (SMP, MEM and ACCEL go into the job's
# context). DEVICE=TYPE: the job for TYPE, a device type of real x86 machines that the lab
# boots into GRUB over the network (LAVA's base-grub), with OUT/slablab.elf. LAVA_URL: where
# the lab will fetch OUT's files from (default file:// and OUT's absolute path, for lava-run
# on this machine). TIMEOUT: how long the job lets the kernel run. OUT defaults to build/lava.
DEVICE ?= qemu
LAVA_URL ?=
lava_out = $(if $(filter file,$(origin OUT)),$(B)/lava,$(OUT))
lava_url = $(if $(LAVA_URL),$(patsubst %/,%,$(LAVA_URL)),file://$(abspath $(lava_out)))
lava-job:
	@tools/deps.sh build
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@mkdir -p $(call sq,$(lava_out))
	@if [ $(call sq,$(DEVICE)) = qemu ]; then \
	  $(MAKE) --no-print-directory iso-cmdline OUT=$(call sq,$(lava_out)/slablab.iso) CMDLINE=$(cmdline_q) >/dev/null && \
	  python3 tools/lava/mkjob.py --elf $(B)/slablab.elf --cmdline $(cmdline_q) --device qemu \
	    --iso $(call sq,$(lava_url)/slablab.iso) --smp $(call sq,$(SMP)) --mem $(call sq,$(MEM)) \
	    --accel $(if $(filter kvm,$(ACCEL)),kvm,tcg) --timeout $(call sq,$(TIMEOUT)) -o $(call sq,$(lava_out)/job.yaml); \
	else \
	  cp $(B)/slablab.elf $(call sq,$(lava_out)/slablab.elf) && \
	  python3 tools/lava/mkjob.py --elf $(B)/slablab.elf --cmdline $(cmdline_q) --device $(call sq,$(DEVICE)) \
	    --kernel $(call sq,$(lava_url)/slablab.elf) --timeout $(call sq,$(TIMEOUT)) -o $(call sq,$(lava_out)/job.yaml); \
	fi && echo "lava-job: $(lava_out)/job.yaml (device_type $(DEVICE))"

# make test-lava: tools/lava/test-lava.sh (as root: lava-run refuses to run otherwise), after
# tools/deps.sh lava installs lava-dispatcher without its recommends, and tftpd-hpa.
test-lava:
	@tools/deps.sh lava
	@$(MAKE) --no-print-directory $(B)/slablab.elf
	@tools/lava/test-lava.sh

clean:
	rm -rf $(B)

-include $(OBJS:.o=.d) $(patsubst %.asm,$(B)/%.asm.d,$(ASRCS))

# ==== bench-host (tools/bench-host/, see docs/host-build.md): slablab's kmem_cache, built for
# Linux user space, next to glibc malloc, jemalloc, mimalloc and tcmalloc, in TSC cycles on
# this machine. `make bench-host` installs the peers' Debian packages as root if missing;
# BENCH_ARGS="--quick" for a short run, "--rounds N" for more rounds. ====
include tools/bench-host/bench.mk
# ==== end of bench-host ====
