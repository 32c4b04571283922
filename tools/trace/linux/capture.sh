#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/trace/linux/capture.sh WORKLOAD OUTDIR: boot Debian's packaged kernel
# (linux-image-amd64) in QEMU with a small initramfs (busybox-static, rt-tests' hackbench,
# trace-cmd, perf from linux-perf, coreutils' true, and the kernel's own virtio and ext4
# modules), enable kmem:kmalloc, kmem:kfree, kmem:kmem_cache_alloc and kmem:kmem_cache_free
# (and rcu:rcu_invoke_kvfree_callback, rcu:rcu_kvfree_callback and
# rcu:rcu_invoke_kfree_bulk_callback where the kernel has them: CONFIG_RCU_TRACE, which
# Debian's does not set), run WORKLOAD under each of three tracers and bring out what they
# recorded on a virtio disk (a tar the guest writes to /dev/vda; the serial port is 100
# times slower under TCG):
#   OUTDIR/WORKLOAD.tracefs.txt    the text of /sys/kernel/tracing/trace
#   OUTDIR/WORKLOAD.trace-cmd.txt  trace-cmd report (run here, on the guest's trace.dat,
#                                  which holds the guest's kallsyms) of a trace-cmd record
#   OUTDIR/WORKLOAD.perf.txt       perf script of a perf record -a, with 8 MiB of buffer per
#                                  CPU (perf's default loses events)
#   OUTDIR/WORKLOAD.console.log    the guest's console
# The guest CPU has RDRAND and the kernel trusts it (random.trust_cpu=on), so the random key
# of %p is ready and tracefs prints hashed pointers, not (____ptrval____); trace-cmd and perf
# read the raw ones. no_timer_check: on a busy host the emulated timer can miss the kernel's
# IO-APIC test, which then panics ("IO-APIC + timer doesn't work"). `make trace-linux` then converts trace-cmd's text
# (build/trace/slabtrace from-linux). Exit 1 if a capture is missing.
#
# WORKLOAD, each repeated SCALE times (default 1):
#   hackbench  hackbench -g 2 -l 20: 2 groups of 20 senders and 20 receivers over sockets, 20
#              messages each (the workload of Lameter 2011); SCALE multiplies the messages
#   fs         creates, writes, reads and removes 200 files in tmpfs
#   fswalk     a filesystem walk: an ext2 file system (made here with mke2fs, mounted by the
#              guest's ext4 driver) holds a tree of 1000 files in 110 directories, made
#              before tracing; with every cache dropped (drop_caches=3), find and tar read the
#              whole tree (dentry, ext4_inode_cache, buffer heads), and drop_caches=2 frees
#              the dentries and inodes again (a second for the RCU callbacks that free them)
#   net        loopback networking: busybox httpd serves a 256 KiB file on 127.0.0.1 and
#              busybox wget fetches it 20 times (TCP connections, skbuff caches)
#   forkexec   fork/exec: the shell forks and execs coreutils' true (a dynamically linked
#              program) 200 times, the workload of Arm's 7.0 fork/execve regression
# Knobs: SMP (4), MEM (1G; a big SCALE needs more: trace-cmd's files are in the guest's
# RAM), BUFFER_KB (tracefs's per-CPU ring buffer, 8192), TIMEOUT (600 s), SCALE (1),
# TRACERS (the tracers to run, of "tracefs trace-cmd perf": all three with SCALE=1,
# trace-cmd alone otherwise).
set -euo pipefail
die() { echo "trace-linux: $*" >&2; exit 1; }
[ $# = 2 ] || { echo "usage: capture.sh WORKLOAD OUTDIR" >&2; exit 2; }
workload=$1 out=$2
scale=${SCALE:-1}
[[ $scale =~ ^[1-9][0-9]{0,5}$ ]] || { echo "trace-linux: SCALE=$scale: give a whole number from 1 to 999999" >&2; exit 2; }
prep=:
case "$workload" in
hackbench) run="hackbench -g 2 -l $((20 * scale))" ;;
fs) run="i=0; while [ \$i -lt $((200 * scale)) ]; do echo data\$i > /tmp/f\$i; cat /tmp/f\$i >/dev/null; rm /tmp/f\$i; i=\$((i+1)); done" ;;
fswalk)
    prep='sync; echo 3 > /proc/sys/vm/drop_caches'
    run="for i in \$(seq $scale); do find /mnt/tree >/dev/null; tar -cf - /mnt/tree | wc -c >/dev/null; echo 2 > /proc/sys/vm/drop_caches; sleep 1; done"
    ;;
net) run="for i in \$(seq $((20 * scale))); do wget -q -O /dev/null http://127.0.0.1:8080/f; done" ;;
forkexec) run="i=0; while [ \$i -lt $((200 * scale)) ]; do /usr/bin/true; i=\$((i+1)); done" ;;
*) echo "trace-linux: WORKLOAD=$workload: valid are hackbench, fs, fswalk, net, forkexec" >&2; exit 2 ;;
esac
if [ "$scale" = 1 ]; then tracers=${TRACERS:-tracefs trace-cmd perf}; else tracers=${TRACERS:-trace-cmd}; fi
for t in $tracers; do
    case $t in tracefs | trace-cmd | perf) ;; *) echo "trace-linux: TRACERS: '$t' is not one of tracefs, trace-cmd, perf" >&2; exit 2 ;; esac
done
smp=${SMP:-4} mem=${MEM:-1G} buf=${BUFFER_KB:-8192} tmo=${TIMEOUT:-600}
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1) ||
    die "no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64"
[ -n "$kernel" ] || die "no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64"
[ -r "$kernel" ] || die "cannot read $kernel (run as root, or chmod a+r it)"
kver=${kernel#/boot/vmlinuz-}
moddir=/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || die "no $moddir/modules.dep (the modules of $kernel: apt-get install --reinstall linux-image-$kver)"
for f in /bin/busybox /usr/bin/hackbench /usr/bin/trace-cmd /usr/bin/perf /usr/bin/true /usr/sbin/mke2fs; do
    [ -x "$f" ] || die "no $f: apt-get install busybox-static rt-tests trace-cmd linux-perf coreutils e2fsprogs"
done
if ldd /bin/busybox >/dev/null 2>&1; then
    die "/bin/busybox is linked dynamically: apt-get install busybox-static"
fi
mkdir -p "$out"
root=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,mnt,lib64,usr/lib,usr/bin,mod}
cp /bin/busybox "$root/bin/"
for b in /usr/bin/hackbench /usr/bin/trace-cmd /usr/bin/perf /usr/bin/true; do
    cp "$b" "$root$b"
    # their shared libraries, at the paths the dynamic loader looks
    ldd "$b" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
done
ln -s ../usr/bin/hackbench "$root/bin/hackbench"
ln -s ../usr/bin/trace-cmd "$root/bin/trace-cmd"
ln -s ../usr/bin/perf "$root/bin/perf"
[ -d /usr/lib/x86_64-linux-gnu/traceevent ] && mkdir -p "$root/usr/lib/x86_64-linux-gnu" &&
    cp -r /usr/lib/x86_64-linux-gnu/traceevent "$root/usr/lib/x86_64-linux-gnu/"

# The kernel's modules the guest loads, each after those it needs (modules.dep), in order.
mods=()
add_mod() {
    local name=$1 path deps d
    path=$(awk -F: -v n="/$name.ko" 'substr($1, length($1) - length(n) + 1) == n {print $1; exit}' "$moddir/modules.dep")
    [ -n "$path" ] || die "no module $name in $moddir/modules.dep"
    for d in "${mods[@]}"; do [ "$d" = "$path" ] && return 0; done
    deps=$(awk -F': *' -v p="$path" '$1 == p {print $2}' "$moddir/modules.dep")
    for d in $deps; do add_mod "$(basename "$d" .ko)"; done
    mods+=("$path")
}
for m in virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do add_mod "$m"; done
[ "$workload" = fswalk ] && add_mod crc32c_generic && add_mod ext4 # ext4 asks the crypto API for crc32c at every mount
insmods=
for m in "${mods[@]}"; do
    cp "$moddir/$m" "$root/mod/"
    insmods+="insmod /mod/$(basename "$m") || echo \"capture: insmod $(basename "$m") failed: \$(dmesg | tail -n 3)\"; "
done

case "$workload" in
fswalk)
    setup='waitdev /dev/vdb
mount -t ext4 /dev/vdb /mnt || echo "capture: mount of /dev/vdb failed"
mkdir -p /mnt/tree
for a in 0 1 2 3 4 5 6 7 8 9; do for b in 0 1 2 3 4 5 6 7 8 9; do
    mkdir -p /mnt/tree/$a/$b
    for c in 0 1 2 3 4 5 6 7 8 9; do echo "file $a$b$c" > /mnt/tree/$a/$b/f$c; done
done; done
sync'
    ;;
net)
    setup='ip link set lo up
mkdir -p /www && dd if=/dev/zero of=/www/f bs=1024 count=256 2>/dev/null
httpd -p 127.0.0.1:8080 -h /www
sleep 1'
    ;;
*) setup=: ;;
esac

kmem="kmem:kmalloc kmem:kfree kmem:kmem_cache_alloc kmem:kmem_cache_free"
rcu="rcu:rcu_invoke_kvfree_callback rcu:rcu_kvfree_callback rcu:rcu_invoke_kfree_bulk_callback"
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=90% tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
# virtio_blk finds its disks after insmod returns: wait for the node (10 s at most)
waitdev() { i=0; while [ ! -b \$1 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done; [ -b \$1 ] || echo "capture: no \$1"; }
$insmods
$setup
T=/sys/kernel/tracing
E=
for e in $kmem $rcu; do [ -e \$T/events/\${e%%:*}/\${e#*:}/enable ] && E="\$E \$e"; done
echo "capture: events:\$E"
mkdir -p /tmp/out
cd /tmp
for tracer in $tracers; do
    $prep
    case \$tracer in
    tracefs)
        echo $buf > \$T/buffer_size_kb
        for e in \$E; do echo 1 > \$T/events/\${e%%:*}/\${e#*:}/enable; done
        echo "capture: tracing $workload (tracefs)"
        echo 1 > \$T/tracing_on
        sh -c '$run'
        echo 0 > \$T/tracing_on
        echo "capture: tracefs: \$(grep entries-in-buffer \$T/trace)"
        cat \$T/trace > /tmp/out/tracefs.txt
        echo 0 > \$T/events/enable
        echo > \$T/trace
        ;;
    trace-cmd)
        echo "capture: tracing $workload (trace-cmd)"
        trace-cmd record -q -b $buf -o /tmp/out/trace.dat \$(for e in \$E; do printf -- '-e %s ' \$e; done) sh -c '$run' >/dev/null 2>/tmp/trace-cmd.err ||
            { echo "capture: trace-cmd record failed:"; cat /tmp/trace-cmd.err; }
        echo "capture: trace-cmd record: \$(wc -c < /tmp/out/trace.dat) bytes"
        ;;
    perf)
        echo "capture: tracing $workload (perf)"
        perf record -a -m 2048 -o /tmp/perf.data \$(for e in \$E; do printf -- '-e %s ' \$e; done) -- sh -c '$run' >/dev/null 2>/tmp/perf.err
        echo "capture: perf record: \$(grep -i -m1 -e lost -e 'perf record: Captured' /tmp/perf.err)"
        perf script -i /tmp/perf.data > /tmp/out/perf.txt 2>/dev/null
        rm -f /tmp/perf.data
        echo "capture: perf script: \$(wc -l < /tmp/out/perf.txt) lines"
        ;;
    esac
done
waitdev /dev/vda
[ -b /dev/vda ] && cd /tmp/out && tar -cf /dev/vda . && sync && echo "capture: done"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs-$workload.cpio.gz"
disk=$out/$workload.out.img
rm -f "$disk" "$out/$workload.console.log"
# The guest writes its tar here; sparse, so only what it writes takes room.
truncate -s 64G "$disk"
drives=(-drive "file=$disk,format=raw,if=virtio,cache=unsafe")
if [ "$workload" = fswalk ]; then
    rm -f "$out/fswalk.ext2"
    truncate -s 64M "$out/fswalk.ext2"
    mke2fs -q -t ext2 -F "$out/fswalk.ext2"
    drives+=(-drive "file=$out/fswalk.ext2,format=raw,if=virtio,cache=unsafe")
fi
timeout -k 5 "$tmo" qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp "$smp" -m "$mem" -nographic \
    -no-reboot -kernel "$kernel" -initrd "$out/initramfs-$workload.cpio.gz" "${drives[@]}" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4 random.trust_cpu=on no_timer_check" \
    -serial "file:$out/$workload.console.log" -monitor none </dev/null ||
    die "QEMU failed or timed out after $tmo s (log: $out/$workload.console.log; TIMEOUT= gives it more)"
tr -d '\r' <"$out/$workload.console.log" | grep -o "capture:.*" || true
grep -q "capture: done" "$out/$workload.console.log" ||
    die "the guest did not finish (log: $out/$workload.console.log)"
rm -rf "$out/$workload.d"
mkdir -p "$out/$workload.d"
tar -xf "$disk" -C "$out/$workload.d" || die "could not read the guest's tar from $disk"
rm -f "$disk" "$out/fswalk.ext2"
for t in $tracers; do
    case $t in
    tracefs) mv "$out/$workload.d/tracefs.txt" "$out/$workload.tracefs.txt" ;;
    trace-cmd)
        trace-cmd report -i "$out/$workload.d/trace.dat" >"$out/$workload.trace-cmd.txt" 2>"$out/$workload.d/report.err" ||
            die "trace-cmd report failed: $(head -3 "$out/$workload.d/report.err")"
        echo "capture: trace-cmd report: $(wc -l <"$out/$workload.trace-cmd.txt") lines"
        ;;
    perf) mv "$out/$workload.d/perf.txt" "$out/$workload.perf.txt" ;;
    esac
    [ -s "$out/$workload.$t.txt" ] || die "the $t capture is empty ($out/$workload.$t.txt)"
done
rm -rf "$out/$workload.d"
