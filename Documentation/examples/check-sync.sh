#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-sync.sh [--fix]: the examples the documents show are the programs
# in Documentation/examples/, character for character (make lint).
#
# A document marks each copy with the file it copies:
#
#   README.md     <!-- example: Documentation/examples/readme.c -->
#                 then a ```c fenced block: the file, verbatim; or
#                 <!-- excerpt: Documentation/examples/readme.c -->
#                 then a ```c fenced block: runs of the file's lines,
#                 verbatim and in the file's order, a line "..." (indent
#                 allowed) between runs standing for lines left out;
#   a man page    .\" example: Documentation/examples/kav_av.c
#                 then a .EX/.EE (or .nf/.fi) block: the file as roff,
#                 decoded here: \e is "\", \- is "-", \& is nothing,
#                 \(aq \(dq \(ga \(rs \(ti \(ha are ' " ` \ ~ ^; any other
#                 escape is an error (this script could not compare it).
#
# Checked: every marked copy equals its file, every excerpt is runs of
# its file; every Documentation/examples
# C file is shown by some document; every section 3 page whose EXAMPLES
# section has a .EX block marks at least one (kavctl(8)'s examples are
# shell sessions, not programs, and are not checked here).
#
# Prints one finding per line (with a diff), nothing when all is in sync;
# exit status 1 on any finding. --fix rewrites each marked copy from its
# file instead (roff-encoded for man pages), then checks again.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
FIX=0
FINDINGS=0
declare -A SHOWN=()

finding() {
	echo "check-sync: $*"
	FINDINGS=$((FINDINGS + 1))
}

# roff_decode: a man page's no-fill block (stdin) as plain text.
roff_decode() {
	awk '
	BEGIN {
		map["aq"] = "\047"; map["dq"] = "\""; map["ga"] = "`"
		map["rs"] = "\\"; map["ti"] = "~"; map["ha"] = "^"
	}
	{
		out = ""; s = $0
		while ((i = index(s, "\\")) > 0) {
			out = out substr(s, 1, i - 1)
			c = substr(s, i + 1, 1)
			if (c == "e") { out = out "\\"; s = substr(s, i + 2) }
			else if (c == "-") { out = out "-"; s = substr(s, i + 2) }
			else if (c == "&") { s = substr(s, i + 2) }
			else if (c == "(" && (substr(s, i + 2, 2) in map)) {
				out = out map[substr(s, i + 2, 2)]
				s = substr(s, i + 4)
			} else {
				printf "line %d: unsupported roff escape \\%s\n",
					NR, substr(s, i + 1, 3) > "/dev/stderr"
				bad = 1
				out = out "\\"; s = substr(s, i + 1)
			}
		}
		print out s
	}
	END { exit bad }'
}

# roff_encode: plain text (stdin) as lines of a .EX block.
roff_encode() {
	sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/'/\\\\(aq/g" \
	    -e 's/`/\\(ga/g' -e 's/^\./\\\&./'
}

# block DOC LINE KIND: the copy that the marker on line LINE of DOC
# starts, as stored (KIND man: .EX/.EE or .nf/.fi; md: a ``` fence).
# Fails if there is none right after the marker.
block() {
	awk -v from="$2" -v kind="$3" '
	NR <= from { next }
	!open {
		if ($0 ~ /^[[:space:]]*$/) next
		if (kind == "man" && ($0 == ".EX" || $0 == ".nf")) {
			open = 1; end = $0 == ".EX" ? ".EE" : ".fi"; next
		}
		if (kind == "md" && $0 ~ /^```/) { open = 1; end = "```"; next }
		if (kind == "man" && ($0 == ".PP" || $0 ~ /^\.\\"/)) next
		exit 3
	}
	$0 == end { closed = 1; exit 0 }
	{ print }
	END { if (!closed) exit 3 }' "$1"
}

# replace DOC LINE KIND NEWFILE: put NEWFILE's lines in place of the copy.
replace() {
	local tmp
	tmp=$(mktemp)
	awk -v from="$2" -v kind="$3" -v new="$4" '
	function dump(  l) { while ((getline l < new) > 0) print l }
	NR <= from { print; next }
	state == 0 {
		print
		if (kind == "man" && ($0 == ".EX" || $0 == ".nf")) {
			state = 1; end = $0 == ".EX" ? ".EE" : ".fi"; dump()
		} else if (kind == "md" && $0 ~ /^```/) {
			state = 1; end = "```"; dump()
		}
		next
	}
	state == 1 { if ($0 == end) { print; state = 2 } ; next }
	{ print }' "$1" >"$tmp"
	cat "$tmp" >"$1"
	rm -f "$tmp"
}

# is_excerpt FILE: stdin is runs of FILE's lines, in order, separated by
# lines "..." (any indent); fails naming the first run not found.
is_excerpt() {
	awk -v file="$1" '
	BEGIN { while ((getline l < file) > 0) f[++n] = l }
	{
		if ($0 ~ /^[[:space:]]*\.\.\.[[:space:]]*$/) { seg[++k] = ""; next }
		if (!k) k = 1
		cnt[k]++; line[k, cnt[k]] = $0
	}
	END {
		pos = 1
		for (s = 1; s <= k; s++) {
			if (!cnt[s]) continue
			for (i = pos; i + cnt[s] - 1 <= n; i++) {
				ok = 1
				for (j = 1; j <= cnt[s]; j++)
					if (f[i + j - 1] != line[s, j]) { ok = 0; break }
				if (ok) break
			}
			if (!ok || i + cnt[s] - 1 > n) {
				print "run " s " (\"" line[s, 1] "\" ...) is not in the file after line " pos - 1
				exit 1
			}
			pos = i + cnt[s]
		}
	}'
}

# check_doc DOC KIND: every marker of DOC.
check_doc() {
	local doc=$1 kind=$2 re line file rel got want d mark
	if [[ $kind == md ]]; then
		re='^<!-- (example|excerpt): (Documentation/examples/[A-Za-z0-9_.-]+) -->$'
	else
		re='^\.\\" example: (Documentation/examples/[A-Za-z0-9_.-]+)$'
	fi
	rel=${doc#"$REPO"/}
	while IFS=: read -r line d; do
		[[ $d =~ $re ]] || continue
		file=${BASH_REMATCH[-1]}
		mark=${BASH_REMATCH[1]}
		SHOWN[$file]=1
		if [[ ! -f $REPO/$file ]]; then
			finding "$rel:$line: $file does not exist"
			continue
		fi
		if ! got=$(block "$doc" "$line" "$kind"); then
			finding "$rel:$line: no ${kind/man/.EX\/.EE}${kind/md/\`\`\`c} block after the marker"
			continue
		fi
		if [[ $mark == excerpt ]]; then
			printf '%s\n' "$got" | is_excerpt "$REPO/$file" >"$OUT/err" ||
				finding "$rel:$line: the excerpt of $file is not the file's lines (--fix cannot rewrite an excerpt): $(cat "$OUT/err")"
			continue
		fi
		if [[ $FIX == 1 ]]; then
			if [[ $kind == man ]]; then
				roff_encode <"$REPO/$file" >"$OUT/new"
			else
				cp "$REPO/$file" "$OUT/new"
			fi
			replace "$doc" "$line" "$kind" "$OUT/new"
			got=$(block "$doc" "$line" "$kind")
		fi
		if [[ $kind == man ]]; then
			if ! got=$(printf '%s\n' "$got" | roff_decode 2>"$OUT/err"); then
				finding "$rel:$line: block $(cat "$OUT/err")"
				continue
			fi
		fi
		want=$(cat "$REPO/$file")
		if [[ $got != "$want" ]]; then
			finding "$rel:$line: the copy of $file differs (--fix rewrites it):"
			diff -u --label "$file" --label "$rel (copy)" \
				<(printf '%s\n' "$want") <(printf '%s\n' "$got") |
				sed 's/^/  /' || true
		fi
	done < <(grep -n -E '^(<!-- (example|excerpt): |\.\\" example: )' "$doc" || true)
}

# Section 3 pages: an EXAMPLES section with a .EX block has a marker.
check_marked() {
	local page=$1
	awk '
	/^\.SH / { in_ex = ($0 ~ /^\.SH "?EXAMPLES?"?$/) ; next }
	in_ex && /^\.\\" example: / { marked = 1 }
	in_ex && ($0 == ".EX" || $0 == ".nf") { blocks = 1 }
	END { exit (blocks && !marked) ? 1 : 0 }' "$page" ||
		finding "${page#"$REPO"/}: EXAMPLES shows code that is not marked \".\\\" example: Documentation/examples/FILE\""
}

main() {
	local f
	[[ ${1:-} == --fix ]] && FIX=1
	[[ $# -le 1 && ${1:---fix} == --fix ]] || {
		echo "usage: check-sync.sh [--fix]" >&2
		exit 2
	}
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
	check_doc "$REPO/README.md" md
	for f in "$REPO"/Documentation/man/*.[1-8]; do
		grep -q '^\.so' "$f" && continue
		check_doc "$f" man
		[[ $f == *.3 ]] && check_marked "$f"
	done
	for f in "$HERE"/*.c; do
		f=${f#"$REPO"/}
		[[ -n ${SHOWN[$f]:-} ]] || finding "$f is shown by no document (README.md or a man page)"
	done
	[[ $FINDINGS == 0 ]]
}

main "$@"
