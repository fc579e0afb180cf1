#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh [--kernels "6.1 6.12 trixie:6.12 trixie:7.3"]
#
# Print, one per line, the kernel release to test for each requested series:
# the newest Debian amd64 release that has both /boot/vmlinuz-$kver and a
# build tree /lib/modules/$kver/build (6.1.0-NN-amd64, 6.12.NN+deb12-amd64,
# 6.12.NN+deb13-amd64, 7.3.N+bpo-amd64). An entry may also be an exact
# release (e.g. 6.12.117+deb12-amd64). "SERIES-rt" (e.g. "6.12-rt") is
# the series' PREEMPT_RT flavour (6.12.NN+deb12-rt-amd64,
# linux-image-6.12-rt-amd64).
#
# "trixie:SERIES" takes the kernel from the trixie root instead of the host
# (lanes/trixie/root.sh builds it if this machine has none; its /boot and
# /lib/modules): its line is "KVER ROOT", the root's path after the
# release, so the caller builds kav.ko inside ROOT (the kernel's kbuild
# tools need trixie's glibc and gcc) and boots ROOT/boot/vmlinuz-KVER.
# Host kernels print the release alone. Nothing of a root is installed
# into the host.
# "debug" and "kcsan" (vm.sh's debug kernels) are left out, and so is
# "trixie:*" when KAV_TRIXIE=0. Fails if a series has no usable kernel.
#
# Env: KAV_KERNELS  default for --kernels ("6.1 6.12": the host's)
#      KAV_TRIXIE   0: leave out the trixie root's kernels
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# Where usable() and newest_of_series() look: the host's, or a root's.
BOOT=/boot MODULES=/lib/modules

die() { echo "kernels.sh: $*" >&2; exit 1; }

usable() {
	[[ -f $BOOT/vmlinuz-$1 && -d $MODULES/$1/build ]]
}

# Newest usable release of a series such as "6.1" or "6.12". The regex
# keeps the generic amd64 flavour (no -cloud-, -rt-) and keeps "6.1" from
# matching "6.12"; "6.12-rt" keeps the PREEMPT_RT flavour only.
newest_of_series() {
	local series=$1 flavour=amd64 img kver re
	if [[ $series == *-rt ]]; then
		series=${series%-rt} flavour=rt-amd64
	fi
	re="^${series//./\\.}\\.[0-9]+(-[0-9]+)?(\\+(deb[0-9]+|bpo))?-$flavour\$"
	for img in "$BOOT"/vmlinuz-"$series".*; do
		kver=${img#"$BOOT"/vmlinuz-}
		if [[ $kver =~ $re ]] && usable "$kver"; then
			echo "$kver"
		fi
	done | sort -V | tail -n 1
}

main() {
	local kernels=${KAV_KERNELS:-6.1 6.12} k kver root
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernels) kernels=${2:?--kernels needs a value}; shift 2 ;;
		*) die "usage: kernels.sh [--kernels \"6.1 6.12 trixie:6.12 trixie:7.3\"]" ;;
		esac
	done
	for k in $kernels; do
		root=''
		case $k in
		debug | kcsan) continue ;;
		trixie:*)
			[[ ${KAV_TRIXIE:-1} != 0 ]] || continue
			root=$("$HERE/../trixie/root.sh") ||
				die "no trixie root for '$k' (lanes/trixie/root.sh)"
			k=${k#trixie:}
			;;
		*:*) die "unknown root in '$k' (trixie:SERIES)" ;;
		esac
		BOOT=$root/boot MODULES=$root/lib/modules
		if usable "$k"; then
			kver=$k
		else
			kver=$(newest_of_series "$k")
		fi
		[[ -n $kver ]] || die "no kernel for '$k' with both $BOOT/vmlinuz-* and $MODULES/*/build (run scripts/deps.sh)"
		echo "$kver${root:+ $root}"
	done
}

main "$@"
