#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a lava-run log of a slablab job (tools/lava/mkjob.py) against the serial output
inside it: LAVA's results must be the KTAP cases tools/ktap.py reads from that output, case
by case in order (suite, name, pass/fail/skip), its slablab/exit result the kernel's exit
line (pass; fail for "fail" and "panic"), and the job complete (lava/job pass).

Usage: check.py LAVA_LOG [--serial LOG] [--verdict pass|fail] [--fails suite.case,...]
                [--skips N]
  --serial    the serial port's output as the machine wrote it (QEMU's chardev logfile);
              without it, the device's output as LAVA logged it (its lines, with LAVA's
              escaping of '"' undone; LAVA drops ESC, \r and blank lines, none of which
              KTAP needs)
  --verdict   the kernel's verdict the job must record
  --fails     exactly these cases must fail (default: any)
  --skips     at least N cases must be skipped
Prints what differs, then one line "lava: N cases (P pass, F fail, S skip), verdict V,
job complete"; exit 0 when everything matched, 1 otherwise, 2 on bad usage.

A lava-run log has one record a line, a YAML flow mapping: lvl "target" records are the
device's output, a line each; lvl "results" records the results.
"""

import argparse
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import ktap  # noqa: E402

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_log(path):
    """(the device's output as text lines, LAVA's result records) of a lava-run log."""
    target, results = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("{"):
                continue
            try:
                rec = yaml.load(line, Loader=Loader)
            except yaml.YAMLError as e:
                raise SystemExit("check: %s:%d: not a lava-run record (%s)" % (path, n, e))
            if not isinstance(rec, dict):
                continue
            if rec.get("lvl") == "target" and isinstance(rec.get("msg"), str):
                # lava_dispatcher/shell.py ShellLogger writes each " of the output as \"
                target.append(rec["msg"].replace('\\"', '"'))
            elif rec.get("lvl") == "results" and isinstance(rec.get("msg"), dict):
                results.append(rec["msg"])
    return target, results


def lava_case(name):
    """What LAVA's monitor makes of a case name (lava_dispatcher/actions/test/monitor.py)."""
    return re.sub(r"\W+", "_", name.strip().lower())


def main():
    ap = argparse.ArgumentParser(prog="check.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--serial")
    ap.add_argument("--verdict", choices=["pass", "fail"])
    ap.add_argument("--fails")
    ap.add_argument("--skips", type=int, default=0)
    args = ap.parse_args()

    target, results = read_log(args.log)
    if args.serial:
        try:
            with open(args.serial, "rb") as f:
                lines = ktap.clean_lines(f.read())
        except OSError as e:
            print("check: no serial log: %s" % e)
            lines = []
    else:
        lines = ktap.clean_lines("\n".join(target).encode("utf-8", "surrogateescape"))
    want = [("FAIL" if c["status"] == "FAIL" else c["status"], c["path"])
            for c in ktap.case_results(lines)]
    exit_ev = ktap.find_event(lines, ktap.EXIT_RE, last=True)
    problems = []

    got, verdicts, job = [], [], None
    for r in results:
        d = r.get("definition")
        if d == "lava":
            if r.get("case") == "job":
                job = r
            continue
        if d == "slablab":
            verdicts.append(r)
            continue
        got.append(r)

    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w and len(w[1]) != 2:
            problems.append("KTAP case %s is not a suite's case: no LAVA monitor reads it"
                            % ".".join(w[1]))
            continue
        if w is None:
            problems.append("LAVA has %s/%s %s, which the serial output's KTAP has not"
                            % (g.get("definition"), g.get("case"), g.get("result")))
            continue
        suite, name = w[1]
        status = w[0].lower()
        if g is None:
            problems.append("KTAP case %s.%s %s is not in LAVA's results" % (suite, name, status))
            continue
        gname = (g.get("extra") or {}).get("test_case_id")
        if (g.get("definition"), g.get("case"), gname, g.get("result")) != \
                (suite, lava_case(name), name, status):
            problems.append("case %d: KTAP has %s.%s %s, LAVA %s/%s (%s) %s"
                            % (i + 1, suite, name, status, g.get("definition"),
                               g.get("case"), gname, g.get("result")))

    kernel = None
    if exit_ev is not None:
        kernel = "pass" if exit_ev.get("result") == "pass" else "fail"
    lava_v = [v.get("result") for v in verdicts if v.get("case") == "exit"]
    if len(lava_v) != 1:
        problems.append("LAVA has %d slablab/exit results, want 1" % len(lava_v))
    elif kernel is None:
        problems.append("the serial output has no exit line, yet LAVA recorded slablab/exit %s"
                        % lava_v[0])
    elif lava_v[0] != kernel:
        problems.append("slablab/exit is %s in LAVA, the kernel's exit line says %s (%s)"
                        % (lava_v[0], kernel, exit_ev.get("result")))
    if job is None:
        problems.append("no lava/job result: lava-run did not finish")
    elif job.get("result") != "pass":
        problems.append("the job is incomplete: %s (%s)" % (job.get("error_msg", "?"),
                                                            job.get("error_type", "?")))

    n = {s: sum(1 for w in want if w[0] == s) for s in ("PASS", "FAIL", "SKIP")}
    if args.verdict and kernel != args.verdict:
        problems.append("the kernel's verdict is %s, want %s" % (kernel, args.verdict))
    if args.fails is not None:
        failed = sorted(".".join(w[1]) for w in want if w[0] == "FAIL")
        wanted = sorted(x for x in args.fails.split(",") if x)
        if failed != wanted:
            problems.append("failed cases: %s, want %s" % (",".join(failed) or "none",
                                                           ",".join(wanted) or "none"))
    if n["SKIP"] < args.skips:
        problems.append("%d skipped cases, want at least %d" % (n["SKIP"], args.skips))
    for p in problems:
        print("check: " + p)
    print("lava: %d cases (%d pass, %d fail, %d skip), verdict %s, job %s"
          % (len(want), n["PASS"], n["FAIL"], n["SKIP"], lava_v[0] if len(lava_v) == 1 else "none",
             "complete" if job is not None and job.get("result") == "pass" else "incomplete"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
