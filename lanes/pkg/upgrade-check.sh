#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upgrade-check.sh [--installed FILELIST] [DEBDIR]: a node upgrades kav from version N (VERSION:
# the packages make deb built in DEBDIR, default build/deb) to N+1 (the
# same source rebuilt as N+upgrade1 by `make-deb.sh --version`, in
# DEBDIR-next), with apt, as deb-check.sh installs: N is installed, the
# administrator adds grants (/etc/kav/grants.d/site.conf, a file of his
# own) and edits the packaged conffile grants.d/README, N+1 is installed
# over it, and then purged. Needs root.
#
# Checks, on the host: every package is N+1 and configured (its
# maintainer scripts ran); DKMS rebuilt kav.ko N+1 for each Debian kernel
# (6.1, 6.12) and removed N (module files, /usr/src, DKMS state); the
# administrator's grants file and his edit of the conffile survive, with
# no .dpkg-* file beside them; kav-grants.service and the udev rule that
# starts it (61-kav-grants.rules) are installed, the unit verifies, it is
# static (started by udev when /dev/kav appears, nothing to enable) and
# not masked. The host cannot load modules: that the module is reloaded
# and the grants restored by the service (kavctl apply, then rmmod and
# modprobe, then the grants again) is checked in the VM (lanes/vm).
#
# --installed FILELIST: N is already installed (deb-check.sh --keep left
# it, FILELIST its files), so DKMS builds N once per kernel for both; the
# end also checks that every file in FILELIST is gone.
#
# Prints TAP.
set -euo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
INSTALLED=''
if [[ ${1:-} == --installed ]]; then
	INSTALLED=${2:?--installed needs a file}
	shift 2
fi
DEBDIR=${1:-$REPO/build/deb}
NEXTDIR=$DEBDIR-next
VERSION=$(cat "$REPO/VERSION")
NEXT=$VERSION+upgrade1
GRANTS=/etc/kav/grants.d
TMP=''
# shellcheck source=lanes/pkg/tap.sh
. "$HERE/tap.sh"
# shellcheck source=lanes/pkg/pkg-lib.sh
. "$HERE/pkg-lib.sh"

APT=(apt-get -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300)

# All packages installed and configured at version @1.
all_at() {
	local p
	for p in "${PACKAGES[@]}"; do
		[[ $(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$p" 2>/dev/null) == "ii  $1" ]] ||
			{ echo "# $p: $(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$p" 2>&1)"; return 1; }
	done
}

# DKMS installed kav @2 for kernel @1, and nothing of any other version.
dkms_only() {
	local mod
	mod=/lib/modules/$1/updates/dkms/$(module_file "$1")
	[[ -f $mod && $(modinfo -F version "$mod") == "$2" &&
	   $(modinfo -F vermagic "$mod") == "$1 "* ]] || return 1
	dkms status -m kav -k "$1" >"$TMP/status" 2>/dev/null
	sed 's/^/# dkms status: /' "$TMP/status"
	grep -q "^kav/$2, $1, [^:]*: installed" "$TMP/status" &&
		[[ $(grep -c . "$TMP/status") == 1 ]]
}

install_debs() {
	"${APT[@]}" install "$@" </dev/null >"$TMP/apt.log" 2>&1 ||
		{ sed 's/^/# /' "$TMP/apt.log" | tail -n 30; return 1; }
}

purge() {
	"${APT[@]}" purge "${PACKAGES[@]}" </dev/null >"$TMP/apt.log" 2>&1 ||
		{ sed 's/^/# /' "$TMP/apt.log" | tail -n 30; return 1; }
}

debs_of() {
	local p
	for p in "${PACKAGES[@]}"; do
		echo "$1/${p}_$2_"*.deb
	done
}

# The administrator's grants and his edit of the packaged README.
admin_edits() {
	cat >"$GRANTS/site.conf" <<-'CONF'
	# upgrade-check.sh: the site's grants
	vni 50 uid 1000 max-entries 1000 tag upgrade-check
	CONF
	echo '# edited by the administrator (upgrade-check.sh)' >>"$GRANTS/README"
	sha256sum "$GRANTS/site.conf" "$GRANTS/README" >"$TMP/admin.sum"
}

admin_edits_kept() {
	dpkg-query -W -f='${Conffiles}\n' kav-tools | grep -q "^ $GRANTS/README " &&
		sha256sum -c --quiet "$TMP/admin.sum" &&
		[[ -z $(find /etc/kav -name '*.dpkg-*' -o -name '*.ucf-*') ]]
}

unit_ok() {
	local unit=/lib/systemd/system/kav-grants.service
	[[ -f $unit ]] || return 1
	grep -q 'SYSTEMD_WANTS.*kav-grants.service' /usr/lib/udev/rules.d/61-kav-grants.rules || return 1
	# ExecStart= names kavctl where the package put it.
	grep -q '^ExecStart=/usr/sbin/kavctl apply' "$unit" || return 1
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze verify "$unit" >"$TMP/verify" 2>&1 ||
			{ sed 's/^/# /' "$TMP/verify"; return 1; }
	fi
	[[ $(systemctl is-enabled kav-grants.service 2>/dev/null) == static ]]
}

nothing_left() {
	local left f
	mapfile -t left < <(ls -d /usr/src/kav-* /var/lib/dkms/kav /etc/kav \
		/lib/modules/*/updates/dkms/kav.ko* 2>/dev/null || true)
	if [[ -n $INSTALLED ]]; then
		while read -r f; do
			[[ -e $f && ! -d $f ]] && left+=("$f")
		done <"$INSTALLED"
	fi
	((${#left[@]} == 0)) || printf '# left: %s\n' "${left[@]}"
	! any_present && ((${#left[@]} == 0))
}

main() {
	local k
	[[ $EUID == 0 ]] || { echo "Bail out! upgrade-check.sh needs root"; exit 1; }
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	if ! compgen -G "$DEBDIR/kav-dkms_${VERSION}_*.deb" >/dev/null; then
		make -s -C "$REPO" deb BUILD="$(dirname "$DEBDIR")" >/dev/null
	fi
	"$REPO/scripts/make-deb.sh" --version "$NEXT" "$NEXTDIR" >/dev/null ||
		{ echo "Bail out! make-deb.sh --version $NEXT failed"; exit 1; }
	mapfile -t KVERS < <(kernels)

	echo "1..$((7 + 2 * ${#KVERS[@]}))"
	if [[ -n $INSTALLED ]]; then
		rm -f "$GRANTS/site.conf"
		check "version $VERSION is installed (deb-check.sh installed it)" all_at "$VERSION"
	else
		if any_present; then
			"${APT[@]}" purge "${PACKAGES[@]}" >/dev/null 2>&1 || true
		fi
		rm -f "$GRANTS/site.conf"
		# shellcheck disable=SC2046
		check "apt installs version $VERSION" install_debs $(debs_of "$DEBDIR" "$VERSION")
	fi
	for k in "${KVERS[@]}"; do
		check "DKMS: kav $VERSION for $k" dkms_only "$k" "$VERSION"
	done
	admin_edits

	# shellcheck disable=SC2046
	install_debs $(debs_of "$NEXTDIR" "$NEXT") || true
	check "apt upgrades to $NEXT: every package configured (maintainer scripts ran)" \
		all_at "$NEXT"
	for k in "${KVERS[@]}"; do
		check "DKMS rebuilt kav $NEXT for $k ($(module_file "$k")), $VERSION is gone" \
			dkms_only "$k" "$NEXT"
	done
	check "/usr/src/kav-$VERSION removed, /usr/src/kav-$NEXT there" \
		test ! -e "/usr/src/kav-$VERSION" -a -f "/usr/src/kav-$NEXT/dkms.conf"
	check "the administrator's $GRANTS/site.conf and edited README (a conffile) survive, no .dpkg-* files" \
		admin_edits_kept
	check "kav-grants.service verifies, static (udev starts it), 61-kav-grants.rules wants it" \
		unit_ok
	rm -f "$GRANTS/site.conf"
	check "apt purges $NEXT" purge
	check "nothing of kav left (packages, DKMS, modules, /etc/kav)" nothing_left
	return "$FAILED"
}

main "$@"
