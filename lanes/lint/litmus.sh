#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# litmus.sh [FILE.litmus...]
#
# Check the table's read protocol with herd7 (Documentation/memory-model.rst):
# every litmus test under tests/litmus/lkmm/ with the Linux-kernel memory
# model (tools/memory-model of Debian's linux-source-6.12 tarball,
# extracted into $BUILD/litmus/memory-model, never committed), and every
# one under tests/litmus/c11/ with herdtools7's RC11 model (rc11.cat).
# Each file says what herd7 must answer for its "exists" clause in a
# comment line "Result: Never" or "Result: Sometimes"; the check fails on
# any other answer, on a test herd7 cannot run, and on a "Never" test
# X.litmus without a negative twin X-*.litmus that expects "Sometimes"
# (the proof that the check can fail). herd7 runs chrooted in the sid
# root of lanes/lint/herd-root.sh (built once per machine, cached).
#
# Output: one line per test (ok/FAIL, its model, name, expected, got),
# then "litmus: N passed, N failed". Exit status 1 on any failure.
#
# Env: BUILD  build directory (default: the repository's build/)
#      KAV_HERD_ROOT  a root with herd7 instead of herd-root.sh's
#      KAV_LINUX_SOURCE  the tarball (/usr/src/linux-source-6.12.tar.xz)
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$REPO/build}
SRC=${KAV_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
MM=$BUILD/litmus/memory-model
MM_FILES=(linux-kernel.bell linux-kernel.cat linux-kernel.cfg linux-kernel.def lock.cat)

die() { echo "litmus.sh: $*" >&2; exit 2; }

# The LKMM files, from the tarball, once per tarball.
memory_model() {
	local f
	[[ -e $MM/.from && $(cat "$MM/.from") == "$(stat -c '%n %s %Y' "$SRC")" ]] && return
	[[ -r $SRC ]] || die "no $SRC (scripts/deps.sh: linux-source-6.12)"
	rm -rf "$MM"
	mkdir -p "$MM"
	tar -xJf "$SRC" -C "$MM" --strip-components=3 --wildcards \
		"${MM_FILES[@]/#/*/tools/memory-model/}" ||
		die "cannot extract tools/memory-model from $SRC"
	for f in "${MM_FILES[@]}"; do
		[[ -s $MM/$f ]] || die "$SRC has no tools/memory-model/$f"
	done
	stat -c '%n %s %Y' "$SRC" >"$MM/.from"
}

# expected FILE: the verdict its "Result:" line asks for.
expected() {
	sed -n 's/^[ *(]*Result: *\([A-Za-z]*\).*/\1/p' "$1" | head -n 1
}

# name FILE: the test's name (first line "C NAME").
name() {
	sed -n '1s/^C[ \t]\{1,\}\([^ \t]*\).*/\1/p' "$1"
}

main() {
	local -a files=()
	local f root out model exp got n pass=0 fail=0 twin base ok
	if [[ $# -gt 0 ]]; then
		for f in "$@"; do
			files+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
		done
	else
		files=("$REPO"/tests/litmus/lkmm/*.litmus "$REPO"/tests/litmus/c11/*.litmus)
	fi
	[[ ${#files[@]} -gt 0 && -e ${files[0]} ]] || die "no litmus tests"
	root=${KAV_HERD_ROOT:-$("$HERE/herd-root.sh")}
	memory_model
	# One chroot for all: herd7 per file, each answer tagged with its file.
	# shellcheck disable=SC2016 # the inner script's own variables
	out=$("$REPO/lanes/lib/chroot.sh" --root "$root" --bind "$REPO" \
		--bind "$BUILD" -- /bin/sh -c '
		mm=$1
		shift
		for f; do
			case $f in
			*/lkmm/*) set -- -I "$mm" -conf linux-kernel.cfg ;;
			*/c11/*) set -- -model rc11.cat ;;
			*) echo "$f ERROR not under lkmm/ or c11/"; continue ;;
			esac
			r=$(herd7 "$@" "$f" 2>&1) || { echo "$f ERROR herd7 failed: $(echo "$r" | tail -n 1)"; continue; }
			echo "$r" | sed -n "s|^Observation [^ ]* \([A-Za-z]*\) .*|$f \1|p"
		done
	' check "$MM" "${files[@]}")
	for f in "${files[@]}"; do
		model=$(basename "$(dirname "$f")")
		exp=$(expected "$f")
		n=$(name "$f")
		got=$(awk -v f="$f" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$out")
		ok=1
		[[ -n $exp ]] || { got="no 'Result:' line in the file"; ok=0; }
		[[ $n == "$(basename "$f" .litmus)" ]] || { got="test name '$n' is not the file's name"; ok=0; }
		[[ -n $got ]] || got="no answer from herd7"
		[[ $got == "$exp" ]] || ok=0
		if [[ $exp == Never && $# -eq 0 ]]; then
			base=${f%.litmus}
			twin=no
			for t in "$base"-*.litmus; do
				[[ -e $t && $(expected "$t") == Sometimes ]] && twin=yes
			done
			[[ $twin == yes ]] || { got="$got, but no negative twin $(basename "$base")-*.litmus expecting Sometimes"; ok=0; }
		fi
		if [[ $ok -eq 1 ]]; then
			pass=$((pass + 1))
			printf 'ok    %-5s %-30s %s\n' "$model" "$n" "$got"
		else
			fail=$((fail + 1))
			printf 'FAIL  %-5s %-30s expected %s, got %s\n' "$model" "$n" "$exp" "$got"
		fi
	done
	echo "litmus: $pass passed, $fail failed"
	[[ $fail -eq 0 ]]
}

main "$@"
