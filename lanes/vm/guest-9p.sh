# SPDX-License-Identifier: GPL-2.0
# G9P_WHY is read by the program that sources this file.
# shellcheck shell=sh disable=SC2034
#
# guest-9p.sh: sourced (busybox sh, in the guest) by the test programs
# that run chrooted in a root file system exported over virtio-9p by
# run-vm.sh: lanes/slurm/kav_slurm_vm (the host's /, tag "kavroot",
# KAV_VM_VIRTFS=1) and lanes/ompi/kav_ompi_vm (the trixie root, tag
# "kavtrixie", KAV_VM_TRIXIE_ROOT). The export is read-only; what the
# chroot writes goes to tmpfs.
#
#   g9p_modules            load the running kernel's 9p modules from
#                          /tests/kav-slurm-kmods-$(uname -r).tar
#                          (lanes/slurm/kmods.sh)
#   g9p_mount TAG DIR      mount the export TAG read-only at DIR
#   g9p_system DIR         the guest's /proc, /sys, /sys/fs/cgroup, /dev
#                          (so /dev/kav) and /dev/pts in DIR; tmpfs at
#                          /dev/shm, /tmp and /run
#   g9p_tmpfs DIR PATH...  tmpfs (0755) at each PATH that is a directory
#                          in DIR
#   g9p_umount_all         unmount everything above, last first, so the
#                          programs after this one find the guest as it was
#   g9p_net                lo up, with 10.255.255.1/32 besides 127.0.0.1
#
# A function that fails returns 1 with the reason in G9P_WHY.
G9P_MOUNTS=''
G9P_WHY=''

# g9p_did DIR: remember a mount point for g9p_umount_all (last first).
g9p_did() {
	G9P_MOUNTS="$1 $G9P_MOUNTS"
}

g9p_modules() {
	kver=$(uname -r)
	tar=/tests/kav-slurm-kmods-$kver.tar
	if [ ! -f "$tar" ]; then
		G9P_WHY="no 9p modules for $kver (lanes/slurm/kmods.sh makes them)"
		return 1
	fi
	mkdir -p /tmp/kmods
	tar -xf "$tar" -C /tmp/kmods || { G9P_WHY="cannot unpack $tar"; return 1; }
	while read -r m; do
		[ -n "$m" ] || continue
		# Already loaded (another program of this guest): fine.
		insmod "/tmp/kmods/$m" 2>/dev/null ||
			grep -q "^${m%.ko} " /proc/modules ||
			grep -q "^$(echo "${m%.ko}" | tr - _) " /proc/modules ||
			{ G9P_WHY="insmod $m failed"; return 1; }
	done </tmp/kmods/order
}

g9p_mount() {
	mkdir -p "$2"
	mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144,cache=loose \
		"$1" "$2" 2>/dev/null || { G9P_WHY="no 9p export \"$1\""; return 1; }
	g9p_did "$2"
}

g9p_system() {
	if mount -t proc proc "$1/proc" && g9p_did "$1/proc" &&
	   mount -o bind /sys "$1/sys" && g9p_did "$1/sys" &&
	   mount -o bind /sys/fs/cgroup "$1/sys/fs/cgroup" && g9p_did "$1/sys/fs/cgroup" &&
	   mount -o bind /dev "$1/dev" && g9p_did "$1/dev" &&
	   mount -o bind /dev/pts "$1/dev/pts" && g9p_did "$1/dev/pts" &&
	   g9p_tmpfs_mode 1777 "$1/dev/shm" && g9p_tmpfs_mode 1777 "$1/tmp" &&
	   g9p_tmpfs_mode 0755 "$1/run"; then
		return 0
	fi
	G9P_WHY="cannot mount the system directories in $1"
	return 1
}

# g9p_tmpfs_mode MODE DIR: a tmpfs at DIR.
g9p_tmpfs_mode() {
	mount -t tmpfs -o "mode=$1" tmpfs "$2" && g9p_did "$2"
}

g9p_tmpfs() {
	root=$1
	shift
	for d in "$@"; do
		[ -d "$root$d" ] || continue
		g9p_tmpfs_mode 0755 "$root$d" ||
			{ G9P_WHY="cannot mount a tmpfs at $root$d"; return 1; }
	done
}

g9p_umount_all() {
	for d in $G9P_MOUNTS; do
		umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null
	done
	G9P_MOUNTS=''
}

# The guest has no NIC, and getaddrinfo(AI_ADDRCONFIG), which Slurm uses,
# finds no IPv4 address then (127.0.0.1 does not count): one more on lo.
g9p_net() {
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	ip addr add 10.255.255.1/32 dev lo 2>/dev/null
	return 0
}
