#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trixie-check.sh [OUTDIR]: the packaging tests again in the Debian trixie
# root (lanes/trixie/root.sh): DKMS 3.2, debhelper and lintian of trixie,
# its 6.12 kernel and trixie-backports' 7.3 (whose kbuild needs gcc-14).
#
# On the host: the tree (the files git knows or would add) is copied to
# OUTDIR/src (default build/trixie-pkg/src), so that the host's build/deb
# is never touched. The root is mounted under an overlay whose upper
# layer is OUTDIR/overlay, in a private mount namespace: what the tests
# install, DKMS's state and its signing key go there and are removed
# after, and the cached root stays as root.sh built it. Then, in the root,
# with the copy's scripts:
#
#   make deb       scripts/make-deb.sh OUTDIR/deb
#   lintian        lanes/pkg/lintian-check.sh OUTDIR/deb (trixie's lintian)
#   dkms           lanes/pkg/dkms-check.sh for the root's 6.12 and 7.3
#   deb            lanes/pkg/deb-check.sh OUTDIR/deb: apt installs the
#                  packages (dependencies from trixie), DKMS builds and
#                  installs kav.ko for 6.12 and 7.3, purge leaves nothing
#
# A chroot loads no module: nothing here opens /dev/kav (deb-check's
# program accepts libkav's "module not loaded"). Each step prints its TAP
# after a "# trixie: STEP" line; the exit status is 1 if any step failed.
#
# Env: KAV_TRIXIE_KERNELS  the root's kernel series to build for ("6.12 7.3")
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KERNELS=${KAV_TRIXIE_KERNELS:-6.12 7.3}

die() { echo "trixie-check.sh: $*" >&2; exit 1; }

# In the root (the overlay), from the copy OUT/src: each step in turn.
inside() {
	local out=$1 src=$1/src failed=0 rc
	cd "$src"
	echo "# trixie: make deb ($(dpkg-query -W -f='debhelper ${Version}, ' debhelper)$(dkms --version))"
	echo "1..1"
	rc=0
	# The root is built from lanes/trixie/packages: name what it lacks.
	if ! dpkg-checkbuilddeps >"$out/make-deb.log" 2>&1; then
		echo "not ok 1 - make deb in the trixie root: the root lacks build dependencies (add them to lanes/trixie/packages)"
		sed 's/^/# /' "$out/make-deb.log"
		return 1
	fi
	scripts/make-deb.sh "$out/deb" >"$out/make-deb.log" 2>&1 || rc=$?
	if [[ $rc == 0 ]]; then
		echo "ok 1 - make deb in the trixie root: $(cd "$out/deb" && echo *.deb)"
	else
		echo "not ok 1 - make deb in the trixie root (log: $out/make-deb.log)"
		sed 's/^/# /' "$out/make-deb.log" | tail -n 40
		return 1
	fi
	echo "# trixie: lintian ($(lintian --version))"
	lanes/pkg/lintian-check.sh "$out/deb" || failed=1
	echo "# trixie: dkms for $KERNELS"
	KAV_KERNELS=$KERNELS lanes/pkg/dkms-check.sh || failed=1
	echo "# trixie: deb"
	lanes/pkg/deb-check.sh "$out/deb" || failed=1
	return "$failed"
}

main() {
	local out root rc=0
	if [[ ${1:-} == --inside ]]; then
		inside "${2:?}"
		return
	fi
	out=${1:-$REPO/build/trixie-pkg}
	[[ $EUID == 0 ]] || die "needs root (chroot, mounts, apt in the root)"
	root=$("$REPO/lanes/trixie/root.sh") || die "no trixie root (lanes/trixie/root.sh)"
	rm -rf "$out"
	mkdir -p "$out/src" "$out/overlay/upper" "$out/overlay/work" "$out/overlay/root"
	# tar skips a file git knows but the tree has just lost.
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		tar --null --files-from=- --ignore-failed-read -cf - |
		tar -C "$out/src" -xf -)
	# The overlay lives as long as this namespace: nothing to unmount.
	unshare --mount --propagation private /bin/bash -c '
		set -e
		root=$1 out=$2 run=$3
		mount -t overlay overlay -o "lowerdir=$root,upperdir=$out/overlay/upper,workdir=$out/overlay/work" "$out/overlay/root"
		KAV_TRIXIE_KERNELS=$4 "$run" --root "$out/overlay/root" --bind "$out" -- \
			"$out/src/lanes/pkg/trixie-check.sh" --inside "$out"
	' trixie-check "$root" "$out" "$REPO/lanes/lib/chroot.sh" "$KERNELS" || rc=$?
	rm -rf "$out/overlay"
	return "$rc"
}

main "$@"
