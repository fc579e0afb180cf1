# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by cluster-test.sh: a node's life under systemd and udev, on
# kavnode2, with a 2-node job after each step:
#   - the packages upgraded to a newer build (VERSION+cluster1, image
#     time: /opt/kav-cluster/deb-next): DKMS rebuilds kav.ko in the guest,
#     /etc/kav/grants.d is kept;
#   - modprobe -r kav && modprobe kav: the new module; udev and
#     kav-grants.service put grants.d back;
#   - a reboot: the same, from systemd-modules-load;
# with kav-wire on since wire.sh: the wire (esp) comes back with each.

# small_job VNI: a 2-node job of alice under VNI: each task inserts an
# address under the job's key (kav_cluster_probe's first attempt).
small_job() {
	local j
	j=$(submit alice "-N2 --ntasks-per-node=1 -o $OUT/small-$1.out --wrap \
		'srun $BIN/kav_cluster_probe $1'") || return 1
	grant_job "$j" "$1" || return 1
	wait_for 300 job_gone "$j" || return 1
	show "$OUT/small-$1.out"
	[[ $(grep -c '^ok 1 - own VNI' "$OUT/small-$1.out") == 2 ]]
}

md5_grants() { on kavnode2 "cat /etc/kav/grants.d/*.conf | md5sum"; }

# node2_back BOOT_ID: kavnode2 runs another boot than BOOT_ID, its slurmd
# is up, and both are idle.
node2_back() {
	local id
	id=$(ssh -n kavnode2 cat /proc/sys/kernel/random/boot_id 2>/dev/null) &&
		[[ -n $id && $id != "$1" ]] &&
		ssh -n kavnode2 systemctl is-active --quiet slurmd && nodes_idle
}

lifecycle() {
	local before next
	before=$(md5_grants)
	next=$(on kavnode2 "ls /opt/kav-cluster/deb-next/kav-dkms_*.deb | sed 's/.*kav-dkms_\(.*\)_all.deb/\1/'")
	info "kavnode2: upgrading the packages to $next (DKMS builds kav.ko in the guest)"
	# The packages the node has (setup.sh installed no -dbgsym), upgraded.
	on kavnode2 "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \$(ls /opt/kav-cluster/deb-next/*.deb | grep -v -- -dbgsym_)" \
		>"$OUT/upgrade.log" 2>&1
	local rc=$?
	tail -n 8 "$OUT/upgrade.log" | sed 's/^/#   /' >&3
	check "kavnode2: the packages upgraded to $next (exit $rc); DKMS built kav.ko $next" \
		on kavnode2 "test \"\$(modinfo -F version kav)\" = '$next'"
	check "kavnode2: the upgrade kept /etc/kav/grants.d" test "$(md5_grants)" = "$before"
	on kavnode2 "modprobe -r kav && modprobe kav" >"$OUT/reload.log" 2>&1
	show "$OUT/reload.log"
	check "kavnode2: modprobe -r kav && modprobe kav loads $next" \
		wait_for 60 on kavnode2 "test \"\$(cat /sys/module/kav/version 2>/dev/null)\" = '$next'"
	check "kavnode2: after the reload, udev and kav-grants.service put grants.d back" \
		wait_for 120 node_state kavnode2
	check "kavnode2: after the reload, kav-grants.service put the wire back (esp)" \
		wire_esp kavnode2
	check "a 2-node job runs after the reload" small_job 1031
	local boot
	boot=$(on kavnode2 "cat /proc/sys/kernel/random/boot_id")
	info "kavnode2: rebooting (boot $boot)"
	on kavnode2 "systemctl reboot" >/dev/null 2>&1
	check "kavnode2 rebooted: a new boot answers ssh and its slurmd is idle again" \
		wait_for 600 node2_back "$boot"
	check "kavnode2 after the reboot: kav.ko $next, grants.d put back" \
		wait_for 120 node_state kavnode2
	check "kavnode2 after the reboot: the wire is on again (esp, /etc/kav/wire.conf)" \
		wire_esp kavnode2
	check "a 2-node job runs after the reboot" small_job 1032
}
