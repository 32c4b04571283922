#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boots of slablab on a hardware-reduced ACPI machine: QEMU's microvm (FADT flag
# HW_REDUCED_ACPI, no PM1 blocks, no HPET or PM timer; its GED device has the sleep control
# and reset registers in memory at 0xfea00200 and 0xfea00202), under SeaBIOS's microvm build
# from the ISO on a virtio-mmio disk. exit=poweroff must go through the FADT's sleep control
# register (ACPI 6.5, 4.8.3.7), and QEMU must take it as the guest's power-off: its trace
# event qemu_system_shutdown_request with reason 6 (guest-shutdown, qapi/run-state.json),
# which on microvm only the GED's sleep control register makes (isa-debug-exit, the kernel's
# fallback, exits at once with 2 * code + 1). QEMU's main loop acts on that request later:
# on a loaded host the kernel may first report the machine still running after its 100 ms
# and leave through isa-debug-exit, which this accepts once the request is there.
# exit=reboot writes the reset register in memory, QEMU run with -no-reboot.
# tools/acpi-check's reading of the same tables is in test_acpi_check.sh. Flat KTAP, like
# the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bios=/usr/share/seabios/bios-microvm.bin # Debian 12's seabios, which qemu-system-x86 pulls in
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL

# boot NAME CMDLINE [QEMU ARGS...]: the kernel with CMDLINE on microvm; $tmp/NAME.{log,rc}.
# 300 s bounds a hung boot on a busy host (a passing one takes seconds): QEMU is killed then
# (status 124). A boot whose serial log is still empty after 20 s never reached GRUB: QEMU
# 7.2's microvm under SeaBIOS's microvm build hung there, before slablab ran, in most boots
# on one host (Intel Xeon, Debian 12) and in none on another; such a boot is tried again, three
# times in all, and if none reaches GRUB the case is skipped, saying so ($tmp/NAME.rc "firmware").
boot() {
    local name=$1 cmdline=$2 rc qemu try waited
    shift 2
    "$root/tools/mkiso.sh" "$tmp/$name.iso" "$root/build/slablab.elf" --cmdline "$cmdline" \
        >"$tmp/$name.mkiso" 2>&1 || { cat "$tmp/$name.mkiso"; return 1; }
    for try in 1 2 3; do
        rm -f "$tmp/$name.log"
        qemu-system-x86_64 -machine microvm -bios "$bios" -accel tcg -m 256M \
            -nodefaults -display none -no-reboot -serial "file:$tmp/$name.log" \
            -drive "id=d,file=$tmp/$name.iso,format=raw,if=none,readonly=on" \
            -device virtio-blk-device,drive=d -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
            -trace qemu_system_shutdown_request -D "$tmp/$name.trace" \
            "$@" </dev/null >"$tmp/$name.qemu" 2>&1 &
        qemu=$!
        rc=
        for ((waited = 0; waited < 3000; waited++)); do # tenths of a second
            if ! kill -0 "$qemu" 2>/dev/null; then
                rc=0
                wait "$qemu" || rc=$?
                break
            fi
            if [ "$waited" -ge 200 ] && [ ! -s "$tmp/$name.log" ]; then
                rc=firmware
                break
            fi
            sleep 0.1
        done
        if [ -z "$rc" ] || [ "$rc" = firmware ]; then
            kill "$qemu" 2>/dev/null
            sleep 1
            kill -9 "$qemu" 2>/dev/null
            wait "$qemu" 2>/dev/null || true
            [ -n "$rc" ] || rc=124
        fi
        [ "$rc" = firmware ] || break
    done
    echo "$rc" >"$tmp/$name.rc"
}

# firmware NAME: the boot never reached GRUB (above): the case is skipped, saying why.
firmware() {
    [ "$(cat "$tmp/$1.rc")" = firmware ] || return 1
    echo "# SKIP QEMU's microvm under SeaBIOS's microvm build never reached GRUB in 3 boots (no serial output in 20 s each): a firmware hang before slablab runs"
}

# ended NAME STATUSES LINE...: QEMU exited with one of STATUSES (blank-separated) and the
# log holds each LINE (fixed strings).
ended() {
    local name=$1 want=" $2 " line
    shift 2
    if [[ $want != *" $(cat "$tmp/$name.rc") "* ]]; then
        echo "QEMU exited $(cat "$tmp/$name.rc"), not one of$want; its output and the serial log's end:"
        cat "$tmp/$name.qemu"
        tail -15 "$tmp/$name.log"
        return 1
    fi
    for line in "$@"; do
        if ! grep -qF -- "$line" "$tmp/$name.log"; then
            echo "no line \"$line\" in the serial log; its end:"
            tail -15 "$tmp/$name.log"
            return 1
        fi
    done
}

missing() {
    if [ ! -f "$bios" ]; then
        echo "# SKIP no $bios (Debian's seabios package)"
        return 0
    fi
    if [ ! -f "$root/build/slablab.elf" ]; then
        echo "build/slablab.elf is not built (make)"
        exit 1 # this case fails (t runs it in a subshell)
    fi
    return 1
}

poweroff() {
    missing && return 0
    boot poweroff "test=none exit=poweroff"
    firmware poweroff && return 0
    ended poweroff "0 33" '"acpi_root":"XSDT"' '{"event":"exit","result":"pass"' \
        "poweroff: ACPI S5 (hardware-reduced), 0x34 (SLP_TYPa 5, SLP_EN) to the sleep control register, memory at 0xfea00200 (\\_S5 of the DSDT)" || return 1
    if ! grep -q "qemu_system_shutdown_request reason=6" "$tmp/poweroff.trace"; then
        echo "QEMU saw no power-off from the guest (exit $(cat "$tmp/poweroff.rc")); its trace:"
        cat "$tmp/poweroff.trace"
        tail -3 "$tmp/poweroff.log"
        return 1
    fi
}
t "microvm: exit=poweroff through the sleep control register, which QEMU takes as the guest's power-off" poweroff

reboot() {
    missing && return 0
    boot reboot "test=none exit=reboot"
    firmware reboot && return 0
    ended reboot 0 "reboot: writing 0x42 to the ACPI reset register, memory at 0xfea00202"
}
t "microvm: exit=reboot writes the ACPI reset register in memory, and QEMU resets" reboot

ktap_report
