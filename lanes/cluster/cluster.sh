#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cluster.sh [OUTDIR]: the cluster test (make cluster-check). Two
# trixie nodes boot systemd from the node image (image.sh) in QEMU (TCG,
# 3 GiB and two CPUs each, -snapshot), and a third guest of the same
# image without kav (kavnode3, 1 GiB, one CPU: module_blacklist=kav, no
# Slurm), the host on the fabric segment that forges frames, booted once
# the first two are up. They share one Ethernet segment: a QEMU dgram netdev on
# a multicast group of the host's loopback (IP_MULTICAST_IF 127.0.0.1,
# TTL 1), which carries every guest's frames to the others and nowhere
# else (10.77.0.0/24 exists only there); each guest's NIC filters
# frames by destination address unless made promiscuous. Node 1's kav-cluster-test.service
# (node/cluster-test.sh) runs the test and writes TAP to its second
# serial port, OUTDIR/node1/results.log; this script prints it and fails
# if any case failed or the test did not finish.
#
# Env: KAV_CLUSTER_TIMEOUT  seconds for the whole test (default 2400)
#      KAV_CLUSTER_MEM      each guest's memory (default 3G)
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lanes/lib/cpu-lib.sh
. "$REPO/lanes/lib/cpu-lib.sh"
OUT=$(realpath -m "${1:-$REPO/build/cluster}")
TIMEOUT=${KAV_CLUSTER_TIMEOUT:-2400}
QEMU=${QEMU:-qemu-system-x86_64}
MCAST=239.255.77.1	# organization-local scope (RFC 2365), on lo only

die() { echo "cluster.sh: $*" >&2; exit 1; }
note() { echo "cluster.sh: $*" >&2; }

# boot N PORT: guest N in the background, on the segment of multicast
# port PORT; its pid in PIDS.
PIDS=()
boot() {
	local n=$1 dir=$OUT/node$1 mem=${KAV_CLUSTER_MEM:-3G} cpus=1 extra=""
	mkdir -p "$dir"
	rm -f "$dir/console.log" "$dir/results.log"
	# Nodes 1 and 2 get two CPUs: node 1 drives the test (ssh, su, kavctl
	# and the probes: one CPU ran at 100 % with a third of the host idle),
	# DKMS builds kav.ko on node 2 (the upgrade) while node 1 waits. Node
	# 3 only answers and forges a few frames.
	((n == 3)) || cpus=2
	# panic=5: a kernel that panics reboots (QEMU resets the guest) instead
	# of hanging until the timeout. TCG with two vCPUs sometimes traps on
	# an int3 the kernel's own text patching left (sched_clock_cpu, 3 s
	# into a boot, before kav.ko loads); the node then boots again and
	# panics() below reports it, and fails the run if kav is in the trace.
	# Node 3 is a host without kav: the module is not loaded, and
	# neither Slurm nor the grants start. (QEMU wants a local.port; a
	# multicast netdev uses only the local address, as the interface.)
	if ((n == 3)); then
		mem=1G
		extra="module_blacklist=kav modprobe.blacklist=kav systemd.mask=slurmd.service systemd.mask=munge.service systemd.mask=kav-grants.service"
	fi
	"$QEMU" -accel tcg -m "$mem" -smp $cpus -nodefaults \
		-display none -monitor none \
		-kernel "$OUT/vmlinuz" -initrd "$OUT/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet panic=5 systemd.hostname=kavnode$n kav.node=$n systemd.show_status=error $extra" \
		-drive "file=$OUT/node.img,format=raw,if=virtio,snapshot=on" \
		-netdev "dgram,id=net0,remote.type=inet,remote.host=$MCAST,remote.port=$2,local.type=inet,local.host=127.0.0.1,local.port=0" \
		-device "virtio-net-pci,netdev=net0,mac=52:54:00:4b:00:0$n" \
		-serial "file:$dir/console.log" -serial "file:$dir/results.log" \
		</dev/null >"$dir/qemu.log" 2>&1 &
	PIDS+=($!)
}

# panics: every node's kernel panic and Oops, reported; 1 if one names kav
# (a kav function in the trace or kav as the tainting module).
panics() {
	local n log rc=0
	for n in 1 2 3; do
		log=$OUT/node$n/console.log
		[[ -f $log ]] || continue
		grep -q -e 'Kernel panic' -e 'Oops:' -e 'kernel BUG' "$log" || continue
		note "kavnode$n's kernel oopsed or panicked (panic=5 reboots it after a panic):"
		grep -e 'Kernel panic' -e 'Oops:' -e 'kernel BUG' -e 'RIP:' "$log" |
			head -n 8 | sed "s/^/[node$n] /"
		if grep -A 40 -e 'Oops:' -e 'kernel BUG' "$log" |
			grep -q -e '[[:space:]]kav_' -e '\[kav\]'; then
			note "kavnode$n: the crash is in kav"
			rc=1
		fi
	done
	return "$rc"
}


cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}

main() {
	local start=$SECONDS port rc=0 res cpu0
	[[ $EUID == 0 ]] || die "needs root (the image is built in a chroot)"
	"$HERE/image.sh" "$OUT" || die "no node image"
	# A port of this run's own (another run's segment is another port).
	port=$((20000 + ($$ % 20000)))
	trap cleanup EXIT
	cpu0=$(child_cpu)
	boot 2 "$port"
	boot 1 "$port"
	local node1=${PIDS[1]}	# node 1 powers off last
	note "booted kavnode1 and kavnode2 (TCG; the test takes about 20 min; console: $OUT/node1/console.log)"
	res=$OUT/node1/results.log
	local end=$((SECONDS + TIMEOUT))
	# Node 3 boots once the first two have come up: the wire phase, its
	# first use, waits for it (wire.sh, wire_outsider), and three booting
	# at once took the CPUs the first two needed.
	while kill -0 "$node1" 2>/dev/null && ((SECONDS < end)) &&
		! grep -q '^# phase boot_checks' "$res" 2>/dev/null; do
		sleep 5
	done
	boot 3 "$port"
	note "booted kavnode3"
	while kill -0 "$node1" 2>/dev/null; do
		if ((SECONDS > end)); then
			note "timed out after ${TIMEOUT}s"
			rc=1
			break
		fi
		sleep 5
	done
	cleanup
	trap - EXIT
	tr -d '\r' <"$res" | sed 's/^/[cluster] /'
	if ! grep -q '^@@KAV-CLUSTER-DONE' "$res"; then
		note "the test did not finish; the end of node 1's console:"
		tail -n 40 "$OUT/node1/console.log" | sed 's/^/[node1] /'
		rc=1
	fi
	local passed failed
	passed=$(grep -c '^ok ' "$res" || true)
	failed=$(grep -c '^not ok ' "$res" || true)
	((failed == 0)) || rc=1
	panics || rc=1
	echo "cluster: $passed passed, $failed failed in $((SECONDS - start)) s (the guests $(($(child_cpu) - cpu0)) CPU-s)"
	return "$rc"
}

main "$@"
