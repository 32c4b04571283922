#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make sweep: per-cpu partial lists against sheaves over a grid, one JSON line per point.
"""Usage: tools/sweep.py [options]

Boots slablab's bench=sweep (bench/bench_sweep.c) at each CPU count of the grid, each boot
running every setting (sweep=: lock, partial with cpu_partial budgets, sheaves with
capacities 4..128 and linux7) over the workloads (sweep_work=: mix, hackbench, replay of a
trace) one after the other, so one boot gives many points. Each boot's serial log is kept
in OUT/logs/; a boot whose log is there and complete is not run again, so an interrupted
sweep resumes where it stopped (a boot cut short is run again). OUT/sweep.jsonl is then
written from every complete log: one JSON object per point (CPU count, accelerator,
workload, trace, setting), with

  speed    per_op: instructions per operation (an allocation and a free; a replayed event)
           under ICOUNT, else cycles per operation, CPU time, "emulated" under TCG; elapsed,
           ops
  memory   the run's caches together at "peak" (mix: every CPU stopped with its working set
           live) and at "end" (after the run; a replay: at the trace's end): pages held, the
           most held at once, bytes live, free objects cached per cpu (sheaves, cpu partial
           slabs) and per node (the barn), partial slabs and their fill, the sheaves' own
           pages (and what they take in Linux 7.0), pages x 4096 / bytes live
  traffic  per 1000 operations: list_lock acquisitions (and contended), slabs from and to
           the page allocator, barn gets and puts (and failures), sheaf refills and
           flushes, cpu partial list traffic

--host adds the same grid from the host build (build/bench-host/bench-suite: real cycles on
this machine's cores, CPUS 1 and 2), --small the grid make test runs (seconds).

Options:
  --out DIR          where logs and sweep.jsonl go (build/sweep)
  --cpus LIST        CPU counts (1,4,16,64,256,1024)
  --icount-max N     CPU counts up to N boot with ICOUNT=1 (TCG counting instructions, one
                     host thread: 1024 CPUs boot and run the grid faster so than with a
                     thread each on a busy 2-core host; 1024), above under plain TCG (speed
                     emulated; memory exact either way)
  --settings LIST    sweep= (the kernel's default grid)
  --work LIST        sweep_work= (mix,hackbench,replay)
  --traces LIST      traces for the replay workload: "builtin" (the recording in the
                     kernel) or files (tests/traces/*.trace); the first replays in the boot
                     that runs mix and hackbench, each other one in a boot of its own, at
                     CPU counts up to --traces-cpus
  --traces-cpus N    the other traces at CPU counts up to N (64)
  --host             also bench-suite on this machine's cores (accel "host")
  --host-only        bench-suite alone, no boot
  --keep DIR         copy the logs of boots with 256 or more CPUs there (docs/results/sweep)
  --tag NAME         in the boots' names, for a grid of other settings beside the first
                     (its logs in the same folder, its points in the same sweep.jsonl)
  --small            make test's grid: 2 CPUs, 4 settings, small workloads
  --dry-run          print the boots, run nothing
  --only-jsonl       write sweep.jsonl from the logs there, run nothing
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from ktap import clean_lines  # noqa: E402  (tools/ktap.py)

DEFAULT_CPUS = [1, 4, 16, 64, 256, 1024]
DEFAULT_TRACES = ["builtin", "tests/traces/linux-hackbench.trace"]
SMALL_SETTINGS = "lock,partial/30,sheaves/8,sheaves/linux7"
DONE = "sweep: done"
TRAFFIC = ["list_lock", "list_lock_contended", "alloc_slab", "free_slab", "barn_get",
           "barn_get_fail", "barn_put", "barn_put_fail", "sheaf_refill", "sheaf_flush",
           "cpu_partial_alloc", "cpu_partial_free", "cpu_partial_node", "cpu_partial_drain"]
MEM_FIGS = {"mem_pages": "pages", "mem_pages_peak": "pages_peak", "mem_live": "live_bytes",
            "mem_cpu_cached": "cpu_cached", "mem_cpu_cached_per_cpu": "cpu_cached_per_cpu",
            "mem_node_cached": "node_cached", "mem_cpu_free": "cpu_free",
            "mem_partial_slabs": "partial_slabs", "mem_partial_fill": "partial_fill_pct",
            "mem_layer_pages": "layer_pages", "mem_layer_bytes_linux7": "layer_bytes_linux7",
            "mem_ratio": "ratio_pct", "mem_live_peak": "live_peak_bytes",
            "mem_ratio_peak": "ratio_peak_pct"}


class Boot:
    """One boot of the grid: its CPU count, accelerator, workloads and trace."""

    def __init__(self, cpus, accel, work, trace, settings, sizes, mem, tag=""):
        self.cpus, self.accel, self.work, self.trace = cpus, accel, work, trace
        self.settings, self.sizes, self.mem = settings, sizes, mem
        tname = "builtin" if trace == "builtin" else os.path.splitext(os.path.basename(trace))[0]
        self.key = "%s%s-cpus%d-%s@%s" % (accel, "-" + tag if tag else "", cpus,
                                          work.replace(",", "+"), tname)

    def cmdline(self):
        return "bench=sweep bench_reps=1 sweep=%s sweep_work=%s %s" % (
            self.settings, self.work, self.sizes)


def sizes_for(cpus, small):
    """Workload sizes: every CPU busy (hackbench groups of 40 tasks cover them)."""
    if small:
        return "scaling_ops=300 hackbench_groups=1 hackbench_loops=2"
    groups = max(2, math.ceil(cpus / 40))
    big = cpus > 64  # minutes a boot under TCG on a shared 2-core host: less work a CPU
    return "scaling_ops=%d hackbench_groups=%d hackbench_loops=%d%s" % (
        1000 if big else 2000, groups, 2 if big else 5,
        " ap_timeout_ms=60000" if cpus > 16 else "")


def mem_for(cpus):
    # every cpu's sheaves are a page each (7 caches x 2 x cpus) and the replay's tables
    return "256M" if cpus <= 16 else "512M" if cpus <= 64 else "1G" if cpus <= 256 else "3G"


def grid(a):
    boots = []
    settings = a.settings
    for cpus in a.cpus:
        accel = "icount" if cpus <= a.icount_max else "tcg"
        sizes = sizes_for(cpus, a.small)
        first = a.traces[0] if a.traces else "builtin"
        boots.append(Boot(cpus, accel, a.work, first, settings, sizes, mem_for(cpus), a.tag))
        if "replay" in a.work.split(",") and cpus <= a.traces_cpus:
            for t in a.traces[1:]:
                boots.append(Boot(cpus, accel, "replay", t, settings, sizes, mem_for(cpus),
                                  a.tag))
    return boots


def log_complete(path):
    """A log of a boot that ran the whole sweep and passed."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return DONE in text and '"result":"pass"' in text


def run(cmd, env=None, log=None, timeout=None):
    print("sweep: " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env, timeout=timeout).returncode


def run_boot(a, b):
    logs = os.path.join(a.out, "logs")
    os.makedirs(logs, exist_ok=True)
    os.makedirs(os.path.join(a.out, "iso"), exist_ok=True)
    log = os.path.join(logs, b.key + ".log")
    if log_complete(log):
        print("sweep: %s: done before (%s)" % (b.key, os.path.relpath(log, ROOT)), flush=True)
        return True
    iso = os.path.join(a.out, "iso", b.key + ".iso")
    mk = ["make", "--no-print-directory", "iso-cmdline", "OUT=" + iso, "CMDLINE=" + b.cmdline()]
    if b.trace != "builtin":
        mk.append("MODULE=" + b.trace)
    if subprocess.run(mk, cwd=ROOT, stdout=subprocess.DEVNULL).returncode:
        print("sweep: %s: cannot make the ISO" % b.key, file=sys.stderr)
        return False
    env = dict(os.environ, ISO=iso, LOG=log + ".part", SMP=str(b.cpus), MEM=b.mem,
               ICOUNT="1" if b.accel == "icount" else "0", ACCEL="tcg",
               TIMEOUT=str(a.timeout))
    for k in ("APIC", "MACHINE", "QEMU_EXTRA", "TOPOLOGY", "NODES"):
        env.pop(k, None)
    t0 = time.time()
    print("sweep: %s: SMP=%d MEM=%s %s, %s" % (b.key, b.cpus, b.mem, b.accel.upper(),
                                             b.cmdline()), flush=True)
    rc = subprocess.run([os.path.join(ROOT, "tools", "qemu-run.sh")], cwd=ROOT, env=env,
                        stdout=subprocess.DEVNULL).returncode
    if rc != 0 or not log_complete(log + ".part"):
        print("sweep: %s: the boot failed (exit %d after %.0f s); its log: %s" %
              (b.key, rc, time.time() - t0, os.path.relpath(log + ".part", ROOT)),
              file=sys.stderr, flush=True)
        return False
    os.replace(log + ".part", log)
    print("sweep: %s: %.0f s" % (b.key, time.time() - t0), flush=True)
    if a.keep and b.cpus >= 256:
        os.makedirs(a.keep, exist_ok=True)
        shutil.copy(log, os.path.join(a.keep, b.key + ".log"))
    return True


def run_host(a):
    """bench-suite on this machine's cores, CPUS 1 and 2: accel host."""
    suite = os.path.join(ROOT, "build", "bench-host", "bench-suite")
    if run(["make", "--no-print-directory", "build/bench-host/bench-suite"]):
        return False
    ok = True
    for cpus in (1, 2):
        b = Boot(cpus, "host", a.work, "builtin", a.settings, sizes_for(cpus, a.small), "", a.tag)
        log = os.path.join(a.out, "logs", b.key + ".log")
        if log_complete(log):
            continue
        os.makedirs(os.path.dirname(log), exist_ok=True)
        with open(log + ".part", "w") as f:
            rc = subprocess.run([suite, "cpus=%d" % cpus] + b.cmdline().split(), cwd=ROOT,
                                stdout=f, stderr=subprocess.STDOUT).returncode
        if rc == 0 and DONE in open(log + ".part", errors="replace").read():
            with open(log + ".part", "a") as f:
                f.write('{"event":"exit","result":"pass"}\n')  # the host build has none
            os.replace(log + ".part", log)
        else:
            print("sweep: %s failed (exit %d): %s" % (b.key, rc, log + ".part"), file=sys.stderr)
            ok = False
    return ok


# ---- the points ----

JSON_RE = re.compile(r'\{\s*"bench"\s*:')


def figures(path):
    with open(path, "rb") as f:
        for line in clean_lines(f.read()):
            m = JSON_RE.search(line)
            if not m:
                continue
            try:
                yield json.loads(line[m.start():])
            except ValueError:
                continue


def meta_of(path):
    for f in figures(path):
        if f.get("bench") == "meta":
            return f
    return {}


def parse_key(name):
    """(accel, cpus, workloads, trace) of a log's name: ACCEL[-TAG]-cpusN-WORK@TRACE.log."""
    m = re.match(r"(icount|tcg|host)(?:-\w+)?-cpus(\d+)-([^@]+)@(.+)\.log$", name)
    return m.groups() if m else None


def points_from_log(path):
    name = os.path.basename(path)
    k = parse_key(name)
    if not k:
        return []
    accel, cpus, _, trace = k
    cpus = int(cpus)
    pts = {}

    def point(workload, setting, scheme):
        key = (workload, setting)
        if key not in pts:
            pts[key] = {"cpus": cpus, "accel": accel, "workload": workload,
                        "trace": trace if workload == "replay" else None, "setting": setting,
                        "scheme": scheme, "speed": {}, "memory": {}, "traffic": {},
                        "log": os.path.relpath(path, ROOT)}
        return pts[key]

    for f in figures(path):
        bench, fig = f.get("bench"), f.get("figure", "")
        setting = f.get("setting")
        if not setting or bench not in ("sweep", "replay"):
            continue
        workload = f.get("workload", "replay" if bench == "replay" else "")
        p = point(workload, setting, f.get("scheme"))
        v = f.get("value")
        if bench == "replay" and "trace" in f:
            p["trace_name"] = f["trace"]
            p["events"] = f.get("events")
        if fig in MEM_FIGS:
            if f.get("cache") != "all":
                continue
            when = f.get("when", "end")
            p["memory"].setdefault(when, {})[MEM_FIGS[fig]] = v
        elif fig in ("elapsed", "ops"):
            p["speed"][fig] = v
        elif fig == "cycles" and bench == "replay":
            p["speed"]["elapsed"] = v
        elif fig.endswith("_per_1000_ops"):
            p["traffic"][fig[:-len("_per_1000_ops")]] = v
        elif bench == "replay" and fig in ("list_lock", "list_lock_contended"):
            p["traffic"][fig + "_count"] = v
        elif fig == "workload_live":
            p["memory"].setdefault("peak", {})["workload_live_bytes"] = v
        p["emulated"] = bool(f.get("emulated")) and accel == "tcg"
    out = []
    for p in pts.values():
        s = p["speed"]
        if p["workload"] == "replay" and p.get("events"):
            s["ops"] = p["events"]
            for t in ("list_lock", "list_lock_contended"):
                c = p["traffic"].pop(t + "_count", None)
                if c is not None:
                    p["traffic"][t] = round(c * 1000.0 / p["events"], 1)
        if s.get("elapsed") and s.get("ops"):
            if accel == "icount":
                # the guest's clock counts every CPU's instructions: instructions per op
                s["per_op"] = round(s["elapsed"] / s["ops"], 1)
                s["unit"] = "instructions"
            else:
                busy = cpus if p["workload"] != "replay" else 1
                s["per_op"] = round(s["elapsed"] * busy / s["ops"], 1)
                s["unit"] = "cycles"
            s["emulated"] = accel == "tcg"
        out.append(p)
    return out


def write_jsonl(a):
    logs = os.path.join(a.out, "logs")
    points = []
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        path = os.path.join(logs, name)
        if name.endswith(".log") and log_complete(path):
            points.extend(points_from_log(path))
    points.sort(key=lambda p: (p["workload"], p.get("trace") or "", p["accel"], p["cpus"],
                               p["setting"]))
    out = os.path.join(a.out, "sweep.jsonl")
    with open(out + ".tmp", "w") as f:
        for p in points:
            f.write(json.dumps(p, sort_keys=True) + "\n")
    os.replace(out + ".tmp", out)
    print("sweep: %d points in %s" % (len(points), os.path.relpath(out, ROOT)), flush=True)
    return points


def main(argv):
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "sweep"))
    ap.add_argument("--cpus", default=None)
    ap.add_argument("--icount-max", type=int, default=1024)
    ap.add_argument("--settings", default=None)
    ap.add_argument("--work", default="mix,hackbench,replay")
    ap.add_argument("--traces", default=",".join(DEFAULT_TRACES))
    ap.add_argument("--traces-cpus", type=int, default=64)
    ap.add_argument("--host", action="store_true")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--tag", default="", type=lambda t: t if re.fullmatch(r"[a-z0-9]*", t)
                    else ap.error("--tag: letters and digits"))
    ap.add_argument("--timeout", type=int, default=7200)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--only-jsonl", action="store_true")
    a = ap.parse_args(argv)
    a.out = os.path.abspath(a.out)
    if a.small:
        a.cpus = a.cpus or "2"
        a.settings = a.settings or SMALL_SETTINGS
        a.work = a.work if a.work != "mix,hackbench,replay" else "mix,hackbench,replay"
        a.traces = "builtin"
    try:
        a.cpus = [int(c) for c in (a.cpus or ",".join(map(str, DEFAULT_CPUS))).split(",")]
    except ValueError:
        ap.error("--cpus: a comma list of CPU counts")
    if any(c < 1 or c > 1024 for c in a.cpus):
        ap.error("--cpus: 1..1024")
    a.traces = [t for t in a.traces.split(",") if t]
    for t in a.traces:
        if t != "builtin" and not os.path.isfile(os.path.join(ROOT, t)):
            ap.error("--traces: no file %s" % t)
    if a.settings is None:
        a.settings = ("lock,partial,partial/30,partial/480,sheaves,sheaves/4,sheaves/8,"
                      "sheaves/16,sheaves/32,sheaves/64,sheaves/128,sheaves/linux7")
    if a.only_jsonl:
        write_jsonl(a)
        return 0
    if a.host_only:
        ok = run_host(a)
        write_jsonl(a)
        return 0 if ok else 1
    boots = grid(a)
    if a.dry_run:
        for b in boots:
            print("%s: SMP=%d MEM=%s %s %s%s" % (b.key, b.cpus, b.mem, b.accel, b.cmdline(),
                                                "" if b.trace == "builtin" else " TRACE=" + b.trace))
        return 0
    if run(["make", "--no-print-directory", "build/slablab.elf"]):
        return 1
    if any(b.cpus > 255 for b in boots) and subprocess.run(
            [os.path.join(ROOT, "tools", "qemu-run.sh"), "--x2apic-probe"], cwd=ROOT,
            capture_output=True, text=True).stdout.strip() != "yes":
        # more than 255 CPUs need a QEMU whose TCG has x2APIC: fetch tools/qemu10.sh's
        if run([os.path.join(ROOT, "tools", "qemu10.sh"), "--fetch"]):
            print("sweep: no QEMU with TCG x2APIC for the boots past 255 CPUs "
                  "(tools/qemu10.sh --fetch failed); they will fail", file=sys.stderr)
    failed = 0
    for b in boots:
        if not run_boot(a, b):
            failed += 1
    if a.host and not run_host(a):
        failed += 1
    write_jsonl(a)
    if failed:
        print("sweep: %d boot(s) failed; run it again to retry them (the others are kept)" %
              failed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
