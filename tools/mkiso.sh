#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a hybrid BIOS+UEFI GRUB ISO holding the kernel.
#   tools/mkiso.sh OUT.iso KERNEL.elf GRUB.CFG          the ISO with the shipped menu
#   tools/mkiso.sh OUT.iso KERNEL.elf --cmdline "ARGS"  one entry with ARGS, no menu delay
#   tools/mkiso.sh --print-cfg --cmdline "ARGS"         print that entry's grub.cfg, build nothing
#   ... --cmdline "ARGS" --module FILE                   the entry also loads FILE as a
#                                                        multiboot2 module (bench=replay's
#                                                        trace, docs/traces.md), /boot/trace
# ARGS is split into words at blanks (spaces, tabs, newlines); each word reaches the kernel
# as written, the words joined by single spaces. A word holding ' " or \ is refused (exit 2):
# GRUB 2.06's multiboot2 command puts a backslash before each of those three characters in
# the command line it hands over (grub_create_loader_cmdline, grub-core/lib/cmdline.c), so
# the kernel could not see them as written; no kernel option takes them. So is a control
# character other than those blanks.
set -euo pipefail

die() {
    echo "mkiso: $*" >&2
    exit 2
}

# grub_word TEXT: TEXT as one word for GRUB's script parser. Inside single quotes every
# character is literal ($ ; } # { | & < > and blanks included); a single quote cannot occur
# inside them, so it is written as '\'' (GNU GRUB manual, "Shell-like scripting", Quoting).
grub_word() {
    local q="'\\''"
    printf "'%s'" "${1//\'/$q}"
}

# cmdline_cfg ARGS [MODULE]: the grub.cfg of one entry booting the kernel with ARGS (and
# loading /boot/trace as a module if MODULE is given).
cmdline_cfg() {
    local LC_ALL=C words=() w args="" title=slablab
    local no_blanks=${1//[$' \t\n']/}
    if [[ $no_blanks == *[[:cntrl:]]* ]]; then
        die "the command line holds a control character (only spaces, tabs and newlines" \
            "separate words): $(printf '%q' "$1")"
    fi
    local IFS=$' \t\n'
    set -f
    # shellcheck disable=SC2206 # word splitting at blanks is the point; globbing is off
    words=($1)
    set +f
    for w in "${words[@]}"; do
        if [[ $w == *[\'\"\\]* ]]; then
            die "the command line word <$w> holds a quote or a backslash: GRUB 2.06's" \
                "multiboot2 command would pass it to the kernel with a backslash before" \
                "each ' \" and \\, and no slablab option takes those characters"
        fi
        args+=" $(grub_word "$w")"
        title+=" $w"
    done
    cat <<CFG
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial console
terminal_output serial console
set timeout=0
menuentry $(grub_word "$title") {
    multiboot2 /boot/slablab.elf$args${2:+
    module2 /boot/trace trace}
    boot
}
CFG
}

if [ "${1-}" = --print-cfg ]; then
    if [ "${2-}" != --cmdline ] || { [ $# -gt 3 ] && { [ $# != 5 ] || [ "$4" != --module ]; }; }; then
        die "usage: mkiso.sh --print-cfg --cmdline \"ARGS\" [--module FILE]"
    fi
    cmdline_cfg "${3-}" "${5-}"
    exit 0
fi
[ $# -ge 3 ] || die "usage: mkiso.sh OUT.iso KERNEL.elf GRUB.CFG | --cmdline \"ARGS\""
out=$1 kernel=$2 cfg=$3 module=
if [ "$cfg" = --cmdline ] && [ $# -gt 4 ]; then
    [ $# = 6 ] && [ "$5" = --module ] || die "usage: mkiso.sh OUT.iso KERNEL.elf --cmdline \"ARGS\" [--module FILE]"
    module=$6
    [ -f "$module" ] || die "no module file '$module'"
fi
if [ "$cfg" = --cmdline ]; then
    # Checked (and the config made) before anything is built.
    cfg_text=$(cmdline_cfg "${4-}" "$module")
fi
tree=$(mktemp -d "${TMPDIR:-/tmp}/slablab-iso.XXXXXX")
log=$(mktemp "${TMPDIR:-/tmp}/slablab-iso-log.XXXXXX")   # not inside the tree that goes on the ISO
trap 'rm -rf "$tree" "$log"' EXIT
mkdir -p "$tree/boot/grub"
cp "$kernel" "$tree/boot/slablab.elf"
[ -z "$module" ] || cp "$module" "$tree/boot/trace"
if [ "$cfg" = --cmdline ]; then
    printf '%s\n' "$cfg_text" > "$tree/boot/grub/grub.cfg"
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
