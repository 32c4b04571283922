#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Parses the KTAP v1 results (as Linux KUnit prints them) in a slablab serial log or host test
# output, prints the failures and a pass/fail/skip count; also pulls out the kernel's boot JSON.
"""Usage:
  ktap.py LOG [--label LABEL] [--json] [--kernel | --host]
                                         parse KTAP; exit 0 if nothing failed, else 1
  ktap.py LOG --boot-json                print the {"event":"boot",...} object; exit 1 if none
  ktap.py LOG --kcidb [--origin O] [--git-commit H] [--git-url URL] [--log-url URL] [-o FILE]
                                         the log as a KCIDB report (schema v5.3): a test per
                                         case, the boot's verdict, the benchmark figures
                                         (tools/kcidb.py: what goes where, and its checker)
LOG may be '-' for stdin. Exit 2 on bad usage or an unreadable log.

Counting: every innermost result (a case) is one test: pass, fail, or skip ('# SKIP').
A suite without parsed cases counts as one test itself. A log that ends before the plan
is complete or inside a suite gets one extra failure: 'log truncated after <last result>'.

A kernel's serial log (--kernel, or any log with a {"event":"boot"} line unless --host)
must also end well: a PANIC or EXCEPTION line after the results, no {"event":"exit"} line,
or an exit event whose result is not "pass" while no case failed is one more failure.
Host test output (--host) has no boot or exit events. Text from the log in FAIL lines has
control and other unprintable characters written as escapes (\\x1b, \\u202e).
"""

import argparse
import json
import os
import re
import sys

# Escape sequences firmware and GRUB write to the serial port (colours, cursor moves,
# clear screen, private modes such as ESC[=3h), then stray control characters and \r.
ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, ended by BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"  # two-byte escapes such as ESC c, ESC ( B
)
CTRL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

START_RE = re.compile(r"K?TAP version \d+")
VERSION_RE = re.compile(r"^K?TAP version \d+$")
PLAN_RE = re.compile(r"^1\.\.(\d+)\b")
RESULT_RE = re.compile(r"^(not ok|ok)(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*))?$")
DIRECTIVE_RE = re.compile(r"^(.*?)\s*(?<!\\)#\s*(SKIP|TODO|XFAIL)\b:?\s*(.*)$", re.I)
SUBTEST_RE = re.compile(r"^#\s*Subtest:\s*(.*)$")
CPU_RE = re.compile(r"\s*\(cpu (\d+)\)")
PANIC_RE = re.compile(r"PANIC|EXCEPTION")
BOOT_RE = re.compile(r'\{\s*"event"\s*:\s*"boot"')
EXIT_RE = re.compile(r'\{\s*"event"\s*:\s*"exit"')


def clean_lines(data, errors="replace"):
    """Decodes a raw serial log and returns its lines without escapes and control chars.
    errors: the decoder's handler for bytes that are not UTF-8; "surrogateescape" keeps
    each such byte (as U+DC80 + byte) so that printable() can show it as \\xNN."""
    text = data.decode("utf-8", errors=errors)
    text = ANSI_RE.sub("", text)
    text = CTRL_RE.sub("", text)  # also drops \r and stray ESC bytes
    return text.split("\n")


def printable(text):
    """text safe for a terminal: tabs and printable characters as they are; other characters
    (C1 controls, bidi and other format characters, undecodable bytes kept by
    surrogateescape, U+FFFD) as Python-style escapes."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\t" or (ch.isprintable() and o != 0xFFFD):
            out.append(ch)
        elif 0xDC80 <= o <= 0xDCFF:
            out.append("\\x%02x" % (o - 0xDC00))
        elif o < 0x100:
            out.append("\\x%02x" % o)
        elif o < 0x10000:
            out.append("\\u%04x" % o)
        else:
            out.append("\\U%08x" % o)
    return "".join(out)


class Block:
    """One KTAP (sub)test: the lines at one indent between its header and its result line."""

    def __init__(self, indent, parent):
        self.indent = indent
        self.parent = parent
        self.name = None  # from '# Subtest: NAME'
        self.title = None  # the name on the result line that closed it
        self.plan = None
        self.results = []
        self.pending = []  # (indent, text) lines since the last result in this block
        self.child = None  # a finished sub-block whose result line has not come yet

    def label(self):
        return self.title or self.name or "?"

    def path(self):
        names = []
        b = self
        while b.parent is not None:
            names.append(b.label())
            b = b.parent
        return list(reversed(names))


class Result:
    def __init__(self, ok, name, directive, reason, message, block, owner):
        self.ok = ok
        self.name = name
        self.directive = directive  # None, 'SKIP', 'TODO' or 'XFAIL'
        self.reason = reason
        self.message = message  # (indent, text) lines printed before the result line
        self.block = block  # the sub-block this result closes, if any
        self.owner = owner  # the block the result line belongs to


class Report:
    def __init__(self, label):
        self.label = label
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.truncated = False
        self.ktap_found = False
        self.failures = []
        self.skips = []  # (case, reason) of each skipped case

    def fail(self, name, message, details=(), cpu=None, kind="case"):
        self.failed += 1
        self.failures.append(
            {"kind": kind, "name": name, "cpu": cpu, "message": message, "details": list(details)}
        )

    def as_dict(self):
        return {
            "label": self.label,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "truncated": self.truncated,
            "ktap_found": self.ktap_found,
            "failures": self.failures,
        }


def indent_of(line):
    line = line.expandtabs(8).rstrip()
    text = line.lstrip(" ")
    return len(line) - len(text), text


def panic_summary(lines):
    """The first PANIC/EXCEPTION line and what follows it, else the last line of the log."""
    for i, line in enumerate(lines):
        if PANIC_RE.search(line):
            details = [s.rstrip() for s in lines[i + 1 : i + 16] if s.strip()]
            return line.strip(), details
    for line in reversed(lines):
        if line.strip():
            return "no PANIC or EXCEPTION line; the log ends with: " + line.strip(), []
    return "no PANIC or EXCEPTION line; the log is empty", []


class Parser:
    def __init__(self):
        self.root = Block(0, None)
        self.stack = [self.root]
        self.orphans = []  # sub-blocks that ended without a result line
        self.last = "KTAP header"
        self.restarted = False

    def close_top(self):
        """Pops the innermost block and leaves it waiting for its parent's result line."""
        blk = self.stack.pop()
        parent = self.stack[-1]
        if parent.child is not None:
            self.orphans.append(parent.child)
        parent.child = blk

    def feed(self, ind, text):
        kind = None
        m = None
        for kind, rx in (
            ("version", VERSION_RE),
            ("subtest", SUBTEST_RE),
            ("plan", PLAN_RE),
            ("result", RESULT_RE),
        ):
            m = rx.match(text)
            if m:
                break
        else:
            kind = None
        if kind is None:
            # Diagnostics and free text belong to the innermost block they are not left of.
            for blk in reversed(self.stack):
                if blk.indent <= ind:
                    blk.pending.append((ind, text))
                    break
            return
        if kind == "version" and ind <= self.root.indent:
            if self.root.plan is not None or self.root.results or len(self.stack) > 1:
                self.restarted = True  # a second top-level stream: the machine rebooted
            return
        while self.stack[-1].indent > ind:
            self.close_top()
        blk = self.stack[-1]
        if kind in ("version", "subtest") and blk is not self.root and blk.results:
            # A new subtest starts where the previous one never printed its result line.
            self.close_top()
            blk = self.stack[-1]
        if blk.indent < ind:
            blk = Block(ind, blk)
            self.stack.append(blk)
        if kind == "version":
            if blk is not self.root:
                self.last = "start of a subtest"
        elif kind == "subtest":
            blk.name = m.group(1).strip() or None
            self.last = "start of suite " + "/".join(blk.path())
        elif kind == "plan":
            if blk.plan is None:
                blk.plan = int(m.group(1))
                if blk is self.root:
                    self.last = "plan 1..%d" % blk.plan
        else:
            self.add_result(blk, m)

    def add_result(self, blk, m):
        ok = m.group(1) == "ok"
        desc = (m.group(3) or "").strip()
        directive = reason = None
        d = DIRECTIVE_RE.match(desc)
        if d:
            desc, directive, reason = d.group(1).strip(), d.group(2).upper(), d.group(3).strip()
        name = desc or "test %s" % (m.group(2) or len(blk.results) + 1)
        child = blk.child
        blk.child = None
        if child is not None:
            child.title = name
        r = Result(ok, name, directive, reason, blk.pending, child, blk)
        blk.pending = []
        blk.results.append(r)
        self.last = ".".join(blk.path() + [name])

    def finish(self):
        while len(self.stack) > 1:
            self.close_top()


def failure_message(r, lines):
    """Splits a failed case's diagnostics into (first line, cpu, detail lines)."""
    start = None
    own = re.compile(r"^#\s*" + re.escape(r.name) + r"\s*:")
    for i, (_, text) in enumerate(lines):
        if own.match(text) or "FAILED" in text:
            start = i
            break
    if start is not None:
        lines = lines[start:]
    if not lines:
        first = "not ok"
        if r.directive:
            first += " # %s %s" % (r.directive, r.reason)
        return first, None, []
    base = min((ind for ind, _ in lines[1:]), default=0)
    first = lines[0][1]
    first = re.sub(r"^#\s*", "", first)
    first = re.sub(r"^" + re.escape(r.name) + r"\s*:\s*", "", first)
    cpu = None
    c = CPU_RE.search(first)
    if c:
        cpu = int(c.group(1))
        first = (first[: c.start()] + first[c.end() :]).strip()
    details = [" " * (ind - base) + text for ind, text in lines[1:]]
    return first, cpu, details


def count_block(blk, rep, path):
    for r in blk.results:
        rpath = path + [r.name]
        kids = r.block.results if r.block is not None else []
        if kids or (r.block is not None and r.block.child is not None):
            before = rep.failed
            count_block(r.block, rep, rpath)
            plan = r.block.plan
            if plan is not None and plan != len(kids):
                rep.fail(
                    ".".join(rpath),
                    "plan 1..%d but %d results" % (plan, len(kids)),
                    kind="suite",
                )
            if not r.ok and r.directive is None and rep.failed == before:
                first, cpu, details = failure_message(r, r.block.pending + r.message)
                if first == "not ok":
                    first = "suite reported not ok but none of its cases failed"
                rep.fail(".".join(rpath), first, details, cpu, kind="suite")
            continue
        status = case_status(r)
        if status == "SKIP":
            rep.skipped += 1
            reason = r.reason or "no reason given"
            rep.skips.append((".".join(rpath), reason if r.directive == "SKIP"
                              else "%s: %s" % (r.directive, reason)))
        elif status == "PASS":
            rep.passed += 1
        else:
            lines = (r.block.pending if r.block is not None else []) + r.message
            first, cpu, details = failure_message(r, lines)
            rep.fail(".".join(rpath), first, details, cpu)
    if blk.child is not None:
        # A sub-block still waiting for its result line (the log stopped there).
        count_block(blk.child, rep, path + [blk.child.label()])


def find_event(lines, rx, last):
    """The first (or, with last, the last) {"event":...} object rx finds in lines, or None."""
    dec = json.JSONDecoder()
    found = None
    for line in lines:
        m = rx.search(line)
        if not m:
            continue
        try:
            obj, _ = dec.raw_decode(line[m.start() :])
        except ValueError:
            continue
        if isinstance(obj, dict):
            found = obj
            if not last:
                break
    return found


def last_line(lines):
    for line in reversed(lines):
        if line.strip():
            return "it ends with: " + line.strip()
    return "it is empty"


def check_kernel_end(lines, rep):
    """A kernel's log must not show a panic and must end with a passing exit event. Skipped
    when the log is already a failure of its own (truncated: that failure names the panic
    or the last line)."""
    if rep.truncated:
        return
    for i, line in enumerate(lines):
        if PANIC_RE.search(line):
            details = [s.rstrip() for s in lines[i + 1 : i + 16] if s.strip()]
            rep.fail("kernel panic after its results", line.strip(), details, kind="log")
            return
    ev = find_event(lines, EXIT_RE, last=True)
    if ev is None:
        rep.fail("no exit event",
                 'no {"event":"exit",...} line: the kernel did not finish; ' + last_line(lines),
                 kind="log")
    elif ev.get("result") != "pass" and rep.failed == 0:
        rep.fail("exit event",
                 'the kernel exited with "result":"%s" (code %s) although no case failed'
                 % (ev.get("result"), ev.get("code")), kind="log")


def ktap_start(lines):
    """(index of the first KTAP header line, lines with that line cut to start at the
    header), or (None, lines) when the log has none."""
    for i, line in enumerate(lines):
        m = START_RE.search(line)
        if m:
            lines = lines[:]
            lines[i] = line[m.start() :]
            return i, lines
    return None, lines


def parse_tree(lines, start):
    """Parses the KTAP stream that starts at lines[start]; returns (parser, open_suite):
    the finished parser and whether the log stopped inside a suite."""
    p = Parser()
    for line in lines[start + 1 :]:
        ind, text = indent_of(line)
        if text:
            p.feed(ind, text)
            if p.restarted:
                break
    open_suite = len(p.stack) > 1 or p.root.child is not None
    p.finish()
    return p, open_suite


def case_status(r):
    """A case's result as PASS, FAIL or SKIP, counted as count_block counts it."""
    if r.directive == "SKIP" or (not r.ok and r.directive in ("TODO", "XFAIL")):
        return "SKIP"
    return "PASS" if r.ok else "FAIL"


def case_results(lines):
    """Every case of the log's KTAP in the order printed, as count_block counts them (a
    result without sub-results is a case): dicts with path (the names from the outermost
    suite in), status (PASS, FAIL, SKIP), reason (a SKIP's or TODO's text, else ''), and
    for a failure message, cpu and details as the FAIL lines give them."""
    start, lines = ktap_start(lines)
    if start is None:
        return []
    p, _ = parse_tree(lines, start)
    out = []

    def walk(blk, path):
        for r in blk.results:
            rpath = path + [r.name]
            if r.block is not None and (r.block.results or r.block.child is not None):
                walk(r.block, rpath)
                continue
            case = {"path": rpath, "status": case_status(r), "reason": r.reason or ""}
            if case["status"] == "FAIL":
                own = (r.block.pending if r.block is not None else []) + r.message
                case["message"], case["cpu"], case["details"] = failure_message(r, own)
            out.append(case)
        if blk.child is not None:
            walk(blk.child, path + [blk.child.label()])

    walk(p.root, [])
    for o in p.orphans:
        walk(o, o.path())
    return out


def parse_log(lines, label, kernel=False):
    """kernel: the log is a kernel's serial output (see check_kernel_end)."""
    rep = Report(label)
    start, lines = ktap_start(lines)
    if start is None:
        msg, details = panic_summary(lines)
        rep.fail("no KTAP output", msg, details, kind="log")
        return rep
    rep.ktap_found = True
    p, open_suite = parse_tree(lines, start)
    count_block(p.root, rep, [])
    for o in p.orphans:
        count_block(o, rep, o.path())
        rep.fail(".".join(o.path()), "subtest ended without a result line", kind="suite")
    plan = p.root.plan
    short = plan is not None and len(p.root.results) < plan
    no_results = plan is None and not p.root.results
    if open_suite or short or no_results:
        rep.truncated = True
        msg, details = panic_summary(lines[start:])
        if p.restarted and not PANIC_RE.search(msg):
            msg = "a second KTAP header followed: the machine restarted"
        rep.fail("log truncated after " + p.last, msg, details, kind="log")
    elif plan is not None and len(p.root.results) > plan:
        rep.fail("plan", "plan 1..%d but %d results" % (plan, len(p.root.results)), kind="log")
    if kernel:
        check_kernel_end(lines[start:], rep)
    return rep


def print_human(rep, out):
    for f in rep.failures:
        if f["kind"] == "log":
            head = "FAIL %s: %s: %s" % (rep.label, f["name"], f["message"])
        else:
            cpu = " (cpu %d)" % f["cpu"] if f["cpu"] is not None else ""
            head = "FAIL %s %s%s: %s" % (rep.label, f["name"], cpu, f["message"])
        out.write(printable(head) + "\n")
        for d in f["details"]:
            out.write("    " + printable(d) + "\n")
    out.write("ktap: %d passed, %d failed, %d skipped\n" % (rep.passed, rep.failed, rep.skipped))


def is_kernel_log(lines):
    return any(BOOT_RE.search(line) for line in lines)


def main(argv):
    ap = argparse.ArgumentParser(
        prog="ktap.py",
        description="Parse KTAP results in a serial log.",
        epilog=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("log", help="log file, or - for stdin")
    ap.add_argument("--label", help="name printed in FAIL lines (default: the log's file name)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--boot-json", action="store_true", help='print the {"event":"boot"} line')
    ap.add_argument("--kcidb", action="store_true",
                    help="print the log as KCIDB JSON (tools/kcidb.py from-log)")
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--kernel", action="store_true",
                      help="a kernel's serial log: it must end with a passing exit event")
    kind.add_argument("--host", action="store_true",
                      help="host test output: no boot or exit events expected")
    if "--kcidb" in argv:
        import kcidb  # tools/kcidb.py

        kap = argparse.ArgumentParser(prog="ktap.py LOG --kcidb")
        kap.add_argument("log")
        kap.add_argument("--kcidb", action="store_true")
        kcidb.add_log_options(kap)
        return kcidb.write_from_log(kap.parse_args(argv))
    args = ap.parse_args(argv)

    try:
        if args.log == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.log, "rb") as f:
                data = f.read()
    except OSError as e:
        print("ktap: %s" % e, file=sys.stderr)
        return 2
    lines = clean_lines(data, errors="surrogateescape")

    if args.boot_json:
        obj = find_event(lines, BOOT_RE, last=False)
        if obj is None:
            print('ktap: no {"event":"boot",...} line in %s' % args.log, file=sys.stderr)
            return 1
        print(json.dumps(obj, separators=(",", ":")))
        return 0

    label = args.label
    if label is None:
        label = "stdin" if args.log == "-" else os.path.splitext(os.path.basename(args.log))[0]
    kernel = args.kernel or (not args.host and is_kernel_log(lines))
    rep = parse_log(lines, label, kernel)
    if args.json:
        print(json.dumps(rep.as_dict()))
    else:
        print_human(rep, sys.stdout)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(1)
