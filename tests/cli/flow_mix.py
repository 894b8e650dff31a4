#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/cli/flow_mix.py - write a deterministic mix of frames for the flow
tests: UDP/TCP over IPv4 and IPv6 (some with extension headers), ICMP and
ICMPv6, ARP, one and two VLAN tags, LLDP. No fragments and no ICMP errors:
Wireshark reassembles the first and dissects the UDP inside the second, which
the steering rules (docs/flow.md) deliberately do not.

usage: flow_mix.py OUT.pcap [COUNT] [SEED]     (needs Debian's python3-scapy)
"""
import random
import sys

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, ICMPv6EchoRequest, IP, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, Raw, TCP, UDP,
                       wrpcap)

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)

V4_SRC = ["10.0.0.1", "10.1.2.3", "10.200.0.9", "172.16.0.5", "192.0.2.77"]
V4_DST = ["10.0.0.2", "192.168.7.10", "192.168.7.200", "192.168.8.1", "198.51.100.3"]
V6_SRC = ["2001:db8::1", "2001:db8:1::77", "fd00::5", "fe80::1"]
V6_DST = ["2001:db8::2", "fd00::9", "ff02::1", "2001:db8:ffff::1"]
PORTS = [53, 80, 22, 443, 4792, 4791, 4795, 4800, 4801, 9000, 1023, 1024, 5353]


def port():
    return rnd.choice(PORTS) if rnd.random() < 0.7 else rnd.randrange(0, 65536)


def payload():
    return Raw(bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 200))))


def l4(v6):
    k = rnd.random()
    if k < 0.45:
        return UDP(sport=port(), dport=port()) / payload()
    if k < 0.85:
        return TCP(sport=port(), dport=port(), flags="S") / payload()
    return (ICMPv6EchoRequest() if v6 else ICMP()) / payload()


def ip_frame():
    if rnd.random() < 0.6:
        return IP(src=rnd.choice(V4_SRC), dst=rnd.choice(V4_DST)) / l4(False)
    ext = None
    k = rnd.random()
    if k < 0.15:
        ext = IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt()
    elif k < 0.25:
        ext = IPv6ExtHdrRouting()
    hdr = IPv6(src=rnd.choice(V6_SRC), dst=rnd.choice(V6_DST))
    return hdr / ext / l4(True) if ext else hdr / l4(True)


frames = []
for i in range(count):
    eth = Ether(src="02:00:00:00:00:%02x" % rnd.randrange(256), dst="02:00:00:00:01:01")
    k = rnd.random()
    if k < 0.06:
        f = eth / ARP(op=rnd.choice([1, 2]), psrc=rnd.choice(V4_SRC), pdst=rnd.choice(V4_DST))
    elif k < 0.09:
        f = eth / Raw(b"\x02\x07\x04" + bytes(40))
        f[Ether].type = 0x88cc  # LLDP
    elif k < 0.22:
        f = eth / Dot1Q(vlan=rnd.choice([100, 200, 300])) / ip_frame()
    elif k < 0.27:
        f = eth / Dot1AD(vlan=rnd.choice([100, 200])) / Dot1Q(vlan=rnd.choice([200, 7])) / ip_frame()
    else:
        f = eth / ip_frame()
    frames.append(f)
wrpcap(out, frames)
