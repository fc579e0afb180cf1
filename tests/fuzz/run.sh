#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--time S] [--kernels "6.12 debug"] [--replay FILE] [--args "A"] BIN
#
# Run kav_fuzzer (BIN) in the test VM on each kernel, one after the other
# (lanes/vm/vm.sh), for S seconds each, then, per kernel:
#   - save every reproducer the guest printed to
#     <build>/vm/<kver>/fuzz-repro-N.txt (replay: --replay FILE),
#   - map the kav PCs kcov reached to functions and lines of kav.ko
#     (coverage.sh), when the kernel has kcov.
# --replay FILE: replay one reproducer instead of a campaign.
# Exit status: check.sh's (0: no failure, no kernel report).
#
# Env: KAV_BUILD (build directory), KAV_SRC (kmod/ source, build-kmod.sh).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VMDIR=${KAV_BUILD:-$REPO/build}/vm

die() { echo "run.sh: $*" >&2; exit 2; }

# save_repros KVER DIR: the reproducers in DIR/results.log, one file each.
save_repros() {
	local kver=$1 dir=$2 n=0 line out=''
	rm -f "$dir"/fuzz-repro-*.txt
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^#\ @@KAV-FUZZ-REPRO-BEGIN\ (.*)$ ]]; then
			n=$((n + 1))
			out=$dir/fuzz-repro-$n.txt
			echo "# $kver: ${BASH_REMATCH[1]}" >"$out"
			continue
		fi
		if [[ $line == '# @@KAV-FUZZ-REPRO-END' ]]; then
			echo "run.sh: $kver: reproducer saved in $out" >&2
			out=''
			continue
		fi
		[[ -z $out ]] || printf '%s\n' "$line" >>"$out"
	done <"$dir/results.log"
}

main() {
	local time=300 kernels='6.12 debug' replay='' args='' bin rc=0
	local dir kver stamp
	while [[ $# -gt 1 ]]; do
		case $1 in
		--time) time=${2:?}; shift 2 ;;
		--kernels) kernels=${2:?}; shift 2 ;;
		--replay) replay=${2:?}; shift 2 ;;
		--args) args=${2?}; shift 2 ;;
		*) die "usage: run.sh [--time S] [--kernels K] [--replay FILE] [--args A] BIN" ;;
		esac
	done
	bin=${1:?BIN}
	[[ -x $bin ]] || die "$bin: not built"
	local extra=''
	if [[ -n $replay ]]; then
		[[ -f $replay ]] || die "$replay: no such file"
		# The guest runs programs from /tests: the file goes there too.
		extra=$(dirname "$bin")/fuzz-repro.txt
		cp "$replay" "$extra"
		args="--replay=fuzz-repro.txt $args"
		time=120
	else
		args="--time=$time --pcs $args"
	fi
	mkdir -p "$VMDIR"
	stamp=$VMDIR/.fuzz-stamp
	touch "$stamp"
	KAV_EXTRA_FILES=$extra KAV_TEST_TIMEOUT=$((time + 300)) \
		KAV_VM_TIMEOUT=$((time + 900)) \
		"$REPO/lanes/vm/vm.sh" --kernels "$kernels" \
		--selftests "$bin" --args "$args" || rc=$?
	for dir in "$VMDIR"/*/; do
		dir=${dir%/}
		[[ $dir/results.log -nt $stamp ]] || continue
		kver=${dir##*/}
		save_repros "$kver" "$dir"
		if grep -q '^# fuzz-pcs:' "$dir/results.log" &&
			[[ -f $dir/kmod/kav.ko ]]; then
			echo "run.sh: $kver: coverage of kav.ko (kcov)" >&2
			"$HERE/coverage.sh" "$dir/kmod/kav.ko" "$dir/results.log" |
				tee "$dir/fuzz-coverage.txt"
		fi
	done
	return "$rc"
}

main "$@"
