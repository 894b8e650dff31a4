#!/bin/bash
# SPDX-License-Identifier: MIT
# Steering on the afpacket wire, decided in the flow's socket filter: the
# host stack gets every frame on AF_PACKET (a ping across the veth pair is
# answered whatever the rules say), and gnio's socket takes a copy only of
# the frames whose action is not kernel or drop: the proxies see nothing
# else (rx_packets + dropped_total is exactly the gnio rules' frames), and
# the filter's per-rule counters give the hits. A mixed capture (one and two
# VLAN tags, whose outer tag the kernel takes out of the frame before a
# filter sees it; IPv6 extension chains) replayed with tcpreplay gets, rule
# by rule, exactly the hits `gnio flow classify` gives the same capture,
# under `gnio sink --flow` and `gnio run --flow --queues 2`; rules reloaded
# with SIGHUP between two bursts: each burst counted by its own rules. Then the same
# mix without CAP_BPF (the filter cannot be loaded): the proxies classify
# and count every frame, with the same hits.
. "$(dirname "$0")/wirelib.sh"
need_env
command -v ping >/dev/null || skip "ping not installed (iputils-ping)"
command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"
ip netns exec "$NSA" "$GNIO" caps --wire "afpacket:$VA" --gpu cpu --json >"$TMPD/caps.json" 2>"$TMPD/caps.err" ||
	skip "afpacket wire unavailable here"
grep -q "socket filter keeps" "$TMPD/caps.json" ||
	skip "gnio built without the flow's socket filter (no clang at configure time)"

A=10.78.0.1 B=10.78.0.2
ip -n "$NSA" addr add "$A/24" dev "$VA" || die "address on A"
ip -n "$NSB" addr add "$B/24" dev "$VB" || die "address on B"

# --- 1. kernel / drop / gnio with real peers ------------------------------
cat >"$TMPD/rules" <<'R'
icmp -> kernel
arp -> kernel
udp dport 9000 -> gnio
tcp -> drop
default -> drop
R
sink_start "$NSA" s1 --wire "afpacket:$VA" --flow "$TMPD/rules" --duration 60 || die "sink did not start"
ip -n "$NSB" neigh flush dev "$VB"
ip netns exec "$NSB" ping -c 5 -i 0.2 -W 2 $A >"$TMPD/ping.txt" 2>&1
expect "icmp -> kernel: ping gets its 5 replies" "$(grep -o '[0-9]* received' "$TMPD/ping.txt" | cut -d' ' -f1)" 5
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 500 --proto udp >/dev/null || bad "gen udp"
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 300 --proto tcp >/dev/null || bad "gen tcp"
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
hits() { json "$S1" "j['flow']['rules'][$1]['hits']"; }
expect "icmp rule: the 5 echo requests" "$(hits 0)" 5
[ "$(hits 1)" -ge 1 ] && ok "arp rule: $(hits 1) ARP frames (the host answered)" || bad "arp rule: no hits"
expect "udp 9000 rule: 500 frames" "$(hits 2)" 500
expect "tcp rule: the 300 generated" "$(hits 3)" 300
expect "default: the 40 UDP frames to port 9001" "$(json "$S1" "j['flow']['default']['hits']")" 40
expect "gnio's socket took exactly the udp 9000 frames (nothing to drop in the proxy)" \
	"$(json "$S1" "(j['rx_packets'], j['dropped_total'])")" "(500, 0)"
expect "every frame gnio got was classified gnio" "$(json "$S1" "j['flow']['received_by_action']['gnio']")" 500
expect "the socket filter classified every frame it counted" \
	"$(json "$S1" "j['flow']['xdp_frames'] == sum(r['hits'] for r in j['flow']['rules']) + j['flow']['default']['hits']")" True

# --- 2. a replayed mix: the filter's hits = gnio flow classify hits --------
flow_mix_want
n=$MIX_RULES
want_gnio=$MIX_GNIO
[ "$(json "$TMPD/want.json" "j['rules'][3]['hits']")" -gt 0 ] && ok "the mix has VLAN 200 frames" ||
	bad "the mix has no VLAN 200 frame: the outer-tag path is not tested"
# the host must not answer anything during the replay: no address on A
ip -n "$NSA" addr flush dev "$VA"

mix_sink() { # mix_sink TAG [prefix command...]: the mix into gnio sink --flow
	local tag=$1
	shift
	ip netns exec "$NSA" "$@" "$GNIO" sink --json --wire "afpacket:$VA" --flow "$TMPD/mix.rules" --duration 60 \
		>"$TMPD/$tag.json" 2>"$TMPD/$tag.err" &
	SINKPID=$!
	BGPIDS="$BGPIDS $SINKPID"
	for _ in $(seq 100); do grep -q ready "$TMPD/$tag.err" 2>/dev/null && break; sleep 0.05; done
	ip netns exec "$NSB" tcpreplay -q -i "$VB" "$TMPD/mix.pcap" >/dev/null 2>&1 || bad "$tag: tcpreplay"
	sleep 1
	kill -INT "$SINKPID"
	sink_wait
	for i in $(seq 0 $((n - 1))); do
		expect "$tag rule $i '$(json "$TMPD/want.json" "j['rules'][$i]['rule']")': hits = classify hits" \
			"$(json "$TMPD/$tag.json" "j['flow']['rules'][$i]['hits']")" "$(json "$TMPD/want.json" "j['rules'][$i]['hits']")"
	done
	expect "$tag default: hits = classify hits" "$(json "$TMPD/$tag.json" "j['flow']['default']['hits']")" \
		"$(json "$TMPD/want.json" "j['default']['hits']")"
}

mix_sink s2
expect "s2: the socket filter classified the 2000 frames" "$(json "$TMPD/s2.json" "j['flow']['xdp_frames']")" 2000
expect "s2: gnio's socket took only the gnio rules' frames" \
	"$(json "$TMPD/s2.json" "j['rx_packets'] + j['dropped_total']")" "$want_gnio"

# --- 2b. the mix into gnio run: two GPU-pipeline queues --------------------
ip netns exec "$NSA" "$GNIO" run --wire "afpacket:$VA,queues=1" --gpu cpu --queues 2 --flow "$TMPD/mix.rules" \
	--duration 60 --json >"$TMPD/r2.json" 2>"$TMPD/r2.err" &
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
	expect "gnio run: the gnio rules' frames all reached the two kernels, balanced, none dropped" \
		"$(json "$R2" "(j['rx_packets'], j['dropped_total'], j['kernel_packets'] == j['rx_packets'], j['balanced'])")" \
		"($want_gnio, 0, True, True)"
else
	bad "gnio run --queues 2 --flow on afpacket did not start"
fi

# --- 2c. a reload under traffic (SIGHUP): the filter's table swapped -------
reload_check afpacket

# --- 3. without CAP_BPF: the proxies classify and count ---------------------
mix_sink s3 env GNIO_LOG_LEVEL=warning setpriv --bounding-set -bpf,-sys_admin,-perfmon --
expect "s3: no socket filter (nothing classified in the kernel)" "$(json "$TMPD/s3.json" "j['flow']['xdp_frames']")" 0
expect "s3: gnio's socket took every frame, the proxy classified them" \
	"$(json "$TMPD/s3.json" "(j['rx_packets'] + j['dropped_total'], j['flow']['frames'])")" "(2000, 2000)"
grep -q "run in the proxies" "$TMPD/s3.err" && ok "s3: a warning says the rules run in the proxies" ||
	bad "s3: no warning that the filter could not be loaded ($(head -2 "$TMPD/s3.err"))"
finish
