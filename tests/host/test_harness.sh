#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/test.sh's own settings: with every run knob set in its environment
# (MEM=64M ICOUNT=1 make test and the like), a dry run (TEST_DRY_RUN=1) of a few boots must
# name the knobs it ignores and print QEMU commands with the matrix's own values; and
# make test must leave its own defaults of the knobs out of tools/test.sh's environment, so
# that the note names only what the user set. Prints its own results as KTAP (flat).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL TEST_QUICK

# A matrix boot on the shipped test.iso, a boot with its own memory size, and the 255-CPU
# boot with an ISO of its own (built, as in a real run).
filter='^boot\[bios,tcg,smp1\]$|^boot\[uefi,tcg,smp4\]$|^mem\[4G,smp2\]$|^smp\[255,test=all\]$'
inherited=(SMP=3 MEM=64M ACCEL=kvm ICOUNT=1 FIRMWARE=uefi TIMEOUT=7 MACHINE=q35 APIC=xapic
    TOPOLOGY=sockets=3
    "QEMU_EXTRA=-cpu Opteron_G1" LOG=/nonexistent/log ISO=/nonexistent.iso ELF=/nonexistent.elf
    ALLOW_SLOW_KVM=1 "CMDLINE=test=smp")

dry_run() {
    env "${inherited[@]}" TEST_DRY_RUN=1 TEST_ACCELS=tcg TEST_FILTER="$filter" \
        "$root/tools/test.sh" >"$tmp/out" 2>&1
}

# cmd LABEL: the QEMU command the dry run printed for LABEL.
cmd() {
    local line
    line=$(grep -F "dry-run $1: " "$tmp/out") || {
        echo "FAILED: no dry-run line for $1; test.sh said:"
        cat "$tmp/out"
        return 1
    }
    printf '%s\n' "${line#"dry-run $1: "}"
}

# has LABEL WORDS...: LABEL's command holds each of WORDS (a run of its arguments) and
# none of the inherited values.
has() {
    local label=$1 c w bad
    shift
    c=" $(cmd "$label") " || { printf '%s\n' "$c"; return 1; }
    for w in "$@"; do
        if [[ $c != *" $w "* ]]; then
            echo "FAILED: $label: no '$w' in:$c"
            return 1
        fi
    done
    for bad in "-m 64M" "-smp 3 " "-icount" "Opteron" "q35" "nonexistent" " 7 " "-x2apic" "sockets=3"; do
        if [[ $c == *"$bad"* ]]; then
            echo "FAILED: $label: the inherited '$bad' is in:$c"
            return 1
        fi
    done
}

note_names_knobs() {
    local k
    if ! grep -q '^test.sh: note: ignoring ' "$tmp/out"; then
        echo "FAILED: no note about the ignored knobs; test.sh said:"
        cat "$tmp/out"
        return 1
    fi
    for k in "${inherited[@]}"; do
        if ! grep '^test.sh: note: ignoring ' "$tmp/out" | grep -qF -- "$k"; then
            echo "FAILED: the note does not name $k: $(grep '^test.sh: note:' "$tmp/out")"
            return 1
        fi
    done
}

matrix_bios_smp1() {
    has "boot[bios,tcg,smp1]" "-machine pc" "-accel tcg,thread=multi -cpu max" "-m 256M -smp 1" \
        "-cdrom build/test.iso" || return 1
    if [[ $(cmd "boot[bios,tcg,smp1]") == *OVMF* ]]; then
        echo "FAILED: the BIOS boot has OVMF"
        return 1
    fi
}

matrix_uefi_smp8() {
    has "boot[uefi,tcg,smp4]" "-m 256M -smp 4 -bios /usr/share/ovmf/OVMF.fd" "-cdrom build/test.iso"
}

extra_mem_4g() {
    has "mem[4G,smp2]" "-machine pc" "-m 4G -smp 2" "-cdrom build/test.iso"
}

extra_smp_255() {
    has "smp[255,test=all]" "-machine pc" "-m 256M -smp 255" \
        "-cdrom build/test/dry-run/iso/smp-255-test-all.iso"
}

dry_run_boots_nothing() {
    if ! grep -qx 'test.sh: dry run, nothing booted (logs: build/test/dry-run)' "$tmp/out"; then
        echo "FAILED: the dry run did not end as one; test.sh said:"
        cat "$tmp/out"
        return 1
    fi
    if [ "$(grep -c '^dry-run ' "$tmp/out")" != 4 ]; then
        echo "FAILED: want 4 dry-run lines; test.sh said:"
        cat "$tmp/out"
        return 1
    fi
}

# make test: the knobs still at the Makefile's defaults are unset for tools/test.sh; one
# given on make's command line is not (test.sh then names it).
make_test_unsets_defaults() {
    local line
    line=$(make -n -s --no-print-directory -C "$root" test MEM=64M | grep 'tools/test.sh$') || {
        echo "FAILED: make -n test printed no tools/test.sh line"
        return 1
    }
    for k in SMP ACCEL ICOUNT FIRMWARE TIMEOUT; do
        [[ $line == *"unset $k;"* ]] || { echo "FAILED: make test keeps its default $k: $line"; return 1; }
    done
    [[ $line != *"unset MEM;"* ]] || { echo "FAILED: make test drops MEM=64M unnamed: $line"; return 1; }
}


if [ ! -f "$root/build/test.iso" ]; then
    skip="# SKIP build/test.iso is not built (make build/test.iso; make test builds it first)"
    for n in dry_run note_names_knobs matrix_bios_smp1 matrix_uefi_smp8 extra_mem_4g \
        extra_smp_255 dry_run_boots_nothing; do
        t "$n" echo "$skip"
    done
else
    t dry_run dry_run
    t note_names_knobs note_names_knobs
    t matrix_bios_smp1 matrix_bios_smp1
    t matrix_uefi_smp8 matrix_uefi_smp8
    t extra_mem_4g extra_mem_4g
    t extra_smp_255 extra_smp_255
    t dry_run_boots_nothing dry_run_boots_nothing
fi
t make_test_unsets_defaults make_test_unsets_defaults

ktap_report
