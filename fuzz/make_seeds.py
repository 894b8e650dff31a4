#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the libFuzzer targets: fuzz/corpus/<target>/.
The files are committed; this says how they were made.

usage: python3 fuzz/make_seeds.py [path/to/gnio]   (default build/gnio)

classify    valid frames of each generator protocol (the hostile corpus in
            tests/corpus/frames is passed to the target as a second seed dir)
gen_verify  8 configuration bytes + a frame gnio gen built with them
pcap        small captures: valid (micro and nanosecond, both byte orders),
            snapped, damaged in each way the pcap wire reports, empty,
            not Ethernet
wire_spec   kind byte + spec text, one per option of sw, null and pcap
json        small documents: a version matrix entry, nesting, escapes,
            duplicate keys, truncation, bad UTF-8, a long number
flow_text   rules-file text: each match term and action, ranges, IPv4 and
            IPv6 prefixes, comments, blank and CRLF lines, default, a whole
            file, too many rules (alone, and after the target's two), and
            malformed lines of each kind the parser reports
"""
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GNIO = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "gnio")
OUT = os.path.join(ROOT, "fuzz", "corpus")
PROTOS = ["udp", "dns", "tcp-syn", "tcp-ack", "tcp-fin", "http", "icmp", "arp"]  # enum gnio_gen_proto order


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def pcap_frames(path):
    d = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(d):
        _, _, incl, _ = struct.unpack("<IIII", d[off:off + 16])
        out.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def gen(proto, size, count):
    with tempfile.TemporaryDirectory() as t:
        p = os.path.join(t, "g.pcap")
        subprocess.run([GNIO, "gen", "--wire", "pcap:,out=" + p, "--proto", proto, "--size", str(size),
                        "--count", str(count)], check=True, stdout=subprocess.DEVNULL)
        return pcap_frames(p)


def pcap(records, magic=0xA1B2C3D4, endian="<", linktype=1, snaplen=65535):
    b = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for caplen, length, body in records:
        b += struct.pack(endian + "IIII", 1700000000, 5, caplen, length) + body
    return b


for t in ("classify", "gen_verify", "pcap", "wire_spec", "json", "flow_text"):
    d = os.path.join(OUT, t)
    if os.path.isdir(d):
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))

frames = {}
for i, pr in enumerate(PROTOS):
    size = 128 if pr not in ("dns", "http") else 256
    fr = gen(pr, size, 2)
    frames[pr] = fr
    put("classify", pr + ".bin", fr[1])
    # data[0] proto, data[1] 0x80: frame_size = the frame's length, first_seq 0,
    # flows 1 (build_seq = 1), cap 9216
    put("gen_verify", pr + ".bin", bytes([i, 0x80, 0, 0, 0, 1, 0x24, 0x00]) + fr[1])
put("gen_verify", "mix-jumbo.bin", bytes([8, 0x80, 0, 0, 0, 1, 0x24, 0x00]) + gen("udp", 9000, 2)[1])
put("gen_verify", "bad-cfg.bin", bytes([9, 0x00, 0x01, 0, 0, 0, 0, 8]) + b"udp")

f = frames["udp"][1]
put("pcap", "valid.pcap", pcap([(len(f), len(f), f)] * 3))
put("pcap", "valid-ns-be.pcap", pcap([(len(f), len(f), f)] * 2, magic=0xA1B23C4D, endian=">"))
put("pcap", "snapped.pcap", pcap([(20, len(f), f[:20]), (len(f), len(f), f)]))
put("pcap", "caplen-above-len.pcap", pcap([(len(f), 20, f)]))
put("pcap", "huge-caplen.pcap", pcap([(len(f), len(f), f), (0x7FFFFFFF, 100, f)]))
put("pcap", "truncated-body.pcap", pcap([(len(f), len(f), f), (100, 100, f[:10])]))
put("pcap", "truncated-header.pcap", pcap([(len(f), len(f), f)]) + b"\x01\x02\x03")
put("pcap", "empty.pcap", pcap([]))
put("pcap", "not-ethernet.pcap", pcap([(4, 4, b"abcd")], linktype=101))
put("pcap", "runt.pcap", pcap([(1, 1, b"x"), (0, 0, b"")]))

specs = [b"\x00a", b"\x00a,depth=8,queues=2", b"\x00a,depth=128,queues=8", b"\x00a,queues=1,depth=1024", b"\x00a,,depth=1,", b"\x00a,depth", b"\x00a,depth=8,depth=9",
         b"\x00a,colour=red", b"\x01n", b"\x01n,size=64", b"\x01n,size=9216", b"\x01n,size=13",
         b"\x02nofile.pcap,loop=2,timing=recorded", b"\x02,out=x.pcap", b"\x02nofile.pcap,timing=fast,out=y",
         b"\x02,lopo=1", b"\x03sw:x,queues=64", b"\x03null:y,size=60", b"\x03pcap:,out=z", b"\x03sw:",
         b"\x03:x", b"\x03nosuch:x"]
for i, s in enumerate(specs):
    put("wire_spec", "%02d.txt" % i, s)
jsons = [b'{"version": "0.1.0", "entries": [{"symbol": "gnio_dev_open", "since": "0.1"}]}',
         b'{"a": {"b": [1, 2.5e3, -0, true, false, null, "x\\u00e9\\ud83d\\ude00"]}, "": ""}',
         b'[[[[[]]]]]', b'"\\u1"', b'{"a": 1, "a": 2}', b'{"schema": 7', b'\xff\xfe{}', b'123456789012345678901234567890']
for i, s in enumerate(jsons):
    put("json", "%02d.json" % i, s)
flows = [
    # match terms, one each
    b"ipv4 -> gnio", b"ipv6 -> gnio", b"udp -> queue 1", b"tcp -> queue 2", b"icmp -> kernel",
    b"icmp6 -> kernel", b"arp -> kernel", b"ethertype 0x88F7 -> cpu 0", b"vlan 4095 -> queue 3",
    b"src 10.0.0.0/8 -> drop", b"dst 192.168.1.7 -> drop", b"udp sport 1-1023 -> drop",
    b"tcp dport 80 -> queue 1", b"any -> drop",
    # actions, one each
    b"udp -> gnio", b"udp -> queue 65535", b"udp -> rss 0,1,2,3", b"udp -> rss 0-3,8,10-11",
    b"udp -> rss 0-63", b"udp -> cpu 7", b"udp -> kernel", b"udp -> drop",
    # ranges, prefixes, numbers
    b"udp dport 4791-4800 -> rss 0,1", b"tcp sport 0-65535 dport 0x16 -> drop",
    b"ipv6 udp src 2001:db8::/32 dst fe80::1 sport 1-1023 dport 53 -> cpu 7",
    b"dst ::/0 -> drop", b"src ::ffff:10.0.0.1 -> drop", b"src 0.0.0.0/0 dst 10.1.2.0/24 -> drop",
    b"arp dst 10.0.0.2 -> kernel", b"ipv4 ethertype 0x0800 udp -> queue 0",
    # layout: comments, blank lines, CRLF, tabs, touching arrows
    b"# a comment only\n\n   \t\nudp -> drop # trailing\n",
    b"icmp -> kernel\r\narp->kernel\r\n\r\n", b"\tdefault\t->\trss 1,0\r",
    b"default -> drop", b"udp dport 53 -> kernel\ndefault -> queue 2\n",
    b"udp dport 4791-4800 -> rss 0,1,2,3     # RoCE to four GPU queues, by flow\n"
    b"icmp -> kernel                         # ping stays answered by the host\n"
    b"arp -> kernel\nipv4 src 10.0.0.0/8 tcp dport 80 -> queue 1\ndefault -> drop\n",
    b"any -> drop\n" * 257, b"any -> drop\n" * 255,
    # malformed lines
    b"udpp -> drop", b"udp -> queue", b"udp -> rss 0,,1", b"udp -> rss 3-1", b"udp -> rss 0,1,1",
    b"udp -> drop now", b"udp tcp -> drop", b"udp dport 1 dport 2 -> drop", b"any udp -> drop",
    b"vlan 4096 -> drop", b"src 10.0.0.300 -> drop", b"src 10.0.0.1/8 -> drop", b"dst ::/129 -> drop",
    b"icmp ipv6 -> drop", b"dport 53 -> drop", b"udp dport 90-80 -> drop",
    b"src 10.0.0.0/8 dst ::1 -> drop", b"ipv4 ethertype 0x86dd -> drop", b"-> drop", b"default drop",
    b"udp -> drop\ndefault -> drop\ndefault -> kernel\n", b"tcp -> drop\nudp dport 99999 -> drop\n",
]
for i, s in enumerate(flows):
    put("flow_text", "%02d.txt" % i, s)
print("seeds written to", OUT)
