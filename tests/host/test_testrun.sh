#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/testrun.py (make test's runner) on a tree of its own: tools/testrun.py
# and tools/ktap.py copied into a temporary folder beside a boot list written here, a fake
# tools/qemu-run.sh that prints a serial log made up from the ISO's command line, a fake make
# for the ISOs and a fake host test. Nothing boots; each run takes a fraction of a second.
# A bad line is refused with its file, line and reason before anything runs; a check that
# fails is a FAIL line with the reason and exit 1; TEST_FILTER selects; the dry run prints
# commands and boots nothing; the last lines count and explain what was skipped, and the
# totals line ends the output. Prints its own results as KTAP (flat).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
unset MAKEFLAGS MFLAGS MAKELEVEL TEST_QUICK TEST_FILTER TEST_DRY_RUN TEST_ACCELS TEST_NUMA \
    TEST_BIG TEST_LABS TEST_HOST_JOBS

fake=$tmp/tree
mkdir -p "$fake/tools" "$fake/tests" "$fake/build/host"
cp "$root/tools/testrun.py" "$root/tools/ktap.py" "$fake/tools/"
: >"$fake/build/test.iso"

# The fake qemu-run.sh: the kernel command line is the ISO's text (build/test.iso: test=all).
# say=TEXT prints TEXT; cpus=N reports N CPUs online; panic exits 3 after a panic line.
# Each boot is counted in booted.
cat >"$fake/tools/qemu-run.sh" <<'EOF'
#!/usr/bin/env bash
case "${1:-}" in
--accel-probe) echo tcg; exit 0 ;;
--dry-run) echo "fake-qemu -m $MEM -smp $SMP -cdrom $ISO${QEMU_EXTRA:+ $QEMU_EXTRA}"; exit 0 ;;
esac
echo boot >>"$(dirname "$0")/../booted"
cmdline=$(cat "$ISO")
cmdline=${cmdline:-test=all}
cpus=$SMP
for w in $cmdline; do
    case "$w" in cpus=*) cpus=${w#cpus=} ;; esac
done
echo "Booting \`slablab $cmdline'"
echo "{\"event\":\"boot\",\"cpus_online\":$cpus,\"cpus_found\":$cpus,\"acpi\":true,\"firmware\":\"$FIRMWARE\"}"
for w in $cmdline; do
    case "$w" in
    say=*) echo "${w#say=}" | tr _ ' ' ;;
    panic) echo "KERNEL PANIC on cpu 0"; echo "qemu-run: kernel panic"; exit 3 ;;
    esac
done
printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: smp" "    1..3" \
    "    ok 1 one" "    ok 2 two" "    ok 3 three # SKIP needs 2 CPUs" "ok 1 smp"
echo '{"event":"exit","result":"pass","code":0}'
EOF
# The fake make: make -s iso-cmdline CMDLINE=... OUT=... writes the command line to OUT.
cat >"$tmp/make" <<'EOF'
#!/usr/bin/env bash
for a in "$@"; do
    case "$a" in CMDLINE=*) c=${a#CMDLINE=} ;; OUT=*) o=${a#OUT=} ;; esac
done
printf '%s' "$c" >"$o"
EOF
cat >"$fake/build/host/test_fake" <<'EOF'
#!/bin/sh
printf '%s\n' "KTAP version 1" "1..2" "ok 1 a" "ok 2 b # SKIP no gnuplot here"
EOF
printf '#!/bin/sh\necho "qemu10.sh: no QEMU with TCG x2APIC here" >&2\nexit 1\n' >"$fake/tools/qemu10.sh"
chmod +x "$fake/tools/qemu-run.sh" "$tmp/make" "$fake/build/host/test_fake" "$fake/tools/qemu10.sh"

good_list() {
    cat <<'EOF'
# a comment
matrix bios 1 @quick
matrix bios 2
set greeting hello_there
a[one]  ""  0  -- ktap json:cpus_online=2 json:firmware=bios
b[say]  'say=${greeting} cpus=3'  0  SMP=3
    -- ktap 'hello there' 're:^hel+o t' no:goodbye json:cpus_found=3
c[panic]  'panic'  3  SMP=1  -- 'KERNEL PANIC on cpu 0'
x[x2apic]  ""  0  @qemu10  -- ktap
EOF
}
good_list >"$fake/tests/boots.txt"

# run ENV...: runs the runner in the fake tree with ENV; out, rc; the boots counted anew.
run() {
    rm -f "$fake/booted"
    rc=0
    env MAKE="$tmp/make" "$@" "$py" "$fake/tools/testrun.py" >"$tmp/out" 2>&1 || rc=$?
    out=$(cat "$tmp/out")
}

# show: the runner's output for a diagnostic, each line after "| " (so that its "ok ..." lines
# are not read as KTAP results of this test).
show() {
    sed 's/^/| /' "$tmp/out"
}

# has LINE...: every LINE is a whole line of the output.
has() {
    local l
    for l in "$@"; do
        grep -qxF -- "$l" "$tmp/out" || { echo "no line '$l' in:"; show; return 1; }
    done
}

booted() {
    [ -f "$fake/booted" ] && wc -l <"$fake/booted" || echo 0
}

# bad_line N LINE REASON: a boot list whose line N is LINE is refused, saying where and why.
bad_line() {
    local n=$1 line=$2 reason=$3 i
    {
        good_list | head -n $((n - 1))
        printf '%s\n' "$line"
    } >"$fake/tests/boots.txt"
    run
    good_list >"$fake/tests/boots.txt"
    [ "$rc" = 2 ] || { echo "exit $rc, want 2:"; show; return 1; }
    [[ $out == *"tests/boots.txt:$n: "*"$reason"* ]] || { echo "want 'tests/boots.txt:$n: ...$reason':"; show; return 1; }
    [ "$(booted)" = 0 ] || { echo "it booted although the list is bad"; return 1; }
    [[ $out != *"host[test_fake]"* ]] || { echo "the host tests ran:"; show; return 1; }
}

bad_lines_refused() {
    bad_line 5 'd[x]  ""  0  SMP=3 FOO=1' "unknown knob 'FOO'" &&
        bad_line 6 'd[x]  ""  256' "exit code '256'" &&
        bad_line 7 'd[x]  ""  0  -- "re:(unclosed"' "not a regular expression" &&
        bad_line 6 'd[x]  "${nosuch}"  0' 'unknown variable ${nosuch}' &&
        bad_line 7 'a[one]  ""  1' "label a[one] is used at tests/boots.txt:5 already" &&
        bad_line 5 'd[x]  "unclosed  0' "cannot split the line" &&
        bad_line 6 'noname  ""  0' "label 'noname': want NAME[...]" &&
        bad_line 5 'd[x]  ""  0  SMP=many' "SMP=many: want a number 1..4096" &&
        bad_line 6 'd[x]  ""  0  @sometimes' "unknown flag '@sometimes'" &&
        bad_line 5 'd[x]  ""  0  -- json:cpus' "want json:KEY=VALUE" &&
        bad_line 7 'd[x]  ""  0  GFXPAYLOAD=text' "GFXPAYLOAD= sets the mode in an ISO of the boot's own"
}

continuation_without_line() {
    printf '%s\n' 'a[one] "" 0' '' '    -- ktap' >"$fake/tests/boots.txt"
    "$py" "$fake/tools/testrun.py" --check >"$tmp/out" 2>&1 && rc=0 || rc=$?
    good_list >"$fake/tests/boots.txt"
    [ "$rc" = 2 ] && grep -q 'tests/boots.txt:3: a continuation line' "$tmp/out" ||
        { echo "exit $rc:"; show; return 1; }
}

good_run() {
    run
    [ "$rc" = 0 ] || { echo "exit $rc, want 0"; show; return 1; }
    has "test.sh: host tests" "skip x[x2apic]: no QEMU with TCG x2APIC here" &&
        grep -qE '^ok   host\[test_fake\]  [0-9]+\.[0-9] s  \(1 passed, 0 failed, 1 skipped\)$' "$tmp/out" &&
        grep -qE '^ok   boot\[bios,tcg,smp1\]  [0-9]+\.[0-9] s  \(KTAP 2 passed, 0 failed, 1 skipped\)$' "$tmp/out" &&
        grep -qE '^ok   b\[say\]  [0-9]+\.[0-9] s$' "$tmp/out" &&
        grep -qE '^ok   c\[panic\]  [0-9]+\.[0-9] s$' "$tmp/out" ||
        { echo "an ok line is missing:"; show; return 1; }
    [ "$(booted)" = 5 ] || { echo "$(booted) boots, want 5"; return 1; }
}

# The last lines: the skipped cases by reason, then the totals (host: 1 + matrix 2 x (2 KTAP
# + exit + 2 CPU counts) + 3 boots = 14 passed; 1 + 2 + 1 skipped).
skips_and_totals_last() {
    run
    tail -n 6 "$tmp/out" >"$tmp/last"
    grep -qE '^total time: [0-9]+\.[0-9] s$' "$tmp/last" || { echo "no total time:"; show; return 1; }
    if ! diff <(tail -n 5 "$tmp/last") - <<'EOF'
skipped 4, by reason:
     2  needs 2 CPUs  (boot[bios,tcg,smp1], boot[bios,tcg,smp2])
     1  no gnuplot here  (host[test_fake])
     1  no QEMU with TCG x2APIC here  (x[x2apic])
14 passed, 0 failed, 4 skipped
EOF
    then
        show
        return 1
    fi
}

failed_check_reported() {
    sed -i "s/'hello there'/'hello world'/; s/-- 'KERNEL PANIC on cpu 0'/-- 'KERNEL PANIC on cpu 0' json:cpus_online=7/" \
        "$fake/tests/boots.txt"
    run
    good_list >"$fake/tests/boots.txt"
    [ "$rc" = 1 ] || { echo "exit $rc, want 1"; show; return 1; }
    grep -qE "^FAIL b\[say\]: no 'hello world' in the log \(after [0-9.]+ s; log: build/test/b-say.log\)$" "$tmp/out" &&
        grep -qE "^FAIL c\[panic\]: cpus_online is 1, want 7 \(after [0-9.]+ s; log: build/test/c-panic.log\)$" "$tmp/out" &&
        grep -qE "^  FAIL b\[say\]: no 'hello world' in the log" "$tmp/out" &&
        [ "$(tail -n 1 "$tmp/out")" = "12 passed, 2 failed, 4 skipped" ] ||
        { echo "want the FAIL lines and 12 passed, 2 failed, 4 skipped:"; show; return 1; }
}

wrong_exit_code_reported() {
    sed -i "s/^c\[panic\]  'panic'  3/c[panic]  'panic'  0/" "$fake/tests/boots.txt"
    run
    good_list >"$fake/tests/boots.txt"
    [ "$rc" = 1 ] && grep -qE "^FAIL c\[panic\]: qemu-run exited 3 \(kernel panic\), want 0 " "$tmp/out" ||
        { echo "exit $rc:"; show; return 1; }
}

filter_selects() {
    run TEST_FILTER='^b\['
    [ "$rc" = 0 ] && [ "$(booted)" = 1 ] && grep -q '^ok   b\[say\]' "$tmp/out" &&
        ! grep -qE '^(ok|FAIL|skip) +(a|c|x|host|boot)\[' "$tmp/out" &&
        [ "$(tail -n 1 "$tmp/out")" = "1 passed, 0 failed" ] ||
        { echo "exit $rc, $(booted) boots:"; show; return 1; }
    run TEST_FILTER='^nothing'
    [ "$rc" = 1 ] && has 'FAIL test.sh: no tests ran (TEST_FILTER="^nothing" matched nothing)' ||
        { echo "exit $rc"; return 1; }
}

dry_run_boots_nothing() {
    run TEST_DRY_RUN=1 SMP=7 'QEMU_EXTRA=-cpu 486'
    [ "$rc" = 0 ] && [ "$(booted)" = 0 ] || { echo "exit $rc, $(booted) boots"; show; return 1; }
    has "dry-run host[test_fake]: ./build/host/test_fake" \
        "dry-run boot[bios,tcg,smp1]: fake-qemu -m 256M -smp 1 -cdrom build/test.iso" \
        "dry-run b[say]: fake-qemu -m 256M -smp 3 -cdrom build/test/dry-run/iso/b-say.iso" \
        "dry-run c[panic]: fake-qemu -m 256M -smp 1 -cdrom build/test/dry-run/iso/c-panic.iso" \
        "test.sh: dry run, nothing booted (logs: build/test/dry-run)" &&
        grep -q "^test.sh: note: ignoring SMP=7 QEMU_EXTRA=-cpu 486: " "$tmp/out" &&
        [ "$(cat "$fake/build/test/dry-run/iso/b-say.iso")" = "say=hello_there cpus=3" ]
}

quick_runs_the_quick_matrix() {
    run TEST_QUICK=1
    [ "$rc" = 0 ] && has "test.sh: boot matrix (quick: bios, tcg, smp 1)" &&
        [ "$(booted)" = 1 ] || { echo "exit $rc, $(booted) boots"; show; return 1; }
}

help_documents_the_format() {
    "$py" "$fake/tools/testrun.py" --help >"$tmp/out" 2>&1 &&
        grep -q "^Usage: tools/testrun.py" "$tmp/out" && grep -q "^a comment" "$tmp/out"
}

t bad_lines_refused bad_lines_refused
t continuation_without_line continuation_without_line
t good_run good_run
t skips_and_totals_last skips_and_totals_last
t failed_check_reported failed_check_reported
t wrong_exit_code_reported wrong_exit_code_reported
t filter_selects filter_selects
t dry_run_boots_nothing dry_run_boots_nothing
t quick_runs_the_quick_matrix quick_runs_the_quick_matrix
t help_documents_the_format help_documents_the_format
ktap_report
