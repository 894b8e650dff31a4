#!/bin/bash
# gnio run --queues 4 --rss on real wires: a 4-queue veth pair, 4000 UDP
# frames of 4000 different flows replayed with tcpreplay from the peer.
# afxdp: one socket per veth queue, the proxies spread by the flow hash;
# afpacket: one socket fanned out by its proxy to four rings, and four
# sockets in a PACKET_FANOUT group (with and without gnio's hash on top).
# Checks: every frame reached a kernel, the per-queue counts add up to
# rx_packets, each queue is within 20 % of even, and the books balance.
# Then flows of many frames (gnio gen's numbered frames, 1024 flows of 16
# frames, interleaved) through gnio_rss_order, which records each frame's
# queue and stamp: every flow stays in one queue, in order, on each wire.
VETH_QUEUES=4
. "$(dirname "$0")/wirelib.sh"
need_env
command -v tcpreplay >/dev/null || skip "tcpreplay not installed"
$PY -c 'import scapy' 2>/dev/null || skip "/usr/bin/python3 has no scapy (python3-scapy)"
N=4000

# one frame per flow: source address and port differ each time (fixed seed,
# so the spread is the same on every run)
$PY - "$TMPD/flows.pcap" $N <<'PYEOF' || die "writing the flows"
import random, sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
random.seed(7)
e = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
pk = [e / IP(src='10.%d.%d.%d' % (random.randrange(256), random.randrange(256), random.randrange(1, 255)),
             dst='10.0.0.2') / UDP(sport=random.randrange(1024, 65535), dport=4791) / Raw(b'r' * 22)
      for _ in range(int(sys.argv[2]))]
wrpcap(sys.argv[1], pk)
PYEOF

rss_run() { # rss_run NAME WIRE-SPEC [--rss]
	local w=$1 spec=$2 rss=${3:-}
	ip netns exec "$NSA" "$GNIO" run --wire "$spec" --gpu cpu --queues 4 $rss --duration 6 --json \
		>"$TMPD/$w.json" 2>"$TMPD/$w.err" &
	local rp=$!
	BGPIDS="$BGPIDS $rp"
	run_ready "$TMPD/$w.err" $rp || { bad "$w: gnio run --queues 4 $rss did not start"; return; }
	ip netns exec "$NSB" tcpreplay -q -i "$VB" --pps 20000 "$TMPD/flows.pcap" >/dev/null 2>&1 || bad "$w: tcpreplay"
	wait $rp || bad "$w: gnio run exited $? ($(tail -2 "$TMPD/$w.err"))"
	expect "$w: every frame reached a kernel" "$(json "$TMPD/$w.json" "j['rx_packets'] >= $N and j['kernel_packets'] == j['rx_packets']")" True
	expect "$w: books balance" "$(json "$TMPD/$w.json" "j['balanced']")" True
	expect "$w: per-queue counts add up" \
		"$(json "$TMPD/$w.json" "sum(q['rx_packets'] for q in j['per_queue']) == j['rx_packets']")" True
	expect "$w: each queue within 20 % of even $(json "$TMPD/$w.json" "[q['rx_packets'] for q in j['per_queue']]")" \
		"$(json "$TMPD/$w.json" "all(abs(q['rx_packets'] * 4 - j['rx_packets']) * 5 <= j['rx_packets'] for q in j['per_queue'])")" True
	[ -n "$rss" ] && expect "$w --rss: every frame hit the rss default" \
		"$(json "$TMPD/$w.json" "j['default']['hits'] == j['offered'] and j['default']['action'] == 'rss'")" True
}

# The NIC's own steering as gnio caps reports it, against ethtool's view of
# the same interface: a veth has its 4 RX channels, no RSS indirection table
# and no ntuple rules (the sender's queue picks the receiver's).
cj() { $PY -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
for w in afxdp afpacket; do
	ip netns exec "$NSA" "$GNIO" caps --wire "$w:$VA" --gpu cpu --json >"$TMPD/caps-$w.json" 2>&1 ||
		bad "gnio caps --wire $w:$VA"
	expect "$w: caps steering: 4 hardware RX queues, as ethtool -l says" \
		"$(cj "$TMPD/caps-$w.json" "j['wire']['steering']['hw_rx_queues']")" \
		"$(ip netns exec "$NSA" ethtool -l "$VA" | awk '/^Current/{c=1} c && /^RX:/{print $2; exit}')"
	ip netns exec "$NSA" ethtool -x "$VA" >/dev/null 2>&1 && rss=1 || rss=0
	expect "$w: caps steering: an RSS table exactly when ethtool -x shows one" \
		"$(cj "$TMPD/caps-$w.json" "int(j['wire']['steering']['rss_table_size'] > 0)")" $rss
	ip netns exec "$NSA" ethtool -n "$VA" >/dev/null 2>&1 && nt=True || nt=False
	expect "$w: caps steering: ntuple exactly when ethtool -n answers" \
		"$(cj "$TMPD/caps-$w.json" "j['wire']['steering']['ntuple']")" $nt
	expect "$w: nic_rss and nic_ntuple say why not" \
		"$(cj "$TMPD/caps-$w.json" "[f['nic']['reason'][:20] for f in j['features'] if f['name'] in ('nic_rss', 'nic_ntuple')]")" \
		"['no RSS indirection t', 'no ntuple rules: the']"
done

# one AF_PACKET socket (queues=1) fanned out by its proxy to four rings
rss_run afpacket1 "afpacket:$VA,queues=1" --rss
expect "afpacket1 --rss: one socket fanned out (frames moved between rings)" \
	"$(json "$TMPD/afpacket1.json" "j['steered'] > 0 and j['per_queue'][1]['steered_in'] == j['per_queue'][1]['rx_packets']")" True
# four sockets in a PACKET_FANOUT hash group (--queues 4 asks for queues=4):
# the kernel spreads by its own flow hash, no flow and nothing moved
rss_run afpacket4 "afpacket:$VA"
expect "afpacket4 (fanout): no frame moved between rings" "$(json "$TMPD/afpacket4.json" "'steered' not in j")" True
# the same four sockets, and gnio's hash on top (frames move to its queue)
rss_run afpacket4rss "afpacket:$VA" --rss
rss_run afxdp "afxdp:$VA" --rss
# where the frames arrived (rx + dropped + steered_out - steered_in per queue):
# the veth picks the RX queue from the sender's TX queue, which the kernel
# chooses by its own flow hash, so every queue's socket should have had some
echo "afxdp: arrivals per veth queue: $(json "$TMPD/afxdp.json" \
	"[q['rx_packets'] + q['dropped_total'] + q['steered_out'] - q['steered_in'] for q in j['per_queue']]")"

# TX queues likewise: echo over 4 queues with --rss, 64 flows from a peer
# that is not gnio. Each queue's kernel sends the frames steered to it back
# through its own TX queue, from its RX buffer; every reply is checked byte
# for byte by the peer.
for w in afxdp afpacket; do
	ip netns exec "$NSA" "$GNIO" run --wire "$w:$VA" --gpu cpu --queues 4 --rss --app echo --json --duration 120 \
		>"$TMPD/echo-$w.json" 2>"$TMPD/echo-$w.err" &
	rp=$!
	BGPIDS="$BGPIDS $rp"
	run_ready "$TMPD/echo-$w.err" $rp || { bad "echo-$w: gnio run did not start"; continue; }
	ip netns exec "$NSB" $PY "$GNIO_SRC/tests/integration/echo_peer.py" "$VB" 800 64 >"$TMPD/echo-$w.peer" \
		2>"$TMPD/echo-$w.peer.err" || bad "echo-$w: peer failed: $(tail -1 "$TMPD/echo-$w.peer.err")"
	kill -TERM $rp
	wait $rp
	E="$TMPD/echo-$w.json"
	expect "echo-$w: every frame received, balanced" "$(json "$E" "(j['offered'], j['rx_packets'], j['balanced'])")" "(800, 800, True)"
	expect "echo-$w: each queue sent what it received" \
		"$(json "$E" "all(q['tx_packets'] == q['rx_packets'] for q in j['per_queue'])")" True
	expect "echo-$w: all four TX queues sent $(json "$E" "[q['tx_packets'] for q in j['per_queue']]")" \
		"$(json "$E" "all(q['tx_packets'] > 0 for q in j['per_queue'])")" True
	expect "echo-$w: every send from the RX buffer" "$(json "$E" "j['tx_in_place'] == j['tx_packets'] == 800")" True
	expect "echo-$w: the peer got all 800 back, MACs swapped, bytes intact" \
		"$(json "$TMPD/echo-$w.peer" "(j['matched'], j['bad'])")" "(800, 0)"
done

# Many frames per flow: 1024 flows (source ports) of 16 frames each, the
# flows interleaved (flow = sequence number mod 1024), stamped by gnio gen.
ORDER=$GNIO_BUILD/tests/gnio_rss_order
ON=16384
"$GNIO" gen --wire "pcap:,out=$TMPD/order.pcap" --count $ON --flows 1024 >/dev/null 2>&1 || die "writing the order capture"
# two halves by source port parity, each flow whole in one; replayed at
# once from two CPUs, so frames reach the receiver on more than one veth
# queue (an AF_PACKET sender's frames take the TX queue of its CPU) and
# the proxies of several wire queues feed each gnio queue
for half in odd:"udp.srcport & 1" even:"!(udp.srcport & 1)"; do
	tshark -r "$TMPD/order.pcap" -Y "${half#*:}" -w "$TMPD/order-${half%%:*}.pcap" 2>/dev/null ||
		die "splitting the order capture"
done
order_run() { # order_run NAME WIRE-SPEC one|multi (wire queues)
	local w=$1 spec=$2
	ip netns exec "$NSA" "$ORDER" --wire "$spec" --queues 4 --frames $ON --timeout 30 \
		>"$TMPD/$w.json" 2>"$TMPD/$w.err" &
	local rp=$!
	BGPIDS="$BGPIDS $rp"
	run_ready "$TMPD/$w.err" $rp || { bad "$w: gnio_rss_order did not start"; return; }
	local cpus c=0 p1 p2
	cpus=$(nproc)
	ip netns exec "$NSB" taskset -c 0 tcpreplay -q -i "$VB" --pps 10000 "$TMPD/order-odd.pcap" >/dev/null 2>&1 &
	p1=$!
	[ "$cpus" -gt 1 ] && c=1
	ip netns exec "$NSB" taskset -c $c tcpreplay -q -i "$VB" --pps 10000 "$TMPD/order-even.pcap" >/dev/null 2>&1 &
	p2=$!
	wait $p1 || bad "$w: tcpreplay (odd)"
	wait $p2 || bad "$w: tcpreplay (even)"
	wait $rp || bad "$w: gnio_rss_order exited $? ($(tail -2 "$TMPD/$w.err"))"
	# Order is what this run checks, so loss is not failed here, only
	# accounted: a coverage build beside other tests on two cores once
	# dropped 439 of 16384 on one queue (the books balanced; the other
	# runs of this file, and test_wire_*, fail any loss on a quiet path).
	# Every frame arrived: delivered and recorded, or dropped for a reason
	# that is counted.
	local drops lost
	drops=$(json "$TMPD/$w.json" "[q['dropped'] for q in j['per_queue']]")
	expect "$w: every frame arrived; each either reached a kernel and was recorded or was counted dropped $drops" \
		"$(json "$TMPD/$w.json" "j['arrived'] == $ON and j['rx_packets'] + j['dropped_total'] == $ON and j['recorded'] == j['rx_packets'] and j['rx_packets'] > 0 and j['bad'] == 0 and all(sum(q['dropped'].values()) == q['dropped_total'] for q in j['per_queue'])")" True
	lost=$(json "$TMPD/$w.json" "j['dropped_total']")
	[ "$lost" = 0 ] || echo "NOTE - $w: $lost of $ON frames dropped (counted), $drops"
	expect "$w: books balance per queue" \
		"$(json "$TMPD/$w.json" "j['steered_in'] == j['steered_out'] and all(q['recorded'] == q['rx_packets'] for q in j['per_queue'])")" True
	expect "$w: 1024 flows, none split across queues" "$(json "$TMPD/$w.json" "(j['flows'], j['split_flows'])")" "(1024, 0)"
	expect "$w: every flow in order" "$(json "$TMPD/$w.json" "j['reordered']")" 0
	expect "$w: each queue within 20 % of even $(json "$TMPD/$w.json" "[q['rx_packets'] for q in j['per_queue']]")" \
		"$(json "$TMPD/$w.json" "all(abs(q['rx_packets'] * 4 - $ON) * 5 <= $ON for q in j['per_queue'])")" True
	local arr
	arr=$(json "$TMPD/$w.json" "[q['rx_packets'] + q['dropped_total'] + q['steered_out'] - q['steered_in'] for q in j['per_queue']]")
	echo "$w: arrivals per wire queue: $arr"
	# several wire queues feeding each gnio queue is what order is about
	[ "$3" = multi ] && expect "$w: frames arrived on more than one wire queue $arr" \
		"$(json "$TMPD/$w.json" "sum(1 for q in j['per_queue'] if q['rx_packets'] + q['dropped_total'] + q['steered_out'] > q['steered_in']) > 1")" True
}
order_run order-afpacket1 "afpacket:$VA,queues=1" one
order_run order-afpacket4 "afpacket:$VA,queues=4" multi
order_run order-afxdp "afxdp:$VA" multi
finish
