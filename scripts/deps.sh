#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian packages kav's build and tests need.
#
# Quiet when everything is present. As root, installs what is missing
# (one "apt-get update" first); otherwise lists it and fails. Then checks
# that each kernel series tested (6.1, 6.12) has an image and a build tree
# of the same release, installing linux-headers-<kver> if the meta packages
# left them mismatched.
set -euo pipefail

PACKAGES=(
	linux-image-amd64 linux-headers-amd64		# Debian 6.1
	linux-image-6.12-amd64 linux-headers-6.12-amd64	# Debian 6.12
	linux-source-6.12	# kselftest_harness.h, checkpatch.pl
	qemu-system-x86 busybox-static cpio kmod xz-utils
	iproute2 util-linux	# the guest's /usr/bin/ip, nsenter, unshare (kav-wire's tests)
	zstd			# unpacks the 6.12 vmlinux for fast boots
	libnl-3-dev libnl-genl-3-dev libcmocka-dev libfabric-dev libsmartcols-dev
	bash-completion		# tests/unit/test_kavctl_completion.sh
	libfabric-bin		# fi_info: the hook is listed (make pkgcheck)
	netbase			# /etc/services: fabtests' fi_av_test in the guest
	slurmctld slurmd slurm-client munge	# lanes/slurm: a real Slurm in the VM
	sparse pkg-config gcc make
	# the debug kernel (lanes/vm/debug-kernel.sh) builds from linux-source
	bc bison flex libelf-dev libssl-dev python3 perl
	cppcheck clang-tidy shellcheck	# make lint
	universal-ctags binutils	# make lint: lanes/lint/ioctl-sides.sh (ctags), layering.sh (nm)
	python3-yaml python3-jsonschema	# make lint: the kernel's YNL generator (lanes/lint/ynl-check.sh)
	valgrind		# make bench: callgrind counts the native reads
	man-db groff-base	# make lint: the man pages
	dkms dh-dkms debhelper dpkg-dev lintian	# make deb, make pkgcheck
	curl			# lanes/hook/sources.sh: Debian's MPICH orig tarball
	debootstrap		# lanes/trixie/root.sh: the trixie root
	autoconf automake libtool	# lanes/hook/build-fabtests.sh: autoreconf
	linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64	# Debian 6.12 PREEMPT_RT (VM_KERNELS 6.12-rt)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross	# make lint: lanes/lint/aarch64-codegen.sh
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-arm	# lanes/arm64: the arm64 lane
)
SERIES=(6.1 6.12)

UPDATED=0

die() { echo "deps.sh: $*" >&2; exit 1; }

installed() {
	[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) == ii* ]]
}

missing_packages() {
	local p
	for p in "$@"; do
		installed "$p" || echo "$p"
	done
}

apt_install() {
	if [[ $EUID -ne 0 ]]; then
		echo "deps.sh: missing packages: $*" >&2
		die "run as root (sudo make deps) or: apt-get install $*"
	fi
	if [[ $UPDATED == 0 ]]; then
		apt-get update -qq
		UPDATED=1
	fi
	echo "deps.sh: installing $*" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$@"
}

# Newest installed kernel image of a series, Debian's generic amd64
# flavour: 6.1.0-NN-amd64, 6.12.NN+deb12-amd64.
newest_image() {
	local series=$1 img kver re
	re="^${series//./\\.}\\.[0-9]+(-[0-9]+)?(\\+deb[0-9]+)?-amd64\$"
	for img in /boot/vmlinuz-"$series".*; do
		kver=${img#/boot/vmlinuz-}
		if [[ $kver =~ $re ]]; then
			echo "$kver"
		fi
	done | sort -V | tail -n 1
}

check_kernels() {
	local series kver
	for series in "${SERIES[@]}"; do
		kver=$(newest_image "$series")
		[[ -n $kver ]] || die "no /boot/vmlinuz-$series.*-amd64 after installing the kernel packages"
		if [[ ! -d /lib/modules/$kver/build ]]; then
			apt_install "linux-headers-$kver"
			[[ -d /lib/modules/$kver/build ]] ||
				die "/lib/modules/$kver/build still missing"
		fi
	done
}

main() {
	command -v dpkg-query >/dev/null || die "needs a Debian system (dpkg-query)"
	local -a missing
	mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
	[[ ${#missing[@]} -eq 0 ]] || apt_install "${missing[@]}"
	check_kernels
}

main "$@"
