#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kav-ompi-guest.sh DIR: Open MPI 5.0.7 jobs through ofi_hook_kav, run by
# lanes/ompi/kav_ompi_vm chrooted in the trixie root (libfabric 2.1) in
# the test VM, with the guest's /dev/kav and the real kav.ko. DIR holds
# kav_ompi (the MPI program), libkav-fi.so, libkav.so.0 and kavctl, all
# built against libfabric 2.1 in that root (lanes/ompi/ompi.mk).
#
# The jobs run as an unprivileged user (nobody), one node, over Open
# MPI's ofi MTL on libfabric's tcp provider (which Open MPI's default
# provider exclude list leaves out: opal_common_ofi_provider_include
# brings it back), with FI_HOOK=kav and the job's VNI granted to that
# user. Prints TAP:
#
#   - 2 and 8 ranks: ping-pong and allreduce give the right results;
#     every rank's stats line (FI_OFI_HOOK_KAV_STATS=1, at the AV's
#     close in MPI_Finalize) says kav served its AV over tcp, refused
#     nothing and had every peer inserted;
#   - a job under a VNI nobody was granted: fi_domain() is refused by
#     kav (EACCES, kav's message naming the VNI) and Open MPI exits
#     non-zero, reporting it, without hanging;
#   - the grant revoked while two ranks loop on sends: the hook refuses
#     the next send (-FI_EKEYREJECTED, "its key was revoked") and Open
#     MPI reports the failed MPI_Send and aborts the job, within the
#     job's timeout. (A directed receive names the peer too: should one
#     be posted first, it is the failed call, MPI_Recv; both pass.)
#
# "# time:" lines give each job's wall time (TCG: not hardware times).
set -u

D=${1:?usage: kav-ompi-guest.sh DIR}
VNI=20225		# 0x4f01: granted to the job's user
VNI_UNGRANTED=20226	# granted to nobody
USER_ID=65534		# nobody
OUT=/tmp/kav-ompi
JOB_TIMEOUT=${KAV_OMPI_JOB_TIMEOUT:-150}

mkdir -p $OUT/home
chown $USER_ID $OUT $OUT/home

# ompi NAME VNI MPIRUN-ARGS... -- PROGRAM-ARGS...: a job as $USER_ID,
# with the documented command line (kav(7), hook.rst, README) plus what
# this guest needs: FI_TCP_IFACE (netif below), oversubscription (2
# CPUs), FI_PROVIDER_PATH (the hook is not in the root's provider
# directory) and LD_LIBRARY_PATH (libkav.so.0 next to it). mpirun's
# output goes to $OUT/NAME.log; each rank's stderr, where libfabric logs,
# to $OUT/NAME/rank.R (Open MPI forwards it in chunks, which mixes the
# ranks' lines).
ompi() {
	local name=$1 vni=$2
	local -a args=()
	shift 2
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	rm -rf "${OUT:?}/$name"
	mkdir -p "$OUT/$name"
	chown $USER_ID "$OUT/$name"
	# shellcheck disable=SC2016 # the rank's variables, not ours
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		env HOME=$OUT/home TMPDIR=$OUT \
		timeout -k 10 "$JOB_TIMEOUT" \
		mpirun --map-by :OVERSUBSCRIBE \
		--mca pml cm --mca mtl ofi \
		--mca opal_common_ofi_provider_include tcp \
		-x FI_HOOK=kav -x FI_PROVIDER=tcp -x FI_OFI_HOOK_KAV_VNI="$vni" \
		-x FI_OFI_HOOK_KAV_STATS=1 -x FI_LOG_LEVEL=warn \
		-x FI_TCP_IFACE=kav0 -x FI_PROVIDER_PATH="$D" \
		-x LD_LIBRARY_PATH="$D" -x KAV_RANK_DIR="$OUT/$name" \
		"${args[@]}" /bin/sh -c \
		'exec "$0" "$@" 2>"$KAV_RANK_DIR/rank.$OMPI_COMM_WORLD_RANK"' \
		"$D/kav_ompi" "$@" >"$OUT/$name.log" 2>&1
}

# logs NAME: everything the job printed, mpirun's output first.
logs() {
	cat "$OUT/$1.log" "$OUT/$1"/rank.* 2>/dev/null
}

T=0
# result STATUS TEXT [NAME]: one TAP line; on failure, the end of job
# NAME's output.
result() {
	T=$((T + 1))
	if [ "$1" = 0 ]; then
		echo "ok $T - $2"
	else
		echo "not ok $T - $2"
		[ -z "${3:-}" ] || logs "$3" | tail -n 30 | sed 's/^/#   /'
	fi
}

# stats_ok NAME N: each of the N ranks logged one stats line: kav served
# its AV over tcp from the job's shared table, all N ranks' addresses
# inserted, nothing refused (by kav, the data path or the core), peers
# mirrored into the core AV only as they were used (FI_SOURCE: at insert).
stats_ok() {
	local name=$1 n=$2 r good=0
	for r in $(seq 0 $((n - 1))); do
		[ "$(grep -c 'ofi_hook_kav:av:.*stats: kav served AV' "$OUT/$name/rank.$r")" = 1 ] &&
			grep -q "stats: kav served AV (shared) over tcp: $n inserted, 0 refused, [0-9]* mirrored ([0-9]* on first use), [0-9]* rechecked, 0 data-path calls refused, 0 refused by the core; shared with the job: [0-9]* found on the node without a system call" "$OUT/$name/rank.$r" &&
			good=$((good + 1))
	done 2>/dev/null
	echo "# $name: $good of $n ranks logged the expected stats line"
	[ $good = "$n" ]
}

# libfabric 2.1's tcp provider offers a loopback address only to those
# who ask for FI_LOCAL_COMM alone; Open MPI asks for FI_REMOTE_COMM too,
# so on a node with nothing but lo it gets an fi_info without a source
# address, and the endpoint's listen fails ("socket listen failed", no
# pml). The guest has no NIC: give it an interface that is not loopback,
# a dummy (a module: the 9p tar may bring it) or a netkit pair (built
# into Debian's kernels since 6.7).
netif() {
	ip link show kav0 >/dev/null 2>&1 && return 0
	ip link add kav0 type dummy 2>/dev/null ||
		ip link add kav0 type netkit peer name kav1 2>/dev/null ||
		return 1
	ip link set kav1 up 2>/dev/null
	ip addr add 10.254.0.1/24 dev kav0 && ip link set kav0 up
}

if [ ! -c /dev/kav ]; then
	echo "1..0 # SKIP no /dev/kav in the chroot"
	exit 0
fi
if ! netif; then
	echo "1..0 # SKIP no interface but lo: neither dummy nor netkit (Open MPI's ofi MTL over tcp needs one)"
	exit 0
fi
G=$("$D/kavctl" grant add vni $VNI uid $USER_ID) || {
	echo "Bail out! kavctl cannot grant VNI $VNI to uid $USER_ID"
	exit 1
}
echo "1..6"

for n in 2 8; do
	start=$SECONDS
	ompi job$n $VNI -n $n --
	rc=$?
	echo "# time: $n ranks: $((SECONDS - start)) s ($(sed -n 's/.*\(MPI_Init max [0-9.]* s\).*/\1/p' $OUT/job$n.log))"
	[ $rc = 0 ] && grep -q "^kav_ompi: $n ranks, .*pingpong ok, allreduce ok" $OUT/job$n.log
	result $? "$n ranks: ping-pong and allreduce through the hook (exit $rc)" job$n
	stats_ok job$n $n
	result $? "$n ranks: every rank's stats line says kav served its AV" job$n
done

# No grant for this VNI: kav refuses the domain (EACCES), Open MPI finds
# no usable MTL and exits.
start=$SECONDS
ompi ungranted $VNI_UNGRANTED -n 2 --
rc=$?
echo "# time: ungranted VNI: $((SECONDS - start)) s"
logs ungranted | grep -a -m1 "kav domain for VNI" | sed 's/^/# kav: /'
logs ungranted | grep -a -m1 -i "pml" | sed 's/^/# Open MPI: /'
[ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] &&
	logs ungranted | grep -a -q "kav domain for VNI $VNI_UNGRANTED: .*no grant for this auth key (vni $VNI_UNGRANTED)" &&
	logs ungranted | grep -a -qi "No components were able to be opened in the pml framework"
result $? "a VNI the user was not granted is refused by kav, Open MPI exits (exit $rc)" ungranted

# Revoked mid-job: the next send fails and Open MPI aborts, not hangs.
start=$SECONDS
rm -f $OUT/looping
ompi revoke $VNI -n 2 -- --loop $OUT/looping 100 &
job=$!
# (Open MPI's start takes a while under TCG: up to 2 minutes.)
for _ in $(seq 1200); do
	[ -e $OUT/looping ] && break
	kill -0 $job 2>/dev/null || break
	sleep 0.1
done
looped=0
[ -e $OUT/looping ] && looped=1
"$D/kavctl" grant del "$G"
revoked=$?
wait $job
rc=$?
echo "# time: revocation: $((SECONDS - start)) s (the loop was running: $looped)"
logs revoke | grep -a -m1 "refused: its key was revoked" | sed 's/^/# kav: /'
logs revoke | grep -a -m1 "error occurred in MPI_" | sed 's/^/# Open MPI: /'
[ $looped = 1 ] && [ $revoked = 0 ] && [ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] &&
	logs revoke | grep -a -q "ofi_hook_kav:.*refused: its key was revoked" &&
	logs revoke | grep -a -q "error occurred in MPI_\(Send\|Recv\)"
result $? "a revocation mid-job fails the next send, Open MPI reports it (exit $rc)" revoke
exit 0
