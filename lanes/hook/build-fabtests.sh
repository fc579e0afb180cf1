#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-fabtests.sh
#
# Build libfabric's fabtests (1.13.1, the copy embedded in Debian's MPICH
# 4.0.2 orig tarball under modules/libfabric/fabtests, fetched by
# sources.sh) against the SYSTEM libfabric (libfabric-dev, 1.17 on
# bookworm; 2.1 in the trixie root, for the cluster's nodes: image.sh),
# install them into a cache prefix and print the prefix. The
# binaries are then PREFIX/bin/fi_av_test, fi_rdm, fi_rdm_tagged_pingpong,
# fi_rdm_shared_av, fi_av_xfer, fi_multi_ep, fi_rma_bw, ...
#
# Nothing of fabtests is kept in this repository: only fabtests/ is taken
# from the tarball into a temporary directory. The tarball ships no
# configure for fabtests, so autoreconf makes one (autoconf, automake,
# libtool: scripts/deps.sh). fabtests 1.13.1 builds unchanged, without a
# warning, against the 1.17 headers (it asks for FI_VERSION(1, 9) at run
# time), so no source is patched.
#
# Known natively, without any hook (libfabric 1.17, 127.0.0.1): fi_multi_ep
# hangs in its finalize with every provider (its endpoints share one CQ;
# upstream left it out of runfabtests.sh until 1.15 reworked it); even
# -c 1 passes only half the time (tcp;ofi_rxm). fi_rdm_shared_av needs
# FI_SHARED_AV, which neither tcp;ofi_rxm nor udp;ofi_rxd offers: it exits
# 61 (ENODATA, "not run").
#
# Cached, locked and quiet as build-lib.sh says: a no-op when PREFIX's
# stamp matches this script, build-lib.sh, sources.sh and libfabric-dev.
#
# Env: KAV_FABTESTS   install prefix (default /var/cache/kav/fabtests-1.13.1)
#      KAV_SRC_CACHE  tarball cache, see sources.sh
#      TMPDIR         where the temporary build directory goes (default /tmp)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lanes/hook/build-lib.sh
. "$HERE/build-lib.sh"
PREFIX=${KAV_FABTESTS:-/var/cache/kav/fabtests-1.13.1}
SUBDIR=mpich-4.0.2/modules/libfabric/fabtests

# What the hook tests run; the build fails if one is missing.
NEEDED=(fi_av_test fi_rdm fi_rdm_tagged_pingpong fi_rdm_shared_av
	fi_av_xfer fi_multi_ep fi_rma_bw fi_rdm_pingpong fi_getinfo_test)
# Against libfabric 2.x (trixie: the cluster's nodes) not all of 1.13.1
# builds: unit/eq_test names FI_BUFFERED_RECV, which 2.0 removed. There
# only these programs are built, from the same unchanged source.
V2_PROGRAMS=(functional/fi_rdm benchmarks/fi_rdm_pingpong
	benchmarks/fi_rdm_tagged_pingpong benchmarks/fi_msg_pingpong
	benchmarks/fi_rma_bw)

build() {
	local key=$1 tarball tmp log src t0 t1 t2 t3 b
	tarball=$("$HERE/sources.sh")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kav-fabtests.XXXXXX")
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	log=$PREFIX.log
	: >"$log"
	src=$tmp/fabtests

	echo "  BUILD   fabtests 1.13.1 against libfabric $(pkg-config --modversion libfabric) into $PREFIX" >&2
	t0=$SECONDS
	mkdir -p "$src/config"
	run "$log" extract "$src" tar -xJf "$tarball" --strip-components=4 "$SUBDIR"
	[[ -f $src/configure.ac ]] || die "no $SUBDIR in $tarball"
	# What fabtests' autogen.sh does (mkdir config; autoreconf -ivf),
	# without the verbosity.
	run "$log" autoreconf "$src" autoreconf -i
	# The system libfabric is on the default paths (/usr/include/rdma, the
	# multiarch libdir): --with-libfabric=/usr would only add -I/usr/include.
	t1=$SECONDS
	run "$log" configure "$src" ./configure --prefix="$PREFIX" \
		--disable-static --disable-dependency-tracking
	t2=$SECONDS
	rm -rf "${PREFIX:?}"
	if [[ $(pkg-config --modversion libfabric) == 1.* ]]; then
		run "$log" make "$src" make -j"$(nproc)"
		run "$log" install "$src" make install
	else
		NEEDED=("${V2_PROGRAMS[@]##*/}")
		run "$log" make "$src" make -j"$(nproc)" "${V2_PROGRAMS[@]}"
		mkdir -p "$PREFIX/bin"
		run "$log" install "$src" install -m 0755 "${V2_PROGRAMS[@]}" "$PREFIX/bin/"
	fi
	t3=$SECONDS
	for b in "${NEEDED[@]}"; do
		[[ -x $PREFIX/bin/$b ]] || die "$PREFIX/bin/$b was not built (log: $log)"
	done
	echo "$key" >"$PREFIX/.kav-stamp"
	echo "  FABTESTS extract+autoreconf $((t1 - t0))s, configure $((t2 - t1))s, make+install $((t3 - t2))s" >&2
}

build_main KAV_FABTESTS "$@"
