#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# chroot.sh --root DIR [--bind DIR]... [--] CMD [ARG...]
#
# Run CMD chrooted in the root file system DIR (one that lanes/lib/root.sh
# built; lanes/trixie/run.sh names the trixie root), as root, in a private
# mount namespace that ends with CMD:
# /proc, /sys and /dev from the host, a fresh /tmp, and each --bind DIR
# (default: this repository) at the same path, so that paths under it mean
# the same inside. CMD runs in the current directory when that is under a
# bound directory, else in /. The root itself is not changed but for the
# (empty) mount points. Exit status: CMD's.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

die() { echo "chroot.sh: $*" >&2; exit 1; }

main() {
	local root='' cwd=/ b
	local -a binds=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--root) root=${2:?}; shift 2 ;;
		--bind) binds+=("$(cd "${2:?}" && pwd)"); shift 2 ;;
		--) shift; break ;;
		-*) die "usage: chroot.sh --root DIR [--bind DIR]... [--] CMD [ARG...]" ;;
		*) break ;;
		esac
	done
	[[ $# -gt 0 ]] || die "no command"
	[[ ${#binds[@]} -gt 0 ]] || binds=("$REPO")
	[[ -n $root ]] || die "no --root"
	[[ -d $root/usr ]] || die "$root is not a root file system"
	for b in "${binds[@]}"; do
		[[ $PWD != "$b" && $PWD != "$b"/* ]] || cwd=$PWD
	done
	unshare --mount --propagation private /bin/bash -c '
		set -e
		root=$1 cwd=$2 nbinds=$3
		shift 3
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
		# After the tmpfs: a clone under /tmp gets its mount point there.
		while [ "$nbinds" -gt 0 ]; do
			mkdir -p "$root$1"
			mount --bind "$1" "$root$1"
			shift
			nbinds=$((nbinds - 1))
		done
		exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
	' chroot.sh "$root" "$cwd" "${#binds[@]}" "${binds[@]}" "$@"
}

main "$@"
