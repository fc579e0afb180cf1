#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# test_cdi_generate REPO: tools/node/kav-cdi-generate's specs, YAML and
# JSON, parsed (python3-yaml, python3's json) and checked against what
# the CDI library (container-device-interface, pkg/parser and specs-go)
# requires of a spec: a known cdiVersion at least the version its fields
# need (hostPath: 0.5.0), kind "vendor/class" with valid names, devices
# with valid names, each deviceNodes[] entry with an absolute path, a
# known type and rwm permissions; and that /dev/kav's major and minor are
# the host node's (here /dev/null's, 1:3), or absent when it is missing.
# Bad command lines fail with one line and status 2. The spec is written
# through a mktemp file: links planted in the directory are not written
# through, a failure leaves no temporary file, and a directory others may
# change is refused. No kernel needed.
# Prints one line per case; exit status 1 on a failure. The YAML cases
# need python3-yaml (scripts/deps.sh installs it); where it is missing
# (the trixie root of make unit-trixie) they are skipped, said so, and the
# JSON ones still run.
set -u
REPO=${1:?usage: test_cdi_generate.sh REPO}
GEN=$REPO/tools/node/kav-cdi-generate
PY=/usr/bin/python3
[ -x "$GEN" ] || { echo "FAIL: $GEN missing or not executable"; exit 1; }
"$PY" -c 'import json' 2>/dev/null || { echo "FAIL: $PY needed"; exit 1; }
YAML=yes
"$PY" -c 'import yaml' 2>/dev/null || {
	YAML=''
	echo "skip: no python3-yaml for $PY: the YAML specs are not parsed"
}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check FILE FORMAT MAJOR MINOR [HOSTPATH]: FILE parses as FORMAT and is
# a valid CDI spec of kav.dev/av=kav for /dev/kav, major:minor as given
# ("-": absent), hostPath as given (absent when not given).
check() {
	"$PY" - "$@" <<'EOF'
import json, re, sys

path, fmt, major, minor = sys.argv[1:5]
hostpath = sys.argv[5] if len(sys.argv) > 5 else None
text = open(path).read()
if fmt == "json":
    spec = json.loads(text)
else:
    import yaml
    spec = yaml.safe_load(text)

def need(cond, what):
    if not cond:
        sys.exit("spec: " + what)

# specs-go/version.go: the released versions, and what needs which.
known = ["0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0"]
ver = spec.get("cdiVersion")
need(isinstance(ver, str) and ver in known, "cdiVersion %r unknown" % ver)
need(set(spec) <= {"cdiVersion", "kind", "devices", "containerEdits",
                   "annotations"}, "unknown top-level fields %s" % set(spec))
# pkg/parser: vendor and class start with a letter, end with a letter or
# digit, [A-Za-z0-9_.-] between; device names [A-Za-z0-9][A-Za-z0-9_.:-]*
# ending with a letter or digit.
kind = spec.get("kind")
need(isinstance(kind, str) and kind.count("/") == 1, "kind %r" % kind)
vendor, klass = kind.split("/")
vc = re.compile(r"^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$")
need(vc.match(vendor) and vc.match(klass), "kind %r: bad vendor or class" % kind)
need(kind == "kav.dev/av", "kind %r, not kav.dev/av" % kind)
devs = spec.get("devices")
need(isinstance(devs, list) and len(devs) == 1, "devices: one device")
dev = devs[0]
name = dev.get("name")
need(isinstance(name, str) and
     re.match(r"^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$", name),
     "device name %r" % name)
need(name == "kav", "device name %r, not kav" % name)
edits = dev.get("containerEdits")
need(isinstance(edits, dict) and set(edits) == {"deviceNodes"},
     "containerEdits: deviceNodes only")
nodes = edits["deviceNodes"]
need(isinstance(nodes, list) and len(nodes) == 1, "one device node")
node = nodes[0]
need(set(node) <= {"path", "hostPath", "type", "major", "minor",
                   "fileMode", "permissions", "uid", "gid"},
     "unknown device node fields %s" % set(node))
need(node.get("path") == "/dev/kav", "path %r" % node.get("path"))
need(node.get("type") in ("b", "c", "u", "p"), "type %r" % node.get("type"))
need(node.get("type") == "c", "type not c")
need(set(node.get("permissions", "")) <= set("rwm"), "permissions")
if major == "-":
    need("major" not in node and "minor" not in node, "major/minor present")
else:
    need(node.get("major") == int(major) and node.get("minor") == int(minor),
         "major:minor %r:%r, not %s:%s" % (node.get("major"),
                                           node.get("minor"), major, minor))
need(node.get("hostPath") == hostpath, "hostPath %r" % node.get("hostPath"))
if hostpath:
    need(tuple(map(int, ver.split("."))) >= (0, 5, 0),
         "hostPath needs cdiVersion 0.5.0, not %s" % ver)
EOF
}

# gen OUT ERR ARGS...: run the generator; its status.
gen() {
	_out=$1 _err=$2
	shift 2
	"$GEN" "$@" >"$_out" 2>"$_err"
}

# YAML and JSON to standard output, major and minor from a real node.
for fmt in ${YAML:+yaml} json; do
	if gen "$TMP/spec.$fmt" "$TMP/err" -o - -f "$fmt" --host-device /dev/null &&
		why=$(check "$TMP/spec.$fmt" "$fmt" 1 3 /dev/null 2>&1); then
		ok "$fmt spec on stdout is valid CDI, /dev/null's 1:3"
	else
		bad "$fmt spec on stdout: ${why:-exit $?}: $(cat "$TMP/err")"
	fi
done

# No host node: major and minor left to the runtime, said on stderr.
fmt=json
[ -z "$YAML" ] || fmt=yaml
if gen "$TMP/spec.$fmt" "$TMP/err" -o - -f "$fmt" --host-device "$TMP/no-kav" &&
	why=$(check "$TMP/spec.$fmt" "$fmt" - - "$TMP/no-kav" 2>&1) &&
	grep -q "does not exist" "$TMP/err"; then
	ok "a missing node leaves major and minor out, and says so"
else
	bad "missing node: ${why:-$(cat "$TMP/err")}"
fi

# To a file (its directory made), the format from the name.
if gen /dev/null "$TMP/err" --output "$TMP/etc/cdi/kav.yaml" --host-device /dev/null &&
	{ [ -z "$YAML" ] || why=$(check "$TMP/etc/cdi/kav.yaml" yaml 1 3 /dev/null 2>&1); } &&
	head -n 3 "$TMP/etc/cdi/kav.yaml" | grep -qx 'cdiVersion: "0.6.0"' &&
	gen /dev/null "$TMP/err" --output="$TMP/etc/cdi/kav.json" --host-device=/dev/null &&
	why=$(check "$TMP/etc/cdi/kav.json" json 1 3 /dev/null 2>&1) &&
	[ "$(ls -A "$TMP/etc/cdi")" = "kav.json
kav.yaml" ]; then
	ok "--output FILE: yaml and json by the name, no temporary left"
else
	bad "--output FILE: ${why:-$(cat "$TMP/err")}; $(ls -A "$TMP/etc/cdi" 2>&1)"
fi

# Bad input: one line, the right status, nothing on stdout.
bad_input() {
	want=$1
	shift
	gen "$TMP/out" "$TMP/err" "$@"
	rc=$?
	if [ "$rc" = "$want" ] && [ ! -s "$TMP/out" ] &&
		[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q '^kav-cdi-generate: ' "$TMP/err"; then
		ok "'$*' fails ($rc): $(cat "$TMP/err")"
	else
		bad "'$*': exit $rc (want $want): $(cat "$TMP/out" "$TMP/err")"
	fi
}
bad_input 2 -o - -f xml
bad_input 2 -o - --host-device dev/kav
bad_input 2 -o - --bogus
bad_input 2 -o
bad_input 2 --output ''
: >"$TMP/file"
bad_input 1 -o - --host-device "$TMP/file"
bad_input 1 -o - --host-device "$TMP"

# R3: a link planted in the output directory is never written through.
# The old temporary name was DIR/.kav-cdi.PID: the generator is started
# with a known PID (a subshell that execs it once the links are there),
# with links at that name and at the output's, both to a root-only file.
# n_tmp DIR: how many DIR/.kav-cdi.* there are.
n_tmp() {
	set -- "$1"/.kav-cdi.*
	if [ -e "$1" ] || [ -L "$1" ]; then echo $#; else echo 0; fi
}
secret=$TMP/secret
out=$TMP/cdi-links
mkdir "$out"
printf 'root only\n' >"$secret"
chmod 0600 "$secret"
mkfifo "$TMP/go"
(
	read -r _ <"$TMP/go"
	exec "$GEN" --output "$out/kav.json" --host-device /dev/null
) >/dev/null 2>"$TMP/err" &
pid=$!
ln -s "$secret" "$out/.kav-cdi.$pid"
ln -s "$secret" "$out/kav.json"
echo go >"$TMP/go"
wait "$pid"
rc=$?
if [ "$rc" = 0 ] && [ "$(cat "$secret")" = "root only" ] &&
	[ ! -L "$out/kav.json" ] && why=$(check "$out/kav.json" json 1 3 /dev/null 2>&1) &&
	[ -L "$out/.kav-cdi.$pid" ] &&
	[ "$(n_tmp "$out")" = 1 ]; then
	ok "links planted at the temporary's old name and at the output's are not written through"
else
	bad "planted links: exit $rc, secret '$(cat "$secret")', ${why:-}: $(cat "$TMP/err"); $(ls -lA "$out")"
fi

# A failure after the temporary file was made removes it (trap): an mv
# that fails, first on PATH.
mkdir "$TMP/bin" "$TMP/cdi-fail"
printf '#!/bin/sh\nexit 1\n' >"$TMP/bin/mv"
chmod +x "$TMP/bin/mv"
if ! PATH="$TMP/bin:$PATH" "$GEN" --output "$TMP/cdi-fail/kav.yaml" \
	--host-device /dev/null >/dev/null 2>"$TMP/err" &&
	grep -q 'cannot move' "$TMP/err" && [ -z "$(ls -A "$TMP/cdi-fail")" ]; then
	ok "a failed mv leaves no temporary file"
else
	bad "failed mv: $(cat "$TMP/err"); left: $(ls -A "$TMP/cdi-fail")"
fi

# A directory others may write (not sticky) or of another user: refused.
mkdir "$TMP/cdi-open"
chmod 0777 "$TMP/cdi-open"
if ! gen /dev/null "$TMP/err" --output "$TMP/cdi-open/kav.yaml" --host-device /dev/null &&
	grep -q 'writable by group or others' "$TMP/err" && [ -z "$(ls -A "$TMP/cdi-open")" ]; then
	ok "a directory others may write is refused: $(cat "$TMP/err")"
else
	bad "world-writable directory: $(cat "$TMP/err"); $(ls -A "$TMP/cdi-open")"
fi
chmod 1777 "$TMP/cdi-open"
if gen /dev/null "$TMP/err" --output "$TMP/cdi-open/kav.yaml" --host-device /dev/null; then
	ok "a sticky directory (as /tmp) is fine"
else
	bad "sticky directory: $(cat "$TMP/err")"
fi
if [ "$(id -u)" = 0 ]; then
	mkdir "$TMP/cdi-other"
	chown 65534 "$TMP/cdi-other"
	if ! gen /dev/null "$TMP/err" --output "$TMP/cdi-other/kav.yaml" --host-device /dev/null &&
		grep -q 'owned by uid 65534' "$TMP/err"; then
		ok "a directory of another user is refused"
	else
		bad "another user's directory: $(cat "$TMP/err")"
	fi
fi

if gen "$TMP/out" "$TMP/err" --help && grep -q '^Usage: kav-cdi-generate' "$TMP/out"; then
	ok "--help"
else
	bad "--help"
fi

if [ "$fails" -ne 0 ]; then
	echo "test_cdi_generate: $fails failed"
	exit 1
fi
echo "test_cdi_generate: all passed"
