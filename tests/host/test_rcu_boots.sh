#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boots for RCU and NMIs that the boot matrix (test=all) does not cover, with the lines
# their logs must have (flat KTAP; needs build/slablab.elf, which make test builds first):
#
#   xapic[smp4]    test=rcu,nmi: the stall report names cpu 1, inside rcu_read_lock, and
#                  where it is by NMI; the unasked NMI is reported with port 0x61's reason;
#                  printk from NMIs that landed in serial_write came out
#   x2apic[smp8]   the same on q35 with x2APIC (sends by MSR, the SELF IPI register), on
#                  the QEMU of tools/qemu10.sh; skipped, saying why, without one
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
dir=build/test/rcu-boots
mkdir -p "$dir"

# Each knob tools/qemu-run.sh reads, set here (make test's matrix does the same).
knobs=(SMP=4 MEM=256M ACCEL=auto ICOUNT=0 FIRMWARE=bios MACHINE= APIC=auto TOPOLOGY= NODES=1
    QEMU_EXTRA= LOG= ELF=build/slablab.elf ALLOW_SLOW_KVM=0 TIMEOUT=600 SCREEN=0 SCREENDUMP=)

# has LOG REGEX: a line the kernel printed matches.
has() {
    grep -aEq -- "$2" "$1" || { echo "no line matching '$2' in $1"; return 1; }
}

# boot NAME VAR=VALUE...: boots test=rcu,nmi and checks the log.
boot() {
    local name=$1 iso=$dir/$1.iso log=$dir/$1.log rc=0
    shift
    if ! make -s iso-cmdline CMDLINE="test=rcu,nmi ap_timeout_ms=60000" OUT="$iso" >"$log" 2>&1; then
        echo "could not build $iso"
        tail -5 "$log"
        return 1
    fi
    env "${knobs[@]}" ISO="$iso" "$@" tools/qemu-run.sh </dev/null >"$log" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        echo "qemu-run exited $rc (log: $log)"
        grep -a -E '^ *not ok|FAILED|PANIC' "$log" | head -10
        return 1
    fi
    python3 tools/ktap.py "$log" --label "$name" --kernel >/dev/null || {
        echo "KTAP: $(python3 tools/ktap.py "$log" --label "$name" --kernel | tail -1) (log: $log)"
        return 1
    }
    has "$log" '^rcu: grace period [0-9]+ stalled for [0-9]+ ms \(rcu stall timeout 300 ms\); waiting for cpu 1 \(inside rcu_read_lock, nesting 1\)' &&
        has "$log" '^rcu: cpu 1 is at stall_roles\+0x[0-9a-f]+ \(RIP 0x[0-9a-f]+, by NMI\)' &&
        has "$log" '^nmi: cpu [0-9]+ took an NMI slablab did not send, at [a-z_0-9]+\+0x[0-9a-f]+ .*port 0x61 = 0x[0-9a-f]+: .*counted, going on' &&
        has "$log" 'nmi test: printk from an NMI that landed in serial_write on cpu 1' &&
        has "$log" '^# nmi: pass:7 fail:0 skip:0 total:7' &&
        has "$log" '^# rcu: pass:10 fail:0 skip:0 total:10'
}

x2apic_boot() {
    local q why
    if ! q=$(tools/qemu10.sh 2>"$dir/qemu10.log"); then
        why=$(cat "$dir/qemu10.log")
        echo "# SKIP ${why#qemu10.sh: }"
        return 0
    fi
    boot x2apic-smp8 QEMU="$q" SMP=8 MACHINE=q35 APIC=x2apic && has "$dir/x2apic-smp8.log" '"x2apic":true'
}

t "xapic[smp4,test=rcu,nmi]" boot xapic-smp4 SMP=4 APIC=xapic
t "x2apic[q35,smp8,test=rcu,nmi]" x2apic_boot
ktap_report
