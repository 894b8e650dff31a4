#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the hostile-frame corpus: tests/corpus/frames/*.bin, one raw
Ethernet frame (no FCS) per file, and tests/corpus/frames/EXPECTED, one line
per frame: file name, then what gnio_classify() must return for it.

Run from anywhere: python3 tests/corpus/make_frames.py. The files are
committed; the script says how each was built. Only the standard library is
used, so every byte is explicit (no scapy "fixing" lengths for us).

Kinds: runts and truncated headers, IHL < 5, lying IPv4 total lengths, TCP
data offset past the end, VLAN / QinQ / triple tags, IPv6 extension-header
chains, odd-length ARP, zero-length UDP, jumbo frames, HTTP requests longer
than a packet buffer (9216 bytes in tests/unit/test_corpus.c).
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames")
DST = bytes.fromhex("020000000002")
SRC = bytes.fromhex("020000000001")
frames = []  # (name, bytes, expected classify name)


def eth(ethertype, payload, tags=()):
    """Ethernet header, optional VLAN tags [(tpid, tci)], then payload."""
    h = DST + SRC
    for tpid, tci in tags:
        h += struct.pack("!HH", tpid, tci)
    return h + struct.pack("!H", ethertype) + payload


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def ipv4(proto, l4, ihl=5, tot=None, ver=4, frag=0, options=b""):
    hl = 20 + len(options)
    if tot is None:
        tot = hl + len(l4)
    h = struct.pack("!BBHHHBBH4s4s", (ver << 4) | (ihl & 0xF), 0, tot & 0xFFFF, 1, frag, 64, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + options
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + l4


def udp(sport, dport, payload, length=None):
    if length is None:
        length = 8 + len(payload)
    return struct.pack("!HHHH", sport, dport, length, 0) + payload


def tcp(sport, dport, payload, doff=5, flags=0x18, options=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 1, (doff & 0xF) << 4, flags, 65535, 0, 0) + options + payload


def arp(body_len=28):
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, SRC, bytes([10, 0, 0, 1]), bytes(6),
                       bytes([10, 0, 0, 2]))
    return (body + bytes(64))[:body_len]


def add(name, frame, expect):
    frames.append((name, frame, expect))


# --- runts and truncated headers -----------------------------------------
add("runt-1", b"\x02", "malformed")
add("runt-13", (DST + SRC + b"\x08")[:13], "malformed")
add("eth-only-ipv4", eth(0x0800, b""), "malformed")
add("ipv4-hdr-19", eth(0x0800, ipv4(17, b"")[:19]), "malformed")
add("udp-hdr-7", eth(0x0800, ipv4(17, udp(1, 9, b"")[:7])), "malformed")
add("tcp-hdr-19", eth(0x0800, ipv4(6, tcp(1, 80, b"")[:19])), "malformed")
add("icmp-no-body", eth(0x0800, ipv4(1, b"")), "icmp")
add("vlan-tag-cut", (DST + SRC + struct.pack("!HH", 0x8100, 5))[:16], "malformed")
add("ipv6-hdr-cut", eth(0x86DD, b"\x60\x00\x00"), "ipv6")
# --- IHL < 5, bad version -------------------------------------------------
add("ihl-0", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), ihl=0)), "malformed")
add("ihl-4", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), ihl=4)), "malformed")
add("ihl-15-no-options", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), ihl=15)), "malformed")
add("ihl-15-options", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), ihl=15, options=b"\x01" * 40)), "udp")
add("version-6-in-ipv4", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), ver=6)), "malformed")
# --- lying IPv4 total lengths ---------------------------------------------
add("tot-past-end", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), tot=1500)), "malformed")
add("tot-below-ihl", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), tot=12)), "malformed")
add("tot-0", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), tot=0)), "malformed")
add("tot-65535", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), tot=65535)), "malformed")
add("tot-short-padded", eth(0x0800, ipv4(17, udp(1, 9, b""), tot=28) + bytes(40)), "udp")
add("tot-hides-udp-hdr", eth(0x0800, ipv4(17, udp(1, 9, b"x" * 20), tot=24)), "malformed")
# --- TCP data offset ------------------------------------------------------
add("tcp-doff-past-end", eth(0x0800, ipv4(6, tcp(1, 80, b"", doff=15))), "malformed")
add("tcp-doff-4", eth(0x0800, ipv4(6, tcp(1, 80, b"GET / HTTP/1.1\r\n\r\n", doff=4))), "malformed")
add("tcp-doff-0", eth(0x0800, ipv4(6, tcp(1, 80, b"GET /", doff=0))), "malformed")
add("tcp-doff-15-options", eth(0x0800, ipv4(6, tcp(1, 80, b"GET /", doff=15, options=b"\x01" * 40))), "http")
add("tcp-doff-15-exact", eth(0x0800, ipv4(6, tcp(1, 80, b"", doff=15, options=b"\x01" * 40))), "tcp")
add("tcp-syn-80-no-data", eth(0x0800, ipv4(6, tcp(1, 80, b"", flags=0x02))), "tcp")
# --- fragments ------------------------------------------------------------
add("udp-later-fragment", eth(0x0800, ipv4(17, b"zz", frag=100)), "udp")
add("tcp-later-fragment", eth(0x0800, ipv4(6, b"z", frag=0x2000 | 7)), "tcp")
add("udp-first-fragment-cut", eth(0x0800, ipv4(17, b"zz", frag=0x2000)), "malformed")
# --- VLAN, QinQ, triple tags ----------------------------------------------
pl = ipv4(17, udp(1, 9, b"v" * 30))
add("vlan-8100-udp", eth(0x0800, pl, [(0x8100, 100)]), "udp")
add("vlan-88a8-udp", eth(0x0800, pl, [(0x88A8, 200)]), "udp")
add("vlan-8100-dns", eth(0x0800, ipv4(17, udp(5353, 53, b"q" * 20)), [(0x8100, 7)]), "dns")
add("qinq-udp", eth(0x0800, pl, [(0x88A8, 300), (0x8100, 301)]), "other")
add("triple-tag-udp", eth(0x0800, pl, [(0x88A8, 1), (0x8100, 2), (0x8100, 3)]), "other")
add("vlan-arp", eth(0x0806, arp(), [(0x8100, 9)]), "arp")
add("vlan-then-runt-ip", eth(0x0800, pl[:10], [(0x8100, 100)]), "malformed")
# --- IPv6 extension-header chains (classify stops at the EtherType) -------
ext = (struct.pack("!BB", 43, 0) + bytes(6)            # hop-by-hop -> routing
       + struct.pack("!BBBB", 44, 0, 0, 0) + bytes(4)  # routing -> fragment
       + struct.pack("!BBHI", 17, 0, 0, 1)             # fragment -> UDP
       + udp(1, 9, b"6" * 16))
v6 = struct.pack("!IHBB16s16s", 0x60000000, len(ext), 0, 64, bytes(15) + b"\1", bytes(15) + b"\2") + ext
add("ipv6-ext-chain", eth(0x86DD, v6), "ipv6")
loop = struct.pack("!IHBB16s16s", 0x60000000, 8, 0, 64, bytes(16), bytes(16)) + struct.pack("!BB", 0, 200) + bytes(6)
add("ipv6-ext-len-past-end", eth(0x86DD, loop), "ipv6")
add("ipv6-payload-len-lies", eth(0x86DD, v6[:4] + struct.pack("!H", 65535) + v6[6:]), "ipv6")
# --- ARP ------------------------------------------------------------------
add("arp-28", eth(0x0806, arp(28)), "arp")
add("arp-27", eth(0x0806, arp(27)), "malformed")
add("arp-29", eth(0x0806, arp(29)), "arp")
add("arp-1", eth(0x0806, arp(1)), "malformed")
# --- zero-length and odd UDP ----------------------------------------------
add("udp-len-0", eth(0x0800, ipv4(17, udp(1, 9, b"", length=0))), "udp")
add("udp-len-8-empty", eth(0x0800, ipv4(17, udp(1, 9, b""))), "udp")
add("udp-len-lies-long", eth(0x0800, ipv4(17, udp(1, 9, b"x", length=60000))), "udp")
add("dns-empty", eth(0x0800, ipv4(17, udp(53, 33333, b""))), "dns")
add("ipv4-other-proto", eth(0x0800, ipv4(47, b"gre!")), "ipv4_other")
add("unknown-ethertype", eth(0x88B5, b"\0" * 46), "other")
# --- jumbo frames ---------------------------------------------------------
add("jumbo-9000-udp", eth(0x0800, ipv4(17, udp(1, 9, b"j" * (9000 - 42)))), "udp")
add("jumbo-9216-udp", eth(0x0800, ipv4(17, udp(1, 9, b"j" * (9216 - 42)))), "udp")
add("jumbo-9217-udp", eth(0x0800, ipv4(17, udp(1, 9, b"j" * (9217 - 42)))), "udp")
# --- HTTP requests, fitting and longer than the buffer ---------------------
def http(n):
    req = b"GET /" + b"a" * n + b" HTTP/1.1\r\nHost: gnio.test\r\n\r\n"
    return eth(0x0800, ipv4(6, tcp(40000, 80, req)))
add("http-short", http(10), "http")
add("http-8k", http(8000), "http")
add("http-9216-exact", http(9216 - len(http(0))), "http")
add("http-longer-than-buffer", http(12000), "http")
add("http-tot-covers-header-only", eth(0x0800, ipv4(6, tcp(40000, 80, b"G" * 8000), tot=40)), "tcp")

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".bin") or f == "EXPECTED":
        os.unlink(os.path.join(OUT, f))
with open(os.path.join(OUT, "EXPECTED"), "w") as m:
    m.write("# file  gnio_classify() result  (written by tests/corpus/make_frames.py)\n")
    for i, (name, b, expect) in enumerate(frames):
        fn = "%02d-%s.bin" % (i, name)
        with open(os.path.join(OUT, fn), "wb") as f:
            f.write(b)
        m.write("%s %s %d\n" % (fn, expect, len(b)))
print("%d frames in %s" % (len(frames), OUT))
