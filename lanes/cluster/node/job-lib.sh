#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the cluster test's wire jobs (job-w.sh, job-f.sh) share; they
# source it from the node's /usr/lib/kav-cluster (a batch script runs
# from slurmd's spool, not from there).
OUT=/tmp/kav-cluster
BIN=/usr/lib/kav-cluster/bin
PORT=21100

# serve NODE SECONDS FILE: kav_wire_probe's server on NODE for SECONDS,
# a background step writing FILE; returns once it serves (at most 3 min).
serve() {
	srun --overlap -N1 -n1 -w "$1" "$BIN/kav_wire_probe" serve $PORT "$2" \
		>"$3" 2>&1 &
	for _ in $(seq 90); do
		grep -q '^@@serving' "$3" 2>/dev/null && break
		sleep 2
	done
}

# hold NAME: until the test releases the job ($OUT/release-<job>, at most
# 15 min), then stop the steps still running and print "@@NAME-done".
hold() {
	for _ in $(seq 900); do
		[ -e "$OUT/release-$SLURM_JOB_ID" ] && break
		sleep 1
	done
	# shellcheck disable=SC2046 # one word per job
	kill $(jobs -p) 2>/dev/null
	wait
	echo "@@$1-done"
}
