#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fi-info-check.sh PROVIDER.so...
#
# Run inside the trixie root (make unit-trixie): libfabric 2.1's fi_info
# -l must list ofi_hook_kav when FI_PROVIDER_PATH holds PROVIDER.so, for
# each one given (the 2.1 build and the host's 1.17 build: a provider
# declaring fi_version 1.17 loads into 2.1), and must not list it
# without (the root installs no kav provider, so the listing is the
# given file's). TAP output; exit 1 on any failure.
set -uo pipefail

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

# Does fi_info -l, with FI_PROVIDER_PATH=$1 (empty: unset), list the hook?
lists_hook() {
	local out
	if [[ -n $1 ]]; then
		out=$(FI_PROVIDER_PATH=$1 fi_info -l 2>&1)
	else
		out=$(env -u FI_PROVIDER_PATH fi_info -l 2>&1)
	fi
	grep -qx 'ofi_hook_kav:' <<<"$out"
}

[[ $# -gt 0 ]] || { echo "usage: fi-info-check.sh PROVIDER.so..." >&2; exit 2; }
echo "1..$(($# + 1))"
echo "# $(fi_info --version 2>&1 | tr '\n' ' ')"
if lists_hook ''; then
	not_ok "fi_info -l lists ofi_hook_kav without FI_PROVIDER_PATH"
else
	ok "fi_info -l does not list ofi_hook_kav without FI_PROVIDER_PATH"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for so in "$@"; do
	# A directory with only this provider: FI_PROVIDER_PATH takes dirs.
	dir=$tmp/$n
	mkdir -p "$dir"
	if [[ ! -f $so ]]; then
		not_ok "$so: no such file"
		continue
	fi
	ln -s "$so" "$dir/libkav-fi.so"
	if lists_hook "$dir"; then
		ok "fi_info -l lists ofi_hook_kav from $so"
	else
		not_ok "fi_info -l does not list ofi_hook_kav from $so"
	fi
done
[[ $failed -eq 0 ]]
