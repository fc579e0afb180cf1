#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Job B of the cluster test (alice): MPICH (ch4:ofi, libfabric 2.1)
# across the nodes through FI_HOOK=kav, with and without instant-on, at
# 4, 8 and 16 ranks (half on each node), the recipe of
# Documentation/slurm.rst, "Instant-on across nodes":
#
#   1. one kav-av-fill per node (a background step, as alice, in the
#      job's cgroup, under the job's VNI from the TaskProlog) creates the
#      node's FI_NAMED_AV_0 and fills it with every rank's address: the
#      host of rank r (block distribution) and port BASE + r; it holds the
#      AV until the step ends;
#   2. kav-av-fill --wait on each node: every node's AV is full;
#   3. mpiexec starts the ranks through kav-av-fill --rank-exec, which
#      makes rank r listen on BASE + r; MPICH opens FI_NAMED_AV_0 with
#      FI_READ and finds its peers in map_addr, with no exchange.
#
# Without instant-on, no AV is filled and MPICH exchanges the addresses
# through hydra's KVS. Prints "@@instant N ok", "@@exchange N ok" and a
# "# table" line per size; then fills the AV once more and holds it
# ("@@holding") until $OUT/release-<job>, for job C to try.
set -u
OUT=/tmp/kav-cluster
BIN=/usr/lib/kav-cluster/bin
# Inside the wire's port range (wire.sh: 21000-21999), so that the
# ranks' traffic is in kav-wire's scope.
BASE=21500
VNI=${FI_OFI_HOOK_KAV_VNI:?no VNI from the TaskProlog}
HOSTS=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | paste -sd,)
D=/tmp/kavjob-$SLURM_JOB_ID
MPIEXEC=$(ls /var/cache/kav/mpich-*-trixie/bin/mpiexec)
export FI_PROVIDER=tcp FI_TCP_IFACE=eth0 FI_OFI_HOOK_KAV_STATS=1 FI_LOG_LEVEL=warn
echo "job B: FI_HOOK=${FI_HOOK:-} FI_OFI_HOOK_KAV_VNI=$VNI hosts $HOSTS"

# fill PER: the holder step on every node; waits until all are full.
fill() {
	srun --overlap -N2 -n2 --ntasks-per-node=1 kav-av-fill --hold --vni "$VNI" \
		--hosts "$HOSTS" --tasks-per-node "$1" --port-base $BASE &
	HOLDER=$!
	srun --overlap -N2 -n2 --ntasks-per-node=1 kav-av-fill --wait --ranks $((2 * $1)) --timeout 120
}
unfill() {
	kill "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
}
# run N NAME: N ranks, each through kav-av-fill --rank-exec; the ranks'
# stderr (the hook's stats line) collected from both nodes into $D.NAME.
run() {
	local n=$1 name=$2
	# shellcheck disable=SC2016 # the rank's variables
	timeout 600 "$MPIEXEC" -launcher slurm -n "$n" -ppn $((n / 2)) \
		kav-av-fill --rank-exec --port-base $BASE -- \
		/bin/sh -c 'mkdir -p '"$D"'; exec "$0" 2>'"$D"'/rank.$PMI_RANK' \
		$BIN/mpi_instant >"$D.$name.out" 2>&1
	echo "mpiexec $name $n: exit $?"
	cat "$D.$name.out"
	/usr/lib/kav-cluster/rank-logs.sh "$D" >"$D.$name.err"
	grep -v '^$' "$D.$name.err" | head -n 40
}
init_time() { sed -n 's/.*MPI_Init max \([0-9.]*\) s.*/\1/p' "$D.$1.out"; }
passed() { grep -q "mpi_instant: $1 ranks, .*pingpong ok, allreduce ok" "$D.$2.out"; }

for n in 4 8 16; do
	if fill $((n / 2)); then
		run $n instant
		named=$(grep 'stats: kav served AV "FI_NAMED_AV_0" .*([1-9][0-9]* on first use)' "$D.instant.err" |
			sed -n 's/^\(rank\.[0-9]*\): .*/\1/p' | sort -u | wc -l)
		passed $n instant && [ "$named" = $n ] && echo "@@instant $n ok"
	else
		echo "kav-av-fill: the nodes' AVs were not filled for $n ranks"
	fi
	unfill
	run $n exchange
	passed $n exchange && echo "@@exchange $n ok"
	echo "# table: $n ranks on 2 nodes | MPI_Init instant-on $(init_time instant) s | exchange $(init_time exchange) s"
done
fill 2
echo "@@holding"
for _ in $(seq 900); do
	[ -e "$OUT/release-$SLURM_JOB_ID" ] && break
	sleep 1
done
unfill
