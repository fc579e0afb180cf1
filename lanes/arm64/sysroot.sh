#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sysroot.sh [--print-key]
#
# Make, or find in the cache, the arm64 sysroot of the arm64 lane and print
# its directory DIR. Nothing arm64 is installed into the host (no foreign
# dpkg architecture): a private apt configuration (DIR/apt: its own
# sources, lists, cache and an empty status) downloads Debian bookworm's
# arm64 packages from the archives the host's apt already uses
# (scripts/debian-archive.sh, and its --security for the kernel), and
# dpkg-deb extracts them into DIR/root:
#
#   DIR/root/boot/vmlinuz-KVER        Debian's arm64 kernel (an Image)
#   DIR/root/boot/config-KVER
#   DIR/root/usr/src/linux-headers-KVER   its headers, Module.symvers and
#                                     .config: kav.ko is built against them
#   DIR/root/usr/lib/linux-kbuild-ABI the amd64 kbuild tools of the same
#                                     release (fixdep, modpost run here)
#   DIR/root/usr/include, usr/lib/aarch64-linux-gnu, lib/...
#                                     libc, libfabric 1.17, libnl-3,
#                                     libsmartcols: --sysroot for gcc
#   DIR/root/bin/busybox              busybox-static, the guest's shell
#   DIR/kver                          KVER (6.12.N+deb12-arm64)
#   DIR/packages.txt                  every package and version extracted
#
# The kernel is the arm64 build of the host's newest 6.12 (the amd64
# release 6.12.N+deb12-amd64 gives 6.12.N+deb12-arm64), or, if the archive
# no longer has that one, the newest the archive has; KAV_ARM64_KVER
# picks another. The other packages are lanes/arm64/packages. Absolute
# symbolic links in the extracted files (libfoo.so -> /lib/...) are made
# relative, so that they resolve inside DIR/root; the headers' Makefile
# includes its -common directory from DIR/root. The kernel's modules are
# not extracted: the guest needs none (virtio-pci and the virtio console
# are built in).
#
# Cached per machine in $KAV_CACHE/arm64/<key>, the key hashing RECIPE,
# the package list (not its comments) and the kernel release asked for;
# concurrent callers wait on one lock; entries unused for 14 days are
# removed (lanes/lib/cache-lib.sh).
#
# Env: KAV_CACHE           cache root (/var/cache/kav)
#      KAV_ARM64_KVER      the arm64 kernel release (default: see above)
#      KAV_DEBIAN_ARCHIVE  see scripts/debian-archive.sh
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lanes/lib/cache-lib.sh
. "$REPO/lanes/lib/cache-lib.sh"
CACHE=${KAV_CACHE:-/var/cache/kav}/arm64
STAMP=.kav-arm64-built
# Bump when the build steps below change in a way that changes the result.
RECIPE=1

die() { echo "sysroot.sh: $*" >&2; exit 1; }
note() { echo "sysroot.sh: $*" >&2; }

# The package list without comments, one word per line.
packages() {
	sed 's/#.*//' "$HERE/packages" | tr -s ' \t' '\n' | sed '/^$/d'
}

# The arm64 kernel release asked for: KAV_ARM64_KVER, else the arm64 twin
# of the host's newest 6.12 (empty if the host has none: the newest then).
wanted_kver() {
	local amd64
	if [[ -n ${KAV_ARM64_KVER:-} ]]; then
		echo "$KAV_ARM64_KVER"
		return
	fi
	amd64=$("$REPO/lanes/vm/kernels.sh" --kernels 6.12 2>/dev/null) || amd64=''
	[[ $amd64 == *-amd64 ]] && echo "${amd64%-amd64}-arm64"
	return 0
}

cache_key() {
	echo "bookworm-$({ echo "recipe $RECIPE"; echo "kernel $(wanted_kver)"
		packages; } | sha256sum | cut -c1-16)"
}

# apt with DIR/apt's private configuration: arm64 (and amd64, for the
# kbuild tools), the host's archives, nothing of the host's dpkg state.
papt() {
	local tool=$1
	shift
	"$tool" -o APT::Architecture=arm64 \
		-o APT::Architectures::=arm64 -o APT::Architectures::=amd64 \
		-o Dir::State="$APTDIR/state" \
		-o Dir::State::status="$APTDIR/state/status" \
		-o Dir::Cache="$APTDIR/cache" \
		-o Dir::Etc::sourcelist="$APTDIR/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::Etc::preferences="$APTDIR/preferences" \
		-o Dir::Etc::preferencesparts=- \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		"$@"
}

apt_setup() {
	local archive security opts
	archive=$("$REPO/scripts/debian-archive.sh")
	security=$("$REPO/scripts/debian-archive.sh" --security)
	opts='[arch=arm64,amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
	mkdir -p "$APTDIR"/{state/lists/partial,cache/archives/partial}
	: >"$APTDIR/state/status"
	: >"$APTDIR/preferences"
	cat >"$APTDIR/sources.list" <<-SOURCES
	deb $opts $archive bookworm main
	deb $opts $archive bookworm-updates main
	deb $opts $security bookworm-security main
	SOURCES
	note "apt (arm64) from $archive and $security"
	papt apt-get update -q >>"$LOG" 2>&1 ||
		{ tail -n 20 "$LOG" >&2; die "apt-get update failed (log: $LOG)"; }
}

# has_package NAME: the private archive lists NAME.
has_package() {
	[[ -n $(papt apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Package: //p') ]]
}

# The kernel to take: the one asked for, else the newest 6.12 the
# archive has (the meta package's dependency).
pick_kver() {
	local want kver
	want=$(wanted_kver)
	if [[ -n $want ]] && has_package "linux-image-$want"; then
		echo "$want"
		return
	fi
	kver=$(papt apt-cache depends linux-image-6.12-arm64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(6\.12\.[^ ]*-arm64\)\(-unsigned\)\?$/\1/p' |
		sort -V | tail -n 1)
	[[ -n $kver ]] || die "the archive has no arm64 6.12 kernel (linux-image-6.12-arm64)"
	note "linux-image-${want:-?} is not in the archive: taking $kver"
	echo "$kver"
}

# Absolute symbolic links under ROOT point into ROOT, relatively.
relative_links() {
	local root=$1 link target
	while IFS= read -r -d '' link; do
		target=$(readlink "$link")
		[[ $target == /* ]] || continue
		ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
	done < <(find "$root" -type l -print0)
}

extract() {
	local root=$1 deb
	for deb in "$APTDIR"/debs/*.deb; do
		dpkg-deb -f "$deb" Package Version Architecture | paste -sd' ' \
			>>"${root%/root}/packages.txt"
		# The kernel's modules stay out: the guest loads none.
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$root" --exclude='./lib/modules/*/kernel' ||
			die "cannot extract $deb"
	done
}

build() {
	local dir=$1 start=$SECONDS kver abi root=$1/root hdr
	LOG=$dir.log APTDIR=$dir/apt
	command -v dpkg-deb >/dev/null || die "needs dpkg-deb"
	rm -rf "$dir"
	mkdir -p "$dir" "$root"
	: >"$LOG"
	apt_setup
	kver=$(pick_kver)
	abi=${kver%-arm64}
	local -a pkgs
	mapfile -t pkgs < <(packages)
	pkgs+=("linux-image-$kver" "linux-headers-$kver"
	       "linux-headers-$abi-common" "linux-kbuild-$abi:amd64")
	note "downloading ${#pkgs[@]} packages for $kver (log: $LOG)"
	mkdir -p "$APTDIR/debs"
	(cd "$APTDIR/debs" && papt apt-get download -q "${pkgs[@]}") >>"$LOG" 2>&1 ||
		{ tail -n 20 "$LOG" >&2; die "apt-get download failed (log: $LOG)"; }
	extract "$root"
	relative_links "$root"
	hdr=$root/usr/src/linux-headers-$kver
	[[ -f $root/boot/vmlinuz-$kver && -f $hdr/Module.symvers ]] ||
		die "no vmlinuz or headers for $kver in $root"
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$hdr/Makefile"
	[[ -x $hdr/scripts/basic/fixdep && -x $hdr/scripts/mod/modpost ]] ||
		die "no kbuild tools under $hdr/scripts"
	[[ -x $root/bin/busybox ]] || die "no busybox in $root"
	rm -rf "$APTDIR/debs" "$APTDIR/cache"
	echo "$kver" >"$dir/kver"
	date -u +%FT%TZ >"$dir/$STAMP"
	note "made in $((SECONDS - start)) s: $kver, $(du -sh "$root" | cut -f1)"
}

main() {
	case ${1:-} in
	'') ;;
	--print-key) cache_key; return ;;
	*) die "usage: sysroot.sh [--print-key]" ;;
	esac
	cache_get "$CACHE" "$(cache_key)" "$STAMP" build
}

main "$@"
