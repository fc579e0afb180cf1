#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lintian-check.sh [DEBDIR]: lintian on kav's source package and on every
# binary package make deb built (the .changes in DEBDIR, default
# build/deb), and debian/copyright against the SPDX tags of the source.
#
# lintian runs with --pedantic --display-info and fails on E:, W: and I:
# (--fail-on error,warning,info). Info tags are cheap to fix and are where
# the hardening findings (hardening-no-fortify-functions) and the symbols
# file's missing Build-Depends-Package live, so they count. Pedantic (P:)
# tags are printed as TAP comments but do not fail: lintian calls them
# opinions, and they change between lintian releases. Experimental (X:)
# and overridden (O:) tags are not shown. Overrides live in
# debian/*lintian-overrides, each with the reason in a comment; those only
# one release's lintian needs in debian/<package>.lintian-overrides.<release>
# (debian/rules). Runs in the trixie root too (trixie-check.sh).
#
# copyright: every file of the source tree (the files git knows or would
# add) whose first lines carry an SPDX-License-Identifier falls, by DEP-5's
# rule (the last matching Files paragraph wins), under a paragraph whose
# License is that identifier written DEP-5's way.
#
# Prints TAP.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DEBDIR=${1:-$REPO/build/deb}
TMP=''
# shellcheck source=lanes/pkg/tap.sh
. "$HERE/tap.sh"

run_lintian() {
	local changes=$1 rc=0 codename
	local -a release=()
	# debian/control's Standards-Version is the newest bookworm's lintian
	# knows (4.6.2): it calls a newer one a warning (newer-standards-version).
	# A later release's lintian calls 4.6.2 out of date (an I: tag); there,
	# and only for that tag, it does not count.
	# shellcheck disable=SC1091 # the system's own file
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[[ $codename == bookworm ]] ||
		release=(--suppress-tags out-of-date-standards-version)
	# lintian warns that it runs as root; the packages are only read.
	lintian --pedantic --display-info --tag-display-limit 0 "${release[@]}" \
		--fail-on error,warning,info "$changes" >"$TMP/lintian" 2>&1 ||
		rc=$?
	grep -v '^running with root privileges' "$TMP/lintian" | sed 's/^/# /'
	return "$rc"
}

# The source's files with an SPDX tag, as "path<TAB>identifier".
spdx_tags() {
	local f tag
	(cd "$REPO" && if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -type f ! -path './build/*' ! -path './.git/*' | sed 's|^\./||'
	fi) | sort -u | while read -r f; do
		[[ -f $REPO/$f ]] || continue
		tag=$(head -n 5 "$REPO/$f" | grep -a -m 1 -o 'SPDX-License-Identifier: .*' |
			sed -e 's/SPDX-License-Identifier: *//' -e 's|\*/||' \
			    -e 's/-->//' -e 's/[[:space:]]*$//') || continue
		[[ -n $tag ]] && printf '%s\t%s\n' "$f" "$tag"
	done
}

# Prints the files whose paragraph in debian/copyright names another license.
copyright_mismatches() {
	python3 - "$REPO/debian/copyright" "$TMP/spdx" <<'PY'
import fnmatch, re, sys

def dep5(spdx):
    # DEP-5 has no parentheses: "with ... exception" binds tightest,
    # then "and", then "or", which is how kav's tags group anyway.
    s = spdx.strip().replace('(', '').replace(')', '')
    s = re.sub(r' WITH (\S+)', r' with \1 exception', s)
    return s.replace(' OR ', ' or ').replace(' AND ', ' and ')

paras, cur = [], {}
field = None
for line in open(sys.argv[1], encoding='utf-8').read().split('\n') + ['']:
    if not line.strip():
        if cur:
            paras.append(cur)
        cur, field = {}, None
    elif line[0] in ' \t':
        if field:
            cur[field] += '\n' + line.strip()
    else:
        field, _, value = line.partition(':')
        cur[field] = value.strip()
files = [(p['Files'].split(), p['License'].split('\n')[0].strip())
         for p in paras if 'Files' in p]
bad = 0
for line in open(sys.argv[2], encoding='utf-8'):
    path, tag = line.rstrip('\n').split('\t')
    lic = None
    for pats, l in files:                       # DEP-5: the last match wins
        if any(fnmatch.fnmatchcase(path, pat) for pat in pats):
            lic = l
    if lic != dep5(tag):
        print(f'{path}: SPDX {tag}, debian/copyright says {lic}')
        bad = 1
sys.exit(bad)
PY
}

main() {
	local changes all
	command -v lintian >/dev/null || { echo "Bail out! lintian is not installed (make deps)"; exit 1; }
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	all=("$DEBDIR"/kav_*.changes)
	changes=${all[0]}
	[[ -f $changes ]] || { echo "Bail out! no kav_*.changes in $DEBDIR (make deb)"; exit 1; }

	echo "1..2"
	check "lintian $(basename "$changes") (source, kav-dkms, libkav0, libkav-dev, kav-tools): no E:, W: or I: tag" \
		run_lintian "$changes"
	if ! command -v python3 >/dev/null; then
		# The same on every release: the host's run checks it.
		N=$((N + 1))
		echo "ok $N - debian/copyright names each file's SPDX license # SKIP no python3 here"
		return "$FAILED"
	fi
	spdx_tags >"$TMP/spdx"
	echo "# $(wc -l <"$TMP/spdx") files with an SPDX tag"
	check "debian/copyright names each file's SPDX license" \
		copyright_mismatches
	return "$FAILED"
}

main "$@"
