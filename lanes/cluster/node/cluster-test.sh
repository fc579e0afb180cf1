#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cluster-test.sh: the cluster test, run at boot on the first node by
# kav-cluster-test.service (Documentation/testing.rst, "The cluster
# test"). It drives the other node over ssh, as an administrator would,
# and submits every job as its user (alice, bob) through Slurm. TAP goes to the results port
# (/dev/ttyS1), which the host reads; "@@KAV-CLUSTER-DONE" ends it, then
# both nodes power off.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LIB=/usr/lib/kav-cluster
BIN=$LIB/bin
NODES="kavnode1 kavnode2"
OUT=/tmp/kav-cluster		# job outputs (the batch host is kavnode1)
VNI_A=1001 VNI_A2=1003 VNI_B=1011 VNI_C=1021 VNI_CTR=3000 VNI_NODE=4000

exec 3>/dev/ttyS1
T=0
FAILED=0

say() { echo "$*" >&3; echo "$*"; }
ok() { T=$((T + 1)); say "ok $T - $*"; }
notok() { T=$((T + 1)); FAILED=$((FAILED + 1)); say "not ok $T - $*"; }
# check DESC CMD...: one TAP line from CMD's exit status.
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
info() { say "# $*"; }
# show FILE: a file's lines as TAP comments.
show() { sed 's/^/#   /' "$1" >&3; }
# on NODE CMD: CMD (one shell word) on NODE, as root.
on() {
	if [[ $1 == kavnode1 ]]; then
		bash -c "$2"
	else
		ssh -n "$1" "$2"
	fi
}
# wait_for SECONDS CMD...: until CMD succeeds; 1 if it never did.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 2
	done
}

# --- the nodes, as systemd and udev brought them up -------------------------

node_up() {
	ssh -n "$1" true 2>/dev/null
}
nodes_idle() {
	[[ $(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l) == 2 ]]
}
# node_state NODE: udev's /dev/kav, the grants kav-grants.service applied.
node_state() {
	local n=$1 mode active grants ver
	mode=$(on "$n" "stat -c %a /dev/kav")
	active=$(on "$n" "systemctl is-active kav-grants.service")
	grants=$(on "$n" "kavctl -n -r -o VNI,SELECTOR grant list tag grants.d/cluster")
	ver=$(on "$n" "cat /sys/module/kav/version")
	info "$n: /dev/kav mode $mode, kav-grants.service $active, kav.ko $ver, grants.d: ${grants:-none}"
	[[ $mode == 666 && $active == active && $grants == "$VNI_NODE uid"*1001* ]]
}

boot_checks() {
	check "kavnode2 answers over the private network" wait_for 300 node_up kavnode2
	if ! wait_for 300 nodes_idle; then
		notok "both slurmd are registered and idle"
		diagnose
		finish
	fi
	ok "both slurmd are registered and idle"
	sinfo -N >"$OUT/sinfo" 2>&1
	show "$OUT/sinfo"
	local n
	for n in $NODES; do
		check "$n: kav.ko from kav-dkms $(on "$n" "dpkg-query -W -f='\${Version}' kav-dkms") loaded by systemd-modules-load" \
			on "$n" "modinfo -n kav | grep -q /updates/dkms/ && test -e /sys/module/kav"
		check "$n: udev made /dev/kav and kav-grants.service applied /etc/kav/grants.d" node_state "$n"
	done
}

# --- jobs --------------------------------------------------------------------

# submit USER ARGS...: sbatch as USER, held; prints the job id.
submit() {
	local user=$1 out
	shift
	out=$(su - "$user" -c "sbatch --parsable --hold $*" 2>&1) || {
		info "sbatch as $user failed: $out"
		return 1
	}
	echo "${out%%;*}"
}
# grant_job JOB VNI: what the site's VNI allocator does (AdminComment),
# then release the held job.
grant_job() {
	scontrol update job="$1" AdminComment="kav_vnis=$2" &&
		scontrol release "$1"
}
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_gone() { [[ -z $(job_state "$1") ]]; }
job_running() { [[ $(job_state "$1") == RUNNING ]]; }
# marked FILE WORD: the job's output has a line "@@WORD".
marked() { grep -q "^@@$2" "$1" 2>/dev/null; }
release() { touch "$OUT/release-$1"; }
# ompi_ok FILE N: kav_ompi's N ranks got the right results, and each
# logged the hook's stats line.
ompi_ok() {
	grep -q "kav_ompi: $2 ranks, .*pingpong ok, allreduce ok" "$1" &&
		[[ $(stats_ranks "$1") == "$2" ]]
}
# stats_ranks FILE: how many ranks logged the hook's stats line, nothing
# refused (the job prints each rank's log prefixed "rank.R: ").
stats_ranks() {
	grep 'stats: kav served AV .* 0 refused, .* 0 data-path calls refused' "$1" |
		sed -n 's/^\(rank\.[0-9]*\): .*/\1/p' | sort -u | wc -l
}
# grants_of NODE JOB: the VNIs granted with the job's tag on NODE.
grants_of() { on "$1" "kavctl -n -r -o VNI grant list tag slurm-$2" | sort -u | tr '\n' ' '; }
# grants_on_both JOB VNI: each node holds the job's tagged grant of VNI.
grants_on_both() {
	local n g ok=0
	for n in $NODES; do
		g=$(grants_of "$n" "$1")
		info "$n: grants tagged slurm-$1: ${g:-none}"
		[[ " $g " == *" $2 "* ]] || ok=1
	done
	return $ok
}
grants_gone() {
	local n g ok=0
	for n in $NODES; do
		g=$(grants_of "$n" "$1")
		info "$n: grants tagged slurm-$1 after the job: ${g:-none}"
		[[ -z $g ]] || ok=1
	done
	return $ok
}

job_a() {
	local j
	j=$(submit alice "-N2 --ntasks-per-node=2 -o $OUT/A.out $LIB/job-a.sh") ||
		{ notok "job A submitted"; return; }
	JOB_A=$j
	grant_job "$j" $VNI_A
	check "job A ($j, alice, Open MPI 5, 2 nodes x 2 ranks) ran its MPI program" \
		wait_for 600 marked "$OUT/A.out" mpi-done
	show "$OUT/A.out"
	check "job A: ping-pong between the nodes and allreduce are right; every rank's stats lines say kav served its AVs, refusing nothing" \
		ompi_ok "$OUT/A.out" 4
	check "job A: the ranks ran on both nodes" \
		test "$(grep -o 'rank [0-9]* on kavnode[12]' "$OUT/A.out" | awk '{print $4}' | sort -u | wc -l)" = 2
	check "job A: the TaskProlog gave every task FI_HOOK=kav and the job's VNI $VNI_A" \
		grep -q "^job A: FI_HOOK=kav FI_OFI_HOOK_KAV_VNI=$VNI_A$" "$OUT/A.out"
	check "job A: its grant of VNI $VNI_A is on both nodes during the job, tagged slurm-$j" \
		grants_on_both "$j" $VNI_A
}

job_a_end() {
	release "$JOB_A"
	check "job A ended" wait_for 300 job_gone "$JOB_A"
	check "job A: its grants are gone from both nodes after it" grants_gone "$JOB_A"
}

job_cancelled() {
	local j
	j=$(submit alice "-N2 --ntasks-per-node=1 -o $OUT/A2.out --wrap 'srun sleep 600'") ||
		{ notok "the job to cancel submitted"; return; }
	grant_job "$j" $VNI_A2
	wait_for 300 job_running "$j"
	check "job $j (to be cancelled): its grant of VNI $VNI_A2 is on both nodes" \
		wait_for 120 grants_on_both "$j" $VNI_A2
	scancel "$j"
	check "job $j cancelled (scancel)" wait_for 300 job_gone "$j"
	check "job $j: its grants are gone from both nodes after scancel" grants_gone "$j"
}

job_b() {
	local j
	if ! command -v kav-av-fill >/dev/null; then
		notok "job B: kav-av-fill is not installed"
		return
	fi
	j=$(submit alice "-N2 --ntasks-per-node=8 -o $OUT/B.out $LIB/job-b.sh") ||
		{ notok "job B submitted"; return; }
	JOB_B=$j
	grant_job "$j" $VNI_B
	check "job B ($j, alice, MPICH instant-on, 2 nodes) ran its MPI programs" \
		wait_for 1200 marked "$OUT/B.out" holding
	show "$OUT/B.out"
	local n
	for n in 4 8 16; do
		check "job B: $n ranks on 2 nodes start from FI_NAMED_AV_0 with no exchange ($n of $n stats lines name it)" \
			grep -q "^@@instant $n ok$" "$OUT/B.out"
		check "job B: $n ranks on 2 nodes with MPICH's own exchange" \
			grep -q "^@@exchange $n ok$" "$OUT/B.out"
	done
	grep '^# table' "$OUT/B.out" >&3
	for n in $NODES; do
		check "job B: $n's FI_NAMED_AV_0 (alice's, mode 0600) holds every rank's address, filled before the ranks start" \
			b_av_filled "$n"
	done
}

# b_av_filled NODE: the AV job B holds for job C (4 ranks) on NODE.
b_av_filled() {
	local l
	l=$(on "$1" "kavctl -n -r -o UID,MODE,ENTRIES,NAME av list" | grep 'FI_NAMED_AV_0')
	info "$1: kavctl av list: $l"
	[[ $l == "1001 0600 4 FI_NAMED_AV_0"* ]]
}

job_c() {
	local j
	j=$(submit bob "-N2 --ntasks-per-node=1 -o $OUT/C.out $LIB/job-c.sh $VNI_A $VNI_B") ||
		{ notok "job C submitted"; return; }
	grant_job "$j" $VNI_C
	check "job C ($j, bob, VNI $VNI_C) ran on the same nodes as A and B" \
		wait_for 600 marked "$OUT/C.out" "done"
	show "$OUT/C.out"
	check "job C: its own Open MPI job across the nodes works, kav serving both ranks" \
		ompi_ok "$OUT/C.out" 2
	check "job C: on both nodes, every attempt on A's and B's VNIs and B's named AV is refused, naming the cause" \
		test "$(grep -c '^probe .* ok [2-5] - .*refused: .*' "$OUT/C.out")" = 16
	check "job C: kav_last_error() names the missing grant" \
		grep -q "no grant for this auth key (vni $VNI_B)" "$OUT/C.out"
	check "job C: kavctl whoami shows bob's identity and only the grant of VNI $VNI_C" \
		grep -q "^whoami ok" "$OUT/C.out"
	check "job C ended" wait_for 300 job_gone "$j"
}

job_b_end() {
	[[ -n ${JOB_B:-} ]] || return
	release "$JOB_B"
	check "job B ended" wait_for 300 job_gone "$JOB_B"
	check "job B: its grants are gone from both nodes after it" grants_gone "$JOB_B"
}

# --- containers ---------------------------------------------------------------

# shellcheck source=lanes/cluster/node/containers.sh
. $LIB/containers.sh
# shellcheck source=lanes/cluster/node/wire.sh
. $LIB/wire.sh
# shellcheck source=lanes/cluster/node/lifecycle.sh
. $LIB/lifecycle.sh

# diagnose: the logs that say why (on a failure that stops the test).
diagnose() {
	local n
	sinfo -N -o '%N %t %E' 2>&1 | sed 's/^/#   sinfo: /' >&3
	for n in $NODES; do
		on "$n" "systemctl --failed --no-legend; journalctl -b --no-pager -u slurmd -u slurmctld -u munge -u kav-grants | tail -n 40; tail -n 20 /var/log/slurm/*.log; journalctl -b --no-pager -t kav-slurm | tail -n 20" 2>&1 |
			sed "s/^/#   $n: /" >&3
	done
}

# finish: the plan, the end marker; both nodes power off.
finish() {
	trap - EXIT
	say "1..$T"
	say "# $FAILED of $T failed"
	say "@@KAV-CLUSTER-DONE"
	exec 3>&-
	ssh -n kavnode3 "systemctl poweroff" 2>/dev/null
	ssh -n kavnode2 "systemctl poweroff" 2>/dev/null
	systemctl poweroff
	exit 0
}

# The script itself failing (a bug) still ends the test, as a failure.
died() {
	notok "cluster-test.sh stopped early (exit $?)"
	diagnose
	finish
}

# phase FN: FN, then how long it took (make check's budget: testing.rst).
phase() {
	local t0=$SECONDS
	"$1"
	info "phase $1 took $((SECONDS - t0)) s"
}

main() {
	trap died EXIT
	mkdir -p $OUT
	chmod 1777 $OUT
	info "cluster test on $(hostname): $(uname -r), $(slurmd -V), $(podman --version), libfabric $(dpkg-query -W -f='${Version}' libfabric1)"
	phase boot_checks
	phase wire_setup
	phase wire_mark
	phase job_a
	phase job_cancelled
	phase job_b
	phase job_c
	phase job_a_end
	phase job_b_end
	phase wire_jobs
	phase containers
	phase wire
	phase wire_flowlabel
	phase lifecycle
	((FAILED == 0)) || diagnose
	finish
}

main
