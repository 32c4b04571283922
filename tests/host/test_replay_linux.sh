#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench=replay, booted in QEMU at 2 CPUs on every scheme, of the checked-in traces of Linux
# 6.1 under make trace-linux's workloads (docs/traces.md): loopback networking
# (tests/traces/linux-net.trace, a whole capture), fork/exec and a filesystem walk (2000
# lines of each capture, converted). Each must pass with every object of the trace
# allocated and every cache empty at the end (the replay's own checks), and count the
# objects live at the end that build/trace/slabtrace check counts. Needs build/slablab.elf
# and build/trace/slabtrace (make test builds both first). Flat KTAP.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"

replay() {
    local w=$1 trace=tests/traces/linux-$1.trace live rc=0 n
    live=$(build/trace/slabtrace check "$trace" | sed -n 's/.*live_at_end \([0-9]*\),.*/\1/p')
    [ -n "$live" ] || { echo "build/trace/slabtrace check $trace failed"; return 1; }
    make -s iso-cmdline OUT="$out/$w.iso" MODULE="$trace" CMDLINE="bench=replay bench_reps=1" \
        >"$out/make.log" 2>&1 || { cat "$out/make.log"; return 1; }
    ISO="$out/$w.iso" SMP=2 MEM=256M LOG="$out/$w.log" TIMEOUT=${TIMEOUT_REPLAY:-300} \
        tools/qemu-run.sh >/dev/null 2>&1 </dev/null || rc=$?
    [ "$rc" = 0 ] || { echo "the boot exited $rc:"; grep -a -E 'FAIL|replay:' "$out/$w.log" | head -5; return 1; }
    grep -a -qF "replay: trace linux-6.1:$w: " "$out/$w.log" || { echo "no 'replay: trace linux-6.1:$w' in the log"; return 1; }
    n=$(grep -a -c "\"figure\":\"live_at_end\",\"value\":$live.0," "$out/$w.log" || true)
    [ "$n" = 6 ] || { echo "$n schemes of 6 freed $live objects live at the end:"; grep -a '"figure":"live_at_end"' "$out/$w.log"; return 1; }
}

for w in net forkexec fswalk; do
    t "replay_linux_$w" replay "$w"
done
ktap_report
