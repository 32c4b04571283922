#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The course labs (docs/labs/): student trees made from solution markers, and the grader.
"""Usage:
  lab.py handout LAB OUT [--src DIR]   write the student tree of lab LAB to OUT
  lab.py markers [--src DIR]           check the markers; print each region (file:line lab)
  lab.py labs                          the course: a line per lab (number, points, title)
  lab.py grade [--lab N] [--tree DIR] [--logdir DIR] [--only REGEX] [--from-logs]
                                       build DIR's kernel, boot it per check, print the score;
                                       --only: the checks whose name matches REGEX;
                                       --from-logs: grade the logs in DIR from an earlier run
                                       (no build, no boot)

Solution markers, in .c and .h files, each alone on its line:
    /* LABn: BEGIN */
    ...the solution...
    /* LABn: END */
A region may hold regions of later labs (LAB3 around LAB4, never LAB4 around LAB3 or
around another LAB4). The handout of lab n keeps the regions of earlier labs (without the
marker lines) and replaces each region of lab n or later by one line, at the BEGIN marker's
indentation, that builds and stops the kernel when reached:
    panic("LABn: %s: not implemented (docs/labs/labn.md)", __func__);
A region whose BEGIN is at column 0 holds declarations (a boot option, a helper): it is
left out, with nothing in its place (its users must be in regions of the same lab).
A file whose first line is /* LABn: FILE */ is a solution file of lab n: handouts of lab n
and earlier leave it out, later ones keep it (without that line); SOLUTION_FILES names the
solution files that are not C (lab 5's written answers), left out the same way. Any other comment that
looks like a marker (LAB3 BEGIN, /* LAB 3: END */, /* LAB3: BEGN */) is an error, as are
unbalanced markers, wrong nesting and labs the course does not have; each names the file
and line. The handout is a plain tree (no .git, no build/), with the grader and the lab
documents in it, and a file HANDOUT saying which lab it is.

The grader reads the serial log of each boot only: KTAP results, the {"event":...} lines,
the benchmarks' JSON figures and slabinfo's counters (and lab 5's written check the graded
tree's answers-lab5.txt, checked against the grader's own boot). Checks are cross-checked: a suite
must report exactly the cases this tree's test source declares, by name, and the counters
must show that the code under test ran.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import ktap  # noqa: E402

# ---- the course: the labs and what each one's grader checks ----
#
# A boot: the command line, the CPUs and whether instructions are counted (ICOUNT=1). A check:
# the boot it reads, its points and a function that returns None (passed) or the reason.

LABS = {}  # lab number -> {"title", "boots": {name: boot}, "checks": [check]}


def lab(n, title):
    LABS[n] = {"title": title, "boots": {}, "checks": []}
    return LABS[n]


def boot(lb, name, cmdline, smp, icount=0, timeout=240, mem="256M"):
    lb["boots"][name] = {"cmdline": cmdline, "smp": smp, "icount": icount, "timeout": timeout,
                         "mem": mem}


def check(lb, name, bootname, points, fn):
    lb["checks"].append({"name": name, "boot": bootname, "points": points, "fn": fn})


# ---- marker handling ----

MARK_RE = re.compile(r"^([ \t]*)/\* LAB([1-9][0-9]*): (BEGIN|END|FILE) \*/[ \t]*$")
# Anything a marker could be mistaken for: LAB and a number near BEGIN/END/FILE in a comment.
LOOKS_RE = re.compile(r"/\*\s*LAB\s*[0-9]*\s*:?\s*[A-Za-z]*\s*\*/|\bLAB\s*[0-9]+\s*:\s*(BEGIN|END|FILE)\b")
SOURCE_EXT = (".c", ".h")
# Solution files that cannot carry a FILE marker (not C): left out of the handouts of that lab
# and earlier, as a FILE-marked source is. Lab 5's written answers.
SOLUTION_FILES = {"answers-lab5.txt": 5}
PRINTK_INC_RE = re.compile(r'^#include "kernel/printk\.h"')


class MarkerError(Exception):
    pass


def parse_markers(path, text, known):
    """Regions of one file: a list of (lab, begin_line, end_line) (1-based, marker lines),
    and the lab of a FILE marker or None. Raises MarkerError naming path:line."""
    regions, stack, file_lab = [], [], None
    for i, line in enumerate(text.split("\n"), 1):
        m = MARK_RE.match(line)
        if not m:
            if LOOKS_RE.search(line):
                raise MarkerError("%s:%d: not a marker: '%s' (a marker is a line of its own: "
                                  "/* LABn: BEGIN */, /* LABn: END */ or /* LABn: FILE */)"
                                  % (path, i, line.strip()))
            continue
        n, kind = int(m.group(2)), m.group(3)
        if n not in known:
            raise MarkerError("%s:%d: LAB%d: no such lab in this course (labs: %s)"
                              % (path, i, n, " ".join(map(str, sorted(known)))))
        if kind == "FILE":
            if i != 1:
                raise MarkerError("%s:%d: LAB%d: FILE must be the first line of the file"
                                  % (path, i, n))
            file_lab = n
        elif kind == "BEGIN":
            if stack and n <= stack[-1][0]:
                raise MarkerError("%s:%d: LAB%d: BEGIN inside LAB%d's region (from line %d): "
                                  "a region may only hold regions of later labs"
                                  % (path, i, n, stack[-1][0], stack[-1][1]))
            stack.append((n, i))
        else:
            if not stack:
                raise MarkerError("%s:%d: LAB%d: END without a BEGIN" % (path, i, n))
            if stack[-1][0] != n:
                raise MarkerError("%s:%d: LAB%d: END while LAB%d's region (from line %d) is open"
                                  % (path, i, n, stack[-1][0], stack[-1][1]))
            regions.append((n, stack.pop()[1], i))
    if stack:
        raise MarkerError("%s:%d: LAB%d: BEGIN without an END" % (path, stack[-1][1], stack[-1][0]))
    return sorted(regions, key=lambda r: r[1]), file_lab


def stub_line(indent, n):
    return '%spanic("LAB%d: %%s: not implemented (docs/labs/lab%d.md)", __func__);' % (indent, n, n)


def stub_in(lines, r):
    """Does region r become a panic (an indented BEGIN: statements), or just go (column 0)?"""
    return bool(MARK_RE.match(lines[r[1] - 1]).group(1))


def make_handout_text(text, regions, n):
    """The student's text: regions of lab >= n replaced by a panic, the other markers gone."""
    lines = text.split("\n")
    out, skip_until = [], 0
    begins = {r[1]: r for r in regions}
    for i, line in enumerate(lines, 1):
        if i <= skip_until:
            continue
        r = begins.get(i)
        if r and r[0] >= n:
            indent = MARK_RE.match(line).group(1)
            if indent:
                out.append(stub_line(indent, r[0]))
            skip_until = r[2]  # a region at column 0 (declarations) just goes
            continue
        if MARK_RE.match(line):
            continue  # a marker of an earlier lab, or the FILE line: the code stays
        out.append(line)
    # panic() is declared in kernel/printk.h: include it where a stub needs it.
    if any(r[0] >= n and stub_in(lines, r) for r in regions) and \
            not any(PRINTK_INC_RE.match(l) for l in out):
        incs = [i for i, l in enumerate(out) if l.startswith("#include ")]
        at = incs[-1] + 1 if incs else 0
        out.insert(at, '#include "kernel/printk.h"')
    return "\n".join(out)


def tree_files(src):
    """The tree's files, relative: git's (tracked and untracked but not ignored) if src is a
    work tree, else every file outside build/ and .git."""
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        top = subprocess.run(["git", "-C", src, "rev-parse", "--show-toplevel"],
                             capture_output=True, check=True, text=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(src):
            return sorted(f for f in out.decode().split("\0")
                          if f and os.path.isfile(os.path.join(src, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(src):
        rel = os.path.relpath(d, src)
        dirs[:] = [x for x in dirs if not (rel == "." and x in ("build", ".git")) and x != ".git"]
        files += [os.path.normpath(os.path.join(rel, x)) for x in names]
    return sorted(files)


def scan(src):
    """{file: (text, regions, file_lab)} for the source files with markers; MarkerError."""
    found = {}
    for f in tree_files(src):
        if not f.endswith(SOURCE_EXT):
            continue
        with open(os.path.join(src, f), encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
        regions, file_lab = parse_markers(f, text, LABS)
        if regions or file_lab:
            found[f] = (text, regions, file_lab)
    return found


def cmd_markers(src):
    found = scan(src)
    for f in sorted(SOLUTION_FILES):
        if os.path.isfile(os.path.join(src, f)):
            print("%s:1 LAB%d file" % (f, SOLUTION_FILES[f]))
    for f, (_, regions, file_lab) in sorted(found.items()):
        if file_lab:
            print("%s:1 LAB%d file" % (f, file_lab))
        text = found[f][0].split("\n")
        for n, b, e in regions:
            print("%s:%d-%d LAB%d%s" % (f, b, e, n, "" if stub_in(text, (n, b, e)) else " decl"))
    print("markers: %d regions, %d files" % (sum(len(v[1]) for v in found.values()), len(found)))
    return 0


def cmd_handout(n, out, src):
    if n not in LABS:
        print("handout: no lab %d in this course (labs: %s)" % (n, " ".join(map(str, sorted(LABS)))),
              file=sys.stderr)
        return 2
    src, out = os.path.abspath(src), os.path.abspath(out)
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        print("handout: %s exists and is not an empty directory" % out, file=sys.stderr)
        return 2
    if out == src or out.startswith(src + os.sep) and not out.startswith(os.path.join(src, "build") + os.sep):
        print("handout: %s is inside the source tree (give a directory outside it, or under build/)"
              % out, file=sys.stderr)
        return 2
    try:
        found = scan(src)
    except MarkerError as e:
        print("handout: %s" % e, file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    replaced = removed = dropped = 0
    for f in tree_files(src):
        sp, dp = os.path.join(src, f), os.path.join(out, f)
        if SOLUTION_FILES.get(f, 0) >= n:
            dropped += 1
            continue
        if f in found:
            text, regions, file_lab = found[f]
            if file_lab and file_lab >= n:
                dropped += 1
                continue
            lines = text.split("\n")
            for r in regions:
                if r[0] >= n and not any(o[0] < r[0] and o[1] < r[1] and r[2] < o[2] and
                                         o[0] >= n for o in regions):
                    if stub_in(lines, r):
                        replaced += 1
                    else:
                        removed += 1
            os.makedirs(os.path.dirname(dp), exist_ok=True)
            with open(dp, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(make_handout_text(text, regions, n))
            shutil.copymode(sp, dp)
        else:
            os.makedirs(os.path.dirname(dp) or out, exist_ok=True)
            shutil.copy2(sp, dp, follow_symlinks=False)
    with open(os.path.join(out, "HANDOUT"), "w") as fh:
        fh.write("slablab, lab %d handout: %s. Read docs/labs/lab%d.md; `make grade LAB=%d` "
                 "grades it.\n" % (n, LABS[n]["title"], n, n))
    # The promise: nothing of a marker is left.
    leak = scan_leaks(out)
    if leak:
        print("handout: %s still has marker text at %s" % (out, leak), file=sys.stderr)
        return 1
    print("handout: lab %d (%s) in %s: %d regions replaced by stubs, %d declaration regions "
          "removed, %d solution files left out" % (n, LABS[n]["title"], out, replaced, removed,
                                                   dropped))
    return 0


def scan_leaks(out):
    for d, _, names in os.walk(out):
        for x in names:
            if not x.endswith(SOURCE_EXT):
                continue
            p = os.path.join(d, x)
            with open(p, encoding="utf-8", errors="surrogateescape") as fh:
                for i, line in enumerate(fh, 1):
                    if MARK_RE.match(line.rstrip("\n")) or LOOKS_RE.search(line):
                        return "%s:%d" % (os.path.relpath(p, out), i)
    return None


# ---- reading a serial log ----

JSON_RE = re.compile(r"^\{.*\}$")


def log_lines(path):
    with open(path, "rb") as fh:
        lines = ktap.clean_lines(fh.read())
    # What the kernel printed: after GRUB's last "Booting" line, without qemu-run's own lines.
    start = 0
    for i, line in enumerate(lines):
        if "Booting `" in line:
            start = i + 1
    return [l for l in lines[start:] if not l.startswith(("qemu-run: ", "qemu-system-x86_64: "))]


def json_lines(lines, key, value):
    res = []
    for l in lines:
        s = l.strip()
        if JSON_RE.match(s):
            try:
                o = json.loads(s)
            except ValueError:
                continue
            if isinstance(o, dict) and o.get(key) == value:
                res.append(o)
    return res


def panic_line(lines):
    for l in lines:
        if ktap.PANIC_RE.search(l):
            return l.strip()
    return None


def suite_cases(lines, suite):
    """(plan, {case: 'ok'|'skip'|'fail'}) of the suite's subtest, or (None, None)."""
    for i, l in enumerate(lines):
        m = re.match(r"^(\s*)# Subtest: (\S+)\s*$", l)
        if not m or m.group(2) != suite:
            continue
        ind = m.group(1)
        plan, cases = None, {}
        for l2 in lines[i + 1:]:
            lead = len(l2) - len(l2.lstrip())
            if lead < len(ind) and re.match(r"^(not ok|ok) \d+ ", l2.lstrip()):
                break  # the suite's own result line: the suite is over
            if lead != len(ind):
                continue  # kernel messages, deeper levels
            body = l2[len(ind):]
            p = re.match(r"^1\.\.(\d+)$", body)
            if p:
                plan = int(p.group(1))
                continue
            r = re.match(r"^(not ok|ok) \d+ (\S+)(.*)$", body)
            if r:
                kind = "fail" if r.group(1) == "not ok" else (
                    "skip" if re.search(r"#\s*SKIP", r.group(3), re.I) else "ok")
                if r.group(2) in cases:
                    kind = "twice"
                cases[r.group(2)] = kind
        return plan, cases
    return None, None


def declared_cases(test_file):
    """The case names a suite's source in THIS tree declares (KUNIT_CASE(name))."""
    with open(os.path.join(ROOT, test_file)) as fh:
        return re.findall(r"^\s*KUNIT_CASE\((\w+)\)", fh.read(), re.M)


def slabinfo_counters(lines, scheme):
    """Sum of each counter over slabinfo's lines of caches of `scheme` (kmalloc's)."""
    tot, rows = {}, 0
    for l in lines:
        f = l.split()
        if len(f) >= 10 and f[0].startswith("kmalloc-") and f[1] == scheme:
            rows += 1
            for kv in f[10:]:
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    if v.isdigit():
                        tot[k] = tot.get(k, 0) + int(v)
    return tot if rows else None


def exit_event(lines):
    ev = json_lines(lines, "event", "exit")
    return ev[-1] if ev else None


def boot_cpus(lines):
    ev = json_lines(lines, "event", "boot")
    return ev[-1].get("cpus_online") if ev else None


# ---- check builders ----

def suite_passes(suite, test_file, smp, scheme, counters_needed):
    """The suite reports exactly the cases test_file declares, every one ok (skips only on
    one CPU), the boot had smp CPUs, the exit event says pass, and slabinfo's counters over
    the kmalloc caches of `scheme` reach counters_needed: {counter: at least}."""
    want = declared_cases(test_file)

    def fn(lines):
        cpus = boot_cpus(lines)
        if cpus != smp:
            return "the boot reported %s CPUs online, want %d" % (cpus, smp)
        plan, cases = suite_cases(lines, suite)
        if cases is None:
            return "no '%s' suite in the output" % suite
        if plan != len(want):
            return "suite %s planned %s cases, this grader's %s declares %d" % (
                suite, plan, test_file, len(want))
        extra = [c for c in cases if c not in want]
        if extra:
            return "suite %s reported cases %s declares nowhere: %s" % (suite, test_file,
                                                                      ", ".join(extra[:3]))
        missing = [c for c in want if c not in cases]
        if missing:
            return "suite %s did not report %s" % (suite, ", ".join(missing[:3]))
        twice = [c for c in want if cases[c] == "twice"]
        if twice:
            return "suite %s reported %s more than once" % (suite, ", ".join(twice[:3]))
        failed = [c for c in want if cases[c] == "fail"]
        if failed:
            return "failed: %s" % ", ".join(failed)
        skipped = [c for c in want if cases[c] == "skip"]
        if skipped and smp > 1:
            return "skipped at %d CPUs: %s" % (smp, ", ".join(skipped))
        ev = exit_event(lines)
        if not ev or ev.get("result") != "pass":
            return "the kernel's exit event says %s" % (ev.get("result") if ev else "nothing")
        if scheme is None:
            return None
        tot = slabinfo_counters(lines, scheme)
        if tot is None:
            return "no slabinfo lines for kmalloc caches of scheme %s" % scheme
        for c, least in counters_needed.items():
            if tot.get(c, 0) < least:
                return ("slabinfo: %s is %d over the kmalloc caches of %s, want at least %d: "
                        "the suite's results and the counters disagree" % (c, tot.get(c, 0), scheme,
                                                                           least))
        return None
    return fn


def last_figure(lines, bench, match, figure):
    """(the last value of that JSON figure, None) or (None, the reason there is none)."""
    figs = [o for o in json_lines(lines, "bench", bench)
            if o.get("figure") == figure and all(o.get(k) == v for k, v in match.items())]
    if not figs:
        return None, "no %s figure %s %s in the output" % (
            bench, figure, json.dumps(match, separators=(",", ":")))
    v = figs[-1].get("value")
    if not isinstance(v, (int, float)):
        return None, "the %s figure has no number" % figure
    return v, None


def figure_at_most(bench, match, figure, bound, unit, what):
    def fn(lines):
        v, why = last_figure(lines, bench, match, figure)
        if why:
            return why
        if v > bound:
            return "%s is %s %s, the bound is %s" % (what, v, unit, bound)
        return None
    return fn


def all_of(*fns):
    def fn(lines):
        for f in fns:
            r = f(lines)
            if r:
                return r
        return None
    return fn


def exit_pass(lines):
    ev = exit_event(lines)
    if not ev or ev.get("result") != "pass":
        return "the kernel's exit event says %s" % (ev.get("result") if ev else "nothing")
    return None


# ---- the labs ----

# Lab 1: boot (arch/x86/multiboot.c: the memory map tag, the mem_map= option).
MiB = 1 << 20
MAP_RE = re.compile(r"^mem_map: \[mem 0x([0-9a-f]{16})-0x([0-9a-f]{16})\] (usable|reserved|ACPI data|"
                    r"ACPI NVS|unusable|type unknown)$")


def mem_map(lines):
    """The mem_map= lines: a list of (base, end inclusive, type), or a reason."""
    regions = []
    for l in lines:
        if l.startswith("mem_map:"):
            m = MAP_RE.match(l.strip())
            if not m:
                return "a mem_map line not in the format of docs/labs/lab1.md: '%s'" % l.strip()
            regions.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return regions


def map_matches(mem_bytes, above_4g):
    """The map's usable regions: sorted, disjoint, what QEMU gives a PC of mem_bytes (the
    low 640 KiB, from 1 MiB up to below the memory size or the PCI hole, above 4 GiB the
    rest), and their sum is the mem_mib the kernel built its page allocator from."""
    def fn(lines):
        regions = mem_map(lines)
        if isinstance(regions, str):
            return regions
        if not regions:
            return "no mem_map lines (boot option mem_map=1)"
        for a, b in zip(regions, regions[1:]):
            if b[0] <= a[1]:
                return "regions 0x%x-0x%x and 0x%x-0x%x overlap or are out of order" % (
                    a[0], a[1], b[0], b[1])
        if any(r[1] < r[0] for r in regions):
            return "a region ends before it starts"
        usable = [r for r in regions if r[2] == "usable"]
        low = [r for r in usable if r[0] == 0x100000]
        if not low:
            return "no usable region starting at 1 MiB"
        low_end = low[0][1] + 1
        if not (min(mem_bytes, 3 << 30) - 8 * MiB <= low_end <= min(mem_bytes, 4 << 30)):
            return "the usable region from 1 MiB ends at 0x%x, not near %d MiB" % (
                low_end, min(mem_bytes, 3 << 30) // MiB)
        high = [r for r in usable if r[0] >= 4 << 30]
        if above_4g and not any(r[0] == 4 << 30 for r in high):
            return "no usable region starting at 4 GiB (QEMU puts the memory above the PCI hole there)"
        if not above_4g and high:
            return "a usable region above 4 GiB on a machine with %d MiB" % (mem_bytes // MiB)
        total = sum(r[1] - r[0] + 1 for r in usable)
        if not (mem_bytes - 16 * MiB <= total <= mem_bytes):
            return "usable regions add up to %d MiB, the machine has %d MiB" % (total // MiB,
                                                                               mem_bytes // MiB)
        ev = json_lines(lines, "event", "boot")
        mib = ev[-1].get("mem_mib") if ev else None
        if mib != total // MiB:
            return "the kernel's boot event says mem_mib %s, the map's usable regions %d MiB" % (
                mib, total // MiB)
        return exit_pass(lines)
    return fn


def no_map_lines(lines):
    if any(l.startswith("mem_map:") for l in lines):
        return "mem_map lines without mem_map=1 (the option's default must be 0)"
    return exit_pass(lines)


def option_refused(name):
    def fn(lines):
        ev = exit_event(lines)
        if not ev or ev.get("result") != "fail":
            return "%s=2 was not refused: the exit event says %s" % (
                name, ev.get("result") if ev else "nothing")
        if not any(l.startswith("cmdline: bad value '2' for %s=" % name) for l in lines):
            return "no 'cmdline: bad value '2' for %s=' line: the option is not registered with " \
                   "boot_param() and its range 0..1" % name
        return None
    return fn


L1 = lab(1, "boot: the memory map")
boot(L1, "map-128M", "test=page_alloc mem_map=1", 1, mem="128M")
boot(L1, "map-4G", "test=none mem_map=1", 1, mem="4G")
boot(L1, "no-map", "test=none", 1)
boot(L1, "map-bad", "test=none mem_map=2", 1)
check(L1, "memory map of a 128 MiB machine, and mem_mib from it", "map-128M", 15,
      map_matches(128 * MiB, False))
check(L1, "page_alloc suite on that memory, 1 CPU", "map-128M", 15,
      suite_passes("page_alloc", "tests/kernel/page_alloc_test.c", 1, None, {}))
check(L1, "memory map of a 4 GiB machine (memory above 4 GiB)", "map-4G", 15,
      map_matches(4096 * MiB, True))
check(L1, "no memory map without mem_map=1", "no-map", 5, no_map_lines)
check(L1, "mem_map=2 is refused by the option's range", "map-bad", 10, option_refused("mem_map"))

# Lab 2: SMP bring-up (arch/x86/smpboot.c: INIT, then SIPI, SIPI).
def cpus_up(smp):
    def fn(lines):
        ev = json_lines(lines, "event", "boot")
        if not ev:
            return "no boot event"
        on, found = ev[-1].get("cpus_online"), ev[-1].get("cpus_found")
        if found != smp or on != smp:
            return "the boot event says %s of %s CPUs online, want %d of %d" % (on, found, smp, smp)
        return None
    return fn


RTT_RE = re.compile(r"^\s*# round_trip_to_every_cpu: cpu (\d+): round trip median (\d+) cycles")


def rtt_figures(smp):
    """The suite's figure for every cpu but 0: a median above 0."""
    def fn(lines):
        got = {}
        for l in lines:
            m = RTT_RE.match(l)
            if m:
                got[int(m.group(1))] = int(m.group(2))
        missing = [c for c in range(1, smp) if not got.get(c)]
        if missing:
            return "no round trip figure for cpu %s" % ", ".join(map(str, missing))
        return None
    return fn


L2 = lab(2, "SMP bring-up and the IPI round trip")
# scheme=sheaves: the boot caches get a layer of their own in front of the cpu slab, so the
# kmalloc calls of the ipi suite do not reach lab 3's fastpaths or lab 4's partial lists, which
# are stubs in this lab's handout.
boot(L2, "smp2", "test=smp scheme=sheaves", 2)
boot(L2, "smp4", "test=smp,ipi scheme=sheaves", 4)
boot(L2, "rtt4", "test=ipi_rtt scheme=sheaves", 4)
check(L2, "2 of 2 CPUs online", "smp2", 10, all_of(cpus_up(2), exit_pass))
check(L2, "4 of 4 CPUs online", "smp4", 10, cpus_up(4))
check(L2, "smp suite, 4 CPUs", "smp4", 10,
      all_of(cpus_up(4), suite_passes("smp", "tests/kernel/smp_test.c", 4, None, {})))
check(L2, "ipi suite, 4 CPUs", "smp4", 10,
      all_of(cpus_up(4), suite_passes("ipi", "tests/kernel/ipi_test.c", 4, None, {})))
check(L2, "IPI round trip to every cpu, checked against the IPI counters (4 CPUs)", "rtt4", 20,
      all_of(cpus_up(4), suite_passes("ipi_rtt", "tests/kernel/ipi_rtt_test.c", 4, None, {}),
             rtt_figures(4)))

# Lab 3: the slab fastpath (mm/slub.c: the irq and cmpxchg fastpaths).
L3 = lab(3, "the slab fastpath")
# The slab_fastpath suite, not slab: slab runs every scheme, and lab 4's is still a stub in
# this lab's handout.
boot(L3, "slab-smp1", "test=slab_fastpath scheme=lock slabinfo=1", 1)
boot(L3, "slab-smp4", "test=slab_fastpath scheme=lock slabinfo=1", 4)
boot(L3, "fastpath-icount", "bench=fastpath scheme=lock bench_reps=3", 1, icount=1)
FASTPATH_BUDGET = 150  # cycles under ICOUNT=1 per alloc+free pair; the solution: 39 (irq), 47 (cmpxchg)
for smp, pts in ((1, 20), (4, 20)):
    check(L3, "slab_fastpath suite, scheme lock, %d CPU%s" % (smp, "s" * (smp > 1)),
          "slab-smp%d" % smp, pts,
          suite_passes("slab_fastpath", "tests/kernel/slab_fastpath_test.c", smp, "lock",
                       # kmalloc_every_size: 100 pairs on each of 13 kmalloc caches
                       {"alloc_fastpath": 1000, "free_fastpath": 1000}))
for fp, pts in (("irq", 15), ("cmpxchg", 15)):
    check(L3, "%s fastpath: at most %d cycles per alloc+free pair (64 bytes, ICOUNT=1)"
          % (fp, FASTPATH_BUDGET), "fastpath-icount", pts,
          all_of(exit_pass,
                 figure_at_most("fastpath", {"scheme": "lock", "fastpath": fp, "size": 64},
                                "alloc_free_pair", FASTPATH_BUDGET, "cycles",
                                "an alloc+free pair")))

# Lab 4: per-cpu partial lists (mm/scheme_partial.c).
L4 = lab(4, "per-cpu partial lists")
boot(L4, "slab-smp1", "test=slab scheme=partial slabinfo=1", 1)
boot(L4, "slab-smp4", "test=slab scheme=partial slabinfo=1", 4)
boot(L4, "hackbench", "bench=hackbench scheme=partial hackbench_groups=4 hackbench_loops=20 bench_reps=1", 4)
LIST_LOCK_BOUND = 40  # list_lock acquisitions per 1000 slab operations (solution: about 22, lock: 150)
PARTIAL_COUNTERS = {"cpu_partial_free": 1, "cpu_partial_alloc": 1, "cpu_partial_node": 1,
                    "cpu_partial_drain": 1}
for smp, pts in ((1, 20), (4, 20)):
    check(L4, "slab suite, scheme partial, %d CPU%s" % (smp, "s" * (smp > 1)), "slab-smp%d" % smp,
          pts, suite_passes("slab", "tests/kernel/slab_test.c", smp, "partial", PARTIAL_COUNTERS))
check(L4, "hackbench: at most %d list_lock acquisitions per 1000 operations (4 CPUs)"
      % LIST_LOCK_BOUND, "hackbench", 20,
      all_of(exit_pass,
             figure_at_most("hackbench", {"scheme": "partial", "groups": 4},
                            "list_lock_per_1000_ops", LIST_LOCK_BOUND, "per 1000 operations",
                            "list_lock acquisitions")))

# Lab 5: IPI versus lock, a scheme of the student's own (mm/scheme_lab5.c) that sends remote
# frees to the owner cpu in batches.
L5 = lab(5, "IPI versus lock: remote frees in batches")
L5_SCHEME = "lab5"
L5_ANSWERS = "answers-lab5.txt"
boot(L5, "slab-smp1", "test=slab,slab_ipi scheme=lab5 slabinfo=1", 1)
boot(L5, "slab-smp4", "test=slab,slab_ipi scheme=lab5 slabinfo=1", 4, timeout=600)
boot(L5, "remote", "bench=remote scheme=lab5 remote_objects=20000 bench_reps=1", 4)
IPI_BOUND = 40  # IPIs per 1000 remote frees on bench=remote (solution: 31.2; ipi: 1000)
ANSWER_WORDS = 30
GRADE_TREE = [ROOT]  # the tree being graded (cmd_grade sets it): where the answers are


def scheme_present(name, lab_n):
    """The kernel has the scheme: no 'no scheme named' line for it."""
    def fn(lines):
        for l in lines:
            if l.startswith("scheme: no scheme named '%s'" % name):
                return ("LAB%d: no scheme %s in this kernel: mm/scheme_%s.c does not register "
                        "it (slab_scheme_register, docs/labs/lab%d.md)" % (lab_n, name, name, lab_n))
        return None
    return fn


def figure_at_least(bench, match, figure, least, what):
    def fn(lines):
        v, why = last_figure(lines, bench, match, figure)
        if why:
            return why
        if v < least:
            return "%s is %s, want at least %s" % (what, v, least)
        return None
    return fn


def answer_sections(text):
    """{question number: its text} of the lines 'Qn: ...' and what follows up to the next."""
    secs, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^Q([0-9]+):(.*)$", line)
        if m:
            cur = int(m.group(1))
            secs[cur] = m.group(2)
        elif cur is not None and not JSON_RE.match(line.strip()):
            secs[cur] += "\n" + line
    return secs


def written_comparison(lines):
    """answers-lab5.txt: the four answers, the pasted JSON figures of bench=remote for lock,
    partial and lab5 at 2 pairs (4 CPUs), lab5's IPI figure close to what this grader measured
    on the student's kernel, and the answers quoting at least three of the figures."""
    path = os.path.join(GRADE_TREE[0], L5_ANSWERS)
    if not os.path.isfile(path):
        return "LAB5: %s: not written (docs/labs/lab5.md, 'Questions')" % L5_ANSWERS
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    secs = answer_sections(text)
    for q in (1, 2, 3, 4):
        if q not in secs:
            return "%s: no answer to question %d (a line starting 'Q%d:')" % (L5_ANSWERS, q, q)
        words = len(secs[q].split())
        if words < ANSWER_WORDS:
            return "%s: the answer to question %d has %d words, want at least %d" % (
                L5_ANSWERS, q, words, ANSWER_WORDS)
    pasted = json_lines(text.split("\n"), "bench", "remote")
    figs = {}
    for o in pasted:
        if o.get("pairs") == 2 and isinstance(o.get("value"), (int, float)):
            figs[(o.get("scheme"), o.get("figure"))] = o["value"]
    for sch in ("lock", "partial", L5_SCHEME):
        for f in ("throughput", "ipis_per_1000_frees"):
            if (sch, f) not in figs:
                return ("%s: no pasted JSON line of bench=remote with scheme %s, figure %s, "
                        "pairs 2 (make bench SMP=4, docs/labs/lab5.md)" % (L5_ANSWERS, sch, f))
    got, why = last_figure(lines, "remote", {"scheme": L5_SCHEME}, "ipis_per_1000_frees")
    if why:
        return "the grader's own bench=remote run: %s" % why
    said = figs[(L5_SCHEME, "ipis_per_1000_frees")]
    if abs(said - got) > max(5.0, 0.25 * got):
        return ("%s: the pasted IPIs per 1000 frees of %s, %s, is not what this kernel does "
                "(%s in the grader's run): paste the figures of your final scheme"
                % (L5_ANSWERS, L5_SCHEME, said, got))
    prose = " ".join(secs.values())
    numbers = set(re.findall(r"(?<![\w.])[0-9]+(?:\.[0-9]+)?", prose))
    quoted = [v for v in set(figs.values()) if ("%g" % v) in numbers or ("%.1f" % v) in numbers]
    if len(quoted) < 3:
        return ("%s: the answers quote %d of the pasted figures, want at least 3 (as numbers, "
                "e.g. 31.2)" % (L5_ANSWERS, len(quoted)))
    return None


L5_PRESENT = scheme_present(L5_SCHEME, 5)
check(L5, "slab and slab_ipi suites, scheme lab5, 1 CPU", "slab-smp1", 15,
      all_of(L5_PRESENT,
             suite_passes("slab", "tests/kernel/slab_test.c", 1, L5_SCHEME,
                          {"alloc_fastpath": 1000, "free_fastpath": 1000}),
             suite_passes("slab_ipi", "tests/kernel/slab_ipi_test.c", 1, None, {})))
check(L5, "slab suite, scheme lab5, 4 CPUs", "slab-smp4", 15,
      all_of(L5_PRESENT,
             # At 4 CPUs the kernel's own kmalloc caches (lab5's) see remote frees: the
             # solution's slabinfo sums to some 37000 remote_free, 1100 ipi_sent over them.
             suite_passes("slab", "tests/kernel/slab_test.c", 4, L5_SCHEME,
                          {"alloc_fastpath": 1000, "free_fastpath": 1000, "remote_free": 1000,
                           "remote_drained": 500, "ipi_sent": 10})))
check(L5, "slab_ipi suite (every owner scheme, lab5 among them), 4 CPUs", "slab-smp4", 10,
      all_of(L5_PRESENT,
             suite_passes("slab_ipi", "tests/kernel/slab_ipi_test.c", 4, None, {})))
check(L5, "bench=remote: at most %d IPIs per 1000 remote frees, and some (4 CPUs)" % IPI_BOUND,
      "remote", 10,
      all_of(L5_PRESENT, exit_pass,
             # remote_counters() prints objects_per_drain only for a scheme whose remote_free
             # counter moved: the frees did go to the owner.
             figure_at_least("remote", {"scheme": L5_SCHEME}, "objects_per_drain", 1,
                             "objects per drain (counter remote_drained over remote_drain)"),
             figure_at_least("remote", {"scheme": L5_SCHEME}, "ipis_per_1000_frees", 1,
                             "IPIs per 1000 remote frees (the owner must be told)"),
             figure_at_most("remote", {"scheme": L5_SCHEME}, "ipis_per_1000_frees", IPI_BOUND,
                            "per 1000 remote frees", "IPIs")))
check(L5, "written comparison with lock and partial (%s)" % L5_ANSWERS, "remote", 10,
      all_of(L5_PRESENT, written_comparison))


# ---- grading ----

def run_boot(tree, b, iso, log):
    """Boot tree's kernel with this tree's ISO tool and QEMU runner; return qemu-run's code."""
    elf = os.path.join(tree, "build", "slablab.elf")
    r = subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), iso, elf, "--cmdline", b["cmdline"]],
                       capture_output=True, text=True)
    if r.returncode != 0:
        with open(log, "w") as fh:
            fh.write(r.stdout + r.stderr)
        return None
    env = {k: v for k, v in os.environ.items()
           if k not in ("SMP", "MEM", "ACCEL", "ICOUNT", "FIRMWARE", "TIMEOUT", "MACHINE",
                        "QEMU_EXTRA", "LOG", "ISO", "ELF", "ALLOW_SLOW_KVM", "CMDLINE")}
    env.update(ISO=iso, ELF=elf, SMP=str(b["smp"]), ICOUNT=str(b["icount"]),
               ACCEL="tcg" if b["icount"] else "auto", TIMEOUT=str(b["timeout"]), MEM=b["mem"],
               FIRMWARE="bios")
    with open(log, "wb") as fh:
        r = subprocess.run([os.path.join(ROOT, "tools", "qemu-run.sh")], env=env, stdout=fh,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return r.returncode


def cmd_grade(labs, tree, logdir, from_logs=False, only=None):
    tree = os.path.abspath(tree)
    GRADE_TREE[0] = tree
    os.makedirs(logdir, exist_ok=True)
    if not from_logs:
        print("grade: building %s" % tree)
        r = subprocess.run(["make", "-s", "-C", tree, "build/slablab.elf"], capture_output=True,
                           text=True)
    if not from_logs and r.returncode != 0:
        print((r.stdout + r.stderr).rstrip()[-3000:])
        print("grade: %s does not build: 0 points" % tree)
        return 1
    total = got = 0
    for n in labs:
        L = LABS[n]
        print("== lab %d: %s ==" % (n, L["title"]))
        results = {}
        checks = [c for c in L["checks"] if not only or re.search(only, c["name"])]
        for bn in dict.fromkeys(c["boot"] for c in checks):
            b = L["boots"][bn]
            log = os.path.join(logdir, "lab%d-%s.log" % (n, bn))
            t0 = time.time()
            if from_logs:
                rc = 0  # grade logs kept from earlier boots: the checks read them as they are
            else:
                rc = run_boot(tree, b, os.path.join(logdir, "lab%d-%s.iso" % (n, bn)), log)
            results[bn] = (rc, log_lines(log) if os.path.exists(log) else [], time.time() - t0, log)
        for c in checks:
            rc, lines, secs, log = results[c["boot"]]
            total += c["points"]
            if rc is None:
                why = "could not make the ISO (log: %s)" % log
            else:
                if rc == 124:
                    why = "timed out after %d s (log: %s)" % (L["boots"][c["boot"]]["timeout"], log)
                else:
                    why = c["fn"](lines)
                    if why:
                        p = panic_line(lines)
                        if p:
                            why = "kernel panic: %s" % p
                        why += " (log: %s)" % log
            if why:
                print("  FAIL %-70s 0/%d  %s" % (c["name"], c["points"], why))
            else:
                got += c["points"]
                print("  ok   %-70s %d/%d" % (c["name"], c["points"], c["points"]))
    if only:
        print("score: %d/%d (only the checks matching '%s')" % (got, total, only))
    else:
        print("score: %d/%d" % (got, total))
    return 0 if got == total else 1


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    cmd, args = argv[1], argv[2:]

    def opt(name, default=None):
        if name in args:
            i = args.index(name)
            if i + 1 >= len(args):
                raise SystemExit("lab.py: %s needs a value" % name)
            v = args[i + 1]
            del args[i:i + 2]
            return v
        return default

    src = opt("--src", ROOT)
    if cmd == "labs":
        for n in sorted(LABS):
            print("%d %d %s" % (n, sum(c["points"] for c in LABS[n]["checks"]), LABS[n]["title"]))
        return 0
    if cmd == "markers":
        try:
            return cmd_markers(src)
        except MarkerError as e:
            print("markers: %s" % e, file=sys.stderr)
            return 1
    if cmd == "handout":
        if len(args) != 2 or not args[0].isdigit():
            print("usage: lab.py handout LAB OUT [--src DIR]", file=sys.stderr)
            return 2
        return cmd_handout(int(args[0]), args[1], src)
    if cmd == "grade":
        labarg = opt("--lab", "")
        tree = opt("--tree", ROOT)
        logdir = opt("--logdir", os.path.join(ROOT, "build", "grade"))
        only = opt("--only")
        if only is not None:
            try:
                re.compile(only)
            except re.error as e:
                print("grade: --only '%s' is not a regular expression: %s" % (only, e), file=sys.stderr)
                return 2
            if not any(re.search(only, c["name"]) for L in LABS.values() for c in L["checks"]):
                print("grade: --only '%s' matches no check" % only, file=sys.stderr)
                return 2
        from_logs = "--from-logs" in args
        if from_logs:
            args.remove("--from-logs")
        if args:
            print("lab.py grade: unexpected %s" % " ".join(args), file=sys.stderr)
            return 2
        if labarg:
            if not labarg.isdigit() or int(labarg) not in LABS:
                print("grade: no lab %s in this course (labs: %s)"
                      % (labarg, " ".join(map(str, sorted(LABS)))), file=sys.stderr)
                return 2
            labs = [int(labarg)]
        else:
            labs = sorted(LABS)
        if not os.path.isfile(os.path.join(tree, "Makefile")):
            print("grade: %s is not a slablab tree (no Makefile)" % tree, file=sys.stderr)
            return 2
        return cmd_grade(labs, tree, logdir, from_logs, only)
    print("lab.py: unknown command %s (handout, markers, labs, grade)" % cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
