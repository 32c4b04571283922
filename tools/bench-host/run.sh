#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `make bench-host` runs once build/bench-host/bench-host is built: makes sure the
# peers' Debian packages are there (installing them as root, as tools/deps.sh does for the
# build tools; otherwise it prints the apt-get line and benchmarks the peers it has), then
# runs the benchmark with each peer's library and package version.
#
# Usage: tools/bench-host/run.sh BENCH_EXE [bench-host options, e.g. --quick or --rounds 5]
set -euo pipefail

exe=${1:?usage: run.sh BENCH_EXE [options]}
shift

# name:package:library file name
peers=(
    jemalloc:libjemalloc2:libjemalloc.so.2
    mimalloc:libmimalloc2.0:libmimalloc.so.2
    tcmalloc:libgoogle-perftools4:libtcmalloc.so.4
)

libdir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

missing=()
for p in "${peers[@]}"; do
    IFS=: read -r _ pkg lib <<<"$p"
    [ -e "$libdir/$lib" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
    line="apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "${EUID:-$(id -u)}" -eq 0 ]; then
        echo "bench-host: installing ${missing[*]}" >&2
        apt-get update -qq >&2 || echo "bench-host: apt-get update failed" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >&2 || echo "bench-host: apt-get install failed; run: $line" >&2
    else
        echo "bench-host: missing ${missing[*]}; install them as root with: $line" >&2
        echo "bench-host: going on with the allocators that are there" >&2
    fi
fi

args=()
for p in "${peers[@]}"; do
    IFS=: read -r name pkg lib <<<"$p"
    if [ -e "$libdir/$lib" ]; then
        ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown)
        args+=(--peer "$name=$libdir/$lib@$ver")
    else
        echo "bench-host: $name left out ($libdir/$lib not found)" >&2
    fi
done

exec "$exe" "${args[@]}" "$@"
