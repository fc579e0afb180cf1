#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest's /init (busybox sh). mkinitramfs.sh writes a header setting
# the variables below, then appends everything after the "body" line.
#
# Results port /dev/ttyS1 (RESULTS_PORT: the arm64 guest's /dev/hvc0)
# receives one block per step:
#
#   @@KAV-BOOT uptime=<guest seconds at /init start>
#   @@KAV-BEGIN <name>
#   <stdout+stderr of the step>
#   @@KAV-END <name> rc=<exit status>
#   @@KAV-TIME <name> <guest seconds the step took>
#   ...
#   @@KAV-DMESG-BEGIN / <full dmesg> / @@KAV-DMESG-END
#   @@KAV-DONE
#
# Steps: "kmods" (HAVE_KMODS: the modules of /lib/modules/kav, which
# mkinitramfs.sh --kmods put there for kav-wire's tests, loaded in the
# order of its "order" file, guest-kmods.sh; each failure is printed, also
# to the kernel log, and fails the step, which vm.sh counts as a failure
# but which stops nothing), "insmod" (the programs are not run if it
# fails), the optional
# script, then each test program, all from /tests with KAV_MODULE=/kav.ko
# and KAV_NIC_MODULE=/tests/kav_nic.ko (the test NIC of tests/doubles/nic, which
# the tests that use it load and unload) under busybox timeout (TERM after
# TEST_TIMEOUT s, KILL 10 s later), and
# last, on a kernel with kmemleak (the debug kernel), "kmemleak": two
# scans after the programs; it prints every leak report and fails if
# there is any.
TEST_TIMEOUT=${TEST_TIMEOUT:-300}	# seconds per step
HAVE_MODULE=${HAVE_MODULE:-1}		# 1: insmod /kav.ko first
HAVE_KMODS=${HAVE_KMODS:-0}		# 1: load /lib/modules/kav first
SCRIPT=${SCRIPT:-}			# /tests/$SCRIPT run with sh, or empty
TESTS=${TESTS:-}			# programs in /tests, in order
ARGS=${ARGS:-}				# arguments for each program
LIBPATH=${LIBPATH:-}			# LD_LIBRARY_PATH for the programs
RESULTS_PORT=${RESULTS_PORT:-}		# results port (empty: /dev/ttyS1)
# --- body ---
export PATH=/sbin:/bin:/usr/sbin:/usr/bin HOME=/root TERM=dumb
[ -n "$LIBPATH" ] && export LD_LIBRARY_PATH="$LIBPATH"
RES=${RESULTS_PORT:-/dev/ttyS1}

mount_all() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/shm /dev/pts
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t tmpfs tmpfs /tmp
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
	mount -t debugfs debugfs /sys/kernel/debug
}

# step NAME CMD...: run CMD as one marked block on the results port.
step() {
	name=$1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	echo "@@KAV-BEGIN $name" >&3
	(cd /tests && KAV_MODULE=/kav.ko KAV_NIC_MODULE=/tests/kav_nic.ko \
		timeout -k 10 "$TEST_TIMEOUT" "$@") </dev/null >&3 2>&1 3>&-
	rc=$?
	echo "@@KAV-END $name rc=$rc" >&3
	# Outside the block (vm.sh reads no TIME line): where time goes.
	echo "@@KAV-TIME $name $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime)" >&3
	return $rc
}

# Objects younger than 5 s are never reported, and a scan greys objects
# whose contents changed since the previous one: wait, then scan twice.
write_kmemleak_check() {
	cat >/tmp/kmemleak-check.sh <<'EOF'
kml=/sys/kernel/debug/kmemleak
sleep 6
echo scan >$kml
sleep 2
echo scan >$kml
cat $kml >/tmp/kmemleak.out
if [ -s /tmp/kmemleak.out ]; then
	cat /tmp/kmemleak.out
	echo "kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak.out) unreferenced object(s)"
	exit 1
fi
echo "kmemleak: no leaks"
EOF
}

# The loader of /lib/modules/kav (a script: step runs a command). A
# module already loaded (by the kernel on demand) counts as loaded.
write_kmods_load() {
	cat >/tmp/kmods-load.sh <<'EOF'
dir=/lib/modules/kav
n=0 bad=0 builtin='' absent=''
while read -r what name opt; do
	case $what in
	load)
		m=$(echo "${name%.ko}" | tr - _)
		if grep -q "^$m " /proc/modules; then
			n=$((n + 1))
		elif out=$(insmod "$dir/$name" 2>&1); then
			n=$((n + 1))
		else
			echo "kmods: insmod $name failed: $out"
			echo "kav guest: insmod $name failed: $out" >/dev/kmsg
			bad=1
		fi
		;;
	builtin) builtin="$builtin $name" ;;
	absent) absent="$absent $name($opt)" ;;
	missing)
		echo "kmods: $name: neither a module nor built in ($opt)"
		echo "kav guest: module $name missing ($opt)" >/dev/kmsg
		bad=1
		;;
	esac
done <$dir/order
echo "kmods: $n loaded; built in:${builtin:- none}; not in this kernel:${absent:- none}"
exit $bad
EOF
}

run_all() {
	if [ "$HAVE_KMODS" = 1 ]; then
		write_kmods_load
		step kmods sh /tmp/kmods-load.sh
	fi
	if [ "$HAVE_MODULE" = 1 ]; then
		step insmod insmod /kav.ko || return 0
	fi
	[ -n "$SCRIPT" ] && step "$SCRIPT" sh "/tests/$SCRIPT"
	for t in $TESTS; do
		# shellcheck disable=SC2086 # ARGS are words
		step "$t" "./$t" $ARGS
	done
	if [ -e /sys/kernel/debug/kmemleak ]; then
		write_kmemleak_check
		step kmemleak sh /tmp/kmemleak-check.sh
	fi
}

mount_all
exec </dev/console >/dev/console 2>&1
# "quiet" kept the boot short; from here on every kernel message reaches
# the console, where the host looks for kernel reports.
dmesg -n 8
stty -F $RES raw -echo
# One open of the port for the whole run: each close waits for the output
# to drain and, past closing_wait (30 s, a starved TCG guest), discards
# what is left (the likely loss of a "@@KAV-BEGIN" line in one CI run).
exec 3>$RES
echo "@@KAV-BOOT uptime=$(cut -d' ' -f1 /proc/uptime)" >&3

run_all

# Lockdep turns itself off for good at its first report (or a forced
# module): its silence means something only if it is still on now.
if [ -r /proc/lockdep_stats ]; then
	echo "@@KAV-LOCKDEP $(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)" >&3
fi
{
	echo "@@KAV-DMESG-BEGIN"
	dmesg
	echo "@@KAV-DMESG-END"
} >&3
# The last close of the port waits until its output has drained.
echo "@@KAV-DONE" >&3
exec 3>&-
sync
# Without ACPI (the debug kernel) there is no power-off: QEMU runs with
# -no-reboot, so a reboot ends it.
if [ -d /sys/firmware/acpi ]; then
	poweroff -f
else
	reboot -f
fi
