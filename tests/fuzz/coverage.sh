#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage.sh KAV_KO RESULTS_LOG
#
# What kav_fuzzer's campaign reached of kav.ko, per file and per function.
# The PCs it printed ("# fuzz-pcs: <hex .text offsets>", from kcov) are
# return addresses of the __sanitizer_cov_trace_pc calls the compiler put
# at the head of every basic block of kav's code: those call sites (read
# from .rela.text) are the points that can be reached, so "12 of 40
# points" is block coverage. Lines: the source lines (kmod/ only) holding
# points, and how many of them were reached. KAV_KO must be the module the
# guest ran, built with -g (lanes/vm/build-kmod.sh does on the debug
# kernels): build/vm/<kver>/kmod/kav.ko.
set -euo pipefail
export LC_ALL=C
# mawk (Debian's awk) has no strtonum.
HEX='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }'

ko=${1:?KAV_KO} log=${2:?RESULTS_LOG}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Reached: the PCs, as decimal offsets into .text.
tr -d '\r' <"$log" | sed -n 's/^# fuzz-pcs://p' | tr ' ' '\n' |
	sed '/^$/d' | while read -r pc; do printf '%d\n' "0x$pc"; done |
	sort -un >"$tmp/reached"
# Points: each call to __sanitizer_cov_trace_pc in .text; kcov reports
# its return address, the relocated operand + 4. Where the compiler made
# it a tail call (jmp), kcov reports the caller's return address instead:
# those points are left out, and the PCs they give counted apart.
objdump -dr --section=.text "$ko" | awk "$HEX"'
	/^ *[0-9a-f]+:\t/ { insn = $0 }
	/R_X86_64_PLT32\t__sanitizer_cov_trace_pc-0x4$/ {
		off = $1; sub(/:$/, "", off)
		print (insn ~ /\tcall / ? "call " : "jmp ") hex(off) + 4 }' >"$tmp/sites"
awk '$1 == "call" { print $2 }' "$tmp/sites" | sort -un >"$tmp/points"
tails=$(grep -c '^jmp' "$tmp/sites" || true)
if [[ ! -s $tmp/points ]]; then
	echo "coverage.sh: $ko has no kcov points (built without CONFIG_KCOV?)" >&2
	exit 1
fi
# Functions of .text: start, size, name.
textndx=$(readelf -SW "$ko" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p' | head -n 1)
readelf -sW "$ko" | awk -v ndx="$textndx" "$HEX"'
	$4 == "FUNC" && $7 == ndx { printf "%d %d %s\n", hex($2), $3, $8 }' |
	sort -n >"$tmp/funcs"
# Each point's source line (of the call instruction, 5 bytes earlier).
awk '{ printf "0x%x\n", $1 - 5 }' "$tmp/points" |
	addr2line -e "$ko" -j .text | sed 's/ (discriminator.*//' >"$tmp/lines"
# point, reached (1/0), function, file:line (of the point's source
# line; a function's file is that of its first point in kmod/)
awk 'FILENAME == ARGV[1] { got[$1] = 1; next }
     FILENAME == ARGV[2] { fs[++nf] = $1; fz[nf] = $2; fn[nf] = $3; next }
     FILENAME == ARGV[3] { line[FNR] = $0; next }
     { f = "?"
       for (i = 1; i <= nf; i++) if ($1 >= fs[i] && $1 < fs[i] + fz[i]) { f = fn[i]; break }
       print $1, ($1 in got) ? 1 : 0, f, line[FNR] }' \
	"$tmp/reached" "$tmp/funcs" "$tmp/lines" "$tmp/points" >"$tmp/table"

stray=$(awk 'NR == FNR { p[$1] = 1; next } !($1 in p)' "$tmp/points" "$tmp/reached" | wc -l)
awk -v stray="$stray" -v tails="$tails" '
	function base(path) { sub(/.*\//, "", path); sub(/:.*/, "", path); return path }
	{ n++; r += $2
	  fp[$3]++; fr[$3] += $2
	  if (!($3 in ffile) || ffile[$3] == "?") ffile[$3] = $4 ~ /\/kmod\// ? base($4) : "?"
	  b = base($4)
	  if ($4 ~ /\/kmod\/[^\/]*:[0-9]+$/) {
		  if (!(($4) in lseen)) { lseen[$4] = 1; lt[b]++ }
		  if ($2 && !(($4) in lhit)) { lhit[$4] = 1; lr[b]++ }
	  }
	}
	END {
	  # The points of a function (and of what it inlined) count for its file.
	  for (f in fp) { nfn++; if (fr[f]) hfn++; pf[ffile[f]] += fp[f]; rf[ffile[f]] += fr[f] }
	  for (b in lt) { tl += lt[b]; hl += lr[b] }
	  printf "kav.ko coverage (kcov): %d of %d points (basic blocks) %.1f %%, " \
		 "%d of %d kmod/ source lines %.1f %%, %d of %d functions\n",
		 r, n, 100 * r / n, hl, tl, tl ? 100 * hl / tl : 0, hfn, nfn
	  printf "  (%d tail-call points left out; %d PCs are none of the points: " \
		 "the return addresses such tail calls report, or another build)\n", tails, stray
	  print "per file: points reached/total, lines reached/total"
	  for (b in lt) if (!(b in pf)) pf[b] = 0	# headers: inlined only
	  for (b in pf)
		  printf "  %-28s %5d/%-5d %5.1f %%   %4d/%-4d lines\n", b, rf[b], pf[b],
			 pf[b] ? 100 * rf[b] / pf[b] : 0, lr[b], lt[b] | "sort"
	  close("sort")
	  print "per function: points reached/total"
	  for (f in fp)
		  printf "  %-28s %-40s %4d/%-4d %5.1f %%\n", ffile[f], f, fr[f], fp[f],
			 100 * fr[f] / fp[f] | "sort"
	  close("sort")
	}' "$tmp/table"
