#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# aarch64-codegen.sh [--tree DIR]
#
# Check what the table's readers compile to (Documentation/memory-model.rst,
# "The codegen check"). Every reader of the shared pages is cross-compiled
# with Debian's gcc-aarch64-linux-gnu at -O2 -g: the inline readers of
# <kav/kav_view.h> and lib/table.h (tests/litmus/codegen/view_readers.c,
# table_readers.c), the
# hook's inline translation (codegen/hook_reader.c), and lib/av_lookup.c,
# lib/view.c, lib/av_job.c and prov/hook_av.c as they are. In
# aarch64-linux-gnu-objdump -d -l's disassembly, codegen/check_disasm.py
# finds each reader's loads of seq (or key_gen) and checks that every
# re-read is a plain load with a dmb ishld (or stronger) between it and
# the copy's data loads, and that each reader has its re-reads: a re-read
# written as an acquire load with no fence (the reader before issue 27)
# has none, and fails. The hook's translation re-reads nothing: its data
# load must come after its acquire loads. Then an x86-64 sanity check:
# built with the host's gcc, the same readers hold no fence instruction
# (mfence, lfence, sfence, lock): the acquire fence is a compiler barrier.
#
# --tree DIR: check the lib/, prov/ and uapi/ of DIR instead of this
# repository's, e.g. an old commit's (git archive COMMIT lib prov uapi).
#
# Output: one line per reader and check, then "codegen: N passed, N
# failed". Exit status 1 on any failure.
#
# Env: BUILD  build directory (default: the repository's build/)
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$REPO/build}
CROSS=aarch64-linux-gnu-

# function:rule:count (codegen/check_disasm.py)
AARCH64_SPECS=(
	cg_view_resolve:reread:1	# kav_view_resolve()
	cg_view_entry_seq:reread:1	# kav_view_entry_seq()
	cg_table_read:reread:1		# kav_table_try_read()
	cg_table_lookup:reread:1	# kav_table_lookup()
	cg_table_read_key:reread:1	# kav_table_try_read_key()
	cg_table_entry_seq:reread:1	# kav_table_entry_seq()
	kav_av_lookup:reread:1		# fi_av_lookup()
	kav_av_resolve:reread:2		# the entry, then its key slot
	kav_av_resolve_check:reread:1
	kav_view_sync_keys:reread:1	# key_gen around the slots
	kav_view_resolve_slow:reread:1
	kav_job_find:reread:1		# the job index walk
	kavh_mirror:reread:1		# the hook: copy, then kav_view_entry_seq()
	cg_hook_xlate:acqfirst:3	# kavh_xlate(): stamp, generation, key_gen
)
X86_SPECS=(
	cg_view_resolve:nofence cg_view_entry_seq:nofence
	cg_table_read:nofence cg_table_lookup:nofence
	cg_table_read_key:nofence cg_table_entry_seq:nofence
	kav_av_lookup:nofence kav_av_resolve:nofence
	kav_av_resolve_check:nofence
)

die() { echo "aarch64-codegen.sh: $*" >&2; exit 2; }

# build CC OUTDIR TREE: compile the readers, print the disassembly's path.
build() {
	local cc=$1 out=$2 tree=$3 src o dis=$2/readers.dis
	local -a srcs=("$REPO/tests/litmus/codegen/view_readers.c"
		"$REPO/tests/litmus/codegen/table_readers.c" "$REPO/tests/litmus/codegen/hook_reader.c"
		"$tree/lib/av_lookup.c" "$tree/lib/view.c" "$tree/lib/av_job.c"
		"$tree/prov/hook_av.c")
	local -a inc=(-I "$tree/lib" -I "$tree/lib/include" -I "$tree/uapi"
		-I "$tree/prov")
	rm -rf "$out"
	mkdir -p "$out"
	# A cross build must not see the host's glibc headers: only rdma/.
	if [[ $cc == "$CROSS"* ]]; then
		mkdir -p "$out/inc"
		ln -s /usr/include/rdma "$out/inc/rdma"
		inc+=(-I "$out/inc")
	fi
	: >"$dis"
	for src in "${srcs[@]}"; do
		o=$out/$(basename "$src" .c).o
		if ! "$cc"gcc -std=gnu11 -O2 -g -Wall -Wextra "${inc[@]}" \
			-c -o "$o" "$src" 2>"$o.err"; then
			echo "FAIL  ${cc}gcc cannot compile ${src#"$REPO"/}: $(head -n 1 "$o.err")" >&2
			continue
		fi
		"$cc"objdump -d -l --no-show-raw-insn "$o" >>"$dis"
	done
	echo "$dis"
}

main() {
	local tree=$REPO out rc=0 dis errs
	while [[ $# -gt 0 ]]; do
		case $1 in
		--tree) tree=$(cd "${2:?}" && pwd); shift 2 ;;
		*) die "usage: aarch64-codegen.sh [--tree DIR]" ;;
		esac
	done
	command -v "${CROSS}gcc" >/dev/null ||
		die "needs ${CROSS}gcc (scripts/deps.sh: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross)"
	command -v python3 >/dev/null || die "needs python3"
	out=$BUILD/litmus/codegen
	mkdir -p "$out"
	errs=$out/errors
	: >"$errs"
	dis=$(build "$CROSS" "$out/aarch64" "$tree" 2>>"$errs")
	python3 "$REPO/tests/litmus/codegen/check_disasm.py" aarch64 "$dis" \
		"${AARCH64_SPECS[@]%%#*}" >"$out/report" || rc=1
	dis=$(build "" "$out/x86_64" "$tree" 2>>"$errs")
	python3 "$REPO/tests/litmus/codegen/check_disasm.py" x86-64 "$dis" \
		"${X86_SPECS[@]}" >>"$out/report" || rc=1
	cat "$errs" "$out/report"
	[[ -s $errs ]] && rc=1
	echo "codegen: $(grep -c '^ok' "$out/report") passed," \
		"$(($(grep -c '^FAIL' "$out/report") + $(grep -c '^FAIL' "$errs"))) failed"
	return "$rc"
}

main "$@"
