#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""KCIDB JSON (KernelCI's common report format, schema v5.3) from a slablab serial log, and a
checker for such files.

Usage:
  kcidb.py from-log LOG [--origin O] [--run-id ID] [--git-commit HASH] [--git-url URL]
                        [--tree NAME] [--log-url URL] [--start-time TIME] [-o FILE]
  kcidb.py check FILE...
tools/ktap.py LOG --kcidb [the same options] is from-log.

from-log writes one report: a checkout (the slablab tree), a build (the kernel: x86_64, its
command line from GRUB's "Booting" line) and tests under the build:
  - one per KTAP case, its path the case's dotted KTAP path (suite.case), its status PASS,
    FAIL or SKIP as tools/ktap.py counts it (a failure's message and details, a skip's
    reason in log_excerpt or comment); a suite that failed without a failed case, too;
  - "boot" (a kernel's log: one with slablab's first line, its boot or exit line, a panic):
    PASS when the kernel booted and finished its run (its exit line, no panic, its KTAP
    complete), else FAIL with what went wrong (a panic's first lines, the log's end); a
    kernel that refused its command line or reported failure without a failed case fails
    it too;
  - one per benchmark figure (bench/bench.c's JSON lines, as tools/benchreport.py reads
    them): path bench.BENCH.KEY-VALUE....FIGURE.UNIT, status DONE, the figure as the test's
    number (value, unit), the whole JSON object under misc.
Every test's environment is the machine the log names: the kernel's "N of M CPUs online"
line, the firmware (comment), and the boot JSON line (misc). Names that KCIDB's path
alphabet lacks ([a-zA-Z0-9_-] between dots) are written with '_', the original under misc.
IDs are ORIGIN:RUN, RUN:PATH for tests; RUN defaults to the first 16 hex digits of the log's
SHA-256, so the same log gives the same IDs.

check validates files against the parts of the v5.3 schema these reports use: the report
object, version, checkouts, builds and tests, with every property the schema defines for
them (type, pattern, enum, range, length, format date-time, uri and email, required
properties, no unknown ones), plus two things a database needs that the schema cannot say:
ids unique per object type, and every test's build_id and build's checkout_id naming an
object of the same file. issues and incidents are refused as unchecked. The schema is
kcidb_io/schema/v05_03.py of github.com/kernelci/kcidb-io, as of commit 4023b07
("schema: v5.3: Add input_files field to tests", 2025-03-28; unchanged at 8971c02,
2026-02-01). Prints one line per problem (FILE: PATH: what) and "kcidb: FILE: N checkouts,
N builds, N tests, valid"; exit 0 if every file is valid, 1 otherwise, 2 on bad usage.
"""

import argparse
import hashlib
import json
import math
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

SCHEMA_MAJOR, SCHEMA_MINOR = 5, 3

# ---------------------------------------------------------------------------------------
# The schema, as far as slablab's reports go: each rule is a dict of JSON Schema keywords
# (type, properties, required, additional, pattern, enum, const, minimum, maximum,
# maxLength, items, format, ref), transcribed from v05_03.py's "$defs" and "properties".

ID = {"type": "string", "pattern": r"^[a-z0-9_]+:[^\0]*$"}
ORIGIN = {"type": "string", "pattern": r"^[a-z0-9_]+$"}
TEXT = {"type": "string", "pattern": r"^[^\0]*$"}
EXCERPT = {"type": "string", "maxLength": 16384, "pattern": r"^[^\0]*$"}
TIME = {"type": "string", "format": "date-time"}
URI = {"type": "string", "format": "uri"}
MISC = {"type": "object"}
STATUS = {"type": "string", "enum": ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]}
PATH = {"type": "string", "pattern": r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$"}
RESOURCE = {"type": "object", "additional": False, "required": ["name", "url"],
            "properties": {"name": {"type": "string", "pattern": r"^[^/\0]+$"}, "url": URI}}
RESOURCES = {"type": "array", "items": RESOURCE}

VERSION = {"type": "object", "additional": False, "required": ["major"], "properties": {
    "major": {"type": "integer", "const": SCHEMA_MAJOR},
    "minor": {"type": "integer", "minimum": 0, "maximum": SCHEMA_MINOR},
}}

CHECKOUT = {"type": "object", "additional": False, "required": ["id", "origin"], "properties": {
    "_timestamp": TIME, "id": ID, "origin": ORIGIN, "tree_name": TEXT,
    "git_repository_url": {"type": "string", "format": "uri", "pattern": r"^https://[^\0]*$"},
    "git_commit_hash": {"type": "string", "pattern": r"^[0-9a-f]{40}$"},
    "git_commit_name": TEXT, "git_commit_tags": {"type": "array", "items": TEXT},
    "git_commit_message": TEXT, "git_repository_branch": TEXT,
    "git_repository_branch_tip": {"type": "boolean"}, "patchset_files": RESOURCES,
    "patchset_hash": {"type": "string", "pattern": r"^$|^[0-9a-f]{64}$"},
    "message_id": {"type": "string", "format": "email"}, "comment": TEXT, "start_time": TIME,
    "origin_builds_finish_time": TIME, "origin_tests_finish_time": TIME, "log_url": URI,
    "log_excerpt": EXCERPT, "valid": {"type": "boolean"}, "misc": MISC,
}}

BUILD = {"type": "object", "additional": False, "required": ["checkout_id", "id", "origin"],
         "properties": {
    "_timestamp": TIME, "checkout_id": ID, "id": ID, "origin": ORIGIN, "comment": TEXT,
    "start_time": TIME, "duration": {"type": "number"},
    "architecture": {"type": "string", "pattern": r"^[a-z0-9_]*$"}, "command": TEXT,
    "compiler": TEXT, "input_files": RESOURCES, "output_files": RESOURCES,
    "config_name": TEXT, "config_url": URI, "log_url": URI, "log_excerpt": EXCERPT,
    "status": STATUS, "misc": MISC,
}}

TEST = {"type": "object", "additional": False, "required": ["build_id", "id", "origin"],
        "properties": {
    "_timestamp": TIME, "build_id": ID, "id": ID, "origin": ORIGIN,
    "environment": {"type": "object", "additional": False, "properties": {
        "compatible": {"type": "array",
                       "items": {"type": "string", "pattern": r"^[^ \0]+(,[^ \0]+)*$"}},
        "comment": TEXT, "misc": MISC}},
    "path": PATH, "comment": TEXT, "log_url": URI, "log_excerpt": EXCERPT, "status": STATUS,
    "number": {"type": "object", "additional": False, "required": ["value"], "properties": {
        "value": {"type": "number"}, "unit": TEXT,
        "prefix": {"type": "string", "enum": ["metric", "binary"]}}},
    "start_time": TIME, "duration": {"type": "number"}, "input_files": RESOURCES,
    "output_files": RESOURCES, "misc": MISC,
}}

REPORT = {"type": "object", "additional": False, "required": ["version"], "properties": {
    "version": VERSION,
    "checkouts": {"type": "array", "items": CHECKOUT},
    "builds": {"type": "array", "items": BUILD},
    "tests": {"type": "array", "items": TEST},
    "issues": {"unchecked": "issues"},
    "incidents": {"unchecked": "incidents"},
}}

# RFC 3339 date-time (JSON Schema's "date-time" format).
DATE_TIME_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]"
                          r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$")
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+$")
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    and math.isfinite(v),
}


def format_ok(fmt, v):
    if fmt == "date-time":
        return bool(DATE_TIME_RE.match(v))
    if fmt == "uri":
        u = urllib.parse.urlsplit(v)
        return bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*$", u.scheme)) and " " not in v
    if fmt == "email":
        return bool(EMAIL_RE.match(v))
    return True


def validate(rule, v, where, problems):
    """Appends (where, what) for every way v breaks rule."""
    if "unchecked" in rule:
        problems.append((where, "this checker does not check %s (slablab writes none)"
                         % rule["unchecked"]))
        return
    t = rule.get("type")
    if t and not TYPES[t](v):
        problems.append((where, "is %s, want %s" % (json.dumps(v)[:40], t)))
        return
    if "const" in rule and v != rule["const"]:
        problems.append((where, "is %s, want %s" % (json.dumps(v), json.dumps(rule["const"]))))
    if "enum" in rule and v not in rule["enum"]:
        problems.append((where, "is %s, not one of %s" % (json.dumps(v), ", ".join(rule["enum"]))))
    if "minimum" in rule and v < rule["minimum"]:
        problems.append((where, "is %s, below %s" % (v, rule["minimum"])))
    if "maximum" in rule and v > rule["maximum"]:
        problems.append((where, "is %s, above %s" % (v, rule["maximum"])))
    if t == "string":
        if "maxLength" in rule and len(v) > rule["maxLength"]:
            problems.append((where, "is %d characters long, more than %d"
                             % (len(v), rule["maxLength"])))
        if "pattern" in rule and not re.search(rule["pattern"], v):
            problems.append((where, "%s does not match %s" % (json.dumps(v)[:60], rule["pattern"])))
        if "format" in rule and not format_ok(rule["format"], v):
            problems.append((where, "%s is not a %s" % (json.dumps(v)[:60], rule["format"])))
    if t == "array" and "items" in rule:
        for i, item in enumerate(v):
            validate(rule["items"], item, "%s[%d]" % (where, i), problems)
    if t == "object":
        props = rule.get("properties", {})
        for k in rule.get("required", []):
            if k not in v:
                problems.append((where, "has no %s (required)" % k))
        for k, item in v.items():
            if k in props:
                validate(props[k], item, "%s.%s" % (where, k), problems)
            elif rule.get("additional") is False:
                problems.append((where, "has %s, which the schema does not define" % k))


def check_report(obj):
    """Every problem of a parsed report, as (where, what)."""
    problems = []
    validate(REPORT, obj, "report", problems)
    if problems or not isinstance(obj, dict):
        return problems
    ids = {}
    for kind in ("checkouts", "builds", "tests"):
        seen = ids[kind] = set()
        for i, o in enumerate(obj.get(kind, [])):
            if o["id"] in seen:
                problems.append(("%s[%d].id" % (kind, i), "%s is used twice" % o["id"]))
            seen.add(o["id"])
    for kind, key, target in (("builds", "checkout_id", "checkouts"), ("tests", "build_id", "builds")):
        for i, o in enumerate(obj.get(kind, [])):
            if o[key] not in ids[target]:
                problems.append(("%s[%d].%s" % (kind, i, key),
                                 "%s names no object of %s in this file" % (o[key], target)))
    return problems


def check_files(paths):
    bad = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
        except (OSError, ValueError) as e:
            print("kcidb: %s: %s" % (path, e))
            bad += 1
            continue
        problems = check_report(obj)
        for where, what in problems[:50]:
            print("kcidb: %s: %s %s" % (path, where, what))
        if len(problems) > 50:
            print("kcidb: %s: ... %d more problems" % (path, len(problems) - 50))
        if problems:
            bad += 1
            print("kcidb: %s: invalid (%d problems)" % (path, len(problems)))
        else:
            print("kcidb: %s: %d checkouts, %d builds, %d tests, valid"
                  % (path, len(obj.get("checkouts", [])), len(obj.get("builds", [])),
                     len(obj.get("tests", []))))
    return 1 if bad else 0


# ---------------------------------------------------------------------------------------
# from-log

MACHINE_RE = re.compile(r"^slablab: (\d+ of \d+ CPUs online .*)$")
GRUB_RE = re.compile(r"Booting `[^ ']*( [^']*)?'")
# bench/bench.c's figure lines: the keys that are the figure, not its parameters, and those
# that describe the run rather than identify the figure (tools/benchreport.py's FIXED, NOISE).
FIG_FIXED = {"bench", "figure", "value", "unit", "p10", "p90", "min", "max", "accel",
             "emulated", "cpus", "reps", "nivcsw"}


def segment(name):
    s = re.sub(r"[^a-zA-Z0-9_-]", "_", str(name))
    return s or "_"


def kcidb_path(names):
    return ".".join(segment(n) for n in names)


def excerpt(lines):
    text = "\n".join(lines)
    return text[:16384]


def boot_verdict(lines, cases):
    """(status, what went wrong) of the run as a whole; see the module's doc."""
    boot = ktap.find_event(lines, ktap.BOOT_RE, last=False)
    exit_ev = ktap.find_event(lines, ktap.EXIT_RE, last=True)
    if boot is None:
        if exit_ev is not None and not any(ktap.PANIC_RE.search(x) for x in lines):
            tail = [ln.strip() for ln in lines if ln.strip()][-8:]
            return "FAIL", ['the kernel stopped before its boot line ("result":"%s"); the log '
                            'ends:' % exit_ev.get("result")] + ["    " + t for t in tail]
        msg, details = ktap.panic_summary(lines)
        return "FAIL", ["the kernel printed no boot line: " + msg] + details
    if any(ktap.PANIC_RE.search(x) for x in lines):
        msg, details = ktap.panic_summary(lines)
        return "FAIL", [msg] + details
    if exit_ev is None:
        return "FAIL", ["no exit line: the kernel did not finish; " + ktap.last_line(lines)]
    why = []
    for f in ktap.parse_log(lines, "boot", kernel=True).failures:
        if f["kind"] == "log" and f["name"] != "no KTAP output":
            why += ["%s: %s" % (f["name"], f["message"])] + ["    " + d for d in f["details"]]
    if not why and exit_ev.get("result") != "pass" and not any(c["status"] == "FAIL"
                                                                for c in cases):
        tail = [ln.strip() for ln in lines if ln.strip()][-8:]
        why = ['the kernel exited with "result":"%s" and no case failed; the log ends:'
               % exit_ev.get("result")] + ["    " + t for t in tail]
    return ("FAIL", why) if why else ("PASS", [])


def from_log(path, origin="slablab", run_id=None, git_commit=None, git_url=None,
             tree="slablab", log_url=None, start_time=None):
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    lines = ktap.clean_lines(data)
    run = run_id or hashlib.sha256(data).hexdigest()[:16]
    base = "%s:%s" % (origin, run)

    machine = None
    cmdline = None
    for line in lines:
        m = MACHINE_RE.match(line.strip())
        if m and machine is None:
            machine = m.group(1)
        g = GRUB_RE.search(line)
        if g:
            cmdline = (g.group(1) or "").strip()
    boot = ktap.find_event(lines, ktap.BOOT_RE, last=False) or {}
    env = {}
    comment = machine or "no machine line in the log"
    if boot.get("firmware"):
        comment += ", firmware " + str(boot["firmware"])
    env["comment"] = comment
    env["misc"] = {"boot": boot} if boot else {}

    checkout = {"id": base, "origin": origin, "tree_name": tree}
    if git_commit:
        checkout["git_commit_hash"] = git_commit
    if git_url:
        checkout["git_repository_url"] = git_url
    build = {"id": base, "checkout_id": base, "origin": origin, "architecture": "x86_64",
             "status": "PASS"}
    if cmdline is not None:
        build["comment"] = "kernel command line: " + (cmdline or "(empty)")
        build["misc"] = {"cmdline": cmdline}
    tests = []
    used = set()

    def add(names, status, **fields):
        p = kcidb_path(names)
        tid = "%s:%s" % (base, p)
        n = 2
        while tid in used:
            tid = "%s:%s#%d" % (base, p, n)
            n += 1
        used.add(tid)
        t = {"id": tid, "build_id": base, "origin": origin, "path": p, "status": status,
             "environment": env}
        if log_url:
            t["log_url"] = log_url
        if start_time:
            t["start_time"] = start_time
        misc = fields.pop("misc", {})
        if p != ".".join(str(n) for n in names):
            misc["name"] = list(names)
        if misc:
            t["misc"] = misc
        t.update(fields)
        tests.append(t)

    cases = ktap.case_results(lines)
    for c in cases:
        fields = {}
        if c["status"] == "FAIL":
            cpu = " (cpu %d)" % c["cpu"] if c.get("cpu") is not None else ""
            fields["log_excerpt"] = excerpt([c["message"] + cpu] + c["details"])
            if c.get("cpu") is not None:
                fields["misc"] = {"cpu": c["cpu"]}
        elif c["reason"]:
            fields["comment"] = c["reason"]
        add(c["path"], c["status"], **fields)
    rep = ktap.parse_log(lines, "suite", kernel=False)
    case_paths = {".".join(c["path"]) for c in cases}
    for f in rep.failures:
        if f["kind"] == "suite" and f["name"] not in case_paths:
            add(f["name"].split("."), "FAIL", log_excerpt=excerpt([f["message"]] + f["details"]))
    exit_ev = ktap.find_event(lines, ktap.EXIT_RE, last=True)
    if boot or exit_ev or any(x.strip() == "slablab: booting" or ktap.PANIC_RE.search(x)
                              for x in lines):
        status, why = boot_verdict(lines, cases)
        fields = {"misc": {"exit": exit_ev}} if exit_ev else {}
        if why:
            fields["log_excerpt"] = excerpt(why)
        add(["boot"], status, **fields)

    import benchreport  # noqa: E402  (tools/benchreport.py: figure lines, as it reads them)
    figs = []
    dec = json.JSONDecoder()
    for i, line in enumerate(lines, 1):
        m = benchreport.BENCH_RE.search(line)
        if not m:
            continue
        try:
            obj, _ = dec.raw_decode(line, m.start())
        except ValueError:
            continue
        if not isinstance(obj, dict) or benchreport.line_fault(obj):
            continue
        if obj.get("bench") == "meta":
            env["misc"]["bench_meta"] = obj
            if machine is None:
                env["comment"] = "%s, %s CPUs, accel %s" % (obj.get("cpu_model"),
                                                            obj.get("cpus"), obj.get("accel"))
            continue
        figs.append(benchreport.Fig(obj, i))
    for fig in figs:
        obj = fig.obj
        names = ["bench", fig.bench]
        names += ["%s-%s" % (k, benchreport.text(v)) for k, v in obj.items()
                  if k not in FIG_FIXED]
        names += [fig.figure, fig.unit]
        number = {"value": float(fig.value)}
        if fig.unit and fig.unit != "none":
            number["unit"] = fig.unit
        add(names, "DONE", number=number, misc={"figure": obj})

    return {"version": {"major": SCHEMA_MAJOR, "minor": SCHEMA_MINOR},
            "checkouts": [checkout], "builds": [build], "tests": tests}


def add_log_options(ap):
    ap.add_argument("--origin", default="slablab",
                    help="the submitting CI system's name in KCIDB (default slablab)")
    ap.add_argument("--run-id", help="ID part for this run (default: from the log's SHA-256)")
    ap.add_argument("--git-commit", help="the 40-hex commit the kernel was built from")
    ap.add_argument("--git-url", help="https URL of the repository")
    ap.add_argument("--tree", default="slablab", help="tree_name (default slablab)")
    ap.add_argument("--log-url", help="where the serial log can be downloaded")
    ap.add_argument("--start-time", help="when the test ran (RFC 3339)")
    ap.add_argument("-o", "--output", help="write here instead of stdout")


def write_from_log(args):
    try:
        rep = from_log(args.log, origin=args.origin, run_id=args.run_id,
                       git_commit=args.git_commit, git_url=args.git_url, tree=args.tree,
                       log_url=args.log_url, start_time=args.start_time)
    except OSError as e:
        print("kcidb: %s" % e, file=sys.stderr)
        return 2
    problems = check_report(rep)
    if problems:
        for where, what in problems:
            print("kcidb: the report would be invalid: %s %s" % (where, what), file=sys.stderr)
        return 1
    text = json.dumps(rep, indent=1) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="kcidb.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    fl = sub.add_parser("from-log", help="a KCIDB report from a serial log")
    fl.add_argument("log")
    add_log_options(fl)
    ck = sub.add_parser("check", help="check KCIDB files against schema v5.3")
    ck.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    if args.cmd == "check":
        return check_files(args.files)
    return write_from_log(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
