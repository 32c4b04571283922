#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/bench-linux/rounds.sh OUTDIR ROUNDS: make bench-linux's boots, interleaved. Round r
# boots Linux with the module (tools/bench-linux/run.sh, its log OUTDIR/linux-r.log), then
# slablab's OUTDIR/slablab.iso (tools/qemu-run.sh, OUTDIR/slablab-r.log), for r = 1..ROUNDS;
# then tools/benchreport.py --compare sets the two sides' rounds against each other in
# OUTDIR/compare.md (each side's fastest round per figure, their ratio, every round's value).
#
# Why rounds: under TCG the guest's TSC is host time, and on a shared host the emulator's
# speed moves by 2-5x from one boot to the next as the other load comes and goes. One boot
# a side compares two windows of the host's load as much as two allocators; interleaving K
# boots a side and keeping each side's fastest gives both sides their quietest window of
# the same stretch of time. ROUNDS=1 is the old one boot each, fit for ICOUNT=1, whose
# instruction counts do not depend on the load.
#
# The environment goes to both sides' boots as make bench-linux sets it: SMP, MEM, ACCEL,
# ICOUNT, TIMEOUT, BENCH_REPS (and run.sh's other knobs). Logs of an earlier run in OUTDIR
# (linux*.log, slablab*.log) are removed first, so compare.md reads only this run's.
# Exit: 0 measured and compared, 1 a boot or the comparison failed (the logs so far are
# kept), 2 bad usage: ROUNDS not a whole number from 1 to 20, or run.sh's own refusals.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "bench-linux: $1" >&2; exit "${2:-1}"; }
[ $# = 2 ] || { echo "usage: tools/bench-linux/rounds.sh OUTDIR ROUNDS" >&2; exit 2; }
out=$1 rounds=$2
[[ $rounds =~ ^[1-9][0-9]*$ ]] && [ "$rounds" -le 20 ] ||
    die "ROUNDS='$rounds' is not a number of rounds from 1 to 20 (each round boots Linux and slablab once)" 2
[ -f "$out/slablab.iso" ] || die "no $out/slablab.iso (make bench-linux builds it)" 2

# The host's load average (procps's uptime is not on every Debian; /proc/loadavg is).
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g')"; }

rm -f "$out"/linux*.log "$out"/slablab*.log
lin=() sla=()
for ((r = 1; r <= rounds; r++)); do
    echo "bench-linux: round $r of $rounds: Linux ($(load))"
    LINUX_LOG="$out/linux-$r.log" "$here/run.sh" "$out"
    echo "bench-linux: round $r of $rounds: slablab ($(load))"
    rc=0
    ISO="$out/slablab.iso" LOG="$out/slablab-$r.log" "$root/tools/qemu-run.sh" >/dev/null || rc=$?
    [ "$rc" = 0 ] || die "slablab's boot of round $r failed (tools/qemu-run.sh exit $rc; log: $out/slablab-$r.log)"
    lin+=("$out/linux-$r.log") sla+=("$out/slablab-$r.log")
done
echo "bench-linux: done ($(load))"
join() { local IFS=,; echo "$*"; }
python3 "$root/tools/benchreport.py" --compare "$(join "${lin[@]}")" "$(join "${sla[@]}")" \
    --pair linux=lock/irq,lock/cmpxchg,partial/irq,partial/cmpxchg -o "$out/compare.md"
