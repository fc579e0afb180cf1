#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# arm64.sh [--selftests "NAME..."]
#
# The arm64 lane (make arm64-check): run kav's kselftest programs NAME...
# (default: all of build/arm64/selftests) on Debian bookworm's arm64 6.12
# kernel, booted under qemu-system-aarch64 (TCG) on this amd64 host.
#
# 1. sysroot.sh: Debian's arm64 kernel, headers and libraries (cached).
# 2. make arm64-build ARM64_SYSROOT=...: libkav, the hook, kavctl,
#    kav-av-fill and every selftest, cross-built with -Werror into
#    build/arm64 (lanes/arm64/arm64.mk).
# 3. lanes/vm/build-kmod.sh with ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
#    against Debian's arm64 headers (their .config and Module.symvers:
#    the module loads on Debian's image), W=1, no warning allowed; the
#    test NIC module too.
# 4. lanes/vm/mkinitramfs.sh with KAV_SYSROOT (the arm64 busybox-static,
#    libraries found with readelf) and KAV_RESULTS_PORT=/dev/hvc0.
# 5. lanes/vm/run-vm.sh --arch arm64 boots it (-M virt, KAV_ARM64_CPU).
# 6. The results are read and counted by lanes/vm/vm.sh's own code
#    (sourced): the same TAP rules, console reports and @@KAV-DONE.
#
# Prints every program line prefixed "[<kver>] ", and last "N passed,
# N failed"; exit status 0 only if nothing failed. Artifacts in
# build/arm64/vm/<kver>/ as for the x86 guests (build-kmod.log,
# initramfs.cpio.gz, console.log, results.log, dmesg.log), and the
# userland build's log in build/arm64/build.log.
#
# Env: KAV_BUILD         the host's build directory (<repo>/build); the
#                        lane uses its arm64/ subdirectory
#      KAV_TEST_TIMEOUT  per-program timeout in the guest, s (300)
#      KAV_VM_TIMEOUT    whole-guest timeout on the host, s (1500)
#      KAV_ARM64_CPU     QEMU's -cpu (neoverse-n1, run-vm.sh)
#      KAV_VM_MEM        guest memory (3G)
#      KAV_VM_LOCK       a lock file: the guest (only the guest, not the
#                        builds) runs under flock on it
#      KAV_CACHE, KAV_ARM64_KVER  see sysroot.sh
set -euo pipefail
export LC_ALL=C

ARM64_HERE=$(cd "$(dirname "$0")" && pwd)
ARM64_REPO=$(cd "$ARM64_HERE/../.." && pwd)
HOST_BUILD=${KAV_BUILD:-$ARM64_REPO/build}
# The makes below are this script's own (make arm64-check's flags, -n
# included, do not reach them).
unset MAKEFLAGS MFLAGS MAKELEVEL
export KAV_BUILD=$HOST_BUILD/arm64
# The result parser of the x86 lane: parse_results, check_console,
# collect_kernel, summary and their state (VMDIR=$KAV_BUILD/vm, JOBS).
# shellcheck source=lanes/vm/vm.sh
. "$ARM64_REPO/lanes/vm/vm.sh"

usage() { die "usage: lanes/arm64/arm64.sh [--selftests \"name...\"]"; }

# make_userland SYSROOT: make arm64-build, whether or not the top-level
# Makefile includes arm64.mk yet.
make_userland() {
	local sysroot=$1 log=$KAV_BUILD/build.log
	local -a mk=(make -C "$ARM64_REPO" --no-print-directory -j"$(nproc)")
	grep -qs '^include lanes/arm64/arm64.mk' "$ARM64_REPO/Makefile" ||
		mk+=(-f Makefile -f lanes/arm64/arm64.mk)
	note "cross-building the userland for arm64 (log: $log)"
	if ! "${mk[@]}" BUILD="$HOST_BUILD" ARM64_SYSROOT="$sysroot" \
		arm64-build >"$log" 2>&1; then
		grep -E -B2 -A6 'error|warning|\*\*\*' "$log" | tail -n 60 >&2
		die "the arm64 userland build failed (log: $log)"
	fi
}

main() {
	local names='' dir root kver out start=$SECONDS t vm_rc=0 f
	while [[ $# -gt 0 ]]; do
		case $1 in
		--selftests) names=${2?}; shift 2 ;;
		*) usage ;;
		esac
	done
	mkdir -p "$KAV_BUILD"
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "no aarch64-linux-gnu-gcc (scripts/deps.sh: gcc-aarch64-linux-gnu)"

	t=$SECONDS
	dir=$("$ARM64_HERE/sysroot.sh") || die "no arm64 sysroot (lanes/arm64/sysroot.sh)"
	root=$dir/root
	kver=$(cat "$dir/kver")
	out=$VMDIR/$kver
	note "arm64 sysroot $dir ($kver) in $((SECONDS - t))s"

	t=$SECONDS
	make_userland "$root"
	note "arm64 userland built in $((SECONDS - t))s"

	local -a bins=()
	if [[ -z $names ]]; then
		for f in "$KAV_BUILD"/selftests/kav_*_test; do
			bins+=("$f")
		done
	else
		for f in $names; do
			[[ -x $KAV_BUILD/selftests/$f ]] || die "no arm64 build of $f"
			bins+=("$KAV_BUILD/selftests/$f")
		done
	fi

	t=$SECONDS
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		"$ARM64_REPO/lanes/vm/build-kmod.sh" "$kver" "$out" \
		"$root/usr/src/linux-headers-$kver" ||
		die "kav.ko: the arm64 build failed"
	note "arm64 kav.ko and kav_nic.ko built in $((SECONDS - t))s"

	# /tests also holds what the other programs use, so that any of them
	# can run (ARM64_TESTS): kavctl, kav-av-fill, the hook, the test
	# NIC, the Slurm scripts.
	local extra
	extra="$out/tests/doubles/nic/kav_nic.ko $KAV_BUILD/tools/kavctl/kavctl"
	extra+=" $KAV_BUILD/tools/instant/kav-av-fill $KAV_BUILD/prov/libkav-fi.so"
	for f in "$ARM64_REPO"/tools/slurm/kav-slurm-*; do
		[[ ! -f $f ]] || extra+=" $f"
	done
	KAV_SYSROOT=$root KAV_BUSYBOX=$root/bin/busybox KAV_RESULTS_PORT=/dev/hvc0 \
		"$ARM64_REPO/lanes/vm/mkinitramfs.sh" "$out/initramfs.cpio.gz" \
		--module "$out/kmod/kav.ko" --bins "${bins[*]}" --extra "$extra" ||
		die "the arm64 initramfs failed"

	note "booting $kver under qemu-system-aarch64 (TCG; guest timeout ${KAV_VM_TIMEOUT:-1500}s)"
	if [[ -n ${KAV_VM_LOCK:-} ]]; then
		exec 8>"$KAV_VM_LOCK"
		flock 8
	fi
	t=$SECONDS
	"$ARM64_REPO/lanes/vm/run-vm.sh" --arch arm64 --kernel "$kver" \
		--boot "$root/boot" --initramfs "$out/initramfs.cpio.gz" \
		--out "$out" 8>&- || vm_rc=$?
	[[ -z ${KAV_VM_LOCK:-} ]] || exec 8>&-

	# One job, as lanes/vm/vm.sh's run_jobs leaves it.
	rm -rf "$JOBS"
	mkdir -p "$JOBS"
	echo "$kver" >"$JOBS/0.kver"
	echo "ran $vm_rc $((SECONDS - t))" >"$JOBS/0.status"
	# The virtio console resets its termios on each last close (guest-init's
	# "stty raw" is lost): its lines end in CR LF.
	[[ ! -f $out/results.log ]] || sed -i 's/\r$//' "$out/results.log"
	collect_kernel 0 "${bins[@]}"
	note "arm64 lane: $((SECONDS - start))s in all"
	summary
	[[ $FAILED == 0 ]]
}

main "$@"
