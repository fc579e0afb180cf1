#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh: static analysis, "make lint". Every tool must report nothing:
#
#   checkpatch --strict   kmod/*.[ch] and uapi/linux/kav.h (checkpatch.pl
#                         from linux-source-6.12, via harness-headers.sh)
#   sparse (C=2, W=1)     the module, built against each Debian kernel
#                         build tree tested (6.1, 6.12) in build/lint/
#   cppcheck              lib/, tools/ and bench/ (suppressions: cppcheck.suppress)
#   clang-tidy            lib/, tools/ and bench/ (checks: clang-tidy.yaml)
#
# Each finding is printed; the last line is "lint: clean" or
# "lint: N tool(s) with findings", and the exit status says the same.
#
# Env: KAV_BUILD  build directory (<repo>/build)
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${KAV_BUILD:-$REPO/build}
OUT=$BUILD/lint
FAILED=0

note() { echo "lint: $*" >&2; }

# report TOOL OUTPUT: print a tool's findings and count it as failed.
report() {
	local tool=$1 out=$2
	if [[ -n $out ]]; then
		echo "lint: $tool:"
		printf '%s\n' "$out" | sed 's/^/  /'
		FAILED=$((FAILED + 1))
	else
		echo "lint: $tool: clean"
	fi
}

run_checkpatch() {
	local cp=$BUILD/checkpatch/checkpatch.pl out
	if [[ ! -x $cp ]]; then
		"$REPO/tests/vm/harness-headers.sh" "$BUILD/kselftest" || {
			report checkpatch "cannot extract checkpatch.pl"
			return
		}
	fi
	local -a files
	# Sources only: an in-tree build leaves kbuild's kav.mod.c there.
	mapfile -t files < <(cd "$REPO" && ls kmod/*.c kmod/*.h uapi/linux/kav.h |
			     grep -v '\.mod\.c$')
	out=$(cd "$REPO" && "$cp" --no-tree --strict --terse --show-types \
		-f "${files[@]}" 2>&1 |
		grep -v '^total: 0 errors, 0 warnings' || true)
	report "checkpatch --strict" "$out"
}

# sparse through kbuild (C=2 checks every file), on a copy of the sources.
run_sparse() {
	local kver kdir dir log out all=''
	command -v sparse >/dev/null || { report sparse "sparse not installed (scripts/deps.sh)"; return; }
	while read -r kver; do
		[[ -n $kver ]] || continue
		kdir=/lib/modules/$kver/build
		dir=$OUT/sparse-$kver
		rm -rf "$dir"
		mkdir -p "$dir"
		cp -r "$REPO/kmod" "$REPO/uapi" "$dir/"
		find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o \
			-name '.*.cmd' -o -name Module.symvers -o \
			-name modules.order \) -delete
		log=$dir/sparse.log
		if ! make -C "$kdir" M="$dir/kmod" C=2 W=1 modules >"$log" 2>&1; then
			all+="$kver: build failed:"$'\n'"$(tail -n 20 "$log")"$'\n'
			continue
		fi
		out=$(grep -E 'warning:|error:' "$log" | sed "s|$dir/||" || true)
		[[ -z $out ]] || all+="$kver:"$'\n'"$out"$'\n'
	done < <("$REPO/tests/vm/kernels.sh" 2>/dev/null)
	report "sparse C=2" "${all%$'\n'}"
}

userspace_sources() {
	(cd "$REPO" && find lib tools bench -name '*.c' 2>/dev/null | sort)
}

run_cppcheck() {
	local out
	command -v cppcheck >/dev/null || { report cppcheck "cppcheck not installed (scripts/deps.sh)"; return; }
	out=$(cd "$REPO" && cppcheck --quiet --std=c11 \
		--enable=warning,style,performance,portability \
		--inline-suppr --suppressions-list="$HERE/cppcheck.suppress" \
		-D_GNU_SOURCE -Iuapi -Ilib/include -Ilib -Itests/selftests \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		lib tools bench 2>&1)
	report cppcheck "$out"
}

run_clang_tidy() {
	local -a srcs
	local out
	command -v clang-tidy >/dev/null || { report clang-tidy "clang-tidy not installed (scripts/deps.sh)"; return; }
	mapfile -t srcs < <(userspace_sources)
	[[ ${#srcs[@]} -gt 0 ]] || { report clang-tidy ""; return; }
	out=$(cd "$REPO" && clang-tidy --quiet --config-file="$HERE/clang-tidy.yaml" \
		"${srcs[@]}" -- -std=gnu11 -D_GNU_SOURCE -Iuapi -Ilib/include -Ilib \
		-Itools -Itests/selftests $(pkg-config --cflags libnl-genl-3.0 2>/dev/null) 2>&1 |
		grep -E -A3 'warning:|error:' || true)
	report clang-tidy "$out"
}

main() {
	mkdir -p "$OUT"
	run_checkpatch
	run_sparse
	run_cppcheck
	run_clang_tidy
	if [[ $FAILED -gt 0 ]]; then
		echo "lint: $FAILED tool(s) with findings"
		return 1
	fi
	echo "lint: clean"
}

main "$@"
