#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make netboot's tree (tools/netboot.sh): its layout and menu, what it refuses, and two boots
# of it through QEMU's own DHCP and TFTP server (tools/qemu-run.sh NETBOOT=): SeaBIOS's iPXE
# loading GRUB's PXE image core.0 and OVMF's loading core.efi, each running test=all on two
# CPUs; each boot's KTAP must pass (tools/ktap.py --kernel) and its KCIDB report
# (tools/ktap.py --kcidb) must pass tools/kcidb.py check. Needs build/slablab.elf (make
# test builds it). KTAP (flat) at the end; the boots' logs stay in build/test/netboot-*.log.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
elf=$root/build/slablab.elf
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logdir=$root/build/test
mkdir -p "$logdir"

have_elf() {
    [ -f "$elf" ] || { echo "no $elf: run make (make test builds it)"; return 1; }
}

# The tree under a subdirectory, with a module and a menu delay of its own.
layout() {
    have_elf || return 1
    local o=$tmp/layout b=$tmp/layout/lab/slablab/boot
    "$root/tools/netboot.sh" "$o" "$elf" --cmdline "test=all seed=7" --subdir /lab/slablab/ \
        --module "$root/tests/traces/python-threads.trace" --timeout 7 >/dev/null || return 1
    local f
    for f in grub/i386-pc/core.0 grub/x86_64-efi/core.efi grub/i386-pc/multiboot2.mod \
        grub/x86_64-efi/multiboot2.mod grub/grub.cfg slablab.elf trace; do
        [ -s "$b/$f" ] || { echo "no $b/$f"; return 1; }
    done
    cmp -s "$elf" "$b/slablab.elf" || { echo "the tree's kernel is not $elf"; return 1; }
    cmp -s "$root/tests/traces/python-threads.trace" "$b/trace" || { echo "the module differs"; return 1; }
    grep -qx "    multiboot2 /lab/slablab/boot/slablab.elf 'test=all' 'seed=7'" "$b/grub/grub.cfg" &&
        grep -qx "    module2 /lab/slablab/boot/trace trace" "$b/grub/grub.cfg" &&
        grep -qx "set timeout=7" "$b/grub/grub.cfg" &&
        grep -qx "terminal_output serial console" "$b/grub/grub.cfg" ||
        { echo "grub.cfg:"; cat "$b/grub/grub.cfg"; return 1; }
    for f in i386-pc x86_64-efi; do
        grep -qx "source lab/slablab/boot/grub/grub.cfg" "$b/grub/$f/grub.cfg" ||
            { echo "$f/grub.cfg does not load the menu: $(cat "$b/grub/$f/grub.cfg")"; return 1; }
    done
}
t tree_layout_subdir_module_timeout layout

# Without a command line: the ISO's menu, its kernel paths and delay set for the tree.
iso_menu() {
    have_elf || return 1
    "$root/tools/netboot.sh" "$tmp/menu" "$elf" --timeout 2 >/dev/null || return 1
    local cfg=$tmp/menu/boot/grub/grub.cfg entries
    entries=$(grep -c '^menuentry' "$root/iso/boot/grub/grub.cfg")
    [ "$(grep -c '^menuentry' "$cfg")" = "$entries" ] && [ "$entries" -gt 1 ] &&
        grep -qx "set timeout=2" "$cfg" &&
        [ "$(grep -c '^ *multiboot2 /boot/slablab.elf' "$cfg")" = "$entries" ] ||
        { echo "menu:"; cat "$cfg"; return 1; }
}
t tree_without_cmdline_has_the_iso_menu iso_menu

# Refused before anything is written: a word GRUB would mangle, a path out of the tree, a
# module without an entry of its own, a kernel that is not there.
refuses() {
    have_elf || return 1
    local out rc
    # shellcheck disable=SC2089,SC2090 # the quote in test='x' is the point: a word GRUB mangles
    for args in "--cmdline test='x'" "--subdir ../up" "--subdir a//b" "--module $elf" "--timeout soon"; do
        rc=0
        # shellcheck disable=SC2086,SC2090 # each args string is split into its words on purpose
        out=$("$root/tools/netboot.sh" "$tmp/refused" "$elf" $args 2>&1) || rc=$?
        [ "$rc" = 2 ] || { echo "netboot.sh $args: exit $rc ($out), want 2"; return 1; }
        [ ! -e "$tmp/refused/boot/grub" ] || { echo "netboot.sh $args wrote a tree"; return 1; }
    done
    rc=0
    out=$("$root/tools/netboot.sh" "$tmp/refused" "$tmp/no-such.elf" 2>&1) || rc=$?
    [ "$rc" = 2 ] && [[ $out == *"no kernel"* ]] || { echo "a missing kernel: exit $rc ($out)"; return 1; }
}
t refuses_bad_arguments refuses

# netboot FIRMWARE FILE: boots the tree with test=all through QEMU's PXE and TFTP.
netboot_tree=
netboot() {
    have_elf || return 1
    local fw=$1 file=$2 log=$logdir/netboot-$1.log rc=0 out
    if [ -z "$netboot_tree" ]; then
        netboot_tree=$tmp/tftp
        "$root/tools/netboot.sh" "$netboot_tree" "$elf" --cmdline "test=all" --timeout 0 >/dev/null ||
            return 1
    fi
    # A busy host makes test=all on two CPUs slow (tools/test.sh's timeouts): 600 s bounds a hang.
    env -u ISO -u CMDLINE -u QEMU_EXTRA -u MACHINE -u APIC -u TOPOLOGY -u NODES -u ICOUNT \
        -u SCREEN -u SCREENDUMP -u LOG -u NETBOOT_FILE NETBOOT="$netboot_tree" FIRMWARE="$fw" \
        SMP=2 MEM=256M ACCEL=tcg TIMEOUT=600 "$root/tools/qemu-run.sh" </dev/null >"$log" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { echo "qemu-run exited $rc (log: $log)"; tail -n 5 "$log"; return 1; }
    grep -aq "$file" "$log" || { echo "no sign of $file being loaded in $log"; return 1; }
    out=$("$py" "$root/tools/ktap.py" "$log" --kernel --label "netboot[$fw]") || { echo "$out"; return 1; }
    "$py" "$root/tools/ktap.py" "$log" --kcidb -o "$logdir/netboot-$fw.kcidb.json" &&
        out=$("$py" "$root/tools/kcidb.py" check "$logdir/netboot-$fw.kcidb.json") &&
        [[ $out == *" tests, valid" ]] || { echo "$out"; return 1; }
}
t bios_pxe_core0_test_all netboot bios boot/grub/i386-pc/core.0
t uefi_pxe_core_efi_test_all netboot uefi boot/grub/x86_64-efi/core.efi

ktap_report
