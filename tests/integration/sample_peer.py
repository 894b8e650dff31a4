#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A peer for the samples' integration tests that is not gnio: a raw
AF_PACKET socket on the other end of a veth pair, standard library only.

  sample_peer.py IFACE MODE [options]    prints "ready" on stderr once bound,
                                         one JSON object on stdout at the end

Modes (each takes the frames coming IN on IFACE, not the ones it sends):
  simple_send     UDP to port 9000 built by gnio_simple_send: every byte is
                  checked against the frame its sequence number names
  send_wait_time  UDP to port 9001 from gnio_send_wait_time: every frame is
                  checked, and its arrival (the kernel's receive time,
                  CLOCK_REALTIME) compared with the requested time it carries
  l2fwd           frames of --pcap FILE coming back with their MAC addresses
                  swapped (after the test replays the file toward gnio_l2fwd)

It stops after --count frames of its kind, or --idle seconds without one
(after the first), or --timeout seconds in all.
"""
import argparse
import json
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_udp(src_mac, dst_mac, src_ip, dst_ip, sport, dport, ip_id, payload):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ip_id, 0x4000, 64, 17, 0, src_ip, dst_ip))
    ip[10:12] = struct.pack("!H", csum(bytes(ip)))
    return dst_mac + src_mac + b"\x08\x00" + bytes(ip) + udp


def simple_send_frame(f):
    """The frame gnio_simple_send builds for the sequence number f carries."""
    seq = struct.unpack("!Q", f[42:50])[0]
    n = len(f) - 42
    payload = struct.pack("!Q", seq) + bytes((seq + i) & 0xFF for i in range(8, n))
    return seq, ipv4_udp(f[6:12], f[0:6], f[26:30], f[30:34], 1024, 9000, seq & 0xFFFF, payload)


def swt_frame(f):
    """The burst, index and requested time a gnio_send_wait_time frame
    carries, and the frame those name."""
    k, j, req = struct.unpack("!QIQ", f[42:62])
    payload = struct.pack("!QIQ", k, j, req) + bytes(len(f) - 42 - 20)
    return k, j, req, ipv4_udp(f[6:12], f[0:6], f[26:30], f[30:34], 1024, 9001, (k * 256 + j) & 0xFFFF, payload)


def read_pcap(path):
    d = open(path, "rb").read()
    e = "<" if struct.unpack("<I", d[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, frames = 24, []
    while off + 16 <= len(d):
        incl = struct.unpack(e + "IIII", d[off:off + 16])[2]
        frames.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def udp_dport(f):
    if len(f) < 42 or f[12:14] != b"\x08\x00" or f[23] != 17:
        return None
    ihl = (f[14] & 15) * 4
    return struct.unpack("!H", f[14 + ihl + 2:14 + ihl + 4])[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("mode", choices=["simple_send", "send_wait_time", "l2fwd"])
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--idle", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--pcap")
    a = ap.parse_args()

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((a.iface, 0))
    s.settimeout(0.2)

    expect = {}
    if a.mode == "l2fwd":
        for f in read_pcap(a.pcap):
            back = f[6:12] + f[0:6] + f[12:]
            expect[back] = expect.get(back, 0) + 1
    r = {"frames": 0, "bad": 0, "duplicates": 0, "early": 0, "other_frames": 0}
    seqs, arrivals = set(), {}
    print("ready", file=sys.stderr, flush=True)
    t0 = last = time.time()
    while time.time() - t0 < a.timeout:
        if a.count and r["frames"] >= a.count:
            break
        if r["frames"] and time.time() - last > a.idle:
            break
        try:
            f, anc, _, addr = s.recvmsg(65536, 64)
        except socket.timeout:
            continue
        if addr[2] == PACKET_OUTGOING:
            continue
        ts = None
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", data[:16])
                ts = sec * 1000000000 + nsec
        if a.mode == "l2fwd":
            if f in expect and expect[f] > 0:
                expect[f] -= 1
            elif f[6:12] == b"\x02\x00\x00\x00\x00\x02":
                r["bad"] += 1
            else:
                r["other_frames"] += 1
                continue
        elif a.mode == "simple_send":
            if udp_dport(f) != 9000:
                r["other_frames"] += 1
                continue
            seq, want = simple_send_frame(f)
            if f != want:
                r["bad"] += 1
            elif seq in seqs:
                r["duplicates"] += 1
            seqs.add(seq)
        else:
            if udp_dport(f) != 9001:
                r["other_frames"] += 1
                continue
            k, j, req, want = swt_frame(f)
            if f != want:
                r["bad"] += 1
            if ts is None or ts < req:
                r["early"] += 1
            if j == 0:
                arrivals[k] = (ts or 0, req)
        r["frames"] += 1
        last = time.time()
    if a.mode == "simple_send":
        r["distinct"] = len(seqs)
    if a.mode == "l2fwd":
        r["missing"] = sum(expect.values())
    if a.mode == "send_wait_time":
        ks = sorted(arrivals)
        late = sorted((arrivals[k][0] - arrivals[k][1]) / 1e3 for k in ks)
        gaps = [(arrivals[b][0] - arrivals[a_][0]) / 1e3 for a_, b in zip(ks, ks[1:]) if b == a_ + 1]
        r["bursts"] = len(ks)
        r["late_us"] = {"min": late[0], "median": late[len(late) // 2], "max": late[-1]} if late else None
        r["spacing_us"] = {"mean": sum(gaps) / len(gaps), "min": min(gaps), "max": max(gaps)} if gaps else None
    print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
