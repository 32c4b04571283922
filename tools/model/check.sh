#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model-checks slablab's Promela models with spin and prints KTAP: one line per run.
#
#   tools/model/check.sh [--model NAME]...          what make test runs: each model's short
#                                                   pass and its seeded bugs, which must be
#                                                   caught (the runs side by side on as many
#                                                   CPUs as there are; MODEL_JOBS=N to choose)
#   tools/model/check.sh --full [--model NAME]...   make model: larger workloads, more cpus
#
# The models (tools/model/NAME.pml), each with a runs_NAME function below that lists its
# runs; a new model is a .pml file, its runs_ function and its name in `models`:
#   ipi   mm/scheme_ipi.c's remote frees and ownership transfer (docs/ipi-protocol.md).
#         Every run checks the asserts (only a slab's owner changes it, no double free, a
#         slab goes back to the page allocator with nothing in flight), invalid end states
#         (deadlock), the quiet-state check (with IPIs nothing is left waiting) and the end
#         state after destroy's flush rounds (every object home, every list empty, every
#         page given back). Short: 2 cpus, every scheme, exhaustive; 3 cpus, every scheme,
#         bitstate (a partial search); two seeded bugs.
#   barn  mm/scheme_sheaves.c's sheaves and barn: barn_get, barn_put, barn_exchange and the
#         hand-over of sheaves between cpus (the model's header says what is checked).
#         Short: a producer and a consumer cpu, exhaustive; two seeded bugs (an exchange
#         that loses the sheaf it is given, a barn_put without the lock).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$root/build/model
models=(ipi barn)
full=0
only=()
while [ $# -gt 0 ]; do
    case $1 in
    --full) full=1 ;;
    --model)
        [ $# -ge 2 ] || { echo "check.sh: --model needs a name (${models[*]})" >&2; exit 2; }
        [ -f "$root/tools/model/$2.pml" ] || { echo "check.sh: no model $2 (${models[*]})" >&2; exit 2; }
        only+=("$2")
        shift
        ;;
    *) echo "usage: check.sh [--full] [--model NAME]..." >&2; exit 2 ;;
    esac
    shift
done
[ ${#only[@]} -gt 0 ] && models=("${only[@]}")

if ! command -v spin >/dev/null 2>&1; then
    echo "KTAP version 1"
    echo "1..1"
    echo "ok 1 ${models[*]} model # SKIP spin is not installed (apt-get install spin)"
    exit 0
fi
mkdir -p "$work"
cd "$work" || exit 2

# A run: "MODEL|NAME|SEARCH|BUG|DEFINES". SEARCH is exhaustive or bitstate:W (2^W bits);
# BUG 0 must pass, BUG n > 0 (a seeded bug, -DBUG=n) must be caught; DEFINES are the
# model's -D settings, NAME=VALUE separated by spaces.
runs=()
runs_ipi() {
    local mode_name=(ipi ipi-batch remote-atomic) m
    if [ "$full" = 1 ]; then
        for m in 0 1 2; do runs+=("ipi|2 cpus, ${mode_name[$m]}, exhaustive|exhaustive|0|NCPU=2 MODE=$m MAXOPS=2 OPSN=2"); done
        runs+=("ipi|3 cpus, remote-atomic, exhaustive|exhaustive|0|NCPU=3 MODE=2 MAXOPS=2 OPSN=1")
        for m in 0 1; do runs+=("ipi|3 cpus, ${mode_name[$m]}, bitstate:31|bitstate:31|0|NCPU=3 MODE=$m MAXOPS=2 OPSN=1"); done
    else
        for m in 0 1 2; do runs+=("ipi|2 cpus, ${mode_name[$m]}, exhaustive|exhaustive|0|NCPU=2 MODE=$m MAXOPS=2 OPSN=1"); done
        for m in 0 1 2; do runs+=("ipi|3 cpus, ${mode_name[$m]}, bitstate:22|bitstate:22|0|NCPU=3 MODE=$m MAXOPS=2 OPSN=1"); done
    fi
    runs+=("ipi|2 cpus, ipi-batch, exhaustive, seeded bug 1 is caught|exhaustive|1|NCPU=2 MODE=1 MAXOPS=2 OPSN=1")
    runs+=("ipi|2 cpus, ipi, exhaustive, seeded bug 2 is caught|exhaustive|2|NCPU=2 MODE=0 MAXOPS=2 OPSN=1")
}
runs_barn() {
    if [ "$full" = 1 ]; then
        runs+=("barn|barn: 2 cpus, each allocating and freeing, 4 operations, exhaustive|exhaustive|0|NCPU=2 OPS=4 ROLES=0")
        runs+=("barn|barn: 3 cpus, producer, consumer and both, 2 operations, exhaustive|exhaustive|0|NCPU=3 OPS=2 ROLES=1")
        runs+=("barn|barn: 3 cpus, each allocating and freeing, 3 operations, bitstate:31|bitstate:31|0|NCPU=3 OPS=3 ROLES=0")
    else
        runs+=("barn|barn: 2 cpus, producer and consumer, 3 operations, exhaustive|exhaustive|0|NCPU=2 OPS=3 ROLES=1")
    fi
    runs+=("barn|barn: 2 cpus, producer and consumer, seeded bug 1 (an exchange loses its sheaf) is caught|exhaustive|1|NCPU=2 OPS=3 ROLES=1")
    runs+=("barn|barn: 2 cpus, producer and consumer, seeded bug 2 (barn_put without the lock) is caught|exhaustive|2|NCPU=2 OPS=3 ROLES=1")
}
for m in "${models[@]}"; do "runs_$m"; done

# one N RUN: checks one run in its own directory and prints its KTAP line (and comments).
one() {
    local n=$1 model name search bug defines defs=() d cflags panargs t0 out secs errors states mem why
    IFS='|' read -r model name search bug defines <<<"$2"
    for d in $defines; do defs+=("-D$d"); done
    defs+=("-DBUG=$bug")
    mkdir -p "$work/run$n"
    cd "$work/run$n" || return 1
    # -O0 in the quick runs: gcc -O2 takes longer on pan.c than the searches themselves.
    cflags=(-O0 -DSAFETY -DMEMLIM=$memlim)
    [ "$full" = 1 ] && cflags[0]=-O2
    panargs=(-m2000000)
    case $search in
    exhaustive) cflags+=(-DCOLLAPSE) ;;
    bitstate:*) cflags+=(-DBITSTATE); panargs+=(-w"${search#bitstate:}" -k3) ;;
    esac
    t0=${EPOCHREALTIME/./}
    if ! spin -a "${defs[@]}" "$root/tools/model/$model.pml" >spin.log 2>&1 ||
        ! gcc "${cflags[@]}" -o pan pan.c >gcc.log 2>&1; then
        echo "not ok $n $name"
        sed 's/^/# /' spin.log gcc.log | head -20
        return 1
    fi
    rm -f "$model.pml.trail"
    out=$(./pan "${panargs[@]}" 2>&1)
    secs=$(( (${EPOCHREALTIME/./} - t0) / 1000000 ))
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$out" | head -1)
    mem=$(sed -n 's/^ *\([0-9.]*\)[[:space:]]*total actual memory usage.*/\1/p' <<<"$out" | head -1)
    why=$(grep -E 'pan:[0-9]+: (assertion violated|invalid end state)|max search depth too small|reached -DMEMLIM bound|Search not completed' <<<"$out" |
        head -1)
    if [ -z "$errors" ]; then
        echo "not ok $n $name"
        sed 's/^/# /' <<<"$out" | head -20
        return 1
    elif [ "$bug" = 0 ] && [ "$errors" = 0 ] && [ -z "$why" ]; then
        echo "ok $n $name"
        echo "# $states states, ${secs} s${mem:+, ${mem%.*} MB}"
    elif [ "$bug" != 0 ] && [ "$errors" != 0 ]; then
        echo "ok $n $name"
        echo "# caught: $why"
    else
        echo "not ok $n $name"
        echo "# errors: $errors${why:+; $why}"
        [ -f "$model.pml.trail" ] && echo "# trail: spin -t -p ${defs[*]} $root/tools/model/$model.pml (in $work/run$n)"
        return 1
    fi
}

# The runs are independent: as many at once as there are CPUs (MODEL_JOBS=N to choose),
# each printing into its own file, printed in order at the end. Each model's runs go into
# a directory of their own (build/model/NAME/, build/model/full-NAME/), so two models, or a
# short pass and make model, can be checked at once.
jobs=${MODEL_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
# Every pan stops at MODEL_MEMORY_MB (8000) shared among the runs side by side (pan's
# MEMLIM): the machine is shared, and a search that needs more says so and fails.
memory=${MODEL_MEMORY_MB:-8000}
[[ $memory =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: MODEL_MEMORY_MB=$memory: want megabytes" >&2; exit 2; }
memlim=$((memory / jobs))
work=$work/$([ "$full" = 1 ] && echo full-)$(IFS=-; echo "${models[*]}")
mkdir -p "$work"
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
