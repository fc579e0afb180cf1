#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# job-c.sh VNI_A VNI_B: job C of the cluster test (bob, its own VNI), on
# the nodes where alice's jobs A and B run. On each node: kavctl whoami
# (bob's identity and grants), and kav_cluster_probe against A's VNI and
# against B's VNI and B's FI_NAMED_AV_0. Then bob's own Open MPI job
# across the nodes. "@@done" ends it.
set -u
VNI_A=${1:?} VNI_B=${2:?}
BIN=/usr/lib/kav-cluster/bin
echo "job C: FI_HOOK=${FI_HOOK:-} FI_OFI_HOOK_KAV_VNI=${FI_OFI_HOOK_KAV_VNI:-}"
# shellcheck disable=SC2016 # the task's variables
srun --ntasks-per-node=1 bash -c '
	w=$(/usr/sbin/kavctl whoami 2>&1)
	echo "$w" | sed "s/^/whoami $(hostname): /"
	if echo "$w" | grep -q "1002" && echo "$w" | grep -qw "$0" &&
		! echo "$w" | grep -qw "$1" && ! echo "$w" | grep -qw "$2"; then
		echo "whoami ok on $(hostname)"
	fi
	for v in "$1" "$2"; do
		'"$BIN"'/kav_cluster_probe "$0" "$v" 1001 | sed "s/^/probe $(hostname) vni $v: /"
	done
' "$FI_OFI_HOOK_KAV_VNI" "$VNI_A" "$VNI_B"
D=/tmp/kavjob-$SLURM_JOB_ID
# shellcheck disable=SC2016 # the rank's variables
timeout 300 mpirun --map-by ppr:1:node:OVERSUBSCRIBE \
	--mca pml cm --mca mtl ofi --mca opal_common_ofi_provider_include tcp \
	-x FI_PROVIDER=tcp -x FI_TCP_IFACE=eth0 -x FI_OFI_HOOK_KAV_STATS=1 \
	-x FI_LOG_LEVEL=warn -x D="$D" \
	/bin/sh -c 'mkdir -p "$D"; exec "$0" 2>"$D/rank.$OMPI_COMM_WORLD_RANK"' \
	$BIN/kav_ompi
echo "mpirun: exit $?"
/usr/lib/kav-cluster/rank-logs.sh "$D"
echo "@@done"
