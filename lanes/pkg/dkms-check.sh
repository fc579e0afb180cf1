#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh: DKMS builds and installs kav.ko for the newest Debian
# kernel tested (6.12; 7.3 in the trixie root; deb-check.sh's install
# builds for every kernel, each with its compression), on the host
# (nothing is loaded), in a private
# DKMS tree: the source tree `make dkms-src` makes is added, built and
# installed with --sourcetree/--dkmstree/--installtree, so the machine's
# own /usr/src, /var/lib/dkms/<module> and /lib/modules are never touched
# (DKMS does make its module signing key, /var/lib/dkms/mok.*). Checks
# for each kernel: the module file is there with the compression the
# kernel's config asks for (6.12: .ko.xz), it is kav.ko for that kernel
# (vermagic, version), it carries the aliases that autoload it (the
# generic netlink family "kav": kavctl; the device node /dev/kav: udev's
# static nodes, devname:kav), and `dkms remove` takes it away again. Then that
# DKMS refuses (exit 77, BUILD_EXCLUSIVE) a kernel older than 6.1: a
# 5.10 kernel name with 6.1's build tree, so that dkms.conf's
# BUILD_EXCLUSIVE_KERNEL is the only reason to refuse.
#
# DKMS 3.0 (bookworm) reads the build tree and the compression from
# /lib/modules/<kver>; DKMS 3.1 and later (trixie: 3.2) read both from the
# install tree, <tree>/<kver>/build and the modules already there. So each
# kernel's directory in the private tree is made to look like the real one
# for both: its build link, and one of the kernel's own modules. Runs in
# the trixie root too (lanes/pkg/trixie-check.sh).
#
# Prints TAP. Env: KAV_KERNELS (lanes/vm/kernels.sh).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VERSION=$(cat "$REPO/VERSION")
TMP='' LOG=''
# shellcheck source=lanes/pkg/tap.sh
. "$HERE/tap.sh"
# shellcheck source=lanes/pkg/pkg-lib.sh
. "$HERE/pkg-lib.sh"


# DKMS refuses to build kav for kernel @1 (exit 77) because of
# BUILD_EXCLUSIVE_KERNEL, with build tree @2.
refuses_kernel() {
	local rc=0
	dkms build -m kav -v "$VERSION" -k "$1" --kernelsourcedir "$2" \
		"${d[@]}" >"$TMP/excl.log" 2>&1 || rc=$?
	cat "$TMP/excl.log" >>"$LOG"
	[[ $rc == 77 ]] && grep -q 'BUILD_EXCLUSIVE' "$TMP/excl.log" &&
		[[ -z $(find "$TMP/dkms" "$TMP/modules" -path "*$1*" -name 'kav.ko*') ]]
}

# Module file @1 autoloads: on kavctl's first use of the "kav" generic
# netlink family and on the first open of /dev/kav (devname:).
has_aliases() {
	local aliases
	aliases=$(modinfo -F alias "$1" 2>/dev/null) || return 1
	echo "# aliases: $(echo "$aliases" | tr '\n' ' ')"
	grep -qx 'net-pf-16-proto-16-family-kav' <<<"$aliases" &&
		grep -qx 'devname:kav' <<<"$aliases" &&
		grep -qx 'char-major-10-[0-9]*' <<<"$aliases"
}

# Make kernel @1's directory in the private install tree @2 what DKMS
# >= 3.1 reads from a real one: the build link, and one of the kernel's own
# modules (its compression: .ko.xz on Debian's 6.12 and later, plain .ko
# on 6.1), copied to the same place.
private_kernel_dir() {
	local kver=$1 tree=$2 mod
	mkdir -p "$tree/$kver"
	ln -sfn "/lib/modules/$kver/build" "$tree/$kver/build"
	mod=$(find "/lib/modules/$kver/kernel" -name '*.ko*' -type f -print -quit)
	[[ -n $mod ]] || return 0
	mod=${mod#/lib/modules/"$kver"/}
	mkdir -p "$tree/$kver/$(dirname "$mod")"
	cp "/lib/modules/$kver/$mod" "$tree/$kver/$mod"
}

# Run dkms, output to the log.
run_dkms() {
	dkms "$@" >>"$LOG" 2>&1
}

# Is @1 kav @2 (version) built for kernel @3?
is_kav_for() {
	[[ -f $1 && $(modinfo -F vermagic "$1" 2>/dev/null) == "$3 "* &&
	   $(modinfo -F version "$1" 2>/dev/null) == "$2" ]]
}

main() {
	local kver kvers file d
	command -v dkms >/dev/null || { echo "Bail out! dkms is not installed (make deps)"; exit 1; }
	mapfile -t kvers < <("$HERE/../vm/kernels.sh" | sort -V | tail -n 1)
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	d=(--sourcetree "$TMP/src" --dkmstree "$TMP/dkms" --installtree "$TMP/modules")
	LOG=$TMP/dkms.log

	echo "1..$((3 + 4 * ${#kvers[@]}))"
	make -s -C "$REPO" dkms-src DESTDIR="$TMP/root" PREFIX=/usr >"$LOG" 2>&1
	mv "$TMP/root/usr/src" "$TMP/src"
	mkdir -p "$TMP/dkms" "$TMP/modules"
	check "dkms add kav/$VERSION" run_dkms add -m kav -v "$VERSION" "${d[@]}"

	for kver in "${kvers[@]}"; do
		file=$(module_file "$kver")
		private_kernel_dir "$kver" "$TMP/modules"
		check "dkms build for $kver" \
			run_dkms build -m kav -v "$VERSION" -k "$kver" "${d[@]}"
		run_dkms install -m kav -v "$VERSION" -k "$kver" --no-depmod \
			"${d[@]}" || true
		# modinfo reads compressed modules itself.
		check "dkms install for $kver: updates/dkms/$file, kav $VERSION for $kver" \
			is_kav_for "$TMP/modules/$kver/updates/dkms/$file" \
			"$VERSION" "$kver"
		check "$file for $kver has the genl family, devname and char-major aliases" \
			has_aliases "$TMP/modules/$kver/updates/dkms/$file"
	done
	for kver in "${kvers[@]}"; do
		file=$(module_file "$kver")
		run_dkms remove -m kav -v "$VERSION" -k "$kver" --no-depmod \
			"${d[@]}" || true
		check "dkms remove for $kver takes $file away" \
			test ! -e "$TMP/modules/$kver/updates/dkms/$file"
	done
	check "no kav module left in the install tree" \
		test -z "$(find "$TMP/modules" -name 'kav.ko*')"
	mkdir -p "$TMP/modules/5.10.0-99-amd64"
	check "dkms refuses kernel 5.10 (BUILD_EXCLUSIVE_KERNEL: 6.1 and later)" \
		refuses_kernel 5.10.0-99-amd64 "/lib/modules/${kvers[0]}/build"
	if [[ $FAILED != 0 ]]; then
		echo "# dkms log:"
		sed 's/^/#   /' "$LOG"
	fi
	return "$FAILED"
}

main "$@"
