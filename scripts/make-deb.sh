#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-deb.sh OUTDIR: make deb. Builds kav's Debian packages (kav-dkms,
# libkav0, libkav-dev, kav-tools), unsigned, from a clean copy of the
# source (the files git knows, or the tree without build output when there
# is no git), so that nothing from a developer's build leaks in and
# dpkg-buildpackage's files land in OUTDIR, not next to the checkout.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
OUT=${1:?usage: make-deb.sh OUTDIR}
VERSION=$(cat "$REPO/VERSION")

die() { echo "make-deb.sh: $*" >&2; exit 1; }

changelog=$(cd "$REPO" && dpkg-parsechangelog -S Version)
[[ $changelog == "$VERSION" ]] ||
	die "debian/changelog says $changelog, VERSION says $VERSION"

rm -rf "$OUT"
mkdir -p "$OUT/kav-$VERSION"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$OUT/kav-$VERSION")
else
	(cd "$REPO" && tar --exclude=./build --exclude='*.o' --exclude='*.ko' \
		-cf - .) | tar -C "$OUT/kav-$VERSION" -xf -
fi
cd "$OUT/kav-$VERSION"
dpkg-buildpackage -us -uc -b >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "dpkg-buildpackage failed (log: $OUT/build.log)"; }
ls "$OUT"/*.deb
