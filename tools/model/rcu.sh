#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model-checks tools/model/rcu.pml (kernel/rcu.c's grace periods, docs/rcu.md) with spin,
# and prints KTAP: one line per run.
#
#   tools/model/rcu.sh          what make test runs (tests/host/test_rcu_model.sh; about
#                               20 s on one CPU): 2 cpus exhaustive, 3 cpus bitstate (a
#                               partial search), and the three seeded bugs, each caught
#   tools/model/rcu.sh --full   make model: 2 cpus with more operations exhaustive, 3 cpus
#                               by bitstate with big bit arrays (an exhaustive 3-cpu search
#                               did not end in 20 minutes on the busy development host)
#
# Every run checks that no reader sees its object freed, that no cpu waits forever
# (invalid end states) and that, once nothing can move, every grace period asked for has
# ended and every callback has run. A seeded bug must make the run fail.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
model=$root/tools/model/rcu.pml
work=$root/build/model-rcu
full=0
[ "${1:-}" = --full ] && full=1

if ! command -v spin >/dev/null 2>&1; then
    printf 'KTAP version 1\n1..1\nok 1 rcu model # SKIP spin is not installed (apt-get install spin)\n'
    exit 0
fi
mkdir -p "$work"

bugs=("" "the RCU IPI ignores rcu_nesting (a grace period ends under a reader)"
    "call_rcu waits for gp_num, not gp_num + 1" "a waiter sets wake_gp after it looks at gp_done")
# "NCPU MAXOPS IRQ_READER SEARCH BUG": SEARCH is exhaustive or bitstate:W (2^W bits).
if [ "$full" = 1 ]; then
    runs=("2 3 1 exhaustive 0" "3 2 1 bitstate:30 0" "3 3 1 bitstate:31 0")
else
    runs=("2 2 1 exhaustive 0" "3 2 0 bitstate:22 0")
fi
runs+=("2 2 1 exhaustive 1" "2 2 1 exhaustive 2" "2 2 1 exhaustive 3")

# one N RUN: one run in its own directory; prints its KTAP line and comments.
one() {
    local n=$1 ncpu ops irq search bug name cflags panargs out errors states why t0
    read -r ncpu ops irq search bug <<<"$2"
    name="rcu: $ncpu cpus, $ops operations each, $search"
    [ "$irq" = 0 ] && name="$name, no interrupt-context readers"
    [ "$bug" != 0 ] && name="$name, seeded bug $bug is caught (${bugs[$bug]})"
    mkdir -p "$work/run$n" && cd "$work/run$n" || return 1
    cflags=(-O0 -DSAFETY -DMEMLIM=16000)
    [ "$full" = 1 ] && cflags[0]=-O2
    panargs=(-m2000000)
    case $search in
    exhaustive) cflags+=(-DCOLLAPSE) ;;
    bitstate:*) cflags+=(-DBITSTATE); panargs+=(-w"${search#bitstate:}" -k3) ;;
    esac
    t0=$SECONDS
    if ! spin -a -DNCPU="$ncpu" -DMAXOPS="$ops" -DIRQ_READER="$irq" -DBUG="$bug" "$model" >spin.log 2>&1 ||
        ! gcc "${cflags[@]}" -o pan pan.c >gcc.log 2>&1; then
        echo "not ok $n $name"
        sed 's/^/# /' spin.log gcc.log | head -20
        return 1
    fi
    rm -f rcu.pml.trail
    out=$(./pan "${panargs[@]}" 2>&1)
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$out" | head -1)
    why=$(grep -E 'assertion violated|invalid end state|max search depth too small' <<<"$out" | head -1)
    if [ -z "$errors" ]; then
        echo "not ok $n $name"
        sed 's/^/# /' <<<"$out" | head -20
        return 1
    elif [ "$bug" = 0 ] && [ "$errors" = 0 ] && ! grep -q 'max search depth too small' <<<"$out"; then
        echo "ok $n $name"
        echo "# $states states, $((SECONDS - t0)) s"
    elif [ "$bug" != 0 ] && [ "$errors" != 0 ]; then
        echo "ok $n $name"
        echo "# caught: $why"
    else
        echo "not ok $n $name"
        echo "# errors: $errors${why:+; $why}"
        [ -f rcu.pml.trail ] && echo "# trail: spin -t -p -DNCPU=$ncpu -DMAXOPS=$ops -DIRQ_READER=$irq -DBUG=$bug $model (in $work/run$n)"
        return 1
    fi
}

echo "KTAP version 1"
echo "1..${#runs[@]}"
bad=0
n=0
for r in "${runs[@]}"; do
    n=$((n + 1))
    one "$n" "$r" || bad=1
done
exit $bad
