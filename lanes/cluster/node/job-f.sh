#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Job F of the cluster test's flowlabel phase (wire.sh, wire_flowlabel),
# alice's: plain TCP and UDP over the fabric's IPv6 (fd77::/64) between
# its two nodes with kav_wire_probe (no libfabric), the key in the flow
# label: a server step on kavnode2, probes from kavnode1. The prolog made
# the job VNI the job's wire key on both nodes (no SAs in this mode). The
# job holds until $OUT/release-<job>, while the test attacks the server.
set -u
OUT=/tmp/kav-cluster
BIN=/usr/lib/kav-cluster/bin
PORT=21100
srun --overlap -N1 -n1 -w kavnode2 "$BIN/kav_wire_probe" serve $PORT 900 \
	>"$OUT/F-serve.out" 2>&1 &
for _ in $(seq 90); do
	grep -q '^@@serving' "$OUT/F-serve.out" 2>/dev/null && break
	sleep 2
done
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" tcp fd77::2 $PORT
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" udp fd77::2 $PORT
echo "@@F-ready"
for _ in $(seq 900); do
	[ -e "$OUT/release-$SLURM_JOB_ID" ] && break
	sleep 1
done
# shellcheck disable=SC2046 # one word per job
kill $(jobs -p) 2>/dev/null
wait
echo "@@F-done"
