#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copies the ACPI tables QEMU's firmware builds out of a running QEMU, for the host tests.

    tools/acpi-dump.py [-o DIR] [--machine pc] [--qemu qemu-system-x86_64] [--bios FILE]
                       [--extra "QEMU ARGS"]

Starts QEMU with no boot device (SeaBIOS, or the firmware --bios names, builds the tables
from QEMU's fw_cfg and then finds nothing to boot), saves the first 128 MiB of guest memory
through the human monitor's pmemsave, finds the RSDP in 0xe0000..0xfffff, and writes every
table the RSDT or XSDT lists, and the DSDT the FADT names, to DIR/SIG.bin (DIR defaults to
tests/host/acpi-samples/qemu-VERSION-MACHINE). tests/host/test_acpi.c reads the FADT and
DSDT written for QEMU 7.2's pc and q35 machines, and the SRAT and SLIT of the NUMA layouts
under qemu-7.2-numa* (made with --extra: -smp, -object memory-backend-ram, -numa; their
README says which).
"""
import argparse
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

MEM = 128 << 20


def table(mem, addr):
    if addr + 8 > len(mem):
        sys.exit(f"acpi-dump: table at {addr:#x} is outside the {MEM >> 20} MiB saved")
    length = struct.unpack_from("<I", mem, addr + 4)[0]
    return mem[addr:addr + length]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", dest="out")
    ap.add_argument("--machine", default="pc")
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    ap.add_argument("--bios")
    ap.add_argument("--extra", default="", help="more QEMU arguments, split on spaces")
    a = ap.parse_args()
    ver = subprocess.run([a.qemu, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+\.\d+)", ver)
    out = a.out or f"tests/host/acpi-samples/qemu-{m.group(1) if m else 'x'}-{a.machine}"
    with tempfile.TemporaryDirectory() as tmp:
        sock, dump = os.path.join(tmp, "mon"), os.path.join(tmp, "mem")
        cmd = [a.qemu, "-machine", a.machine, "-accel", "tcg", "-m", "128M", "-nodefaults",
               "-display", "none", "-serial", "none", "-monitor", f"unix:{sock},server=on,wait=off"]
        if a.bios:
            cmd += ["-bios", a.bios]
        cmd += a.extra.split()
        q = subprocess.Popen(cmd)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.1)
            time.sleep(3)  # the firmware builds the tables, then finds no boot device
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.sendall(f'pmemsave 0 {MEM:#x} "{dump}"\n'.encode())
            for _ in range(100):
                if os.path.exists(dump) and os.path.getsize(dump) == MEM:
                    break
                time.sleep(0.1)
            time.sleep(0.5)
            s.sendall(b"quit\n")
            q.wait(10)
        finally:
            if q.poll() is None:
                q.kill()
        mem = open(dump, "rb").read()
    rsdp = next((x for x in range(0xe0000, 0x100000, 16) if mem[x:x + 8] == b"RSD PTR "), None)
    if rsdp is None:
        sys.exit("acpi-dump: no RSDP in 0xe0000..0xfffff")
    rev, rsdt = mem[rsdp + 15], struct.unpack_from("<I", mem, rsdp + 16)[0]
    xsdt = struct.unpack_from("<Q", mem, rsdp + 24)[0] if rev >= 2 else 0
    root = table(mem, xsdt or rsdt)
    width = 8 if xsdt else 4
    os.makedirs(out, exist_ok=True)
    for i in range((len(root) - 36) // width):
        addr = int.from_bytes(root[36 + i * width:36 + (i + 1) * width], "little")
        t = table(mem, addr)
        open(os.path.join(out, t[:4].decode() + ".bin"), "wb").write(t)
        print(f"{out}/{t[:4].decode()}.bin: {len(t)} bytes, revision {t[8]}")
        if t[:4] == b"FACP":
            dsdt = struct.unpack_from("<I", t, 40)[0]
            if len(t) >= 148 and struct.unpack_from("<Q", t, 140)[0]:
                dsdt = struct.unpack_from("<Q", t, 140)[0]
            d = table(mem, dsdt)
            open(os.path.join(out, "DSDT.bin"), "wb").write(d)
            print(f"{out}/DSDT.bin: {len(d)} bytes, revision {d[8]}")


if __name__ == "__main__":
    main()
