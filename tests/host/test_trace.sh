#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test of slab traces (docs/traces.md): tools/trace/slabtrace.py and the kernel's reader
# (bench/trace.c, built as build/host/trace_check) on the same files: good traces (generated
# ones, the checked-in recording tests/traces/python-threads.trace) give the same counts in
# both; each kind of bad trace is refused by both with what and where, or counted and
# skipped as the format says; the converter from Linux's kmem events on real captures; the
# LD_PRELOAD recorder (tools/trace/record) on real programs
# (python3 with threads, sort) makes traces both accept. Flat KTAP, like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tool=$root/tools/trace/slabtrace.py
kcheck=$root/build/host/trace_check
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
save("wrong-version", good().to_bytes(version=2))
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

# both FILE RC WHAT: slabtrace.py check and trace_check exit RC, and both say WHAT (for a
# bad trace: their message after "FILE: " and "bad: " is WHAT).
both() {
    local f=$out/$1 rc=0 o
    o=$("$py" "$tool" check "$f" 2>&1) || rc=$?
    if [ "$rc" != "$2" ]; then
        echo "slabtrace.py check $1 exited $rc, want $2: $o"
        return 1
    fi
    if [ "$2" != 0 ] && [ "$o" != "slabtrace: $f: $3" ]; then
        echo "slabtrace.py said: $o"
        echo "want:              slabtrace: $f: $3"
        return 1
    fi
    if [ "$2" = 0 ] && [[ $o != *"$3"* ]]; then
        echo "slabtrace.py said: $o; want it to say $3"
        return 1
    fi
    rc=0
    o=$("$kcheck" "$f" 2>&1) || rc=$?
    if [ "$rc" != "$2" ]; then
        echo "trace_check $1 exited $rc, want $2: $o"
        return 1
    fi
    if [ "$2" != 0 ] && [ "$o" != "bad: ${4:-$3}" ]; then
        echo "trace_check said: $o"
        echo "want:             bad: ${4:-$3}"
        return 1
    fi
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

# same FILE: slabtrace.py and trace_check agree on allocs, frees and live objects.
same() {
    local o k a f l
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
    [ "$a" -gt 0 ]
}

t good both good 0 "2 streams, 1 caches, 4 events, 2 ids"
t good_counts kcounts good "events 4 allocs 2 frees 2 never_allocated 0 double_free 0 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2"
t truncated_header both truncated-header 1 "truncated: 40 bytes, the header alone has 72"
t truncated_event both truncated-event 1 "truncated: stream 1's 7 bytes at 176 end past the file's 182"
t truncated_in_event both truncated-in-event 1 "stream 1 event 2: truncated in its time"
t not_a_trace both not-a-trace 1 "not a slab trace (no SLABTRCE magic at the start)"
t wrong_version both wrong-version 1 "format version 2, this tool reads version 1" "format version 2, this kernel reads version 1"
t unknown_event both unknown-event 1 "stream 1 event 2: unknown event type 9"
t unknown_cache both unknown-cache 1 "stream 0 event 2: unknown cache 5 (the trace has 1)"
t too_many_streams both too-many-streams 1 "1025 streams: the format allows 1..1024"
t never_allocated both never-allocated 0 "free_never_allocated 1"
t never_allocated_counts kcounts never-allocated "events 5 allocs 2 frees 2 never_allocated 1 double_free 0 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2"
t double_free both double-free 0 "double_free 1"
t double_free_counts kcounts double-free "events 5 allocs 2 frees 2 never_allocated 0 double_free 1 size_zero 0 size_too_big 0 page_allocs 0 live_at_end 0 peak_live 2"
t sizes both sizes 0 "size_zero 1, size_too_big 1"
t sizes_counts kcounts sizes "events 10 allocs 5 frees 5 never_allocated 0 double_free 0 size_zero 1 size_too_big 1 page_allocs 1 live_at_end 0 peak_live 3"
t allocated_twice both allocated-twice 1 "stream 0 event 2: id 1 allocated again (first at stream 0 event 1); a trace gives every allocation a new id" "stream 0 event 2: id 1 allocated again (a trace gives every allocation a new id)"
t deadlock both deadlock 1 "stream 0 event 0: deadlock: the free of id 0 waits for its allocation (stream 1 event 1), which waits too" "stream 0 event 0: deadlock: the free of id 0 waits for its allocation, and every stream that could make it waits too"
t cache_too_big both cache-too-big 1 "cache 0 (huge): object size 40000, the kernel takes 1..32768"
t event_count both event-count 1 "the streams hold 4 events, the header says 5"
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
linux_sample() {
    local fmt=$1 o k
    shift
    o=$("$py" "$tool" from-linux "$root/tests/traces/linux/hackbench.$fmt.txt" -o "$out/l-$fmt.trace" 2>&1) ||
        { echo "$o"; return 1; }
    [[ $o == *"slabtrace: $out/l-$fmt.trace: 4 streams (CPUs), "* ]] || { echo "from-linux said: $o"; return 1; }
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
# the checked-in replay sample is the trace-cmd sample, converted
linux_checked_in() {
    "$py" "$tool" from-linux "$root/tests/traces/linux/hackbench.trace-cmd.txt" -o "$out/lh.trace" \
        --source linux-6.1:hackbench >/dev/null && cmp "$out/lh.trace" "$root/tests/traces/linux-hackbench.trace"
}
t linux_tracefs linux_sample tracefs "skbuff_head_cache size 232 align 0 flags 0x0"
t linux_trace_cmd linux_sample trace-cmd "skbuff_head_cache size 232 align 0 flags 0x0"
t linux_perf linux_sample perf "skbuff_head_cache size 232 align 0 flags 0x0"
t linux_not_kmem linux_not_kmem
t linux_checked_in_trace linux_checked_in
t record_python_threads record_python
t record_sort record_sort
t record_keeps_exit_code record_exit_code
ktap_report
