#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes a TFTP tree that boots slablab over the network (make netboot; docs/real-hardware.md):
#   tools/netboot.sh OUT KERNEL.elf [--cmdline "ARGS"] [--module FILE] [--subdir DIR] [--timeout N]
# OUT is the TFTP server's root, or holds the tree under DIR (--subdir, e.g. slablab, when
# the server's root has other trees). Under OUT[/DIR]/boot:
#   grub/i386-pc/core.0      GRUB's PXE image, for BIOS machines (grub-mknetdir)
#   grub/x86_64-efi/core.efi GRUB's image for UEFI machines (grub-mknetdir)
#   grub/grub.cfg            the menu: one entry booting ARGS (tools/mkiso.sh's, shown for
#                            --timeout seconds, default 5: long enough for a person or a LAVA
#                            dispatcher to stop it); without --cmdline, the ISO's own menu
#                            (iso/boot/grub/grub.cfg)
#   slablab.elf              the kernel; trace, the module (--module: bench=replay's trace)
# A DHCP server hands out boot/grub/i386-pc/core.0 or boot/grub/x86_64-efi/core.efi (with
# DIR/ in front) by the client's architecture; GRUB then fetches the rest from the same
# server. Anything else already in OUT is left alone; the tree's own files are replaced.
set -euo pipefail

die() {
    echo "netboot: $*" >&2
    exit 2
}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 2 ] || die "usage: netboot.sh OUT KERNEL.elf [--cmdline ARGS] [--module FILE] [--subdir DIR] [--timeout N]"
out=$1 kernel=$2
shift 2
cmdline='' have_cmdline=0 module='' subdir='' tmo=5
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || die "$1 needs a value"
    case "$1" in
    --cmdline) cmdline=$2 have_cmdline=1 ;;
    --module) module=$2 ;;
    --subdir) subdir=$2 ;;
    --timeout) tmo=$2 ;;
    *) die "unknown option $1" ;;
    esac
    shift 2
done
[ -f "$kernel" ] || die "no kernel $kernel"
[ -z "$module" ] || [ -f "$module" ] || die "no module file '$module'"
subdir=${subdir#/}
subdir=${subdir%/}
[ -z "$subdir" ] || [[ $subdir =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$ ]] ||
    die "--subdir '$subdir' is not a relative path of plain names"
[ -n "$module" ] && [ "$have_cmdline" = 0 ] && die "--module goes with --cmdline (an entry of its own)"
boot=/${subdir:+$subdir/}boot

# The menu first: a bad command line stops here, before anything is written.
if [ "$have_cmdline" = 1 ]; then
    cfg=$("$root/tools/mkiso.sh" --print-cfg --cmdline "$cmdline" ${module:+--module "$module"} \
        --timeout "$tmo" --boot-dir "$boot")
else
    [[ $tmo =~ ^[0-9]+$ ]] || die "--timeout '$tmo' is not a number of seconds"
    cfg=$(sed -e "s|^set timeout=.*|set timeout=$tmo|" -e "s| /boot/slablab\.elf| $boot/slablab.elf|" \
        "$root/iso/boot/grub/grub.cfg")
fi

for platform in i386-pc x86_64-efi; do
    [ -d "/usr/lib/grub/$platform" ] ||
        die "no /usr/lib/grub/$platform (packages: grub-pc-bin grub-efi-amd64-bin)"
done
mkdir -p "$out$boot"
rm -rf "$out$boot/grub"
log=$(mktemp "${TMPDIR:-/tmp}/slablab-netboot.XXXXXX")
trap 'rm -f "$log"' EXIT
for platform in i386-pc x86_64-efi; do
    if ! grub-mknetdir --net-directory="$out" --subdir="${boot#/}/grub" -d "/usr/lib/grub/$platform" \
        >"$log" 2>&1; then
        cat "$log" >&2
        die "grub-mknetdir failed for $platform"
    fi
done
printf '%s\n' "$cfg" >"$out$boot/grub/grub.cfg"
cp "$kernel" "$out$boot/slablab.elf"
rm -f "$out$boot/trace"
[ -z "$module" ] || cp "$module" "$out$boot/trace"
echo "netboot: $out${boot}: BIOS clients boot ${boot#/}/grub/i386-pc/core.0, UEFI clients ${boot#/}/grub/x86_64-efi/core.efi"
