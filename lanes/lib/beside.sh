#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# beside.sh LOG MAIN OTHER: make check's steps MAIN and OTHER (make
# targets) at the same time, each timed (timed.sh). MAIN's output comes
# as it runs; OTHER's goes to LOG and is printed once both have ended.
# Exits non-zero if either failed.
#
# make check pairs two steps that each keep one core busy (unit and
# unit-trixie): on the 2-core build host its budget is CPU, not wall
# time. (The arm64 lane beside the cluster test was tried and taken
# back: both took the CPU the nodes' boot needs, the arm64 lane took 273
# s instead of 109, and node 3's NIC came after systemd's device
# timeout.) The two must not build the same files: make check builds
# what both need first.
set -uo pipefail
here=$(dirname "$0")
log=${1:?usage: beside.sh LOG MAIN OTHER}
main=${2:?usage: beside.sh LOG MAIN OTHER}
other=${3:?usage: beside.sh LOG MAIN OTHER}
make=${MAKE:-make}

"$here/timed.sh" "$other" "$make" --no-print-directory "$other" >"$log" 2>&1 &
pid=$!
"$here/timed.sh" "$main" "$make" --no-print-directory "$main"
rc=$?
wait "$pid"
orc=$?
echo "== $other (beside $main; its log: $log)"
cat "$log"
((rc == 0 && orc == 0))
