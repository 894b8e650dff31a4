#!/bin/bash
# afpacket wire over a veth pair: the common wire suite, promiscuous mode
# and qdisc bypass options, and VLAN tags restored on RX.
. "$(dirname "$0")/wirelib.sh"
need_env

wire_suite afpacket

# options: promisc and bypass still deliver exactly
sink_start "$NSA" opt --wire "afpacket:$VA,promisc=1" --count 100 --duration 10 --verify || die "sink"
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB,bypass=1" --count 100 >/dev/null || bad "gen bypass"
sink_wait
expect "afpacket promisc=1/bypass=1: received" "$(json $TMPD/opt.json "j['rx_packets']")" 100

# VLAN tags: the kernel strips the outer tag before packet sockets see a
# frame; the wire puts it back (TPID and TCI) as libpcap does. Counted by
# bytes and by protocol: 802.1Q DNS, 802.1ad UDP, and QinQ (the outer tag is
# the stripped one; with both tags back, classify reports "other").
if $PY -c 'import scapy' 2>/dev/null; then
	cat >"$TMPD/vlan.py" <<'PYEOF'
import sys
from scapy.all import Ether, Dot1Q, Dot1AD, IP, UDP, DNS, DNSQR, Raw, sendp
e = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
pk = [e / Dot1Q(vlan=100, prio=5) / IP(dst='10.0.0.2') / UDP(sport=1234, dport=53) / DNS(qd=DNSQR(qname='v.test'))] * 10
pk += [e / Dot1AD(vlan=200) / IP(dst='10.0.0.2') / UDP(sport=1, dport=9) / Raw(b'v' * 60)] * 10
pk += [e / Dot1AD(vlan=300) / Dot1Q(vlan=301) / IP(dst='10.0.0.2') / UDP(sport=1, dport=9) / Raw(b'q' * 40)] * 5
if sys.argv[1] == 'bytes':
    print(sum(len(bytes(p)) for p in pk))
else:
    sendp(pk, iface=sys.argv[2], verbose=False)
PYEOF
	sink_start "$NSA" vlan --wire "afpacket:$VA" --count 25 --duration 15 || die "sink"
	ip netns exec "$NSB" $PY "$TMPD/vlan.py" send "$VB" 2>/dev/null || bad "scapy VLAN send"
	sink_wait
	expect "afpacket VLAN: frames per protocol (dns, udp, other)" \
		"$(json $TMPD/vlan.json "[j['proto'][k] for k in ('dns','udp','other')]")" "[10, 10, 5]"
	expect "afpacket VLAN: bytes include the restored tags" \
		"$(json $TMPD/vlan.json "j['rx_bytes']")" "$($PY "$TMPD/vlan.py" bytes)"

	# byte for byte: gnio run echoes tagged frames back (MACs swapped);
	# the peer captures them with libpcap, which restores tags the same way
	ip netns exec "$NSB" tcpdump -i "$VB" -Q in -w "$TMPD/echo.pcap" -c 3 -U --immediate-mode 2>/dev/null &
	TD=$!
	BGPIDS="$BGPIDS $TD"
	ip netns exec "$NSA" "$GNIO" run --wire "afpacket:$VA" --gpu cpu --app echo --duration 4 --json \
		>"$TMPD/echo.json" 2>"$TMPD/echo.err" &
	RP=$!
	BGPIDS="$BGPIDS $RP"
	run_ready "$TMPD/echo.err" $RP || bad "afpacket VLAN: gnio run did not start"
	ip netns exec "$NSB" $PY - "$VB" "$TMPD/sent.hex" <<'PYEOF' 2>/dev/null || bad "scapy VLAN echo send"
import sys
from scapy.all import Ether, Dot1Q, Dot1AD, IP, UDP, Raw, sendp
e = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
pk = [e / Dot1Q(vlan=7, prio=3, id=1) / IP(dst='10.0.0.2') / UDP(dport=9) / Raw(b'a' * 30),
      e / Dot1AD(vlan=4000) / IP(dst='10.0.0.2') / UDP(dport=9) / Raw(b'b' * 31),
      e / Dot1AD(vlan=11) / Dot1Q(vlan=12) / IP(dst='10.0.0.2') / UDP(dport=9) / Raw(b'c' * 32)]
# what comes back: the same frame with the MAC addresses swapped
open(sys.argv[2], 'w').write(''.join((b[6:12] + b[0:6] + b[12:]).hex() + '\n' for b in map(bytes, pk)))
sendp(pk, iface=sys.argv[1], verbose=False)
PYEOF
	wait $RP
	for _ in $(seq 30); do kill -0 $TD 2>/dev/null || break; sleep 0.1; done
	kill $TD 2>/dev/null
	wait $TD 2>/dev/null
	if [ -s "$TMPD/sent.hex" ] && [ "$(pcap_hex "$TMPD/echo.pcap")" = "$(cat "$TMPD/sent.hex")" ]; then
		ok "afpacket VLAN: echoed frames identical with their tags"
	else
		bad "afpacket VLAN: echoed frames differ"
		echo "sent:"; cat "$TMPD/sent.hex"; echo "echoed:"; pcap_hex "$TMPD/echo.pcap"; cat "$TMPD/echo.err"
	fi
else
	echo "skip - scapy not available to $PY"
fi

finish
