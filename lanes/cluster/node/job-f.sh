#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Job F of the cluster test's flowlabel phase (wire.sh, wire_flowlabel),
# alice's: plain TCP and UDP over the fabric's IPv6 (fd77::/64) between
# its two nodes with kav_wire_probe (no libfabric), the key in the flow
# label: a server step on kavnode2, probes from kavnode1. The prolog made
# the job VNI the job's wire key on both nodes (no SAs in this mode). The
# job holds until $OUT/release-<job>, while the test attacks the server.
set -u
# shellcheck source=lanes/cluster/node/job-lib.sh
. /usr/lib/kav-cluster/job-lib.sh
serve kavnode2 900 "$OUT/F-serve.out"
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" tcp fd77::2 $PORT
srun --overlap -N1 -n1 -w kavnode1 "$BIN/kav_wire_probe" udp fd77::2 $PORT
echo "@@F-ready"
hold F
