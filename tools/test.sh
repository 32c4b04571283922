#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `make test` runs once build/test.iso and the host tests are built: the host tests, a
# boot matrix of the in-kernel KTAP suites, and boots with special command lines.
#
# Environment:
#   TEST_QUICK=1       host tests and the bios/tcg smp1 + smp4 boots only
#   TEST_FILTER=REGEX  run only the tests whose label matches (bash regex), e.g. 'uefi|crash'
#   TEST_HOST_JOBS=N   host tests run at once (default: the number of CPUs)
#   TEST_ACCELS="tcg"  accelerators for the matrix (default: tcg, plus kvm when
#                      tools/qemu-run.sh --accel-probe says kvm)
#   TEST_DRY_RUN=1     boot nothing: print each selected boot's QEMU command (qemu-run.sh
#                      --dry-run; the ISOs with their own command line are still built) and
#                      each host test's path; logs in build/test/dry-run/
# The run knobs of make run and qemu-run.sh (SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT MACHINE APIC TOPOLOGY NODES
# QEMU_EXTRA LOG ISO ELF ALLOW_SLOW_KVM CMDLINE SCREEN SCREENDUMP, and mkiso.sh's
# GFXPAYLOAD) are not inherited: each boot sets its own.
# Any found in the environment are named in a note and dropped.
# Needs from the Makefile: build/test.iso (default entry boots with test=all), executables
# build/host/test_* printing KTAP, and `make iso-cmdline CMDLINE="..." OUT=file.iso`.
# Logs go to build/test/. Last line: "N passed, N failed[, N skipped]"; exit 1 on any failure.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2

# Inherited run knobs (the Makefile exports some; make test leaves its defaults out): the
# matrix is the same whatever the caller's environment says, and says so.
ignored=()
for knob in SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT MACHINE APIC TOPOLOGY NODES QEMU_EXTRA LOG ISO ELF ALLOW_SLOW_KVM CMDLINE \
    SCREEN SCREENDUMP GFXPAYLOAD; do
    if [ -n "${!knob+set}" ]; then
        ignored+=("$knob=${!knob}")
        unset "$knob"
    fi
done
if [ ${#ignored[@]} -gt 0 ]; then
    echo "test.sh: note: ignoring ${ignored[*]}: make test boots its own matrix, and every" \
        "boot sets these itself (TEST_FILTER, TEST_QUICK and TEST_ACCELS choose what runs;" \
        "make run boots one configuration)"
fi

py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
make_cmd=${MAKE:-make}
dry_run=${TEST_DRY_RUN:-0}
logdir=build/test
[ "$dry_run" = 1 ] && logdir=build/test/dry-run
test_iso=build/test.iso
mkdir -p "$logdir/iso"
rm -f "$logdir"/*.log

# Boot timeouts in seconds. They only bound a hung kernel: a passing boot never waits for
# them, so they are set for a busy host. Measured on the 2-core development machine with two
# busy loops running beside other developers' QEMU boots (load average 9 to 16): test=all
# at 4 or 8 CPUs 49-78 s (BIOS and UEFI; over 60 s in a second run), 16 and 64 CPUs 52 and
# 82 s, 255 CPUs 234 s, 16 GiB of RAM 83 s, the FZPU/partial slub_debug boot 153 s, a bad
# option 17 s; quiet, they take a few seconds to 20 s. Every timeout is at least 3x that.
tmo_boot=300
passed=0
failed=0
skipped=0
failures=()
t_begin=${EPOCHREALTIME/./}

trap 'echo "test.sh: interrupted after $passed passed, $failed failed" >&2; exit 130' INT TERM

# busy_start / busy_stop: two busy loops of our own beside QEMU (the busy-host test). The
# EXIT trap stops them whatever way the script ends (an interrupt exits through it too, once
# the boot under way is over); should this script be killed outright, each loop ends by
# itself when the script is gone ($$ is the script's pid in a subshell too) or after 10 min.
busy_pids=()
busy_start() {
    local i
    for i in 1 2; do
        (SECONDS=0; while [ "$SECONDS" -lt 600 ] && kill -0 $$ 2>/dev/null; do :; done) &
        busy_pids+=($!)
    done
}
busy_stop() {
    [ ${#busy_pids[@]} -gt 0 ] || return 0
    kill "${busy_pids[@]}" 2>/dev/null
    wait "${busy_pids[@]}" 2>/dev/null
    busy_pids=()
}
trap busy_stop EXIT

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

# ktap LOG LABEL KIND: parses the KTAP results in LOG, prints ktap.py's FAIL lines and adds
# its counts to ours. KIND: --kernel (a boot's serial log: it must also end with a passing
# exit event and no panic) or --host (a host test's output). Returns 0 when nothing failed.
ktap_fail_count=0
ktap() {
    local out rc=0 last line
    out=$("$py" tools/ktap.py "$1" --label "$2" "$3") || rc=$?
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

# boot LABEL LOG TIMEOUT VAR=VALUE...: boots with tools/qemu-run.sh, serial output and the
# script's own messages into LOG. Every knob qemu-run.sh reads is set: its default unless
# a VAR=VALUE says otherwise. Sets qrc (its exit code) and qtime (seconds). With
# TEST_DRY_RUN=1 it prints LABEL and the QEMU command instead and returns 1.
boot() {
    local label=$1 log=$2 tmo=$3 t0=${EPOCHREALTIME/./}
    shift 3
    local knobs=(ISO="$test_iso" SMP=4 MEM=256M ACCEL=auto ICOUNT=0 FIRMWARE=bios MACHINE= APIC=auto TOPOLOGY= NODES=1
        QEMU_EXTRA= LOG= ELF=build/slablab.elf ALLOW_SLOW_KVM=0 TIMEOUT="$tmo" SCREEN=0 SCREENDUMP=)
    if [ "$dry_run" = 1 ]; then
        env "${knobs[@]}" "$@" tools/qemu-run.sh --dry-run </dev/null >"$log" 2>&1
        echo "dry-run $label: $(tail -n 1 "$log")"
        return 1
    fi
    env "${knobs[@]}" "$@" tools/qemu-run.sh </dev/null >"$log" 2>&1
    qrc=$?
    qtime=$(seconds_since "$t0")
    return 0
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
    5) echo "the guest powered the machine off" ;;
    6) echo "the guest reset the machine" ;;
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

# json_val KEY: prints what KEY has in $bj: a number, a string's text, true or false; or nothing.
json_val() {
    if [[ $bj =~ \"$1\":(\"([^\"]*)\"|(-?[0-9]+)|(true|false)) ]]; then
        echo "${BASH_REMATCH[2]}${BASH_REMATCH[3]}${BASH_REMATCH[4]}"
    fi
}

# kernel_grep LOG TEXT [-E]: does a line the kernel printed contain TEXT (with -E: match the
# extended regex TEXT)? Only what follows GRUB's last "Booting `ENTRY'" line counts (the
# entry's title repeats the command line), and lines from qemu-run and QEMU are skipped
# (they name the ISO and the settings).
kernel_grep() {
    local from how=${3:--F}
    from=$(grep -an 'Booting `' "$1" | tail -n 1)
    from=${from%%:*}
    # No grep -q at the end: it would exit at the first match, the writers upstream would get
    # SIGPIPE, and pipefail would turn a match into a failure on long logs.
    tail -n +$((${from:-0} + 1)) "$1" | grep -av '^qemu-run: \|^qemu-system-x86_64: ' |
        grep -a "$how" -- "$2" > /dev/null
}

# ---------------------------------------------------------------------------------------
# (a) host tests: built executables build/host/test_* and scripts tests/host/test_*.sh.
# They are independent processes and several of them wait more than they compute (threads
# that hand objects to each other), so they run side by side, as many at once as there are
# CPUs (TEST_HOST_JOBS=N to choose); each one's results are printed in order when all are done.
host_tests() {
    local exe name label log any=0 jobs running=0 i
    local -a labels=() logs=() exes=()
    jobs=${TEST_HOST_JOBS:-$(nproc 2>/dev/null || echo 1)}
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
    for exe in build/host/test_* tests/host/test_*.sh; do
        if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then continue; fi
        name=${exe##*/}
        name=${name%.sh}
        label="host[$name]"
        want "$label" || continue
        any=1
        log=$logdir/host-$name.log
        if [ "$dry_run" = 1 ]; then
            echo "dry-run $label: ./$exe"
            continue
        fi
        labels+=("$label") logs+=("$log") exes+=("$exe")
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
        # The spin model check (test_ipi_model) took 68 s on the busy host: 600 s bounds a hang.
        (
            t0=${EPOCHREALTIME/./}
            rc=0
            timeout -k 5 600 "./$exe" </dev/null >"$log" 2>&1 || rc=$?
            echo "$rc $(seconds_since "$t0")" >"$log.rc"
        ) &
        running=$((running + 1))
    done
    wait
    for i in "${!labels[@]}"; do
        local rc=1 secs=?
        [ -f "${logs[$i]}.rc" ] && read -r rc secs <"${logs[$i]}.rc"
        rm -f "${logs[$i]}.rc"
        if ktap "${logs[$i]}" "${labels[$i]}" --host; then
            if [ "$rc" != 0 ]; then
                fail "${labels[$i]}: exit code" "exited $rc although its KTAP results passed (log: ${logs[$i]})"
            else
                echo "ok   ${labels[$i]}  $secs s  ($ktap_summary)"
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
    local fw=$1 accel=$2 smp=$3 label log tmo=$tmo_boot ok=1 v key
    label="boot[$fw,$accel,smp$smp]"
    want "$label" || return 0
    log=$logdir/boot-$fw-$accel-smp$smp.log
    boot "$label" "$log" "$tmo" FIRMWARE="$fw" ACCEL="$accel" SMP="$smp" || return 0
    if [ "$qrc" = 0 ]; then
        pass
    else
        fail "$label: exit code" "qemu-run exited $qrc after $qtime s: $(why_rc "$log") (log: $log)"
        ok=0
    fi
    ktap "$log" "$label" --kernel || ok=0
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

# ---------------------------------------------------------------------------------------
# (c) boots with their own command line; each is one test.
# extra LABEL CMDLINE WANT_RC [VAR=VALUE...] [-- CHECK...]
#   CMDLINE "" boots build/test.iso (test=all); otherwise `make iso-cmdline` builds an ISO.
#   CHECK: ktap (KTAP results present and passing), json:KEY=V (boot JSON value: a number, a
#   string's text, true or false), benchjson (tools/benchreport.py --check: every JSON line
#   parses, one meta line before the first figure, every figure complete, every benchmark the
#   meta line names printed figures), report (tools/benchreport.py reads the benchmark figures
#   of the log, no plots, no line left out as unparsed or bad), re:REGEX (a line the kernel
#   printed matches the extended regex), no:TEXT (no line the kernel printed contains TEXT),
#   qr (zbarimg reads the QR code off the screendump and tools/benchreport.py --from-qr
#   --against LOG: its figures must be the log's summary), results (tools/font.py results:
#   the screendump is the results page of the log's run), screen (the boot takes a screendump once the kernel halts, exit=halt, and tools/font.py
#   must read back from it, with the kernel's font, the serial log's last lines), or any
#   other text: a line the kernel printed contains it. GFXPAYLOAD=MODES among the
#   VAR=VALUEs goes to tools/mkiso.sh (GRUB's screen mode), not to the boot.
extra() {
    local label=$1 cmdline=$2 want_rc=$3 iso log envs=() why=() c k v tmo=$tmo_boot kout kdetail=
    local iso_envs=() shot=
    shift 3
    want "$label" || return 0
    local module=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        # TRACE=FILE: the ISO's entry loads FILE as a multiboot2 module (bench=replay);
        # GFXPAYLOAD=: the screen mode GRUB sets (tools/mkiso.sh)
        case "$1" in
        TRACE=*) module=${1#TRACE=} ;;
        GFXPAYLOAD=*) iso_envs+=("$1") ;;
        *) envs+=("$1") ;;
        esac
        shift
    done
    [ $# -gt 0 ] && shift
    # A file name without characters make or xorriso could read specially (= , [ ]).
    local base=${label//[^A-Za-z0-9_.-]/-}
    base=${base//--/-}
    base=${base%-}
    log=$logdir/$base.log
    iso=$test_iso
    if [ -n "$cmdline" ] || [ -n "$module" ]; then
        iso=$logdir/iso/$base.iso
        if ! env "${iso_envs[@]}" "$make_cmd" -s iso-cmdline CMDLINE="${cmdline:-test=all}" OUT="$iso" ${module:+MODULE="$module"} >"$log" 2>&1 || [ ! -f "$iso" ]; then
            fail "$label" "could not build its ISO: make iso-cmdline CMDLINE=\"$cmdline\" OUT=$iso${module:+ MODULE=$module} (log: $log)"
            sed 's/^/    /' "$log" | tail -n 5
            return
        fi
    fi
    for c in "${envs[@]}"; do
        case "$c" in TIMEOUT=*) tmo=${c#TIMEOUT=} ;; esac
    done
    for c in "$@"; do
        if [ "$c" = screen ] || [ "$c" = qr ] || [ "$c" = results ]; then
            [ -n "$shot" ] && continue
            shot=$logdir/$base.ppm
            rm -f "$shot"
            envs+=(SCREENDUMP="$shot")
        fi
    done
    boot "$label" "$log" "$tmo" ISO="$iso" SMP=2 "${envs[@]}" || return 0
    [ "$qrc" = "$want_rc" ] || why+=("qemu-run exited $qrc ($(why_rc "$log")), want $want_rc")
    bj=unread
    for c in "$@"; do
        case "$c" in
        ktap)
            if ! kout=$("$py" tools/ktap.py "$log" --label "$label" --kernel); then
                why+=("KTAP: ${kout##*$'\n'}")
                [[ $kout == *$'\n'* ]] && kdetail=${kout%$'\n'*}
            fi
            ;;
        benchjson)
            # The first problems a line each, then "benchreport: LOG: N problems" (the log
            # is named at the end of the message).
            if ! kout=$("$py" tools/benchreport.py --check "$log" 2>&1); then
                kout=${kout//"benchreport: $log: "/}
                why+=("bench JSON: ${kout//$'\n'/; }")
            fi
            ;;
        report)
            if ! kout=$("$py" tools/benchreport.py "$log" --no-plots -o "$logdir/report-$base" 2>&1) ||
                [[ $kout == *", left out: "* ]]; then
                why+=("benchreport.py: ${kout##*$'\n'}")
            fi
            ;;
        json:*)
            [ "$bj" = unread ] && boot_json "$log"
            k=${c#json:}
            v=$(json_val "${k%%=*}")
            if [ "$v" != "${k#*=}" ]; then
                why+=("${k%%=*} is ${v:-missing}, want ${k#*=}")
            fi
            ;;
        re:*) kernel_grep "$log" "${c#re:}" -E || why+=("no line matching '${c#re:}' in the log") ;;
        no:*) ! kernel_grep "$log" "${c#no:}" || why+=("a line with '${c#no:}' in the log") ;;
        qr)
            if ! zbarimg -q --raw "$shot" >"$logdir/$base.qr" 2>/dev/null; then
                why+=("zbarimg found no QR code in $shot")
            elif ! kout=$("$py" tools/benchreport.py --from-qr "$logdir/$base.qr" --against "$log" 2>&1); then
                why+=("QR code: ${kout##*$'\n'}")
            fi
            ;;
        screen)
            if ! kout=$("$py" tools/font.py compare build/gen/font.psf "$shot" "$log" 2>&1); then
                why+=("screen: ${kout//$'\n'/; }")
            fi
            ;;
        results)
            if ! kout=$("$py" tools/font.py results build/gen/font.psf "$shot" "$log" 2>&1); then
                why+=("results page: ${kout//$'\n'/; }")
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
        fail "$label" "${msg%; } (after $qtime s; log: $log)"
        [ -n "$kdetail" ] && printf '%s\n' "$kdetail" | sed 's/^/    /'
    fi
}

# scheme_boots: one boot per scheme of the registry, as build/host/test_slab --schemes lists
# it (the same mm/ as the kernel): test=slab,slab_ipi with it as the boot caches' scheme;
# slabinfo shows it on kmalloc-64 and, for a scheme with counters of its own, the first of
# them. Owner schemes boot on 4, 8 and 2 CPUs in turn (the one on 2 with ipi_wait_us=0),
# the others on 4.
scheme_boots() {
    local list name flags counters smp turn=0 opt checks
    if ! list=$(build/host/test_slab --schemes 2>&1) || [ -z "$list" ]; then
        fail "scheme[...]" "build/host/test_slab --schemes could not list the schemes: ${list:-no output}"
        return
    fi
    while read -r name flags counters; do
        smp=4
        opt=
        if [[ ,$flags, == *,owner,* ]]; then
            smp=$(( (turn % 3 == 0) ? 4 : (turn % 3 == 1) ? 8 : 2 ))
            [ "$smp" = 2 ] && opt=" ipi_wait_us=0"
            turn=$((turn + 1))
        fi
        checks=(ktap "$(printf '%-20s %s ' kmalloc-64 "$name")")
        [ "$counters" != - ] && checks+=("${counters%%,*}=")
        extra "scheme[$name,smp$smp]" "test=slab,slab_ipi scheme=$name$opt slabinfo=1" 0 SMP=$smp -- "${checks[@]}"
    done <<<"$list"
}

# scheme_copy: a new scheme is one file. A copy of this tree (no build/, no .git) gets
# mm/scheme_lock.c copied to mm/scheme_lockcopy.c with only its registered name changed,
# builds with no other edit, and one boot shows the new scheme in slabinfo (as the boot
# caches' scheme), in test=slab (its variants) and in bench=fastpath (its figures); then the
# copy keeps the name lock, and the boot stops at the duplicate with a panic naming it. The
# copied tree is removed afterwards.
scheme_copy() {
    local label="scheme-copy[lock,lockcopy]" dir=$PWD/$logdir/scheme-copy
    local iso=$PWD/$logdir/iso/scheme-copy.iso log=$logdir/scheme-copy-build.log changed
    want "$label" || return 0
    rm -rf "$dir"
    mkdir -p "$dir" "$logdir/iso"
    if ! tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$dir" -xf -; then
        fail "$label" "could not copy the tree to $dir"
        return
    fi
    sed 's/^\(\t\.name = \)"lock",$/\1"lockcopy",/' "$root/mm/scheme_lock.c" >"$dir/mm/scheme_lockcopy.c"
    changed=$(diff "$root/mm/scheme_lock.c" "$dir/mm/scheme_lockcopy.c" | grep -c '^[<>]')
    if [ "$changed" != 2 ]; then
        fail "$label" "the copy of mm/scheme_lock.c differs in $changed lines, want its .name line only"
        rm -rf "$dir"
        return
    fi
    if [ "$dry_run" != 1 ] &&
        ! "$make_cmd" -s -C "$dir" iso-cmdline CMDLINE="test=slab bench=fastpath bench_reps=3 scheme=lockcopy,lock slabinfo=1" OUT="$iso" >"$log" 2>&1; then
        fail "$label" "the tree with the copied scheme does not build (log: $log)"
        sed 's/^/    /' "$log" | tail -n 5
        rm -rf "$dir"
        return
    fi
    extra "$label" "" 0 ISO="$iso" ELF="$dir/build/slablab.elf" -- ktap \
        "$(printf '%-20s %s ' kmalloc-64 lockcopy)" re:'variants: .*lockcopy/irq lockcopy/cmpxchg' \
        '"scheme":"lockcopy","fastpath":"irq"' '"schemes":"lock,lockcopy"'
    # The same copy with the name left alone: two schemes called lock stop the boot, saying so.
    label="scheme-copy[lock,lock]"
    if want "$label"; then
        cp "$root/mm/scheme_lock.c" "$dir/mm/scheme_lockcopy.c"
        if [ "$dry_run" != 1 ] &&
            ! "$make_cmd" -s -C "$dir" iso-cmdline CMDLINE="test=slab" OUT="$iso" >"$log" 2>&1; then
            fail "$label" "the tree with the copied scheme does not build (log: $log)"
        else
            extra "$label" "" 3 ISO="$iso" ELF="$dir/build/slablab.elf" -- "slab: two schemes are called lock"
        fi
    fi
    rm -rf "$dir"
}

# lab_tests: the course labs (docs/labs/, tools/lab.py). make test: lab[3,handout], the
# handout of lab 3 builds, boots and scores 0 on lab 3's grader, every check failing on the
# lab's panic, and lab[grade,full,lab3], this tree scores full marks on lab 3 (host[test_lab]
# tests the tool itself). make test-labs (TEST_LABS=all): lab[N,handout] for every lab and
# lab[grade,full], every lab's every check. With
# TEST_LABS=all (make test-labs) also lab[N,earlier-labs]: the handout of lab N scores full
# marks on every lab before N; and lab[N,solution-back]: the handout with the files that
# hold lab N's solutions copied back in scores full marks on lab N. A tree without solution
# markers (a handout) has nothing to test here and says so.
lab_tests() {
    local labs n pts title dir out rc markers files f label only earlier
    if ! markers=$("$py" tools/lab.py markers 2>&1); then
        fail "lab[markers]" "$markers"
        return
    fi
    if [[ $markers == *"markers: 0 regions"* ]]; then
        echo "note: no solution markers in this tree (a lab handout?): no lab tests"
        return
    fi
    labs=$("$py" tools/lab.py labs)
    while read -r n pts title; do
        # make test keeps to lab 3 (the slab fastpath; about 30 s): every lab is make test-labs'.
        [ "${TEST_LABS:-}" = all ] || [ "$n" = 3 ] || continue
        label="lab[$n,handout]"
        dir=$PWD/$logdir/lab$n-handout
        if want "$label" || { [ "${TEST_LABS:-}" = all ] && { want "lab[$n,solution-back]" || want "lab[$n,earlier-labs]"; }; }; then
            rm -rf "$dir"
            if ! out=$("$py" tools/lab.py handout "$n" "$dir" 2>&1); then
                fail "$label" "make handout LAB=$n failed: $out"
                continue
            fi
        fi
        if want "$label"; then
            if [ "$dry_run" = 1 ]; then
                echo "dry-run $label: tools/lab.py grade --lab $n --tree $dir"
            else
                rc=0
                out=$("$py" tools/lab.py grade --lab "$n" --tree "$dir" --logdir "$logdir/lab$n-handout-grade" 2>&1) || rc=$?
                printf '%s\n' "$out" >"$logdir/lab$n-handout.log"
                if [ "$rc" != 1 ] || [[ $out != *"score: 0/$pts"* ]]; then
                    fail "$label" "grade exited $rc, want 1 with score 0/$pts: ${out##*$'\n'} (log: $logdir/lab$n-handout.log)"
                elif grep -F "  FAIL " <<<"$out" | grep -vqF "LAB$n: "; then
                    fail "$label" "a check failed for another reason than lab $n's stubs (log: $logdir/lab$n-handout.log)"
                elif grep -qF "  ok   " <<<"$out"; then
                    fail "$label" "a check passed on the handout (log: $logdir/lab$n-handout.log)"
                else
                    pass
                    echo "ok   $label  (score 0/$pts, every check on 'LAB$n: ... not implemented')"
                fi
            fi
        fi
        # The handout passes the labs before its own (their solutions are in it).
        label="lab[$n,earlier-labs]"
        earlier=$(awk -v n="$n" '$1 < n { print $1 }' <<<"$labs")
        if [ "${TEST_LABS:-}" = all ] && [ -n "$earlier" ] && want "$label"; then
            if [ "$dry_run" = 1 ]; then
                echo "dry-run $label: tools/lab.py grade --lab M --tree $dir for M in" $earlier
            else
                local m bad=
                for m in $earlier; do
                    rc=0
                    out=$("$py" tools/lab.py grade --lab "$m" --tree "$dir" --logdir "$logdir/lab$n-earlier-grade" 2>&1) || rc=$?
                    printf '%s\n' "$out" >>"$logdir/lab$n-earlier-labs.log"
                    [ "$rc" = 0 ] || bad+=" lab $m: ${out##*$'\n'};"
                done
                if [ -z "$bad" ]; then
                    pass
                    echo "ok   $label  (labs" $earlier "at full marks on lab $n's handout)"
                else
                    fail "$label" "on lab $n's handout:$bad (log: $logdir/lab$n-earlier-labs.log)"
                fi
            fi
        fi
        label="lab[$n,solution-back]"
        if [ "${TEST_LABS:-}" = all ] && want "$label"; then
            files=$(sed -n "s/^\([^:]*\):[0-9-]* LAB$n\( decl\| file\)\{0,1\}\$/\1/p" <<<"$markers" | sort -u)
            for f in $files; do cp "$root/$f" "$dir/$f"; done
            if [ "$dry_run" = 1 ]; then
                echo "dry-run $label: tools/lab.py grade --lab $n --tree $dir"
            else
                rc=0
                out=$("$py" tools/lab.py grade --lab "$n" --tree "$dir" --logdir "$logdir/lab$n-back-grade" 2>&1) || rc=$?
                printf '%s\n' "$out" >"$logdir/lab$n-solution-back.log"
                if [ "$rc" = 0 ] && [[ $out == *"score: $pts/$pts"* ]]; then
                    pass
                    echo "ok   $label  (score $pts/$pts with $(echo $files) copied back)"
                else
                    fail "$label" "grade exited $rc: ${out##*$'\n'} (log: $logdir/lab$n-solution-back.log)"
                    grep -F "  FAIL " <<<"$out" | sed 's/^/    /'
                fi
            fi
        fi
        [ "${TEST_LABS:-}" = all ] || rm -rf "$dir"
    done <<<"$labs"
    # make test grades the checks of short boots (everything but the 4-CPU suites, which
    # the scheme[lock|partial,...] boots above run too); make test-labs grades them all.
    label="lab[grade,full]" only=()
    if [ "${TEST_LABS:-}" != all ]; then
        label="lab[grade,full,lab3]"
        only=(--lab 3)
    fi
    want "$label" || return 0
    if [ "$dry_run" = 1 ]; then
        echo "dry-run $label: tools/lab.py grade ${only[*]}"
        return
    fi
    rc=0
    out=$("$py" tools/lab.py grade "${only[@]}" --logdir "$logdir/lab-full-grade" 2>&1) || rc=$?
    printf '%s\n' "$out" >"$logdir/lab-full.log"
    pts=$(sed -n 's/^score: \([0-9]*\)\/\1\b.*/\1/p' <<<"$out")
    if [ "$rc" = 0 ] && [ -n "$pts" ] && [ "$pts" -gt 0 ]; then
        pass
        echo "ok   $label  (score $pts/$pts)"
    else
        fail "$label" "grade exited $rc: ${out##*$'\n'} (log: $logdir/lab-full.log)"
        grep -F "  FAIL " <<<"$out" | sed 's/^/    /'
    fi
}

# x2apic_boots: what QEMU 7.2 cannot show, on a QEMU whose TCG has x2APIC (tools/qemu10.sh:
# the installed one if 8 or later, else QEMU 10 from Debian 12's backports, fetched by make
# deps beside it): x2APIC mode on q35, x2apic=off (xAPIC on a CPU that has x2APIC), sparse
# APIC ids (two sockets of three cores of two threads: ids with gaps), and more than 255
# CPUs (x2APIC ids past 255 through an intel-iommu in EIM mode). Without such a QEMU they
# are skipped with one line saying why. 1024 CPUs take minutes: make test-big.
x2apic_boots() {
    local q why
    if ! q=$(tools/qemu10.sh 2>"$logdir/qemu10.log"); then
        why=$(cat "$logdir/qemu10.log")
        echo "skip x2apic[...]: ${why#qemu10.sh: }"
        return 0
    fi
    extra "x2apic[q35,smp1]" "test=smp,ipi,spinlock" 0 QEMU="$q" SMP=1 MACHINE=q35 APIC=x2apic -- ktap json:x2apic=true json:cpus_online=1
    extra "x2apic[uefi,q35,smp8]" "test=smp,ipi,spinlock" 0 QEMU="$q" SMP=8 MACHINE=q35 APIC=x2apic FIRMWARE=uefi -- ktap json:x2apic=true json:cpus_online=8 json:firmware=uefi
    extra "x2apic[q35,smp4]" "test=smp,ipi,spinlock" 0 QEMU="$q" SMP=4 MACHINE=q35 APIC=x2apic -- ktap json:x2apic=true json:cpus_online=4 "CPUs online (x2 APIC)"
    extra "x2apic[x2apic=off,q35,smp4]" "test=smp,ipi x2apic=off" 0 QEMU="$q" SMP=4 MACHINE=q35 APIC=x2apic -- ktap json:x2apic=false json:cpus_online=4 "x2apic=off: xAPIC mode although the CPU has x2APIC"
    extra "x2apic[sparse ids,sockets=2,cores=3,threads=2]" "test=smp,ipi" 0 QEMU="$q" SMP=12 TOPOLOGY=sockets=2,cores=3,threads=2 MACHINE=q35 APIC=x2apic -- ktap json:x2apic=true json:cpus_online=12
    extra "x2apic[smp300,test=smp]" "test=smp ap_timeout_ms=60000" 0 QEMU="$q" SMP=300 MEM=512M TIMEOUT=600 -- ktap json:x2apic=true json:cpus_online=300 json:cpus_found=300
    # make test-big (TEST_BIG=1): the CPU-bound suites and the slab suite at 256, 512 and 1024
    # CPUs; minutes each.
    if [ "${TEST_BIG:-0}" = 1 ]; then
        extra "big[smp256,test=smp,ipi,spinlock,slab]" "test=smp,ipi,spinlock,slab ap_timeout_ms=60000" 0 QEMU="$q" SMP=256 MEM=512M TIMEOUT=1200 -- ktap json:x2apic=true json:cpus_online=256
        extra "big[smp512,test=smp,ipi,spinlock,slab]" "test=smp,ipi,spinlock,slab ap_timeout_ms=60000" 0 QEMU="$q" SMP=512 MEM=1G TIMEOUT=1800 -- ktap json:x2apic=true json:cpus_online=512
        extra "big[smp1024,test=smp,ipi,spinlock,slab]" "test=smp,ipi,spinlock,slab ap_timeout_ms=60000" 0 QEMU="$q" SMP=1024 MEM=2G TIMEOUT=2400 -- ktap json:x2apic=true json:cpus_online=1024
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
    # Every CPU count under SeaBIOS; OVMF at 1 and 4 (what differs under UEFI, the memory
    # map, the tables and the trampoline's place, does not depend on the CPU count past one
    # AP; screen[uefi,...] and crash[...,uefi] boot it too).
    for accel in $accels; do
        for smp in 1 2 4 8; do
            matrix_boot bios "$accel" "$smp"
        done
        for smp in 1 4; do
            matrix_boot uefi "$accel" "$smp"
        done
    done

    echo "test.sh: boot checks with their own command lines"
    extra "mem[128M,smp2]" "" 0 MEM=128M -- ktap
    extra "mem[4G,smp2]" "" 0 MEM=4G -- ktap
    extra "mem[16G,smp2,test=page_alloc]" "test=page_alloc" 0 MEM=16G SMP=2 -- ktap
    # NUMA (NODES=2: qemu-run.sh's SRAT and SLIT, CPUs 0-1 and 2-3, 64 MiB each): the numa
    # suite checks each CPU's and page's node, node-local slabs on every scheme, a remote
    # free on the slab's node, the fallback of an empty node; the matrix boots run it
    # without an SRAT (one node). numa=off folds the two nodes into one.
    extra "numa[2 nodes,smp4,test=numa,slab,page_alloc,page_pcp]" "test=numa,slab,page_alloc,page_pcp slabinfo=1" 0 SMP=4 MEM=128M NODES=2 -- ktap json:numa_nodes=2 \
        "numa: node 1 (proximity domain 1): 64 MiB, distances 20 10" 're:node 1: slabs=[1-9]'
    extra "numa[numa=off,2 nodes,smp4]" "test=numa numa=off" 0 SMP=4 MEM=128M NODES=2 -- ktap json:numa_nodes=1 \
        "numa: one node (numa=off (the SRAT has 2 nodes))"
    # 4 nodes, asymmetric distances: node 1 CPUs and no memory, node 3 memory and no CPUs
    # (tests/host/acpi-samples/README.md's qemu-7.2-numa4 layout).
    numa4="-object memory-backend-ram,id=m0,size=32M -object memory-backend-ram,id=m2,size=48M"
    numa4+=" -object memory-backend-ram,id=m3,size=48M -numa node,nodeid=0,cpus=0,memdev=m0"
    numa4+=" -numa node,nodeid=1,cpus=1-2 -numa node,nodeid=2,cpus=3,memdev=m2 -numa node,nodeid=3,memdev=m3"
    for d in 0,1,15 1,0,20 0,2,20 2,0,20 0,3,30 3,0,30 1,2,25 2,1,25 1,3,40 3,1,35 2,3,15 3,2,15; do
        IFS=, read -r a b v <<<"$d"
        numa4+=" -numa dist,src=$a,dst=$b,val=$v"
    done
    extra "numa[4 nodes,memory-less,CPU-less,asymmetric,smp4]" "test=numa" 0 SMP=4 MEM=128M QEMU_EXTRA="$numa4" -- ktap json:numa_nodes=4 \
        "numa: node 1 (proximity domain 1): 0 MiB (memory-less), distances 20 10 25 40" \
        "numa: node 3 (proximity domain 3): 48 MiB (no CPUs), distances 30 35 15 10"
    # Cross pairs: every object is freed on the other node (the producers' node has all the
    # slabs); local pairs' counts depend on timing (the ipi schemes move slabs), not checked.
    extra "bench[numa,2 nodes,smp4]" "bench=numa scheme=lock,sheaves,ipi" 0 SMP=4 MEM=128M NODES=2 -- benchjson report \
        're:"scheme":"lock","placement":"cross".*"figure":"cross_node_frees_per_1000","value":1000.0' \
        're:"scheme":"ipi","placement":"cross".*"figure":"cross_node_frees_per_1000","value":1000.0'
    # A bad SRAT (QEMU's 2-node one with overlapping ranges, given by -acpitable): one node.
    if want "numa[bad SRAT"; then
        "$py" -c 'import struct, sys
b = bytearray(open("tests/host/acpi-samples/qemu-7.2-numa2/SRAT.bin", "rb").read())
struct.pack_into("<Q", b, 112 + 2 * 40 + 8, 0x3000000)  # node 1 from 48 MiB: into node 0
open(sys.argv[1], "wb").write(b[36:])  # -acpitable data= is the body after the header' \
            "$logdir/bad-srat.body" || fail "numa[bad SRAT]" "could not write the table"
    fi
    extra "numa[bad SRAT,overlapping ranges,smp4]" "test=numa" 0 SMP=4 MEM=128M QEMU_EXTRA="-acpitable sig=SRAT,rev=1,data=$logdir/bad-srat.body" -- ktap json:numa_nodes=1 \
        "numa: the SRAT's memory ranges 0x100000-0x3ffffff (domain 0) and 0x3000000-0x6ffffff (domain 1) overlap; running as one node"
    # make test-numa (TEST_NUMA=1): the slab suites on every scheme on two nodes, and two
    # nodes of 144 x2APIC CPUs (the SRAT's x2APIC affinity entries: ids past 255).
    if [ "${TEST_NUMA:-0}" = 1 ]; then
        for sch in lock partial sheaves ipi ipi-batch remote-atomic; do
            extra "numa[scheme=$sch,2 nodes,smp4]" "test=slab,slab_ipi,numa scheme=$sch" 0 SMP=4 MEM=128M NODES=2 -- ktap json:numa_nodes=2
        done
        if q=$(tools/qemu10.sh 2>"$logdir/qemu10.log"); then
            extra "numa[x2apic,smp288,2 nodes]" "test=numa ap_timeout_ms=60000" 0 QEMU="$q" SMP=288 MEM=512M NODES=2 TIMEOUT=1800 -- ktap json:numa_nodes=2 json:x2apic=true json:cpus_online=288
        else
            echo "skip numa[x2apic,smp288,2 nodes]: $(sed 's/^qemu10.sh: //' "$logdir/qemu10.log")"
        fi
    fi
    # Many CPUs on a busy 2-core host come up slowly (255: 17 s from the INITs to the last
    # one online, the page allocator's start included): the APs get the longest wait there is.
    extra "smp[16,test=all]" "test=all ap_timeout_ms=60000" 0 SMP=16 -- ktap json:cpus_online=16
    extra "smp[64,test=all]" "test=all ap_timeout_ms=60000" 0 SMP=64 -- ktap json:cpus_online=64
    extra "smp[255,test=all]" "test=all ap_timeout_ms=60000" 0 SMP=255 TIMEOUT=720 -- ktap json:cpus_online=255
    extra "cmdline[cpus=2,smp4]" "test=all cpus=2" 0 SMP=4 -- ktap json:cpus_online=2 json:cpus_found=4
    extra "cmdline[ap_skip=2,smp4]" "test=smp ap_skip=2" 0 SMP=4 -- ktap json:cpus_online=3 json:cpus_found=4 "not starting the CPU with APIC id 2"
    extra "cmdline[bogus=1]" "bogus=1" 1 -- "unknown option" "valid options"
    extra "cmdline[cpus=abc]" "cpus=abc" 1 -- "cpus"
    extra "cmdline[cpus=0]" "cpus=0" 1 -- "expected a number 1..4096"
    extra "cmdline[test=nosuch]" "test=nosuch" 1 -- "matches no suite" "suites in this kernel"
    extra "cmdline[bench=nosuch]" "bench=nosuch" 1 -- "no benchmark named"
    # bench=replay (docs/traces.md): the recording built in, on 1 CPU; a capture of Linux's
    # hackbench (tests/traces/linux-hackbench.trace) on 4; generated traces as modules: pairs (every free on another stream) at 4 CPUs and, with replay_cpus= putting
    # each pair on one CPU, at 2 with no remote free; the cases a replay counts and skips;
    # bad traces refused with what and where.
    if want "bench[replay"; then
        mkdir -p "$logdir/traces"
        PYTHONPATH=tools/trace "$py" - "$logdir/traces" <<'PY' || fail "bench[replay traces]" "could not make the test traces"
import sys
import slabtrace as st
out = sys.argv[1]
st.synth("pairs", 4, 4000, 1).write(f"{out}/pairs.trace")
w = st.TraceWriter("skips", 2)
c = w.add_cache("conn", 200, 0, st.CACHE_FLAG_HWCACHE_ALIGN)
w.event(0, st.EV_ALLOC, 10, 0, c)
w.event(0, st.EV_KMALLOC, 20, 1, 0)
w.event(0, st.EV_KMALLOC, 30, 2, (4096 << 10) + 1)
w.event(0, st.EV_KMALLOC, 40, 3, 100000)
w.event(0, st.EV_KMALLOC, 45, 5, 64)
w.event(1, st.EV_FREE, 50, 0, c)
w.event(1, st.EV_FREE, 60, 0, c)
w.event(1, st.EV_KFREE, 70, 1)
w.event(1, st.EV_KFREE, 80, 2)
w.event(1, st.EV_KFREE, 90, 3)
w.event(1, st.EV_KFREE, 95, 4)
w.write(f"{out}/skips.trace")
w = st.TraceWriter("deadlock", 2)
w.event(0, st.EV_KFREE, 10, 0); w.event(0, st.EV_KMALLOC, 20, 1, 64)
w.event(1, st.EV_KFREE, 10, 1); w.event(1, st.EV_KMALLOC, 20, 0, 64)
w.write(f"{out}/deadlock.trace")
# replay_pace=original: a kmalloc every ms on stream 0, its kfree 0.5 ms later on stream 1,
# the last event at exactly 20 ms: at replay_scale=500 the replay takes at least 100 ms
w = st.TraceWriter("paced", 2)
for i in range(20):
    w.event(0, st.EV_KMALLOC, i * 1000000, i, 64)
    w.event(1, st.EV_KFREE, i * 1000000 + 500000, i)
w.event(0, st.EV_KMALLOC, 20000000, 20, 128)
w.write(f"{out}/paced.trace")
w = st.TraceWriter("long", 1)
w.event(0, st.EV_KMALLOC, 10 ** 10, 0, 64)
w.write(f"{out}/long.trace")
PY
    fi
    extra "bench[replay,builtin,smp1]" "bench=replay bench_reps=1" 0 SMP=1 -- benchjson report \
        "replay: trace ldpreload:python3: 3 streams on 1 CPUs" '"figure":"cycles_per_event"' '"figure":"live_at_end","value":36.0' \
        "replay: pace asap: every event as soon as it can be done" 're:"scheme":"lock",.*"pace":"asap"' no:lag_max
    extra "bench[replay,pairs,smp4]" "bench=replay bench_reps=2" 0 SMP=4 TRACE="$logdir/traces/pairs.trace" -- benchjson \
        "from the module GRUB loaded" "replay: trace synth-pairs: 4 streams on 4 CPUs" \
        're:"scheme":"lock",.*"figure":"remote_frees","value":100.0' 're:"scheme":"ipi",.*"figure":"ipis","value":[1-9]'
    extra "bench[replay,pairs,replay_cpus=0,0,1,1,smp2]" "bench=replay bench_reps=1 replay_cpus=0,0,1,1 scheme=lock,ipi" 0 SMP=2 TRACE="$logdir/traces/pairs.trace" -- benchjson \
        "4 streams on 2 CPUs (replay_cpus=)" 're:"scheme":"ipi",.*"figure":"remote_frees","value":0.0'
    extra "bench[replay,linux-hackbench,smp4]" "bench=replay bench_reps=1" 0 SMP=4 TRACE=tests/traces/linux-hackbench.trace -- benchjson \
        "replay: trace linux-6.1:hackbench: 4 streams on 4 CPUs" '"figure":"cycles_per_event"'
    extra "bench[replay,skips,smp2]" "bench=replay bench_reps=1" 0 SMP=2 TRACE="$logdir/traces/skips.trace" -- benchjson \
        "skipped: 1 frees of ids never allocated, 1 double frees, 1 kmallocs of 0 bytes, 1 past the page allocator's 4096 KiB; 1 kmallocs past 8 KiB from the page allocator; 1 objects live at the end"
    # replay_pace=original: every scheme's replay of the 20 ms trace, scaled x5, takes at least
    # 100 ms (the pattern: 100.0 ms or more); asap takes well under a millisecond
    extra "bench[replay,pace=original,smp2]" "bench=replay bench_reps=1 replay_pace=original replay_scale=500 scheme=lock,ipi" 0 SMP=2 TRACE="$logdir/traces/paced.trace" -- benchjson \
        "replay: pace original, replay_scale=500%: the trace's recorded 20.0 ms take 100.0 ms" \
        're:"scheme":"lock",.*"pace":"original","replay_scale":500,.*"figure":"lag_max"' \
        're:^replay: lock: pace original: took [1-9][0-9]{2,}\.[0-9] ms, scheduled 100\.0 ms' \
        're:^replay: ipi: pace original: took [1-9][0-9]{2,}\.[0-9] ms, scheduled 100\.0 ms'
    extra "bench[replay,bad:replay_pace=fast]" "bench=replay replay_pace=fast" 1 SMP=1 -- \
        "bad value 'fast' for replay_pace= (replay: asap"
    extra "bench[replay,bad:replay_scale-without-original]" "bench=replay replay_scale=500" 1 SMP=1 -- \
        "bench replay: SELF-CHECK FAILED: replay_scale=500 scales the recorded times of replay_pace=original"
    extra "bench[replay,bad:schedule-past-a-day]" "bench=replay replay_pace=original replay_scale=1000000" 1 SMP=1 TRACE="$logdir/traces/long.trace" -- \
        "bench replay: SELF-CHECK FAILED: replay_pace=original replay_scale=1000000: the trace's recorded 10 s would take 100000 s, more than a day"
    extra "bench[replay,bad:not-a-trace]" "bench=replay" 1 SMP=1 TRACE=README.md -- \
        "bench replay: SELF-CHECK FAILED: the trace: not a slab trace (no SLABTRCE magic at the start)"
    extra "bench[replay,bad:deadlock]" "bench=replay" 1 SMP=1 TRACE="$logdir/traces/deadlock.trace" -- \
        "bench replay: SELF-CHECK FAILED: the trace: stream 0 event 0: deadlock: the free of id 0 waits for its allocation"
    extra "bench[replay,replay_cpus=5,smp2]" "bench=replay replay_cpus=0,5" 1 SMP=2 -- \
        "bench replay: SELF-CHECK FAILED: replay_cpus=0,5: CPU 5, but only CPUs 0..1 are online"
    extra "bench[fastpath,bulk,held]" "bench=fastpath,bulk,held" 0 -- '"bench":"bulk"' '"figure":"alloc_free_pair"' "improved" '"figure":"pages_held_idle"' report
    # The benchmark suite with small counts: every benchmark, its JSON and its self-checks
    # (a failed check makes the kernel exit 1); with no test= or bench=, the default run.
    bench_small="bench_reps=3 hackbench_groups=2 hackbench_loops=4 remote_objects=2000 scaling_ops=2000 latency_samples=500"
    extra "bench[all,small,smp1]" "bench=all $bench_small" 0 SMP=1 -- benchjson "Time: " "needs at least 2 CPUs" "P, cpu partial" "== summary"
    extra "bench[default-run,small,smp4]" "$bench_small" 0 SMP=4 -- benchjson report "slablab: default run" '"schemes":"lock,partial,sheaves' "== summary"
    extra "bench[scheme=lock,sheaves,smp3]" "bench=hackbench,remote scheme=sheaves,lock $bench_small slabinfo=1" 0 SMP=3 -- benchjson '"schemes":"lock,sheaves"' "kmalloc-256          sheaves"
    extra "cmdline[scheme=nosuch]" "scheme=lock,nosuch" 1 -- "no scheme named 'nosuch'" "valid: all lock partial"
    extra "cmdline[scheme=lock,fastpath=cmpxchg]" "test=slab scheme=lock fastpath=cmpxchg slabinfo=1" 0 -- ktap "kmalloc-256          lock          cmpxchg"
    scheme_boots
    scheme_copy
    lab_tests
    extra "cmdline[scheme=sheaves,smp4]" "test=all scheme=sheaves sheaf_capacity=8 slabinfo=1" 0 SMP=4 -- ktap "kmalloc-256          sheaves" "sheaf_alloc="
    extra "slub_debug[kmalloc FZPU,partial,hardened,smp4]" "test=slub_debug,slab slub_debug=FZPU,kmalloc-* slub_debug_mode=partial freelist_hardened=1 freelist_random=1 init_on_alloc=1 init_on_free=1 slabinfo=1 seed=7" 0 SMP=4 TIMEOUT=600 -- ktap "debug=FZPU mode=partial" "freelist_hardened freelist_random init_on_alloc init_on_free" "BUG TestSlub_RZ_alloc: Right Redzone overwritten" "Allocated in"
    extra "slub_debug[every cache FZPU,locked]" "test=slub_debug,smp slub_debug=FZPU slabinfo=1" 0 -- ktap "kmalloc-64           lock" "debug=FZPU mode=locked"
    # Every suite under debug caches for every cache: cases about a scheme that debug caches
    # replace skip saying so, the others check what the debug mode does instead.
    extra "slub_debug[P,test=all,smp4]" "test=all slub_debug=P" 0 SMP=4 TIMEOUT=600 -- ktap "# SKIP debug caches replace scheme ipi"
    extra "slub_debug[FZPU,partial,test=all,smp4]" "test=all slub_debug=FZPU slub_debug_mode=partial" 0 SMP=4 TIMEOUT=600 -- ktap "# SKIP debug caches replace scheme ipi"
    extra "cmdline[slub_debug=FX]" "slub_debug=FX" 1 -- "'X' is not a debug letter"
    extra "cmdline[slub_debug_mode=fast]" "slub_debug_mode=fast" 1 -- "bad value 'fast' for slub_debug_mode="
    # Command lines taken whole or refused whole, and option ranges that must work: cpus=
    # counts the CPUs started (ap_skip='s is not one), ap_skip= must name another CPU, an
    # option given twice is an error, lines past the old 1023-character cut keep their
    # last options and past 4095 are refused, and the largest hackbench_groups= and tables
    # beyond the page allocator's 4 MiB block run (or fail saying how much memory they need).
    extra "cmdline[ap_skip=1,cpus=2,smp4]" "test=smp ap_skip=1 cpus=2" 0 SMP=4 -- ktap json:cpus_online=2 json:cpus_found=4
    extra "cmdline[ap_skip=0,boot-cpu]" "test=smp ap_skip=0" 1 -- "ap_skip=0 names the boot CPU (APIC id 0)"
    extra "cmdline[ap_skip=9,no-such-cpu]" "test=smp ap_skip=9" 1 -- "no enabled CPU with APIC id 9"
    extra "cmdline[cpus-given-twice]" "test=smp cpus=1 cpus=2" 1 -- "option cpus= given twice (cpus=1, then cpus=2)"
    extra "cmdline[test=smp,-trailing-comma]" "test=smp," 1 -- "empty item in test=smp,"
    zeros2k=$(printf '%01980d' 0)
    extra "cmdline[2000-chars]" "test=smp seed=0x${zeros2k}7 cpus=1" 0 SMP=2 -- ktap json:cpus_online=1
    extra "cmdline[4200-chars]" "test=smp seed=0x${zeros2k}${zeros2k}${zeros2k:0:240}7" 1 -- "characters, more than the 4095 slablab takes"
    extra "bench[hackbench_groups=1000]" "bench=hackbench hackbench_groups=1000 hackbench_loops=1 bench_reps=1 scheme=lock" 0 -- benchjson '"groups":1000' "lock groups 1000 loops 1: Time: "
    extra "bench[hackbench_groups=1000,MEM=64M]" "bench=hackbench hackbench_groups=1000 hackbench_loops=1 bench_reps=1 scheme=lock" 1 MEM=64M -- "no memory for the queues and tasks of hackbench_groups=1000: they need 75 MiB"
    extra "bench[latency_samples=524289,smp2]" "bench=latency latency_samples=524289 scheme=lock" 0 SMP=2 -- benchjson "(1048578 samples)"
    extra "cmdline[cpu_partial=100000,sheaf_capacity=500]" "test=slab.schemes_differ_where_partial_slabs_go,slab_ipi.ownership_moves_to_a_cpu_that_runs_out cpu_partial=100000 sheaf_capacity=500" 0 -- ktap "# SKIP cpu_partial= or sheaf_capacity= above" "# SKIP cpu_partial= above"
    extra "bench[latency_samples=1000000,smp8,MEM=64M]" "bench=latency latency_samples=1000000 scheme=lock" 1 SMP=8 MEM=64M -- "no memory for latency_samples=1000000 on 8 CPUs: the samples need 62 MiB"
    # The command line through grub.cfg (tools/mkiso.sh quotes each word for GRUB's parser):
    # GRUB's metacharacters in an option value and as words of their own reach the kernel as
    # written, and the README's slub_debug example gives kmalloc-64 its own flags.
    # shellcheck disable=SC2016 # the $ are meant literally
    {
        extra "cmdline[slub_debug=P;FZ,kmalloc-64,smp1]" "test=smp slub_debug=P;FZ,kmalloc-64 slabinfo=1" 0 SMP=1 -- \
            ktap "slub: slub_debug=P;FZ,kmalloc-64," "re:^kmalloc-64 .* debug=FZ " "re:^kmalloc-32 .* debug=P "
        extra "cmdline[grub metachars in a value]" 'test=smp;$x}#y{z|a&b<c>d' 1 -- \
            'test=smp;$x}#y{z|a&b<c>d matches no suite'
        extra "cmdline[grub metachars as words]" 'bogus=$x #y } { ; $ ${z}' 1 -- \
            "unknown option 'bogus'" 'the command line was: bogus=$x #y } { ; $ ${z}'
    }
    extra "crash[pf]" "crash=pf" 3 -- "#PF" "CR2" "RIP" "backtrace" "crash_page_fault+0" "] crash+" "] kmain+"
    extra "crash[df]" "crash=df" 3 -- "#DF"
    # The backtrace goes through the leaf that faulted, the IPI handler and the interrupt
    # frame down to the AP's entry.
    extra "crash[pf-ap,smp2]" "crash=pf-ap" 3 SMP=2 -- "cpu 1" "] crash_page_fault_ipi+" "] smp_call_function_interrupt+" "interrupted by vector 240" "] cpu_idle_loop+" "] ap_entry+"
    extra "crash[gp]" "crash=gp" 3 -- "#GP" "crash_general_protection"
    extra "crash[ud]" "crash=ud" 3 -- "#UD" "crash_invalid_opcode"
    extra "crash[de]" "crash=de" 3 -- "#DE" "crash_divide_error"
    extra "crash[lockrec]" "crash=lockrec" 3 -- "recursive acquire of spinlock" "spin_lock"
    extra "crash[panic,uefi]" "crash=panic" 3 FIRMWARE=uefi -- "KERNEL PANIC on cpu 0" "crash=panic"

    # Leaving the machine (exit=, arch/x86/reboot.c): qemu-run.sh exits 5 for a power-off
    # and 6 for a reset. QEMU 7.2's pc machine has an ACPI 1.0 FADT without a reset register
    # (so port 0xcf9 resets it), q35 one with the register; both take S5 at PM1a_CNT 0x604
    # with SLP_TYP 0 from their DSDT's \_S5. Without ACPI, poweroff says so and falls back.
    extra "exit[poweroff,pc]" "test=none exit=poweroff" 5 SMP=1 -- "slablab: pass; powering off" \
        "poweroff: ACPI S5, SLP_TYPa 0 to PM1a_CNT 0x604" "no:still running"
    extra "exit[poweroff,q35]" "test=none exit=poweroff" 5 SMP=2 MACHINE=q35 -- \
        "slablab: pass; powering off" "poweroff: ACPI S5, SLP_TYPa 0 to PM1a_CNT 0x604" "no:still running"
    extra "exit[poweroff,acpi=off]" "test=none exit=poweroff" 0 SMP=1 MACHINE=pc,acpi=off -- \
        "poweroff: no ACPI tables; leaving through QEMU's isa-debug-exit instead"
    extra "exit[reboot,pc]" "test=none exit=reboot" 6 SMP=2 -- "slablab: pass; rebooting" \
        "the FADT has no reset register" "reboot: writing the reset control register, port 0xcf9" "no:still running"
    extra "exit[reboot,q35]" "test=none exit=reboot" 6 SMP=2 MACHINE=q35 -- "slablab: pass; rebooting" \
        "reboot: writing 0xf to the ACPI reset register, I/O port 0xcf9" "no:still running"
    extra "exit[reboot=kbd,q35]" "test=none exit=reboot reboot=kbd" 6 SMP=1 MACHINE=q35 -- \
        "reboot: pulsing the reset line through the keyboard controller" "no:still running" "no:0xcf9"
    extra "exit[reboot=triple,pc]" "test=none exit=reboot reboot=triple" 6 SMP=1 -- \
        "reboot: triple fault (an empty IDT and int3)" "no:keyboard controller"
    extra "exit[panic,reboot]" "crash=panic exit=reboot" 6 SMP=2 MACHINE=q35 -- "KERNEL PANIC on cpu 0" \
        "slablab: panic; rebooting" "reboot: writing 0xf to the ACPI reset register"
    extra "cmdline[exit=shutdown]" "exit=shutdown" 1 SMP=1 -- "bad value 'shutdown' for exit="

    # The screen (kernel/screen.h): the kernel halts (exit=halt), qemu-run.sh takes a
    # screendump through QEMU's monitor, and tools/font.py reads the text back cell by cell
    # with the kernel's font; it must be the serial log's last lines. GRUB's modes give the
    # pixel layouts: SeaBIOS's VBE 32, 24 and 16 bits, OVMF's GOP 32. A panic on an AP shows
    # too, and text mode falls back to the VGA text buffer.
    extra "screen[bios,1024x768x32]" "test=smp,spinlock exit=halt" 0 -- screen "screen: 1024x768 framebuffer, 32 bpp (red 16:8 green 8:8 blue 0:8)" \
        "screen: write-combining (PAT entry 5) over 0xfd000000..0xfd400000"
    # Without PAT (CPUID.01H:EDX bit 16) the framebuffer keeps the firmware's caching; the
    # screen reads back the same.
    extra "screen[bios,no PAT]" "test=spinlock exit=halt" 0 SMP=1 QEMU_EXTRA="-cpu qemu64,-pat" -- screen \
        "screen: no PAT (CPUID.01H:EDX bit 16 is 0): the framebuffer stays as the firmware's MTRRs map it, without write-combining"
    extra "screen[uefi,gop]" "test=spinlock exit=halt" 0 FIRMWARE=uefi -- screen "framebuffer, 32 bpp" json:acpi_root=XSDT
    extra "screen[bios,1024x768x16]" "test=spinlock exit=halt" 0 GFXPAYLOAD=1024x768x16 -- screen "screen: 1024x768 framebuffer, 16 bpp (red 11:5 green 5:6 blue 0:5)"
    # 640x480 holds 30 rows: this one scrolls.
    extra "screen[bios,640x480x24,scrolls]" "test=smp,spinlock exit=halt" 0 GFXPAYLOAD=640x480x24 -- screen "screen: 640x480 framebuffer, 24 bpp (red 16:8 green 8:8 blue 0:8)"
    extra "screen[crash=pf-ap,smp2]" "crash=pf-ap exit=halt" 3 SMP=2 -- screen "EXCEPTION: #PF" "cpu 1"
    # The results page (kernel/screen.h): PASS in large type and green, the machine line,
    # the summary's figures (tools/font.py results reads them back against the serial
    # summary), the final line below; its QR code, read by zbarimg, holds the same figures.
    # At 1024x768, and at 640x480 with every benchmark (the QR code at 2 pixels a module, 33
    # columns beside it, titles cut there, the figures past the page counted in its last
    # row); on the VGA text buffer the page has no QR code and says so.
    extra "screen[results page,bench=fastpath,bulk]" "bench=fastpath,bulk bench_reps=3 scheme=lock,partial exit=halt" 0 -- qr results \
        "re:^screen: results page: PASS at 4x, 4 figures, QR code [0-9]+-M, [0-9]+ px a module"
    extra "screen[results page,640x480x24,bench=all small]" "bench=all bench_reps=3 hackbench_groups=2 hackbench_loops=4 remote_objects=2000 scaling_ops=2000 latency_samples=500 exit=halt" 0 GFXPAYLOAD=640x480x24 -- qr results \
        "re:^screen: results page: PASS at 4x, [0-9]+ figures, QR code [0-9]+-[ML], 2 px a module" \
        "screen: a framebuffer of 900 KiB may share its 2 MiB pages with other devices: no write-combining"
    extra "screen[results page,text mode]" "bench=fastpath bench_reps=1 scheme=lock" 0 GFXPAYLOAD=text -- \
        "screen: a text screen: the results page has no QR code; the JSON summary is in the serial log" \
        "screen: results page: PASS at 1x, 1 figure, no QR code"
    # No display adapter: under SeaBIOS GRUB 2.06 hands over an indexed-colour framebuffer
    # tag (refused, named); OVMF has no GOP, so there is no framebuffer and no VGA text; both
    # times the kernel says the serial port is all and the boot goes on.
    extra "screen[bios,-vga none]" "test=none" 0 SMP=1 QEMU_EXTRA="-vga none" -- "re:^screen: .*; serial port only"
    extra "screen[uefi,-vga none]" "test=none" 0 SMP=1 FIRMWARE=uefi QEMU_EXTRA="-vga none" -- \
        "screen: the boot loader gave no framebuffer, and UEFI has no VGA text mode; serial port only"
    extra "screen[text mode,vga]" "test=none" 0 GFXPAYLOAD=text -- "screen: VGA text 80x25 at 0xb8000 (the boot loader left text mode)"

    # Machines without ACPI, PIT or HPET, and the TSC calibration (docs/boot.md): no ACPI runs
    # on the boot CPU against the PIT; no PIT uses the HPET (CPUID leaves 15h/16h there but
    # all zeros, so ignored), then the PM timer; no clock at all stops with a message.
    extra "machine[acpi=off,smp2]" "test=all" 0 MACHINE=pc,acpi=off -- ktap json:acpi=false json:cpus_found=1 json:cpus_online=1 json:tsc_source=pit "no ACPI tables: running on the boot CPU only"
    extra "machine[pit=off,cpu level=0x16]" "test=time" 0 MACHINE=pc,pit=off QEMU_EXTRA="-cpu max,level=0x16" -- ktap json:tsc_source=hpet "CPUID leaf 0x15 gives no frequency" "CPUID leaf 0x16 gives no frequency"
    extra "machine[pit=off,hpet=off]" "test=time" 0 MACHINE=pc,pit=off,hpet=off -- ktap json:tsc_source=pm-timer json:acpi_root=RSDT
    # Firmware variety: SeaBIOS hands over an ACPI 1.0 RSDP (the RSDT only), OVMF an ACPI 2.0
    # one with the XSDT (json acpi_root says which the kernel read); q35 without a HPET
    # calibrates against the PM timer (the PIT measured beside it), and OVMF's q35 without
    # PIT or HPET too.
    extra "machine[q35,hpet=off,seabios]" "test=time" 0 MACHINE=q35,hpet=off -- ktap json:tsc_source=pm-timer json:acpi_root=RSDT "re:^tsc: [0-9]+ kHz from the pm-timer .*all clocks: pm-timer:[0-9]+,pit:[0-9]+"
    extra "machine[q35,pit=off,hpet=off,ovmf]" "test=time" 0 FIRMWARE=uefi MACHINE=q35,pit=off,hpet=off -- ktap json:tsc_source=pm-timer json:acpi_root=XSDT
    extra "machine[acpi=off,pit=off]" "test=time" 1 MACHINE=pc,acpi=off,pit=off -- "nothing to tell the TSC's rate by"
    # The busy host: the timing-dependent suites with two busy loops of our own running.
    if want "busy-host[test=time,ipi,smp,spinlock,smp2]"; then
        busy_start
        extra "busy-host[test=time,ipi,smp,spinlock,smp2]" "test=time,ipi,smp,spinlock" 0 SMP=2 TIMEOUT=180 -- ktap
        busy_stop
    fi
    # Old CPU models: no CMPXCHG16B (slab freelists under slab_lock; the cmpxchg fastpath,
    # one 8-byte cmpxchg, runs there too), and a CPU without a feature the kernel needs.
    extra "cpu[qemu64,-cx16,test=all]" "" 0 QEMU_EXTRA="-cpu qemu64,-cx16" -- ktap '"cx16":false' '"slab_freelist":"slab_lock"'
    extra "cpu[Opteron_G1,smp4,test=slab,slab_ipi]" "test=slab,slab_ipi" 0 SMP=4 QEMU_EXTRA="-cpu Opteron_G1" -- ktap '"cx16":false' '"slab_freelist":"slab_lock"'
    extra "cpu[qemu64,-cx16,fastpath=cmpxchg]" "test=slab,slab_fastpath fastpath=cmpxchg slabinfo=1" 0 SMP=2 QEMU_EXTRA="-cpu qemu64,-cx16" -- ktap '"cx16":false' '"slab_freelist":"slab_lock"' 're:^kmalloc-64 +partial +cmpxchg '
    extra "cpu[qemu64,-apic]" "test=smp" 1 SMP=1 QEMU_EXTRA="-cpu qemu64,-apic" -- "this CPU has no APIC"
    x2apic_boots
fi

if [ "$dry_run" = 1 ] && [ "$failed" = 0 ]; then
    echo "test.sh: dry run, nothing booted (logs: $logdir)"
    exit 0
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
