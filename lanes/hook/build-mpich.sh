#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-mpich.sh
#
# Build MPICH 4.0.2 (Debian's orig tarball, fetched by sources.sh) with the
# ch4:ofi device over the SYSTEM libfabric (libfabric-dev, 1.17 on
# bookworm; not the libfabric 1.13.1 embedded in the tarball), install it
# into a cache prefix and print the prefix: PREFIX/bin/mpicc, mpiexec
# (hydra). Debian's own mpich package uses ch4:ucx, so it cannot run over
# libfabric, nor over a libfabric hook provider.
#
# What the build keeps and drops, to be short on 2 cores (about 2 minutes):
#   --with-ch4-shmmods=none  ranks on one node talk through libfabric too,
#                            not through shared memory: the point of the
#                            hook tests
#   --with-datatype-engine=dataloop  not yaksa (230 MB of generated code)
#   --without-hwloc          hwloc serves hydra's process binding and
#                            topology-aware collectives only; neither the
#                            embedded copy nor libhwloc-dev is needed
#   no Fortran, C++, ROMIO, Slurm, static library, debug info; -O0
#                            (make: O0 82s, O1 98s, O2 159s; the tests
#                            run no slower)
#   --disable-ch4-netmod-inline  the netmod is compiled once, not inlined
#                            into every ch4 file (O1: 98s, inlined 109s)
# Only what the build reads is extracted: not the embedded libfabric, ucx,
# yaksa or hwloc, nor test/mpi (whose configure would run too), www, man.
#
# MPICH 4.0.2's configure takes libfabric's link dependencies from
# "pkg-config --static --libs libfabric", i.e. Libs.private: -lpsm2
# -lrdmacm -libverbs -lefa ..., the libraries of providers Debian built in,
# whose -dev packages are not installed, so libmpi.so fails to link. The
# shared libfabric.so needs none of them: configure runs with
# PKG_CONFIG_LIBDIR pointing at an empty directory, so that lookup finds
# nothing (configure uses pkg-config for nothing else here).
#
# At run time select the provider with FI_PROVIDER (tcp, "tcp;ofi_rxm",
# "udp;ofi_rxd"): MPICH 4.0.2 ignores MPIR_CVAR_OFI_USE_PROVIDER and would
# otherwise pick "sockets".
#
# Cached, locked and quiet as build-lib.sh says: a no-op when PREFIX's
# stamp matches this script, build-lib.sh, sources.sh and libfabric-dev.
# A rebuild is checked by running examples/cpi on 2 ranks over tcp before
# the stamp is written.
#
# Env: KAV_MPICH      install prefix (default /var/cache/kav/mpich-4.0.2)
#      KAV_SRC_CACHE  tarball cache, see sources.sh
#      TMPDIR         where the temporary build directory goes (default
#                     /tmp; about 150 MB)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lanes/hook/build-lib.sh
. "$HERE/build-lib.sh"
PREFIX=${KAV_MPICH:-/var/cache/kav/mpich-4.0.2}
TOP=mpich-4.0.2

CONFIGURE_ARGS=(
	--with-device=ch4:ofi
	--with-libfabric=/usr
	--with-ch4-shmmods=none
	--with-pm=hydra
	--with-datatype-engine=dataloop
	--without-hwloc
	--without-slurm
	--disable-fortran
	--disable-cxx
	--disable-romio
	--disable-static
	--disable-dependency-tracking
	--disable-ch4-netmod-inline
	--enable-fast=O0
	--enable-g=none
)

EXCLUDES=(
	"$TOP/modules/libfabric" "$TOP/modules/ucx" "$TOP/modules/yaksa"
	"$TOP/modules/hwloc" "$TOP/test/mpi" "$TOP/www" "$TOP/man"
)

build() {
	local key=$1 tarball tmp log ex t0 t1 t2 t3 t4
	local -a tar_ex=()
	tarball=$("$HERE/sources.sh")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kav-mpich.XXXXXX")
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	log=$PREFIX.log
	: >"$log"
	for ex in "${EXCLUDES[@]}"; do
		tar_ex+=("--exclude=$ex")
	done

	echo "  BUILD   MPICH 4.0.2 ch4:ofi over libfabric $(pkg-config --modversion libfabric) into $PREFIX" >&2
	t0=$SECONDS
	run "$log" extract "$tmp" tar -xJf "$tarball" "${tar_ex[@]}"
	[[ -x $tmp/$TOP/configure ]] || die "no $TOP/configure in $tarball"
	mkdir "$tmp/build" "$tmp/no-pkgconfig"
	t1=$SECONDS
	run "$log" configure "$tmp/build" \
		env PKG_CONFIG_LIBDIR="$tmp/no-pkgconfig" \
		"../$TOP/configure" --prefix="$PREFIX" "${CONFIGURE_ARGS[@]}"
	t2=$SECONDS
	run "$log" make "$tmp/build" make -j"$(nproc)"
	t3=$SECONDS
	rm -rf "${PREFIX:?}"
	run "$log" install "$tmp/build" make install
	[[ -x $PREFIX/bin/mpicc && -x $PREFIX/bin/mpiexec ]] ||
		die "no mpicc or mpiexec in $PREFIX/bin (log: $log)"
	run "$log" "smoke test (examples/cpi on 2 ranks over tcp)" \
		"$tmp/build/examples" env FI_PROVIDER=tcp \
		timeout 120 "$PREFIX/bin/mpiexec" -n 2 ./cpi
	t4=$SECONDS
	echo "$key" >"$PREFIX/.kav-stamp"
	echo "  MPICH   extract $((t1 - t0))s, configure $((t2 - t1))s, make $((t3 - t2))s, install+check $((t4 - t3))s" >&2
}

build_main KAV_MPICH "$@"
