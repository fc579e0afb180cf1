#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [--flavour kasan|kcsan] [--print-key]
#
# Build (once per machine) one of the small debug kernels the selftests
# also run on, and print its build tree's path. Two flavours, because
# KCSAN cannot be combined with KASAN:
#
#   kasan  (default; vm.sh's kernel "debug") KASAN, lockdep, kmemleak,
#          UBSAN, KFENCE, fault injection, KCOV: debug-kernel.config
#   kcsan  (vm.sh's kernel "kcsan") the data-race detector:
#          debug-kcsan.config
#
# Both start from debug-common.config (a bootable guest, what the tests
# use, cheap checks). The tree is cached outside the clone, in
# $KAV_DEBUG_CACHE/debug-kernel/linux-<version>-<flavour>-<hash>/, where
# <version> is the linux-source-6.12 package's and <hash> covers both
# fragments, this recipe and the compiler. A tree is used only once its
# build finished (.kav-debug-built); a cut-short build is started over.
#
# Recipe, from Debian's /usr/src/linux-source-6.12.tar.xz:
#   make ARCH=x86_64 tinyconfig
#   make ARCH=x86_64 kvm_guest.config kav_common.config kav_<flavour>.config
#   check that every option of both fragments made it into .config
#   nice -n 10 make ARCH=x86_64 LOCALVERSION=-kav<debug|kcsan> -j$(nproc)
#
# The tree then holds vmlinux (booted through its PVH entry point),
# arch/x86/boot/bzImage, .config and Module.symvers: modules build with
# "make -C <tree> M=<dir>". About 7-8 minutes on 2 idle cores for either
# flavour (more while other builds run), under nice so other builds on
# the machine keep their share; ~2 GB of disk each.
#
# Concurrent callers (several clones running make check, or both flavours)
# wait on one lock instead of building at the same time. Trees of other
# keys unused for 14 days are removed after a successful build.
#
# --print-key: print the cache key (the tree's directory name) and exit.
#
# Env: KAV_DEBUG_CACHE   cache root (/var/cache/kav)
#      KAV_LINUX_SOURCE  tarball (/usr/src/linux-source-6.12.tar.xz)
#      KAV_JOBS          make -j (nproc)
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lanes/lib/cache-lib.sh
. "$HERE/../../lanes/lib/cache-lib.sh"
CACHE=${KAV_DEBUG_CACHE:-/var/cache/kav}/debug-kernel
TARBALL=${KAV_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
COMMON=$HERE/debug-common.config
JOBS=${KAV_JOBS:-$(nproc)}
# Set by main() from --flavour: the flavour's fragment and release suffix.
FLAVOUR=kasan FRAGMENT='' LOCALVERSION=''
# Bump when the build steps below change in a way that changes the result.
RECIPE=2
STAMP=.kav-debug-built

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
note() { echo "debug-kernel.sh: $*" >&2; }

# The source's version: the package's, else the tarball's size and mtime.
source_version() {
	local v
	v=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	[[ -n $v ]] || v=$(stat -c '%s-%Y' "$TARBALL")
	echo "${v//[^A-Za-z0-9.+-]/_}"
}

cache_key() {
	local hash
	hash=$({
		echo "recipe $RECIPE arch x86_64 localversion $LOCALVERSION"
		cc --version | head -n 1
		cat "$COMMON" "$FRAGMENT"
	} | sha256sum | cut -c1-16)
	echo "linux-$(source_version)-$FLAVOUR-$hash"
}

# verify_config TREE FRAGMENT: every "CONFIG_X=v" and "# CONFIG_X is not
# set" of the fragment must be in the final .config, or Kconfig dropped
# it (a missing dependency, or the other fragment overrode it).
verify_config() {
	local tree=$1 fragment=$2 line bad=0 opt
	while IFS= read -r line; do
		if [[ $line =~ ^CONFIG_[A-Z0-9_]+= ]]; then
			grep -qxF "$line" "$tree/.config" || {
				note "not in .config: $line ($(grep -E "^(# )?${line%%=*}[= ]" "$tree/.config" || echo unset))"
				bad=1
			}
		elif [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
			opt=${BASH_REMATCH[1]}
			if grep -q "^$opt=" "$tree/.config"; then
				note "set in .config but wanted off: $(grep "^$opt=" "$tree/.config")"
				bad=1
			fi
		fi
	done <"$fragment"
	return "$bad"
}

kmake() {
	local tree=$1
	shift
	nice -n 10 make -C "$tree" ARCH=x86_64 LOCALVERSION="$LOCALVERSION" "$@"
}

build() {
	local tree=$1 log=$1.log start=$SECONDS
	note "building the $FLAVOUR debug kernel in $tree (nice, -j$JOBS, 7-20 min on 2 cores; log: $log)"
	rm -rf "$tree"
	mkdir -p "$tree"
	: >"$log"
	nice -n 10 tar -xJf "$TARBALL" -C "$tree" --strip-components=1 ||
		die "cannot extract $TARBALL"
	cp "$COMMON" "$tree/kernel/configs/kav_common.config"
	cp "$FRAGMENT" "$tree/kernel/configs/kav_$FLAVOUR.config"
	if ! { kmake "$tree" tinyconfig &&
	       kmake "$tree" kvm_guest.config kav_common.config \
			"kav_$FLAVOUR.config"; } >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "configuration failed (log: $log)"
	fi
	local ok=1
	verify_config "$tree" "$COMMON" || ok=0
	verify_config "$tree" "$FRAGMENT" || ok=0
	[[ $ok == 1 ]] || die "the fragments do not apply (see above)"
	if ! kmake "$tree" -j"$JOBS" all >>"$log" 2>&1; then
		grep -E -A5 'error|Error' "$log" | head -n 60 >&2
		die "kernel build failed (log: $log)"
	fi
	[[ -s $tree/vmlinux && -s $tree/arch/x86/boot/bzImage && -s $tree/Module.symvers ]] ||
		die "build finished without vmlinux, bzImage or Module.symvers"
	kmake "$tree" -s kernelrelease >"$tree/$STAMP"
	note "built $(cat "$tree/$STAMP") in $((SECONDS - start)) s"
}

main() {
	local key print_key=0
	while [[ $# -gt 0 ]]; do
		case $1 in
		--print-key) print_key=1; shift ;;
		--flavour) FLAVOUR=${2:-}; shift 2 || shift ;;
		*) die "usage: debug-kernel.sh [--flavour kasan|kcsan] [--print-key]" ;;
		esac
	done
	case $FLAVOUR in
	kasan) FRAGMENT=$HERE/debug-kernel.config LOCALVERSION=-kavdebug ;;
	kcsan) FRAGMENT=$HERE/debug-kcsan.config LOCALVERSION=-kavkcsan ;;
	*) die "unknown flavour '$FLAVOUR' (kasan or kcsan)" ;;
	esac
	[[ -r $TARBALL ]] || die "$TARBALL missing: run scripts/deps.sh (linux-source-6.12)"
	[[ -r $COMMON ]] || die "$COMMON missing"
	[[ -r $FRAGMENT ]] || die "$FRAGMENT missing"
	key=$(cache_key)
	if [[ $print_key == 1 ]]; then
		echo "$key"
		return
	fi
	cache_get "$CACHE" "$key" "$STAMP" build
}

main "$@"
