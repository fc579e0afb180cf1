#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mpich-guest.sh: a real MPICH 4.0.2 job (ch4:ofi, built by build-mpich.sh)
# with FI_HOOK=kav over tcp;ofi_rxm in the VM, started instantly: the
# production filler (kav-av-fill, tools/instant) fills FI_NAMED_AV_0 with
# every rank's address under the job's VNI, which is granted to the job's
# cgroup only, and holds it while mpiexec runs; each rank listens on its
# port (kav-av-fill --rank-exec), opens the AV with FI_READ (MPICH's
# try_open_shared_av) and finds its peers through map_addr, with no
# address exchange. Prints TAP:
#
#   - for N = 2 and 8 ranks (2 on the debug kernels): the job
#     (ping-pong, allreduce) passes with instant-on, every rank's stats
#     line names FI_NAMED_AV_0 and its peers were copied to the core on
#     first use; and it passes without instant-on (no named AV: MPICH
#     exchanges addresses);
#   - a rank of another job (another cgroup) under this job's VNI
#     cannot start: fi_domain() is refused;
#   - another job under its own VNI, which may read this job's AV (same
#     user), cannot send to its ranks: the hook refuses the send.
#
# "# table: N | instant-on s | exchange s" lines give the slowest rank's
# MPI_Init time, which Documentation/results/hook-results.md reports.
set -u

VNI=0x4b01
VNI2=0x4b02
PORT=24000
CG=/sys/fs/cgroup
OUT=/tmp/mpich

if [ ! -e /proc/net/tcp ]; then
	echo "1..0 # SKIP no IPv4 in this kernel"
	exit 0
fi
mkdir -p $OUT /etc
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo "127.0.0.1 localhost $(hostname)" >/etc/hosts
export PATH=/tests:$PATH
mkdir -p $CG/kavjob1 $CG/kavjob2
G1=$(./kavctl grant add vni $VNI cgroup $CG/kavjob1) &&
	G2=$(./kavctl grant add vni $VNI2 cgroup $CG/kavjob2) || {
	echo "Bail out! kavctl cannot grant the jobs' VNIs"
	exit 1
}
export FI_PROVIDER="tcp;ofi_rxm" FI_TCP_IFACE=lo FI_HOOK=kav \
	FI_PROVIDER_PATH=/tests FI_OFI_HOOK_KAV_STATS=1 FI_LOG_LEVEL=warn

# in_job CGROUP VNI CMD...: CMD in CGROUP, with the hook's key VNI.
in_job() {
	cg=$1 vni=$2
	shift 2
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG/$cg" \
		env FI_OFI_HOOK_KAV_VNI="$vni" "$@"
}

# job N [--no-av]: an N-rank job of kavjob1; output in $OUT/job.log. The
# filler fills FI_NAMED_AV_0 with N ranks on this host and holds it while
# mpiexec runs; each rank listens on PORT + its rank. --no-av: no named
# AV, MPICH exchanges addresses itself.
job() {
	n=$1
	if [ "${2-}" = --no-av ]; then
		in_job kavjob1 $VNI mpiexec -launcher fork -n "$n" \
			kav-av-fill --rank-exec --port-base $PORT -- ./mpi_instant
	else
		in_job kavjob1 $VNI kav-av-fill --vni $VNI --hosts 127.0.0.1 \
			--tasks-per-node "$n" --port-base $PORT -- \
			mpiexec -launcher fork -n "$n" \
			kav-av-fill --rank-exec --port-base $PORT -- ./mpi_instant
	fi >$OUT/job.log 2>&1
}

init_time() {
	sed -n 's/.*MPI_Init max \([0-9.]*\) s.*/\1/p' $OUT/job.log
}

passed() {
	grep -q "mpi_instant: $1 ranks, .*pingpong ok, allreduce ok" $OUT/job.log
}

# 2 and 8 ranks: 32 ranks on one node took a minute of make check's
# budget and test nothing 8 do not (the cluster test runs MPICH's 16
# ranks across two nodes; hook-results.md keeps the 32-rank figures).
# The debug kernels (KASAN's shadow, kmemleak) leave too little of the
# guest's memory for more than one 2-rank job in the budget.
SIZES="2 8"
case $(uname -r) in
*kav*) SIZES="2" ;;
esac
echo "1..$(( $(echo $SIZES | wc -w) * 2 + 2 ))"
T=0
for n in $SIZES; do
	T=$((T + 1))
	job $n
	rc=$?
	inst=$(init_time)
	named=$(grep -c 'stats: kav served AV "FI_NAMED_AV_0" .*([1-9][0-9]* on first use)' $OUT/job.log)
	if [ $rc = 0 ] && passed $n && [ "$named" = "$n" ]; then
		echo "ok $T - $n ranks start instantly from FI_NAMED_AV_0 (MPI_Init ${inst}s)"
	else
		echo "not ok $T - $n ranks with instant-on (exit $rc, $named of $n stats lines)"
		tail -n 20 $OUT/job.log | sed 's/^/#   /'
	fi
	T=$((T + 1))
	job $n --no-av
	rc=$?
	exch=$(init_time)
	if [ $rc = 0 ] && passed $n; then
		echo "ok $T - $n ranks without instant-on (MPI_Init ${exch}s)"
	else
		echo "not ok $T - $n ranks without instant-on (exit $rc)"
		tail -n 20 $OUT/job.log | sed 's/^/#   /'
	fi
	echo "# table: $n | ${inst:-?} | ${exch:-?}"
done

# Another job's rank under this job's key: no grant for its cgroup.
T=$((T + 1))
in_job kavjob1 $VNI kav-av-fill --vni $VNI --hosts 127.0.0.1 --tasks-per-node 2 \
	--port-base $PORT -- \
	sh -c 'echo $$ >'$CG'/kavjob2/cgroup.procs && exec mpiexec -launcher fork -n 1 ./mpi_instant' \
	>$OUT/foreign.log 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "kav domain for VNI $(printf %u $VNI): .*no grant for this auth key (vni $(printf %u $VNI)) matches" $OUT/foreign.log; then
	echo "ok $T - a rank of another cgroup cannot use the job's VNI"
else
	echo "not ok $T - a rank of another cgroup with the job's VNI (exit $rc)"
	tail -n 20 $OUT/foreign.log | sed 's/^/#   /'
fi

# Another job with its own key reads this job's AV but cannot send to it.
T=$((T + 1))
in_job kavjob1 $VNI kav-av-fill --vni $VNI --hosts 127.0.0.1 --tasks-per-node 2 \
	--port-base $PORT -- \
	sh -c 'echo $$ >'$CG'/kavjob2/cgroup.procs && exec env FI_OFI_HOOK_KAV_VNI='$VNI2' mpiexec -launcher fork -n 2 ./mpi_instant' \
	>$OUT/foreign2.log 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "refused: its entry is bound to a key this domain was not granted" $OUT/foreign2.log; then
	echo "ok $T - another job reading this job's AV cannot send under its key"
else
	echo "not ok $T - another job sending to this job's ranks (exit $rc)"
	tail -n 20 $OUT/foreign2.log | sed 's/^/#   /'
fi
./kavctl grant del "$G1"
./kavctl grant del "$G2"
