#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layer rules of slablab's tree, checked on every #include of every .c and .h file:
#
#   path     an #include "..." names the file by its path from the repository root
#            ("mm/slab.h"), so every include says which layer it reaches into
#   arch     arch/ includes nothing from mm/ but the page allocator's interface
#            (mm/page_alloc.h, with memblock; mm/gfp.h), nothing from bench/ or tests/
#   mm       mm/ includes nothing from bench/ or tests/
#   neutral  kernel/ and mm/ include arch/ only through kernel/arch.h, the arch interface
#   public   bench/ and tests/kernel/ include from mm/ only its public headers (mm/slab.h,
#            mm/gfp.h, mm/page_alloc.h) and nothing from arch/, except the allow-list below
#   init     init/ sits above every layer and may include any of them (init/main.c reaches
#            kernel/, mm/ and bench/); no other layer includes from init/ but init/main.h,
#            kmain()'s declaration, which the arch's start-up code calls last
#
# Usage: tools/layercheck.sh [ROOT]   (default: this script's tree)
# Prints one line per violation: FILE:LINE: #include "X": RULE: why; exit 1 if any.
set -uo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root" || { echo "layercheck: no tree at $root"; exit 2; }

# The allow-list of the public rule: FILE INCLUDE -- why. White-box tests only.
allow=(
    "tests/kernel/slab_test.c mm/slub.h -- white-box: the internal counters and cache fields show where each scheme puts slabs"
    "tests/kernel/slab_ipi_test.c mm/slub.h -- white-box: the owner schemes' per-cpu counters"
    "tests/kernel/slab_race_test.c mm/slub.h -- white-box: the race injector (slab_update_race), a slab's frozen bit, __slab_free as another cpu's free"
    "tests/kernel/numa_test.c mm/slub.h -- white-box: the per-node partial lists and counters, a slab's node"
    "tests/kernel/slab_ipi_test.c mm/scheme_ipi.h -- white-box: the owner schemes' remote-free lists"
    "tests/kernel/slab_ipi_test.c mm/scheme_partial.h -- white-box: the owned budget follows cpu_partial="
    "tests/kernel/slab_test.c mm/scheme_partial.h -- white-box: the cpu partial budget (cpu_partial=) the cases are sized for"
    "tests/kernel/slab_test.c mm/sheaf.h -- white-box: the objects per sheaf (sheaf_capacity=) the cases are sized for"
    "tests/kernel/slub_debug_test.c mm/slub.h -- white-box: debug caches' layout (red zones, metadata) in struct kmem_cache"
    "tests/kernel/slub_debug_test.c mm/slub_debug.h -- white-box: the debug checks' own entry points"
    "tests/kernel/slab_test.c mm/slub_debug.h -- white-box: which scheme a debug cache replaced (slub_debug_replaced_scheme)"
    "tests/kernel/slab_ipi_test.c mm/slub_debug.h -- white-box: which scheme a debug cache replaced (slub_debug_replaced_scheme)"
    "tests/kernel/nolock_test.c mm/slub.h -- white-box: the kmalloc buckets' list_lock, barn lock, entry points and debug state, where the NMIs must land"
    "tests/kernel/nolock_test.c mm/slub_debug.h -- white-box: whether the kmalloc buckets are debug caches (slub_debug_flags)"
    "tests/kernel/time_test.c arch/x86/acpi.h -- the x86 clocks: where the HPET and the PM timer are, to measure the TSC again"
    "tests/kernel/time_test.c arch/x86/tsc_calib.h -- the x86 clocks: the calibration's limits and its report"
    "tests/kernel/time_test.c arch/x86/x86.h -- the x86 clocks: the PIT's ports, read directly"
)

allowed() {
    local e
    for e in "${allow[@]}"; do
        [[ ${e%% -- *} == "$1 $2" ]] && return 0
    done
    return 1
}

violations=0
includes=0

# bad FILE LINE INCLUDE RULE WHY
bad() {
    echo "$1:$2: #include \"$3\": $4: $5"
    violations=$((violations + 1))
}

check() {
    local file=$1 line=$2 inc=$3 quoted=$4 top=${1%%/*}
    local layer=$top
    [[ $file == tests/kernel/* ]] && layer=tests/kernel
    [[ $file == tests/host/* ]] && layer=tests/host
    if $quoted; then
        if [[ $inc != */* ]]; then
            bad "$file" "$line" "$inc" path "write it by its path from the repository root"
            return
        elif [ ! -f "$inc" ]; then
            bad "$file" "$line" "$inc" path "no such file from the repository root"
            return
        fi
    fi
    case $inc in
    init/main.h) ;;
    init/*) [ "$layer" != init ] && bad "$file" "$line" "$inc" init "init/ sits above every layer: only init/main.h (kmain) is included from outside it" ;;
    esac
    case $layer in
    arch)
        case $inc in
        mm/page_alloc.h | mm/gfp.h) ;;
        mm/*) bad "$file" "$line" "$inc" arch "arch/ may use only the page allocator (mm/page_alloc.h)" ;;
        bench/* | tests/*) bad "$file" "$line" "$inc" arch "arch/ includes nothing from bench/ or tests/" ;;
        esac
        ;;
    mm | kernel)
        case $inc in
        bench/* | tests/*) [ "$layer" = mm ] && bad "$file" "$line" "$inc" mm "mm/ includes nothing from bench/ or tests/" ;;
        esac
        case $inc in
        arch/*) [ "$file" != kernel/arch.h ] &&
            bad "$file" "$line" "$inc" neutral "$layer/ reaches arch/ only through kernel/arch.h" ;;
        esac
        ;;
    bench | tests/kernel)
        case $inc in
        mm/slab.h | mm/gfp.h | mm/page_alloc.h) ;;
        mm/* | arch/*)
            allowed "$file" "$inc" ||
                bad "$file" "$line" "$inc" public "$layer/ uses mm/slab.h, mm/gfp.h, mm/page_alloc.h and kernel/, not ${inc%%/*}/ internals (allow-list: tools/layercheck.sh)"
            ;;
        esac
        ;;
    esac
}

list=$(find . -path ./build -prune -o -path ./.git -prune -o -type f \( -name '*.c' -o -name '*.h' \) \
    -print | sed 's|^\./||' | sort)
files=$(grep -c . <<<"$list")
while IFS=: read -r file line text; do
    if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]*)\" ]]; then
        includes=$((includes + 1))
        check "$file" "$line" "${BASH_REMATCH[1]}" true
    elif [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<((arch|init|kernel|mm|bench|tests)/[^\>]*)\> ]]; then
        includes=$((includes + 1))
        check "$file" "$line" "${BASH_REMATCH[1]}" false
    fi
done < <(tr '\n' '\0' <<<"$list" | xargs -0 grep -Hn '^[[:space:]]*#[[:space:]]*include')

if [ "$violations" != 0 ]; then
    echo "layercheck: $violations include(s) break the layer rules (see tools/layercheck.sh)"
    exit 1
fi
echo "layercheck: $files files, $includes includes, all within the layer rules"
