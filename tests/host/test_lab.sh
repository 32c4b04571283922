#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/lab.py (docs/labs/): the handout tool on a small tree of its own (nested
# regions, a solution file, the output text exactly), on bad markers (each fails naming the
# file and line, and writes nothing), on this tree (no marker text or history left, a stub
# per region); and the grader's checks on serial logs made here (--from-logs): a complete
# log passes, and a case left out, a case twice, a wrong plan, counters at zero, a figure
# over its bound or a panic each fail with the reason. KTAP (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
lab="python3 $root/tools/lab.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the handout tool on a tree of its own ----
src=$tmp/src
mkdir -p "$src/mm"
cat >"$src/mm/a.c" <<'EOF'
#include "mm/slub.h"

/* LAB3: BEGIN */
static int helper(int x)
{
	return x + 1;
}
/* LAB3: END */

int f(int x)
{
	/* LAB3: BEGIN */
	int y = helper(x);
	/* LAB4: BEGIN */
	y *= 2; /* the lab 4 part */
	/* LAB4: END */
	return y;
	/* LAB3: END */
}

void g(void)
{
	/* LAB4: BEGIN */
	h();
	/* LAB4: END */
}
EOF
printf '/* LAB4: FILE */\nint lab4_solution;\n' >"$src/mm/scheme_mine.c"
printf '/* LAB3: FILE */\nint lab3_solution;\n' >"$src/mm/scheme_three.c"
printf 'text with /* LAB3: BEGIN */ in a document\n' >"$src/notes.md"

handout_3_exact() {
    local out=$tmp/h3 rc=0
    $lab handout 3 "$out" --src "$src" >"$tmp/h3.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc:"; cat "$tmp/h3.out"; return 1; }
    diff -u - "$out/mm/a.c" <<'EOF' || return 1
#include "mm/slub.h"
#include "kernel/printk.h"

/* LAB3: BEGIN */
/* LAB3: END */

int f(int x)
{
	/* LAB3: BEGIN */
	panic("LAB3: %s: not implemented (docs/labs/lab3.md)", __func__);
	/* LAB3: END */
}

void g(void)
{
	/* LAB4: BEGIN */
	panic("LAB4: %s: not implemented (docs/labs/lab4.md)", __func__);
	/* LAB4: END */
}
EOF
    [ ! -e "$out/mm/scheme_mine.c" ] || { echo "lab 4's solution file is in the lab 3 handout"; return 1; }
    [ ! -e "$out/mm/scheme_three.c" ] || { echo "lab 3's solution file is in the lab 3 handout"; return 1; }
    cmp -s "$src/notes.md" "$out/notes.md" || { echo "notes.md changed"; return 1; }
    grep -q "lab 3 handout" "$out/HANDOUT" || { echo "no HANDOUT naming lab 3"; return 1; }
    grep -q "2 regions replaced by stubs, 1 declaration regions removed, 2 solution files left out" "$tmp/h3.out" ||
        { echo "summary: $(cat "$tmp/h3.out")"; return 1; }
}

handout_4_keeps_lab3() {
    local out=$tmp/h4 rc=0
    $lab handout 4 "$out" --src "$src" >"$tmp/h4.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc:"; cat "$tmp/h4.out"; return 1; }
    diff -u - "$out/mm/a.c" <<'EOF' || return 1
#include "mm/slub.h"
#include "kernel/printk.h"

static int helper(int x)
{
	return x + 1;
}

int f(int x)
{
	int y = helper(x);
	/* LAB4: BEGIN */
	panic("LAB4: %s: not implemented (docs/labs/lab4.md)", __func__);
	/* LAB4: END */
	return y;
}

void g(void)
{
	/* LAB4: BEGIN */
	panic("LAB4: %s: not implemented (docs/labs/lab4.md)", __func__);
	/* LAB4: END */
}
EOF
    [ ! -e "$out/mm/scheme_mine.c" ] || { echo "lab 4's solution file is in the lab 4 handout"; return 1; }
    [ "$(cat "$out/mm/scheme_three.c")" = "int lab3_solution;" ] ||
        { echo "lab 3's solution file: '$(cat "$out/mm/scheme_three.c" 2>&1)', want it without its FILE line"; return 1; }
}

# bad NAME LINE... -- WANT: a file bad.c of those lines fails with WANT (file:line: ...) on
# stderr and exit 1, and the output directory is not created.
bad() {
    local b=$tmp/bad-$1 want out rc=0
    shift
    mkdir -p "$b/mm"
    : >"$b/mm/bad.c"
    while [ "$1" != -- ]; do printf '%s\n' "$1" >>"$b/mm/bad.c"; shift; done
    want=$2
    out=$($lab handout 3 "$b.out" --src "$b" 2>&1) || rc=$?
    [ "$rc" = 1 ] || { echo "exit $rc, want 1: $out"; return 1; }
    [[ $out == *"$want"* ]] || { echo "want '$want', got: $out"; return 1; }
    [ ! -e "$b.out" ] || { echo "the output directory was created"; return 1; }
}

unbalanced_begin() { bad ub 'int x;' '/* LAB3: BEGIN */' 'int y;' -- "mm/bad.c:2: LAB3: BEGIN without an END"; }
unbalanced_end() { bad ue 'int x;' '/* LAB3: END */' -- "mm/bad.c:2: LAB3: END without a BEGIN"; }
unknown_lab() { bad ul '/* LAB9: BEGIN */' '/* LAB9: END */' -- "mm/bad.c:1: LAB9: no such lab in this course"; }
nested_wrongly() {
    bad nw '/* LAB4: BEGIN */' '/* LAB3: BEGIN */' '/* LAB3: END */' '/* LAB4: END */' -- \
        "mm/bad.c:2: LAB3: BEGIN inside LAB4's region (from line 1)"
}
nested_same_lab() {
    bad ns '/* LAB3: BEGIN */' '/* LAB3: BEGIN */' '/* LAB3: END */' '/* LAB3: END */' -- \
        "mm/bad.c:2: LAB3: BEGIN inside LAB3's region"
}
crossing() {
    bad cr '/* LAB3: BEGIN */' '/* LAB4: BEGIN */' '/* LAB3: END */' '/* LAB4: END */' -- \
        "mm/bad.c:3: LAB3: END while LAB4's region (from line 2) is open"
}
misspelt() { bad ms 'int x;' '/* LAB3: BEGN */' -- "mm/bad.c:2: not a marker"; }
not_alone() { bad na '/* LAB3: BEGIN */' 'x = 1; /* LAB3: END */' -- "mm/bad.c:2: not a marker"; }
file_not_first() { bad ff 'int x;' '/* LAB3: FILE */' -- "mm/bad.c:2: LAB3: FILE must be the first line"; }

refuses_nonempty_out() {
    local out rc=0
    mkdir -p "$tmp/full"
    : >"$tmp/full/x"
    out=$($lab handout 3 "$tmp/full" --src "$src" 2>&1) || rc=$?
    [ "$rc" = 2 ] && [[ $out == *"exists and is not an empty directory"* ]] || { echo "exit $rc: $out"; return 1; }
    out=$($lab handout 7 "$tmp/h7" --src "$src" 2>&1) && { echo "lab 7 accepted"; return 1; }
    [[ $out == *"no lab 7 in this course"* ]] || { echo "lab 7: $out"; return 1; }
}

# ---- the handout of this tree ----
this_tree_handout() {
    local out=$tmp/real rc=0 n f
    $lab markers >"$tmp/markers.out" 2>&1 || { echo "markers:"; cat "$tmp/markers.out"; return 1; }
    if [ -f "$root/HANDOUT" ]; then
        echo "# SKIP a lab handout: its solutions are gone (HANDOUT)"
        return 0
    fi
    $lab handout 3 "$out" >"$tmp/real.out" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc:"; cat "$tmp/real.out"; return 1; }
    [ ! -e "$out/.git" ] || { echo "the handout has a .git"; return 1; }
    [ ! -e "$out/build" ] || { echo "the handout has a build/"; return 1; }
    for f in tools/lab.py docs/labs/lab1.md docs/labs/lab3.md docs/labs/lab4.md Makefile; do
        [ -f "$out/$f" ] || { echo "no $f in the handout"; return 1; }
    done
    # The markers of labs 3 and later stay, around their stubs (the grader takes the
    # student's code from between them); lab 1's and 2's go with their solutions in place.
    if grep -rnE 'LAB[12]: (BEGIN|END)|LAB[0-9]+: FILE' --include='*.c' --include='*.h' "$out"; then
        echo "marker text of an earlier lab left in the handout"
        return 1
    fi
    # Every region of lab 3 and 4 is one stub now (markers lists them all, none nested;
    # those at column 0, "decl", just go), in a .c file or a .h one (lab 3's first, mm/slub.h).
    for n in 3 4 5; do
        want=$(grep -c " LAB$n\$" "$tmp/markers.out")
        got=$(grep -rhF "panic(\"LAB$n: %s: not implemented" --include='*.c' --include='*.h' "$out" | wc -l)
        [ "$want" -gt 0 ] && [ "$got" = "$want" ] || { echo "lab $n: $got stubs for $want regions"; return 1; }
    done
    # Lab 1's are kept in lab 3's handout, markers gone; its own handout has the stubs.
    grep -qF 'boot_param(mem_map, mem_map_option' "$out/arch/x86/multiboot.c" ||
        { echo "lab 1's option is not in the lab 3 handout"; return 1; }
    $lab handout 1 "$tmp/real1" >"$tmp/real1.out" 2>&1 || { cat "$tmp/real1.out"; return 1; }
    ! grep -q 'mem_map_option;' "$tmp/real1/arch/x86/multiboot.c" ||
        { echo "lab 1's option is still in the lab 1 handout"; return 1; }
    want=$(grep -c " LAB1\$" "$tmp/markers.out")
    got=$(grep -c 'panic("LAB1: %s: not implemented' "$tmp/real1/arch/x86/multiboot.c")
    [ "$want" -gt 0 ] && [ "$got" = "$want" ] || { echo "lab 1: $got stubs for $want regions"; return 1; }
    # The solutions' code is gone: lines only the regions had.
    for f in 'unfreeze_partials(s, c, old);' 'cmpxchg_local(&c->fl_word, w, fl_word_next(w, next))'; do
        grep -rqF "$f" "$root/mm" || { echo "'$f' is not in the tree: update this test"; return 1; }
        ! grep -rqF "$f" "$out/mm" || { echo "'$f' is still in the handout"; return 1; }
    done
    lab5_handout || return 1
}

# Lab 5: the scheme's skeleton stays, without its registration (a region at column 0) and
# with a stub per region; the written answers (not C: SOLUTION_FILES) are left out; labs 3
# and 4's solutions are in it.
lab5_handout() {
    local out=$tmp/real5 f want got
    grep -qxF 'answers-lab5.txt:1 LAB5 file' "$tmp/markers.out" ||
        { echo "markers does not list answers-lab5.txt as lab 5's"; return 1; }
    grep -qxF 'mm/scheme_lab5.c:1 LAB5 file' "$tmp/markers.out" &&
        { echo "mm/scheme_lab5.c is a FILE: the handout would have no skeleton"; return 1; }
    $lab handout 5 "$out" >"$tmp/real5.out" 2>&1 || { cat "$tmp/real5.out"; return 1; }
    [[ $(cat "$tmp/real5.out") == *"1 solution files left out"* ]] ||
        { echo "lab 5 handout: $(cat "$tmp/real5.out")"; return 1; }
    for d in "$out" "$tmp/real"; do
        [ ! -e "$d/answers-lab5.txt" ] || { echo "answers-lab5.txt is in $d"; return 1; }
        [ -f "$d/mm/scheme_lab5.c" ] || { echo "no skeleton mm/scheme_lab5.c in $d"; return 1; }
        ! grep -qF 'slab_scheme_register(lab5_scheme);' "$d/mm/scheme_lab5.c" ||
            { echo "$d registers lab5: lab 4's slab suite would reach its stubs"; return 1; }
    done
    grep -qF 'static const struct slab_scheme lab5_scheme __used = {' "$out/mm/scheme_lab5.c" ||
        { echo "the skeleton lost its struct slab_scheme"; return 1; }
    want=$(grep -c "^mm/scheme_lab5.c:.* LAB5\$" "$tmp/markers.out")
    got=$(grep -c 'panic("LAB5: %s: not implemented (docs/labs/lab5.md)", __func__);' "$out/mm/scheme_lab5.c")
    [ "$want" -ge 7 ] && [ "$got" = "$want" ] || { echo "lab 5: $got stubs for $want regions"; return 1; }
    for f in 'smp_send_ipi(o->owner, &lab5_ipi);' 'free_mine(s, c, obj_to_slab(object), object, NULL);'; do
        grep -qF "$f" "$root/mm/scheme_lab5.c" || { echo "'$f' is not in the tree: update this test"; return 1; }
        ! grep -qF "$f" "$out/mm/scheme_lab5.c" || { echo "'$f' is still in the lab 5 handout"; return 1; }
    done
    grep -rqF 'unfreeze_partials(s, c, old);' "$out/mm" || { echo "lab 4's solution is not in the lab 5 handout"; return 1; }
    [ -f "$out/docs/labs/lab5.md" ] || { echo "no docs/labs/lab5.md in the lab 5 handout"; return 1; }
}

# ---- the grader on logs made here ----
# slab_log FILE SMP SCHEME COUNTERS [EDIT]: a serial log as a passing boot of
# test=slab_fastpath with slabinfo=1 prints it, every case this tree declares ok; EDIT a sed
# script applied.
slab_log() {
    local file=$1 smp=$2 scheme=$3 counters=$4 edit=${5:-} i=0 c cases
    cases=$(sed -n 's/^[[:space:]]*KUNIT_CASE(\([a-z0-9_]*\)).*/\1/p' "$root/tests/kernel/slab_fastpath_test.c")
    {
        echo "qemu-run: tcg smp=$smp"
        echo '  Booting `slablab test=slab'"'"
        echo "{\"event\":\"boot\",\"cpus_online\":$smp,\"cpus_found\":$smp}"
        echo "KTAP version 1"
        echo "1..1"
        echo "    KTAP version 1"
        echo "    # Subtest: slab_fastpath"
        echo "    1..$(wc -l <<<"$cases")"
        for c in $cases; do
            i=$((i + 1))
            echo "    ok $i $c"
        done
        echo "ok 1 slab_fastpath"
        echo "slabinfo - version: slablab 1"
        echo "kmalloc-64           $scheme          irq               0         64      64     64     0        1        0  $counters"
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } | sed "${edit:-p;d}" >"$file"
}

# grade_logs LAB DIR: lab.py grade --from-logs on DIR; its output in $gout, exit in $grc.
grade_logs() {
    grc=0
    gout=$($lab grade --lab "$1" --logdir "$2" --from-logs 2>&1) || grc=$?
}

lab3_logs() {
    local d=$1 edit=${2:-} fig=${3:-39.0}
    mkdir -p "$d"
    slab_log "$d/lab3-slab-smp1.log" 1 lock "alloc_fastpath=1200 free_fastpath=1300" "$edit"
    slab_log "$d/lab3-slab-smp2.log" 2 lock "alloc_fastpath=1200 free_fastpath=1300"
    {
        echo '  Booting `slablab test=slab_race'"'"
        echo '{"event":"boot","cpus_online":1,"cpus_found":1}'
        printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: slab_race" "    1..2" \
            "    ok 1 fastpath_storm_irq" "    ok 2 fastpath_storm_cmpxchg" "ok 1 slab_race"
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } >"$d/lab3-storm.log"
    cp "$root/build/slablab.elf" "$d/lab3.elf" # the binary check's (made by make test)
    {
        echo '  Booting `slablab bench=fastpath'"'"
        for fp in irq cmpxchg; do
            echo "{\"bench\":\"fastpath\",\"scheme\":\"lock\",\"fastpath\":\"$fp\",\"size\":64,\"pairs\":1000,\"reps\":3,\"figure\":\"alloc_free_pair\",\"value\":$fig,\"unit\":\"cycles\",\"accel\":\"tcg\",\"emulated\":true,\"cpus\":1}"
        done
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } >"$d/lab3-fastpath-icount.log"
}

grader_full_marks() {
    lab3_logs "$tmp/g-ok"
    grade_logs 3 "$tmp/g-ok"
    [ "$grc" = 0 ] && [[ $gout == *"score: 70/70"* ]] || { echo "exit $grc: $gout"; return 1; }
}

# grader_fails NAME EDIT WANT [FIGURE]: the 1-CPU slab log edited by EDIT (sed) loses that
# check's 20 points with WANT in its FAIL line.
grader_fails() {
    local d=$tmp/g-$1
    lab3_logs "$d" "$2" "${4:-39.0}"
    grade_logs 3 "$d"
    [ "$grc" = 1 ] || { echo "exit $grc, want 1: $gout"; return 1; }
    grep -F "FAIL" <<<"$gout" | grep -qF -- "$3" || { echo "want a FAIL line with '$3': $gout"; return 1; }
}

grader_case_left_out() { grader_fails left '/ok [0-9]* double_free_is_refused$/d;s/^    1\.\.\([0-9]*\)$/    1..5/' "planned 5 cases"; }
grader_case_missing() { grader_fails missing '/ok [0-9]* double_free_is_refused$/d' "did not report double_free_is_refused"; }
grader_case_twice() { grader_fails twice 's/^\(    ok [0-9]* \)double_free_is_refused$/&\n\1double_free_is_refused/' "reported double_free_is_refused more than once"; }
grader_case_failed() { grader_fails failed 's/^    ok \([0-9]* stress_every_cpu\)$/    not ok \1/' "failed: slab_fastpath.stress_every_cpu"; }
grader_unknown_case() { grader_fails unknown 's/ double_free_is_refused$/ all_good_trust_me/' "declare nowhere: all_good_trust_me"; }
grader_counters_zero() { grader_fails zero 's/alloc_fastpath=1200/alloc_fastpath=0/' "alloc_fastpath is 0 over the kmalloc caches of lock"; }
grader_counters_short() { grader_fails short 's/free_fastpath=1300/free_fastpath=999/' "free_fastpath is 999 over the kmalloc caches of lock, want at least 1000"; }
grader_wrong_cpus() { grader_fails cpus 's/"cpus_online":1/"cpus_online":2/' "reported 2 CPUs online, want 1"; }
grader_over_budget() { grader_fails budget '' "an alloc+free pair is 43.0 instructions, the bound is 42" 43.0; }
grader_failed_line() {
    grader_fails failedline '/ok [0-9]* stress_every_cpu$/i\
    # stress_every_cpu: EXPECTATION FAILED at tests/kernel/slab_fastpath_test.c:250 (cpu 0)\
    Expected fs.errors == 0, but' "slab_fastpath.stress_every_cpu failed at tests/kernel/slab_fastpath_test.c:250"
}
grader_panic() {
    grader_fails panic '/ok [0-9]* stress_every_cpu$/,$c\
KERNEL PANIC on cpu 0: LAB3: slab_alloc_fast_irq: not implemented (docs/labs/lab3.md)' \
        "kernel panic in slab_alloc_fast_irq during slab_fastpath.stress_every_cpu: LAB3: slab_alloc_fast_irq: not implemented"
}
# ---- lab 5's grader on logs made here ----
# suites_log FILE SMP SCHEME COUNTERS SUITE...: a passing boot of those suites (every case
# their source in this tree declares) with a kmalloc-64 slabinfo line of SCHEME.
suites_log() {
    local file=$1 smp=$2 scheme=$3 counters=$4 suite cases c i n=0
    shift 4
    {
        echo '  Booting `slablab test=slab,slab_ipi'"'"
        echo "{\"event\":\"boot\",\"cpus_online\":$smp,\"cpus_found\":$smp}"
        echo "KTAP version 1"
        echo "1..$#"
        for suite; do
            n=$((n + 1))
            cases=$(sed -n 's/^[[:space:]]*KUNIT_CASE(\([a-z0-9_]*\)).*/\1/p' "$root/tests/kernel/${suite}_test.c")
            echo "    KTAP version 1"
            echo "    # Subtest: $suite"
            echo "    1..$(wc -l <<<"$cases")"
            i=0
            for c in $cases; do
                i=$((i + 1))
                echo "    ok $i $c"
            done
            echo "ok $n $suite"
        done
        echo "slabinfo - version: slablab 1"
        echo "kmalloc-64           $scheme          irq               0         64      64     64     0        1        0  $counters"
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } >"$file"
}

# lab5_logs DIR IPIS [ANSWERS_IPIS]: the three boots' logs, IPIS the grader's own bench=remote
# figure of lab5; a tree DIR/tree with answers-lab5.txt quoting ANSWERS_IPIS (default IPIS).
lab5_logs() {
    local d=$1 ipis=$2 said=${3:-$2} sch v q
    local c4="alloc_fastpath=13239 free_fastpath=12231 remote_free=1012 ipi_sent=30 remote_drained=960"
    mkdir -p "$d/tree"
    suites_log "$d/lab5-slab-smp1.log" 1 lab5 "alloc_fastpath=1200 free_fastpath=1300" slab slab_ipi
    suites_log "$d/lab5-slab-smp5.log" 5 lab5 "$c4" slab slab_ipi
    {
        echo '  Booting `slablab test=slab_race'"'"
        echo '{"event":"boot","cpus_online":5,"cpus_found":5}'
        printf '%s\n' "KTAP version 1" "1..1" "    KTAP version 1" "    # Subtest: slab_race" "    1..1" \
            "    ok 1 owner_remote_storm" "ok 1 slab_race"
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } >"$d/lab5-storm.log"
    {
        echo '  Booting `slablab bench=remote'"'"
        echo "{\"bench\":\"remote\",\"scheme\":\"lab5\",\"pairs\":2,\"objects\":20000,\"figure\":\"objects_per_drain\",\"value\":150.9,\"unit\":\"count\"}"
        echo "{\"bench\":\"remote\",\"scheme\":\"lab5\",\"pairs\":2,\"objects\":20000,\"figure\":\"per_object\",\"value\":635.5,\"unit\":\"cycles\"}"
        echo "{\"bench\":\"remote\",\"scheme\":\"lab5\",\"pairs\":2,\"objects\":20000,\"figure\":\"ipis_per_1000_frees\",\"value\":$ipis,\"unit\":\"count\"}"
        echo '{"event":"exit","result":"pass","code":16,"uptime_ms":100}'
    } >"$d/lab5-remote.log"
    : >"$d/tree/Makefile"
    {
        for q in 1 2 3 4; do
            echo "Q$q: lock took 518.0 instructions per object, partial 511.4 and lab5 635.5,"
            echo "with $said IPIs per thousand remote frees; these words are here to make the answer long"
            echo "enough for the grader, which counts thirty of them at the least in each answer."
        done
        for sch in lock partial lab5; do
            v=$([ $sch = lab5 ] && echo "$said" || echo 0.0)
            echo "{\"bench\":\"remote\",\"scheme\":\"$sch\",\"pairs\":2,\"objects\":20000,\"figure\":\"ipis_per_1000_frees\",\"value\":$v,\"unit\":\"count\"}"
            v=$(case $sch in lock) echo 518.0 ;; partial) echo 511.4 ;; *) echo 635.5 ;; esac)
            echo "{\"bench\":\"remote\",\"scheme\":\"$sch\",\"pairs\":2,\"objects\":20000,\"figure\":\"per_object\",\"value\":$v,\"unit\":\"cycles\"}"
        done
    } >"$d/tree/answers-lab5.txt"
}

grade5() {
    grc=0
    gout=$($lab grade --lab 5 --logdir "$1" --tree "$1/tree" --from-logs 2>&1) || grc=$?
}

# lab5_fails NAME WANT POINTS: lab5_logs in $tmp/g5-NAME (made by the caller) loses POINTS
# with WANT in a FAIL line.
lab5_fails() {
    grade5 "$tmp/g5-$1"
    [ "$grc" = 1 ] || { echo "exit $grc, want 1: $gout"; return 1; }
    grep -F "FAIL" <<<"$gout" | grep -qF -- "$2" || { echo "want a FAIL line with '$2': $gout"; return 1; }
    [[ $gout == *"score: $((60 - $3))/60"* ]] || { echo "want $((60 - $3))/60: $gout"; return 1; }
}

lab5_full_marks() {
    lab5_logs "$tmp/g5-ok" 31.3
    grade5 "$tmp/g5-ok"
    [ "$grc" = 0 ] && [[ $gout == *"score: 60/60"* ]] || { echo "exit $grc: $gout"; return 1; }
}
lab5_ipi_per_free() { lab5_logs "$tmp/g5-each" 1000.0; lab5_fails each "IPIs is 1000.0 per 1000 remote frees, the bound is 40" 10; }
lab5_no_ipis() { lab5_logs "$tmp/g5-none" 0.0; lab5_fails none "IPIs per 1000 remote frees (the owner must be told) is 0.0, want at least 1" 10; }
lab5_no_answers() {
    lab5_logs "$tmp/g5-noans" 31.3
    rm "$tmp/g5-noans/tree/answers-lab5.txt"
    lab5_fails noans "LAB5: answers-lab5.txt: not written" 10
}
lab5_answers_not_measured() { lab5_logs "$tmp/g5-made" 31.3 12.0; lab5_fails made "the pasted ipis_per_1000_frees of lab5, 12.0, is not what this kernel does under ICOUNT=1 (31.3 in the grader's run" 10; }
lab5_answer_short() {
    lab5_logs "$tmp/g5-short" 31.3
    sed -i '/^Q3:/,/^Q4:/{/^Q4:/!d}' "$tmp/g5-short/tree/answers-lab5.txt"
    echo "Q3: too short." >>"$tmp/g5-short/tree/answers-lab5.txt"
    lab5_fails short "the answer to question 3 has 2 words, want at least 30" 10
}
lab5_answers_no_figures() {
    lab5_logs "$tmp/g5-nofig" 31.3
    sed -i '/"scheme":"partial"/d' "$tmp/g5-nofig/tree/answers-lab5.txt"
    lab5_fails nofig "no pasted JSON line of bench=remote with scheme partial" 10
}
lab5_counters_short() {
    lab5_logs "$tmp/g5-cnt" 31.3
    sed -i 's/remote_free=1012/remote_free=999/' "$tmp/g5-cnt/lab5-slab-smp5.log"
    lab5_fails cnt "remote_free is 999 over the kmalloc caches of lab5, want at least 1000" 10
}
lab5_not_registered() {
    local f
    lab5_logs "$tmp/g5-unreg" 31.3
    for f in "$tmp"/g5-unreg/lab5-*.log; do
        printf '%s\n' '  Booting `slablab' "scheme: no scheme named 'lab5' in this kernel; valid: all lock" \
            '{"event":"exit","result":"fail","code":17,"uptime_ms":309}' >"$f"
    done
    grade5 "$tmp/g5-unreg"
    [ "$grc" = 1 ] && [[ $gout == *"score: 0/60"* ]] || { echo "exit $grc: $gout"; return 1; }
    [ "$(grep -c "FAIL .*LAB5: no scheme lab5 in this kernel" <<<"$gout")" = 6 ] ||
        { echo "want 6 FAIL lines on the missing registration: $gout"; return 1; }
}

# A boot the grader stopped (no output for 60 s of emulation) in the storm's second case:
# the first case's check and the binary check keep their points, the second names the case.
grader_stopped_after_case() {
    local d=$tmp/g-stopped
    lab3_logs "$d"
    sed -i -e '/ok 2 fastpath_storm_cmpxchg/,$d' "$d/lab3-storm.log"
    echo '{"exit": 143, "stopped": 60}' >"$d/lab3-storm.end"
    grade_logs 3 "$d"
    [ "$grc" = 1 ] && [[ $gout == *"score: 60/70"* ]] || { echo "exit $grc, want 1 and 60/70: $gout"; return 1; }
    grep -q "ok   irq fastpath under a storm" <<<"$gout" &&
        grep -q "ok   cmpxchg fastpath in the binary" <<<"$gout" ||
        { echo "a check of what finished lost its points: $gout"; return 1; }
    grep "FAIL cmpxchg fastpath under a storm" <<<"$gout" |
        grep -qF "stopped: no output for 60 s of emulation in slab_race.fastpath_storm_cmpxchg" ||
        { echo "want the stop named with its case: $gout"; return 1; }
}

# The storm boot's cmpxchg case failed (and with it the boot's exit event): the irq case's
# check keeps its points, the cmpxchg one loses them with the case's finding.
grader_other_case_failed() {
    local d=$tmp/g-othercase
    lab3_logs "$d"
    sed -i -e 's/^    ok 2 fastpath_storm_cmpxchg$/    # fastpath_storm_cmpxchg: EXPECTATION FAILED at tests\/kernel\/slab_race_test.c:100 (cpu 0)\n    cmpxchg: 5 stamp errors\n    not ok 2 fastpath_storm_cmpxchg/' \
        -e 's/^ok 1 slab_race$/not ok 1 slab_race/' -e 's/"result":"pass","code":16/"result":"fail","code":17/' "$d/lab3-storm.log"
    grade_logs 3 "$d"
    [ "$grc" = 1 ] && [[ $gout == *"score: 60/70"* ]] || { echo "exit $grc, want 1 and 60/70: $gout"; return 1; }
    grep -q "ok   irq fastpath under a storm" <<<"$gout" ||
        { echo "the irq case's check lost its points: $gout"; return 1; }
    grep "FAIL cmpxchg fastpath under a storm" <<<"$gout" | grep -qF "cmpxchg: 5 stamp errors" ||
        { echo "want the cmpxchg case's finding: $gout"; return 1; }
}

# A storm that landed too few interrupts skips its case: the grader counts that as a failure.
grader_storm_skipped() {
    local d=$tmp/g-skipped
    lab3_logs "$d"
    sed -i 's/^    ok 1 fastpath_storm_irq$/    ok 1 fastpath_storm_irq # SKIP too few interrupts in the fastpath to prove anything/' "$d/lab3-storm.log"
    grade_logs 3 "$d"
    [ "$grc" = 1 ] && [[ $gout == *"score: 60/70"* ]] || { echo "exit $grc, want 1 and 60/70: $gout"; return 1; }
    grep "FAIL irq fastpath under a storm" <<<"$gout" |
        grep -qF "skipped: slab_race.fastpath_storm_irq (too few interrupts in the fastpath" ||
        { echo "want the skip and its reason: $gout"; return 1; }
}

grader_bad_lab() {
    local out rc=0
    out=$($lab grade --lab 9 --logdir "$tmp/g9" --from-logs 2>&1) || rc=$?
    [ "$rc" = 2 ] && [[ $out == *"no lab 9 in this course"* ]] || { echo "exit $rc: $out"; return 1; }
}

t handout_3_exact handout_3_exact
t handout_4_keeps_lab3 handout_4_keeps_lab3
t unbalanced_begin unbalanced_begin
t unbalanced_end unbalanced_end
t unknown_lab unknown_lab
t nested_wrongly nested_wrongly
t nested_same_lab nested_same_lab
t crossing crossing
t misspelt misspelt
t not_alone not_alone
t file_not_first file_not_first
t refuses_nonempty_out refuses_nonempty_out
t this_tree_handout this_tree_handout
t grader_full_marks grader_full_marks
t grader_case_left_out grader_case_left_out
t grader_case_missing grader_case_missing
t grader_case_twice grader_case_twice
t grader_case_failed grader_case_failed
t grader_unknown_case grader_unknown_case
t grader_counters_zero grader_counters_zero
t grader_counters_short grader_counters_short
t grader_wrong_cpus grader_wrong_cpus
t grader_over_budget grader_over_budget
t grader_panic grader_panic
t grader_failed_line grader_failed_line
t grader_stopped_after_case grader_stopped_after_case
t grader_other_case_failed grader_other_case_failed
t grader_storm_skipped grader_storm_skipped
t grader_bad_lab grader_bad_lab
t lab5_full_marks lab5_full_marks
t lab5_ipi_per_free lab5_ipi_per_free
t lab5_no_ipis lab5_no_ipis
t lab5_no_answers lab5_no_answers
t lab5_answers_not_measured lab5_answers_not_measured
t lab5_answer_short lab5_answer_short
t lab5_answers_no_figures lab5_answers_no_figures
t lab5_counters_short lab5_counters_short
t lab5_not_registered lab5_not_registered
ktap_report
