#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: the kernel's benchmark suite on real cores (build/bench-host/bench-suite and
# bench-suite-peer, tools/bench-host/suite.c; docs/host-build.md), with small counts on 2
# thread-CPUs: every benchmark runs for every scheme, every JSON line parses and says
# "accel":"host", "emulated":false; no self-check fails; each CPU's thread is pinned to a
# core of its own (as the kernel reports its affinity), also under taskset; the logs keep
# tools/benchreport.py's JSON contract (--check); IPIs go by
# signal or, with host_ipi=poll, by mailbox only (the run's counters), the remote and
# hackbench benchmarks checking every object either way; the peers (glibc's malloc and
# each of jemalloc, mimalloc, tcmalloc that is installed, by LD_PRELOAD) run hackbench,
# remote, scaling and latency under their own names, with that library's malloc. Bad
# options fail with a message. About 10 s on the busy 2-core development host.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
suite=$root/build/bench-host/bench-suite
peer=$root/build/bench-host/bench-suite-peer
libdir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

small=(cpus=2 bench_reps=1 remote_objects=3000 hackbench_groups=1 hackbench_loops=5
       scaling_ops=3000 latency_samples=500)
# Hangs only: a run takes about a second.
limit=300

have_build() {
    [ -x "$suite" ] && [ -x "$peer" ] && return 0
    echo "no $suite or $peer: run make host-tests"
    return 1
}

# check LOG [python conditions on the list `lines` of parsed JSON objects, `text`]: every line
# that starts with { parses, says accel host and not emulated, and no self-check failed.
check() {
    python3 - "$@" <<'EOF'
import json, sys
log, extra = sys.argv[1], sys.argv[2:]
text = open(log).read()
lines = []
for n, l in enumerate(text.splitlines(), 1):
    if not l.startswith("{"):
        continue
    try:
        o = json.loads(l)
    except ValueError as e:
        sys.exit(f"{log}:{n}: not JSON ({e}): {l[:120]}")
    if o.get("accel") != "host" or o.get("emulated") is not False:
        sys.exit(f"{log}:{n}: accel/emulated: {l[:160]}")
    lines.append(o)
if not lines:
    sys.exit(f"{log}: no JSON lines")
if "SELF-CHECK FAILED" in text or "PANIC" in text:
    sys.exit(next(l for l in text.splitlines() if "SELF-CHECK FAILED" in l or "PANIC" in l))
def one(bench):
    got = [o for o in lines if o["bench"] == bench]
    if len(got) != 1:
        sys.exit(f"{log}: {len(got)} {bench} lines")
    return got[0]
for cond in extra:
    if not eval(cond):
        sys.exit(f"{log}: not true: {cond}")
EOF
}

# run LOG CMD...: CMD's output (both streams) in LOG; exit 0 expected.
run() {
    local log=$1 rc=0
    shift
    timeout "$limit" "$@" >"$log" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc: $*"; tail -n 20 "$log"; return 1; }
}

every_benchmark_every_scheme() {
    have_build || return 1
    local schemes names
    run "$tmp/all.log" "$suite" bench=all "${small[@]}" || return 1
    names=$("$suite" bench=nope 2>&1 | sed -n 's/^bench: valid: none all //p')
    [ -n "$names" ] || { echo "bench=nope listed no benchmarks"; return 1; }
    only=" $("$suite" bench=nope 2>&1 | sed -n 's/^bench: not in all, by name only://p') "
    for b in $names; do
        [[ $only == *" $b "* ]] && continue # bench=sweep: a grid of its own, named
        grep -q "^== bench $b: [0-9]* ms ==" "$tmp/all.log" || { echo "bench $b did not run"; return 1; }
    done
    python3 "$root/tools/benchreport.py" --check "$tmp/all.log" >/dev/null || return 1
    schemes=$(sed -n 's/.*"benches":"[^"]*","schemes":"\([^"]*\)".*/\1/p' "$tmp/all.log")
    [ -n "$schemes" ] || { echo "no schemes on the meta line"; return 1; }
    check "$tmp/all.log" \
        "all(any(o['bench'] == 'remote' and o.get('scheme') == s for o in lines) for s in '$schemes'.split(','))" \
        "all(any(o['bench'] == 'hackbench' and o.get('scheme') == s for o in lines) for s in '$schemes'.split(','))" \
        "all('nivcsw' in o for o in lines if o['bench'] not in ('meta', 'host_meta', 'host_cpu', 'host_end'))" \
        "one('host_meta')['pin_errors'] == 0" \
        "one('host_end')['loadavg_end'] != ''"
}

# Pinned: CPU k's thread is bound to the k-th core the process may use, one core each.
pinned_one_core_each() {
    have_build || return 1
    local allowed
    allowed=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
    check "$tmp/all.log" \
        "sorted(o['core'] for o in lines if o['bench'] == 'host_cpu') == sorted([$allowed][:2])" \
        "[o['cpu_index'] for o in lines if o['bench'] == 'host_cpu'] == [0, 1]"
}

pinned_under_taskset() {
    have_build || return 1
    local last
    last=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
    run "$tmp/taskset.log" taskset -c "$last" "$suite" cpus=1 bench=fastpath scheme=lock bench_reps=1 || return 1
    check "$tmp/taskset.log" "[o['core'] for o in lines if o['bench'] == 'host_cpu'] == [$last]" \
        "one('host_meta')['cores_allowed'] == 1"
}

# IPIs by MODE: remote and hackbench, every object checked by the benchmarks themselves;
# the counters say which way the IPIs went.
ipis_by() {
    have_build || return 1
    local mode=$1 log=$tmp/ipi-$1.log
    run "$log" "$suite" host_ipi="$mode" bench=remote,hackbench "${small[@]}" || return 1
    if [ "$mode" = poll ]; then
        check "$log" "one('host_end')['ipi_signals'] == 0" "one('host_end')['ipi_posts'] > 0" \
            "one('host_meta')['host_ipi'] == 'poll'" \
            "any(o['bench'] == 'remote' and o.get('scheme') == 'ipi' and o['figure'] == 'ipis_per_1000_frees' and o['value'] > 0 for o in lines)"
    else
        check "$log" "one('host_end')['ipi_posts'] == 0" "one('host_end')['ipi_signals'] > 0" \
            "one('host_meta')['host_ipi'] == 'signal'" \
            "any(o['bench'] == 'remote' and o.get('scheme') == 'ipi' and o['figure'] == 'ipis_per_1000_frees' and o['value'] > 0 for o in lines)"
    fi
}

# A peer on the four benchmarks: its name as the scheme, its library's malloc.
peer_runs() {
    have_build || return 1
    local name=$1 lib=$2 log=$tmp/peer-$1.log pre=()
    if [ -n "$lib" ]; then
        [ -e "$libdir/$lib" ] || { echo "# SKIP $libdir/$lib is not installed (make bench-host installs it)"; return 0; }
        pre=(env "LD_PRELOAD=$libdir/$lib")
    fi
    run "$log" "${pre[@]}" "$peer" host_peer="$name" bench=hackbench,remote,scaling,latency \
        "${small[@]}" || return 1
    python3 "$root/tools/benchreport.py" --check "$log" >/dev/null || return 1
    check "$log" \
        "all(any(o['bench'] == b and o.get('scheme') == '$name' for o in lines) for b in ('hackbench', 'remote', 'scaling', 'latency'))" \
        "not any(o.get('scheme') not in (None, '$name') for o in lines if o['bench'] != 'summary')" \
        "'${lib:-libc.so}' in one('host_meta')['malloc_from']"
}

# bad_option EXPECT CMD...: exit 2 and a message with EXPECT.
bad_option() {
    have_build || return 1
    local want=$1 out rc=0
    shift
    out=$(timeout "$limit" "$@" 2>&1) || rc=$?
    [ "$rc" = 2 ] || { echo "exit $rc, not 2: $*: $out"; return 1; }
    grep -qF -- "$want" <<<"$out" || { echo "no '$want' in: $out"; return 1; }
}

t "every benchmark runs for every scheme on 2 thread-CPUs, JSON parses, self-checks pass" \
    every_benchmark_every_scheme
t "each CPU's thread is pinned to a core of its own" pinned_one_core_each
t "pinned to the one core taskset allows" pinned_under_taskset
t "signal IPIs: remote and hackbench, every object checked" ipis_by signal
t "poll mailbox IPIs: remote and hackbench, every object checked, no signal sent" ipis_by poll
t "peer glibc on hackbench, remote, scaling, latency" peer_runs glibc ""
t "peer jemalloc on hackbench, remote, scaling, latency" peer_runs jemalloc libjemalloc.so.2
t "peer mimalloc on hackbench, remote, scaling, latency" peer_runs mimalloc libmimalloc.so.2
t "peer tcmalloc on hackbench, remote, scaling, latency" peer_runs tcmalloc libtcmalloc.so.4
# A benchmark whose self-check fails (hackbench without the memory for its queues) makes the
# run exit 1 and say so.
self_check_failure_exits_1() {
    have_build || return 1
    local out rc=0
    out=$(timeout "$limit" "$suite" host_mem=64 bench=hackbench scheme=lock bench_reps=1 \
        hackbench_groups=1000 cpus=2 2>&1) || rc=$?
    [ "$rc" = 1 ] || { echo "exit $rc, not 1"; tail -n 5 <<<"$out"; return 1; }
    grep -q "SELF-CHECK FAILED: no memory for the queues" <<<"$out" ||
        { echo "no self-check failure in:"; tail -n 5 <<<"$out"; return 1; }
}

t "a failed self-check exits 1" self_check_failure_exits_1

# The micro-benchmarks (build/bench-host/bench-host, tools/bench-host/bench.c), two of their
# works only: a meta line and a figure for every slablab variant and glibc (no bulk API for
# glibc), the cmpxchg16b figures, every line in the JSON contract; a work that is none is
# refused.
micro=$root/build/bench-host/bench-host
micro_two_works() {
    [ -x "$micro" ] || { echo "no $micro: run make host-tests"; return 1; }
    run "$tmp/micro.log" "$micro" --quick --work pair-256,bulk-16 || return 1
    python3 "$root/tools/benchreport.py" --check "$tmp/micro.log" >/dev/null ||
        { python3 "$root/tools/benchreport.py" --check "$tmp/micro.log"; return 1; }
    check "$tmp/micro.log" \
        "one('meta')['benches'] == 'host'" \
        "len(set(o['work'] for o in lines if o['bench'] == 'host')) == 3" \
        "sorted(o['insn'] for o in lines if o.get('work') == 'insn') == ['add-chain', 'cmpxchg16b-local', 'cmpxchg16b-locked', 'cmpxchg8-local', 'load-add-store']" \
        "[o['value'] > 0.2 for o in lines if o.get('insn') == 'add-chain'] == [True]" \
        "all(any(o.get('scheme') == s and o.get('fastpath') == f and o['work'] == w and o['value'] > 0 for o in lines) for s, f in [('lock', 'irq'), ('lock', 'cmpxchg'), ('partial', 'irq'), ('partial', 'cmpxchg'), ('sheaves', 'irq')] for w in ('pair', 'bulk'))" \
        "[o['work'] for o in lines if o.get('allocator') == 'glibc'] == ['pair']" \
        "not any(o.get('work') in ('batch', 'spsc', 'spsc-noalloc', 'c2c') for o in lines)"
}
t "micro-benchmarks: the works asked for, every variant, the JSON contract" micro_two_works

# spsc brings the two figures it is read against, measured in each allocator's own process:
# the same ring with no allocator (spsc-noalloc) and the cores' round trip (c2c); every
# column has all three, only spsc has a rate, and the table shows them.
micro_spsc_with_noalloc() {
    [ -x "$micro" ] || { echo "no $micro: run make host-tests"; return 1; }
    [ "$(nproc)" -ge 2 ] || { echo "# SKIP spsc needs two cores, this process has $(nproc)"; return 0; }
    run "$tmp/spsc.log" "$micro" --quick --work spsc || return 1
    python3 "$root/tools/benchreport.py" --check "$tmp/spsc.log" >/dev/null ||
        { python3 "$root/tools/benchreport.py" --check "$tmp/spsc.log"; return 1; }
    grep -Eq '^c2c +[0-9.]+ ' "$tmp/spsc.log" && grep -Eq '^spsc-noalloc +[0-9.]+ ' "$tmp/spsc.log" ||
        { echo "no c2c or spsc-noalloc row in the table"; return 1; }
    check "$tmp/spsc.log" \
        "all(sorted(o['work'] for o in lines if o['bench'] == 'host' and o['figure'] != 'objects per second' and (o['allocator'], o.get('scheme'), o.get('fastpath')) == k) == ['c2c', 'spsc', 'spsc-noalloc'] for k in set((o['allocator'], o.get('scheme'), o.get('fastpath')) for o in lines if o['bench'] == 'host' and o['allocator'] != 'cpu'))" \
        "len([o for o in lines if o.get('work') == 'c2c']) == len([o for o in lines if o.get('work') == 'spsc-noalloc']) >= 6" \
        "all(o['figure'] == 'cycles per round trip' and o['value'] > 0 for o in lines if o.get('work') == 'c2c')" \
        "all(o['figure'] == 'cycles per object' and o['value'] > 0 for o in lines if o.get('work') == 'spsc-noalloc')" \
        "set(o['work'] for o in lines if o['figure'] == 'objects per second') == {'spsc'}"
}
t "micro-benchmarks: spsc with the ring alone and the cores' round trip" micro_spsc_with_noalloc
t "micro-benchmarks: --work with a work that is none is refused" bad_option \
    "no work named pair-7" "$micro" --work pair-256,pair-7
t "host_ipi=bogus is refused" bad_option "signal" "$suite" host_ipi=bogus bench=none
t "test= (a kernel option the suite has not) is refused" bad_option "test" "$suite" test=all
t "host_peer= without bench-suite-peer is refused" bad_option "bench-suite-peer" "$suite" \
    host_peer=glibc bench=none
t "scheme= with host_peer= is refused" bad_option "scheme=" "$peer" host_peer=glibc scheme=lock \
    bench=none
ktap_report
