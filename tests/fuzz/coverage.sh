#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage.sh KAV_KO RESULTS_LOG
#
# Map the PCs kav_fuzzer printed ("# fuzz-pcs: <hex .text offsets>", from
# kcov) to kav.ko's functions and source lines with addr2line, and list
# the functions of .text that no PC reached. KAV_KO must be the module the
# guest ran (built for the debug tree: build/vm/<kver>/kmod/kav.ko).
set -euo pipefail
export LC_ALL=C

ko=${1:?KAV_KO} log=${2:?RESULTS_LOG}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tr -d '\r' <"$log" | sed -n 's/^# fuzz-pcs://p' | tr ' ' '\n' |
	sed '/^$/d; s/^/0x/' | sort -u >"$tmp/pcs"
# Functions of .text (section index of .text), with start and size.
textndx=$(readelf -SW "$ko" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p' | head -n 1)
readelf -sW "$ko" | awk -v ndx="$textndx" \
	'$4 == "FUNC" && $7 == ndx { printf "%d %d %s\n", strtonum("0x" $2), $3, $8 }' |
	sort -n >"$tmp/funcs"
# Each PC -> function, file:line.
addr2line -f -e "$ko" -j .text <"$tmp/pcs" | paste - - >"$tmp/lines"

total=$(wc -l <"$tmp/funcs")
pcs=$(wc -l <"$tmp/pcs")
# Functions hit: a PC inside [start, start + size).
while read -r pc; do printf '%d\n' "$pc"; done <"$tmp/pcs" >"$tmp/pcs.dec"
awk 'NR == FNR { pc[NR] = $1; n = NR; next }
     { hit = 0
       for (i = 1; i <= n; i++) if (pc[i] >= $1 && pc[i] < $1 + $2) { hit = 1; break }
       print (hit ? "hit" : "miss"), $3 }' "$tmp/pcs.dec" "$tmp/funcs" >"$tmp/func-hits"
hit=$(grep -c '^hit' "$tmp/func-hits" || true)
lines=$(cut -f2 "$tmp/lines" | sed 's/ (discriminator.*//' | grep -v '^??' | sort -u | tee "$tmp/uniq-lines" | wc -l)
echo "kav.ko coverage: $pcs PCs, $lines source lines, $hit of $total functions in .text"
echo "lines reached per file:"
sed 's/:[0-9]*$//; s|.*/||' "$tmp/uniq-lines" | sort | uniq -c | sort -rn | sed 's/^/  /'
echo "functions not reached:"
grep '^miss' "$tmp/func-hits" | cut -d' ' -f2 | sort | sed 's/^/  /'
