#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-headers.sh OUTDIR
#
# Extract the kselftest harness headers from Debian's linux-source-6.12
# tarball into OUTDIR (kselftest_harness.h, kselftest.h), and checkpatch
# with its data files into OUTDIR/../checkpatch/. One tar pass; cached: does
# nothing if the files are already there. The headers are never committed.
#
# Env: KAV_LINUX_SOURCE  tarball (default /usr/src/linux-source-6.12.tar.xz)
set -euo pipefail

TARBALL=${KAV_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}

HEADERS=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
)
CHECKPATCH=(
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
)

die() { echo "harness-headers.sh: $*" >&2; exit 1; }

# Name of the tarball's top directory (e.g. linux-source-6.12), read from
# its first entry; tar is cut short by head, hence "|| true".
top_dir() {
	local first
	first=$(tar -tJf "$TARBALL" 2>/dev/null | head -n 1 || true)
	first=${first%%/*}
	[[ -n $first ]] || die "cannot list $TARBALL"
	echo "$first"
}

all_present() {
	local f
	for f in "${HEADERS[@]}"; do
		[[ -s $OUTDIR/${f##*/} ]] || return 1
	done
	for f in "${CHECKPATCH[@]}"; do
		[[ -s $CPDIR/${f##*/} ]] || return 1
	done
}

# Install the extracted members flat into their destination directories.
install_members() {
	local src=$1 f
	for f in "${HEADERS[@]}"; do
		install -m 0644 "$src/$f" "$OUTDIR/"
	done
	for f in "${CHECKPATCH[@]}"; do
		install -m 0644 "$src/$f" "$CPDIR/"
	done
	chmod 0755 "$CPDIR/checkpatch.pl"
}

main() {
	[[ $# -eq 1 ]] || die "usage: harness-headers.sh OUTDIR"
	OUTDIR=$1
	mkdir -p "$OUTDIR"
	OUTDIR=$(cd "$OUTDIR" && pwd)
	CPDIR=$(dirname "$OUTDIR")/checkpatch

	all_present && return 0
	[[ -r $TARBALL ]] || die "$TARBALL missing: run scripts/deps.sh (linux-source-6.12)"
	mkdir -p "$CPDIR"

	local top f members=()
	top=$(top_dir)
	for f in "${HEADERS[@]}" "${CHECKPATCH[@]}"; do
		members+=("$top/$f")
	done

	TMP=$(mktemp -d "$OUTDIR/.extract.XXXXXX")
	trap 'rm -rf "$TMP"' EXIT
	echo "  EXTRACT kselftest harness + checkpatch from ${TARBALL##*/}" >&2
	# --occurrence lets tar stop once every member has been found.
	tar -xJf "$TARBALL" -C "$TMP" --occurrence=1 "${members[@]}"
	install_members "$TMP/$top"
}

main "$@"
