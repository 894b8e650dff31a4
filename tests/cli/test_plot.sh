#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cli/test_plot.sh - bench/plot.sh turns a results folder into
# tables.md and one non-empty PNG per input kind (matrix.jsonl,
# latency*.json, launch_patterns.json, peers.json, idle_cpu.jsonl), and fails clearly when
# there is nothing to read. The inputs below are made up (shapes only, not
# measurements); they follow what bench/matrix.sh, gnio_latency_bench
# --json, launch_patterns --json and bench/peers.sh write.
. "$(dirname "$0")/lib.sh"
PLOT="$GNIO_SRC/bench/plot.sh"
R="$TMP/results"
mkdir -p "$R"

run_json() { # run_json WIRE SIZE QUEUES MPPS GBPS: a gnio run --json object
	printf '{"wire":"%s:m","device":"cpu","device_name":"test device","rx_packets":1000,"offered":1000,' "$1"
	printf '"dropped_total":0,"frame_size":%s,"queues":%s,"mpps":%s,"mpps_steady":%s,"gbps_steady":%s,' \
		"$2" "$3" "$4" "$4" "$5"
	printf '"balanced":true}'
}
{
	for q in 1 2 4; do echo "{\"config\":\"null 64 $q cpu_gpu \",\"rc\":0,\"run\":$(run_json null 64 $q $((q * 10)) $((q * 5)))}"; done
	for s in 64 512 1500; do echo "{\"config\":\"sw $s 1 cpu_gpu \",\"rc\":0,\"run\":$(run_json sw $s 1 3 $((s / 100)))}"; done
	echo '{"config":"sw 9000 1 cpu_gpu ","rc":124,"run":null}' # a run that timed out: left out
} >"$R/matrix.jsonl"
cat >"$R/latency.json" <<'EOF'
latency: table lines come first; the JSON object is the last line
{"bench":"latency","ok":true,"device":"cpu","device_name":"test device","app":"echo","recv_scope":"block","size":64,"count":100,"samples":100,"lost":0,"min_us":5.0,"p50_us":8.0,"p90_us":9.5,"p99_us":14.0,"p999_us":20.0,"max_us":30.0}
EOF
cat >"$R/launch_patterns.json" <<'EOF'
{"bench":"launch_patterns","ok":true,"device":"0000:00:00.0","gpu_name":"test gpu","frames":4096,"size":64,"proto":"udp","reps":3,"patterns":[{"key":"persistent","name":"persistent kernel","burst":0,"mpps_median":40.0,"mpps_min":39.0,"mpps_max":41.0,"runs_mpps":[39.0,40.0,41.0],"launches_per_run":1,"setup_ms":5.0,"counts_equal":true,"why":""},{"key":"launch_per_frame","name":"launch per frame","burst":1,"mpps_median":0.4,"mpps_min":0.39,"mpps_max":0.41,"runs_mpps":[0.4],"launches_per_run":4096,"setup_ms":0,"counts_equal":true,"why":"","persistent_ratio":100.0,"target_ratio":10.0,"target_met":true},{"key":"graph_per_burst_32","name":"graph per burst","burst":32,"mpps_median":8.0,"mpps_min":7.5,"mpps_max":8.5,"runs_mpps":[8.0],"launches_per_run":128,"setup_ms":20.0,"counts_equal":true,"why":"","persistent_ratio":5.0,"target_ratio":2.0,"target_met":true}]}
EOF
cat >"$R/peers.json" <<'EOF'
{"bench":"peers","machine":"test machine","size":64,"dpdk":"DPDK 0.0","pinned":false,"loadavg_start":"1.0","loadavg_end":"1.0","rows":[{"contestant":"testpmd rxonly","who":"testpmd-rxonly","mode":"rx","socket":"afxdp","mpps":0.2,"mpps_runs":[0.2],"delivered_pct":80.0,"sender_bound":false},{"contestant":"gnio sink","who":"gnio-sink","mode":"rx","socket":"afxdp","mpps":0.3,"mpps_runs":[0.3],"delivered_pct":100.0,"sender_bound":true},{"contestant":"testpmd io","who":"testpmd-io","mode":"fwd","socket":"afxdp","mpps":null,"failed":["did not start"]}],"ratios":[{"mode":"rx","socket":"afxdp","gnio":"gnio sink","peer":"testpmd rxonly","ratio":1.5}],"search":[{"contestant":"testpmd rxonly","who":"testpmd-rxonly","mode":"rx","socket":"afxdp","trials":6,"trial_s":2.0,"resolution_pct":5.0,"ceiling_mpps":0.9,"ceiling_lost_pct":3.0,"sender_bound":false,"mpps":0.42,"failed_rates":[450000]},{"contestant":"gnio sink","who":"gnio-sink","mode":"rx","socket":"afxdp","trials":1,"trial_s":2.0,"resolution_pct":5.0,"ceiling_mpps":0.8,"ceiling_lost_pct":0.0,"sender_bound":true,"mpps":0.8,"failed_rates":[]}],"search_ratios":[{"mode":"rx","socket":"afxdp","gnio":"gnio sink","peer":"testpmd rxonly","ratio":1.9047,"gnio_sender_bound":true,"peer_sender_bound":false}]}
EOF
cat >"$R/idle_cpu.jsonl" <<'EOF'
{"poll": "adaptive", "rx_proxy_pct": 0.9, "tx_proxy_pct": 0.6, "proxies_pct": 1.5, "process_pct": 3.1, "window_s": 10.0, "rx_packets": 14, "tx_packets": 14, "balanced": true, "device": "cpu", "ok": true}
{"poll": "busy", "rx_proxy_pct": 100.2, "tx_proxy_pct": 100.4, "proxies_pct": 200.6, "process_pct": 300.0, "window_s": 10.0, "rx_packets": 14, "tx_packets": 14, "balanced": true, "device": "cpu", "ok": true}
EOF

"$PLOT" "$R" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
check "plot.sh exits 0 on a full results folder" [ "$rc" = 0 ]
for img in throughput_vs_size throughput_vs_queues latency_cdf launch_patterns peers idle_cpu; do
	f="$R/plots/$img.png"
	check "$img.png written and listed" grep -qx "$f" "$TMP/out"
	check "$img.png is a non-empty PNG" bash -c "[ -s '$f' ] && head -c 8 '$f' | od -An -c | tr -d ' ' | grep -q '211PNG'"
done
check "tables.md has the matrix, latency, idle CPU, launch and peers sections" \
	bash -c "grep -c '^## ' '$R/tables.md' | grep -qx 5"
check "tables.md: the idle rows, both poll modes" bash -c "grep -q '| adaptive | 0.9 | 0.6 | 1.5 |' '$R/tables.md' && grep -q '| busy | 100.2 |' '$R/tables.md'"
check "tables.md: the timed-out matrix run is left out" bash -c "! grep -q '| 9000 |' '$R/tables.md'"
check "tables.md: launch pattern ratio and target" grep -q "100.0× .*≥ 10× met" "$R/tables.md"
check "tables.md: a failed peer row says so" grep -q "testpmd io | failed" "$R/tables.md"
check "tables.md: the zero-loss rows and their ratio" bash -c "grep -q '| rx | afxdp | testpmd rxonly | 0.420 | 0.900 | 6 |  |' '$R/tables.md' && grep -q '| rx | afxdp | gnio sink | 0.800 | 0.800 | 1 | sender-bound |' '$R/tables.md' && grep -q '| gnio sink | testpmd rxonly | 1.90 |' '$R/tables.md'"

"$PLOT" "$R" --format svg --out "$TMP/svg" >/dev/null 2>&1
check "--format svg writes SVG" grep -q "<svg" "$TMP/svg/launch_patterns.svg"

mkdir "$TMP/empty"
"$PLOT" "$TMP/empty" >"$TMP/out" 2>&1
rc=$?
check "an empty folder: exit 1" [ "$rc" = 1 ]
check "an empty folder: says what it looked for" grep -q "nothing to read" "$TMP/out"

mkdir "$TMP/bad"
echo '{"config":"sw 64 1 cpu_gpu","rc":0,"run":' >"$TMP/bad/matrix.jsonl"
"$PLOT" "$TMP/bad" >"$TMP/out" 2>&1
rc=$?
check "a broken input: exit 1 naming the file" bash -c "[ $rc = 1 ] && grep -q 'matrix.jsonl' '$TMP/out'"
finish
