#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-kmods.sh [--root ROOT] KVER OUTDIR
#
# The modules kav-wire's selftests (tests/selftests/wire) need in a guest
# of Debian's kernel KVER, taken from ROOT/lib/modules/KVER (ROOT: the
# trixie root, lanes/vm/kernels.sh; default the host's /lib/modules),
# each after what it depends on (modules.dep), uncompressed (busybox
# insmod reads plain .ko), into OUTDIR (mkinitramfs.sh: /lib/modules/kav
# in the initramfs), with OUTDIR/order, one line each, that guest-init.sh
# reads (step "kmods", before kav.ko: the wire takes nf_socket_ipv4/6 and
# nf_defrag_ipv4/6 with symbol_get()):
#
#   load NAME.ko             insmod it (its dependencies are earlier lines)
#   builtin NAME             built into this kernel (modules.builtin, or
#                            its option is =y in config-KVER)
#   absent NAME CONFIG_X     this kernel has no such option (e.g. 7.3 has
#                            no CONFIG_CRYPTO_GHASH: GCM uses the library)
#   missing NAME CONFIG_X    wanted, neither a module file nor built in:
#                            the guest reports it and the step fails
#
# The debug kernels have no modules: debug-common.config builds the same
# options in.
set -euo pipefail

# OPTION:NAME[|NAME2]: the module (or, on kernels that renamed it, its
# other name) and the option that builds it. What the tests make:
# namespaces joined by veths, tun devices, the fabric NICs (virtio-net
# over virtio-pci, which 6.1 builds as modules; run-vm.sh), VLAN devices
# (the veth guard's double tags), ESP in transport mode with
# rfc4106(gcm(aes)) keyed over xfrm's netlink; and what kav-wire takes
# (socket lookups, reassembly). Everything a template needs is loaded
# ahead: the guest has no modprobe that could find it on demand. 6.1's
# seqiv and echainiv seed from the default RNG (drbg over hmac(sha512)),
# a module there: without it no ESP state can be made; sha512 first, or
# drbg's self-test fails (a WARNING).
WANT=(
	NF_SOCKET_IPV4:nf_socket_ipv4 NF_SOCKET_IPV6:nf_socket_ipv6
	NF_DEFRAG_IPV4:nf_defrag_ipv4 NF_DEFRAG_IPV6:nf_defrag_ipv6
	IPV6:ipv6 VETH:veth TUN:tun VLAN_8021Q:8021q
	VIRTIO_PCI:virtio_pci VIRTIO_NET:virtio_net
	XFRM_USER:xfrm_user INET_ESP:esp4 INET6_ESP:esp6
	CRYPTO_AES:aes_generic\|aes CRYPTO_CTR:ctr CRYPTO_GHASH:ghash-generic
	CRYPTO_GCM:gcm CRYPTO_AUTHENC:authenc CRYPTO_SEQIV:seqiv
	CRYPTO_ECHAINIV:echainiv
	CRYPTO_SHA512:sha512_generic\|sha512 CRYPTO_DRBG_MENU:drbg
)

die() { echo "guest-kmods.sh: $*" >&2; exit 1; }

ROOT=''
if [[ ${1:-} == --root ]]; then
	ROOT=${2:?--root needs a directory}
	shift 2
fi
[[ $# -eq 2 ]] || die "usage: guest-kmods.sh [--root ROOT] KVER OUTDIR"
KVER=$1 OUT=$2
MODDIR=$ROOT/lib/modules/$KVER
CONFIG=$ROOT/boot/config-$KVER
[[ -r $MODDIR/modules.dep ]] || die "$MODDIR/modules.dep: no such file"
[[ -r $CONFIG ]] || die "$CONFIG: no such file"

# A module's name as modules.dep spells its file ("-" and "_" are one).
name_re() {
	local n=${1//[-_]/[-_]}
	echo "(^|/)$n\\.ko(\\.(xz|zst|gz))?"
}

# dep_line NAME: NAME's line of modules.dep ("path: dep dep..."), if any.
dep_line() {
	{ grep -E "$(name_re "$1"):" "$MODDIR/modules.dep" || true; } | head -n 1
}

is_builtin() {
	grep -qE "$(name_re "$1")\$" "$MODDIR/modules.builtin" 2>/dev/null
}

# add PATH: the module file PATH (relative to MODDIR) after its
# dependencies, once. modules.dep names every dependency, each with its
# own line.
add() {
	local path=$1 line dep base
	[[ -z ${SEEN[$path]:-} ]] || return 0
	SEEN[$path]=1
	line=$(grep -F "$path:" "$MODDIR/modules.dep" | grep -E "^$path:" | head -n 1) ||
		die "$MODDIR/modules.dep: no line for $path"
	for dep in ${line#*:}; do
		add "$dep"
	done
	base=${path##*/}
	case $base in
	*.ko.xz) xz -dc "$MODDIR/$path" >"$OUT/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -dcq "$MODDIR/$path" >"$OUT/${base%.zst}"; base=${base%.zst} ;;
	*.ko.gz) gzip -dc "$MODDIR/$path" >"$OUT/${base%.gz}"; base=${base%.gz} ;;
	*) cp "$MODDIR/$path" "$OUT/$base" ;;
	esac
	echo "load $base" >>"$OUT/order"
}

# want OPTION NAMES: the first of NAMES ("a|b") this kernel has.
want() {
	local opt=CONFIG_$1 names=$2 n line
	for n in ${names//|/ }; do
		line=$(dep_line "$n")
		if [[ -n $line ]]; then
			add "${line%%:*}"
			return
		fi
		if is_builtin "$n"; then
			echo "builtin $n" >>"$OUT/order"
			return
		fi
	done
	n=${names%%|*}
	if grep -qx "$opt=y" "$CONFIG"; then
		echo "builtin $n" >>"$OUT/order"
	elif grep -qE "^($opt=|# $opt is not set)" "$CONFIG"; then
		echo "guest-kmods.sh: $KVER: $n ($opt) is neither a module nor built in" >&2
		echo "missing $n $opt" >>"$OUT/order"
	else
		echo "absent $n $opt" >>"$OUT/order"
	fi
}

main() {
	local w
	declare -gA SEEN=()
	rm -rf "$OUT"
	mkdir -p "$OUT"
	: >"$OUT/order"
	for w in "${WANT[@]}"; do
		want "${w%%:*}" "${w#*:}"
	done
}

main
