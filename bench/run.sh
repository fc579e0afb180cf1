#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KAV_BENCH: make bench. Boots Debian's 6.12 kernel in the VM with
# kav.ko and runs "kav_bench --full" (libfabric and every library it needs
# are copied into the guest with it), then:
#
#   build/bench/output.txt         everything the guest printed
#   build/bench/report.md          the markdown report
#   Documentation/bench-results.md the same report, kept in the tree
#                                  (not for a partial run, --only)
#
# The guest runs the kernel as a node would (no slub_debug, KFENCE off:
# KAV_VM_CHECKS=0) with 16 GiB (64 processes each holding a private
# 1M-entry util AV need about 10). Takes about half an hour under TCG.
#
# Env: KAV_BENCH_ARGS  extra kav_bench arguments (e.g. "--reps 3")
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BIN=${1:?usage: run.sh path/to/kav_bench}
OUT=${KAV_BUILD:-$REPO/build}/bench

mkdir -p "$OUT"
# What is measured is what is built now, whatever changes during the run.
COMMIT=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)
rc=0
KAV_VM_MEM=${KAV_VM_MEM:-16G} KAV_VM_CHECKS=0 \
KAV_TEST_TIMEOUT=${KAV_TEST_TIMEOUT:-7200} \
KAV_VM_TIMEOUT=${KAV_VM_TIMEOUT:-7500} \
	"$REPO/tests/vm/check.sh" --demo --kernels 6.12 \
	--args "--full ${KAV_BENCH_ARGS:-}" --selftests "$BIN" |
	tee "$OUT/output.txt" || rc=$?

report=$(sed -n '/^@@KAV-BENCH-REPORT-BEGIN$/,/^@@KAV-BENCH-REPORT-END$/{//!p}' \
	"$OUT/output.txt")
if [[ -z $report ]]; then
	echo "run.sh: no report in $OUT/output.txt" >&2
	exit 1
fi
{
	echo "# kav benchmark results"
	echo
	echo "Produced by \`make bench\` (bench/run.sh) at commit" \
	     "$COMMIT," \
	     "$(date -u +%Y-%m-%d). How to read it: Documentation/benchmarks.rst."
	echo
	echo "$report"
} >"$OUT/report.md"
# Only a whole run replaces the report kept in the tree.
if [[ " ${KAV_BENCH_ARGS:-} " == *" --only "* ]]; then
	echo "run.sh: partial run (--only): report in $OUT/report.md only" >&2
else
	cp "$OUT/report.md" "$REPO/Documentation/bench-results.md"
	echo "run.sh: report in $OUT/report.md and Documentation/bench-results.md" >&2
fi
exit "$rc"
