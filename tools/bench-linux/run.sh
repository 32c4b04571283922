#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/bench-linux/run.sh OUTDIR: slablab's bench=fastpath,bulk,remote on Linux's own SLUB.
# Builds tools/bench-linux/slabbench.c as a module against Debian's headers for the newest
# installed /boot/vmlinuz-*-amd64 (linux-headers-VERSION), boots that kernel in QEMU with
# an initramfs of busybox-static and the module, and keeps the serial log in
# OUTDIR/linux.log (LINUX_LOG=file: there instead): the module's tables and slablab's JSON
# lines ("scheme":"linux"). make bench-linux (tools/bench-linux/rounds.sh) boots slablab
# with the same QEMU command next, ROUNDS times each side in turn, and compares the logs.
#
# The QEMU command is tools/qemu-run.sh's for the same SMP, MEM, ACCEL and ICOUNT (its
# --dry-run: machine, accelerator, -cpu, -m, -smp), with the kernel and initramfs in place
# of the ISO. Under ICOUNT=1, Linux 6.1 hangs at "x86: Booting SMP configuration" with more
# than one CPU, so ICOUNT=1 needs SMP=1 (make bench-linux sets it); this script refuses
# ICOUNT=1 with SMP>1 rather than boot a kernel that does not come up.
# The kernel runs with init_on_alloc=0 (Debian turns it on: every allocation would be
# zeroed, which slablab does not do), slab_nomerge (the module's caches stay its own) and
# tsc=reliable: QEMU's vCPU TSCs run off one host clock, but Linux's TSC warp check fails
# under TCG and it would fall back to the HPET, every clock read an emulated MMIO access,
# an emulator's cost that slablab (which reads the TSC) does not pay. On the loaded
# development host the remote figure is 43000-57000 emulated cycles per object without it,
# 13000-57000 with it: less than the noise, but the fallback is not Linux's allocator.
# Knobs: SMP (4), MEM (256M), ACCEL (auto), ICOUNT (0), TIMEOUT (600 s), LINUX_BENCH
# (fastpath,bulk,remote), BENCH_REPS (0: the benchmarks' defaults, 21 and 5),
# REMOTE_OBJECTS (50000), LINUX_APPEND (more kernel options, e.g. nohz=off), LINUX_LOG
# (OUTDIR/linux.log: where the serial log goes; rounds.sh names one per round).
# Exit: 0 measured, 1 build, boot or benchmark failure, 2 bad usage or a missing package.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "bench-linux: $1" >&2; exit "${2:-1}"; }
[ $# = 1 ] || { echo "usage: tools/bench-linux/run.sh OUTDIR" >&2; exit 2; }
out=$1
SMP=${SMP:-4} MEM=${MEM:-256M} ACCEL=${ACCEL:-auto} ICOUNT=${ICOUNT:-0}
tmo=${TIMEOUT:-600} benches=${LINUX_BENCH:-fastpath,bulk,remote}
reps=${BENCH_REPS:-0} objects=${REMOTE_OBJECTS:-50000}
[[ $reps =~ ^[0-9]+$ ]] && [ "$reps" -le 101 ] || die "BENCH_REPS='$reps' is not a number of runs up to 101" 2
[[ $objects =~ ^[1-9][0-9]*$ ]] || die "REMOTE_OBJECTS='$objects' is not a positive number" 2
[[ $benches =~ ^(fastpath|bulk|remote|all)(,(fastpath|bulk|remote|all))*$ ]] ||
    die "LINUX_BENCH='$benches': a list of fastpath, bulk, remote (or all)" 2
[[ $tmo =~ ^[0-9]+$ ]] || die "TIMEOUT='$tmo' is not a number of seconds" 2
if [ "$ICOUNT" = 1 ] && [ "$SMP" != 1 ]; then
    die "ICOUNT=1 with SMP=$SMP: Linux 6.1 hangs at \"x86: Booting SMP configuration\" under -icount with more than one CPU; use SMP=1" 2
fi

kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$kernel" ] || die "no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64" 2
[ -r "$kernel" ] || die "cannot read $kernel (run as root, or chmod a+r it)" 2
ver=${kernel#/boot/vmlinuz-}
kdir=/usr/src/linux-headers-$ver
[ -f "$kdir/Makefile" ] ||
    die "no headers for the installed kernel $ver: apt-get install linux-headers-$ver" 2
[ -x /bin/busybox ] || die "no /bin/busybox: apt-get install busybox-static" 2
if ldd /bin/busybox >/dev/null 2>&1; then
    die "/bin/busybox is linked dynamically: apt-get install busybox-static" 2
fi

# The QEMU command slablab's boot gets (tools/qemu-run.sh --dry-run), up to -display.
dry=$(mktemp)
trap 'rm -f "$dry"' EXIT
: >"$root/build/.bench-linux-probe.iso" 2>/dev/null || { mkdir -p "$root/build"; : >"$root/build/.bench-linux-probe.iso"; }
cmd=$(SMP=$SMP MEM=$MEM ACCEL=$ACCEL ICOUNT=$ICOUNT TIMEOUT=$tmo ISO="$root/build/.bench-linux-probe.iso" \
    "$root/tools/qemu-run.sh" --dry-run 2>"$dry") || { cat "$dry" >&2; die "tools/qemu-run.sh refused these knobs" 2; }
rm -f "$root/build/.bench-linux-probe.iso"
accel=$(sed -n 's/^qemu-run: \([a-z-]*\) .*/\1/p' "$dry")
read -ra words <<<"$cmd"
qemu=() on=0
for w in "${words[@]}"; do
    [ "$w" = -display ] && break
    [ "$on" = 1 ] && qemu+=("$w")
    case "$w" in qemu-system-*) on=1; qemu+=("$w") ;; esac
done
[ ${#qemu[@]} -gt 2 ] || die "could not read the QEMU command from tools/qemu-run.sh --dry-run: $cmd"
emulated=false
[ "$accel" = tcg ] && emulated=true # as slablab: ICOUNT's figures count instructions

# The module, built out of tree by kbuild (its objects stay in OUTDIR/module).
mkdir -p "$out/module"
cp "$here/slabbench.c" "$here/Kbuild" "$out/module/"
echo "bench-linux: building slabbench.ko against $kdir"
make -s -C "$kdir" M="$(cd "$out/module" && pwd)" modules >"$out/module/build.log" 2>&1 ||
    { cat "$out/module/build.log" >&2; die "the module did not build (log: $out/module/build.log)"; }
grep -i "warning" "$out/module/build.log" >&2 || true

append="console=ttyS0 panic=-1 quiet loglevel=4 printk.time=0 init_on_alloc=0 slab_nomerge tsc=reliable"
append+=${LINUX_APPEND:+ $LINUX_APPEND}
rootfs=$(mktemp -d "${TMPDIR:-/tmp}/bench-linux-initramfs.XXXXXX")
trap 'rm -f "$dry"; rm -rf "$rootfs"' EXIT
mkdir -p "$rootfs"/{bin,dev,proc,sys}
cp /bin/busybox "$rootfs/bin/"
cp "$out/module/slabbench.ko" "$rootfs/"
cat >"$rootfs/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo 7 > /proc/sys/kernel/printk
echo "bench-linux: Linux \$(uname -r), \$(grep -c ^processor /proc/cpuinfo) CPUs, cmdline: \$(cat /proc/cmdline)"
insmod /slabbench.ko bench=$benches reps=$reps remote_objects=$objects accel=$accel emulated=$emulated 'cmdline="$append"'
rmmod slabbench
echo "bench-linux: finished"
poweroff -f
INIT
chmod +x "$rootfs/init"
(cd "$rootfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz"

log=${LINUX_LOG:-$out/linux.log}
echo "bench-linux: ${qemu[*]} -kernel $kernel (accel $accel)"
rc=0
timeout -k 5 "$tmo" "${qemu[@]}" -display none -monitor none -no-reboot -serial stdio \
    -kernel "$kernel" -initrd "$out/initramfs.cpio.gz" -append "$append" </dev/null |
    tr -d '\r' | tee "$log" || rc=$?
if [ "$rc" != 0 ]; then
    # Under TCG a loaded host can starve a vCPU for long enough that Linux's RCU gives up on
    # it: say so, with the guest's own line, rather than only "timed out".
    stall=$(grep -m1 'rcu.*detected stall' "$log" || true)
    [ -z "$stall" ] || echo "bench-linux: Linux reported an RCU stall (\"$stall\"): its vCPUs" \
        "got too little of this host (load average: $(cut -d' ' -f1-3 /proc/loadavg)); a quieter" \
        "host, a smaller SMP or a larger TIMEOUT" >&2
    die "QEMU failed or timed out after ${tmo} s (exit $rc; log: $log)"
fi
grep -q "^bench-linux: finished" "$log" || die "the guest did not finish (log: $log)"
grep -q '^slabbench: done, 0 failure(s)' "$log" ||
    die "the module did not finish or a self-check failed (log: $log)"
echo "bench-linux: $(grep -c '^{"bench"' "$log") JSON lines in $log"
