#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KAV_BENCH [KAV_READ_BENCH]: make bench. First, on the host,
# kav_read_bench (bench/native): the read path natively, over the
# production libkav and the fake kernel's tables, against libfabric's AVs
# (a few minutes, callgrind included); and bench/hook/hook-bench.sh: what
# FI_HOOK=kav adds to fabtests' pingpong (latency, rate, the hook's own
# instructions and cache misses per call), natively over the hook's test
# double. In the guest, hook-bench-guest.sh runs the same pingpong over
# the real /dev/kav, for the TCG ratio. Then boots Debian's 6.12 kernel in
# the VM with kav.ko and runs "kav_bench --full" (libfabric and every
# library it needs are copied into the guest with it) for what only the
# kernel can tell: insert, churn, join, memory and the Open MPI pattern
# (P ranks each inserting N peers one at a time under FI_HOOK=kav, against
# the util AV). Then, with KAV_MPI_INIT_TAR (make bench sets it), a second
# guest with the trixie userland: MPI_Init of real Open MPI 5 jobs with
# and without the hook (bench/ompi/run.sh). Then:
#
#   build/bench/native.md          the native report
#   build/bench/output.txt         everything the guest printed
#   build/bench/ompi-pattern.md    the Open MPI pattern's table alone
#   build/bench/mpi-init.md        the MPI_Init table (bench/ompi)
#   build/bench/report.md          the markdown report: native first, the
#                                  guest's (TCG) figures after it
#   Documentation/results/bench-results.md the same report, kept in the tree
#                                  (not for a partial run, --only)
#
# The guest runs the kernel as a node would (no slub_debug, KFENCE off:
# KAV_VM_CHECKS=0) with 16 GiB (64 processes each holding a private
# 1M-entry util AV need about 10). Takes about half an hour under TCG,
# plus the Open MPI pattern (about 20 minutes) and MPI_Init (about 10).
#
# Env: KAV_BENCH_ARGS  extra kav_bench arguments (e.g. "--reps 3")
#      KAV_MPI_INIT_TAR  mk/bench.mk's kav-mpi-init.tar: run MPI_Init
#                        (KAV_GUEST_9P_FILES, KAV_MPI_INIT_*: see
#                        bench/ompi/run.sh)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BIN=${1:?usage: run.sh path/to/kav_bench [path/to/kav_read_bench]}
NATIVE=${2:-}
OUT=${KAV_BUILD:-$REPO/build}/bench

mkdir -p "$OUT"
# What is measured is what is built now, whatever changes during the run.
COMMIT=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)
rc=0
native=''
if [[ -n $NATIVE ]]; then
	"$NATIVE" --out "$OUT/native.md" || rc=$?
	native=$(cat "$OUT/native.md" 2>/dev/null || true)
	"$HERE/hook/hook-bench.sh" "$OUT/hook-native.md" || rc=$?
	native+=$'\n\n'$(cat "$OUT/hook-native.md" 2>/dev/null || true)
fi
FT=${KAV_FABTESTS:-/var/cache/kav/fabtests-1.13.1}/bin
KAV_EXTRA_FILES="$FT/fi_rdm_tagged_pingpong" \
KAV_VM_MEM=${KAV_VM_MEM:-16G} KAV_VM_CHECKS=0 \
KAV_TEST_TIMEOUT=${KAV_TEST_TIMEOUT:-7200} \
KAV_VM_TIMEOUT=${KAV_VM_TIMEOUT:-7500} \
	"$REPO/lanes/vm/vm.sh" --demo --kernels 6.12 \
	--args "--full ${KAV_BENCH_ARGS:-}" \
	--selftests "$BIN $HERE/hook/hook-bench-guest.sh" |
	tee "$OUT/output.txt" || rc=$?
hook_vm=$(sed -n '/@@KAV-HOOK-BENCH-BEGIN$/,/@@KAV-HOOK-BENCH-END$/{//!p}' \
	"$OUT/output.txt")

report=$(sed -n '/^@@KAV-BENCH-REPORT-BEGIN$/,/^@@KAV-BENCH-REPORT-END$/{//!p}' \
	"$OUT/output.txt")
if [[ -z $report ]]; then
	echo "run.sh: no report in $OUT/output.txt" >&2
	exit 1
fi
# The pattern's section alone, for the before/after comparison.
echo "$report" | sed -n '/^## The Open MPI pattern$/,/^## /{/^## Targets/d;p}' \
	>"$OUT/ompi-pattern.md"
mpi_init=''
if [[ -n ${KAV_MPI_INIT_TAR:-} ]]; then
	"$HERE/ompi/run.sh" "$KAV_MPI_INIT_TAR" "$OUT/mpi-init.md" || rc=$?
	mpi_init=$(cat "$OUT/mpi-init.md" 2>/dev/null || true)
fi
{
	echo "# kav benchmark results"
	echo
	echo "Produced by \`make bench\` (bench/run.sh) at commit" \
	     "$COMMIT," \
	     "$(date -u +%Y-%m-%d). How to read it: Documentation/benchmarks.rst."
	echo
	if [[ -n $native ]]; then
		echo "$native"
		echo
		echo "## In the guest, under TCG: what only the kernel can tell"
		echo
		echo "Insert, remove + re-insert, join and memory go through the" \
		     "kernel, so they are measured in a QEMU TCG guest with" \
		     "kav.ko; these are TCG-only figures: only the kav/peer" \
		     "ratios mean something. The guest's lookup figures are" \
		     "kept for continuity; the native table above is the one" \
		     "for the read path."
		echo
		# One heading level down, under this section.
		echo "$report" | sed -e 's/^## /### /' -e 's/^# /## /'
		echo
		echo "### FI_HOOK=kav in the guest (TCG ratio only)"
		echo
		echo "fi_rdm_tagged_pingpong, 8 bytes, 200 iterations, median of" \
		     "5 runs alternately, over the real /dev/kav:"
		echo
		echo "${hook_vm:-(no result)}"
	else
		echo "$report"
	fi
	if [[ -n $mpi_init ]]; then
		echo
		echo "$mpi_init" | sed -e 's/^## /### /' -e 's/^# /## /'
	fi
} >"$OUT/report.md"
# Only a whole run replaces the report kept in the tree.
if [[ " ${KAV_BENCH_ARGS:-} " == *" --only "* ]]; then
	echo "run.sh: partial run (--only): report in $OUT/report.md only" >&2
else
	cp "$OUT/report.md" "$REPO/Documentation/results/bench-results.md"
	echo "run.sh: report in $OUT/report.md and Documentation/results/bench-results.md" >&2
fi
exit "$rc"
