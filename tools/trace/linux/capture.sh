#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/trace/linux/capture.sh WORKLOAD OUTDIR: boot Debian's packaged kernel
# (linux-image-amd64) in QEMU with a small initramfs (busybox-static, rt-tests' hackbench,
# trace-cmd, perf from linux-perf), enable kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc and
# kmem:kmem_cache_free, run WORKLOAD, and bring out over the second serial port what tracefs
# recorded: OUTDIR/WORKLOAD.tracefs.txt (the text of /sys/kernel/tracing/trace) and
# OUTDIR/WORKLOAD.trace-cmd.txt (trace-cmd report of a trace-cmd record of the same
# workload) and OUTDIR/WORKLOAD.perf.txt (perf script of a perf record -a of it, with 8 MiB
# of buffer per CPU: perf's default loses events);
# OUTDIR/WORKLOAD.console.log is the guest's console. The guest CPU has RDRAND and the
# kernel trusts it (random.trust_cpu=on), so the random key of %p is ready and tracefs
# prints hashed pointers, not (____ptrval____); trace-cmd and perf read the raw ones.
# `make trace-linux` then converts them (tools/trace/slabtrace.py from-linux). Exit 1 if a capture is missing.
#
# WORKLOAD: hackbench (hackbench -g 2 -l 20: 2 groups of 20 senders and 20 receivers over
# sockets, 20 messages each: the workload of Lameter 2011) or fs (creates, writes, reads
# and removes 200 files in tmpfs).
# Knobs: SMP (4), MEM (1G), BUFFER_KB (per-CPU ring buffer, 8192), TIMEOUT (300 s).
set -euo pipefail
die() { echo "trace-linux: $*" >&2; exit 1; }
[ $# = 2 ] || { echo "usage: capture.sh WORKLOAD OUTDIR" >&2; exit 2; }
workload=$1 out=$2
case "$workload" in
hackbench) run='hackbench -g 2 -l 20' ;;
fs) run='i=0; while [ $i -lt 200 ]; do echo data$i > /tmp/f$i; cat /tmp/f$i >/dev/null; rm /tmp/f$i; i=$((i+1)); done' ;;
*) echo "trace-linux: WORKLOAD=$workload: valid are hackbench, fs" >&2; exit 2 ;;
esac
smp=${SMP:-4} mem=${MEM:-1G} buf=${BUFFER_KB:-8192} tmo=${TIMEOUT:-300}
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1) ||
    die "no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64"
[ -n "$kernel" ] || die "no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64"
[ -r "$kernel" ] || die "cannot read $kernel (run as root, or chmod a+r it)"
for f in /bin/busybox /usr/bin/hackbench /usr/bin/trace-cmd /usr/bin/perf; do
    [ -x "$f" ] || die "no $f: apt-get install busybox-static rt-tests trace-cmd linux-perf"
done
if ldd /bin/busybox >/dev/null 2>&1; then
    die "/bin/busybox is linked dynamically: apt-get install busybox-static"
fi
mkdir -p "$out"
root=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib64,usr/lib}
cp /bin/busybox "$root/bin/"
for b in hackbench trace-cmd perf; do
    cp "/usr/bin/$b" "$root/bin/"
    # their shared libraries, at the paths the dynamic loader looks
    ldd "/usr/bin/$b" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
done
[ -d /usr/lib/x86_64-linux-gnu/traceevent ] && mkdir -p "$root/usr/lib/x86_64-linux-gnu" &&
    cp -r /usr/lib/x86_64-linux-gnu/traceevent "$root/usr/lib/x86_64-linux-gnu/"
events="kmem:kmalloc kmem:kfree kmem:kmem_cache_alloc kmem:kmem_cache_free"
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
T=/sys/kernel/tracing
echo $buf > \$T/buffer_size_kb
for e in $events; do echo 1 > \$T/events/\${e%%:*}/\${e#*:}/enable; done
echo "capture: tracing $workload" 
echo 1 > \$T/tracing_on
$run
echo 0 > \$T/tracing_on
echo "capture: tracefs: \$(grep entries-in-buffer \$T/trace)"
cat \$T/trace > /dev/ttyS1
echo "=== end of tracefs ===" > /dev/ttyS1
echo 0 > \$T/events/enable
echo > \$T/trace
cd /tmp
trace-cmd record -q -b $buf $(printf -- '-e %s ' $events) sh -c '$run' >/dev/null 2>&1
trace-cmd report > /tmp/report.txt 2>&1
echo "capture: trace-cmd report: \$(wc -l < /tmp/report.txt) lines"
cat /tmp/report.txt > /dev/ttyS1
echo "=== end of trace-cmd ===" > /dev/ttyS1
perf record -a -m 2048 -o /tmp/perf.data $(printf -- '-e %s ' $events) -- sh -c '$run' >/dev/null 2>/tmp/perf.err
echo "capture: perf record: \$(grep -i -m1 -e lost -e 'perf record: Captured' /tmp/perf.err)"
perf script -i /tmp/perf.data > /tmp/perf.txt 2>/dev/null
echo "capture: perf script: \$(wc -l < /tmp/perf.txt) lines"
cat /tmp/perf.txt > /dev/ttyS1
echo "=== end of perf ===" > /dev/ttyS1
echo "capture: done"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs-$workload.cpio.gz"
rm -f "$out/$workload.serial1" "$out/$workload.console.log"
timeout -k 5 "$tmo" qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp "$smp" -m "$mem" -nographic \
    -no-reboot -kernel "$kernel" -initrd "$out/initramfs-$workload.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 random.trust_cpu=on" \
    -serial "file:$out/$workload.console.log" -serial "file:$out/$workload.serial1" \
    -monitor none </dev/null || die "QEMU failed or timed out (log: $out/$workload.console.log)"
grep -q "capture: done" "$out/$workload.console.log" ||
    die "the guest did not finish (log: $out/$workload.console.log)"
tr -d '\r' <"$out/$workload.serial1" | sed -n '1,/^=== end of tracefs ===$/p' | sed '$d' >"$out/$workload.tracefs.txt"
tr -d '\r' <"$out/$workload.serial1" | sed -n '/^=== end of tracefs ===$/,/^=== end of trace-cmd ===$/p' | sed '1d;$d' >"$out/$workload.trace-cmd.txt"
tr -d '\r' <"$out/$workload.serial1" | sed -n '/^=== end of trace-cmd ===$/,/^=== end of perf ===$/p' | sed '1d;$d' >"$out/$workload.perf.txt"
grep "^capture:" "$out/$workload.console.log" | tr -d '\r'
for f in tracefs trace-cmd perf; do
    [ -s "$out/$workload.$f.txt" ] || die "the $f capture is empty ($out/$workload.$f.txt)"
done
