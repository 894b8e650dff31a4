#!/bin/bash
# bench/wires/veth_rates.sh - receive and send rates of each gnio wire on a
# veth pair, beside DPDK testpmd's net_af_packet and net_af_xdp vdevs, with
# the same generator (gnio gen) on the other end. Needs root.
#   GNIO=build/gnio bench/wires/veth_rates.sh [frames]   (default 2000000)
# Prints one table row per measurement (markdown) for docs/PERFORMANCE.md.
set -u
GNIO=${GNIO:-build/gnio}
N=${1:-2000000}
NSA=gbA$$ NSB=gbB$$ VA=gba$$ VB=gbb$$
. "$(dirname "$0")/../lib.sh"
veth_up $NSA $NSB $VA $VB
T=$(mktemp -d)
trap 'ip netns del $NSA 2>/dev/null; ip netns del $NSB 2>/dev/null; rm -rf $T' EXIT
jf() { /usr/bin/python3 -c "import json,sys; j=json.loads([l for l in open(sys.argv[1]) if l.startswith('{')][-1]); print($2)" "$1"; }
GEN=afpacket # the common generator for every receive row

echo "| direction | wire | Mpps | delivered / offered | notes |"
echo "| --- | --- | --- | --- | --- |"
# receive: gnio sink on A, gnio gen (afpacket, max rate) on B
for w in afxdp afpacket "afxdp,mode=skb"; do
	spec="${w%%,*}:$VA${w#${w%%,*}}"
	ip netns exec $NSA "$GNIO" sink --wire "$spec" --duration 60 --idle 1 --json >$T/s.json 2>$T/s.err &
	sp=$!
	for _ in $(seq 100); do grep -q ready $T/s.err && break; sleep 0.05; done
	ip netns exec $NSB "$GNIO" gen --wire $GEN:$VB --count $N --json >$T/g.json
	wait $sp
	echo "| RX | gnio sink $spec | $(jf $T/s.json "'%.3f' % j['mpps']") | $(jf $T/s.json "j['rx_packets']") / $(jf $T/g.json "j['sent']") | gen $GEN $(jf $T/g.json "'%.3f' % j['mpps']") Mpps; wire drops $(jf $T/s.json "j['dropped']['wire_overflow']") |"
done
# send: gnio gen on B, nobody listening on A
for w in afxdp afpacket "afpacket,bypass=1"; do
	spec="${w%%,*}:$VB${w#${w%%,*}}"
	ip netns exec $NSB "$GNIO" gen --wire "$spec" --count $N --json >$T/g.json
	echo "| TX | gnio gen $spec | $(jf $T/g.json "'%.3f' % j['mpps']") | $(jf $T/g.json "j['sent']") sent | $(jf $T/g.json "j['mode']") |"
done
# DPDK testpmd (rxonly / txonly) on the same veth, when installed
if command -v dpdk-testpmd >/dev/null; then
	for vdev in "net_af_packet0,iface=$VA" "net_af_xdp0,iface=$VA,start_queue=0,queue_count=1"; do
		ip netns exec $NSA timeout -s INT 20 dpdk-testpmd --no-huge --no-pci -m 1024 -l 0-1 --vdev "$vdev" \
			--log-level=3 -- --forward-mode=rxonly --auto-start --nb-cores=1 --total-num-mbufs=16384 \
			--stats-period 1 >$T/tp.log 2>&1 &
		tp=$!
		sleep 4
		t0=$(date +%s.%N)
		ip netns exec $NSB "$GNIO" gen --wire $GEN:$VB --count $N --json >$T/g.json
		kill -INT $tp 2>/dev/null; wait $tp
		rx=$(grep -A1 "Accumulated forward" $T/tp.log | grep -o "RX-packets: *[0-9]*" | grep -o "[0-9]*$")
		echo "| RX | testpmd rxonly ${vdev%%,*} | $(/usr/bin/python3 -c "print('%.3f' % (${rx:-0}/$(jf $T/g.json "j['elapsed_s']")/1e6))") | ${rx:-0} / $(jf $T/g.json "j['sent']") | rate over the generator's send time (gen $(jf $T/g.json "'%.3f' % j['mpps']") Mpps)${rx:-; testpmd failed} |"
	done
fi
