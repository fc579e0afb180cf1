#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Job A of the cluster test (alice): Open MPI 5 across the nodes over tcp
# through FI_HOOK=kav. The TaskProlog (kav-slurm-taskprolog) exported
# FI_HOOK and the job's VNI; mpirun starts its daemons with srun, and the
# ranks inherit them. Each rank's stderr (libfabric's log: the hook's
# stats line) goes to a file on its node, printed at the end with srun.
# Then the job waits (up to 15 min) until the test has looked at the
# nodes' grants: "@@mpi-done", then $OUT/release-<job> ends it.
set -u
OUT=/tmp/kav-cluster
D=/tmp/kavjob-$SLURM_JOB_ID
echo "job A: FI_HOOK=${FI_HOOK:-} FI_OFI_HOOK_KAV_VNI=${FI_OFI_HOOK_KAV_VNI:-}"
# shellcheck disable=SC2016 # the rank's variables
timeout 500 mpirun --map-by ppr:2:node:OVERSUBSCRIBE \
	--mca pml cm --mca mtl ofi --mca opal_common_ofi_provider_include tcp \
	-x FI_PROVIDER=tcp -x FI_TCP_IFACE=eth0 -x FI_OFI_HOOK_KAV_STATS=1 \
	-x FI_LOG_LEVEL=warn -x D="$D" \
	/bin/sh -c 'mkdir -p "$D"; echo "rank $OMPI_COMM_WORLD_RANK on $(hostname)"; exec "$0" 2>"$D/rank.$OMPI_COMM_WORLD_RANK"' \
	/usr/lib/kav-cluster/bin/kav_ompi
echo "mpirun: exit $?"
/usr/lib/kav-cluster/rank-logs.sh "$D"
echo "@@mpi-done"
for _ in $(seq 900); do
	[ -e "$OUT/release-$SLURM_JOB_ID" ] && break
	sleep 1
done
