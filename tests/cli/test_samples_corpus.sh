#!/bin/bash
# SPDX-License-Identifier: MIT
# The hostile-frame corpus (tests/corpus/frames: runts, cut headers, lying
# lengths, VLAN stacks, IPv6 chains, odd ARP, jumbo frames, long HTTP
# requests) through the samples' own per-frame code, on the CPU device: the
# frames, as one capture, replayed by the pcap wire into simple_receive,
# l2fwd and packet_processing (with --http) at every exec scope. Under
# `make test-sanitize` this is the samples' parsers under ASan and UBSan.
# Checks: each sample exits 0 and says ok; the books balance with the runts
# and the frames longer than the sample's 2048-byte buffers dropped by name
# and nothing else; l2fwd sends every frame back with its MACs swapped and
# nothing else changed; packet_processing gives every frame a kind, and
# every frame it sends is a well-formed reply (tshark finds no malformed
# one).
. "$(dirname "$0")/lib.sh"
: "${GNIO_BUILD:?}"
S="$GNIO_BUILD/samples"
FR="$GNIO_SRC/tests/corpus/frames"
for f in simple_receive l2fwd packet_processing; do
	[ -x "$S/$f/gnio_$f" ] || { bad "gnio_$f is built ($S/$f/gnio_$f)"; finish; }
done

# the corpus as one capture; what the books must show
"$PY" - "$FR" "$TMP/corpus.pcap" >"$TMP/want" <<'PYEOF' || { bad "writing the corpus capture"; finish; }
import glob, os, struct, sys
frames = [open(p, 'rb').read() for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.bin')))]
with open(sys.argv[2], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, b in enumerate(frames):
        f.write(struct.pack('<IIII', i, 0, len(b), len(b)) + b)
runt = sum(len(b) < 14 for b in frames)
big = sum(len(b) > 2048 for b in frames)
print(len(frames), runt, big, len(frames) - runt - big)
PYEOF
read -r N RUNT BIG RX <"$TMP/want"
check "the corpus has runts, frames too big for a 2048-byte slot and frames for the kernels ($N: $RUNT, $BIG, $RX)" \
	[ "$RUNT" -gt 0 ] && [ "$BIG" -gt 0 ] && [ "$RX" -gt 40 ]

run() { # run NAME SCOPE ARGS...: one sample over the corpus; JSON in $TMP/NAME.json
	local name=$1 e=$2
	shift 2
	timeout -k 5 120 "$S/$name/gnio_$name" -g cpu -e "$e" -n "pcap:$TMP/corpus.pcap,out=$TMP/$name-out.pcap" \
		-d 2 --json "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	tail -n 1 "$TMP/$name.out" >"$TMP/$name.json"
	[ $rc -eq 0 ] || tail -n 5 "$TMP/$name.err" | sed 's/^/     /'
}
j() { jq_py "$TMP/$1.json" "$2"; }
books() { # books NAME WHAT
	check "$2: exits 0 and says ok" [ "$rc" -eq 0 ] && [ "$(j "$1" 'd["ok"]')" = True ]
	check "$2: books: $N offered, $RX received, $RUNT runt, $BIG too_big, nothing else dropped" \
		[ "$(j "$1" '(d["offered"], d["rx_packets"], d["dropped"]["runt"], d["dropped"]["too_big"], d["dropped_total"], d["balanced"])')" \
		= "($N, $RX, $RUNT, $BIG, $((RUNT + BIG)), True)" ]
}

for e in thread warp block; do
	run simple_receive $e
	books simple_receive "simple_receive -e $e"
	check "simple_receive -e $e: the kernel counted every frame it was given" [ "$(j simple_receive 'd["packets"]')" = "$RX" ]

	run l2fwd $e
	books l2fwd "l2fwd -e $e"
	check "l2fwd -e $e: forwarded every frame, no error" \
		[ "$(j l2fwd '(d["forwarded"], d["tx_packets"], d["errors"], d["tx_errors"])')" = "($RX, $RX, 0, 0)" ]
	check "l2fwd -e $e: each frame sent is a received one with its MACs swapped, nothing else changed" \
		"$PY" - "$TMP/corpus.pcap" "$TMP/l2fwd-out.pcap" "$RX" <<'PYEOF'
import struct, sys
def frames(p):
    d = open(p, 'rb').read()
    off, out = 24, []
    while off + 16 <= len(d):
        n = struct.unpack_from('<I', d, off + 8)[0]
        out.append(d[off + 16:off + 16 + n])
        off += 16 + n
    return out
sent = {}
for b in frames(sys.argv[1]):
    if 14 <= len(b) <= 2048:
        k = b[6:12] + b[0:6] + b[12:]
        sent[k] = sent.get(k, 0) + 1
got = frames(sys.argv[2])
for b in got:
    if sent.get(b, 0) == 0:
        sys.exit('a frame that was not sent back as received: %s' % b[:32].hex())
    sent[b] -= 1
sys.exit(0 if len(got) == int(sys.argv[3]) else 'sent %d frames, want %s' % (len(got), sys.argv[3]))
PYEOF

	run packet_processing $e --http
	books packet_processing "packet_processing -e $e"
	check "packet_processing -e $e: every frame has a kind" [ "$(j packet_processing 'sum(d[k] for k in ("arp", "icmp", "dns", "udp_other", "tcp_syn", "tcp_fin", "tcp_other", "http_get", "http_post", "http_head", "other"))')" = "$RX" ]
	check "packet_processing -e $e: no kernel or TX error" \
		[ "$(j packet_processing '(d["errors"], d["tx_errors"])')" = "(0, 0)" ]
	sent=$(j packet_processing 'd["tx_packets"]')
	check "packet_processing -e $e: it answered something ($sent frames)" [ "$sent" -gt 0 ]
	if command -v tshark >/dev/null; then
		check "packet_processing -e $e: the capture of what it sent holds its $sent frames" \
			[ "$(tshark -r "$TMP/packet_processing-out.pcap" 2>/dev/null | wc -l)" = "$sent" ]
		check "packet_processing -e $e: tshark finds no malformed reply" \
			[ "$(tshark -r "$TMP/packet_processing-out.pcap" -Y "_ws.malformed || _ws.expert.severity == error" 2>/dev/null | wc -l)" = 0 ]
	fi
done
finish
