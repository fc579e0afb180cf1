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
start=$(date +%s)
# --ignore: 15fc615 leaves every removed entry bound to key 0 (a smaller
# bug of issue 14, found in seconds): counted apart, so that the campaign
# goes on to the double erase. --stop-on: the double erase's own marks.
out=$(KAV_SRC=$src "$HERE/run.sh" --time "${FUZZ_CANARY_TIME:-600}" \
	--kernels "${FUZZ_CANARY_KERNEL:-6.12}" \
	--args "--no-seeds --keep-going --ignore=cleared.entry.bound.to.a.key --stop-on=nr_valid --stop-on=counts" \
	"$bin" 2>&1) || rc=$?
printf '%s\n' "$out"
# The double erase's marks, and only its: nr_valid or a key slot's count
# below the entries (a second erase of a cleared entry; "negative" when
# it underflows), or a kernel report whose trace names the undo's path
# (kav_table_erase, kav_table_clear, kav_key_put_entries,
# kav_grant_uncharge) or the insert that writes through the entry pages
# it broke (kav_table_insert).
found=$(grep -o 'fuzz: found after .*' <<<"$out" |
	grep -E 'invariant violation: .*(nr_valid|counts)|kernel report|hang' |
	head -n 1 || true)
trace=$(grep -Eo '(kav_table_erase|kav_table_clear|kav_key_put_entries|kav_grant_uncharge|kav_table_insert)\+0x[0-9a-f]+' <<<"$out" |
	head -n 1 || true)
if [[ $found == *'kernel report'* || $found == *hang* ]] && [[ -z $trace ]]; then
	found=''
fi
if [[ $rc != 0 && -n $found ]]; then
	echo "canary.sh: the fuzzer found the double erase in $BUGGY's module by itself, ${found#fuzz: found }${trace:+ (trace: $trace)}"
	echo "canary.sh: time to find: $(sed -E 's/^fuzz: found after ([0-9.]+) s.*/\1/' <<<"$found") s of fuzzing ($(($(date +%s) - start)) s with the VM boot and module build)"
	grep -o 'fuzz: found after .*' <<<"$out" | sed 's/^/canary.sh: all findings: /'
	grep -o 'fuzz: [0-9]* violations ignored.*' <<<"$out" | sed 's/^/canary.sh: /' || true
	find "$VMDIR" -name "fuzz-repro-*.txt" -newer "$src" -printf "canary.sh: reproducer: %p\n"
	exit 0
fi
echo "canary.sh: FAILED: no finding on $BUGGY's module in ${FUZZ_CANARY_TIME:-600} s" >&2
exit 1
