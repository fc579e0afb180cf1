#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# canary.sh BIN
#
# Prove that kav_fuzzer (BIN) has teeth: build kav.ko from commit 15fc615,
# whose EFAULT undo erases entries it does not own (the double erase of
# issue 14, fixed since), run the fuzzer against it on Debian's 6.12
# kernel (the race needs its optimistic mutex spinning), without the seed
# programs, and check that it finds the bug by itself, printing the time it
# took. The fuzzer knows nothing of that race: it must come up with
# insert, mprotect of the output and remove on one AV at the same time.
#
# Env: FUZZ_CANARY_TIME  campaign budget, s (600)
#      FUZZ_CANARY_KERNEL kernel (6.12)
#      KAV_BUILD         build directory (<repo>/build)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUGGY=15fc615
VMDIR=${KAV_BUILD:-$REPO/build}/vm

bin=${1:?BIN}
if ! git -C "$REPO" cat-file -e "$BUGGY^{commit}" 2>/dev/null; then
	echo "canary.sh: SKIP: commit $BUGGY is not in this repository's history" \
		"(a shallow or exported tree); the canary needs its kmod/" >&2
	exit 0
fi
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git -C "$REPO" archive "$BUGGY" kmod uapi VERSION | tar -C "$src" -xf -
echo "canary.sh: kav.ko from $BUGGY (the double erase) in $src" >&2

rc=0
out=$(KAV_SRC=$src "$HERE/run.sh" --time "${FUZZ_CANARY_TIME:-600}" \
	--kernels "${FUZZ_CANARY_KERNEL:-6.12}" --args "--no-seeds --keep-going" "$bin" 2>&1) || rc=$?
printf '%s\n' "$out"
# The double erase's marks: counters that disagree with the entries or
# go "negative", an oops or a task stuck on the table lock.
found=$(grep -o 'fuzz: found after .*' <<<"$out" |
	grep -E 'nr_valid|counts|negative|no AV left|after the program|kernel report|hang' |
	head -n 1 || true)
if [[ $rc != 0 && -n $found ]]; then
	echo "canary.sh: the fuzzer found the double erase in $BUGGY's module by itself, ${found#fuzz: found }"
	grep -o 'fuzz: found after .*' <<<"$out" | sed 's/^/canary.sh: all findings: /'
	find "$VMDIR" -name "fuzz-repro-*.txt" -newer "$src" -printf "canary.sh: reproducer: %p\n"
	exit 0
fi
echo "canary.sh: FAILED: no finding on $BUGGY's module in ${FUZZ_CANARY_TIME:-600} s" >&2
exit 1
