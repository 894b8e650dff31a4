#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write a traffic mix for gnio_packet_processing's key-by-key check against
tshark: every --json key gets frames, including the corner cases of its
definition (a FIN carrying a GET is tcp_fin; "GETX" and "get " are
tcp_other; HTTP on another port is still http_get; ICMP errors quoting UDP
are icmp), plus frames that must land in "other": IPv6, LLDP, GRE, a later
IPv4 fragment, an IPv4 header with a bad version, TCP with a bad data
offset. Frames are addressed to ADDR, so ping and ARP for it get answers.

  pp_mix.py OUT.pcap ADDR
"""
import sys

from scapy.all import (ARP, DNS, DNSQR, GRE, ICMP, IP, IPv6, TCP, UDP, Dot1Q, Ether, Raw, wrpcap)

out, addr = sys.argv[1], sys.argv[2]
other = "10.77.1.99"
e = Ether(src="02:00:00:00:0a:01", dst="02:00:00:00:0a:02")
b = Ether(src="02:00:00:00:0a:01", dst="ff:ff:ff:ff:ff:ff")
cl = "10.77.1.1"
get = b"GET / HTTP/1.1\r\nHost: gnio\r\n\r\n"
pk = []
# arp
pk += [b / ARP(op=1, psrc=cl, pdst=addr)] * 12
pk += [b / ARP(op=1, psrc=cl, pdst=other)] * 4
pk += [e / ARP(op=2, psrc=other, pdst=cl)] * 3
# icmp
pk += [e / IP(src=cl, dst=addr) / ICMP(type=8, id=7, seq=i) / Raw(b"x" * 32) for i in range(20)]
pk += [e / IP(src=cl, dst=other) / ICMP(type=8, id=8, seq=i) for i in range(5)]
pk += [e / IP(src=cl, dst=addr) / ICMP(type=0)] * 3
pk += [e / IP(src=cl, dst=addr) / ICMP(type=3, code=3) / IP(src=addr, dst=cl) / UDP(sport=5000, dport=6000)] * 3
pk += [e / Dot1Q(vlan=100) / IP(src=cl, dst=addr) / ICMP(type=8, id=9, seq=i) for i in range(4)]
# dns and other udp
pk += [e / IP(src=cl, dst=addr) / UDP(sport=40000 + i, dport=53) / DNS(qd=DNSQR(qname="gnio.test")) for i in range(15)]
pk += [e / IP(src=addr, dst=cl) / UDP(sport=53, dport=40000) / Raw(b"\0" * 12)] * 4
pk += [e / Dot1Q(vlan=100) / IP(src=cl, dst=addr) / UDP(sport=40001, dport=53) / Raw(b"\0" * 12)] * 2
pk += [e / IP(src=cl, dst=addr) / UDP(sport=1234, dport=9000 + i) / Raw(b"u" * 40) for i in range(18)]
pk += [e / IP(src=cl, dst=addr) / UDP(sport=1234, dport=80) / Raw(b"GET / HTTP/1.1\r\n\r\n")] * 2
# tcp
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30000 + i, dport=80, flags="S") for i in range(10)]
pk += [e / IP(src=addr, dst=cl) / TCP(sport=80, dport=30000, flags="SA")] * 3
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30001, dport=80, flags="FA")] * 6
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30002, dport=80, flags="FPA") / Raw(get)] * 2
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30003, dport=80, flags="A")] * 8
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30004, dport=80, flags="R")] * 3
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30005, dport=7000, flags="PA") / Raw(b"hello there")] * 4
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30006, dport=80, flags="PA") / Raw(b"GETX / HTTP/1.1\r\n\r\n")] * 2
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30007, dport=80, flags="PA") / Raw(b"get / HTTP/1.1\r\n\r\n")] * 2
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30008 + i, dport=80, flags="PA") / Raw(get) for i in range(9)]
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30020, dport=8000, flags="PA") / Raw(get)] * 3
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30021, dport=80, flags="PA") / Raw(b"POST /form HTTP/1.1\r\nContent-Length: 0\r\n\r\n")] * 5
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30022, dport=80, flags="PA") / Raw(b"HEAD / HTTP/1.1\r\n\r\n")] * 4
pk += [e / Dot1Q(vlan=100) / IP(src=cl, dst=addr) / TCP(sport=30023, dport=80, flags="PA") / Raw(get)] * 2
# other
pk += [e / IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=1, dport=53) / Raw(b"\0" * 12)] * 4
pk += [Ether(src="02:00:00:00:0a:01", dst="01:80:c2:00:00:0e", type=0x88CC) / Raw(b"\x02\x07\x04" + b"\0" * 40)] * 3
pk += [e / IP(src=cl, dst=addr, proto=47) / GRE() / Raw(b"g" * 20)] * 3
pk += [e / IP(src=cl, dst=addr, flags=0, frag=100, proto=17) / Raw(b"f" * 40)] * 3
pk += [e / IP(src=cl, dst=addr, version=5) / UDP(sport=1, dport=2) / Raw(b"v" * 20)] * 2
pk += [e / IP(src=cl, dst=addr) / TCP(sport=30030, dport=80, flags="A", dataofs=3) / Raw(b"d" * 20)] * 2
wrpcap(out, pk)
print(len(pk))
