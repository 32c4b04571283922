# SPDX-License-Identifier: MIT
# Sourced by the host tests written in bash (tests/host/test_*.sh): each case is a command
# run by t, and ktap_report prints them as flat KTAP and exits 1 if any failed.
#
#   t NAME COMMAND [ARG...]  runs COMMAND: exit 0 passes (if it printed a line starting
#                            "# SKIP", that line is the case's SKIP directive; other output is
#                            dropped); any other exit fails, with its output as the diagnostic
#   quiet COMMAND [ARG...]   for checks that report trouble by printing: fails if COMMAND
#                            printed anything or exited non-zero
#   ktap_report              "KTAP version 1", the plan, a line per case; exit status

ktap_names=()
ktap_verdicts=()

t() {
    local ktap_name=$1 ktap_out ktap_rc=0
    shift
    ktap_out=$("$@" 2>&1) || ktap_rc=$?
    ktap_names+=("$ktap_name")
    if [ "$ktap_rc" != 0 ]; then
        ktap_verdicts+=("FAIL:${ktap_out:-exit $ktap_rc}")
    elif [[ $ktap_out == "# SKIP"* ]]; then
        ktap_verdicts+=("${ktap_out%%$'\n'*}")
    else
        ktap_verdicts+=("")
    fi
}

quiet() {
    local ktap_qout ktap_qrc=0
    ktap_qout=$("$@" 2>&1) || ktap_qrc=$?
    [ -n "$ktap_qout" ] && printf '%s\n' "$ktap_qout"
    [ "$ktap_qrc" = 0 ] && [ -z "$ktap_qout" ]
}

ktap_report() {
    local i v bad=0
    echo "KTAP version 1"
    echo "1..${#ktap_names[@]}"
    for i in "${!ktap_names[@]}"; do
        v=${ktap_verdicts[i]}
        if [[ $v == FAIL:* ]]; then
            # the name as data, not in sed's program (a name may hold / or &)
            printf '# %s: ' "${ktap_names[i]}"
            sed '2,$s/^/    /' <<<"${v#FAIL:}"
            echo "not ok $((i + 1)) ${ktap_names[i]}"
            bad=1
        else
            echo "ok $((i + 1)) ${ktap_names[i]}${v:+ $v}"
        fi
    done
    exit "$bad"
}
