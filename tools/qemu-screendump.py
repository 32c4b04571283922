#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Takes a screendump of a QEMU that runs slablab with exit=halt, then ends that QEMU.

    tools/qemu-screendump.py MONITOR_SOCKET SERIAL_LOG OUT.ppm TIMEOUT_S

tools/qemu-run.sh starts it beside QEMU when SCREENDUMP= is set. It waits for the kernel's
final line in the serial log ("slablab: pass|fail|panic; halting all CPUs"), gives the
screen a moment, asks QEMU's human monitor for `screendump OUT.ppm` (a binary PPM of the
display, whatever the guest's pixel layout), waits for the whole file and sends `quit`.
Prints the result word of the final line; exits 1 (after quitting QEMU) when no final line
came within TIMEOUT_S seconds or the screendump did not appear.
"""
import os
import re
import socket
import sys
import time

FINAL = re.compile(rb"^slablab: (pass|fail|panic); halting all CPUs\r?$", re.M)


def ppm_complete(path):
    try:
        data = open(path, "rb").read()
    except OSError:
        return False
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    return bool(m) and len(data) >= m.end() + int(m.group(1)) * int(m.group(2)) * 3


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[1])
    sock_path, log, out, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    end = time.monotonic() + timeout
    mon = None
    while time.monotonic() < end and mon is None:
        try:
            mon = socket.socket(socket.AF_UNIX)
            mon.connect(sock_path)
        except OSError:
            mon = None
            time.sleep(0.1)
    if mon is None:
        sys.exit("qemu-screendump: no QEMU monitor at " + sock_path)
    result = None
    while time.monotonic() < end:
        try:
            m = FINAL.search(open(log, "rb").read())
        except OSError:
            m = None
        if m:
            result = m.group(1).decode()
            break
        time.sleep(0.2)
    rc = 1
    if result:
        time.sleep(0.5)  # the last line is on the serial port; let the screen catch up
        try:
            os.unlink(out)
        except OSError:
            pass
        mon.sendall(b'screendump "%s"\n' % out.encode())
        while time.monotonic() < end and not ppm_complete(out):
            time.sleep(0.1)
        if ppm_complete(out):
            print(result)
            rc = 0
        else:
            print("qemu-screendump: no complete screendump in " + out, file=sys.stderr)
    else:
        print("qemu-screendump: no final 'halting all CPUs' line within %g s" % timeout,
              file=sys.stderr)
    try:
        mon.sendall(b"quit\n")
        mon.settimeout(max(1.0, end - time.monotonic()))
        while mon.recv(4096):  # QEMU closes the monitor as it exits
            pass
    except OSError:
        pass
    sys.exit(rc)


if __name__ == "__main__":
    main()
