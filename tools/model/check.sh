#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model-checks tools/model/ipi.pml (the ipi schemes' remote-free and ownership-transfer
# protocol, docs/ipi-protocol.md) with spin, and prints KTAP: one line per run.
#
#   tools/model/check.sh           what make test runs (about half a minute on one CPU, the
#                                  runs side by side on as many as there are): 2 cpus, every
#                                  scheme, exhaustive; 3 cpus, every scheme, bitstate (a
#                                  partial search); and two seeded bugs that must be caught
#   tools/model/check.sh --full    make model: larger workloads, 3 cpus exhaustive where it
#                                  fits in memory, bitstate with a big bit array otherwise
#
# Every run checks the asserts (only a slab's owner changes it, no double free, a slab
# goes back to the page allocator with nothing in flight), invalid end states (deadlock),
# the quiet-state check (with IPIs nothing is left waiting) and the end state after
# destroy's flush rounds (every object home, every list empty, every page given back).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
model=$root/tools/model/ipi.pml
work=$root/build/model
full=0
[ "${1:-}" = --full ] && full=1

if ! command -v spin >/dev/null 2>&1; then
    echo "KTAP version 1"
    echo "1..1"
    echo "ok 1 ipi protocol model # SKIP spin is not installed (apt-get install spin)"
    exit 0
fi
mkdir -p "$work"
cd "$work" || exit 2

mode_name=(ipi ipi-batch remote-atomic)
runs=()
# run "NCPU MODE OPS0 OPSN SEARCH BUG": SEARCH is exhaustive or bitstate:W (2^W bits);
# BUG 0 must pass, BUG n > 0 (a seeded bug) must be caught.
if [ "$full" = 1 ]; then
    for m in 0 1 2; do runs+=("2 $m 2 2 exhaustive 0"); done
    runs+=("3 2 2 1 exhaustive 0")
    for m in 0 1; do runs+=("3 $m 2 1 bitstate:31 0"); done
else
    for m in 0 1 2; do runs+=("2 $m 2 1 exhaustive 0"); done
    for m in 0 1 2; do runs+=("3 $m 2 1 bitstate:22 0"); done
fi
runs+=("2 1 2 1 exhaustive 1" "2 0 2 1 exhaustive 2")

# one N RUN: checks one run in its own directory and prints its KTAP line (and comments).
one() {
    local n=$1 ncpu mode ops0 opsn search bug name defs cflags panargs t0 out secs errors states why
    read -r ncpu mode ops0 opsn search bug <<<"$2"
    name="$ncpu cpus, ${mode_name[$mode]}, $search"
    [ "$bug" != 0 ] && name="$name, seeded bug $bug is caught"
    mkdir -p "$work/run$n"
    cd "$work/run$n" || return 1
    defs=(-DNCPU="$ncpu" -DMODE="$mode" -DMAXOPS="$ops0" -DOPSN="$opsn" -DBUG="$bug")
    # -O0 in the quick runs: gcc -O2 takes longer on pan.c than the searches themselves.
    cflags=(-O0 -DSAFETY -DMEMLIM=8000)
    [ "$full" = 1 ] && cflags[0]=-O2
    panargs=(-m2000000)
    case $search in
    exhaustive) cflags+=(-DCOLLAPSE) ;;
    bitstate:*) cflags+=(-DBITSTATE); panargs+=(-w"${search#bitstate:}" -k3) ;;
    esac
    t0=${EPOCHREALTIME/./}
    if ! spin -a "${defs[@]}" "$model" >spin.log 2>&1 ||
        ! gcc "${cflags[@]}" -o pan pan.c >gcc.log 2>&1; then
        echo "not ok $n $name"
        sed 's/^/# /' spin.log gcc.log | head -20
        return 1
    fi
    rm -f ipi.pml.trail
    out=$(./pan "${panargs[@]}" 2>&1)
    secs=$(( (${EPOCHREALTIME/./} - t0) / 1000000 ))
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$out" | head -1)
    why=$(grep -E 'assertion violated|invalid end state|max search depth too small' <<<"$out" |
        head -1)
    if [ -z "$errors" ]; then
        echo "not ok $n $name"
        sed 's/^/# /' <<<"$out" | head -20
        return 1
    elif [ "$bug" = 0 ] && [ "$errors" = 0 ] && ! grep -q 'max search depth too small' <<<"$out"; then
        echo "ok $n $name"
        echo "# $states states, ${secs} s"
    elif [ "$bug" != 0 ] && [ "$errors" != 0 ]; then
        echo "ok $n $name"
        echo "# caught: $why"
    else
        echo "not ok $n $name"
        echo "# errors: $errors${why:+; $why}"
        [ -f ipi.pml.trail ] && echo "# trail: spin -t -p ${defs[*]} $model (in $work/run$n)"
        return 1
    fi
}

# The runs are independent: as many at once as there are CPUs (MODEL_JOBS=N to choose),
# each printing into its own file, printed in order at the end.
jobs=${MODEL_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
echo "KTAP version 1"
echo "1..${#runs[@]}"
n=0
running=0
for r in "${runs[@]}"; do
    n=$((n + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    (one "$n" "$r" >"$work/run$n.out" 2>&1; echo $? >"$work/run$n.rc") &
    running=$((running + 1))
done
wait
bad=0
for ((i = 1; i <= n; i++)); do
    cat "$work/run$i.out"
    [ "$(cat "$work/run$i.rc" 2>/dev/null)" = 0 ] || bad=1
done
exit $bad
