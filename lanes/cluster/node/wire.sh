# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by cluster-test.sh: kav-wire in esp mode across the two nodes,
# on from the start (wire_setup, before job A; wire_jobs after job B)
# (Documentation/admin-guide.rst, "Wire enforcement (kav-wire)";
# Documentation/slurm.rst, "Wire keys"), set up as the admin guide's
# recipe says: one cluster secret on every node, /etc/kav/wire.conf
# applied by kav-grants.service. Then alice's job W (job-w.sh) talks plain
# TCP and UDP, and fi_pingpong with FI_HOOK unset, between its nodes under
# its wire key, everyone else is refused on her node and across the nodes
# (bob's fi_pingpong with FI_HOOK unset too), frames forged below kav's
# hooks on kavnode1 (plain, crafted ESP, a replay) are refused on
# kavnode2, a revocation during a
# transfer stops it at both ends, and the epilog leaves no SA. The wire
# stays on for lifecycle.sh, whose reload and reboot must bring it back.

VNI_W=1041
VNI_F=1051	# job F, flowlabel mode
WIRE_PORT=21100
WIRE_PP_PORT=21300	# job W's fi_pingpong server (job-w.sh)
# A port range below the ephemeral ports (32768-60999): slurmd, srun's
# I/O and ssh stay outside the scope.
WIRE_CONF='mode esp\nports 21000-21999\nscope 10.77.0.0/24\n'
# The closed-fabric mode's phase: the key in the IPv6 flow label, so the
# fabric's IPv6 (fd77::/64, on the nodes for that phase only) in scope.
WIRE_CONF_FL='mode flowlabel\nports 21000-21999\nscope 10.77.0.0/24\nscope fd77::/64\n'

# wire_mode NODE: the kernel's wire mode there.
wire_mode() { on "$1" "kavctl wire show" | awk '$1 == "mode" { print $2 }'; }
wire_esp() { [[ $(wire_mode "$1") == esp ]]; }
wire_flowlabel_on() { [[ $(wire_mode "$1") == flowlabel ]]; }

wire_setup() {
	local n
	on kavnode1 "kav-wire-sa genkey" >"$OUT/wire-genkey.log" 2>&1
	scp -q -p /etc/kav/wire.key kavnode2:/etc/kav/wire.key
	for n in $NODES; do
		on "$n" "printf '$WIRE_CONF' >/etc/kav/wire.conf && systemctl reload kav-grants"
		check "$n: kav-grants.service applied /etc/kav/wire.conf: mode esp" wire_esp "$n"
	done
	on kavnode1 "kavctl wire show" | sed 's/^/#   kavnode1: /' >&3
}

# wire_grant NODE JOB: the job's grants there as "VNI WIRE" words.
wire_grant() { on "$1" "kavctl -n -r -o VNI,WIRE grant list tag slurm-$2" | tr '\n' ' '; }
# esp_used NODE ADDR: an ESP SA to ADDR on NODE carried packets.
esp_used() {
	on "$1" "ip -s xfrm state list dst $2 proto esp" | grep -Eq '[1-9][0-9]*\(packets\)'
}
# key_sas NODE KEY: how many SAs of KEY kav-wire-sa lists on NODE (one
# each way with each peer).
key_sas() {
	on "$1" "kav-wire-sa list" |
		awk -v k="key $2:" '$0 == k { on = 1; next } /^key / { on = 0 } on && $1 == "sa" { n++ } END { print n + 0 }'
}
# refused NODE USER PROTO [HOST]: USER's probe from NODE to alice's
# server on kavnode2 (HOST: an address of it) is refused.
refused() {
	local o h=${4:-kavnode2}
	o=$(on "$1" "su - $2 -c '$BIN/kav_wire_probe $3 $h $WIRE_PORT'" 2>&1)
	info "$2 on $1, $3 to $h port $WIRE_PORT: $o"
	[[ $o == "@@$3 refused "* ]]
}
# pp_refused NODE: bob's fi_pingpong from NODE, FI_HOOK unset (no kav in
# the process), gets no answer from alice's fi_pingpong server on kavnode2
# in 10 s (timeout's 124) or fails to connect.
pp_refused() {
	local rc
	on "$1" "su - bob -c 'timeout 10 env -u FI_HOOK FI_TCP_IFACE=eth0 fi_pingpong -p tcp -e rdm -I 50 -S 64 -P $WIRE_PP_PORT kavnode2'" \
		>"$OUT/pp-bob-$1" 2>&1
	rc=$?
	info "bob's fi_pingpong on $1 to alice's on kavnode2:$WIRE_PP_PORT: exit $rc $(tail -n 1 "$OUT/pp-bob-$1")"
	[[ $rc == 124 ]] || grep -q 'failed to connect' "$OUT/pp-bob-$1"
}
# drops NODE: the wire's drops there (every reason).
drops() { on "$1" "kavctl -r wire show" | awk '$1 ~ /^dropped/ { s += $NF } END { print s + 0 }'; }
# took T0 FILE MARK: seconds from T0 to the time on FILE's "@@MARK" line.
took() { awk -v t0="$1" -v m="@@$3" '$1 == m { printf "%.3f", $3 - t0; exit }' "$2"; }
# under T MAX [START END]: T (from END) is below MAX, and not before
# START (an error while kavctl still ran counts, one before it not).
under() {
	awk -v t="$1" -v max="$2" -v s="${3:-0}" -v e="${4:-0}" \
		'BEGIN { exit !(t != "" && t + 0 >= s - e && t < max) }'
}

# drops_other NODE: drops there for any reason but a keyless sender or
# receiver (a job's end: its epilog revokes the key while its last
# segments are in flight) or no carrier (a connection's end: the stack's
# own segments, a reset to a closed port or a TIME_WAIT's ACK, have no
# owner and carry no key; measured: 140 and 11 of them on the two nodes
# over jobs A to C); drop_reasons NODE: every reason's.
# (kavctl -r: libsmartcols' raw output, a label's spaces as \x20.)
drops_other() {
	on "$1" "kavctl -r wire show" |
		awk '/^dropped/ && !/(sender|receiver)[-_]no[-_]key|no[-_]carrier/ { s += $NF } END { print s + 0 }'
}
drop_reasons() {
	on "$1" "kavctl -r wire show" |
		awk '/^dropped/ && $NF > 0 { l = $0; gsub(/\\x20|[ \t]+/, " ", l); printf "%s; ", l }'
}
# passed NODE: packets in scope the wire passed there.
passed() { on "$1" "kavctl -r wire show" | awk '$1 == "passed" { print $NF }'; }

# The wire is on from the start (main calls wire_setup before job A):
# alice's Open MPI (job A) and MPICH (job B) jobs run under it, their
# ranks listening in its port range (the TaskProlog's range; job B's
# kav-av-fill ports). wire_jobs, after them: their traffic was in scope
# and passed, and nothing was dropped but what their ends cause (the
# epilog revokes the job's key while its last segments are in flight:
# a keyless sender or receiver).
WIRE_P0='' WIRE_D0=''
wire_mark() {
	local n
	WIRE_P0='' WIRE_D0=''
	for n in $NODES; do
		WIRE_P0+="$(passed "$n") "
		WIRE_D0+="$(drops_other "$n") "
	done
}
wire_jobs() {
	local n p0 d0 i=0
	local -a ps ds
	read -r -a ps <<<"$WIRE_P0"
	read -r -a ds <<<"$WIRE_D0"
	for n in $NODES; do
		p0=${ps[$i]:-0} d0=${ds[$i]:-0}
		i=$((i + 1))
		check "$n: jobs A and B (Open MPI, MPICH) ran under kav-wire: their traffic in scope passed ($p0 before, $(passed "$n") after)" \
			test "$(passed "$n")" -gt $((p0 + 100))
		check "$n: ... and none of it was dropped but at the jobs' and connections' ends (drops: $(drop_reasons "$n"))" \
			test "$(drops_other "$n")" = "$d0"
	done
}

# xfrm_stat NODE COUNTER: one of NODE's /proc/net/xfrm_stat counters:
# XfrmInStateProtoError (an ESP frame that fails its integrity check),
# XfrmInStateSeqError (a replay). (XfrmInNoStates is not one of them: a
# job's first frames can arrive before the other node's prolog has
# installed its SA.)
xfrm_stat() {
	on "$1" "cat /proc/net/xfrm_stat" | awk -v c="$2" '$1 == c { print $2 }'
}
# spi_of NODE DST KEY: the SPI of NODE's SA of KEY to DST.
spi_of() {
	on "$1" "ip xfrm state list dst $2 proto esp" |
		awk -v r="$3" '$1 == "proto" && $2 == "esp" && $5 == "reqid" && $6 == r { print $4; exit }'
}
# forge NODE ARGS...: kav_wire_forge on NODE (as root); its "@@forge ...
# sent N" line.
forge() {
	local n=$1
	shift
	on "$n" "$BIN/kav_wire_forge $*" 2>&1 | tee -a "$OUT/W-forge.out" | tail -n 1
}

# wire_forged FROM WHAT: frames written with AF_PACKET on FROM's NIC,
# below any IP hook, with kavnode1's address as the source (alice's
# other node): what a host on the segment without kav (kavnode3) can
# send, and on a kav node a VF or a macvlan container (the same frames,
# so the test sends them from kavnode3 alone). In esp
# mode kavnode2 delivers none of it to alice's server: plain UDP and TCP
# carry no SA (a keyless sender), made-up ESP fails its integrity check,
# and a captured ESP frame of alice's stream (kavnode3 overhears it,
# promiscuous) sent again is a replay.
wire_forged() {
	local from=$1 what=$2 mac spi d0 p0 p1 s0 s1 o
	mac=$(on kavnode2 "cat /sys/class/net/eth0/address")
	d0=$(drops kavnode2)
	o=$(forge "$from" udp eth0 "$mac" 10.77.0.1 10.77.0.2 $WIRE_PORT 5)
	check "$what: forged UDP from 10.77.0.1 (AF_PACKET) to alice's server sent ($o)" \
		test "$o" = "@@forge udp sent 5"
	o=$(forge "$from" syn eth0 "$mac" 10.77.0.1 10.77.0.2 $WIRE_PORT 5)
	check "$what: forged TCP SYNs from 10.77.0.1 to alice's server sent ($o)" \
		test "$o" = "@@forge syn sent 5"
	sleep 2
	check "$what: ... none of the forged datagrams reached alice's server" \
		bash -c "! grep -q '^@@forged-delivered' '$OUT/W-serve.out'"
	check "$what: ... no forged SYN opened a connection on kavnode2 (no SYN-RECV on :$WIRE_PORT)" \
		test -z "$(on kavnode2 "ss -Htn state syn-recv '( sport = :$WIRE_PORT )'")"
	check "$what: ... kavnode2 dropped them ($d0 drops before, $(drops kavnode2) after)" \
		test "$(drops kavnode2)" -ge $((d0 + 10))
	spi=$(spi_of kavnode1 10.77.0.2 $VNI_W)
	p0=$(xfrm_stat kavnode2 XfrmInStateProtoError)
	s0=$(xfrm_stat kavnode2 XfrmInStateSeqError)
	o=$(forge "$from" esp eth0 "$mac" 10.77.0.1 10.77.0.2 "${spi:-0}" 5)
	check "$what: crafted ESP on alice's SA (spi ${spi:-none}) from 10.77.0.1 sent ($o)" \
		test -n "$spi" -a "$o" = "@@forge esp sent 5"
	o=$(forge "$from" replay eth0 10.77.0.2 3)
	check "$what: a captured ESP frame of alice's stream sent again 3 times ($o)" \
		test "$o" = "@@forge replay sent 3"
	sleep 1
	p1=$(xfrm_stat kavnode2 XfrmInStateProtoError)
	s1=$(xfrm_stat kavnode2 XfrmInStateSeqError)
	# Every crafted frame fails its integrity check. Of the 3 copies of
	# the captured frame, 2 at least are refused: the first is the
	# frame's only delivery if kavnode2 lost the original (the segment
	# is UDP multicast on a loaded host), which is no forgery. A copy
	# within the SA's replay window (128) counts as a replay; one the
	# stream has left behind fails the integrity check instead (with
	# ESN the receiver guesses the sequence number's upper half as
	# after a wrap; measured: 7 integrity errors and 1 replay).
	check "$what: kavnode2's xfrm refused the crafted and the replayed ESP (integrity errors $p0 before, $p1 after; replays $s0 before, $s1 after)" \
		test "$p1" -ge $((p0 + 5)) -a $((p1 - p0 + s1 - s0)) -ge 7
}

# no_kav: kavnode3, a host on the fabric segment without kav, is up,
# kav is not loaded there and cannot be: /dev/kav (a static node from
# modules.devname, which udev makes) does not open.
no_kav() {
	on kavnode3 "! test -e /sys/module/kav && ! dd if=/dev/kav of=/dev/null count=0 2>/dev/null && ! test -e /sys/module/kav"
}

# wire_outsider: kavnode3's own sockets (root, no kav) and frames it
# forges are refused at alice's server on kavnode2.
wire_outsider() {
	local p
	if ! wait_for 300 node_up kavnode3; then
		notok "kavnode3 (the fabric's host without kav) answers over the private network"
		return
	fi
	check "kavnode3: a host on the fabric segment without kav (the module not loaded, /dev/kav does not open)" no_kav
	for p in tcp udp; do
		check "root on kavnode3 (no kav): $p to alice's server on kavnode2 is refused" \
			refused kavnode3 root $p
	done
	wire_forged kavnode3 "kavnode3 (no kav)"
}

wire() {
	local j n g1 g2 t1 t2 d1 d2
	j=$(submit alice "-N2 --ntasks-per-node=1 -o $OUT/W.out $LIB/job-w.sh") ||
		{ notok "job W submitted"; return; }
	grant_job "$j" $VNI_W
	check "job W ($j, alice, plain TCP and UDP across the nodes, esp mode) is ready" \
		wait_for 600 marked "$OUT/W.out" W-ready
	show "$OUT/W.out"
	for n in $NODES; do
		check "job W: on $n the prolog granted VNI $VNI_W as the job's wire key" \
			test "$(wire_grant "$n" "$j")" = "$VNI_W yes "
		check "job W: on $n kav-wire-sa installed the key's SAs with the other node (2)" \
			test "$(key_sas "$n" $VNI_W)" = 2
	done
	check "job W: the TaskProlog exported the wire's port range" \
		grep -q '^job W: ports 21000-21999$' "$OUT/W.out"
	check "job W: alice's TCP from kavnode1 to her server on kavnode2 passes" \
		grep -q '^@@tcp ok$' "$OUT/W.out"
	check "job W: alice's UDP from kavnode1 to kavnode2 passes" \
		grep -q '^@@udp ok$' "$OUT/W.out"
	check "job W: it went over ESP (kavnode2's SA from kavnode1 counted packets)" \
		esp_used kavnode2 10.77.0.2
	check "job W: alice's stream is flowing" grep -q '^@@streaming$' "$OUT/W-stream.out"

	local d0 p
	d0=$(drops kavnode1)
	for p in tcp udp; do
		check "bob on kavnode1 (no wire key): $p to alice's server on kavnode2 is refused" \
			refused kavnode1 bob $p
		check "bob on kavnode2, alice's node: $p to her server is refused" \
			refused kavnode2 bob $p
		check "root on kavnode1, outside any job: $p to alice's server is refused" \
			refused kavnode1 root $p
		check "alice on kavnode1 outside her job (her standing grant has no wire): $p is refused" \
			refused kavnode1 alice $p
	done
	check "bob's fi_pingpong (FI_HOOK unset) on kavnode1 gets no answer from alice's on kavnode2" \
		pp_refused kavnode1
	check "bob's fi_pingpong (FI_HOOK unset) on kavnode2, her node, gets none either" \
		pp_refused kavnode2
	touch "$OUT/pp-go-$j"
	wait_for 180 marked "$OUT/W.out" pp-client
	show "$OUT/W-ppclient.out"
	check "job W: alice's fi_pingpong (FI_HOOK unset) from kavnode1 to hers on kavnode2 runs after bob's attempts ($(grep '^@@pp-client' "$OUT/W.out"))" \
		grep -q '^@@pp-client 0$' "$OUT/W.out"
	wire_outsider
	wire_containers
	local t
	for t in fi_rdm fi_rdm_tagged_pingpong fi_rma_bw; do
		tail -n 4 "$OUT/W-ft-$t-client.out" | sed "s/^/#   $t client: /" >&3
		check "job W: fabtests' $t (1.13.1, tcp;ofi_rxm, FI_HOOK=kav) between the nodes under the wire: client and server pass ($(grep "^@@ft $t " "$OUT/W.out"))" \
			grep -q "^@@ft $t 0 0$" "$OUT/W.out"
	done
	check "kavnode1 counted the refusals as wire drops ($d0 before, $(drops kavnode1) after)" \
		test "$(drops kavnode1)" -gt "$d0"
	check "job W: alice's stream still flows after the attacks" \
		bash -c "! grep -q '^@@stream-error' '$OUT/W-stream.out'"

	# Revocation during the transfer, on both nodes at once (as both
	# epilogs would): each end sees an error within a second of its own
	# node's GRANT_DEL, by that node's clock. The revocation is done when
	# "kavctl grant del" returns (its GRANT_DEL's answer); the times are
	# from then, and from kavctl's start too (exec and netlink set-up
	# included, seconds under TCG), which the note gives beside them.
	g1=$(on kavnode1 "kavctl -n -r -o ID,WIRE grant list tag slurm-$j" | awk '$2 == "yes" { print $1 }')
	g2=$(on kavnode2 "kavctl -n -r -o ID,WIRE grant list tag slurm-$j" | awk '$2 == "yes" { print $1 }')
	on kavnode2 "date +%s.%N; kavctl grant del $g2 >/dev/null; date +%s.%N" >"$OUT/W-revoke2" 2>&1 &
	s1=$(date +%s.%N)
	kavctl grant del "$g1" >/dev/null
	t1=$(date +%s.%N)
	wait
	s2=$(sed -n 1p "$OUT/W-revoke2")
	t2=$(sed -n 2p "$OUT/W-revoke2")
	sleep 5
	show "$OUT/W-stream.out"
	show "$OUT/W-serve.out"
	d1=$(took "$t1" "$OUT/W-stream.out" stream-error)
	d2=$(took "$t2" "$OUT/W-serve.out" serve-error)
	info "revocation: the sender on kavnode1 saw $(awk '$1 == "@@stream-error" { print $2 }' "$OUT/W-stream.out") ${d1:-?} s after its GRANT_DEL returned ($(took "$s1" "$OUT/W-stream.out" stream-error) s after kavctl started), the receiver on kavnode2 $(awk '$1 == "@@serve-error" { print $2 }' "$OUT/W-serve.out") ${d2:-?} s after ($(took "$s2" "$OUT/W-serve.out" serve-error) s)"
	check "job W: revoking the wire key stops alice's stream: the sender sees an error within 1 s of the revocation (${d1:-none} s)" \
		under "$d1" 1 "$s1" "$t1"
	check "job W: ... and the receiver on the other node within 1 s of its node's (${d2:-none} s)" \
		under "$d2" 1 "$s2" "$t2"
	release "$j"
	check "job W ended" wait_for 300 job_gone "$j"
	for n in $NODES; do
		check "job W: the epilog left no SA of key $VNI_W on $n" \
			test "$(key_sas "$n" $VNI_W)" = 0
	done
}

# fabric6 add|del: the fabric's IPv6 addresses, fd77::N on kavnodeN (no
# DAD: the segment echoes a guest's own multicast back to it).
fabric6() {
	local n
	for n in $NODES kavnode3; do
		on "$n" "ip addr $1 fd77::${n#kavnode}/64 dev eth0 $([[ $1 == add ]] && echo nodad)"
	done
}

# wire_flowlabel: the closed-fabric mode across the nodes, as the admin
# guide's recipe sets it up (wire.conf's mode flowlabel on every node).
# Alice's job F talks plain TCP and UDP over IPv6 under its key, which
# the label carries; bob on both nodes and kavnode3's root (no kav: its
# stack chooses its own labels) are refused; a label kavnode3 forges with
# another key is dropped, but one with alice's own key is delivered: the
# mode trusts every host on the segment (threat-model.rst), which is
# what esp is for. Then the wire goes back to esp for lifecycle.sh.
wire_flowlabel() {
	local j n
	fabric6 add
	for n in $NODES; do
		on "$n" "printf '$WIRE_CONF_FL' >/etc/kav/wire.conf && systemctl reload kav-grants"
		check "$n: kav-grants.service applied the closed-fabric wire.conf: mode flowlabel, fd77::/64 in scope" \
			wire_flowlabel_on "$n"
	done
	if j=$(submit alice "-N2 --ntasks-per-node=1 -o $OUT/F.out $LIB/job-f.sh"); then
		grant_job "$j" $VNI_F
		wire_flowlabel_job "$j"
		release "$j"
		check "job F ended" wait_for 300 job_gone "$j"
	else
		notok "job F submitted"
	fi
	fabric6 del
	for n in $NODES; do
		on "$n" "printf '$WIRE_CONF' >/etc/kav/wire.conf && systemctl reload kav-grants"
		check "$n: the wire back in esp mode for the rest" wire_esp "$n"
	done
}

wire_flowlabel_job() {
	local j=$1 n p o mac d0
	check "job F ($j, alice, plain TCP and UDP over IPv6, flowlabel mode) is ready" \
		wait_for 600 marked "$OUT/F.out" F-ready
	show "$OUT/F.out"
	for n in $NODES; do
		check "job F: on $n the prolog granted VNI $VNI_F as the job's wire key, and no SA (flowlabel mode)" \
			test "$(wire_grant "$n" "$j")/$(key_sas "$n" $VNI_F)" = "$VNI_F yes /0"
	done
	check "job F: alice's TCP over IPv6 from kavnode1 to her server on kavnode2 passes" \
		grep -q '^@@tcp ok$' "$OUT/F.out"
	check "job F: ... and her UDP" grep -q '^@@udp ok$' "$OUT/F.out"
	for p in tcp udp; do
		check "flowlabel: bob on kavnode1: $p to alice's server (fd77::2) is refused" \
			refused kavnode1 bob $p fd77::2
		check "flowlabel: bob on kavnode2, her node: $p is refused" \
			refused kavnode2 bob $p fd77::2
		check "flowlabel: root on kavnode3 (no kav, its stack's own labels): $p is refused" \
			refused kavnode3 root $p fd77::2
	done
	mac=$(on kavnode2 "cat /sys/class/net/eth0/address")
	d0=$(drops kavnode2)
	o=$(forge kavnode3 udp6 eth0 "$mac" fd77::1 fd77::2 $WIRE_PORT $VNI_C 5)
	check "flowlabel: kavnode3 forges UDP from fd77::1 with bob's key $VNI_C in the label ($o)" \
		test "$o" = "@@forge udp6 sent 5"
	sleep 2
	check "... none of it reached alice's server" \
		bash -c "! grep -q '^@@forged-delivered' '$OUT/F-serve.out'"
	check "... kavnode2 dropped it ($d0 drops before, $(drops kavnode2) after)" \
		test "$(drops kavnode2)" -ge $((d0 + 5))
	o=$(forge kavnode3 udp6 eth0 "$mac" fd77::1 fd77::2 $WIRE_PORT $VNI_F 3)
	sleep 2
	check "flowlabel trusts every host on the segment: kavnode3 forging alice's own key $VNI_F in the label is delivered ($o; esp is the mode that refuses it)" \
		grep -q '^@@forged-delivered' "$OUT/F-serve.out"
}
