#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ipi schemes' protocol model, checked with spin (tools/model/check.sh; KTAP).
exec "$(dirname "${BASH_SOURCE[0]}")/../../tools/model/check.sh" --model ipi
