#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# root.sh [--print-key]
#
# Build, or find in the cache, the Debian trixie root of the tests and
# print its path (lanes/lib/root.sh, the lanes' one root builder, says
# how). It is the build environment for libfabric 2.1 and the trixie
# kernels (6.12, and 7.x from trixie-backports, whose kbuild tools need
# trixie's glibc and gcc-14), the userland of the guests that need trixie
# (over 9p) and the base of the cluster nodes' image. Its packages are
# those of lanes/trixie/packages; it is cached in $KAV_CACHE/trixie-root.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/../lib/root.sh" --suite trixie --cache trixie-root \
	--packages "$HERE/packages" "$@"
