#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the real machines' acpidumps that tests/host/acpi-samples/real/SOURCES lists.

    tools/acpi-samples.py --from LINUXHW_ACPI [--out DIR]

LINUXHW_ACPI is a checkout, or a bare clone, of the linuxhw/ACPI collection (acpidump output
uploaded by Linux users through linux-hardware.org; CC BY 4.0, see the README beside
SOURCES). Each line of SOURCES is NAME, KIND, the dump's path in the collection and its git
blob id; every dump is checked against that id and written, xz-compressed and otherwise as
it is, to DIR/NAME.xz (DIR: SOURCES' folder, whose .gitignore keeps them out of slablab's
commits). tests/host/test_acpi_check.sh runs tools/acpi-check on each dump it finds there,
or in ../shared/acpi-samples/real beside the checkout, and skips those it does not find.
"""
import argparse
import hashlib
import lzma
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.normpath(os.path.join(HERE, "..", "tests", "host", "acpi-samples", "real", "SOURCES"))


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_dump(src, path, blob):
    """The dump at path in a checkout, or the blob by its id in a (bare) clone."""
    f = os.path.join(src, path)
    if os.path.isfile(f):
        with open(f, "rb") as fh:
            return fh.read()
    r = subprocess.run(["git", "--git-dir", src, "cat-file", "blob", blob], capture_output=True)
    if r.returncode == 0:
        return r.stdout
    r = subprocess.run(["git", "-C", src, "cat-file", "blob", blob], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="src", required=True, help="linuxhw/ACPI checkout or clone")
    ap.add_argument("--out", help="where to write NAME.xz (default: beside SOURCES)")
    a = ap.parse_args()
    out = a.out or os.path.dirname(SOURCES)
    os.makedirs(out, exist_ok=True)
    bad = 0
    for line in open(SOURCES, encoding="utf-8"):
        name, _, path, blob = line.rstrip("\n").split("\t")
        dest = os.path.join(out, name + ".xz")
        if os.path.exists(dest):
            with open(dest, "rb") as fh:
                if blob_id(lzma.decompress(fh.read())) == blob:
                    continue
        data = read_dump(a.src, path, blob)
        if data is None or blob_id(data) != blob:
            print(f"acpi-samples: {path}: {'not found' if data is None else 'not the blob ' + blob}",
                  file=sys.stderr)
            bad += 1
            continue
        with open(dest + ".tmp", "wb") as fh:
            fh.write(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
        os.replace(dest + ".tmp", dest)
        print(f"acpi-samples: {dest} ({len(data)} bytes, {os.path.getsize(dest)} compressed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
