#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kav-slurm-vm-guest.sh: the real-Slurm test proper, run by
# lanes/slurm/kav_slurm_vm chrooted in the host's root file system (read
# only, tmpfs where Slurm writes) inside the test VM, kav.ko loaded.
#
# Starts munged, slurmctld and slurmd (Debian's slurm-wlm 22.05) for one
# node, "kavnode", with proctrack/cgroup on cgroup v2 and the kav-slurm
# scripts as Prolog and Epilog (through a wrapper that sets what a site's
# /etc/kav/slurm.conf would: kavctl's path, KAV_SLURM_ADMIN_COMMENT=1),
# no PrologFlags=RunInJob (22.05 has none). Then, with real jobs:
#
#   - the job's VNIs come from its AdminComment, which the submitter
#     cannot set (scontrol update as the user is refused) while its
#     --comment is ignored;
#   - during the job every VNI of it is granted to the job's cgroup
#     (system.slice/slurmstepd.scope/job_<id>), tagged slurm-<id> where
#     kavctl has tags, and to nothing else;
#   - the job's task inserts under each of its VNIs and is refused
#     another; the same user outside the job is refused;
#   - after the job the epilog has revoked every grant and removed its
#     state file;
#   - scancel --signal=KILL of a running job still ends with no grant;
#   - a job without a VNI runs and gets no grant.
#
# TAP on standard output; the daemons' and the scripts' logs follow as
# "#" lines when something failed.
# shellcheck disable=SC2317 # functions called through check and wait_for
# shellcheck disable=SC2016 # awk programs in single quotes
# shellcheck disable=SC2001 # sed prefixes multi-line text
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
T=/run/kav-tests
KAVCTL=$T/kavctl
USER_UID=65534		# nobody: the jobs' user
LOG=/var/log/kav-slurm.log
N=0
FAILED=0
START=$SECONDS

ok() { N=$((N + 1)); echo "ok $N $*"; }
not_ok() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N $*"; }
check() {	# check NAME CMD...: one TAP line, from CMD's status
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
note() { echo "# $*"; }

# wait_for SECONDS CMD...: until CMD succeeds, or fail after SECONDS.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[[ $SECONDS -lt $end ]] || return 1
		sleep 0.5
	done
}

dump_logs() {
	local f
	echo "# ---- squeue, sinfo -R"
	squeue -a -o "%i %u %T %r" 2>&1 | sed 's/^/# /'
	sinfo -R 2>&1 | sed 's/^/# /'
	for f in $LOG /var/log/slurm/slurmd.log /var/log/slurm/slurmctld.log; do
		[[ -f $f ]] || continue
		echo "# ---- $f (last 60 lines)"
		tail -n 60 "$f" | sed 's/^/# /'
	done
}

# ------------------------------------------------------------- setup

setup() {
	mkdir -p /var/log/slurm /var/spool/slurmd /var/spool/slurmctld \
		/run/munge /var/log/munge /var/lib/munge
	chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
	chmod 0700 /etc/munge /var/lib/munge /var/log/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	chown munge:munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key

	# The Prolog and Epilog: the shipped scripts, through a wrapper that
	# sets what a site's /etc/kav/slurm.conf would, and keeps their log.
	for w in prolog epilog; do
		cat >$T/site-$w <<EOF
#!/bin/sh
KAVCTL=$KAVCTL KAV_SLURM_ADMIN_COMMENT=1
export KAVCTL KAV_SLURM_ADMIN_COMMENT
exec $T/kav-slurm-$w "\$@" 2>>$LOG
EOF
		chmod 0755 $T/site-$w
	done

	cat >/etc/slurm/slurm.conf <<EOF
ClusterName=kav
SlurmctldHost=kavnode(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=verbose
ProctrackType=proctrack/cgroup
TaskPlugin=task/none
PrologFlags=Contain
Prolog=$T/site-prolog
Epilog=$T/site-epilog
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ReturnToService=2
KillWait=5
MessageTimeout=30
NodeName=kavnode NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes=kavnode Default=YES MaxTime=INFINITE State=UP
EOF
	cat >/etc/slurm/cgroup.conf <<EOF
CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF

	# systemd would have made it; slurmd (IgnoreSystemd) makes its scope
	# below it.
	mkdir -p /sys/fs/cgroup/system.slice
	for c in cpuset cpu memory pids; do
		echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		echo "+$c" >/sys/fs/cgroup/system.slice/cgroup.subtree_control 2>/dev/null
	done
	runuser -u munge -- /usr/sbin/munged --num-threads=2 || return 1
	/usr/sbin/slurmctld -c -i || return 1
	/usr/sbin/slurmd -b || return 1
	node_idle() { sinfo -h -n kavnode -o %t 2>/dev/null | grep -qx idle; }
	wait_for 90 node_idle
}

# ------------------------------------------------------------ helpers

# The grants as "ID VNI TYPE CGROUP_ID TAG" lines ("-": none). A failed
# listing fails (and prints a line no check matches).
grants() {
	$KAVCTL -rn -o ID,VNI,SEL-TYPE,CGROUP-ID,TAG grant list || {
		echo "kavctl-failed"
		return 1
	}
}

job_output_ok() {
	grep -qx 'vni 1300: insert ok' "$1" && grep -qx 'vni 1234: insert ok' "$1" &&
		grep -q '^vni 999: denied' "$1"
}

# Debian's slurmd is built with --enable-multiple-slurmd: its scope is
# <nodename>_slurmstepd.scope.
job_cg() { echo "/sys/fs/cgroup/system.slice/kavnode_slurmstepd.scope/job_$1"; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
# started ID: the job's task is ready; gives up at once if the node
# drained (a failed Prolog) rather than wait.
started() {
	[[ -e /tmp/ready-$1 ]] && return 0
	if sinfo -h -n kavnode -o %t 2>/dev/null | grep -q drain; then
		SECONDS=$((SECONDS + 1000))
	fi
	return 1
}
job_gone() { [[ -z $(job_state "$1") ]]; }
no_grant_of() {	# no grant of cgroup id $1 and none tagged slurm-$2
	local rows
	rows=$(grants) || return 1
	! awk -v c="$1" -v t="slurm-$2" '$4 == c || $5 == t { f = 1 } END { exit !f }' <<<"$rows"
}

# submit VNIS [sbatch args...]: a held batch job of the user, its
# AdminComment set by the administrator (here: root), then released.
# Prints the job id.
submit() {
	local vnis=$1 id
	shift
	id=$(sbatch --parsable --hold --uid=$USER_UID --chdir=/tmp \
		--output=/tmp/job-%j.out "$@" $T/job.sh) || return 1
	if [[ -n $vnis ]]; then
		scontrol update jobid="$id" AdminComment="site kav_vnis=$vnis" || return 1
	fi
	scontrol release "$id" || return 1
	echo "$id"
}

# --------------------------------------------------------------- tests

main() {
	echo "TAP version 13"
	if ! setup; then
		echo "1..1"
		echo "not ok 1 slurmctld and slurmd start (node idle)"
		dump_logs
		return 1
	fi
	echo "1..21"
	ok "slurmctld and slurmd start, node idle after $((SECONDS - START))s"
	note "kavctl tags: $($KAVCTL --help 2>&1 | grep -Eq '(^|[[ ])tag ' && echo yes || echo no)"

	cat >$T/job.sh <<EOF
#!/bin/sh
# A job's task: uses its VNIs while the test looks, then one it lacks.
$T/kav_slurm_job 1300 ok /tmp/ready-\$SLURM_JOB_ID /tmp/go-\$SLURM_JOB_ID || exit 1
$T/kav_slurm_job 1234 ok || exit 2
$T/kav_slurm_job 999 denied || exit 3
echo "cgroup: \$(cat /proc/self/cgroup)"
EOF
	chmod 0755 $T/job.sh

	# 1. A job whose VNIs the administrator set; the user's own
	# --comment carries a forged one.
	local id cg cgid rows
	id=$(submit 1234,1300 --comment="kav_vnis=999") || { not_ok "sbatch"; dump_logs; return 1; }
	ok "job $id submitted held, AdminComment set by the administrator, released"
	# The user cannot set it.
	if runuser -u nobody -- scontrol update jobid="$id" AdminComment="kav_vnis=999" >/dev/null 2>&1; then
		not_ok "the job's user cannot set its AdminComment"
	else
		ok "the job's user cannot set its AdminComment"
	fi
	if wait_for 120 started "$id"; then
		ok "job $id runs and its task holds a keyed domain"
	else
		not_ok "job $id runs and its task holds a keyed domain (state $(job_state "$id"))"
		sed 's/^/# /' /tmp/job-"$id".out 2>/dev/null
		dump_logs
		return 1
	fi
	cg=$(job_cg "$id")
	cgid=$(stat -c %i "$cg" 2>/dev/null)
	rows=$(grants)
	note "grants during job $id (cgroup $cg, id ${cgid:-none}):"
	sed 's/^/#   /' <<<"$rows"
	check "during the job: vni 1234 granted to the job's cgroup, tagged slurm-$id" \
		awk -v c="$cgid" -v t="slurm-$id" '$2 == 1234 && $3 == "cgroup" && $4 == c && $5 == t { f = 1 } END { exit !f }' <<<"$rows"
	check "during the job: vni 1300 (the job VNI, last) granted to the job's cgroup, tagged slurm-$id" \
		awk -v c="$cgid" -v t="slurm-$id" '$2 == 1300 && $3 == "cgroup" && $4 == c && $5 == t { f = 1 } END { exit !f }' <<<"$rows"
	check "the forged vni 999 (the user's --comment) is granted to nothing" \
		awk '$1 == "kavctl-failed" || $2 == 999 { f = 1 } END { exit f }' <<<"$rows"
	check "the job's processes are in the granted cgroup" \
		grep -q "job_$id/" <<<"$(cat /proc/"$(pgrep -f "kav_slurm_job 1300" | head -n 1)"/cgroup 2>/dev/null)"
	check "the same user outside the job is refused vni 1300" \
		runuser -u nobody -- $T/kav_slurm_job 1300 denied
	check "root outside the job is refused vni 1234" $T/kav_slurm_job 1234 denied
	touch /tmp/go-"$id"
	wait_for 60 job_gone "$id"
	sed 's/^/# job: /' /tmp/job-"$id".out 2>/dev/null
	check "the job's task inserted under 1300 and 1234 and was refused 999" \
		job_output_ok /tmp/job-"$id".out
	check "after the epilog: no grant of the job" wait_for 30 no_grant_of "$cgid" "$id"
	check "after the epilog: no state file" wait_for 10 test ! -e /run/kav/slurm/job_"$id"

	# 2. kill -9 of a running job (scancel --signal=KILL).
	id=$(submit 1400) || { not_ok "sbatch (kill)"; dump_logs; return 1; }
	if wait_for 120 started "$id"; then
		ok "job $id (vni 1400) runs"
	else
		not_ok "job $id (vni 1400) runs"
		dump_logs
		return 1
	fi
	cgid=$(stat -c %i "$(job_cg "$id")" 2>/dev/null)
	rows=$(grants)
	sed 's/^/#   /' <<<"$rows"
	check "vni 1400 granted to job $id's cgroup, tagged slurm-$id" \
		awk -v c="$cgid" -v t="slurm-$id" '$2 == 1400 && $4 == c && $5 == t { f = 1 } END { exit !f }' <<<"$rows"
	# The job's task above uses 1300 (not its key): it was refused, and
	# exits 1 when released; scancel KILLs it before that.
	scancel --signal=KILL "$id"
	scancel "$id"
	check "job $id killed (scancel --signal=KILL)" wait_for 60 job_gone "$id"
	check "after the kill: no grant of the job" wait_for 30 no_grant_of "$cgid" "$id"
	check "after the kill: no state file" wait_for 10 test ! -e /run/kav/slurm/job_"$id"

	# 3. A job without a VNI: it runs, nothing is granted.
	local before after
	before=$(grants | wc -l)
	id=$(submit "") || { not_ok "sbatch (no vni)"; dump_logs; return 1; }
	wait_for 120 started "$id"
	after=$(grants | wc -l)
	touch /tmp/go-"$id"
	wait_for 60 job_gone "$id"
	check "a job without a VNI runs and gets no grant" test "$before" = "$after"
	check "the prolog said why (no auth key for the job)" grep -q "job $id: no auth key" $LOG
	check "no node was drained" test "$(sinfo -h -n kavnode -o %t)" = idle

	note "runtime: $((SECONDS - START))s"
	[[ $FAILED == 0 ]] || dump_logs
	[[ $FAILED == 0 ]]
}

# The daemons, by their pid files (this is the guest: nothing else of
# Slurm runs there).
cleanup() {
	local f
	for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
		[[ -s $f ]] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
	for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
		[[ -s $f ]] && kill -9 "$(cat "$f")" 2>/dev/null
	done
}

main
rc=$?
cleanup
exit $rc
