#!/bin/sh
# kav-cluster-net.service: 10.77.0.N/24 on eth0, N from kav.node=N.
set -eu
n=$(sed -n 's/.*kav\.node=\([0-9]\).*/\1/p' /proc/cmdline)
[ -n "$n" ] || { echo "net.sh: no kav.node= on the command line" >&2; exit 1; }
ip link set lo up
ip link set eth0 up
ip addr add "10.77.0.$n/24" dev eth0
