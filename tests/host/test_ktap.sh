#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/ktap.py: parses the sample logs in tests/host/ktap-samples/ and checks
# the counts and FAIL lines. Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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


# mixed.log ends with the kernel's "result":"fail" exit event: its failed case is the only
# failure, the exit event agrees with it.
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

# ---- a kernel's log must end well: every one of these has all its KTAP cases passing ----
t kernel_pass expect 0 "$samples/kernel-pass.log" --label L -- "ktap: 2 passed, 0 failed, 0 skipped"
t exception_after_totals expect 1 "$samples/exception-after-totals.log" --label L -- \
    "FAIL L: kernel panic after its results: EXCEPTION: #UD (invalid opcode) (vector 6) on cpu 1, error code 0" \
    "    RIP: 0xffffffff80105a2c flush_cpu_slab+0x3c" "ktap: 2 passed, 1 failed, 0 skipped"
t panic_after_totals expect 1 "$samples/panic-after-totals.log" --label L -- \
    "FAIL L: kernel panic after its results: KERNEL PANIC on cpu 0: slab: kmalloc-64 leaked 3 objects" \
    "ktap: 2 passed, 1 failed, 0 skipped"
t exit_event_fail expect 1 "$samples/exit-fail.log" --label L -- \
    'FAIL L: exit event: the kernel exited with "result":"fail" (code 17) although no case failed' \
    "ktap: 2 passed, 1 failed, 0 skipped"
t no_exit_event expect 1 "$samples/no-exit.log" --label L -- \
    'FAIL L: no exit event: no {"event":"exit",...} line: the kernel did not finish; it ends with: slablab: running the default benchmarks' \
    "ktap: 2 passed, 1 failed, 0 skipped"
# The rule follows the boot event line unless told: --host waives it, --kernel imposes it.
t no_exit_event_host expect 0 "$samples/no-exit.log" --host -- "ktap: 2 passed, 0 failed, 0 skipped"
t kernel_flag_without_boot_line expect 1 "$samples/flat.log" --kernel --label L -- \
    'FAIL L: no exit event: no {"event":"exit",...} line: the kernel did not finish; it ends with: ok 4 - bulk_alloc' \
    "ktap: 2 passed, 2 failed, 1 skipped"

# Serial noise in what a FAIL line quotes: 8-bit CSI (a bare 0x9b and U+009B), a bidi
# override, bytes that are not UTF-8, ESC sequences, NUL and BEL. None may reach the terminal.
noise_log() {
    printf 'KTAP version 1\n1..2\nok 1 a\n'
    printf '# b: EXPECTATION FAILED \x9b2J \xc2\x9b31m \xe2\x80\xaeabc \xff\xfe \x1b[31mred\x1b[0m \x00\x07end\n'
    printf 'not ok 2 b\n\xf0\x28\x8c\xbc\x01\x9b\n'
}
binary_noise() {
    local out rc=0
    noise_log >"$tmp/noise.log"
    expect 1 "$tmp/noise.log" --kernel --label L -- \
        'FAIL L b: EXPECTATION FAILED \x9b2J \x9b31m \u202eabc \xff\xfe red end' \
        'FAIL L: no exit event: no {"event":"exit",...} line: the kernel did not finish; it ends with: \xf0(\x8c\xbc\x9b' \
        "ktap: 1 passed, 2 failed, 0 skipped" || return 1
    out=$("$py" "$root/tools/ktap.py" "$tmp/noise.log" --kernel) || rc=$?
    if LC_ALL=C grep -n '[^[:print:]]' <<<"$out"; then
        echo "FAILED: ktap.py wrote the bytes above (not printable ASCII) to the terminal"
        return 1
    fi
}
t binary_noise_escaped binary_noise

ktap_report
