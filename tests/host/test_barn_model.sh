#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The sheaves scheme's barn model (get, put, exchange, the hand-over of sheaves between cpus),
# checked with spin: its short pass and its seeded bugs (tools/model/check.sh; KTAP).
exec "$(dirname "${BASH_SOURCE[0]}")/../../tools/model/check.sh" --model barn
