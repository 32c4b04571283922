#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the host tools slablab needs are present and installs missing Debian 12
# packages (as root). Usage: tools/deps.sh [GROUP...]; no group means "build".
#
#   build  make (the default target): the kernel and its ISO
#   run    make run, make debug, make replay, make grade: build, and QEMU with its firmware
#   test   make test (and test-big, test-numa, test-labs, fuzz, model): run, and the host
#          tests' compilers, checkers and peers
#   bench  make bench: the same as test
#   host   make bench-host: slablab's allocator built for Linux user space
#   trace  make trace-linux: run, and Debian's kernel with the tracing tools
#   linux  make bench-linux: build, run, and Debian's kernel with its headers
#   lava   make test-lava: build, run, and LAVA's dispatcher with a TFTP server
#
#   tools/deps.sh --commands GROUP...  print the commands the groups declare, one a line
#   tools/deps.sh --basics             print the packages whose commands no group declares
#
# Each group names every command its targets run that is not one of the basics (below), in
# the group of the first target that runs it; tests/host/test_deps.sh builds and boots with
# PATH holding nothing but the build and run groups' commands and the basics' to prove it.
#
# Exit: 0 all present (prints nothing), 1 missing and could not install, 2 bad usage.
# DEPS_NO_INSTALL=1 only checks and prints the apt-get line.
set -euo pipefail

# The basics: the packages of Priority "required" in Debian 12 (most of them Essential). Every
# Debian system has them; debootstrap --variant=minbase, the smallest Debian, installs exactly
# these and apt. So no group declares their commands (bash, sh, sed, awk, grep, find, cmp, od,
# timeout, mktemp, tar, gzip, perl, dpkg, apt-get...). tests/host/test_deps.sh checks that each is
# required and installed.
basics=(apt base-files base-passwd bash bsdutils coreutils dash debconf debianutils diffutils
    dpkg e2fsprogs findutils grep gzip hostname init-system-helpers libc-bin libpam-modules
    libpam-modules-bin libpam-runtime login mawk mount ncurses-base ncurses-bin passwd perl-base
    sed sysvinit-utils tar tzdata util-linux)

# Each check is "kind:what:package". kind is cmd (a command on PATH), dir, file, or glob (a
# file matching the shell pattern what).
# To add a group, add a case below and list its checks.
# make, and every target that builds the kernel: gcc runs as and ld from PATH, make runs nm,
# tools/font.py (python3) makes build/gen/font.c, grub-mkrescue runs xorriso, mformat and
# mcopy and needs GRUB's BIOS and UEFI images, grub-file checks the kernel's multiboot2 header;
# make netboot (and make test-lava, which netboots) runs grub-mknetdir on the same images.
checks_build=(
    cmd:make:make
    cmd:gcc:gcc
    cmd:as:binutils
    cmd:ld:binutils
    cmd:nm:binutils
    cmd:nasm:nasm
    cmd:python3:python3
    cmd:grub-mkrescue:grub-common
    cmd:grub-file:grub-common
    cmd:grub-mknetdir:grub-common
    dir:/usr/lib/grub/i386-pc:grub-pc-bin
    dir:/usr/lib/grub/x86_64-efi:grub-efi-amd64-bin
    cmd:xorriso:xorriso
    cmd:mformat:mtools
    cmd:mcopy:mtools
    file:/usr/share/consolefonts/Unifont-APL8x16.psf.gz:psf-unifont
)
# make run (make debug, make replay, make grade): QEMU, its BIOS (SeaBIOS), the iPXE ROM of its
# default network card (an e1000, which NETBOOT= boots from) and its UEFI firmware
# (FIRMWARE=uefi). qemu-system-x86 depends on seabios and ipxe-qemu; they are named for the
# files QEMU opens, should its packages change.
checks_run=(
    cmd:qemu-system-x86_64:qemu-system-x86
    file:/usr/share/seabios/bios-256k.bin:seabios
    file:/usr/lib/ipxe/qemu/efi-e1000.rom:ipxe-qemu
    file:/usr/share/ovmf/OVMF.fd:ovmf
)
# make run SCREEN=1: QEMU's window is its GTK module (Debian's qemu-system-gui, one of
# qemu-system-x86's recommends, which the run group does not install).
checks_screen=(
    file:/usr/lib/x86_64-linux-gnu/qemu/ui-gtk.so:qemu-system-gui
)
# make test, and make test-big, test-numa, test-labs, fuzz, model: the host tests' builds
# (objcopy for build/host's strlcpy.o, clang and libFuzzer for fuzz_slab), what they check
# with (zbarimg reads the screen's QR code, spin checks the IPI protocol's model,
# grub-script-check the grub.cfg of tools/mkiso.sh, gnuplot draws tools/benchreport.py's plots)
# and git (tools/lab.py's handouts and tests/host/test_deps.sh list the tree's files with it);
# SeaBIOS's microvm build boots test_hw_reduced.sh's microvm.
checks_test=(
    cmd:objcopy:binutils
    cmd:clang:clang
    file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev
    cmd:zbarimg:zbar-tools
    cmd:spin:spin
    cmd:grub-script-check:grub-common
    cmd:gnuplot:gnuplot-nox
    cmd:git:git
    # tests/host/test_autograder.sh opens make autograder's zip as Gradescope does.
    cmd:unzip:unzip
    file:/usr/share/seabios/bios-microvm.bin:seabios
    # The peers of tests/host/test_bench_host.sh and make bench-host (LD_PRELOAD).
    file:/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:libjemalloc2
    file:/usr/lib/x86_64-linux-gnu/libmimalloc.so.2:libmimalloc2.0
    file:/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4:libgoogle-perftools4
)
# make bench-host: the kernel's sources built for Linux user space (tools/bench-host/bench.mk:
# objcopy for strlcpy.o). tools/bench-host/run.sh installs the peers (jemalloc, mimalloc,
# tcmalloc) itself, or benchmarks those that are there.
checks_host=(
    cmd:make:make
    cmd:gcc:gcc
    cmd:as:binutils
    cmd:ld:binutils
    cmd:objcopy:binutils
)
# make trace-linux (tools/trace/linux/capture.sh): Debian's kernel booted in QEMU with an
# initramfs of busybox (static), hackbench, trace-cmd and perf; mke2fs makes the file system
# of WORKLOAD=fswalk.
checks_trace=(
    glob:/boot/vmlinuz-*-amd64:linux-image-amd64
    file:/bin/busybox:busybox-static
    cmd:hackbench:rt-tests
    cmd:trace-cmd:trace-cmd
    cmd:perf:linux-perf
    cmd:cpio:cpio
    file:/usr/sbin/mke2fs:e2fsprogs
    cmd:python3:python3
)
# make bench-linux (tools/bench-linux/run.sh): a module built by kbuild against Debian's
# headers for the installed linux-image-amd64 (linux-headers-amd64 pulls the same version
# when both come from the same archive; run.sh names the exact package when they differ),
# booted with busybox in an initramfs.
checks_linux=(
    glob:/boot/vmlinuz-*-amd64:linux-image-amd64
    glob:/usr/src/linux-headers-*-amd64/Makefile:linux-headers-amd64
    file:/bin/busybox:busybox-static
    cmd:cpio:cpio
)

# make test-lava (tools/lava/test-lava.sh): LAVA's dispatcher, lava-run (Debian 12's
# lava-dispatcher 2023.01: about 130 packages without its recommends), and tftpd-hpa, one of
# those recommends: the TFTP server of a worker with GRUB devices (LAVA reads its directory
# from /etc/default/tftpd-hpa).
checks_lava=(
    cmd:lava-run:lava-dispatcher
    file:/etc/default/tftpd-hpa:tftpd-hpa
)

usage() {
    echo "usage: tools/deps.sh [build|run|test|bench|host|trace|linux|lava]..." >&2
    echo "       tools/deps.sh --commands GROUP... | --basics" >&2
    exit 2
}

mode=check
case "${1:-}" in
--commands)
    mode=commands
    shift
    [ $# -gt 0 ] || usage
    ;;
--basics)
    [ $# = 1 ] || usage
    printf '%s\n' "${basics[@]}"
    exit 0
    ;;
-h | --help) usage ;;
esac

want=()
want_qemu10=0
[ $# -eq 0 ] && set -- build
for group in "$@"; do
    case "$group" in
    build) want+=("${checks_build[@]}") ;;
    run)
        want+=("${checks_build[@]}" "${checks_run[@]}")
        [ "${SCREEN:-0}" != 1 ] || want+=("${checks_screen[@]}")
        # The knobs make run exports: x2APIC under TCG needs QEMU 8 or later (below).
        if [ "${APIC:-}" = x2apic ] || { [[ ${SMP:-} =~ ^[0-9]+$ ]] && [ "$SMP" -gt 255 ]; }; then
            want_qemu10=1
        fi
        ;;
    test)
        want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_test[@]}")
        want_qemu10=1
        ;;
    # make bench: tools/benchreport.py's gnuplot is the test group's already.
    bench) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_test[@]}") ;;
    host) want+=("${checks_host[@]}") ;;
    trace) want+=("${checks_run[@]}" "${checks_trace[@]}") ;;
    linux) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_linux[@]}") ;;
    lava) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_lava[@]}") ;;
    *)
        echo "deps.sh: unknown group '$group' (known: build run test bench host trace linux lava)" >&2
        exit 2
        ;;
    esac
done

if [ "$mode" = commands ]; then
    declare -A seen=()
    for c in "${want[@]}"; do
        [ "${c%%:*}" = cmd ] || continue
        c=${c#cmd:}
        c=${c%:*}
        [ -n "${seen[$c]:-}" ] || printf '%s\n' "$c"
        seen[$c]=1
    done
    exit 0
fi

# Prints the packages whose checks fail, space separated, without duplicates.
# Uses only shell builtins so the common all-present case costs no process.
missing_packages() {
    local c kind what pkg out=" "
    for c in "${want[@]}"; do
        kind=${c%%:*}
        what=${c#*:}
        pkg=${what##*:}
        what=${what%:*}
        case "$kind" in
        cmd) command -v "$what" >/dev/null 2>&1 && continue ;;
        dir) [ -d "$what" ] && continue ;;
        file) [ -f "$what" ] && continue ;;
        glob) compgen -G "$what" >/dev/null && continue ;;
        esac
        case "$out" in *" $pkg "*) ;; *) out+="$pkg " ;; esac
    done
    out=${out# }
    printf '%s' "${out% }"
}

# make test's x2APIC boots (x2APIC mode, sparse APIC ids, more than 255 CPUs), and make run
# with APIC=x2apic or SMP above 255, need a QEMU whose TCG has x2APIC, 8.0 or later; Debian
# 12's is 7.2. tools/qemu10.sh fetches QEMU 10 from Debian 12's backports once, beside the
# installed QEMU (which the other boots keep using); it needs no root, only the archive.
# Where it cannot, it says why, make test skips those boots with a line saying why, and
# nothing else depends on it.
qemu10() {
    [ "$want_qemu10" = 1 ] && [ "${DEPS_NO_INSTALL:-0}" != 1 ] || return 0
    "$(dirname "${BASH_SOURCE[0]}")/qemu10.sh" >/dev/null 2>&1 && return 0
    "$(dirname "${BASH_SOURCE[0]}")/qemu10.sh" --fetch >/dev/null ||
        echo "deps.sh: no QEMU with TCG x2APIC (why above): make test skips its x2APIC boots; make run cannot take APIC=x2apic or SMP above 255" >&2
    return 0
}

missing=$(missing_packages)
if [ -z "$missing" ]; then
    qemu10
    exit 0
fi

read -ra pkgs <<<"$missing"
install_line="apt-get install -y --no-install-recommends ${pkgs[*]}"

if [ "${EUID:-$(id -u)}" -ne 0 ] || [ "${DEPS_NO_INSTALL:-0}" = 1 ]; then
    echo "deps.sh: missing packages: ${pkgs[*]}" >&2
    echo "deps.sh: install them as root with:" >&2
    echo "$install_line" >&2
    exit 1
fi

echo "deps.sh: installing ${pkgs[*]}" >&2
if ! apt-get update -qq >&2; then
    echo "deps.sh: apt-get update failed" >&2
fi
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2; then
    echo "deps.sh: apt-get install failed; run: $install_line" >&2
    exit 1
fi
hash -r
missing=$(missing_packages)
if [ -n "$missing" ]; then
    echo "deps.sh: still missing after install: $missing" >&2
    exit 1
fi
qemu10
exit 0
