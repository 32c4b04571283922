#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: docs/options.md's table of boot options (rows "| `NAME=...` | default |
# meaning |") and the options the kernel registers with boot_param() (kernel/cmdline.h) are the same set. The
# registered ones come from the build, not from a list: the symbols __boot_param_ptr_NAME,
# one for each entry boot_param() puts in the boot_params section, in build/slablab.elf
# (and build/host/test_cmdline, which must test the same options). One case per option on
# either side, naming the option and which side lacks it; then checks that the comparison
# fails when an option is added without a row. KTAP (flat) at the end.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
elf=$root/build/slablab.elf
host=$root/build/host/test_cmdline
doc=$root/docs/options.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# registered FILE: the options an object or executable registers, sorted, one a line.
registered() {
    nm "$1" | sed -n 's/^[0-9a-f]* [a-zA-Z] __boot_param_ptr_\([a-z0-9_]*\)$/\1/p' | sort -u
}

# table FILE: the options in the first column of FILE's table (rows "| `NAME=...` |
# default | meaning |"), one a line, sorted, repeats kept.
table() {
    grep -E '^\| `[a-z0-9_]+=' "$1" | sed 's/^| `\([a-z0-9_]*\)=.*/\1/' | sort
}

# compare NAMES TABLE: a line for every option one side lacks; nothing when they agree.
compare() {
    comm -23 "$1" "$2" | sed "s|.*|option &= is registered but has no row in docs/options.md's option table|"
    comm -13 "$1" "$2" | sed "s|.*|docs/options.md's option table has a row for &= but no source registers it|"
}

# where NAME: the file:line that registers it, for the messages.
where() {
    (cd "$root" && grep -n "^boot_param($1," arch/*/*.c kernel/*.c mm/*.c bench/*.c \
        tests/kernel/*.c 2>/dev/null | cut -d: -f1,2 | head -n 1)
}

have_build() {
    [ -f "$elf" ] || { echo "no $elf: run make (make test builds it)"; return 1; }
    [ -f "$host" ] || { echo "no $host: run make host-tests"; return 1; }
}

kernel_registers_options() {
    have_build || return 1
    [ -s "$tmp/kernel" ] || { echo "nm found no __boot_param_ptr_ symbols in $elf"; return 1; }
}

host_test_has_the_kernels_options() {
    have_build || return 1
    registered "$host" > "$tmp/host"
    diff "$tmp/kernel" "$tmp/host" | sed -n 's/^< \(.*\)/\1= is in the kernel but not in test_cmdline/p; s/^> \(.*\)/\1= is in test_cmdline but not in the kernel/p'
}

no_row_twice() {
    uniq -d "$tmp/table" | sed "s|.*|docs/options.md's option table has two rows for &=|"
}

in_table() {
    grep -qx -- "$1" "$tmp/table" ||
        echo "option $1= (registered in $(where "$1")) has no row in docs/options.md's option table"
}

registered_in_kernel() {
    grep -qx -- "$1" "$tmp/kernel" ||
        echo "docs/options.md's option table has a row for $1= but no source registers it (boot_param)"
}

# The self-checks start from the options docs/options.md lists (rows), so that they say only
# whether compare() works, whatever the kernel registers. An option registered the way the
# kernel's are, in an object of its own: compare() must name it as lacking a row.
a_new_option_without_a_row_fails() {
    local out
    printf '#include "kernel/cmdline.h"\nstatic unsigned int v;\nboot_param(zz_new_option, v, uint, (0, 1), 0, "a test");\n' > "$tmp/new.c"
    gcc -std=gnu11 -I"$root" -DARCH_HOST -c "$tmp/new.c" -o "$tmp/new.o" || return 1
    registered "$tmp/new.o" > "$tmp/new"
    [ "$(cat "$tmp/new")" = zz_new_option ] || { echo "nm of a boot_param object gave: $(cat "$tmp/new")"; return 1; }
    sort -u "$tmp/rows" "$tmp/new" > "$tmp/more"
    out=$(compare "$tmp/more" "$tmp/table")
    [ "$out" = "option zz_new_option= is registered but has no row in docs/options.md's option table" ] ||
        { echo "compare said: ${out:-nothing}"; return 1; }
}

# The table without one option's row, and with a row for an option nobody registers.
a_missing_row_fails() {
    local out first
    first=$(head -n 1 "$tmp/rows")
    grep -vx -- "$first" "$tmp/rows" > "$tmp/fewer"
    out=$(compare "$tmp/rows" "$tmp/fewer")
    [ "$out" = "option $first= is registered but has no row in docs/options.md's option table" ] ||
        { echo "compare said: ${out:-nothing}"; return 1; }
}

an_extra_row_fails() {
    local out
    sed 's/^| `cpus=N`/| `zz_gone=N` | x | y |\n&/' "$doc" > "$tmp/options.md"
    table "$tmp/options.md" | sort -u > "$tmp/extra"
    out=$(compare "$tmp/rows" "$tmp/extra")
    [ "$out" = "docs/options.md's option table has a row for zz_gone= but no source registers it" ] ||
        { echo "compare said: ${out:-nothing}"; return 1; }
}

: > "$tmp/kernel"
[ -f "$elf" ] && registered "$elf" > "$tmp/kernel"
table "$doc" > "$tmp/table"
sort -u "$tmp/table" > "$tmp/rows"

t "the kernel registers options" kernel_registers_options
t "test_cmdline links the kernel's options" quiet host_test_has_the_kernels_options
t "no option has two rows in docs/options.md" quiet no_row_twice
while read -r name; do
    t "option $name= has a row in docs/options.md" quiet in_table "$name"
done < "$tmp/kernel"
while read -r name; do
    t "docs/options.md row $name= is a registered option" quiet registered_in_kernel "$name"
done < "$tmp/rows"
t "an option added without a row in docs/options.md fails" a_new_option_without_a_row_fails
t "a row removed from docs/options.md fails" a_missing_row_fails
t "a row in docs/options.md for no option fails" an_extra_row_fails
ktap_report
