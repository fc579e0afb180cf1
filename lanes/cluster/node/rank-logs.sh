#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rank-logs.sh DIR: inside a job, print every rank's log DIR/rank.R of
# every node, each line prefixed "rank.R: ", and remove DIR (one task per
# node). The jobs' ranks write their stderr there: the hook's stats line.
srun --overlap -N "$SLURM_JOB_NUM_NODES" -n "$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 \
	sh -c 'for f in "$0"/rank.*; do sed "s/^/${f##*/}: /" "$f"; done 2>/dev/null; rm -rf "$0"' "${1:?usage: rank-logs.sh DIR}"
