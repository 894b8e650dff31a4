#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cost.sh [BUILD_DIR] [--gpu BUS|cpu] [--soak S] [--rate PPS] [--json]
#
# What gnio costs the host, from /proc while `gnio run` works:
#  1. memory per queue: resident memory (VmRSS) of `gnio run --queues N`,
#     N = 1, 2, 4, 8, after 2 s; the slope is the cost of one more queue
#     (ring, pool, proxy thread stacks, the kernel's buffers);
#  2. proxy CPU per frame: the RX proxy thread's CPU time (utime + stime of
#     gnio-rx*, /proc/PID/task/TID/stat) over a 5 s window with the
#     generator at --rate frames per second (default 0: as fast as the
#     kernel takes them), divided by the frames delivered in it (the live
#     counters). At full load it is an upper bound: it includes the polls
#     that find the ring full;
#  3. growth: VmRSS sampled every 10 s through a --soak S run (default 600);
#     the script fails when the last sample is more than 1 MiB above the one
#     taken at 30 s (after the warm-up), or when a run's books do not balance.
# Prints one line per figure, or one JSON object with --json.
set -u -o pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	BUILD=$1
	shift
fi
GPU=auto SOAK=600 RATE=0 JSON=0
while [ $# -gt 0 ]; do
	case "$1" in
	--gpu) GPU=$2; shift 2 ;;
	--soak) SOAK=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--json) JSON=1; shift ;;
	-h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "cost.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
GNIO=$BUILD/gnio
[ -x "$GNIO" ] || { echo "cost.sh: no gnio in $BUILD" >&2; exit 2; }
HZ=$(getconf CLK_TCK)
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"; [ -n "${RP:-}" ] && kill "$RP" 2>/dev/null' EXIT
FAIL=0
. "$SRC/bench/lib.sh"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# the run's live line: "[  2.0s] ... | kernel N pkts | ..."
kernel_pkts() { grep -o 'kernel [0-9]* pkts' "$1" | tail -1 | awk '{print $2}'; }
balanced() { tail -1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["balanced"])' 2>/dev/null; }

start() { # start TAG ARGS...: gnio run in the background, wait for its first live line
	local tag=$1
	shift
	"$GNIO" run --gpu "$GPU" --json "$@" >"$TMPD/$tag.json" 2>"$TMPD/$tag.err" &
	RP=$!
	for _ in $(seq 100); do
		grep -q '^\[ *[0-9.]*s\]' "$TMPD/$tag.err" 2>/dev/null && return 0
		kill -0 $RP 2>/dev/null || break
		sleep 0.1
	done
	echo "cost.sh: gnio run $* did not start: $(tail -2 "$TMPD/$tag.err")" >&2
	exit 1
}
finish_run() { # finish_run TAG
	wait "$RP"
	RP=""
	[ "$(balanced "$TMPD/$1.json")" = True ] || { echo "cost.sh: $1: books do not balance" >&2; FAIL=1; }
}

# 1. memory per queue
declare -A MEM
for q in 1 2 4 8; do
	start "mem$q" --queues $q --rate 100000 --duration 5
	sleep 2
	MEM[$q]=$(rss_kib $RP)
	finish_run "mem$q"
done
per_queue=$(( (MEM[8] - MEM[1]) / 7 ))

# 2. proxy CPU per frame over a 5 s window
start cpu --queues 1 --rate "$RATE" --duration 9
sleep 2
t0=$(thread_ticks 'gnio-rx*' $RP) p0=$(kernel_pkts "$TMPD/cpu.err")
sleep 5
t1=$(thread_ticks 'gnio-rx*' $RP) p1=$(kernel_pkts "$TMPD/cpu.err")
finish_run cpu
frames=$((p1 - p0))
ns_per_frame=$(python3 -c "print(round(($t1 - $t0) / $HZ * 1e9 / max($frames, 1), 1))")
busy_pct=$(python3 -c "print(round(($t1 - $t0) / $HZ / 5 * 100, 1))")

# 3. growth through a soak
start soak --queues 1 --rate 100000 --duration "$SOAK"
: >"$TMPD/soak.txt"
t=0 at30=0
while kill -0 $RP 2>/dev/null; do
	sleep 10
	t=$((t + 10))
	r=$(rss_kib $RP)
	[ "$r" -gt 0 ] || break
	echo "$t $r" >>"$TMPD/soak.txt"
	[ $t -eq 30 ] && at30=$r
done
finish_run soak
last=$(tail -1 "$TMPD/soak.txt" | awk '{print $2}')
growth=0 # a soak too short for the 30 s sample measures no growth
[ "$at30" -gt 0 ] && growth=$(( ${last:-0} - at30 ))
[ "$at30" -gt 0 ] && [ "$growth" -gt 1024 ] && { echo "cost.sh: VmRSS grew by $growth KiB after the warm-up" >&2; FAIL=1; }

if [ $JSON = 1 ]; then
	python3 - "$TMPD/soak.txt" <<PYEOF
import json, sys
soak = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
print(json.dumps({"gpu": "$GPU", "vmrss_kib_by_queues": {"1": ${MEM[1]}, "2": ${MEM[2]}, "4": ${MEM[4]}, "8": ${MEM[8]}},
                  "kib_per_queue": $per_queue, "rx_proxy_ns_per_frame": $ns_per_frame, "rx_proxy_busy_pct": $busy_pct,
                  "frames_in_window": $frames, "soak_s": $SOAK, "vmrss_at_30s_kib": $at30,
                  "vmrss_last_kib": ${last:-0}, "growth_kib": $growth, "soak_samples": soak}))
PYEOF
else
	echo "VmRSS by queues (KiB): 1=${MEM[1]} 2=${MEM[2]} 4=${MEM[4]} 8=${MEM[8]}; per added queue $per_queue KiB"
	echo "RX proxy: $ns_per_frame ns of CPU per frame ($frames frames in 5 s at --rate $RATE; the proxy used $busy_pct % of a core)"
	echo "soak ${SOAK} s: VmRSS ${at30} KiB at 30 s, ${last:-0} KiB at the end: growth $growth KiB"
fi
exit $FAIL
