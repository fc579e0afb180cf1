# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# build-lib.sh: what build-fabtests.sh and build-mpich.sh share (sourced,
# after they set HERE and PREFIX and define build KEY).
#
# A build is a no-op when PREFIX/.kav-stamp matches the key: the sha256 of
# the building script, of this file and of sources.sh (which pins the
# tarball's sha256), and libfabric-dev's version. Otherwise build KEY
# removes PREFIX, rebuilds it and writes the stamp last, so an
# interrupted build is redone. Builds of one PREFIX are serialised by
# flock on PREFIX.lock. A build is quiet: its log is kept in PREFIX.log
# and its tail printed on failure.

BUILD_SCRIPT=${0##*/}

die() { echo "$BUILD_SCRIPT: $*" >&2; exit 1; }

stamp_key() {
	local fabric
	fabric=$(dpkg-query -W -f='${Version}' libfabric-dev 2>/dev/null) ||
		die "libfabric-dev is not installed (run scripts/deps.sh)"
	{
		sha256sum <"$HERE/$BUILD_SCRIPT"
		sha256sum <"$HERE/build-lib.sh"
		sha256sum <"$HERE/sources.sh"
		echo "libfabric-dev $fabric"
	} | sha256sum | cut -d' ' -f1
}

# run LOG STEP DIR CMD...: run CMD in DIR, its output appended to LOG; on
# failure show the log's tail.
run() {
	local log=$1 step=$2 dir=$3
	shift 3
	echo "+ (cd $dir && $*)" >>"$log"
	if ! (cd "$dir" && "$@") >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "$step failed (full log: $log)"
	fi
}

# build_main ENV ARGS...: the script's main: no arguments (ENV names the
# variable that sets PREFIX, for the usage); builds under the lock when
# the stamp is not the key, then prints PREFIX.
build_main() {
	local env=$1 key
	shift
	[[ $# -eq 0 ]] || die "usage: $BUILD_SCRIPT (env: $env)"
	key=$(stamp_key)
	mkdir -p "$(dirname "$PREFIX")"
	exec 9>"$PREFIX.lock"
	flock 9
	if [[ $(cat "$PREFIX/.kav-stamp" 2>/dev/null) != "$key" ]]; then
		build "$key"
	fi
	echo "$PREFIX"
}
