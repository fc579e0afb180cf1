#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pkg.sh DEBDIR TRIXIEDIR: the packaging lane (make pkgcheck). On the
# host: lintian on the source and every package of DEBDIR (make deb; no
# E:, W: or I:) and debian/copyright against the SPDX tags; DKMS builds
# kav.ko for 6.1 and 6.12 in a private tree and refuses older kernels; the
# packages are installed, used and purged; version N is upgraded to N+1
# (rebuilt by make-deb.sh --version) and purged. Then the same in the
# trixie root, from a copy of the tree in TRIXIEDIR (trixie-check.sh).
# Each step prints TAP; the lane stops at the first step that fails.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
[[ $# -eq 2 ]] || { echo "usage: pkg.sh DEBDIR TRIXIEDIR" >&2; exit 2; }
deb=$1 trixie=$2

"$HERE/lintian-check.sh" "$deb"
"$HERE/dkms-check.sh"
files=$(mktemp)
trap 'rm -f "$files"' EXIT
# N installed once: DKMS builds it once per kernel for both checks.
"$HERE/deb-check.sh" --keep "$files" "$deb"
"$HERE/upgrade-check.sh" --installed "$files" "$deb"
"$HERE/trixie-check.sh" "$trixie"
