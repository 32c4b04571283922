#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a hybrid BIOS+UEFI GRUB ISO holding the kernel.
#   tools/mkiso.sh OUT.iso KERNEL.elf GRUB.CFG          the ISO with the shipped menu
#   tools/mkiso.sh OUT.iso KERNEL.elf --cmdline "ARGS"  one entry with ARGS, no menu delay
#   tools/mkiso.sh --print-cfg --cmdline "ARGS"         print that entry's grub.cfg, build nothing
#   ... --cmdline "ARGS" --module FILE                   the entry also loads FILE as a
#                                                        multiboot2 module (bench=replay's
#                                                        trace, docs/traces.md), /boot/trace
#   tools/mkiso.sh --print-cfg --cmdline "ARGS" [--module FILE] [--timeout N] [--boot-dir DIR]
#                                                        the entry's menu waits N seconds
#                                                        (default 0: no menu) and it loads
#                                                        the kernel (and module) from DIR
#                                                        (default /boot): tools/netboot.sh
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
# The screen mode GRUB sets before it starts the kernel (the kernel's multiboot2 header asks
# for a framebuffer; gfxpayload chooses which, the first that the firmware has): 1024x768 at
# 32 bits per pixel, else 1024x768 at any depth, else what GRUB picks. GFXPAYLOAD= replaces
# the list, e.g. 800x600x16 for a 16-bit layout or text for VGA text mode (BIOS only). It is
# set after the multiboot2 command: GRUB 2.06's multiboot2 loader sets gfxpayload itself from
# the header's framebuffer tag when it loads the kernel, and reads it again at boot.
gfx_default=1024x768x32,1024x768,auto

grub_word() {
    local q="'\\''"
    printf "'%s'" "${1//\'/$q}"
}

# cmdline_cfg ARGS [MODULE [TIMEOUT [BOOT_DIR]]]: the grub.cfg of one entry booting the
# kernel BOOT_DIR/slablab.elf (default /boot) with ARGS (and loading BOOT_DIR/trace as a
# module if MODULE is not empty), its menu shown for TIMEOUT seconds (default 0).
cmdline_cfg() {
    local LC_ALL=C words=() w args="" title=slablab gfx=${GFXPAYLOAD:-$gfx_default}
    local tmo=${3:-0} dir=${4:-/boot}
    [[ $tmo =~ ^[0-9]+$ ]] || die "--timeout '$tmo' is not a number of seconds"
    [[ $dir =~ ^(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)+$ ]] || die "--boot-dir '$dir' is not an absolute path of plain names"
    if ! [[ $gfx =~ ^(text|keep|auto|[0-9]+x[0-9]+(x[0-9]+)?)(,(text|keep|auto|[0-9]+x[0-9]+(x[0-9]+)?))*$ ]]; then
        die "GFXPAYLOAD='$gfx' is not a GRUB video mode list (e.g. 1024x768x32,auto or text)"
    fi
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
insmod all_video
set timeout=$tmo
menuentry $(grub_word "$title") {
    multiboot2 $dir/slablab.elf$args${2:+
    module2 $dir/trace trace}
    set gfxpayload=$gfx
    boot
}
CFG
}

if [ "${1-}" = --print-cfg ]; then
    usage="usage: mkiso.sh --print-cfg --cmdline \"ARGS\" [--module FILE] [--timeout N] [--boot-dir DIR]"
    [ "${2-}" = --cmdline ] && [ $# -ge 3 ] || die "$usage"
    args=$3 module='' tmo=0 dir=/boot
    shift 3
    while [ $# -gt 0 ]; do
        [ $# -ge 2 ] || die "$usage"
        case "$1" in
        --module) module=$2 ;;
        --timeout) tmo=$2 ;;
        --boot-dir) dir=$2 ;;
        *) die "$usage" ;;
        esac
        shift 2
    done
    cmdline_cfg "$args" "$module" "$tmo" "$dir"
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
