#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sources.sh
#
# Fetch the one source tarball the hook tests build from, MPICH 4.0.2 as
# Debian ships it (mpich_4.0.2.orig.tar.xz from Debian's pool), into a cache
# directory, and print its path. It carries MPICH (ch4:ofi, for MPI over
# libfabric) and, under modules/libfabric/, libfabric 1.13.1's fabtests:
# build-fabtests.sh and build-mpich.sh build from it, never from a copy in
# this repository. A no-op when the cached tarball's sha256 matches; a
# mismatching file is removed and fetched again. A few retries. It comes
# from the pool of the Debian archive this machine's apt already uses
# (scripts/debian-archive.sh), never from a host name written here.
#
# Env: KAV_SRC_CACHE  cache directory (default /var/cache/kav/src)
#      KAV_DEBIAN_ARCHIVE  the archive's URI (see scripts/debian-archive.sh)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${KAV_SRC_CACHE:-/var/cache/kav/src}

# From Debian's signed mpich_4.0.2-3.dsc (bookworm): the orig tarball's
# Checksums-Sha256 entry and its size.
MPICH_TARBALL=mpich_4.0.2.orig.tar.xz
MPICH_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
MPICH_SIZE=21800484
MPICH_POOL=pool/main/m/mpich

die() { echo "sources.sh: $*" >&2; exit 1; }

verified() {
	[[ -f $1 ]] &&
		[[ $(stat -c %s "$1") == "$MPICH_SIZE" ]] &&
		sha256sum "$1" | grep -q "^$MPICH_SHA256 "
}

main() {
	local dest=$CACHE/$MPICH_TARBALL try archive url
	if verified "$dest"; then
		echo "$dest"
		return
	fi
	rm -f "$dest"
	command -v curl >/dev/null || die "needs curl (run scripts/deps.sh)"
	archive=$("$HERE/../../scripts/debian-archive.sh") ||
		die "no Debian archive in apt's configuration (set KAV_DEBIAN_ARCHIVE)"
	url=$archive/$MPICH_POOL/$MPICH_TARBALL
	mkdir -p "$CACHE"
	TMP=$(mktemp "$CACHE/.$MPICH_TARBALL.XXXXXX")
	trap 'rm -f "$TMP"' EXIT
	for try in 1 2 3; do
		echo "  FETCH   $url" >&2
		if curl -fsSL --connect-timeout 20 --max-time 600 \
			-o "$TMP" "$url" && verified "$TMP"; then
			chmod 644 "$TMP"
			mv "$TMP" "$dest"
			echo "$dest"
			return
		fi
		echo "sources.sh: try $try failed (download or sha256)" >&2
		sleep $((try * 5))
	done
	die "could not fetch a verified $MPICH_TARBALL from $archive"
}

main "$@"
