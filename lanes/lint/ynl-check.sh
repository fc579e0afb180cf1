#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ynl-check.sh: the YNL spec Documentation/netlink/specs/kav.yaml is the
# kav family. The kernel's own generator (tools/net/ynl/ynl-gen-c.py,
# extracted from Debian's linux-source-6.12 at build time, never committed)
# renders from it:
#
#   - the uAPI (--mode uapi --header): every constant it defines must have
#     the same value in uapi/linux/kav.h (a C program prints each one,
#     built once against each header);
#   - the kernel side (--mode kernel --source): its global policy must be
#     the union of kmod/kav_genl.c's per-command policies, entry for entry
#     (each attribute the same wherever it appears), each command's policy
#     must hold exactly the request attributes the spec lists for it (do
#     and dump), and the ops table must name the same commands with the
#     same doit/dumpit and flags as kav_genl_ops. (The spec keeps
#     "kernel-policy: global": 6.12's generator renders per-op policies
#     only as genl_split_ops, which kav avoids for 6.1.)
#
# Prints the differences (nothing when they agree); exit status 1 if any.
# Env: KAV_BUILD (<repo>/build), KAV_LINUX_SOURCE (the tarball).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${KAV_BUILD:-$REPO/build}/ynl
TARBALL=${KAV_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
SRC=$OUT/linux
SPEC=$REPO/Documentation/netlink/specs/kav.yaml

die() { echo "ynl-check: $*"; exit 1; }

# A Python with PyYAML and jsonschema (Debian: python3-yaml, python3-jsonschema).
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import yaml, jsonschema' 2>/dev/null; then PY=$p; break; fi
done
[[ -n $PY ]] || die "no python3 with yaml and jsonschema (scripts/deps.sh)"

if [[ ! -f $SRC/tools/net/ynl/ynl-gen-c.py ]]; then
	[[ -r $TARBALL ]] || die "$TARBALL missing: run scripts/deps.sh (linux-source-6.12)"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	top=$(tar -tJf "$TARBALL" 2>/dev/null | head -n 1 || true)
	top=${top%%/*}
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 --wildcards \
		"$top/tools/net/ynl/*" "$top/Documentation/netlink/*.yaml" ||
		die "cannot extract the YNL generator from $TARBALL"
	# The generator finds the tree's root by its MAINTAINERS file.
	touch "$SRC/MAINTAINERS"
fi
mkdir -p "$SRC/Documentation/netlink/specs" "$OUT/gen/linux"
cp "$SPEC" "$SRC/Documentation/netlink/specs/kav.yaml"
gen() {
	(cd "$SRC/tools/net/ynl" && "$PY" ynl-gen-c.py "$@" \
		--spec "$SRC/Documentation/netlink/specs/kav.yaml") ||
		die "ynl-gen-c.py $* failed on $SPEC"
}
gen --mode uapi --header -o "$OUT/gen/linux/kav.h"
gen --mode kernel --source -o "$OUT/kav-nl.c"

# The uAPI: each constant of the rendered header, printed from both.
names=$(grep -oE '\b_{0,2}KAV_[A-Z0-9_]+' "$OUT/gen/linux/kav.h" | sort -u)
{
	echo '#include <stdio.h>'
	echo '#include <linux/kav.h>'
	echo '#define P(x) _Generic((x), char *: printf("%s=\"%s\"\n", #x, (const char *)(uintptr_t)(x)), default: printf("%s=%lld\n", #x, (long long)(uintptr_t)(x)))'
	echo '#include <stdint.h>'
	echo 'int main(void) {'
	for n in $names; do echo "P($n);"; done
	echo 'return 0; }'
} >"$OUT/print.c"
cc -std=gnu11 -I"$OUT/gen" -o "$OUT/print-spec" "$OUT/print.c" ||
	die "the rendered uAPI does not compile"
cc -std=gnu11 -I"$REPO/uapi" -o "$OUT/print-uapi" "$OUT/print.c" 2>"$OUT/uapi.err" || {
	grep -E 'error' "$OUT/uapi.err" | sed 's/^/ynl-check: uapi\/linux\/kav.h lacks: /'
	exit 1
}
diff -u --label "spec (rendered uAPI)" --label uapi/linux/kav.h \
	<("$OUT/print-spec") <("$OUT/print-uapi") || die "uAPI differs from the spec"

# The kernel side: policy entries and ops, normalised, compared.
# The sizes of the uAPI's structures a policy may name (NLA_POLICY_EXACT_LEN).
printf '%s\n' '#include <stdio.h>' '#include <linux/kav.h>' \
	'int main(void) { printf("kav_wire_net=%zu\n", sizeof(struct kav_wire_net)); return 0; }' \
	>"$OUT/sizes.c"
cc -std=gnu11 -I"$REPO/uapi" -o "$OUT/sizes" "$OUT/sizes.c" || die "uapi/linux/kav.h: no struct kav_wire_net"
sizes=$("$OUT/sizes")
"$PY" - "$OUT/kav-nl.c" "$REPO/kmod/kav_genl.c" "$REPO/uapi/linux/kav.h" "$SPEC" "$sizes" <<'PYEOF'
import re, sys, yaml
gen, ours, uapi = (open(f).read() for f in sys.argv[1:4])
spec = yaml.safe_load(open(sys.argv[4]))
consts = {'PATH_MAX': '4096'}
for m in re.finditer(r'#define\s+(KAV_\w+)\s+(\d+)', uapi):
    consts[m.group(1)] = m.group(2)
# Every enum of the uAPI (kav_grant_selector starts at 1, the others at 0).
for body in re.findall(r'enum kav_\w+ \{(.*?)\}', uapi, re.S):
    v = -1
    for m in re.finditer(r'^\s*(_{0,2}KAV_\w+)(?:\s*=\s*(\d+))?', body, re.M):
        v = int(m.group(2)) if m.group(2) else v + 1
        consts[m.group(1)] = str(v)
# The sizes of the uAPI's structures that policies name.
for m in re.finditer(r'(\w+)=(\d+)', sys.argv[5]):
    consts['sizeof(struct' + m.group(1) + ')'] = m.group(2)

def norm(expr):
    expr = re.sub(r'\s+', '', expr).rstrip(',')
    for k, val in sorted(consts.items(), key=lambda kv: -len(kv[0])):
        if k.startswith('sizeof('):
            expr = expr.replace(k, val)
        else:
            expr = re.sub(r'(?<!\w)' + re.escape(k) + r'(?!\w)', val, expr)
    expr = re.sub(r'\b(\d+)-1\b', lambda m: str(int(m.group(1)) - 1), expr)
    return expr.replace(',}', '}')

def entries(body):
    out = {}
    for m in re.finditer(r'\[(KAV_A_\w+)\]\s*=\s*(.*?)(?=,\s*\n\s*\[|,?\s*$)', body, re.S):
        out[m.group(1)] = norm(m.group(2))
    return out

def policy(text, name):
    body = re.search(name + r'\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S).group(1)
    return entries(body)

bad = 0

# kav_genl.c's per-command policies, and their union.
pols = {m.group(1): entries(m.group(2)) for m in re.finditer(
    r'nla_policy\s+(\w+)\[[^\]]*\]\s*=\s*\{(.*?)\n\};', ours, re.S)}
union = {}
for name, p in sorted(pols.items()):
    for a, e in p.items():
        if union.setdefault(a, e) != e:
            print(f"ynl-check: {name} {a}: {e}, elsewhere {union[a]}")
            bad = 1

def cname(prefix, name):
    return prefix + name.upper().replace('-', '_')

# Each command's policy: exactly the request attributes of the spec.
op_pol = {}
for blk in re.findall(r'\{(.*?)\}', re.search(r'kav_genl_ops\[[^\]]*\]\s*=\s*\{(.*?)\n\};', ours, re.S).group(1), re.S):
    cmd = re.search(r'\.cmd\s*=\s*(\w+)', blk).group(1)
    m = re.search(r'\.policy\s*=\s*(\w+)', blk)
    op_pol[cmd] = m.group(1) if m else None
for op in spec['operations']['list']:
    want = set()
    for kind in ('do', 'dump'):
        req = (op.get(kind) or {}).get('request') or {}
        want |= {cname('KAV_A_', a) for a in req.get('attributes') or []}
    cmd = cname('KAV_GENL_CMD_', op['name'])
    if not (op.get('do') or op.get('dump')):
        continue
    pname = op_pol.get(cmd)
    if pname not in pols:
        print(f"ynl-check: {cmd}: no policy of its own in kav_genl.c")
        bad = 1
    elif set(pols[pname]) != want:
        print(f"ynl-check: {cmd} ({pname}): takes {sorted(pols[pname])}, spec {sorted(want)}")
        bad = 1

def ops(text, name):
    body = re.search(name + r'\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S).group(1)
    out = {}
    for blk in re.findall(r'\{(.*?)\}', body, re.S):
        cmd = re.search(r'\.cmd\s*=\s*(\w+)', blk).group(1)
        out[cmd] = ('doit' if '.doit' in blk else '') + \
                   ('+dumpit' if '.dumpit' in blk else '') + \
                   ' ' + (re.search(r'\.flags\s*=\s*([\w| ]+)', blk) or
                          re.search(r'()', '')).group(1).strip()
    return out

for what, a, b in (('policy', policy(gen, 'kav_nl_policy'), union),
                   ('ops', ops(gen, 'kav_nl_ops'), ops(ours, 'kav_genl_ops'))):
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"ynl-check: {what} {k}: spec {a.get(k)} kav_genl.c {b.get(k)}")
            bad = 1
sys.exit(bad)
PYEOF
