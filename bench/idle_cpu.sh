#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/idle_cpu.sh [BUILD_DIR] [--gpu BUS|cpu] [--window S] [--rate PPS] [--json]
#
# What an idle queue costs the host: `gnio run --app echo` on an sw wire fed
# at --rate frames per second (default 1), once with --poll adaptive and once
# with --poll busy, side by side. After a 2 s settle, the CPU time of each
# proxy thread (gnio-rx0, gnio-tx0: utime + stime from
# /proc/PID/task/TID/stat, the per-thread figures getrusage(RUSAGE_THREAD)
# reports) is read at the start and the end of a fixed window (default 10 s)
# and printed as a percentage of one core. The CPU device's kernel thread
# (--gpu cpu) is a spinning stand-in for the GPU and is not a proxy: it is
# shown apart. Each run's books must balance, or the script fails.
set -u -o pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	BUILD=$1
	shift
fi
GPU=auto WINDOW=10 RATE=1 JSON=0
while [ $# -gt 0 ]; do
	case "$1" in
	--gpu) GPU=$2; shift 2 ;;
	--window) WINDOW=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--json) JSON=1; shift ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "idle_cpu.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
GNIO=$BUILD/gnio
[ -x "$GNIO" ] || { echo "idle_cpu.sh: no gnio in $BUILD" >&2; exit 2; }
HZ=$(getconf CLK_TCK)
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
. "$SRC/bench/lib.sh"

measure() {
	local mode=$1
	"$GNIO" run --gpu "$GPU" --wire sw:idle --app echo --rate "$RATE" --poll "$mode" \
		--duration $((WINDOW + 4)) --quiet --json >"$TMPD/$mode.json" 2>"$TMPD/$mode.err" &
	local pid=$!
	sleep 2
	local rx0 tx0 all0 rx1 tx1 all1
	rx0=$(thread_ticks gnio-rx0 $pid) tx0=$(thread_ticks gnio-tx0 $pid)
	all0=$(awk '{sub(/.*\) /, ""); print $12 + $13}' /proc/$pid/stat)
	sleep "$WINDOW"
	rx1=$(thread_ticks gnio-rx0 $pid) tx1=$(thread_ticks gnio-tx0 $pid)
	all1=$(awk '{sub(/.*\) /, ""); print $12 + $13}' /proc/$pid/stat)
	wait $pid || { echo "idle_cpu.sh: gnio run --poll $mode failed:" >&2; cat "$TMPD/$mode.err" >&2; return 1; }
	python3 - "$mode" "$HZ" "$WINDOW" "$rx1" "$rx0" "$tx1" "$tx0" "$all1" "$all0" "$TMPD/$mode.json" <<'EOF'
import json, sys
mode, hz, win = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rx, tx, allp = [(float(sys.argv[i]) - float(sys.argv[i + 1])) / hz / win * 100 for i in (4, 6, 8)]
j = json.loads(open(sys.argv[10]).read().strip().splitlines()[-1])
ok = j["balanced"] and j["rx_packets"] > 0
print(json.dumps({"poll": mode, "rx_proxy_pct": round(rx, 2), "tx_proxy_pct": round(tx, 2),
                  "proxies_pct": round(rx + tx, 2), "process_pct": round(allp, 2), "window_s": win,
                  "rx_packets": j["rx_packets"], "tx_packets": j.get("tx_packets", 0),
                  "balanced": j["balanced"], "device": j["device"], "ok": ok}))
EOF
}

rc=0
for mode in adaptive busy; do
	measure $mode >"$TMPD/$mode.res" || rc=1
done
if [ $JSON = 1 ]; then
	cat "$TMPD"/adaptive.res "$TMPD"/busy.res
else
	printf 'idle queue (sw, echo at %s frame/s), CPU over %s s, %% of one core:\n' "$RATE" "$WINDOW"
	for mode in adaptive busy; do
		python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); print("  --poll %-8s RX proxy %6.2f  TX proxy %6.2f  both %6.2f  (whole process %6.1f; %d frames, balanced %s)" % (j["poll"], j["rx_proxy_pct"], j["tx_proxy_pct"], j["proxies_pct"], j["process_pct"], j["rx_packets"], j["balanced"]))' <"$TMPD/$mode.res" || rc=1
	done
fi
grep -q '"ok": false' "$TMPD"/*.res && rc=1
exit $rc
