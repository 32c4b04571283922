#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for tools/layercheck.sh: the tree as it is passes; a copy of its sources with one
# include planted against each rule fails, naming the file and line, the include and the
# rule; the allow-list admits its white-box tests and nothing else. KTAP (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
check=$root/tools/layercheck.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tree_passes() {
    local out rc=0
    out=$("$check" "$root") || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc on the tree itself:"; echo "$out"; }
}

# The copy the planted includes go into: the source directories only.
copy=$tmp/tree
mkdir -p "$copy"
for d in arch bench init kernel mm tests tools; do
    [ -d "$root/$d" ] && cp -r "$root/$d" "$copy/"
done

copy_passes() {
    local out rc=0
    out=$("$check" "$copy") || rc=$?
    [ "$rc" = 0 ] || { echo "exit $rc on the unchanged copy:"; echo "$out"; }
}

# planted FILE INCLUDE RULE: add `#include "INCLUDE"` after FILE's SPDX line (line 2 then),
# run the check on the copy, restore FILE. It must exit 1 with exactly one violation line
# naming FILE:2, the include and RULE.
planted() {
    local file=$1 inc=$2 rule=$3 out rc=0 want
    [ -f "$copy/$file" ] || { echo "no $file in the tree"; return; }
    cp "$copy/$file" "$tmp/saved"
    sed -i "1a #include \"$inc\"" "$copy/$file"
    out=$("$check" "$copy") || rc=$?
    cp "$tmp/saved" "$copy/$file"
    want="$file:2: #include \"$inc\": $rule:"
    if [ "$rc" != 1 ]; then
        echo "exit $rc, want 1; output:"
        echo "$out"
    elif [ "$(grep -c '^[^ ]*:[0-9]*: #include' <<<"$out")" != 1 ] || ! grep -qF -- "$want" <<<"$out"; then
        echo "want one line starting: $want"
        echo "got:"
        echo "$out"
    fi
}

arch_takes_slab_internals() { planted arch/x86/apic.c mm/slub.h arch; }
arch_takes_a_benchmark() { planted arch/x86/setup.c bench/bench.h arch; }
mm_takes_a_benchmark() { planted mm/slub.c bench/bench.h mm; }
mm_takes_a_test_header() { planted mm/page_alloc.c tests/host/ktest.h mm; }
kernel_takes_arch_directly() { planted kernel/smp.c arch/x86/apic.h neutral; }
mm_takes_arch_directly() { planted mm/slab_common.c arch/x86/cpu.h neutral; }
bench_takes_slub_internals() { planted bench/bench_slab.c mm/slub.h public; }
bench_takes_x86() { planted bench/bench_scaling.c arch/x86/x86.h public; }
kernel_test_takes_x86() { planted tests/kernel/spinlock_test.c arch/x86/x86.h public; }
allow_list_is_per_file() { planted tests/kernel/smp_test.c mm/slub.h public; }
bare_name_include() { planted kernel/printk.c string.h path; }
kernel_takes_init() { planted kernel/smp.c init/main.c init; }
mm_takes_init() { planted mm/slub.c init/main.c init; }
arch_takes_init_main_h() {
    local out rc=0
    cp "$copy/arch/x86/apic.c" "$tmp/saved"
    sed -i '1a #include "init/main.h"' "$copy/arch/x86/apic.c"
    out=$("$check" "$copy") || rc=$?
    cp "$tmp/saved" "$copy/arch/x86/apic.c"
    [ "$rc" = 0 ] || { echo "init/main.h is kmain's declaration, open to every layer; got exit $rc:"; echo "$out"; }
}
path_that_does_not_exist() { planted kernel/printk.c kernel/strings.h path; }

t tree_passes quiet tree_passes
t copy_passes quiet copy_passes
t arch_takes_slab_internals quiet arch_takes_slab_internals
t arch_takes_a_benchmark quiet arch_takes_a_benchmark
t mm_takes_a_benchmark quiet mm_takes_a_benchmark
t mm_takes_a_test_header quiet mm_takes_a_test_header
t kernel_takes_arch_directly quiet kernel_takes_arch_directly
t mm_takes_arch_directly quiet mm_takes_arch_directly
t bench_takes_slub_internals quiet bench_takes_slub_internals
t bench_takes_x86 quiet bench_takes_x86
t kernel_test_takes_x86 quiet kernel_test_takes_x86
t allow_list_is_per_file quiet allow_list_is_per_file
t bare_name_include quiet bare_name_include
t kernel_takes_init quiet kernel_takes_init
t mm_takes_init quiet mm_takes_init
t arch_takes_init_main_h quiet arch_takes_init_main_h
t path_that_does_not_exist quiet path_that_does_not_exist

ktap_report
