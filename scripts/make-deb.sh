#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-deb.sh [--version V] OUTDIR: make deb. Builds kav's source package
# and its Debian packages (kav-dkms, libkav0, libkav-dev, kav-tools),
# unsigned, from a clean copy of the source (the files git knows, or the
# tree without build output when there is no git), so that nothing from a
# developer's build leaks in and dpkg-buildpackage's files land in OUTDIR,
# not next to the checkout.
#
# --version V: the copy becomes release V (its VERSION file and a new
# debian/changelog entry), for lanes/pkg/upgrade-check.sh's version N+1.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
NEWVERSION=''
if [[ ${1:-} == --version ]]; then
	NEWVERSION=${2:?usage: make-deb.sh [--version V] OUTDIR}
	shift 2
fi
OUT=${1:?usage: make-deb.sh [--version V] OUTDIR}
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
if [[ -n $NEWVERSION && $NEWVERSION != "$VERSION" ]]; then
	{
		printf 'kav (%s) unstable; urgency=medium\n\n' "$NEWVERSION"
		printf '  * Rebuilt as %s (make-deb.sh --version).\n\n' "$NEWVERSION"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -S Maintainer)" \
			"$(date -R)"
		cat debian/changelog
	} >debian/changelog.new
	mv debian/changelog.new debian/changelog
	echo "$NEWVERSION" >VERSION
	cd .. && mv "kav-$VERSION" "kav-$NEWVERSION" && cd "kav-$NEWVERSION"
fi
dpkg-buildpackage -us -uc >"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; die "dpkg-buildpackage failed (log: $OUT/build.log)"; }
ls "$OUT"/*.deb
