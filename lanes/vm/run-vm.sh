#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh --kernel KVER --initramfs X --out DIR [--timeout SECS]
#           [--append "extra cmdline"] [--image FILE --config FILE]
#           [--boot DIR] [--arch x86_64|arm64]
#
# Boot Debian's kernel KVER with initramfs X in QEMU (TCG: KVM guests hang
# on these hosts) until the guest powers off (or reboots: -no-reboot makes
# QEMU exit then; the debug kernel has no ACPI to power off with).
# --image/--config boot another kernel (the debug kernel's vmlinux and
# .config, from debug-kernel.sh) instead of /boot/vmlinuz-KVER and
# /boot/config-KVER; KVER is then only a name. --boot DIR takes
# vmlinuz-KVER and config-KVER from DIR instead of /boot (a kernel of the
# trixie root, lanes/vm/kernels.sh). Serial ports go to files:
#   DIR/console.log   ttyS0, kernel console
#   DIR/results.log   ttyS1, test results written by the guest's /init
# Exit status: QEMU's, or 124 if the host-side timeout killed it.
#
# --arch arm64 (lanes/arm64): boot an arm64 Image (--boot DIR: the arm64
# sysroot's /boot) with qemu-system-aarch64 -M virt (TCG,
# KAV_ARM64_CPU, default neoverse-n1: Armv8.2 with LSE atomics, the
# Graviton 2 core); the console is the PL011 (ttyAMA0, console.log), the
# results port a virtio console (hvc0, results.log): the virt machine has
# one UART, and Debian's arm64 kernel has virtio-pci and the virtio
# console built in.
#
# Decompressing the bzImage is slow under TCG (xz: about 4 s for 6.1), so
# the ELF vmlinux is extracted once into build/vm/KVER/vmlinux and booted
# through its PVH entry point (CONFIG_PVH), falling back to the bzImage if
# that fails.
#
# Env: KAV_VM_TIMEOUT  default for --timeout, seconds (1500)
#      KAV_VM_PVH      0: always boot /boot/vmlinuz-KVER
#      KAV_BUILD       build directory holding the vmlinux cache (<repo>/build)
#      KAV_QEMU        QEMU binary (qemu-system-x86_64; arm64:
#                      qemu-system-aarch64)
#      KAV_VM_ARCH     default for --arch (x86_64)
#      KAV_ARM64_CPU   QEMU's -cpu for arm64 (neoverse-n1)
#      KAV_VM_MEM      guest memory (3G; make bench uses more)
#      KAV_VM_CHECKS   0: no slub_debug / KFENCE sampling (make bench)
#      KAV_VM_APPEND   more kernel command-line arguments
#      KAV_VM_VIRTFS   1: export the host's / read-only over virtio-9p,
#                      mount tag "kavroot" (lanes/slurm/kav_slurm_vm)
#      KAV_VM_FABRIC_NICS  virtio-net NICs on one QEMU hub (3 on x86_64,
#                      0 on arm64): the guest's eth0, eth1...; see
#                      fabric_nics
#      KAV_VM_TRIXIE_ROOT  a directory (lanes/trixie/root.sh's root) to
#                      export read-only over virtio-9p, mount tag
#                      "kavtrixie": the trixie userland for guest tests
set -euo pipefail
# shellcheck source=lanes/lib/cpu-lib.sh
. "$(dirname "$0")/../lib/cpu-lib.sh"

ARCH=${KAV_VM_ARCH:-x86_64}
# The fabric NICs (fabric_nics): KAV_VM_FABRIC_NICS, else 3 (arm64: 0).
NICS=3
REPO=$(cd "$(dirname "$0")/../.." && pwd)
VMDIR=${KAV_BUILD:-$REPO/build}/vm

die() { echo "run-vm.sh: $*" >&2; exit 1; }

usage() {
	die "usage: run-vm.sh --kernel KVER --initramfs X --out DIR [--timeout SECS] [--append \"...\"] [--image FILE --config FILE] [--boot DIR] [--arch x86_64|arm64]"
}

# Kernel command line. No oops=panic: the guest keeps running after a
# report so the remaining tests still give results; the host greps the
# console. "quiet" hides the boot chatter; /init raises the console log
# level before loading the module so every report reaches ttyS0.
# slub_debug=FZPU (sanity checks, red zones, poisoning, user tracking):
# under TCG it costs 2-3 s of boot and up to 1.7x on allocation-heavy work
# against FZ, not enough to give up poisoning and alloc/free traces.
# A KASAN kernel (the debug kernel) finds all that and more without it;
# the KCSAN kernel, which looks for races, runs its allocator as Debian's
# do rather than slowed down and serialised by slub_debug.
cmdline() {
	local config=$1 extra=$2 args console=ttyS0
	[[ $ARCH != arm64 ]] || console=ttyAMA0
	args="console=$console panic=-1 quiet loglevel=4"
	# Allocator checks for the tests; a benchmark runs the kernel as a
	# node would (KAV_VM_CHECKS=0).
	if [[ ${KAV_VM_CHECKS:-1} != 0 ]]; then
		if ! grep -qsE '^CONFIG_K[AC]SAN=y' "$config"; then
			args+=" slub_debug=FZPU"
		fi
		# KFENCE (Debian's 6.12, the debug kernel; not 6.1) is off
		# unless given an interval.
		if grep -qs '^CONFIG_KFENCE=y' "$config"; then
			args+=" kfence.sample_interval=100"
		fi
	fi
	# With the fabric NICs, ACPI's PCI interrupt links (AML run under
	# TCG) took 8-10 s each to enable: 36 s more boot on 6.12, 30 s more
	# for 6.1's virtio_pci. Without them (the IRQ routing table) the
	# NICs work as well; MSI-X does not use them. The debug kernels have
	# no ACPI.
	if [[ $NICS != 0 ]] && grep -qs '^CONFIG_ACPI=y' "$config"; then
		args+=" acpi=noirq"
	fi
	extra+="${KAV_VM_APPEND:+ $KAV_VM_APPEND}"
	echo "$args${extra:+ $extra}"
}

# unpack IMAGE OFFSET TOOL...: decompress IMAGE from OFFSET with TOOL.
# Trailing bytes after the payload make some tools fail after writing all
# of it, so success is judged by the result being an ELF file.
unpack() {
	local image=$1 offset=$2
	shift 2
	tail -c +$((offset + 1)) "$image" | "$@" 2>/dev/null || true
}

is_elf() {
	[[ -s $1 && $(head -c 4 "$1" | od -An -c | tr -d ' ') == '177ELF' ]]
}

# extract_vmlinux IMAGE OUT: the ELF kernel inside a bzImage, found like
# the kernel's scripts/extract-vmlinux: try each compressor magic.
extract_vmlinux() {
	local image=$1 out=$2 magic tool offset
	local -a tools=(
		'\xfd7zXZ\x00|xz -dc --single-stream'
		'\x28\xb5\x2f\xfd|zstd -dcq'
		'\x1f\x8b\x08|gzip -dc'
	)
	for tool in "${tools[@]}"; do
		magic=${tool%%|*}
		tool=${tool#*|}
		command -v "${tool%% *}" >/dev/null || continue
		while read -r offset; do
			# shellcheck disable=SC2086 # split the tool's arguments
			unpack "$image" "$offset" $tool >"$out.tmp"
			if is_elf "$out.tmp"; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done < <(LC_ALL=C grep -obUaP "$magic" "$image" | cut -d: -f1)
	done
	rm -f "$out.tmp"
	return 1
}

# The kernel file to boot: a cached PVH-bootable vmlinux, else the bzImage.
boot_image() {
	local kver=$1 boot=$2 bz=$2/vmlinuz-$1 vmlinux=$VMDIR/$1/vmlinux
	if [[ ${KAV_VM_PVH:-1} != 0 ]] &&
	   grep -qs '^CONFIG_PVH=y' "$boot/config-$kver"; then
		mkdir -p "${vmlinux%/*}"
		if [[ -s $vmlinux && ! $bz -nt $vmlinux ]] ||
		   extract_vmlinux "$bz" "$vmlinux"; then
			echo "$vmlinux"
			return
		fi
		echo "run-vm.sh: cannot extract vmlinux from $bz; booting it" >&2
	fi
	echo "$bz"
}

# The fabric NICs (kav-wire's tests): N virtio-net-pci devices, each on
# a port of QEMU hub 7 and nothing else on it, so what one sends every
# other receives, through a real NIC driver (a test moves two of them into
# two namespaces of the guest). The hub has no port to the host: the
# guest reaches nothing outside (-nic none: no default NIC either). QEMU
# notes on stderr that the hub has no host network.
fabric_nics() {
	local n=$1 i
	for ((i = 0; i < n; i++)); do
		echo "-netdev"
		echo "hubport,hubid=7,id=kavfab$i"
		echo "-device"
		echo "virtio-net-pci,netdev=kavfab$i,mac=52:54:00:4b:41:1$i"
	done
}

main() {
	local kver='' initrd='' out='' timeout=${KAV_VM_TIMEOUT:-1500} append=''
	local image='' config='' boot=/boot
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernel) kver=${2:?}; shift 2 ;;
		--image) image=${2:?}; shift 2 ;;
		--config) config=${2:?}; shift 2 ;;
		--boot) boot=${2:?}; shift 2 ;;
		--initramfs) initrd=${2:?}; shift 2 ;;
		--out) out=${2:?}; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--append) append=${2?}; shift 2 ;;
		--arch) ARCH=${2:?}; shift 2 ;;
		*) usage ;;
		esac
	done
	[[ -n $kver && -n $initrd && -n $out ]] || usage
	if [[ -n $image ]]; then
		[[ -f $image ]] || die "$image: no such file"
		[[ -f $config ]] || die "--image needs --config"
	else
		[[ -f $boot/vmlinuz-$kver ]] || die "$boot/vmlinuz-$kver missing"
		config=$boot/config-$kver
	fi
	[[ -f $initrd ]] || die "$initrd: no such file"
	local qemu
	local -a machine=() results=(-serial "file:$out/results.log") fabric
	case $ARCH in
	x86_64) qemu=${KAV_QEMU:-qemu-system-x86_64} ;;
	arm64)
		qemu=${KAV_QEMU:-qemu-system-aarch64}
		machine=(-M virt -cpu "${KAV_ARM64_CPU:-neoverse-n1}")
		local port=virtconsole,chardev=kavres
		results=(-device virtio-serial-pci
			 -chardev "file,id=kavres,path=$out/results.log"
			 -device "$port")
		NICS=0
		;;
	*) die "--arch $ARCH: x86_64 or arm64" ;;
	esac
	mkdir -p "$out"
	rm -f "$out/console.log" "$out/results.log"
	NICS=${KAV_VM_FABRIC_NICS:-$NICS}
	[[ $NICS =~ ^[0-9]$ ]] || die "KAV_VM_FABRIC_NICS=$NICS: 0 to 9"
	mapfile -t fabric < <(fabric_nics "$NICS")

	local rc=0 smp=2 start=$SECONDS
	[[ -n $image ]] || image=$(boot_image "$kver" "$boot")
	# Two CPUs. A kernel without ACPI (the debug kernels) finds them in
	# SeaBIOS's MP table, which lists only the first CPU of each package:
	# make them two packages, or that kernel runs on one CPU.
	grep -qs '^CONFIG_ACPI=y' "$config" || smp=2,sockets=2,cores=1,threads=1
	local -a virtfs=()
	[[ ${KAV_VM_VIRTFS:-0} != 1 ]] ||
		virtfs=(-virtfs "local,path=/,mount_tag=kavroot,security_model=none,readonly=on,multidevs=remap")
	if [[ -n ${KAV_VM_TRIXIE_ROOT:-} ]]; then
		[[ -d $KAV_VM_TRIXIE_ROOT/usr ]] || die "KAV_VM_TRIXIE_ROOT=$KAV_VM_TRIXIE_ROOT: not a root file system"
		virtfs+=(-virtfs "local,path=$KAV_VM_TRIXIE_ROOT,mount_tag=kavtrixie,security_model=none,readonly=on,multidevs=remap")
	fi
	local -a cmd=(timeout -k 10 "$timeout" "$qemu" "${machine[@]}"
		-accel tcg -m "${KAV_VM_MEM:-3G}" -smp "$smp"
		-nographic -no-reboot -display none -monitor none -nic none
		-kernel "$image" -initrd "$initrd" "${virtfs[@]}" "${fabric[@]}"
		-append "$(cmdline "$config" "$append")"
		-serial "file:$out/console.log" "${results[@]}")
	boot_once "$out" "${cmd[@]}" || rc=$?
	if [[ $rc -eq 125 ]]; then
		# No kav code runs before /init, which writes @@KAV-BOOT first.
		mv "$out/console.log" "$out/console.boot-hang.log"
		echo "run-vm.sh: $kver: no /init after ${BOOT_LIMIT}s (a boot that hung under TCG; its console: $out/console.boot-hang.log): booting once more" >&2
		rc=0
		boot_once "$out" "${cmd[@]}" || rc=$?
		[[ $rc -ne 125 ]] || echo "run-vm.sh: $kver: the second boot hung too" >&2
	fi
	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		echo "run-vm.sh: $kver: guest timed out after ${timeout}s" >&2
		rc=124
	fi
	echo "run-vm.sh: $kver: the guest took $((SECONDS - start)) s, $(child_cpu) CPU-s" >&2
	return "$rc"
}


# boot_once OUT CMD...: run the guest (CMD, under timeout), its status;
# 125 if /init wrote nothing to OUT/results.log within BOOT_LIMIT seconds
# (the guest is killed then). Once under TCG a guest's two emulated CPUs
# spun before the kernel printed anything (7.3, the host loaded) until
# the guest timeout, 25 minutes later; /init starts after 10 to 25 s.
BOOT_LIMIT=${KAV_VM_BOOT_LIMIT:-300}
boot_once() {
	local out=$1 pid rc=0 t=0
	shift
	rm -f "$out/results.log"
	: >"$out/results.log"
	"$@" </dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [[ ! -s $out/results.log ]]; do
		if ((t >= BOOT_LIMIT)); then
			kill "$pid" 2>/dev/null || true	# timeout passes it on
			wait "$pid" 2>/dev/null || true
			return 125
		fi
		sleep 5
		t=$((t + 5))
	done
	wait "$pid" || rc=$?
	return "$rc"
}

main "$@"
