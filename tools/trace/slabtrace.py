#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slablab slab traces (docs/traces.md): write, read, check and make them.

    slabtrace.py check FILE           validate; a summary, the skipped events counted;
                                      exit 1 with "FILE: stream S event E: what" if bad
    slabtrace.py dump FILE [-n N]     the header and the first N events of every stream
    slabtrace.py from-raw DIR PID -o OUT [--source S]
                                      the recorder's raw per-thread files (tools/trace/record)
                                      of process PID into a trace
    slabtrace.py from-linux TEXT -o OUT [--source S]
                                      the text of tracefs's trace file, of trace-cmd report
                                      or of perf script with Linux's kmem events
    slabtrace.py synth KIND -o OUT [--streams N] [--events N] [--seed N]
                                      a generated trace: pairs (stream 2k allocates from a
                                      cache and kmallocs, stream 2k+1 frees them), mixed, or
                                      rcu (version 2: kfree_rcu, rcu_free, nodes, nolock)

The library part (TraceWriter, read_header, events, check_trace) is what the tests and
the converters use. build/trace/slabtrace (tools/trace/slabtrace.c) does from-linux and
check in C for big traces. Exit codes: 0 good, 1 a bad trace (or a failed conversion), 2 bad usage.
"""
import argparse
import collections
import os
import random
import struct
import sys

MAGIC = b"SLABTRCE"
VERSION = 2                 # the newest version this tool reads and writes
VERSIONS = (1, 2)
HEADER = struct.Struct("<8sHHIQQ32sII")  # magic version nr_caches nr_streams nr_events nr_ids source flags header_bytes
CACHE = struct.Struct("<32sIIII")           # name size align flags reserved
STREAM = struct.Struct("<QQQ")              # offset bytes nr_events
MAX_STREAMS = 1024
MAX_CACHES = 1024
MAX_NODES = 1024                # version 2: an allocation's node is 0..1023
MAX_CACHE_SIZE = 32768          # an object must fit an order-3 slab (mm/slab.h)
KMALLOC_MAX_CACHE_SIZE = 8192   # larger kmallocs go to the page allocator
PAGE_ALLOC_MAX = 4096 << 10     # the page allocator's largest block (MAX_ORDER 10)
CACHE_FLAG_HWCACHE_ALIGN = 1
CACHE_FLAGS = CACHE_FLAG_HWCACHE_ALIGN

EV_ALLOC, EV_KMALLOC, EV_FREE, EV_KFREE = 1, 2, 3, 4
EV_KFREE_RCU, EV_RCU_FREE = 5, 6   # version 2
EV_NAMES = {EV_ALLOC: "alloc", EV_KMALLOC: "kmalloc", EV_FREE: "free", EV_KFREE: "kfree",
            EV_KFREE_RCU: "kfree_rcu", EV_RCU_FREE: "rcu_free"}
EV_LAST = {1: EV_KFREE, 2: EV_RCU_FREE}  # the last event type of each version
# Version 2: the kind byte's high bits. NOLOCK: the call was kmalloc_nolock / kfree_nolock
# (allocations, frees and kfree_rcu); NODE: an allocation asked for a NUMA node, a varint
# after the event's other fields.
EVF_NOLOCK, EVF_NODE = 0x10, 0x20
EV_KIND_MASK = 0x0F
class TraceError(Exception):
    """A bad trace: what and where."""


def _varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class TraceWriter:
    """Collects caches and per-stream events, then writes the file.

    Ids are given by the caller (dense, 0..nr_ids-1); new_id() hands out the next one.
    Timestamps are absolute nanoseconds from the trace's start, nondecreasing per stream.
    """

    def __init__(self, source, nr_streams):
        if not 1 <= nr_streams <= MAX_STREAMS:
            raise TraceError(f"{nr_streams} streams: the format allows 1..{MAX_STREAMS}")
        self.source = source
        self.caches = []
        self.streams = [bytearray() for _ in range(nr_streams)]
        self.counts = [0] * nr_streams
        self.last_ts = [0] * nr_streams
        self.nr_ids = 0
        self.v2 = False  # an event of version 2's: the file is version 2, else version 1

    def add_cache(self, name, size, align=0, flags=0):
        if len(self.caches) == MAX_CACHES:
            raise TraceError(f"more than {MAX_CACHES} caches")
        self.caches.append((name, size, align, flags))
        return len(self.caches) - 1

    def new_id(self):
        self.nr_ids += 1
        return self.nr_ids - 1

    def event(self, stream, kind, ts, oid, arg=0, node=None, nolock=False):
        """arg: the cache index (alloc, free) or the size (kmalloc); unused for kfree,
        kfree_rcu and rcu_free. node (allocations) and nolock, and the events kfree_rcu and
        rcu_free, make the trace version 2."""
        dt = max(0, ts - self.last_ts[stream])
        self.last_ts[stream] += dt
        buf = self.streams[stream]
        flags = (EVF_NOLOCK if nolock else 0) | (EVF_NODE if node is not None else 0)
        if flags or kind > EV_KFREE:
            self.v2 = True
        buf.append(kind | flags)
        buf += _varint(dt)
        buf += _varint(oid)
        if kind in (EV_ALLOC, EV_FREE, EV_KMALLOC):
            buf += _varint(arg)
        if node is not None:
            buf += _varint(node)
        self.counts[stream] += 1
        self.nr_ids = max(self.nr_ids, oid + 1)

    def raw(self, stream, data, count=1):
        """Bytes of an event as they are (for tests that make bad traces)."""
        self.streams[stream] += data
        self.counts[stream] += count

    def to_bytes(self, version=None, nr_events=None):
        """version: by default the oldest that holds the events (1 without version 2's)."""
        if version is None:
            version = 2 if self.v2 else 1
        hdr_bytes = HEADER.size + CACHE.size * len(self.caches) + STREAM.size * len(self.streams)
        out = bytearray(HEADER.pack(MAGIC, version, len(self.caches), len(self.streams),
                                    sum(self.counts) if nr_events is None else nr_events,
                                    self.nr_ids, self.source.encode()[:31], 0, hdr_bytes))
        for name, size, align, flags in self.caches:
            out += CACHE.pack(name.encode()[:31], size, align, flags, 0)
        off = hdr_bytes
        for s, data in enumerate(self.streams):
            out += STREAM.pack(off, len(data), self.counts[s])
            off += len(data)
        for data in self.streams:
            out += data
        return bytes(out)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())


class Trace:
    def __init__(self):
        self.source = ""
        self.version = VERSION
        self.caches = []   # (name, size, align, flags)
        self.streams = []  # (offset, bytes, nr_events)
        self.nr_events = 0
        self.nr_ids = 0
        self.data = b""


def read_header(data):
    t = Trace()
    t.data = data
    if len(data) < 8 or data[:8] != MAGIC:
        raise TraceError("not a slab trace (no SLABTRCE magic at the start)")
    if len(data) < HEADER.size:
        raise TraceError(f"truncated: {len(data)} bytes, the header alone has {HEADER.size}")
    magic, ver, nc, ns, ne, nids, src, flags, hb = HEADER.unpack_from(data, 0)
    if ver not in VERSIONS:
        raise TraceError(f"format version {ver}, this tool reads versions 1 and 2")
    if flags:
        raise TraceError(f"header flags {flags:#x}: version {ver} defines none")
    if ns == 0 or ns > MAX_STREAMS:
        raise TraceError(f"{ns} streams: the format allows 1..{MAX_STREAMS}")
    if nc > MAX_CACHES:
        raise TraceError(f"{nc} caches: the format allows at most {MAX_CACHES}")
    want = HEADER.size + CACHE.size * nc + STREAM.size * ns
    if hb != want:
        raise TraceError(f"header_bytes is {hb}, want {want} for {nc} caches and {ns} streams")
    if len(data) < want:
        raise TraceError(f"truncated: {len(data)} bytes, the header and its tables have {want}")
    t.source = src.rstrip(b"\0").decode(errors="replace")
    t.version = ver
    t.nr_events, t.nr_ids = ne, nids
    off = HEADER.size
    for i in range(nc):
        name, size, align, cflags, _ = CACHE.unpack_from(data, off)
        off += CACHE.size
        name = name.rstrip(b"\0").decode(errors="replace")
        if not name:
            raise TraceError(f"cache {i} has no name")
        if not 1 <= size <= MAX_CACHE_SIZE:
            raise TraceError(f"cache {i} ({name}): object size {size}, the kernel takes 1..{MAX_CACHE_SIZE}")
        if align & (align - 1) or align > 4096:
            raise TraceError(f"cache {i} ({name}): alignment {align} is not 0 or a power of two up to 4096")
        if cflags & ~CACHE_FLAGS:
            raise TraceError(f"cache {i} ({name}): unknown flags {cflags & ~CACHE_FLAGS:#x}")
        t.caches.append((name, size, align, cflags))
    total = 0
    for s in range(ns):
        so, sb, sn = STREAM.unpack_from(data, off)
        off += STREAM.size
        if so < want or so + sb > len(data):
            raise TraceError(f"truncated: stream {s}'s {sb} bytes at {so} end past the file's {len(data)}")
        t.streams.append((so, sb, sn))
        total += sn
    if total != ne:
        raise TraceError(f"the streams hold {total} events, the header says {ne}")
    return t


def events(t, s):
    """Yields (index, kind, ts, id, arg, node, nolock) of stream s (node -1: none given);
    TraceError names the event."""
    so, sb, sn = t.streams[s]
    data, p, end, ts = t.data, so, so + sb, 0
    last = EV_LAST[t.version]

    def varint(i, what):
        nonlocal p
        v = shift = 0
        while True:
            if p >= end:
                raise TraceError(f"stream {s} event {i}: truncated in its {what}")
            b = data[p]
            p += 1
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                if v >> 64:
                    raise TraceError(f"stream {s} event {i}: its {what} does not fit 64 bits")
                return v
            shift += 7
            if shift >= 70:
                raise TraceError(f"stream {s} event {i}: its {what} does not fit 64 bits")

    for i in range(sn):
        if p >= end:
            raise TraceError(f"stream {s} event {i}: truncated (the stream ends after {i} of {sn} events)")
        byte = data[p]
        p += 1
        kind, flags = (byte & EV_KIND_MASK, byte & ~EV_KIND_MASK) if t.version >= 2 else (byte, 0)
        if not 1 <= kind <= last:
            raise TraceError(f"stream {s} event {i}: unknown event type {kind}")
        if flags & ~(EVF_NOLOCK | EVF_NODE):
            raise TraceError(f"stream {s} event {i}: unknown event flags {flags & ~(EVF_NOLOCK | EVF_NODE):#x}")
        if flags & EVF_NODE and kind not in (EV_ALLOC, EV_KMALLOC):
            raise TraceError(f"stream {s} event {i}: a node on a {EV_NAMES[kind]} (only allocations have one)")
        if flags & EVF_NOLOCK and kind == EV_RCU_FREE:
            raise TraceError(f"stream {s} event {i}: nolock on an rcu_free (RCU frees it, not a caller)")
        ts += varint(i, "time")
        oid = varint(i, "id")
        arg = varint(i, "cache" if kind in (EV_ALLOC, EV_FREE) else "size") if kind <= EV_FREE else 0
        node = varint(i, "node") if flags & EVF_NODE else -1
        if oid >= t.nr_ids:
            raise TraceError(f"stream {s} event {i}: id {oid} past the header's {t.nr_ids} ids")
        if kind in (EV_ALLOC, EV_FREE) and arg >= len(t.caches):
            raise TraceError(f"stream {s} event {i}: unknown cache {arg} (the trace has {len(t.caches)})")
        if node >= MAX_NODES:
            raise TraceError(f"stream {s} event {i}: node {node}, the format allows 0..{MAX_NODES - 1}")
        yield i, kind, ts, oid, arg, node, bool(flags & EVF_NOLOCK)
    if p != end:
        raise TraceError(f"stream {s}: {end - p} bytes after its {sn} events")


def check_trace(data):
    """Everything the kernel checks before a replay. Returns (trace, counts); raises
    TraceError for a trace that cannot be replayed."""
    t = read_header(data)
    alloc_at, rcu_called = {}, set()
    per = [list(events(t, s)) for s in range(len(t.streams))]
    st = collections.Counter()
    for s, evs in enumerate(per):
        for i, kind, ts, oid, arg, node, nolock in evs:
            st["nolock"] += nolock
            if kind == EV_KFREE_RCU:
                rcu_called.add(oid)
            if kind not in (EV_ALLOC, EV_KMALLOC):
                continue
            if oid in alloc_at:
                a = alloc_at[oid]
                raise TraceError(f"stream {s} event {i}: id {oid} allocated again "
                                 f"(first at stream {a[0]} event {a[1]}); a trace gives "
                                 "every allocation a new id")
            alloc_at[oid] = (s, i)
            st["node_allocs"] += node >= 0
            if kind == EV_KMALLOC:
                if arg == 0:
                    st["size_zero"] += 1
                elif arg > PAGE_ALLOC_MAX:
                    st["size_too_big"] += 1
                elif arg > KMALLOC_MAX_CACHE_SIZE:
                    st["page_allocs"] += 1
    # The replay's order: each stream runs until a free waits for an allocation (an
    # rcu_free for its kfree_rcu) that has not happened; a trace where every stream waits
    # is a deadlock.
    state = {}  # id -> "live", "rcu" (kfree_rcu done, its rcu_free not yet) or "freed"
    pos = [0] * len(per)
    while True:
        moved = False
        for s, evs in enumerate(per):
            while pos[s] < len(evs):
                i, kind, ts, oid, arg, node, nolock = evs[pos[s]]
                if kind in (EV_ALLOC, EV_KMALLOC):
                    state[oid] = "live"
                elif oid not in alloc_at:
                    st["free_never_allocated"] += 1
                elif kind == EV_RCU_FREE and oid not in rcu_called:
                    raise TraceError(f"stream {s} event {i}: rcu_free of id {oid}, which no "
                                     "kfree_rcu hands to RCU")
                elif state.get(oid) == "freed" or (kind != EV_RCU_FREE and state.get(oid) == "rcu"):
                    st["double_free"] += 1
                elif oid not in state or (kind == EV_RCU_FREE and state[oid] == "live"):
                    break  # waits for the allocation (the kfree_rcu) on another stream
                elif kind == EV_KFREE_RCU:
                    state[oid] = "rcu"
                    st["kfree_rcu"] += 1
                else:
                    state[oid] = "freed"
                    if alloc_at[oid][0] != s:
                        st["remote_frees"] += 1
                    st["frees"] += 1
                    st["rcu_frees"] += kind == EV_RCU_FREE
                pos[s] += 1
                moved = True
        if all(pos[s] == len(per[s]) for s in range(len(per))):
            break
        if not moved:
            s = next(s for s in range(len(per)) if pos[s] < len(per[s]))
            i, kind, ts, oid, arg, node, nolock = per[s][pos[s]]
            a = alloc_at[oid]
            if kind == EV_RCU_FREE and state.get(oid) == "live":
                raise TraceError(f"stream {s} event {i}: deadlock: the rcu_free of id {oid} "
                                 "waits for its kfree_rcu, which waits too")
            raise TraceError(f"stream {s} event {i}: deadlock: the free of id {oid} waits for its "
                             f"allocation (stream {a[0]} event {a[1]}), which waits too")
    st["events"] = t.nr_events
    st["allocs"] = len(alloc_at)
    st["live_at_end"] = sum(1 for v in state.values() if v != "freed")
    st["rcu_pending_at_end"] = sum(1 for v in state.values() if v == "rcu")
    return t, st


V2_COUNTS = ("kfree_rcu", "rcu_frees", "rcu_pending_at_end", "nolock", "node_allocs")


def cmd_check(a):
    data = open(a.file, "rb").read()
    try:
        t, st = check_trace(data)
    except TraceError as e:
        print(f"slabtrace: {a.file}: {e}", file=sys.stderr)
        return 1
    print(f"{a.file}: version {t.version}, source {t.source}, {len(t.streams)} streams, "
          f"{len(t.caches)} caches, {t.nr_events} events, {t.nr_ids} ids")
    print("  " + ", ".join(f"{k} {st[k]}" for k in
                           ("allocs", "frees", "remote_frees", "live_at_end", "page_allocs")))
    if t.version >= 2:
        print("  " + ", ".join(f"{k} {st[k]}" for k in V2_COUNTS))
    skipped = [k for k in ("free_never_allocated", "double_free", "size_zero", "size_too_big") if st[k]]
    if skipped:
        print("  skipped at replay: " + ", ".join(f"{k} {st[k]}" for k in skipped))
    return 0


def cmd_dump(a):
    data = open(a.file, "rb").read()
    try:
        t = read_header(data)
        print(f"source {t.source} streams {len(t.streams)} caches {len(t.caches)} "
              f"events {t.nr_events} ids {t.nr_ids}")
        for i, c in enumerate(t.caches):
            print(f"cache {i} {c[0]} size {c[1]} align {c[2]} flags {c[3]:#x}")
        for s in range(len(t.streams)):
            for i, kind, ts, oid, arg, node, nolock in events(t, s):
                if i >= a.n:
                    break
                print(f"{s} {i} {ts} {EV_NAMES[kind]} id {oid} {arg}"
                      f"{f' node {node}' if node >= 0 else ''}{' nolock' if nolock else ''}")
    except TraceError as e:
        print(f"slabtrace: {a.file}: {e}", file=sys.stderr)
        return 1
    return 0


# ---- the LD_PRELOAD recorder's raw files (tools/trace/recorder.c) ----
RAW = struct.Struct("<QQQI4x")  # ts_ns ptr old size op(low byte) -> 32 bytes
RAW_MAGIC = b"SLBRAW01"
OP_MALLOC, OP_FREE, OP_REALLOC = 1, 2, 3


def from_raw(rawdir, pid, source):
    files = sorted(f for f in os.listdir(rawdir) if f.startswith(f"{pid}-") and f.endswith(".raw"))
    others = sorted({f.split("-")[0] for f in os.listdir(rawdir) if f.endswith(".raw")} - {str(pid)})
    if not files:
        # the program never allocated: one stream without events
        return TraceWriter(source, 1), 0, others
    if len(files) > MAX_STREAMS:
        raise TraceError(f"{len(files)} threads: the format allows {MAX_STREAMS} streams")
    recs = []
    for s, f in enumerate(files):
        data = open(os.path.join(rawdir, f), "rb").read()
        if data[:8] != RAW_MAGIC:
            raise TraceError(f"{f}: not a recorder file")
        n = (len(data) - 8) // RAW.size
        for k in range(n):
            ts, ptr, old, sz_op = RAW.unpack_from(data, 8 + k * RAW.size)
            recs.append((ts, s, k, ptr, old, sz_op))
    recs.sort(key=lambda r: (r[0], r[1], r[2]))
    w = TraceWriter(source, len(files))
    t0 = recs[0][0] if recs else 0
    live = {}
    skipped_free = 0
    for ts, s, k, ptr, old, sz_op in recs:
        op, size = sz_op & 0xFF, sz_op >> 8
        if op in (OP_FREE, OP_REALLOC) and old:
            oid = live.pop(old, None)
            if oid is None:
                skipped_free += 1  # allocated before the recorder started
            else:
                w.event(s, EV_KFREE, ts - t0, oid)
        if op in (OP_MALLOC, OP_REALLOC) and ptr:
            oid = w.new_id()
            live[ptr] = oid
            w.event(s, EV_KMALLOC, ts - t0, oid, size)
    return w, skipped_free, others


def cmd_from_raw(a):
    try:
        w, skipped, others = from_raw(a.dir, a.pid, a.source)
    except TraceError as e:
        print(f"slabtrace: {e}", file=sys.stderr)
        return 1
    w.write(a.o)
    print(f"slabtrace: {a.o}: {len(w.streams)} streams, {sum(w.counts)} events, {w.nr_ids} ids"
          f"{f'; {skipped} frees of memory allocated before recording began, left out' if skipped else ''}"
          f"{f'; other processes recorded, not included: {chr(32).join(others)}' if others else ''}")
    return 0


# ---- Linux's kmem tracepoints, as text (docs/traces.md, "From Linux") ----
# tools/trace/slabtrace.c (build/trace/slabtrace from-linux) is the same converter in C, ten
# times faster or more, and must write the same bytes: tests/host/test_trace.sh holds the two
# against each other.
import re

# tracefs `trace` and `trace-cmd report`: "TASK-PID [CPU] FLAGS? SECS.USECS: EVENT: ARGS";
# `perf script`: "TASK PID [CPU] SECS.USECS: kmem:EVENT: ARGS".
LINE_TRACEFS = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]"
                          r"\s+(?:[^\s:]+\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>[\w:]+):\s*(?P<args>.*)$")
LINE_PERF = re.compile(r"^\s*(?P<task>.+?)\s+(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):"
                       r"\s+(?:\d+\s+)?(?P<event>(?:kmem|rcu):\w+):\s*(?P<args>.*)$")
ARG = re.compile(r"(\w+)=(\S+)")
# kmalloc_node and kmem_cache_alloc_node: kernels before 6.0 (6.0 folded them into the others,
# which print node= since)
ALLOC_EVENTS = ("kmalloc", "kmem_cache_alloc", "kmalloc_node", "kmem_cache_alloc_node")
FREE_EVENTS = ("kfree", "kmem_cache_free")
# include/trace/events/rcu.h, with CONFIG_RCU_TRACE: the call of a kvfree-form callback
# (kfree_rcu through call_rcu: tiny RCU, older kernels), the free of one such object after
# the grace period (kvfree_rcu_list, then kvfree -> kmem:kfree of it), and a bulk free whose
# objects are not named (kfree_bulk: no kmem event for them either).
RCU_CALL, RCU_INVOKE, RCU_BULK = "rcu_kvfree_callback", "rcu_invoke_kvfree_callback", "rcu_invoke_kfree_bulk_callback"
LINUX_EVENTS = ALLOC_EVENTS + FREE_EVENTS + (RCU_CALL, RCU_INVOKE, RCU_BULK)
DROPPED = re.compile(r"(\d+)\s+(?:EVENTS DROPPED|EVENTS LOST)|LOST\s+(\d+)\s+EVENTS", re.I)

N_OVERWRITTEN = "overwritten (ring buffer full)"
N_DROPPED = "dropped (reported in the text)"
N_FAILED = "failed allocations (NULL)"
N_REALLOC = "allocations of a pointer still live (its free was not traced)"
N_FREE_NULL = "frees of NULL"
N_BEFORE = "frees of objects allocated before the trace began (skipped)"
N_LIVE = "objects live at the end (freed at the end of the replay)"
N_LEARNED = "cache names learned from other objects' frees"
N_BY_SIZE = "cache objects whose cache is known only by size"
N_BIG = "cache objects past 32 KiB, made kmallocs"
N_RCU_CALL_BEFORE = "kfree_rcu calls of objects allocated before the trace began (skipped)"
N_RCU_FREES = "frees after an RCU grace period (rcu_invoke_kvfree_callback)"
N_RCU_PLACED = "kfree_rcu calls not traced, placed at their free (tree RCU has no tracepoint for the call)"
N_RCU_UNMATCHED = "rcu_invoke_kvfree_callback without a kfree of its object on that CPU (vmalloc'd, or not traced)"
N_RCU_BULK = "objects freed in bulk after an RCU grace period (not named, not in the trace)"
N_NODE = "allocations on a given NUMA node"


def _ns(ts):
    sec, frac = ts.split(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def _ptr(n, key, v):
    """A pointer's value (hashed %p or raw: only identity matters); NULL's spellings are 0."""
    try:
        return int(v, 16)
    except ValueError:
        if v in ("(null)", "(nil)"):
            return 0
        raise TraceError(f"line {n}: {key}={v} is not an address (tracefs prints (____ptrval____) "
                         "until the key of %p is ready: boot with random.trust_cpu=on)")


def _num(n, key, v):
    try:
        return int(v, 10)
    except ValueError:
        raise TraceError(f"line {n}: {key}={v} is not a number")


def from_linux(lines, source):
    """Text of tracefs `trace`, `trace-cmd report` or `perf script` -> (TraceWriter, notes).

    CPUs become streams (those that appear, in order). A pointer names an object from its
    allocation to its free (hashed %p or raw: only identity matters); NULL and
    ZERO_SIZE_PTR (16 or less) name none. Linux 6.1's kmem_cache_alloc has no name=: the
    cache is learned from the object's own free (name=), else from other objects of the
    same call site and size whose frees named it, else it is "size-N" after its object size;
    a name= on the alloc (newer kernels) is used as given. node= of 0 or more is the node the
    allocation asked for. Frees of objects allocated before the trace began are skipped and
    counted; objects live at the end stay live (the replay frees them then). With RCU's
    tracepoints, a kfree that follows rcu_invoke_kvfree_callback of its object on its CPU is
    the free after the grace period (an rcu_free), rcu_kvfree_callback the kfree_rcu call
    (placed at the free when it was not traced), and any free of an object whose kfree_rcu
    was traced is its rcu_free."""
    evs, notes = [], collections.Counter()
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            m = re.search(r"entries-in-buffer/entries-written:\s*(\d+)/(\d+)", line)
            if m and int(m.group(1)) < int(m.group(2)):
                notes[N_OVERWRITTEN] += int(m.group(2)) - int(m.group(1))
            continue
        m = LINE_PERF.match(line) or LINE_TRACEFS.match(line)
        if not m:
            d = DROPPED.search(line)
            if d:
                notes[N_DROPPED] += int(d.group(1) or d.group(2))
            continue
        ev = m.group("event").split(":")[-1]
        if ev not in LINUX_EVENTS:
            continue
        a = dict(ARG.findall(m.group("args")))
        e = {"ts": _ns(m.group("ts")), "cpu": int(m.group("cpu")), "ev": ev, "n": n}
        if ev in ALLOC_EVENTS or ev in FREE_EVENTS:
            if "ptr" not in a:
                raise TraceError(f"line {n}: {ev} without ptr=: {line.strip()[:100]}")
            e["ptr"] = _ptr(n, "ptr", a["ptr"])
            e["site"] = a.get("call_site", "?")
            e["name"] = a.get("name")
            if ev in ALLOC_EVENTS:
                e["size"] = _num(n, "bytes_req", a.get("bytes_req", "0"))
                if not 0 <= e["size"] <= 0xFFFFFFFF:
                    raise TraceError(f"line {n}: bytes_req out of range")
                e["node"] = _num(n, "node", a.get("node", "-1"))
                if e["node"] >= MAX_NODES:
                    raise TraceError(f"line {n}: node={e['node']}, the format allows 0..{MAX_NODES - 1}")
        elif ev == RCU_BULK:
            e["nr"] = _num(n, "nr_records", a.get("nr_records", "0"))
        else:
            for k in ("rhp", "func"):
                if k not in a:
                    raise TraceError(f"line {n}: {ev} without {k}=: {line.strip()[:100]}")
            e["ptr"] = (_ptr(n, "rhp", a["rhp"]) - _num(n, "func", a["func"])) & (2 ** 64 - 1)
        evs.append(e)
    if not any(e["ev"] in ALLOC_EVENTS or e["ev"] in FREE_EVENTS for e in evs):
        raise TraceError("no kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc or "
                         "kmem:kmem_cache_free events in the text")
    evs.sort(key=lambda e: (e["ts"], e["n"]))
    cpus = sorted({e["cpu"] for e in evs})
    if len(cpus) > MAX_STREAMS:
        raise TraceError(f"{len(cpus)} CPUs: the format allows {MAX_STREAMS} streams")
    stream = {c: i for i, c in enumerate(cpus)}
    t0 = evs[0]["ts"]
    # Pass 1: objects (pointer lifetimes) and what their frees say about their caches.
    live, objs, rcu_pending = {}, [], {}
    site_size_names = collections.defaultdict(collections.Counter)
    for e in evs:
        ev, ts, cpu = e["ev"], e["ts"], e["cpu"]
        if ev in ALLOC_EVENTS:
            if e["ptr"] <= 16:
                notes[N_FAILED] += 1
                continue
            if e["ptr"] in live:
                notes[N_REALLOC] += 1
            o = {"kind": "kmalloc" if ev.startswith("kmalloc") else "kmem_cache_alloc",
                 "size": e["size"], "site": e["site"], "name": e["name"], "node": e["node"],
                 "alloc": (ts, cpu), "call": None, "free": None}
            notes[N_NODE] += e["node"] >= 0
            live[e["ptr"]] = o
            objs.append(o)
        elif ev == RCU_CALL:
            o = live.get(e["ptr"])
            if o is None:
                notes[N_RCU_CALL_BEFORE] += 1
            elif o["call"] is None:
                o["call"] = (ts, cpu)
        elif ev == RCU_INVOKE:
            if cpu in rcu_pending:
                notes[N_RCU_UNMATCHED] += 1
            rcu_pending[cpu] = e["ptr"]
        elif ev == RCU_BULK:
            notes[N_RCU_BULK] += e["nr"]
        else:
            ptr = e["ptr"]
            if ptr <= 16:
                notes[N_FREE_NULL] += 1
                continue
            pending = rcu_pending.pop(cpu, None)
            if pending is not None and pending != ptr:
                notes[N_RCU_UNMATCHED] += 1
            o = live.pop(ptr, None)
            if o is None:
                notes[N_BEFORE] += 1
                continue
            if pending == ptr or o["call"] is not None:
                o["free"] = (ts, cpu, "rcu")
                notes[N_RCU_FREES] += 1
                if o["call"] is None:
                    o["call"] = (ts, cpu)
                    notes[N_RCU_PLACED] += 1
            else:
                o["free"] = (ts, cpu, ev)
            if ev == "kmem_cache_free" and e["name"] is not None and o["kind"] == "kmem_cache_alloc":
                o["freed_as"] = e["name"]
                site_size_names[(o["site"], o["size"])][e["name"]] += 1
    notes[N_RCU_UNMATCHED] += len(rcu_pending)
    notes[N_LIVE] += len(live)
    w = TraceWriter(source, len(cpus))
    caches = {}

    def cache_of(o):
        name = o["name"] or o.get("freed_as")
        if not name:
            learned = site_size_names.get((o["site"], o["size"]))
            if learned:
                name = learned.most_common(1)[0][0]
                notes[N_LEARNED] += 1
            else:
                name = f"size-{o['size']}"
                notes[N_BY_SIZE] += 1
        key = (name[:31], max(o["size"], 1))
        if key not in caches:
            if len(caches) == MAX_CACHES:
                raise TraceError(f"more than {MAX_CACHES} caches")
            caches[key] = w.add_cache(key[0] if sum(1 for k in caches if k[0] == key[0]) == 0
                                      else f"{key[0][:24]}-{key[1]}", min(key[1], MAX_CACHE_SIZE))
        return caches[key]

    # Pass 2: events in time order (at one time: allocations, kfree_rcu calls, frees);
    # every allocation a new id.
    happen = []
    for o in objs:
        o["id"] = w.new_id()
        happen.append((o["alloc"][0], 0, o))
        if o["call"]:
            happen.append((o["call"][0], 1, o))
        if o["free"]:
            happen.append((o["free"][0], 2, o))
    happen.sort(key=lambda h: (h[0], h[1]))
    for ts, phase, o in happen:
        if phase == 0:
            s = stream[o["alloc"][1]]
            node = o["node"] if o["node"] >= 0 else None
            if o["kind"] == "kmem_cache_alloc" and o["size"] > MAX_CACHE_SIZE:
                notes[N_BIG] += 1
                o["kind"] = "kmalloc"
            if o["kind"] == "kmalloc":
                w.event(s, EV_KMALLOC, ts - t0, o["id"], o["size"], node=node)
            else:
                o["cache"] = cache_of(o)
                w.event(s, EV_ALLOC, ts - t0, o["id"], o["cache"], node=node)
        elif phase == 1:
            w.event(stream[o["call"][1]], EV_KFREE_RCU, ts - t0, o["id"])
        else:
            s = stream[o["free"][1]]
            if o["free"][2] == "rcu":
                w.event(s, EV_RCU_FREE, ts - t0, o["id"])
            elif o["kind"] == "kmem_cache_alloc":
                w.event(s, EV_FREE, ts - t0, o["id"], o["cache"])
            else:
                w.event(s, EV_KFREE, ts - t0, o["id"])
    return w, notes


def cmd_from_linux(a):
    try:
        with open(a.file, errors="replace") as f:
            w, notes = from_linux(f, a.source or f"linux:{os.path.basename(a.file)}"[:31])
    except (TraceError, OSError) as e:
        print(f"slabtrace: {a.file}: {e}", file=sys.stderr)
        return 1
    w.write(a.o)
    print(f"slabtrace: {a.o}: {len(w.streams)} streams (CPUs), {len(w.caches)} caches, "
          f"{sum(w.counts)} events, {w.nr_ids} objects")
    for k in sorted(notes):
        if notes[k]:
            print(f"  {k}: {notes[k]}")
    return 0


def synth(kind, nr_streams, nr_events, seed):
    """Generated traces for the replay tests: reproducible from the seed."""
    rng = random.Random(seed)
    w = TraceWriter(f"synth-{kind}", nr_streams)
    hdr = w.add_cache("skbuff", 232, 0, CACHE_FLAG_HWCACHE_ALIGN)
    small = w.add_cache("dentry", 192, 8, 0)
    ts = [0] * nr_streams
    if kind == "pairs":
        if nr_streams < 2 or nr_streams % 2:
            raise TraceError("pairs needs an even number of streams")
        for n in range(nr_events // 4):
            p = 2 * rng.randrange(nr_streams // 2)
            for s in (p, p + 1):
                ts[s] += rng.randrange(50, 500)
            a, b = w.new_id(), w.new_id()
            w.event(p, EV_ALLOC, ts[p], a, hdr)
            w.event(p, EV_KMALLOC, ts[p] + 20, b, rng.choice((100, 100, 64, 512, 3000, 20000)))
            w.event(p + 1, EV_KFREE, ts[p] + 40, b)
            w.event(p + 1, EV_FREE, ts[p] + 60, a, hdr)
            ts[p + 1] = max(ts[p + 1], ts[p] + 60)
    elif kind == "mixed":
        live = []
        for n in range(nr_events):
            s = rng.randrange(nr_streams)
            ts[s] += rng.randrange(20, 300)
            if live and (len(live) > 200 or rng.random() < 0.5):
                oid, c, t_alloc = live.pop(rng.randrange(len(live)))
                t = max(ts[s], t_alloc + 1)
                ts[s] = t
                if c is None:
                    w.event(s, EV_KFREE, t, oid)
                else:
                    w.event(s, EV_FREE, t, oid, c)
            else:
                oid = w.new_id()
                if rng.random() < 0.3:
                    c = rng.choice((hdr, small))
                    w.event(s, EV_ALLOC, ts[s], oid, c)
                else:
                    c = None
                    w.event(s, EV_KMALLOC, ts[s], oid, rng.choice((8, 24, 96, 200, 1000, 4096, 9000)))
                live.append((oid, c, ts[s]))
    elif kind == "rcu":
        # version 2: a stream allocates a cache object (on node stream % 2) and a kmalloc
        # (with kmalloc_nolock every fourth time), hands the first to kfree_rcu and kfrees
        # the second; the next stream does the rcu_free a grace period (1-5 us) later, but
        # for the last three objects (their grace period has not ended at the end)
        rounds = nr_events // 5
        for n in range(rounds):
            s = rng.randrange(nr_streams)
            ts[s] += rng.randrange(50, 500)
            a, b = w.new_id(), w.new_id()
            nolock = n % 4 == 0
            w.event(s, EV_ALLOC, ts[s], a, hdr, node=s % 2)
            w.event(s, EV_KMALLOC, ts[s] + 10, b, rng.choice((64, 200, 1000)), nolock=nolock)
            w.event(s, EV_KFREE_RCU, ts[s] + 20, a)
            w.event(s, EV_KFREE, ts[s] + 30, b, nolock=nolock)
            ts[s] += 30
            if n < rounds - 3:
                t = (s + 1) % nr_streams
                ts[t] = max(ts[t], ts[s]) + rng.randrange(1000, 5000)
                w.event(t, EV_RCU_FREE, ts[t], a)
    else:
        raise TraceError(f"no generated trace called {kind} (pairs, mixed, rcu)")
    return w


def cmd_synth(a):
    try:
        w = synth(a.kind, a.streams, a.events, a.seed)
    except TraceError as e:
        print(f"slabtrace: {e}", file=sys.stderr)
        return 1
    w.write(a.o)
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="slabtrace.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("file")
    c.set_defaults(fn=cmd_check)
    c = sub.add_parser("dump")
    c.add_argument("file")
    c.add_argument("-n", type=int, default=20)
    c.set_defaults(fn=cmd_dump)
    c = sub.add_parser("from-raw")
    c.add_argument("dir")
    c.add_argument("pid", type=int)
    c.add_argument("-o", required=True)
    c.add_argument("--source", default="ldpreload")
    c.set_defaults(fn=cmd_from_raw)
    c = sub.add_parser("from-linux")
    c.add_argument("file")
    c.add_argument("-o", required=True)
    c.add_argument("--source")
    c.set_defaults(fn=cmd_from_linux)
    c = sub.add_parser("synth")
    c.add_argument("kind")
    c.add_argument("-o", required=True)
    c.add_argument("--streams", type=int, default=4)
    c.add_argument("--events", type=int, default=4000)
    c.add_argument("--seed", type=int, default=1)
    c.set_defaults(fn=cmd_synth)
    a = p.parse_args(argv)
    try:
        return a.fn(a)
    except OSError as e:
        print(f"slabtrace: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
