#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mpi-init-guest.sh DIR: make bench's "MPI_Init" table. Run by
# bench/ompi/kav_mpi_init_vm chrooted in the trixie root (Open MPI 5.0.7,
# libfabric 2.1) in the guest, with the real kav.ko. DIR holds
# kav_mpi_init (tests/apps/kav_mpi_init.c, built with the root's mpicc),
# libkav-fi.so, libkav.so.0 and kavctl built against libfabric 2.1.
#
# Jobs of 2, 8 and 32 ranks on this one node (oversubscribed: the guest
# has 2 vCPUs), as an unprivileged user granted the job's VNI, over Open
# MPI's ofi MTL on libfabric's tcp provider, the same command line as
# lanes/ompi (kav-ompi-guest.sh), once without and once with
# FI_HOOK=kav, alternately, REPS times each. Per job: MPI_Init's time,
# the maximum over the ranks (kav_mpi_init prints it), and the job's wall
# time (mpirun's start to its exit). With the hook, each rank's stats line
# (at its AV's close) gives the entries kav accepted and those the hook
# mirrored into the core's AV, summed over the ranks.
#
# Prints a markdown table between @@KAV-MPI-INIT-BEGIN and
# @@KAV-MPI-INIT-END, and TAP (a job that fails is "not ok": never a
# time). Timings are TCG's: only the ratios mean anything.
#
# Env: KAV_MPI_INIT_RANKS ("2 8 32"), KAV_MPI_INIT_REPS (3)
set -u

D=${1:?usage: mpi-init-guest.sh DIR}
VNI=20227		# granted to the job's user
USER_ID=65534		# nobody
OUT=/tmp/kav-mpi-init
# Commas too: check.sh's --args cannot carry a space inside a word.
RANKS=${KAV_MPI_INIT_RANKS:-2 8 32}
RANKS=${RANKS//,/ }
REPS=${KAV_MPI_INIT_REPS:-3}
JOB_TIMEOUT=${KAV_MPI_INIT_TIMEOUT:-900}

mkdir -p $OUT/home
chown $USER_ID $OUT $OUT/home

# job MODE N: one job; prints "INIT WALL" (INIT empty if it failed).
job() {
	local mode=$1 n=$2 name=$1.$2 t0 t1 rc
	local -a hook=()
	[ "$mode" = hook ] && hook=(-x FI_HOOK=kav)
	rm -rf "${OUT:?}/$name"
	mkdir -p "$OUT/$name"
	chown $USER_ID "$OUT/$name"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016 # the rank's variables, not ours
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		env HOME=$OUT/home TMPDIR=$OUT \
		timeout -k 10 "$JOB_TIMEOUT" \
		mpirun --map-by :OVERSUBSCRIBE -n "$n" \
		--mca pml cm --mca mtl ofi \
		--mca opal_common_ofi_provider_include tcp \
		"${hook[@]}" -x FI_PROVIDER=tcp -x FI_OFI_HOOK_KAV_VNI=$VNI \
		-x FI_OFI_HOOK_KAV_STATS=1 -x FI_LOG_LEVEL=warn \
		-x FI_TCP_IFACE=kav0 -x FI_PROVIDER_PATH="$D" \
		-x LD_LIBRARY_PATH="$D" -x KAV_RANK_DIR="$OUT/$name" \
		/bin/sh -c \
		'exec "$0" "$@" 2>"$KAV_RANK_DIR/rank.$OMPI_COMM_WORLD_RANK"' \
		"$D/kav_mpi_init" >"$OUT/$name.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	init=$(sed -n 's/^kav_mpi_init: .*MPI_Init max \([0-9.]*\) s, mean [0-9.]* s$/\1/p' \
		"$OUT/$name.log")
	if [ $rc != 0 ] || [ -z "$init" ]; then
		echo "# $name failed (exit $rc):" >&2
		cat "$OUT/$name.log" "$OUT/$name"/rank.* 2>/dev/null |
			tail -n 20 | sed 's/^/#   /' >&2
		init=
	fi
	echo "$init $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

# hook_counts N: "inserted mirrored" summed over the last hook job's
# ranks, and how many ranks printed a stats line.
hook_counts() {
	cat "$OUT/hook.$1"/rank.* 2>/dev/null | awk '
		/stats: kav served AV/ {
			n++
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^inserted,?$/) ins += $(i - 1)
				if ($i == "mirrored") mir += $(i - 1)
			}
		}
		END { printf "%d %d %d\n", ins, mir, n }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# The same interface as lanes/ompi: Open MPI over tcp needs one that is
# not loopback (kav-ompi-guest.sh says why).
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
	echo "1..0 # SKIP no interface but lo: neither dummy nor netkit"
	exit 0
fi
G=$("$D/kavctl" grant add vni $VNI uid $USER_ID) || {
	echo "Bail out! kavctl cannot grant VNI $VNI to uid $USER_ID"
	exit 1
}
read -ra sizes <<<"$RANKS"
echo "1..$((${#sizes[@]} * 2))"
T=0
TABLE=$OUT/table.md
{
	echo "| ranks | MPI_Init max s, plain | hook | hook/plain | job wall s, plain | hook | hook/plain | hook: kav inserts | hook: core entries | ranks' stats lines |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"
for n in "${sizes[@]}"; do
	for mode in plain hook; do
		: >"$OUT/init.$mode"
		: >"$OUT/wall.$mode"
		: >"$OUT/fail.$mode"
	done
	r=0
	while [ "$r" -lt "$REPS" ]; do
		# Each repetition starts with the other mode.
		if [ $((r % 2)) = 0 ]; then order="plain hook"; else order="hook plain"; fi
		for mode in $order; do
			read -r init wall <<<"$(job "$mode" "$n")"
			echo "# $mode $n ranks: MPI_Init max ${init:-failed} s, job ${wall} s"
			if [ -n "$init" ]; then
				echo "$init" >>"$OUT/init.$mode"
				echo "$wall" >>"$OUT/wall.$mode"
			else
				echo x >>"$OUT/fail.$mode"
			fi
		done
		r=$((r + 1))
	done
	for mode in plain hook; do
		T=$((T + 1))
		if [ -s "$OUT/fail.$mode" ]; then
			echo "not ok $T - $n ranks, $mode: $(wc -l <"$OUT/fail.$mode") of $REPS jobs failed"
		else
			echo "ok $T - $n ranks, $mode: $REPS jobs"
		fi
	done
	ip=$(median <"$OUT/init.plain") ih=$(median <"$OUT/init.hook")
	wp=$(median <"$OUT/wall.plain") wh=$(median <"$OUT/wall.hook")
	read -r ins mir lines <<<"$(hook_counts "$n")"
	awk -v n="$n" -v ip="${ip:-0}" -v ih="${ih:-0}" -v wp="${wp:-0}" \
	    -v wh="${wh:-0}" -v ins="$ins" -v mir="$mir" -v lines="$lines" '
	function r(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
	function v(a) { return a > 0 ? a : "failed" }
	BEGIN {
		printf "| %d | %s | %s | %s | %s | %s | %s | %d | %d | %d of %d |\n",
			n, v(ip), v(ih), r(ih, ip), v(wp), v(wh), r(wh, wp),
			ins, mir, lines, n
	}' >>"$TABLE"
done
"$D/kavctl" grant del "$G"
echo "@@KAV-MPI-INIT-BEGIN"
cat "$TABLE"
echo "@@KAV-MPI-INIT-END"
exit 0
