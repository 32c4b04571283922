#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A copy of the sheaves scheme is still one file: a copy of this tree (no .git; the kernel's
# objects of build/ come along, so only the new file compiles) gets mm/scheme_sheaves.c
# copied to mm/scheme_sheavescopy.c with only its registered name changed, builds with no
# other edit, and one boot (test=slab,numa bench=fastpath,bulk scheme=sheavescopy,sheaves,lock
# slabinfo=1, 2 CPUs) shows the copy everywhere the registry reaches: the boot caches run on
# it (slabinfo, its counters), the slab suite's variants and the numa suite include it, the
# benchmarks' JSON and tools/benchreport.py's summary have its figures. A layer of the core's
# (a sheaf, its capacity option sheaf_capacity=, mm/sheaf.c) is shared, not copied: a second
# definition of a boot option would not link. make test's scheme-copy[lock,lockcopy] does the
# same for the smallest scheme. Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# This runs under make test: the outer make's flags and knobs must not reach the makes below.
unset MAKEFLAGS MFLAGS MAKELEVEL CMDLINE
tree=$tmp/tree
log=$tmp/boot.log
cmdline="test=slab,numa bench=fastpath,bulk bench_reps=3 scheme=sheavescopy,sheaves,lock slabinfo=1"

mkdir -p "$tree"
tar -C "$root" --exclude=./.git --exclude=./build/host --exclude=./build/bench-host \
    --exclude='./build/*.iso' -cf - . | tar -C "$tree" -xf -
sed 's/^\(\t\.name = \)"sheaves",$/\1"sheavescopy",/' "$root/mm/scheme_sheaves.c" \
    >"$tree/mm/scheme_sheavescopy.c"
diff "$root/mm/scheme_sheaves.c" "$tree/mm/scheme_sheavescopy.c" >"$tmp/copy.diff" || true
built=0
if make -s -C "$tree" iso-cmdline CMDLINE="$cmdline" OUT="$tmp/copy.iso" >"$tmp/build.log" 2>&1; then
    built=1
    (cd "$tree" && ISO="$tmp/copy.iso" LOG="$log" SMP=2 ACCEL=tcg TIMEOUT=400 \
        tools/qemu-run.sh >/dev/null 2>&1) && echo 0 >"$tmp/rc" || echo $? >"$tmp/rc"
fi

# The copy differs from mm/scheme_sheaves.c in its .name line only.
one_line_changed() {
    local n
    n=$(grep -c '^[<>]' "$tmp/copy.diff" || true)
    [ "$n" = 2 ] || { echo "the copy differs in $n lines, want the .name line only:"; cat "$tmp/copy.diff"; return 1; }
}

builds() {
    [ "$built" = 1 ] || { echo "the tree with the copy does not build:"; tail -n 8 "$tmp/build.log"; return 1; }
}

# has TEXT...: each TEXT on a line of the boot's log.
has() {
    local s
    [ -f "$log" ] || { echo "no boot log (it did not build or boot)"; return 1; }
    for s in "$@"; do
        grep -qF -- "$s" "$log" || { echo "no line with '$s' in the boot's log"; return 1; }
    done
}

boots_and_passes() {
    [ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] ||
        { echo "the boot exited $(cat "$tmp/rc" 2>/dev/null || echo '(none)')"; tail -n 5 "$log" 2>/dev/null; return 1; }
    has '"event":"exit","result":"pass"' && grep -qE '^# Totals: pass:[0-9]+ fail:0 ' "$log" ||
        { echo "the suites did not all pass:"; grep -E '^# Totals|^not ok' "$log" | head -5; return 1; }
}

# The boot caches run on the copy (the first name of scheme=), with sheaves' counters.
slabinfo_shows_it() {
    grep -qE '^kmalloc-64 +sheavescopy +irq .* sheaf_alloc=[1-9]' "$log" ||
        { echo "slabinfo: no kmalloc-64 of sheavescopy with sheaf_alloc"; grep '^kmalloc-64 ' "$log"; return 1; }
}

suites_include_it() {
    grep -qE 'variants: .*sheaves/irq .*sheavescopy/irq' "$log" ||
        { echo "the slab suite's variants lack sheavescopy:"; grep 'variants:' "$log"; return 1; }
    has "new_slabs_are_node_local: scheme sheavescopy"
}

benchmarks_include_it() {
    has '"schemes":"lock,sheaves,sheavescopy"' '"scheme":"sheavescopy","fastpath":"sheaf"' \
        '"bench":"bulk","scheme":"sheavescopy","fastpath":"sheaf","size":256,"n":16,'
}

benchreport_includes_it() {
    "$py" "$root/tools/benchreport.py" "$log" -o "$tmp/report" >"$tmp/report.out" 2>&1 ||
        { echo "benchreport failed:"; tail -n 3 "$tmp/report.out"; return 1; }
    grep -qE '^\| fastpath: alloc\+free pair, 256 B \| sheavescopy/sheaf \| ' "$tmp/report/report.md" ||
        { echo "report.md: no summary row of sheavescopy/sheaf"; grep -i 'sheaves' "$tmp/report/report.md" | head -3; return 1; }
}

t one_line_changed one_line_changed
t builds builds
t boots_and_passes boots_and_passes
t slabinfo_shows_it slabinfo_shows_it
t suites_include_it suites_include_it
t benchmarks_include_it benchmarks_include_it
t benchreport_includes_it benchreport_includes_it
ktap_report
