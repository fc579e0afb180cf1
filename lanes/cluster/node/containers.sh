# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by cluster-test.sh: tenants in containers (podman 5 with crun).
#
# A container gets /dev/kav through kav's CDI spec (/etc/cdi/kav.yaml,
# written by kav-cdi-generate at install) and runs in a systemd slice
# given with --cgroup-parent; the administrator grants the tenant's VNI
# to that slice, which covers every container below it. The containers'
# root file system is the node's own /usr (read-only) with a small /etc
# (image-time, node/setup.sh), host networking. Checked:
#   - inside, kavctl whoami shows the container's identity and the grant;
#   - fi_pingpong (libfabric 2.1's own test) between containers on the two
#     nodes, through FI_HOOK=kav under the tenant's VNI;
#   - a container in a slice without a grant is refused, naming why;
#   - rootless podman (alice, a user namespace): what works is reported.

# Options first: podman takes the first word after --rootfs as the root.
CTR_RUN="podman run --device kav.dev/av=kav -v /usr:/usr:ro --network host"
ROOTFS="--rootfs /srv/kavctr"
CTR_ENV="-e FI_HOOK=kav -e FI_PROVIDER=tcp -e FI_TCP_IFACE=eth0 \
-e FI_OFI_HOOK_KAV_STATS=1 -e FI_LOG_LEVEL=warn"

# pingpong_server NAME SLICE: fi_pingpong's server in a container on
# kavnode1, in the background (its log: podman logs NAME).
pingpong_server() {
	on kavnode1 "podman rm -f $1 >/dev/null 2>&1; $CTR_RUN -d --name $1 --log-driver k8s-file \
		--cgroup-parent=$2 $CTR_ENV -e FI_OFI_HOOK_KAV_VNI=$VNI_CTR \
		$ROOTFS fi_pingpong -p tcp -e rdm -I 50 -S 64" >/dev/null 2>&1
	# Until it listens on fi_pingpong's out-of-band port (47592).
	wait_for 120 on kavnode1 "ss -Hltn 'sport = :47592' | grep -q ."
}

slices_and_grant() {
	local n=$1
	on "$n" "systemctl start kavtenant.slice kavother.slice &&
		test -d /sys/fs/cgroup/kavtenant.slice &&
		kavctl grant add vni $VNI_CTR cgroup /sys/fs/cgroup/kavtenant.slice tag containers >/dev/null"
}

containers() {
	local n out
	if ! on kavnode1 "test -s /etc/cdi/kav.yaml"; then
		notok "containers: no CDI spec /etc/cdi/kav.yaml (kav-cdi-generate)"
		return
	fi
	for n in $NODES; do
		check "$n: VNI $VNI_CTR granted to the tenant's slice kavtenant.slice" \
			slices_and_grant "$n"
		out=$(on "$n" "$CTR_RUN --rm --cgroup-parent=kavtenant.slice $ROOTFS kavctl whoami" 2>&1)
		echo "$out" | sed "s/^/#   $n container: /" >&3
		check "$n: in a podman container with kav's CDI device, kavctl whoami shows the grant of VNI $VNI_CTR" \
			grep -qw "$VNI_CTR" <<<"$out"
	done
	# The server in a container on kavnode1, the client on kavnode2. The
	# containers' stdout goes away: the hook's stats line is on stderr.
	pingpong_server kavpp kavtenant.slice
	out=$(on kavnode2 "timeout 300 $CTR_RUN --rm --cgroup-parent=kavtenant.slice $CTR_ENV \
		-e FI_OFI_HOOK_KAV_VNI=$VNI_CTR $ROOTFS fi_pingpong -p tcp -e rdm -I 50 -S 64 10.77.0.1 >/dev/null" 2>&1)
	local rc=$?
	echo "$out" | tail -n 6 | sed 's/^/#   kavnode2 client: /' >&3
	on kavnode1 "timeout 60 podman wait kavpp >/dev/null; podman logs kavpp 2>&1 >/dev/null; podman rm -f kavpp >/dev/null" \
		>"$OUT/pp-server" 2>&1
	tail -n 6 "$OUT/pp-server" | sed 's/^/#   kavnode1 server: /' >&3
	check "fi_pingpong between containers on the two nodes through kav (client exit $rc)" \
		test $rc = 0
	check "both containers' stats lines say kav served the AV, refusing nothing" \
		test "$( (cat "$OUT/pp-server"; echo "$out") | grep -c 'stats: kav served AV .* 0 refused, .* 0 data-path calls refused')" -ge 2
	# A container of a slice without the grant: whoami shows no grant, an
	# insert under VNI_CTR is refused (kav_last_error's words).
	out=$(on kavnode2 "$CTR_RUN --rm --cgroup-parent=kavother.slice $ROOTFS \
		sh -c 'kavctl whoami; $BIN/kav_cluster_probe $VNI_CTR'" 2>&1)
	echo "$out" | grep -v '^$' | sed 's/^/#   ungranted container: /' >&3
	check "a container in a slice without the grant: whoami shows no grant" \
		grep -q "grants *0 match" <<<"$out"
	check "a container in a slice without the grant is refused VNI $VNI_CTR, naming why" \
		grep -q "not ok 1 - own VNI: .*refused: .*no grant for this auth key (vni $VNI_CTR)" <<<"$out"
	rootless
}

# Rootless podman: alice's own containers, in a user namespace.
rootless() {
	local out rc
	out=$(su - alice -c "XDG_RUNTIME_DIR=/tmp/alice-run; mkdir -p -m 700 \$XDG_RUNTIME_DIR; export XDG_RUNTIME_DIR;
		timeout 300 podman --cgroup-manager=cgroupfs run --rm --device kav.dev/av=kav \
		-v /usr:/usr:ro --network host --rootfs /srv/kavctr kavctl whoami" 2>&1)
	rc=$?
	echo "$out" | tail -n 12 | sed 's/^/#   rootless: /' >&3
	if [[ $rc == 0 ]] && grep -qw "$VNI_NODE" <<<"$out"; then
		ok "rootless podman (alice, user namespace): /dev/kav through CDI, whoami shows alice's own grant of VNI $VNI_NODE"
	else
		ok "rootless podman (alice): # SKIP did not run here (exit $rc; see Documentation/admin-guide.rst, Containers)"
	fi
}
