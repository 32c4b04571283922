#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test for the way CMDLINE reaches GRUB: the grub.cfg tools/mkiso.sh writes for command
# lines full of GRUB's metacharacters ($ ; { } | & < > #, blanks), read back word by word
# the way GRUB 2.06's script parser reads them, and checked by grub-script-check; the
# characters it must refuse; and the Makefile handing CMDLINE to mkiso.sh (make iso-cmdline,
# make run, make debug, make bench) without make or the shell changing it. Real boots with
# such command lines are in tests/boots.txt (cmdline[grub metachars ...], cmdline[slub_debug=P;FZ,...]).
# Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# This runs under make test: the outer make's flags and knobs must not reach the makes below.
unset MAKEFLAGS MFLAGS MAKELEVEL CMDLINE

# grub_words: reads a grub.cfg on stdin and prints, NUL-separated, the words of the
# menuentry title and then those of the multiboot2 line, as GRUB's parser makes them
# (GNU GRUB manual, "Shell-like scripting": blanks separate words; inside single quotes
# every character is literal; a backslash outside quotes keeps the next character). Strict:
# any other character GRUB treats specially ($ expansion, ; { } | & < > and a # starting a
# word, double quotes) outside single quotes is an error, as that is not GRUB reading a word
# literally.
grub_words() {
    "$py" -c '
import sys

def words(line, n):
    out, cur, i = [], None, 0
    while i < len(line):
        c = line[i]
        if c in " \t":
            if cur is not None:
                out.append(cur)
                cur = None
            i += 1
        elif c == "\x27":
            j = line.find("\x27", i + 1)
            if j < 0:
                sys.exit("line %d: unterminated single quote" % n)
            cur = (cur or "") + line[i + 1 : j]
            i = j + 1
        elif c == "\\":
            if i + 1 >= len(line):
                sys.exit("line %d: backslash at the end" % n)
            cur = (cur or "") + line[i + 1]
            i += 2
        elif c in "$;{}|&<>\"" or (c == "#" and cur is None):
            sys.exit("line %d: %r outside single quotes: %s" % (n, c, line))
        else:
            cur = (cur or "") + c
            i += 1
    if cur is not None:
        out.append(cur)
    return out

title = args = None
for n, line in enumerate(sys.stdin.read().split("\n"), 1):
    s = line.strip()
    if s.startswith("menuentry "):
        if not s.endswith(" {"):
            sys.exit("line %d: menuentry does not end with {" % n)
        w = words(s[: -2], n)
        if len(w) != 2:
            sys.exit("line %d: menuentry has %d words, want 2: %r" % (n, len(w), w))
        title = w[1]
    elif s.startswith("multiboot2 "):
        args = words(s, n)[1:]
if title is None or args is None:
    sys.exit("no menuentry or no multiboot2 line")
sys.stdout.write("\0".join([title] + args) + "\0")
'
}

# cfg_ok CMDLINE WORD...: mkiso.sh --print-cfg makes a grub.cfg that grub-script-check
# accepts, whose title is "slablab" and the WORDs, and whose multiboot2 line passes
# /boot/slablab.elf and exactly the WORDs.
cfg_ok() {
    local cmdline=$1 got=() want
    shift
    if ! "$root/tools/mkiso.sh" --print-cfg --cmdline "$cmdline" >"$tmp/grub.cfg" 2>"$tmp/err"; then
        echo "FAILED: mkiso.sh --print-cfg refused $(printf '%q' "$cmdline"): $(cat "$tmp/err")"
        return 1
    fi
    if ! grub-script-check "$tmp/grub.cfg" >"$tmp/err" 2>&1; then
        echo "FAILED: grub-script-check rejects the grub.cfg for $(printf '%q' "$cmdline"):"
        cat "$tmp/err" "$tmp/grub.cfg"
        return 1
    fi
    if ! grub_words <"$tmp/grub.cfg" >"$tmp/words" 2>"$tmp/err"; then
        echo "FAILED: GRUB would not read the words as written: $(cat "$tmp/err")"
        cat "$tmp/grub.cfg"
        return 1
    fi
    mapfile -d '' got <"$tmp/words"
    want=("slablab${*:+ $*}" /boot/slablab.elf "$@")
    if [ "${got[*]@Q}" != "${want[*]@Q}" ]; then
        echo "FAILED: title and multiboot2 words are ${got[*]@Q}, want ${want[*]@Q}"
        cat "$tmp/grub.cfg"
        return 1
    fi
}

# refused CMDLINE TEXT: mkiso.sh exits 2 with a message containing TEXT and builds nothing.
refused() {
    local rc=0 out
    out=$("$root/tools/mkiso.sh" "$tmp/no.iso" /nonexistent.elf --cmdline "$1" 2>&1) || rc=$?
    if [ "$rc" != 2 ] || [[ $out != *"$2"* ]] || [ -e "$tmp/no.iso" ]; then
        echo "FAILED: mkiso.sh --cmdline $(printf '%q' "$1") exited $rc, want 2 with '$2'; said: $out"
        return 1
    fi
}

quotes_and_backslash_refused() {
    refused "test=smp it's" "word <it's> holds a quote or a backslash" &&
        refused 'bench="x"' 'word <bench="x"> holds a quote' &&
        refused 'test=a\b' 'word <test=a\b> holds a quote or a backslash' &&
        refused $'test=smp\x01' "holds a control character"
}

# --module FILE: the entry loads /boot/trace as a multiboot2 module after the kernel
# (bench=replay's trace); a missing file is refused before anything is built.
module_entry() {
    local rc=0 out
    "$root/tools/mkiso.sh" --print-cfg --cmdline "bench=replay" --module /x >"$tmp/grub.cfg" || return 1
    grub-script-check "$tmp/grub.cfg" || { cat "$tmp/grub.cfg"; return 1; }
    if ! grep -A1 -x "    multiboot2 /boot/slablab.elf 'bench=replay'" "$tmp/grub.cfg" |
        grep -qx "    module2 /boot/trace trace"; then
        echo "FAILED: no module2 line after the multiboot2 line:"
        cat "$tmp/grub.cfg"
        return 1
    fi
    "$root/tools/mkiso.sh" --print-cfg --cmdline "bench=replay" | grep -q module2 &&
        { echo "FAILED: a module2 line without --module"; return 1; }
    out=$("$root/tools/mkiso.sh" "$tmp/no.iso" /nonexistent.elf --cmdline "bench=replay" --module "$tmp/none" 2>&1) || rc=$?
    if [ "$rc" != 2 ] || [[ $out != *"no module file '$tmp/none'"* ]] || [ -e "$tmp/no.iso" ]; then
        echo "FAILED: --module of a missing file exited $rc, said: $out"
        return 1
    fi
    rc=0
    out=$("$root/tools/mkiso.sh" "$tmp/no.iso" /nonexistent.elf --cmdline "bench=replay" --modul x 2>&1) || rc=$?
    [ "$rc" = 2 ] && [[ $out == *usage* ]] || { echo "FAILED: a misspelt --module exited $rc: $out"; return 1; }
}

# The variable as the Makefile hands it on, NUL-separated per check: the word after
# --cmdline in make iso-cmdline's mkiso.sh command, and the CMDLINE= word of the sub-make
# that make run, make debug and make bench start; both as the shell would split them.
# shellcheck disable=SC2016 # the $ are meant literally
nasty='test=smp;$x}#y {z} a|b&c<d>e "q" \z it'\''s $(no) $$two'
# make_words HOW: HOW is cmd (make ... CMDLINE=VALUE) or env (CMDLINE=VALUE in the environment).
make_words() {
    local t line w=() how=()
    [ "$1" = cmd ] && how=(CMDLINE="$nasty")
    for t in iso-cmdline run debug bench; do
        # -n: print the commands (sub-makes still run, with -n too); lines with a trailing
        # backslash joined.
        line=$(if [ "$1" = env ]; then export CMDLINE=$nasty; fi
            make -n -s --no-print-directory -C "$root" "$t" OUT="$tmp/x.iso" "${how[@]}" |
            sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' |
            grep -m1 -E '^tools/mkiso.sh |iso-cmdline OUT=') || {
            echo "FAILED: make -n $t printed no mkiso.sh or iso-cmdline command"
            return 1
        }
        line=${line% >/dev/null}
        # What the recipe's shell would make of it, without running it.
        if ! (set +u; eval "w=($line)" && printf '%s\0' "${w[@]}") >"$tmp/mw" 2>"$tmp/err"; then
            echo "FAILED: make $t's command does not parse: $line: $(cat "$tmp/err")"
            return 1
        fi
        mapfile -d '' w <"$tmp/mw"
        if [ "$t" = iso-cmdline ]; then
            [ "${w[3]-}" = --cmdline ] && printf '%s\0' "$t" "${w[4]-}"
        else
            for x in "${w[@]}"; do
                [[ $x == CMDLINE=* ]] && printf '%s\0' "$t" "${x#CMDLINE=}"
            done
        fi
    done
}

# make_passes HOW: every target hands on CMDLINE as given (HOW as for make_words).
make_passes() {
    local got=() i
    make_words "$1" >"$tmp/got" || { cat "$tmp/got"; return 1; }
    mapfile -d '' got <"$tmp/got"
    if [ "${#got[@]}" != 8 ]; then
        echo "FAILED: found ${#got[@]} words, want 8 (iso-cmdline, run, debug, bench): ${got[*]@Q}"
        return 1
    fi
    for ((i = 0; i < 8; i += 2)); do
        if [ "${got[i + 1]}" != "$nasty" ]; then
            echo "FAILED: make ${got[i]} hands on ${got[i + 1]@Q}, want ${nasty@Q}"
            return 1
        fi
    done
}


t readme_slub_debug cfg_ok "test=smp slub_debug=P;FZ,kmalloc-64 slabinfo=1" \
    test=smp "slub_debug=P;FZ,kmalloc-64" slabinfo=1
# shellcheck disable=SC2016 # the $ are meant literally
t dollar cfg_ok 'test=$x bench=${y} $' 'test=$x' 'bench=${y}' '$'
t braces cfg_ok 'a}b {c} } {' 'a}b' '{c}' '}' '{'
t hash cfg_ok '#c d#e #' '#c' 'd#e' '#'
t semicolon_pipe_amp_redirect cfg_ok 'a;b c|d e&f g<h>i ;' 'a;b' 'c|d' 'e&f' 'g<h>i' ';'
t blanks_split_words cfg_ok $'  a\tb\n c  ' a b c
t empty_cmdline cfg_ok ''
t quotes_and_backslash_refused quotes_and_backslash_refused
t module_entry module_entry
t make_passes_cmdline_from_command_line make_passes cmd
t make_passes_cmdline_from_environment make_passes env

ktap_report
