#!/bin/bash
# SPDX-License-Identifier: MIT
# The workflow verbs on the CPU device over the sw wire: configure (--snapshot,
# --save and the run of what it saved),
# test (green, and the escalate path with a broken peer), rollback (clean and
# fail-closed), debug (ladder, capture, compare).
. "$(dirname "$0")/lib.sh"
cd "$TMP"

"$GNIO" configure --gpu cpu --snapshot snap.json --save run.yaml > cfg.txt; rc=$?
check "configure --gpu cpu exits 0" [ $rc -eq 0 ]
check "configure --save wrote a run config" grep -q '^wire: "sw:configure"' run.yaml
"$GNIO" run --config run.yaml --duration 1 --json > run.out 2> run.err; rc=$?
tail -n 1 run.out > run.json
check "gnio run --config of what configure saved exits 0 (got $rc)" [ $rc -eq 0 ]
check "... runs on the wire and device configure checked" \
	[ "$(jq_py run.json 'd["wire"] + " " + d["device"]')" = "sw:configure cpu" ]
check "... and balances" [ "$(jq_py run.json 'd["balanced"] and d["rx_packets"] > 0')" = True ]
check "snapshot has caps, allocation map, queue map, stop flag" \
	[ "$(jq_py snap.json '[k in d for k in ("caps","allocation_map","queue_attachment_map","stop_flag")]')" = "[True, True, True, True]" ]
check "snapshot caps validate" "$PY" -c 'import json,sys; json.dump(json.load(open("snap.json"))["caps"], open("c.json","w"))'
check "snapshot caps validate against caps.schema.json" validate caps.schema.json c.json
"$GNIO" configure --gpu cpu --wire afpacket:nosuch0 --save bad.yaml --json > cfg.json 2> cfg.err; rc=$?
check "missing interface: configure exits 3, fix layer environment" \
	[ $rc -eq 3 -a "$(jq_py cfg.json 'd["fix_layer"]')" = environment ]
check "missing interface: no run config saved, and it says so" [ ! -e bad.yaml -a "$(jq_py cfg.json 'd["saved"]')" = None ]
check "... on one stderr line naming the file" grep -q 'bad.yaml not written' cfg.err

"$GNIO" test --wire sw:t --gpu cpu --json > t.json; rc=$?
check "test --wire sw:t --gpu cpu is green (exit $rc)" [ $rc -eq 0 -a "$(jq_py t.json 'd["verdict"]')" = green ]
check "steps are smoke,burst,tx_smoke,multi_gpu,negative" \
	[ "$(jq_py t.json '",".join(s["name"] for s in d["iterations"][0]["steps"])')" = smoke,burst,tx_smoke,multi_gpu,negative ]
check "burst: 0 dropped" [ "$(jq_py t.json 'd["iterations"][0]["identity"]["queue"]["dropped_total"]')" = 0 ]

"$GNIO" test --wire sw:t --gpu cpu --loop 4 --break-peer --evidence ev --json > tb.json; rc=$?
check "broken peer: non-zero exit" [ $rc -ne 0 ]
check "broken peer: verdict escalate" [ "$(jq_py tb.json 'd["verdict"]')" = escalate ]
check "broken peer: stopped after two identical red iterations" \
	[ "$(jq_py tb.json '[i["result"] for i in d["iterations"]]')" = "['red', 'red']" ]
check "broken peer: identical tuples" [ "$(jq_py tb.json 'd["iterations"][0]["identity"]["tuple"]==d["iterations"][1]["identity"]["tuple"]')" = True ]
for f in test.json env.json caps.json log.txt nvidia-smi.txt; do
	check "evidence bundle has $f" [ -s "ev/$f" ]
done
check "bundle env.json validates" validate env.schema.json ev/env.json

"$GNIO" rollback --gpu cpu --json > rb.json; rc=$?
check "rollback exits 0" [ $rc -eq 0 ]
check "rollback ran five steps in order" \
	[ "$(jq_py rb.json '[s["step"][0] for s in d["rollback"]]')" = "['1', '2', '3', '4', '5']" ]
"$GNIO" rollback --gpu cpu --hang --deadline 200 --json > rh.json; rc=$?
check "hung kernel: exit 1, fail_closed" [ $rc -eq 1 -a "$(jq_py rh.json 'd["fail_closed"]')" = True ]
check "hung kernel: free refused with BAD_STATE" \
	[ "$(jq_py rh.json '[s["result"] for s in d["rollback"] if s["step"].startswith("check: free")][0]')" = GNIO_ERROR_BAD_STATE ]

"$GNIO" debug --gpu cpu --json > dc.json; rc=$?
check "debug --gpu cpu: no failing layer" [ $rc -eq 0 -a "$(jq_py dc.json 'd["first_failing_layer"]')" = None ]
"$GNIO" debug --json > dg.json; rc=$?
first=$(jq_py dg.json 'd["first_failing_layer"]')
built=$("$GNIO" version | grep -c 'with CUDA')
if [ "$built" = 0 ]; then
	check "debug on a build without CUDA names the build layer" [ "$first" = build -a $rc -eq 1 ]
elif ! ls /dev/nvidia0 >/dev/null 2>&1; then
	check "debug with no GPU names the driver layer" [ "$first" = driver -a $rc -eq 1 ]
else
	check "debug on a GPU machine: $first" [ $rc -eq 0 -o -n "$first" ]
fi
"$GNIO" debug --capture capA --gpu cpu > /dev/null && "$GNIO" debug --capture capB --gpu cpu > /dev/null
check "captures written" [ -s capA/capture.json -a -s capB/capture.json -a -f capA/log.txt ]
"$GNIO" debug --compare capA capB > cmp.txt; rc=$?
check "two captures of the same state compare equal" [ $rc -eq 0 ]
"$GNIO" debug --compare capA nosuchdir > /dev/null 2>&1; rc=$?
check "compare with a missing capture exits 2" [ $rc -eq 2 ]
finish
