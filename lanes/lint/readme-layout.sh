#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# readme-layout.sh [--selftest]: README.md's layout section names every
# folder of the tree a reader needs a map for: each top-level folder,
# each folder directly under tests/ and each folder directly under lanes/
# (when there is a lanes/).
#
# The folders are those of the files git knows (tracked, or new and not
# ignored), so that build/ and other ignored output are not asked for;
# outside a git work tree, every directory. Folders whose name starts
# with "." are not asked for.
#
# The section is the Markdown heading whose text is "Layout" (any level:
# "## Layout") up to the next heading of the same or a higher level;
# lines in fenced code blocks are never headings. Without one, that is
# the finding. In it, a path is written:
#
#   - in a fenced code block, as the first word of a line that does not
#     start with a blank ("tests/unit/  cmocka ...", "uapi/linux/kav.h
#     ..."), a path from the top of the tree; or, in a tree drawing, as
#     the word after a connector ("├── ", "└── ", "|-- ", "`-- "), a
#     path below the entry one level up (a level is 4 columns: the
#     connector's column / 4), the line above the drawing's first
#     connector being its root ("." or "kav/": the top of the tree);
#   - outside code blocks, as a `code span` that contains a "/".
#
# A path names itself and every folder above it: "tests/unit/" names
# tests/ and tests/unit/, "uapi/linux/kav.h" names uapi/ and uapi/linux/.
# A folder missing from those names is a finding, "FOLDER/: not in
# README.md's layout section".
#
# Prints the findings, one a line; exit status 1 if there are any.
# --selftest: checks the check on temporary trees (a folder left out of
# a list, of a tree drawing, under lanes/; no section at all: must be
# found; a tree whose every folder is named: clean).
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# The folders ROOT must document, one a line, "DIR/" or "tests/DIR/".
wanted() {
	local root=$1
	{
		if git -C "$root" rev-parse --show-toplevel 2>/dev/null |
			grep -qxF -- "$(cd "$root" && pwd -P)"; then
			git -C "$root" ls-files --cached --others --exclude-standard |
				awk -F/ 'NF > 1 { print $1 "/" }
					 NF > 2 && ($1 == "tests" || $1 == "lanes") { print $1 "/" $2 "/" }'
		else
			(cd "$root" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f/\n'
			 for d in tests lanes; do
				[[ -d $d ]] && find "$d" -mindepth 1 -maxdepth 1 -type d -printf "$d/%f/\n"
			 done)
		fi
	} | grep -v -E '(^|/)\.' | sort -u
}

# The folders README.md's layout section names, one a line, "X/" and
# "X/Y/" ... for each path in it (see the header).
documented() {
	awk '
	function add(path,    n, i, p, parts) {
		sub(/^\.\//, "", path)
		gsub(/[`*,;:()]+$/, "", path)
		if (path == "" || path == "." || path ~ /^\//)
			return
		n = split(path, parts, "/")
		p = ""
		for (i = 1; i <= n; i++) {
			if (parts[i] == "")
				break
			# The last part is a folder only if written with a "/".
			if (i == n && path !~ /\/$/)
				break
			p = p parts[i] "/"
			print p
		}
	}
	/^```/ {
		fence = !fence
		root = ""
		delete parent
		next
	}
	!fence && /^#+[ \t]/ {
		match($0, /^#+/)
		level = RLENGTH
		title = substr($0, RLENGTH + 1)
		gsub(/^[ \t]+|[ \t#]+$/, "", title)
		if (insec && level <= seclevel) {
			insec = 0
			exit
		}
		if (tolower(title) == "layout") {
			insec = 1
			seclevel = level
			found = 1
		}
		next
	}
	!insec { next }
	fence {
		line = $0
		if (match(line, /(├── |└── |\|-- |`-- )/)) {
			col = RSTART - 1
			# Count columns, not bytes: the drawing characters are
			# three bytes each in UTF-8 and one column wide.
			pre = substr(line, 1, col)
			gsub(/│|├|└|─/, "x", pre)
			lvl = int(length(pre) / 4) + 1
			rest = substr(line, RSTART + RLENGTH)
			split(rest, w, /[ \t]+/)
			name = w[1]
			if (name == "")
				next
			base = root
			for (i = 1; i < lvl; i++)
				base = base parent[i]
			if (name ~ /\/$/)
				parent[lvl] = name
			add(base name)
			next
		}
		if (line ~ /^[ \t]/ || line == "")
			next
		split(line, w, /[ \t]+/)
		name = w[1]
		delete parent
		# The root of a tree drawing that may follow; "." or "kav/"
		# is the top of the tree, no folder.
		if (name == "." || name == "./" || name == "kav/") {
			root = ""
			next
		}
		root = name ~ /\/$/ ? name : ""
		add(name)
		next
	}
	{
		line = $0
		while (match(line, /`[^`]+`/)) {
			span = substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
			if (span ~ /\//)
				add(span)
		}
	}
	END {
		if (!found)
			print "!nosection"
	}' "$1" | sort -u
}

# check ROOT: the findings for the tree at ROOT.
check() {
	local root=$1 docs
	[[ -f $root/README.md ]] || { echo "README.md: missing"; return; }
	docs=$(documented "$root/README.md")
	if grep -qx '!nosection' <<<"$docs"; then
		echo "README.md: no layout section (a heading \"Layout\")"
		return
	fi
	comm -23 <(wanted "$root") <(printf '%s\n' "$docs") |
		sed "s|\$|: not in README.md's layout section|"
}

selftest() {
	local t out bad='' d
	t=$(mktemp -d) || return 1
	# A list (as README.md's today) that leaves out tests/lint/ and lib/.
	for d in kmod lib uapi/linux tests/unit tests/vm tests/lint .hidden; do
		mkdir -p "$t/list/$d"
	done
	cat >"$t/list/README.md" <<'EOF'
# x

## Layout

```
uapi/linux/kav.h  the contract
kmod/             the module
tests/unit/       unit tests
                  tests/lint/ (a continuation line names nothing)
tests/vm/         the VM harness
```

## License

Not `lib/` here: this paragraph is in the next section.
EOF
	out=$(check "$t/list")
	[[ $out == "lib/: not in README.md's layout section"$'\n'"tests/lint/: not in README.md's layout section" ]] ||
		bad+="list: want lib/ and tests/lint/, got:"$'\n'"$out"$'\n'

	# The same folders, all named: a list, a tree drawing and a code span.
	cp -r "$t/list" "$t/good"
	cat >"$t/good/README.md" <<'EOF'
## Layout

```
.
├── kmod/        the module
├── lib/         libkav
├── tests/
│   ├── unit/    unit tests
│   └── vm/      the VM harness
└── uapi/
    └── linux/
```

The linters are in `tests/lint/`.

## License
EOF
	out=$(check "$t/good")
	[[ -z $out ]] || bad+="good tree: findings:"$'\n'"$out"$'\n'

	# A tree drawing without tests/vm/, and a lanes/ folder not named.
	cp -r "$t/good" "$t/tree"
	mkdir -p "$t/tree/lanes/lint"
	sed -i -e '/vm\//d' -e 's/├── unit/└── unit/' "$t/tree/README.md"
	sed -i 's/^└── uapi/├── lanes\/\n└── uapi/' "$t/tree/README.md"
	out=$(check "$t/tree")
	[[ $out == "lanes/lint/: not in README.md's layout section"$'\n'"tests/vm/: not in README.md's layout section" ]] ||
		bad+="tree: want lanes/lint/ and tests/vm/, got:"$'\n'"$out"$'\n'

	# A nested entry of the drawing is no top-level folder.
	mkdir -p "$t/nest/unit" "$t/nest/tests/unit"
	# shellcheck disable=SC2016 # backquotes: Markdown
	printf '## Layout\n\n```\ntests/\n├── unit/\n```\n' >"$t/nest/README.md"
	out=$(check "$t/nest")
	[[ $out == "unit/: not in README.md's layout section" ]] ||
		bad+="nest: want unit/, got:"$'\n'"$out"$'\n'

	# No layout section at all.
	mkdir -p "$t/none/kmod"
	# shellcheck disable=SC2016 # backquotes: Markdown
	printf '# x\n\n## Status\n\n```\n## Layout\nkmod/\n```\n' >"$t/none/README.md"
	out=$(check "$t/none")
	[[ $out == "README.md: no layout section"* ]] ||
		bad+="none: want no section, got:"$'\n'"$out"$'\n'
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
