#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# test_slurm_prolog REPO: tools/slurm/kav-slurm-prolog and kav-slurm-lib.sh
# never let the shell expand what the job or its AdminComment says (issue
# 34, R4). The AdminComment comes from a fake squeue, kavctl and scancel
# are fakes that log their calls; the prolog runs in a working directory
# that holds files named like the patterns it is fed ("kav_vnis=4299" for
# "kav_vnis=42*"). A bad value must be refused with a message (exit 1)
# before anything is granted, and nothing in it may run ($(...), `...`,
# ';'). Good values are checked through the library (kav_pick_vni), as
# the prolog calls it: on the host there is no kav.ko for the rest. No
# kernel, no Slurm, no root needed. One line per case; exit 1 on a
# failure.
set -u
REPO=${1:?usage: test_slurm_prolog.sh REPO}
PROLOG=$REPO/tools/slurm/kav-slurm-prolog
LIB=$REPO/tools/slurm/kav-slurm-lib.sh
if [ ! -x "$PROLOG" ] || [ ! -f "$LIB" ]; then
	echo "FAIL: $PROLOG or $LIB missing"
	exit 1
fi
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir "$TMP/bin" "$TMP/cwd" "$TMP/cg"
cat >"$TMP/bin/squeue" <<'EOF'
#!/bin/sh
printf '%s\n' "$FAKE_AC"
EOF
for t in kavctl scancel; do
	# shellcheck disable=SC2016 # the fake's own $*
	printf '#!/bin/sh\necho "%s $*" >>"$FAKE_LOG"\nexit 0\n' "$t" >"$TMP/bin/$t"
done
chmod +x "$TMP/bin/squeue" "$TMP/bin/kavctl" "$TMP/bin/scancel"
# What a pattern would match if the shell expanded it.
for f in 'kav_vnis=4299' '4299' '7' '71'; do
	: >"$TMP/cwd/$f"
done

# The prolog's environment, as slurmd gives it, with fakes.
export SLURM_JOB_ID=77 SLURM_JOB_UID=1000 SLURMD_NODENAME=node1
export KAV_SLURM_CONF="$TMP/none.conf" KAV_SLURM_LIB="$LIB"
export KAV_SLURM_STATE_DIR="$TMP/state" KAV_SLURM_CGROUP="$TMP/cg/job_%j"
export KAVCTL="$TMP/bin/kavctl" KAV_SLURM_SCANCEL="$TMP/bin/scancel"
export KAV_SLURM_SQUEUE="$TMP/bin/squeue" FAKE_LOG="$TMP/calls"
unset KAV_JOB_VNI SPANK_KAV_JOB_VNI SLINGSHOT_VNIS KAV_SLURM_ADMIN_COMMENT

# Did anything run or get made? Files "x" (the payloads touch them), a
# call of kavctl or scancel, a state file.
ran() {
	[ -e "$TMP/cwd/x" ] || [ -e "$TMP/x" ] || [ -e x ] || [ -s "$FAKE_LOG" ] ||
		[ -e "$TMP/state" ]
}

# refused WHAT ENV...: the prolog, in $TMP/cwd with ENV, exits 1 saying
# "is not a VNI" or "only decimal VNIs", and nothing ran.
refused() {
	_what=$1
	shift
	rm -f "$TMP/cwd/x" "$TMP/x" "$FAKE_LOG"
	(cd "$TMP/cwd" && env "$@" "$PROLOG") >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	if [ "$_rc" = 1 ] && grep -Eq "is not a VNI|only decimal VNIs" "$TMP/err" && ! ran; then
		ok "$_what: refused: $(head -n 1 "$TMP/err")"
	else
		bad "$_what: exit $_rc (want 1, a VNI refused, nothing run): $(cat "$TMP/err"); calls: $(cat "$FAKE_LOG" 2>/dev/null); $(ls "$TMP/cwd")"
	fi
}

# picked WANT ENV...: kav_init and kav_pick_vni, in $TMP/cwd with ENV,
# give KAV_VNIS=WANT.
picked() {
	_want=$1
	shift
	# shellcheck disable=SC2016 # the library's variables, in sh -c
	_got=$(cd "$TMP/cwd" && env "$@" sh -c '. "$1"; kav_init test; kav_pick_vni; printf "%s\n" "$KAV_VNIS"' sh "$LIB" 2>"$TMP/err")
	if [ "$_got" = "$_want" ] && ! ran; then
		ok "$* gives '$_want'"
	else
		bad "$*: '$_got', not '$_want': $(cat "$TMP/err")"
	fi
}

AC=KAV_SLURM_ADMIN_COMMENT=1
# shellcheck disable=SC2016 # the payloads are meant literally
{
	refused "AdminComment kav_vnis=42*" $AC 'FAKE_AC=kav_vnis=42*'
	refused "AdminComment kav_vnis=42? among other words" $AC 'FAKE_AC=owner=ops kav_vnis=42?? note'
	refused "AdminComment kav_vnis=[0-9]*" $AC 'FAKE_AC=kav_vnis=[0-9]*'
	refused "AdminComment kav_vnis=\$(touch x)" $AC 'FAKE_AC=kav_vnis=$(touch x)'
	refused "AdminComment kav_vnis=\`touch x\`" $AC 'FAKE_AC=kav_vnis=`touch x`'
	refused "AdminComment kav_vnis=\$(touch\${IFS}x)" $AC 'FAKE_AC=kav_vnis=$(touch${IFS}x)'
	refused "AdminComment kav_vnis=1;touch x" $AC 'FAKE_AC=kav_vnis=1;touch x'
	refused "AdminComment kav_vnis=1, 2 (a space)" $AC 'FAKE_AC=kav_vnis=1, 2'
	refused "AdminComment kav_vnis=1|touch x" $AC 'FAKE_AC=kav_vnis=1|touch x'
	refused "KAV_JOB_VNI=42*" 'KAV_JOB_VNI=42*'
	refused "KAV_JOB_VNI=\$(touch x)" 'KAV_JOB_VNI=$(touch x)'
	refused "KAV_JOB_VNI='1 2'" 'KAV_JOB_VNI=1 2'
	refused "KAV_JOB_VNI=7;touch x" 'KAV_JOB_VNI=7;touch x'
	refused "SLINGSHOT_VNIS=7*" 'SLINGSHOT_VNIS=7*'
	refused "SLINGSHOT_VNIS=\`touch x\`,7" 'SLINGSHOT_VNIS=`touch x`,7'
}

# Good values, with the same files in the working directory.
picked 42 $AC 'FAKE_AC=kav_vnis=42'
picked "42 4300" $AC 'FAKE_AC=owner=ops kav_vnis=42,4300 note=x*'
picked "7 71" 'SLINGSHOT_VNIS=7,71'
picked 42 'KAV_JOB_VNI=42'

if [ "$fails" -ne 0 ]; then
	echo "test_slurm_prolog: $fails failed"
	exit 1
fi
echo "test_slurm_prolog: all passed"
