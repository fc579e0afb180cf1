#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layering.sh [--selftest] [UNIT:COMP=OBJDIR ...]: the files of kmod/,
# lib/ and prov/ call each other without a cycle, and prov/ may use lib/
# but lib/ may not use prov/.
#
# Reads the built objects with nm (binutils), not the sources: a call
# through a macro or an inline of a header is where the linker sees it.
# An object OBJDIR/X.o stands for COMP/X.c (an object without such a
# source, as kbuild's kav.o and kav.mod.o, is not read; a source without
# an object is a finding). In one component, A -> B when A's object has
# an undefined symbol (nm: U, w) that B's object defines (any global
# type, weak too). Each strongly connected set of two files or more is a
# finding: its files, then each edge between them with the symbols that
# make it:
#
#   lib: cycle of 3 files: lib/a.c lib/b.c lib/c.c
#     lib/a.c -> lib/b.c: b_fn
#     ...
#
# Components of one UNIT link together (libkav-fi.so holds prov/'s and
# lib/'s objects), so a symbol a component lacks is looked up in the
# others of its unit: an edge from a component to one that is not below
# it in ORDER (prov over lib) is a finding, "lib/a.c -> prov/p.c: lib
# may not use prov (p_fn)". kav.ko is a unit of its own.
#
# Default objects (KAV_BUILD, <repo>/build): kmod/ as built against each
# kernel by lint.sh's sparse step ($KAV_BUILD/lint/sparse-KVER/kmod, one
# unit each; else the VM harness's $KAV_BUILD/vm/KVER/kmod), lib/ and
# prov/ from the normal build ($KAV_BUILD/lib, $KAV_BUILD/prov; lint.sh
# runs "make lib prov" first).
#
# Prints the findings, one a line; exit status 1 if there are any.
# --selftest: compiles small trees (a cycle of three files in lib/, one
# of two in kmod/, lib/ calling prov/: must be found; the same tree
# without them: clean) and runs the check on their objects.
set -uo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${KAV_BUILD:-$REPO/build}
# Components from the top down: each may use those after it in its unit.
ORDER="prov lib"

# symbols SRCROOT UNIT COMP OBJDIR: "UNIT COMP FILE TYPE SYMBOL" for
# each symbol of each object; a source without an object is printed as
# "!missing FILE".
symbols() {
	local root=$1 unit=$2 comp=$3 dir=$4 src o base
	for src in "$root/$comp"/*.c; do
		[[ -e $src ]] || continue
		base=${src##*/}
		base=${base%.c}
		[[ $base == *.mod ]] && continue
		o=$dir/$base.o
		if [[ ! -f $o ]]; then
			echo "!missing $comp/$base.c $dir"
			continue
		fi
		nm -P "$o" | awk -v u="$unit" -v c="$comp" -v f="$comp/$base.c" \
			'NF >= 2 { print u, c, f, $2, $1 }'
	done
}

# check SRCROOT ORDER SPEC...: the findings for the objects of SPEC
# (UNIT:COMP=OBJDIR) built from the sources under SRCROOT.
check() {
	local root=$1 order=$2 spec unit comp dir
	shift 2
	command -v nm >/dev/null || { echo "nm (binutils) not installed (scripts/deps.sh)"; return; }
	for spec in "$@"; do
		unit=${spec%%:*}
		comp=${spec#*:}
		dir=${comp#*=}
		comp=${comp%%=*}
		symbols "$root" "$unit" "$comp" "$dir"
	done | awk -v order="$order" '
	$1 == "!missing" { printf "%s: no object in %s\n", $2, $3; next }
	{
		u = $1; c = $2; f = $3; t = $4; s = $5
		file[u, c, f] = 1
		if (t == "U" || t == "w")
			und[u, c, f, s] = 1
		else if (t ~ /^[A-Z]$/ || t == "i" || t == "v")
			def[u, c, s] = f
	}
	function symlist(lst,    n, a, i, j, tmp, out) {
		n = split(lst, a, " ")
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) {
					tmp = a[i]; a[i] = a[j]; a[j] = tmp
				}
		out = a[1]
		for (i = 2; i <= n && i <= 4; i++)
			out = out ", " a[i]
		if (n > 4)
			out = out sprintf(" (+%d)", n - 4)
		return out
	}
	END {
		n = split(order, ord, " ")
		for (i = 1; i <= n; i++)
			rank[ord[i]] = i
		for (k in und) {
			split(k, p, SUBSEP)
			u = p[1]; c = p[2]; f = p[3]; s = p[4]
			if ((u, c, s) in def) {
				g = def[u, c, s]
				if (g != f)
					edge[u, c, f, g] = edge[u, c, f, g] " " s
				continue
			}
			# Another component of the unit.
			for (k2 in file) {
				split(k2, q, SUBSEP)
				if (q[1] != u || q[2] == c || !((u, q[2], s) in def))
					continue
				g = def[u, q[2], s]
				if (!(c in rank) || !(q[2] in rank) || rank[q[2]] <= rank[c])
					cross[f, g, c, q[2]] = cross[f, g, c, q[2]] " " s
			}
		}
		nx = 0
		for (k in cross) {
			split(k, p, SUBSEP)
			xs[++nx] = sprintf("%s -> %s: %s may not use %s (%s)", p[1], p[2], p[3], p[4], symlist(cross[k]))
		}
		for (i = 1; i <= nx; i++)
			for (j = i + 1; j <= nx; j++)
				if (xs[j] < xs[i]) {
					tmp = xs[i]; xs[i] = xs[j]; xs[j] = tmp
				}
		for (i = 1; i <= nx; i++)
			print xs[i]
		# Per unit and component: reachability, then strongly
		# connected sets of two files or more.
		for (k in file) {
			split(k, p, SUBSEP)
			uc = p[1] SUBSEP p[2]
			nn[uc]++
			node[uc, nn[uc]] = p[3]
		}
		nu = 0
		for (uc in nn)
			keys[++nu] = uc
		for (i = 1; i <= nu; i++)
			for (j = i + 1; j <= nu; j++)
				if (keys[j] < keys[i]) {
					tmp = keys[i]; keys[i] = keys[j]; keys[j] = tmp
				}
		for (ki = 1; ki <= nu; ki++) {
			uc = keys[ki]
			split(uc, p, SUBSEP)
			m = nn[uc]
			# Sort the files: stable output.
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (node[uc, j] < node[uc, i]) {
						tmp = node[uc, i]; node[uc, i] = node[uc, j]; node[uc, j] = tmp
					}
			delete r
			for (i = 1; i <= m; i++)
				for (j = 1; j <= m; j++)
					if ((p[1], p[2], node[uc, i], node[uc, j]) in edge)
						r[i, j] = 1
			for (x = 1; x <= m; x++)
				for (i = 1; i <= m; i++)
					if ((i, x) in r)
						for (j = 1; j <= m; j++)
							if ((x, j) in r)
								r[i, j] = 1
			delete done
			# "kmod@KVER" for the objects of a kernel, else the component.
			label = index(p[1], p[2]) == 1 ? p[1] : p[2]
			for (i = 1; i <= m; i++) {
				if ((i in done) || !((i, i) in r))
					continue
				members = ""
				cnt = 0
				delete in_set
				for (j = 1; j <= m; j++)
					if (j == i || (((i, j) in r) && ((j, i) in r))) {
						done[j] = 1
						in_set[j] = 1
						members = members " " node[uc, j]
						cnt++
					}
				printf "%s: cycle of %d files:%s\n", label, cnt, members
				for (a = 1; a <= m; a++)
					for (b = 1; b <= m; b++)
						if ((a in in_set) && (b in in_set) &&
						    ((p[1], p[2], node[uc, a], node[uc, b]) in edge))
							printf "  %s -> %s: %s\n", node[uc, a], node[uc, b],
							       symlist(edge[p[1], p[2], node[uc, a], node[uc, b]])
			}
		}
	}'
}

# The default SPECs (see the header), one a line; "!" and a message if
# a component has no objects.
default_specs() {
	local d found=0
	for d in "$BUILD"/lint/sparse-*/kmod; do
		[[ -d $d ]] || continue
		d=${d%/kmod}
		echo "kmod@${d##*/sparse-}:kmod=$d/kmod"
		found=1
	done
	if [[ $found -eq 0 ]]; then
		for d in "$BUILD"/vm/*/kmod; do
			[[ -f $d/kav_main.o ]] || continue
			d=${d%/kmod}
			echo "kmod@${d##*/}:kmod=$d/kmod"
			found=1
		done
	fi
	[[ $found -eq 1 ]] || echo "!no kmod objects in $BUILD/lint/sparse-*/kmod (lint.sh's sparse step builds them)"
	for d in lib prov; do
		if compgen -G "$BUILD/$d/*.o" >/dev/null; then
			echo "user:$d=$BUILD/$d"
		else
			echo "!no $d objects in $BUILD/$d (make $d)"
		fi
	done
}

selftest() {
	local t out bad='' f
	t=$(mktemp -d) || return 1
	command -v cc >/dev/null || { echo "cc not installed"; return 1; }
	mkdir -p "$t/src/kmod" "$t/src/lib" "$t/src/prov" "$t/obj/kmod" \
		 "$t/obj/lib" "$t/obj/prov"
	# lib: a -> b -> c -> a; d calls prov (lib may not); e is alone.
	echo 'int b_fn(void); int a_fn(void) { return b_fn(); }' >"$t/src/lib/a.c"
	echo 'int c_fn(void); int b_fn(void) { return c_fn(); }' >"$t/src/lib/b.c"
	echo 'int a_fn(void); int c_fn(void) { return a_fn() + 1; }' >"$t/src/lib/c.c"
	echo 'int p_fn(void); int d_fn(void) { return p_fn(); }' >"$t/src/lib/d.c"
	echo 'int e_fn(void) { return 0; }' >"$t/src/lib/e.c"
	# prov: may use lib.
	echo 'int e_fn(void); int p_fn(void) { return e_fn(); }' >"$t/src/prov/p.c"
	# kmod: x <-> y, through a variable.
	echo 'extern int y_var; int x_var = 1; int x_fn(void) { return y_var; }' >"$t/src/kmod/x.c"
	echo 'extern int x_var; int y_var = 2; int y_fn(void) { return x_var; }' >"$t/src/kmod/y.c"
	for f in "$t"/src/*/*.c; do
		cc -c -o "$t/obj/${f#"$t"/src/}" "$f" 2>&1 || bad+="cc $f failed"$'\n'
		mv "$t/obj/${f#"$t"/src/}" "$t/obj/$(basename "$(dirname "$f")")/$(basename "${f%.c}").o"
	done
	out=$(check "$t/src" "$ORDER" "kmod:kmod=$t/obj/kmod" "u:lib=$t/obj/lib" "u:prov=$t/obj/prov")
	grep -qx 'lib: cycle of 3 files: lib/a.c lib/b.c lib/c.c' <<<"$out" ||
		bad+="bad tree: lib's cycle not found"$'\n'
	grep -qx '  lib/c.c -> lib/a.c: a_fn' <<<"$out" ||
		bad+="bad tree: lib/c.c -> lib/a.c (a_fn) not shown"$'\n'
	grep -qx 'kmod: cycle of 2 files: kmod/x.c kmod/y.c' <<<"$out" ||
		bad+="bad tree: kmod's cycle not found"$'\n'
	grep -qx 'lib/d.c -> prov/p.c: lib may not use prov (p_fn)' <<<"$out" ||
		bad+="bad tree: lib using prov not found"$'\n'
	[[ $(grep -c -v '^  ' <<<"$out") -eq 3 ]] ||
		bad+="bad tree: want 3 findings"$'\n'
	[[ -z $bad ]] || bad+="bad tree's output:"$'\n'"$out"$'\n'
	# The good tree: no c -> a, no d -> prov, no y -> x.
	rm "$t/obj/lib/c.o" "$t/obj/lib/d.o" "$t/obj/kmod/y.o"
	echo 'int c_fn(void) { return 1; }' >"$t/src/lib/c.c"
	echo 'int d_fn(void) { return 0; }' >"$t/src/lib/d.c"
	echo 'int y_var = 2; int y_fn(void) { return 0; }' >"$t/src/kmod/y.c"
	for f in lib/c lib/d kmod/y; do
		cc -c -o "$t/obj/$f.o" "$t/src/$f.c" || bad+="cc $f.c failed"$'\n'
	done
	out=$(check "$t/src" "$ORDER" "kmod:kmod=$t/obj/kmod" "u:lib=$t/obj/lib" "u:prov=$t/obj/prov")
	[[ -z $out ]] || bad+="good tree: findings:"$'\n'"$out"$'\n'
	# A source without its object.
	echo 'int z_fn(void) { return 0; }' >"$t/src/lib/z.c"
	out=$(check "$t/src" "$ORDER" "u:lib=$t/obj/lib")
	[[ $out == "lib/z.c: no object in $t/obj/lib" ]] ||
		bad+="missing object: not found, got:"$'\n'"$out"$'\n'
	rm -rf "$t"
	printf '%s' "$bad"
	[[ -z $bad ]]
}

if [[ ${1:-} == --selftest ]]; then
	selftest
	exit
fi
if [[ $# -gt 0 ]]; then
	specs=("$@")
else
	mapfile -t specs < <(default_specs)
fi
out=$(printf '%s\n' "${specs[@]}" | sed -n 's/^!//p')
mapfile -t specs < <(printf '%s\n' "${specs[@]}" | grep -v '^!')
[[ ${#specs[@]} -eq 0 ]] || out+=${out:+$'\n'}$(check "$REPO" "$ORDER" "${specs[@]}")
[[ -z $out ]] || { printf '%s\n' "$out"; exit 1; }
