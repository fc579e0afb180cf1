#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# herd-root.sh [--print-key]
#
# Build, or find in the cache, a minimal Debian sid root holding herdtools7
# (herd7 and its memory models: only sid packages it) and print its path
# (lanes/lib/root.sh, the lanes' one root builder, says how).
# lanes/lint/litmus.sh runs herd7 chrooted in it. Its packages are those
# of lanes/lint/herd-packages; it is cached in $KAV_CACHE/sid-herd.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/../lib/root.sh" --suite sid --cache sid-herd \
	--packages "$HERE/herd-packages" --check "herd7 -version" "$@"
