#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kmod.sh [--root ROOT] KVER OUTDIR [KDIR]
#
# Build kav.ko for kernel release KVER out of tree: copy kmod/ and uapi/
# (sources only, keeping the kmod/../uapi relationship the Kbuild relies on)
# into OUTDIR, then run kbuild with W=1 against /lib/modules/KVER/build, or
# against the kernel build tree KDIR (the debug kernel, debug-kernel.sh).
# Any "warning:" in the build output (compiler or modpost) fails the build.
# Result: OUTDIR/kmod/kav.ko. Full log: OUTDIR/build-kmod.log. Then the
# test NIC module the same way: OUTDIR/tests/doubles/nic/kav_nic.ko (build-nic.log).
#
# --root ROOT: KVER is a kernel of that root file system (the trixie root,
# lanes/trixie/root.sh): kbuild runs chrooted in ROOT (lanes/lib/chroot.sh,
# OUTDIR bound at its own path) against ROOT's /lib/modules/KVER/build,
# with ROOT's compiler: a 7.x kernel's kbuild tools need trixie's glibc
# and its headers gcc-14.
#
# Env: KAV_SRC  source tree holding kmod/ and uapi/ (default: this repo)
set -euo pipefail

SRC=${KAV_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}

ROOT=''

die() { echo "build-kmod.sh: $*" >&2; exit 1; }

# kmake OUTDIR ARGS...: make, on the host or chrooted in ROOT.
kmake() {
	local out=$1
	shift
	if [[ -n $ROOT ]]; then
		"$(dirname "$0")/../lib/chroot.sh" --root "$ROOT" --bind "$out" -- make "$@"
	else
		make "$@"
	fi
}

# Copy a source directory, leaving behind any in-tree build products.
copy_sources() {
	local name=$1 out=$2
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	tar -C "$SRC/$name" -cf - \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude='modules.order' --exclude='Module.symvers' \
		--exclude='.tmp_versions' --exclude='.cache.mk' . |
		tar -C "$out/$name" -xf -
}

main() {
	if [[ ${1:-} == --root ]]; then
		ROOT=${2:?--root needs a directory}
		shift 2
	fi
	[[ $# -eq 2 || $# -eq 3 ]] || die "usage: build-kmod.sh [--root ROOT] KVER OUTDIR [KDIR]"
	local kver=$1 out=$2 kdir=${3:-/lib/modules/$1/build} log
	[[ -d $ROOT$kdir ]] || die "$ROOT$kdir missing: run scripts/deps.sh"
	[[ -d $SRC/kmod && -d $SRC/uapi ]] || die "no kmod/ and uapi/ in $SRC"

	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	copy_sources kmod "$out"
	copy_sources uapi "$out"
	# kmod/Kbuild reads the release from ../VERSION (modinfo version).
	cp "$SRC/VERSION" "$out/VERSION"

	# Debian's kernels build modules with debug info; the debug kernels
	# have none (a shorter build): add it for kav, so that addr2line maps
	# the PCs of a KASAN or KCSAN report, or of kcov, to lines.
	KCFLAGS_G=''
	if grep -qs '^CONFIG_DEBUG_INFO_NONE=y' "$ROOT$kdir/.config"; then
		KCFLAGS_G=-g
	fi
	log=$out/build-kmod.log
	echo "  KBUILD  kav.ko for $kver${ROOT:+ (in $ROOT)}" >&2
	if ! kmake "$out" -C "$kdir" M="$out/kmod" W=1 ${KCFLAGS_G:+KCFLAGS=-g} \
		modules >"$log" 2>&1; then
		cat "$log" >&2
		die "build failed for $kver (log: $log)"
	fi
	if grep -qi 'warning:' "$log"; then
		grep -i -B2 -A4 'warning:' "$log" >&2
		die "build for $kver has warnings (log: $log)"
	fi
	[[ -f $out/kmod/kav.ko ]] || die "no $out/kmod/kav.ko after build"
	build_nic "$kver" "$kdir" "$out"
}

# The test NIC module (tests/doubles/nic), which uses kav's consumer API: built
# against the same kernel with kav's Module.symvers, into
# OUTDIR/tests/doubles/nic/kav_nic.ko, under the same no-warnings rule.
build_nic() {
	local kver=$1 kdir=$2 out=$3 log=$3/build-nic.log
	[[ -d $SRC/tests/doubles/nic ]] || return 0
	copy_sources tests/doubles/nic "$out"
	echo "  KBUILD  kav_nic.ko for $kver" >&2
	if ! kmake "$out" -C "$kdir" M="$out/tests/doubles/nic" W=1 ${KCFLAGS_G:+KCFLAGS=-g} \
		KBUILD_EXTRA_SYMBOLS="$out/kmod/Module.symvers" \
		modules >"$log" 2>&1; then
		cat "$log" >&2
		die "kav_nic build failed for $kver (log: $log)"
	fi
	if grep -qi 'warning:' "$log"; then
		grep -i -B2 -A4 'warning:' "$log" >&2
		die "kav_nic build for $kver has warnings (log: $log)"
	fi
	[[ -f $out/tests/doubles/nic/kav_nic.ko ]] || die "no kav_nic.ko after build"
}

main "$@"
