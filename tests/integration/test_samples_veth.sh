#!/bin/bash
# SPDX-License-Identifier: MIT
# The samples on the CPU device over a veth pair, with peers that are not
# gnio: the Linux stack (ping, curl), tcpreplay, scapy, and a raw AF_PACKET
# socket (sample_peer.py).
#   packet_processing  over afxdp and afpacket: ping -c 50 -i 0.05 gets 50
#                      replies with no static neighbour entry (ARP answered
#                      by the kernel), curl gets the index page and a 404;
#                      a replayed mix gives --json counts equal to tshark's,
#                      key by key
#   simple_receive     counts exactly what tcpreplay sent (frames and bytes)
#   l2fwd              every replayed frame comes back with its MACs swapped
#   simple_send        every frame arrives at the raw socket intact, once
#   send_wait_time     every frame arrives, none before its requested time
. "$(dirname "$0")/wirelib.sh"
need_env
: "${GNIO_BUILD:?}"
S="$GNIO_BUILD/samples"
PEER="$(dirname "$0")/sample_peer.py"
command -v ping >/dev/null || skip "ping not installed (iputils-ping)"
command -v curl >/dev/null || skip "curl not installed"
for f in simple_receive simple_send send_wait_time l2fwd packet_processing; do
	[ -x "$S/$f/gnio_$f" ] || die "gnio_$f is not built ($S/$f)"
done
ip netns exec "$NSA" "$GNIO" caps --wire "afxdp:$VA" --gpu cpu --json >/dev/null 2>&1 ||
	skip "afxdp wire unavailable here"

A=10.77.1.2 B=10.77.1.1
MAC_A=$(cat "/sys/class/net/$VA/address" 2>/dev/null || ip netns exec "$NSA" cat "/sys/class/net/$VA/address")

# sample_start TAG NAME ARGS...: gnio_NAME in NSA on the CPU device with
# --json; waits for its ready line. SPID is its pid.
sample_start() {
	local tag=$1 name=$2
	shift 2
	ip netns exec "$NSA" "$S/$name/gnio_$name" -g cpu --json "$@" >"$TMPD/$tag.out" 2>"$TMPD/$tag.err" &
	SPID=$!
	BGPIDS="$BGPIDS $SPID"
	for _ in $(seq 200); do
		grep -q ": ready:" "$TMPD/$tag.err" 2>/dev/null && return 0
		kill -0 $SPID 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMPD/$tag.err"
	return 1
}
# sample_stop TAG: SIGINT, wait, keep the exit code in SRC and the JSON line.
sample_stop() {
	kill -INT $SPID 2>/dev/null
	wait $SPID
	SRC=$?
	tail -n 1 "$TMPD/$1.out" >"$TMPD/$1.json"
	[ $SRC -eq 0 ] || { echo "     exit $SRC:"; tail -n 8 "$TMPD/$1.err" | sed 's/^/     /'; }
}
# peer_start TAG MODE ARGS...: sample_peer.py in NSB, waits for "ready".
peer_start() {
	local tag=$1
	shift
	ip netns exec "$NSB" $PY "$PEER" "$VB" "$@" >"$TMPD/$tag.json" 2>"$TMPD/$tag.err" &
	PPID_=$!
	BGPIDS="$BGPIDS $PPID_"
	for _ in $(seq 100); do
		grep -q ready "$TMPD/$tag.err" 2>/dev/null && return 0
		sleep 0.05
	done
	cat "$TMPD/$tag.err"
	return 1
}
pj() { json "$TMPD/$1.json" "$2"; }
check() { # check WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# --- packet_processing: ping and curl from the Linux stack ------------------
ip -n "$NSB" addr add "$B/24" dev "$VB" || die "address on B"
for W in afxdp afpacket; do
	ip -n "$NSB" neigh flush dev "$VB" 2>/dev/null
	sample_start pp_$W packet_processing -n "$W:$VA" --ip $A --http || die "gnio_packet_processing did not start on $W"
	expect "$W: no neighbour entry for $A before the ping" "$(ip -n "$NSB" neigh show $A | wc -l)" 0
	ip netns exec "$NSB" ping -c 50 -i 0.05 -W 2 $A >"$TMPD/ping_$W.txt" 2>&1
	expect "$W: ping -c 50 -i 0.05 gets 50 replies" \
		"$(grep -o '[0-9]* received' "$TMPD/ping_$W.txt" | cut -d' ' -f1)" 50
	neigh=$(ip -n "$NSB" neigh show $A)
	case "$neigh" in
	*PERMANENT*) bad "$W: the neighbour entry is static ($neigh)" ;;
	*"lladdr $MAC_A "*) ok "$W: $A resolved by ARP to the interface's MAC ($neigh)" ;;
	*) bad "$W: neighbour entry for $A: '$neigh', want lladdr $MAC_A" ;;
	esac
	ip netns exec "$NSB" curl -s -m 10 "http://$A/" >"$TMPD/index_$W.html"
	check "$W: curl http://$A/ prints the index page" grep -q "<h1>gnio packet_processing</h1>" "$TMPD/index_$W.html"
	code=$(ip netns exec "$NSB" curl -s -m 10 -o "$TMPD/nope_$W.txt" -w '%{http_code}' "http://$A/nope")
	expect "$W: curl http://$A/nope gets a 404" "$code" 404
	expect "$W: ... with its body" "$(cat "$TMPD/nope_$W.txt")" "not found"
	ip netns exec "$NSB" curl -s -m 5 -o /dev/null "http://$A:81/"
	expect "$W: a closed port refuses the connection: a reset from the CPU path (curl exit 7, not 28)" $? 7
	sample_stop pp_$W
	expect "$W: gnio_packet_processing exits 0" $SRC 0
	expect "$W: books balance" "$(pj pp_$W "j['balanced'] and j['offered'] == j['rx_packets'] + j['dropped_total']")" True
	expect "$W: the kernel answered the 50 echo requests" "$(pj pp_$W "(j['icmp'], j['icmp_replies'])")" "(50, 50)"
	[ "$(pj pp_$W "j['arp_replies'] >= 1")" = True ] && ok "$W: ARP answered by the kernel ($(pj pp_$W "j['arp_replies']"))" ||
		bad "$W: no ARP reply"
	expect "$W: two GETs answered by the kernel on open flows" "$(pj pp_$W "(j['http_get'], j['http_replies'], j['http_no_flow'])")" "(2, 2, 0)"
	expect "$W: the CPU path opened and closed both flows and refused port 81" \
		"$(pj pp_$W "(j['tcp_flows_opened'], j['tcp_flows_closed'], j['tcp_resets_sent'])")" "(2, 2, 1)"
	expect "$W: every reply left (tx_packets = replies + host-built)" \
		"$(pj pp_$W "j['tx_packets'] == j['icmp_replies'] + j['arp_replies'] + j['http_replies'] + j['cpu_tx'] and j['errors'] == 0")" True
done
ip -n "$NSB" addr flush dev "$VB"

# --- packet_processing: a replayed mix, key by key against tshark -----------
if command -v tshark >/dev/null && command -v tcpreplay >/dev/null && $PY -c 'import scapy' 2>/dev/null; then
	n=$($PY "$(dirname "$0")/pp_mix.py" "$TMPD/mix.pcap" $A 2>/dev/null) || die "writing the mix"
	sample_start mix packet_processing -n "afxdp:$VA" --ip $A || die "gnio_packet_processing did not start"
	ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/mix.pcap" >/dev/null 2>&1 || bad "tcpreplay"
	sleep 1
	sample_stop mix
	expect "mix: gnio_packet_processing exits 0" $SRC 0
	expect "mix: all $n frames received, none dropped" "$(pj mix "(j['rx_packets'], j['dropped_total'])")" "($n, 0)"
	V='ip.version#1 == 4 && ip.frag_offset#1 == 0'
	T="$V && ip.proto#1 == 6 && tcp.hdr_len#1 >= 20"
	T0="$T && tcp.flags.syn#1 == 0 && tcp.flags.fin#1 == 0"
	GET='tcp.payload#1[0:4] == 47:45:54:20' POST='tcp.payload#1[0:5] == 50:4f:53:54:20'
	HEAD='tcp.payload#1[0:5] == 48:45:41:44:20' DNSP='(udp.srcport#1 == 53 || udp.dstport#1 == 53)'
	FILTERS=(
		"arp|arp"
		"icmp|$V && ip.proto#1 == 1"
		"dns|$V && ip.proto#1 == 17 && $DNSP"
		"udp_other|$V && ip.proto#1 == 17 && !$DNSP"
		"tcp_syn|$T && tcp.flags.syn#1 == 1"
		"tcp_fin|$T && tcp.flags.syn#1 == 0 && tcp.flags.fin#1 == 1"
		"http_get|$T0 && $GET"
		"http_post|$T0 && $POST"
		"http_head|$T0 && $HEAD"
		"tcp_other|$T0 && !($GET) && !($POST) && !($HEAD)"
	)
	tsh() { tshark -r "$TMPD/mix.pcap" -o tcp.desegment_tcp_streams:FALSE -Y "$1" -T fields -e frame.number 2>/dev/null | wc -l; }
	sum=0
	for f in "${FILTERS[@]}"; do
		key=${f%%|*}
		want=$(tsh "${f#*|}")
		sum=$((sum + want))
		expect "mix: $key = tshark's count" "$(pj mix "j['$key']")" "$want"
		[ "$want" -gt 0 ] || bad "mix: no $key frame in the mix: the comparison proves little"
	done
	expect "mix: other = the frames no filter takes" "$(pj mix "j['other']")" $((n - sum))
	expect "mix: the kernel answered ARP and ping for $A (12 and 24 in the mix)" \
		"$(pj mix "(j['arp_replies'], j['icmp_replies'])")" "(12, 24)"
else
	bad "tshark, tcpreplay or scapy missing for the mix (scripts/bootstrap installs them)"
fi

# --- simple_receive: what tcpreplay sent --------------------------------------
"$GNIO" gen --wire "pcap:,out=$TMPD/rx.pcap" --count 3000 --proto mix --size 300 >/dev/null || bad "gen rx.pcap"
for W in afxdp afpacket; do
	sample_start sr_$W simple_receive -n "$W:$VA" -e warp || die "gnio_simple_receive did not start on $W"
	ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/rx.pcap" >/dev/null 2>&1 || bad "tcpreplay"
	sleep 1
	sample_stop sr_$W
	expect "$W: gnio_simple_receive exits 0" $SRC 0
	expect "$W: simple_receive counted the 3000 frames and their bytes" \
		"$(pj sr_$W "(j['packets'], j['bytes'], j['rx_packets'], j['dropped_total'], j['le512'])")" "(3000, 900000, 3000, 0, 3000)"
done

# --- l2fwd: every frame back, MACs swapped ------------------------------------
"$GNIO" gen --wire "pcap:,out=$TMPD/fwd.pcap" --count 2000 --proto udp --size 200 >/dev/null || bad "gen fwd.pcap"
for W in afxdp afpacket; do
	peer_start fwdpeer_$W l2fwd --pcap "$TMPD/fwd.pcap" --count 2000 --idle 3 --timeout 60 || die "peer"
	sample_start fwd_$W l2fwd -n "$W:$VA" || die "gnio_l2fwd did not start on $W"
	ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/fwd.pcap" >/dev/null 2>&1 || bad "tcpreplay"
	wait $PPID_
	sample_stop fwd_$W
	expect "$W: gnio_l2fwd exits 0" $SRC 0
	expect "$W: l2fwd forwarded every frame in place" \
		"$(pj fwd_$W "(j['rx_packets'], j['forwarded'], j['tx_packets'], j['dropped_total'])")" "(2000, 2000, 2000, 0)"
	expect "$W: the peer got every frame back with its MACs swapped, nothing else" \
		"$(pj fwdpeer_$W "(j['frames'], j['missing'], j['bad'])")" "(2000, 0, 0)"
done

# --- simple_send: every frame at the raw socket --------------------------------
peer_start sendpeer simple_send --count 3000 --idle 5 --timeout 60 || die "peer"
ip netns exec "$NSA" "$S/simple_send/gnio_simple_send" -g cpu --json -n "afxdp:$VA" -c 3000 -s 200 -e warp \
	>"$TMPD/send.out" 2>"$TMPD/send.err"
rc=$?
wait $PPID_
tail -n 1 "$TMPD/send.out" >"$TMPD/send.json"
expect "gnio_simple_send -c 3000 over afxdp exits 0" $rc 0
expect "simple_send: sent and completed" "$(pj send "(j['sent'], j['completed'], j['tx_errors'])")" "(3000, 3000, 0)"
expect "simple_send: the raw socket got each frame as built, once" \
	"$(pj sendpeer "(j['frames'], j['distinct'], j['bad'], j['duplicates'])")" "(3000, 3000, 0, 0)"

# --- send_wait_time: every frame, none early -----------------------------------
peer_start swtpeer send_wait_time --count 120 --idle 5 --timeout 60 || die "peer"
ip netns exec "$NSA" "$S/send_wait_time/gnio_send_wait_time" -g cpu --json -n "afpacket:$VA" -c 30 -b 4 -i 5000 \
	>"$TMPD/swt.out" 2>"$TMPD/swt.err"
rc=$?
wait $PPID_
tail -n 1 "$TMPD/swt.out" >"$TMPD/swt.json"
expect "gnio_send_wait_time -c 30 -b 4 over afpacket exits 0" $rc 0
expect "send_wait_time: 30 bursts, 120 frames, none early at the wire" "$(pj swt "(j['bursts'], j['frames'], j['early'])")" "(30, 120, 0)"
expect "send_wait_time: the raw socket got every frame as built, none before its time" \
	"$(pj swtpeer "(j['frames'], j['bad'], j['early'], j['bursts'])")" "(120, 0, 0, 30)"
echo "     (arrival after the requested time: $(pj swtpeer "j['late_us']") us; spacing $(pj swtpeer "j['spacing_us']") us, requested 5000)"
finish
