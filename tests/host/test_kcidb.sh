#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for KCIDB output (tools/ktap.py --kcidb, tools/kcidb.py): every sample log in
# tests/host/ktap-samples and tests/host/bench-samples becomes a report that tools/kcidb.py
# check finds valid, with a test per KTAP case (as tools/ktap.py counts them, statuses
# mapped), the boot's verdict, a DONE test per benchmark figure with its number, the machine
# in each test's environment and the same IDs from the same log; and the checker refuses
# reports that break the schema in each of the ways listed below. KTAP (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# report LOG NAME: LOG as KCIDB in $tmp/NAME.json, checked.
report() {
    "$py" "$root/tools/ktap.py" "$1" --kcidb -o "$tmp/$2.json" || return 1
    "$py" "$root/tools/kcidb.py" check "$tmp/$2.json" >"$tmp/$2.check" ||
        { cat "$tmp/$2.check"; return 1; }
}

# The samples' case tests are ktap.py's counts, status by status, each failure with an
# excerpt and every test id once: one Python process for every sample (it imports the tools),
# writing what went wrong, if anything, to $tmp/cases-NAME.
"$py" - "$root" "$tmp" "$here"/ktap-samples/*.log <<'PY'
import json, os, sys
root, tmp = sys.argv[1:3]
sys.path.insert(0, root + "/tools")
import kcidb, ktap
for log in sys.argv[3:]:
    name = os.path.basename(log)[:-4]
    why = []
    d = kcidb.from_log(log)
    why += ["%s %s" % p for p in kcidb.check_report(d)]
    k = ktap.parse_log(ktap.clean_lines(open(log, "rb").read()), name)
    tests = [t for t in d["tests"] if t["path"] != "boot"]
    n = {s: sum(1 for t in tests if t["status"] == s) for s in ("PASS", "FAIL", "SKIP")}
    want = {"PASS": k.passed, "SKIP": k.skipped,
            "FAIL": sum(1 for f in k.failures if f["kind"] in ("case", "suite"))}
    if n != want:
        why.append("report has %s, ktap.py counts %s" % (n, want))
    why += ["%s failed without a log_excerpt" % t["path"] for t in tests
            if t["status"] == "FAIL" and not t.get("log_excerpt")]
    ids = [t["id"] for t in d["tests"]]
    if len(set(ids)) != len(ids):
        why.append("test ids repeat")
    open("%s/cases-%s" % (tmp, name), "w").write("\n".join(why))
PY
cases_match() {
    [ -f "$tmp/cases-$1" ] && [ ! -s "$tmp/cases-$1" ] || { cat "$tmp/cases-$1" 2>/dev/null; return 1; }
}
for log in "$here"/ktap-samples/*.log; do
    name=$(basename "$log" .log)
    t "ktap_sample_$name" cases_match "$name"
done

# mixed.log: the failure's message, the skip's reason, the verdict, the machine.
mixed_details() {
    report "$here/ktap-samples/mixed.log" mixed || return 1
    "$py" - "$tmp/mixed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["path"]: x for x in d["tests"]}
want = {"smp.all_cpus_online": "PASS", "smp.ipi_reaches": "FAIL", "smp.skipped_case": "SKIP",
        "mem.map_low": "PASS", "mem.map_high": "PASS", "empty": "PASS", "boot": "PASS"}
got = {p: x["status"] for p, x in t.items()}
if got != want:
    sys.exit("paths and statuses %s, want %s" % (got, want))
ex = t["smp.ipi_reaches"]["log_excerpt"]
if not ex.startswith("EXPECTATION FAILED at tests/kernel/smp_test.c:42 (cpu 3)\nExpected a == b"):
    sys.exit("failure excerpt: %r" % ex)
if t["smp.skipped_case"].get("comment") != "needs 2 cpus":
    sys.exit("skip comment: %r" % t["smp.skipped_case"].get("comment"))
env = t["smp.all_cpus_online"]["environment"]
if env["misc"]["boot"].get("cpus_online") != 4:
    sys.exit("environment: %r" % env)
b = d["builds"][0]
if b["checkout_id"] != d["checkouts"][0]["id"] or any(x["build_id"] != b["id"] for x in d["tests"]):
    sys.exit("the report's objects are not linked")
PY
}
t mixed_statuses_excerpts_environment mixed_details

# The boot's verdict from the kernel's exit line, its panic or its end.
verdict() {
    "$py" - "$root" "$here/ktap-samples/$1.log" "$2" "$3" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tools")
import kcidb
b = [x for x in kcidb.from_log(sys.argv[2])["tests"] if x["path"] == "boot"]
if len(b) != 1 or b[0]["status"] != sys.argv[3] or sys.argv[4] not in b[0].get("log_excerpt", ""):
    sys.exit("boot test: %r, want %s with %r" % (b, sys.argv[3], sys.argv[4]))
PY
}
t boot_pass verdict kernel-pass PASS ""
t boot_fail_exit_without_failed_case verdict exit-fail FAIL '"result":"fail"'
t boot_fail_panic_after_totals verdict panic-after-totals FAIL "KERNEL PANIC on cpu 0: slab: kmalloc-64 leaked 3 objects"
t boot_fail_exception verdict exception-after-totals FAIL "EXCEPTION: #UD"
t boot_fail_no_exit verdict no-exit FAIL "no exit line: the kernel did not finish"
t boot_fail_truncated verdict truncated FAIL "EXCEPTION #GP(0)"

# Benchmark figures: one DONE test each, its number the figure's value and unit.
figures() {
    report "$1" "$2" || return 1
    "$py" - "$root" "$1" "$tmp/$2.json" <<'PY'
import json, re, sys
root, log, rep = sys.argv[1:]
sys.path.insert(0, root + "/tools")
import benchreport
seg = lambda x: re.sub(r"[^a-zA-Z0-9_-]", "_", x)
figs = [f for f in benchreport.read_log(log).figs if f.bench != "meta"]
d = json.load(open(rep))
done = [t for t in d["tests"] if t["path"].startswith("bench.")]
if len(done) != len(figs) or not figs:
    sys.exit("%d figure tests for %d figures" % (len(done), len(figs)))
for t, f in zip(done, figs):
    unit = {} if f.unit == "none" else {"unit": f.unit}
    if t["status"] != "DONE" or t["number"] != dict(value=f.value, **unit) or \
            t["misc"]["figure"]["figure"] != f.figure or not t["path"].endswith(".%s.%s" % (seg(f.figure), seg(f.unit))):
        sys.exit("figure line %d: test %r" % (f.lineno, t))
paths = [t["path"] for t in done]
if len(set(paths)) != len(paths):
    sys.exit("figure paths repeat: %r" % sorted(p for p in paths if paths.count(p) > 1)[:4])
PY
}
for log in "$here"/bench-samples/*.log; do
    name=$(basename "$log" .log)
    t "bench_sample_$name" figures "$log" "bench-$name"
done

same_ids() {
    "$py" "$root/tools/ktap.py" "$here/ktap-samples/mixed.log" --kcidb -o "$tmp/a.json" &&
        "$py" "$root/tools/ktap.py" "$here/ktap-samples/mixed.log" --kcidb -o "$tmp/b.json" &&
        cmp -s "$tmp/a.json" "$tmp/b.json" &&
        "$py" "$root/tools/ktap.py" "$here/ktap-samples/mixed.log" --kcidb --origin lab_x \
            --git-commit 0123456789abcdef0123456789abcdef01234567 --git-url https://example.org/s.git \
            --log-url https://example.org/serial.log --start-time 2025-01-02T03:04:05Z -o "$tmp/c.json" &&
        "$py" "$root/tools/kcidb.py" check "$tmp/c.json" >/dev/null &&
        grep -q '"id": "lab_x:' "$tmp/c.json"
}
t same_log_same_ids_and_options same_ids

# The checker refuses each way of breaking the schema (a valid report, one change each).
refuses() {
    report "$here/ktap-samples/mixed.log" base || return 1
    "$py" - "$root" "$tmp/base.json" "$tmp" <<'PY'
import copy, json, subprocess, sys
root, base, tmp = sys.argv[1:]
good = json.load(open(base))
def t0(d): return d["tests"][0]
cases = [
    ("status OK", lambda d: t0(d).update(status="OK"), "not one of"),
    ("no build_id", lambda d: t0(d).pop("build_id"), "has no build_id (required)"),
    ("unknown property", lambda d: t0(d).update(result="pass"), "has result, which the schema does not define"),
    ("empty path segment", lambda d: t0(d).update(path="smp..x"), "does not match"),
    ("id without origin", lambda d: t0(d).update(id="nocolon"), "does not match"),
    ("origin with capitals", lambda d: t0(d).update(origin="Lab"), "does not match"),
    ("major 4", lambda d: d["version"].update(major=4), "want 5"),
    ("minor 9", lambda d: d["version"].update(minor=9), "above 3"),
    ("minor true", lambda d: d["version"].update(minor=True), "want integer"),
    ("no version", lambda d: d.pop("version"), "has no version (required)"),
    ("test id twice", lambda d: d["tests"][1].update(id=t0(d)["id"]), "is used twice"),
    ("dangling build_id", lambda d: t0(d).update(build_id="slablab:nosuch"), "names no object of builds"),
    ("dangling checkout_id", lambda d: d["builds"][0].update(checkout_id="slablab:x"), "names no object of checkouts"),
    ("short commit hash", lambda d: d["checkouts"][0].update(git_commit_hash="abc123"), "does not match"),
    ("http repository", lambda d: d["checkouts"][0].update(git_repository_url="http://x/y"), "does not match"),
    ("long excerpt", lambda d: t0(d).update(log_excerpt="x" * 16385), "more than 16384"),
    ("number as text", lambda d: t0(d).update(number={"value": "98"}), "want number"),
    ("number without value", lambda d: t0(d).update(number={"unit": "ns"}), "has no value (required)"),
    ("bad prefix", lambda d: t0(d).update(number={"value": 1, "prefix": "si"}), "not one of"),
    ("bad start_time", lambda d: t0(d).update(start_time="2025-01-02 03:04"), "is not a date-time"),
    ("bad log_url", lambda d: t0(d).update(log_url="serial log"), "is not a uri"),
    ("NUL in comment", lambda d: t0(d).update(comment="a\0b"), "does not match"),
    ("environment extra", lambda d: t0(d)["environment"].update(cpus=4), "has cpus, which"),
    ("architecture", lambda d: d["builds"][0].update(architecture="x86-64"), "does not match"),
    ("issues", lambda d: d.update(issues=[]), "does not check issues"),
    ("tests not a list", lambda d: d.update(tests={}), "want array"),
]
sys.path.insert(0, root + "/tools")
import kcidb
bad = []
for name, change, want in cases:
    d = copy.deepcopy(good)
    change(d)
    out = " ".join("%s %s" % p for p in kcidb.check_report(d))
    if want not in out:
        bad.append("%s: %r" % (name, out[-200:]))
# and through the command line, which must exit 1
d = copy.deepcopy(good)
t0(d).update(status="OK")
json.dump(d, open(tmp + "/bad.json", "w"))
r = subprocess.run([sys.executable, root + "/tools/kcidb.py", "check", tmp + "/bad.json"],
                   capture_output=True, text=True)
if r.returncode != 1 or "invalid (1 problems)" not in r.stdout:
    bad.append("kcidb.py check: exit %d, %r" % (r.returncode, r.stdout))
if bad:
    sys.exit("\n".join(bad))
PY
}
t checker_refuses_broken_reports refuses

ktap_report
