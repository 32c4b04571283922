#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `make test` runs once build/test.iso and the host tests are built: the host tests, a
# boot matrix of the in-kernel KTAP suites, and boots with special command lines.
#
# Environment:
#   TEST_QUICK=1       host tests and the bios/tcg smp1 + smp4 boots only
#   TEST_FILTER=REGEX  run only the tests whose label matches (bash regex), e.g. 'uefi|crash'
#   TEST_ACCELS="tcg"  accelerators for the matrix (default: tcg, plus kvm when
#                      tools/qemu-run.sh --accel-probe says kvm)
# Needs from the Makefile: build/test.iso (default entry boots with test=all), executables
# build/host/test_* printing KTAP, and `make iso-cmdline CMDLINE="..." OUT=file.iso`.
# Logs go to build/test/. Last line: "N passed, N failed[, N skipped]"; exit 1 on any failure.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
make_cmd=${MAKE:-make}
logdir=build/test
test_iso=build/test.iso
mkdir -p "$logdir/iso"
rm -f "$logdir"/*.log

passed=0
failed=0
skipped=0
failures=()
t_begin=${EPOCHREALTIME/./}

trap 'echo "test.sh: interrupted after $passed passed, $failed failed" >&2; exit 130' INT TERM

# seconds_since START_US: prints the time since START_US (microseconds) as "12.3".
seconds_since() {
    local us=$((${EPOCHREALTIME/./} - $1))
    printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# want LABEL: is this test selected by TEST_FILTER?
want() {
    [ -z "${TEST_FILTER:-}" ] || [[ $1 =~ $TEST_FILTER ]]
}

pass() {
    passed=$((passed + 1))
}

# fail NAME MESSAGE: counts and prints one failed test.
fail() {
    failed=$((failed + 1))
    failures+=("$1: $2")
    echo "FAIL $1: $2"
}

# ktap LOG LABEL: parses the KTAP results in LOG, prints ktap.py's FAIL lines and adds its
# counts to ours. Returns 0 when nothing failed.
ktap_fail_count=0
ktap() {
    local out rc=0 last line
    out=$("$py" tools/ktap.py "$1" --label "$2") || rc=$?
    last=${out##*$'\n'}
    if ! [[ $last =~ ^ktap:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
        printf '%s\n' "$out"
        fail "$2: ktap.py" "could not parse $1 (ktap.py exit $rc)"
        ktap_fail_count=1
        return 1
    fi
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    skipped=$((skipped + BASH_REMATCH[3]))
    ktap_fail_count=${BASH_REMATCH[2]}
    ktap_summary="${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed, ${BASH_REMATCH[3]} skipped"
    if [ "$ktap_fail_count" != 0 ]; then
        printf '%s\n' "${out%"$last"}" | sed '/^$/d'
        while IFS= read -r line; do
            [[ $line == "FAIL "* ]] && failures+=("${line#FAIL }")
        done <<<"$out"
        return 1
    fi
    return 0
}

# boot LOG TIMEOUT VAR=VALUE...: boots with tools/qemu-run.sh, serial output and the
# script's own messages into LOG. Sets qrc (its exit code) and qtime (seconds).
boot() {
    local log=$1 tmo=$2 t0=${EPOCHREALTIME/./}
    shift 2
    env TIMEOUT="$tmo" "$@" tools/qemu-run.sh </dev/null >"$log" 2>&1
    qrc=$?
    qtime=$(seconds_since "$t0")
}

# why_rc LOG: a short explanation of a qemu-run exit code for FAIL lines.
why_rc() {
    local note
    note=$(grep -a '^qemu-run: ' "$1" | tail -n 1)
    note=${note#qemu-run: }
    case "$qrc" in
    0) echo "success" ;;
    1) echo "kernel reported test failure" ;;
    3) echo "kernel panic" ;;
    *) echo "${note:-qemu-run error}" ;;
    esac
}

# boot_json LOG: reads the kernel's {"event":"boot",...} line into bj (empty if none).
boot_json() {
    bj=$("$py" tools/ktap.py "$1" --boot-json 2>/dev/null) || bj=
}

# json_num KEY: prints the number KEY has in $bj, or nothing.
json_num() {
    if [[ $bj =~ \"$1\":(-?[0-9]+) ]]; then echo "${BASH_REMATCH[1]}"; fi
}

# kernel_grep LOG TEXT: does a line the kernel printed contain TEXT? Only what follows GRUB's
# last "Booting `ENTRY'" line counts (the entry's title repeats the command line), and lines
# from qemu-run and QEMU are skipped (they name the ISO and the settings).
kernel_grep() {
    local from
    from=$(grep -an 'Booting `' "$1" | tail -n 1)
    from=${from%%:*}
    # No grep -q at the end: it would exit at the first match, the writers upstream would get
    # SIGPIPE, and pipefail would turn a match into a failure on long logs.
    tail -n +$((${from:-0} + 1)) "$1" | grep -av '^qemu-run: \|^qemu-system-x86_64: ' |
        grep -aF -- "$2" > /dev/null
}

# ---------------------------------------------------------------------------------------
# (a) host tests: built executables build/host/test_* and scripts tests/host/test_*.sh
host_tests() {
    local exe name label log rc any=0 t0
    for exe in build/host/test_* tests/host/test_*.sh; do
        if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
        name=${exe##*/}
        name=${name%.sh}
        label="host[$name]"
        want "$label" || continue
        any=1
        log=$logdir/host-$name.log
        t0=${EPOCHREALTIME/./}
        rc=0
        timeout -k 5 300 "./$exe" </dev/null >"$log" 2>&1 || rc=$?
        if ktap "$log" "$label"; then
            if [ "$rc" != 0 ]; then
                fail "$label: exit code" "exited $rc although its KTAP results passed (log: $log)"
            else
                echo "ok   $label  $(seconds_since "$t0") s  ($ktap_summary)"
            fi
        fi
    done
    if [ "$any" = 0 ] && [ -z "${TEST_FILTER:-}" ]; then
        echo "note: no host tests found (build/host/test_*, tests/host/test_*.sh)"
    fi
}

# ---------------------------------------------------------------------------------------
# (b) boot matrix of the in-kernel suites (build/test.iso boots with test=all)
# matrix_boot FIRMWARE ACCEL SMP
matrix_boot() {
    local fw=$1 accel=$2 smp=$3 label log tmo=180 ok=1 v key
    label="boot[$fw,$accel,smp$smp]"
    want "$label" || return 0
    log=$logdir/boot-$fw-$accel-smp$smp.log
    # test=all takes about 7 s at SMP=4 on a quiet 2-core host and 35-70 s when other work
    # keeps it busy (load 12-17, measured 2026-12-01): the timeout only catches hangs.
    if [ "$fw" = uefi ] || [ "$smp" -gt 8 ]; then tmo=240; fi
    boot "$log" "$tmo" ISO="$test_iso" FIRMWARE="$fw" ACCEL="$accel" SMP="$smp"
    if [ "$qrc" = 0 ]; then
        pass
    else
        fail "$label: exit code" "qemu-run exited $qrc: $(why_rc "$log") (log: $log)"
        ok=0
    fi
    ktap "$log" "$label" || ok=0
    boot_json "$log"
    for key in cpus_online cpus_found; do
        v=$(json_num "$key")
        if [ "$v" = "$smp" ]; then
            pass
        else
            fail "$label: $key" "${v:-no boot JSON line}, want $smp (log: $log)"
            ok=0
        fi
    done
    [ "$ok" = 1 ] && echo "ok   $label  $qtime s  (KTAP $ktap_summary)"
}

# bench_json_check LOG: every JSON line the kernel printed parses; there is one meta line
# before the first figure, and every benchmark it names printed figures (except remote on
# one CPU, which says it needs two). Prints what is wrong, nothing if all is well.
bench_json_check() {
    "$py" - "$1" <<'PYEOF'
import json, sys
lines = open(sys.argv[1], errors="replace").read().splitlines()
meta, seen, bad = None, {}, []
for n, line in enumerate(lines, 1):
    if not line.startswith("{"):
        continue
    try:
        o = json.loads(line)
    except ValueError as e:
        bad.append("line %d is not JSON (%s)" % (n, e))
        continue
    b = o.get("bench")
    if b is None:
        continue
    if b == "meta":
        meta = o
    elif meta is None:
        bad.append("line %d: a figure before the meta line" % n)
    else:
        for k in ("figure", "value", "unit", "accel", "emulated", "cpus"):
            if k not in o:
                bad.append("line %d: no %s" % (n, k))
        seen[b] = seen.get(b, 0) + 1
if meta is None:
    bad.append("no meta line")
else:
    for b in meta["benches"].split(","):
        if not seen.get(b) and not (b == "remote" and meta["cpus"] == 1):
            bad.append("no figures from %s" % b)
print("; ".join(bad[:5]))
PYEOF
}

# ---------------------------------------------------------------------------------------
# (c) boots with their own command line; each is one test.
# extra LABEL CMDLINE WANT_RC [VAR=VALUE...] [-- CHECK...]
#   CMDLINE "" boots build/test.iso (test=all); otherwise `make iso-cmdline` builds an ISO.
#   CHECK: ktap (KTAP results present and passing), json:KEY=N (boot JSON
#   value), benchjson (bench_json_check), report (tools/benchreport.py reads the benchmark
#   figures of the log, no plots, every figure line parsed), or any other text: a line the
#   kernel printed contains it.
extra() {
    local label=$1 cmdline=$2 want_rc=$3 iso log envs=() why=() c k v tmo=60 kout kdetail=
    shift 3
    want "$label" || return 0
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    # A file name without characters make or xorriso could read specially (= , [ ]).
    local base=${label//[^A-Za-z0-9_.-]/-}
    base=${base//--/-}
    base=${base%-}
    log=$logdir/$base.log
    iso=$test_iso
    if [ -n "$cmdline" ]; then
        iso=$logdir/iso/$base.iso
        if ! "$make_cmd" -s iso-cmdline CMDLINE="$cmdline" OUT="$iso" >"$log" 2>&1 || [ ! -f "$iso" ]; then
            fail "$label" "could not build its ISO: make iso-cmdline CMDLINE=\"$cmdline\" OUT=$iso (log: $log)"
            sed 's/^/    /' "$log" | tail -n 5
            return
        fi
    fi
    for c in "${envs[@]}"; do
        case "$c" in TIMEOUT=*) tmo=${c#TIMEOUT=} ;; esac
    done
    boot "$log" "$tmo" ISO="$iso" SMP=2 "${envs[@]}"
    [ "$qrc" = "$want_rc" ] || why+=("qemu-run exited $qrc ($(why_rc "$log")), want $want_rc")
    bj=unread
    for c in "$@"; do
        case "$c" in
        ktap)
            if ! kout=$("$py" tools/ktap.py "$log" --label "$label"); then
                why+=("KTAP: ${kout##*$'\n'}")
                [[ $kout == *$'\n'* ]] && kdetail=${kout%$'\n'*}
            fi
            ;;
        benchjson)
            kout=$(bench_json_check "$log") || kout="bench_json_check failed to run"
            [ -n "$kout" ] && why+=("bench JSON: $kout")
            ;;
        report)
            if ! kout=$("$py" tools/benchreport.py "$log" --no-plots -o "$logdir/report-$base" 2>&1) ||
                [[ $kout == *"did not parse"* ]]; then
                why+=("benchreport.py: ${kout##*$'\n'}")
            fi
            ;;
        json:*)
            [ "$bj" = unread ] && boot_json "$log"
            k=${c#json:}
            v=$(json_num "${k%%=*}")
            if [ "$v" != "${k#*=}" ]; then
                why+=("${k%%=*} is ${v:-missing}, want ${k#*=}")
            fi
            ;;
        *) kernel_grep "$log" "$c" || why+=("no '$c' in the log") ;;
        esac
    done
    if [ ${#why[@]} = 0 ]; then
        pass
        echo "ok   $label  $qtime s"
    else
        local msg
        msg=$(printf '%s; ' "${why[@]}")
        fail "$label" "${msg%; } (log: $log)"
        [ -n "$kdetail" ] && printf '%s\n' "$kdetail" | sed 's/^/    /'
    fi
}

# ---------------------------------------------------------------------------------------
echo "test.sh: host tests"
host_tests

accels=${TEST_ACCELS:-}
if [ -z "$accels" ]; then
    accels=tcg
    if [ "${TEST_QUICK:-0}" != 1 ] && [ "$(tools/qemu-run.sh --accel-probe)" = kvm ]; then
        accels="tcg kvm"
    fi
fi

if [ ! -f "$test_iso" ]; then
    fail "boot" "$test_iso is missing (make test builds it)"
elif [ "${TEST_QUICK:-0}" = 1 ]; then
    echo "test.sh: boot matrix (quick: bios, tcg, smp 1 and 4)"
    matrix_boot bios tcg 1
    matrix_boot bios tcg 4
else
    echo "test.sh: boot matrix ($accels)"
    for accel in $accels; do
        for fw in bios uefi; do
            for smp in 1 2 4 8; do
                matrix_boot "$fw" "$accel" "$smp"
            done
        done
    done

    echo "test.sh: boot checks with their own command lines"
    extra "mem[128M,smp2]" "" 0 MEM=128M -- ktap
    extra "mem[4G,smp2]" "" 0 MEM=4G -- ktap
    extra "mem[16G,smp2,test=page_alloc]" "test=page_alloc" 0 MEM=16G SMP=2 TIMEOUT=180 -- ktap
    extra "smp[16,test=all]" "test=all" 0 SMP=16 TIMEOUT=180 -- ktap json:cpus_online=16
    extra "smp[64,test=all]" "test=all" 0 SMP=64 TIMEOUT=240 -- ktap json:cpus_online=64
    extra "smp[255,test=all]" "test=all" 0 SMP=255 TIMEOUT=400 -- ktap json:cpus_online=255
    extra "cmdline[cpus=2,smp4]" "test=all cpus=2" 0 SMP=4 -- ktap json:cpus_online=2 json:cpus_found=4
    extra "cmdline[ap_skip=2,smp4]" "test=smp ap_skip=2" 0 SMP=4 -- ktap json:cpus_online=3 json:cpus_found=4 "not starting the CPU with APIC id 2"
    extra "cmdline[bogus=1]" "bogus=1" 1 -- "unknown option" "valid options"
    extra "cmdline[cpus=abc]" "cpus=abc" 1 -- "cpus"
    extra "cmdline[cpus=0]" "cpus=0" 1 -- "expected a number 1..256"
    extra "cmdline[test=nosuch]" "test=nosuch" 1 -- "matches no suite" "suites in this kernel"
    extra "cmdline[bench=nosuch]" "bench=nosuch" 1 -- "no benchmark named"
    extra "bench[fastpath,bulk,held]" "bench=fastpath,bulk,held" 0 -- '"bench":"bulk"' '"figure":"alloc_free_pair"' "improved" '"figure":"pages_held_idle"' report
    # The benchmark suite with small counts: every benchmark, its JSON and its self-checks
    # (a failed check makes the kernel exit 1); with no test= or bench=, the default run.
    bench_small="bench_reps=3 hackbench_groups=2 hackbench_loops=4 remote_objects=2000 scaling_ops=2000 latency_samples=500"
    extra "bench[all,small,smp1]" "bench=all $bench_small" 0 SMP=1 -- benchjson "Time: " "needs at least 2 CPUs" "P, cpu partial" "== summary"
    extra "bench[default-run,small,smp4]" "$bench_small" 0 SMP=4 -- benchjson report "slablab: default run" '"schemes":"lock,partial,sheaves' "== summary"
    extra "bench[scheme=lock,sheaves,smp3]" "bench=hackbench,remote scheme=sheaves,lock $bench_small slabinfo=1" 0 SMP=3 -- benchjson '"schemes":"lock,sheaves"' "kmalloc-256          sheaves"
    extra "cmdline[scheme=nosuch]" "scheme=lock,nosuch" 1 -- "no scheme named 'nosuch'" "valid: all lock partial"
    extra "cmdline[scheme=lock,fastpath=cmpxchg]" "test=slab scheme=lock fastpath=cmpxchg slabinfo=1" 0 -- ktap "kmalloc-256          lock          cmpxchg"
    extra "cmdline[scheme=ipi,smp4]" "test=slab,slab_ipi scheme=ipi slabinfo=1" 0 SMP=4 -- ktap "kmalloc-64           ipi " "ipi_sent="
    extra "cmdline[scheme=ipi-batch,smp8]" "test=slab,slab_ipi scheme=ipi-batch slabinfo=1" 0 SMP=8 TIMEOUT=240 -- ktap "kmalloc-64           ipi-batch " "remote_drained="
    extra "cmdline[scheme=remote-atomic,smp2]" "test=slab,slab_ipi scheme=remote-atomic ipi_wait_us=0 slabinfo=1" 0 SMP=2 -- ktap "kmalloc-64           remote-atomic " "remote_free="
    extra "cmdline[scheme=sheaves,smp4]" "test=all scheme=sheaves sheaf_capacity=8 slabinfo=1" 0 SMP=4 TIMEOUT=180 -- ktap "kmalloc-256          sheaves" "sheaf_alloc="
    extra "slub_debug[kmalloc FZPU,partial,hardened,smp4]" "test=slub_debug,slab slub_debug=FZPU,kmalloc-* slub_debug_mode=partial freelist_hardened=1 freelist_random=1 init_on_alloc=1 init_on_free=1 slabinfo=1 seed=7" 0 SMP=4 -- ktap "debug=FZPU mode=partial" "freelist_hardened freelist_random init_on_alloc init_on_free" "BUG TestSlub_RZ_alloc: Right Redzone overwritten" "Allocated in"
    extra "slub_debug[every cache FZPU,locked]" "test=slub_debug,smp slub_debug=FZPU slabinfo=1" 0 -- ktap "kmalloc-64           lock" "debug=FZPU mode=locked"
    # Every suite under debug caches for every cache: cases about a scheme that debug caches
    # replace skip saying so, the others check what the debug mode does instead.
    extra "slub_debug[P,test=all,smp4]" "test=all slub_debug=P" 0 SMP=4 TIMEOUT=180 -- ktap "# SKIP debug caches replace scheme ipi"
    extra "slub_debug[FZPU,partial,test=all,smp4]" "test=all slub_debug=FZPU slub_debug_mode=partial" 0 SMP=4 TIMEOUT=180 -- ktap "# SKIP debug caches replace scheme ipi"
    extra "cmdline[slub_debug=FX]" "slub_debug=FX" 1 -- "'X' is not a debug letter"
    extra "cmdline[slub_debug_mode=fast]" "slub_debug_mode=fast" 1 -- "bad value 'fast' for slub_debug_mode="
    extra "crash[pf]" "crash=pf" 3 -- "#PF" "CR2" "RIP" "backtrace" "crash_"
    extra "crash[df]" "crash=df" 3 -- "#DF"
    extra "crash[pf-ap,smp2]" "crash=pf-ap" 3 SMP=2 -- "cpu 1"
    extra "crash[gp]" "crash=gp" 3 -- "#GP" "crash_general_protection"
    extra "crash[ud]" "crash=ud" 3 -- "#UD" "crash_invalid_opcode"
    extra "crash[de]" "crash=de" 3 -- "#DE" "crash_divide_error"
    extra "crash[lockrec]" "crash=lockrec" 3 -- "recursive acquire of spinlock" "spin_lock"
    extra "crash[panic,uefi]" "crash=panic" 3 FIRMWARE=uefi -- "KERNEL PANIC on cpu 0" "crash=panic"
    # Old CPU models: no CMPXCHG16B (slab freelists under slab_lock, fastpath=cmpxchg
    # refused), and a CPU without a feature the kernel needs.
    extra "cpu[qemu64,-cx16,test=all]" "" 0 QEMU_EXTRA="-cpu qemu64,-cx16" -- ktap '"cx16":false' '"slab_freelist":"slab_lock"'
    extra "cpu[Opteron_G1,smp4,test=slab,slab_ipi]" "test=slab,slab_ipi" 0 SMP=4 QEMU_EXTRA="-cpu Opteron_G1" -- ktap '"cx16":false' '"slab_freelist":"slab_lock"'
    extra "cpu[qemu64,-cx16,fastpath=cmpxchg]" "test=slab fastpath=cmpxchg" 1 QEMU_EXTRA="-cpu qemu64,-cx16" -- "fastpath=cmpxchg: this CPU has no CMPXCHG16B"
    extra "cpu[qemu64,-apic]" "test=smp" 1 SMP=1 QEMU_EXTRA="-cpu qemu64,-apic" -- "this CPU has no APIC"
fi

if [ $((passed + failed + skipped)) = 0 ]; then
    fail "test.sh" "no tests ran${TEST_FILTER:+ (TEST_FILTER=\"$TEST_FILTER\" matched nothing)}"
fi
if [ ${#failures[@]} -gt 0 ]; then
    echo
    echo "failures:"
    printf '  FAIL %s\n' "${failures[@]}"
fi
echo "total time: $(seconds_since "$t_begin") s"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
