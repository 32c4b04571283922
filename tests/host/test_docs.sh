#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: the docs say what the tree has. README.md stays an entry point (under 200
# lines) whose layout table has a row for every top-level entry; docs/README.md has a line
# for every page in docs/ and docs/labs/ and none for a page that is not there; every
# relative link in the README, docs/ and tests/ goes to a file that exists (and, with
# #anchor, to a heading of it); docs/slab.md's table of schemes names exactly the schemes
# the build registers (build/host/test_slab --schemes, the list make test's scheme boots
# use), tests/README.md's table of suites exactly the KUnit suites of tests/kernel/, and
# tests/host/README.md's table exactly the host tests.
# Each table check is shown to fail on a copy with a row taken away and one added. KTAP
# (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1

# rows MARKER FILE: the first column's `names` of the table that follows the line holding
# MARKER (an HTML comment) in FILE, one a line, sorted, repeats kept.
rows() {
    awk -v m="$1" 'index($0, m) { on = 1; next } on { if (/^\|/) { print; seen = 1 } else if (seen) exit }' "$2" |
        sed -n 's/^| `\([^`]*\)` *|.*/\1/p' | sort
}

# differ WANT HAVE WHAT WHERE: a line for each name one side lacks.
differ() {
    comm -23 "$1" "$2" | sed "s|.*|$3 & has no row in $4|"
    comm -13 "$1" "$2" | sed "s|.*|$4 has a row for &, which is no $3|"
    sort "$2" | uniq -d | sed "s|.*|$4 has two rows for &|"
}

readme_is_short() {
    local n
    n=$(wc -l <README.md)
    [ "$n" -lt 200 ] || echo "README.md has $n lines; it is the entry point, under 200: move the rest to docs/"
}

# Every top-level entry git tracks (or, outside git, every one but build/) has a row in the
# README's layout table, as `name/` for a folder; and every row is such an entry.
layout_has_every_entry() {
    local e
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files | cut -d/ -f1 | sort -u >"$tmp/top"
    else
        ls -A | grep -vx -e build -e .git | sort >"$tmp/top"
    fi
    awk '/<!-- layout:/ { on = 1; next } on { if (/^\|/) { print; seen = 1 } else if (seen) exit }' README.md |
        grep -o '`[^`]*`' | tr -d '`' | sed 's|/$||' | sort -u >"$tmp/rows"
    while read -r e; do
        [ -d "$e" ] && ! grep -qx -- "$e" "$tmp/rows" && echo "README.md's layout has no row for $e/"
        [ -d "$e" ] || grep -qx -- "$e" "$tmp/rows" || echo "README.md's layout has no row for $e"
    done <"$tmp/top"
}

# docs/README.md: a line for every page, none for a page that is not there.
index_names_every_page() {
    find docs -name '*.md' ! -path docs/README.md ! -path 'docs/results/*' | sed 's|^docs/||' | sort >"$tmp/pages"
    grep -o '^- \[[^]]*\]([^)]*)' docs/README.md | sed 's/.*(\(.*\))/\1/' | sort >"$tmp/index"
    differ "$tmp/pages" "$tmp/index" "page" "docs/README.md"
}

# Every relative link [text](path#anchor) in these files reaches a file, and a heading of it.
links_resolve() {
    python3 - README.md tests/README.md tests/host/README.md docs/*.md docs/labs/*.md <<'EOF'
import os, re, sys

def slug(h):
    h = re.sub(r"[`*]", "", h.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", h))

def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            out.add(slug(line.lstrip("#")))
    return out

bad = 0
for src in sys.argv[1:]:
    text = open(src, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(src), path)) if path else src
        if not os.path.exists(full):
            print("%s: link to %s: no such file" % (src, target))
            bad = 1
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            print("%s: link to %s: no heading #%s in %s" % (src, target, anchor, full))
            bad = 1
sys.exit(bad)
EOF
}

registered_schemes() {
    [ -x build/host/test_slab ] || { echo "no build/host/test_slab: run make host-tests (make test builds it)"; return 1; }
    build/host/test_slab --schemes >"$tmp/schemes.out" 2>&1 || { cat "$tmp/schemes.out"; return 1; }
    cut -d' ' -f1 "$tmp/schemes.out" | sort >"$tmp/schemes"
    [ -s "$tmp/schemes" ] || echo "build/host/test_slab --schemes listed no scheme"
}

scheme_table() {
    rows "registered schemes:" "${1:-docs/slab.md}" >"$tmp/scheme_rows"
    differ "$tmp/schemes" "$tmp/scheme_rows" "registered scheme" "docs/slab.md's scheme table"
}

kernel_suites() {
    python3 - tests/kernel/*.c <<'EOF' | sort
import re, sys
for f in sys.argv[1:]:
    for m in re.finditer(r"struct\s+kunit_suite\s+\w+\s*=\s*\{[^}]*?\.name\s*=\s*\"([^\"]+)\"",
                         open(f, encoding="utf-8").read()):
        print(m.group(1))
EOF
}

suite_table() {
    kernel_suites >"$tmp/suites"
    [ -s "$tmp/suites" ] || { echo "found no kunit_suite in tests/kernel/"; return 0; }
    rows "kernel suites:" "${1:-tests/README.md}" >"$tmp/suite_rows"
    differ "$tmp/suites" "$tmp/suite_rows" "suite of tests/kernel/" "tests/README.md's suite table"
}

# tests/host/README.md's table: a row for each host test (`test_NAME` for tests/host/test_NAME.c,
# `test_NAME.sh` for an executable script, as make test finds them), none for a test not there.
host_tests() {
    local f
    for f in tests/host/test_*.c tests/host/test_*.sh; do
        if [[ $f == *.c ]]; then basename "$f" .c; elif [ -x "$f" ]; then basename "$f"; fi
    done | sort
}

host_table() {
    host_tests >"$tmp/host_tests"
    rows "host tests:" "${1:-tests/host/README.md}" >"$tmp/host_rows"
    differ "$tmp/host_tests" "$tmp/host_rows" "host test" "tests/host/README.md's table"
}

# The checks fail when they should: copies with a row taken away and a row added.
table_check_fails() {
    local check=$1 file=$2 first out
    first=$(rows "$3" "$file" | head -n 1)
    [ -n "$first" ] || { echo "no rows under '$3' in $file"; return 1; }
    grep -v "^| \`$first\` *|" "$file" >"$tmp/less.md"
    out=$("$check" "$tmp/less.md")
    [[ $out == *"$first has no row"* ]] || { echo "$check with $first's row taken away said: ${out:-nothing}"; return 1; }
    awk -v m="$3" '{ print } index($0, m) { getline; print; getline; print; print "| `zz-none` | a row for nothing |" }' \
        "$file" >"$tmp/more.md"
    out=$("$check" "$tmp/more.md")
    [[ $out == *"has a row for zz-none"* ]] || { echo "$check with a row for zz-none said: ${out:-nothing}"; return 1; }
}

t "README.md is under 200 lines" quiet readme_is_short
t "README.md's layout has a row for every top-level entry" quiet layout_has_every_entry
t "docs/README.md indexes every page of docs/ and docs/labs/" quiet index_names_every_page
t "every relative link in the docs resolves" quiet links_resolve
t "the build registers schemes" registered_schemes
t "docs/slab.md's scheme table is the registered schemes" quiet scheme_table
t "the scheme table's check fails on a missing and an extra row" table_check_fails scheme_table docs/slab.md "registered schemes:"
t "tests/README.md's suite table is the suites of tests/kernel/" quiet suite_table
t "the suite table's check fails on a missing and an extra row" table_check_fails suite_table tests/README.md "kernel suites:"
t "the host README's table has a row for each host test" quiet host_table
t "the host test table's check fails on a missing and an extra row" table_check_fails host_table tests/host/README.md "host tests:"
ktap_report
