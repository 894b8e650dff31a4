#!/bin/bash
# SPDX-License-Identifier: MIT
# examples/afxdp.yaml as its comments say to run it: side A's end of the veth
# pair is renamed to the example's interface (gnio0, private to the network
# namespace), gnio run --config runs the file (plus --gpu cpu --json; until SIGTERM, quiet,
# metrics on 127.0.0.1:9464), gnio gen sends 1000 frames from side B; the
# /metrics endpoint answers promtool-clean with the example's wire, and on
# SIGTERM the run exits 0 with all 1000 frames received and balanced books.
. "$(dirname "$0")/wirelib.sh"
: "${GNIO_SRC:?}"
EXAMPLE="$GNIO_SRC/examples/afxdp.yaml"
need_env
command -v curl > /dev/null || die "curl not found (scripts/bootstrap installs it)"
command -v promtool > /dev/null || die "promtool not found (package prometheus; scripts/bootstrap installs it)"
iface=$(sed -n 's/^  name: \([a-z0-9-]*\).*/\1/p' "$EXAMPLE" | head -n 1)
[ -n "$iface" ] || die "no wire name in $EXAMPLE"
ip -n "$NSA" link set "$VA" down && ip -n "$NSA" link set "$VA" name "$iface" && ip -n "$NSA" link set "$iface" up ||
	die "renaming $VA to $iface in $NSA"
ip -n "$NSA" link set lo up || die "loopback up in $NSA"
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$iface" --duration 0.1 > /dev/null 2> "$TMPD/probe.err" ||
	skip "AF_XDP unavailable here: $(tail -1 "$TMPD/probe.err")"

ip netns exec "$NSA" "$GNIO" run --config "$EXAMPLE" --gpu cpu --json > "$TMPD/run.out" 2> "$TMPD/run.err" &
RUNPID=$!
BGPIDS="$BGPIDS $RUNPID"
# quiet: no "running" line; the endpoint serves heartbeats once the kernel runs
up=0
for _ in $(seq 200); do
	if ip netns exec "$NSA" curl -sf http://127.0.0.1:9464/metrics 2> /dev/null | grep -q '^gnio_kernel_heartbeat_age_seconds'; then
		up=1
		break
	fi
	kill -0 $RUNPID 2> /dev/null || break
	sleep 0.05
done
expect "the example runs and serves metrics at 127.0.0.1:9464" $up 1
[ $up = 1 ] || die "gnio run did not come up: $(tail -3 "$TMPD/run.err")"

ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 1000 > /dev/null || bad "gen 1000"
sleep 1
ip netns exec "$NSA" curl -sf http://127.0.0.1:9464/metrics > "$TMPD/m.txt"
if promtool check metrics < "$TMPD/m.txt" > "$TMPD/pt.txt" 2>&1; then ok "promtool check metrics passes"; else
	bad "promtool: $(head -3 "$TMPD/pt.txt")"; fi
expect "the rx series carries the example's wire" \
	"$(grep -c "^gnio_rx_packets_total{queue=\"0\",wire=\"afxdp:$iface@0,mode=skb\"} 1000$" "$TMPD/m.txt")" 1

kill -TERM $RUNPID
wait $RUNPID
expect "SIGTERM: exit status" $? 0
expect "the run is the example's (app count, wire)" "$(json "$TMPD/run.out" "j['app'] + ' ' + j['wire']")" \
	"count afxdp:$iface@0,mode=skb"
expect "received every frame" "$(json "$TMPD/run.out" "j['rx_packets']")" 1000
expect "books balance" "$(json "$TMPD/run.out" "j['balanced']")" True
expect "quiet: no live line on stderr" "$(grep -c '^\[' "$TMPD/run.err")" 0
finish
