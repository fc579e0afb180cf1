#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkg.sh DEBDIR TRIXIEDIR: the packaging lane (make pkgcheck). On the
# host: lintian on the source and every package of DEBDIR (make deb; no
# E:, W: or I:) and debian/copyright against the SPDX tags; DKMS builds
# kav.ko for 6.1 and 6.12 in a private tree and refuses older kernels; the
# packages are installed, used and purged; version N is upgraded to N+1
# (rebuilt by make-deb.sh --version) and purged. The same runs in the
# trixie root meanwhile, from a copy of the tree in TRIXIEDIR
# (trixie-check.sh: its own root, apt and DKMS tree, nothing shared with
# the host's), its output printed after the host's. Each step prints
# TAP; a half stops at its first step that fails.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
[[ $# -eq 2 ]] || { echo "usage: pkg.sh DEBDIR TRIXIEDIR" >&2; exit 2; }
deb=$1 trixie=$2

files=$(mktemp)
tlog=$(mktemp)
trap 'rm -f "$files" "$tlog"' EXIT
"$HERE/trixie-check.sh" "$trixie" >"$tlog" 2>&1 &
tpid=$!
rc=0
{
	"$HERE/lintian-check.sh" "$deb" &&
	"$HERE/dkms-check.sh" &&
	# N installed once: DKMS builds it once per kernel for both checks.
	"$HERE/deb-check.sh" --keep "$files" "$deb" &&
	"$HERE/upgrade-check.sh" --installed "$files" "$deb"
} || rc=$?
trc=0
wait "$tpid" || trc=$?
cat "$tlog"
((rc == 0)) || exit "$rc"
exit "$trc"
