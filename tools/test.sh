#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `make test` runs once build/test.iso and the host tests are built: tools/testrun.py
# (the host tests, then the boots tests/boots.txt lists), with Debian's Python where there is
# one. tools/testrun.py --help says what it does, its environment (TEST_FILTER, TEST_QUICK,
# TEST_DRY_RUN, ...) and the boot list's format.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
exec "$py" "$(dirname "${BASH_SOURCE[0]}")/testrun.py" "$@"
