#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: tools/deps.sh declares every command that the default `make` (the kernel and
# its ISO: the build group) and `make run` (the run group) run. A copy of the tree (its
# tracked and untracked files, no build/) is built and booted in a folder under /tmp with
# PATH reduced to two folders:
#   bin/   links to exactly the commands the group declares (tools/deps.sh --commands) and
#          those of the basics, the Debian packages every Debian has (tools/deps.sh --basics)
#   trip/  for every other command this machine has, a stand-in that writes its name down
#          and fails as a missing command does (exit 127): a use of an undeclared command
#          fails the case by name, even where the caller would have carried on without it
# Also: the basics are what tools/deps.sh says (Priority required, installed); `make` with a
# declared command missing stops at tools/deps.sh's apt-get line before it compiles anything;
# the QEMU 10 that tools/qemu10.sh fetched loads no module of the installed QEMU, and its own
# GTK window where Debian's qemu-system-gui is installed.
# Prints its own results as KTAP (flat), like the other host tests.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# This runs under make test: the outer make's flags and run knobs must not reach the makes
# below, which use the Makefile's defaults.
unset MAKEFLAGS MFLAGS MAKELEVEL CMDLINE SMP MEM ACCEL ICOUNT FIRMWARE TIMEOUT APIC TOPOLOGY \
    NODES ISO LOG QEMU QEMU_EXTRA MACHINE SCREEN SCREENDUMP GFXPAYLOAD
jobs=$(nproc 2>/dev/null || echo 1)
tree=$tmp/tree

# The directories a command is looked for in: root's PATH on Debian and this process's.
path_dirs=(/usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin)
IFS=: read -r -a own_path <<<"$PATH"
path_dirs+=("${own_path[@]}")

# basics_ok: every package tools/deps.sh names as a basic is installed with Priority required;
# the files its package lists in a bin or sbin folder go to $tmp/basic-files.
basics_ok() {
    local pkg st bad=0
    : >"$tmp/basic-files"
    while read -r pkg; do
        st=$(dpkg-query -W -f '${Status} ${Priority}' "$pkg" 2>/dev/null) || st="not known to dpkg"
        if [ "$st" != "install ok installed required" ]; then
            echo "tools/deps.sh --basics names $pkg: $st (a basic must be installed and of Priority required)"
            bad=1
            continue
        fi
        dpkg -L "$pkg" | grep -E '^(/usr)?/s?bin/[^/]+$' >>"$tmp/basic-files" || true
    done < <("$root/tools/deps.sh" --basics)
    [ -s "$tmp/basic-files" ] || { echo "no basic commands found"; bad=1; }
    return "$bad"
}

# farm NAME GROUP: $tmp/NAME/bin and $tmp/NAME/trip as above, for the commands of GROUP.
farm() {
    local name=$1 group=$2 c p
    mkdir -p "$tmp/$name/bin" "$tmp/$name/trip"
    : >"$tmp/$name/declared"
    while read -r c; do
        if ! p=$(command -v "$c"); then
            echo "tools/deps.sh's $group group declares $c, which is not installed here (tools/deps.sh $group installs it)"
            return 1
        fi
        printf '%s %s\n' "$c" "$p" >>"$tmp/$name/declared"
    done < <("$root/tools/deps.sh" --commands "$group")
    printf '#!/bin/sh\necho "${0##*/}" >>%s/undeclared\necho "${0##*/}: not declared by tools/deps.sh (test_deps.sh: this command is not there for the %s group)" >&2\nexit 127\n' \
        "$tmp/$name" "$group" >"$tmp/$name/stub"
    chmod +x "$tmp/$name/stub"
    : >"$tmp/$name/undeclared"
    python3 - "$tmp/$name" "$tmp/basic-files" "${path_dirs[@]}" <<'EOF'
import os, sys
out, basic_list, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
links = {}
for line in open(os.path.join(out, "declared")):
    name, path = line.split()
    links[name] = path
basic = [l.strip() for l in open(basic_list) if l.strip()]
basic_real = {os.path.realpath(f) for f in basic if os.path.exists(f)}
for f in basic:
    if os.path.exists(f):
        links.setdefault(os.path.basename(f), f)
# Every command this machine has: a basic one under another name (awk, the alternatives'
# link to mawk) joins bin/, any other gets the stand-in in trip/.
others = set()
for d in dirs:
    try:
        names = os.listdir(d)
    except OSError:
        continue
    for n in names:
        p = os.path.join(d, n)
        if n in links or not os.access(p, os.X_OK) or os.path.isdir(p):
            continue
        if os.path.realpath(p) in basic_real:
            links[n] = p
            continue
        # A name dpkg's alternatives give to a basic, whatever this machine chose for it
        # (awk is mawk's on every Debian, though gawk may have taken it here).
        try:
            alts = [l.strip() for l in open("/var/lib/dpkg/alternatives/" + n)]
        except OSError:
            alts = []
        alts = [a for a in alts if a.startswith("/") and os.path.realpath(a) in basic_real]
        if alts:
            links[n] = alts[0]
        else:
            others.add(n)
for n, p in links.items():
    os.symlink(p, os.path.join(out, "bin", n))
for n in others - set(links):
    os.symlink("../stub", os.path.join(out, "trip", n))
EOF
}

# in_farm NAME LOG COMMAND...: COMMAND in $tree with PATH reduced to farm NAME, its output in
# LOG; tools/deps.sh only checks (it installs nothing from here).
in_farm() {
    local name=$1 log=$2
    shift 2
    (cd "$tree" && PATH="$tmp/$name/bin:$tmp/$name/trip" DEPS_NO_INSTALL=1 "$@") >"$log" 2>&1
}

# verdict NAME LOG RC: fails, naming them, if undeclared commands were run; else if RC is not
# 0, with the end of LOG.
verdict() {
    local name=$1 log=$2 rc=$3 used
    used=$(sort -u "$tmp/$name/undeclared" | tr '\n' ' ')
    if [ -n "$used" ]; then
        echo "undeclared commands run: ${used% } (not in tools/deps.sh's group, nor a basic); the end of the log:"
        tail -n 15 "$log"
        return 1
    fi
    if [ "$rc" != 0 ]; then
        echo "exit $rc; the end of the log:"
        tail -n 25 "$log"
        return 1
    fi
}

copy_tree() {
    mkdir -p "$tree"
    if command -v git >/dev/null && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$root" ls-files -z --cached --others --exclude-standard |
            (cd "$root" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
            tar -C "$root" --null -T - -cf - | tar -C "$tree" -xf - || return 1
    else
        tar -C "$root" --exclude=./build -cf - . | tar -C "$tree" -xf - || return 1
    fi
    [ ! -e "$tree/build" ] || { echo "the copy has a build/ of the checkout's"; return 1; }
}

# `make` with nasm gone stops at tools/deps.sh's apt-get line and compiles nothing.
make_names_missing_package() {
    mkdir -p "$tmp/nonasm"
    cp -a "$tmp/build/bin/." "$tmp/nonasm/"
    rm -f "$tmp/nonasm/nasm"
    local rc=0
    (cd "$tree" && PATH="$tmp/nonasm" DEPS_NO_INSTALL=1 make) >"$tmp/nonasm.log" 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then
        echo "make succeeded without nasm"
        cat "$tmp/nonasm.log"
        return 1
    fi
    if ! grep -qx 'apt-get install -y --no-install-recommends nasm' "$tmp/nonasm.log"; then
        echo "make without nasm did not print the apt-get line for it:"
        cat "$tmp/nonasm.log"
        return 1
    fi
    if [ -n "$(find "$tree/build" -name '*.o' 2>/dev/null)" ]; then
        echo "make compiled before it checked the build group:"
        cat "$tmp/nonasm.log"
        return 1
    fi
}

build_group_builds() {
    local rc=0
    in_farm build "$tmp/build.log" make -j"$jobs" || rc=$?
    verdict build "$tmp/build.log" "$rc" || return 1
    for f in build/slablab.elf build/slablab.iso; do
        [ -s "$tree/$f" ] || { echo "make passed but made no $f"; tail -n 15 "$tmp/build.log"; return 1; }
    done
}

# make run boots for real: qemu-run.sh's commands after QEMU's are run too. SMP=1 and
# test=smp make it a short boot.
run_group_boots() {
    local rc=0
    in_farm run "$tmp/run.log" make run SMP=1 CMDLINE=test=smp || rc=$?
    verdict run "$tmp/run.log" "$rc" || return 1
    grep -q '^slablab: pass' "$tmp/run.log" || { echo "no pass line:"; tail -n 15 "$tmp/run.log"; return 1; }
}

# The fetched QEMU 10 lists its display and audio back-ends, which loads their modules:
# each must come from the fetched copy (QEMU 7.2's abort it, "Only modules from the same
# build can be loaded").
qemu10_own_modules() {
    local q copy out bad mods
    if ! q=$("$root/tools/qemu10.sh" 2>&1); then
        echo "# SKIP no fetched QEMU 10: $q"
        return 0
    fi
    copy=$(dirname "$(dirname "$q")")
    if [ "$q" = "$(command -v qemu-system-x86_64)" ]; then
        echo "# SKIP the installed QEMU has TCG x2APIC: nothing is fetched"
        return 0
    fi
    out=$( { LD_DEBUG=files "$q" -display help && LD_DEBUG=files "$q" -audiodev help; } 2>&1) || {
        echo "$q failed:"
        grep -v 'LD_DEBUG\|^ *[0-9]*:' <<<"$out" | tail -n 8
        return 1
    }
    # The modules it opened, as the files they are (qemu-bundle is a link).
    mods=$(grep -o 'file=/[^ ]*/qemu/[^ ]*\.so .*dynamically loaded' <<<"$out" |
        sed 's/^file=\([^ ]*\) .*/\1/' | sort -u | xargs -r realpath -e --)
    copy=$(realpath -e -- "$copy")
    bad=$(grep -v "^$copy/" <<<"$mods" || true)
    if [ -n "$bad" ]; then
        echo "$q loaded modules that are not its own:"
        echo "$bad"
        return 1
    fi
    if [ -z "$mods" ]; then
        echo "$q loaded no module of its own (LD_DEBUG=files shows none): is the test still looking?"
        return 1
    fi
    # Where Debian's qemu-system-gui is installed (make run SCREEN=1 installs it), its
    # libraries are there and the copy's own GTK module opens: SCREEN=1 gets a window too
    # when it boots on QEMU 10.
    if [ -f /usr/lib/x86_64-linux-gnu/qemu/ui-gtk.so ] &&
        ! grep -qx gtk <<<"$out"; then
        echo "$q lists no gtk display beside Debian's qemu-system-gui (SCREEN=1 would get no window):"
        grep -v 'LD_DEBUG\|^ *[0-9]*:' <<<"$out" | head -n 12
        return 1
    fi
}

t basics_are_required_packages basics_ok
t copy_of_the_tree copy_tree
t build_group_links farm build build
t run_group_links farm run run
t make_names_missing_package make_names_missing_package
t build_group_builds_kernel_and_iso build_group_builds
t run_group_boots run_group_boots
t qemu10_loads_only_its_own_modules qemu10_own_modules
ktap_report
