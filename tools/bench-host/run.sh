#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `make bench-host` runs once build/bench-host/ is built: makes sure the peers' Debian
# packages are there (installing them as root, as tools/deps.sh does for the build tools;
# otherwise it prints the apt-get line and benchmarks the peers it has), then
#   1. bench-suite: the kernel's benchmark suite (bench/) on real cores, every scheme;
#   2. bench-suite-peer once per peer (glibc's malloc, then jemalloc, mimalloc, tcmalloc by
#      LD_PRELOAD) on the benchmarks the peers run: hackbench, remote, scaling, latency;
#   3. bench-host, the micro-benchmarks (pairs, batches, bulk, spsc with spsc-noalloc and c2c) with the peers,
#      unless BENCH_HOST_MICRO=0.
# Everything on stdout: tables and JSON lines, as a kernel's log (tools/benchreport.py
# reads it).
#
# Usage: tools/bench-host/run.sh BUILD_DIR [bench-host options, e.g. --quick or --rounds 5]
# Environment: CPUS=N (default: every core this process may use), BENCH="kernel options"
# (bench=, scheme=, bench_reps=, hackbench_groups= ..., host_ipi=poll), BENCH_HOST_MICRO=0|1.
set -euo pipefail

dir=${1:?usage: run.sh BUILD_DIR [bench-host options]}
shift

# name:package:library file name
peers=(
    jemalloc:libjemalloc2:libjemalloc.so.2
    mimalloc:libmimalloc2.0:libmimalloc.so.2
    tcmalloc:libgoogle-perftools4:libtcmalloc.so.4
)
# The benchmarks the peers run (malloc/free in the same code as the schemes' caches).
peer_benches=(hackbench remote scaling latency)

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

# The kernel options: BENCH's words, cpus= from CPUS. The peers get the same but bench=
# (theirs: the peer benchmarks bench= names, all four if none) and scheme= (none).
read -r -a opts <<<"${BENCH:-}"
if [ -n "${CPUS:-}" ]; then opts+=("cpus=$CPUS"); fi
peer_opts=()
want=()
for o in "${opts[@]}"; do
    case $o in
    bench=*)
        IFS=, read -r -a names <<<"${o#bench=}"
        for n in "${names[@]}"; do
            for b in "${peer_benches[@]}"; do
                if [ "$n" = "$b" ] || [ "$n" = all ]; then want+=("$b"); fi
            done
        done
        ;;
    scheme=*) ;;
    *) peer_opts+=("$o") ;;
    esac
done
given_bench=0
for o in "${opts[@]}"; do if [[ $o == bench=* ]]; then given_bench=1; fi; done
if [ "$given_bench" = 0 ]; then want=("${peer_benches[@]}"); fi
peer_list=
if [ ${#want[@]} -gt 0 ]; then
    peer_list=$(printf '%s\n' "${want[@]}" | awk '!seen[$0]++' | paste -sd, -)
fi

status=0
echo "== bench-host: the benchmark suite on real cores: $dir/bench-suite ${opts[*]} =="
"$dir/bench-suite" "${opts[@]}" || status=1

if [ -n "$peer_list" ]; then
    glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* //p')
    echo
    echo "== bench-host: peer glibc ($glibc): bench=$peer_list =="
    "$dir/bench-suite-peer" host_peer=glibc "host_peer_version=${glibc:-unknown}" \
        "bench=$peer_list" "${peer_opts[@]}" || status=1
    for p in "${peers[@]}"; do
        IFS=: read -r name pkg lib <<<"$p"
        if [ ! -e "$libdir/$lib" ]; then
            echo "bench-host: $name left out ($libdir/$lib not found)" >&2
            continue
        fi
        ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown)
        echo
        echo "== bench-host: peer $name ($pkg $ver): bench=$peer_list =="
        LD_PRELOAD="$libdir/$lib" "$dir/bench-suite-peer" "host_peer=$name" \
            "host_peer_version=$ver" "bench=$peer_list" "${peer_opts[@]}" || status=1
    done
fi

if [ "${BENCH_HOST_MICRO:-1}" != 0 ]; then
    args=()
    for p in "${peers[@]}"; do
        IFS=: read -r name pkg lib <<<"$p"
        if [ -e "$libdir/$lib" ]; then
            ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown)
            args+=(--peer "$name=$libdir/$lib@$ver")
        fi
    done
    echo
    echo "== bench-host: micro-benchmarks (pairs, batches, bulk, spsc with spsc-noalloc and c2c) with the peers =="
    "$dir/bench-host" "${args[@]}" "$@" || status=1
fi
exit $status
