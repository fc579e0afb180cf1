#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# test_slurm_wire REPO: the kav-wire part of tools/slurm
# (Documentation/slurm.rst, "Wire keys"): which grant the prolog flags
# "wire", when it runs kav-wire-sa up and with which peers, what the
# epilog takes down, and the TaskProlog's port range. The logic needs no
# kernel: kavctl, scontrol, scancel and kav-wire-sa are fakes that log
# their calls (the fake kavctl keeps its grants in a file), and a wrapper
# of kav-slurm-lib.sh says kav.ko is loaded (FAKE_LOADED). The same
# scripts run against the real module and SAs in kav_slurm_test and
# kav_wire_sa_test. One line per case; exit 1 on a failure.
set -u
REPO=$(cd "${1:?usage: test_slurm_wire.sh REPO}" && pwd) || exit 1
SLURM=$REPO/tools/slurm
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir "$TMP/bin" "$TMP/cg" "$TMP/cg/job_77"
: >"$TMP/cg/cgroup.procs"
: >"$TMP/cg/job_77/cgroup.procs"

# kav.ko "loaded" as FAKE_LOADED says; everything else is the real library.
cat >"$TMP/lib.sh" <<EOF
. "$SLURM/kav-slurm-lib.sh"
kav_module_loaded() { [ "\${FAKE_LOADED:-1}" = 1 ]; }
EOF

# The fake kavctl: grants as "ID VNI CGID TAG WIRE" lines in $FAKE_GRANTS.
cat >"$TMP/bin/kavctl" <<'EOF'
#!/bin/sh
echo "kavctl $*" >>"$FAKE_LOG"
case "$*" in
--help) echo "  grant add vni VNI SELECTOR [tag TAG] [wire]" ;;
"wire show") echo "mode                       ${FAKE_MODE:-off}" ;;
"-n -o ID grant list tag "*)
	awk -v t="$7" '$4 == t { print $1 }' "$FAKE_GRANTS" ;;
"-rn -o ID,VNI,SEL-TYPE,CGROUP-ID,CGROUP-PATH,WIRE grant list")
	awk '{ print $1, $2, "cgroup", $3, "/x", $5 }' "$FAKE_GRANTS" ;;
"-rn -o ID,NAME,PINNED,UID,CGROUP-ID av list") ;;
"grant add "*)
	id=$(($(wc -l <"$FAKE_GRANTS") + 1))
	w=no
	case " $* " in *" wire "*) w=yes ;; esac
	echo "$id $4 $6 $8 $w" >>"$FAKE_GRANTS"
	echo "$id" ;;
"grant del "*)
	awk -v id="$3" '$1 != id' "$FAKE_GRANTS" >"$FAKE_GRANTS.new"
	mv "$FAKE_GRANTS.new" "$FAKE_GRANTS" ;;
"-n -r -o ID,VNI,TAG whoami")
	echo "uid 1000"; echo; cat "$FAKE_WHOAMI" 2>/dev/null ;;
*) echo "fake kavctl: $*" >&2; exit 2 ;;
esac
EOF
# shellcheck disable=SC2016 # the fakes' own variables
{
	printf '#!/bin/sh\necho "scontrol $*" >>"$FAKE_LOG"\n[ "$1 $2" = "show hostnames" ] || exit 2\nfor h in $FAKE_NODES; do echo "$h"; done\n' >"$TMP/bin/scontrol"
	printf '#!/bin/sh\necho "scancel $*" >>"$FAKE_LOG"\n' >"$TMP/bin/scancel"
	printf '#!/bin/sh\necho "kav-wire-sa $*" >>"$FAKE_LOG"\nexit "${FAKE_SA_RC:-0}"\n' >"$TMP/bin/kav-wire-sa"
}
chmod +x "$TMP/bin/"*

export SLURM_JOB_ID=77 SLURM_JOB_UID=1000 SLURMD_NODENAME=node1
export SLURM_JOB_NODELIST='node[1-3]'
export KAV_SLURM_CONF="$TMP/none.conf" KAV_SLURM_LIB="$TMP/lib.sh"
export KAV_SLURM_STATE_DIR="$TMP/state" KAV_SLURM_CGROUP="$TMP/cg/job_%j"
export KAVCTL="$TMP/bin/kavctl" KAV_SLURM_SCANCEL="$TMP/bin/scancel"
export KAV_SLURM_SCONTROL="$TMP/bin/scontrol" KAV_SLURM_WIRE_SA="$TMP/bin/kav-wire-sa"
export KAV_SLURM_WIRE_CONF="$TMP/wire.conf" FAKE_LOG="$TMP/calls"
export FAKE_GRANTS="$TMP/grants" FAKE_WHOAMI="$TMP/whoami"
# The peers: node1 is this node, 127.0.0.3 resolves to itself (getent
# ahosts), nosuch.invalid to nothing.
export FAKE_NODES='node1 127.0.0.3 nosuch.invalid'
unset KAV_JOB_VNI SPANK_KAV_JOB_VNI SLINGSHOT_VNIS KAV_SLURM_WIRE KAV_SLURM_WIRE_HOSTS
unset FI_TCP_PORT_LOW_RANGE FI_TCP_PORT_HIGH_RANGE

fresh() {
	rm -rf "$TMP/state" "$FAKE_LOG" "$FAKE_GRANTS"
	: >"$FAKE_GRANTS"
	: >"$FAKE_LOG"
}

# script NAME ENV...: run tools/slurm/NAME with ENV; $TMP/out, $TMP/err,
# RC.
script() {
	_s=$1
	shift
	env "$@" "$SLURM/$_s" >"$TMP/out" 2>"$TMP/err"
	RC=$?
}

calls() { grep -c "$1" "$FAKE_LOG"; }

# --- the prolog

fresh
printf 'mode esp  # authenticated\nports 40000-40999\n' >"$TMP/wire.conf"
script kav-slurm-prolog SLINGSHOT_VNIS=1234,1300
if [ "$RC" = 0 ] && grep -q '^1 1234 .* no$' "$FAKE_GRANTS" && grep -q '^2 1300 .* yes$' "$FAKE_GRANTS" &&
	grep -qx 'kav-wire-sa up 1300 127.0.0.3' "$FAKE_LOG" && grep -qx 'wire_sa=1300' "$TMP/state/job_77" &&
	grep -q "nosuch.invalid' does not resolve" "$TMP/err"; then
	ok "esp (from wire.conf, kernel off): the job VNI 1300 alone is a wire key, its SAs with the other nodes"
else
	bad "esp: exit $RC; grants: $(cat "$FAKE_GRANTS"); calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

script kav-slurm-epilog
if [ "$RC" = 0 ] && [ ! -s "$FAKE_GRANTS" ] && grep -qx 'kav-wire-sa down 1300' "$FAKE_LOG" &&
	[ "$(calls 'kav-wire-sa down')" = 1 ] && [ ! -e "$TMP/state/job_77" ]; then
	ok "the epilog revokes the grants, then takes the SAs of the wire key (only) down"
else
	bad "epilog after esp: exit $RC; grants: $(cat "$FAKE_GRANTS"); calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

fresh
printf 'mode off\n' >"$TMP/wire.conf"
script kav-slurm-prolog SLINGSHOT_VNIS=1234,1300 FAKE_MODE=flowlabel
if [ "$RC" = 0 ] && grep -q '^2 1300 .* yes$' "$FAKE_GRANTS" && [ "$(calls kav-wire-sa)" = 0 ] &&
	[ "$(calls scontrol)" = 0 ]; then
	ok "flowlabel (the kernel's mode wins over the file's off): a wire key, no SA"
else
	bad "flowlabel: exit $RC; grants: $(cat "$FAKE_GRANTS"); calls: $(cat "$FAKE_LOG")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1234,1300
if [ "$RC" = 0 ] && [ "$(grep -c ' yes$' "$FAKE_GRANTS")" = 0 ] && [ "$(calls kav-wire-sa)" = 0 ]; then
	ok "wire off (kernel and file): no wire key, no SA"
else
	bad "off: exit $RC; grants: $(cat "$FAKE_GRANTS"); calls: $(cat "$FAKE_LOG")"
fi
script kav-slurm-epilog
if [ "$RC" = 0 ] && [ "$(calls kav-wire-sa)" = 0 ]; then
	ok "wire off: the epilog runs no kav-wire-sa"
else
	bad "epilog with the wire off: exit $RC; calls: $(cat "$FAKE_LOG")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 KAV_SLURM_WIRE=1
if [ "$RC" = 0 ] && grep -q '^1 1300 .* yes$' "$FAKE_GRANTS" && [ "$(calls kav-wire-sa)" = 0 ]; then
	ok "KAV_SLURM_WIRE=1 with the wire off: a wire key all the same"
else
	bad "KAV_SLURM_WIRE=1: exit $RC; grants: $(cat "$FAKE_GRANTS")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 KAV_SLURM_WIRE=0 FAKE_MODE=esp
if [ "$RC" = 0 ] && grep -q '^1 1300 .* no$' "$FAKE_GRANTS" && [ "$(calls kav-wire-sa)" = 0 ]; then
	ok "KAV_SLURM_WIRE=0 in esp mode: no wire key, no SA"
else
	bad "KAV_SLURM_WIRE=0: exit $RC; grants: $(cat "$FAKE_GRANTS"); calls: $(cat "$FAKE_LOG")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1048576 FAKE_MODE=esp
if [ "$RC" = 0 ] && grep -q '^1 1048576 .* no$' "$FAKE_GRANTS" && [ "$(calls kav-wire-sa)" = 0 ] &&
	grep -q 'cannot be a wire key' "$TMP/err"; then
	ok "a job VNI of 2^20 is granted without wire, and said so"
else
	bad "VNI 2^20: exit $RC; grants: $(cat "$FAKE_GRANTS"); $(cat "$TMP/err")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp FAKE_SA_RC=3
if [ "$RC" = 0 ] && grep -qx 'scancel 77' "$FAKE_LOG" && grep -qx 'wire_sa=1300' "$TMP/state/job_77"; then
	ok "an SPI collision (kav-wire-sa exit 3) cancels the job, not the node; the state keeps the SAs for the epilog"
else
	bad "exit 3: prolog exit $RC; calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp FAKE_SA_RC=1
if [ "$RC" = 1 ] && grep -qx 'wire_sa=1300' "$TMP/state/job_77"; then
	ok "SAs that cannot be installed fail the prolog (the node drains), recorded for the epilog"
else
	bad "exit 1: prolog exit $RC; $(cat "$TMP/err")"
fi
script kav-slurm-epilog FAKE_LOADED=0 FAKE_MODE=off
if [ "$RC" = 0 ] && grep -qx 'kav-wire-sa down 1300' "$FAKE_LOG"; then
	ok "the epilog takes recorded SAs down with kav.ko unloaded and the wire off"
else
	bad "epilog unloaded: exit $RC; calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp KAV_SLURM_WIRE_SA="$TMP/none"
if [ "$RC" = 1 ] && grep -q 'kav-wire-sa.*not found' "$TMP/err" && [ ! -e "$TMP/state/job_77" ]; then
	ok "esp without kav-wire-sa fails the prolog"
else
	bad "no kav-wire-sa: exit $RC; $(cat "$TMP/err")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp FAKE_NODES=node1
if [ "$RC" = 0 ] && [ "$(calls kav-wire-sa)" = 0 ] && grep -q 'no other node' "$TMP/err"; then
	ok "esp, a one-node job: no SA to install"
else
	bad "one node: exit $RC; calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

fresh
script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp KAV_SLURM_WIRE_HOSTS='%h 127.0.0.4'
if [ "$RC" = 0 ] && grep -qx 'kav-wire-sa up 1300 127.0.0.3 127.0.0.4' "$FAKE_LOG"; then
	ok "KAV_SLURM_WIRE_HOSTS: each name of each peer, each address once"
else
	bad "hosts template: exit $RC; calls: $(cat "$FAKE_LOG"); $(cat "$TMP/err")"
fi

# shellcheck disable=SC2016 # a$b is meant literally
for bad_env in 'KAV_SLURM_WIRE=yes' 'KAV_SLURM_WIRE_HOSTS=%h;touch x' \
	'FAKE_NODES=node1 a$b' 'SLURMD_NODENAME=' 'SLURM_JOB_NODELIST='; do
	fresh
	script kav-slurm-prolog SLINGSHOT_VNIS=1300 FAKE_MODE=esp "$bad_env"
	if [ "$RC" = 1 ] && [ "$(calls kav-wire-sa)" = 0 ] && [ ! -e x ]; then
		ok "$bad_env: refused ($(tail -n 1 "$TMP/err"))"
	else
		bad "$bad_env: exit $RC (want 1, no SA); calls: $(cat "$FAKE_LOG")"
	fi
done

# --- the TaskProlog's port range

printf '1 1300 slurm-77\n' >"$FAKE_WHOAMI"
ports() {
	_want=$1
	shift
	script kav-slurm-taskprolog KAV_WIRE_CONF="$TMP/wire.conf" "$@"
	_got=$(grep FI_TCP_PORT "$TMP/out" | tr '\n' ' ')
	if [ "$RC" = 0 ] && [ "$_got" = "$_want" ] && grep -qx 'export FI_OFI_HOOK_KAV_VNI=1300' "$TMP/out"; then
		ok "taskprolog with $(tr '\n' ';' <"$TMP/wire.conf") $*: '$_want'"
	else
		bad "taskprolog with $(cat "$TMP/wire.conf") $*: exit $RC, '$_got', not '$_want'"
	fi
}
printf 'mode esp\nports 40000-40999\n' >"$TMP/wire.conf"
ports 'export FI_TCP_PORT_LOW_RANGE=40000 export FI_TCP_PORT_HIGH_RANGE=40999 '
ports '' FI_TCP_PORT_LOW_RANGE=50000
printf 'mode flowlabel\nports 41000 # one\n' >"$TMP/wire.conf"
ports 'export FI_TCP_PORT_LOW_RANGE=41000 export FI_TCP_PORT_HIGH_RANGE=41000 '
printf '# mode esp\nports 40000-40999\n' >"$TMP/wire.conf"
ports ''
printf 'mode esp\nports none\n' >"$TMP/wire.conf"
ports ''
printf 'mode esp\nports 5-3\n' >"$TMP/wire.conf"
ports ''

if [ "$fails" -ne 0 ]; then
	echo "test_slurm_wire: $fails failed"
	exit 1
fi
echo "test_slurm_wire: all passed"
