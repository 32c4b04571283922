#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test of tools/acpi-check: the kernel's ACPI reading (build/host/acpi-check, ASan and
# UBSan) on real machines' firmware and on QEMU's.
#
#  - every dump tests/host/acpi-samples/real/SOURCES lists (found there, or in the steering
#    repo's ../shared/acpi-samples/real beside the checkout; one not found is a SKIP): no
#    sanitizer report, the exit code its verdict gives, and --json's output equal to the
#    expected result NAME.json beside SOURCES, so any change in what acpi-check says shows;
#  - what the issue that made it asked of those machines, read from that output: power-off
#    through PM1 with an SSDT's \_S5 on the three machines that have it only there, through
#    the sleep control register on the hardware-reduced ones (or why not), the NUMA servers;
#  - QEMU 7.2's tables as folders of binary tables, and hand-changed copies of them: a
#    hardware-reduced machine with no HPET does not boot (exit 1), one whose FADT is too
#    short for the sleep registers cannot power off; damaged dumps are refused (exit 2);
#    gzip and plain text read as xz does;
#  - docs/real-hardware.md's summary is the one the expected results make.
# ACPI_CHECK_REGEN=1 rewrites the expected results from what acpi-check says now (then read
# the diff). Flat KTAP, like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
exe=$root/build/host/acpi-check
samples=$here/acpi-samples
real=$samples/real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ACPI_CHECK_BIN=$exe

if [ ! -x "$exe" ]; then
    echo "test_acpi_check: $exe is not built (make host-tests)" >&2
    exit 1
fi

# dump_of NAME: the path of NAME.xz, wherever it is; fails if nowhere.
dump_of() {
    local d
    for d in "$real" "$root/../shared/acpi-samples/real"; do
        if [ -f "$d/$1.xz" ]; then
            echo "$d/$1.xz"
            return 0
        fi
    done
    return 1
}

# run NAME INPUT [ARGS...]: acpi-check --json on INPUT as NAME; $tmp/NAME.{out,err,rc}.
run() {
    local name=$1 input=$2 rc=0
    shift 2
    "$exe" --json --name "$name" "$@" "$input" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    echo "$rc" >"$tmp/$name.rc"
}

# expect NAME EXPECTED.json: the run of NAME was clean, exited as its verdict says, and printed
# EXPECTED (rewritten instead with ACPI_CHECK_REGEN=1).
expect() {
    local name=$1 want=$2 rc boots
    rc=$(cat "$tmp/$name.rc")
    if [ -s "$tmp/$name.err" ]; then
        echo "exit $rc, and on stderr:"
        head -40 "$tmp/$name.err"
        return 1
    fi
    if [ "${ACPI_CHECK_REGEN:-0}" = 1 ]; then
        cp "$tmp/$name.out" "$want"
    fi
    if [ ! -f "$want" ]; then
        echo "no expected result $want (ACPI_CHECK_REGEN=1 writes it)"
        return 1
    fi
    boots=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["boots"])' "$want")
    if [ "$rc" != "$([ "$boots" = True ] && echo 0 || echo 1)" ]; then
        echo "exit $rc, but the expected result says boots=$boots"
        return 1
    fi
    diff -u "$want" "$tmp/$name.out"
}

real_case() {
    local name=$1 f
    if ! f=$(dump_of "$name"); then
        echo "# SKIP $name.xz is not here: tools/acpi-samples.py writes it (acpi-samples/real/README.md)"
        return 0
    fi
    "$py" -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$f" \
        >"$tmp/$name.txt"
    run "$name" "$tmp/$name.txt"
    expect "$name" "$real/$name.json"
}

mapfile -t names < <(cut -f1 "$real/SOURCES")
for name in "${names[@]}"; do
    t "real: $name: ASan clean, as expected" real_case "$name"
done

# verify NAME... -- PYTHON: PYTHON (with j(name) the output's JSON) on the runs of NAME...;
# a SKIP unless every one of them ran.
verify() {
    local names=() n
    while [ "$1" != -- ]; do
        names+=("$1")
        shift
    done
    shift
    for n in "${names[@]}"; do
        if [ ! -s "$tmp/$n.out" ]; then
            echo "# SKIP $n.xz is not here"
            return 0
        fi
    done
    "$py" -c "
import json, sys
def j(n): return json.load(open('$tmp/' + n + '.out'))
$1"
}

# The three machines that define \_S5 only in an SSDT (the DSDT has none): Linux powers them
# off; so does slablab now, through PM1 control, with the SSDT's sleep types.
t "ssdt _S5: Dell Precision T3500 and T7500, PC Specialist NH5xAx power off with an SSDT's _S5" \
    verify dell-precision-workstation-t3500 dell-precision-workstation-t7500 pcspecialist-nh5xax -- '
for n, typ in (("dell-precision-workstation-t3500", 2), ("dell-precision-workstation-t7500", 2),
               ("pcspecialist-nh5xax", 5)):
    p = j(n)["poweroff"]
    assert p["method"] == "pm1" and p["s5_from"].startswith("SSDT ") and p["slp_typa"] == typ, (n, p)'

# Hardware-reduced: no PM1 blocks; the FADT's sleep control register, I/O port 0x405 on these
# Bay Trail and Cherry Trail tablets, gets SLP_TYPa 7 << 2 | SLP_EN = 0x3c. The Venue 8 Pro's
# FADT names none: slablab says so (Linux uses EFI's ResetSystem there).
hwr="ami-aptio-crb lenovo-ideapad-100s-11iby-80r2 ilife-s806 hp-pavilion-x2-detachable lenovo-miix-3-1030-80hv lenovo-others"
# shellcheck disable=SC2086
t "hardware-reduced: six power off through the sleep control register, 0x3c to port 0x405" \
    verify $hwr -- '
for n in "'"$hwr"'".split():
    x = j(n)
    p = x["poweroff"]
    assert x["fadt"]["hw_reduced"] and x["clocks"]["pm_timer"] is None, n
    assert p["method"] == "sleep_control" and p["register"] == {"space": "io", "address": "0x405"} \
        and p["value"] == "0x3c" and p["s5_from"] == "DSDT", (n, p)'
t "hardware-reduced: the Dell Venue 8 Pro has no sleep control register, and acpi-check says so" \
    verify dell-venue-8-pro-5830 -- '
x = j("dell-venue-8-pro-5830")
assert x["fadt"]["hw_reduced"] and x["poweroff"]["method"] == "none", x["poweroff"]
assert "names no sleep control register" in x["poweroff"]["why_not"], x["poweroff"]
assert [r["kind"] for r in x["refused"]] == ["poweroff"] and x["boots"], x["refused"]'
t "numa: the SRAT servers' nodes, memory-less ones, distances from the SLIT or 10 and 20" \
    verify dell-poweredge-r820 supermicro-h8qg6 supermicro-h8dgu hp-proliant-dl360-g7 supermicro-x10dai -- '
r = j("dell-poweredge-r820")["numa"]
assert r["nodes"] == 4 and r["slit"] and [n["pxm"] for n in r["node"]] == [1, 2, 3, 4], r
assert sum(n["cpus"] for n in r["node"]) == 80 and all(n["mem_mib"] for n in r["node"]), r
h = j("supermicro-h8qg6")["numa"]
assert h["nodes"] == 8 and sum(n["cpus"] for n in h["node"]) == 64, h
g = j("supermicro-h8dgu")["numa"]
assert g["nodes"] == 4 and [n["mem_mib"] == 0 for n in g["node"]] == [False, True, True, False], g
d = j("hp-proliant-dl360-g7")["numa"]
assert d["nodes"] == 2 and not d["slit"] and d["node"][0]["distances"] == [10, 20], d
x = j("supermicro-x10dai")["numa"]
assert x["nodes"] == 2 and x["node"][0]["distances"][1] > 10, x'
t "x2apic: machines with x2APIC entries need no x2APIC mode (ids below 255)" \
    verify samsung-960qha msi-prestige-13-ai-evo-a2vmg -- '
for n in ("samsung-960qha", "msi-prestige-13-ai-evo-a2vmg"):
    c = j(n)["cpus"]
    assert c["x2apic_entries"] == c["enabled"] > 0 and c["x2apic_needed"] == 0 and c["max_apic_id"] < 255, c'
t "hpet: one outside 0xfec00000 .. 4 GiB is refused (ASUS P5VD2-VM), the PM timer left" \
    verify asus-p5vd2-vm -- '
x = j("asus-p5vd2-vm")
assert [r["kind"] for r in x["refused"]] == ["hpet"] and "0xfe800000" in x["refused"][0]["why"], x["refused"]
assert x["clocks"]["from_tables"] == 1 and x["boots"], x["clocks"]'
t "root: an acpidump with addresses and an XSDT (no RSDP) is laid out by its XSDT (Toshiba C70D-B)" \
    verify toshiba-satellite-c70d-b -- '
x = j("toshiba-satellite-c70d-b")
assert x["root"] == "XSDT" and x["root_from_dump"] and not x["rsdp_from_dump"], x'

# --- QEMU's tables as folders, and hand-changed copies ---
for q in pc q35 numa2 numa4 microvm; do
    t "qemu: QEMU 7.2 $q's tables (a folder of binary tables), as expected" \
        eval "run qemu-7.2-$q '$samples/qemu-7.2-$q' && expect qemu-7.2-$q '$samples/qemu-7.2-$q.json'"
done

# QEMU's microvm is hardware-reduced ACPI (tests/host/test_hw_reduced.sh boots it): its
# GED device's sleep control register at 0xfea00200 gets \_S5's 5 << 2 | SLP_EN, its reset
# register 0x42 at 0xfea00202; the tables give no clock (microvm has a PIT), so exit 1.
t "qemu: microvm, hardware-reduced: sleep control and reset registers in memory, no clock in the tables" \
    verify qemu-7.2-microvm -- '
x = j("qemu-7.2-microvm")
p, r = x["poweroff"], x["reboot"]["acpi_reset_register"]
assert x["fadt"]["hw_reduced"] and p["method"] == "sleep_control" and p["value"] == "0x34", p
assert p["register"] == {"space": "memory", "address": "0xfea00200"}, p
assert r == {"space": "memory", "address": "0xfea00202", "value": "0x42", "used": True}, r
assert not x["boots"] and [q["kind"] for q in x["refused"]] == ["clock"], x["refused"]'

# A copy of the q35 folder, its FADT changed by patch (python over the bytes b) and the
# checksum fixed; without HPET.bin when asked.
qemu_variant() { # NAME NO_HPET PYTHON
    cp -r "$samples/qemu-7.2-q35" "$tmp/$1"
    [ "$2" = yes ] && rm "$tmp/$1/HPET.bin"
    "$py" -c "
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
$3
b[9] = 0; b[9] = (-sum(b)) & 0xff
open(p, 'wb').write(b)" "$tmp/$1/FACP.bin"
}
hwr_no_hpet() {
    qemu_variant hwr-no-hpet yes 'b[112 + 2] |= 0x10  # flags bit 20: HW_REDUCED_ACPI'
    run hwr-no-hpet "$tmp/hwr-no-hpet"
    "$py" -c '
import json, sys
x = json.load(open(sys.argv[1]))
assert open(sys.argv[2]).read() == "1\n", "exit " + open(sys.argv[2]).read()
assert not x["boots"] and x["clocks"]["from_tables"] == 0, x["clocks"]
assert any(r["kind"] == "clock" and "need not have a PIT" in r["why"] for r in x["refused"]), x["refused"]
assert x["poweroff"]["method"] == "none" and "too short" in x["poweroff"]["why_not"], x["poweroff"]
' "$tmp/hwr-no-hpet.out" "$tmp/hwr-no-hpet.rc"
}
t "verdict: hardware-reduced with neither HPET nor PM timer would not boot (exit 1)" hwr_no_hpet
hwr_sleep_mem() {
    # a 276-byte FADT (ACPI 6), hardware-reduced, the sleep control register in memory at 0xfed81000
    qemu_variant hwr-mem no 'b[4:8] = (276).to_bytes(4, "little"); b += bytes(276 - len(b))
b[112 + 2] |= 0x10
b[244:256] = bytes([0, 8, 0, 1]) + (0xfed81000).to_bytes(8, "little")'
    run hwr-mem "$tmp/hwr-mem"
    "$py" -c '
import json, sys
x = json.load(open(sys.argv[1]))
p = x["poweroff"]
assert x["boots"] and p["method"] == "sleep_control", p
assert p["register"] == {"space": "memory", "address": "0xfed81000"} and p["value"] == "0x20", p
' "$tmp/hwr-mem.out"
}
t "poweroff: a hardware-reduced FADT of ACPI 6 with the sleep control register in memory" hwr_sleep_mem

# --- input ---
damaged() { # NAME NEEDLE: the run of NAME exited 2 with NEEDLE on stderr, nothing else
    local rc
    rc=$(cat "$tmp/$1.rc")
    [ "$rc" = 2 ] && grep -q -- "$2" "$tmp/$1.err" && ! grep -q Sanitizer "$tmp/$1.err" || {
        echo "exit $rc:"
        cat "$tmp/$1.err"
        return 1
    }
}
text_dump() { # the q35 folder as acpidump's text, for the damaged ones
    "$py" - "$samples/qemu-7.2-q35" >"$tmp/q35.txt" <<'PY'
import os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    b = open(os.path.join(d, f), "rb").read()
    print(f"{b[:4].decode()} @ 0x0000000000000000")
    for o in range(0, len(b), 16):
        row = b[o:o + 16]
        hexes = " ".join(f"{x:02X}" for x in row)
        print(f"    {o:04X}: {hexes:<47}  " + "".join(chr(x) if 32 <= x < 127 else "." for x in row))
    print()
PY
}
input_text() {
    text_dump
    run q35-text "$tmp/q35.txt"
    "$py" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("dump"); b.pop("dump")
assert a == b, (a, b)' "$tmp/q35-text.out" "$tmp/qemu-7.2-q35.out"
}
t "input: acpidump's text of the q35 tables reads as the folder does" input_text
input_packed() {
    gzip -c "$tmp/q35.txt" >"$tmp/q35.txt.gz"
    "$py" -c 'import lzma,sys; open(sys.argv[2],"wb").write(lzma.compress(open(sys.argv[1],"rb").read()))' \
        "$tmp/q35.txt" "$tmp/q35.txt.xz"
    for f in q35.txt.gz q35.txt.xz; do
        "$root/tools/acpi-check" --json "$tmp/$f" | "$py" -c '
import json, sys
a, b = json.load(sys.stdin), json.load(open(sys.argv[1]))
a.pop("dump"); b.pop("dump")
assert a == b, (a, b)' "$tmp/q35-text.out"
    done
    "$root/tools/acpi-check" "$tmp/q35.txt.xz" | grep -q "^verdict:   slablab would boot$"
}
t "input: the wrapper reads .gz and .xz dumps, and its text report gives the verdict" input_packed
input_damaged() {
    : >"$tmp/empty.txt"
    run empty "$tmp/empty.txt"
    damaged empty "no ACPI tables in it"
    sed '/^FACP @/,/^$/{/    0040:/d}' "$tmp/q35.txt" >"$tmp/cut.txt"
    run cut "$tmp/cut.txt"
    damaged cut "table FACP continues at offset 0x50, after 0x40 bytes"
    sed '/^FACP @/,/^$/{/    00F0:/d}' "$tmp/q35.txt" >"$tmp/short.txt"
    run short "$tmp/short.txt"
    damaged short "table FACP: its header says 244 bytes, the dump has 240"
    printf '\xfd7zXZ\0garbage' >"$tmp/packed.txt"
    run packed "$tmp/packed.txt"
    damaged packed "compressed"
}
t "input: an empty dump, a missing line, a short table and a packed file are refused (exit 2)" input_damaged

# Seeded byte changes to QEMU's tables (the numa4 MADT, SRAT and SLIT with q35's FADT, DSDT
# and HPET), lengths kept: whatever the kernel makes of them, no sanitizer report and an exit
# of 0, 1 or 2.
mutated() {
    mkdir "$tmp/mut"
    cp "$samples"/qemu-7.2-numa4/*.bin "$samples"/qemu-7.2-q35/{FACP,DSDT,HPET}.bin "$tmp/mut/"
    "$py" - "$tmp/mut" "$exe" <<'PY'
import os, random, subprocess, sys
d, exe = sys.argv[1:]
rng = random.Random(37)
orig = {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}
for case in range(80):
    tabs = dict(orig)
    for _ in range(rng.randint(1, 8)):
        f = rng.choice(sorted(tabs))
        b = bytearray(tabs[f])
        at = rng.choice([i for i in range(8, len(b))])  # the signature and length stay
        b[at] = rng.choice([0, 1, 2, 0x7f, 0x80, 0xff, rng.randrange(256)])
        tabs[f] = bytes(b)
    for f, b in tabs.items():
        open(os.path.join(d, f), "wb").write(b)
    r = subprocess.run([exe, "--json", d], capture_output=True)
    if r.returncode not in (0, 1, 2) or b"Sanitizer" in r.stderr or b"runtime error" in r.stderr:
        sys.exit(f"case {case}: exit {r.returncode}\n" + r.stderr.decode(errors="replace")[-3000:])
PY
}
t "damaged tables: 80 seeded byte changes to QEMU's tables, no sanitizer report" mutated

summary_current() {
    "$root/tools/acpi-check" --summary "$real" >"$tmp/summary.md"
    "$py" - "$root/docs/real-hardware.md" "$tmp/summary.md" <<'PY'
import sys
doc, want = open(sys.argv[1]).read(), open(sys.argv[2]).read()
if want not in doc:
    sys.exit("docs/real-hardware.md's acpi-check summary is not what the expected results make: "
             "tools/acpi-check --summary tests/host/acpi-samples/real --update docs/real-hardware.md")
PY
}
t "docs: real-hardware.md's summary is the expected results'" summary_current

ktap_report
