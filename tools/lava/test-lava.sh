#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make test-lava: LAVA's own dispatcher (lava-run from Debian 12's lava-dispatcher 2023.01,
# no lava-server, offline) runs slablab's jobs, made by tools/lava/mkjob.py as make lava-job
# makes them, and tools/lava/check.py holds each job's results against the KTAP of the serial
# port's own log (QEMU writes it to a file beside LAVA's connection), case by case. Four jobs
# on the qemu device type (tools/lava/devices/qemu.yaml):
#   pass     test=smp,ipi,page_pcp pcp=0: every case passes or skips, slablab/exit pass
#   fail     the same with test_fail=ipi.async_call_completes: that one case fails, and the
#            verdict
#   panic    test=smp,ipi crash=panic (the kernel panics before the suites the job waits
#            for: each monitor ends at the exit line): slablab/exit fail, the job
#            complete (not Incomplete)
#   bad-option  bogus=1 (the kernel refuses its command line): slablab/exit fail
# and one GRUB job on a PC that netboots GRUB (tools/lava/devices/grub-pc.yaml, the PC played
# by QEMU, tools/lava/qemu-pc.sh), LAVA stopping GRUB's menu and typing the job's commands:
#   grub-netboot  test=smp,ipi,page_pcp pcp=0 test_fail=smp.all_cpus_online
# Needs root (lava-run runs only as root) and lava-dispatcher and tftpd-hpa (make test-lava
# installs them without recommends through tools/deps.sh lava, or names the apt-get line).
# Prints KTAP, then "N passed, N failed"; exit 1 on any failure. Files in build/lava/test/.
# TEST_FILTER=REGEX runs only the jobs whose name matches.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
out=build/lava/test
py=/usr/bin/python3
# tools/deps.sh lava (make test-lava) installs lava-dispatcher and tftpd-hpa.
command -v lava-run >/dev/null 2>&1 && [ -f /etc/default/tftpd-hpa ] || {
    echo "test-lava: lava-run or /etc/default/tftpd-hpa is missing: run make test-lava (tools/deps.sh lava)" >&2
    exit 1
}
if [ "$(id -u)" != 0 ]; then
    echo "test-lava: lava-run runs only as root (it refuses otherwise): run make test-lava as root" >&2
    exit 1
fi
[ -x "$py" ] && "$py" -c 'import yaml' 2>/dev/null ||
    { echo "test-lava: $py cannot import yaml (python3-yaml, a dependency of lava-dispatcher)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
# No default route is needed when the dispatcher's address is given (lava-run looks for the
# gateway's interface otherwise, and fails on a machine without one).
echo "dispatcher_ip: 127.0.0.1" >"$out/dispatcher.yaml"

passed=0 failed=0 n=0
results=()

# job KIND NAME CMDLINE CHECK_ARGS...: makes the job as make lava-job does and runs it with
# lava-run, then checks it. KIND qemu: on a copy of tools/lava/devices/qemu.yaml whose QEMU
# also writes the serial port to a file; grub: on tools/lava/devices/grub-pc.yaml, the PC
# played by tools/lava/qemu-pc.sh, netbooting the ISO's menu from make netboot's tree in the
# TFTP server's directory (LAVA's kernel beside it); the dispatcher's address, {SERVER_IP} in
# the GRUB commands, is the one the PC reaches the TFTP server at: QEMU's 10.0.2.2.
job() {
    local kind=$1 name=$2 cmdline=$3 dir=$out/$2 rc=0 t0=$SECONDS msg crc
    shift 3
    [ -z "${TEST_FILTER:-}" ] || [[ $name =~ $TEST_FILTER ]] || return 0
    mkdir -p "$dir"
    n=$((n + 1))
    if [ "$kind" = qemu ]; then
        make -s iso-cmdline CMDLINE="$cmdline" OUT="$dir/slablab.iso" >"$dir/make.log" 2>&1 &&
            "$py" tools/lava/mkjob.py --elf build/slablab.elf --cmdline "$cmdline" --smp 2 \
                --iso "file://$root/$dir/slablab.iso" -o "$dir/job.yaml" >>"$dir/make.log" 2>&1 &&
            sed '/^          - -device isa-debug-exit/a\
          - -chardev stdio,id=serial0,signal=off,logfile='"$root/$dir"'/serial.log\
          - -serial chardev:serial0' tools/lava/devices/qemu.yaml >"$dir/device.yaml" &&
            cp "$out/dispatcher.yaml" "$dir/dispatcher.yaml"
    else
        tools/netboot.sh "$tftp_root" build/slablab.elf --subdir "$tftp_sub" --timeout 5 \
            >"$dir/make.log" 2>&1 &&
            "$py" tools/lava/mkjob.py --elf build/slablab.elf --cmdline "$cmdline" \
                --device slablab-pc --kernel "file://$root/build/slablab.elf" \
                -o "$dir/job.yaml" >>"$dir/make.log" 2>&1 &&
            sed -e "s|@QEMU_PC@|$root/tools/lava/qemu-pc.sh|" -e "s|@STATE@|$root/$dir/pc|" \
                -e "s|@TFTP@|$tftp_root|" -e "s|@BOOTFILE@|$tftp_sub/boot/grub/i386-pc/core.0 $root/$dir/serial.log|" \
                tools/lava/devices/grub-pc.yaml >"$dir/device.yaml" &&
            echo "dispatcher_ip: 10.0.2.2" >"$dir/dispatcher.yaml"
    fi || {
        results+=("not ok $n $name # could not make the job: $(tail -n 1 "$dir/make.log")")
        failed=$((failed + 1))
        return
    }
    timeout -k 10 900 lava-run --job-id "slablab-$$-$name" --output-dir "$dir/output" \
        --device "$dir/device.yaml" --dispatcher "$dir/dispatcher.yaml" "$dir/job.yaml" \
        >"$dir/lava.log" 2>&1 || rc=$?
    msg=$("$py" tools/lava/check.py "$dir/lava.log" --serial "$dir/serial.log" "$@" 2>&1)
    crc=$?
    echo "$msg" | sed 's/^/# /'
    if [ "$crc" = 0 ] && [ "$rc" = 0 ]; then
        results+=("ok $n $name")
        passed=$((passed + 1))
    else
        results+=("not ok $n $name")
        [ "$rc" = 0 ] || echo "# lava-run exited $rc (log: $dir/lava.log)"
        failed=$((failed + 1))
    fi
    echo "# $name: $((SECONDS - t0)) s (log: $dir/lava.log)"
}

# The TFTP server's directory (tftpd-hpa's, as LAVA reads it) gets make netboot's tree under
# a name of this run's, removed at the end.
tftp_root=$(sed -n 's/^TFTP_DIRECTORY="*\([^"]*\)"*$/\1/p' /etc/default/tftpd-hpa)
[ -n "$tftp_root" ] || tftp_root=/srv/tftp
tftp_sub=slablab-test-$$
trap 'rm -rf "${tftp_root:?}/$tftp_sub"' EXIT

job qemu pass "test=smp,ipi,page_pcp pcp=0" --verdict pass --fails "" --skips 1
job qemu fail "test=smp,ipi,page_pcp pcp=0 test_fail=ipi.async_call_completes" \
    --verdict fail --fails ipi.async_call_completes --skips 1
job qemu panic "test=smp,ipi crash=panic" --verdict fail --fails ""
job qemu bad-option "bogus=1" --verdict fail --fails ""
job grub grub-netboot "test=smp,ipi,page_pcp pcp=0 test_fail=smp.all_cpus_online" \
    --verdict fail --fails smp.all_cpus_online --skips 1
echo "KTAP version 1"
echo "1..$n"
[ ${#results[@]} = 0 ] || printf '%s\n' "${results[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
