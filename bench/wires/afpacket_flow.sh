#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/wires/afpacket_flow.sh - what the afpacket wire's socket filter saves:
# gnio sink on one end of a veth pair, gnio gen (afpacket, as fast as it
# goes) on the other, 64 flows of which rules send half to gnio and drop the
# rest. Three receivers, alternating, ROUNDS rounds:
#   no flow   every frame copied to gnio (nothing dropped)
#   filter    --flow: the socket filter keeps the dropped half out of gnio's ring
#   proxy     --flow without CAP_BPF: every frame copied, the proxy drops half
# For each: frames sent and frames gnio's socket took, wire (ring)
# drops, the rules' hits, the sink's CPU seconds (user + system: its proxy
# thread; the socket's softirq work runs mostly in the sender's context on a
# veth), the whole machine's busy CPU seconds while the generator ran (sender,
# softirq, filter and sink together: what differs between rows is the
# receive side), and the generator's rate. Needs root.
#   GNIO=build/gnio bench/wires/afpacket_flow.sh [frames] [rounds]   (default 2000000, 3)
# Prints a markdown table for docs/PERFORMANCE.md.
set -u
GNIO=${GNIO:-build/gnio}
N=${1:-2000000}
ROUNDS=${2:-3}
NSA=gfA$$ NSB=gfB$$ VA=gfa$$ VB=gfb$$
. "$(dirname "$0")/../lib.sh"
veth_up $NSA $NSB $VA $VB
T=$(mktemp -d)
trap 'ip netns del $NSA 2>/dev/null; ip netns del $NSB 2>/dev/null; rm -rf $T' EXIT
jf() { /usr/bin/python3 -c "import json,sys; j=json.loads([l for l in open(sys.argv[1]) if l.startswith('{')][-1]); print($2)" "$1"; }
# gen's source ports are 1024 + flow: flows 0..31 to gnio, 32..63 dropped
printf 'udp sport 1024-1055 -> gnio\ndefault -> drop\n' >$T/rules

run() { # run NAME [prefix...]: one receiver against one generator run
	local name=$1
	shift
	local flow=(--flow "$T/rules")
	[ "$name" = "no flow" ] && flow=()
	(
		TIMEFORMAT='%U %S'
		time ip netns exec $NSA "$@" "$GNIO" sink --wire "afpacket:$VA" "${flow[@]}" --duration 120 --idle 1 \
			--json >$T/s.json 2>$T/s.err
	) 2>$T/time &
	local sp=$!
	for _ in $(seq 200); do grep -q ready $T/s.err && break; sleep 0.05; done
	local b0 b1
	b0=$(busy)
	ip netns exec $NSB "$GNIO" gen --wire "afpacket:$VB" --count "$N" --flows 64 --json >$T/g.json
	b1=$(busy)
	wait $sp
	local cpu hits
	cpu=$(awk '{printf "%.2f", $1 + $2}' $T/time)
	hits=$(jf $T/s.json "'%d / %d' % (j['flow']['rules'][0]['hits'], j['flow']['default']['hits']) if 'flow' in j else '-'")
	echo "| $name | $(jf $T/g.json "j['sent']") | $(jf $T/s.json "j['rx_packets']") | $(jf $T/s.json "j['dropped']['wire_overflow']") | $hits | $cpu | $(awk -v a="$b0" -v b="$b1" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", (b - a) / hz}') | $(jf $T/g.json "'%.3f' % j['mpps']") |"
}
# busy: clock ticks the machine spent not idle, since boot (/proc/stat)
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

echo "| receiver | sent | frames gnio's socket took | wire drops | hits: gnio rule / default (drop) | sink CPU s | machine busy s | gen Mpps |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for _ in $(seq "$ROUNDS"); do
	run "no flow"
	run "filter"
	run "proxy" setpriv --bounding-set -bpf,-sys_admin,-perfmon --
done
