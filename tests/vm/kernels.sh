#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh [--kernels "6.1 6.12"]
#
# Print, one per line, the kernel release to test for each requested series:
# the newest Debian amd64 release that has both /boot/vmlinuz-$kver and a
# build tree /lib/modules/$kver/build (6.1.0-NN-amd64, 6.12.NN+deb12-amd64).
# An entry may also be an exact release (e.g. 6.12.117+deb12-amd64).
# Fails if a series has no usable kernel.
#
# Env: KAV_KERNELS  default for --kernels
set -euo pipefail

BOOT=${KAV_BOOT_DIR:-/boot}
MODULES=${KAV_MODULES_DIR:-/lib/modules}

die() { echo "kernels.sh: $*" >&2; exit 1; }

usable() {
	[[ -f $BOOT/vmlinuz-$1 && -d $MODULES/$1/build ]]
}

# Newest usable release of a series such as "6.1" or "6.12". The regex
# keeps the generic amd64 flavour (no -cloud-, -rt-) and keeps "6.1" from
# matching "6.12".
newest_of_series() {
	local series=$1 img kver re
	re="^${series//./\\.}\\.[0-9]+(-[0-9]+)?(\\+deb[0-9]+)?-amd64\$"
	for img in "$BOOT"/vmlinuz-"$series".*; do
		kver=${img#"$BOOT"/vmlinuz-}
		if [[ $kver =~ $re ]] && usable "$kver"; then
			echo "$kver"
		fi
	done | sort -V | tail -n 1
}

main() {
	local kernels=${KAV_KERNELS:-6.1 6.12} k kver
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernels) kernels=${2:?--kernels needs a value}; shift 2 ;;
		*) die "usage: kernels.sh [--kernels \"6.1 6.12\"]" ;;
		esac
	done
	for k in $kernels; do
		if usable "$k"; then
			kver=$k
		else
			kver=$(newest_of_series "$k")
		fi
		[[ -n $kver ]] || die "no kernel for '$k' with both $BOOT/vmlinuz-* and $MODULES/*/build (run scripts/deps.sh)"
		echo "$kver"
	done
}

main "$@"
