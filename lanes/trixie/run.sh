#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--root DIR] [--bind DIR]... [--] CMD [ARG...]
#
# Run CMD chrooted in the trixie root (root.sh builds or finds it; --root
# names another): lanes/lib/chroot.sh, which says how.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

if [[ ${1:-} == --root ]]; then
	exec "$REPO/lanes/lib/chroot.sh" "$@"
fi
root=$("$HERE/root.sh")
exec "$REPO/lanes/lib/chroot.sh" --root "$root" "$@"
