# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cache-lib.sh: sourced by lanes/vm/debug-kernel.sh and lanes/trixie/root.sh.
# A per-machine cache of things too slow to make on every run (debug
# kernels, the trixie root): one directory per key under CACHE, complete
# when it holds its STAMP file. The caller defines die() and note().

# cache_get CACHE KEY STAMP BUILD: print CACHE/KEY. Unless it is complete,
# first run "BUILD CACHE/KEY" under CACHE/.lock (concurrent callers wait,
# then find it complete), then remove the other keys' entries that are
# incomplete or unused for 14 days. Touching STAMP marks the entry used.
cache_get() {
	local cache=$1 stamp=$3 build=$4 dir=$1/$2
	if [[ ! -e $dir/$stamp ]]; then
		mkdir -p "$cache" || die "cannot create $cache (run as root, or set the cache directory)"
		exec 9>"$cache/.lock"
		if ! flock -n 9; then
			note "waiting for another build in $cache"
			flock 9
		fi
		if [[ ! -e $dir/$stamp ]]; then
			"$build" "$dir"
			[[ -e $dir/$stamp ]] || die "$build left no $dir/$stamp"
			cache_prune "$cache" "$dir" "$stamp"
		fi
		exec 9>&-
	fi
	touch "$dir/$stamp"
	echo "$dir"
}

# cache_prune CACHE KEEP STAMP: remove CACHE's entries but KEEP (and their
# logs, ENTRY.log) that are incomplete or whose STAMP is older than 14 days.
cache_prune() {
	local cache=$1 keep=$2 stamp=$3 d
	for d in "$cache"/*/; do
		d=${d%/}
		[[ -d $d && $d != "$keep" ]] || continue
		if [[ ! -e $d/$stamp ]] || [[ -n $(find "$d/$stamp" -mtime +14) ]]; then
			note "removing unused $d"
			rm -rf "$d" "$d.log"
		fi
	done
}
