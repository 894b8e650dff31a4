#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run: the main job's JSON summary reconciles exactly (offered ==
# rx_packets + dropped_total), classify's per-protocol counts sum to
# rx_packets, --count stops early with exact books, and bad calls exit
# non-zero with exactly one line on stderr naming the problem.
. "$(dirname "$0")/lib.sh"

last_json() { # last_json OUT -> writes the last stdout line to OUT.json
	tail -n 1 "$1" > "$1.json"
}

# --- the default job --------------------------------------------------------
"$GNIO" run --json --duration 2 > "$TMP/run" 2> "$TMP/run.err"; rc=$?
check "run --json --duration 2 exits 0 (got $rc)" [ $rc -eq 0 ]
last_json "$TMP/run"
check "last stdout line is one JSON object" jq_py "$TMP/run.json" 'isinstance(d, dict)'
keys_ok=$(jq_py "$TMP/run.json" 'all(k in d for k in ["wire","device","app","offered","rx_packets","rx_bytes","dropped","dropped_total","tx_packets","mpps"])')
check "summary has the documented keys" [ "$keys_ok" = True ]
check "rx_packets > 0" [ "$(jq_py "$TMP/run.json" 'd["rx_packets"] > 0')" = True ]
check "offered == rx_packets + dropped_total" \
	[ "$(jq_py "$TMP/run.json" 'd["offered"] == d["rx_packets"] + d["dropped_total"]')" = True ]
check "dropped_total == sum of dropped by reason" \
	[ "$(jq_py "$TMP/run.json" 'd["dropped_total"] == sum(d["dropped"].values())')" = True ]
check "drop reasons are named" \
	[ "$(jq_py "$TMP/run.json" 'all(r in d["dropped"] for r in ["ring_full","too_big","runt","wire_overflow","stopped"])')" = True ]
check "default app is count" [ "$(jq_py "$TMP/run.json" 'd["app"]')" = count ]
check "rx_bytes == rx_packets * 64 (default size)" \
	[ "$(jq_py "$TMP/run.json" 'd["rx_bytes"] == 64 * d["rx_packets"]')" = True ]
check "stderr says which device and why" grep -q '^gnio: device ' "$TMP/run.err"
check "defaults: ring auto is 16384 for one queue, batch auto" \
	[ "$(jq_py "$TMP/run.json" 'd["ring"] == 16384 and d["batch"] == "auto" and 1024 <= d["per_queue"][0]["batch_peak"] <= 8192')" = True ]

check "defaults: burst auto is 256 with a pinned pool" [ "$(jq_py "$TMP/run.json" 'd["burst"]')" = 256 ]

# --- ring and batch: auto by the queue count, or as given -------------------
"$GNIO" run --json --duration 1 --queues 2 > "$TMP/rq" 2> "$TMP/rq.err"; rc=$?
last_json "$TMP/rq"
check "two queues: ring auto is 4096 (rc $rc)" [ "$(jq_py "$TMP/rq.json" 'd["ring"]')" = 4096 ]
"$GNIO" run --json --duration 1 --ring 1024 --batch 64 > "$TMP/rb" 2> "$TMP/rb.err"; rc=$?
last_json "$TMP/rb"
check "--ring 1024 --batch 64: as given, a fixed batch (rc $rc)" \
	[ "$(jq_py "$TMP/rb.json" 'd["ring"] == 1024 and d["batch"] == 64 and d["per_queue"][0]["batch"] == 64 and d["per_queue"][0]["batch_peak"] == 64 and d["balanced"]')" = True ]
"$GNIO" run --json --duration 1 --ring auto --batch auto > "$TMP/ra" 2> "$TMP/ra.err"; rc=$?
last_json "$TMP/ra"
check "--ring auto --batch auto are the defaults (rc $rc)" \
	[ "$(jq_py "$TMP/ra.json" 'd["ring"] == 16384 and d["batch"] == "auto"')" = True ]
"$GNIO" run --json --duration 1 --burst 64 > "$TMP/rs" 2> "$TMP/rs.err"; rc=$?
last_json "$TMP/rs"
check "--burst 64: as given (rc $rc)" [ "$(jq_py "$TMP/rs.json" 'd["burst"] == 64 and d["balanced"]')" = True ]
"$GNIO" run --json --duration 1 --burst auto > "$TMP/rsa" 2> "$TMP/rsa.err"; rc=$?
last_json "$TMP/rsa"
check "--burst auto is the default (rc $rc)" [ "$(jq_py "$TMP/rsa.json" 'd["burst"]')" = 256 ]
"$GNIO" run --burst 0 --duration 1 > /dev/null 2> "$TMP/s0.err"; rc=$?
check "--burst 0: exit 2 (got $rc), one line naming --burst" \
	[ $rc -eq 2 -a "$(wc -l < "$TMP/s0.err")" -eq 1 ] && grep -q -- "--burst" "$TMP/s0.err"
"$GNIO" run --batch lots --duration 1 > /dev/null 2> "$TMP/bb.err"; rc=$?
check "--batch lots: exit 2 (got $rc), one line naming --batch and auto" \
	[ $rc -eq 2 -a "$(wc -l < "$TMP/bb.err")" -eq 1 ] && grep -q -- "--batch.*auto" "$TMP/bb.err"
"$GNIO" run --ring 0 --duration 1 > /dev/null 2> "$TMP/r0.err"; rc=$?
check "--ring 0: exit 2 (got $rc), one line naming --ring" \
	[ $rc -eq 2 -a "$(wc -l < "$TMP/r0.err")" -eq 1 ] && grep -q -- "--ring" "$TMP/r0.err"

# --- classify ---------------------------------------------------------------
"$GNIO" run --json --duration 2 --app classify --proto mix --size 128 > "$TMP/cls" 2> "$TMP/cls.err"; rc=$?
check "run --app classify --proto mix exits 0 (got $rc)" [ $rc -eq 0 ]
last_json "$TMP/cls"
check "classify: app is classify" [ "$(jq_py "$TMP/cls.json" 'd["app"]')" = classify ]
check "classify: rx_packets > 0" [ "$(jq_py "$TMP/cls.json" 'd["rx_packets"] > 0')" = True ]
check "classify: per-protocol counts sum to rx_packets" \
	[ "$(jq_py "$TMP/cls.json" 'sum(d["protocols"].values()) == d["rx_packets"]')" = True ]
check "classify: offered == rx_packets + dropped_total" \
	[ "$(jq_py "$TMP/cls.json" 'd["offered"] == d["rx_packets"] + d["dropped_total"]')" = True ]
check "classify: nothing malformed or unknown in a generated mix" \
	[ "$(jq_py "$TMP/cls.json" 'd["protocols"]["malformed"] + d["protocols"]["other"] + d["protocols"]["ipv6"] + d["protocols"]["ipv4_other"] == 0')" = True ]
# The mix cycles udp, dns, tcp-syn, tcp-ack, tcp-fin, http, icmp, arp: each
# single class within one of the others, tcp three times that.
balanced=$(jq_py "$TMP/cls.json" '(lambda p: (lambda one: max(one) - min(one) <= 1 and 3 * min(one) <= p["tcp"] <= 3 * max(one))([p[k] for k in ["udp","dns","http","icmp","arp"]]))(d["protocols"])')
check "classify: counts follow the mix (one each, tcp x3)" [ "$balanced" = True ]

# --- --count stops early with exact books ----------------------------------
start=$(date +%s)
"$GNIO" run --json --duration 60 --count 1000 > "$TMP/cnt" 2> "$TMP/cnt.err"; rc=$?
end=$(date +%s)
check "run --count 1000 exits 0 (got $rc)" [ $rc -eq 0 ]
last_json "$TMP/cnt"
check "--count stops before --duration" [ $((end - start)) -lt 60 ]
check "--count: offered == 1000" [ "$(jq_py "$TMP/cnt.json" 'd["offered"]')" = 1000 ]
check "--count: rx_packets == 1000" [ "$(jq_py "$TMP/cnt.json" 'd["rx_packets"]')" = 1000 ]
check "--count: dropped_total == 0" [ "$(jq_py "$TMP/cnt.json" 'd["dropped_total"]')" = 0 ]

# --- bad calls: non-zero, exactly one line on stderr naming the problem ------
bad_call() { # bad_call WORD-THAT-MUST-APPEAR ARGS...
	local word=$1; shift
	"$GNIO" run --json "$@" > "$TMP/o" 2> "$TMP/e"; local rc=$?
	check "run $* exits non-zero (got $rc)" [ $rc -ne 0 ]
	check "run $* prints exactly one line on stderr (got $(wc -l < "$TMP/e"))" [ "$(wc -l < "$TMP/e")" -eq 1 ]
	check "run $* names the problem ('$word')" grep -qF -- "$word" "$TMP/e"
	check "run $* prints nothing on stdout" [ ! -s "$TMP/o" ]
}
bad_call "nosuch" --duration 1 --wire nosuch:x
bad_call "0000:ff:00.0" --duration 1 --gpu 0000:ff:00.0
bad_call "--size" --duration 1 --size 1
bad_call "--size" --duration 1 --size 100000
bad_call "nope" --duration 1 --app nope
bad_call "--duration" --duration x
# SIGKILL mid-run, then the same run again (sw and pcap; the netdev wires in
# tests/integration/wirelib.sh): nothing left behind stops the rerun
"$GNIO" gen --wire "pcap:,out=$TMP/k9.pcap" --count 2000 --proto mix --size 128 > /dev/null 2>&1
for w in "sw:k9" "pcap:$TMP/k9.pcap"; do
	"$GNIO" run --wire "$w" --gpu cpu --duration 30 --quiet > /dev/null 2>&1 &
	kp=$!
	sleep 1
	kill -9 $kp; wait $kp 2>/dev/null
	"$GNIO" run --wire "$w" --gpu cpu --duration 1 --count 500 --json > "$TMP/k9.json" 2> "$TMP/k9.err"; rc=$?
	check "after SIGKILL on ${w%%:*}: the rerun exits 0 (got $rc: $(head -c 200 "$TMP/k9.err"))" [ $rc -eq 0 ]
	check "after SIGKILL on ${w%%:*}: the rerun's books balance, frames delivered" \
		[ "$(jq_py "$TMP/k9.json" 'd["balanced"] and d["rx_packets"] > 0')" = True ]
done
# --cpus: queue i's proxies pinned to the (i % n)-th CPU of the list
"$GNIO" run --gpu cpu --queues 2 --cpus 1,0 --duration 3 > /dev/null 2> "$TMP/cpus.err" &
rp=$!
# the proxies are up once the run says it is running (bring-up under TSan
# on a loaded 2-core machine can take longer than a fixed sleep)
for _ in $(seq 400); do grep -q ", running" "$TMP/cpus.err" 2>/dev/null && break; sleep 0.05; done
pinned() { # pinned THREAD-NAME: the CPUs it may run on
	for t in /proc/$rp/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$1" ] && awk '/^Cpus_allowed_list/ {print $2}' "$t/status"
	done
}
check "--cpus 1,0: gnio-rx0 on CPU 1, gnio-rx1 on CPU 0 (got '$(pinned gnio-rx0)' '$(pinned gnio-rx1)')" \
	[ "$(pinned gnio-rx0)" = 1 -a "$(pinned gnio-rx1)" = 0 ]
wait $rp
bad_call "a CPU list" --duration 1 --cpus 5-2
bad_call "a CPU list" --duration 1 --cpus 0,99999
# several devices: each once, at least one queue each, the CPU device alone
bad_call "listed twice" --duration 1 --gpu 0000:ff:00.0,0000:ff:00.0 --queues 2
bad_call "2 devices need at least as many queues" --duration 1 --gpu 0000:fe:00.0,0000:ff:00.0
bad_call "the CPU device runs alone" --duration 1 --gpu cpu,0000:ff:00.0 --queues 2
# per_device: one entry per device, its queues' counts
"$GNIO" run --gpu cpu --queues 2 --duration 1 --json > "$TMP/pd.json" 2>/dev/null
check "per_device: one device with both queues, counts summed" \
	[ "$(jq_py "$TMP/pd.json" 'len(d["per_device"]) == 1 and d["per_device"][0]["queues"] == 2 and d["per_device"][0]["rx_packets"] == d["rx_packets"] and all(q["device"] == "cpu" for q in d["per_queue"])')" = True ]
finish
