#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# herd-root.sh [--print-key]
#
# Build, or find in the cache, a minimal Debian sid root holding herdtools7
# (herd7 and its memory models: only sid packages it) and print its path.
# lanes/lint/litmus.sh runs herd7 chrooted in it. Nothing from sid is
# installed into the host.
#
# debootstrap (minbase) from the archive the host's apt uses
# (scripts/debian-archive.sh; no archive host name in the tree), then the
# packages of PACKAGES below with apt inside the root. Cached per machine
# in $KAV_CACHE/sid-herd/<key>/, the key hashing RECIPE and PACKAGES:
# editing either builds a new root. Concurrent callers wait on one lock
# (lanes/lib/cache-lib.sh, as lanes/trixie/root.sh); roots of other keys
# unused for 14 days are removed.
#
# Env: KAV_CACHE  cache root (/var/cache/kav)
#      KAV_DEBIAN_ARCHIVE  see scripts/debian-archive.sh
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lanes/lib/cache-lib.sh
. "$REPO/lanes/lib/cache-lib.sh"
CACHE=${KAV_CACHE:-/var/cache/kav}/sid-herd
SUITE=sid
STAMP=.kav-root-built
# Bump when the build steps below change in a way that changes the root.
RECIPE=1
# What the root holds beyond minbase.
PACKAGES=(herdtools7)

die() { echo "herd-root.sh: $*" >&2; exit 1; }
note() { echo "herd-root.sh: $*" >&2; }

cache_key() {
	echo "$SUITE-$({ echo "recipe $RECIPE"; printf '%s\n' "${PACKAGES[@]}"; } |
		sha256sum | cut -c1-16)"
}

# in_root ROOT CMD...: CMD chrooted in ROOT (lanes/trixie/run.sh).
in_root() {
	local root=$1
	shift
	"$REPO/lanes/trixie/run.sh" --root "$root" --bind "$HERE" -- "$@"
}

build() {
	local root=$1 log=$1.log archive start=$SECONDS
	archive=$("$REPO/scripts/debian-archive.sh")
	note "building the $SUITE root for herd7 in $root from $archive (log: $log)"
	rm -rf "$root"
	: >"$log"
	command -v debootstrap >/dev/null || die "needs debootstrap (scripts/deps.sh)"
	if ! debootstrap --variant=minbase "$SUITE" "$root" "$archive" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "debootstrap failed (log: $log)"
	fi
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<-SOURCES
	Types: deb
	URIs: $archive
	Suites: $SUITE
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
	# sid's Release carries a Valid-Until (a week); a mirror or snapshot
	# of the archive may be older than that, and it is still signed.
	echo 'Acquire::Check-Valid-Until "false";' \
		>"$root/etc/apt/apt.conf.d/99kav-valid-until"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	{
		in_root "$root" apt-get update -q &&
		in_root "$root" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" &&
		in_root "$root" apt-get clean
	} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "installing ${PACKAGES[*]} failed (log: $log)"; }
	in_root "$root" herd7 -version >>"$log" 2>&1 || die "herd7 does not run in $root (log: $log)"
	date -u +%FT%TZ >"$root/$STAMP"
	note "built in $((SECONDS - start)) s: $(in_root "$root" herd7 -version 2>&1 | head -n 1)"
}

main() {
	case ${1:-} in
	'') ;;
	--print-key) cache_key; return ;;
	*) die "usage: herd-root.sh [--print-key]" ;;
	esac
	[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot)"
	cache_get "$CACHE" "$(cache_key)" "$STAMP" build
}

main "$@"
