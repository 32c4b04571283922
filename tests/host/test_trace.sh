#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test of slab traces (docs/traces.md): tools/trace/slabtrace.py and the kernel's reader
# (bench/trace.c, built as build/host/trace_check and inside build/trace/slabtrace check) on
# the same files: good traces (generated ones, the checked-in recording
# tests/traces/python-threads.trace, version 1 and 2) give the same counts in all three;
# each kind of bad trace is refused by all with what and where, or counted and skipped as
# the format says; the converters from Linux's kmem (and RCU) events on real captures, the
# C one (build/trace/slabtrace from-linux) writing what the Python one writes, byte for
# byte; the LD_PRELOAD recorder (tools/trace/record) on real programs (python3 with threads,
# sort) makes traces both accept. Flat KTAP, like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tool=$root/tools/trace/slabtrace.py
kcheck=$root/build/host/trace_check
ctool=$root/build/trace/slabtrace
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The bad traces and a few good ones, made with the format's writer.
PYTHONPATH=$root/tools/trace "$py" - "$out" <<'PY'
import sys, struct
import slabtrace as st
out = sys.argv[1]

def good(streams=2):
    w = st.TraceWriter("test", streams)
    c = w.add_cache("conn", 200, 8, st.CACHE_FLAG_HWCACHE_ALIGN)
    w.event(0, st.EV_ALLOC, 10, 0, c)
    w.event(0, st.EV_KMALLOC, 20, 1, 100)
    w.event(1, st.EV_FREE, 30, 0, c)
    w.event(1, st.EV_KFREE, 40, 1)
    return w

def save(name, data):
    open(f"{out}/{name}", "wb").write(data)

save("good", good().to_bytes())
save("truncated-header", good().to_bytes()[:40])
save("truncated-event", good().to_bytes()[:-1])
w = good(); w.raw(1, bytes([st.EV_KFREE]))
save("truncated-in-event", w.to_bytes())
save("not-a-trace", b"#!/bin/sh\necho this is not a trace\n" * 4)
save("wrong-version", good().to_bytes(version=3))
save("good-as-v2", good().to_bytes(version=2))
w = good(); w.raw(1, bytes([st.EV_KFREE_RCU, 1, 1]))
save("v1-kfree-rcu", w.to_bytes(version=1))

def v2(streams=3):
    """Version 2: a kfree_rcu on stream 0, its rcu_free on stream 1 before it (it waits);
    a node, nolock calls; one object still handed to RCU at the end."""
    w = st.TraceWriter("test-v2", streams)
    c = w.add_cache("conn", 200, 8, st.CACHE_FLAG_HWCACHE_ALIGN)
    w.event(0, st.EV_ALLOC, 10, 0, c, node=1)
    w.event(0, st.EV_KMALLOC, 20, 1, 100, nolock=True)
    w.event(1, st.EV_RCU_FREE, 25, 0)
    w.event(0, st.EV_KFREE_RCU, 30, 0)
    w.event(0, st.EV_KFREE, 40, 1, nolock=True)
    w.event(0, st.EV_KMALLOC, 50, 2, 64, node=0)
    w.event(1, st.EV_KFREE_RCU, 60, 2)
    return w

save("v2", v2().to_bytes())
w = v2(); w.event(1, st.EV_KFREE, 70, 2)
save("v2-free-of-rcu", w.to_bytes())
w = v2(); w.event(1, st.EV_KFREE_RCU, 70, 2)
save("v2-kfree-rcu-twice", w.to_bytes())
w = v2(); w.event(2, st.EV_RCU_FREE, 70, 1)
save("v2-rcu-free-without-call", w.to_bytes())
w = v2(); w.raw(1, bytes([st.EV_KFREE | 0x40, 1, 1]))
save("v2-unknown-flags", w.to_bytes())
w = v2(); w.raw(1, bytes([st.EV_KFREE | st.EVF_NODE, 1, 1, 0]))
save("v2-node-on-free", w.to_bytes())
w = v2(); w.raw(1, bytes([st.EV_RCU_FREE | st.EVF_NOLOCK, 1, 0]))
save("v2-nolock-rcu-free", w.to_bytes())
w = v2(); w.event(2, st.EV_KMALLOC, 70, 3, 64, node=st.MAX_NODES); w.nr_ids = 4
save("v2-node-too-big", w.to_bytes())
w = v2(); w.raw(2, bytes([7, 1, 1]))
save("v2-unknown-event", w.to_bytes())
# each rcu_free waits for a kfree_rcu that comes after the other's rcu_free
w = st.TraceWriter("test-v2", 3)
w.event(2, st.EV_KMALLOC, 10, 0, 64); w.event(2, st.EV_KMALLOC, 20, 1, 64)
w.event(0, st.EV_RCU_FREE, 30, 0); w.event(0, st.EV_KFREE_RCU, 40, 1)
w.event(1, st.EV_RCU_FREE, 30, 1); w.event(1, st.EV_KFREE_RCU, 40, 0)
save("v2-deadlock", w.to_bytes())
st.synth("rcu", 3, 3000, 5).write(f"{out}/synth-rcu")
w = good(); w.raw(1, bytes([9, 1, 2]))
save("unknown-event", w.to_bytes())
w = good(); w.event(0, st.EV_ALLOC, 50, 2, 5)
save("unknown-cache", w.to_bytes())
d = bytearray(good().to_bytes()); struct.pack_into("<I", d, 12, st.MAX_STREAMS + 1)
save("too-many-streams", bytes(d))
w = good(); w.event(1, st.EV_KFREE, 50, 7); w.nr_ids = 8
save("never-allocated", w.to_bytes())
w = good(); w.event(1, st.EV_KFREE, 50, 1)
save("double-free", w.to_bytes())
w = good(); w.event(0, st.EV_KMALLOC, 50, 2, 0); w.event(0, st.EV_KFREE, 60, 2)
w.event(0, st.EV_KMALLOC, 70, 3, (4096 << 10) + 1); w.event(0, st.EV_KFREE, 80, 3)
w.event(0, st.EV_KMALLOC, 90, 4, 20000); w.event(1, st.EV_KFREE, 100, 4)
save("sizes", w.to_bytes())
w = good(); w.event(0, st.EV_KMALLOC, 50, 1, 64)
save("allocated-twice", w.to_bytes())
w = st.TraceWriter("test", 2)
w.event(0, st.EV_KFREE, 10, 0); w.event(0, st.EV_KMALLOC, 20, 1, 64)
w.event(1, st.EV_KFREE, 10, 1); w.event(1, st.EV_KMALLOC, 20, 0, 64)
save("deadlock", w.to_bytes())
w = st.TraceWriter("test", 1)
w.add_cache("huge", 40000)
save("cache-too-big", w.to_bytes())
d = bytearray(good().to_bytes()); struct.pack_into("<Q", d, 16, 5)
save("event-count", bytes(d))
st.synth("pairs", 4, 2000, 3).write(f"{out}/pairs")
st.synth("mixed", 3, 3000, 4).write(f"{out}/mixed")
PY

# verdict WHO RC OUTPUT WANT_RC BAD GOOD: one reader's exit status and words: for a bad trace
# (WANT_RC 1) exactly BAD, for a good one GOOD among them (if GOOD is not empty).
verdict() {
    local who=$1 rc=$2 o=$3 want=$4 bad=$5 good=$6
    if [ "$rc" != "$want" ]; then
        echo "$who exited $rc, want $want: $o"
        return 1
    fi
    if [ "$want" != 0 ] && [ "$o" != "$bad" ]; then
        echo "$who said: $o"
        echo "want: $bad"
        return 1
    fi
    if [ "$want" = 0 ] && [ -n "$good" ] && [[ $o != *"$good"* ]]; then
        echo "$who said: $o; want it to say $good"
        return 1
    fi
}

# both FILE RC WHAT [KWHAT]: slabtrace.py check, trace_check and slabtrace check (C) exit RC,
# and say WHAT (for a bad trace: their message after "FILE: " and "bad: " is WHAT; the
# kernel's reader's, in trace_check and the C tool, KWHAT where it is worded otherwise).
both() {
    local f=$out/$1 rc o
    rc=0
    o=$("$py" "$tool" check "$f" 2>&1) || rc=$?
    verdict "slabtrace.py check $1" "$rc" "$o" "$2" "slabtrace: $f: $3" "$3" || return 1
    rc=0
    o=$("$kcheck" "$f" 2>&1) || rc=$?
    verdict "trace_check $1" "$rc" "$o" "$2" "bad: ${4:-$3}" "" || return 1
    rc=0
    o=$("$ctool" check "$f" 2>&1) || rc=$?
    # (the C tool's summary has no remote_frees)
    verdict "slabtrace check $1" "$rc" "$o" "$2" "slabtrace: $f: ${4:-$3}" "${3/*remote_frees*/}"
}

# kcounts FILE WANT: trace_check's counts line.
kcounts() {
    local o
    o=$("$kcheck" "$out/$1" 2>&1) || true
    if [ "$o" != "ok $2" ]; then
        echo "trace_check $1: $o"
        echo "want:        ok $2"
        return 1
    fi
}

# same FILE: slabtrace.py, trace_check and slabtrace check (C) agree on allocs, frees and
# live objects, and on version 2's counts.
same() {
    local o k c a f l v2
    o=$("$py" "$tool" check "$1") || { echo "$o"; return 1; }
    a=$(sed -n 's/.*allocs \([0-9]*\),.*/\1/p' <<<"$o")
    f=$(sed -n 's/.* frees \([0-9]*\),.*/\1/p' <<<"$o")
    l=$(sed -n 's/.*live_at_end \([0-9]*\),.*/\1/p' <<<"$o")
    k=$("$kcheck" "$1") || { echo "$k"; return 1; }
    if [[ $k != *" allocs $a frees $f "* ]] || [[ $k != *" live_at_end $l "* ]]; then
        echo "slabtrace.py: $o"
        echo "trace_check:  $k"
        return 1
    fi
    c=$("$ctool" check "$1") || { echo "$c"; return 1; }
    v2=$(grep '^  kfree_rcu' <<<"$o" || true)
    if [[ $c != *"allocs $a, frees $f, live_at_end $l,"* ]] ||
        [ "$v2" != "$(grep '^  kfree_rcu' <<<"$c" || true)" ]; then
        echo "slabtrace.py:    $o"
        echo "slabtrace check: $c"
        return 1
    fi
    [ "$a" -gt 0 ]
}

t good both good 0 "2 streams, 1 caches, 4 events, 2 ids"
t good_counts kcounts good "events 4 allocs 2 frees 2 never_allocated 0 double_free 0 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2 duration_ns 40 kfree_rcu 0 rcu_frees 0 rcu_pending_at_end 0 nolock 0 node_allocs 0"
t truncated_header both truncated-header 1 "truncated: 40 bytes, the header alone has 72"
t truncated_event both truncated-event 1 "truncated: stream 1's 7 bytes at 176 end past the file's 182"
t truncated_in_event both truncated-in-event 1 "stream 1 event 2: truncated in its time"
t not_a_trace both not-a-trace 1 "not a slab trace (no SLABTRCE magic at the start)"
t wrong_version both wrong-version 1 "format version 3, this tool reads versions 1 and 2" "format version 3, this kernel reads versions 1 and 2"
t unknown_event both unknown-event 1 "stream 1 event 2: unknown event type 9"
t unknown_cache both unknown-cache 1 "stream 0 event 2: unknown cache 5 (the trace has 1)"
t too_many_streams both too-many-streams 1 "1025 streams: the format allows 1..1024"
t never_allocated both never-allocated 0 "free_never_allocated 1"
t never_allocated_counts kcounts never-allocated "events 5 allocs 2 frees 2 never_allocated 1 double_free 0 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2 duration_ns 50 kfree_rcu 0 rcu_frees 0 rcu_pending_at_end 0 nolock 0 node_allocs 0"
t double_free both double-free 0 "double_free 1"
t double_free_counts kcounts double-free "events 5 allocs 2 frees 2 never_allocated 0 double_free 1 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2 duration_ns 50 kfree_rcu 0 rcu_frees 0 rcu_pending_at_end 0 nolock 0 node_allocs 0"
t sizes both sizes 0 "size_zero 1, size_too_big 1"
t sizes_counts kcounts sizes "events 10 allocs 5 frees 5 never_allocated 0 double_free 0 size_zero 1 size_too_big 1 page_allocs 1 live_at_end 0 peak_live 3 duration_ns 100 kfree_rcu 0 rcu_frees 0 rcu_pending_at_end 0 nolock 0 node_allocs 0"
t allocated_twice both allocated-twice 1 "stream 0 event 2: id 1 allocated again (first at stream 0 event 1); a trace gives every allocation a new id" "stream 0 event 2: id 1 allocated again (a trace gives every allocation a new id)"
t deadlock both deadlock 1 "stream 0 event 0: deadlock: the free of id 0 waits for its allocation (stream 1 event 1), which waits too" "stream 0 event 0: deadlock: the free of id 0 waits for its allocation, and every stream that could make it waits too"
t cache_too_big both cache-too-big 1 "cache 0 (huge): object size 40000, the kernel takes 1..32768"
t event_count both event-count 1 "the streams hold 4 events, the header says 5"
# version 2: kfree_rcu and rcu_free, nodes, nolock; version 1 has no such events
t v2_good both v2 0 "version 2, source test-v2, 3 streams, 1 caches, 7 events, 3 ids"
t v2_counts kcounts v2 "events 7 allocs 3 frees 2 never_allocated 0 double_free 0 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 1 peak_live 2 duration_ns 60 kfree_rcu 2 rcu_frees 1 rcu_pending_at_end 1 nolock 2 node_allocs 2"
t v2_same same "$out/v2"
t v2_of_v1_events both good-as-v2 0 "version 2, source test, 2 streams, 1 caches, 4 events, 2 ids"
t v1_has_no_kfree_rcu both v1-kfree-rcu 1 "stream 1 event 2: unknown event type 5"
t v2_free_of_rcu_object kcounts v2-free-of-rcu "events 8 allocs 3 frees 2 never_allocated 0 double_free 1 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 1 peak_live 2 duration_ns 70 kfree_rcu 2 rcu_frees 1 rcu_pending_at_end 1 nolock 2 node_allocs 2"
t v2_free_of_rcu_object_both both v2-free-of-rcu 0 "double_free 1"
t v2_kfree_rcu_twice both v2-kfree-rcu-twice 0 "double_free 1"
t v2_rcu_free_without_call both v2-rcu-free-without-call 1 "stream 2 event 0: rcu_free of id 1, which no kfree_rcu hands to RCU"
t v2_unknown_flags both v2-unknown-flags 1 "stream 1 event 2: unknown event flags 0x40"
t v2_node_on_free both v2-node-on-free 1 "stream 1 event 2: a node on a kfree (only allocations have one)"
t v2_nolock_rcu_free both v2-nolock-rcu-free 1 "stream 1 event 2: nolock on an rcu_free (RCU frees it, not a caller)"
t v2_node_too_big both v2-node-too-big 1 "stream 2 event 0: node 1024, the format allows 0..1023"
t v2_unknown_event both v2-unknown-event 1 "stream 2 event 0: unknown event type 7"
t v2_deadlock both v2-deadlock 1 "stream 0 event 0: deadlock: the rcu_free of id 0 waits for its kfree_rcu, which waits too" "stream 0 event 0: deadlock: the rcu_free of id 0 waits for its kfree_rcu, and every stream that could make it waits too"
t synth_rcu same "$out/synth-rcu"
t synth_pairs same "$out/pairs"
t synth_mixed same "$out/mixed"
t checked_in_recording same "$root/tests/traces/python-threads.trace"

# The recorder on real programs: python3 with two threads handing objects over a queue
# (PYTHONMALLOC=malloc: every object from malloc), and sort on a file of 20000 lines.
record_python() {
    local o
    o=$(cd "$out" && PYTHONMALLOC=malloc "$root/tools/trace/record" -o py.trace "$py" -S -I \
        "$root/tests/traces/threads.py" 2>&1) || { echo "$o"; return 1; }
    [[ $o == *"slabtrace: py.trace: 3 streams, "* ]] || { echo "record said: $o"; return 1; }
    same "$out/py.trace" || return 1
    # the consumer thread frees what the producer allocated: frees on another stream
    o=$("$py" "$tool" check "$out/py.trace")
    [[ $o =~ remote_frees\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 100 ] ||
        { echo "too few remote frees: $o"; return 1; }
}
record_sort() {
    local o
    seq 20000 | sed 's/$/ line of text/' | shuf --random-source=<(yes) >"$out/lines"
    o=$(cd "$out" && "$root/tools/trace/record" -o sort.trace sort -o sorted lines 2>&1) ||
        { echo "$o"; return 1; }
    sort "$out/lines" | cmp -s - "$out/sorted" || { echo "sort's output changed under the recorder"; return 1; }
    same "$out/sort.trace" || return 1
    o=$("$py" "$tool" check "$out/sort.trace")
    [[ $o == *"source ldpreload:sort,"* ]] || { echo "no source ldpreload:sort in: $o"; return 1; }
}
record_exit_code() {
    local rc=0
    (cd "$out" && "$root/tools/trace/record" -o false.trace sh -c 'ls / >/dev/null; exit 3') >/dev/null 2>&1 || rc=$?
    [ "$rc" = 3 ] || { echo "record of a program that exits 3 exited $rc"; return 1; }
    "$kcheck" "$out/false.trace" >/dev/null
}
# The converters on real captures of Linux 6.1 running hackbench (tests/traces/linux/, made by
# tools/trace/linux/capture.sh, each 2000 lines from the middle of its text): each gives a trace both
# readers accept, with a stream per CPU, caches named as Linux named them (learned from
# the frees: 6.1's kmem_cache_alloc has no name=), and the counts a cut-out trace has.
# linux_sample WORKLOAD.FORMAT STREAMS CACHE...: tests/traces/linux/WORKLOAD.FORMAT.txt
linux_sample() {
    local fmt=$1 streams=$2 o k
    shift 2
    o=$("$py" "$tool" from-linux "$root/tests/traces/linux/$fmt.txt" -o "$out/l-$fmt.trace" 2>&1) ||
        { echo "$o"; return 1; }
    [[ $o == *"slabtrace: $out/l-$fmt.trace: $streams streams (CPUs), "* ]] || { echo "from-linux said: $o"; return 1; }
    [[ $o == *"frees of objects allocated before the trace began (skipped): "* ]] ||
        { echo "no frees from before the trace counted: $o"; return 1; }
    [[ $o == *"objects live at the end (freed at the end of the replay): "* ]] ||
        { echo "no live objects counted: $o"; return 1; }
    same "$out/l-$fmt.trace" || return 1
    k=$("$py" "$tool" dump "$out/l-$fmt.trace" -n 0)
    for c in "$@"; do
        grep -qx "cache [0-9]* $c" <<<"$k" || { echo "no cache '$c' in:"; grep '^cache' <<<"$k"; return 1; }
    done
}
linux_not_kmem() {
    local rc=0 o
    o=$("$py" "$tool" from-linux "$root/README.md" -o "$out/none.trace" 2>&1) || rc=$?
    [ "$rc" = 1 ] && [[ $o == *"no kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc or kmem:kmem_cache_free events in the text" ]] ||
        { echo "from-linux of README.md exited $rc: $o"; return 1; }
    grep -m1 ' kfree: ' "$root/tests/traces/linux/hackbench.trace-cmd.txt" | sed 's/ptr=[^ ]*//' >"$out/noptr.txt"
    rc=0
    o=$("$py" "$tool" from-linux "$out/noptr.txt" -o "$out/none.trace" 2>&1) || rc=$?
    [ "$rc" = 1 ] && [[ $o == *"line 1: kfree without ptr=: "* ]] || { echo "a kfree without ptr= gave $rc: $o"; return 1; }
}
# The C converter (build/trace/slabtrace from-linux) writes what slabtrace.py writes, byte for
# byte, and reports the same counts.
c_same() {
    local f=$1 o p c
    p=$("$py" "$tool" from-linux "$f" -o "$out/py.trace" --source cmp 2>&1) || { echo "slabtrace.py: $p"; return 1; }
    c=$("$ctool" from-linux "$f" -o "$out/c.trace" --source cmp 2>&1) || { echo "slabtrace: $c"; return 1; }
    cmp "$out/py.trace" "$out/c.trace" || return 1
    if [ "${p//py.trace/x}" != "${c//c.trace/x}" ]; then
        echo "slabtrace.py: $p"
        echo "slabtrace:    $c"
        return 1
    fi
}
# Both refuse the same bad texts, with the same words.
c_same_error() {
    local rc1=0 rc2=0 p c
    p=$("$py" "$tool" from-linux "$1" -o "$out/py.trace" 2>&1) || rc1=$?
    c=$("$ctool" from-linux "$1" -o "$out/c.trace" 2>&1) || rc2=$?
    if [ "$rc1" != 1 ] || [ "$rc2" != 1 ] || [ "$p" != "$c" ] || [[ $p != *"$2"* ]]; then
        echo "slabtrace.py exited $rc1: $p"
        echo "slabtrace exited $rc2:    $c"
        echo "want both to exit 1 with: $2"
        return 1
    fi
}
c_errors() {
    grep -m1 ' kfree: ' "$root/tests/traces/linux/hackbench.tracefs.txt" | sed 's/ptr=[^ ]*/ptr=(____ptrval____)/' >"$out/ptrval.txt"
    c_same_error "$out/ptrval.txt" "line 1: ptr=(____ptrval____) is not an address" || return 1
    grep -m1 ' kfree: ' "$root/tests/traces/linux/hackbench.trace-cmd.txt" | sed 's/ptr=[^ ]*//' >"$out/noptr.txt"
    c_same_error "$out/noptr.txt" "line 1: kfree without ptr=: " || return 1
    c_same_error "$root/README.md" "no kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc or kmem:kmem_cache_free events in the text" || return 1
    grep -m1 'rcu_invoke_kvfree' "$root/tests/traces/linux/rcu.trace-cmd.txt" | sed 's/ func=[^ ]*//' >"$out/nofunc.txt"
    c_same_error "$out/nofunc.txt" "line 1: rcu_invoke_kvfree_callback without func=: " || return 1
}
# RCU's tracepoints (tests/traces/linux/rcu.trace-cmd.txt, written by hand in trace-cmd's
# format: Debian's kernel has no CONFIG_RCU_TRACE): the free after a grace period of an
# object whose kfree_rcu was traced (rcu_kvfree_callback) and of one whose was not (placed
# at its free), a bulk free (counted, its objects not named), an invocation with no kfree
# (vmalloc'd), a kfree_rcu whose grace period had not ended.
linux_rcu() {
    local o
    c_same "$root/tests/traces/linux/rcu.trace-cmd.txt" || return 1
    o=$("$py" "$tool" from-linux "$root/tests/traces/linux/rcu.trace-cmd.txt" -o "$out/rcu.trace")
    for want in "frees after an RCU grace period (rcu_invoke_kvfree_callback): 2" \
        "kfree_rcu calls not traced, placed at their free (tree RCU has no tracepoint for the call): 1" \
        "objects freed in bulk after an RCU grace period (not named, not in the trace): 5" \
        "rcu_invoke_kvfree_callback without a kfree of its object on that CPU (vmalloc'd, or not traced): 1"; do
        [[ $o == *"$want"* ]] || { echo "no '$want' in: $o"; return 1; }
    done
    same "$out/rcu.trace" || return 1
    o=$("$ctool" check "$out/rcu.trace")
    [[ $o == *"kfree_rcu 3, rcu_frees 2, rcu_pending_at_end 1, nolock 0, node_allocs 1"* ]] ||
        { echo "slabtrace check: $o"; return 1; }
}
# the checked-in replay sample is the trace-cmd sample, converted
linux_checked_in() {
    "$py" "$tool" from-linux "$root/tests/traces/linux/hackbench.trace-cmd.txt" -o "$out/lh.trace" \
        --source linux-6.1:hackbench >/dev/null && cmp "$out/lh.trace" "$root/tests/traces/linux-hackbench.trace"
}
t linux_tracefs linux_sample hackbench.tracefs 4 "skbuff_head_cache size 232 align 0 flags 0x0"
t linux_trace_cmd linux_sample hackbench.trace-cmd 4 "skbuff_head_cache size 232 align 0 flags 0x0"
t linux_perf linux_sample hackbench.perf 4 "skbuff_head_cache size 232 align 0 flags 0x0"
# make trace-linux's other workloads (2000 lines from the middle of each trace-cmd text):
# loopback networking, fork/exec, a filesystem walk
t linux_net linux_sample net.trace-cmd 4 "TCP size 2280 align 0 flags 0x0" \
    "skbuff_fclone_cache size 512 align 0 flags 0x0" "request_sock_TCP size 304 align 0 flags 0x0"
t linux_forkexec linux_sample forkexec.trace-cmd 3 "task_struct size 8392 align 0 flags 0x0" \
    "mm_struct size 1104 align 0 flags 0x0" "vm_area_struct size 152 align 0 flags 0x0"
# fswalk's sample is of the walk (find: dentries and ext4 inodes allocated, on one CPU); the
# frees that would name their caches come later in the capture, so 6.1's nameless
# kmem_cache_alloc leaves them known by their size
t linux_fswalk linux_sample fswalk.trace-cmd 1 "size-1184 size 1184 align 0 flags 0x0" \
    "size-192 size 192 align 0 flags 0x0"
t c_converter_net c_same "$root/tests/traces/linux/net.trace-cmd.txt"
t c_converter_fswalk c_same "$root/tests/traces/linux/fswalk.trace-cmd.txt"
t c_converter_forkexec c_same "$root/tests/traces/linux/forkexec.trace-cmd.txt"
# the checked-in conversions: forkexec's and fswalk's samples, net's whole capture (8952 events)
sample_checked_in() {
    "$ctool" from-linux "$root/tests/traces/linux/$1.trace-cmd.txt" -o "$out/ls.trace" \
        --source "linux-6.1:$1" >/dev/null && cmp "$out/ls.trace" "$root/tests/traces/linux-$1.trace"
}
t linux_forkexec_checked_in sample_checked_in forkexec
t linux_fswalk_checked_in sample_checked_in fswalk
t linux_net_checked_in same "$root/tests/traces/linux-net.trace"
t linux_not_kmem linux_not_kmem
t linux_checked_in_trace linux_checked_in
t c_converter_tracefs c_same "$root/tests/traces/linux/hackbench.tracefs.txt"
t c_converter_trace_cmd c_same "$root/tests/traces/linux/hackbench.trace-cmd.txt"
t c_converter_perf c_same "$root/tests/traces/linux/hackbench.perf.txt"
t c_converter_errors c_errors
t linux_rcu linux_rcu
t record_python_threads record_python
t record_sort record_sort
t record_keeps_exit_code record_exit_code
ktap_report
