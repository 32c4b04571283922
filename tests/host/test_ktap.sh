#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/ktap.py: parses the sample logs in tests/host/ktap-samples/ and checks
# the counts and FAIL lines. Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
samples=$here/ktap-samples
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

# expect RC ARGS... -- LINES...: runs ktap.py ARGS, wants exit code RC and every LINE in
# its output (whole-line match). Prints what went wrong and fails otherwise.
expect() {
    local want_rc=$1 args=() out rc=0 line
    shift
    while [ "$1" != -- ]; do
        args+=("$1")
        shift
    done
    shift
    out=$("$py" "$root/tools/ktap.py" "${args[@]}" 2>&1) || rc=$?
    if [ "$rc" != "$want_rc" ]; then
        echo "FAILED: ktap.py ${args[*]} exited $rc, want $want_rc; output:"
        printf '%s\n' "$out"
        return 1
    fi
    for line in "$@"; do
        if ! grep -qxF -- "$line" <<<"$out"; then
            echo "FAILED: ktap.py ${args[*]} printed no line: $line; output:"
            printf '%s\n' "$out"
            return 1
        fi
    done
}

# An all-passing log fed through stdin.
pass_stdin() {
    printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: s" "    1..2" \
        "    ok 1 a" "    ok 2 b # SKIP not here" "ok 1 s" |
        "$py" "$root/tools/ktap.py" - >/dev/null
}

names=()
verdicts=()
t() {
    local name=$1 msg
    shift
    if msg=$("$@" 2>&1); then
        verdicts+=("")
    else
        verdicts+=("$msg")
    fi
    names+=("$name")
}

t mixed_counts_and_fail_line expect 1 "$samples/mixed.log" --label L -- \
    "FAIL L smp.ipi_reaches (cpu 3): EXPECTATION FAILED at tests/kernel/smp_test.c:42" \
    "    Expected a == b, but" "        a == 3 (0x3)" "ktap: 4 passed, 1 failed, 1 skipped"
t mixed_json expect 1 "$samples/mixed.log" --json -- \
    '{"label": "mixed", "passed": 4, "failed": 1, "skipped": 1, "truncated": false, "ktap_found": true, "failures": [{"kind": "case", "name": "smp.ipi_reaches", "cpu": 3, "message": "EXPECTATION FAILED at tests/kernel/smp_test.c:42", "details": ["Expected a == b, but", "    a == 3 (0x3)", "    b == 4 (0x4)"]}]}'
t mixed_boot_json expect 0 "$samples/mixed.log" --boot-json -- \
    '{"event":"boot","cpus_found":4,"cpus_online":4,"mem_mb":256}'
t boot_json_missing expect 1 "$samples/flat.log" --boot-json --
t truncated_panic expect 1 "$samples/truncated.log" --label L -- \
    "FAIL L: log truncated after slab.alloc_free: PANIC: cpu 1: EXCEPTION #GP(0) at RIP=0xffffffff80104a2c (slab_free+0x3c)" \
    "ktap: 3 passed, 1 failed, 0 skipped"
t flat_host_output expect 1 "$samples/flat.log" --label L -- \
    "FAIL L freelist_order: EXPECTATION FAILED at tests/host/test_slab.c:88" \
    "    Expected order[0] == 7, but" "ktap: 2 passed, 1 failed, 1 skipped"
t suite_init_fail_and_short_plan expect 1 "$samples/edge.log" --label L -- \
    "FAIL L init_fails (cpu 0): initialization failed" \
    "FAIL L short: plan 1..3 but 2 results" "ktap: 3 passed, 2 failed, 0 skipped"
t no_ktap expect 1 "$samples/no-ktap.log" --label L -- \
    "FAIL L: no KTAP output: PANIC: cpu 0: #PF CR2=0x0 RIP=0x100020" \
    "ktap: 0 passed, 1 failed, 0 skipped"
t all_pass_stdin pass_stdin
t missing_file expect 2 "$samples/does-not-exist.log" --

echo "KTAP version 1"
echo "1..${#names[@]}"
for i in "${!names[@]}"; do
    if [ -z "${verdicts[i]}" ]; then
        echo "ok $((i + 1)) ${names[i]}"
    else
        sed "1s/^/# ${names[i]}: /; 2,\$s/^/    /" <<<"${verdicts[i]}"
        echo "not ok $((i + 1)) ${names[i]}"
    fi
done
for v in "${verdicts[@]}"; do
    [ -z "$v" ] || exit 1
done
