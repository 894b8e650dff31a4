#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ping for machines without iputils (the GPU test machine): COUNT ICMP echo
requests to ADDR from a raw socket (root), INTERVAL seconds apart, each
waiting up to WAIT seconds for its reply; the kernel resolves ADDR with ARP
as ping would. Prints one JSON object: sent, received, rtt_us {min, median,
max}. Exit 0 when every request got its reply.

  icmp_ping.py ADDR [COUNT [INTERVAL [WAIT]]]
"""
import json
import os
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    addr = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    wait = float(sys.argv[4]) if len(sys.argv) > 4 else 2.0
    ident = os.getpid() & 0xFFFF
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    rtts = []
    for seq in range(count):
        payload = struct.pack("!d", time.time()) + bytes(range(48))
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        pkt = struct.pack("!BBHHH", 8, 0, csum(hdr + payload), ident, seq) + payload
        t0 = time.perf_counter()
        s.sendto(pkt, (addr, 0))
        end = t0 + wait
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                data, src = s.recvfrom(2048)
            except socket.timeout:
                break
            ihl = (data[0] & 15) * 4
            icmp = data[ihl:]
            if src[0] != addr or len(icmp) < 8:
                continue
            t, code, _, rid, rseq = struct.unpack("!BBHHH", icmp[:8])
            if t == 0 and rid == ident and rseq == seq and csum(icmp) == 0 and icmp[8:] == payload:
                rtts.append((time.perf_counter() - t0) * 1e6)
                break
        left = interval - (time.perf_counter() - t0)
        if left > 0 and seq + 1 < count:
            time.sleep(left)
    r = sorted(rtts)
    out = {"sent": count, "received": len(r),
           "rtt_us": {"min": r[0], "median": r[len(r) // 2], "max": r[-1]} if r else None}
    print(json.dumps(out))
    sys.exit(0 if len(r) == count else 1)


if __name__ == "__main__":
    main()
