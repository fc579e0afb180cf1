#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio.gz [--module kav.ko] --bins "a b c"
#                [--extra "file..."] [--script guest-cmds] [--args "ARGS"]
#                [--kmods KVER [--kmods-root ROOT]]
#
# Build a busybox-static initramfs that loads the module, runs each test
# program and powers the VM off:
#
#   /bin/busybox + applet links    (PATH=/sbin:/bin:/usr/sbin:/usr/bin)
#   /kav.ko                        the module (--module)
#   /tests/<name>                  each --bins program and --extra file
#   /tests/<script>                the --script (a busybox sh script)
#   /usr/bin/ip, nsenter, unshare  iproute2's and util-linux's, for the
#                                  wire's tests (KAV_VM_TOOLS); call them
#                                  by full path, see install_tools
#   /lib/modules/kav/              --kmods: the modules of Debian's kernel
#                                  KVER (of ROOT: the trixie root) that
#                                  kav-wire's tests need, and their
#                                  "order" (guest-kmods.sh)
#   <lib paths>                    shared libraries found by ldd, at the
#                                  same paths as on the host, + the loader
#   /init                          the runner, from guest-init.sh
#
# --args: arguments every program is run with (words: letters, digits,
# "-", "_", ".", "=", ",").
#
# /init (guest-init.sh) mounts proc, sysfs, devtmpfs, tmpfs, cgroup2 and
# debugfs, loads the module, runs the --script then each program with a
# timeout, writing marked blocks to the results port /dev/ttyS1, and powers
# off. See guest-init.sh for the result format.
#
# Env: KAV_TEST_TIMEOUT  per-step timeout in the guest, seconds (300)
#      KAV_BUSYBOX       the static busybox to install (/bin/busybox)
#      KAV_SYSROOT       another architecture's root (lanes/arm64): the
#                        libraries come from there, found with readelf
#                        (NEEDED, recursively, and the program interpreter)
#                        instead of ldd, and are copied to their paths
#                        inside it
#      KAV_RESULTS_PORT  the guest's results port (/dev/ttyS1; arm64:
#                        /dev/hvc0)
#      KAV_VM_TOOLS      0: no /usr/bin/ip, nsenter, unshare (they add
#                        about 0.6 MB to the image, compressed)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TEST_TIMEOUT=${KAV_TEST_TIMEOUT:-300}
BUSYBOX=${KAV_BUSYBOX:-/bin/busybox}

die() { echo "mkinitramfs.sh: $*" >&2; exit 1; }

usage() {
	die "usage: mkinitramfs.sh OUT.cpio.gz [--module kav.ko] --bins \"a b\" [--extra \"f...\"] [--script file] [--args \"ARGS\"] [--kmods KVER [--kmods-root ROOT]]"
}

# Names end up in marker lines and in the guest's shell words.
check_name() {
	[[ $1 =~ ^[A-Za-z0-9._+-]+$ ]] || die "unsupported file name '$1'"
	[[ ! -e $ROOT/tests/$1 ]] || die "two files named '$1' in /tests"
}

install_busybox() {
	local link
	if [[ -n $SYSROOT ]]; then
		[[ -z $(elf_interp "$BUSYBOX") ]] ||
			die "$BUSYBOX is not static (busybox-static)"
	elif ldd "$BUSYBOX" >/dev/null 2>&1; then
		die "$BUSYBOX is not static (install busybox-static)"
	fi
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin}
	cp "$BUSYBOX" "$ROOT/bin/busybox"
	while read -r link; do
		[[ -e $ROOT/$link || -L $ROOT/$link ]] && continue
		ln -s /bin/busybox "$ROOT/$link"
	done < <(busybox_list)
}

# The applets' paths: the host's busybox of the same version lists them
# when BUSYBOX is another architecture's.
busybox_list() {
	if [[ -n $SYSROOT ]]; then
		/bin/busybox --list-full
	else
		"$BUSYBOX" --list-full
	fi
}

# The real ip (iproute2: netns, veth, xfrm, vlan), nsenter and unshare
# (util-linux), with their libraries, at /usr/bin. busybox has applets of
# all three (ip at /sbin, before /usr/bin in PATH), and busybox sh runs
# its own applet for a bare command name whatever PATH says: "ip" in a
# script, in system("...") or in "sh -c" is busybox's, which knows no
# netns, veth or xfrm. Tests call /usr/bin/ip (/usr/bin/nsenter,
# /usr/bin/unshare) by full path. With KAV_SYSROOT they come from the
# sysroot when it has them.
TOOLS='/usr/bin/ip /usr/bin/nsenter /usr/bin/unshare'

install_tools() {
	local t
	[[ ${KAV_VM_TOOLS:-1} != 0 ]] || return 0
	for t in $TOOLS; do
		if [[ ! -f $SYSROOT$t ]]; then
			[[ -z $SYSROOT ]] || continue
			die "$t missing (iproute2, util-linux: scripts/deps.sh)"
		fi
		# Replaces busybox's link, if it had one there.
		rm -f "$ROOT$t"
		cp -L "$SYSROOT$t" "$ROOT$t"
		if [[ -n $SYSROOT ]]; then
			copy_libs_sysroot "$SYSROOT$t"
		else
			copy_libs "$t"
		fi
	done
	# ip netns keeps its names in /run/netns.
	mkdir -p "$ROOT/run" "$ROOT/var"
	ln -sfn ../run "$ROOT/var/run"
}

# Copy a file to the same absolute path inside the image.
copy_same_path() {
	local path=$1
	[[ -e $ROOT$path ]] && return 0
	mkdir -p "$ROOT$(dirname "$path")"
	cp -L "$path" "$ROOT$path"
}

# Shared libraries (and the dynamic loader) of an ELF file, via ldd.
# Libraries outside the standard directories are remembered so the guest
# can find them through LD_LIBRARY_PATH.
copy_libs() {
	local file=$1 out line lib
	out=$(ldd "$file" 2>&1) || return 0	# static, script or data
	if grep -q 'not found' <<<"$out"; then
		die "$file: missing libraries:"$'\n'"$(grep 'not found' <<<"$out")"
	fi
	while read -r line; do
		case $line in
		*' => '/*) lib=${line#* => }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;		# linux-vdso.so.1
		esac
		copy_same_path "$lib"
		case ${lib%/*} in
		/lib|/lib64|/usr/lib|/usr/lib64|/lib/x86_64-linux-gnu|/usr/lib/x86_64-linux-gnu) ;;
		*) LIBDIRS+=("${lib%/*}") ;;
		esac
	done <<<"$out"
}

# KAV_SYSROOT: an ELF file's program interpreter, and its NEEDED names
# (none for a script or data: readelf fails on them).
elf_interp() {
	{ readelf -lW "$1" 2>/dev/null || true; } |
		sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p'
}

elf_needed() {
	{ readelf -dW "$1" 2>/dev/null || true; } |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

# copy_libs_sysroot FILE: FILE's libraries (and theirs) from SYSROOT to
# the same paths in the image, and its interpreter.
copy_libs_sysroot() {
	local file=$1 interp lib dir found
	interp=$(elf_interp "$file")
	[[ -z $interp ]] || copy_from_sysroot "$interp"
	for lib in $(elf_needed "$file"); do
		found=''
		for dir in $SYSROOT_LIBDIRS; do
			if [[ -e $SYSROOT$dir/$lib ]]; then
				found=$dir/$lib
				break
			fi
		done
		[[ -n $found ]] || die "$file: $lib not found in $SYSROOT ($SYSROOT_LIBDIRS)"
		[[ -e $ROOT$found ]] && continue
		copy_from_sysroot "$found"
		copy_libs_sysroot "$SYSROOT$found"
	done
}

copy_from_sysroot() {
	local path=$1
	[[ -e $ROOT$path ]] && return 0
	[[ -e $SYSROOT$path ]] || die "$SYSROOT$path: no such file"
	mkdir -p "$ROOT$(dirname "$path")"
	cp -L "$SYSROOT$path" "$ROOT$path"
}

# Install a file into /tests under its base name (with its libraries);
# the name is left in INSTALLED.
install_test_file() {
	local file=$1
	[[ -f $file ]] || die "$file: no such file"
	INSTALLED=${file##*/}
	check_name "$INSTALLED"
	cp -L "$file" "$ROOT/tests/$INSTALLED"
	if [[ -n $SYSROOT ]]; then
		copy_libs_sysroot "$file"
	else
		copy_libs "$file"
	fi
}

ld_library_path() {
	[[ ${#LIBDIRS[@]} -gt 0 ]] || return 0
	printf '%s\n' "${LIBDIRS[@]}" | sort -u | paste -sd:
}

# The guest's /init: a configuration header, then guest-init.sh.
write_init() {
	{
		echo '#!/bin/sh'
		echo '# Generated by lanes/vm/mkinitramfs.sh from lanes/vm/guest-init.sh.'
		echo "TEST_TIMEOUT=$TEST_TIMEOUT"
		echo "HAVE_MODULE=$HAVE_MODULE"
		echo "HAVE_KMODS=$HAVE_KMODS"
		echo "SCRIPT='$SCRIPT'"
		echo "TESTS='${TESTS[*]}'"
		echo "ARGS='$ARGS'"
		echo "LIBPATH='$(ld_library_path)'"
		echo "RESULTS_PORT='$RESULTS_PORT'"
		sed -n '/^# --- body ---$/,$p' "$HERE/guest-init.sh"
	} >"$ROOT/init"
	chmod 0755 "$ROOT/init"
}

write_cpio() {
	local out=$1
	(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
	mv "$out.tmp" "$out"
}

main() {
	[[ $# -ge 1 && $1 != -* ]] || usage
	local out=$1 module='' bins='' extra='' script='' f kmods='' kmods_root=''
	ARGS=''
	shift
	while [[ $# -gt 0 ]]; do
		case $1 in
		--module) module=${2:?}; shift 2 ;;
		--bins) bins=${2?}; shift 2 ;;
		--extra) extra=${2?}; shift 2 ;;
		--script) script=${2:?}; shift 2 ;;
		--args) ARGS=${2?}; shift 2 ;;
		--kmods) kmods=${2:?}; shift 2 ;;
		--kmods-root) kmods_root=${2:?}; shift 2 ;;
		*) usage ;;
		esac
	done
	[[ $TEST_TIMEOUT =~ ^[0-9]+$ ]] || die "KAV_TEST_TIMEOUT must be seconds"
	[[ $ARGS =~ ^[A-Za-z0-9\ ._=,-]*$ ]] || die "unsupported --args '$ARGS'"
	SYSROOT=${KAV_SYSROOT:-}
	SYSROOT_LIBDIRS=''
	if [[ -n $SYSROOT ]]; then
		[[ -d $SYSROOT/usr ]] || die "KAV_SYSROOT=$SYSROOT: not a root file system"
		# The multiarch directories of the sysroot's libc, then the plain ones.
		for f in "$SYSROOT"/lib/*-linux-gnu* "$SYSROOT"/usr/lib/*-linux-gnu*; do
			[[ ! -d $f ]] || SYSROOT_LIBDIRS+="${f#"$SYSROOT"} "
		done
		SYSROOT_LIBDIRS+='/lib /usr/lib'
	fi
	RESULTS_PORT=${KAV_RESULTS_PORT:-/dev/ttyS1}
	[[ $RESULTS_PORT =~ ^/dev/[A-Za-z0-9]+$ ]] || die "unsupported KAV_RESULTS_PORT '$RESULTS_PORT'"

	ROOT=$(mktemp -d)
	trap 'rm -rf "$ROOT"' EXIT
	# mktemp makes it 0700: as the guest's "/" that would lock every
	# non-root test process (the tenants of kav_attack_test) out of /dev.
	chmod 0755 "$ROOT"
	LIBDIRS=() TESTS=() SCRIPT='' HAVE_MODULE=0 HAVE_KMODS=0
	mkdir -p "$ROOT"/{dev,proc,sys,tmp,root,tests}
	# Needed for /init's first output; without root, /init reopens it
	# from devtmpfs.
	mknod -m 600 "$ROOT/dev/console" c 5 1 2>/dev/null || true
	install_busybox
	install_tools
	if [[ -n $kmods ]]; then
		"$HERE/guest-kmods.sh" ${kmods_root:+--root "$kmods_root"} \
			"$kmods" "$ROOT/lib/modules/kav" || die "guest-kmods.sh failed"
		HAVE_KMODS=1
	fi

	if [[ -n $module ]]; then
		[[ -f $module ]] || die "$module: no such file"
		cp "$module" "$ROOT/kav.ko"
		HAVE_MODULE=1
	fi
	for f in $bins; do
		install_test_file "$f"
		TESTS+=("$INSTALLED")
	done
	for f in $extra; do
		install_test_file "$f"
	done
	if [[ -n $script ]]; then
		install_test_file "$script"
		SCRIPT=$INSTALLED
	fi
	write_init
	mkdir -p "$(dirname "$out")"
	write_cpio "$out"
}

main "$@"
