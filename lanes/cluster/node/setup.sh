#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh OUT MPICH: make the trixie root a cluster node. Runs chrooted in
# an overlay of the root (lanes/cluster/image.sh), at image time, as an
# administrator would set up a node (Documentation/admin-guide.rst,
# "Deploying on a cluster"): OUT holds deb/ (kav's packages), deb-next/
# (the upgrade) and src/ (the tree); MPICH is MPICH's prefix for trixie.
set -euo pipefail
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

OUT=${1:?usage: setup.sh OUT MPICH}
MPICH=${2:?usage: setup.sh OUT MPICH}
SRC=$OUT/src
NODE=$SRC/lanes/cluster/node
LIB=/usr/lib/kav-cluster		# the test's own files on the node

step() { echo "setup.sh: $*"; }

# 0. The nodes boot trixie's 6.12: trixie-backports' kernel goes (DKMS
# would build for it at every install, in the guest too).
mapfile -t newer < <(dpkg-query -W -f='${Package}\n' 'linux-*' |
	grep -E '^linux-(image|headers|kbuild)-(amd64$|7\.)')
[[ ${#newer[@]} == 0 ]] || apt-get purge -y -q "${newer[@]}"
apt-get autoremove -y -q --purge

# 1. kav from its packages: DKMS builds kav.ko for the root's kernel.
debs=()
for f in "$OUT"/deb/*.deb; do
	[[ $f == *-dbgsym_* ]] || debs+=("$f")
done
step "installing ${debs[*]##*/}"
dpkg -i "${debs[@]}"
dkms status kav
ls /lib/modules/*/updates/dkms/kav.ko*

# 2. Users of the two tenants (uids as on every node of a site).
useradd -m -u 1001 -s /bin/bash alice
useradd -m -u 1002 -s /bin/bash bob

# 3. Munge and Slurm: one key and one configuration for every node.
dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
install -m 0644 "$NODE/slurm.conf" "$NODE/cgroup.conf" /etc/slurm/
install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd
install -m 0644 "$NODE/kav-slurm.conf" /etc/kav/slurm.conf
install -m 0644 "$NODE/grants-cluster.conf" /etc/kav/grants.d/cluster.conf
# slurmctld on the first node only.
install -d /etc/systemd/system/slurmctld.service.d
printf '[Unit]\nConditionHost=kavnode1\n' \
	>/etc/systemd/system/slurmctld.service.d/kav-cluster.conf

# 4. The nodes' network and names; ssh between them as root.
install -m 0644 "$NODE/hosts" /etc/hosts
install -m 0644 "$NODE"/*.service "$NODE"/*.slice /etc/systemd/system/
install -m 0755 -d $LIB $LIB/bin
install -m 0755 "$NODE"/*.sh $LIB/
rm -f $LIB/setup.sh
systemctl enable kav-cluster-net.service kav-cluster-test.service
# A loaded host can make the NIC's uevent come after systemd's 90 s for a
# device (node 3 once never got its address, kav-cluster-net.service
# failing on "Timed out waiting for device ... eth0"): wait up to 5 min.
install -d /etc/systemd/system.conf.d
printf '[Manager]\nDefaultDeviceTimeoutSec=300s\n' \
	>/etc/systemd/system.conf.d/kav-cluster.conf
ssh-keygen -q -A
install -d -m 0700 /root/.ssh
ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519
cp /root/.ssh/id_ed25519.pub /root/.ssh/authorized_keys
# One connection per node pair, kept 15 min: every later ssh rides it
# (no key exchange, no authentication): under TCG that handshake is
# the 2-3 s most checks spent. A master whose node rebooted is gone
# with its TCP connection; a silent peer drops it after a minute.
cat >/root/.ssh/config <<'EOF'
Host *
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
	ConnectTimeout 20
	ControlMaster auto
	ControlPath /run/kav-ssh-%C
	ControlPersist 15m
	ServerAliveInterval 10
	ServerAliveCountMax 6
EOF
# Sessions on the one connection: more than sshd's default 10 at a time.
install -d /etc/ssh/sshd_config.d
printf 'MaxSessions 64\n' >/etc/ssh/sshd_config.d/kav-cluster.conf
: >/etc/machine-id

# 5. Nothing the test does not need starts at boot (TCG is slow).
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
	e2scrub_reap.service fstrim.timer dpkg-db-backup.timer \
	logrotate.timer man-db.timer podman-auto-update.timer \
	podman-clean-transient.timer podman-restart.service \
	getty@tty1.service serial-getty@ttyS0.service \
	systemd-timesyncd.service 2>/dev/null || true
# No man-db trigger at each install (mandb over every page under TCG).
rm -f /var/lib/man-db/auto-update
rm -f /usr/sbin/policy-rc.d

# 6. Containers: a root file system made of the node's own /usr (bound
# read-only at run time), and kav's CDI spec.
mkdir -p /srv/kavctr/etc /srv/kavctr/usr /srv/kavctr/tmp /srv/kavctr/dev \
	/srv/kavctr/proc /srv/kavctr/sys /srv/kavctr/run
for d in bin sbin lib lib64; do
	ln -sfn usr/$d /srv/kavctr/$d
done
cp /etc/passwd /etc/group /etc/hosts /etc/nsswitch.conf /etc/ld.so.cache \
	/srv/kavctr/etc/
if command -v kav-cdi-generate >/dev/null; then
	mkdir -p /etc/cdi
	kav-cdi-generate --output /etc/cdi/kav.yaml
fi

# 7. The test's programs, built against the installed libkav and MPIs.
gcc -O2 -Wall -Wextra -Werror -o $LIB/bin/kav_cluster_probe \
	"$SRC/tests/apps/kav_cluster_probe.c" -lkav -lfabric
# kav_wire_probe static: a tenant's own program, no library of the node's
# in it (getaddrinfo reads /etc/hosts with glibc's built-in files NSS).
gcc -O2 -Wall -Wextra -Werror -static -o $LIB/bin/kav_wire_probe \
	"$SRC/tests/apps/kav_wire_probe.c"
gcc -O2 -Wall -Wextra -Werror -o $LIB/bin/kav_wire_forge \
	"$SRC/tests/apps/kav_wire_forge.c"
mpicc.openmpi -O2 -o $LIB/bin/kav_ompi "$SRC/tests/apps/kav_ompi.c"
"$MPICH/bin/mpicc" -O2 -o $LIB/bin/mpi_instant "$SRC/tests/apps/mpi_instant.c"
install -d /opt/kav-cluster
cp -a "$OUT/deb-next" /opt/kav-cluster/deb-next
echo "setup.sh: done"
