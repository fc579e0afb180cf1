#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timed.sh NAME COMMAND...: run COMMAND, then print "check: NAME took N s,
# M CPU-s" (its exit status is COMMAND's). make check times each of its
# steps this way, so that its budget can be read step by step from its
# output (the CPU-s count what the step waited for, not what it left
# running in the background).
set -uo pipefail
# shellcheck source=lanes/lib/cpu-lib.sh
. "$(dirname "$0")/cpu-lib.sh"
name=${1:?usage: timed.sh NAME COMMAND...}
shift
start=$SECONDS
"$@"
rc=$?
echo "check: $name took $((SECONDS - start)) s, $(child_cpu) CPU-s (exit $rc)"
exit "$rc"
