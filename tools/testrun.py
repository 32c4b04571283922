#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `make test` runs once build/test.iso and the host tests are built: the host tests,
then the boots that tests/boots.txt lists (a matrix of the in-kernel KTAP suites on
build/test.iso, and boots with command lines and checks of their own).

Usage: tools/testrun.py [--boots FILE] [--check | --list]
  --boots FILE  the boot list (default tests/boots.txt)
  --check       read the boot list, say what is wrong with it, boot nothing
  --list        print the boots the environment selects, in the boot list's syntax
tools/test.sh runs this with the Python make test uses.

Environment:
  TEST_QUICK=1       host tests and the matrix boots marked @quick (on tcg) only
  TEST_FILTER=REGEX  run only the tests whose label REGEX matches (anywhere, as re.search),
                     e.g. 'uefi|crash'
  TEST_HOST_JOBS=N   host tests run at once (default: the number of CPUs)
  TEST_ACCELS="tcg"  accelerators for the matrix (default: tcg, plus kvm when
                     tools/qemu-run.sh --accel-probe says kvm)
  TEST_DRY_RUN=1     boot nothing: print each selected boot's QEMU command (qemu-run.sh
                     --dry-run; the ISOs with their own command line are still built) and
                     each host test's path; logs in build/test/dry-run/
  TEST_NUMA=1        also the boots marked @numa (make test-numa)
  TEST_BIG=1         also the boots marked @big (make test-big)
  TEST_LABS=all      every lab's tests, not only lab 3's (make test-labs)
The run knobs of make run and qemu-run.sh (SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT MACHINE APIC
TOPOLOGY NODES QEMU_EXTRA LOG ISO ELF ALLOW_SLOW_KVM CMDLINE SCREEN SCREENDUMP NETBOOT NETBOOT_FILE, and mkiso.sh's
GFXPAYLOAD) are not inherited: each boot sets its own. Any found in the environment are named
in a note and dropped.

Needs from the Makefile: build/test.iso (its entry boots with test=all), executables
build/host/test_* printing KTAP, and `make iso-cmdline CMDLINE="..." OUT=file.iso`.
Logs go to build/test/. The last lines: the failures, the total time, the skipped cases by
reason, and "N passed, N failed[, N skipped]". Exit 0 when nothing failed, 1 on any failure,
2 on a bad boot list (before anything runs) or bad usage, 130 when interrupted.
"""

import concurrent.futures
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import ktap  # noqa: E402  (tools/ktap.py: the KTAP parser)

ME = "test.sh"  # the name make test's users know this runner by (tools/test.sh runs it)
BOOTS = "tests/boots.txt"
TEST_ISO = "build/test.iso"
QEMU_RUN = "tools/qemu-run.sh"
QEMU10 = ["tools/qemu10.sh"]

# Knobs of make run, qemu-run.sh and mkiso.sh that make test does not take from its caller.
RUN_KNOBS = ("SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT MACHINE APIC TOPOLOGY NODES QEMU_EXTRA LOG "
             "ISO ELF ALLOW_SLOW_KVM CMDLINE SCREEN SCREENDUMP NETBOOT NETBOOT_FILE GFXPAYLOAD").split()

# Boot timeouts in seconds. They only bound a hung kernel: a passing boot never waits for
# them, so they are set for a busy host. Measured on the 2-core development machine with two
# busy loops running beside other developers' QEMU boots (load average 9 to 16): test=all
# at 4 or 8 CPUs 49-78 s (BIOS and UEFI; over 60 s in a second run), 16 and 64 CPUs 52 and
# 82 s, 255 CPUs 234 s, 16 GiB of RAM 83 s, the FZPU/partial slub_debug boot 153 s, a bad
# option 17 s; quiet, they take a few seconds to 20 s. Every timeout is at least 3x that.
TMO_BOOT = 300
# The spin model check (test_ipi_model) took 68 s on the busy host: 600 s bounds a hang.
TMO_HOST = 600

# Every knob qemu-run.sh reads, with the value a boot gets unless it says otherwise.
BOOT_DEFAULTS = {
    "ISO": TEST_ISO, "SMP": "4", "MEM": "256M", "ACCEL": "auto", "ICOUNT": "0",
    "FIRMWARE": "bios", "MACHINE": "", "APIC": "auto", "TOPOLOGY": "", "NODES": "1",
    "QEMU_EXTRA": "", "LOG": "", "ELF": "build/slablab.elf", "ALLOW_SLOW_KVM": "0",
    "TIMEOUT": str(TMO_BOOT), "SCREEN": "0", "SCREENDUMP": "",
}
EXTRA_SMP = "2"  # a boot line's CPUs unless it gives SMP=


def _int_range(lo, hi):
    def check(v):
        if not re.fullmatch(r"[0-9]+", v) or not lo <= int(v) <= hi:
            return "a number %d..%d" % (lo, hi)
        return None
    return check


def _one_of(*values):
    def check(v):
        return None if v in values else "one of " + ", ".join(values)
    return check


def _match(rx, what):
    def check(v):
        return None if re.fullmatch(rx, v) else what
    return check


def _any(v):
    return None


def _nonempty(v):
    return None if v else "not empty"


# The knobs a boot line may set, each with what its value must be.
LINE_KNOBS = {
    "SMP": _int_range(1, 4096),
    "MEM": _match(r"[0-9]+[KMGT]?", "a size in QEMU's syntax (128M, 4G)"),
    "ACCEL": _one_of("auto", "tcg", "kvm"),
    "ICOUNT": _one_of("0", "1"),
    "FIRMWARE": _one_of("bios", "uefi"),
    "MACHINE": _any,
    "APIC": _one_of("auto", "x2apic", "xapic"),
    "TOPOLOGY": _any,
    "NODES": _int_range(1, 8),
    "QEMU_EXTRA": _any,
    "TIMEOUT": _int_range(1, 86400),
    "GFXPAYLOAD": _nonempty,
    "TRACE": _nonempty,
}
FLAGS = ("busy", "qemu10", "numa", "big")


class BootListError(Exception):
    def __init__(self, where, msg):
        super().__init__("%s: %s" % (where, msg))


class PrepError(Exception):
    pass


def env_flag(name, value="1"):
    return os.environ.get(name, "") == value


def base_name(label):
    """A file name for LABEL without characters make or xorriso could read specially."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "-", label).replace("--", "-")
    return base[:-1] if base.endswith("-") else base


def seconds(t0):
    """The time since t0 as make test prints it: whole seconds, a truncated tenth."""
    us = int((time.time() - t0) * 1000000)
    return "%d.%d" % (us // 1000000, us % 1000000 // 100000)


def last_line(text):
    return text.rstrip("\n").rsplit("\n", 1)[-1]


def tail(path, n):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").rstrip("\n").split("\n")
    except OSError:
        return []
    return lines[-n:]


def run_out(cmd, **kw):
    """Runs cmd (stdin closed) and returns (exit code, stdout and stderr together)."""
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace").rstrip("\n")


def run_group(cmd, **kw):
    """Runs cmd (stdin closed, stderr to stdout) in a process group of its own and returns
    its exit code. Should this runner be interrupted meanwhile, the whole group (qemu-run.sh,
    timeout, QEMU) gets SIGTERM, and SIGKILL 5 s later, so that no QEMU is left behind."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                         start_new_session=True, **kw)
    try:
        return p.wait()
    except BaseException:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
                p.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                break
        raise


# ---------------------------------------------------------------------------------------
# Checks: what a boot line lists after "--". Each takes the boot's context and returns None
# when it holds, else the reason it does not.

class Ctx:
    """One boot under check: its label, log, screendump and what was read from the log."""

    def __init__(self, runner, label, log, base, shot):
        self.runner = runner
        self.label = label
        self.log = log
        self.base = base
        self.shot = shot
        self.detail = []  # lines printed under the FAIL line (ktap.py's failures)
        self._boot = None
        self._kernel = None

    def boot_json(self):
        if self._boot is None:
            try:
                with open(self.log, "rb") as f:
                    lines = ktap.clean_lines(f.read(), errors="surrogateescape")
                self._boot = ktap.find_event(lines, ktap.BOOT_RE, last=False) or {}
            except OSError:
                self._boot = {}
        return self._boot

    def kernel_lines(self):
        """The lines the kernel printed: after GRUB's last "Booting `ENTRY'" line (the
        entry's title repeats the command line), without qemu-run's and QEMU's lines (they
        name the ISO and the settings)."""
        if self._kernel is None:
            try:
                with open(self.log, "rb") as f:
                    lines = f.read().split(b"\n")
            except OSError:
                lines = []
            start = 0
            for i, line in enumerate(lines):
                if b"Booting `" in line:
                    start = i + 1
            self._kernel = [ln for ln in lines[start:]
                            if not ln.startswith((b"qemu-run: ", b"qemu-system-x86_64: "))]
        return self._kernel


def py_tool(*args):
    return [sys.executable] + list(args)


def check_ktap(ctx, arg):
    rep, out = ctx.runner.ktap_report(ctx.log, ctx.label, kernel=True)
    if rep is None or rep.failed:
        lines = out.rstrip("\n").split("\n")
        ctx.detail = lines[:-1]
        return "KTAP: " + lines[-1]
    return None


def check_benchjson(ctx, arg):
    rc, out = run_out(py_tool("tools/benchreport.py", "--check", ctx.log))
    if rc != 0:
        out = out.replace("benchreport: %s: " % ctx.log, "")
        return "bench JSON: " + out.replace("\n", "; ")
    return None


def check_report(ctx, arg):
    rc, out = run_out(py_tool("tools/benchreport.py", ctx.log, "--no-plots", "-o",
                              "%s/report-%s" % (ctx.runner.logdir, ctx.base)))
    if rc != 0 or ", left out: " in out:
        return "benchreport.py: " + last_line(out)
    return None


def check_qr(ctx, arg):
    qr = "%s/%s.qr" % (ctx.runner.logdir, ctx.base)
    with open(qr, "wb") as f:
        try:
            rc = subprocess.run(["zbarimg", "-q", "--raw", ctx.shot], stdin=subprocess.DEVNULL,
                                stdout=f, stderr=subprocess.DEVNULL).returncode
        except OSError:
            rc = 127
    if rc != 0:
        return "zbarimg found no QR code in %s" % ctx.shot
    rc, out = run_out(py_tool("tools/benchreport.py", "--from-qr", qr, "--against", ctx.log))
    if rc != 0:
        return "QR code: " + last_line(out)
    return None


def check_screen(ctx, arg):
    rc, out = run_out(py_tool("tools/font.py", "compare", "build/gen/font.psf", ctx.shot, ctx.log))
    return "screen: " + out.replace("\n", "; ") if rc != 0 else None


def check_results(ctx, arg):
    rc, out = run_out(py_tool("tools/font.py", "results", "build/gen/font.psf", ctx.shot, ctx.log))
    return "results page: " + out.replace("\n", "; ") if rc != 0 else None


def json_text(v):
    return v if isinstance(v, str) else json.dumps(v)


def check_json(ctx, arg):
    key, want = arg
    bj = ctx.boot_json()
    have = json_text(bj[key]) if key in bj else None
    if have != want:
        return "%s is %s, want %s" % (key, have or "missing", want)
    return None


def check_re(ctx, rx):
    if not any(rx.search(line) for line in ctx.kernel_lines()):
        return "no line matching '%s' in the log" % rx.pattern.decode()
    return None


def check_no(ctx, text):
    needle = text.encode()
    if any(needle in line for line in ctx.kernel_lines()):
        return "a line with '%s' in the log" % text
    return None


def check_has(ctx, text):
    needle = text.encode()
    if not any(needle in line for line in ctx.kernel_lines()):
        return "no '%s' in the log" % text
    return None


# name: (function, takes a screendump). The words a check list may hold; any other word is
# text a line the kernel printed must contain (has:TEXT says so explicitly).
CHECKS = {
    "ktap": (check_ktap, False),
    "benchjson": (check_benchjson, False),
    "report": (check_report, False),
    "qr": (check_qr, True),
    "results": (check_results, True),
    "screen": (check_screen, True),
}


def parse_check(word):
    """A check word of a boot line as (function, argument, takes a screendump); raises
    ValueError with the reason for a malformed one."""
    if word in CHECKS:
        fn, shot = CHECKS[word]
        return fn, None, shot
    if word.startswith("json:"):
        m = re.fullmatch(r"json:([A-Za-z_][A-Za-z0-9_]*)=(.*)", word, re.S)
        if not m:
            raise ValueError("'%s': want json:KEY=VALUE" % word)
        return check_json, (m.group(1), m.group(2)), False
    if word.startswith("re:"):
        try:
            rx = re.compile(word[3:].encode())
        except re.error as e:
            raise ValueError("'%s': not a regular expression: %s" % (word, e))
        return check_re, rx, False
    for prefix, fn in (("no:", check_no), ("has:", check_has)):
        if word.startswith(prefix):
            if len(word) == len(prefix):
                raise ValueError("'%s': no text after it" % word)
            return fn, word[len(prefix):], False
    if not word:
        raise ValueError("an empty check")
    return check_has, word, False


# ---------------------------------------------------------------------------------------
# The boot list

class Boot:
    """One boot: a line of the boot list, or one a generator wrote."""

    def __init__(self, where, label, cmdline, want_rc, knobs, flags, preps, checks):
        self.where = where  # "FILE:LINE"
        self.label = label
        self.cmdline = cmdline
        self.want_rc = want_rc
        self.knobs = knobs  # {name: value} in the line's order
        self.flags = flags  # set of names without the @
        self.preps = preps  # [(name, [args])]
        self.checks = checks  # the words after --

    def line(self):
        """The boot in the boot list's syntax."""
        words = [self.label, self.cmdline, str(self.want_rc)]
        words += ["%s=%s" % kv for kv in self.knobs.items()]
        words += ["@" + f for f in sorted(self.flags)]
        words += ["@prep=" + ":".join([n] + a) for n, a in self.preps]
        if self.checks:
            words += ["--"] + self.checks
        return " ".join(shlex.quote(w) if w else '""' for w in words)


class Matrix:
    def __init__(self, where, firmware, smp, quick):
        self.where = where
        self.firmware = firmware
        self.smp = smp
        self.quick = quick


class Call:
    """generate NAME or run NAME."""

    def __init__(self, where, kind, name):
        self.where = where
        self.kind = kind
        self.name = name


LABEL_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\[.*\]")
VAR_RE = re.compile(r"\$(\$|\{([^}]*)\})")


def substitute(word, variables, where):
    def one(m):
        if m.group(1) == "$":
            return "$"
        name = m.group(2)
        r = re.fullmatch(r"(.)\*([0-9]+)", name)
        if r:
            return r.group(1) * int(r.group(2))
        if name not in variables:
            raise BootListError(where, "unknown variable ${%s} (set NAME VALUE defines one; "
                                "$$ is a $)" % name)
        return variables[name]
    return VAR_RE.sub(one, word)


def records(path):
    """The boot list's records: (first line number, text), a line that starts with white
    space joined to the one before, comments and blank lines left out."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    after_blank = True
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            after_blank = True
            continue
        if stripped.startswith("#"):
            continue
        if line[0] in " \t":
            if after_blank or not out:
                raise BootListError("%s:%d" % (path, n), "a continuation line (it starts with "
                                    "white space) with no line to continue")
            out[-1][1] += " " + stripped
            continue
        out.append([n, stripped])
        after_blank = False
    return out


def parse_boot_words(where, words, preps_known):
    if len(words) < 3:
        raise BootListError(where, "want LABEL CMDLINE EXIT [KNOB=VALUE...] [@FLAG...] "
                            "[-- CHECK...]; got %d words" % len(words))
    label, cmdline, rc = words[:3]
    if not LABEL_RE.fullmatch(label):
        raise BootListError(where, "label '%s': want NAME[...] (a name, then what sets this "
                            "boot apart in brackets)" % label)
    if not re.fullmatch(r"[0-9]{1,3}", rc) or int(rc) > 255:
        raise BootListError(where, "%s: exit code '%s': want qemu-run.sh's exit code, a "
                            "number 0..255" % (label, rc))
    knobs, flags, preps, checks = {}, set(), [], []
    rest = words[3:]
    for i, w in enumerate(rest):
        if w == "--":
            checks = rest[i + 1:]
            break
        if w.startswith("@prep="):
            parts = w[len("@prep="):].split(":")
            if parts[0] not in preps_known:
                raise BootListError(where, "%s: no preparation named '%s' (there are: %s)"
                                    % (label, parts[0], ", ".join(sorted(preps_known))))
            preps.append((parts[0], parts[1:]))
        elif w.startswith("@"):
            if w[1:] not in FLAGS:
                raise BootListError(where, "%s: unknown flag '%s' (there are: @%s, @prep=NAME)"
                                    % (label, w, ", @".join(FLAGS)))
            flags.add(w[1:])
        elif "=" in w:
            k, v = w.split("=", 1)
            if k not in LINE_KNOBS:
                raise BootListError(where, "%s: unknown knob '%s' (there are: %s)"
                                    % (label, k, " ".join(LINE_KNOBS)))
            if k in knobs:
                raise BootListError(where, "%s: %s given twice" % (label, k))
            bad = LINE_KNOBS[k](v)
            if bad:
                raise BootListError(where, "%s: %s=%s: want %s" % (label, k, v, bad))
            knobs[k] = v
        else:
            raise BootListError(where, "%s: '%s' is not KNOB=VALUE, @FLAG or --" % (label, w))
    if "GFXPAYLOAD" in knobs and not cmdline and "TRACE" not in knobs:
        raise BootListError(where, "%s: GFXPAYLOAD= sets the mode in an ISO of the boot's "
                            "own: give it a command line" % label)
    for c in checks:
        try:
            parse_check(c)
        except ValueError as e:
            raise BootListError(where, "%s: check %s" % (label, e))
    return Boot(where, label, cmdline, int(rc), knobs, flags, preps, checks)


def parse_boot_list(path, builtins):
    """The items of the boot list at path, in order; raises BootListError at the first bad
    line. builtins: the variables every line may use."""
    variables = dict(builtins)
    items = []
    labels = {}
    matrix = set()
    for n, text in records(path):
        where = "%s:%d" % (path, n)
        try:
            words = shlex.split(text)
        except ValueError as e:
            raise BootListError(where, "cannot split the line into words: %s" % e)
        words = [substitute(w, variables, where) for w in words]
        head = words[0]
        if head == "set":
            if len(words) != 3 or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", words[1]):
                raise BootListError(where, "want: set NAME VALUE (VALUE one word: quote it)")
            if words[1] in variables:
                raise BootListError(where, "${%s} is set already" % words[1])
            variables[words[1]] = words[2]
        elif head == "matrix":
            if (len(words) not in (3, 4) or words[1] not in ("bios", "uefi")
                    or _int_range(1, 4096)(words[2]) or words[3:] not in ([], ["@quick"])):
                raise BootListError(where, "want: matrix bios|uefi SMP [@quick]")
            key = (words[1], int(words[2]))
            if key in matrix:
                raise BootListError(where, "matrix %s %s is there already" % (words[1], words[2]))
            matrix.add(key)
            items.append(Matrix(where, words[1], int(words[2]), len(words) == 4))
        elif head in ("generate", "run"):
            table = GENERATORS if head == "generate" else PROCEDURES
            if len(words) != 2 or words[1] not in table:
                raise BootListError(where, "want: %s NAME, NAME one of: %s"
                                    % (head, ", ".join(sorted(table))))
            items.append(Call(where, head, words[1]))
        else:
            boot = parse_boot_words(where, words, PREPS)
            if boot.label in labels:
                raise BootListError(where, "label %s is used at %s already"
                                    % (boot.label, labels[boot.label]))
            labels[boot.label] = where
            items.append(boot)
    return items


def format_help(path):
    """The comment block at the top of the boot list: its format's documentation."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("#"):
                    break
                out.append(line[2:].rstrip("\n") if line.startswith("# ") else line[1:].rstrip("\n"))
    except OSError as e:
        out.append("(cannot read %s: %s)" % (path, e))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# Generators (generate NAME): boots written from what the build says.

def gen_schemes(r):
    """One boot per scheme of the registry, as build/host/test_slab --schemes lists it (the
    same mm/ as the kernel): test=slab,slab_ipi,nolock with it as the boot caches' scheme
    (the nolock suite's NMIs land in its kmalloc buckets' paths); slabinfo
    shows it on kmalloc-64 and, for a scheme with counters of its own, the first of them.
    Owner schemes boot on 4, 8 and 2 CPUs in turn (the one on 2 with ipi_wait_us=0), the
    others on 4."""
    rc, out = run_out(["build/host/test_slab", "--schemes"]) if os.path.exists(
        "build/host/test_slab") else (127, "build/host/test_slab is missing")
    if rc != 0 or not out:
        r.fail("scheme[...]", "build/host/test_slab --schemes could not list the schemes: %s"
               % (out or "no output"))
        return
    turn = 0
    for line in out.split("\n"):
        name, flags, counters = (line.split() + ["", "", ""])[:3]
        smp, opt = 4, ""
        if "owner" in flags.split(","):
            smp = (4, 8, 2)[turn % 3]
            if smp == 2:
                opt = " ipi_wait_us=0"
            turn += 1
        checks = ["ktap", "%-20s %s " % ("kmalloc-64", name)]
        if counters != "-":
            checks.append(counters.split(",")[0] + "=")
        yield Boot("generate schemes", "scheme[%s,smp%d]" % (name, smp),
                   "test=slab,slab_ipi,nolock scheme=%s%s slabinfo=1" % (name, opt), 0,
                   {"SMP": str(smp)}, set(), [], checks)


GENERATORS = {"schemes": gen_schemes}


# ---------------------------------------------------------------------------------------
# Preparations (@prep=NAME[:ARG...]): done once before the first boot that names them;
# each returns knobs for the boot (TREE: build the boot's ISO in that tree) or raises
# PrepError with the reason the boot cannot run.

def prep_replay_traces(r, args):
    """The traces the bench[replay,...] boots load, in ${logdir}/traces/: pairs (every free on
    another stream), skips (the cases a replay counts and skips), deadlock, paced (a
    kmalloc every ms, its kfree 0.5 ms later on another stream, the last event at 20 ms) and
    long (one event at 10 s)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "trace"))
    try:
        import slabtrace as st
        out = os.path.join(r.logdir, "traces")
        os.makedirs(out, exist_ok=True)
        st.synth("pairs", 4, 4000, 1).write(out + "/pairs.trace")
        w = st.TraceWriter("skips", 2)
        c = w.add_cache("conn", 200, 0, st.CACHE_FLAG_HWCACHE_ALIGN)
        w.event(0, st.EV_ALLOC, 10, 0, c)
        w.event(0, st.EV_KMALLOC, 20, 1, 0)
        w.event(0, st.EV_KMALLOC, 30, 2, (4096 << 10) + 1)
        w.event(0, st.EV_KMALLOC, 40, 3, 100000)
        w.event(0, st.EV_KMALLOC, 45, 5, 64)
        w.event(1, st.EV_FREE, 50, 0, c)
        w.event(1, st.EV_FREE, 60, 0, c)
        w.event(1, st.EV_KFREE, 70, 1)
        w.event(1, st.EV_KFREE, 80, 2)
        w.event(1, st.EV_KFREE, 90, 3)
        w.event(1, st.EV_KFREE, 95, 4)
        w.write(out + "/skips.trace")
        w = st.TraceWriter("deadlock", 2)
        w.event(0, st.EV_KFREE, 10, 0)
        w.event(0, st.EV_KMALLOC, 20, 1, 64)
        w.event(1, st.EV_KFREE, 10, 1)
        w.event(1, st.EV_KMALLOC, 20, 0, 64)
        w.write(out + "/deadlock.trace")
        # At replay_scale=500 the replay of the 20 ms takes at least 100 ms.
        w = st.TraceWriter("paced", 2)
        for i in range(20):
            w.event(0, st.EV_KMALLOC, i * 1000000, i, 64)
            w.event(1, st.EV_KFREE, i * 1000000 + 500000, i)
        w.event(0, st.EV_KMALLOC, 20000000, 20, 128)
        w.write(out + "/paced.trace")
        w = st.TraceWriter("long", 1)
        w.event(0, st.EV_KMALLOC, 10 ** 10, 0, 64)
        w.write(out + "/long.trace")
    except Exception as e:  # the traces' own checks say what is wrong
        raise PrepError("could not make the test traces: %s: %s" % (type(e).__name__, e))
    return {}


def prep_bad_srat(r, args):
    """${logdir}/bad-srat.body: QEMU's 2-node SRAT (tests/host/acpi-samples/qemu-7.2-numa2)
    with node 1's memory moved to start at 48 MiB, into node 0's, as the body -acpitable
    data= takes (the table after its 36-byte header)."""
    try:
        with open("tests/host/acpi-samples/qemu-7.2-numa2/SRAT.bin", "rb") as f:
            b = bytearray(f.read())
        b[112 + 2 * 40 + 8:112 + 2 * 40 + 16] = (0x3000000).to_bytes(8, "little")
        with open(os.path.join(r.logdir, "bad-srat.body"), "wb") as f:
            f.write(b[36:])
    except OSError as e:
        raise PrepError("could not write the table: %s" % e)
    return {}


def prep_scheme_copy(r, args):
    """scheme_copy:SCHEME:NAME: a new scheme is one file. A copy of this tree (no build/, no
    .git) in ${logdir}/scheme-copy gets mm/scheme_SCHEME.c copied to mm/scheme_SCHEMEcopy.c
    with its registered name changed to NAME, nothing else (with NAME the same as SCHEME, an
    exact copy); the boot's ISO is built in that tree. One copy at a time is there; the tree
    goes once the last boot that names this preparation is done."""
    if len(args) != 2 or not all(re.fullmatch(r"[a-z0-9_-]+", a) for a in args):
        raise PrepError("@prep=scheme_copy:SCHEME:NAME, got %s" % ":".join(["scheme_copy"] + args))
    scheme, name = args
    tree = os.path.join(ROOT, r.logdir, "scheme-copy")
    if not os.path.isdir(tree):
        try:
            shutil.copytree(ROOT, tree, symlinks=True, ignore=lambda d, names: [
                n for n in names if os.path.abspath(d) == ROOT and n in ("build", ".git")])
        except (OSError, shutil.Error) as e:
            shutil.rmtree(tree, ignore_errors=True)
            raise PrepError("could not copy the tree to %s: %s" % (tree, e))
        r.cleanups["scheme_copy"] = lambda: shutil.rmtree(tree, ignore_errors=True)
    src = "mm/scheme_%s.c" % scheme
    try:
        with open(os.path.join(ROOT, src)) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise PrepError("no scheme file %s: %s" % (src, e))
    want = '\t.name = "%s",' % scheme
    changed = 0
    if name != scheme:
        for i, line in enumerate(lines):
            if line == want:
                lines[i] = '\t.name = "%s",' % name
                changed += 1
        if changed != 1:
            raise PrepError("the copy of %s differs in %d lines, want its .name line only"
                            % (src, 2 * changed))
    for old in r.scheme_copies:
        os.remove(old)
    r.scheme_copies = []
    dst = os.path.join(tree, "mm/scheme_%scopy.c" % scheme)
    with open(dst, "w") as f:
        f.write("\n".join(lines))
    r.scheme_copies.append(dst)
    return {"TREE": tree}


PREPS = {"replay_traces": prep_replay_traces, "bad_srat": prep_bad_srat,
         "scheme_copy": prep_scheme_copy}


# ---------------------------------------------------------------------------------------
# Procedures (run NAME): tests that are not one boot.

MUTANTS = "tests/labs/mutants"


def mutant_tree(r, lab, n, patch, dest, lab_files):
    """A graded tree for a mutant: this tree's files of lab n (and the Makefile that marks a
    tree) with the mutant's patch applied. None and a failure on a patch that does not apply."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for f in lab_files + ["Makefile"]:
        if os.path.isfile(os.path.join(ROOT, f)):
            os.makedirs(os.path.dirname(os.path.join(dest, f)) or dest, exist_ok=True)
            shutil.copy(os.path.join(ROOT, f), os.path.join(dest, f))
    rc, out = run_out(["patch", "-p1", "-s", "-d", dest, "-i", os.path.abspath(patch)])
    return rc, out


# make test's lab 3 checks: those of two short boots (the 1-CPU suite and the instruction
# counts), on the handout (0 points) and on this tree (full marks); every check of every lab
# is make test-labs' (lab[N,handout], lab[grade,full]).
QUICK_LAB3 = r"scheme lock, 1 CPU|instructions per alloc\+free pair"


def run_labs(r):
    """The course labs (docs/labs/, tools/lab.py). make test: lab[3,handout], the handout of
    lab 3 builds, boots and scores 0 on lab 3's quick checks (QUICK_LAB3), every one failing
    on the lab's panic, and lab[grade,quick,lab3], this tree scores full marks on lab 3's quick checks
    (QUICK_LAB3; host[test_lab] tests the tool itself). With TEST_LABS=all (make test-labs): lab[N,handout] for every lab,
    lab[grade,full] (every lab's every check at full marks), and lab[N,mutant NAME] for every
    wrong solution in tests/labs/mutants/ (labN-NAME.patch): it must lose points (graded with
    --first-fail: the first check that fails is enough, and says which one caught it). A tree
    without solution markers (a handout) has nothing to test here and says so."""
    lab = py_tool("tools/lab.py")
    all_labs = env_flag("TEST_LABS", "all")
    rc, markers = run_out(lab + ["markers"])
    if rc != 0:
        r.fail("lab[markers]", markers)
        return
    if "markers: 0 regions" in markers:
        print("note: no solution markers in this tree (a lab handout?): no lab tests")
        return
    p = subprocess.run(lab + ["labs"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    labs = [ln.split(None, 2) for ln in p.stdout.decode().split("\n") if ln.strip()]
    logdir = r.logdir

    def grade(args, log, mode="w"):
        rc, out = run_out(lab + ["grade"] + args)
        with open(log, mode) as f:
            f.write(out + "\n")
        return rc, out

    def fail_lines(out):
        return [ln for ln in out.split("\n") if "  FAIL " in ln]

    mutants = []  # (label, lab, name, tree), graded after every handout
    for n, pts, *_ in labs:
        # make test keeps to lab 3 (the slab fastpath): every lab is make test-labs'.
        if not all_labs and n != "3":
            continue
        label = "lab[%s,handout]" % n
        tree = os.path.join(ROOT, logdir, "lab%s-handout" % n)
        if r.want(label):
            shutil.rmtree(tree, ignore_errors=True)
            rc, out = run_out(lab + ["handout", n, tree])
            if rc != 0:
                r.fail(label, "make handout LAB=%s failed: %s" % (n, out))
            elif r.dry_run:
                print("dry-run %s: tools/lab.py grade --lab %s --tree %s" % (label, n, tree))
            else:
                log = "%s/lab%s-handout.log" % (logdir, n)
                quick = [] if all_labs else ["--only", QUICK_LAB3]
                rc, out = grade(["--lab", n, "--tree", tree, "--logdir",
                                 "%s/lab%s-handout-grade" % (logdir, n)] + quick, log)
                m = re.search(r"^score: 0/([0-9]+)", out, re.M)
                if quick and m:
                    pts = m.group(1)
                if rc != 1 or not m or m.group(1) != pts:
                    r.fail(label, "grade exited %d, want 1 with score 0/%s: %s (log: %s)"
                           % (rc, pts, last_line(out), log))
                elif any("LAB%s: " % n not in ln for ln in fail_lines(out)):
                    r.fail(label, "a check failed for another reason than lab %s's stubs "
                           "(log: %s)" % (n, log))
                elif "  ok   " in out:
                    r.fail(label, "a check passed on the handout (log: %s)" % log)
                else:
                    r.ok("%s  (score 0/%s, every check on 'LAB%s: ... not implemented')"
                         % (label, pts, n))
            shutil.rmtree(tree, ignore_errors=True)
        if not all_labs:
            continue
        files = sorted(set(
            m.group(1) for m in re.finditer(r"^([^:\n]*):[0-9-]* LAB%s(?: decl| file)?$" % n,
                                            markers, re.M)))
        mdir = os.path.join(ROOT, MUTANTS)
        for patch in sorted(os.listdir(mdir)) if os.path.isdir(mdir) else []:
            if not patch.startswith("lab%s-" % n) or not patch.endswith(".patch"):
                continue
            name = patch[len("lab%s-" % n):-len(".patch")]
            label = "lab[%s,mutant %s]" % (n, name)
            if not r.want(label):
                continue
            dest = os.path.join(ROOT, logdir, "mutants", "lab%s-%s" % (n, name))
            rc, out = mutant_tree(r, lab, n, os.path.join(mdir, patch), dest, files)
            if rc != 0:
                r.fail(label, "%s does not apply to this tree: %s" % (patch, out))
                continue
            if r.dry_run:
                print("dry-run %s: tools/lab.py grade --lab %s --tree %s --first-fail"
                      % (label, n, dest))
                continue
            mutants.append((label, n, name, dest))
    # The mutants' grades are independent (a tree and a log folder each; every boot but lab
    # 2's plain-TCG one keeps to one host CPU under ICOUNT): LAB_JOBS of them at a time, by
    # default one per host CPU, reported in order.
    jobs = os.environ.get("LAB_JOBS") or str(os.cpu_count() or 1)
    jobs = int(jobs) if re.fullmatch(r"[1-9][0-9]*", jobs) else 1

    def grade_mutant(m):
        label, n, name, dest = m
        log = "%s/lab%s-mutant-%s.log" % (logdir, n, name)
        rc, out = grade(["--lab", n, "--tree", dest, "--first-fail", "--logdir",
                         os.path.join(dest, "grade")], log)
        return rc, out, log

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for (label, n, name, dest), (rc, out, log) in zip(mutants, pool.map(grade_mutant, mutants)):
            m = re.search(r"^score: ([0-9]+)/([0-9]+)", out, re.M)
            caught = fail_lines(out)
            if rc == 1 and m and int(m.group(1)) < int(m.group(2)) and caught:
                r.ok("%s  (caught by: %s)" % (label, re.sub(r"\s+", " ",
                                                            caught[0].strip()[5:])[:160]))
            else:
                r.fail(label, "the mutant kept its points: grade exited %d: %s (log: %s)"
                       % (rc, last_line(out), log))
    label, only = "lab[grade,full]", []
    if not all_labs:
        label, only = "lab[grade,quick,lab3]", ["--lab", "3", "--only", QUICK_LAB3]
    if not r.want(label):
        return
    if r.dry_run:
        print("dry-run %s: tools/lab.py grade %s" % (label, " ".join(only)))
        return
    log = "%s/lab-full.log" % logdir
    rc, out = grade(only + ["--logdir", "%s/lab-full-grade" % logdir], log)
    m = re.search(r"^score: ([0-9]+)/\1\b", out, re.M)
    if rc == 0 and m and int(m.group(1)) > 0:
        r.ok("%s  (score %s/%s)" % (label, m.group(1), m.group(1)))
    else:
        r.fail(label, "grade exited %d: %s (log: %s)" % (rc, last_line(out), log))
        for ln in fail_lines(out):
            print("    " + ln)


PROCEDURES = {"labs": run_labs}


# ---------------------------------------------------------------------------------------

class Interrupted(Exception):
    pass


class Runner:
    def __init__(self, items, env):
        self.items = items
        self.env = env  # the environment boots and tools get: the caller's less the run knobs
        self.dry_run = env_flag("TEST_DRY_RUN")
        self.logdir = "build/test/dry-run" if self.dry_run else "build/test"
        self.make = os.environ.get("MAKE") or "make"
        self.filter = None
        if os.environ.get("TEST_FILTER"):
            self.filter = re.compile(os.environ["TEST_FILTER"])
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.skips = {}  # reason: [labels, one per skipped case]
        self.cleanups = {}  # preparation: what removes what it made
        self.prepared = set()
        self.scheme_copies = []
        self.qemu10_answer = None
        self.busy = []

    # --- counting ---
    def want(self, label):
        return self.filter is None or self.filter.search(label) is not None

    def ok(self, text):
        self.passed += 1
        print("ok   " + text)

    def fail(self, name, msg):
        self.failed += 1
        self.failures.append("%s: %s" % (name, msg))
        print("FAIL %s: %s" % (name, msg))

    def skip(self, label, reason):
        self.skipped += 1
        self.skips.setdefault(reason, []).append(label)

    def ktap_report(self, log, label, kernel):
        """tools/ktap.py's report on log: (Report or None, its human output)."""
        try:
            with open(log, "rb") as f:
                data = f.read()
        except OSError as e:
            return None, "ktap: %s\nktap: could not read %s" % (e, log)
        rep = ktap.parse_log(ktap.clean_lines(data, errors="surrogateescape"), label, kernel)
        out = io.StringIO()
        ktap.print_human(rep, out)
        return rep, out.getvalue()

    def ktap_count(self, log, label, kernel):
        """Adds the KTAP results in log to the totals and prints ktap.py's FAIL lines.
        Returns "N passed, N failed, N skipped" when nothing failed, else None."""
        rep, out = self.ktap_report(log, label, kernel)
        if rep is None:
            print(out)
            self.fail(label + ": ktap.py", "could not parse %s (ktap.py exit 2)" % log)
            return None
        self.passed += rep.passed
        self.failed += rep.failed
        self.skipped += rep.skipped
        for _case, reason in rep.skips:
            self.skips.setdefault(reason, []).append(label)  # counted with rep.skipped above
        if rep.failed:
            lines = out.rstrip("\n").split("\n")[:-1]
            for ln in lines:
                if ln:
                    print(ln)
                if ln.startswith("FAIL "):
                    self.failures.append(ln[len("FAIL "):])
            return None
        return "%d passed, %d failed, %d skipped" % (rep.passed, rep.failed, rep.skipped)

    # --- host tests ---
    def host_tests(self):
        """Built executables build/host/test_* and scripts tests/host/test_*.sh. They are
        independent processes and several of them wait more than they compute (threads that
        hand objects to each other), so they run side by side, as many at once as there are
        CPUs (TEST_HOST_JOBS=N to choose); each one's results are printed in order when all
        are done."""
        jobs = os.environ.get("TEST_HOST_JOBS") or str(os.cpu_count() or 1)
        jobs = int(jobs) if re.fullmatch(r"[1-9][0-9]*", jobs) else 1
        exes = []
        found = False
        for pattern_dir, prefix, suffix in (("build/host", "test_", ""),
                                            ("tests/host", "test_", ".sh")):
            try:
                names = sorted(os.listdir(pattern_dir))
            except OSError:
                names = []
            for n in names:
                path = "%s/%s" % (pattern_dir, n)
                if not (n.startswith(prefix) and n.endswith(suffix)):
                    continue
                if not os.path.isfile(path) or not os.access(path, os.X_OK):
                    continue
                name = n[:-3] if n.endswith(".sh") else n
                label = "host[%s]" % name
                if not self.want(label):
                    continue
                found = True
                if self.dry_run:
                    print("dry-run %s: ./%s" % (label, path))
                    continue
                exes.append((label, path, "%s/host-%s.log" % (self.logdir, name)))

        def one(exe):
            label, path, log = exe
            t0 = time.time()
            with open(log, "wb") as f:
                rc = subprocess.run(["timeout", "-k", "5", str(TMO_HOST), "./" + path],
                                    stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                    env=self.env).returncode
            return rc, seconds(t0)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, exes))
        for (label, path, log), (rc, secs) in zip(exes, results):
            summary = self.ktap_count(log, label, kernel=False)
            if summary is None:
                continue
            if rc != 0:
                self.fail(label + ": exit code",
                          "exited %d although its KTAP results passed (log: %s)" % (rc, log))
            else:
                print("ok   %s  %s s  (%s)" % (label, secs, summary))
        if not found and self.filter is None:
            print("note: no host tests found (build/host/test_*, tests/host/test_*.sh)")

    # --- boots ---
    def boot(self, label, log, knobs):
        """Boots with tools/qemu-run.sh, serial output and its own messages into log. Every
        knob qemu-run.sh reads is set: its default unless knobs says otherwise. Returns
        (exit code, seconds), or None in a dry run (then it prints the QEMU command)."""
        env = dict(self.env)
        env.update(BOOT_DEFAULTS)
        env.update(knobs)
        t0 = time.time()
        with open(log, "wb") as f:
            cmd = [QEMU_RUN] + (["--dry-run"] if self.dry_run else [])
            rc = run_group(cmd, stdout=f, env=env)
        if self.dry_run:
            t = tail(log, 1)
            print("dry-run %s: %s" % (label, t[0] if t else ""))
            return None
        return rc, seconds(t0)

    @staticmethod
    def why_rc(rc, log):
        """A short explanation of a qemu-run exit code for FAIL lines."""
        known = {0: "success", 1: "kernel reported test failure", 3: "kernel panic",
                 5: "the guest powered the machine off", 6: "the guest reset the machine"}
        if rc in known:
            return known[rc]
        note = ""
        try:
            with open(log, "rb") as f:
                for line in f.read().decode("utf-8", "replace").split("\n"):
                    if line.startswith("qemu-run: "):
                        note = line[len("qemu-run: "):]
        except OSError:
            pass
        return note or "qemu-run error"

    def matrix_boot(self, fw, accel, smp):
        label = "boot[%s,%s,smp%d]" % (fw, accel, smp)
        if not self.want(label):
            return
        log = "%s/boot-%s-%s-smp%d.log" % (self.logdir, fw, accel, smp)
        res = self.boot(label, log, {"FIRMWARE": fw, "ACCEL": accel, "SMP": str(smp)})
        if res is None:
            return
        rc, secs = res
        good = True
        if rc == 0:
            self.passed += 1
        else:
            self.fail(label + ": exit code", "qemu-run exited %d after %s s: %s (log: %s)"
                      % (rc, secs, self.why_rc(rc, log), log))
            good = False
        summary = self.ktap_count(log, label, kernel=True)
        good = good and summary is not None
        bj = Ctx(self, label, log, None, None).boot_json()
        for key in ("cpus_online", "cpus_found"):
            if bj.get(key) == smp and type(bj.get(key)) is int:
                self.passed += 1
            else:
                have = json_text(bj[key]) if key in bj else (
                    "missing" if bj else "no boot JSON line")
                self.fail("%s: %s" % (label, key), "%s, want %d (log: %s)" % (have, smp, log))
                good = False
        if good:
            print("ok   %s  %s s  (KTAP %s)" % (label, secs, summary))

    def qemu10(self):
        """(path of a QEMU whose TCG has x2APIC, None) or (None, why there is none)."""
        if self.qemu10_answer is None:
            with open("%s/qemu10.log" % self.logdir, "wb") as err:
                p = subprocess.run(QEMU10, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=err, env=self.env)
            if p.returncode == 0:
                self.qemu10_answer = (p.stdout.decode().strip(), None)
            else:
                with open("%s/qemu10.log" % self.logdir, encoding="utf-8", errors="replace") as f:
                    why = f.read().rstrip("\n")
                if why.startswith("qemu10.sh: "):
                    why = why[len("qemu10.sh: "):]
                self.qemu10_answer = (None, why or "tools/qemu10.sh exited %d" % p.returncode)
        return self.qemu10_answer

    def busy_start(self):
        """Two busy loops of our own beside QEMU (the busy-host test). Each ends by itself
        when this runner is gone or after 10 minutes, should it be killed outright."""
        loop = 'SECONDS=0; while [ "$SECONDS" -lt 600 ] && kill -0 %d 2>/dev/null; do :; done' \
            % os.getpid()
        for _ in range(2):
            self.busy.append(subprocess.Popen(["bash", "-c", loop], stdin=subprocess.DEVNULL))

    def busy_stop(self):
        for p in self.busy:
            p.kill()
        for p in self.busy:
            p.wait()
        self.busy = []

    def selected(self, b):
        """Is boot b selected by TEST_FILTER and by its flags?"""
        if "numa" in b.flags and not env_flag("TEST_NUMA"):
            return False
        if "big" in b.flags and not env_flag("TEST_BIG"):
            return False
        return self.want(b.label)

    def run_boot(self, b):
        """A boot line: selected by TEST_FILTER and its flags, prepared, booted, checked."""
        if not self.selected(b):
            return
        knobs = {}
        if "qemu10" in b.flags:
            q, why = self.qemu10()
            if q is None:
                print("skip %s: %s" % (b.label, why))
                self.skip(b.label, why)
                return
            knobs["QEMU"] = q
        for name, args in b.preps:
            key = (name, tuple(args))
            try:
                if key not in self.prepared or name == "scheme_copy":
                    knobs.update(PREPS[name](self, args) or {})
                    self.prepared.add(key)
            except PrepError as e:
                self.fail(b.label, "%s (%s)" % (e, b.where))
                return
        if "busy" in b.flags:
            self.busy_start()
        try:
            self.extra(b, knobs)
        finally:
            self.busy_stop()

    def extra(self, b, knobs):
        label = b.label
        base = base_name(label)
        log = "%s/%s.log" % (self.logdir, base)
        iso = TEST_ISO
        tree = knobs.pop("TREE", None)
        trace = b.knobs.get("TRACE")
        if b.cmdline or trace or tree:
            iso = "%s/iso/%s.iso" % (self.logdir, base)
            if not (tree and self.dry_run):  # a tree of its own is a whole kernel build
                env = dict(self.env)
                if "GFXPAYLOAD" in b.knobs:
                    env["GFXPAYLOAD"] = b.knobs["GFXPAYLOAD"]
                cmd = [self.make, "-s"] + (["-C", tree] if tree else []) + [
                    "iso-cmdline", "CMDLINE=" + (b.cmdline or "test=all"),
                    "OUT=" + (os.path.join(ROOT, iso) if tree else iso)]
                if trace:
                    cmd.append("MODULE=" + trace)
                with open(log, "wb") as f:
                    rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=f,
                                        stderr=subprocess.STDOUT, env=env).returncode
                if rc != 0 or not os.path.isfile(iso):
                    self.fail(label, 'could not build its ISO: make %siso-cmdline CMDLINE="%s" '
                              'OUT=%s%s (log: %s)' % ("-C %s " % tree if tree else "", b.cmdline,
                                                      iso, " MODULE=" + trace if trace else "", log))
                    for ln in tail(log, 5):
                        print("    " + ln)
                    return
            if tree:
                knobs["ELF"] = os.path.join(tree, "build/slablab.elf")
        checks = [parse_check(c) for c in b.checks]
        shot = None
        if any(s for _, _, s in checks):
            shot = "%s/%s.ppm" % (self.logdir, base)
            if os.path.exists(shot):
                os.remove(shot)
        env = {"ISO": iso, "SMP": EXTRA_SMP}
        env.update((k, v) for k, v in b.knobs.items() if k not in ("GFXPAYLOAD", "TRACE"))
        env.update(knobs)
        if shot:
            env["SCREENDUMP"] = shot
        res = self.boot(label, log, env)
        if res is None:
            return
        rc, secs = res
        why = []
        if rc != b.want_rc:
            why.append("qemu-run exited %d (%s), want %d" % (rc, self.why_rc(rc, log), b.want_rc))
        ctx = Ctx(self, label, log, base, shot)
        for fn, arg, _ in checks:
            w = fn(ctx, arg)
            if w:
                why.append(w)
        if not why:
            self.ok("%s  %s s" % (label, secs))
        else:
            self.fail(label, "%s (after %s s; log: %s)" % ("; ".join(why), secs, log))
            for ln in ctx.detail:
                print("    " + ln)

    def run_cleanups(self, index):
        for name, last in self.last_use.items():
            if last == index and name in self.cleanups:
                self.cleanups.pop(name)()
                if name == "scheme_copy":
                    self.scheme_copies = []

    def boots(self):
        """The matrix (build/test.iso, test=all) on every accelerator, then the other boots
        in the boot list's order."""
        accels = os.environ.get("TEST_ACCELS", "").split()
        quick = env_flag("TEST_QUICK")
        if not accels:
            accels = ["tcg"]
            if not quick:
                p = subprocess.run([QEMU_RUN, "--accel-probe"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, env=self.env)
                if p.stdout.decode().strip() == "kvm":
                    accels.append("kvm")
        matrix = [m for m in self.items if isinstance(m, Matrix)]
        if not os.path.isfile(TEST_ISO):
            self.fail("boot", "%s is missing (make test builds it)" % TEST_ISO)
            return
        if quick:
            q = [m for m in matrix if m.quick]
            fws = []
            for m in q:
                if m.firmware not in fws:
                    fws.append(m.firmware)
            print("%s: boot matrix (quick: %s, tcg, smp %s)" % (
                ME, ", ".join(fws), " and ".join(str(m.smp) for m in q)))
            for m in q:
                self.matrix_boot(m.firmware, "tcg", m.smp)
            return
        print("%s: boot matrix (%s)" % (ME, " ".join(accels)))
        for accel in accels:
            for m in matrix:
                self.matrix_boot(m.firmware, accel, m.smp)
        print("%s: boot checks with their own command lines" % ME)
        self.last_use = {}
        for i, item in enumerate(self.items):
            for name, _ in getattr(item, "preps", []):
                self.last_use[name] = i
        for i, item in enumerate(self.items):
            if isinstance(item, Boot):
                self.run_boot(item)
            elif isinstance(item, Call) and item.kind == "generate":
                for b in GENERATORS[item.name](self):
                    self.run_boot(b)
            elif isinstance(item, Call):
                PROCEDURES[item.name](self)
            self.run_cleanups(i)

    def summary(self, t0):
        if self.passed + self.failed + self.skipped == 0:
            f = os.environ.get("TEST_FILTER")
            self.fail(ME, "no tests ran" + (' (TEST_FILTER="%s" matched nothing)' % f if f else ""))
        if self.failures:
            print()
            print("failures:")
            for f in self.failures:
                print("  FAIL " + f)
        print("total time: %s s" % seconds(t0))
        if self.skips:
            print("skipped %d, by reason:" % self.skipped)
            order = sorted(self.skips.items(), key=lambda kv: -len(kv[1]))
            for reason, labels in order:
                where = list(dict.fromkeys(labels))
                more = " and %d more" % (len(where) - 3) if len(where) > 3 else ""
                print("  %4d  %s  (%s%s)" % (len(labels), reason, ", ".join(where[:3]), more))
        if self.skipped:
            print("%d passed, %d failed, %d skipped" % (self.passed, self.failed, self.skipped))
        else:
            print("%d passed, %d failed" % (self.passed, self.failed))


def builtin_vars():
    return {"logdir": "build/test/dry-run" if env_flag("TEST_DRY_RUN") else "build/test"}


def main(argv):
    args = list(argv)
    boots_path = BOOTS
    mode = "run"
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.rstrip("\n"))
            print("\nThe boot list (%s):\n" % BOOTS)
            print(format_help(os.path.join(ROOT, BOOTS)))
            return 0
        if a == "--boots" and args:
            boots_path = args.pop(0)
        elif a in ("--check", "--list"):
            mode = a[2:]
        else:
            print("%s: unknown argument '%s' (--boots FILE, --check, --list, --help)" % (ME, a),
                  file=sys.stderr)
            return 2
    os.chdir(ROOT)
    try:
        items = parse_boot_list(boots_path, builtin_vars())
    except BootListError as e:
        print("%s: %s" % (ME, e), file=sys.stderr)
        print("%s: the boot list is refused: nothing ran" % ME, file=sys.stderr)
        return 2
    except OSError as e:
        print("%s: cannot read the boot list: %s" % (ME, e), file=sys.stderr)
        return 2
    try:
        if os.environ.get("TEST_FILTER"):
            re.compile(os.environ["TEST_FILTER"])
    except re.error as e:
        print("%s: TEST_FILTER is not a regular expression: %s" % (ME, e), file=sys.stderr)
        return 2
    if mode == "check":
        n = sum(isinstance(i, Boot) for i in items)
        m = sum(isinstance(i, Matrix) for i in items)
        print("%s: %d boot lines, %d matrix lines, %d generate/run lines: good"
              % (boots_path, n, m, len(items) - n - m))
        return 0

    # The matrix is the same whatever the caller's environment says, and says so.
    env = dict(os.environ)
    ignored = []
    for k in RUN_KNOBS:
        if k in env:
            ignored.append("%s=%s" % (k, env.pop(k)))
    if mode == "list":
        r = Runner(items, env)
        for item in items:
            if isinstance(item, Matrix):
                print("matrix %s %d%s" % (item.firmware, item.smp, " @quick" if item.quick else ""))
            elif isinstance(item, Call) and item.kind == "generate":
                for b in GENERATORS[item.name](r):
                    if r.selected(b):
                        print(b.line())
            elif isinstance(item, Call):
                print("run %s" % item.name)
            elif r.selected(item):
                print(item.line())
        return 0
    sys.stdout.reconfigure(line_buffering=True)
    if ignored:
        print("%s: note: ignoring %s: make test boots its own matrix, and every boot sets "
              "these itself (TEST_FILTER, TEST_QUICK and TEST_ACCELS choose what runs; make run "
              "boots one configuration)" % (ME, " ".join(ignored)))
    r = Runner(items, env)
    os.makedirs(r.logdir + "/iso", exist_ok=True)
    for n in os.listdir(r.logdir):
        if n.endswith(".log"):
            os.remove(os.path.join(r.logdir, n))
    t0 = time.time()

    def on_term(signum, frame):
        raise Interrupted()
    signal.signal(signal.SIGTERM, on_term)
    try:
        print("%s: host tests" % ME)
        r.host_tests()
        r.boots()
    except (KeyboardInterrupt, Interrupted):
        r.busy_stop()
        print("%s: interrupted after %d passed, %d failed" % (ME, r.passed, r.failed),
              file=sys.stderr)
        return 130
    finally:
        r.busy_stop()
        for c in list(r.cleanups.values()):
            c()
    if r.dry_run and r.failed == 0:
        print("%s: dry run, nothing booted (logs: %s)" % (ME, r.logdir))
        return 0
    r.summary(t0)
    return 0 if r.failed == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:
        sys.exit(1)
