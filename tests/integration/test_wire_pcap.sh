#!/bin/bash
# pcap wire: gnio writes captures that tcpdump reads back byte for byte,
# replays them (fast, looped, at recorded timing) with exact counts.
. "$(dirname "$0")/wirelib.sh"
[ -n "$GNIO" ] && [ -x "$GNIO" ] || skip "GNIO is not set to the gnio binary"
"$GNIO" sink --help >/dev/null 2>&1 || skip "gnio sink not built"
trap 'rm -rf "$TMPD"' EXIT
command -v tcpdump >/dev/null || skip "tcpdump not installed"

"$GNIO" gen --wire "pcap:,out=$TMPD/a.pcap" --count 1000 --proto mix --size 256 >/dev/null || bad "gen to pcap"
expect "tcpdump reads the gnio capture" "$(tcpdump -r $TMPD/a.pcap 2>/dev/null | wc -l)" 1000
# tcpdump copies the file; the frames must come out unchanged
tcpdump -r "$TMPD/a.pcap" -w "$TMPD/b.pcap" 2>/dev/null
if [ "$(pcap_hex $TMPD/a.pcap | md5sum)" = "$(pcap_hex $TMPD/b.pcap | md5sum)" ]; then
	ok "tcpdump -r/-w round trip keeps every byte"; else bad "bytes differ after tcpdump"; fi
# frame 7 by tcpdump -xx equals gnio's frame 7
hex_td=$(tcpdump -r "$TMPD/a.pcap" -xx -c 8 2>/dev/null | awk '/^[0-9]/{n++} n==8 && /0x/{for(i=2;i<=NF;i++) printf "%s",$i}')
expect "tcpdump -xx bytes of frame 7 (md5)" "$(echo $hex_td | md5sum)" "$(pcap_hex $TMPD/a.pcap | sed -n 8p | md5sum)"

"$GNIO" sink --wire "pcap:$TMPD/a.pcap" --count 1000 --verify --proto mix --size 256 --json >"$TMPD/s.json" 2>/dev/null
expect "replay: received and verified" "$(json $TMPD/s.json "(j['rx_packets'], j['verify']['ok'], j['verify']['gaps'])")" "(1000, 1000, 0)"

"$GNIO" sink --wire "pcap:$TMPD/a.pcap,loop=3" --count 3000 --json >"$TMPD/l.json" 2>/dev/null
expect "loop=3 replays three times" "$(json $TMPD/l.json "j['rx_packets']")" 3000

# recorded timing: 20 frames 50 ms apart take about a second
"$GNIO" gen --wire "pcap:,out=$TMPD/t.pcap" --count 20 --rate 20 >/dev/null || bad "gen paced pcap"
"$GNIO" sink --wire "pcap:$TMPD/t.pcap,timing=recorded" --count 20 --json >"$TMPD/t.json" 2>/dev/null
expect "timing=recorded: all frames" "$(json $TMPD/t.json "j['rx_packets']")" 20
expect "timing=recorded: paced (0.8..1.5 s)" "$(json $TMPD/t.json "0.8 < j['active_s'] < 1.5")" True

# pcap in + out: gnio gen into in.pcap, a TX-only writer, and errors
"$GNIO" sink --wire "pcap:$TMPD/missing.pcap" >/dev/null 2>"$TMPD/e.err"; rc=$?
expect "missing capture: exit code" "$rc" 3
expect "missing capture: one-line reason" "$(cat $TMPD/e.err)" "gnio sink: capture file $TMPD/missing.pcap not found"
"$GNIO" sink --wire "pcap:,out=$TMPD/x.pcap" >/dev/null 2>&1; rc=$?
expect "TX-only pcap refuses RX (exit 3)" "$rc" 3

finish
