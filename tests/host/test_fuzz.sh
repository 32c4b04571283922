#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A short, repeatable pass of the slab fuzzer (build/host/fuzz_slab, tests/host/fuzz_slab.c):
# a fixed seed and a fixed number of runs from an empty corpus, so every `make test` runs
# the same inputs. `make fuzz` is the long, open-ended run. Prints KTAP like the others.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
exe=$root/build/host/fuzz_slab
runs=${FUZZ_RUNS:-2500}
echo "KTAP version 1"
echo "1..1"
if [ ! -x "$exe" ]; then
    echo "# $exe is missing (make host-tests builds it with clang)"
    echo "not ok 1 fuzz_slab_fixed_seed"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$exe" -seed=1 -runs="$runs" -max_len=512 -artifact_prefix="$tmp/" "$tmp" 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -q "^Done $runs runs" <<<"$out"; then
    echo "# $(grep '^Done' <<<"$out")"
    echo "ok 1 fuzz_slab_fixed_seed"
    exit 0
fi
printf '%s\n' "$out" | grep -E 'fuzz_slab:|ERROR|SUMMARY|Test unit|^BUG' | head -n 20 | sed 's/^/# /'
echo "not ok 1 fuzz_slab_fixed_seed"
exit 1
