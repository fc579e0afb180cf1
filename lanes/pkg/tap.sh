# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # N and FAILED are the sourcing script's
#
# tap.sh: TAP lines for the packaging tests (sourced by dkms-check.sh and
# deb-check.sh). N counts the checks; FAILED is 1 after any failure.

N=0 FAILED=0

# check DESCRIPTION COMMAND...: one TAP line for COMMAND's status.
check() {
	local what=$1
	shift
	N=$((N + 1))
	if "$@"; then
		echo "ok $N - $what"
	else
		echo "not ok $N - $what"
		FAILED=1
	fi
}
