#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench=replay of a version 2 trace (docs/traces.md) on every scheme, booted in QEMU: a
# generated trace (slabtrace.py synth rcu: kfree_rcu on one stream, the rcu_free on the next,
# allocations with a node, nolock calls, three objects still handed to RCU at the end) at 2
# CPUs, so some rcu_frees come before their kfree_rcu and wait for it. The replay must pass,
# say what it does with version 2's events, and count every kfree_rcu and rcu_free the
# trace has, on every scheme. Needs build/slablab.elf (make test builds it first). Flat KTAP.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"

"$py" tools/trace/slabtrace.py synth rcu -o "$out/rcu.trace" --streams 3 --events 3000 --seed 7
counts=$("$py" tools/trace/slabtrace.py check "$out/rcu.trace")
kfree_rcu=$(sed -n 's/.*kfree_rcu \([0-9]*\),.*/\1/p' <<<"$counts")
rcu_frees=$(sed -n 's/.*rcu_frees \([0-9]*\),.*/\1/p' <<<"$counts")
pending=$(sed -n 's/.*rcu_pending_at_end \([0-9]*\),.*/\1/p' <<<"$counts")

boot() {
    make -s iso-cmdline OUT="$out/replay.iso" MODULE="$out/rcu.trace" \
        CMDLINE="bench=replay bench_reps=1" >"$out/make.log" 2>&1 || { cat "$out/make.log"; return 1; }
    rc=0
    ISO="$out/replay.iso" SMP=2 MEM=256M LOG="$out/replay.log" TIMEOUT=${TIMEOUT_V2:-300} \
        tools/qemu-run.sh >/dev/null 2>&1 </dev/null || rc=$?
    [ "$rc" = 0 ] || { echo "the boot exited $rc:"; grep -a -E 'FAIL|replay:' "$out/replay.log" | head -5; return 1; }
}

says() {
    grep -a -qF "$1" "$out/replay.log" || { echo "no '$1' in the log:"; grep -a 'replay:' "$out/replay.log" | head -5; return 1; }
}

# every scheme's figure F is V
figure() {
    local f=$1 v=$2 n
    n=$(grep -a -c "\"figure\":\"$f\",\"value\":$v.0," "$out/replay.log" || true)
    [ "$n" = 6 ] || { echo "$n schemes of 6 counted $f $v:"; grep -a "\"figure\":\"$f\"" "$out/replay.log" | head -6; return 1; }
}

made() {
    [ -n "$kfree_rcu" ] && [ "$kfree_rcu" -gt 0 ] && [ "$pending" = 3 ] || { echo "slabtrace.py check: $counts"; return 1; }
}
t counts_made made
t boot_passes boot
t says_version_2 says "replay: trace version 2: $kfree_rcu kfree_rcu, each object freed at its rcu_free event ($rcu_frees of them; $pending still handed to RCU at the end, freed then)"
t kfree_rcu_every_scheme figure kfree_rcu "$kfree_rcu"
t rcu_frees_every_scheme figure rcu_frees "$rcu_frees"
t live_at_end_every_scheme figure live_at_end "$pending"
ktap_report
