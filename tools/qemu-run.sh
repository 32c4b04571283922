#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boots a slablab ISO in QEMU with the serial port on stdout and turns the code the kernel
# writes to isa-debug-exit (port 0xf4) into this script's exit code.
#
# Environment (all optional):
#   ISO=build/slablab.iso  SMP=4  MEM=256M (QEMU syntax: 128M, 4G, ...)
#   ACCEL=auto|tcg|kvm     auto = kvm only with a usable /dev/kvm and vmx/svm in /proc/cpuinfo
#   ICOUNT=1               deterministic TCG: -accel tcg,thread=single -icount shift=0
#   FIRMWARE=bios|uefi     uefi boots through /usr/share/ovmf/OVMF.fd
#   TIMEOUT=120            seconds before QEMU is killed (0 = none)
#   LOG=file               also copy the serial output to this file
#   QEMU_EXTRA="..."       extra QEMU arguments (split on spaces)
#   MACHINE=pc             QEMU machine type (q35 is picked for SMP > 255)
#   APIC=auto|x2apic|xapic the guest CPU's APIC: x2apic adds +x2apic to -cpu (TCG needs QEMU
#                          8 or later: --x2apic-probe), xapic takes it away; auto leaves -cpu
#                          as it is, except that SMP > 255 needs x2apic
#   TOPOLOGY=...           appended to -smp, e.g. sockets=2,cores=3,threads=2 (sparse APIC ids)
#   NODES=1..8             NUMA nodes: CPUs and MEM split evenly (the first nodes get the
#                          remainder), SLIT distance 10 local, 20 remote: one
#                          -object memory-backend-ram,size=.. -numa node,nodeid=i,cpus=a-b,memdev=..
#                          per node and -numa dist,src=i,dst=j,val=20 per pair (1: no -numa)
#   QEMU=qemu-system-x86_64  the QEMU binary
#   ELF=build/slablab.elf  symbol file named in build/gdbinit (--debug)
#   ALLOW_SLOW_KVM=1       let ACCEL=kvm run on an emulated /dev/kvm (no vmx/svm)
#   SCREEN=1               a QEMU window shows the screen (default: -display none)
#   ONE_INSN_PER_TB=1      TCG translates one guest instruction per block, so that an interrupt
#                          can land between any two instructions (QEMU 7.2: -singlestep; 8.1
#                          and later: -accel tcg,one-insn-per-tb=on; asked of $QEMU's version)
#   QEMU_TRACE=ev1,ev2     QEMU trace events to record (qemu-system-x86_64 -trace help), into
#   QEMU_TRACE_LOG=file    this file (kept; without it the events are not recorded)
#   SCREENDUMP=file.ppm    for a kernel booted with exit=halt: once its final line is on the
#                          serial port, save the screen (tools/qemu-screendump.py through
#                          QEMU's monitor), end QEMU and exit as that line says (0, 1, 3)
#   NETBOOT=DIR            boot over the network instead of from ISO: QEMU's own DHCP and
#                          TFTP server (user networking) serve DIR, a tree of make netboot
#                          (tools/netboot.sh), to an e1000 NIC whose iPXE ROM boots the file
#                          NETBOOT_FILE (relative to DIR; default boot/grub/i386-pc/core.0
#                          under SeaBIOS, boot/grub/x86_64-efi/core.efi under OVMF)
# Options: --debug (gdb stub, waits for gdb, no timeout), --accel-probe (print tcg or kvm:
#   what ACCEL=auto would choose), --x2apic-probe (print yes if $QEMU's TCG emulates x2APIC,
#   else no and why on stderr), --dry-run (print the QEMU command), -h.
# Exit: 0 kernel reported success (0x10), 1 test failure (0x11), 3 panic (0x12),
#   5 the guest powered the machine off (ACPI S5: exit=poweroff), 6 the guest reset it
#   (exit=reboot, a triple fault; QEMU runs with -no-reboot), 4 no result (a QEMU error),
#   124 timeout, 2 bad configuration.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ovmf=/usr/share/ovmf/OVMF.fd

die() {
    echo "qemu-run: $*" >&2
    exit 2
}

usage() {
    sed -n '3,37s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit "${1:-2}"
}

# Succeeds when KVM is real hardware virtualization we can open; otherwise sets kvm_why.
# Under an emulated /dev/kvm (no vmx/svm flag) a guest runs about 1000x slower than TCG.
kvm_why=
kvm_device_ok() {
    if [ ! -e /dev/kvm ]; then
        kvm_why="/dev/kvm does not exist"
        return 1
    fi
    if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
        kvm_why="/dev/kvm is not readable and writable for $(id -un)"
        return 1
    fi
}
kvm_hw_ok() {
    if ! grep -qE '^flags[[:space:]]*:.*[[:space:]](vmx|svm)([[:space:]]|$)' /proc/cpuinfo; then
        kvm_why="the CPU flags in /proc/cpuinfo have no vmx or svm, so /dev/kvm is emulated"
        kvm_why+=" (about 1000x slower than TCG; OVMF cannot boot)"
        return 1
    fi
}
kvm_usable() {
    kvm_device_ok && kvm_hw_ok
}

# Does $QEMU's TCG emulate x2APIC? QEMU 7.2 does not ("TCG doesn't support requested
# feature: x2apic", and the guest sees none); QEMU 8.0 added it, and with q35 and an
# intel-iommu in EIM mode more than 255 vCPUs (Debian 12 backports has QEMU 10.0).
x2apic_why=
tcg_x2apic_ok() {
    x2apic_why=$("$(dirname "${BASH_SOURCE[0]}")/qemu10.sh" --check "${QEMU:-qemu-system-x86_64}")
}

debug=0
dry=0
for arg in "$@"; do
    case "$arg" in
    --debug) debug=1 ;;
    --dry-run) dry=1 ;;
    --accel-probe)
        if kvm_usable; then echo kvm; else echo tcg; fi
        exit 0
        ;;
    --x2apic-probe)
        if tcg_x2apic_ok; then echo yes; else echo no; echo "qemu-run: $x2apic_why" >&2; fi
        exit 0
        ;;
    -h | --help) usage 0 ;;
    *)
        echo "qemu-run: unknown argument '$arg'" >&2
        usage 2
        ;;
    esac
done

ISO=${ISO:-build/slablab.iso}
SMP=${SMP:-4}
MEM=${MEM:-256M}
ACCEL=${ACCEL:-auto}
ICOUNT=${ICOUNT:-0}
FIRMWARE=${FIRMWARE:-bios}
TIMEOUT=${TIMEOUT:-120}
LOG=${LOG:-}
QEMU_SET=${QEMU:-}
QEMU=${QEMU:-qemu-system-x86_64}
ELF=${ELF:-build/slablab.elf}

# A relative ISO that is not under the current directory is looked up from the repo root.
if [ ! -e "$ISO" ] && [ "${ISO#/}" = "$ISO" ] && [ -e "$root/$ISO" ]; then
    ISO=$root/$ISO
fi
NETBOOT=${NETBOOT:-}
if [ -n "$NETBOOT" ]; then
    [ -d "$NETBOOT" ] || die "NETBOOT='$NETBOOT' is not a directory (make netboot OUT=DIR writes one)"
    case "${FIRMWARE:-bios}" in
    uefi) netboot_file=${NETBOOT_FILE:-boot/grub/x86_64-efi/core.efi} ;;
    *) netboot_file=${NETBOOT_FILE:-boot/grub/i386-pc/core.0} ;;
    esac
    [ -f "$NETBOOT/$netboot_file" ] || die "no $NETBOOT/$netboot_file to boot (make netboot writes it)"
    [[ $NETBOOT =~ , ]] && die "NETBOOT='$NETBOOT': QEMU's -netdev cannot take a path with a comma"
    # tftp= and bootfile= are -netdev's own options: QEMU's built-in DHCP hands out bootfile.
    boot_args=(-netdev "user,id=netboot0,tftp=$NETBOOT,bootfile=$netboot_file"
        -device "e1000,netdev=netboot0" -boot n)
    boot_from="netboot=$NETBOOT/$netboot_file"
else
    [ -f "$ISO" ] || die "ISO '$ISO' not found (build it first, e.g. make iso)"
    boot_args=(-boot d -cdrom "$ISO")
    boot_from="iso=$ISO"
fi

if ! [[ $SMP =~ ^[0-9]+$ ]] || [ "$SMP" -lt 1 ]; then die "SMP='$SMP' is not a CPU count"; fi
APIC=${APIC:-auto}
case "$APIC" in auto | x2apic | xapic) ;; *) die "APIC='$APIC' must be auto, x2apic or xapic" ;; esac
TOPOLOGY=${TOPOLOGY:-}
[[ $TOPOLOGY =~ ^([a-z]+=[0-9]+)?(,[a-z]+=[0-9]+)*$ ]] ||
    die "TOPOLOGY='$TOPOLOGY' is not like sockets=2,cores=3,threads=2"
[[ $MEM =~ ^[0-9]+[KMGTkmgt]?$ ]] || die "MEM='$MEM' is not a size like 256M or 4G"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "TIMEOUT='$TIMEOUT' is not a number of seconds"
case "$ICOUNT" in 0 | "") ICOUNT=0 ;; 1) ;; *) die "ICOUNT='$ICOUNT' must be 0 or 1" ;; esac
NODES=${NODES:-1}
[[ $NODES =~ ^[1-8]$ ]] || die "NODES='$NODES' must be a node count, 1 to 8"
# NUMA: every node's share of the CPUs and of MEM (in MiB), as QEMU's -numa wants them.
numa_args=()
if [ "$NODES" -gt 1 ]; then
    mem_mib=${MEM%[KMGTkmgt]}
    case "${MEM: -1}" in
    [Gg]) mem_mib=$((mem_mib * 1024)) ;;
    [Tt]) mem_mib=$((mem_mib * 1024 * 1024)) ;;
    [Kk]) mem_mib=$((mem_mib / 1024)) ;;
    [0-9]) mem_mib=$((mem_mib / 1048576)) ;;
    esac
    [ "$mem_mib" -ge $((NODES * 8)) ] || die "NODES=$NODES needs MEM of at least $((NODES * 8))M"
    cpu=0
    for ((i = 0; i < NODES; i++)); do
        ncpu=$((SMP / NODES + (i < SMP % NODES ? 1 : 0)))
        nmem=$((mem_mib / NODES + (i == 0 ? mem_mib % NODES : 0)))
        numa_args+=(-object "memory-backend-ram,id=numa$i,size=${nmem}M")
        if [ "$ncpu" -gt 0 ]; then
            numa_args+=(-numa "node,nodeid=$i,cpus=$cpu-$((cpu + ncpu - 1)),memdev=numa$i")
        else
            numa_args+=(-numa "node,nodeid=$i,memdev=numa$i")
        fi
        cpu=$((cpu + ncpu))
    done
    for ((i = 0; i < NODES; i++)); do
        for ((j = 0; j < NODES; j++)); do
            [ "$i" = "$j" ] || numa_args+=(-numa "dist,src=$i,dst=$j,val=20")
        done
    done
fi
case "$FIRMWARE" in
bios) fw_args=() ;;
uefi)
    [ -f "$ovmf" ] || die "FIRMWARE=uefi needs $ovmf (apt-get install ovmf)"
    fw_args=(-bios "$ovmf")
    ;;
*) die "FIRMWARE='$FIRMWARE' must be bios or uefi" ;;
esac

case "$ACCEL" in
auto)
    if [ "$ICOUNT" = 1 ] || ! kvm_usable; then accel=tcg; else accel=kvm; fi
    ;;
tcg) accel=tcg ;;
kvm)
    [ "$ICOUNT" = 1 ] && die "ICOUNT=1 needs TCG; it cannot be combined with ACCEL=kvm"
    kvm_device_ok || die "ACCEL=kvm but KVM is not usable: $kvm_why"
    if ! kvm_hw_ok; then
        [ "$FIRMWARE" = uefi ] && die "ACCEL=kvm FIRMWARE=uefi cannot work: $kvm_why"
        [ "${ALLOW_SLOW_KVM:-0}" = 1 ] ||
            die "ACCEL=kvm but KVM is not usable: $kvm_why; set ALLOW_SLOW_KVM=1 to use it anyway"
        echo "qemu-run: warning: $kvm_why" >&2
    fi
    accel=kvm
    ;;
*) die "ACCEL='$ACCEL' must be auto, tcg or kvm" ;;
esac

machine=${MACHINE:-pc}
big_args=()
# x2APIC under TCG needs QEMU 8 or later: unless QEMU names one, take tools/qemu10.sh's
# (the installed QEMU if new enough, else QEMU 10 fetched by make deps), saying so.
if [ "$accel" = tcg ] && { [ "$APIC" = x2apic ] || [ "$SMP" -gt 255 ]; } && [ -z "${QEMU_SET:-}" ] &&
    ! tcg_x2apic_ok && q10=$("$root/tools/qemu10.sh" 2>/dev/null); then
    echo "qemu-run: $QEMU has no TCG x2APIC; using $q10" >&2
    QEMU=$q10
fi
if [ "$SMP" -gt 255 ]; then
    if [ "$accel" = tcg ]; then
        tcg_x2apic_ok || die "SMP=$SMP: more than 255 CPUs need x2APIC: $x2apic_why"
        [ "$APIC" = xapic ] && die "SMP=$SMP cannot run with APIC=xapic (8-bit APIC ids)"
        APIC=x2apic
        # Interrupt remapping in EIM mode: what lets QEMU address 32-bit APIC ids.
        big_args=(-device "intel-iommu,intremap=on,eim=on")
    else
        [ "$SMP" -gt 288 ] && die "SMP=$SMP: QEMU with KVM supports at most 288 CPUs (q35)"
    fi
    [ -z "${MACHINE:-}" ] && machine=q35
    [ "$machine" = q35 ] || die "SMP=$SMP needs MACHINE=q35 (pc stops at 255)"
fi
if [ "$APIC" = x2apic ] && [ "$accel" = tcg ] && ! tcg_x2apic_ok; then
    die "APIC=x2apic: $x2apic_why"
fi

cpu_model=max
if [ "$accel" = kvm ]; then
    accel_args=(-accel kvm)
    cpu_model="host,-arch-capabilities,+invtsc"
    accel_name=kvm
elif [ "$ICOUNT" = 1 ]; then
    accel_args=(-accel "tcg,thread=single" -icount shift=0)
    accel_name=tcg-icount
else
    accel_args=(-accel "tcg,thread=multi")
    accel_name=tcg
fi
# One instruction per translation block: the property of QEMU 8.1 on, -singlestep before.
case "${ONE_INSN_PER_TB:-0}" in
0) ;;
1)
    [ "$accel" = tcg ] || die "ONE_INSN_PER_TB=1 needs TCG"
    qver=$("$QEMU" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
    read -r qmaj qmin <<<"${qver:-0 0}"
    if [ "$qmaj" -gt 8 ] || { [ "$qmaj" = 8 ] && [ "$qmin" -ge 1 ]; }; then
        accel_args[1]+=",one-insn-per-tb=on"
    else
        accel_args+=(-singlestep)
    fi
    accel_name+="-1insn"
    ;;
*) die "ONE_INSN_PER_TB='$ONE_INSN_PER_TB' must be 0 or 1" ;;
esac

case "$APIC" in
x2apic) cpu_model+=",+x2apic" ;;
xapic) cpu_model+=",-x2apic" ;;
esac
smp_arg=$SMP${TOPOLOGY:+,$TOPOLOGY}

# How QEMU ended when it exits with status 0: with -no-reboot a guest reset ends it without
# a shutdown request, a power-off (or a signal) through one, which this trace event names
# with its ShutdownCause (QEMU's qapi/run-state.json: 4 host-signal, 6 guest-shutdown).
# QEMU_TRACE: more events into QEMU_TRACE_LOG, which is then the file this reads from.
trace_file=
trace_args=()
if [ -n "${QEMU_TRACE_LOG:-}" ]; then
    trace_file=$QEMU_TRACE_LOG
    mkdir -p "$(dirname "$trace_file")"
    : >"$trace_file"
elif [ "$dry" != 1 ]; then
    trace_file=$(mktemp "${TMPDIR:-/tmp}/qemu-run-trace.XXXXXX")
    trap 'rm -f "$trace_file"' EXIT
fi
trace_args=(-trace qemu_system_shutdown_request -D "${trace_file:-TRACEFILE}")
if [ -n "${QEMU_TRACE:-}" ]; then
    [ -n "${QEMU_TRACE_LOG:-}" ] || die "QEMU_TRACE=$QEMU_TRACE needs QEMU_TRACE_LOG=file"
    IFS=, read -ra trace_events <<<"$QEMU_TRACE"
    for ev in "${trace_events[@]}"; do
        [[ $ev =~ ^[a-z0-9_*]+$ ]] || die "QEMU_TRACE: '$ev' is not a trace event name"
        trace_args+=(-trace "$ev")
    done
fi

display_args=(-display none)
case "${SCREEN:-0}" in
0) ;;
1) display_args=() ;; # QEMU's own choice of window (GTK or SDL when built with them)
*) die "SCREEN='$SCREEN' must be 0 or 1" ;;
esac

# SCREENDUMP: the monitor on a socket for tools/qemu-screendump.py, the serial log in a file.
SCREENDUMP=${SCREENDUMP:-}
monitor_args=(-monitor none)
shot_dir=
if [ -n "$SCREENDUMP" ]; then
    [ "$debug" = 1 ] && die "SCREENDUMP= and --debug do not go together"
    shot_dir=$(mktemp -d "${TMPDIR:-/tmp}/qemu-run-shot.XXXXXX")
    [ -n "$LOG" ] || LOG=$shot_dir/serial.log
    monitor_args=(-monitor "unix:$shot_dir/monitor,server=on,wait=off")
    trap '[ -n "${QEMU_TRACE_LOG:-}" ] || rm -f "$trace_file"; rm -rf "$shot_dir"' EXIT
fi

read -ra extra_args <<<"${QEMU_EXTRA:-}"
qemu_cmd=("$QEMU" -machine "$machine" "${accel_args[@]}" -cpu "$cpu_model" -m "$MEM"
    -smp "$smp_arg" "${numa_args[@]}" "${big_args[@]}" "${fw_args[@]}" "${display_args[@]}" "${monitor_args[@]}"
    -no-reboot "${boot_args[@]}" -device "isa-debug-exit,iobase=0xf4,iosize=0x04"
    -serial stdio "${trace_args[@]}"
    "${extra_args[@]}")

if [ "$debug" = 1 ]; then
    qemu_cmd+=(-s -S)
    run_cmd=("${qemu_cmd[@]}")
    timeout_desc=none
else
    if [ "$TIMEOUT" -gt 0 ]; then
        run_cmd=(timeout --foreground -k 5 "$TIMEOUT" "${qemu_cmd[@]}")
        timeout_desc=${TIMEOUT}s
    else
        run_cmd=("${qemu_cmd[@]}")
        timeout_desc=none
    fi
fi

echo "qemu-run: $accel_name smp=$smp_arg apic=$APIC mem=$MEM nodes=$NODES firmware=$FIRMWARE machine=$machine" \
    "timeout=$timeout_desc $boot_from" >&2

if [ "$dry" = 1 ]; then
    for a in "${run_cmd[@]}"; do
        if [[ $a =~ ^[A-Za-z0-9_./,=:+@%-]+$ ]]; then printf '%s ' "$a"; else printf '%q ' "$a"; fi
    done
    echo
    exit 0
fi

if [ "$debug" = 1 ]; then
    mkdir -p "$root/build"
    printf '%s\n' "file $ELF" "set architecture i386:x86-64" "target remote localhost:1234" \
        >"$root/build/gdbinit"
    echo "qemu-run: waiting for gdb on localhost:1234; attach from $root with:" >&2
    echo "qemu-run:     gdb -x build/gdbinit" >&2
fi

# Reports a result line on stderr and, when LOG is set, at the end of the log too.
note() {
    echo "qemu-run: $*" >&2
    if [ -n "$LOG" ]; then echo "qemu-run: $*" >>"$LOG"; fi
}

# QEMU puts a terminal on stdin into raw mode; a killed QEMU cannot restore it.
tty_state=
if [ -t 0 ]; then tty_state=$(stty -g 2>/dev/null || true); fi

set +e
shot_pid=
if [ -n "$SCREENDUMP" ]; then
    mkdir -p "$(dirname "$LOG")" "$(dirname "$SCREENDUMP")"
    : >"$LOG"
    "$root/tools/qemu-screendump.py" "$shot_dir/monitor" "$LOG" "$SCREENDUMP" \
        "$([ "$TIMEOUT" -gt 0 ] && echo "$TIMEOUT" || echo 86400)" >"$shot_dir/result" &
    shot_pid=$!
fi
if [ -n "$LOG" ]; then
    mkdir -p "$(dirname "$LOG")"
    "${run_cmd[@]}" | tee "$LOG"
    rc=${PIPESTATUS[0]}
else
    "${run_cmd[@]}"
    rc=$?
fi
set -e

if [ -n "$tty_state" ]; then stty "$tty_state" 2>/dev/null || true; fi

if [ -n "$shot_pid" ]; then
    shot_rc=0
    wait "$shot_pid" || shot_rc=$?
    result=$(cat "$shot_dir/result" 2>/dev/null)
    if [ "$shot_rc" = 0 ]; then
        note "screendump in $SCREENDUMP; the kernel's result: $result"
        case "$result" in
        pass) exit 0 ;;
        fail) exit 1 ;;
        *) exit 3 ;;
        esac
    fi
    note "no screendump (tools/qemu-screendump.py exited $shot_rc; qemu rc $rc)"
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && exit 124
    exit 4
fi

case "$rc" in
33) exit 0 ;;
35) exit 1 ;;
37) exit 3 ;;
esac
if [ "$timeout_desc" != none ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
    note "TIMEOUT after $TIMEOUT s (kernel hung?)"
    exit 124
fi
if [ "$rc" = 0 ] && [ -n "$trace_file" ]; then
    cause=$(sed -n 's/.*qemu_system_shutdown_request reason=\([0-9]*\).*/\1/p' "$trace_file" | tail -n 1)
    case "$cause" in
    6)
        note "the guest powered the machine off"
        exit 5
        ;;
    "")
        note "the guest reset the machine (a reboot or a triple fault; QEMU runs with -no-reboot)"
        exit 6
        ;;
    4) note "QEMU was stopped by a signal" ;;
    *) note "QEMU shut down (ShutdownCause $cause)" ;;
    esac
fi
note "kernel did not report a result (qemu rc $rc)"
exit 4
