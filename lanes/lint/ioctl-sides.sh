#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ioctl-sides.sh [--selftest]: no name is defined on both sides of the
# ioctl. A function (static ones too) or a struct tag defined in kmod/
# must not also be defined in lib/ (uapi/, the shared contract, is not
# read): one name, two meanings, is how a reader of one side takes the
# other's semantics for its own.
#
# Reads the tree with universal-ctags: every *.c and *.h under kmod/ and
# lib/ parsed as C (--langmap=C:+.h: headers too), kinds f (function
# definitions, not prototypes) and s (struct tags). A name of either kind
# on one side that is a name of either kind on the other is a finding:
#
#   NAME: kmod/FILE:LINE (KIND) ... | lib/FILE:LINE (KIND) ...
#
# Prints the findings, one a line; exit status 1 if there are any.
# --selftest: checks the check on a small tree with a collision (a struct
# in kmod/ that is a static function in lib/: must be found) and one
# without (must be clean); prints what went wrong, exit status 1 if so.
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# Debian's universal-ctags is ctags-universal; "ctags" may be another.
CTAGS=$(command -v ctags-universal || command -v ctags || echo ctags)

# defs ROOT DIR: "NAME KIND FILE:LINE" for each definition under ROOT/DIR.
defs() {
	(cd "$1" && "$CTAGS" -x --languages=C --langmap=C:+.h --kinds-C=fs \
		--_xformat='%N %K %F:%n' -R "$2") | sort -u
}

# check ROOT: the findings for the tree at ROOT.
check() {
	local root=$1 k l
	command -v "$CTAGS" >/dev/null || { echo "ctags (universal-ctags) not installed (scripts/deps.sh)"; return; }
	"$CTAGS" --version 2>/dev/null | grep -q 'Universal Ctags' ||
		{ echo "ctags is not universal-ctags (scripts/deps.sh)"; return; }
	[[ -d $root/kmod && -d $root/lib ]] || { echo "$root: no kmod/ or lib/"; return; }
	k=$(defs "$root" kmod) || { echo "ctags failed on kmod/"; return; }
	l=$(defs "$root" lib) || { echo "ctags failed on lib/"; return; }
	awk '
		FNR == 1 { side++ }
		{ where[side, $1] = where[side, $1] " " $3 " (" $2 ")"; seen[side, $1] = 1 }
		END {
			for (key in seen) {
				split(key, p, SUBSEP)
				if (p[1] == 1 && ((2, p[2]) in seen))
					printf "%s:%s |%s\n", p[2], where[1, p[2]], where[2, p[2]]
			}
		}' <(printf '%s\n' "$k") <(printf '%s\n' "$l") | sort
}

selftest() {
	local t out bad=''
	t=$(mktemp -d) || return 1
	mkdir -p "$t/bad/kmod" "$t/bad/lib/include" "$t/bad/uapi" \
		 "$t/good/kmod" "$t/good/lib" "$t/good/uapi"
	cat >"$t/bad/kmod/k.c" <<'EOF'
struct kav_thing { int a; };
static int kav_k_only(void) { return 0; }
int kav_both_fn(int x) { return x; }
EOF
	cat >"$t/bad/lib/l.c" <<'EOF'
static void kav_thing(void) { }
int kav_both_fn(int x);
int kav_both_fn(int x) { return x + 1; }
EOF
	# The shared header defines what both sides use: not a collision.
	echo 'struct kav_shared { int a; };' >"$t/bad/uapi/kav.h"
	echo 'struct kav_shared;' >"$t/bad/lib/include/kav.h"
	cp "$t/bad/uapi/kav.h" "$t/good/uapi/"
	printf 'struct kav_k { int a; };\nstatic int kav_k_fn(void) { return 0; }\n' >"$t/good/kmod/k.c"
	printf 'int kav_k_fn(void);\nstatic int kav_l_fn(void) { return 0; }\n' >"$t/good/lib/l.c"
	out=$(check "$t/bad")
	grep -q '^kav_thing: kmod/k.c:1 (struct) | lib/l.c:1 (function)$' <<<"$out" ||
		bad+="bad tree: struct/function kav_thing not found"$'\n'
	grep -q '^kav_both_fn: ' <<<"$out" || bad+="bad tree: kav_both_fn not found"$'\n'
	[[ $(grep -c . <<<"$out") -eq 2 ]] || bad+="bad tree: want 2 findings, got:"$'\n'"$out"$'\n'
	out=$(check "$t/good")
	[[ -z $out ]] || bad+="good tree: findings:"$'\n'"$out"$'\n'
	rm -rf "$t"
	printf '%s' "$bad"
	[[ -z $bad ]]
}

if [[ ${1:-} == --selftest ]]; then
	selftest
	exit
fi
out=$(check "$REPO")
[[ -z $out ]] || { printf '%s\n' "$out"; exit 1; }
