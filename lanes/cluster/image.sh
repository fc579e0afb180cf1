#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# image.sh OUTDIR: the cluster nodes' disk image, OUTDIR/node.img, and the
# kernel and initrd that boot it (OUTDIR/vmlinuz, OUTDIR/initrd.img).
#
# A node is the trixie root (lanes/trixie/root.sh) with what a site would
# put on it, all done at image time so that the guests (TCG) only boot:
#
#   1. kav's packages, built in the root from a copy of the tree
#      (scripts/make-deb.sh: OUTDIR/deb), and a newer build of the same
#      tree (OUTDIR/deb-next, version VERSION+cluster1) for the upgrade
#      the test does on a node;
#   2. under an overlay of the root (the cached root is never changed):
#      apt installs the packages (DKMS builds kav.ko for the root's
#      kernels), node/setup.sh configures the node (users, munge key,
#      Slurm, ssh between the nodes, the test's units and programs) and
#      builds the test programs against the installed libkav and both
#      MPIs (Open MPI 5 of trixie; MPICH 4.0.2 built for trixie by
#      lanes/hook/build-mpich.sh, cached like the root); fabtests 1.13.1
#      for libfabric 2.1 (lanes/hook/build-fabtests.sh) in /opt/fabtests;
#   3. mkfs.ext4 -d of that tree. Both nodes boot the same image under
#      -snapshot: a node's name and address come from its kernel command
#      line (kav.node=N).
#
# Rebuilt when its key changes (the root, the packages' contents and
# lanes/cluster); else a no-op. About 1 minute from a cached root and
# MPICH (MPICH for trixie: 2.5 more). Callers wait on OUTDIR.lock.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$(realpath -m "${1:?usage: image.sh OUTDIR}")
MPICH_TRIXIE=${KAV_CACHE:-/var/cache/kav}/mpich-4.0.2-trixie
# fabtests 1.13.1 for libfabric 2.1 (the programs of build-fabtests.sh's
# V2_PROGRAMS), in the same cache; on the nodes in /opt/fabtests/bin.
FABTESTS_TRIXIE=$(dirname "$MPICH_TRIXIE")/fabtests-1.13.1-trixie

die() { echo "image.sh: $*" >&2; exit 1; }
note() { echo "image.sh: $*" >&2; }

# The tree as make-deb.sh sees it (the files git knows or would add).
copy_tree() {
	rm -rf "$2"
	mkdir -p "$2"
	(cd "$1" && git ls-files -z --cached --others --exclude-standard |
		tar --null --files-from=- --ignore-failed-read -cf - |
		tar -C "$2" -xf -)
}

# in_root ROOT CMD...: CMD chrooted in ROOT, OUT and the MPICH cache bound.
in_root() {
	local root=$1
	shift
	"$REPO/lanes/lib/chroot.sh" --root "$root" --bind "$OUT" \
		--bind "$(dirname "$MPICH_TRIXIE")" -- "$@"
}

main() {
	local root key old='' start=$SECONDS next
	[[ $EUID == 0 ]] || die "needs root (chroot, mounts)"
	root=$("$REPO/lanes/trixie/root.sh") || die "no trixie root"
	mkdir -p "$OUT"
	# One builder at a time (make check starts one in the background):
	# a second caller waits, then finds the image up to date.
	exec 9>"$OUT.lock"
	flock 9
	copy_tree "$REPO" "$OUT/src"
	next="$(cat "$REPO/VERSION")+cluster1"
	# The key: the root, and everything of the tree the image holds.
	key=$({ basename "$root"
		(cd "$OUT/src" && find . -type f ! -path './build/*' -print0 |
			sort -z | xargs -0 sha256sum); } | sha256sum | cut -c1-16)
	[[ -f $OUT/node.key ]] && old=$(cat "$OUT/node.key")
	if [[ $old == "$key" && -f $OUT/node.img ]]; then
		note "node image up to date ($key)"
		return
	fi
	rm -f "$OUT/node.key" "$OUT/node.img"
	note "building the node image ($key; log: $OUT/image.log)"
	: >"$OUT/image.log"
	# MPICH for libfabric 2.1, cached per machine like the root; its
	# tarball is fetched on the host (the root has no curl).
	KAV_SRC_CACHE="$(dirname "$MPICH_TRIXIE")/src" "$REPO/lanes/hook/sources.sh" >/dev/null
	in_root "$root" env KAV_MPICH="$MPICH_TRIXIE" \
		KAV_SRC_CACHE="$(dirname "$MPICH_TRIXIE")/src" \
		"$OUT/src/lanes/hook/build-mpich.sh" >>"$OUT/image.log" 2>&1 ||
		{ tail -n 30 "$OUT/image.log" >&2; die "MPICH for trixie failed"; }
	in_root "$root" env KAV_FABTESTS="$FABTESTS_TRIXIE" \
		KAV_SRC_CACHE="$(dirname "$MPICH_TRIXIE")/src" \
		"$OUT/src/lanes/hook/build-fabtests.sh" >>"$OUT/image.log" 2>&1 ||
		{ tail -n 30 "$OUT/image.log" >&2; die "fabtests for trixie failed"; }
	{
		in_root "$root" "$OUT/src/scripts/make-deb.sh" "$OUT/deb" &&
		in_root "$root" "$OUT/src/scripts/make-deb.sh" --version "$next" \
			"$OUT/deb-next"
	} >>"$OUT/image.log" 2>&1 ||
		{ tail -n 30 "$OUT/image.log" >&2; die "make deb in the root failed"; }
	rm -rf "$OUT/overlay"
	mkdir -p "$OUT/overlay/upper" "$OUT/overlay/work" "$OUT/overlay/root"
	# The overlay lives as long as this namespace.
	unshare --mount --propagation private /bin/bash -c '
		set -e
		root=$1 out=$2 mpich=$3 repo=$4 fabtests=$5
		m=$out/overlay/root
		mount -t overlay overlay -o "lowerdir=$root,upperdir=$out/overlay/upper,workdir=$out/overlay/work" "$m"
		"$repo/lanes/lib/chroot.sh" --root "$m" --bind "$out" --bind "$mpich" -- \
			"$out/src/lanes/cluster/node/setup.sh" "$out" "$mpich"
		# MPICH at the path its scripts were built for.
		mkdir -p "$m$mpich"
		cp -a "$mpich/." "$m$mpich/"
		mkdir -p "$m/opt/fabtests/bin"
		cp -a "$fabtests/bin/." "$m/opt/fabtests/bin/"
		size=$(( $(du -sm "$m" | cut -f1) + 2048 ))
		cp "$m"/boot/vmlinuz-6.12.* "$out/vmlinuz"
		cp "$m"/boot/initrd.img-6.12.* "$out/initrd.img"
		rm -f "$out/node.img.tmp"
		mkfs.ext4 -q -L kavnode -d "$m" "$out/node.img.tmp" "${size}M"
	' image "$root" "$OUT" "$MPICH_TRIXIE" "$REPO" "$FABTESTS_TRIXIE" >>"$OUT/image.log" 2>&1 ||
		{ rm -rf "$OUT/overlay"; tail -n 40 "$OUT/image.log" >&2; die "node setup failed"; }
	rm -rf "$OUT/overlay"
	mv "$OUT/node.img.tmp" "$OUT/node.img"
	echo "$key" >"$OUT/node.key"
	note "node image built in $((SECONDS - start)) s ($(du -sh --apparent-size "$OUT/node.img" | cut -f1))"
}

main "$@"
