#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timed.sh NAME COMMAND...: run COMMAND, then print "check: NAME took N s"
# (its exit status is COMMAND's). make check times each of its steps this
# way, so that its budget can be read step by step from its output.
set -uo pipefail
name=${1:?usage: timed.sh NAME COMMAND...}
shift
start=$SECONDS
"$@"
rc=$?
echo "check: $name took $((SECONDS - start)) s (exit $rc)"
exit "$rc"
