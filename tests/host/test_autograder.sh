#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for make autograder (tools/lab.py autograder): the package of lab 3 in
# Gradescope's format (setup.sh and run_autograder at the top, executable; this tree in
# source/, no build/), then its run_autograder against a simulated /autograder (a folder of
# this test's, AUTOGRADER_ROOT) with two submissions: lab 3's handout with the solution's
# files in place must get full marks in results/results.json, a test per check with its
# points; the bare handout 0, every test with the grader's message. The two runs boot QEMU
# (about 8 boots): they run with TEST_LABS=all (make test-labs) and are skipped otherwise.
# KTAP (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zip=$tmp/autograder-lab3.zip

package() {
    local out
    out=$(make -s -C "$root" autograder LAB=3 OUT="$zip" 2>&1) || { echo "$out"; return 1; }
    mkdir -p "$tmp/pkg" && (cd "$tmp/pkg" && unzip -q "$zip") || { echo "unzip failed"; return 1; }
    for f in setup.sh run_autograder; do
        [ -x "$tmp/pkg/$f" ] || { echo "$f is not at the top of the zip, executable"; return 1; }
    done
    [ -f "$tmp/pkg/source/tools/lab.py" ] && [ -f "$tmp/pkg/source/Makefile" ] ||
        { echo "no source/ tree in the zip"; return 1; }
    [ ! -e "$tmp/pkg/source/build" ] || { echo "the zip has a build/"; return 1; }
    grep -q -- '--lab 3 ' "$tmp/pkg/run_autograder" || { echo "run_autograder does not grade lab 3"; return 1; }
}

# run_on NAME: an /autograder of its own (the package's source, built from this tree's
# objects so that it does not compile everything again) with submission/ prepared by the
# caller; runs run_autograder; its results.json in $tmp/NAME/results/results.json.
run_on() {
    local ag=$tmp/$1
    mkdir -p "$ag"
    cp -a "$tmp/pkg/source" "$ag/source"
    [ -d "$root/build" ] && mkdir -p "$ag/source/build" &&
        for d in arch bench gen init kernel mm tests; do
            [ -d "$root/build/$d" ] && cp -a "$root/build/$d" "$ag/source/build/"
        done
    AUTOGRADER_ROOT=$ag "$tmp/pkg/run_autograder" >"$ag/run.out" 2>&1
}

# results NAME SCORE: results.json has that score and a test per check of lab 3, each with
# name, score, max_score and output, scores adding up.
results() {
    python3 - "$tmp/$1/results/results.json" "$2" "$(python3 "$root/tools/lab.py" labs | awk '$1 == 3 { print $2 }')" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want, total = float(sys.argv[2]), float(sys.argv[3])
tests = r.get("tests", [])
assert tests, "no tests in results.json"
for t in tests:
    for k in ("name", "score", "max_score", "output"):
        assert k in t, "a test without %s: %s" % (k, t)
assert sum(t["max_score"] for t in tests) == total, "max_scores add up to %s, want %s" % (
    sum(t["max_score"] for t in tests), total)
assert sum(t["score"] for t in tests) == r["score"], "the tests' scores do not add up to score"
assert r["score"] == want, "score %s, want %s: %s" % (r["score"], want,
    [(t["name"], t["output"]) for t in tests if t["score"] < t["max_score"]][:3])
if want == 0:
    assert all("LAB3" in t["output"] for t in tests), "a test failed for another reason than " \
        "lab 3's stubs: %s" % [t["output"] for t in tests if "LAB3" not in t["output"]][:1]
PY
}

solved() {
    if [ "${TEST_LABS:-}" != all ]; then
        echo "# SKIP boots QEMU 4 times: make test-labs runs it"
        return 0
    fi
    python3 "$root/tools/lab.py" handout 3 "$tmp/solved/submission" >/dev/null || return 1
    # Lab 3 solved: the files that hold its code, the solution's, in place.
    for f in $(python3 "$root/tools/lab.py" markers | sed -n 's/^\([^:]*\):[0-9-]* LAB3$/\1/p' | sort -u); do
        cp "$root/$f" "$tmp/solved/submission/$f"
    done
    run_on solved || { cat "$tmp/solved/run.out"; return 1; }
    results solved "$(python3 "$root/tools/lab.py" labs | awk '$1 == 3 { print $2 }')" ||
        { tail -n 20 "$tmp/solved/run.out"; return 1; }
}

bare_handout() {
    if [ "${TEST_LABS:-}" != all ]; then
        echo "# SKIP boots QEMU 4 times: make test-labs runs it"
        return 0
    fi
    # Uploaded as a folder: the tree one level down.
    python3 "$root/tools/lab.py" handout 3 "$tmp/bare/submission/lab3" >/dev/null || return 1
    run_on bare || { cat "$tmp/bare/run.out"; return 1; }
    results bare 0 || { tail -n 20 "$tmp/bare/run.out"; return 1; }
}

t package package
t solved solved
t bare_handout bare_handout
ktap_report
