#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# root.sh --suite SUITE --cache NAME --packages FILE [--check CMD]
#         [--print-key]
#
# Build, or find in the cache, a Debian root file system of SUITE and
# print its path: the one root builder of the lanes (lanes/trixie/root.sh:
# trixie, the build environment of libfabric 2.1 and the trixie kernels,
# and the guests' and cluster nodes' userland; lanes/lint/herd-root.sh:
# sid, for herd7). Nothing from SUITE is installed into the host.
#
# debootstrap (minbase) from the archive the host's apt uses
# (scripts/debian-archive.sh; no archive host name in the tree), then the
# packages of FILE ("#" starts a comment; "suite/pkg" takes pkg from that
# suite, e.g. trixie-backports) with apt inside the root, with no daemon
# started (policy-rc.d). CMD, if given, must then run in the root. The
# root's apt reads SUITE, and SUITE-backports unless SUITE is sid; it
# accepts a Release past its Valid-Until (a mirror or snapshot of the
# archive may be older than sid's week, and it is still signed).
#
# The root is cached per machine in $KAV_CACHE/NAME/<key>/, the key hashing
# RECIPE and FILE's package list (not its comments): editing either builds
# a new root. Concurrent callers wait on one lock; roots of other keys
# unused for 14 days are removed (lanes/lib/cache-lib.sh).
#
# Env: KAV_CACHE  cache root (/var/cache/kav)
#      KAV_DEBIAN_ARCHIVE  see scripts/debian-archive.sh
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lanes/lib/cache-lib.sh
. "$HERE/cache-lib.sh"
STAMP=.kav-root-built
# Bump when the build steps below change in a way that changes the root.
RECIPE=1
SUITE='' NAME='' PACKAGES='' CHECK=''

die() { echo "root.sh: $*" >&2; exit 1; }
note() { echo "root.sh: $*" >&2; }

# The key: the recipe and the package list (its comments may change).
cache_key() {
	echo "$SUITE-$({ echo "recipe $RECIPE"; packages; } |
		sha256sum | cut -c1-16)"
}

# The package list without comments, one word per line.
packages() {
	sed 's/#.*//' "$PACKAGES" | tr -s ' \t' '\n' | sed '/^$/d'
}

# in_root ROOT CMD...: CMD chrooted in ROOT (/proc, /sys, /dev).
in_root() {
	local root=$1
	shift
	"$HERE/chroot.sh" --root "$root" --bind "$HERE" -- "$@"
}

sources() {
	local archive=$1 suites=$SUITE
	[[ $SUITE == sid ]] || suites+=" $SUITE-backports"
	cat <<-SOURCES
	Types: deb
	URIs: $archive
	Suites: $suites
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
}

build() {
	local root=$1 log=$1.log archive start=$SECONDS p
	local -a plain=() suites=()
	archive=$("$REPO/scripts/debian-archive.sh")
	note "building the $SUITE root in $root from $archive (5-10 min; log: $log)"
	rm -rf "$root"
	: >"$log"
	command -v debootstrap >/dev/null || die "needs debootstrap (scripts/deps.sh)"
	if ! debootstrap --variant=minbase "$SUITE" "$root" "$archive" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "debootstrap failed (log: $log)"
	fi
	rm -f "$root/etc/apt/sources.list"
	sources "$archive" >"$root/etc/apt/sources.list.d/debian.sources"
	echo 'Acquire::Check-Valid-Until "false";' \
		>"$root/etc/apt/apt.conf.d/99kav-valid-until"
	# No service starts inside the root (munge, slurm, ...).
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	while read -r p; do
		if [[ $p == */* ]]; then
			suites+=("$p")
		else
			plain+=("$p")
		fi
	done < <(packages)
	{
		in_root "$root" apt-get update -q &&
		in_root "$root" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends "${plain[@]}" &&
		# Keep the versioned kernel packages when the suite-pinned meta
		# packages (trixie-backports' kernel) replace their dependency.
		in_root "$root" sh -c 'dpkg-query -W -f="\${Package}\n" |
			grep -E "^linux-(image|headers|kbuild)-[0-9]" |
			xargs -r apt-mark manual'
	} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "installing packages failed (log: $log)"; }
	for p in "${suites[@]}"; do
		in_root "$root" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends \
			-t "${p%%/*}" "${p#*/}" >>"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; die "installing $p failed (log: $log)"; }
	done
	in_root "$root" apt-get clean >>"$log" 2>&1
	if [[ -n $CHECK ]]; then
		# shellcheck disable=SC2086 # CHECK is a command line
		in_root "$root" $CHECK >>"$log" 2>&1 || die "'$CHECK' does not run in $root (log: $log)"
	fi
	date -u +%FT%TZ >"$root/$STAMP"
	note "built in $((SECONDS - start)) s"
}

usage() {
	die "usage: root.sh --suite SUITE --cache NAME --packages FILE [--check CMD] [--print-key]"
}

main() {
	local key_only=0
	while [[ $# -gt 0 ]]; do
		case $1 in
		--suite) SUITE=${2:?}; shift 2 ;;
		--cache) NAME=${2:?}; shift 2 ;;
		--packages) PACKAGES=${2:?}; shift 2 ;;
		--check) CHECK=${2:?}; shift 2 ;;
		--print-key) key_only=1; shift ;;
		*) usage ;;
		esac
	done
	[[ -n $SUITE && -n $NAME && -f $PACKAGES ]] || usage
	if [[ $key_only == 1 ]]; then
		cache_key
		return
	fi
	[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot)"
	cache_get "${KAV_CACHE:-/var/cache/kav}/$NAME" "$(cache_key)" "$STAMP" build
}

main "$@"
