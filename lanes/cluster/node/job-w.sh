#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Job W of the cluster test's kav-wire phase (wire.sh), alice's: plain TCP
# and UDP between its two nodes with kav_wire_probe (no libfabric), in
# esp mode: a server step on kavnode2, probes and a stream from kavnode1;
# and fi_pingpong (libfabric 2.1's own test, FI_HOOK unset: no kav in the
# process) with its server on kavnode2, its control port and the tcp
# provider's ports in the wire's range, which the test attacks as bob
# before alice's client runs (after $OUT/pp-go-<job>); fabtests through
# the hook across the nodes.
# The prolog made the job VNI the job's wire key on both nodes and
# installed its SAs; the TaskProlog exported the wire's port range. The
# job holds until $OUT/release-<job>, while the test attacks the server
# and revokes the key.
set -u
# shellcheck source=lanes/cluster/node/job-lib.sh
. /usr/lib/kav-cluster/job-lib.sh
PP_PORT=21300
PP=(env -u FI_HOOK FI_TCP_IFACE=eth0 fi_pingpong -p tcp -e rdm -I 50 -S 64)
echo "job W: ports ${FI_TCP_PORT_LOW_RANGE:-none}-${FI_TCP_PORT_HIGH_RANGE:-none}"
serve kavnode2 1800 "$OUT/W-serve.out"
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" tcp kavnode2 $PORT
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" udp kavnode2 $PORT
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" stream kavnode2 $PORT 1500 \
	>"$OUT/W-stream.out" 2>&1 &
for _ in $(seq 90); do
	grep -q '^@@streaming' "$OUT/W-stream.out" 2>/dev/null && break
	sleep 2
done
srun --overlap -N1 -n1 -w kavnode2 "${PP[@]}" -B $PP_PORT >"$OUT/W-ppserve.out" 2>&1 &
for _ in $(seq 90); do
	srun --overlap -N1 -n1 -w kavnode2 ss -Hltn "sport = :$PP_PORT" | grep -q . && break
	sleep 2
done
echo "@@W-ready"
for _ in $(seq 900); do
	[ -e "$OUT/pp-go-$SLURM_JOB_ID" ] && break
	sleep 1
done
srun --overlap -N1 -n1 -w kavnode1 timeout 120 "${PP[@]}" -P $PP_PORT kavnode2 \
	>"$OUT/W-ppclient.out" 2>&1
echo "@@pp-client $?"
# fabtests 1.13.1 (tcp;ofi_rxm) through the hook, as the TaskProlog set
# it: the server on kavnode2 (its out-of-band port 21400 and the tcp
# provider's ports in the wire's range), the client on kavnode1.
# "@@ft NAME CLIENT-STATUS SERVER-STATUS".
FT=(env FI_TCP_IFACE=eth0 FI_OFI_HOOK_KAV_STATS=1)
declare -A FT_ARGS=([fi_rdm]="" [fi_rdm_tagged_pingpong]="-I 50 -S 1024"
	[fi_rma_bw]="-e rdm -I 50 -S 4096")
for t in fi_rdm fi_rdm_tagged_pingpong fi_rma_bw; do
	# shellcheck disable=SC2086 # the test's options, one word each
	srun --overlap -N1 -n1 -w kavnode2 timeout 180 "${FT[@]}" /opt/fabtests/bin/$t \
		-p tcp ${FT_ARGS[$t]} -B 21400 >"$OUT/W-ft-$t-server.out" 2>&1 &
	ft_server=$!
	for _ in $(seq 60); do
		srun --overlap -N1 -n1 -w kavnode2 ss -Hltn "sport = :21400" | grep -q . && break
		sleep 2
	done
	# shellcheck disable=SC2086
	srun --overlap -N1 -n1 -w kavnode1 timeout 180 "${FT[@]}" /opt/fabtests/bin/$t \
		-p tcp ${FT_ARGS[$t]} -P 21400 kavnode2 >"$OUT/W-ft-$t-client.out" 2>&1
	c=$?
	wait $ft_server
	echo "@@ft $t $c $?"
done
hold W
