#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-check.sh [--keep FILELIST] [DEBDIR]: install kav's Debian packages on this host the way
# a node would (apt, dependencies from the archive), use them, purge them,
# and check that nothing is left behind. DEBDIR defaults to build/deb
# (make deb runs first when it has no packages). Needs root; the host's
# kernel need not load modules: DKMS only builds and installs kav.ko.
#
# Checks: DKMS built and installed kav.ko for each installed Debian kernel
# (6.12: .ko.xz), of this version; the node files are in place; a program
# built with `pkg-config kav` links against the installed libkav.so.0 and
# runs, and so do libkav-dev's examples; `pkg-config --cflags kav` names libfabric's include path when
# libfabric is in a non-system prefix; libfabric's fi_info -l lists the
# hooking provider; kavctl --help and -V; the man pages are found by man;
# the Slurm scripts are installed; kav-av-fill -V, kav-cdi-generate's
# spec; then after purge: no package, no file of theirs,
# no DKMS state, no module, no configuration file.
# --keep FILELIST: leave the packages installed, for upgrade-check.sh
# --installed to upgrade (pkg.sh: DKMS builds kav.ko once per kernel
# for both), and write the files they installed to FILELIST; the purge
# and its checks are then upgrade-check.sh's.
#
# Prints TAP.
set -euo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KEEP=''
if [[ ${1:-} == --keep ]]; then
	KEEP=${2:?--keep needs a file}
	shift 2
fi
DEBDIR=${1:-$REPO/build/deb}
VERSION=$(cat "$REPO/VERSION")
TMP=''
# shellcheck source=lanes/pkg/tap.sh
. "$HERE/tap.sh"
# shellcheck source=lanes/pkg/pkg-lib.sh
. "$HERE/pkg-lib.sh"


installed() {
	[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) == ii* ]]
}

dkms_installed_for() {
	local mod
	mod=/lib/modules/$1/updates/dkms/$(module_file "$1")
	[[ -f $mod && $(modinfo -F version "$mod") == "$VERSION" &&
	   $(modinfo -F vermagic "$mod") == "$1 "* ]] &&
		dkms status -m kav -v "$VERSION" -k "$1" 2>/dev/null |
		grep -q ': installed'
}

apt_install() {
	apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends "$@" >"$TMP/install.log" 2>&1
}

apt_purge() {
	apt-get purge -y -qq -o DPkg::Lock::Timeout=300 "$@" >"$TMP/purge.log" 2>&1
}

# libfabric finds the hooking provider where libkav0 put it.
hook_listed() {
	fi_info -l 2>/dev/null | grep -q '^ofi_hook_kav:'
}

# libfabric in a non-system prefix: kav.pc's Requires.private brings its
# include path (a fake libfabric.pc that PKG_CONFIG_PATH finds first).
pc_finds_libfabric_prefix() {
	local cflags
	mkdir -p "$TMP/fakepc"
	cat >"$TMP/fakepc/libfabric.pc" <<-'PC'
	prefix=/some/prefix
	includedir=${prefix}/include
	libdir=${prefix}/lib
	Name: libfabric
	Description: libfabric in a non-system prefix (deb-check.sh)
	Version: 1.17.0
	Libs: -L${libdir} -lfabric
	Cflags: -I${includedir}
	PC
	cflags=$(PKG_CONFIG_PATH=$TMP/fakepc pkg-config --cflags kav) || return 1
	echo "# pkg-config --cflags kav: $cflags"
	[[ " $cflags " == *" -I/some/prefix/include "* ]]
}

# libkav-dev's examples (Documentation/examples: the README's program,
# kav_domain_open(3)'s and kav_av(3)'s) compile against the installed
# package, warnings as errors, as its documents say to build them.
examples_build() {
	local c n=0
	for c in /usr/share/doc/libkav-dev/examples/*.c; do
		[[ -f $c ]] || continue
		# shellcheck disable=SC2046
		cc -std=gnu11 -Wall -Wextra -Werror -o "$TMP/example" "$c" \
			$(pkg-config --cflags --libs kav) || return 1
		n=$((n + 1))
	done
	echo "# $n examples built"
	((n > 0))
}

man_pages_found() {
	man -w 7 kav && man -w 8 kavctl && man -w 3 kav_domain_open &&
		man -w 3 kav_av && man -w 1 kav-av-fill &&
		man -w 8 kav-cdi-generate
} >/dev/null 2>&1

# kav-cdi-generate's spec on stdout: JSON with kav's kind and device node.
cdi_spec() {
	local spec
	spec=$(kav-cdi-generate -o - -f json 2>/dev/null) || return 1
	grep -q '"kind": "kav.dev/av"' <<<"$spec" &&
		grep -q '"path": "/dev/kav"' <<<"$spec"
}

app_runs() {
	local out rc=0
	# shellcheck disable=SC2046
	cc -Wall -Wextra -Werror -o "$TMP/app" "$HERE/../../tests/apps/kav_pkg_app.c" \
		$(pkg-config --cflags --libs kav) || return 1
	# /lib is /usr/lib on Debian: the loader may name either.
	ldd "$TMP/app" | grep -Eq "libkav\.so\.0 => (/usr)?/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libkav\.so\.0" ||
		{ ldd "$TMP/app" | sed 's/^/# /'; return 1; }
	out=$("$TMP/app" 2>/dev/null) || rc=$?
	echo "# app: $out (exit $rc)"
	# The module is not loaded on the host: libkav says so.
	[[ $rc == 0 && $out == "domain open" ]] ||
		[[ $rc == 2 && $out == *"kav kernel module is not loaded"* ]]
}

leftovers() {
	local f
	while read -r f; do
		[[ -e $f && ! -d $f ]] && echo "$f"
	done <"$TMP/files"
	ls -d /usr/src/kav-* /var/lib/dkms/kav /lib/modules/*/updates/dkms/kav.ko* \
		/etc/modprobe.d/kav.conf /etc/modules-load.d/kav.conf \
		/usr/lib/udev/rules.d/60-kav.rules /usr/lib/kav /etc/kav 2>/dev/null || true
}

main() {
	local k debs
	[[ $EUID == 0 ]] || { echo "Bail out! deb-check.sh needs root"; exit 1; }
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	if ! compgen -G "$DEBDIR/*.deb" >/dev/null; then
		make -s -C "$REPO" deb BUILD="$(dirname "$DEBDIR")" >/dev/null
	fi
	debs=()
	for k in "${PACKAGES[@]}"; do
		debs+=("$DEBDIR/${k}_${VERSION}_"*.deb)
	done
	mapfile -t KVERS < <(kernels)

	local plan=16
	[[ -z $KEEP ]] || plan=13	# the purge's three checks are upgrade-check.sh's
	echo "1..$((plan + ${#KVERS[@]}))"
	if any_present; then
		apt-get purge -y -qq "${PACKAGES[@]}" >/dev/null 2>&1 || true
	fi
	check "apt installs ${PACKAGES[*]}" apt_install "${debs[@]}"
	for k in "${PACKAGES[@]}"; do
		installed "$k" || { sed 's/^/# /' "$TMP/install.log"; break; }
	done
	dpkg -L "${PACKAGES[@]}" 2>/dev/null | sort -u >"$TMP/files"
	for k in "${KVERS[@]}"; do
		check "DKMS installed kav $VERSION for $k ($(module_file "$k"))" \
			dkms_installed_for "$k"
	done
	check "udev rule, modprobe.d, modules-load.d installed" \
		test -f /usr/lib/udev/rules.d/60-kav.rules -a \
		-f /etc/modprobe.d/kav.conf -a -f /etc/modules-load.d/kav.conf
	check "pkg-config kav: version $VERSION" \
		test "$(pkg-config --modversion kav 2>/dev/null)" == "$VERSION"
	check "pkg-config --cflags kav has libfabric's include path (Requires.private)" \
		pc_finds_libfabric_prefix
	check "an application built with pkg-config kav links libkav.so.0 and runs" \
		app_runs
	check "libkav-dev's examples build with pkg-config kav" examples_build
	check "fi_info -l lists ofi_hook_kav (libkav0's libfabric/libkav-fi.so)" \
		hook_listed
	check "kavctl --help" sh -c 'kavctl --help | grep -q "^Usage: kavctl"'
	check "kavctl -V says $VERSION" \
		sh -c "kavctl -V | grep -q '^kavctl $VERSION '"
	check "man finds kav(7), kavctl(8), kav_domain_open(3), kav_av(3), kav-av-fill(1), kav-cdi-generate(8)" \
		man_pages_found
	check "Slurm prolog, epilog and task prolog installed, executable; kav-slurm-lib.sh 0644" \
		test -x /usr/lib/kav/slurm/kav-slurm-prolog -a \
		-x /usr/lib/kav/slurm/kav-slurm-epilog -a \
		-x /usr/lib/kav/slurm/kav-slurm-taskprolog -a \
		-f /usr/lib/kav/slurm/kav-slurm-lib.sh -a \
		! -x /usr/lib/kav/slurm/kav-slurm-lib.sh
	check "/usr/bin/kav-av-fill -V says $VERSION" \
		sh -c "/usr/bin/kav-av-fill -V | grep -qx 'kav-av-fill $VERSION'"
	check "/usr/sbin/kav-cdi-generate writes the CDI spec of /dev/kav" cdi_spec
	if [[ -n $KEEP ]]; then
		cp "$TMP/files" "$KEEP"
		return "$FAILED"
	fi
	check "apt purges ${PACKAGES[*]}" apt_purge "${PACKAGES[@]}"
	check "no package left, not even its configuration" \
		eval '! any_present'
	leftovers >"$TMP/left"
	check "nothing left behind (files, DKMS tree, modules, configuration)" \
		test ! -s "$TMP/left"
	sed 's/^/# left: /' "$TMP/left"
	return "$FAILED"
}

main "$@"
