# SPDX-License-Identifier: GPL-2.0
#
# kav-wire-sa's parsers (kav-wire-sa(8)), apart from the shell script:
# POSIX awk, run as awk -v what=WHAT -f kav-wire-sa.awk.
#
#   what=addr    one IPv4 or IPv6 address a line: its 16 bytes as 32 hex
#                digits (IPv4 as ::ffff:a.b.c.d), or nothing if it is
#                not an address
#   what=policy  `ip xfrm policy list dir out`: "src dst mark mask reqid"
#                for each policy whose template has a reqid
#   what=state   `ip xfrm state list proto esp mode transport` with
#                -v lim=KEY_LIMIT: "src dst spi reqid aead" for each SA
#                whose reqid is a key (1 .. lim - 1)

# ------------------------------------------------------------ addresses

function v4(s, out,   n, p, i) {
	n = split(s, p, ".")
	if (n != 4) return ""
	out = ""
	for (i = 1; i <= 4; i++) {
		if (p[i] !~ /^[0-9]+$/ || length(p[i]) > 3 || p[i] + 0 > 255) return ""
		if (length(p[i]) > 1 && substr(p[i], 1, 1) == "0") return ""
		out = out sprintf("%02x", p[i] + 0)
	}
	return out
}
function grp(g) {
	if (g !~ /^[0-9a-fA-F]+$/ || length(g) > 4) return ""
	return tolower(sprintf("%4s", g))
}
function groups(s, want, out,   n, p, i, g, tail) {
	# s: groups separated by ":", the last may be dotted IPv4
	out = ""
	if (s == "") return want == 0 ? "" : "x"
	n = split(s, p, ":")
	for (i = 1; i <= n; i++) {
		if (i == n && p[i] ~ /\./) {
			tail = v4(p[i])
			if (tail == "") return "x"
			out = out tail
			continue
		}
		g = grp(p[i])
		if (g == "") return "x"
		out = out g
	}
	return out
}
what == "addr" {
	a = $0
	if (a ~ /^[0-9.]+$/) {
		h = v4(a)
		if (h != "") print "00000000000000000000ffff" h
		exit
	}
	if (a !~ /^[0-9a-fA-F:.]+$/ || a ~ /:::/) exit
	n = split(a, halves, "::")
	if (n > 2) exit
	if (n == 2) {
		l = groups(halves[1]); r = groups(halves[2])
		if (l ~ /x/ || r ~ /x/) exit
		gsub(/ /, "0", l); gsub(/ /, "0", r)
		if (length(l) + length(r) > 28) exit
		z = ""
		for (i = length(l) + length(r); i < 32; i++) z = z "0"
		h = l z r
	} else {
		h = groups(a)
		if (h ~ /x/) exit
		gsub(/ /, "0", h)
	}
	if (length(h) == 32) print h
}

# ------------------------------------------------------------- policies

function flush_policy() { if (src != "" && rq != "") print src, dst, mk, mask, rq; src = ""; rq = ""; mk = ""; mask = "" }
what == "policy" && /^src / { flush_policy(); src = $2; dst = $4; next }
what == "policy" && /^[ \t]*mark / { split($2, mm, "/"); mk = mm[1]; mask = mm[2]; next }
what == "policy" && /reqid/ { for (i = 1; i < NF; i++) if ($i == "reqid") rq = $(i + 1) }

# --------------------------------------------------------------- states

function flush_state() { if (src != "" && rq + 0 >= 1 && rq + 0 < lim) print src, dst, spi, rq, alg; src = ""; rq = ""; alg = "-" }
what == "state" && /^src / { flush_state(); src = $2; dst = $4; next }
what == "state" && /proto esp/ { for (i = 1; i < NF; i++) { if ($i == "spi") spi = $(i + 1); if ($i == "reqid") rq = $(i + 1) } }
what == "state" && /aead/ { for (i = 1; i < NF; i++) if ($i == "aead") alg = $(i + 1) }

END {
	if (what == "policy")
		flush_policy()
	else if (what == "state")
		flush_state()
}
