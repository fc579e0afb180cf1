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

# --- containers on the wire (wire.sh's job W, esp mode) -----------------------

VETH_NS=kavveth		# the rootful container's network namespace
# A routed veth, as a CNI or netavark bridge plugin would make it (the
# image has no netavark): kavnode1's end 10.78.0.1, the container's
# 10.78.0.2; kavnode2 routes the subnet back through kavnode1, so that
# what refuses the container's packets is kav (kavnode1's FORWARD hook:
# IPv4 through a veth has no carrier) and not rp_filter.
veth_up() {
	on kavnode1 "ip netns add $VETH_NS &&
		ip link add kavv0 type veth peer name eth0 netns $VETH_NS &&
		ip addr add 10.78.0.1/24 dev kavv0 && ip link set kavv0 up &&
		ip -n $VETH_NS link set lo up && ip -n $VETH_NS addr add 10.78.0.2/24 dev eth0 &&
		ip -n $VETH_NS link set eth0 up && ip -n $VETH_NS route add default via 10.78.0.1 &&
		sysctl -qw net.ipv4.ip_forward=1" &&
		on kavnode2 "ip route replace 10.78.0.0/24 via 10.77.0.1"
}
veth_down() {
	on kavnode1 "ip link del kavv0; ip netns del $VETH_NS; sysctl -qw net.ipv4.ip_forward=0"
	on kavnode2 "ip route del 10.78.0.0/24"
}
both_drops() { echo $(($(drops kavnode1) + $(drops kavnode2))); }
# in_veth CMD: CMD in a rootful podman container on that veth, root with
# CAP_NET_RAW (raw and packet sockets).
in_veth() {
	on kavnode1 "timeout 120 podman run --rm --network ns:/run/netns/$VETH_NS --cap-add NET_RAW \
		-v /usr:/usr:ro --rootfs /srv/kavctr $1" 2>&1
}
# rootless_run USER NET CMD: CMD in USER's rootless podman container on
# this node (kavnode1), network NET (pasta: the container's own
# namespace, its traffic sent by pasta's sockets in the host's).
rootless_run() {
	su - "$1" -c "XDG_RUNTIME_DIR=/tmp/$1-run; mkdir -p -m 700 \$XDG_RUNTIME_DIR; export XDG_RUNTIME_DIR;
		timeout 300 podman --cgroup-manager=cgroupfs run --rm --network $2 \
		-v /usr:/usr:ro --rootfs /srv/kavctr $3" 2>&1
}

# wire_containers: while job W's server listens on kavnode2, a rootful
# container on a veth of kavnode1, its root forging frames, and bob's
# rootless podman (pasta) are refused; alice's rootless podman reaches
# her server once her job's key is granted on the wire to a cgroup that
# holds pasta (alice_podman).
wire_containers() {
	local o p mac spi d0 x0 esp
	if ! veth_up; then
		notok "kavnode1: a rootful container's routed veth ($VETH_NS, 10.78.0.2)"
		return
	fi
	ok "kavnode1: a rootful container's routed veth ($VETH_NS, 10.78.0.2)"
	# One container per step: each start costs 15-25 s under TCG.
	o=$(in_veth "sh -c '$BIN/kav_wire_probe tcp 10.77.0.2 $WIRE_PORT; $BIN/kav_wire_probe udp 10.77.0.2 $WIRE_PORT'")
	for p in tcp udp; do
		info "rootful container on a veth, $p to 10.77.0.2:$WIRE_PORT: $(grep "^@@$p" <<<"$o")"
		check "a rootful container on a veth (no wire key): $p to alice's server on kavnode2 is refused" \
			grep -q "^@@$p refused " <<<"$o"
	done
	# Forged UDP is dropped by kav (no xfrm error); crafted ESP fails
	# xfrm's authentication before kav sees it (no kav drop).
	mac=$(on kavnode1 "cat /sys/class/net/kavv0/address")
	spi=$(spi_of kavnode1 10.77.0.2 $VNI_W)
	d0=$(both_drops)
	x0=$(xfrm_stat kavnode2 XfrmInStateProtoError)
	o=$(in_veth "sh -c '$BIN/kav_wire_forge udp eth0 $mac 10.78.0.2 10.77.0.2 $WIRE_PORT 5; $BIN/kav_wire_forge esp eth0 $mac 10.78.0.2 10.77.0.2 ${spi:-0} 5'")
	check "the container's root forges UDP on its veth (AF_PACKET) to alice's server ($(grep '^@@forge udp' <<<"$o"))" \
		grep -q "^@@forge udp sent 5$" <<<"$o"
	esp=no
	[[ -n $spi ]] && grep -q '^@@forge esp sent 5$' <<<"$o" && esp=yes
	check "the container's root crafts ESP on alice's SA (spi ${spi:-none}) ($(grep '^@@forge esp' <<<"$o"))" \
		test $esp = yes
	sleep 2
	check "... none of the forged UDP reached alice's server" \
		bash -c "! grep -q '^@@forged-delivered' '$OUT/W-serve.out'"
	check "... kav dropped it ($d0 drops on the two nodes before, $(both_drops) after)" \
		test "$(both_drops)" -ge $((d0 + 5))
	check "... kavnode2's xfrm refused the ESP (integrity errors $x0 before, $(xfrm_stat kavnode2 XfrmInStateProtoError) after)" \
		test "$(xfrm_stat kavnode2 XfrmInStateProtoError)" -ge $((x0 + 5))
	veth_down
	# pasta copies the host's default route into the container and will
	# not start without one; the nodes have none (10.77.0.254 is no
	# host: the container reaches 10.77.0.2 on its copied /24).
	on kavnode1 "ip route add default via 10.77.0.254 dev eth0"
	o=$(rootless_run bob pasta "sh -c '$BIN/kav_wire_probe tcp 10.77.0.2 $WIRE_PORT; $BIN/kav_wire_probe udp 10.77.0.2 $WIRE_PORT'")
	for p in tcp udp; do
		info "bob's rootless podman (pasta), $p to 10.77.0.2:$WIRE_PORT: $(grep "^@@$p" <<<"$o")"
		check "bob in rootless podman (pasta) on kavnode1: $p to alice's server on kavnode2 is refused" \
			grep -q "^@@$p refused " <<<"$o"
	done
	alice_podman
	on kavnode1 "ip route del default via 10.77.0.254 dev eth0"
}

# alice_podman: alice's rootless podman (pasta) on kavnode1 reaches her
# server in job W once a wire grant of the job's key covers pasta: a
# cgroup of root's (kavpodman) holds the shell that starts podman, so
# pasta and the container are in it (podman's cgroupfs manager cannot
# move them: nothing is delegated to alice). setpriv, not su: no PAM
# session moves the shell to a scope of logind's. Inside a Slurm step
# crun cannot mount cgroup2 for the container (the step's cgroup is
# slurmstepd's), so the container starts beside the job, not in it.
alice_podman() {
	local p o g cg=/sys/fs/cgroup/kavpodman
	g=$(on kavnode1 "mkdir -p $cg && kavctl grant add vni $VNI_W cgroup $cg tag podman-alice wire" 2>&1 |
		awk '/^[0-9]+$/ { id = $0 } END { print id }')
	check "kavnode1: job W's key $VNI_W granted on the wire to $cg (grant ${g:-none})" \
		test -n "$g"
	o=$(bash -c "echo \$\$ >$cg/cgroup.procs && exec setpriv --reuid=alice --regid=alice --init-groups --reset-env \
		bash -c 'export XDG_RUNTIME_DIR=/tmp/alice-run; mkdir -p -m 700 \$XDG_RUNTIME_DIR
		timeout 300 podman --cgroup-manager=cgroupfs run --rm --network pasta \
			-v /usr:/usr:ro --rootfs /srv/kavctr sh -c \"$BIN/kav_wire_probe tcp 10.77.0.2 $WIRE_PORT; $BIN/kav_wire_probe udp 10.77.0.2 $WIRE_PORT\"'" 2>&1)
	for p in tcp udp; do
		info "alice's rootless podman (pasta) in $cg, $p to 10.77.0.2:$WIRE_PORT: $(grep "^@@$p" <<<"$o" || tail -n 3 <<<"$o")"
		check "alice in rootless podman (pasta), a wire grant of her job's key covering pasta and the container: her $p reaches her server on kavnode2" \
			grep -q "^@@$p ok$" <<<"$o"
	done
	on kavnode1 "kavctl grant del ${g:-0} >/dev/null; rmdir $cg"
}
