#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ompi/run.sh TAR [OUT.md]: make bench-ompi, and make bench's
# "MPI_Init" step: boots Debian's 6.12 kernel with kav.ko, the trixie
# root over 9p (lanes/trixie/root.sh), and runs kav_mpi_init_vm, which
# times Open MPI 5 jobs of 2, 8 and 32 ranks with and without FI_HOOK=kav
# (mpi-init-guest.sh). TAR is mk/bench.mk's kav-mpi-init.tar. Writes
# the markdown table to OUT.md (build/bench/mpi-init.md) and the guest's
# output beside it (mpi-init-output.txt).
#
# Env: KAV_MPI_INIT_RANKS ("2 8 32"), KAV_MPI_INIT_REPS (3): passed to
#      the guest; KAV_VM_MEM (8G: 32 ranks of Open MPI);
#      KAV_GUEST_9P_FILES (lanes/slurm/slurm.mk's GUEST_9P_FILES: the
#      guest's 9p modules and guest-9p.sh)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
TAR=${1:?usage: run.sh kav-mpi-init.tar [OUT.md]}
OUT=${2:-${KAV_BUILD:-$REPO/build}/bench/mpi-init.md}
LOG=${OUT%.md}-output.txt

mkdir -p "$(dirname "$OUT")"
args="KAV_MPI_INIT_RANKS=${KAV_MPI_INIT_RANKS:-2 8 32}"
args=${args// /,}
args+=" KAV_MPI_INIT_REPS=${KAV_MPI_INIT_REPS:-3}"
rc=0
KAV_VM_TRIXIE_ROOT=$("$REPO/lanes/trixie/root.sh") \
KAV_EXTRA_FILES="$TAR ${KAV_GUEST_9P_FILES:-$REPO/lanes/vm/guest-9p.sh}" \
KAV_VM_MEM=${KAV_VM_MEM:-8G} KAV_VM_CHECKS=0 \
KAV_TEST_TIMEOUT=${KAV_TEST_TIMEOUT:-5400} \
KAV_VM_TIMEOUT=${KAV_VM_TIMEOUT:-5700} \
	"$REPO/lanes/vm/vm.sh" --demo --kernels 6.12 --args "$args" \
	--selftests "$HERE/kav_mpi_init_vm" | tee "$LOG" || rc=$?
table=$(sed -n '/^@@KAV-MPI-INIT-BEGIN$/,/^@@KAV-MPI-INIT-END$/{//!p}' "$LOG")
if [[ -z $table ]]; then
	echo "bench/ompi/run.sh: no table in $LOG" >&2
	exit 1
fi
{
	echo "## MPI_Init: a real Open MPI 5 job (trixie userland, in the guest)"
	echo
	echo "Open MPI 5.0.7 and libfabric 2.1 from the trixie root, kernel" \
	     "6.12 under QEMU TCG with 2 vCPUs (jobs oversubscribed), the ofi" \
	     "MTL over tcp (opal_common_ofi_provider_include tcp)," \
	     "as an unprivileged user granted the job's VNI. plain: no hook;" \
	     "hook: FI_HOOK=kav. MPI_Init max: the slowest rank's MPI_Init;" \
	     "job wall: mpirun's start to its exit. Median of" \
	     "${KAV_MPI_INIT_REPS:-3} jobs each, alternately. kav inserts and" \
	     "core entries: summed over the ranks' stats lines (the hook's" \
	     "AV, at its close in MPI_Finalize). TCG timings: only the ratios" \
	     "mean anything."
	echo
	echo "$table"
} >"$OUT"
echo "bench/ompi/run.sh: $OUT" >&2
exit "$rc"
