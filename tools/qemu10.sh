#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A QEMU whose TCG emulates x2APIC (QEMU 8.0 added it; Debian 12's own is 7.2), for the boots
# QEMU 7.2 cannot do: x2APIC mode, sparse 32-bit APIC ids, more than 255 CPUs. Prints the
# path of a qemu-system-x86_64 to use and exits 0, or says why there is none and exits 1.
#
#   tools/qemu10.sh           the installed QEMU if it is 8 or later, else the copy fetched
#                             before (below), else none
#   tools/qemu10.sh --check QEMU  exit 0 if the QEMU binary QEMU emulates x2APIC under TCG
#                             (version 8 or later), else say why on stdout and exit 1; the one
#                             place that reads a QEMU's version (tools/qemu-run.sh asks here)
#   tools/qemu10.sh --fetch   the same as without an argument, but first fetch the copy if
#                             there is none: QEMU 10.0 from Debian 12's backports suite
#                             (qemu-system-x86, -common, -data, seabios, and -gui: the window
#                             of make run SCREEN=1) and the iPXE ROMs of its default network
#                             card (ipxe-qemu, from bookworm). The packages
#                             come from the mirror this machine's apt sources already name
#                             (never a host written here), with apt's own signature checks,
#                             into a private apt state; they are unpacked (dpkg -x) beside the
#                             installed QEMU, which stays as it is: the rest of make test keeps
#                             running on Debian's default QEMU. No root is needed.
#
# The copy lives in $SLABLAB_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/slablab)/qemu-10:
# root/ holds the unpacked packages, bin/qemu-system-x86_64 runs root/usr/bin's QEMU, packages
# lists them (a copy with another list is fetched again).
#
# The copy must not use the installed QEMU's files. QEMU loads modules (audio, display,
# OpenGL) from its built-in module directory, /usr/lib/x86_64-linux-gnu/qemu, where Debian's
# QEMU 7.2 keeps its own; a module of another build makes QEMU 10 abort in module_load_dso,
# and QEMU_MODULE_DIR only puts a directory in front of the built-in one. QEMU reads every
# built-in directory (modules, firmware, data) below <its executable's directory>/qemu-bundle
# when that exists (get_relocated_path, util/cutils.c: the layout of a build tree), so
# root/usr/bin/qemu-bundle is a link to root/: the copy finds its own modules and firmware,
# and a module it lacks is simply not there. qemu-system-gui's modules (GTK, SDL, PulseAudio)
# need libraries that only a machine with Debian's own qemu-system-gui has (make run SCREEN=1
# installs it); elsewhere QEMU passes over them as it does over any module it cannot open.
set -euo pipefail

cache=${SLABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slablab}
dir=$cache/qemu-10
wrapper=$dir/bin/qemu-system-x86_64
suite=bookworm-backports
pkgs=("qemu-system-x86/$suite" "qemu-system-common/$suite" "qemu-system-data/$suite" "seabios/$suite"
    "qemu-system-gui/$suite" ipxe-qemu)

major() {
    "$1" --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p'
}

usable() {
    local v
    v=$(major "$1")
    [ -n "$v" ] && [ "$v" -ge 8 ]
}

# The copy as this script makes it: the wrapper, the bundle link (a copy without it, made by an
# older version of this script, would load the installed QEMU's modules), the packages of
# pkgs and a QEMU that runs.
copy_ok() {
    [ -x "$wrapper" ] && [ -L "$dir/root/usr/bin/qemu-bundle" ] &&
        [ "$(cat "$dir/packages" 2>/dev/null)" = "${pkgs[*]}" ] && usable "$wrapper"
}

fetch=0
case "${1:-}" in
"") ;;
--fetch) fetch=1 ;;
--check)
    [ $# = 2 ] || { echo "qemu10.sh: usage: qemu10.sh --check QEMU" >&2; exit 2; }
    v=$(major "$2") || v=
    if [ -z "$v" ]; then
        echo "$2 does not run or says no version"
        exit 1
    fi
    if [ "$v" -lt 8 ]; then
        echo "QEMU $v's TCG has no x2APIC (8.0 added it); make deps (or tools/qemu10.sh --fetch) fetches QEMU 10 from Debian 12's backports"
        exit 1
    fi
    exit 0
    ;;
-h | --help)
    sed -n '3,/^set /s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit 0
    ;;
*)
    echo "qemu10.sh: unknown argument '$1' (--check QEMU, --fetch, --help)" >&2
    exit 2
    ;;
esac

if command -v qemu-system-x86_64 >/dev/null && usable qemu-system-x86_64; then
    command -v qemu-system-x86_64
    exit 0
fi
if copy_ok; then
    echo "$wrapper"
    exit 0
fi
if [ "$fetch" = 0 ]; then
    if [ -e "$dir" ]; then
        what="the copy in $dir is incomplete or was made by an older tools/qemu10.sh"
    else
        what="there is no copy in $dir"
    fi
    echo "qemu10.sh: no QEMU with TCG x2APIC: the installed one is $(major qemu-system-x86_64 || echo none), and $what (make deps, make test or tools/qemu10.sh --fetch fetches QEMU 10 from Debian 12's backports)" >&2
    exit 1
fi

# The mirror: the first URI of a Debian source for bookworm, security updates left out, from
# the deb822 .sources files, else the one-line .list files. Only files that exist are read:
# a machine may have no .sources at all (debootstrap writes a sources.list alone).
sources=() lists=()
for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && sources+=("$f"); done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && lists+=("$f"); done
mirror=
if [ ${#sources[@]} -gt 0 ]; then
    mirror=$(awk '
        # exit runs END, which must not print the URI a second time.
        function take() { if (!found && uri != "" && suites ~ / bookworm / && uri !~ /security/) { print uri; found = 1; exit } }
        FNR == 1 || /^[[:space:]]*$/ { take(); uri = ""; suites = "" }
        /^URIs:/ { uri = $2 }
        /^Suites:/ { $1 = ""; suites = $0 " " }
        END { take() }' "${sources[@]}")
fi
if [ -z "$mirror" ] && [ ${#lists[@]} -gt 0 ]; then
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {
            for (i = 2; i < NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i + 1) == "bookworm") { print $i; exit } break }
        }' "${lists[@]}")
fi
if [ -z "$mirror" ]; then
    echo "qemu10.sh: no Debian bookworm source in /etc/apt to take a mirror from; the x2APIC boots need QEMU 8 or later" >&2
    exit 1
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "qemu10.sh: $keyring is missing (package debian-archive-keyring)" >&2; exit 1; }

mkdir -p "$cache"
work=$(mktemp -d)
new=$(mktemp -d "$cache/qemu-10.new.XXXXXX")
trap 'rm -rf "$work" "$new"' EXIT
mkdir -p "$work/sources" "$work/lists/partial" "$work/archives/partial"
printf 'Types: deb\nURIs: %s\nSuites: bookworm %s\nComponents: main\nSigned-By: %s\n' \
    "$mirror" "$suite" "$keyring" >"$work/sources/qemu10.sources"
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/sources"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
    -o "Dir::Cache=$work" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=$(id -un)")
echo "qemu10.sh: fetching QEMU 10 from $mirror $suite into $dir (the installed QEMU is left alone)" >&2
if ! apt-get "${apt_opts[@]}" -q update >"$work/log" 2>&1; then
    echo "qemu10.sh: apt-get update of bookworm and $suite from $mirror failed:" >&2
    tail -n 3 "$work/log" >&2
    exit 1
fi
if ! (cd "$work/archives" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}") >>"$work/log" 2>&1; then
    echo "qemu10.sh: could not download ${pkgs[*]}:" >&2
    tail -n 3 "$work/log" >&2
    exit 1
fi
mkdir -p "$new/bin"
for deb in "$work"/archives/*.deb; do
    dpkg -x "$deb" "$new/root"
done
ln -s ../.. "$new/root/usr/bin/qemu-bundle"
cat >"$new/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
# QEMU 10 from Debian 12's backports, unpacked by tools/qemu10.sh: root/usr/bin/qemu-bundle
# makes it take its modules and firmware from root/ alone.
unset QEMU_MODULE_DIR
exec "$dir/root/usr/bin/qemu-system-x86_64" "\$@"
EOF
chmod +x "$new/bin/qemu-system-x86_64"
echo "${pkgs[*]}" >"$new/packages"
rm -rf "$dir"
# Another fetch may have put its copy there in the meantime: then that one is used.
if ! mv -T "$new" "$dir" 2>/dev/null && ! copy_ok; then
    echo "qemu10.sh: could not move the unpacked QEMU to $dir" >&2
    exit 1
fi
if ! usable "$wrapper"; then
    echo "qemu10.sh: the unpacked QEMU does not run: $("$dir/root/usr/bin/qemu-system-x86_64" --version 2>&1 | head -n 1)" >&2
    exit 1
fi
echo "qemu10.sh: $("$wrapper" --version | head -n 1) in $dir" >&2
echo "$wrapper"
