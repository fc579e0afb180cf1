#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fabtests-guest.sh: libfabric's own fabtests, unmodified (built by
# build-fabtests.sh), in the VM over tcp;ofi_rxm and udp;ofi_rxd on
# 127.0.0.1, each once without and once with FI_HOOK=kav (the provider is
# /tests/libkav-fi.so, the job's VNI granted to root with kavctl). Prints
# TAP, one case per provider and test:
#
#   ok      the test passes with the hook as without it, and the hook's
#           stats line says kav served its AV (client side);
#   not ok  it passes without the hook and fails with it, or passes with
#           no stats line;
#   # SKIP  it fails without the hook already (libfabric 1.17 with
#           fabtests 1.13.1): nothing to compare, and it is not run
#           with the hook (the table's hook column: -).
#
# and a "# table:" line per case (provider, test, exit status without and
# with the hook, what the stats line said), which
# Documentation/results/hook-results.md reports. Runs in /tests under the guest's
# busybox sh (lanes/vm/guest-init.sh).
set -u

VNI=0x4a01
PROVS="tcp;ofi_rxm udp;ofi_rxd"
# name|timeout (s)|unit (one process) or pair (server, client)|arguments.
# fi_multi_ep hangs without the hook (libfabric 1.17, both providers),
# fi_rdm_shared_av asks fi_getinfo for FI_SHARED_AV, which neither core
# advertises (a hooking provider has no say in fi_getinfo): short bounds.
TESTS='fi_av_test|60|unit|-g 127.0.0.1 -n 1 -s 127.0.0.1
fi_rdm|40|pair|
fi_rdm_tagged_pingpong|60|pair|-S 8 -I 200
fi_rdm_shared_av|20|pair|
fi_av_xfer|30|pair|
fi_multi_ep|10|pair|
fi_rma_bw|60|pair|-S 4096 -I 100'
N=0
OUT=/tmp/fabtests
PORT=9300
mkdir -p $OUT

if [ ! -e /proc/net/tcp ]; then
	echo "1..0 # SKIP no IPv4 in this kernel"
	exit 0
fi
# Userspace conformance: the Debian kernels suffice, and make check's
# time budget does not stretch to the debug kernels (mpich-guest.sh runs
# there).
case $(uname -r) in
*kav*)
	echo "1..0 # SKIP the debug kernels: fabtests run on 6.1 and 6.12"
	exit 0
	;;
esac
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
# fi_av_test resolves a service name: the host's /etc/services (--extra).
mkdir -p /etc
[ -f /tests/services ] && cp /tests/services /etc/services
GRANT=$(./kavctl grant add vni $VNI uid 0) || {
	echo "Bail out! kavctl cannot grant VNI $VNI"
	exit 1
}

# run MODE PROV NAME TIMEOUT KIND ARGS: 0 if the pair (or unit test)
# passed; the client's output in $OUT/MODE.log.
run() {
	mode=$1 prov=$2 name=$3 FT_TIMEOUT=$4 kind=$5 args=$6 srv=''
	# A port per pair: the last one's may still be in TIME_WAIT.
	PORT=$((PORT + 1))
	if [ "$mode" = hook ]; then
		set -- env FI_HOOK=kav FI_PROVIDER_PATH=/tests \
			FI_OFI_HOOK_KAV_VNI=$VNI FI_OFI_HOOK_KAV_STATS=1 \
			FI_LOG_LEVEL=warn
	else
		set -- env
	fi
	if [ "$kind" = unit ]; then
		# shellcheck disable=SC2086 # args are words
		timeout "$FT_TIMEOUT" "$@" "./$name" -p "$prov" $args \
			>$OUT/$mode.log 2>&1
		return $?
	fi
	: >$OUT/$mode.srv.log
	# shellcheck disable=SC2086
	timeout "$FT_TIMEOUT" "$@" "./$name" -p "$prov" -s 127.0.0.1 -B $PORT \
		$args >$OUT/$mode.srv.log 2>&1 &
	srv=$!
	sleep 1
	# shellcheck disable=SC2086
	timeout "$FT_TIMEOUT" "$@" "./$name" -p "$prov" -s 127.0.0.1 -P $PORT \
		$args 127.0.0.1 >$OUT/$mode.log 2>&1
	rc=$?
	# A client that failed leaves its server waiting: 5 s, then it goes.
	t=0
	while kill -0 $srv 2>/dev/null && [ $t -lt 5 ]; do
		sleep 1
		t=$((t + 1))
	done
	kill $srv 2>/dev/null
	wait $srv
	src=$?
	[ $rc = 0 ] && rc=$src
	# fabtests' fixed ports: the next pair must find them free.
	sleep 1
	return $rc
}

echo "1..14"
for prov in $PROVS; do
	echo "$TESTS" | while IFS='|' read -r name limit kind args; do
		N=$(( $(cat $OUT/n 2>/dev/null || echo 0) + 1 ))
		echo $N >$OUT/n
		run plain "$prov" "$name" "$limit" "$kind" "$args"
		plain=$?
		# Failing without the hook: nothing to compare, and the run
		# with it is not made (fi_multi_ep's hangs cost 2 x 17 s).
		hook=-
		: >$OUT/hook.log
		if [ $plain = 0 ]; then
			run hook "$prov" "$name" "$limit" "$kind" "$args"
			hook=$?
		fi
		stats=$(grep -a -m1 'stats: kav served' $OUT/hook.log |
			sed 's/.*stats: kav served //')
		echo "# table: $prov | $name | $plain | $hook | ${stats:-no stats line}"
		desc="$name over $prov with FI_HOOK=kav"
		if [ $plain != 0 ]; then
			echo "ok $N - $desc # SKIP fails without the hook too (exit $plain)"
			tail -n 3 $OUT/plain.log | sed 's/^/#   without: /'
			[ "$kind" = unit ] ||
				tail -n 3 $OUT/plain.srv.log | sed 's/^/#   without, server: /'
		elif [ $hook = 0 ] && [ -n "$stats" ]; then
			echo "ok $N - $desc"
		else
			echo "not ok $N - $desc (exit $hook; ${stats:-no stats line})"
			sed 's/^/#   /' $OUT/hook.log | tail -n 15
		fi
	done
done
./kavctl grant del "$GRANT"
