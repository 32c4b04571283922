#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the host tools slablab needs are present and installs missing Debian 12
# packages (as root). Usage: tools/deps.sh [build] [run] [test] [bench] [trace] [linux]; no group
# means "build".
#
# Exit: 0 all present (prints nothing), 1 missing and could not install, 2 bad usage.
# DEPS_NO_INSTALL=1 only checks and prints the apt-get line.
set -euo pipefail

# Each check is "kind:what:package". kind is cmd (on PATH), dir, file, glob (a file matching
# the shell pattern what), or py (python3).
# To add a group, add a case below and list its checks.
checks_build=(
    cmd:make:make
    cmd:gcc:gcc
    cmd:ld:binutils
    cmd:objcopy:binutils
    cmd:nm:binutils
    cmd:nasm:nasm
    cmd:grub-mkrescue:grub-common
    cmd:grub-file:grub-common
    dir:/usr/lib/grub/i386-pc:grub-pc-bin
    dir:/usr/lib/grub/x86_64-efi:grub-efi-amd64-bin
    cmd:xorriso:xorriso
    cmd:mformat:mtools
    file:/usr/share/consolefonts/Unifont-APL8x16.psf.gz:psf-unifont
)
checks_run=(
    cmd:qemu-system-x86_64:qemu-system-x86
    file:/usr/share/ovmf/OVMF.fd:ovmf
    cmd:timeout:coreutils
)
checks_test=(
    py:python3:python3
    cmd:zbarimg:zbar-tools
    cmd:spin:spin
    cmd:clang:clang
    file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev
    # The peers of tests/host/test_bench_host.sh and make bench-host (LD_PRELOAD).
    file:/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:libjemalloc2
    file:/usr/lib/x86_64-linux-gnu/libmimalloc.so.2:libmimalloc2.0
    file:/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4:libgoogle-perftools4
)
# make bench: tools/benchreport.py draws its plots with gnuplot (-nox: no X11 or Qt).
checks_bench=(
    cmd:gnuplot:gnuplot-nox
)
# make trace-linux (tools/trace/linux/capture.sh): Debian's kernel booted in QEMU with an
# initramfs of busybox (static), hackbench, trace-cmd and perf.
checks_trace=(
    glob:/boot/vmlinuz-*-amd64:linux-image-amd64
    file:/bin/busybox:busybox-static
    cmd:hackbench:rt-tests
    cmd:trace-cmd:trace-cmd
    cmd:perf:linux-perf
    cmd:cpio:cpio
    py:python3:python3
)
# make bench-linux (tools/bench-linux/run.sh): a module built by kbuild against Debian's
# headers for the installed linux-image-amd64 (linux-headers-amd64 pulls the same version
# when both come from the same archive; run.sh names the exact package when they differ),
# booted with busybox in an initramfs.
checks_linux=(
    cmd:make:make
    cmd:gcc:gcc
    glob:/boot/vmlinuz-*-amd64:linux-image-amd64
    glob:/usr/src/linux-headers-*-amd64/Makefile:linux-headers-amd64
    file:/bin/busybox:busybox-static
    cmd:cpio:cpio
    cmd:gzip:gzip
    py:python3:python3
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
    echo "usage: tools/deps.sh [build|run|test|bench|trace|linux|lava]..." >&2
    exit 2
}

want=()
want_qemu10=0
[ $# -eq 0 ] && set -- build
for group in "$@"; do
    case "$group" in
    build) want+=("${checks_build[@]}") ;;
    run) want+=("${checks_build[@]}" "${checks_run[@]}") ;;
    test)
        want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_test[@]}")
        want_qemu10=1
        ;;
    bench) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_test[@]}" "${checks_bench[@]}") ;;
    trace) want+=("${checks_run[@]}" "${checks_trace[@]}") ;;
    linux) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_linux[@]}") ;;
    lava) want+=("${checks_build[@]}" "${checks_run[@]}" "${checks_lava[@]}") ;;
    -h | --help) usage ;;
    *)
        echo "deps.sh: unknown group '$group' (known: build run test bench trace linux lava)" >&2
        exit 2
        ;;
    esac
done

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
        py) { [ -x /usr/bin/python3 ] || command -v python3 >/dev/null 2>&1; } && continue ;;
        esac
        case "$out" in *" $pkg "*) ;; *) out+="$pkg " ;; esac
    done
    out=${out# }
    printf '%s' "${out% }"
}

# make test's x2APIC boots (x2APIC mode, sparse APIC ids, more than 255 CPUs) need a QEMU
# whose TCG has x2APIC, 8.0 or later; Debian 12's is 7.2. tools/qemu10.sh fetches QEMU 10 from
# Debian 12's backports once, beside the installed QEMU (which the other boots keep using).
# Without it those boots are skipped with a line saying why; nothing else depends on it.
qemu10() {
    [ "$want_qemu10" = 1 ] && [ "${DEPS_NO_INSTALL:-0}" != 1 ] || return 0
    "$(dirname "${BASH_SOURCE[0]}")/qemu10.sh" >/dev/null 2>&1 && return 0
    "$(dirname "${BASH_SOURCE[0]}")/qemu10.sh" --fetch >/dev/null ||
        echo "deps.sh: no QEMU with TCG x2APIC: make test will skip its x2APIC boots" >&2
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
