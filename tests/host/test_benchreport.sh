#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/benchreport.py: turns tests/host/bench-samples/suite.log (every benchmark
# of the JSON contract, histogram lines, \r, GRUB's escapes, a cut-off last line, a benchmark
# the tool does not know) into CSVs, plots and report.md, compares it with suite-hw.log, and
# checks the contents; sets linux-6.1.log (make bench-linux) against slablab-tcg.log with
# --pair, and three rounds of each (made from them) against each other. Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
samples=$here/bench-samples
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The report every check below reads; its exit code and messages are checked too.
rc=0
"$py" "$root/tools/benchreport.py" "$samples/suite.log" -o "$out/r" >"$out/stdout" 2>"$out/stderr" || rc=$?

# has FILE LINE...: every LINE is a whole line of FILE.
has() {
    local file=$1 line
    shift
    if [ ! -f "$file" ]; then
        echo "FAILED: $file was not written"
        return 1
    fi
    for line in "$@"; do
        if ! grep -qxF -- "$line" "$file"; then
            echo "FAILED: no line in ${file#"$out"/}: $line"
            return 1
        fi
    done
}

# lines FILE N: FILE has N lines.
lines() {
    local n
    n=$(wc -l <"$1")
    if [ "$n" != "$2" ]; then
        echo "FAILED: ${1#"$out"/} has $n lines, want $2"
        return 1
    fi
}

ran() {
    if [ "$rc" != 0 ]; then
        echo "FAILED: benchreport.py exited $rc"
        cat "$out/stderr"
        return 1
    fi
    if command -v gnuplot >/dev/null; then
        has "$out/stdout" "benchreport: 117 figures from 10 benchmarks: 11 CSVs, 9 plots, $out/r/report.md"
    else
        has "$out/stdout" "benchreport: 117 figures from 10 benchmarks: 11 CSVs, 0 plots (gnuplot not installed: apt-get install gnuplot-nox), $out/r/report.md"
    fi
}

truncated_line_reported() {
    has "$out/stderr" "benchreport: $samples/suite.log:144: figure line did not parse, left out: {\"bench\":\"memory\",\"scheme\":\"partial\",\"workload\":\"scaling\",\"f" &&
        has "$out/r/report.md" "**1 line(s) left out** (truncated, garbled or incomplete): line 144, figure line did not parse: \`{\"bench\":\"memory\",\"scheme\":\"partial\",\"workload\":\"scaling\",\"f…\`."
}

# The partial/256 line is wrapped in \r; its spread and the digits must come through as printed.
csv_fastpath() {
    lines "$out/r/fastpath.csv" 13 &&
        has "$out/r/fastpath.csv" \
            "bench,scheme,fastpath,size,pairs,reps,figure,value,unit,p10,p90,min,max,accel,emulated,cpus" \
            "fastpath,partial,irq,256,1000,21,alloc_free_pair,80.0,cycles,78.0,85.0,77.0,110.0,tcg,true,4" \
            "fastpath,sheaves,sheaf,64,1000,21,alloc_free_pair,59.1,ns,,,,,tcg,true,4"
}

csv_bulk_hackbench_debug() {
    lines "$out/r/bulk.csv" 21 &&
        has "$out/r/bulk.csv" "bulk,partial,irq,256,16,21,improvement,80.0,percent,,,,,tcg,true,4" &&
        has "$out/r/hackbench.csv" "bench,scheme,groups,loops,figure,value,unit,p10,p90,min,max,accel,emulated,cpus" \
            "hackbench,sheaves,1,100,improvement_vs_lock,-10.0,percent,,,,,tcg,true,4" &&
        has "$out/r/debug.csv" "debug,locked,10,100,overhead_vs_off,20.0,percent,,,,,tcg,true,4"
}

csv_latency_hist() {
    lines "$out/r/latency.csv" 31 &&
        has "$out/r/latency.csv" "bench,scheme,op,bucket_lo,bucket_hi,figure,value,unit,p10,p90,min,max,accel,emulated,cpus" \
            "latency,lock,alloc,,,p99.9,800.0,cycles,,,,,tcg,true,4" \
            "latency,partial,free,128,256,hist,150.0,count,,,,,tcg,true,4"
}

csv_memory_scaling_remote() {
    # memory: 11 figures and the header; the cut-off twelfth is not there.
    lines "$out/r/memory.csv" 12 &&
        has "$out/r/memory.csv" "memory,partial,scaling,bytes_in_use,20480.0,bytes,,,,,tcg,true,4" &&
        has "$out/r/scaling.csv" "scaling,partial,4,linear_ratio,75.0,percent,,,,,tcg,true,4" &&
        has "$out/r/remote.csv" "remote,partial,1,throughput,1500000.0,objects_per_s,,,,,tcg,true,4"
}

csv_unknown_bench_and_meta() {
    has "$out/r/frobnicate.csv" "bench,scheme,knob,figure,value,unit,p10,p90,min,max,accel,emulated,cpus" \
        "frobnicate,partial,3,wobble,10.0,furlongs,,,,,tcg,true,4" &&
        has "$out/r/meta.csv" "meta,QEMU TCG CPU version 2.5+,2096,7,seed=7,\"fastpath,bulk,held,hackbench,debug,remote,scaling,latency,memory,frobnicate\",\"lock,partial,sheaves\",run,0,none,,,,,tcg,true,4"
}

md_machine_and_emulated() {
    has "$out/r/report.md" "| CPU model | QEMU TCG CPU version 2.5+ |" "| CPUs | 4 |" "| TSC MHz | 2096 |" \
        "| seed | 7 |" "| emulated | yes (QEMU TCG: the TSC runs at host time) |" \
        "## hackbench (Lameter 2011's table) (emulated)" &&
        grep -q '^> \*\*Emulated figures.\*\*' "$out/r/report.md"
}

# Ratios to lock computed by hand from suite.log.
md_ratios() {
    has "$out/r/report.md" \
        "| fastpath: alloc+free pair, 256 B | partial/irq | 80.0 | cycles | 0.80× | lower |" \
        "| fastpath: alloc+free pair, 256 B | sheaves/sheaf | 120.0 | cycles | 1.20× | lower |" \
        "| bulk: bulk API per object, N=16 | partial/irq | 18.0 | cycles | 0.90× | lower |" \
        "| held: pages held with nothing in use | sheaves/sheaf | 52.0 | pages | 6.50× | lower |" \
        "| hackbench: hackbench time (geometric mean over groups) | partial | 1643.2 | ms | 0.82× | lower |" \
        "| debug: hackbench time by debug mode | locked | 1200.0 | ms | 1.20× | lower |" \
        "| remote: remote-free throughput | partial | 1500000 | objects_per_s | 1.50× | higher |" \
        "| scaling: throughput at the most CPUs (ncpus=4) | partial | 300000 | ops_per_s | 1.50× | higher |" \
        "| latency: free p99 | partial | 150.0 | cycles | 0.50× | lower |" \
        "| memory: peak pages (geometric mean over workload) | partial | 34.6 | pages | 2.45× | lower |" \
        "| frobnicate: wobble | partial | 10.0 | furlongs | 0.80× | ? |"
}

# The baseline is the meta line's "baseline" (the kernel's SLAB_SCHEME_BASELINE scheme): with
# partial there, every ratio is to partial's figure; a log without it (suite.log) is lock's.
md_baseline_from_meta() {
    sed 's/"schemes":"lock,partial,sheaves",/&"baseline":"partial",/' "$samples/suite.log" >"$out/base.log"
    grep -q '"baseline":"partial"' "$out/base.log" || { echo "FAILED: no baseline put in"; return 1; }
    "$py" "$root/tools/benchreport.py" "$out/base.log" -o "$out/base" >/dev/null 2>&1 || true
    has "$out/base/report.md" \
        "| figure | variant | value | unit | ratio to partial | better |" \
        "| fastpath: alloc+free pair, 256 B | lock/irq | 100.0 | cycles | 1.25× | lower |" \
        "| fastpath: alloc+free pair, 256 B | partial/irq | 80.0 | cycles | 1.00× | lower |" &&
        has "$out/r/report.md" "| figure | variant | value | unit | ratio to lock | better |"
}

# The sources' layouts: the bulk lines as Brouer 2015 (SLAB bulk API) prints them, hackbench as
# Lameter 2011 (per-cpu partial lists) tabulates it.
md_source_tables() {
    has "$out/r/report.md" \
        " 16 - 90.0 cycles(tsc) 45.0 ns - 18.0 cycles(tsc) 9.0 ns - improved 80.0%" \
        "| hackbench | lock | partial | sheaves |" \
        "| 1 groups × 100 loops | 1000.0 (980.0–1020.0) | 900.0 (882.0–918.0) (+10.0%) | 1100.0 (1078.0–1122.0) (-10.0%) |" \
        "| locked | 1200.0 ms (+20.0%) |" \
        "| 4 | 200000.0 (50.0% of linear) | 300000.0 (75.0% of linear) |" \
        "| partial | scaling | 40.0 | 20480.0 | — |"
}

# PNG files begin with these 8 bytes.
is_png() {
    local magic
    magic=$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')
    [ "$magic" = 89504e470d0a1a0a ]
}

plots() {
    local p
    if ! command -v gnuplot >/dev/null; then
        echo "# SKIP gnuplot is not installed (apt-get install gnuplot-nox)"
        return 0
    fi
    for p in fastpath bulk hackbench scaling latency-alloc latency-free memory remote held; do
        if ! is_png "$out/r/$p.png"; then
            echo "FAILED: $p.png is missing or not a PNG"
            return 1
        fi
        has "$out/r/report.md" "![$p]($p.png)" || return 1
    done
    [ ! -e "$out/r/debug.png" ] || { echo "FAILED: a debug plot nobody asked for"; return 1; }
}

# A log with fewer benchmarks: the absent ones are skipped, not errors; nothing emulated.
partial_log() {
    "$py" "$root/tools/benchreport.py" "$samples/suite-hw.log" -o "$out/hw" >/dev/null &&
        [ ! -e "$out/hw/latency.csv" ] && [ ! -e "$out/hw/latency-alloc.png" ] &&
        has "$out/hw/report.md" "| emulated | no |" "## hackbench (Lameter 2011's table)" &&
        ! grep -q "Emulated figures" "$out/hw/report.md"
}

compare_mode() {
    "$py" "$root/tools/benchreport.py" --compare "$samples/suite.log" "$samples/suite-hw.log" \
        -o "$out/cmp.md" >/dev/null 2>&1 &&
        has "$out/cmp.md" "| lock | irq | 256 | alloc_free_pair | cycles | 100.0 | 25.0 | 0.25× |" \
            "| partial | irq | 256 | alloc_free_pair | cycles | 80.0 | 30.0 | 0.38× |" \
            "| lock | 10 | time | ms | 4000.0 | 500.0 | 0.12× |" \
            "| partial | 10 | time | ms | 3000.0 | 300.0 | 0.10× |" \
            "| CPU model | QEMU TCG CPU version 2.5+ | AMD EPYC 7713 |" \
            "> One log is emulated and the other is not: B/A mixes emulator speed with CPU speed."
}

# make bench-linux's logs (tools/bench-linux/): a cut of a real Linux 6.1 log (the module's
# lines, "scheme":"linux", among the console's) keeps the contract, and --pair sets its figures
# against slablab's lock/irq and partial/irq ones of the same shape. Ratios by hand:
# 646.5/610.6 = 1.059, 632.8/610.6 = 1.036, 76.7/120.1 = 0.639, 948649.4/141508.4 = 6.704.
linux_pair() {
    local l=$samples/linux-6.1.log s=$samples/slablab-tcg.log
    checks 0 "$l" "benchreport: $l: 4 figures from 3 benchmarks, as the contract says" || return 1
    "$py" "$root/tools/benchreport.py" --compare "$l" "$s" --pair linux=lock/irq,partial/irq \
        -o "$out/linux.md" >/dev/null 2>&1 || { echo "FAILED: --compare --pair exited $?"; return 1; }
    has "$out/linux.md" \
        "A's scheme \`linux\` is set against B's \`lock/irq\`, \`partial/irq\` (--pair): the rows name B's." \
        "| lock | irq | alloc_free_pair | cycles | 610.6 | 646.5 | 1.06× |" \
        "| partial | irq | alloc_free_pair | cycles | 610.6 | 632.8 | 1.04× |" \
        "| partial | cmpxchg | alloc_free_pair | cycles | — | 671.4 | — |" \
        "| partial | irq | bulk_per_object | cycles | 120.1 | 76.7 | 0.64× |" \
        "| partial | throughput | objects_per_s | 141508.4 | 948649.4 | 6.70× |" \
        "| linux | per_object | cycles | 29680.2 | — | — |" \
        "Notes: 1 figure(s) only in A, 1 only in B (shown with —)." || return 1
    # Linux's bulk figure met partial/irq's: no row of it alone for lock/irq, which has none.
    if grep -q "| linux | slub |" "$out/linux.md"; then
        echo "FAILED: a paired figure that met B's also stands alone:"; grep "| linux |" "$out/linux.md"
        return 1
    fi
    # Without --pair the schemes differ, so nothing lines up.
    "$py" "$root/tools/benchreport.py" --compare "$l" "$s" -o "$out/nopair.md" >/dev/null 2>&1 &&
        has "$out/nopair.md" "| linux | slub | alloc_free_pair | cycles | 610.6 | — | — |"
}

pair_bad_usage() {
    local l=$samples/linux-6.1.log s=$samples/slablab-tcg.log r=0
    "$py" "$root/tools/benchreport.py" --compare "$l" "$s" --pair linux >/dev/null 2>"$out/pair.err" || r=$?
    [ "$r" = 2 ] && grep -q "reads like linux=lock/irq" "$out/pair.err" ||
        { echo "FAILED: --pair linux exited $r"; cat "$out/pair.err"; return 1; }
    r=0
    "$py" "$root/tools/benchreport.py" "$l" --pair linux=lock -o "$out/p" >/dev/null 2>"$out/pair.err" || r=$?
    [ "$r" = 2 ] && grep -q "goes with --compare" "$out/pair.err" ||
        { echo "FAILED: --pair without --compare exited $r"; cat "$out/pair.err"; return 1; }
}

# make bench-linux's rounds (ROUNDS=3): each side three logs, LOG1,LOG2,LOG3, made from the
# samples with other values. Per figure a side stands for its fastest round: Linux's pair
# 610.6, 900.0, 500.5 gives 500.5, slablab's lock/irq 646.5, 300.0, 700.0 gives 300.0, so
# B/A = 0.60 (not 1.06, 0.33 or 1.40 round by round); a rate takes the highest (Linux's
# throughput 141508.4, 200000.0, 100000.0: 200000.0, against lock's 471643.0: 2.36); a
# figure that is neither (a percent) takes the median round (10.0, 30.0, 20.0: 20.0).
# Linux's bulk figure is missing from round 2: "—" there, the note counts its rows.
rounds_fastest() {
    local l=$samples/linux-6.1.log s=$samples/slablab-tcg.log d=$out/rounds i
    local imp='{"bench":"bulk","scheme":"partial","fastpath":"irq","size":256,"n":16,"reps":21,"figure":"improvement","value":%s,"unit":"percent","accel":"tcg","emulated":true,"cpus":4}\n'
    mkdir -p "$d"
    cp "$l" "$d/linux-1.log"
    sed -e 's/"value":610\.6,/"value":900.0,/' -e 's/"value":141508\.4,/"value":200000.0,/' \
        -e '/"figure":"bulk_per_object"/d' "$l" >"$d/linux-2.log"
    sed -e 's/"value":610\.6,/"value":500.5,/' -e 's/"value":141508\.4,/"value":100000.0,/' \
        "$l" >"$d/linux-3.log"
    cp "$s" "$d/slablab-1.log"
    sed 's/"value":646\.5,/"value":300.0,/' "$s" >"$d/slablab-2.log"
    sed 's/"value":646\.5,/"value":700.0,/' "$s" >"$d/slablab-3.log"
    i=1
    for v in 10.0 30.0 20.0; do printf "$imp" "$v" >>"$d/slablab-$i.log"; i=$((i + 1)); done
    "$py" "$root/tools/benchreport.py" --compare "$d/linux-1.log,$d/linux-2.log,$d/linux-3.log" \
        "$d/slablab-1.log,$d/slablab-2.log,$d/slablab-3.log" --pair linux=lock/irq,partial/irq \
        -o "$out/rounds.md" >"$out/rounds.out" 2>&1 ||
        { echo "FAILED: --compare with rounds exited $?"; cat "$out/rounds.out"; return 1; }
    has "$out/rounds.md" \
        "A: 3 rounds, \`$d/linux-1.log\`, \`$d/linux-2.log\`, \`$d/linux-3.log\` — **emulated** (TCG)  " \
        "| rounds (boots) | 3 | 3 |" \
        "| scheme | fastpath | figure | unit | A | B | B/A | A rounds | B rounds | B/A by round |" \
        "| lock | irq | alloc_free_pair | cycles | 500.5 | 300.0 | 0.60× | 610.6, 900.0, 500.5 (1.80×) | 646.5, 300.0, 700.0 (2.33×) | 1.06×, 0.33×, 1.40× |" \
        "| partial | irq | alloc_free_pair | cycles | 500.5 | 632.8 | 1.26× | 610.6, 900.0, 500.5 (1.80×) | 632.8, 632.8, 632.8 (1.00×) | 1.04×, 0.70×, 1.26× |" \
        "| partial | cmpxchg | alloc_free_pair | cycles | — | 671.4 | — | — | 671.4, 671.4, 671.4 (1.00×) | —, —, — |" \
        "| lock | throughput | objects_per_s | 200000.0 | 471643.0 | 2.36× | 141508.4, 200000.0, 100000.0 (2.00×) | 471643.0, 471643.0, 471643.0 (1.00×) | 3.33×, 2.36×, 4.72× |" \
        "| partial | irq | bulk_per_object | cycles | 120.1 | 76.7 | 0.64× | 120.1, —, 120.1 (1.00×) | 76.7, 76.7, 76.7 (1.00×) | 0.64×, —, 0.64× |" \
        "| partial | irq | improvement | percent | — | 20.0 | — | — | 10.0, 30.0, 20.0 (3.00×) | —, —, — |" || return 1
    grep -q "^How this was taken: each side is several boots (rounds: A 3, B 3)" "$out/rounds.md" &&
        grep -q "^Per figure, a side's value is its fastest round: the lowest of a cost" "$out/rounds.md" &&
        grep -q "1 row(s) with a figure missing from some of a side's rounds" "$out/rounds.md" ||
        { echo "FAILED: compare.md does not say how the rounds were taken"; return 1; }
    # One side of three rounds against one log: no ratio round by round (— in that column).
    "$py" "$root/tools/benchreport.py" --compare "$d/linux-1.log,$d/linux-2.log,$d/linux-3.log" \
        "$s" --pair linux=lock/irq -o "$out/rounds1.md" >/dev/null 2>&1 &&
        has "$out/rounds1.md" \
            "| lock | irq | alloc_free_pair | cycles | 500.5 | 646.5 | 1.29× | 610.6, 900.0, 500.5 (1.80×) | 646.5 | — |"
}

# make bench-linux ICOUNT=1: the module's log says accel "tcg-icount", emulated false (its TSC
# counts instructions), slablab's says tcg and emulated with a 1000 MHz TSC. Both are ICOUNT
# logs: no warning that one is emulated and the other not, and the advice for instructions.
icount_pair() {
    local l=$samples/linux-6.1.log s=$samples/slablab-tcg.log
    sed -e 's/"accel":"tcg","emulated":true/"accel":"tcg-icount","emulated":false/g' \
        -e 's/"tsc_mhz":2100/"tsc_mhz":999/' "$l" >"$out/linux-icount.log"
    sed 's/"tsc_mhz":2100/"tsc_mhz":1000/' "$s" >"$out/slablab-icount.log"
    "$py" "$root/tools/benchreport.py" --compare "$out/linux-icount.log" "$out/slablab-icount.log" \
        --pair linux=lock/irq -o "$out/icount.md" >/dev/null 2>&1 ||
        { echo "FAILED: --compare of ICOUNT logs exited $?"; return 1; }
    has "$out/icount.md" \
        "- A (icount): the length of the code paths (instructions, repeatable): what a scheme adds per operation; never contention, waiting or an IPI's latency" \
        "- B (icount): the length of the code paths (instructions, repeatable): what a scheme adds per operation; never contention, waiting or an IPI's latency" || return 1
    if grep -q "One log is emulated" "$out/icount.md"; then
        echo "FAILED: two ICOUNT logs are said to mix emulated and not"; return 1
    fi
}

# A list of rounds with an empty name, or naming a log that is not there, is bad usage (2);
# so is a list where one log (no --compare) is wanted.
rounds_bad_usage() {
    local l=$samples/linux-6.1.log s=$samples/slablab-tcg.log r=0
    "$py" "$root/tools/benchreport.py" --compare "$l,,$l" "$s" >/dev/null 2>"$out/rb.err" || r=$?
    [ "$r" = 2 ] && grep -q "an empty name in a list of rounds" "$out/rb.err" ||
        { echo "FAILED: an empty name among the rounds exited $r"; cat "$out/rb.err"; return 1; }
    r=0
    "$py" "$root/tools/benchreport.py" --compare "$l,$out/no-such.log" "$s" >/dev/null 2>"$out/rb.err" || r=$?
    [ "$r" = 2 ] && grep -q "no-such.log" "$out/rb.err" ||
        { echo "FAILED: a missing log among the rounds exited $r"; cat "$out/rb.err"; return 1; }
    r=0
    "$py" "$root/tools/benchreport.py" "$l,$s" -o "$out/rb" >/dev/null 2>"$out/rb.err" || r=$?
    [ "$r" = 2 ] || { echo "FAILED: a list of logs without --compare exited $r"; return 1; }
}

# --compare with three logs, the kinds --compare tells apart: TCG (host time), ICOUNT (its
# meta line's 1000 MHz) and the host suite (accel host; nivcsw on every line, other reps):
# figures matched by benchmark, scheme and size across them, each against A, and the advice.
compare_three() {
    local k
    for k in tcg:2100:true:5:100.0 icount:1000:true:5:50.0 host:2100:false:11:20.0; do
        IFS=: read -r name mhz emu reps v <<<"$k"
        local accel=$name extra=""
        [ "$name" = icount ] && accel=tcg
        [ "$name" = host ] && extra=',"nivcsw":7'
        printf '%s\n' \
            "{\"bench\":\"meta\",\"cpu_model\":\"x\",\"tsc_mhz\":$mhz,\"seed\":0,\"cmdline\":\"\",\"benches\":\"hackbench\",\"schemes\":\"lock\",\"figure\":\"run\",\"value\":0,\"unit\":\"none\",\"accel\":\"$accel\",\"emulated\":$emu,\"cpus\":2}" \
            "{\"bench\":\"hackbench\",\"scheme\":\"lock\",\"groups\":10,\"loops\":20,\"reps\":$reps,\"figure\":\"time\",\"value\":$v,\"unit\":\"ms\",\"accel\":\"$accel\",\"emulated\":$emu,\"cpus\":2$extra}" \
            >"$out/three-$name.log"
    done
    "$py" "$root/tools/benchreport.py" --compare "$out/three-tcg.log" "$out/three-icount.log" \
        "$out/three-host.log" -o "$out/three.md" >/dev/null 2>&1 &&
        has "$out/three.md" "| time | ms | 100.0 | 50.0 | 20.0 | 0.50× | 0.20× |" \
            "| figure | unit | A | B | C | B/A | C/A |" \
            "Same for every row: scheme=lock, groups=10, loops=20." \
            "A: \`$out/three-tcg.log\` (tcg) — **emulated** (TCG)  " \
            "B: \`$out/three-icount.log\` (icount) — **emulated** (TCG)  " \
            "C: \`$out/three-host.log\` (host)" &&
        grep -q "^Trust: host for the time and the ordering of the schemes" "$out/three.md" &&
        grep -q "^- B (icount): the length of the code paths" "$out/three.md"
}

no_figures_fails() {
    local r=0
    printf 'slablab: booting\r\nnothing here\n' >"$out/empty.log"
    "$py" "$root/tools/benchreport.py" "$out/empty.log" -o "$out/e" >/dev/null 2>&1 || r=$?
    [ "$r" = 1 ] || { echo "FAILED: a log without figures exited $r, want 1"; return 1; }
    r=0
    "$py" "$root/tools/benchreport.py" "$samples/does-not-exist.log" -o "$out/e" >/dev/null 2>&1 || r=$?
    [ "$r" = 2 ] || { echo "FAILED: a missing log exited $r, want 2"; return 1; }
}

# A log whose lines parse as JSON but do not hold what the contract says: figure values that
# are not finite numbers (the string "NaN", a bare NaN, 1e999, true, a p10 string), a figure
# line without a unit, a meta line without seed and cpus. Each is left out and named with
# its reason; only the good figure reaches the CSV.
bad_fields_log() {
    local m='"cpu_model":"x","tsc_mhz":2000,"cmdline":"","benches":"fastpath","schemes":"lock","accel":"tcg","emulated":true'
    printf '%s\n' \
        "{\"bench\":\"meta\",\"figure\":\"run\",\"value\":0,\"unit\":\"none\",$m}" \
        '{"bench":"fastpath","scheme":"lock","size":64,"figure":"alloc_free_pair","value":"NaN","unit":"cycles"}' \
        '{"bench":"fastpath","scheme":"lock","size":128,"figure":"alloc_free_pair","value":NaN,"unit":"cycles"}' \
        '{"bench":"fastpath","scheme":"lock","size":256,"figure":"alloc_free_pair","value":1e999,"unit":"cycles"}' \
        '{"bench":"fastpath","scheme":"lock","size":512,"figure":"alloc_free_pair","value":true,"unit":"cycles"}' \
        '{"bench":"fastpath","scheme":"lock","size":1024,"figure":"alloc_free_pair","value":5,"p10":"x","unit":"cycles"}' \
        '{"bench":"fastpath","scheme":"lock","size":2048,"figure":"alloc_free_pair","value":5}' \
        '{"bench":"fastpath","scheme":"lock","size":32,"figure":"alloc_free_pair","value":42.5,"unit":"cycles"}' \
        >"$out/bad.log"
}
bad_values_left_out() {
    local l=$out/bad.log
    bad_fields_log
    "$py" "$root/tools/benchreport.py" "$l" --no-plots -o "$out/bad" >"$out/bad.out" 2>"$out/bad.err" || {
        echo "FAILED: benchreport.py exited $?"; cat "$out/bad.err"; return 1; }
    # sn N: the first 60 characters of line N, as the messages quote it.
    sn() { sed -n "${1}p" "$l" | cut -c1-60; }
    has "$out/bad.err" \
        "benchreport: $l:1: bad meta line (no seed, cpus), left out: $(sn 1)" \
        "benchreport: $l:2: bad figure line (value is \"NaN\", not a finite number), left out: $(sn 2)" \
        "benchreport: $l:3: bad figure line (value is NaN, not a finite number), left out: $(sn 3)" \
        "benchreport: $l:4: bad figure line (value is 1E+999, not a finite number), left out: $(sn 4)" \
        "benchreport: $l:5: bad figure line (value is true, not a finite number), left out: $(sn 5)" \
        "benchreport: $l:6: bad figure line (p10 is \"x\", not a finite number), left out: $(sn 6)" \
        "benchreport: $l:7: bad figure line (no unit), left out: $(sn 7)" || return 1
    if grep -q "figure line did not parse" "$out/bad.err"; then
        echo "FAILED: a line that parses is called one that did not:"; cat "$out/bad.err"; return 1
    fi
    lines "$out/bad/fastpath.csv" 2 &&
        has "$out/bad/fastpath.csv" "fastpath,lock,32,alloc_free_pair,42.5,cycles,,,,,,," &&
        [ ! -e "$out/bad/meta.csv" ] || { echo "FAILED: the bad meta line has a meta.csv"; return 1; }
    grep -q '^\*\*7 line(s) left out\*\* (truncated, garbled or incomplete): line 1, bad meta line (no seed, cpus): ' "$out/bad/report.md" ||
        { echo "FAILED: report.md does not list the 7 lines left out"; grep left "$out/bad/report.md"; return 1; }
}

# --no-plots: gnuplot is not looked for, so nothing may say it is missing. PATH holds no
# gnuplot here, whether or not this machine has one.
no_plots_quiet() {
    local p
    mkdir -p "$out/nogp"
    p=$(command -v "$py")
    env PATH="$out/nogp" "$p" "$root/tools/benchreport.py" "$samples/suite-hw.log" --no-plots \
        -o "$out/np" >"$out/np.out" 2>&1 || { echo "FAILED: benchreport.py exited $?"; cat "$out/np.out"; return 1; }
    if grep -i gnuplot "$out/np.out" "$out/np/report.md"; then
        echo "FAILED: --no-plots still talks of gnuplot (above)"
        return 1
    fi
    has "$out/np/report.md" "Plots: none drawn (--no-plots)."
}

# checks WANT_RC LOG LINE...: benchreport.py --check LOG exits WANT_RC and prints exactly the
# LINEs, in order. A LINE starting with re: is an extended regex for the whole line (the
# JSON decoder's own words, which differ between Python versions).
checks() {
    local want=$1 l=$2 r=0 i=0 got line
    shift 2
    "$py" "$root/tools/benchreport.py" --check "$l" >"$out/check.out" 2>&1 || r=$?
    if [ "$r" != "$want" ]; then
        echo "FAILED: --check ${l#"$out"/} exited $r, want $want:"
        cat "$out/check.out"
        return 1
    fi
    if [ "$(wc -l <"$out/check.out")" != $# ]; then
        echo "FAILED: --check ${l#"$out"/} printed $(wc -l <"$out/check.out") lines, want $#:"
        cat "$out/check.out"
        return 1
    fi
    while IFS= read -r got; do
        i=$((i + 1))
        line=${*:i:1}
        if [[ $line == re:* ]]; then
            [[ $got =~ ^${line#re:}$ ]] && continue
        elif [ "$got" = "$line" ]; then
            continue
        fi
        echo "FAILED: --check ${l#"$out"/} line $i is: $got"
        echo "    want: $line"
        return 1
    done <"$out/check.out"
}

# A log as the contract wants it passes; the cut-off last line of suite.log is one problem.
check_good_and_cut_off() {
    checks 0 "$samples/suite-hw.log" \
        "benchreport: $samples/suite-hw.log: 5 figures from 3 benchmarks, as the contract says" &&
        checks 1 "$samples/suite.log" \
            're:line 144 is not JSON \(.+\)' \
            "benchreport: $samples/suite.log: 1 problem"
}

# suite-hw.log damaged one way at a time: a '{' line that is not JSON, a figure before the
# meta line, a figure without unit and cpus, a benchmark the meta line names with no figures.
check_damaged() {
    local hw=$samples/suite-hw.log d=$out/damaged.log
    sed '4i {"bench":"fastpath","scheme":"lock",' "$hw" >"$d"
    checks 1 "$d" 're:line 4 is not JSON \(.+\)' "benchreport: $d: 1 problem" || return 1
    { sed -n 1p "$hw"; sed -n 3p "$hw"; sed -n 2p "$hw"; sed -n '4,$p' "$hw"; } >"$d"
    checks 1 "$d" "line 2: a figure before the meta line" "benchreport: $d: 1 problem" || return 1
    sed '5s/"unit":"ms",//; 5s/,"cpus":8//' "$hw" >"$d"
    checks 1 "$d" "line 5: no unit, cpus" "benchreport: $d: 1 problem" || return 1
    sed '/"bench":"scaling"/d' "$hw" >"$d"
    checks 1 "$d" "no figures from scaling (the meta line, line 2, names it)" \
        "benchreport: $d: 1 problem" || return 1
    sed '/"bench":"meta"/d' "$hw" >"$d"
    checks 1 "$d" "line 2: a figure before the meta line" "line 3: a figure before the meta line" \
        "line 4: a figure before the meta line" "line 5: a figure before the meta line" \
        "line 6: a figure before the meta line" "benchreport: $d: 6 problems (the first 5 above)"
}

# Lines the report would leave out are problems too: a figure line after other text that is
# cut off, a value that is not a number, a second meta line; a figure line after other text
# that parses is fine. remote on one CPU prints no figures (it needs two): not a problem.
check_unparsed_and_remote() {
    local hw=$samples/suite-hw.log d=$out/unparsed.log
    { sed '3s/"value":25.0/"value":"NaN"/' "$hw"
      sed -n 2p "$hw"
      printf 'slablab: cpu 1 says hi%s\n' "$(sed -n 4p "$hw")"
      printf 'slablab: cpu 1 says hi%s\n' "$(sed -n 4p "$hw" | cut -c1-50)"; } >"$d"
    checks 1 "$d" 'line 3: value is "NaN", not a finite number' \
        "line 8: a second meta line (the first is line 2)" \
        're:line 10: a figure line that does not parse \(.+\)' "benchreport: $d: 3 problems" ||
        return 1
    sed '2s/"benches":"fastpath,/"benches":"remote,fastpath,/; s/"cpus":8/"cpus":1/' "$hw" >"$d"
    checks 0 "$d" "benchreport: $d: 5 figures from 3 benchmarks, as the contract says" || return 1
    sed '2s/"benches":"fastpath,/"benches":"remote,fastpath,/; s/"cpus":8/"cpus":2/' "$hw" >"$d"
    checks 1 "$d" "no figures from remote (the meta line, line 2, names it)" \
        "benchreport: $d: 1 problem"
}

# make bench-host's log: one section per process under its "== bench-host: " header, each
# with its own meta line; a section without one, or two meta lines in one section, fails.
check_sections() {
    local hw=$samples/suite-hw.log d=$out/sections.log
    { echo "== bench-host: the benchmark suite on real cores =="; cat "$hw"
      echo "== bench-host: peer glibc =="; cat "$hw"; } >"$d"
    checks 0 "$d" "benchreport: $d: 10 figures from 3 benchmarks, as the contract says" ||
        return 1
    { echo "== bench-host: the benchmark suite on real cores =="; cat "$hw"
      echo "== bench-host: peer glibc =="; sed '/"bench":"meta"/d' "$hw"; } >"$d"
    checks 1 "$d" "line 11: a figure before the meta line" "line 12: a figure before the meta line" \
        "line 13: a figure before the meta line" "line 14: a figure before the meta line" \
        "line 15: a figure before the meta line" "benchreport: $d: 6 problems (the first 5 above)" ||
        return 1
    { cat "$hw"; cat "$hw"; } >"$d"
    checks 1 "$d" "line 9: a second meta line (the first is line 2)" "benchreport: $d: 1 problem"
}

# --from-qr: the results object the screen's QR code holds (bench/bench.c), as markdown, and
# against a log's summary lines: equal passes, a changed figure or one missing fails (1),
# text that is not the object is refused (2).
from_qr() {
    local q='{"result":"pass","slablab":"results","cpu":"QEMU TCG CPU version 2.5+","cpus":2,"tsc_mhz":2099,"accel":"tcg","emulated":true,"seed":0,"summary":[{"of":"fastpath","headline":"alloc+free pair, 256 B","unit":"cycles","values":{"lock":623.0,"partial":643.0}}]}'
    local s='{"bench":"summary","of":"fastpath","headline":"alloc+free pair, 256 B","scheme":"%s","figure":"value","value":%s,"unit":"cycles","accel":"tcg","emulated":true,"cpus":2}\n'
    local r=0
    printf 'slablab: booting\r\n' >"$out/qr.log"
    printf "$s" lock 623.0 partial 643.0 >>"$out/qr.log"
    "$py" "$root/tools/benchreport.py" --from-qr "$q" --against "$out/qr.log" >"$out/qr.md" 2>&1 || r=$?
    [ "$r" = 0 ] || { echo "FAILED: --from-qr --against a matching log exited $r"; cat "$out/qr.md"; return 1; }
    has "$out/qr.md" "| partial | 643.0 | x1.03 |" "## fastpath: alloc+free pair, 256 B (cycles)" \
        'Result **pass**; cpu "QEMU TCG CPU version 2.5+", 2 CPUs, TSC 2099 MHz, accel tcg (emulated), seed 0' \
        "benchreport: the QR code's 2 figures are the summary of $out/qr.log" || return 1
    printf 'slablab: booting\r\n' >"$out/qr2.log"
    printf "$s" lock 623.0 partial 650.0 >>"$out/qr2.log"
    r=0
    "$py" "$root/tools/benchreport.py" --from-qr "$q" --against "$out/qr2.log" >"$out/qr2.md" 2>&1 || r=$?
    [ "$r" = 1 ] && grep -q "partial: QR 643.0, log 650.0" "$out/qr2.md" ||
        { echo "FAILED: a changed figure exited $r"; cat "$out/qr2.md"; return 1; }
    r=0
    "$py" "$root/tools/benchreport.py" --from-qr '{"bench":"meta"}' >"$out/qr3.md" 2>&1 || r=$?
    [ "$r" = 2 ] && grep -q "not slablab's results object" "$out/qr3.md" ||
        { echo "FAILED: a foreign object exited $r"; cat "$out/qr3.md"; return 1; }
}

# --doc: the tables of docs/BENCHMARKS.md are what their logs give (the doc cannot drift
# from docs/results/); and the check fails on a changed figure, a table outside any block,
# a block whose log is missing, and a doc whose tables were never made.
doc_tables_match_logs() {
    "$py" "$root/tools/benchreport.py" --doc "$root/docs/BENCHMARKS.md" --check
}

# A copy of the doc beside the real logs, with EDIT (a sed script) applied to it.
doc_copy() {
    mkdir -p "$out/doc"
    ln -sfn "$root/docs/results" "$out/doc/results"
    sed "$1" "$root/docs/BENCHMARKS.md" >"$out/doc/BENCHMARKS.md"
}

doc_check_fails() {
    local want=$1 rc=0
    "$py" "$root/tools/benchreport.py" --doc "$out/doc/BENCHMARKS.md" --check \
        >"$out/doc.out" 2>&1 || rc=$?
    if [ "$rc" != 1 ]; then
        echo "FAILED: --doc --check exited $rc on the damaged copy, want 1"
        cat "$out/doc.out"
        return 1
    fi
    grep -qF -- "$want" "$out/doc.out" || { echo "FAILED: no '$want' in:"; cat "$out/doc.out"; return 1; }
}

doc_check_fails_on_changes() {
    # the first figure of the first grid table made 1 bigger
    doc_copy '0,/^| [0-9][^|]* | \([0-9][0-9]*\)\.\([0-9]\) |/s//| 8 | 9\1.\2 |/'
    cmp -s "$root/docs/BENCHMARKS.md" "$out/doc/BENCHMARKS.md" && { echo "FAILED: the sed changed nothing"; return 1; }
    doc_check_fails "differs from what its logs give" || return 1
    doc_copy '$a\
| a | table |'
    doc_check_fails "a table outside any benchreport block" || return 1
    doc_copy 's|log=results/tcg-smp4.log|log=results/no-such.log|'
    doc_check_fails "no log results/no-such.log" || return 1
    doc_copy '/^<!-- benchreport /,/^<!-- end benchreport -->/{/^<!--/!d}'
    doc_check_fails "differs from what its logs give" || return 1
}

# A grid on the sample log: the cells are the log's figures, A>B gives "A → B", cols=log
# names each log, agg=min keeps the lowest of several logs, and --doc writes the table.
doc_grid_on_samples() {
    mkdir -p "$out/g"
    cp "$samples/suite.log" "$out/g/a.log"
    sed 's/"value":100.0,"unit":"cycles"/"value":50.0,"unit":"cycles"/' "$samples/suite.log" >"$out/g/b.log"
    cat >"$out/g/doc.md" <<'DOC'
<!-- benchreport grid bench=fastpath figure=alloc_free_pair unit=cycles rows=size log=a.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=bulk figure=single_per_object>bulk_per_object unit=cycles where=n:16 rows=n log=a.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=fastpath figure=alloc_free_pair unit=cycles where=scheme:lock,size:256 cols=log log=a.log log=b.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=fastpath figure=alloc_free_pair unit=cycles where=scheme:lock,size:256 agg=min log=*.log -->
<!-- end benchreport -->
DOC
    "$py" "$root/tools/benchreport.py" --doc "$out/g/doc.md" >"$out/g/out" 2>&1 || { cat "$out/g/out"; return 1; }
    has "$out/g/out" "benchreport: $out/g/doc.md: 4 tables made from their logs" &&
        has "$out/g/doc.md" "| size | lock/irq | partial/irq | sheaves/sheaf |" \
            "| 64 | 98.0 | 79.5 | 118.2 |" "| 256 | 100.0 | 80.0 | 120.0 |" \
            "| 16 | 98.0 → 20.0 | 90.0 → 18.0 |" \
            "| variant | a | b |" "| lock/irq | 100.0 | 50.0 |" 2>/dev/null ||
        { grep -n '' "$out/g/doc.md"; return 1; }
    [ "$(grep -c '^| lock/irq | 50.0 |$' "$out/g/doc.md")" = 1 ] || { echo "FAILED: agg=min did not keep 50.0"; grep -n '' "$out/g/doc.md"; return 1; }
    "$py" "$root/tools/benchreport.py" --doc "$out/g/doc.md" --check >/dev/null
}

# div= and logs without bench-doc's header (make run's, make sweep's): bench=sweep's elapsed
# over ops per cell; such a log named by the kernel's command line, taken as ICOUNT from its
# 1 GHz TSC or from qemu-run's line, as TCG otherwise; a header's command and load win.
doc_div_and_headerless() {
    local d=$out/dv
    mkdir -p "$d"
    cp "$samples/sweep-icount-cpus2.log" "$d/ic.log"
    sed 's/"tsc_mhz":1000,/"tsc_mhz":2096,/' "$samples/sweep-icount-cpus2.log" >"$d/tcg.log"
    { echo "qemu-run: tcg-icount smp=2 apic=auto"; cat "$d/tcg.log"; } >"$d/qemu.log"
    { printf '# command: make bench SMP=2\n# load average: 1.00 2.00 3.00 before, 1 1 1 after\n'
      cat "$d/ic.log"; } >"$d/head.log"
    cat >"$d/doc.md" <<'DOC'
<!-- benchreport grid bench=sweep figure=elapsed div=ops where=workload:mix rows=setting cols=cpus log=ic.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=sweep figure=elapsed div=ops where=workload:hackbench,setting:sheaves/8 log=tcg.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=sweep figure=elapsed div=ops where=workload:hackbench,setting:sheaves/8 log=qemu.log -->
<!-- end benchreport -->
<!-- benchreport grid bench=sweep figure=elapsed div=ops where=workload:hackbench,setting:sheaves/8 log=head.log -->
<!-- end benchreport -->
DOC
    "$py" "$root/tools/benchreport.py" --doc "$d/doc.md" >"$d/out" 2>&1 || { cat "$d/out"; return 1; }
    has "$d/doc.md" "| setting | 2 |" "| lock | 234.0 |" "| partial/30 | 219.2 |" \
        "| sheaves/8 | 257.0 |" "| sheaves | 467.9 |" 2>/dev/null || { grep -n '' "$d/doc.md"; return 1; }
    local want
    for want in '[`ic.log`](ic.log): kernel command line `bench=sweep bench_reps=1 sweep=lock,' \
        '[`tcg.log`](tcg.log): kernel command line `bench=sweep' \
        '[`head.log`](head.log): `make bench SMP=2`; TCG: **emulated**, the TSC is host time on a busy host; load average 1.00 2.00 3.00 before.*'; do
        grep -qF -- "$want" "$d/doc.md" || { echo "FAILED: no '$want' in:"; grep -n '' "$d/doc.md"; return 1; }
    done
    [ "$(grep -c 'ICOUNT: cycles are guest instructions' "$d/doc.md")" = 2 ] ||
        { echo "FAILED: want ic.log and qemu.log taken as ICOUNT, the others not"; grep -n '' "$d/doc.md"; return 1; }
    grep -q 'tcg.log.*ICOUNT' "$d/doc.md" && { echo "FAILED: tcg.log taken as ICOUNT"; return 1; }
    return 0
}

t ran ran
t from_qr from_qr
t truncated_line_reported truncated_line_reported
t csv_fastpath csv_fastpath
t csv_bulk_hackbench_debug csv_bulk_hackbench_debug
t csv_latency_hist csv_latency_hist
t csv_memory_scaling_remote csv_memory_scaling_remote
t csv_unknown_bench_and_meta csv_unknown_bench_and_meta
t md_machine_and_emulated md_machine_and_emulated
t md_ratios md_ratios
t md_baseline_from_meta md_baseline_from_meta
t md_source_tables md_source_tables
t plots plots
t partial_log partial_log
t compare_mode compare_mode
t linux_pair linux_pair
t pair_bad_usage pair_bad_usage
t compare_three compare_three
t rounds_fastest rounds_fastest
t rounds_bad_usage rounds_bad_usage
t icount_pair icount_pair
t no_figures_fails no_figures_fails
t bad_values_left_out bad_values_left_out
t no_plots_quiet no_plots_quiet
t check_good_and_cut_off check_good_and_cut_off
t check_damaged check_damaged
t check_unparsed_and_remote check_unparsed_and_remote
t check_sections check_sections
t doc_grid_on_samples doc_grid_on_samples
t doc_div_and_headerless doc_div_and_headerless
t doc_tables_match_logs doc_tables_match_logs
t doc_check_fails_on_changes doc_check_fails_on_changes

ktap_report
