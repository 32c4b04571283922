#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Turns the benchmark JSON lines of a slablab serial log (QEMU's or a real machine's) into a
# CSV per benchmark, gnuplot PNGs and a markdown summary; or compares two logs figure by figure.
"""Usage:
  benchreport.py LOG [-o DIR] [--no-plots]   DIR/BENCH.csv, DIR/*.png, DIR/report.md
                                             (DIR defaults to build/report)
  benchreport.py --compare A B [C...] [-o FILE]
                                             markdown: every figure of A next to B's
                                             (and C's...), matched by benchmark, parameters
                                             (scheme, size, groups...), figure and unit,
                                             with B/A (C/A...) and, per benchmark, which
                                             kind of log (TCG, ICOUNT, host) to trust for
                                             what
        [--pair S=T[/FP],...]                A's scheme S against B's T (tools/bench-linux:
                                             linux=lock/irq,partial/irq)
  benchreport.py --compare A1,A2,... B1,B2,... [--pair ...] [-o FILE]
                                             rounds: each side several boots (make
                                             bench-linux's ROUNDS, interleaved); per figure
                                             each side's fastest round (lowest cost,
                                             highest rate, else the median), their ratio,
                                             every round's value, its spread (max/min) and
                                             the ratio round by round
  benchreport.py --study SWEEP.jsonl [-o DIR] [--no-plots]
                                             docs/sheaves-study.md and its plots from make
                                             sweep's points (tools/sheafstudy.py)
  benchreport.py --check LOG                 the log against the JSON contract, nothing
                                             written (tools/test.sh's benchjson check)
  benchreport.py --from-qr TEXT|FILE [--against LOG]
                                             the results a phone read off the screen's QR
                                             code, as markdown; --against: they must be
                                             the summary figures of LOG's JSON lines
LOG may be '-' for stdin. Exit 0 on success, 1 when a log holds no benchmark figure or
gnuplot failed on a plot (--check: when the log breaks the contract), 2 on bad usage or an
unreadable log. Plots need gnuplot (Debian: gnuplot-nox); without it
the CSVs and the markdown are still written and the report says the plots were skipped.

What is read: every line that holds a JSON object starting {"bench": ..., one figure each
(bench/bench.c bench_json), after escape sequences, \\r and other control characters are
dropped (tools/ktap.py's cleaning). Anything else (GRUB, KTAP, tables) is ignored. A line
that is left out is named on stderr and in the report, with the reason: a figure line that
does not parse (a truncated last line), a figure line without figure, value or unit or whose
value (or p10, p90, min, max) is not a finite number ("NaN", NaN, true), a meta line without
one of META_KEYS. Unknown benchmarks and figures go into their CSV and a generic table like
every other.

--check reads the same lines and finds fault instead of leaving lines out: every line that
starts with '{' must be one JSON value; every figure line must parse, hold figure, value,
unit, accel, emulated and cpus with finite numbers (the meta line: META_KEYS); there must be
one meta line, before the first figure; every benchmark its "benches" names must have
printed figures (remote on one CPU excepted: it needs two). It prints the first few
problems, a line each ("line 144 is not JSON (...)", "line 9: no unit, cpus", "no figures
from remote (...)"), then a summary line, and exits 1 if there was any, else 0.

The summary gives each scheme's headline figure per benchmark (HEADLINES below) and its ratio
to `lock`: against lock's figure with the same parameters, or lock/irq for a scheme with a
fastpath of its own (sheaves); over several parameter values, the geometric mean.
"""

import argparse
import csv
import decimal
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import clean_lines  # noqa: E402  (tools/ktap.py: escapes and control chars)

BENCH_RE = re.compile(r'\{\s*"bench"\s*:')
BOOT_RE = re.compile(r'\{\s*"event"\s*:\s*"boot"')
CPU_LINE_RE = re.compile(r'^slablab: .*\bcpu "([^"]*)"')
GRUB_RE = re.compile(r"Booting `[^ ']* ?([^']*)'")

# Keys of a figure line that are not parameters, in the order the CSVs put them last.
FIXED = ["figure", "value", "unit", "p10", "p90", "min", "max", "accel", "emulated", "cpus"]
# Figure-line keys that describe the run, not the figure: the host's involuntary context
# switches (tools/bench-host) and how many repetitions a median was taken over. --compare
# matches figures without them (the same benchmark, scheme, size... from runs of different
# lengths), and shows them as "Same for every row" when they agree.
NOISE = ["nivcsw"]
NOT_MATCHED = NOISE + ["reps"]
SPREAD = ["p10", "p90", "min", "max"]
# What the meta line must hold (bench/bench.c print_meta; the report's machine table and
# tools/test.sh read them).
META_KEYS = ["cpu_model", "tsc_mhz", "seed", "cmdline", "benches", "schemes", "accel",
             "emulated", "cpus"]
# The scheme the ratios are to: the meta line's "baseline" (the kernel's SLAB_SCHEME_BASELINE
# scheme); logs from before it was printed have none, and their baseline was lock.
OLD_BASELINE = "lock"


def baseline(log):
    """The log's baseline scheme (OLD_BASELINE for a log without one in its meta line)."""
    return (log.meta or {}).get("baseline") or OLD_BASELINE

# ---------------------------------------------------------------------------------------
# Reading a log


class Fig:
    """One figure line: bench, its parameters (in the order printed), figure, value, unit."""

    def __init__(self, obj, lineno):
        self.obj = obj
        self.lineno = lineno
        self.bench = str(obj.get("bench"))
        self.params = {k: v for k, v in obj.items() if k != "bench" and k not in FIXED}
        self.figure = str(obj.get("figure", ""))
        self.unit = str(obj.get("unit", ""))
        self.value = num(obj.get("value"))

    def get(self, key, default=None):
        return self.obj.get(key, default)

    def p(self, key):
        """A parameter as text ('' when absent), for grouping and matching."""
        return text(self.params.get(key, ""))

    def variant(self, key="scheme"):
        """scheme, or scheme/fastpath where a fastpath applies: the column a figure goes in."""
        v = self.p(key)
        if key == "scheme" and "fastpath" in self.params:
            v += "/" + self.p("fastpath")
        return v


class Log:
    def __init__(self, name):
        self.name = name
        self.figs = []
        self.bad = []  # (line number, why, start of the line) of the lines left out
        self.meta = None  # the {"bench":"meta"} object
        self.boot = None  # the {"event":"boot"} object
        self.cpu_line = None  # cpu model from the kernel's "slablab: N of N CPUs" line
        self.grub_cmdline = None

    def benches(self):
        """Benchmark names in the order they first appear, meta left out."""
        seen = []
        for f in self.figs:
            if f.bench != "meta" and f.bench not in seen:
                seen.append(f.bench)
        return seen

    def of(self, bench):
        return [f for f in self.figs if f.bench == bench]

    def emulated(self):
        if self.meta is not None and "emulated" in self.meta:
            return self.meta["emulated"] is True
        return any(f.get("emulated") is True for f in self.figs)


def num(v):
    """A JSON number (Decimal keeps the printed digits) as float; None for anything else."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float, decimal.Decimal)):
        return float(v)
    return None


def text(v):
    """A value as the log printed it: numbers keep their digits, booleans are true/false."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def finite(v):
    """Is v a JSON number with a finite value (not NaN, Infinity, 1e999, a string, a bool)?"""
    f = num(v)
    return f is not None and math.isfinite(f)


def line_fault(obj):
    """Why a {"bench":...} object cannot be used, or None."""
    if obj.get("bench") == "meta":
        missing = [k for k in META_KEYS if k not in obj]
        return "bad meta line (no %s)" % ", ".join(missing) if missing else None
    missing = [k for k in ("figure", "value", "unit") if k not in obj]
    if missing:
        return "bad figure line (no %s)" % ", ".join(missing)
    why = number_fault(obj)
    return "bad figure line (%s)" % why if why else None


def number_fault(obj):
    """Which of a figure's value, p10, p90, min and max is not a finite number, or None."""
    for k in ["value"] + SPREAD:
        if k in obj and not finite(obj[k]):
            v = obj[k]
            return "%s is %s, not a finite number" % (
                k, str(v) if isinstance(v, decimal.Decimal) else json.dumps(v))
    return None


def read_log(path):
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "stdin"
    else:
        with open(path, "rb") as f:
            data = f.read()
        name = path
    log = Log(name)
    dec = json.JSONDecoder(parse_float=decimal.Decimal)
    for i, line in enumerate(clean_lines(data), 1):
        m = BENCH_RE.search(line)
        if m:
            try:
                obj, _ = dec.raw_decode(line, m.start())
            except ValueError:
                obj = None
            why = "figure line did not parse" if not isinstance(obj, dict) else line_fault(obj)
            if why:
                log.bad.append((i, why, line[m.start() : m.start() + 60]))
                continue
            fig = Fig(obj, i)
            if fig.bench == "meta" and log.meta is None:
                log.meta = obj
            log.figs.append(fig)
            continue
        m = BOOT_RE.search(line)
        if m:
            try:
                log.boot, _ = dec.raw_decode(line, m.start())
            except ValueError:
                pass
            continue
        m = CPU_LINE_RE.search(line)
        if m:
            log.cpu_line = m.group(1)
            continue
        m = GRUB_RE.search(line)
        if m:
            log.grub_cmdline = m.group(1)
    return log


def machine(log):
    """(label, value) rows describing the machine and run, from the meta line or, in a log
    from a kernel that prints none, from the boot line and the kernel's first lines."""
    m = log.meta or {}
    b = log.boot or {}
    first = log.figs[0].obj if log.figs else {}
    rows = []

    def add(label, *candidates):
        for c in candidates:
            if c is not None and c != "":
                rows.append((label, text(c)))
                return

    add("CPU model", m.get("cpu_model"), log.cpu_line)
    add("CPUs", m.get("cpus"), b.get("cpus_online"), first.get("cpus"))
    tsc = m.get("tsc_mhz")
    if tsc is None and b.get("tsc_khz") is not None:
        tsc = "%.1f" % (float(b["tsc_khz"]) / 1000)
    add("TSC MHz", tsc)
    add("accel", m.get("accel"), b.get("accel"), first.get("accel"))
    rows.append(("emulated", "yes (QEMU TCG: the TSC runs at host time)" if log.emulated() else "no"))
    add("memory MiB", b.get("mem_mib"))
    add("firmware", b.get("firmware"))
    add("seed", m.get("seed"))
    add("command line", m.get("cmdline"), log.grub_cmdline)
    add("benchmarks", m.get("benches"))
    add("schemes", m.get("schemes"))
    rows.append(("source", "meta line" if log.meta else "boot line (no meta line in the log)"))
    return rows


# ---------------------------------------------------------------------------------------
# --check: the log against the JSON contract (tools/test.sh's benchjson check)

# What every figure line must hold (bench/bench.c bench_json).
FIGURE_KEYS = ["figure", "value", "unit", "accel", "emulated", "cpus"]
CHECK_SHOWN = 5  # problems printed; the summary line counts them all
# The header tools/bench-host/run.sh prints before each process's output in make bench-host's
# log: --check reads each such section as a log of its own (one meta line each).
SECTION_MARK = "== bench-host: "


def check_log(path):
    """(problems, figures, benchmarks) of the log at path ('-': stdin): every line that
    starts with '{' is one JSON value and nothing more; every figure line is one this tool
    reads (it parses wherever it starts, has FIGURE_KEYS, finite numbers, a meta line has
    META_KEYS); there is exactly one meta line and it comes before the first figure; every
    benchmark the meta line's "benches" names printed a figure, except remote on one CPU
    (it says it needs two and prints none). make bench-host's log holds one such log per
    process, each under a SECTION_MARK header: each is checked so. Raises OSError for an
    unreadable log."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    dec = json.JSONDecoder(parse_float=decimal.Decimal)
    problems, seen, total = [], {}, {}
    meta, meta_line = None, 0

    def section_end():
        """The section's meta line is there and every benchmark it names printed figures."""
        if meta is None:
            problems.append("no meta line")
            return
        one_cpu = num(meta.get("cpus")) == 1
        for b in text(meta.get("benches")).split(","):
            if b and not seen.get(b) and not (b == "remote" and one_cpu):
                problems.append("no figures from %s (the meta line, line %d, names it)" %
                                (b, meta_line))

    for i, line in enumerate(clean_lines(data), 1):
        if line.startswith(SECTION_MARK) and (meta is not None or seen):
            # make bench-host's log: each process's output (the suite, each peer, the
            # micro-benchmarks) is a section under its own header with its own meta line.
            section_end()
            for b, n in seen.items():
                total[b] = total.get(b, 0) + n
            seen, meta, meta_line = {}, None, 0
            continue
        m = BENCH_RE.search(line)
        obj = None
        if line.startswith("{"):
            try:
                obj = dec.decode(line)
            except ValueError as e:
                problems.append("line %d is not JSON (%s)" % (i, e))
                continue
        elif m:
            # A figure line after other text (another CPU's output ran into it): the report
            # still reads it, so it must parse from where it starts.
            try:
                obj, _ = dec.raw_decode(line, m.start())
            except ValueError as e:
                problems.append("line %d: a figure line that does not parse (%s)" % (i, e))
                continue
        if not isinstance(obj, dict) or "bench" not in obj:
            continue
        bench = text(obj["bench"])
        if bench == "meta":
            if meta is not None:
                problems.append("line %d: a second meta line (the first is line %d)" %
                                (i, meta_line))
                continue
            meta, meta_line = obj, i
            why = line_fault(obj)
            if why:
                problems.append("line %d: %s" % (i, why))
            continue
        if meta is None:
            problems.append("line %d: a figure before the meta line" % i)
        missing = [k for k in FIGURE_KEYS if k not in obj]
        why = ["no %s" % ", ".join(missing)] if missing else []
        why += [w for w in [number_fault(obj)] if w]
        if why:
            problems.append("line %d: %s" % (i, "; ".join(why)))
        seen[bench] = seen.get(bench, 0) + 1
    section_end()
    for b, n in seen.items():
        total[b] = total.get(b, 0) + n
    return problems, sum(total.values()), len(total)


def run_check(path):
    """--check: the problems, the first CHECK_SHOWN a line each, then a summary line; exit
    status 0 when there are none, 1 when there are, 2 for an unreadable log."""
    try:
        problems, nfigs, nbenches = check_log(path)
    except OSError as e:
        print("benchreport: %s" % e, file=sys.stderr)
        return 2
    name = "stdin" if path == "-" else path
    for p in problems[:CHECK_SHOWN]:
        print(p)
    if not problems:
        print("benchreport: %s: %d figures from %d benchmarks, as the contract says" %
              (name, nfigs, nbenches))
        return 0
    print("benchreport: %s: %d problem%s%s" % (
        name, len(problems), "" if len(problems) == 1 else "s",
        " (the first %d above)" % CHECK_SHOWN if len(problems) > CHECK_SHOWN else ""))
    return 1


# ---------------------------------------------------------------------------------------
# Small helpers


def fmt(v):
    """A computed figure for a table: one decimal, whole numbers from 100000 up."""
    if v is None:
        return "—"
    if abs(v) >= 100000:
        return "%.0f" % v
    return "%.1f" % v


def fv(f, key="value"):
    """A figure's value (or p10, ...) with the digits the log printed."""
    if f is None:
        return "—"
    v = f.get(key)
    return text(v) if num(v) is not None else "—"


def fmt_ratio(r):
    return "—" if r is None else "%.2f×" % r


def geomean(vals):
    vals = [v for v in vals if v is not None and v > 0]
    if not vals:
        return None
    if len(vals) == 1:
        return vals[0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def sort_key(s):
    """Numbers in numeric order, then text."""
    try:
        return (0, float(s), "")
    except ValueError:
        return (1, 0.0, s)


def varying(figs, exclude=()):
    """Parameters that take more than one value among figs, in printed order; and the
    constant ones as (key, value)."""
    keys = []
    for f in figs:
        for k in f.params:
            if k not in keys and k not in exclude:
                keys.append(k)
    vary, const = [], []
    for k in keys:
        vals = {f.p(k) for f in figs}
        if len(vals) > 1:
            vary.append(k)
        else:
            const.append((k, vals.pop()))
    return vary, const


def ordered(values):
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    return lines


def spread(f):
    if f.get("p10") is None or f.get("p90") is None:
        return ""
    return " (%s–%s)" % (fv(f, "p10"), fv(f, "p90"))


def pick(figs, figure=None, unit=None, **params):
    """The figures with a numeric value that match figure, unit and the parameters."""
    out = []
    for f in figs:
        if f.value is None:
            continue
        if figure is not None and f.figure != figure:
            continue
        if unit is not None and f.unit != unit:
            continue
        if any(f.p(k) != str(v) for k, v in params.items()):
            continue
        out.append(f)
    return out


def last_by(figs, keyfn):
    """The last figure for each key (a log with a benchmark run twice keeps the later)."""
    d = {}
    for f in figs:
        d[keyfn(f)] = f
    return d


# ---------------------------------------------------------------------------------------
# CSVs


def csv_name(bench):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", bench) + ".csv"


def write_csvs(log, outdir):
    written = []
    for bench in ["meta"] + log.benches():
        figs = log.of(bench)
        if not figs:
            continue
        params = []
        for f in figs:
            for k in f.params:
                if k not in params:
                    params.append(k)
        cols = ["bench"] + params + FIXED
        path = os.path.join(outdir, csv_name(bench))
        with open(path, "w", newline="") as out:
            w = csv.writer(out, lineterminator="\n")
            w.writerow(cols)
            for f in figs:
                w.writerow([text(f.get(c)) for c in cols])
        written.append(path)
    return written


# ---------------------------------------------------------------------------------------
# Plots (gnuplot)


class Plotter:
    def __init__(self, outdir, enabled):
        self.outdir = outdir
        self.gpdir = os.path.join(outdir, "gnuplot")
        self.enabled = enabled  # False: --no-plots, gnuplot is not looked for
        self.gnuplot = shutil.which("gnuplot") if enabled else None
        self.made = []  # png file names
        self.failed = []  # (png, why): gnuplot failed
        self.skipped = []  # (plot, why): the data could not be drawn
        self.terminal = None

    def available(self):
        return self.gnuplot is not None

    def pick_terminal(self):
        if self.terminal is None:
            r = subprocess.run([self.gnuplot, "-e", "set terminal pngcairo"],
                               capture_output=True, text=True)
            self.terminal = "pngcairo" if r.returncode == 0 and not r.stderr.strip() else "png"
        return self.terminal

    def plot(self, name, title, data_blocks, body, xlabel, ylabel, setup=()):
        """data_blocks: list of lists of rows, written as gnuplot data set indices 0, 1, ...;
        body: the plot command after 'plot', with DATA standing for the data file."""
        if not self.available():
            return
        os.makedirs(self.gpdir, exist_ok=True)
        dat = os.path.join(self.gpdir, name + ".dat")
        with open(dat, "w") as out:
            for i, block in enumerate(data_blocks):
                if i:
                    out.write("\n\n")
                for row in block:
                    out.write(" ".join(gp_field(x) for x in row) + "\n")
        png = name + ".png"
        script = [
            "set terminal %s size 960,600 noenhanced" % self.pick_terminal(),
            "set output '%s'" % os.path.join(self.outdir, png).replace("'", "''"),
            "set title %s" % gp_str(title),
            "set xlabel %s" % gp_str(xlabel),
            "set ylabel %s" % gp_str(ylabel),
            "set key outside right top",
            "set grid",
        ]
        script += list(setup)
        script.append("plot " + body.replace("DATA", gp_str(dat)))
        gp = os.path.join(self.gpdir, name + ".gp")
        with open(gp, "w") as out:
            out.write("\n".join(script) + "\n")
        r = subprocess.run([self.gnuplot, gp], capture_output=True, text=True)
        pngpath = os.path.join(self.outdir, png)
        if r.returncode != 0 or not os.path.exists(pngpath) or os.path.getsize(pngpath) == 0:
            self.failed.append((png, (r.stderr.strip().splitlines() or ["no output"])[-1]))
            return
        self.made.append(png)


def gp_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def gp_field(x):
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, int):
        return str(x)
    return gp_str(x)


def series_plot(pl, name, title, figs, xkey, xlabel, ylabel, logx=False, extra_setup=()):
    """One line per variant: y = value against x = parameter xkey, with p10-p90 bars."""
    groups = ordered(f.variant() for f in figs)
    blocks, parts = [], []
    for i, g in enumerate(groups):
        pts = sorted((sort_key(f.p(xkey)), f) for f in figs if f.variant() == g)
        rows = []
        for _, f in pts:
            y = f.value
            lo = num(f.get("p10"))
            hi = num(f.get("p90"))
            rows.append([float(f.p(xkey)), y, lo if lo is not None else y, hi if hi is not None else y])
        blocks.append(rows)
        parts.append("DATA index %d using 1:2:3:4 with yerrorlines lw 2 title %s" % (i, gp_str(g)))
    setup = ["set logscale x 2", "set offsets graph 0.03, graph 0.03"] if logx else []
    pl.plot(name, title, blocks, ", \\\n  ".join(parts), xlabel, ylabel, setup + list(extra_setup))


def plot_fastpath(pl, log, emu):
    figs = pick(log.of("fastpath"), "alloc_free_pair", "cycles")
    if figs:
        series_plot(pl, "fastpath", "alloc+free pair by object size%s" % emu, figs, "size",
                    "object size (bytes)", "cycles per pair (median, p10-p90)", logx=True,
                    extra_setup=["set yrange [0:*]"])


def plot_bulk(pl, log, emu):
    figs = log.of("bulk")
    single = pick(figs, "single_per_object", "cycles")
    bulk = pick(figs, "bulk_per_object", "cycles")
    if not single and not bulk:
        return
    groups = ordered(f.variant() for f in single + bulk)
    blocks, parts = [], []
    for i, g in enumerate(groups):
        for kind, sel, dash in (("single", single, 2), ("bulk", bulk, 1)):
            pts = sorted((sort_key(f.p("n")), f) for f in sel if f.variant() == g)
            if not pts:
                continue
            parts.append("DATA index %d using 1:2 with linespoints lw 2 lc %d dt %d title %s"
                         % (len(blocks), i + 1, dash, gp_str("%s %s" % (g, kind))))
            blocks.append([[float(f.p("n")), f.value] for _, f in pts])
    pl.plot("bulk", "per object: N single allocs+frees (dashed) vs the bulk API (solid), "
            "256 B%s" % emu, blocks, ", \\\n  ".join(parts), "N (objects per bulk)",
            "cycles per object (median)", ["set logscale x 2", "set yrange [0:*]"])


def bar_plot(pl, name, title, figs, category, ylabel, key="scheme"):
    """Clustered bars: one cluster per category (text), one bar per variant."""
    cats = ordered(category(f) for f in figs)
    groups = ordered(f.variant(key) for f in figs)
    if not cats or not groups:
        return
    by = last_by(figs, lambda f: (category(f), f.variant(key)))
    rows = []
    for c in cats:
        row = [c]
        for g in groups:
            f = by.get((c, g))
            row.append(f.value if f is not None and f.value is not None else "NaN")
        rows.append(row)
    # Missing bars are NaN, which gnuplot leaves out; gp_field would quote the text.
    rows = [[r[0]] + [x if x != "NaN" else float("nan") for x in r[1:]] for r in rows]
    parts = []
    for i, g in enumerate(groups):
        using = "%d:xtic(1)" % (i + 2) if i == 0 else "%d" % (i + 2)
        parts.append("DATA using %s title %s" % (using, gp_str(g)))
    setup = ["set style data histograms", "set style histogram clustered gap 1",
             "set style fill solid 0.8 border -1", "set yrange [0:*]", "set xtics rotate by -20"]
    pl.plot(name, title, [rows], ", \\\n  ".join(parts), "", ylabel, setup)


def plot_hackbench(pl, log, emu):
    figs = pick(log.of("hackbench"), "time", "ms")
    if figs:
        bar_plot(pl, "hackbench", "hackbench: time per scheme%s" % emu, figs,
                 lambda f: "%s groups x %s loops" % (f.p("groups"), f.p("loops")),
                 "ms (median)")


def plot_scaling(pl, log, emu):
    figs = pick(log.of("scaling"), "throughput", "ops_per_s")
    if not figs:
        return
    groups = ordered(f.variant() for f in figs)
    blocks, parts = [], []
    for i, g in enumerate(groups):
        pts = sorted((sort_key(f.p("ncpus")), f) for f in figs if f.variant() == g)
        n0 = float(pts[0][1].p("ncpus"))
        base = pts[0][1].value / n0  # per CPU at the smallest count (1 in the suite)
        blocks.append([[float(f.p("ncpus")), f.value] for _, f in pts])
        parts.append("DATA index %d using 1:2 with linespoints lw 2 lc %d title %s"
                     % (2 * i, i + 1, gp_str(g)))
        blocks.append([[float(f.p("ncpus")), base * float(f.p("ncpus"))] for _, f in pts])
        parts.append("DATA index %d using 1:2 with lines lw 1 lc %d dt 2 title %s"
                     % (2 * i + 1, i + 1, gp_str(g + " linear")))
    pl.plot("scaling", "scaling: throughput against CPUs (dashed: linear from 1 CPU)%s" % emu,
            blocks, ", \\\n  ".join(parts), "CPUs", "operations per second",
            ["set yrange [0:*]", "set xtics 1"] if len(blocks[0]) < 10 else ["set yrange [0:*]"])


def latency_cdfs(figs):
    """{op: {variant: [(bucket_hi, cumulative fraction), ...]}} from the hist lines."""
    out = {}
    for op in ordered(f.p("op") for f in figs):
        per = {}
        for g in ordered(f.variant() for f in figs if f.p("op") == op):
            bs = sorted((sort_key(f.p("bucket_lo")), f) for f in figs
                        if f.p("op") == op and f.variant() == g)
            total = sum(f.value for _, f in bs if f.value)
            if not total:
                continue
            acc, pts = 0.0, []
            first = bs[0][1]
            lo = num(first.params.get("bucket_lo"))
            pts.append((max(lo, 1.0) if lo is not None else 1.0, 0.0))
            for _, f in bs:
                acc += f.value or 0.0
                pts.append((num(f.params.get("bucket_hi")), acc / total))
            per[g] = pts
        out[op] = per
    return out


def plot_latency(pl, log, emu):
    figs = pick(log.of("latency"), "hist")
    for op, per in latency_cdfs(figs).items():
        if not per:
            continue
        blocks, parts = [], []
        for i, (g, pts) in enumerate(per.items()):
            blocks.append([[x, y] for x, y in pts])
            parts.append("DATA index %d using 1:2 with steps lw 2 title %s" % (i, gp_str(g)))
        pl.plot("latency-" + re.sub(r"[^A-Za-z0-9_-]", "_", op),
                "latency CDF: %s under contention%s" % (op, emu), blocks,
                ", \\\n  ".join(parts), "cycles (log2 buckets, upper edge)",
                "fraction of operations", ["set logscale x 2", "set yrange [0:1.02]",
                                           "set key outside right bottom"])


def plot_memory(pl, log, emu):
    figs = pick(log.of("memory"), "peak_pages", "pages")
    if figs:
        bar_plot(pl, "memory", "memory: peak pages held per scheme%s" % emu, figs,
                 lambda f: f.p("workload"), "pages (peak)")


def plot_remote(pl, log, emu):
    figs = pick(log.of("remote"), "throughput", "objects_per_s")
    if figs:
        bar_plot(pl, "remote", "remote frees: producer/consumer throughput%s" % emu, figs,
                 lambda f: "%s pairs" % f.p("pairs"), "objects per second")


def plot_held(pl, log, emu):
    figs = [f for f in log.of("held") if f.unit == "pages"]
    if figs:
        bar_plot(pl, "held", "pages held with no object in use%s" % emu, figs,
                 lambda f: f.figure, "pages")


def plot_replay(pl, log, emu):
    figs = pick(log.of("replay"), "cycles_per_event", "cycles")
    if figs:
        bar_plot(pl, "replay", "replay: cycles per trace event per scheme%s" % emu, figs,
                 lambda f: "%s (%s streams)" % (f.p("trace"), f.p("streams")), "cycles per event (median)")


PLOTS = [plot_fastpath, plot_bulk, plot_hackbench, plot_scaling, plot_latency, plot_memory,
         plot_remote, plot_held, plot_replay]

# ---------------------------------------------------------------------------------------
# Markdown: one section per benchmark


def wide_table(figs, exclude_figures=(), key_order=None):
    """Rows: the parameters that vary; columns: each figure [unit]. Returns markdown lines."""
    figs = [f for f in figs if f.figure not in exclude_figures]
    if not figs:
        return []
    vary, const = varying(figs)
    cols = ordered((f.figure, f.unit) for f in figs)
    rowkeys = ordered(tuple(f.p(k) for k in vary) for f in figs)
    by = last_by(figs, lambda f: (tuple(f.p(k) for k in vary), f.figure, f.unit))
    rows = []
    for rk in rowkeys:
        row = list(rk)
        for fig, unit in cols:
            f = by.get((rk, fig, unit))
            row.append("—" if f is None else fv(f) + spread(f))
        rows.append(row)
    lines = []
    if const:
        lines.append("Same for every row: " + ", ".join("%s=%s" % kv for kv in const) + ".")
        lines.append("")
    header = vary + ["%s [%s]" % c for c in cols]
    return lines + md_table(header, rows)


def section_fastpath(log, figs):
    lines = []
    for unit in ordered(f.unit for f in figs if f.figure == "alloc_free_pair"):
        sel = pick(figs, "alloc_free_pair", unit)
        groups = ordered(f.variant() for f in sel)
        sizes = sorted(ordered(f.p("size") for f in sel), key=sort_key)
        by = last_by(sel, lambda f: (f.p("size"), f.variant()))
        rows = [[s] + [fv(by[(s, g)]) + spread(by[(s, g)]) if (s, g) in by else "—"
                       for g in groups] for s in sizes]
        lines.append("%s per alloc+free pair, median (p10–p90):" % unit)
        lines.append("")
        lines += md_table(["size"] + groups, rows)
        lines.append("")
    rest = [f for f in figs if f.figure != "alloc_free_pair"]
    return lines + wide_table(rest)


def section_bulk(log, figs):
    lines = []
    groups = ordered(f.variant() for f in figs)
    by = last_by(figs, lambda f: (f.variant(), f.p("n"), f.figure, f.unit))
    ns = sorted(ordered(f.p("n") for f in figs), key=sort_key)
    # Brouer 2015's layout (SLAB bulk API, linux-mm), one block per variant.
    for g in groups:
        size = next((f.p("size") for f in figs if f.variant() == g and f.p("size")), "?")
        lines.append("%s, %s-byte objects: N - single per object - bulk per object - improved"
                     % (g, size))
        lines.append("")
        lines.append("```")
        for n in ns:
            sc, sn = by.get((g, n, "single_per_object", "cycles")), by.get((g, n, "single_per_object", "ns"))
            bc, bn = by.get((g, n, "bulk_per_object", "cycles")), by.get((g, n, "bulk_per_object", "ns"))
            imp = by.get((g, n, "improvement", "percent"))
            if sc is None and bc is None:
                continue
            lines.append("%3s - %s cycles(tsc) %s ns - %s cycles(tsc) %s ns - improved %s%%" % (
                n, fv(sc), fv(sn), fv(bc), fv(bn), fv(imp)))
        lines.append("```")
        lines.append("")
    # Side by side: bulk per object, cycles.
    rows = []
    for n in ns:
        row = [n]
        for g in groups:
            sc = by.get((g, n, "single_per_object", "cycles"))
            bc = by.get((g, n, "bulk_per_object", "cycles"))
            row.append("%s → %s" % (fv(sc), fv(bc)))
        rows.append(row)
    lines.append("Cycles per object, single → bulk:")
    lines.append("")
    lines += md_table(["N"] + groups, rows)
    known = {"single_per_object", "bulk_per_object", "improvement"}
    rest = [f for f in figs if f.figure not in known]
    if rest:
        lines += [""] + wide_table(rest)
    return lines


def section_hackbench(log, figs):
    """Lameter 2011's table (per-cpu partial lists): rows (groups, loops), a column per
    scheme, improvement vs lock."""
    sel = pick(figs, "time", "ms")
    groups = ordered(f.variant() for f in sel)
    cats = ordered((f.p("groups"), f.p("loops")) for f in sel)
    by = last_by(sel, lambda f: ((f.p("groups"), f.p("loops")), f.variant()))
    imp = last_by(pick(figs, "improvement_vs_lock"),
                  lambda f: ((f.p("groups"), f.p("loops")), f.variant()))
    rows = []
    for c in cats:
        row = ["%s groups × %s loops" % c]
        for g in groups:
            f = by.get((c, g))
            cell = "—" if f is None else fv(f) + spread(f)
            i = imp.get((c, g))
            if i is not None and g.split("/")[0] != baseline(log):
                cell += " (%s%s%%)" % ("" if i.value < 0 else "+", fv(i))
            row.append(cell)
        rows.append(row)
    lines = ["Time in ms, median (p10–p90); in brackets the scheme's improvement over `%s` "
             "as the kernel computed it (positive: faster):" % baseline(log), ""]
    lines += md_table(["hackbench"] + groups, rows)
    rest = [f for f in figs if f.figure not in ("time", "improvement_vs_lock")]
    if rest:
        lines += [""] + wide_table(rest)
    return lines


def section_debug(log, figs):
    """Abbott 2016's experiment (slub_debug=P with cpu partial lists): rows mode, columns
    (groups, loops) time and overhead."""
    sel = pick(figs, "time", "ms")
    cats = ordered((f.p("groups"), f.p("loops")) for f in sel)
    modes = ordered(f.p("mode") for f in sel)
    by = last_by(sel, lambda f: (f.p("mode"), (f.p("groups"), f.p("loops"))))
    ov = last_by(pick(figs, "overhead_vs_off"),
                 lambda f: (f.p("mode"), (f.p("groups"), f.p("loops"))))
    rows = []
    for m in modes:
        row = [m]
        for c in cats:
            f, o = by.get((m, c)), ov.get((m, c))
            cell = "—" if f is None else fv(f) + " ms"
            if o is not None and m != "off":
                cell += " (%s%s%%)" % ("" if o.value < 0 else "+", fv(o))
            row.append(cell)
        rows.append(row)
    lines = ["hackbench with debugging off, poisoning on the locked debug path, and poisoning "
             "with per-cpu partial lists (in brackets: overhead over `off`):", ""]
    lines += md_table(["mode"] + ["%s groups × %s loops" % c for c in cats], rows)
    rest = [f for f in figs if f.figure not in ("time", "overhead_vs_off")]
    if rest:
        lines += [""] + wide_table(rest)
    return lines


def section_scaling(log, figs):
    sel = pick(figs, "throughput", "ops_per_s")
    groups = ordered(f.variant() for f in sel)
    cpus = sorted(ordered(f.p("ncpus") for f in sel), key=sort_key)
    by = last_by(sel, lambda f: (f.p("ncpus"), f.variant()))
    lin = last_by(pick(figs, "linear_ratio", "percent"), lambda f: (f.p("ncpus"), f.variant()))
    rows = []
    for n in cpus:
        row = [n]
        for g in groups:
            f, l = by.get((n, g)), lin.get((n, g))
            cell = "—" if f is None else fv(f)
            if l is not None:
                cell += " (%s%% of linear)" % fv(l)
            row.append(cell)
        rows.append(row)
    lines = ["Operations per second (in brackets: against perfect scaling from 1 CPU):", ""]
    lines += md_table(["CPUs"] + groups, rows)
    rest = [f for f in figs if f.figure not in ("throughput", "linear_ratio")]
    if rest:
        lines += [""] + wide_table(rest)
    return lines


def section_latency(log, figs):
    lines = wide_table(figs, exclude_figures=("hist",))
    hist = pick(figs, "hist")
    if hist:
        lines += ["", "%d histogram buckets (figure `hist`) are in latency.csv and drawn as the "
                  "CDFs below." % len(hist)]
    return lines


SECTIONS = {
    "fastpath": section_fastpath,
    "bulk": section_bulk,
    "hackbench": section_hackbench,
    "debug": section_debug,
    "scaling": section_scaling,
    "latency": section_latency,
}

TITLES = {
    "fastpath": "fastpath: cycles per alloc+free pair",
    "bulk": "bulk: single objects against the bulk API (Brouer 2015's table)",
    "held": "held: pages kept with no object in use",
    "hackbench": "hackbench (Lameter 2011's table)",
    "debug": "debug: the cost of poisoning (Abbott 2016's experiment)",
    "remote": "remote: producer/consumer across CPUs",
    "scaling": "scaling: throughput against CPUs",
    "latency": "latency: cycles per operation under contention",
    "memory": "memory: pages held against bytes in use",
    "replay": "replay: a slab trace on every scheme (docs/traces.md)",
}

PLOTS_OF = {
    "fastpath": ["fastpath"], "bulk": ["bulk"], "hackbench": ["hackbench"],
    "scaling": ["scaling"], "memory": ["memory"], "remote": ["remote"], "held": ["held"],
    "replay": ["replay"],
}

# ---------------------------------------------------------------------------------------
# The headline per scheme and its ratio to lock

# bench, figure, unit, selection (parameter: value, or "max"), better, words, key, reference
HEADLINES = [
    ("fastpath", "alloc_free_pair", "cycles", {"size": "256"}, "lower", "alloc+free pair, 256 B"),
    ("bulk", "bulk_per_object", "cycles", {"n": "16"}, "lower", "bulk API per object, N=16"),
    ("bulk", "single_per_object", "cycles", {"n": "16"}, "lower", "single alloc+free per object, N=16"),
    ("held", "pages_held_idle", "pages", {}, "lower", "pages held with nothing in use"),
    ("hackbench", "time", "ms", {}, "lower", "hackbench time"),
    ("debug", "time", "ms", {}, "lower", "hackbench time by debug mode", "mode", "off"),
    ("remote", "throughput", "objects_per_s", {}, "higher", "remote-free throughput"),
    ("remote", "per_object", "cycles", {}, "lower", "cycles per remotely freed object"),
    ("scaling", "throughput", "ops_per_s", {"ncpus": "max"}, "higher", "throughput at the most CPUs"),
    ("scaling", "linear_ratio", "percent", {"ncpus": "max"}, "higher", "share of linear scaling at the most CPUs"),
    ("latency", "p99", "cycles", {"op": "alloc"}, "lower", "alloc p99"),
    ("latency", "p99", "cycles", {"op": "free"}, "lower", "free p99"),
    ("memory", "peak_pages", "pages", {}, "lower", "peak pages"),
    ("replay", "cycles_per_event", "cycles", {}, "lower", "replay: cycles per trace event"),
]


def reference_for(f, pool, key, ref):
    """The figure of the reference scheme (lock) that f is compared with: the same
    parameters but the scheme; failing that (sheaves has its own fastpath), lock with the
    irq fastpath, or any lock figure with the other parameters equal."""
    same = [g for g in pool if g.p(key) == ref and
            all(g.p(k) == f.p(k) for k in set(f.params) | set(g.params) if k != key)]
    if same:
        return same[-1]
    if key != "scheme":
        return None
    loose = [g for g in pool if g.p(key) == ref and
             all(g.p(k) == f.p(k) for k in set(f.params) | set(g.params)
                 if k not in (key, "fastpath"))]
    irq = [g for g in loose if g.p("fastpath") == "irq"]
    return (irq or loose or [None])[-1]


def headlines(log):
    """Rows (bench, what, variant, value, unit, ratio, better, note)."""
    out = []
    for spec in HEADLINES:
        bench, figure, unit, sel, better, words = spec[:6]
        key, ref = (spec[6], spec[7]) if len(spec) > 6 else ("scheme", baseline(log))
        pool = pick(log.of(bench), figure, unit)
        if not pool:
            continue
        note = ""
        chosen = pool
        for k, v in sel.items():
            vals = ordered(f.p(k) for f in chosen)
            if v == "max":
                v = max(vals, key=sort_key) if vals else ""
            if v in vals:
                chosen = [f for f in chosen if f.p(k) == v]
                if sel[k] == "max":
                    note = "%s=%s" % (k, v)
            else:
                note = "no %s=%s in the log: geometric mean over all" % (k, v)
        vary, _ = varying(chosen, exclude=(key, "fastpath"))
        if vary and not note:
            note = "geometric mean over " + ", ".join(vary)
        for g in ordered(f.variant(key) for f in chosen):
            mine = [f for f in chosen if f.variant(key) == g]
            value = geomean([f.value for f in mine])
            if len(mine) == 1:
                value = mine[0].value
            ratios = []
            for f in mine:
                r = reference_for(f, pool, key, ref)
                ratios.append(f.value / r.value if r is not None and r.value else None)
            ratio = geomean(ratios) if ratios and None not in ratios else None
            out.append((bench, words, g, value, unit, ratio, better, note))
    # A benchmark with no line above (one this tool does not know): every figure that has
    # schemes, over all its parameters; which direction is better is not known.
    known = {spec[0] for spec in HEADLINES}
    for bench in log.benches():
        if bench in known:
            continue
        figs = [f for f in log.of(bench) if "scheme" in f.params and f.value is not None]
        for figure, unit in ordered((f.figure, f.unit) for f in figs):
            pool = pick(figs, figure, unit)
            vary, _ = varying(pool, exclude=("scheme", "fastpath"))
            note = "geometric mean over " + ", ".join(vary) if vary else ""
            for g in ordered(f.variant() for f in pool):
                mine = [f for f in pool if f.variant() == g]
                refs = [reference_for(f, pool, "scheme", baseline(log)) for f in mine]
                ratios = [f.value / r.value if r is not None and r.value else None
                          for f, r in zip(mine, refs)]
                out.append((bench, figure, g, geomean([f.value for f in mine]), unit,
                            geomean(ratios) if None not in ratios else None, "?", note))
    return out


# ---------------------------------------------------------------------------------------
# report.md


def write_report(log, outdir, plotter, csvs):
    emu = log.emulated()
    tag = " (emulated)" if emu else ""
    lines = ["# slablab benchmark report", ""]
    if emu:
        lines += ["> **Emulated figures.** This run was under QEMU's TCG: the TSC runs at host "
                  "time, so cycles and ns measure the emulator on the host, not a CPU. Compare "
                  "the schemes with each other within this report, not with real hardware; "
                  "contention and IPI costs are QEMU's.", ""]
    lines += ["Log: `%s`" % log.name, "", "## Machine", ""]
    lines += md_table(["", ""], [[k, v] for k, v in machine(log)])
    lines.append("")
    if log.bad:
        lines.append("**%d line(s) left out** (truncated, garbled or incomplete): %s." % (
            len(log.bad), "; ".join("line %d, %s: `%s…`" % (n, why, s.replace("`", "'"))
                                    for n, why, s in log.bad[:5])))
        lines.append("")

    heads = headlines(log)
    if heads:
        base = baseline(log)
        lines += ["## Summary: each scheme's headline figure%s" % tag, "",
                  "Ratio to `%s`: the figure divided by `%s`'s with the same parameters "
                  "(and the same fastpath, or %s/irq for a scheme with its own); for "
                  "`debug`, to mode `off`. Whether lower or higher is better is in the last "
                  "column." % (base, base, base), ""]
        rows = []
        for bench, words, g, value, unit, ratio, better, note in heads:
            rows.append(["%s: %s" % (bench, words) + (" (%s)" % note if note else ""), g,
                         fmt(value), unit, fmt_ratio(ratio), better])
        lines += md_table(["figure", "variant", "value", "unit", "ratio to " + base, "better"], rows)
        lines.append("")

    for bench in log.benches():
        figs = log.of(bench)
        lines += ["## %s%s" % (TITLES.get(bench, bench), tag), ""]
        if bench not in TITLES:
            lines += ["(A benchmark this tool has no layout for: every figure as printed.)", ""]
        lines += SECTIONS.get(bench, lambda l, f: wide_table(f))(log, figs)
        lines.append("")
        pngs = list(PLOTS_OF.get(bench, []))
        if bench == "latency":
            pngs = [p[:-4] for p in plotter.made if p.startswith("latency-")]
        for p in pngs:
            if p + ".png" in plotter.made:
                lines += ["![%s](%s.png)" % (p, p), ""]
        lines += ["CSV: `%s`" % csv_name(bench), ""]

    lines += ["## Files", ""]
    lines.append("CSVs (one row per figure line, every parameter a column): " +
                 ", ".join("`%s`" % os.path.basename(c) for c in csvs) + ".")
    if not plotter.enabled:
        lines.append("Plots: none drawn (--no-plots).")
    elif not plotter.available():
        lines.append("Plots skipped: gnuplot is not installed (Debian: `apt-get install "
                     "gnuplot-nox`).")
    elif plotter.made:
        lines.append("Plots: " + ", ".join("`%s`" % p for p in plotter.made) +
                     "; their data and gnuplot scripts are in `gnuplot/`.")
    for png, why in plotter.failed:
        lines.append("Plot `%s` failed: %s" % (png, why))
    for name, why in plotter.skipped:
        lines.append("Plot `%s` left out, its data does not fit the contract: %s" % (name, why))
    lines.append("")
    path = os.path.join(outdir, "report.md")
    with open(path, "w") as out:
        out.write("\n".join(lines))
    return path


# ---------------------------------------------------------------------------------------
# Compare mode


def fig_key(f, params=None):
    params = f.params if params is None else params
    return (f.bench, tuple(sorted((k, text(v)) for k, v in params.items() if k not in NOT_MATCHED)),
            f.figure, f.unit)


def parse_pair(spec):
    """--pair A=B[/FP][,B[/FP]...]: (A, [(B, FP or None), ...]), or None if malformed."""
    m = re.fullmatch(r"([^=,/\s]+)=([^=,/\s]+(?:/[^=,/\s]+)?(?:,[^=,/\s]+(?:/[^=,/\s]+)?)*)", spec)
    if not m:
        return None
    return m.group(1), [tuple(t.split("/", 1)) if "/" in t else (t, None)
                        for t in m.group(2).split(",")]


def paired_figs(figs, pair):
    """A's figures by key; with pair (tools/bench-linux: A's "linux" against B's lock/irq
    and partial/irq), a figure of A's scheme is filed under each B scheme (and fastpath,
    where the figure has one) so that it lines up with B's figure of the same shape."""
    d = {}
    for f in figs:
        if pair and f.p("scheme") == pair[0]:
            for scheme, fp in pair[1]:
                params = dict(f.params, scheme=scheme)
                if fp and "fastpath" in params:
                    params["fastpath"] = fp
                d[fig_key(f, params)] = f
        else:
            d[fig_key(f)] = f
    return d


# What kind of run a log is, for --compare's advice: "host" (the suite on real cores,
# tools/bench-host), "icount" (TCG with -icount: the TSC counts instructions, so its meta
# line says 1000 MHz; tools/bench-linux's module says accel "tcg-icount"), "tcg" (emulated,
# host time), "kvm" or "hw" (real cores, the kernel).
def log_kind(log):
    m = log.meta or {}
    accel = text(m.get("accel", "")) or (log.figs[0].p("accel") if log.figs else "")
    if not accel and log.figs:
        accel = text(log.figs[0].get("accel", ""))
    if accel == "tcg":
        return "icount" if text(m.get("tsc_mhz", "")) == "1000" else "tcg"
    if accel == "tcg-icount":
        return "icount"  # tools/bench-linux's module under ICOUNT=1 says so itself
    return accel or "?"


# Per benchmark, which kind of run to trust for what (docs/BENCHMARKS.md explains each).
TRUST_KINDS = {
    "icount": "the length of the code paths (instructions, repeatable): what a scheme adds "
              "per operation; never contention, waiting or an IPI's latency",
    "tcg": "counts that do not depend on time (IPIs per 1000 frees, remote frees, list_lock "
           "acquisitions, pages); its times mix the emulator's costs and the host's "
           "scheduling into every figure",
    "host": "times and contention on real cores with real cache coherence; an IPI is a "
            "signal or a polled mailbox (bench=host_ipi_rtt), not the APIC's 1-2 us, and a "
            "busy host's preemption shows in the spread and nivcsw",
    "kvm": "times on real cores in a guest: contention is real, an IPI is a hypervisor exit",
    "hw": "everything: real cores, real IPIs",
}
TRUST_BENCH = {
    "fastpath": "icount for the instructions of each path; host (or hw) for cycles",
    "bulk": "icount for the instructions per object; host for cycles",
    "held": "icount for instructions; host for cycles",
    "hackbench": "host for the time and the ordering of the schemes under contention (TCG "
                 "exaggerates it, ICOUNT has none); icount for the instructions each scheme "
                 "adds; any for remote frees and list_lock acquisitions",
    "remote": "host for objects/s and cycles/object of the lock-free and locked schemes; "
              "the ipi scheme's figure everywhere but hw carries its IPI's cost (host: "
              "bench=host_ipi_rtt); any for IPIs per 1000 frees",
    "scaling": "host for throughput and the ratio to linear; icount for instructions",
    "latency": "host for the percentiles (its tail is the host's preemption: see nivcsw); "
               "icount for the path lengths",
    "memory": "any: pages and bytes do not depend on time",
    "replay": "host for times; any for the allocator's counts",
    "host_ipi_rtt": "host only: what an IPI costs there, to weigh the ipi schemes' figures",
}


# --compare with rounds: a side given as several logs (LOG1,LOG2,...: make bench-linux's
# interleaved boots) stands for its fastest round, per figure. Which way is faster goes by
# the unit: a cost (time per operation) is best lowest, a rate (anything per second) highest;
# a figure that is neither (a count, a percent, pages) takes the median round.
COST_UNITS = {"cycles", "ns", "us", "ms", "s", "instructions", "cycles_per_event"}


def direction(f):
    """"lower" (a cost), "higher" (a rate) or None (neither) for a figure's unit."""
    if f.unit in COST_UNITS:
        return "lower"
    if f.unit.endswith("_per_s"):
        return "higher"
    return None


def best_round(figs):
    """Of one figure's rounds (None where a round lacks it), the one a side stands for: the
    lowest cost, the highest rate, else the median (the lower middle of an even count)."""
    got = [f for f in figs if f is not None and f.value is not None]
    if not got:
        return next((f for f in figs if f is not None), None)
    way = direction(got[0])
    if way == "lower":
        return min(got, key=lambda f: f.value)
    if way == "higher":
        return max(got, key=lambda f: f.value)
    return sorted(got, key=lambda f: f.value)[(len(got) - 1) // 2]


def rounds_cell(figs):
    """Each round's value in boot order (— where a round lacks it), then max/min."""
    vals = [f.value for f in figs if f is not None and f.value is not None]
    if not vals:
        return "—"
    cell = ", ".join(fv(f) for f in figs)
    if len(vals) > 1 and min(vals) > 0:
        cell += " (%s)" % fmt_ratio(max(vals) / min(vals))
    return cell


def rounds_note(names, sides):
    """compare.md's words on how the rounds were taken."""
    counts = ", ".join("%s %d" % (n, len(s)) for n, s in zip(names, sides))
    out = ["How this was taken: each side is several boots (rounds: %s), in the order the "
           "logs are named; make bench-linux interleaves them (A's boot 1, B's boot 1, A's "
           "boot 2, ...). Under TCG the guest's TSC is host time, so each boot's figures "
           "carry the host's load during that boot; the fastest round is the one the load "
           "disturbed least." % counts, "",
           "Per figure, a side's value is its fastest round: the lowest of a cost (%s), the "
           "highest of a rate (a unit per second); a figure that is neither (a count, a "
           "percent) takes the median round. Each figure's value is itself the benchmark's "
           "median over its runs within the boot. The ratio columns divide those fastest "
           "rounds; \"rounds\" lists every round's value in boot order with max/min, the "
           "spread the load made; \"by round\" divides each round's value by A's of the same "
           "round." % ", ".join(sorted(COST_UNITS)), ""]
    return out


def compare(sides, pair=None):
    """Every figure of the logs side by side, matched by bench, parameters (scheme, size,
    groups, ...), figure and unit; with two sides, B/A; with more, each against A. A side is
    a list of logs: one log, or several rounds of the same boot (each figure then stands for
    its fastest round: best_round), shown with every round's value. pair (--pair): A's
    figures of one scheme stand under other schemes' keys (paired_figs)."""
    logs = [s[0] for s in sides]
    rounds = any(len(s) > 1 for s in sides)
    names = [chr(ord("A") + i) for i in range(len(logs))]
    kinds = [log_kind(log) for log in logs]
    lines = ["# slablab benchmark comparison", ""]
    for i, (n, side) in enumerate(zip(names, sides)):
        log = side[0]
        tail = "  " if i < len(logs) - 1 else ""
        label = " — **emulated** (TCG)" if any(x.emulated() for x in side) else ""
        if len(logs) > 2:
            label = " (%s)%s" % (kinds[i], label)
        if len(side) > 1:
            lines.append("%s: %d rounds, `%s`%s%s" % (
                n, len(side), "`, `".join(x.name for x in side), label, tail))
        else:
            lines.append("%s: `%s`%s%s" % (n, log.name, label, tail))
    lines.append("")
    # Logs that are all ICOUNT count instructions, whatever each says of emulation (slablab's
    # says emulated, tools/bench-linux's module's does not).
    every = [x for side in sides for x in side]
    if len({x.emulated() for x in every}) > 1 and \
            any(log_kind(x) != "icount" for x in every):
        if len(logs) == 2:
            lines += ["> One log is emulated and the other is not: B/A mixes emulator speed "
                      "with CPU speed.", ""]
        else:
            lines += ["> Some logs are emulated and some are not: a ratio between them mixes "
                      "emulator speed with CPU speed.", ""]
    if rounds:
        lines += rounds_note(names, sides)
    ms = [dict(machine(log)) for log in logs]
    keys = ordered([k for m in ms for k in m])
    rows = [[k] + [m.get(k, "—") for m in ms] for k in keys if k != "source"]
    for extra, key in (("loadavg at the start", "loadavg_start"), ("host IPIs", "host_ipi")):
        vals = [next((text(f.get(key)) for f in log.figs if f.bench == "host_meta"), "—")
                for log in logs]
        if any(v != "—" for v in vals):
            rows.append([extra] + vals)
    if rounds:
        rows.append(["rounds (boots)"] + [str(len(s)) for s in sides])
    lines += ["## Machines", ""] + md_table([""] + names, rows) + [""]
    if rounds:
        differ = []
        for n, m, side in zip(names, ms, sides):
            d = ordered([k for x in side[1:] for k, v in machine(x) if m.get(k) != v])
            if d:
                differ.append("%s's rounds differ in %s" % (n, ", ".join(
                    "%s (%s)" % (k, ", ".join(dict(machine(x)).get(k, "—") for x in side))
                    for k in d)))
        lines += ["Each side's first round; %s." % ("; ".join(differ) or
                                                     "the other rounds agree with it"), ""]
    if pair:
        lines += ["A's scheme `%s` is set against B's %s (--pair): the rows name B's." % (
            pair[0], ", ".join("`%s`" % "/".join(x for x in t if x) for t in pair[1])), ""]
    if len(logs) > 2 or any(k in ("host", "icount") for k in kinds):
        lines += ["What each kind of run is for:", ""]
        lines += ["- %s (%s): %s" % (n, k, TRUST_KINDS.get(k, "no advice for this kind"))
                  for n, k in zip(names, kinds)]
        lines.append("")
    skip = ("meta", "host_meta", "host_cpu", "host_end")

    def keyed(log, first):
        figs = [f for f in log.figs if f.bench not in skip and f.figure != "hist"]
        return paired_figs(figs, pair) if pair and first else last_by(figs, fig_key)
    # Per side, per round, the figures by key; then per side the round each key stands for.
    each = [[keyed(log, i == 0) for log in side] for i, side in enumerate(sides)]
    per = []
    for rs in each:
        ks = ordered([k for r in rs for k in r])
        per.append({k: best_round([r.get(k) for r in rs]) for k in ks})
    # A paired figure of A stands under several keys: rows where it meets another log's,
    # else one row of its own.
    shown = {id(per[0][k]) for k in per[0] if any(k in fs for fs in per[1:])} if pair else set()

    def shown_fig(got):
        return next((x for x in got[1:] if x is not None), got[0])
    benches = ordered([b for log in (x for side in sides for x in side)
                       for b in log.benches() if b not in skip])
    only = [0] * len(logs)
    gaps = 0  # figures a side has in some rounds and not in others
    for bench in benches:
        keys = ordered([k for fs in per for k in fs if k[0] == bench])
        if not keys:
            continue
        if pair:
            allf = [shown_fig([fs.get(k) for fs in per]) for k in keys]
        else:
            allf = [fs[k] for k in keys for fs in per if k in fs]
        vary, const = varying(allf, exclude=NOT_MATCHED)
        lines += ["## %s" % bench, ""]
        if bench in TRUST_BENCH and (len(logs) > 2 or any(k in ("host", "icount")
                                                           for k in kinds)):
            lines += ["Trust: " + TRUST_BENCH[bench] + ".", ""]
        if const:
            lines += ["Same for every row: " + ", ".join("%s=%s" % kv for kv in const) + ".", ""]
        rows = []
        for k in keys:
            got = [fs.get(k) for fs in per]
            f = shown_fig(got)
            if pair and all(x is None for x in got[1:]):
                if id(got[0]) in shown:
                    continue
                shown.add(id(got[0]))
            for i, x in enumerate(got):
                only[i] += x is None
            ratios = []
            for y in got[1:]:
                x = got[0]
                r = None
                if x is not None and y is not None and x.value and y.value is not None:
                    r = y.value / x.value
                ratios.append(fmt_ratio(r))
            row = [f.p(p) for p in vary] + [f.figure, f.unit] + [fv(x) for x in got] + ratios
            if rounds:
                by = [[r.get(k) for r in rs] for rs in each]
                gaps += sum(1 for b in by if any(x is not None for x in b) and
                            any(x is None for x in b))
                row += [rounds_cell(b) for b in by]
                for b in by[1:]:
                    if len(b) != len(by[0]):
                        row.append("—")
                        continue
                    row.append(", ".join(
                        fmt_ratio(y.value / x.value if x is not None and y is not None and
                                  x.value and y.value is not None else None)
                        for x, y in zip(by[0], b)))
            rows.append(row)
        head = vary + ["figure", "unit"] + names + ["%s/A" % n for n in names[1:]]
        if rounds:
            head += ["%s rounds" % n for n in names] + ["%s/A by round" % n for n in names[1:]]
        lines += md_table(head, rows) + [""]
    nh = sum(1 for side in sides for log in side for f in log.figs if f.figure == "hist")
    notes = []
    if any(only):
        if len(logs) == 2:
            # A figure missing from B is one "only in A", and the other way round.
            notes.append("%d figure(s) only in A, %d only in B (shown with —)" %
                         (only[1], only[0]))
        else:
            notes.append("figures missing (shown with —): " +
                         ", ".join("%d in %s" % (c, n) for n, c in zip(names, only)))
    if gaps:
        notes.append("%d row(s) with a figure missing from some of a side's rounds (— among "
                     "its rounds; the side's value is of the rounds that have it)" % gaps)
    if nh:
        notes.append("%d histogram bucket lines left out (the percentiles stand for them)" % nh)
    if any(log.bad for side in sides for log in side):
        notes.append("lines left out: " + ", ".join(
            "%d in %s" % (sum(len(log.bad) for log in side), n)
            for n, side in zip(names, sides)))
    if notes:
        lines += ["Notes: " + "; ".join(notes) + ".", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------


def from_qr(source, against):
    """--from-qr: the screen's results object (bench/bench.c results_for_screen) as the
    report's summary; with against, each figure must equal LOG's {"bench":"summary"} value
    and the two must hold the same figures. Exit 1 on a mismatch, 2 on unreadable input."""
    text = source
    if os.path.exists(source):
        with open(source, encoding="utf-8", errors="replace") as f:
            text = f.read()
    try:
        res = json.loads(text.strip())
    except ValueError as e:
        print("benchreport: --from-qr: not JSON: %s" % e, file=sys.stderr)
        return 2
    if not isinstance(res, dict) or res.get("slablab") != "results" or \
            not isinstance(res.get("summary"), list):
        print("benchreport: --from-qr: not slablab's results object (no \"slablab\":"
              "\"results\" and \"summary\" list)", file=sys.stderr)
        return 2
    emu = " (emulated)" if res.get("emulated") else ""
    print("# slablab results from the screen's QR code\n")
    print("Result **%s**; cpu \"%s\", %s CPUs, TSC %s MHz, accel %s%s, seed %s\n" % (
        res.get("result", "?"), res.get("cpu", "?"), res.get("cpus", "?"),
        res.get("tsc_mhz", "?"), res.get("accel", "?"), emu, res.get("seed", "?")))
    got = {}
    log = None
    if against:
        try:
            log = read_log(against)
        except OSError as e:
            print("benchreport: %s" % e, file=sys.stderr)
            return 2
    base = baseline(log) if log else OLD_BASELINE
    for h in res["summary"]:
        vals = h.get("values", {})
        ref = vals.get(base)
        print("## %s: %s (%s)\n" % (h.get("of"), h.get("headline"), h.get("unit")))
        print("| scheme | value | ratio to %s |\n|---|---:|---:|" % base)
        for scheme, v in vals.items():
            got[(h.get("of"), h.get("headline"), scheme)] = v
            ratio = "x%.2f" % (v / ref) if ref else "-"
            print("| %s | %s | %s |" % (scheme, v, ratio))
        print()
    if not against:
        return 0
    want = {(f.params.get("of"), f.params.get("headline"), f.params.get("scheme")): f.value
            for f in log.figs if f.bench == "summary" and f.figure == "value"}
    bad = ["%s %s %s: QR %s, log %s" % (k[0], k[1], k[2], got.get(k), want.get(k))
           for k in sorted(set(got) | set(want), key=str) if got.get(k) != want.get(k)]
    if bad:
        print("benchreport: --from-qr: %d figures differ from %s: %s" % (
            len(bad), against, "; ".join(bad[:5])), file=sys.stderr)
        return 1
    print("benchreport: the QR code's %d figures are the summary of %s" % (len(got), against))
    return 0


def main(argv):
    if argv[:1] == ["--study"]:  # make sweep's points: docs/sheaves-study.md (tools/sheafstudy.py)
        import sheafstudy
        return sheafstudy.main(argv[1:])
    if argv[:1] == ["--from-qr"]:
        if len(argv) == 2:
            return from_qr(argv[1], None)
        if len(argv) == 4 and argv[2] == "--against":
            return from_qr(argv[1], argv[3])
        print("benchreport: usage: --from-qr TEXT|FILE [--against LOG]", file=sys.stderr)
        return 2
    ap = argparse.ArgumentParser(
        prog="benchreport.py", description="Report or compare slablab benchmark logs.",
        epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+", metavar="LOG")
    ap.add_argument("-o", "--out", help="output dir (report) or file (compare)")
    ap.add_argument("--compare", action="store_true",
                    help="compare two or more logs: A B [C...]")
    ap.add_argument("--pair", metavar="A=B[/FP],...",
                    help="--compare: A's scheme A against B's schemes (and fastpaths)")
    ap.add_argument("--no-plots", action="store_true", help="do not run gnuplot")
    ap.add_argument("--check", action="store_true",
                    help="check one log against the JSON contract; write nothing")
    args = ap.parse_args(argv)
    if args.check:
        if args.compare or args.out or args.no_plots or len(args.logs) != 1:
            ap.print_usage(sys.stderr)
            print("benchreport: --check takes one log and no other option", file=sys.stderr)
            return 2
        return run_check(args.logs[0])
    pair = None
    if args.pair is not None:
        pair = parse_pair(args.pair)
        if not args.compare or pair is None:
            ap.print_usage(sys.stderr)
            print("benchreport: --pair goes with --compare and reads like linux=lock/irq,"
                  "partial/irq" if pair is None else "benchreport: --pair goes with --compare",
                  file=sys.stderr)
            return 2
    if (len(args.logs) < 2) if args.compare else (len(args.logs) != 1):
        ap.print_usage(sys.stderr)
        print("benchreport: %s" % ("--compare takes two or more logs" if args.compare else
                                   "one log (or --compare A B [C...])"), file=sys.stderr)
        return 2
    # --compare: a side may be several logs, LOG1,LOG2,... (rounds); a path that exists
    # with a comma in its name is one log.
    groups = []
    for arg in args.logs:
        parts = [arg] if (not args.compare or "," not in arg or os.path.exists(arg)) \
            else arg.split(",")
        if any(not p for p in parts):
            ap.print_usage(sys.stderr)
            print("benchreport: '%s': an empty name in a list of rounds (LOG1,LOG2,...)" % arg,
                  file=sys.stderr)
            return 2
        groups.append(parts)
    sides = []
    for parts in groups:
        side = []
        for path in parts:
            try:
                side.append(read_log(path))
            except OSError as e:
                print("benchreport: %s" % e, file=sys.stderr)
                return 2
        sides.append(side)
    logs = [log for side in sides for log in side]
    for log in logs:
        if not log.benches():
            print("benchreport: no benchmark figures in %s" % log.name, file=sys.stderr)
            return 1
        for n, why, s in log.bad:
            print("benchreport: %s:%d: %s, left out: %s" % (log.name, n, why, s),
                  file=sys.stderr)

    if args.compare:
        md = compare(sides, pair)
        if args.out:
            with open(args.out, "w") as out:
                out.write(md + "\n")
            print("benchreport: wrote %s" % args.out)
        else:
            print(md)
        return 0

    log = logs[0]
    outdir = args.out or "build/report"
    os.makedirs(outdir, exist_ok=True)
    csvs = write_csvs(log, outdir)
    plotter = Plotter(outdir, not args.no_plots)
    emu = " (emulated)" if log.emulated() else ""
    for fn in PLOTS:
        try:
            fn(plotter, log, emu)
        except (ValueError, TypeError, ZeroDivisionError, KeyError) as e:
            # Parameters that are not what the contract says (a text where a number goes):
            # the plot is left out and the report says why; the CSVs have the data.
            plotter.skipped.append((fn.__name__[5:], "%s: %s" % (type(e).__name__, e)))
    path = write_report(log, outdir, plotter, csvs)
    print("benchreport: %d figures from %d benchmarks: %d CSVs, %d plots%s, %s" % (
        len([f for f in log.figs if f.bench != "meta"]), len(log.benches()), len(csvs),
        len(plotter.made), " (--no-plots)" if args.no_plots else "" if plotter.available()
        else " (gnuplot not installed: apt-get install gnuplot-nox)", path))
    for png, why in plotter.failed:
        print("benchreport: plot %s failed: %s" % (png, why), file=sys.stderr)
    for name, why in plotter.skipped:
        print("benchreport: plot %s left out: %s" % (name, why), file=sys.stderr)
    return 1 if plotter.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(1)
