#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a hybrid BIOS+UEFI GRUB ISO holding the kernel.
#   tools/mkiso.sh OUT.iso KERNEL.elf GRUB.CFG          the ISO with the shipped menu
#   tools/mkiso.sh OUT.iso KERNEL.elf --cmdline "ARGS"  one entry with ARGS, no menu delay
set -euo pipefail
out=$1 kernel=$2 cfg=$3
tree=$(mktemp -d "${TMPDIR:-/tmp}/slablab-iso.XXXXXX")
log=$(mktemp "${TMPDIR:-/tmp}/slablab-iso-log.XXXXXX")   # not inside the tree that goes on the ISO
trap 'rm -rf "$tree" "$log"' EXIT
mkdir -p "$tree/boot/grub"
cp "$kernel" "$tree/boot/slablab.elf"
if [ "$cfg" = --cmdline ]; then
    cmdline=${4-}
    cat > "$tree/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial console
terminal_output serial console
set timeout=0
menuentry "slablab $cmdline" {
    multiboot2 /boot/slablab.elf $cmdline
    boot
}
CFG
else
    cp "$cfg" "$tree/boot/grub/grub.cfg"
fi
mkdir -p "$(dirname "$out")"
if ! grub-mkrescue -o "$out.tmp" "$tree" > "$log" 2>&1; then
    cat "$log" >&2
    echo "mkiso: grub-mkrescue failed (packages: grub-pc-bin grub-efi-amd64-bin xorriso mtools)" >&2
    exit 1
fi
mv "$out.tmp" "$out"
