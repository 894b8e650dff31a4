#!/bin/bash
# afpacket wire over a veth pair: the common wire suite plus promiscuous
# mode and qdisc bypass options.
. "$(dirname "$0")/wirelib.sh"
need_env

wire_suite afpacket

# options: promisc and bypass still deliver exactly
sink_start "$NSA" opt --wire "afpacket:$VA,promisc=1" --count 100 --duration 10 --verify || die "sink"
ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB,bypass=1" --count 100 >/dev/null || bad "gen bypass"
sink_wait
expect "afpacket promisc=1/bypass=1: received" "$(json $TMPD/opt.json "j['rx_packets']")" 100

finish
