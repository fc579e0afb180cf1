# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # PACKAGES is the sourcing script's
#
# pkg-lib.sh: what the packaging tests share about a node (sourced by
# deb-check.sh, upgrade-check.sh and dkms-check.sh): kav's packages, the
# kernels DKMS builds for and the module file it installs for each.

PACKAGES=(kav-dkms libkav0 libkav-dev kav-tools)

# Is any of the packages on the system (installed, or its configuration)?
any_present() {
	dpkg-query -W -f='${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null |
		cut -c2 | grep -qv n
}

# Debian kernels with a build tree: the ones DKMS builds for.
kernels() {
	local d
	for d in /lib/modules/*/build; do
		[[ -e $d ]] && basename "$(dirname "$d")"
	done
}

# The module file a kernel's config makes DKMS install.
module_file() {
	local config=/boot/config-$1
	if grep -qs '^CONFIG_MODULE_COMPRESS_XZ=y' "$config"; then
		echo kav.ko.xz
	elif grep -qs '^CONFIG_MODULE_COMPRESS_ZSTD=y' "$config"; then
		echo kav.ko.zst
	elif grep -qs '^CONFIG_MODULE_COMPRESS_GZIP=y' "$config"; then
		echo kav.ko.gz
	else
		echo kav.ko
	fi
}
