#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-doc: reruns every command docs/BENCHMARKS.md documents, keeps each one's output
# as a log under docs/results/ (the evidence behind the doc's tables), then regenerates the
# doc's tables from those logs (tools/benchreport.py --doc docs/BENCHMARKS.md).
#
# Usage: tools/bench-doc.sh [NAME...]   only the logs named (default: every one in LOGS);
#        tools/bench-doc.sh --list      the names, commands and logs, nothing run
# Each log opens with lines "# key: value" (the command, the commit, the host, the load
# average before and after, the wall time), which the doc's table notes quote; the rest is
# what the command printed (make bench and make run: the serial log; make bench-host: its
# stdout). A command that fails leaves its old log in place and the script exits 1 at the
# end, after the others ran.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
results=docs/results

# NAME|COMMAND|OUTPUT[|BUILD]: OUTPUT is the file the command's log is taken from ("-": its
# stdout), or a directory: each *.log the command left there is kept as NAME-FILE.log (make
# bench-linux's rounds, linux-R.log and slablab-R.log), or "=DIR": the command writes its
# own logs under DIR, nothing is copied (make sweep's, whose names and points
# tools/sweep.py keeps together). BUILD, when given, runs first with its output dropped (so
# that make's compile lines stay out of a stdout log). NAME may hold a folder under
# docs/results/. The order is the doc's; a new benchmark's section adds its line here.
LOGS=(
    "tcg-smp4|make bench SMP=4|build/bench.log"
    "icount-smp4|make bench ICOUNT=1 SMP=4 CMDLINE=bench=all|build/bench.log"
    "nolock/fastpath-icount-smp2-lock-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=lock fastpath=irq bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-lock-cmpxchg|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=lock fastpath=cmpxchg bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-partial-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=partial fastpath=irq bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-partial-cmpxchg|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=partial fastpath=cmpxchg bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-sheaves-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=sheaves fastpath=irq bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-ipi-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=ipi fastpath=irq bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-ipi-batch-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=ipi-batch fastpath=irq bench_reps=3'|build/bench.log"
    "nolock/fastpath-icount-smp2-remote-atomic-irq|make bench ICOUNT=1 SMP=2 CMDLINE='bench=fastpath scheme=remote-atomic fastpath=irq bench_reps=3'|build/bench.log"
    "icount-smp4-pcp0|make bench ICOUNT=1 SMP=4 CMDLINE='bench=bulk pcp=0'|build/bench.log"
    "tcg-debug|make bench SMP=4 CMDLINE=bench=debug|build/bench.log"
    "replay-linux-tcg|make replay TRACE=tests/traces/linux-hackbench.trace|build/replay.log"
    "replay-linux-hackbench-x160-smp4|make replay TRACE=build/trace/linux-hackbench-x160.trace MEM=16G CMDLINE=bench_reps=1|build/replay.log|SCALE=160 MEM=3G TIMEOUT=2400 make trace-linux WORKLOAD=hackbench && build/trace/slabtrace from-linux build/trace/linux-x160/hackbench.trace-cmd.txt -o build/trace/linux-hackbench-x160.trace --source linux-6.1:hackbenchx160"
    "numa-tcg|make bench NODES=2 SMP=4 MEM=128M CMDLINE=bench=numa|build/bench.log"
    "sweep|rm -rf build/sweep-doc && python3 tools/sweep.py --host --out build/sweep-doc && rm -rf docs/results/sweep/logs && cp -r build/sweep-doc/logs docs/results/sweep/logs && python3 tools/sweep.py --only-jsonl --out docs/results/sweep && python3 tools/benchreport.py --study docs/results/sweep/sweep.jsonl -o docs|=docs/results/sweep"
    "rcu/rcu-icount-smp2|make bench ICOUNT=1 SMP=2 CMDLINE=bench=rcu|build/bench.log"
    "rcu/rcu-tcg-smp2|make bench SMP=2 CMDLINE=bench=rcu|build/bench.log"
    "rcu/rcu_gp-icount-smp2|make bench ICOUNT=1 SMP=2 CMDLINE=bench=rcu_gp|build/bench.log"
    "rcu/rcu_gp-icount-smp8|make bench ICOUNT=1 SMP=8 CMDLINE=bench=rcu_gp|build/bench.log"
    "rcu/rcu_gp-icount-smp64|make bench ICOUNT=1 SMP=64 CMDLINE='bench=rcu_gp ap_timeout_ms=60000'|build/bench.log"
    "rcu/rcu_gp-tcg-smp2|make bench SMP=2 CMDLINE=bench=rcu_gp|build/bench.log"
    "rcu/rcu_gp-tcg-smp8|make bench SMP=8 CMDLINE=bench=rcu_gp|build/bench.log"
    "rcu/rcu_gp-tcg-smp64|make bench SMP=64 CMDLINE='bench=rcu_gp ap_timeout_ms=60000'|build/bench.log"
    "host|make bench-host|-|make build/bench-host/bench-host build/bench-host/bench-suite build/bench-host/bench-suite-peer"
    "host-ipi-signal|make bench-host BENCH='bench=host_ipi_rtt' BENCH_HOST_MICRO=0|-|make build/bench-host/bench-host build/bench-host/bench-suite build/bench-host/bench-suite-peer"
    "host-ipi-poll|make bench-host BENCH='bench=host_ipi_rtt host_ipi=poll' BENCH_HOST_MICRO=0|-|make build/bench-host/bench-host build/bench-host/bench-suite build/bench-host/bench-suite-peer"
    "linux-icount|make bench-linux ICOUNT=1|build/bench-linux"
    "linux-tcg|make bench-linux|build/bench-linux"
)

list() {
    local e
    for e in "${LOGS[@]}"; do
        IFS='|' read -r name cmd out _ <<<"$e"
        if [[ $out == =* ]]; then log=${out#=}/; log=${log#"$results"/}
        elif [[ $out == build/*.log || $out == - ]]; then log=$name.log; else log="$name-*.log"; fi
        printf '%-24s %s  -> %s/%s\n' "$name" "$cmd" "$results" "$log"
    done
}

if [ "${1:-}" = --list ]; then
    list
    exit 0
fi
for want in "$@"; do
    found=0
    for e in "${LOGS[@]}"; do [ "${e%%|*}" = "$want" ] && found=1; done
    if [ "$found" = 0 ]; then
        echo "bench-doc: no log named '$want'; the names:" >&2
        list >&2
        exit 2
    fi
done

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

status=0
start_all=$(date +%s)
mkdir -p "$results"
for e in "${LOGS[@]}"; do
    IFS='|' read -r name cmd out build <<<"$e"
    if [ $# -gt 0 ]; then
        skip=1
        for want in "$@"; do [ "$want" = "$name" ] && skip=0; done
        [ "$skip" = 1 ] && continue
    fi
    tmp=$(mktemp -d)
    if [ -n "${build:-}" ] && ! bash -c "$build" >"$tmp/err" 2>&1; then
        echo "bench-doc: $name: '$build' failed; the last lines:" >&2
        tail -n 15 "$tmp/err" >&2
        status=1
        rm -rf "$tmp"
        continue
    fi
    echo "bench-doc: $name: $cmd"
    load0=$(loadavg)
    t0=$(date +%s)
    rc=0
    if [ "$out" = - ]; then
        bash -c "$cmd" >"$tmp/stdout" 2>"$tmp/err" || rc=$?
    else
        [[ $out == =* || -d $out ]] || rm -f "$out"
        bash -c "$cmd" >"$tmp/err" 2>&1 || rc=$?
    fi
    t1=$(date +%s)
    load1=$(loadavg)
    if [ "$rc" != 0 ]; then
        echo "bench-doc: $name: '$cmd' exited $rc; $results/$name*.log left as they were; the last lines:" >&2
        tail -n 15 "$tmp/err" >&2
        status=1
        rm -rf "$tmp"
        continue
    fi
    # (source file, log name) pairs
    pairs=()
    if [[ $out == =* ]]; then
        echo "bench-doc: $name: $((t1 - t0)) s, ${out#=}/"
    elif [ "$out" = - ]; then
        pairs=("$tmp/stdout" "$name")
    elif [ -d "$out" ]; then
        rm -f "$results/$name"-*.log
        for f in "$out"/*.log; do pairs+=("$f" "$name-$(basename "$f" .log)"); done
    else
        pairs=("$out" "$name")
    fi
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
        mkdir -p "$(dirname "$results/${pairs[i+1]}")"
        {
            echo "# command: $cmd"
            echo "# commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!docs' 2>/dev/null || echo ' (with uncommitted changes)')"
            echo "# host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r), $(qemu-system-x86_64 --version 2>/dev/null | head -n 1)"
            echo "# load average: $load0 before, $load1 after"
            echo "# wall: $((t1 - t0)) s"
            echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
            # the serial log without GRUB's escapes and \r (tools/ktap.py's cleaning)
            python3 -c 'import sys; sys.path.insert(0, "tools"); from ktap import clean_lines; sys.stdout.write("\n".join(clean_lines(open(sys.argv[1], "rb").read())))' "${pairs[i]}"
        } >"$results/${pairs[i+1]}.log"
        echo "bench-doc: $name: $((t1 - t0)) s, $results/${pairs[i+1]}.log"
    done
    rm -rf "$tmp"
done

python3 tools/benchreport.py --doc docs/BENCHMARKS.md || status=1
echo "bench-doc: $(( $(date +%s) - start_all )) s in all"
exit $status
