#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-archive.sh [--security]
#
# Print the URI of the Debian archive this machine's apt already uses (for
# its own release, e.g. bookworm), as apt reports it: apt-get indextargets.
# Roots of other releases (lanes/trixie/root.sh) and source downloads
# (lanes/hook/sources.sh) come from the same archive, so no archive host
# name is ever written into the tree. --security: the security archive
# (the one serving <codename>-security) instead.
#
# Env: KAV_DEBIAN_ARCHIVE  use this URI instead (e.g. a local mirror)
set -euo pipefail

die() { echo "debian-archive.sh: $*" >&2; exit 1; }

main() {
	local suffix='' codename uri
	case ${1:-} in
	'') ;;
	--security) suffix=-security ;;
	*) die "usage: debian-archive.sh [--security]" ;;
	esac
	if [[ -n ${KAV_DEBIAN_ARCHIVE:-} && -z $suffix ]]; then
		echo "${KAV_DEBIAN_ARCHIVE%/}"
		return
	fi
	# shellcheck disable=SC1091 # the host's own file
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ -n $codename ]] || die "no VERSION_CODENAME in /etc/os-release"
	command -v apt-get >/dev/null || die "needs apt-get"
	# One line per index target: the repository's URI and its suite.
	# shellcheck disable=SC2016 # apt's own $(...) placeholders
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v s="$codename$suffix" '$2 == s { print $1; exit }')
	[[ -n $uri ]] || die "apt has no source for '$codename$suffix' (apt-get update; /etc/apt/sources.list*)"
	echo "${uri%/}"
}

main "$@"
