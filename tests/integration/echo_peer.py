#!/usr/bin/python3
# tests/integration/echo_peer.py IFACE COUNT [FLOWS]: a peer that is not gnio.
# Sends COUNT numbered UDP frames out of IFACE (in FLOWS flows, by source
# port, default 1), captures what comes back and checks every reply: MACs
# swapped, the rest of the frame byte for byte the frame sent. Prints one
# JSON object: sent, replies, matched, bad, missing.
import json
import socket
import sys
import time

from scapy.all import AsyncSniffer, Ether, IP, UDP, Raw, conf, sendp

iface, count = sys.argv[1], int(sys.argv[2])
flows = int(sys.argv[3]) if len(sys.argv) > 3 else 1
peer_mac, gnio_mac = '02:00:00:00:00:01', '02:00:00:00:00:02'
frames = []
for seq in range(count):
    payload = b'gnio-echo-%08d-' % seq + bytes((seq + i) & 0xff for i in range(64))
    frames.append(Ether(src=peer_mac, dst=gnio_mac) / IP(src='10.9.0.1', dst='10.9.0.2') /
                  UDP(sport=40000 + seq % flows, dport=7) / Raw(payload))
sent = {bytes(f)[12:]: bytes(f) for f in frames}

# A big receive buffer: on a loaded machine this Python process may not run
# for a while, and replies that arrive meanwhile must wait in the socket, not
# be dropped by it (SO_RCVBUFFORCE needs root, which the test has).
listen = conf.L2listen(iface=iface)
try:
    listen.ins.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)  # SO_RCVBUFFORCE
except OSError:
    listen.ins.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
sniffer = AsyncSniffer(opened_socket=listen, store=True, lfilter=lambda p: p.src == gnio_mac)
sniffer.start()
time.sleep(0.5)  # the capture socket is open before the first frame leaves
for i in range(0, count, 50):  # short bursts: no frame lost to a full ring
    sendp(frames[i:i + 50], iface=iface, verbose=False)
    time.sleep(0.02)
deadline = time.time() + 5
while time.time() < deadline and len(sniffer.results or []) < count:
    time.sleep(0.1)
time.sleep(0.3)
replies = sniffer.stop() or []

matched, bad, seen = 0, 0, set()
for r in replies:
    raw = bytes(r)
    want = sent.get(raw[12:])
    if want is not None and raw[0:6] == want[6:12] and raw[6:12] == want[0:6] and raw[12:] not in seen:
        matched += 1
        seen.add(raw[12:])
    else:
        bad += 1
print(json.dumps({'sent': count, 'replies': len(replies), 'matched': matched, 'bad': bad,
                  'missing': count - matched}))
