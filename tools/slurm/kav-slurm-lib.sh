# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034 # variables set here are the scripts' to use
# shellcheck disable=SC2016 # awk programs are in single quotes on purpose
#
# kav-slurm-lib.sh: the code kav-slurm-prolog, kav-slurm-epilog and
# kav-slurm-pin share (Documentation/slurm.rst). It is sourced, not run.
#
# POSIX sh: it runs under dash and busybox ash and needs only awk, sed,
# find, ls, mkdir, mktemp, mv, rm, kavctl and, if present, logger (with
# kav-wire's esp mode also kav-wire-sa, scontrol and getent). Functions use
# variables prefixed with "_" as scratch space (POSIX sh has no "local").
#
# What the scripts know about the job comes from the environment slurmd
# gives them (SLURM_JOB_ID, SLURM_JOB_UID, SLURMD_NODENAME, SPANK_*), from
# the site's settings ($KAV_SLURM_CONF, default /etc/kav/slurm.conf, or the
# same names in the environment), and from kav itself (kavctl -rn -o).

# Values come from the job's environment and its AdminComment: the shell
# must never expand one. -f: no pathname expansion, so that an unquoted
# "kav_vnis=42*" never becomes a file "kav_vnis=4299" of the working
# directory (the scripts set it too, before sourcing this); words split on
# blanks and newlines only, whatever IFS the environment held. Every value
# is then checked for what it must be (kav_is_uint, kav_check_vni).
set -f
IFS=$(printf ' \t\n.')
IFS=${IFS%.}

# The cgroup v2 hierarchy, where Slurm's cgroup/v2 plugin puts jobs.
KAV_CGROUP_ROOT=/sys/fs/cgroup
# What a site may set in the configuration file.
KAV_SETTINGS='KAVCTL KAV_SLURM_STATE_DIR KAV_SLURM_CGROUP KAV_SLURM_AV_PREFIX KAV_SLURM_MAX_ENTRIES KAV_SLURM_MAX_AVS KAV_SLURM_TRUST_SPANK KAV_SLURM_ADMIN_COMMENT KAV_SLURM_SQUEUE KAV_SLURM_SCANCEL KAV_SLURM_WIRE KAV_SLURM_WIRE_CONF KAV_SLURM_WIRE_HOSTS KAV_SLURM_WIRE_SA KAV_SLURM_SCONTROL'

# ---------------------------------------------------------------- logging

# kav_log PRIORITY MESSAGE...: one line to syslog (logger -t kav-slurm,
# facility daemon) when logger exists, and always to standard error
# (which slurmd logs or drops, depending on its version and debug level).
kav_log() {
	_lp=$1
	shift
	_lm="${KAV_TOOL:-kav-slurm}: ${KAV_JOB:+job $KAV_JOB: }$*"
	printf '%s\n' "$_lm" >&2
	if command -v logger >/dev/null 2>&1; then
		logger -t kav-slurm -p "daemon.$_lp" "$_lm" 2>/dev/null || :
	fi
}

# kav_die MESSAGE...: log an error and exit 1. A failing Prolog or Epilog
# makes slurmd drain the node: the safe outcome whenever the job's key
# cannot be set up or taken back as it should be.
kav_die() {
	kav_log err "$@"
	exit 1
}

# ------------------------------------------------------------ validation

# kav_is_uint VALUE MAXDIGITS: decimal digits without a leading zero (or
# "0" itself), at most MAXDIGITS of them.
kav_is_uint() {
	case $1 in
	0) return 0 ;;
	'' | 0* | *[!0-9]*) return 1 ;;
	esac
	[ "${#1}" -le "$2" ]
}

# kav_le VALUE MAX: VALUE <= MAX, both of at most 15 digits (awk's
# doubles are exact there; sh arithmetic may be 32-bit).
kav_le() {
	awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 <= m + 0) }'
}

# kav_check_vni VALUE WHERE: the kernel takes any 32-bit VNI; 0 is refused
# here because no scheduler hands it out as a job's key, and an unset
# value that became 0 must not turn into a grant.
kav_check_vni() {
	if ! kav_is_uint "$1" 10 || [ "$1" = 0 ] || ! kav_le "$1" 4294967295; then
		kav_die "$2: '$1' is not a VNI (decimal, 1 to 4294967295, no leading zeros)"
	fi
}

# --------------------------------------------------------- configuration

# kav_read_conf: KAV_SLURM_CONF (default /etc/kav/slurm.conf), if it
# exists: "NAME=VALUE" lines (no spaces around "=", no quotes) and "#"
# comments, NAME one of KAV_SETTINGS. The environment takes precedence.
kav_read_conf() {
	_cf=${KAV_SLURM_CONF:-/etc/kav/slurm.conf}
	[ -e "$_cf" ] || return 0
	if [ ! -f "$_cf" ] || [ ! -r "$_cf" ]; then
		kav_die "cannot read $_cf"
	fi
	_cn=0
	while IFS= read -r _cl || [ -n "$_cl" ]; do
		_cn=$((_cn + 1))
		case $_cl in
		'' | '#'*) continue ;;
		*=*) ;;
		*) kav_die "$_cf:$_cn: not NAME=VALUE: $_cl" ;;
		esac
		_ck=${_cl%%=*}
		_cv=${_cl#*=}
		case " $KAV_SETTINGS " in
		*" $_ck "*) ;;
		*) kav_die "$_cf:$_cn: unknown setting '$_ck' (known: $KAV_SETTINGS)" ;;
		esac
		# $_ck is one of the fixed names above: safe to eval.
		eval "_cur=\${$_ck-}"
		if [ -z "$_cur" ]; then
			eval "$_ck=\$_cv"
		fi
	done <"$_cf"
}

# kav_expand TEMPLATE: %j (job id), %u (job uid), %n (SLURMD_NODENAME)
# replaced. Each value was validated to hold none of sed's specials.
kav_expand() {
	case $1 in
	*%n*) [ -n "$KAV_NODE" ] || kav_die "'$1' uses %n but SLURMD_NODENAME is not set" ;;
	esac
	case $1 in
	*%u*) [ -n "$KAV_UID" ] || kav_die "'$1' uses %u but SLURM_JOB_UID is not set" ;;
	esac
	printf '%s\n' "$1" |
		sed -e "s/%j/$KAV_JOB/g" -e "s/%u/$KAV_UID/g" -e "s/%n/$KAV_NODE/g"
}

# kav_init TOOL [JOBID]: the settings and the job (SLURM_JOB_ID unless
# JOBID is given), all validated. Sets KAV_TOOL, KAV_JOB, KAV_UID,
# KAV_NODE, KAV_STATE_DIR, KAV_STATE and KAV_PREFIX.
kav_init() {
	KAV_TOOL=$1
	KAV_JOB=
	KAV_REVOKED=''
	KAV_UNPINNED=''
	# slurmd runs prologs and epilogs without PATH.
	: "${PATH:=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}"
	export PATH
	umask 077
	kav_read_conf

	_job=${2-${SLURM_JOB_ID-}}
	if ! kav_is_uint "$_job" 10 || [ "$_job" = 0 ]; then
		kav_die "SLURM_JOB_ID '$_job' is not a job id (decimal digits)"
	fi
	KAV_JOB=$_job
	KAV_UID=${SLURM_JOB_UID-}
	if [ -n "$KAV_UID" ] && ! kav_is_uint "$KAV_UID" 10; then
		kav_die "SLURM_JOB_UID '$KAV_UID' is not a uid"
	fi
	KAV_NODE=${SLURMD_NODENAME-}
	case $KAV_NODE in
	*[!A-Za-z0-9._-]*) kav_die "SLURMD_NODENAME '$KAV_NODE' is not a node name" ;;
	esac

	KAV_STATE_DIR=$(kav_expand "${KAV_SLURM_STATE_DIR:-/run/kav/slurm}") || exit 1
	case $KAV_STATE_DIR in
	/*) ;;
	*) kav_die "KAV_SLURM_STATE_DIR '$KAV_STATE_DIR' is not an absolute path" ;;
	esac
	KAV_STATE=$KAV_STATE_DIR/job_$KAV_JOB

	KAV_PREFIX=$(kav_expand "${KAV_SLURM_AV_PREFIX:-slurm-%j}") || exit 1
	case $KAV_PREFIX in
	'' | *[!A-Za-z0-9._:+-]*)
		kav_die "KAV_SLURM_AV_PREFIX '$KAV_PREFIX': use letters, digits and . _ : + - only" ;;
	*"$KAV_JOB"*) ;;
	*) kav_die "KAV_SLURM_AV_PREFIX '$KAV_PREFIX' must contain the job id (%j): jobs must not share it" ;;
	esac
	[ "${#KAV_PREFIX}" -le 200 ] || kav_die "KAV_SLURM_AV_PREFIX is longer than 200 bytes"

	case ${KAV_SLURM_TRUST_SPANK:-0} in
	0 | 1) ;;
	*) kav_die "KAV_SLURM_TRUST_SPANK must be 0 or 1" ;;
	esac
	case ${KAV_SLURM_ADMIN_COMMENT:-0} in
	0 | 1) ;;
	*) kav_die "KAV_SLURM_ADMIN_COMMENT must be 0 or 1" ;;
	esac
	case ${KAV_SLURM_WIRE:-auto} in
	auto | 0 | 1) ;;
	*) kav_die "KAV_SLURM_WIRE must be auto, 0 or 1" ;;
	esac
	case ${KAV_SLURM_WIRE_HOSTS:-%h} in
	*[!A-Za-z0-9._%\ -]*)
		kav_die "KAV_SLURM_WIRE_HOSTS '$KAV_SLURM_WIRE_HOSTS': names of letters, digits, . _ - and %h, separated by spaces" ;;
	esac
	# The grants' tag (kavctl grant add ... tag T): the epilog finds
	# them by it.
	KAV_TAG=slurm-$KAV_JOB
}

# kav_vni_list VALUE WHERE: VALUE, a comma-separated list of VNIs, checked
# element by element (a malformed list is an error, never guessed at),
# appended to KAV_VNIS (space-separated, each VNI once).
kav_vni_list() {
	_rest=$1,
	while [ -n "$_rest" ]; do
		_v=${_rest%%,*}
		_rest=${_rest#*,}
		kav_check_vni "$_v" "$2"
		kav_in "$_v" "$KAV_VNIS" || KAV_VNIS=${KAV_VNIS:+$KAV_VNIS }$_v
	done
}

# kav_admin_comment_vnis: the "kav_vnis=LIST" word of the job's
# AdminComment, which only a Slurm administrator (root, SlurmUser, an
# operator, a job_submit plugin, PrologSlurmctld) can set; never the
# job's submitter. Printed empty when the comment has none. One query to
# slurmctld (squeue), made only when KAV_SLURM_ADMIN_COMMENT=1.
kav_admin_comment_vnis() {
	_sq=${KAV_SLURM_SQUEUE:-squeue}
	_ac=$("$_sq" --noheader --jobs="$KAV_JOB" --Format=admin_comment:4096 \
		</dev/null 2>&1) ||
		kav_die "$_sq --jobs=$KAV_JOB --Format=admin_comment: ${_ac:-failed} (is slurmctld reachable?)"
	_n=0
	_av=
	# Split on blanks only (set -f: a word is never a pattern); the
	# value is checked digit by digit afterwards (kav_vni_list), never
	# evaluated.
	set -f
	for _w in $_ac; do
		case $_w in
		kav_vnis=*) _n=$((_n + 1)) _av=${_w#kav_vnis=} ;;
		esac
	done
	[ "$_n" -le 1 ] ||
		kav_die "the job's AdminComment has $_n kav_vnis= words: '$_ac'"
	[ "$_n" = 0 ] || [ -n "$_av" ] ||
		kav_die "the job's AdminComment has an empty kav_vnis="
	case $_av in
	*[!0-9,]*) kav_die "the job's AdminComment has kav_vnis='$_av': only decimal VNIs separated by commas are taken" ;;
	esac
	printf '%s\n' "$_av"
}

# kav_pick_vni: the job's auth keys (VNIs) into KAV_VNIS (space-separated,
# empty: none configured) and where they came from into KAV_VNI_FROM.
# Every VNI of the first source that is set is granted (a job holds a
# list: switch/hpe_slingshot gives each step its own VNI and the job VNI
# last). Each source is a comma-separated list:
#   KAV_JOB_VNI        set by the site (a wrapper around the prolog);
#   SPANK_KAV_JOB_VNI  a SPANK plugin's spank_job_control_setenv(), only
#                      with KAV_SLURM_TRUST_SPANK=1: it is set on the
#                      submitting side, where the user controls it;
#   AdminComment       "kav_vnis=LIST" in the job's AdminComment, only
#                      with KAV_SLURM_ADMIN_COMMENT=1 (squeue);
#   SLINGSHOT_VNIS     switch/hpe_slingshot's list, all of it.
# A source that is set but malformed is an error, never skipped.
kav_pick_vni() {
	KAV_VNIS=
	KAV_VNI_FROM=
	if [ -n "${KAV_JOB_VNI-}" ]; then
		kav_vni_list "$KAV_JOB_VNI" "KAV_JOB_VNI=$KAV_JOB_VNI"
		KAV_VNI_FROM=KAV_JOB_VNI
		return 0
	fi
	if [ -n "${SPANK_KAV_JOB_VNI-}" ]; then
		if [ "${KAV_SLURM_TRUST_SPANK:-0}" = 1 ]; then
			kav_vni_list "$SPANK_KAV_JOB_VNI" "SPANK_KAV_JOB_VNI=$SPANK_KAV_JOB_VNI"
			KAV_VNI_FROM=SPANK_KAV_JOB_VNI
			return 0
		fi
		kav_log warning "ignoring SPANK_KAV_JOB_VNI: the job's submitter can set it (KAV_SLURM_TRUST_SPANK=1 trusts it)"
	fi
	if [ "${KAV_SLURM_ADMIN_COMMENT:-0}" = 1 ]; then
		_acv=$(kav_admin_comment_vnis) || exit 1
		if [ -n "$_acv" ]; then
			kav_vni_list "$_acv" "AdminComment kav_vnis=$_acv"
			KAV_VNI_FROM=AdminComment
			return 0
		fi
	fi
	if [ -n "${SLINGSHOT_VNIS-}" ]; then
		kav_vni_list "$SLINGSHOT_VNIS" "SLINGSHOT_VNIS=$SLINGSHOT_VNIS"
		KAV_VNI_FROM=SLINGSHOT_VNIS
	fi
}

# kav_limits: the grant's limits from KAV_SLURM_MAX_ENTRIES and
# KAV_SLURM_MAX_AVS (0 or unset: no limit), as kavctl arguments, into
# KAV_LIMIT_ARGS.
kav_limits() {
	KAV_LIMIT_ARGS=
	_me=${KAV_SLURM_MAX_ENTRIES:-0}
	_ma=${KAV_SLURM_MAX_AVS:-0}
	kav_is_uint "$_me" 15 ||
		kav_die "KAV_SLURM_MAX_ENTRIES '$_me' is not a number of entries"
	if ! kav_is_uint "$_ma" 10 || ! kav_le "$_ma" 4294967295; then
		kav_die "KAV_SLURM_MAX_AVS '$_ma' is not a number of AVs (32 bits)"
	fi
	[ "$_me" = 0 ] || KAV_LIMIT_ARGS="max-entries $_me"
	[ "$_ma" = 0 ] || KAV_LIMIT_ARGS="$KAV_LIMIT_ARGS max-avs $_ma"
}

# ---------------------------------------------------------------- cgroups

# kav_find_cgroup: the job's cgroup directory into KAV_CG and its id into
# KAV_CGID; returns 1 (KAV_CGID empty) if the directory does not exist.
# Slurm's cgroup/v2 layout is system.slice/slurmstepd.scope/job_<id>, or
# <nodename>_slurmstepd.scope when slurmd is built for several per host
# (Debian's is);
# KAV_SLURM_CGROUP (%j, %n, %u expanded) replaces it.
kav_find_cgroup() {
	KAV_CGID=
	if [ -n "${KAV_SLURM_CGROUP-}" ]; then
		KAV_CG=$(kav_expand "$KAV_SLURM_CGROUP") || exit 1
		case $KAV_CG in
		/*) ;;
		*) kav_die "KAV_SLURM_CGROUP '$KAV_CG' is not an absolute path" ;;
		esac
		case /$KAV_CG/ in
		*/../* | */./*) kav_die "KAV_SLURM_CGROUP '$KAV_CG' has . or .. in it" ;;
		esac
	else
		# A slurmd built with --enable-multiple-slurmd (Debian's) names
		# its scope <nodename>_slurmstepd.scope.
		_sl=$KAV_CGROUP_ROOT/system.slice
		KAV_CG=$_sl/slurmstepd.scope/job_$KAV_JOB
		if [ -n "$KAV_NODE" ] && [ ! -d "$KAV_CG" ] &&
			[ -d "$_sl/${KAV_NODE}_slurmstepd.scope" ]; then
			KAV_CG=$_sl/${KAV_NODE}_slurmstepd.scope/job_$KAV_JOB
		fi
	fi
	[ -d "$KAV_CG" ] || return 1
	[ -f "$KAV_CG/cgroup.procs" ] || kav_die "$KAV_CG is not a cgroup v2 directory"
	KAV_CGID=$(kav_inode "$KAV_CG") || exit 1
}

# kav_make_cgroup: the job's cgroup KAV_CG does not exist yet (Slurm
# 22.05 runs the Prolog before the job's first slurmstepd creates it, and
# has no PrologFlags=RunInJob): create it, as an empty cgroup directory in
# its parent, if that parent is a cgroup v2 directory (Slurm's
# slurmstepd.scope, which slurmd makes when it starts). slurmstepd then
# finds it (it tolerates EEXIST) and puts the job's steps in it, so the
# grant made now by its id is the job's. KAV_CREATED=1 on success; the
# epilog removes the directory if slurmstepd left it. Returns 1 if the
# parent is not a cgroup directory.
kav_make_cgroup() {
	KAV_CREATED=0
	_par=${KAV_CG%/*}
	[ -f "$_par/cgroup.procs" ] || return 1
	mkdir "$KAV_CG" 2>/dev/null || [ -d "$KAV_CG" ] || return 1
	KAV_CREATED=1
	kav_log info "created the job's cgroup $KAV_CG (slurmstepd puts the job in it)"
	kav_find_cgroup
}

# kav_inode DIR: a cgroup's id is the inode number of its directory.
kav_inode() {
	# shellcheck disable=SC2012 # ls -di: the portable way to an inode
	_in=$(ls -di "$1" | awk 'NR == 1 { print $1 }')
	kav_is_uint "$_in" 20 || kav_die "cannot read the inode number of $1"
	printf '%s\n' "$_in"
}

# kav_subtree_ids DIR: the ids of DIR and of every cgroup below it (step,
# user and task cgroups), on one line.
kav_subtree_ids() {
	kav_words "$(find "$1" -type d -exec ls -di {} + 2>/dev/null |
		awk '{ print $1 }')"
}

# ---------------------------------------------------------------- kavctl

kav_module_loaded() {
	[ -d /sys/module/kav ]
}

# kav_need_kavctl: KAVCTL (a path, or a name looked up in PATH; default
# kavctl) resolved to an executable.
kav_need_kavctl() {
	KAVCTL=${KAVCTL:-kavctl}
	case $KAVCTL in
	*/*) [ -x "$KAVCTL" ] || kav_die "KAVCTL=$KAVCTL is not executable" ;;
	*)
		_kc=$(command -v "$KAVCTL") ||
			kav_die "$KAVCTL not found in PATH ($PATH): install kavctl or set KAVCTL"
		KAVCTL=$_kc
		;;
	esac
}

# kav_rows ARGS...: "kavctl -rn ARGS" (a raw listing without headings:
# one row per line, a value never holds a space, "-" when absent);
# kavctl's own message goes to standard error.
kav_rows() {
	"$KAVCTL" -rn "$@" </dev/null || {
		_rs=$?
		kav_log err "kavctl -rn $* failed with exit status $_rs"
		return 1
	}
}

# The grants of "kavctl grant list", one per line:
#   ID VNI TYPE CGROUP_ID HAS_PATH WIRE
# TYPE is the selector type (uid, gid, cgroup, netns), CGROUP_ID "-" for
# other selectors, HAS_PATH 1 if kavctl found the cgroup's directory (0:
# the cgroup was removed and only the grant keeps it), WIRE 1 for a wire
# grant.
kav_grant_rows() {
	_gr=$(kav_rows -o ID,VNI,SEL-TYPE,CGROUP-ID,CGROUP-PATH,WIRE grant list) ||
		return 1
	printf '%s\n' "$_gr" | awk 'NF { print $1, $2, $3, $4, ($5 != "-"), ($6 == "yes") }'
}

# kav_tags_probe: KAV_HAVE_TAGS=1 if this kavctl has grant tags ("grant
# add ... tag T", "grant list tag T" with "-o ID -n"), else 0: then the
# grants carry no tag and are found by their cgroup id only.
kav_tags_probe() {
	KAV_HAVE_TAGS=0
	# An older kavctl ignores what it does not know and prints its table:
	# its help must name tags, and the listing must be ids only.
	"$KAVCTL" --help 2>&1 | grep -Eq '(^|[[ ])tag ' || return 0
	_tp=$("$KAVCTL" -n -o ID grant list tag "$KAV_TAG" </dev/null 2>/dev/null) ||
		return 0
	for _w in $_tp; do
		kav_is_uint "$_w" 10 || return 0
	done
	KAV_HAVE_TAGS=1
}

# kav_tagged_grants: the ids of the grants tagged KAV_TAG, one line
# ("kavctl -n -o ID grant list tag slurm-<jobid>": no parsing).
kav_tagged_grants() {
	[ "$KAV_HAVE_TAGS" = 1 ] || return 0
	_tg=$("$KAVCTL" -n -o ID grant list tag "$KAV_TAG" </dev/null) || {
		kav_log err "kavctl grant list tag $KAV_TAG failed"
		return 1
	}
	for _w in $_tg; do
		kav_is_uint "$_w" 10 || {
			kav_log err "kavctl -n -o ID grant list tag $KAV_TAG: '$_w' is not a grant id"
			return 1
		}
	done
	kav_words "$_tg"
}

# kav_cancel_job WHY: the job cannot run as it should, but the node is
# fine: cancel the job (scancel, KAV_SLURM_SCANCEL) and let the prolog
# exit 0, so that slurmd does not drain the node. A job that still starts
# (scancel failed, or races the start) holds no grant: its keyed domains
# are refused, which is the safe side.
kav_cancel_job() {
	kav_log err "$*: cancelling job $KAV_JOB (the node is not drained)"
	_sc=${KAV_SLURM_SCANCEL:-scancel}
	if _so=$("$_sc" "$KAV_JOB" </dev/null 2>&1); then
		kav_log notice "$_sc $KAV_JOB: done"
	else
		kav_log err "$_sc $KAV_JOB failed: ${_so:-?}; the job runs without its key"
	fi
	exit 0
}

# The AVs of "kavctl av list", one per line:
#   ID MATCH PINNED UID CGROUP_ID
# MATCH is 1 for a named AV whose name is the job's prefix, alone or
# followed by a byte that is not a letter or digit ("slurm-4242",
# "slurm-4242-world", MPI's "slurm-4242\n"; not "slurm-42420"). UID and
# CGROUP_ID are the identity of the domain that created the AV. kavctl
# prints names escaped ("\n", "\x20"): a prefix of letters, digits and
# "-" is matched as it is.
kav_av_rows() {
	_ar=$(kav_rows -o ID,NAME,PINNED,UID,CGROUP-ID av list) || return 1
	printf '%s\n' "$_ar" | awk -v prefix="$KAV_PREFIX" 'NF {
		m = 0
		if (substr($2, 1, length(prefix)) == prefix) {
			c = substr($2, length(prefix) + 1, 1)
			m = (c == "" || c !~ /[A-Za-z0-9]/)
		}
		print $1, m, ($3 == "yes"), $4, $5
	}'
}

# kav_row ROWS ID: the line of ROWS whose first field is ID.
kav_row() {
	printf '%s\n' "$1" | awk -v id="$2" '$1 == id'
}

# kav_grant_fields ROW: a line of kav_grant_rows into G_ID G_VNI G_TYPE
# G_CGID G_PATH G_WIRE. kav_av_fields ROW: a line of kav_av_rows into A_ID
# A_MATCH A_PINNED A_UID A_CGID.
kav_grant_fields() {
	read -r G_ID G_VNI G_TYPE G_CGID G_PATH G_WIRE <<EOF
$1
EOF
}

kav_av_fields() {
	read -r A_ID A_MATCH A_PINNED A_UID A_CGID <<EOF
$1
EOF
}

# kav_words TEXT: the words of TEXT on one line, one space apart.
kav_words() {
	printf '%s\n' "$1" |
		awk '{ for (i = 1; i <= NF; i++) { printf "%s%s", s, $i; s = " " } } END { print "" }'
}

# kav_in WORD LIST: is WORD one of the words of LIST (as kav_words makes)?
kav_in() {
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# kav_revoke ID WHY: kavctl grant del, once per id (KAV_REVOKED lists
# the ids done). A failure is logged; the caller checks the listing
# afterwards (a grant someone else revoked meanwhile is gone too).
kav_revoke() {
	! kav_in "$1" "$KAV_REVOKED" || return 0
	KAV_REVOKED=${KAV_REVOKED:+$KAV_REVOKED }$1
	if _ro=$("$KAVCTL" grant del "$1" </dev/null 2>&1); then
		kav_log info "revoked grant $1 ($2)"
	else
		kav_log warning "kavctl grant del $1: $_ro"
	fi
}

# kav_unpin ID WHY: kavctl av unpin, the same way (KAV_UNPINNED).
kav_unpin() {
	! kav_in "$1" "$KAV_UNPINNED" || return 0
	KAV_UNPINNED=${KAV_UNPINNED:+$KAV_UNPINNED }$1
	if _uo=$("$KAVCTL" av unpin "$1" </dev/null 2>&1); then
		kav_log info "unpinned AV $1 ($2)"
	else
		kav_log warning "kavctl av unpin $1: $_uo"
	fi
}

# ------------------------------------------------------------ state file

# kav_state_load: the job's state file, if there is one, into S_EXISTS
# (0/1), S_VNI, S_CG, S_CGID, S_GRANTS and S_AVS (ids, one space apart).
# Lines that do not parse are ignored, and a file of another job whole.
# It is read, never sourced or eval'ed.
kav_state_load() {
	S_EXISTS=0 S_JOB='' S_VNI='' S_CG='' S_CGID='' S_GRANTS='' S_AVS=''
	S_CREATED=0 S_WIRE_SA=
	[ -e "$KAV_STATE" ] || [ -L "$KAV_STATE" ] || return 0
	S_EXISTS=1
	if [ ! -f "$KAV_STATE" ] || [ -L "$KAV_STATE" ]; then
		kav_log warning "$KAV_STATE is not a regular file: ignored"
		return 0
	fi
	while IFS= read -r _sl || [ -n "$_sl" ]; do
		_sv=${_sl#*=}
		case $_sl in
		job_id=*) S_JOB=$_sv ;;
		vni=*) kav_is_uint "$_sv" 10 && S_VNI="$S_VNI $_sv" ;;
		created=1) S_CREATED=1 ;;
		cgroup=/*) S_CG=$_sv ;;
		cgroup_id=*) kav_is_uint "$_sv" 20 && S_CGID=$_sv ;;
		grant=*) kav_is_uint "$_sv" 10 && S_GRANTS="$S_GRANTS $_sv" ;;
		av=*) kav_is_uint "$_sv" 10 && S_AVS="$S_AVS $_sv" ;;
		wire_sa=*) kav_is_uint "$_sv" 7 && S_WIRE_SA="$S_WIRE_SA $_sv" ;;
		esac
	done <"$KAV_STATE"
	if [ "$S_JOB" != "$KAV_JOB" ]; then
		kav_log warning "$KAV_STATE is not a state file of this job: ignored"
		S_VNI='' S_CG='' S_CGID='' S_GRANTS='' S_AVS='' S_CREATED=0
		S_WIRE_SA=''
	fi
	S_VNI=$(kav_words "$S_VNI")
	S_WIRE_SA=$(kav_words "$S_WIRE_SA")
	S_GRANTS=$(kav_words "$S_GRANTS")
	S_AVS=$(kav_words "$S_AVS")
}

# kav_state_save VNIS CGROUP CGROUP_ID GRANTS AVS [CREATED [WIRE_SA]]:
# write the state file atomically (a temporary file in the same
# directory, then mv). VNIS, GRANTS, AVS and WIRE_SA are lists (one line
# each); CREATED 1: the prolog created the job's cgroup directory (the
# epilog removes it); WIRE_SA: the wire keys whose SAs the prolog
# installs (the epilog removes them).
kav_state_save() {
	mkdir -p "$KAV_STATE_DIR" || return 1
	# A new file with a random name (mktemp: O_EXCL), never a link
	# someone planted at a name known in advance.
	_tmp=$(mktemp "$KAV_STATE_DIR/.job_$KAV_JOB.XXXXXXXX") || return 1
	if {
		echo "# kav-slurm state of job $KAV_JOB (Documentation/slurm.rst)"
		echo "version=1"
		echo "job_id=$KAV_JOB"
		for _w in $1; do
			echo "vni=$_w"
		done
		[ "${6:-0}" != 1 ] || echo "created=1"
		echo "cgroup=$2"
		echo "cgroup_id=$3"
		for _w in $4; do
			echo "grant=$_w"
		done
		for _w in $5; do
			echo "av=$_w"
		done
		for _w in ${7-}; do
			echo "wire_sa=$_w"
		done
	} >"$_tmp" && mv -f "$_tmp" "$KAV_STATE"; then
		return 0
	fi
	rm -f "$_tmp"
	return 1
}

# kav_recorded_grant: is the grant in G_* the one the state file recorded,
# a cgroup grant with the recorded cgroup id (and one of its VNIs)?
kav_recorded_grant() {
	[ "$G_TYPE" = cgroup ] && [ -n "$S_CGID" ] && [ "$G_CGID" = "$S_CGID" ] &&
		{ [ -z "$S_VNI" ] || kav_in "$G_VNI" "$S_VNI"; }
}

# kav_clean_recorded GRANT_ROWS AV_ROWS: revoke the grants and unpin the
# AVs the loaded state file records, each only if it still is what was
# recorded. Grant ids restart at 1 when kav.ko is reloaded, so a recorded
# id is revoked only if the grant still has the recorded cgroup id and
# VNI; an AV is unpinned only if it still bears the job's prefix.
kav_clean_recorded() {
	for _g in $S_GRANTS; do
		_r=$(kav_row "$1" "$_g")
		[ -n "$_r" ] || continue
		kav_grant_fields "$_r"
		if kav_recorded_grant; then
			kav_revoke "$_g" "recorded in $KAV_STATE"
		else
			kav_log notice "grant $_g is not the one $KAV_STATE recorded any more (vni $G_VNI, $G_TYPE $G_CGID): left alone"
		fi
	done
	for _a in $S_AVS; do
		_r=$(kav_row "$2" "$_a")
		[ -n "$_r" ] || continue
		kav_av_fields "$_r"
		if [ "$A_MATCH" = 1 ] && [ "$A_PINNED" = 1 ]; then
			kav_unpin "$_a" "recorded in $KAV_STATE"
		fi
	done
}

# kav_clean_stale: if the loaded state file is of an earlier run of this
# job id in another cgroup (a requeued job whose epilog never ran, or a
# crash), take back what it recorded, then forget it.
kav_clean_stale() {
	[ -n "$S_CGID" ] && [ "$S_CGID" != "$KAV_CGID" ] || return 0
	kav_log notice "$KAV_STATE is from an earlier run of the job (cgroup id $S_CGID): taking back what it recorded"
	_sg=$(kav_grant_rows) || kav_die "cannot list the grants"
	_sa=$(kav_av_rows) || kav_die "cannot list the AVs"
	kav_clean_recorded "$_sg" "$_sa"
	S_VNI='' S_CG='' S_CGID='' S_GRANTS='' S_AVS='' S_CREATED=0
}

# ------------------------------------------------------------------ wire

# Wire keys are below 2^20 (uapi/linux/kav.h): a larger VNI cannot be one.
KAV_WIRE_KEY_LIMIT=1048576

# kav_wire_key VNI: can VNI be a wire key?
kav_wire_key() {
	kav_le "$1" $((KAV_WIRE_KEY_LIMIT - 1))
}

# kav_wire_conf_mode: the "mode" of KAV_SLURM_WIRE_CONF (default
# /etc/kav/wire.conf, which kav-grants.service applies at boot; "#" at
# the start of a word starts a comment), "off" when it has none or is
# absent.
kav_wire_conf_mode() {
	_wf=${KAV_SLURM_WIRE_CONF:-/etc/kav/wire.conf}
	[ -r "$_wf" ] || {
		echo off
		return 0
	}
	awk '{ sub(/(^|[ \t])#.*/, "") } $1 == "mode" { m = $2 }
		END { print (m == "" ? "off" : m) }' "$_wf"
}

# kav_wire_setup: KAV_WIRE (1: the job's key goes on the wire) and
# KAV_WIRE_MODE (off, flowlabel, esp) from KAV_SLURM_WIRE: 0 never; 1
# always; auto when the kernel's mode is not off or, while the kernel's
# is off (not applied yet, or kav.ko not loaded), the file's is not.
kav_wire_setup() {
	KAV_WIRE=0
	KAV_WIRE_MODE=off
	[ "${KAV_SLURM_WIRE:-auto}" != 0 ] || return 0
	_wm=
	if kav_module_loaded && [ -n "${KAVCTL-}" ]; then
		_wm=$("$KAVCTL" wire show </dev/null 2>/dev/null |
			awk '$1 == "mode" { print $2; exit }')
	fi
	case $_wm in
	'' | - | off) _wm=$(kav_wire_conf_mode) ;;
	esac
	KAV_WIRE_MODE=$_wm
	if [ "${KAV_SLURM_WIRE:-auto}" = 1 ] || [ "$_wm" != off ]; then
		KAV_WIRE=1
	fi
}

# kav_wire_sa_tool: KAV_SLURM_WIRE_SA (default kav-wire-sa in PATH) into
# KAV_WIRE_SA, or empty if there is none.
kav_wire_sa_tool() {
	KAV_WIRE_SA=${KAV_SLURM_WIRE_SA:-kav-wire-sa}
	case $KAV_WIRE_SA in
	*/*) [ -x "$KAV_WIRE_SA" ] || KAV_WIRE_SA= ;;
	*) KAV_WIRE_SA=$(command -v "$KAV_WIRE_SA") || KAV_WIRE_SA= ;;
	esac
}

# kav_wire_peers: the addresses of the job's other nodes, on one line:
# each node of SLURM_JOB_NODELIST (scontrol show hostnames, which asks
# slurmctld nothing) but this one, each of its names (KAV_SLURM_WIRE_HOSTS,
# %h its node name) resolved with getent ahosts, IPv4 and IPv6. A name
# that does not resolve is logged and skipped.
kav_wire_peers() {
	_wl=${SLURM_JOB_NODELIST-}
	[ -n "$_wl" ] || kav_die "SLURM_JOB_NODELIST is not set: cannot find the job's other nodes for its SAs"
	[ -n "$KAV_NODE" ] || kav_die "SLURMD_NODENAME is not set: cannot tell this node from the job's other nodes"
	_sct=${KAV_SLURM_SCONTROL:-scontrol}
	_hn=$("$_sct" show hostnames "$_wl" </dev/null 2>&1) ||
		kav_die "$_sct show hostnames $_wl: ${_hn:-failed}"
	_wp=
	for _h in $_hn; do
		case $_h in
		*[!A-Za-z0-9._-]*) kav_die "$_sct show hostnames $_wl: '$_h' is not a node name" ;;
		esac
		[ "$_h" != "$KAV_NODE" ] || continue
		for _t in ${KAV_SLURM_WIRE_HOSTS:-%h}; do
			_n=$(printf '%s\n' "$_t" | sed "s/%h/$_h/g")
			_a=$(getent ahosts "$_n" 2>/dev/null | awk '{ print $1 }')
			if [ -z "$_a" ]; then
				kav_log warning "node $_h: '$_n' does not resolve: no SA with it"
				continue
			fi
			for _x in $_a; do
				kav_in "$_x" "$_wp" || _wp=${_wp:+$_wp }$_x
			done
		done
	done
	printf '%s\n' "$_wp"
}

# kav_wire_sa_down KEY...: kav-wire-sa down for each key (the SAs of a key
# with every peer). Returns 1 if one failed (logged).
kav_wire_sa_down() {
	_wr=0
	for _k in "$@"; do
		kav_wire_key "$_k" || continue
		if _wo=$("$KAV_WIRE_SA" down "$_k" </dev/null 2>&1); then
			kav_log info "removed the SAs of wire key $_k"
		else
			kav_log err "$KAV_WIRE_SA down $_k: ${_wo:-failed}"
			_wr=1
		fi
	done
	return $_wr
}
