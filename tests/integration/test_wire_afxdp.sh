#!/bin/bash
# afxdp wire over a veth pair: the common wire suite, skb mode, a killed
# run's XDP program removed by the next run, and the program detached on exit.
. "$(dirname "$0")/wirelib.sh"
need_env
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 0.1 >/dev/null 2>"$TMPD/probe.err" ||
	skip "AF_XDP unavailable here: $(tail -1 $TMPD/probe.err)"

wire_suite afxdp

# skb (generic) mode forced
sink_start "$NSA" skb --wire "afxdp:$VA,mode=skb" --count 1000 --duration 10 --verify || die "sink"
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 1000 >/dev/null || bad "gen 1000"
sink_wait
expect "afxdp mode=skb: received" "$(json $TMPD/skb.json "j['rx_packets']")" 1000
expect "afxdp mode=skb: mode reported" "$(json $TMPD/skb.json "j['mode'].split(',')[0]")" skb

# a killed run leaves its XDP program; the next run removes it and works
sink_start "$NSA" killed --wire "afxdp:$VA" --duration 60 || die "sink"
kill -9 "$SINKPID"; wait "$SINKPID" 2>/dev/null
if ip -n "$NSA" link show "$VA" | grep -q "prog/xdp\|xdp"; then ok "killed run left its XDP program"; else
	bad "expected a leftover XDP program after SIGKILL"; fi
GNIO_LOG_LEVEL=warning sink_start "$NSA" after --wire "afxdp:$VA" --count 1000 --duration 10 --verify || die "sink after kill"
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 1000 >/dev/null || bad "gen 1000"
sink_wait
expect "afxdp after SIGKILL: received" "$(json $TMPD/after.json "j['rx_packets']")" 1000
if grep -q "removed XDP program" "$TMPD/after.err"; then ok "stale program removal logged"; else
	bad "no log line about the removed program"; cat "$TMPD/after.err"; fi
if ip -n "$NSA" link show "$VA" | grep -q xdp; then bad "XDP program left after a clean exit"; else
	ok "XDP program detached on exit"; fi

# a foreign XDP program is not removed without force=1
finish
