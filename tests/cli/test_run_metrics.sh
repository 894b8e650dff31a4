#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run --metrics: while a run goes, curl of /metrics passes `promtool
# check metrics` and carries the documented families; once the run has ended
# (the JSON summary is out) the endpoint, held open by --metrics-hold, serves
# counters equal to the summary's: the sum of gnio_rx_packets_total is
# rx_packets, the drops match per reason, and for a sending app the TX
# counters match. A signal ends the hold; a bad or taken address is one line.
#
# How the last scrape is made exact: gnio run freezes the counters it reports
# (after the rollback, the final ones) and --metrics-hold keeps serving them
# after the summary is printed; the test scrapes once the JSON line is there.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
for t in curl promtool; do
	command -v $t > /dev/null || { echo "FAIL: $t not found (Debian packages curl, prometheus; scripts/bootstrap)"; exit 1; }
done

# start_run TAG ARGS...: gnio run in the background; waits for its metrics
# address (port 0: a free one) and sets ADDR and PID.
start_run() {
	local tag=$1
	shift
	"$GNIO" run --gpu cpu --metrics 127.0.0.1:0 --json "$@" > "$tag.out" 2> "$tag.err" &
	PID=$!
	ADDR=""
	for _ in $(seq 100); do
		ADDR=$(sed -n 's|^gnio: metrics at http://\(.*\)/metrics$|\1|p' "$tag.err")
		[ -n "$ADDR" ] && return 0
		kill -0 $PID 2> /dev/null || break
		sleep 0.05
	done
	cat "$tag.err"
	return 1
}
wait_json() { # wait_json TAG: until the summary's JSON line is on stdout
	# up to 90 s: a loaded 2-core CI machine runs the CPU device slowly
	for _ in $(seq 1800); do
		grep -q '^{' "$1.out" 2> /dev/null && return 0
		sleep 0.05
	done
	return 1
}
wait_live() { # wait_live: until a scrape carries the queues' series
	# docs/metrics.md: only gnio_build_info until the kernels run; bring-up
	# takes over a second under TSan on a loaded 2-core machine
	for _ in $(seq 600); do
		curl -sfS "http://$ADDR/metrics" 2> /dev/null | grep -q '^gnio_kernel_heartbeat_age_seconds{' && return 0
		sleep 0.05
	done
	return 1
}
# metric FILE NAME [LABEL-FILTER]: the sum of a family's samples
metric() {
	awk -v n="$2" -v f="${3:-}" '$1 ~ "^" n "({|$)" && index($1, f) { s += $NF } END { printf "%d\n", s }' "$1"
}

# --- two queues, count: live scrapes, then the frozen final counters ---------
# The drop reasons a summary lists (to count the series by).
"$GNIO" run --gpu cpu --duration 0.2 --json 2> /dev/null | tail -n 1 > r.json
nreasons=$(jq_py r.json 'len(d["dropped"])')
start_run cnt --queues 2 --rate 10000 --count 40000 --duration 60 --metrics-hold 30
check "gnio run --metrics 127.0.0.1:0 says where it serves (got '$ADDR')" [ -n "$ADDR" ]
case $ADDR in 127.0.0.1:[1-9]*) ok "bound on loopback with a picked port" ;; *) bad "address '$ADDR' is not 127.0.0.1:PORT" ;; esac
wait_live
check "the queues' series appear once the kernels run" [ $? -eq 0 ]
curl -sfS "http://$ADDR/metrics" > live1.txt; rc=$?
check "curl /metrics during the run exits 0 (got $rc)" [ $rc -eq 0 ]
promtool check metrics < live1.txt > pt1.txt 2>&1; rc=$?
check "promtool check metrics passes during the run (got $rc: $(head -c 200 pt1.txt))" [ $rc -eq 0 ]
for fam in gnio_build_info gnio_rx_packets_total gnio_rx_bytes_total gnio_rx_dropped_total \
	gnio_kernel_heartbeat_age_seconds; do
	check "live scrape has $fam" grep -q "^# TYPE $fam " live1.txt
done
check "no TX series for the count app" [ "$(grep -c '^gnio_tx_' live1.txt)" -eq 0 ]
check "no GPU utilization on the CPU device" [ "$(grep -c '^gnio_gpu_utilization_ratio' live1.txt)" -eq 0 ]
check "rx series per queue, labelled queue and wire" \
	[ "$(grep -c '^gnio_rx_packets_total{queue="[01]",wire="sw:demo"}' live1.txt)" -eq 2 ]
check "every drop reason of the summary is a series per queue ($nreasons reasons)" \
	[ "$(grep -c '^gnio_rx_dropped_total{' live1.txt)" -eq $((2 * nreasons)) ]
check "heartbeat age per queue, labelled gpu=cpu, alive (under 1 s)" \
	[ "$(awk '/^gnio_kernel_heartbeat_age_seconds\{queue="[01]",gpu="cpu"\}/ && $NF < 1' live1.txt | wc -l)" -eq 2 ]
check "build info: version, cuda and wires" grep -qE '^gnio_build_info\{version="[0-9.]+",cuda="(no|yes)",wires="sw,null[a-z,]*"\} 1$' live1.txt
live_rx1=$(metric live1.txt gnio_rx_packets_total)
sleep 0.6
curl -sfS "http://$ADDR/metrics" > live2.txt
live_rx2=$(metric live2.txt gnio_rx_packets_total)
check "counters move while the generator runs ($live_rx1 -> $live_rx2)" [ "$live_rx2" -gt "$live_rx1" ]

wait_json cnt
check "the run printed its summary" grep -q '^{' cnt.out
tail -n 1 cnt.out > cnt.json
curl -sfS "http://$ADDR/metrics" > final.txt; rc=$?
check "the endpoint still answers after the summary (held; got $rc)" [ $rc -eq 0 ]
promtool check metrics < final.txt > pt2.txt 2>&1; rc=$?
check "promtool check metrics passes on the final scrape (got $rc: $(head -c 200 pt2.txt))" [ $rc -eq 0 ]
json_rx=$(jq_py cnt.json 'd["rx_packets"]')
check "summary: rx_packets is 2 x 40000 ($json_rx)" [ "$json_rx" = 80000 ]
check "last scrape: sum of gnio_rx_packets_total == JSON rx_packets ($(metric final.txt gnio_rx_packets_total) vs $json_rx)" \
	[ "$(metric final.txt gnio_rx_packets_total)" = "$json_rx" ]
check "last scrape: gnio_rx_bytes_total == JSON rx_bytes" \
	[ "$(metric final.txt gnio_rx_bytes_total)" = "$(jq_py cnt.json 'd["rx_bytes"]')" ]
check "last scrape: sum of gnio_rx_dropped_total == JSON dropped_total" \
	[ "$(metric final.txt gnio_rx_dropped_total)" = "$(jq_py cnt.json 'd["dropped_total"]')" ]
for q in 0 1; do
	check "last scrape: queue $q's rx equals per_queue[$q].rx_packets" \
		[ "$(metric final.txt gnio_rx_packets_total "queue=\"$q\"")" = "$(jq_py cnt.json "d['per_queue'][$q]['rx_packets']")" ]
done
check "no heartbeat series once the kernels are gone" [ "$(grep -c '^gnio_kernel_heartbeat' final.txt)" -eq 0 ]
start=$(date +%s)
kill -TERM $PID
wait $PID; rc=$?
check "SIGTERM ends the hold: exit 0 (got $rc) well before its 30 s ($(($(date +%s) - start)) s)" \
	[ $rc -eq 0 -a $(($(date +%s) - start)) -lt 10 ]
curl -s "http://$ADDR/metrics" > /dev/null 2>&1; rc=$?
check "the endpoint is closed once gnio run exits (curl exit $rc)" [ $rc -ne 0 ]

# --- a sending app: TX counters match too; drops by reason --------------------
start_run echo --app echo --rate 20000 --count 30000 --duration 60 --metrics-hold 30
check "echo run started with metrics" [ -n "$ADDR" ]
wait_json echo
tail -n 1 echo.out > echo.json
curl -sfS "http://$ADDR/metrics" > echo.txt
kill -TERM $PID
wait $PID; rc=$?
check "echo run exits 0 (got $rc)" [ $rc -eq 0 ]
check "echo: promtool check metrics passes" promtool check metrics < echo.txt
for pair in gnio_tx_packets_total:tx_packets gnio_tx_errors_total:tx_errors gnio_tx_in_place_total:tx_in_place \
	gnio_tx_copies_total:tx_copies gnio_rx_packets_total:rx_packets; do
	m=${pair%%:*} k=${pair#*:}
	check "echo: $m == JSON $k ($(metric echo.txt $m) vs $(jq_py echo.json "d['$k']"))" \
		[ "$(metric echo.txt "$m")" = "$(jq_py echo.json "d['$k']")" ]
done
check "echo: it sent frames" [ "$(jq_py echo.json 'd["tx_packets"] > 0')" = True ]
for r in $(jq_py echo.json '" ".join(d["dropped"])'); do
	check "echo: gnio_rx_dropped_total{reason=$r} == JSON dropped.$r" \
		[ "$(metric echo.txt gnio_rx_dropped_total "reason=\"$r\"")" = "$(jq_py echo.json "d['dropped']['$r']")" ]
done

# --- the config file's metrics key, and errors --------------------------------
printf 'metrics:\n  listen: "127.0.0.1:0"\n  hold: 0\nlimits:\n  count: 1000\n' > m.yaml
"$GNIO" run --gpu cpu --config m.yaml --json > m.out 2> m.err; rc=$?
check "metrics.listen from a config file: exit 0 (got $rc)" [ $rc -eq 0 ]
check "... the run served on loopback" grep -q '^gnio: metrics at http://127.0.0.1:[1-9]' m.err
check "... and ends by itself with hold 0" [ "$(tail -n 1 m.out | head -c 1)" = "{" ]

one_line() { # one_line WANT-RC TEXT ARGS...
	local want=$1 text=$2
	shift 2
	"$GNIO" run --gpu cpu --duration 1 "$@" > o 2> e
	local rc=$?
	check "run $* exits $want (got $rc)" [ $rc -eq "$want" ]
	check "run $*: one line on stderr (got $(wc -l < e))" [ "$(wc -l < e)" -eq 1 ]
	check "run $*: names '$text': $(head -n 1 e)" grep -qF -- "$text" e
}
one_line 2 "--metrics: metrics address 'abc'" --metrics abc
one_line 2 "has no host" --metrics :9464
one_line 2 "--metrics-hold: a hold needs an endpoint" --metrics-hold 2
"$PY" -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' > port.txt &
HOLDER=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.05; done
one_line 3 "is already in use" --metrics "127.0.0.1:$(cat port.txt)"
kill $HOLDER 2> /dev/null
finish
