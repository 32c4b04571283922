#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RCU's grace periods, model-checked with spin (tools/model/rcu.sh; KTAP).
exec "$(dirname "${BASH_SOURCE[0]}")/../../tools/model/rcu.sh"
