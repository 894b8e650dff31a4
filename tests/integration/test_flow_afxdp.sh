#!/bin/bash
# SPDX-License-Identifier: MIT
# Steering on the afxdp wire, decided in the XDP program: with
# `icmp -> kernel` and `arp -> kernel` a real ping across the veth pair gets
# its replies while UDP to port 9000 reaches gnio; `tcp -> drop` keeps SYNs
# from the host stack (a connect times out instead of being refused, and is
# refused again once gnio has gone); the program that went in is gnio's own
# (libxdp's dispatcher falls back to one program on this kernel). Then a
# mixed capture replayed with tcpreplay gets, rule by rule, exactly the hits
# `gnio flow classify` gives the same capture, and every frame the XDP
# program sent to gnio is accounted for. Both again under `gnio run --flow`
# (the GPU pipeline's queues, on the CPU device): ping answered by the host,
# UDP to the kernel, and the mix over two queues with the same hits.
. "$(dirname "$0")/wirelib.sh"
need_env
command -v ping >/dev/null || skip "ping not installed (iputils-ping)"
ip netns exec "$NSA" "$GNIO" caps --wire "afxdp:$VA" --gpu cpu --json >"$TMPD/caps.json" 2>"$TMPD/caps.err" ||
	skip "afxdp wire unavailable here"
[ "$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['wire']['queries']['flow_actions']['kernel'])" \
	"$TMPD/caps.json")" = supported ] ||
	skip "gnio built without the XDP flow program (no clang at configure time)"

A=10.77.0.1 B=10.77.0.2
ip -n "$NSA" addr add "$A/24" dev "$VA" || die "address on A"
ip -n "$NSB" addr add "$B/24" dev "$VB" || die "address on B"

connect_result() { # NS ADDR PORT -> refused | timeout | connected | other
	ip netns exec "$1" $PY - "$2" "$3" <<'PYEOF'
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("connected")
except ConnectionRefusedError:
    print("refused")
except socket.timeout:
    print("timeout")
except OSError as e:
    print("other", e)
PYEOF
}

expect "before gnio: the host answers a SYN with a reset" "$(connect_result "$NSB" $A 7777)" refused

# --- 1. kernel / drop / gnio with real peers ------------------------------
cat >"$TMPD/rules" <<'R'
icmp -> kernel
arp -> kernel
udp dport 9000 -> gnio
tcp -> drop
default -> drop
R
sink_start "$NSA" s1 --wire "afxdp:$VA" --flow "$TMPD/rules" --duration 60 || die "sink did not start"

prog=$(ip -n "$NSA" -d link show "$VA" | grep -o "prog/xdp id [0-9]* name [a-z_]*")
case "$prog" in
*"name gnio_xsk") ok "the XDP program on $VA is gnio_xsk itself ($prog)" ;;
*) bad "expected gnio_xsk attached on its own, found '$prog'" ;;
esac

# The connect above left B's neighbour entry for A fresh: forget it, so the
# ping starts with an ARP request that the arp rule must pass to the host.
ip -n "$NSB" neigh flush dev "$VB"
ip netns exec "$NSB" ping -c 5 -i 0.2 -W 2 $A >"$TMPD/ping.txt" 2>&1
expect "icmp -> kernel: ping gets its 5 replies" "$(grep -o '[0-9]* received' "$TMPD/ping.txt" | cut -d' ' -f1)" 5
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 500 --proto udp >/dev/null || bad "gen udp"
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 300 --proto tcp >/dev/null || bad "gen tcp"
expect "tcp -> drop: a connect gets no reset (times out)" "$(connect_result "$NSB" $A 7777)" timeout
# 40 UDP frames to another port: no rule, so the default (drop)
ip netns exec "$NSB" $PY - "$VB" <<'PYEOF' || bad "scapy send"
import sys
from scapy.all import Ether, IP, UDP, Raw, sendp
sendp([Ether(dst="02:00:00:00:00:02") / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=9001) / Raw(b"x" * 20)] * 40,
      iface=sys.argv[1], verbose=False)
PYEOF
sleep 0.5
kill -INT "$SINKPID"
sink_wait
S1="$TMPD/s1.json"
# libxdp's fallback messages go to the gnio log (debug), not the terminal
expect "the sink's stderr is only its ready line" "$(grep -vc 'gnio sink: ready' "$TMPD/s1.err")" 0
hits() { json "$S1" "j['flow']['rules'][$1]['hits']"; }
expect "icmp rule: the 5 echo requests" "$(hits 0)" 5
[ "$(hits 1)" -ge 1 ] && ok "arp rule: $(hits 1) ARP frames to the host" || bad "arp rule: no hits"
expect "udp 9000 rule: 500 frames" "$(hits 2)" 500
[ "$(hits 3)" -ge 301 ] && ok "tcp rule: 300 generated + $(($(hits 3) - 300)) SYN(s) of the connect" ||
	bad "tcp rule: $(hits 3) hits, want at least 301"
expect "default: the 40 UDP frames to port 9001" "$(json "$S1" "j['flow']['default']['hits']")" 40
expect "gnio got exactly the udp 9000 frames" "$(json "$S1" "j['rx_packets'] + j['dropped_total']")" 500
expect "every frame gnio got was classified gnio" "$(json "$S1" "j['flow']['received_by_action']['gnio']")" \
	"$(json "$S1" "j['rx_packets']")"
expect "the XDP program classified every frame it counted" \
	"$(json "$S1" "j['flow']['xdp_frames'] == sum(r['hits'] for r in j['flow']['rules']) + j['flow']['default']['hits']")" True
expect "no gnio decision lacked a socket" "$(json "$S1" "j['flow']['xdp_no_socket']")" 0
if ip -n "$NSA" link show "$VA" | grep -q xdp; then bad "XDP program left after the sink exited"; else
	ok "XDP program detached on exit"; fi
expect "after gnio: the host resets the SYN again" "$(connect_result "$NSB" $A 7777)" refused

# --- 1b. the same rules under gnio run: GPU pipeline queues on afxdp --------
ip -n "$NSA" link set "$VA" down; ip -n "$NSA" link set "$VA" up  # forget any stale state
ip -n "$NSA" addr replace "$A/24" dev "$VA"
ip netns exec "$NSA" "$GNIO" run --wire "afxdp:$VA" --gpu cpu --flow "$TMPD/rules" --duration 60 --json \
	>"$TMPD/r1.json" 2>"$TMPD/r1.err" &
RP=$!
BGPIDS="$BGPIDS $RP"
if run_ready "$TMPD/r1.err" $RP; then
	ip -n "$NSB" neigh flush dev "$VB"
	ip netns exec "$NSB" ping -c 5 -i 0.2 -W 2 $A >"$TMPD/ping2.txt" 2>&1
	expect "gnio run --flow: ping gets its 5 replies from the host" \
		"$(grep -o '[0-9]* received' "$TMPD/ping2.txt" | cut -d' ' -f1)" 5
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 500 --proto udp >/dev/null || bad "gen udp"
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 300 --proto tcp >/dev/null || bad "gen tcp"
	sleep 0.5
	kill -TERM $RP
	wait $RP
	R1="$TMPD/r1.json"
	expect "gnio run --flow: the kernel got exactly the 500 udp 9000 frames, balanced" \
		"$(json "$R1" "(j['rx_packets'], j['kernel_packets'], j['balanced'])")" "(500, 500, True)"
	expect "gnio run --flow: rules[] hits (icmp, udp 9000, tcp >= 300)" \
		"$(json "$R1" "(j['rules'][0]['hits'], j['rules'][2]['hits'], j['rules'][3]['hits'] >= 300)")" "(5, 500, True)"
else
	bad "gnio run --flow on afxdp did not start"
fi

# --- 1c. a reload under traffic (SIGHUP): the XDP program's table swapped --
reload_check afxdp

# --- 2. a replayed mix: XDP hits = gnio flow classify hits ----------------
if ! /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
	bad "no scapy for the mix"
	finish
fi
flow_mix_want
# the host must not answer anything during the replay: no address on A
ip -n "$NSA" addr flush dev "$VA"
sink_start "$NSA" s2 --wire "afxdp:$VA" --flow "$TMPD/mix.rules" --duration 60 || die "sink did not start"
ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/mix.pcap" >"$TMPD/replay.txt" 2>&1 || bad "tcpreplay"
sleep 1
kill -INT "$SINKPID"
sink_wait
S2="$TMPD/s2.json"
n=$MIX_RULES
for i in $(seq 0 $((n - 1))); do
	expect "rule $i '$(json "$TMPD/want.json" "j['rules'][$i]['rule']")': XDP hits = classify hits" \
		"$(json "$S2" "j['flow']['rules'][$i]['hits']")" "$(json "$TMPD/want.json" "j['rules'][$i]['hits']")"
done
expect "default: XDP hits = classify hits" "$(json "$S2" "j['flow']['default']['hits']")" \
	"$(json "$TMPD/want.json" "j['default']['hits']")"
expect "XDP classified the 2000 frames" "$(json "$S2" "j['flow']['xdp_frames']")" 2000
want_gnio=$MIX_GNIO
expect "frames for gnio: received + dropped + no socket = the gnio rules' hits" \
	"$(json "$S2" "j['rx_packets'] + j['dropped_total'] + j['flow']['xdp_no_socket']")" "$want_gnio"

# --- 2b. the mix into gnio run: two GPU-pipeline queues on a one-queue veth --
# (queue 1 is a ring the queue-0 proxy fills: `rss 0,1` and `queue 0` rules)
ip netns exec "$NSA" "$GNIO" run --wire "afxdp:$VA" --gpu cpu --queues 2 --flow "$TMPD/mix.rules" --duration 60 \
	--json >"$TMPD/r2.json" 2>"$TMPD/r2.err" &
RP=$!
BGPIDS="$BGPIDS $RP"
if run_ready "$TMPD/r2.err" $RP; then
	ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/mix.pcap" >/dev/null 2>&1 || bad "tcpreplay into gnio run"
	sleep 1
	kill -TERM $RP
	wait $RP
	R2="$TMPD/r2.json"
	for i in $(seq 0 $((n - 1))); do
		expect "gnio run rule $i: hits = classify hits" "$(json "$R2" "j['rules'][$i]['hits']")" \
			"$(json "$TMPD/want.json" "j['rules'][$i]['hits']")"
	done
	expect "gnio run: default hits = classify hits" "$(json "$R2" "j['default']['hits']")" \
		"$(json "$TMPD/want.json" "j['default']['hits']")"
	expect "gnio run: the gnio rules' frames all reached the two kernels, balanced" \
		"$(json "$R2" "(j['rx_packets'] + j['dropped_total'], j['kernel_packets'] == j['rx_packets'], j['balanced'])")" \
		"($want_gnio, True, True)"
	[ "$(json "$R2" "j['per_queue'][1]['rx_packets']")" -gt 0 ] 2>/dev/null &&
		ok "gnio run: queue 1 (a ring steering fills) got $(json "$R2" "j['per_queue'][1]['rx_packets']") frames" ||
		bad "gnio run: queue 1 got nothing"
else
	bad "gnio run --queues 2 --flow on afxdp did not start"
fi
finish
