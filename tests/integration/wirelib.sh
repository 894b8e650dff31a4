# tests/integration/wirelib.sh - shared helpers for the wire integration tests
# (sourced; not a test itself). Each test builds its own pair of network
# namespaces joined by a veth pair, named after its PID, and removes them on
# exit. Exit codes: 0 pass, 1 fail, 77 skip (with the reason printed).

set -u
GNIO=${GNIO:-}
PY=/usr/bin/python3
FAILS=0
TMPD=$(mktemp -d /tmp/gnio-integ.XXXXXX)
[ -n "${GNIO_KEEP_TMP:-}" ] && echo "keeping $TMPD"
NSA=gniA$$ NSB=gniB$$ VA=gva$$ VB=gvb$$
BGPIDS=""

skip() { echo "SKIP: $*"; exit 77; }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }

cleanup() {
	for p in $BGPIDS; do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "${GNIO_KEEP_TMP:-}" ] || rm -rf "$TMPD"
}

need_env() {
	[ -n "$GNIO" ] && [ -x "$GNIO" ] || skip "GNIO is not set to the gnio binary"
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, raw sockets)"
	command -v ip >/dev/null || skip "iproute2 'ip' not installed"
	ip netns add "$NSA" 2>/dev/null || skip "cannot create network namespaces here"
	ip netns add "$NSB" || skip "cannot create network namespaces here"
	trap cleanup EXIT
	# VETH_QUEUES=N: a multi-queue pair (N RX and TX queues each side)
	local mq=""
	[ -n "${VETH_QUEUES:-}" ] && mq="numtxqueues $VETH_QUEUES numrxqueues $VETH_QUEUES"
	# shellcheck disable=SC2086 # mq is two words or none
	ip link add "$VA" $mq type veth peer name "$VB" $mq 2>/dev/null || skip "cannot create veth pairs here"
	ip link set "$VA" netns "$NSA" && ip link set "$VB" netns "$NSB" || die "moving veth into namespaces"
	# no IPv6 autoconf chatter: counts must be exact
	for n in "$NSA:$VA" "$NSB:$VB"; do
		ip netns exec "${n%%:*}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
		ip netns exec "${n%%:*}" sysctl -qw "net.ipv6.conf.${n##*:}.disable_ipv6=1" 2>/dev/null
		ip -n "${n%%:*}" link set "${n##*:}" up || die "link up"
	done
}

# json FILE EXPR: evaluate a Python expression over the last JSON line (as j)
json() {
	$PY - "$1" "$2" <<'PYEOF'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip().startswith('{')]
if not lines:
    print('NOJSON'); sys.exit(0)
j = json.loads(lines[-1])
print(eval(sys.argv[2]))
PYEOF
}

# sink_start NS TAG ARGS...: start gnio sink in the background, wait until ready
sink_start() {
	local ns=$1 tag=$2
	shift 2
	ip netns exec "$ns" "$GNIO" sink --json "$@" >"$TMPD/$tag.json" 2>"$TMPD/$tag.err" &
	SINKPID=$!
	BGPIDS="$BGPIDS $SINKPID"
	for _ in $(seq 100); do
		grep -q "ready" "$TMPD/$tag.err" 2>/dev/null && return 0
		kill -0 $SINKPID 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMPD/$tag.err"
	return 1
}

sink_wait() { wait "$SINKPID"; }

# run_ready ERRFILE PID: wait (up to 20 s) until gnio run says its kernel and
# queues are running; a fixed sleep is too short under the sanitizer builds
run_ready() {
	for _ in $(seq 200); do
		grep -q ", running" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	cat "$1"
	return 1
}

# expect NAME ACTUAL WANTED
expect() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else bad "$1: got '$2', want '$3'"; return 1; fi
}

# frames of a pcap as hex, one per line, without timestamps
pcap_hex() {
	$PY - "$1" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
magic = struct.unpack('<I', d[:4])[0]
e = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
off = 24
while off + 16 <= len(d):
    _, _, incl, _ = struct.unpack(e + 'IIII', d[off:off + 16])
    print(d[off + 16:off + 16 + incl].hex())
    off += 16 + incl
PYEOF
}

# The common suite for a netdev wire (afxdp or afpacket). gnio sinks on
# side A, gnio gen sends from side B, unless said otherwise.
wire_suite() {
	local W=$1 out

	# 1. one frame
	sink_start "$NSA" one --wire "$W:$VA" --count 1 --duration 5 --verify || die "sink did not start"
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 1 >/dev/null || bad "gen one frame"
	sink_wait
	expect "$W one frame: received" "$(json $TMPD/one.json "j['rx_packets']")" 1
	expect "$W one frame: verified" "$(json $TMPD/one.json "j['verify']['ok']")" 1

	# 2. 1000 frames, every one verified in order
	sink_start "$NSA" k --wire "$W:$VA" --count 1000 --duration 10 --verify --proto mix --size 128 || die "sink"
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 1000 --proto mix --size 128 >/dev/null || bad "gen 1000"
	sink_wait
	expect "$W 1000 frames: received" "$(json $TMPD/k.json "j['rx_packets']")" 1000
	expect "$W 1000 frames: verified in order" \
		"$(json $TMPD/k.json "(j['verify']['ok'], j['verify']['out_of_order'], j['verify']['gaps'])")" "(1000, 0, 0)"
	expect "$W 1000 frames: per-protocol sum" "$(json $TMPD/k.json "sum(j['proto'].values())")" 1000

	# 3. 100000 frames at full speed: every frame delivered or counted
	sink_start "$NSA" big --wire "$W:$VA" --count 100000 --duration 30 --idle 2 || die "sink"
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 100000 --json >"$TMPD/big_gen.json" || bad "gen 100000"
	sink_wait
	expect "$W 100000 frames: sent" "$(json $TMPD/big_gen.json "j['sent']")" 100000
	expect "$W 100000 frames: delivered + dropped" "$(json $TMPD/big.json "j['rx_packets'] + j['dropped_total']")" 100000
	echo "     (delivered $(json $TMPD/big.json "j['rx_packets']"), dropped $(json $TMPD/big.json "j['dropped']"))"

	# 4. too big: frames longer than the receive slot are counted, not delivered
	sink_start "$NSA" tb --wire "$W:$VA" --count 30 --max-frame 512 --duration 10 || die "sink"
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 20 --size 1000 --json >"$TMPD/tb_gen1.json" 2>&1
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 10 --size 512 --json >"$TMPD/tb_gen2.json" 2>&1
	sink_wait
	if ! expect "$W too_big counted" "$(json $TMPD/tb.json "(j['rx_packets'], j['dropped']['too_big'])")" "(10, 20)"; then
		cat "$TMPD/tb.json" "$TMPD/tb.err" "$TMPD/tb_gen1.json" "$TMPD/tb_gen2.json"
		ip -n "$NSA" -s -d link show "$VA"; ip -n "$NSB" -s -d link show "$VB"
		ip netns exec "$NSA" ethtool -S "$VA" 2>/dev/null | grep -v ': 0$'
	fi

	# 5. TX: one frame sent by gnio seen at the peer byte for byte
	ip netns exec "$NSA" tcpdump -i "$VA" -w "$TMPD/tx.pcap" -c 1 -U --immediate-mode 2>/dev/null &
	local TD=$!
	BGPIDS="$BGPIDS $TD"
	sleep 1
	ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 1 --proto http --size 300 >/dev/null || bad "gen tx"
	"$GNIO" gen --wire "pcap:,out=$TMPD/ref.pcap" --count 1 --proto http --size 300 >/dev/null || bad "gen ref pcap"
	for _ in $(seq 50); do kill -0 $TD 2>/dev/null || break; sleep 0.1; done
	kill $TD 2>/dev/null
	wait $TD 2>/dev/null
	if [ -s "$TMPD/tx.pcap" ] && [ "$(pcap_hex $TMPD/tx.pcap)" = "$(pcap_hex $TMPD/ref.pcap)" ] &&
		[ -n "$(pcap_hex $TMPD/ref.pcap)" ]; then
		ok "$W TX frame identical at the peer (tcpdump)"
	else
		bad "$W TX frame differs at the peer"
		pcap_hex "$TMPD/tx.pcap" | head -2; pcap_hex "$TMPD/ref.pcap"
	fi

	# 6. tcpreplay of a capture: gnio counts exactly its frames
	"$GNIO" gen --wire "pcap:,out=$TMPD/replay.pcap" --count 500 --proto mix --size 200 >/dev/null || bad "gen replay pcap"
	local nrep
	nrep=$(tcpdump -r "$TMPD/replay.pcap" 2>/dev/null | wc -l)
	if command -v tcpreplay >/dev/null; then
		sink_start "$NSA" rep --wire "$W:$VA" --count "$nrep" --duration 15 --verify --proto mix --size 200 || die "sink"
		ip netns exec "$NSB" tcpreplay -q -i "$VB" --topspeed "$TMPD/replay.pcap" >/dev/null 2>&1 || bad "tcpreplay"
		sink_wait
		expect "$W tcpreplay: gnio count = capture frames" "$(json $TMPD/rep.json "j['rx_packets']")" "$nrep"
		expect "$W tcpreplay: verified" "$(json $TMPD/rep.json "j['verify']['ok']")" "$nrep"
	else
		echo "skip - tcpreplay not installed"
	fi

	# 7. frames crafted with scapy, classified per protocol
	if $PY -c 'import scapy' 2>/dev/null; then
		sink_start "$NSA" sc --wire "$W:$VA" --count 40 --duration 15 || die "sink"
		ip netns exec "$NSB" $PY - "$VB" 2>/dev/null <<'PYEOF' || bad "scapy send"
import sys
from scapy.all import Ether, IP, UDP, TCP, ICMP, ARP, DNS, DNSQR, Raw, sendp
e = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
pk = [e / ARP(pdst='10.0.0.2')] * 5
pk += [e / IP(dst='10.0.0.2') / ICMP()] * 5
pk += [e / IP(dst='10.0.0.2') / UDP(sport=1234, dport=53) / DNS(qd=DNSQR(qname='gnio.test'))] * 10
pk += [e / IP(dst='10.0.0.2') / UDP(sport=1, dport=7) / Raw(b'x' * 100)] * 10
pk += [e / IP(dst='10.0.0.2') / TCP(dport=80, flags='PA') / Raw(b'GET / HTTP/1.1\r\n\r\n')] * 10
sendp(pk, iface=sys.argv[1], verbose=False)
PYEOF
		sink_wait
		expect "$W scapy frames per protocol" \
			"$(json $TMPD/sc.json "[j['proto'][k] for k in ('arp','icmp','dns','udp','http')]")" "[5, 5, 10, 10, 10]" ||
			cat "$TMPD/sc.json"
	else
		echo "skip - scapy not available to $PY"
	fi

	# 8. gnio TX into the gnio RX on the other side, run by the main job if built
	if "$GNIO" run --help >/dev/null 2>&1; then
		ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --app count --json --duration 4 \
			>"$TMPD/run.json" 2>"$TMPD/run.err" &
		local RP=$!
		BGPIDS="$BGPIDS $RP"
		run_ready "$TMPD/run.err" $RP || bad "$W gnio run did not start"
		ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 1000 --rate 100000 >/dev/null || bad "gen for gnio run"
		wait $RP
		expect "$W gnio run: offered == rx_packets + dropped_total" \
			"$(json $TMPD/run.json "j['offered'] == j['rx_packets'] + j['dropped_total']")" True
		expect "$W gnio run: rx_packets" "$(json $TMPD/run.json "j['rx_packets']")" 1000
	else
		echo "skip - gnio run is not built yet"
	fi

	# 8b. SIGKILL under traffic (what a crash leaves: afxdp's XDP program and
	#     lock file, afpacket's promiscuous mode), then the same run again:
	#     it starts, receives every frame exactly and closes clean
	ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --app count --duration 60 \
		>"$TMPD/k9.out" 2>"$TMPD/k9.err" &
	local KP=$!
	BGPIDS="$BGPIDS $KP"
	if run_ready "$TMPD/k9.err" $KP; then
		ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 20000 --rate 200000 >/dev/null 2>&1 &
		local GP=$!
		sleep 0.05
		kill -9 $KP
		wait $KP 2>/dev/null
		wait $GP 2>/dev/null
		ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --app count --json --duration 4 \
			>"$TMPD/k9b.json" 2>"$TMPD/k9b.err" &
		KP=$!
		BGPIDS="$BGPIDS $KP"
		if run_ready "$TMPD/k9b.err" $KP; then
			ip netns exec "$NSB" "$GNIO" gen --wire "$W:$VB" --count 1000 --rate 100000 >/dev/null || bad "gen after kill"
			wait $KP
			local rc=$?
			expect "$W after SIGKILL: the rerun exits 0" "$rc" 0
			expect "$W after SIGKILL: the rerun receives all 1000, books balanced" \
				"$(json $TMPD/k9b.json "(j['rx_packets'], j['balanced'])")" "(1000, True)"
		else
			bad "$W after SIGKILL: gnio run did not start again: $(tail -2 "$TMPD/k9b.err")"
		fi
	else
		bad "$W gnio run (to be killed) did not start"
	fi

	# 9. echo and fwd send every frame back from its RX buffer to a peer that
	#    is not gnio (scapy): each reply checked byte for byte, the books exact
	if $PY -c 'import scapy' 2>/dev/null; then
		local app
		for app in echo fwd; do
			# runs until the peer is done, then SIGTERM: the graceful stop
			ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --app $app --json --duration 120 \
				>"$TMPD/$app.json" 2>"$TMPD/$app.err" &
			local AP=$!
			BGPIDS="$BGPIDS $AP"
			run_ready "$TMPD/$app.err" $AP || bad "$W $app: gnio run did not start"
			ip netns exec "$NSB" $PY "$GNIO_SRC/tests/integration/echo_peer.py" "$VB" 300 \
				>"$TMPD/$app.peer" 2>"$TMPD/$app.peer.err" || bad "$W $app: peer script failed: $(tail -1 $TMPD/$app.peer.err)"
			kill -TERM $AP
			wait $AP
			# A loaded machine may let the wire's own ring overflow: such
			# frames are counted (wire_overflow), and every other frame
			# must come back exactly once.
			local got
			got=$(json $TMPD/$app.json "j['rx_packets']")
			expect "$W $app: every frame offered is received or counted as dropped" \
				"$(json $TMPD/$app.json "(j['offered'], j['rx_packets'] + j['dropped_total'], j['balanced'])")" \
				"(300, 300, True)"
			expect "$W $app: nothing dropped but by the wire's ring" \
				"$(json $TMPD/$app.json "j['dropped_total'] - j['dropped']['wire_overflow']")" 0
			expect "$W $app: gnio sent each received frame once" "$(json $TMPD/$app.json "j['tx_packets']")" "$got"
			expect "$W $app: the peer got each of them back, MACs swapped, bytes intact" \
				"$(json $TMPD/$app.peer "(j['matched'], j['bad'])")" "($got, 0)"
			[ "$got" -ge 250 ] 2>/dev/null && ok "$W $app: $got of 300 echoed" || bad "$W $app: only $got of 300 echoed"
			expect "$W $app: every send from the RX buffer" "$(json $TMPD/$app.json "j['tx_in_place']")" "$got"
			echo "     ($app: tx_copies $(json $TMPD/$app.json "j['tx_copies']"), tx_path: $(json $TMPD/$app.json "j['tx_path']"))"
			if [ "$W" = afxdp ]; then
				# RX frames sit in the UMEM, so sends go by address: gnio copies nothing
				expect "$W $app: no copy by gnio" "$(json $TMPD/$app.json "j['tx_copies']")" 0
			fi
		done
	else
		echo "skip - scapy not available to $PY"
	fi

	# 10. the interface taken down, then deleted, under a running gnio run:
	#     the run ends within seconds with exit 3 (environment), the reason
	#     on stderr and in the JSON, never running on to --duration
	wire_lost "$W" down "is down"
	ip -n "$NSA" link set "$VA" up
	wire_lost "$W" del "is gone"
	# the pair is gone with its end: make a new one for what follows
	ip link add "$VA" type veth peer name "$VB" && ip link set "$VA" netns "$NSA" && ip link set "$VB" netns "$NSB" &&
		ip -n "$NSA" link set "$VA" up && ip -n "$NSB" link set "$VB" up || die "recreating the veth pair"
}

# wire_lost WIRE down|del TEXT: run on WIRE:$VA, then take $VA down or delete
# it; gnio run must stop on its own with exit 3 and TEXT in its reason.
wire_lost() {
	local W=$1 how=$2 text=$3
	ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --duration 60 --json \
		>"$TMPD/lost-$how.json" 2>"$TMPD/lost-$how.err" &
	local RP=$! t0=$SECONDS rc
	BGPIDS="$BGPIDS $RP"
	run_ready "$TMPD/lost-$how.err" $RP || { bad "$W $how: gnio run did not start"; return; }
	if [ "$how" = down ]; then ip -n "$NSA" link set "$VA" down; else ip -n "$NSA" link del "$VA"; fi
	wait $RP
	rc=$?
	expect "$W interface $how mid-run: gnio run exits 3" "$rc" 3
	[ $((SECONDS - t0)) -lt 30 ] && ok "$W interface $how: stopped in $((SECONDS - t0)) s, not at --duration 60" ||
		bad "$W interface $how: ran on for $((SECONDS - t0)) s"
	grep -q "the wire failed: .*$text" "$TMPD/lost-$how.err" && ok "$W interface $how: stderr says '$text'" ||
		bad "$W interface $how: no reason on stderr: $(tail -2 "$TMPD/lost-$how.err")"
	expect "$W interface $how: the JSON names it" "$(json "$TMPD/lost-$how.json" "'$text' in j['wire_error']")" True
}

finish() {
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# reload_check WIRE: gnio run --flow FILE on WIRE:$VA, 500 UDP frames to port
# 9000 under rules that give them to gnio, then FILE rewritten to drop UDP
# and SIGHUP, then 300 more: the 300 counted by the new rule (dropped where
# the wire's kernel program runs, so gnio never gets them), the 500 by the
# replaced one (removed_hits), the kernel getting exactly the 500, and
# frames = hits + default + removed_hits.
reload_check() {
	local w=$1
	printf 'udp dport 9000 -> gnio\narp -> kernel\ndefault -> drop\n' >"$TMPD/hup.rules"
	ip netns exec "$NSA" "$GNIO" run --wire "$w:$VA" --gpu cpu --flow "$TMPD/hup.rules" --duration 60 --json \
		>"$TMPD/hup.json" 2>"$TMPD/hup.err" &
	local rp=$!
	BGPIDS="$BGPIDS $rp"
	run_ready "$TMPD/hup.err" $rp || { bad "$w reload: gnio run --flow did not start"; return; }
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 500 --proto udp >/dev/null || bad "gen udp"
	sleep 0.5
	printf 'udp -> drop\narp -> kernel\ndefault -> gnio\n' >"$TMPD/hup.rules"
	kill -HUP $rp
	for _ in $(seq 50); do grep -q "rules reloaded" "$TMPD/hup.err" && break; sleep 0.1; done
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 300 --proto udp >/dev/null || bad "gen udp"
	sleep 0.5
	kill -TERM $rp
	wait $rp
	local r="$TMPD/hup.json"
	expect "$w reload: reported" "$(grep -c 'rules reloaded from' "$TMPD/hup.err")" 1
	expect "$w reload: the 300 frames after it hit 'udp -> drop', the 500 before it the replaced rule" \
		"$(json "$r" "(j['rules'][0]['rule'], j['rules'][0]['hits'], j['flow']['removed_hits'] >= 500, j['flow']['reloads'])")" \
		"('udp -> drop', 300, True, 1)"
	expect "$w reload: gnio got the 500 only, the kernel all of them, balanced" \
		"$(json "$r" "(j['rx_packets'], j['dropped_total'], j['kernel_packets'], j['balanced'])")" "(500, 0, 500, True)"
	expect "$w reload: every frame counted once, in the wire's kernel program" \
		"$(json "$r" "j['flow']['frames'] == j['flow']['xdp_frames'] == sum(r['hits'] for r in j['rules']) + j['default']['hits'] + j['flow']['removed_hits']")" True
}

# flow_mix_want: the flow tests' replayed mix ($TMPD/mix.pcap, 2000 frames:
# UDP/TCP over IPv4 and IPv6 with extension headers, ICMP, ARP, one and two
# VLAN tags, LLDP), its rules ($TMPD/mix.rules, every action) and what
# `gnio flow classify` says of it ($TMPD/want.json); sets MIX_RULES (the
# number of rules) and MIX_GNIO (frames whose action gives them to gnio).
flow_mix_want() {
	$PY -c 'import scapy' 2>/dev/null || die "no scapy for the mix (python3-scapy)"
	$PY "$GNIO_SRC/tests/cli/flow_mix.py" "$TMPD/mix.pcap" 2000 5 || die "writing the mix"
	cat >"$TMPD/mix.rules" <<'R'
udp dport 4791-4800 -> rss 0,1
icmp -> kernel
arp -> kernel
vlan 200 -> drop
ipv4 src 10.0.0.0/8 tcp dport 80 -> queue 0
ipv6 udp dport 53 -> kernel
dst 192.168.7.0/24 -> drop
tcp sport 1-1023 -> kernel
ethertype 0x88cc -> drop
ipv6 -> gnio
default -> kernel
R
	"$GNIO" flow classify "$TMPD/mix.rules" --pcap "$TMPD/mix.pcap" --json >"$TMPD/want.json" || bad "flow classify"
	MIX_RULES=$(json "$TMPD/want.json" "len(j['rules'])")
	MIX_GNIO=$(json "$TMPD/want.json" "j['actions']['gnio'] + j['actions']['queue'] + j['actions']['rss'] + j['actions']['cpu']")
}
