#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a LAVA job that boots slablab and turns its serial output into LAVA results.

Usage:
  mkjob.py --elf ELF --cmdline ARGS --iso URL [--device qemu] [options]
  mkjob.py --elf ELF --cmdline ARGS --kernel URL --device TYPE [options]

--device qemu (the default) writes tools/lava/qemu-job.yaml's job: device_type qemu, the
ISO deployed to tmpfs and given to QEMU as a CD-ROM. Any other --device is the device_type
of a real x86 machine that the lab boots into GRUB over the network (one of LAVA's
base-grub types, e.g. upsquare or pc-k10n78, or the lab's own): tools/lava/grub-job.yaml's
job, the kernel deployed to the lab's TFTP server and started by the GRUB commands the job
gives (multiboot2 with ARGS).

The test action has one LAVA monitor per KTAP suite the kernel will run (read from ELF's
.kunit_suites section and the test= and bench= of ARGS, as init/main.c and kernel/kunit.c
choose), so that LAVA files each case under its suite: KTAP's suite.case is LAVA's test
suite and test case (LAVA turns a '.' in a case name into '_', so the suite cannot be part
of the case name). A last monitor, slablab, records the kernel's verdict from its exit line
as the case slablab/exit (pass; fail for "fail" and "panic"). A suite's monitor starts at
its "# Subtest:" line and ends at its result line; when the kernel stops early (a panic, a
bad option) the exit line ends it instead and the monitors after it match nothing, so a
panicking kernel is a failed result in a complete job, not an incomplete one.
"""

import argparse
import math
import os
import re
import string
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# A case line of a suite: "    ok 3 name", "    not ok 3 name", "    ok 3 name # SKIP why".
# LAVA's monitor takes one regex with the groups test_case_id and result (the result
# mapped by fixupdict), so both are read by lookaheads from the start of the line: the
# name after the number, and the result "ok" or "not ok" when nothing follows the name, or
# "SKIP" from the directive. The pattern then takes the whole line, up to its newline, so
# that a name is never cut where the serial port paused in the middle of a line.
CASE_PATTERN = (r"(?m)^ +(?=(?:not )?ok \d+ (?P<test_case_id>[^\s#]+))"
                r"(?=[^\n]*?(?P<result>(?:not )?ok(?= \d+ [^#\r\n]*\r*\n)|(?<=# )SKIP))"
                r"[^\n]*\n")
CASE_FIXUP = {"ok": "pass", "not ok": "fail", "SKIP": "skip"}
# The kernel's exit line, kernel/panic.c kernel_exit(), and the line after it.
EXIT_AHEAD = r'(?=\{"event":"exit")'
EXIT_PATTERN = (r'\{"event":"(?P<test_case_id>exit)","result":"(?P<result>pass|fail|panic)"'
                r'[^\n]*\n')
EXIT_FIXUP = {"panic": "fail"}
FINAL_LINE = r"slablab: (?:pass|fail|panic); [^\n]*\n"


def die(msg):
    print("mkjob: " + msg, file=sys.stderr)
    sys.exit(2)


def elf_suites(path):
    """The names of the KTAP suites in a slablab ELF, in the order the kernel runs them:
    .kunit_suites holds pointers to struct kunit_suite, whose first member is the name
    (char name[64], kernel/kunit.h)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        die("%s is not a little-endian ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, _, _, addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        secs.append((name, addr, off, size))
    strtab_off = secs[shstrndx][2]

    def sec_name(s):
        end = data.index(b"\0", strtab_off + s[0])
        return data[strtab_off + s[0]:end].decode()

    def at(vaddr, n):
        for s in secs:
            if s[1] and s[1] <= vaddr and vaddr + n <= s[1] + s[3]:
                return data[s[2] + vaddr - s[1]:s[2] + vaddr - s[1] + n]
        die("%s: no section holds address %#x" % (path, vaddr))

    for s in secs:
        if sec_name(s) == ".kunit_suites":
            names = []
            for k in range(s[3] // 8):
                ptr, = struct.unpack_from("<Q", data, s[2] + 8 * k)
                names.append(at(ptr, 64).split(b"\0")[0].decode())
            return names
    die("%s has no .kunit_suites section (not a slablab kernel?)" % path)


def option(words, name):
    """The value of NAME= among the command line's words, or None if not given."""
    for w in words:
        if w.startswith(name + "="):
            return w[len(name) + 1:]
    return None


def suites_run(suites, cmdline):
    """The suites ARGS makes the kernel run, in its order: none without test= (init/main.c:
    bench= alone, or neither option, runs benchmarks only), else those test= selects as
    kernel/kunit.c's selected() does (all, the suite's name, or suite.case)."""
    words = cmdline.split()
    test = option(words, "test")
    if test is None or test == "none":
        return []  # bench= alone, or neither: the benchmarks only
    items = test.split(",")
    return [s for s in suites
            if any(i == "all" or i == s or i.startswith(s + ".") for i in items)]


def q(text):
    """A YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


def monitors(suites, indent):
    pad = " " * indent
    fix = "{%s}" % ", ".join("%s: %s" % (q(k), v) for k, v in CASE_FIXUP.items())
    out = []
    for s in suites:
        name = re.escape(s)
        out += [
            "- name: %s" % s,
            "  start: %s" % q(r"# Subtest: %s\r*\n|%s" % (name, EXIT_AHEAD)),
            "  end: %s" % q(r"(?m)^(?:not )?ok \d+ %s\r*\n|%s" % (name, EXIT_AHEAD)),
            "  pattern: %s" % q(CASE_PATTERN),
            "  fixupdict: %s" % fix,
        ]
    out += [
        "- name: slablab",
        "  start: %s" % q(EXIT_AHEAD),
        "  end: %s" % q(FINAL_LINE),
        "  pattern: %s" % q(EXIT_PATTERN),
        "  fixupdict: {%s}" % ", ".join("%s: %s" % (q(k), v) for k, v in EXIT_FIXUP.items()),
    ]
    return "\n".join(pad + line for line in out)


def grub_args(cmdline):
    """ARGS as tools/mkiso.sh writes them for GRUB (each word single-quoted), checked the
    same way (a quote, a backslash or a control character is refused there)."""
    try:
        cfg = subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), "--print-cfg",
                              "--cmdline", cmdline], check=True, capture_output=True,
                             text=True).stdout
    except subprocess.CalledProcessError as e:
        die(e.stderr.strip().replace("mkiso: ", ""))
    for line in cfg.splitlines():
        line = line.strip()
        if line.startswith("multiboot2 /boot/slablab.elf"):
            return line[len("multiboot2 /boot/slablab.elf"):].strip()
    die("tools/mkiso.sh printed no multiboot2 line")


def mib(size):
    m = re.fullmatch(r"(\d+)([KMGT]?)", size.upper())
    if not m:
        die("MEM=%s is not a size like 256M" % size)
    n = int(m.group(1))
    return {"K": n // 1024, "M": n, "G": n * 1024, "T": n * 1024 * 1024, "": n // (1 << 20)}[m.group(2)]


def main():
    ap = argparse.ArgumentParser(prog="mkjob.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--elf", required=True, help="the kernel (its suites make the monitors)")
    ap.add_argument("--cmdline", default="", help="the kernel's command line")
    ap.add_argument("--device", default="qemu",
                    help="qemu, or the device_type of a GRUB-netbooted x86 machine")
    ap.add_argument("--iso", help="qemu: URL of the ISO (file:///... or http://...)")
    ap.add_argument("--kernel", help="GRUB: URL of slablab.elf")
    ap.add_argument("--smp", default="4", help="qemu: CPUs (the job context's extra_options)")
    ap.add_argument("--mem", default="256M", help="qemu: memory (the job context's memory)")
    ap.add_argument("--accel", default="tcg", choices=["tcg", "kvm"],
                    help="qemu: tcg, or kvm (the device type's -enable-kvm -cpu host)")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds the kernel may run before LAVA gives up (default 300)")
    ap.add_argument("-o", "--output", help="the job file (default: stdout)")
    args = ap.parse_args()

    suites = suites_run(elf_suites(args.elf), args.cmdline)
    run_minutes = max(2, math.ceil(args.timeout / 60))
    subst = {
        "job_name": q(("slablab " + (" ".join(args.cmdline.split()) or "(the default run)"))[:200]),
        "monitors": monitors(suites, 4),
        "test_minutes": run_minutes,
        "job_minutes": run_minutes + 15,
    }
    if args.device == "qemu":
        if not args.iso:
            die("--device qemu needs --iso URL")
        if not re.fullmatch(r"[1-9]\d*", args.smp):
            die("SMP=%s is not a CPU count" % args.smp)
        subst.update(iso_url=q(args.iso), smp=args.smp, memory=mib(args.mem),
                     no_kvm="false" if args.accel == "kvm" else "true",
                     accel_options="" if args.accel == "kvm" else
                     "\n  - -cpu max\n  - -accel tcg,thread=multi")
        template = "qemu-job.yaml"
    else:
        if not re.fullmatch(r"[a-zA-Z0-9][-_a-zA-Z0-9.]*", args.device):
            die("DEVICE=%s is not a LAVA device type name" % args.device)
        if not args.kernel:
            die("a GRUB job (--device %s) needs --kernel URL" % args.device)
        subst.update(device_type=args.device, kernel_url=q(args.kernel),
                     multiboot2=q("multiboot2 (tftp,{SERVER_IP})/{KERNEL} " +
                                  grub_args(args.cmdline)))
        template = "grub-job.yaml"
    with open(os.path.join(HERE, template)) as f:
        text = string.Template(f.read()).substitute(subst)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
