#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hook-bench-guest.sh: the VM half of the hook's benchmark (make bench,
# bench/run.sh): fabtests' fi_rdm_tagged_pingpong at 8 bytes over
# tcp;ofi_rxm and udp;ofi_rxd on 127.0.0.1, without and with FI_HOOK=kav
# over the real /dev/kav, alternately, REPS times each. TCG emulates every
# instruction, so only the ratio of the two, from the same run, means
# anything. Prints a markdown table between @@KAV-HOOK-BENCH-BEGIN and
# @@KAV-HOOK-BENCH-END.
set -u

VNI=0x4c01
REPS=5
ITERS=200
PORT=9400
OUT=/tmp/hookbench

mkdir -p $OUT
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
GRANT=$(./kavctl grant add vni $VNI uid 0) || exit 1

# pingpong MODE PROV: the client's usec/xfer (empty if the run failed).
pingpong() {
	mode=$1 prov=$2
	PORT=$((PORT + 1))
	if [ "$mode" = hook ]; then
		set -- env FI_HOOK=kav FI_PROVIDER_PATH=/tests \
			FI_OFI_HOOK_KAV_VNI=$VNI
	else
		set -- env
	fi
	timeout 60 "$@" ./fi_rdm_tagged_pingpong -p "$prov" -s 127.0.0.1 \
		-B $PORT -S 8 -I $ITERS >$OUT/srv.log 2>&1 &
	srv=$!
	sleep 1
	timeout 60 "$@" ./fi_rdm_tagged_pingpong -p "$prov" -s 127.0.0.1 \
		-P $PORT -S 8 -I $ITERS 127.0.0.1 >$OUT/cli.log 2>&1
	wait $srv
	awk '$1 == 8 && NF >= 7 { print $6 }' $OUT/cli.log
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

echo "@@KAV-HOOK-BENCH-BEGIN"
echo "| provider | usec/xfer plain | hook | ratio |"
echo "|---|---|---|---|"
for prov in "tcp;ofi_rxm" "udp;ofi_rxd"; do
	: >$OUT/plain
	: >$OUT/hook
	r=0
	while [ $r -lt $REPS ]; do
		pingpong plain "$prov" >>$OUT/plain
		pingpong hook "$prov" >>$OUT/hook
		r=$((r + 1))
	done
	p=$(median <$OUT/plain)
	h=$(median <$OUT/hook)
	awk -v prov="$prov" -v p="${p:-0}" -v h="${h:-0}" 'BEGIN {
		printf "| %s | %s | %s | %s |\n", prov, p, h,
			(p > 0 ? sprintf("%.3f", h / p) : "-") }'
done
echo "@@KAV-HOOK-BENCH-END"
./kavctl grant del "$GRANT"
