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
                                      cache and kmallocs, stream 2k+1 frees them) or mixed

The library part (TraceWriter, read_trace, check_trace) is what the tests and the
converters use. Exit codes: 0 good, 1 a bad trace (or a failed conversion), 2 bad usage.
"""
import argparse
import collections
import os
import random
import struct
import sys

MAGIC = b"SLABTRCE"
VERSION = 1
HEADER = struct.Struct("<8sHHIQQ32sII")  # magic version nr_caches nr_streams nr_events nr_ids source flags header_bytes
CACHE = struct.Struct("<32sIIII")           # name size align flags reserved
STREAM = struct.Struct("<QQQ")              # offset bytes nr_events
MAX_STREAMS = 1024
MAX_CACHES = 1024
MAX_CACHE_SIZE = 32768          # an object must fit an order-3 slab (mm/slab.h)
KMALLOC_MAX_CACHE_SIZE = 8192   # larger kmallocs go to the page allocator
PAGE_ALLOC_MAX = 4096 << 10     # the page allocator's largest block (MAX_ORDER 10)
CACHE_FLAG_HWCACHE_ALIGN = 1
CACHE_FLAGS = CACHE_FLAG_HWCACHE_ALIGN

EV_ALLOC, EV_KMALLOC, EV_FREE, EV_KFREE = 1, 2, 3, 4
EV_NAMES = {EV_ALLOC: "alloc", EV_KMALLOC: "kmalloc", EV_FREE: "free", EV_KFREE: "kfree"}


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

    def add_cache(self, name, size, align=0, flags=0):
        if len(self.caches) == MAX_CACHES:
            raise TraceError(f"more than {MAX_CACHES} caches")
        self.caches.append((name, size, align, flags))
        return len(self.caches) - 1

    def new_id(self):
        self.nr_ids += 1
        return self.nr_ids - 1

    def event(self, stream, kind, ts, oid, arg=0):
        """arg: the cache index (alloc, free) or the size (kmalloc); unused for kfree."""
        dt = max(0, ts - self.last_ts[stream])
        self.last_ts[stream] += dt
        buf = self.streams[stream]
        buf.append(kind)
        buf += _varint(dt)
        buf += _varint(oid)
        if kind in (EV_ALLOC, EV_FREE, EV_KMALLOC):
            buf += _varint(arg)
        self.counts[stream] += 1
        self.nr_ids = max(self.nr_ids, oid + 1)

    def raw(self, stream, data, count=1):
        """Bytes of an event as they are (for tests that make bad traces)."""
        self.streams[stream] += data
        self.counts[stream] += count

    def to_bytes(self, version=VERSION, nr_events=None):
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
    if ver != VERSION:
        raise TraceError(f"format version {ver}, this tool reads version {VERSION}")
    if flags:
        raise TraceError(f"header flags {flags:#x}: version {VERSION} defines none")
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
    """Yields (index, kind, ts, id, arg) of stream s; TraceError names the event."""
    so, sb, sn = t.streams[s]
    data, p, end, ts = t.data, so, so + sb, 0

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
        kind = data[p]
        p += 1
        if kind not in EV_NAMES:
            raise TraceError(f"stream {s} event {i}: unknown event type {kind}")
        ts += varint(i, "time")
        oid = varint(i, "id")
        arg = varint(i, "cache" if kind in (EV_ALLOC, EV_FREE) else "size") if kind != EV_KFREE else 0
        if oid >= t.nr_ids:
            raise TraceError(f"stream {s} event {i}: id {oid} past the header's {t.nr_ids} ids")
        if kind in (EV_ALLOC, EV_FREE) and arg >= len(t.caches):
            raise TraceError(f"stream {s} event {i}: unknown cache {arg} (the trace has {len(t.caches)})")
        yield i, kind, ts, oid, arg
    if p != end:
        raise TraceError(f"stream {s}: {end - p} bytes after its {sn} events")


def check_trace(data):
    """Everything the kernel checks before a replay. Returns a dict of counts; raises
    TraceError for a trace that cannot be replayed."""
    t = read_header(data)
    alloc_at = {}
    per = [list(events(t, s)) for s in range(len(t.streams))]
    st = collections.Counter()
    for s, evs in enumerate(per):
        for i, kind, ts, oid, arg in evs:
            if kind in (EV_ALLOC, EV_KMALLOC):
                if oid in alloc_at:
                    a = alloc_at[oid]
                    raise TraceError(f"stream {s} event {i}: id {oid} allocated again "
                                     f"(first at stream {a[0]} event {a[1]}); a trace gives "
                                     "every allocation a new id")
                alloc_at[oid] = (s, i)
                if kind == EV_KMALLOC:
                    if arg == 0:
                        st["size_zero"] += 1
                    elif arg > PAGE_ALLOC_MAX:
                        st["size_too_big"] += 1
                    elif arg > KMALLOC_MAX_CACHE_SIZE:
                        st["page_allocs"] += 1
    # The replay's order: each stream runs until a free waits for an allocation that has not
    # happened; a trace where every stream waits is a deadlock.
    state = {}  # id -> "live" or "freed"
    pos = [0] * len(per)
    while True:
        moved = False
        for s, evs in enumerate(per):
            while pos[s] < len(evs):
                i, kind, ts, oid, arg = evs[pos[s]]
                if kind in (EV_ALLOC, EV_KMALLOC):
                    state[oid] = "live"
                elif oid not in alloc_at:
                    st["free_never_allocated"] += 1
                elif state.get(oid) == "freed":
                    st["double_free"] += 1
                elif oid not in state:
                    break  # waits for the allocation on another stream
                else:
                    state[oid] = "freed"
                    if alloc_at[oid][0] != s:
                        st["remote_frees"] += 1
                    st["frees"] += 1
                pos[s] += 1
                moved = True
        if all(pos[s] == len(per[s]) for s in range(len(per))):
            break
        if not moved:
            s = next(s for s in range(len(per)) if pos[s] < len(per[s]))
            i, kind, ts, oid, arg = per[s][pos[s]]
            a = alloc_at[oid]
            raise TraceError(f"stream {s} event {i}: deadlock: the free of id {oid} waits for its "
                             f"allocation (stream {a[0]} event {a[1]}), which waits too")
    st["events"] = t.nr_events
    st["allocs"] = len(alloc_at)
    st["live_at_end"] = sum(1 for v in state.values() if v == "live")
    return t, st


def cmd_check(a):
    data = open(a.file, "rb").read()
    try:
        t, st = check_trace(data)
    except TraceError as e:
        print(f"slabtrace: {a.file}: {e}", file=sys.stderr)
        return 1
    print(f"{a.file}: version {VERSION}, source {t.source}, {len(t.streams)} streams, "
          f"{len(t.caches)} caches, {t.nr_events} events, {t.nr_ids} ids")
    print("  " + ", ".join(f"{k} {st[k]}" for k in
                           ("allocs", "frees", "remote_frees", "live_at_end", "page_allocs")))
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
            for i, kind, ts, oid, arg in events(t, s):
                if i >= a.n:
                    break
                print(f"{s} {i} {ts} {EV_NAMES[kind]} id {oid} {arg}")
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
import re

# tracefs `trace` and `trace-cmd report`: "TASK-PID [CPU] FLAGS? SECS.USECS: EVENT: ARGS";
# `perf script`: "TASK PID [CPU] SECS.USECS: kmem:EVENT: ARGS".
LINE_TRACEFS = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(?P<cpu>\d+)\]"
                          r"\s+(?:[^\s:]+\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>[\w:]+):\s*(?P<args>.*)$")
LINE_PERF = re.compile(r"^\s*(?P<task>.+?)\s+(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):"
                       r"\s+(?:\d+\s+)?(?P<event>kmem:\w+):\s*(?P<args>.*)$")
ARG = re.compile(r"(\w+)=(\S+)")
KMEM_EVENTS = ("kmalloc", "kfree", "kmem_cache_alloc", "kmem_cache_free")


def _ns(ts):
    sec, frac = ts.split(".")
    return int(sec) * 1000000000 + int((frac + "000000000")[:9])


def _null(ptr):
    try:
        return int(ptr, 16) <= 16  # NULL and ZERO_SIZE_PTR: kfree traces them too
    except ValueError:
        return ptr in ("(null)", "(nil)")


def from_linux(lines, source):
    """Text of tracefs `trace`, `trace-cmd report` or `perf script` -> (TraceWriter, notes).

    CPUs become streams (those that appear, in order). A pointer names an object from its
    allocation to its free (hashed %p or raw: only identity matters). Linux 6.1's
    kmem_cache_alloc has no name=: the cache is learned from the object's own free
    (name=), else from other objects of the same call site and size whose frees named it,
    else it is "size-N" after its object size; a name= on the alloc (newer kernels) is
    used as given. Frees of objects allocated before the trace began are skipped and
    counted; objects live at the end stay live (the replay frees them then)."""
    evs, notes = [], collections.Counter()
    fmt = None
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            m = re.search(r"entries-in-buffer/entries-written:\s*(\d+)/(\d+)", line)
            if m and int(m.group(1)) < int(m.group(2)):
                notes["overwritten (ring buffer full)"] += int(m.group(2)) - int(m.group(1))
            continue
        if "EVENTS DROPPED" in line or "LOST EVENTS" in line.upper():
            m = re.search(r"(\d+)\s+(?:EVENTS DROPPED|events lost)", line, re.I)
            notes["dropped (reported in the text)"] += int(m.group(1)) if m else 1
            continue
        m = LINE_PERF.match(line) or LINE_TRACEFS.match(line)
        if not m:
            continue
        ev = m.group("event").split(":")[-1]
        if ev not in KMEM_EVENTS:
            continue
        args = dict(ARG.findall(m.group("args")))
        if "ptr" not in args:
            raise TraceError(f"line {n}: {ev} without ptr=: {line.strip()[:100]}")
        evs.append((_ns(m.group("ts")), int(m.group("cpu")), ev, args, n))
    if not evs:
        raise TraceError("no kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc or "
                         "kmem:kmem_cache_free events in the text")
    evs.sort(key=lambda e: (e[0], e[4]))
    cpus = sorted({e[1] for e in evs})
    if len(cpus) > MAX_STREAMS:
        raise TraceError(f"{len(cpus)} CPUs: the format allows {MAX_STREAMS} streams")
    stream = {c: i for i, c in enumerate(cpus)}
    # Pass 1: objects (pointer lifetimes) and what their frees say about their caches.
    live, objs = {}, []
    site_size_names = collections.defaultdict(collections.Counter)
    for ts, cpu, ev, a, n in evs:
        ptr = a["ptr"]
        if ev in ("kmalloc", "kmem_cache_alloc"):
            if _null(ptr):
                notes["failed allocations (NULL)"] += 1
                continue
            if ptr in live:
                notes["allocations of a pointer still live (its free was not traced)"] += 1
            size = int(a.get("bytes_req", "0"))
            o = {"kind": ev, "size": size, "site": a.get("call_site", "?"), "name": a.get("name"),
                 "alloc": (ts, cpu), "free": None, "align": int(a.get("bytes_alloc", size) or size)}
            live[ptr] = o
            objs.append(o)
        else:
            if _null(ptr):
                notes["frees of NULL"] += 1
                continue
            o = live.pop(ptr, None)
            if o is None:
                notes["frees of objects allocated before the trace began (skipped)"] += 1
                continue
            o["free"] = (ts, cpu, ev)
            if ev == "kmem_cache_free" and "name" in a and o["kind"] == "kmem_cache_alloc":
                o["freed_as"] = a["name"]
                site_size_names[(o["site"], o["size"])][a["name"]] += 1
    notes["objects live at the end (freed at the end of the replay)"] += len(live)
    w = TraceWriter(source, len(cpus))
    caches = {}

    def cache_of(o):
        name = o.get("name") or o.get("freed_as")
        if not name:
            learned = site_size_names.get((o["site"], o["size"]))
            if learned:
                name = learned.most_common(1)[0][0]
                notes["cache names learned from other objects' frees"] += 1
            else:
                name = f"size-{o['size']}"
                notes["cache objects whose cache is known only by size"] += 1
        key = (name[:31], max(o["size"], 1))
        if key not in caches:
            if len(caches) == MAX_CACHES:
                raise TraceError(f"more than {MAX_CACHES} caches")
            caches[key] = w.add_cache(key[0] if sum(1 for k in caches if k[0] == key[0]) == 0
                                      else f"{key[0][:24]}-{key[1]}", min(key[1], MAX_CACHE_SIZE))
        return caches[key]

    # Pass 2: events in time order; every allocation a new id.
    happen = []
    for o in objs:
        o["id"] = w.new_id()
        happen.append((o["alloc"][0], 0, o))
        if o["free"]:
            happen.append((o["free"][0], 1, o))
    happen.sort(key=lambda h: (h[0], h[1]))
    for ts, is_free, o in happen:
        if not is_free:
            s = stream[o["alloc"][1]]
            if o["kind"] == "kmalloc":
                w.event(s, EV_KMALLOC, ts - evs[0][0], o["id"], o["size"])
            else:
                if o["size"] > MAX_CACHE_SIZE:
                    notes["cache objects past 32 KiB, made kmallocs"] += 1
                    o["kind"] = "kmalloc"
                    w.event(s, EV_KMALLOC, ts - evs[0][0], o["id"], o["size"])
                else:
                    o["cache"] = cache_of(o)
                    w.event(s, EV_ALLOC, ts - evs[0][0], o["id"], o["cache"])
        else:
            s = stream[o["free"][1]]
            if o["kind"] == "kmem_cache_alloc":
                w.event(s, EV_FREE, ts - evs[0][0], o["id"], o["cache"])
            else:
                w.event(s, EV_KFREE, ts - evs[0][0], o["id"])
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
    else:
        raise TraceError(f"no generated trace called {kind} (pairs, mixed)")
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
