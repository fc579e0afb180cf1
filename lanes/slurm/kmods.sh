#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmods.sh [--root ROOT] OUTDIR KVER...: for each Debian kernel KVER (of
# ROOT, e.g. the trixie root, lanes/vm/kernels.sh; default the host), the
# modules the
# real-Slurm guest needs to mount the host's root file system over 9p
# (virtio-pci transport; 6.1 builds virtio as modules, 6.12 has it
# built in), with their dependencies, uncompressed (busybox insmod reads
# plain .ko), in OUTDIR/kav-slurm-kmods-KVER.tar:
#
#   order          the module file names, dependencies first
#   NAME.ko ...
#
# lanes/slurm/kav_slurm_vm (in the guest) picks the tar of `uname -r` and
# insmods "order". A kernel without a module tree is left out: the guest
# then reports the test as skipped.
set -euo pipefail

# dummy: a non-loopback interface for lanes/ompi (libfabric 2.1's tcp
# provider listens on no loopback address for remote-capable endpoints).
WANT=(virtio_pci 9pnet_virtio 9p dummy)

die() { echo "kmods.sh: $*" >&2; exit 1; }

ROOT=''
if [[ ${1:-} == --root ]]; then
	ROOT=${2:?--root needs a directory}
	shift 2
fi
[[ $# -ge 2 ]] || die "usage: kmods.sh [--root ROOT] OUTDIR KVER..."
OUT=$1
shift
mkdir -p "$OUT"

# add KVER NAME: NAME and, first, what it depends on (modinfo), once.
add() {
	local kver=$1 name=$2 file dep
	[[ -z ${SEEN[$name]:-} ]] || return 0
	SEEN[$name]=1
	file=$(modinfo ${ROOT:+-b "$ROOT"} -k "$kver" -F filename "$name" 2>/dev/null) || return 0
	[[ $file == /* ]] || return 0		# (builtin)
	for dep in $(modinfo ${ROOT:+-b "$ROOT"} -k "$kver" -F depends "$name" | tr ',' ' '); do
		add "$kver" "$dep"
	done
	ORDER+=("$file")		# (modinfo -b gives the path in ROOT)
}

for kver in "$@"; do
	[[ -d $ROOT/lib/modules/$kver/kernel ]] || { echo "kmods.sh: no $ROOT/lib/modules/$kver: skipped" >&2; continue; }
	declare -A SEEN=()
	ORDER=()
	for m in "${WANT[@]}"; do
		add "$kver" "$m"
	done
	tmp=$(mktemp -d)
	: >"$tmp/order"
	for f in "${ORDER[@]}"; do
		base=${f##*/}
		case $base in
		*.ko.xz) xz -dc "$f" >"$tmp/${base%.xz}"; base=${base%.xz} ;;
		*.ko.zst) zstd -dcq "$f" >"$tmp/${base%.zst}"; base=${base%.zst} ;;
		*.ko.gz) gzip -dc "$f" >"$tmp/${base%.gz}"; base=${base%.gz} ;;
		*) cp "$f" "$tmp/$base" ;;
		esac
		echo "$base" >>"$tmp/order"
	done
	tar -C "$tmp" -cf "$OUT/kav-slurm-kmods-$kver.tar.tmp" .
	mv "$OUT/kav-slurm-kmods-$kver.tar.tmp" "$OUT/kav-slurm-kmods-$kver.tar"
	rm -rf "$tmp"
	unset SEEN
done
