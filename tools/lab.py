#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The course labs (docs/labs/): student trees made from solution markers, and the grader.
"""Usage:
  lab.py handout LAB OUT [--src DIR]   write the student tree of lab LAB to OUT
  lab.py markers [--src DIR]           check the markers; print each region (file:line lab)
  lab.py labs                          the course: a line per lab (number, points, title)
  lab.py grade [--lab N] [--tree DIR] [--logdir DIR] [--only REGEX] [--from-logs] [--first-fail]
                                       build lab N's code of DIR into this tree's kernel, boot
                                       it per check, print the score; --only: the checks whose
                                       name matches REGEX; --from-logs: grade the logs in the
                                       log folder from an earlier run (no build, no boot);
                                       --first-fail: stop at the first failed check

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
import signal
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


# Every grading boot counts instructions (ICOUNT=1: the emulated clock is the guest's
# instruction count, so what the kernel does, and when, is the same in every run) and gives
# the kernel a seed (seed=): the same tree gets the same log, hence the same score. race: one
# instruction per translation block too (qemu-run.sh's ONE_INSN_PER_TB), so that interrupts
# can land between any two instructions. trace: QEMU's own trace of these events, for the
# checks that must not believe what the kernel prints (lab 2's timings).
GRADE_SEED = 20240611
TRACE_EVENTS = "x86_gsi_interrupt,apic_mem_writel"


def boot(lb, name, cmdline, smp, timeout=600, mem="256M", race=False, trace=False, icount=1):
    if trace:  # QEMU's trace times the kernel by the PIT's edges (observer_clock=, docs/options.md)
        cmdline += " observer_clock=1"
    lb["boots"][name] = {"cmdline": "%s seed=%d" % (cmdline, GRADE_SEED), "smp": smp,
                         "icount": icount, "timeout": timeout, "mem": mem, "race": race,
                         "trace": trace}


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
    """The student's text: each region of lab >= n emptied to a panic between its two marker
    lines (a region at column 0, declarations, to nothing between them): the markers say
    where the student writes, and the grader takes the student's code from between them.
    The markers of earlier labs go (their solutions stay)."""
    lines = text.split("\n")
    out, skip_until = [], 0
    begins = {r[1]: r for r in regions}
    for i, line in enumerate(lines, 1):
        if i <= skip_until:
            continue
        r = begins.get(i)
        if r and r[0] >= n:
            indent = MARK_RE.match(line).group(1)
            out.append(line)
            if indent:
                out.append(stub_line(indent, r[0]))
            out.append(lines[r[2] - 1])
            skip_until = r[2]
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
    # The promise: no marker is left but the empty regions of lab n and later.
    leak = scan_leaks(out, n)
    if leak:
        print("handout: %s still has marker text at %s" % (out, leak), file=sys.stderr)
        return 1
    print("handout: lab %d (%s) in %s: %d regions replaced by stubs, %d declaration regions "
          "removed, %d solution files left out" % (n, LABS[n]["title"], out, replaced, removed,
                                                   dropped))
    return 0


def scan_leaks(out, n):
    """Where a handout still has marker text other than lab n's and later labs' regions,
    each holding at most its stub line; None when it has none."""
    for d, _, names in os.walk(out):
        for x in names:
            if not x.endswith(SOURCE_EXT):
                continue
            p = os.path.join(d, x)
            rel = os.path.relpath(p, out)
            with open(p, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
            try:
                regions, file_lab = parse_markers(rel, text, LABS)
            except MarkerError as e:
                return str(e)
            lines = text.split("\n")
            for lab_n, b, e in regions:
                if lab_n < n or e - b > 2 or (e - b == 2 and "not implemented" not in lines[b]):
                    return "%s:%d" % (rel, b)
            if file_lab:
                return "%s:1" % rel
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


# ---- what a boot left: its log, and for some checks QEMU's trace and the kernel's ELF ----
#
# A check is fn(lines) -> None (passed) or the reason; BOOT holds the rest of what the boot
# left (the trace file, the ELF it booted), set before the checks of each boot run.

BOOT = {}

FAILED_RE = re.compile(r"^\s*# (\S+): (?:EXPECTATION|ASSERTION) FAILED at (\S+)")
SUBTEST_RE = re.compile(r"^\s*# Subtest: (\S+)\s*$")
CASE_RE = re.compile(r"^\s*(?:not ok|ok) \d+ (\S+)")


def suite_declared():
    """{suite: [case, ...]} over this tree's tests/kernel/*.c (the grader's own tests)."""
    out = {}
    d = os.path.join(ROOT, "tests", "kernel")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".c"):
            continue
        with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        m = re.search(r'\.name\s*=\s*"([^"]+)"', text[text.rfind("struct kunit_suite"):] if
                      "struct kunit_suite" in text else "")
        if m:
            out[m.group(1)] = re.findall(r"^\s*KUNIT_CASE\((\w+)\)", text, re.M)
    return out


def running_case(lines):
    """'suite.case' the kernel was in at the end of the log (the case after the last one it
    reported, in its suite's declared order; selected cases only), or None."""
    suite, done = None, []
    for l in lines:
        m = SUBTEST_RE.match(l)
        if m:
            suite, done = m.group(1), []
            continue
        m = CASE_RE.match(l)
        if m and suite and l.startswith("    "):
            done.append(m.group(1))
        elif m and suite and not l.startswith(" "):
            suite = None  # the suite's own result line
    if not suite:
        return None
    cases = suite_declared().get(suite, [])
    sel = BOOT.get("cmdline", "")
    m = re.search(r"(?:^| )test=(\S+)", sel)
    items = m.group(1).split(",") if m else []
    chosen = [c for c in cases if suite in items or "all" in items or "%s.%s" % (suite, c) in items]
    for c in chosen or cases:
        if c not in done:
            return "%s.%s" % (suite, c)
    return suite


PANIC_MSG_RE = re.compile(r"KERNEL PANIC on cpu (\d+): (.*)$")
SYM_RE = re.compile(r"\[<[0-9a-f]+>\] ([A-Za-z_][\w.]*)\+0x[0-9a-f]+|RIP: 0x[0-9a-f]+ ([A-Za-z_][\w.]*)\+0x")
PANIC_SELF = ("panic", "panic_end", "kernel_exit", "arch_backtrace", "dump_backtrace", "die",
              "trap_handler", "isr_common", "backtrace_from", "slab_report_bad", "report_bad")


def panic_report(lines):
    """A panic, said as 'kernel panic in FUNCTION during suite.case: MESSAGE', or None."""
    for i, l in enumerate(lines):
        m = PANIC_MSG_RE.search(l)
        exc = "EXCEPTION" in l and "KERNEL" in l
        if not m and not exc:
            continue
        msg = m.group(2).strip() if m else l.strip()
        fn = None
        lm = re.match(r"LAB\d+: (\w+): not implemented", msg)
        if lm:
            fn = lm.group(1)
        for l2 in lines[i + 1:i + 40]:
            sm = SYM_RE.search(l2)
            if sm and not fn:
                name = sm.group(1) or sm.group(2)
                if name not in PANIC_SELF:
                    fn = name
        where = running_case(lines[:i])
        return "kernel panic%s%s: %s" % (" in %s" % fn if fn else "",
                                         " during %s" % where if where else "", msg)
    return None


def failed_lines(lines, suite, cases):
    """The first 'EXPECTATION FAILED' line of those cases of suite, with what it says (the
    lines after it up to the next result or diagnostic header): whatever the suite's results
    say, a failed expectation fails the check (a runner that does not mark the case failed
    cannot hide it)."""
    cur = None
    for i, l in enumerate(lines):
        m = SUBTEST_RE.match(l)
        if m:
            cur = m.group(1)
            continue
        m = FAILED_RE.match(l)
        if m and cur == suite and m.group(1) in cases:
            more = []
            for l2 in lines[i + 1:i + 6]:
                if FAILED_RE.match(l2) or CASE_RE.match(l2) or re.match(r"^\s*# \w+: ", l2):
                    break
                more.append(l2.strip())
            return "%s.%s failed at %s: %s" % (suite, m.group(1), m.group(2), " ".join(more))
    return None


def skip_reason(lines, case):
    """' (why)' from the case's '# SKIP why' result line, or ''."""
    for l in lines:
        m = re.match(r"^\s*ok \d+ %s\s*#\s*SKIP\s*(.*)$" % re.escape(case), l, re.I)
        if m:
            return " (%s)" % m.group(1).strip()
    return ""


def first_failed(lines):
    """'suite.case failed at FILE:LINE: what it said' for the first FAILED line, or None."""
    declared = suite_declared()
    for suite in [m.group(1) for m in map(SUBTEST_RE.match, lines) if m]:
        why = failed_lines(lines, suite, declared.get(suite, []))
        if why:
            return why
    return None


# ---- check builders ----

def suite_passes(suite, smp, scheme=None, counters_needed=None, cases=None):
    """The suite reports exactly the cases this grader's tests/kernel declare (or `cases` of
    them, when the boot selects those), every one ok (skips only on one CPU), with no FAILED
    line in the log, the boot had smp CPUs, the exit event says pass, and slabinfo's
    counters over the kmalloc caches of `scheme` reach counters_needed: {counter: least}."""
    def fn(lines):
        declared = suite_declared().get(suite)
        if declared is None:
            return "this grader has no suite %s" % suite
        # The cases the boot selects (test=suite or suite.case), in the declared order.
        m = re.search(r"(?:^| )test=(\S+)", BOOT.get("cmdline", ""))
        items = m.group(1).split(",") if m else []
        want = [c for c in declared if suite in items or "all" in items or
                "%s.%s" % (suite, c) in items] or declared
        mine = cases or want
        cpus = boot_cpus(lines)
        if cpus != smp:
            return "the boot reported %s CPUs online, want %d" % (cpus, smp)
        plan, got = suite_cases(lines, suite)
        if got is None:
            return "no '%s' suite in the output" % suite
        if plan != len(want):
            return "suite %s planned %s cases, this grader's tests declare %d" % (suite, plan,
                                                                                  len(want))
        extra = [c for c in got if c not in want]
        if extra:
            return "suite %s reported cases the grader's tests declare nowhere: %s" % (
                suite, ", ".join(extra[:3]))
        missing = [c for c in want if c not in got]
        if missing:
            return "suite %s did not report %s" % (suite, ", ".join(missing[:3]))
        twice = [c for c in want if got[c] == "twice"]
        if twice:
            return "suite %s reported %s more than once" % (suite, ", ".join(twice[:3]))
        failed = [c for c in mine if got[c] == "fail"]
        why = failed_lines(lines, suite, mine)
        if failed:
            return "failed: %s.%s%s" % (suite, (", %s." % suite).join(failed),
                                        " (%s)" % why if why else "")
        if why:
            return why
        skipped = [c for c in mine if got[c] == "skip"]
        if skipped and cases:  # a race case that proved nothing (too few interrupts landed)
            return "skipped: %s.%s%s" % (suite, (", %s." % suite).join(skipped),
                                         skip_reason(lines, skipped[0]))
        if skipped and smp > 1:
            return "skipped at %d CPUs: %s" % (smp, ", ".join(skipped))
        ev = exit_event(lines)
        if cases and ev and ev.get("result") == "fail" and not panic_line(lines):
            ev = None if failed_lines(lines, suite, cases) else {"result": "pass"}
            # (the boot's other cases failed it, not these: they keep their points)
        if not ev or ev.get("result") != "pass":
            other = first_failed(lines)  # another suite's case in the same boot
            return "the kernel's exit event says %s%s" % (ev.get("result") if ev else "nothing",
                                                        ": " + other if other else "")
        if not counters_needed:
            return None
        tot = slabinfo_counters(lines, scheme)
        if tot is None:
            return "no slabinfo lines for kmalloc caches of scheme %s" % scheme
        for c, least in counters_needed.items():
            if tot.get(c, 0) < least:
                return ("slabinfo: %s is %d over the kmalloc caches of %s, want at least %d: "
                        "the suite's results and the counters disagree" % (c, tot.get(c, 0),
                                                                           scheme, least))
        return None

    def done_before_stop(lines):
        """For a boot that was stopped (no progress, or its timeout): did the check's own
        cases all finish ok before that? Then a later case's hang does not cost these."""
        if not cases or boot_cpus(lines) != smp or panic_line(lines):
            return False
        _, got = suite_cases(lines, suite)
        return bool(got) and all(got.get(c) == "ok" for c in cases) and \
            not failed_lines(lines, suite, cases)
    fn.done_before_stop = done_before_stop
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


def figure_at_least(bench, match, figure, least, what):
    def fn(lines):
        v, why = last_figure(lines, bench, match, figure)
        if why:
            return why
        if v < least:
            return "%s is %s, want at least %s" % (what, v, least)
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
      suite_passes("page_alloc", 1))
check(L1, "memory map of a 4 GiB machine (memory above 4 GiB)", "map-4G", 15,
      map_matches(4096 * MiB, True))
check(L1, "no memory map without mem_map=1", "no-map", 5, no_map_lines)
check(L1, "mem_map=2 is refused by the option's range", "map-bad", 10, option_refused("mem_map"))


# Lab 2: SMP bring-up (arch/x86/smpboot.c: INIT, then SIPI, SIPI) and the IPI round trip.
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


# QEMU's trace: the PIT's channel 0 edges (the observer clock the kernel runs while the APs
# start and while ipi_rtt measures: kernel/time.h), and the writes to the local APIC's ICR.
PIT_HZ = 1193182
OBSERVER_DIVISOR = 12  # kernel/time.h's OBSERVER_CLOCK_DIVISOR
TICK_NS = OBSERVER_DIVISOR * 1e9 / PIT_HZ
GSI_RE = re.compile(r"x86_gsi_interrupt GSI interrupt #0 level:1")
APICW_RE = re.compile(r"apic_mem_writel 0x(3[01]0) = 0x([0-9a-f]+)")


def apic_events(trace):
    """[(observer ticks so far, delivery mode, destination, vector)] of every ICR write in the
    trace, in order; the ticks count the PIT channel 0's rising edges."""
    ev, ticks, dest = [], 0, 0
    with open(trace, encoding="utf-8", errors="replace") as fh:
        for l in fh:
            if GSI_RE.search(l):
                ticks += 1
                continue
            m = APICW_RE.search(l)
            if not m:
                continue
            v = int(m.group(2), 16)
            if m.group(1) == "310":
                dest = v >> 24
            else:
                ev.append((ticks, (v >> 8) & 7, dest, v & 0xff))
    return ev


def trace_of_boot():
    t = BOOT.get("trace")
    if not t or not os.path.isfile(t):
        return None, "no QEMU trace of this boot (QEMU_TRACE_LOG)"
    return apic_events(t), None


def init_sipi_order(smp):
    """From QEMU's trace, not the kernel's word: every AP got an INIT, then a SIPI no sooner
    than 10 ms after it, and a second SIPI (if any) no sooner than 200 us after the first,
    by the observer clock (QEMU's virtual time: exact under ICOUNT=1). A tick of slack for
    the clock's resolution; the kernel's TSC calibration is within a tick of it."""
    def fn(lines):
        ev, why = trace_of_boot()
        if why:
            return why
        for ap in range(1, smp):
            inits = [e for e in ev if e[1] == 5 and e[2] == ap]
            sipis = [e for e in ev if e[1] == 6 and e[2] == ap]
            if not inits:
                return "QEMU's trace: no INIT was sent to APIC %d" % ap
            if not sipis:
                return "QEMU's trace: no SIPI was sent to APIC %d" % ap
            if sipis[0][0] < inits[0][0] or ev.index(sipis[0]) < ev.index(inits[0]):
                return "QEMU's trace: APIC %d got a SIPI before its INIT" % ap
            gap = (sipis[0][0] - inits[0][0] + 1) * TICK_NS
            if gap < 10e6:
                return ("QEMU's trace: APIC %d got its SIPI %.2f ms after its INIT, want at "
                        "least 10 ms (Intel SDM, MP initialisation)" % (ap, gap / 1e6))
            if len(sipis) > 2:
                return "QEMU's trace: APIC %d got %d SIPIs, want one or two" % (ap, len(sipis))
            if len(sipis) == 2:
                gap2 = (sipis[1][0] - sipis[0][0] + 1) * TICK_NS
                if gap2 < 200e3:
                    return ("QEMU's trace: APIC %d got its second SIPI %.0f us after the first, "
                            "want at least 200 us" % (ap, gap2 / 1e3))
        return None
    return fn


RTT_RE = re.compile(r"^\s*# round_trip_to_every_cpu: cpu (\d+): round trip median (\d+) cycles "
                    r"\((\d+) ns\), mean (\d+) ns")
RTT_N = 200  # tests/kernel/ipi_rtt_test.c


def rtt_agrees_with_qemu(smp):
    """Each cpu's figures are there, and the mean of its samples (as the grader's test prints
    it) is the mean time between the cross-call IPIs cpu 0 sent it, by QEMU's clock, within
    10% (and two ticks of that clock over the RTT_N round trips): figures the code did not
    measure do not match."""
    def fn(lines):
        got = {}
        for l in lines:
            m = RTT_RE.match(l)
            if m:
                got[int(m.group(1))] = (int(m.group(2)), int(m.group(4)))
        missing = [c for c in range(1, smp) if not got.get(c) or not got[c][0]]
        if missing:
            return "no round trip figure for cpu %s" % ", ".join(map(str, missing))
        ev, why = trace_of_boot()
        if why:
            return why
        for cpu in range(1, smp):
            sends = [e[0] for e in ev if e[1] == 0 and e[2] == cpu and e[3] == 0xf0]
            if len(sends) < RTT_N:
                return ("QEMU's trace: %d cross-call IPIs to cpu %d, want at least %d (one per "
                        "round trip)" % (len(sends), cpu, RTT_N))
            sends = sends[-RTT_N:]
            qemu = (sends[-1] - sends[0]) * TICK_NS / (RTT_N - 1)
            said = got[cpu][1]
            # The clock's resolution is a tick over the whole run: 2 ticks / (RTT_N - 1)
            # on the mean (about 100 ns; the reference's mean is about 400 ns).
            if abs(said - qemu) > 0.1 * qemu + 2 * TICK_NS / (RTT_N - 1):
                return ("cpu %d: the samples' mean is %d ns, QEMU's clock says %.0f ns between "
                        "round trips: the samples are not the round trips" % (cpu, said, qemu))
        return None
    return fn


L2 = lab(2, "SMP bring-up and the IPI round trip")
# scheme=sheaves: the boot caches get a layer of their own in front of the cpu slab, so the
# kmalloc calls of the ipi suite do not reach lab 3's fastpaths or lab 4's partial lists (the
# grader builds the tree's lab 2 code into its own, where those are complete; a student's
# own make grade builds the handout, where they are stubs). x2apic=off: the APIC through its
# MMIO page, which QEMU traces (apic_mem_writel).
boot(L2, "smp2", "test=smp scheme=sheaves x2apic=off", 2, trace=True)
boot(L2, "smp4", "test=smp scheme=sheaves x2apic=off", 4, trace=True)
boot(L2, "rtt4", "test=ipi_rtt scheme=sheaves x2apic=off", 4, trace=True)
# The ipi suite under plain TCG, the one boot without ICOUNT: QEMU 7.2's -icount
# (round-robin vCPUs) stops running a vCPU that a wake-up IPI took out of hlt: in
# wakeup_ipi_reaches_every_cpu cpu 1 stays on the first instruction of the IPI's handler
# (QEMU's monitor: RIP at isr_stub_241, the vector in service, IF clear) while cpu 0 polls
# its counter and cpus 2 and 3 run, for 30 s of virtual time, at 2, 3, 4 and 5 CPUs; QEMU
# 10's -icount (tools/qemu10.sh) passes the same kernel's ipi suite in 77 ms, as plain TCG
# does. Only this check reads it: the start-up and the round trip are timed under ICOUNT.
boot(L2, "ipi4", "test=ipi scheme=sheaves x2apic=off", 4, icount=0)
check(L2, "2 of 2 CPUs online", "smp2", 5, all_of(cpus_up(2), exit_pass))
check(L2, "4 of 4 CPUs online", "smp4", 5, cpus_up(4))
check(L2, "INIT, then SIPI after 10 ms, a second after 200 us (QEMU's trace, 4 CPUs)", "smp4", 10,
      all_of(cpus_up(4), init_sipi_order(4)))
check(L2, "smp suite, 4 CPUs", "smp4", 10, all_of(cpus_up(4), suite_passes("smp", 4)))
check(L2, "IPI round trip to every cpu: IPI counters, and QEMU's clock (4 CPUs)", "rtt4", 20,
      all_of(cpus_up(4), suite_passes("ipi_rtt", 4), rtt_agrees_with_qemu(4)))
check(L2, "ipi suite, 4 CPUs (plain TCG)", "ipi4", 10, all_of(cpus_up(4), suite_passes("ipi", 4)))


# Lab 3: the slab fastpath (mm/slub.h, mm/slub.c: the irq and cmpxchg fastpaths).
def objdump_function(elf, name):
    """The instructions of function `name` in elf (objdump -d), or None."""
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + name, elf],
                             capture_output=True, text=True).stdout
    except OSError:
        return None
    body = out.split("<%s>:" % name, 1)
    if len(body) < 2:
        return None
    return [l.split("\t", 1)[-1].strip() for l in body[1].split("\n") if re.match(r"^\s+[0-9a-f]+:", l)]


SOFT_MASK_RE = re.compile(r"%gs:0x20\b")  # arch/x86/cpu.h: the soft mask word in percpu_hdr


def cmpxchg_fastpath_in_binary(lines):
    """alloc_entry_cmpxchg and free_entry_cmpxchg as built, from their first instruction to
    their first ret (the fastpath: the slow path is a jump away, after it): a cmpxchg, and
    no cli, sti, pushf, popf or write to the soft interrupt mask (%gs:0x20): interrupts stay
    on, the tid in the swapped word is what makes it safe."""
    elf = BOOT.get("elf")
    for fn in ("alloc_entry_cmpxchg", "free_entry_cmpxchg"):
        insns = objdump_function(elf, fn) if elf else None
        if not insns:
            return "no function %s in the kernel (objdump -d %s)" % (fn, elf)
        rets = [k for k, i in enumerate(insns) if re.match(r"ret", i)]
        fast = insns[:rets[0] + 1] if rets else insns
        if not any(i.startswith("cmpxchg") for i in fast):
            return "%s has no cmpxchg instruction before its return" % fn
        bad = [i for i in fast if re.match(r"(cli|sti|pushf|popf)", i) or
               (SOFT_MASK_RE.search(i) and i.rstrip().endswith("%gs:0x20"))]
        if bad:
            return "%s masks interrupts (%s): the cmpxchg fastpath runs with them on" % (fn, bad[0])
    return None


# The binary is checked whatever became of the boot that carries it.
cmpxchg_fastpath_in_binary.done_before_stop = lambda lines: cmpxchg_fastpath_in_binary(lines) is None


L3 = lab(3, "the slab fastpath")
# The slab_fastpath suite, not slab: slab runs every scheme, and a handout's lab 4 is a stub.
boot(L3, "slab-smp1", "test=slab_fastpath scheme=lock slabinfo=1", 1)
boot(L3, "slab-smp2", "test=slab_fastpath scheme=lock slabinfo=1", 2)
boot(L3, "storm", "test=slab_race.fastpath_storm_irq,slab_race.fastpath_storm_cmpxchg "
     "scheme=lock", 1, race=True)
boot(L3, "fastpath-icount", "bench=fastpath scheme=lock bench_reps=3", 1)
# Instructions per alloc+free pair of 64 bytes under ICOUNT=1: the reference solution's, and
# the bound, a few per cent above (docs/labs/lab3.md).
FASTPATH_REF = {"irq": 39, "cmpxchg": 47}
FASTPATH_SLACK = 1.08
for smp, pts in ((1, 15), (2, 10)):
    check(L3, "slab_fastpath suite, scheme lock, %d CPU%s" % (smp, "s" * (smp > 1)),
          "slab-smp%d" % smp, pts,
          suite_passes("slab_fastpath", smp, "lock",
                       # kmalloc_every_size: 100 pairs on each of 13 kmalloc caches
                       {"alloc_fastpath": 1000, "free_fastpath": 1000}))
for fp in ("irq", "cmpxchg"):
    check(L3, "%s fastpath under a storm of interrupts (one instruction per block)" % fp,
          "storm", 10, suite_passes("slab_race", 1, cases=["fastpath_storm_" + fp]))
check(L3, "cmpxchg fastpath in the binary: a cmpxchg, interrupts never masked", "storm", 5,
      cmpxchg_fastpath_in_binary)
for fp in ("irq", "cmpxchg"):
    bound = int(FASTPATH_REF[fp] * FASTPATH_SLACK)
    check(L3, "%s fastpath: at most %d instructions per alloc+free pair (64 bytes, ICOUNT=1)"
          % (fp, bound), "fastpath-icount", 10,
          all_of(exit_pass,
                 figure_at_most("fastpath", {"scheme": "lock", "fastpath": fp, "size": 64,
                                             "unit": "cycles"},
                                "alloc_free_pair", bound, "instructions",
                                "an alloc+free pair")))

# Lab 4: per-cpu partial lists (mm/scheme_partial.c).
L4 = lab(4, "per-cpu partial lists")
boot(L4, "slab-smp1", "test=slab,slab_race.partial_take_race scheme=partial slabinfo=1", 1)
boot(L4, "slab-smp4", "test=slab scheme=partial slabinfo=1", 4)
boot(L4, "hackbench", "bench=hackbench scheme=partial hackbench_groups=4 hackbench_loops=20 "
     "bench_reps=1", 4)
LIST_LOCK_BOUND = 40  # list_lock acquisitions per 1000 slab operations (solution: about 22, lock: 150)
HELD_BOUND = 256      # pages the hackbench caches hold after the run (the reference: docs/labs/lab4.md)
PARTIAL_COUNTERS = {"cpu_partial_free": 1, "cpu_partial_alloc": 1, "cpu_partial_node": 1,
                    "cpu_partial_drain": 1}
check(L4, "a take that loses a race to another cpu's free (1 CPU)", "slab-smp1", 10,
      suite_passes("slab_race", 1, cases=["partial_take_race"]))
check(L4, "slab suite, scheme partial, 1 CPU", "slab-smp1", 15,
      suite_passes("slab", 1, "partial", PARTIAL_COUNTERS))
check(L4, "slab suite, scheme partial, 4 CPUs", "slab-smp4", 15,
      suite_passes("slab", 4, "partial", PARTIAL_COUNTERS))
check(L4, "hackbench: at most %d list_lock acquisitions per 1000 operations (4 CPUs)"
      % LIST_LOCK_BOUND, "hackbench", 10,
      all_of(exit_pass,
             figure_at_most("hackbench", {"scheme": "partial", "groups": 4},
                            "list_lock_per_1000_ops", LIST_LOCK_BOUND, "per 1000 operations",
                            "list_lock acquisitions")))
check(L4, "hackbench: at most %d pages held once every message is freed (4 CPUs)" % HELD_BOUND,
      "hackbench", 10,
      all_of(exit_pass,
             figure_at_most("hackbench", {"scheme": "partial", "groups": 4, "cache": "all"},
                            "mem_pages", HELD_BOUND, "pages", "memory the caches hold")))

# Lab 5: IPI versus lock, a scheme of the student's own (mm/scheme_lab5.c) that sends remote
# frees to the owner cpu in batches. 5 CPUs: owners 0 and 4 share an outbox (owner % 4).
L5 = lab(5, "IPI versus lock: remote frees in batches")
L5_SCHEME = "lab5"
L5_ANSWERS = "answers-lab5.txt"
L5_SMP = 5
boot(L5, "slab-smp1", "test=slab,slab_ipi scheme=lab5 slabinfo=1", 1)
boot(L5, "slab-smp5", "test=slab,slab_ipi scheme=lab5 slabinfo=1", L5_SMP)
boot(L5, "storm", "test=slab_race.owner_remote_storm scheme=lab5", L5_SMP, race=True)
# What docs/labs/lab5.md tells the student to run and paste, under ICOUNT=1: the grader's own
# run of the graded tree gives the same instruction counts, exactly.
L5_BENCH = "bench=remote scheme=lock,partial,ipi-batch,lab5 remote_objects=20000 bench_reps=3"
boot(L5, "remote", L5_BENCH, 4)
IPI_BOUND = 40  # IPIs per 1000 remote frees on bench=remote (solution: 31.2; ipi: 1000)
ANSWER_WORDS = 30
GRADE_TREE = [ROOT]  # the tree being graded (cmd_grade sets it): where the answers are


def scheme_present(name, lab_n):
    """The kernel has the scheme: no 'no scheme named' line for it."""
    def fn(lines):
        for l in lines:
            if l.startswith(("scheme: no scheme named '%s'" % name,
                             "cmdline: no scheme named '%s'" % name)):
                return ("LAB%d: no scheme %s in this kernel: mm/scheme_%s.c does not register "
                        "it (slab_scheme_register, docs/labs/lab%d.md)" % (lab_n, name, name, lab_n))
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
    """answers-lab5.txt: the four answers, the pasted JSON figures of bench=remote (the
    ICOUNT=1 run) for lock, partial and lab5 at 2 pairs, lab5's instructions per object and
    IPIs per 1000 frees exactly what this grader's own ICOUNT=1 run of the graded tree
    measured (a figure that differs is invented, from plain TCG, or stale), and the answers
    quoting at least three of the pasted figures."""
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
            figs.setdefault((o.get("scheme"), o.get("figure")), o["value"])
    for sch in ("lock", "partial", L5_SCHEME):
        for f in ("per_object", "ipis_per_1000_frees"):
            if (sch, f) not in figs:
                return ("%s: no pasted JSON line of bench=remote with scheme %s, figure %s, "
                        "pairs 2 (make bench ICOUNT=1 SMP=4, docs/labs/lab5.md)"
                        % (L5_ANSWERS, sch, f))
    for f, tol in (("per_object", 0.005), ("ipis_per_1000_frees", 0.005)):
        got, why = last_figure(lines, "remote", {"scheme": L5_SCHEME}, f)
        if why:
            return "the grader's own bench=remote run: %s" % why
        said = figs[(L5_SCHEME, f)]
        if abs(said - got) > tol * abs(got) + 0.1:
            return ("%s: the pasted %s of %s, %s, is not what this kernel does under ICOUNT=1 "
                    "(%s in the grader's run of %s): paste the ICOUNT=1 run of your final "
                    "scheme" % (L5_ANSWERS, f, L5_SCHEME, said, got, L5_BENCH))
    prose = " ".join(secs.values())
    numbers = set(re.findall(r"(?<![\w.])[0-9]+(?:\.[0-9]+)?", prose))
    quoted = [v for v in set(figs.values()) if ("%g" % v) in numbers or ("%.1f" % v) in numbers]
    if len(quoted) < 3:
        return ("%s: the answers quote %d of the pasted figures, want at least 3 (as numbers, "
                "e.g. 31.2)" % (L5_ANSWERS, len(quoted)))
    return None


L5_PRESENT = scheme_present(L5_SCHEME, 5)
# The IPI bound first: with --first-fail an IPI per free costs one short boot.
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
check(L5, "slab and slab_ipi suites, scheme lab5, 1 CPU", "slab-smp1", 10,
      all_of(L5_PRESENT,
             suite_passes("slab", 1, L5_SCHEME, {"alloc_fastpath": 1000, "free_fastpath": 1000}),
             suite_passes("slab_ipi", 1)))
check(L5, "slab suite, scheme lab5, %d CPUs (two owners per outbox)" % L5_SMP, "slab-smp5", 10,
      all_of(L5_PRESENT,
             # The kernel's own kmalloc caches (lab5's) see remote frees too; remote_free is
             # counted by the scheme's given code (free_one), not by the lab's.
             suite_passes("slab", L5_SMP, L5_SCHEME,
                          {"alloc_fastpath": 1000, "free_fastpath": 1000, "remote_free": 1000})))
check(L5, "slab_ipi suite (every owner scheme, lab5 among them), %d CPUs" % L5_SMP, "slab-smp5",
      10, all_of(L5_PRESENT, suite_passes("slab_ipi", L5_SMP)))
check(L5, "remote frees from every cpu to every owner under storms (%d CPUs)" % L5_SMP,
      "storm", 10,
      all_of(L5_PRESENT, suite_passes("slab_race", L5_SMP, cases=["owner_remote_storm"])))
# Last: a mutant of the code whose answers are the reference's fails it too (its figures
# differ), and the check meant for its bug must come first.
check(L5, "written comparison with lock and partial (%s)" % L5_ANSWERS, "remote", 10,
      all_of(L5_PRESENT, written_comparison))


# ---- building the graded tree's lab code into this tree ----

class SpliceError(Exception):
    pass


def lab_regions(path, text, n):
    """The regions of lab n in text: [(begin line, end line)] (1-based, marker lines)."""
    regions, _ = parse_markers(path, text, LABS)
    return [(b, e) for lab_n, b, e in regions if lab_n == n]


def splice_text(path, mine, theirs, n):
    """This tree's file `mine` with the code between each of lab n's markers replaced by what
    the graded tree's `theirs` has between its markers of lab n, region for region."""
    try:
        regions = lab_regions(path, mine, n)
    except MarkerError as e:
        raise SpliceError("the grader's own %s" % e)
    try:
        their_regions = lab_regions(path, theirs, n)
    except MarkerError as e:
        raise SpliceError("LAB%d: %s" % (n, e))
    if len(their_regions) != len(regions):
        raise SpliceError("LAB%d: %s has %d regions of lab %d between /* LAB%d: BEGIN */ and "
                          "/* LAB%d: END */ markers, the lab has %d: your code goes between "
                          "the markers the handout has, and nowhere else"
                          % (n, path, len(their_regions), n, n, n, len(regions)))
    mine_l, theirs_l = mine.split("\n"), theirs.split("\n")
    for (b, e), (tb, te) in reversed(list(zip(regions, their_regions))):
        body = theirs_l[tb:te - 1]
        for k, l in enumerate(body):
            if l.lstrip().startswith("#"):
                raise SpliceError("LAB%d: %s:%d: a preprocessor line in your region (%s): the "
                                  "grader builds the code between the markers into its own "
                                  "files; write C there" % (n, path, tb + 1 + k, l.strip()))
        mine_l[b:e - 1] = body
    # A handout's stub calls panic(), declared in kernel/printk.h: as the handout tool does.
    if any("panic(" in l for l in mine_l) and not any(PRINTK_INC_RE.match(l) for l in mine_l):
        incs = [i for i, l in enumerate(mine_l) if l.startswith("#include ")]
        mine_l.insert(incs[-1] + 1 if incs else 0, '#include "kernel/printk.h"')
    return "\n".join(mine_l)


def lab_files(n):
    """This tree's files that hold lab n's code: {path: 'regions' | 'file'}."""
    out = {}
    for f, (_, regions, file_lab) in scan(ROOT).items():
        if file_lab == n:
            out[f] = "file"
        elif any(r[0] == n for r in regions):
            out[f] = "regions"
    return out


BUILD_DIRS = ("arch", "bench", "gen", "init", "kernel", "mm", "tests")


def grading_tree(n, tree, dest):
    """A copy of this tree at dest with the graded tree's lab n code in it: for each file that
    holds regions of lab n, this tree's text with the code between the markers taken from the
    graded tree; a solution file of lab n (FILE marker) whole. Tests, runner, benchmarks,
    counters and every other line are this tree's. Object files are copied with this tree's
    build (times kept), so only what changed is compiled. Returns dest; SpliceError."""
    os.makedirs(dest, exist_ok=True)
    for f in tree_files(ROOT):
        sp, dp = os.path.join(ROOT, f), os.path.join(dest, f)
        if os.path.exists(dp) and os.path.getmtime(dp) == os.path.getmtime(sp) and \
                os.path.getsize(dp) == os.path.getsize(sp):
            continue
        os.makedirs(os.path.dirname(dp), exist_ok=True)
        shutil.copy2(sp, dp)
    if not os.path.isdir(os.path.join(dest, "build")) and os.path.isdir(os.path.join(ROOT, "build")):
        for d in BUILD_DIRS:
            sd = os.path.join(ROOT, "build", d)
            if os.path.isdir(sd):
                shutil.copytree(sd, os.path.join(dest, "build", d),
                                ignore=shutil.ignore_patterns("*.iso", "*.log", "host", "test"))
    for f, kind in sorted(lab_files(n).items()):
        tp = os.path.join(tree, f)
        if not os.path.isfile(tp):
            raise SpliceError("LAB%d: %s: not in the graded tree" % (n, f))
        with open(tp, encoding="utf-8", errors="surrogateescape") as fh:
            theirs = fh.read()
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="surrogateescape") as fh:
            mine = fh.read()
        text = theirs if kind == "file" else splice_text(f, mine, theirs, n)
        dp = os.path.join(dest, f)
        with open(dp, encoding="utf-8", errors="surrogateescape") as fh:
            if fh.read() == text:
                continue
        with open(dp, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(text)
    return dest


# ---- booting, with a watch on progress ----

def qemu_cpu_seconds(pgid):
    """CPU seconds used so far by the QEMU processes of process group pgid."""
    tot = 0.0
    hz = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as fh:
                st = fh.read()
        except OSError:
            continue
        comm = st[st.find("(") + 1:st.rfind(")")]
        f = st[st.rfind(")") + 2:].split()
        if comm.startswith("qemu-system") and int(f[2]) == pgid:
            tot += (int(f[11]) + int(f[12])) / hz
    return tot


# A boot that prints nothing while QEMU spends this many CPU seconds has stopped making
# progress (a loop, a lost wake-up): it is ended then, not at its timeout. QEMU's CPU time,
# not the wall clock's: a busy machine slows both the guest and this clock alike. The
# reference's longest silence in any grading boot is a few seconds of it.
STALL_CPU_S = 60


def one_insn_per_tb_args():
    """qemu-run.sh's knob for one instruction per translation block (-singlestep in QEMU 7.2,
    -accel tcg,one-insn-per-tb=on from 8.1): it asks QEMU which it takes."""
    return {"ONE_INSN_PER_TB": "1"}


def run_boot(elf, b, iso, log, trace=None):
    """Boot elf with this tree's ISO tool and QEMU runner; return (qemu-run's exit code or None
    if no ISO, why it was stopped or None)."""
    r = subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), iso, elf, "--cmdline", b["cmdline"]],
                       capture_output=True, text=True)
    if r.returncode != 0:
        with open(log, "w") as fh:
            fh.write(r.stdout + r.stderr)
        return None, None
    env = {k: v for k, v in os.environ.items()
           if k not in ("SMP", "MEM", "ACCEL", "ICOUNT", "FIRMWARE", "TIMEOUT", "MACHINE",
                        "QEMU_EXTRA", "LOG", "ISO", "ELF", "ALLOW_SLOW_KVM", "CMDLINE", "APIC",
                        "ONE_INSN_PER_TB", "QEMU_TRACE", "QEMU_TRACE_LOG", "NODES", "TOPOLOGY")}
    env.update(ISO=iso, ELF=elf, SMP=str(b["smp"]), ICOUNT=str(b["icount"]),
               ACCEL="tcg" if b["icount"] else "auto", TIMEOUT=str(b["timeout"]), MEM=b["mem"],
               FIRMWARE="bios")
    if b.get("race"):
        env.update(one_insn_per_tb_args())
    if trace:
        env.update(QEMU_TRACE=TRACE_EVENTS, QEMU_TRACE_LOG=trace)
    stopped = None
    with open(log, "wb") as fh:
        p = subprocess.Popen([os.path.join(ROOT, "tools", "qemu-run.sh")], env=env, stdout=fh,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        size, cpu_at_last = 0, 0.0
        try:
            while p.poll() is None:
                time.sleep(1)
                cpu = qemu_cpu_seconds(p.pid)
                now = os.path.getsize(log)
                if now != size:
                    size, cpu_at_last = now, cpu
                elif cpu - cpu_at_last > STALL_CPU_S * (1 if b["icount"] else b["smp"]):
                    # (without ICOUNT every vCPU is a thread of its own: spinning ones count)
                    stopped = STALL_CPU_S
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(timeout=30)
                    break
        except BaseException:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            raise
    return p.returncode, stopped

# ---- grading ----

HOST_TIME_NOTE = ("a limit of host time: this result can differ on a quieter or busier machine "
                  "(every other check is exact: ICOUNT=1 and a fixed seed)")


def build_for_lab(n, tree, logdir, log):
    """Build the kernel that grades lab n of tree: (path of its ELF, None) or (None, why)."""
    if os.path.realpath(tree) == os.path.realpath(ROOT):
        src = ROOT  # this tree's own code: nothing to take from elsewhere
    else:
        try:
            src = grading_tree(n, tree, os.path.join(logdir, "lab%d-src" % n))
        except SpliceError as e:
            return None, str(e)
    r = subprocess.run(["make", "-s", "-C", src, "build/slablab.elf"], capture_output=True,
                       text=True)
    with open(log, "w") as fh:
        fh.write(r.stdout + r.stderr)
    if r.returncode != 0:
        errs = [l for l in (r.stdout + r.stderr).split("\n") if "error" in l]
        return None, "does not build: %s (log: %s)" % (errs[0].strip() if errs else
                                                       "make exited %d" % r.returncode, log)
    return os.path.join(src, "build", "slablab.elf"), None


def boot_end(path):
    """(exit code, stopped) of an earlier boot, from what cmd_grade wrote next to its log
    (for --from-logs: a boot that was stopped is graded as one); (0, None) without it."""
    try:
        with open(path) as fh:
            e = json.load(fh)
        return e.get("exit"), e.get("stopped")
    except (OSError, ValueError):
        return 0, None


def cmd_grade(labs, tree, logdir, from_logs=False, only=None, first_fail=False, json_out=None):
    tree = os.path.abspath(tree)
    tests = []  # for --json: Gradescope's results.json, a test per check
    GRADE_TREE[0] = tree
    os.makedirs(logdir, exist_ok=True)
    total = got = 0
    host_limited = False
    for n in labs:
        L = LABS[n]
        print("== lab %d: %s ==" % (n, L["title"]))
        checks = [c for c in L["checks"] if not only or re.search(only, c["name"])]
        elf, why_build = None, None
        if not from_logs:
            print("grade: building lab %d's code of %s into this grader's tree" % (n, tree))
            elf, why_build = build_for_lab(n, tree, logdir, os.path.join(logdir, "lab%d-build.log" % n))
            if elf:  # kept with the logs: --from-logs reads the binary from there
                shutil.copy(elf, os.path.join(logdir, "lab%d.elf" % n))
                elf = os.path.join(logdir, "lab%d.elf" % n)
        results, failed_once = {}, False
        for c in checks:
            total += c["points"]
            if first_fail and failed_once:
                print("  skip %-70s 0/%d  (not run: an earlier check failed)" % (c["name"], c["points"]))
                tests.append({"name": "lab %d: %s" % (n, c["name"]), "score": 0,
                              "max_score": c["points"], "output": "not run: an earlier check failed"})
                continue
            bn = c["boot"]
            b = L["boots"][bn]
            if bn not in results and not why_build:
                log = os.path.join(logdir, "lab%d-%s.log" % (n, bn))
                trace = os.path.join(logdir, "lab%d-%s.trace" % (n, bn)) if b["trace"] else None
                t0 = time.time()
                end = os.path.join(logdir, "lab%d-%s.end" % (n, bn))
                if from_logs:
                    rc, stopped = boot_end(end)
                    if elf is None:
                        elf = os.path.join(logdir, "lab%d.elf" % n)
                else:
                    rc, stopped = run_boot(elf, b, os.path.join(logdir, "lab%d-%s.iso" % (n, bn)),
                                           log, trace)
                    with open(end, "w") as fh:
                        json.dump({"exit": rc, "stopped": stopped}, fh)
                results[bn] = (rc, stopped, log_lines(log) if os.path.exists(log) else [],
                               time.time() - t0, log, trace)
            if why_build:
                why = why_build
            else:
                rc, stopped, lines, secs, log, trace = results[bn]
                BOOT.clear()
                BOOT.update(trace=trace, elf=elf, cmdline=b["cmdline"])
                if rc is None:
                    why = "could not make the ISO (log: %s)" % log
                elif stopped or rc == 124:
                    where = running_case(lines)
                    last = next((l.strip() for l in reversed(lines) if l.strip()), "nothing")
                    if stopped:
                        why = ("stopped: no output for %d s of emulation%s (the last line: %s)"
                               % (stopped, " in %s" % where if where else "", last[:100]))
                    else:
                        why = "timed out after %d s%s (the last line: %s; %s)" % (
                            b["timeout"], " in %s" % where if where else "", last[:100],
                            HOST_TIME_NOTE)
                        host_limited = True
                    failed = first_failed(lines)
                    if failed:  # what the case had found before it stopped
                        why = "%s; then %s" % (failed, why)
                    why += " (log: %s)" % log
                    done = getattr(c["fn"], "done_before_stop", None)
                    if done and done(lines):
                        why = None  # its cases had passed: the hang came after them
                else:
                    why = c["fn"](lines)
                    if why:
                        p = panic_report(lines)
                        if p:
                            why = p
                        why += " (log: %s)" % log
            tests.append({"name": "lab %d: %s" % (n, c["name"]), "score": 0 if why else c["points"],
                          "max_score": c["points"], "output": why or "ok"})
            if why:
                failed_once = True
                print("  FAIL %-70s 0/%d  %s" % (c["name"], c["points"], why))
            else:
                got += c["points"]
                print("  ok   %-70s %d/%d" % (c["name"], c["points"], c["points"]))
    if host_limited:
        print("note: a check above ended at %s" % HOST_TIME_NOTE)
    if only:
        print("score: %d/%d (only the checks matching '%s')" % (got, total, only))
    else:
        print("score: %d/%d" % (got, total))
    if json_out:
        os.makedirs(os.path.dirname(os.path.abspath(json_out)), exist_ok=True)
        with open(json_out, "w") as fh:
            json.dump({"score": got, "output": "slablab lab %s: %d/%d%s" % (
                ",".join(map(str, labs)), got, total,
                "; note: " + HOST_TIME_NOTE if host_limited else ""),
                "tests": tests}, fh, indent=1)
    return 0 if got == total else 1


# ---- Gradescope's autograder format ----

AUTOGRADER_SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: the Debian
# packages slablab's build and QEMU boots need (tools/deps.sh names them).
set -euo pipefail
cd "${AUTOGRADER_ROOT:-/autograder}/source"
tools/deps.sh run
make -s build/slablab.elf
"""

AUTOGRADER_RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grades lab %(lab)d of the submission (the student's
# tree, uploaded or from GitHub, in submission/) with the course tree in source/, and writes
# results/results.json, a test per check with its points and the grader's message.
# AUTOGRADER_ROOT: where Gradescope's /autograder is (a test runs this in a folder of its own).
set -uo pipefail
ag=${AUTOGRADER_ROOT:-/autograder}
tree=$ag/submission
if [ ! -f "$tree/Makefile" ]; then # an upload with the tree one folder down
    mk=$(find "$tree" -mindepth 2 -maxdepth 2 -name Makefile | head -n 1)
    [ -z "$mk" ] || tree=$(dirname "$mk")
fi
mkdir -p "$ag/results"
python3 "$ag/source/tools/lab.py" grade --lab %(lab)d --tree "$tree" \\
    --logdir "$ag/results/logs" --json "$ag/results/results.json"
rc=$?
[ -s "$ag/results/results.json" ] || printf '{"score": 0, "output": "the grader stopped (exit %%d) before writing its results"}\\n' "$rc" >"$ag/results/results.json"
exit 0
"""


def cmd_autograder(n, out):
    """OUT: a zip in Gradescope's autograder format: setup.sh and run_autograder at the top,
    this tree (git's files, no build/) in source/."""
    import zipfile
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("setup.sh", AUTOGRADER_SETUP),
                           ("run_autograder", AUTOGRADER_RUN % {"lab": n})):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            z.writestr(info, text)
        for f in tree_files(ROOT):
            if f.startswith("build/"):
                continue
            z.write(os.path.join(ROOT, f), "source/" + f)
    print("autograder: lab %d (%s) in %s: upload it as the assignment's autograder "
          "(docs/labs/README.md)" % (n, LABS[n]["title"], out))
    return 0


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
        json_out = opt("--json")
        first_fail = "--first-fail" in args
        if first_fail:
            args.remove("--first-fail")
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
        return cmd_grade(labs, tree, logdir, from_logs, only, first_fail, json_out)
    if cmd == "autograder":
        if len(args) != 2 or not args[0].isdigit() or int(args[0]) not in LABS:
            print("usage: lab.py autograder LAB OUT.zip (LAB one of %s)"
                  % " ".join(map(str, sorted(LABS))), file=sys.stderr)
            return 2
        return cmd_autograder(int(args[0]), args[1])
    print("lab.py: unknown command %s (handout, markers, labs, grade, autograder)" % cmd,
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
