#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ioctl-table.sh [--selftest]: every ioctl is in the size-contract test.
#
# tests/selftests/device/kav_ioctl_size_test.c checks the size contract (too
# small: EINVAL; non-zero bytes past sizeof(): E2BIG; zero bytes past it:
# the exact size) of each ioctl in its table, one SIZE_CASE() a line:
#
#   SIZE_CASE(variant, KAV_IOC_X, struct_tag, last_v1_field, ...
#
# Reads, as text:
#   - uapi/linux/kav.h: each "#define KAV_IOC_X _IO*(...)" is an ioctl;
#   - the test's SIZE_CASE() lines: ioctl, structure, version 1's field;
#   - kmod/*.c's KAV_IOCTL_OP(KAV_IOC_X, handler, struct S, FIELD) (the
#     ops tables kav_ucmd_dispatch() takes min_size and size from).
# Findings: an ioctl of the header missing from the test's table (or the
# reverse, or twice in it); an ioctl no ops table of kmod/ serves; a test
# row whose structure or version-1 field is not the ops table's (the
# test would check another minimum than the kernel's).
#
# Prints the findings, one a line; exit status 1 if there are any.
# --selftest: the check on copies of today's three files must be clean
# (run where they are), and a copy of the header with one more ioctl,
# or a test row with another field, must be found.
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SIZE_TEST=tests/selftests/device/kav_ioctl_size_test.c

# "KAV_IOC_X" for each ioctl the header defines.
header_ioctls() {
	sed -n -E 's/^#define[[:space:]]+(KAV_IOC_[A-Z0-9_]+)[[:space:]]+_IO(R|W|WR)?\(.*/\1/p' "$1" | sort
}

# "KAV_IOC_X struct field" for each row of the test's table.
test_rows() {
	tr '\n' ' ' <"$1" | grep -o -E 'SIZE_CASE\([[:space:]]*[a-z0-9_]+[[:space:]]*,[[:space:]]*KAV_IOC_[A-Z0-9_]+[[:space:]]*,[[:space:]]*[a-z0-9_]+[[:space:]]*,[[:space:]]*[A-Za-z0-9_]+' |
		sed -E 's/SIZE_CASE\([^,]*,[[:space:]]*([^[:space:],]+)[[:space:]]*,[[:space:]]*([^[:space:],]+)[[:space:]]*,[[:space:]]*([^[:space:],]+)/\1 \2 \3/' |
		sort
}

# "KAV_IOC_X struct field" for each KAV_IOCTL_OP() row of the module.
kmod_rows() {
	cat "$1"/*.c | tr '\n\t' '  ' |
		grep -o -E 'KAV_IOCTL_OP\([[:space:]]*KAV_IOC_[A-Z0-9_]+[[:space:]]*,[[:space:]]*[a-z0-9_]+[[:space:]]*,[[:space:]]*struct[[:space:]]+[a-z0-9_]+[[:space:]]*,[[:space:]]*[A-Za-z0-9_]+' |
		sed -E 's/KAV_IOCTL_OP\([[:space:]]*([^[:space:],]+)[[:space:]]*,[^,]*,[[:space:]]*struct[[:space:]]+([^[:space:],]+)[[:space:]]*,[[:space:]]*([^[:space:],]+)/\1 \2 \3/' |
		sort
}

# check HEADER TEST KMOD_DIR: the findings.
check() {
	local hdr=$1 test=$2 kmod=$3 ioc rows krows want have f
	for f in "$hdr" "$test"; do
		[[ -f $f ]] || { echo "${f#"$REPO"/}: missing"; return; }
	done
	rows=$(test_rows "$test")
	krows=$(kmod_rows "$kmod")
	[[ -n $(header_ioctls "$hdr") ]] || { echo "${hdr#"$REPO"/}: no KAV_IOC_* ioctl found"; return; }
	while read -r ioc; do
		grep -q "^$ioc " <<<"$rows" ||
			echo "$ioc: not in ${test#"$REPO"/}'s SIZE_CASE() table"
		grep -q "^$ioc " <<<"$krows" ||
			echo "$ioc: in no KAV_IOCTL_OP() ops table of kmod/"
	done < <(header_ioctls "$hdr")
	awk '{ print $1 }' <<<"$rows" | uniq -d | sed 's/$/: twice in the SIZE_CASE() table/'
	while read -r ioc _ _; do
		[[ -n $ioc ]] || continue
		header_ioctls "$hdr" | grep -qx "$ioc" ||
			echo "$ioc: in the SIZE_CASE() table, not in ${hdr#"$REPO"/}"
		want=$(grep "^$ioc " <<<"$krows" | head -n 1)
		have=$(grep "^$ioc " <<<"$rows" | head -n 1)
		[[ -z $want || $want == "$have" ]] ||
			echo "$ioc: the test has (${have#* }), kmod's KAV_IOCTL_OP() (${want#* })"
	done <<<"$rows"
}

selftest() {
	local t out bad=''
	t=$(mktemp -d) || return 1
	mkdir -p "$t/kmod"
	cp "$REPO/uapi/linux/kav.h" "$t/kav.h"
	cp "$REPO/$SIZE_TEST" "$t/test.c"
	cp "$REPO"/kmod/*.c "$t/kmod/"
	# Today's files: as in the tree, and a row of the test and the
	# kernel must be read (not an empty table against an empty table).
	out=$(check "$t/kav.h" "$t/test.c" "$t/kmod")
	[[ -z $out ]] || bad+="today's files: findings:"$'\n'"$out"$'\n'
	[[ $(test_rows "$t/test.c" | grep -c .) -eq $(header_ioctls "$t/kav.h" | grep -c .) ]] ||
		bad+="today's files: not one test row per ioctl"$'\n'
	grep -qx 'KAV_IOC_AV_CREATE kav_av_create map_size' <(kmod_rows "$t/kmod") ||
		bad+="kmod: KAV_IOC_AV_CREATE's ops row not read"$'\n'

	# A header with one more ioctl.
	sed 's/^#define KAV_IOC_DOMAIN_WHOAMI.*/&\n#define KAV_IOC_AV_NEW\t_IO(KAV_IOCTL_TYPE, 0x8A)/' \
		"$t/kav.h" >"$t/kav-new.h"
	out=$(check "$t/kav-new.h" "$t/test.c" "$t/kmod")
	grep -q "^KAV_IOC_AV_NEW: not in .*SIZE_CASE() table" <<<"$out" ||
		bad+="extra ioctl: not found, got:"$'\n'"$out"$'\n'

	# A test row that checks another minimum than the kernel's.
	sed 's/KAV_IOC_AV_REMOVE, kav_av_remove, fi_addrs/KAV_IOC_AV_REMOVE, kav_av_remove, count/' \
		"$t/test.c" >"$t/test-field.c"
	out=$(check "$t/kav.h" "$t/test-field.c" "$t/kmod")
	grep -q "^KAV_IOC_AV_REMOVE: the test has (kav_av_remove count), kmod's KAV_IOCTL_OP() (kav_av_remove fi_addrs)$" <<<"$out" ||
		bad+="other field: not found, got:"$'\n'"$out"$'\n'

	# A row taken out of the test.
	grep -v 'SIZE_CASE(ep_enable' "$t/test.c" >"$t/test-less.c"
	out=$(check "$t/kav.h" "$t/test-less.c" "$t/kmod")
	[[ $out == "KAV_IOC_EP_ENABLE: not in $t/test-less.c's SIZE_CASE() table" ]] ||
		bad+="row removed: not found, got:"$'\n'"$out"$'\n'
	rm -rf "$t"
	printf '%s' "$bad"
	[[ -z $bad ]]
}

if [[ ${1:-} == --selftest ]]; then
	selftest
	exit
fi
out=$(check "$REPO/uapi/linux/kav.h" "$REPO/$SIZE_TEST" "$REPO/kmod")
[[ -z $out ]] || { printf '%s\n' "$out"; exit 1; }
