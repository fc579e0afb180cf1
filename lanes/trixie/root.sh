#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# root.sh [--print-key]
#
# Build, or find in the cache, a Debian trixie root file system for the
# tests and print its path. It is the build environment for libfabric 2.1
# and the trixie kernels (6.12, and 7.x from trixie-backports, whose kbuild
# tools need trixie's glibc and gcc-14), and the userland of the guests that
# need trixie (over 9p). Nothing from trixie is installed into the host.
#
# debootstrap (minbase) from the archive the host's apt uses
# (scripts/debian-archive.sh), then the packages of lanes/trixie/packages
# with apt inside the root ("suite/pkg" from that suite), with no daemon
# started (policy-rc.d). The root is cached per machine in
# $KAV_CACHE/trixie-root/<key>/, the key hashing RECIPE and the package
# list: editing either builds a new root. Concurrent callers wait on one
# lock. Roots of other keys unused for 14 days are removed
# (lanes/lib/cache-lib.sh).
#
# Env: KAV_CACHE  cache root (/var/cache/kav)
#      KAV_DEBIAN_ARCHIVE  see scripts/debian-archive.sh
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=lanes/lib/cache-lib.sh
. "$REPO/lanes/lib/cache-lib.sh"
CACHE=${KAV_CACHE:-/var/cache/kav}/trixie-root
SUITE=trixie
STAMP=.kav-root-built
# Bump when the build steps below change in a way that changes the root.
RECIPE=1

die() { echo "root.sh: $*" >&2; exit 1; }
note() { echo "root.sh: $*" >&2; }

# The key: the recipe and the package list (its comments may change).
cache_key() {
	echo "$SUITE-$({ echo "recipe $RECIPE"; packages; } |
		sha256sum | cut -c1-16)"
}

# The package list without comments, one word per line.
packages() {
	sed 's/#.*//' "$HERE/packages" | tr -s ' \t' '\n' | sed '/^$/d'
}

# in_root ROOT CMD...: CMD chrooted in ROOT (run.sh: /proc, /sys, /dev).
in_root() {
	local root=$1
	shift
	"$HERE/run.sh" --root "$root" --bind "$HERE" -- "$@"
}

build() {
	local root=$1 log=$1.log archive start=$SECONDS
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
	# The root's apt reads the same archive: trixie and trixie-backports.
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<-SOURCES
	Types: deb
	URIs: $archive
	Suites: $SUITE $SUITE-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
	# No service starts inside the root (munge, slurm, ...).
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	local p
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
	date -u +%FT%TZ >"$root/$STAMP"
	note "built in $((SECONDS - start)) s: $(ls "$root"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | tr '\n' ' ')"
}

main() {
	case ${1:-} in
	'') ;;
	--print-key) cache_key; return ;;
	*) die "usage: root.sh [--print-key]" ;;
	esac
	[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot)"
	cache_get "$CACHE" "$(cache_key)" "$STAMP" build
}

main "$@"
