#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A PC of a LAVA lab, played by QEMU, for make test-lava's GRUB job: its serial console and
# its power commands, as a lab's device dictionary gives them for a real machine
# (connection_command, hard_reset_command, power_off_command; docs/lava.md).
#   qemu-pc.sh console STATE TFTP_ROOT BOOTFILE [SERIAL_LOG]
#       the PC's serial port on stdin/stdout (and copied to SERIAL_LOG), the PC plugged in
#       but not running until reset: a BIOS machine (SeaBIOS) with an e1000 NIC whose iPXE
#       netboots BOOTFILE from TFTP_ROOT (QEMU's own DHCP and TFTP server, at 10.0.2.2 for
#       the guest); its monitor listens on STATE/monitor
#   qemu-pc.sh reset STATE    presses the reset button: the monitor's system_reset, then cont
#                             (a PC still stopped since console starts; a reset of QEMU's
#                             machine in its first moments can leave it stuck)
#   qemu-pc.sh off STATE      switches it off (the monitor's quit); nothing if it is off
# A reset waits up to 60 s for a PC being switched on by console.
set -euo pipefail

die() {
    echo "qemu-pc: $*" >&2
    exit 2
}

# monitor STATE COMMAND [WAIT]: sends COMMAND to the PC's monitor; waits WAIT seconds for it.
monitor() {
    /usr/bin/python3 - "$1/monitor" "$2" "${3:-0}" <<'PY'
import socket, sys, time
path, cmd, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + wait
while True:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        break
    except OSError:
        if time.monotonic() >= end:
            sys.exit(1)
        time.sleep(0.2)
s.settimeout(5)
try:
    s.recv(4096)  # the monitor's banner and prompt
    s.sendall(cmd.encode() + b"\n")
    time.sleep(0.3)
except OSError:
    pass  # quit closes the monitor while we read
PY
}

case "${1-}" in
console)
    [ $# = 4 ] || [ $# = 5 ] || die "usage: qemu-pc.sh console STATE TFTP_ROOT BOOTFILE [SERIAL_LOG]"
    state=$2 tftp=$3 bootfile=$4 serial=(-serial stdio)
    [ $# = 5 ] && serial=(-chardev "stdio,id=com1,signal=off,logfile=$5" -serial chardev:com1)
    [ -f "$tftp/$bootfile" ] || die "no $tftp/$bootfile"
    mkdir -p "$state"
    rm -f "$state/monitor"
    exec qemu-system-x86_64 -S -machine pc -accel tcg,thread=multi -cpu max -m 256M -smp 2 \
        -display none -monitor "unix:$state/monitor,server=on,wait=off" \
        -netdev "user,id=lab0,tftp=$tftp,bootfile=$bootfile" -device e1000,netdev=lab0 -boot n \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 "${serial[@]}"
    ;;
reset)
    [ $# = 2 ] || die "usage: qemu-pc.sh reset STATE"
    monitor "$2" system_reset 60 || die "the PC is not on (no monitor at $2/monitor)"
    monitor "$2" cont 5 || die "the PC's monitor went away"
    ;;
off)
    [ $# = 2 ] || die "usage: qemu-pc.sh off STATE"
    monitor "$2" quit 0 || true
    ;;
*)
    die "usage: qemu-pc.sh console|reset|off STATE ..."
    ;;
esac
