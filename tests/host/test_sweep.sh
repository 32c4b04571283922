#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for make sweep's tools (tools/sweep.py, tools/benchreport.py --study): the grid
# the sweep boots (every CPU count of the study under ICOUNT, one boot a count running every
# setting); the points of a sample boot log (tests/host/bench-samples/
# sweep-icount-cpus2.log: bench=sweep at 2 CPUs under ICOUNT, 4 settings x 3 workloads) as
# one JSON line each with speed, memory and traffic; a log cut short (no "sweep: done") not
# taken as a boot that ran, so a resumed sweep boots it again; and the study written from
# the points. KTAP (flat).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
sample=$here/bench-samples/sweep-icount-cpus2.log
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
key=icount-cpus2-mix+hackbench+replay@builtin

grid_is_the_studys() {
    local g
    g=$("$py" "$root/tools/sweep.py" --dry-run) || { echo "--dry-run failed"; return 1; }
    for want in "^icount-cpus1024-mix\+hackbench\+replay@builtin: SMP=1024 MEM=3G icount " \
        "^icount-cpus256-" "^icount-cpus64-" "^icount-cpus16-" "^icount-cpus4-" "^icount-cpus1-" \
        "sweep=lock,partial,partial/30,partial/480,sheaves,sheaves/4,sheaves/8,sheaves/16,sheaves/32,sheaves/64,sheaves/128,sheaves/linux7 " \
        "^icount-cpus64-replay@linux-hackbench: .* TRACE=tests/traces/linux-hackbench.trace$"; do
        grep -Eq -- "$want" <<<"$g" || { echo "no boot like: $want"; echo "$g"; return 1; }
    done
    ! grep -q "^icount-cpus1024-replay@linux-hackbench" <<<"$g" ||
        { echo "the second trace at 1024 CPUs (only up to --traces-cpus)"; return 1; }
}

points_of_a_log() {
    mkdir -p "$out/s/logs"
    cp "$sample" "$out/s/logs/$key.log"
    "$py" "$root/tools/sweep.py" --out "$out/s" --only-jsonl >/dev/null || return 1
    "$py" - "$out/s/sweep.jsonl" <<'EOF'
import json, sys
pts = [json.loads(l) for l in open(sys.argv[1])]
assert len(pts) == 12, "%d points, want 12" % len(pts)
by = {(p["workload"], p["setting"]): p for p in pts}
for w in ("mix", "hackbench", "replay"):
    for s in ("lock", "partial/30", "sheaves/8", "sheaves/linux7"):
        p = by.get((w, s))
        assert p, "no point %s %s" % (w, s)
        assert p["cpus"] == 2 and p["accel"] == "icount", p
        sp = p["speed"]
        assert sp["unit"] == "instructions" and sp["per_op"] > 0 and not sp["emulated"], sp
        assert abs(sp["per_op"] - sp["elapsed"] / sp["ops"]) < 0.1, sp
        assert p["memory"]["end"]["pages_peak"] > 0, p["memory"]
        assert "list_lock" in p["traffic"], p["traffic"]
mix = by[("mix", "sheaves/8")]["memory"]["peak"]
assert mix["live_bytes"] > 0 and mix["ratio_pct"] > 100, mix
assert mix["layer_pages"] > 0 and mix["layer_bytes_linux7"] > 0, mix
assert by[("mix", "lock")]["memory"]["peak"]["layer_pages"] == 0
assert by[("replay", "sheaves/8")]["trace"] == "builtin"
assert by[("hackbench", "partial/30")]["traffic"]["barn_get"] == 0
EOF
}

a_log_cut_short_is_not_a_boot_that_ran() {
    mkdir -p "$out/c/logs"
    grep -v 'sweep: done' "$sample" >"$out/c/logs/$key.log"
    "$py" "$root/tools/sweep.py" --out "$out/c" --only-jsonl >/dev/null || return 1
    [ ! -s "$out/c/sweep.jsonl" ] || { echo "points from a log without 'sweep: done'"; return 1; }
}

the_study_from_the_points() {
    [ -s "$out/s/sweep.jsonl" ] || points_of_a_log >/dev/null || return 1
    "$py" "$root/tools/benchreport.py" --study "$out/s/sweep.jsonl" -o "$out/doc" --no-plots \
        >/dev/null || { echo "benchreport --study failed"; return 1; }
    local md=$out/doc/sheaves-study.md
    for want in "# Sheaves against per-cpu partial lists" "## Conclusions" \
        "| 2 | icount | 4 | hackbench, mix, replay of builtin | 12 |" \
        "**Where per-cpu partial lists win**" "### mix" "2 CPUs, icount (instructions):"; do
        grep -qF -- "$want" "$md" || { echo "no line in the study: $want"; return 1; }
    done
}

t "the grid: every CPU count of the study, one boot each, under ICOUNT" grid_is_the_studys
t "a boot log's points: 12, with speed, memory and traffic" points_of_a_log
t "a log cut short is not a boot that ran (a resumed sweep boots it again)" \
    a_log_cut_short_is_not_a_boot_that_ran
t "the study from the points" the_study_from_the_points
ktap_report
