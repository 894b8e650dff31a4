#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/peers.sh [BUILD_DIR] - gnio beside DPDK testpmd on one veth pair, in
# one sitting, with one generator: receive (rx) and forward back out the
# same port (fwd), over AF_XDP and AF_PACKET.
#
#   netns A (device under test)  veth A <----> veth B  netns B (generator)
#
# Contestants on veth A, one at a time, each fed the same frames by
# `gnio gen` on veth B:
#   rx : testpmd rxonly (net_af_xdp / net_af_packet vdev), gnio sink (host
#        datapath, one thread), gnio run --app count (the pipeline: proxy
#        thread, ring, and the kernel on --gpu, default cpu)
#   fwd: testpmd io and testpmd macswap (--port-topology=loop: back out the
#        port it came in on), gnio run --app fwd (MACs swapped, sent back in
#        place through the pipeline)
# Rate = frames delivered / the generator's send time. Delivered is the
# contestant's own receive count (rx), or the frames that came back to veth
# B (its rx_packets counter, fwd). A row that delivered >= 99% of what was
# sent is marked sender-bound: the receiver kept up and its ceiling is higher.
# Rows run in turn, GNIO_PEERS_REPS times over; the median is reported, with
# gnio / testpmd ratios for the same mode and socket.
#
# GNIO_PEERS_SEARCH=1 adds an RFC 2544-style throughput search per row: the
# highest constant rate the generator offers (its --rate) at which the row
# loses no frame. One unpaced trial of GNIO_PEERS_FRAMES gives the ceiling
# (if it lost nothing, the row is sender-bound and the search stops there);
# then a binary search over [0, ceiling], each trial GNIO_PEERS_TRIAL_S
# seconds of frames to a freshly started contestant, until the interval is
# GNIO_PEERS_RES_PCT % of the ceiling. A trial passes when every frame sent
# was delivered (rx: the contestant's count; fwd: frames back at veth B) and
# the generator held the rate (>= 97 % of it; a shortfall caps the search).
# RFC 2544 asks for 60 s trials; these are shorter so the whole matrix fits
# in minutes, which the tables say. GNIO_PEERS_SEARCH_REPS searches each row
# that many times, in turn; the row reports the median.
#
# Output: a table on stdout; peers.json (bench/plot.py draws it) and peers.md
# (both from bench/peers_summary.py, over the records below),
# peers.jsonl (every run) and peers-search.jsonl (every search trial) in
# $GNIO_BENCH_OUT (default bench/results/<date>-<host>). Exit: 0 done; 1 a
# contestant failed to start or report; 77 skipped (not root, no ip, no
# dpdk-testpmd, no gnio): the reason is printed and written to peers.json.
#
# Env: GNIO (the gnio binary, default BUILD_DIR/gnio), GNIO_PEERS_FRAMES
# (1000000), GNIO_PEERS_SIZE (64), GNIO_PEERS_REPS (3), GNIO_PEERS_SOCKETS
# ("afxdp afpacket"), GNIO_PEERS_MODES ("rx fwd"), GNIO_PEERS_GEN (the
# generator's wire kind on veth B, default afxdp: the fastest sender here),
# GNIO_PEERS_GPU (gnio run's --gpu, default cpu), TESTPMD (default
# dpdk-testpmd), GNIO_PEERS_TESTPMD_MEM (MB for --no-huge, default 1024),
# GNIO_PEERS_TESTPMD_DESC (testpmd --rxd/--txd, default 4096),
# GNIO_PEERS_TESTPMD_EAL (more EAL options; scripts/dpdk-carry's env.sh sets
# it and TESTPMD for a machine without DPDK), GNIO_PEERS_PIN
# (1: the generator on CPU 0 and the contestant on CPU 1, one core each;
# default 0: the scheduler places every thread), GNIO_PEERS_SEARCH (1: the
# zero-loss search above; default 0), GNIO_PEERS_TRIAL_S (2),
# GNIO_PEERS_RES_PCT (5), GNIO_PEERS_SEARCH_REPS (1), GNIO_PEERS_ROUNDS (1: 0 skips the fixed-count
# rounds, for a search alone), GNIO_PEERS_GENS (1: generator processes run
# side by side, each with its share of the frames and the rate, so that the
# sender outruns the receiver; above 1 the generator must be afpacket, whose
# sockets share veth B, where the afxdp wire allows one gnio process per
# interface), GNIO_PEERS_GEN_CPUS and GNIO_PEERS_DUT_CPUS (with GNIO_PEERS_PIN=1:
# the CPU lists, default 0 and 1; generator i takes the i-th CPU of its list,
# round robin), GNIO_PEERS_GNIO_ARGS (more options for gnio run, e.g.
# "--poll busy"), GNIO_PEERS_WHO_RX / GNIO_PEERS_WHO_FWD (the contestants
# of each mode, default all three), GNIO_PEERS_KEEP_DUT (1: keep each
# contestant's output in $GNIO_BENCH_OUT/dut-*.txt), GNIO_PEERS_QUEUES (1:
# queues on each end of the pair and per contestant; above 1 the kernel's
# delivery is spread over that many sockets: testpmd gets that many queues
# and forwarding lcores, gnio run --queues N, and the generators send
# 16 flows per queue, which veth B's transmit hash spreads over its queues;
# gnio sink takes one queue and sits such a run out, and so does afxdp:
# DPDK's net_af_xdp opens one queue on veth).
#
# Each run's JSON line carries the contestant's own loss counters
# (dut_drops: gnio's named drop reasons, kernel_tx_again and tx_errors;
# testpmd's RX-dropped and TX-dropped), so a row that lost says where.
set -u -o pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
GNIO=${GNIO:-$BUILD/gnio}
N=${GNIO_PEERS_FRAMES:-1000000}
SIZE=${GNIO_PEERS_SIZE:-64}
REPS=${GNIO_PEERS_REPS:-3}
SOCKETS=${GNIO_PEERS_SOCKETS:-"afxdp afpacket"}
MODES=${GNIO_PEERS_MODES:-"rx fwd"}
GEN_KIND=${GNIO_PEERS_GEN:-afxdp}
DUT_GPU=${GNIO_PEERS_GPU:-cpu}
TESTPMD=${TESTPMD:-dpdk-testpmd}
TP_MEM=${GNIO_PEERS_TESTPMD_MEM:-1024}
TP_DESC=${GNIO_PEERS_TESTPMD_DESC:-4096} # RX/TX descriptors: gnio's default ring is 4096
TP_EAL=${GNIO_PEERS_TESTPMD_EAL:-} # more EAL options (scripts/dpdk-carry: -d its drivers)
PIN=${GNIO_PEERS_PIN:-0}
SEARCH=${GNIO_PEERS_SEARCH:-0}
TRIAL_S=${GNIO_PEERS_TRIAL_S:-2}
RES_PCT=${GNIO_PEERS_RES_PCT:-5}
SEARCH_REPS=${GNIO_PEERS_SEARCH_REPS:-1}
ROUNDS=${GNIO_PEERS_ROUNDS:-1}
GENS=${GNIO_PEERS_GENS:-1}
GEN_CPUS=${GNIO_PEERS_GEN_CPUS:-0}
DUT_CPUS=${GNIO_PEERS_DUT_CPUS:-1}
GNIO_ARGS=${GNIO_PEERS_GNIO_ARGS:-}
QUEUES=${GNIO_PEERS_QUEUES:-1}
# testpmd's main lcore and one per queue, on any CPU (more lcores than CPUs
# is allowed this way)
DUT_PIN="" TP_CORES="--lcores (0-$QUEUES)@(0-$(($(nproc) - 1)))"
if [ "$PIN" = 1 ]; then
	# The generators on GEN_CPUS, the contestant (all its threads;
	# testpmd's main and forwarding lcores) on DUT_CPUS.
	DUT_PIN="taskset -c $DUT_CPUS" TP_CORES="--lcores (0-$QUEUES)@($DUT_CPUS)"
fi
# gen_pin I: the taskset prefix of generator I (none unpinned).
gen_pin() {
	[ "$PIN" = 1 ] || return 0
	local cpus
	IFS=, read -r -a cpus <<<"$GEN_CPUS"
	echo "taskset -c ${cpus[$(($1 % ${#cpus[@]}))]}"
}
OUT=${GNIO_BENCH_OUT:-$SRC/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-$(uname -n)}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

skip() {
	echo "peers: skipped: $*"
	printf '{"bench":"peers","skipped":true,"reason":"%s"}\n' "$*" >"$OUT/peers.json"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth, AF_XDP)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v "$TESTPMD" >/dev/null || skip "no $TESTPMD (Debian: dpdk-dev; scripts/bootstrap --bench installs it)"
[ -x "$GNIO" ] || skip "no gnio binary at $GNIO (build first, or set GNIO)"
if ! [ "$QUEUES" -ge 1 ] 2>/dev/null; then
	echo "peers: GNIO_PEERS_QUEUES=$QUEUES: give a count of 1 or more" >&2
	exit 2
fi
if ! [ "$GENS" -ge 1 ] 2>/dev/null || { [ "$GENS" -gt 1 ] && [ "$GEN_KIND" != afpacket ]; }; then
	echo "peers: GNIO_PEERS_GENS=$GENS: give 1, or more with GNIO_PEERS_GEN=afpacket (the afxdp wire" \
		"allows one gnio process per interface)" >&2
	exit 2
fi

NSA=gpA$$ NSB=gpB$$ VA=gpa$$ VB=gpb$$
T=$(mktemp -d)
DUT_PID=
cleanup() {
	[ -n "$DUT_PID" ] && kill -INT "$DUT_PID" 2>/dev/null && sleep 1 && kill -KILL "$DUT_PID" 2>/dev/null
	ip netns del $NSA 2>/dev/null
	ip netns del $NSB 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ip netns add $NSA && ip netns add $NSB || skip "cannot create network namespaces"
ip link add $VA numtxqueues "$QUEUES" numrxqueues "$QUEUES" type veth \
	peer name $VB numtxqueues "$QUEUES" numrxqueues "$QUEUES" || skip "cannot create a veth pair"
ip link set $VA netns $NSA && ip link set $VB netns $NSB || exit 1
for n in $NSA:$VA $NSB:$VB; do
	# No IPv6: nothing but the generator's frames crosses the pair.
	ip netns exec ${n%%:*} sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n ${n%%:*} link set ${n##*:} up
done

vb_rx() { ip netns exec $NSB cat /sys/class/net/$VB/statistics/rx_packets; }

# wait_for PATTERN SECONDS: 0 once PATTERN appears in the contestant's
# stdout or stderr (gnio run says it is running on stderr, testpmd on stdout).
wait_for() {
	local i
	for i in $(seq $(($2 * 20))); do
		grep -q "$1" "$T/dut.out" "$T/dut.err" 2>/dev/null && return 0
		kill -0 "$DUT_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# The command line of a contestant on veth A: its kind, mode and socket.
dut_cmd() {
	local who=$1 mode=$2 sock=$3 vdev fwd
	case $who in
	testpmd-*)
		if [ "$sock" = afxdp ]; then
			vdev="net_af_xdp0,iface=$VA,start_queue=0,queue_count=$QUEUES"
		else
			# The ring gnio's afpacket wire has (16 MiB: 8192 frames of 2 KiB);
			# the vdev's default is 512 frames.
			vdev="net_af_packet0,iface=$VA,blocksz=4096,framesz=2048,framecnt=8192,qpairs=$QUEUES"
		fi
		fwd=${who#testpmd-}
		# --no-huge: no hugepages needed; --no-shconf: no shared runtime files;
		# --stats-period keeps it running until SIGINT without a terminal.
		echo "$TESTPMD --no-huge --no-shconf --no-pci -m $TP_MEM $TP_CORES $TP_EAL --vdev $vdev --log-level=3" \
			"-- --forward-mode=$fwd --port-topology=loop --auto-start --nb-cores=$QUEUES --rxq=$QUEUES --txq=$QUEUES" \
			"--rxd=$TP_DESC --txd=$TP_DESC --total-num-mbufs=$((16384 * QUEUES)) --stats-period 1"
		;;
	gnio-sink) echo "$DUT_PIN $GNIO sink --wire $sock:$VA --duration 0 --json" ;;
	gnio-run) echo "$DUT_PIN $GNIO run --wire $sock:$VA --gpu $DUT_GPU --queues $QUEUES --app $([ "$mode" = rx ] && echo count || echo fwd) --duration 0 --json${GNIO_ARGS:+ $GNIO_ARGS}" ;;
	esac
}

# What each contestant prints once it is receiving.
ready_mark() {
	case $1 in
	testpmd-*) echo "Port statistics" ;;
	gnio-sink) echo "gnio sink: ready" ;;
	gnio-run) echo "running" ;;
	esac
}

# gen_all RATE COUNT: GENS generators side by side on veth B, each with its
# share of COUNT frames and RATE frames/s (0: unpaced) and its own run of
# sequence numbers; generator I writes $T/gen.I.out. Returns when all ended.
gen_all() {
	local rate=$1 count=$2 i c r first=0 pids=()
	rm -f "$T"/gen.*.out "$T"/gen.*.err
	for i in $(seq 0 $((GENS - 1))); do
		c=$((count / GENS + (i < count % GENS ? 1 : 0)))
		r=$((rate / GENS + (rate && i < rate % GENS ? 1 : 0)))
		# shellcheck disable=SC2046
		ip netns exec $NSB $(gen_pin "$i") "$GNIO" gen --wire "$GEN_KIND:$VB" --count "$c" --rate "$r" --size "$SIZE" \
			--first-seq "$first" $FLOWS --json >"$T/gen.$i.out" 2>"$T/gen.$i.err" &
		pids+=($!)
		first=$((first + c))
	done
	wait "${pids[@]}"
}

# run_one WHO MODE SOCK REP [RATE COUNT JSONL]: start the contestant, feed
# it COUNT frames (default N) at RATE frames/s (default 0: as fast as the
# generator goes), stop it, and append one JSON line to JSONL (default
# $T/runs.jsonl).
run_one() {
	local who=$1 mode=$2 sock=$3 rep=$4 rate=${5:-0} count=${6:-$N} jsonl=${7:-$T/runs.jsonl} cmd b0 b1 rx tx
	cmd=$(dut_cmd "$who" "$mode" "$sock")
	: >"$T/dut.out"
	: >"$T/dut.err"
	# shellcheck disable=SC2086
	ip netns exec $NSA timeout -s INT 600 $cmd >"$T/dut.out" 2>"$T/dut.err" &
	DUT_PID=$!
	if ! wait_for "$(ready_mark "$who")" 30; then
		echo "peers: $who ($mode, $sock) did not start; its output:" >&2
		tail -n 5 "$T/dut.out" "$T/dut.err" >&2
		kill -INT $DUT_PID 2>/dev/null
		wait $DUT_PID 2>/dev/null
		DUT_PID=
		echo "{\"who\":\"$who\",\"mode\":\"$mode\",\"socket\":\"$sock\",\"rep\":$rep,\"rate_pps\":$rate,\"failed\":\"did not start\"}" >>"$jsonl"
		return 1
	fi
	sleep 0.5
	b0=$(vb_rx)
	gen_all "$rate" "$count"
	sleep 1 # frames still in flight
	kill -INT $DUT_PID 2>/dev/null
	wait $DUT_PID 2>/dev/null
	DUT_PID=
	b1=$(vb_rx)
	[ "${GNIO_PEERS_KEEP_DUT:-0}" = 1 ] && cat "$T/dut.out" "$T/dut.err" >"$OUT/dut-$who-$mode-$sock-$rep-$rate.txt"
	case $who in
	testpmd-*)
		rx=$(grep -A1 "Accumulated forward" "$T/dut.out" | grep -o "RX-packets: *[0-9]*" | grep -o "[0-9]*$")
		tx=$(grep -A2 "Accumulated forward" "$T/dut.out" | grep -o "TX-packets: *[0-9]*" | grep -o "[0-9]*$")
		;;
	*)
		rx=$("$PY" -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["rx_packets"])' <"$T/dut.out" 2>/dev/null)
		tx=$("$PY" -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1]).get("tx_packets", 0))' <"$T/dut.out" 2>/dev/null)
		;;
	esac
	"$PY" - "$who" "$mode" "$sock" "$rep" "${rx:-}" "${tx:-}" "$((b1 - b0))" "$T" "$cmd" "$rate" "$GENS" >>"$jsonl" <<'PY'
import json, re, sys
who, mode, sock, rep, rx, tx, back, tdir, cmd, rate, gens = sys.argv[1:12]
row = {"who": who, "mode": mode, "socket": sock, "rep": int(rep), "cmd": cmd, "rate_pps": int(rate), "generators": int(gens)}
try:
    each = [json.loads([l for l in open("%s/gen.%d.out" % (tdir, i)) if l.startswith("{")][-1]) for i in range(int(gens))]
except Exception as e:
    row["failed"] = "a generator gave no JSON: %s" % e
    print(json.dumps(row)); sys.exit()
# The generators together: every frame sent, over the longest send time.
gen = {"sent": sum(g["sent"] for g in each), "elapsed_s": max(g["elapsed_s"] for g in each)}
gen["mpps"] = gen["sent"] / gen["elapsed_s"] / 1e6 if gen["elapsed_s"] > 0 else 0.0
if rx == "":
    row["failed"] = "no receive count in the contestant's output"
    print(json.dumps(row)); sys.exit()
delivered = int(rx) if mode == "rx" else int(back)
row.update(offered=gen["sent"], gen_elapsed_s=gen["elapsed_s"], gen_mpps=gen["mpps"], rx_packets=int(rx),
           tx_packets=int(tx or 0), back_at_generator=int(back), delivered=delivered,
           mpps=delivered / gen["elapsed_s"] / 1e6 if gen["elapsed_s"] > 0 else 0.0,
           lost=gen["sent"] - delivered)
# The search's rule, decided here once: "short" when the generator fell
# below 97 % of the rate asked (nothing higher can be offered), else "pass"
# when nothing was lost, else "loss".
row["achieved_pps"] = int(gen["sent"] / gen["elapsed_s"]) if gen["elapsed_s"] > 0 else 0
short = int(rate) and row["achieved_pps"] < 0.97 * int(rate)
row["verdict"] = "short" if short else "pass" if row["lost"] == 0 else "loss"
# Where the contestant says it lost frames (nonzero counters only).
out = open(tdir + "/dut.out", errors="replace").read()
drops = {}
if who.startswith("testpmd"):
    acc = out[out.rfind("Accumulated forward"):]
    for name in ("RX-dropped", "TX-dropped"):
        m = re.search(name + r": *(\d+)", acc)
        if m and int(m.group(1)):
            drops[name] = int(m.group(1))
else:
    try:
        j = json.loads(out.strip().splitlines()[-1])
        drops = {k: v for k, v in j.get("dropped", {}).items() if v}
        drops.update({k: j[k] for k in ("kernel_tx_again", "tx_errors") if j.get(k)})
    except (ValueError, IndexError):
        pass
row["dut_drops"] = drops
print(json.dumps(row))
PY
	tail -1 "$jsonl" | grep -q '"failed"' && return 1
	return 0
}

# trial_verdict JSONL: the last trial's verdict (run_one's: pass, loss or
# short) and the generator's achieved rate, or "failed 0".
trial_verdict() {
	"$PY" -c 'import json, sys; r = json.loads(sys.argv[1]); print(r.get("verdict", "failed"), r.get("achieved_pps", 0))' \
		"$(tail -1 "$1")"
}

# search_row WHO MODE SOCK REP: the RFC 2544-style search of the header;
# every trial goes to $T/search.jsonl, the summary below reads them.
search_row() {
	local who=$1 mode=$2 sock=$3 rep=$4 j=$T/search.jsonl verdict pps ceil lo=0 hi mid step
	printf 'peers: search %s: %-15s %-3s %-8s unpaced %d frames: ' "$rep" "$who" "$mode" "$sock" "$N"
	run_one "$who" "$mode" "$sock" "$rep" 0 "$N" "$j"
	read -r verdict pps <<<"$(trial_verdict "$j")"
	echo "$verdict at $pps fps"
	case $verdict in
	failed) return 1 ;;
	pass) return 0 ;; # no loss at the generator's ceiling: sender-bound
	esac
	ceil=$pps hi=$pps step=$((pps * RES_PCT / 100))
	while [ $((hi - lo)) -gt "$step" ]; do
		mid=$(((lo + hi) / 2))
		count=$((mid * TRIAL_S))
		[ "$count" -lt 1000 ] && count=1000
		printf 'peers: search %s: %-15s %-3s %-8s %10d fps, %d frames: ' "$rep" "$who" "$mode" "$sock" "$mid" "$count"
		run_one "$who" "$mode" "$sock" "$rep" "$mid" "$count" "$j"
		read -r verdict pps <<<"$(trial_verdict "$j")"
		echo "$verdict ($pps fps sent)"
		case $verdict in
		pass) lo=$mid ;;
		loss | short) hi=$mid ;; # short: no higher rate can be offered
		failed) return 1 ;;
		esac
	done
	echo "peers: search $rep: $who $mode $sock: zero loss up to $lo fps (ceiling $ceil, resolution $step)"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg) # other work on the machine, for the record
WHO_rx=${GNIO_PEERS_WHO_RX:-"testpmd-rxonly gnio-sink gnio-run"}
FLOWS=""
if [ "$QUEUES" -gt 1 ]; then
	FLOWS="--flows $((16 * QUEUES))"
	if [ "$WHO_rx" != "${WHO_rx/gnio-sink/}" ]; then
		WHO_rx=${WHO_rx/gnio-sink/}
		echo "peers: $QUEUES queues: gnio sink takes one queue, so it sits this run out"
	fi
	# DPDK's net_af_xdp takes its queue limit from the interface's combined
	# channels (ethtool), which veth does not report: it opens one queue.
	if [ "$SOCKETS" != "${SOCKETS/afxdp/}" ]; then
		SOCKETS=${SOCKETS/afxdp/}
		echo "peers: $QUEUES queues: testpmd's net_af_xdp opens one queue on veth (no combined channels), so afxdp sits this run out"
	fi
fi
WHO_fwd=${GNIO_PEERS_WHO_FWD:-"testpmd-io testpmd-macswap gnio-run"}
: >"$T/runs.jsonl"
: >"$T/search.jsonl"
FAILED=0
[ "$ROUNDS" = 0 ] && REPS=0
echo "peers: $N frames of $SIZE B per run from $GENS gnio gen ($GEN_KIND) on a veth pair of $QUEUES queue(s); modes: $MODES;" \
	"sockets: $SOCKETS; $REPS rounds; zero-loss searches: $([ "$SEARCH" = 1 ] && echo "$SEARCH_REPS" || echo 0); gnio run on --gpu $DUT_GPU; pinned: $PIN"
for rep in $(seq "$REPS"); do
	for mode in $MODES; do
		eval "whos=\$WHO_$mode"
		for sock in $SOCKETS; do
			for who in $whos; do
				printf 'peers: round %s: %-15s %-3s %-8s ' "$rep" "$who" "$mode" "$sock"
				if run_one "$who" "$mode" "$sock" "$rep"; then
					"$PY" -c 'import json,sys; r=json.loads(sys.argv[1]); print("%.3f Mpps (%d of %d)" % (r["mpps"], r["delivered"], r["offered"]))' "$(tail -1 "$T/runs.jsonl")"
				else
					echo "FAILED"
					FAILED=1
				fi
			done
		done
	done
done
[ "$SEARCH" = 1 ] || SEARCH_REPS=0
for rep in $(seq "$SEARCH_REPS"); do
	for mode in $MODES; do
		eval "whos=\$WHO_$mode"
		for sock in $SOCKETS; do
			for who in $whos; do
				search_row "$who" "$mode" "$sock" "$rep" || FAILED=1
			done
		done
	done
done
cp "$T/runs.jsonl" "$OUT/peers.jsonl"
cp "$T/search.jsonl" "$OUT/peers-search.jsonl"

"$PY" "$SRC/bench/peers_summary.py" "$OUT" "$N" "$SIZE" "$REPS" "$GEN_KIND" "$DUT_GPU" "$("$TESTPMD" -v 2>&1 | grep -o 'DPDK [0-9.]*' | head -1)" \
	"$PIN" "$LOAD0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$TRIAL_S" "$RES_PCT" "$GENS" "$QUEUES"
exit $FAILED
