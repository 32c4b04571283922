#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for make bench-linux's rounds (tools/bench-linux/rounds.sh): a ROUNDS that is not
# a whole number from 1 to 20 is refused with exit 2 and a message naming it, before any
# boot; so is a missing OUTDIR/slablab.iso and a wrong number of arguments. No boot runs
# here: every case stops at the checks (the combining of the rounds' logs is
# tests/host/test_benchreport.sh's rounds_fastest). Prints KTAP (flat).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=$root/tools/bench-linux/rounds.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# refused ROUNDS WANT: rounds.sh OUTDIR ROUNDS exits 2 and says WANT on stderr, and leaves
# OUTDIR's logs alone (it had not started).
refused() {
    local r=0
    echo keep >"$out/linux-1.log"
    "$rounds" "$out" "$1" >"$out/stdout" 2>"$out/stderr" || r=$?
    if [ "$r" != 2 ] || ! grep -qF -- "$2" "$out/stderr"; then
        echo "FAILED: ROUNDS='$1' exited $r, stderr:"; cat "$out/stderr"
        return 1
    fi
    if [ -s "$out/stdout" ] || [ "$(cat "$out/linux-1.log")" != keep ]; then
        echo "FAILED: ROUNDS='$1' started: $(cat "$out/stdout")"
        return 1
    fi
}

bad_rounds() {
    local v
    for v in 0 00 021 x 3x -1 21 100 '' ' 3' '3 4'; do
        refused "$v" "bench-linux: ROUNDS='$v' is not a number of rounds from 1 to 20" || return 1
    done
}

# A good ROUNDS gets as far as the ISO it boots: without one, exit 2 and say so.
no_iso() {
    local v
    for v in 1 3 20; do
        refused "$v" "bench-linux: no $out/slablab.iso (make bench-linux builds it)" || return 1
    done
}

usage() {
    local r=0
    "$rounds" "$out" >/dev/null 2>"$out/stderr" || r=$?
    [ "$r" = 2 ] && grep -q "usage: tools/bench-linux/rounds.sh OUTDIR ROUNDS" "$out/stderr" ||
        { echo "FAILED: one argument exited $r"; cat "$out/stderr"; return 1; }
}

t bad_rounds bad_rounds
t no_iso no_iso
t usage usage

ktap_report
