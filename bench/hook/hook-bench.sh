#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hook-bench.sh OUT.md [--smoke]: what FI_HOOK=kav costs, natively on the
# host, in one run: libfabric's fi_rdm_tagged_pingpong (fabtests, built by
# lanes/hook/build-fabtests.sh) over tcp;ofi_rxm and udp;ofi_rxd on
# 127.0.0.1, without and with the hook, alternately.
#
#   latency, rate  8-byte pingpong, usec/xfer and Mxfers/s as fabtests
#                  prints them; the median of REPS runs of each
#   instructions,  the hooked client under callgrind --cache-sim=yes: the
#   cache misses   self cost of the hook's send (fi_tinject: fabtests'
#                  8-byte sends), receive and CQ read per call, which is
#                  what the hook adds; the core's work is the same with or
#                  without it. (A pingpong's total instructions measure
#                  its busy-polling, not its work.)
#
# The host has no kav.ko: the hook runs over its test double,
# build/hook/libkav-fake-kernel.so (the fake kernel, the module's exact
# table layout), preloaded into both sides; the plain runs preload
# nothing. The fake only answers the ioctls of setup: the data path reads
# the table pages and the hook's slots as it would over /dev/kav.
#
# Env: KAV_FABTESTS (see build-fabtests.sh), REPS (5), ITERS (20000)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:?usage: hook-bench.sh OUT.md [--smoke]}
SMOKE=${2:-}
FT=${KAV_FABTESTS:-/var/cache/kav/fabtests-1.13.1}/bin
FAKE=${KAV_BUILD:-$REPO/build}/hook/libkav-fake-kernel.so
REPS=${REPS:-5}
ITERS=${ITERS:-20000}
CG_ITERS=2000
if [[ $SMOKE == --smoke ]]; then
	REPS=1 ITERS=500 CG_ITERS=200
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

die() { echo "hook-bench.sh: $*" >&2; exit 1; }
[[ -x $FT/fi_rdm_tagged_pingpong ]] || die "no fabtests in $FT (lanes/hook/build-fabtests.sh)"
[[ -f $FAKE && -f $REPO/prov/libkav-fi.so ]] || die "build first: make prov $FAKE"

# env_for MODE: the environment words of one side.
env_for() {
	if [[ $1 == hook ]]; then
		echo "FI_HOOK=kav FI_PROVIDER_PATH=$REPO/prov LD_PRELOAD=$FAKE"
	fi
}

PORT=9800

# pingpong MODE PROV ITERS [WRAPPER...]: the client's output.
pingpong() {
	local mode=$1 prov=$2 iters=$3 srv rc=0
	shift 3
	PORT=$((PORT + 1))	# the last pair's may be in TIME_WAIT
	# shellcheck disable=SC2046 # env_for's words
	env $(env_for "$mode") "$FT/fi_rdm_tagged_pingpong" -p "$prov" \
		-s 127.0.0.1 -B $PORT -S 8 -I "$iters" >"$TMP/srv.log" 2>&1 &
	srv=$!
	sleep 0.3
	# shellcheck disable=SC2046
	env $(env_for "$mode") "$@" "$FT/fi_rdm_tagged_pingpong" -p "$prov" \
		-s 127.0.0.1 -P $PORT -S 8 -I "$iters" 127.0.0.1 \
		>"$TMP/cli.log" 2>&1 || rc=$?
	wait "$srv" || rc=$?
	[[ $rc == 0 ]] || { cat "$TMP/cli.log" "$TMP/srv.log" >&2; die "$mode $prov pingpong failed"; }
	cat "$TMP/cli.log"
}

# The "8 ..." line of fabtests: usec/xfer ($6) and Mxfers/s ($7).
field() { awk -v f="$1" '$1 == 8 && NF >= 7 { print $f }' ; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# hook_costs PROV: "Ir D1 LLd" per call of the hook's inject and trecv,
# one line each, from a callgrind run of the hooked client. (Its CQ read
# compiles to a tail jump into the core's: nothing to count.)
hook_costs() {
	local prov=$1 f=$TMP/cg.out fn
	pingpong hook "$prov" "$CG_ITERS" valgrind --tool=callgrind \
		--cache-sim=yes --callgrind-out-file="$f" >/dev/null 2>&1
	for fn in kavh_tinject kavh_trecv; do
		# Self cost: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
		callgrind_annotate --inclusive=no "$f" 2>/dev/null |
			awk -v fn=":$fn " '
			index($0, fn) && !done {
				gsub(/\([^)]*\)/, ""); gsub(/,/, "");
				print $1, $5 + $6, $8 + $9; done = 1 }
			END { if (!done) print "0 0 0" }' >"$TMP/self"
		# Calls to it, over every call site: names are compressed
		# to "(id)" after their first mention.
		calls=$(awk -v fn="$fn" '
			/^c?fn=\(/ {
				id = $1; sub(/^c?fn=/, "", id)
				if (NF > 1) name[id] = $2
				if ($1 ~ /^cfn=/) cur = name[id]
			}
			/^calls=/ { if (cur == fn) { c = $1; sub(/^calls=/, "", c); s += c }
				    cur = "" }
			END { print s + 0 }' "$f")
		awk -v c="$calls" '{ if (c == 0) c = 1;
			printf "%.1f %.3f %.3f\n", $1 / c, $2 / c, $3 / c }' \
			"$TMP/self"
	done
}

{
	echo "## What FI_HOOK=kav costs (native, $(uname -m), $(nproc) CPUs)"
	echo
	echo "fabtests' fi_rdm_tagged_pingpong, 8 bytes, 127.0.0.1; median of" \
	     "$REPS runs of $ITERS iterations each, without and with the hook" \
	     "alternately. Then what the hook adds per call, from a callgrind" \
	     "run ($CG_ITERS iterations) of the hooked client: instructions and" \
	     "L1/last-level data cache misses of the hook's own code (a send" \
	     "is an fi_tinject at 8 bytes)."
	echo
	echo "| provider | usec/xfer plain | hook | ratio | Mxfers/s plain | hook | ratio | send: instr | D1 miss | LLd miss | recv: instr | D1 miss |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$OUT"
for prov in "tcp;ofi_rxm" "udp;ofi_rxd"; do
	: >"$TMP/lat.plain"; : >"$TMP/lat.hook"
	: >"$TMP/rate.plain"; : >"$TMP/rate.hook"
	for ((r = 0; r < REPS; r++)); do
		for mode in plain hook; do
			pingpong "$mode" "$prov" "$ITERS" >"$TMP/run.log"
			field 6 <"$TMP/run.log" >>"$TMP/lat.$mode"
			field 7 <"$TMP/run.log" >>"$TMP/rate.$mode"
		done
	done
	lp=$(median <"$TMP/lat.plain") lh=$(median <"$TMP/lat.hook")
	rp=$(median <"$TMP/rate.plain") rh=$(median <"$TMP/rate.hook")
	hook_costs "$prov" >"$TMP/costs"
	read -r si sd sl <<<"$(sed -n 1p "$TMP/costs")"
	read -r ri rd _ <<<"$(sed -n 2p "$TMP/costs")"
	awk -v p="$prov" -v lp="$lp" -v lh="$lh" -v rp="$rp" -v rh="$rh" \
	    -v si="$si" -v sd="$sd" -v sl="$sl" -v ri="$ri" -v rd="$rd" 'BEGIN {
		printf "| %s | %s | %s | %.3f | %s | %s | %.3f | %s | %s | %s | %s | %s |\n",
			p, lp, lh, lh / lp, rp, rh, (rp > 0 ? rh / rp : 0),
			si, sd, sl, ri, rd }' >>"$OUT"
done
echo >>"$OUT"
echo "hook-bench.sh: $OUT"
