#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio caps: --json validates against caps.schema.json; the sw wire on the CPU
# device supports GPU-visible RX/TX; verdicts are consistent with their axes;
# bad wire specs and devices fail with one line and the documented exit code.
. "$(dirname "$0")/lib.sh"

"$GNIO" caps --json --gpu cpu > "$TMP/caps.json"; rc=$?
check "caps --json --gpu cpu exits 0" [ $rc -eq 0 ]
check "caps --json validates against caps.schema.json" validate caps.schema.json "$TMP/caps.json"
feat() { jq_py "$TMP/caps.json" "[f['$2'] for f in d['features'] if f['name']=='$1'][0]"; }
check "default wire is sw:caps" [ "$(jq_py "$TMP/caps.json" 'd["wire"]["spec"]')" = sw:caps ]
check "sw/cpu: gpu_visible_rx supported" [ "$(feat gpu_visible_rx verdict)" = supported ]
check "sw/cpu: gpu_visible_tx supported" [ "$(feat gpu_visible_tx verdict)" = supported ]
check "sw/cpu: payload_in_gpu_memory refused by the gpu axis" [ "$(feat payload_in_gpu_memory axis_said_no)" = gpu ]
check "sw/cpu: hw_timestamp refused by the nic axis" [ "$(feat hw_timestamp axis_said_no)" = nic ]
# A verdict is supported exactly when both axes say so, and axis_said_no agrees.
consistent=$(jq_py "$TMP/caps.json" 'all((f["verdict"]=="supported")==(f["nic"]["verdict"]=="supported" and f["gpu"]["verdict"]=="supported") and ((f["axis_said_no"] is None)==(f["verdict"]=="supported")) for f in d["features"])')
check "every verdict agrees with its two axes" [ "$consistent" = True ]

# Steering: every action is reported per wire, with where it runs or why not.
check "sw: flow_rss supported (in the proxy)" [ "$(feat flow_rss verdict)" = supported ]
check "sw: flow_drop supported" [ "$(feat flow_drop verdict)" = supported ]
check "sw: flow_kernel refused by the nic axis" [ "$(feat flow_kernel axis_said_no)" = nic ]
check "sw: flow_kernel reason names the missing host stack" \
	grep -q "no host network stack" <<<"$(feat flow_kernel nic)"
check "sw: queries.flow_actions.kernel is not_supported" \
	[ "$(jq_py "$TMP/caps.json" 'd["wire"]["queries"]["flow_actions"]["kernel"]')" = not_supported ]
check "sw: queries.flow_actions.queue is supported" \
	[ "$(jq_py "$TMP/caps.json" 'd["wire"]["queries"]["flow_actions"]["queue"]')" = supported ]

# Default device: the best present; it must validate too.
"$GNIO" caps --json > "$TMP/caps2.json"; rc=$?
check "caps --json (best device) exits 0" [ $rc -eq 0 ]
check "best-device snapshot validates" validate caps.schema.json "$TMP/caps2.json"

# Human output names the axis that said no.
"$GNIO" caps --gpu cpu > "$TMP/caps.txt"
check "human caps says 'gpu said no' for payload_in_gpu_memory" grep -q 'payload_in_gpu_memory.*gpu said no' "$TMP/caps.txt"

# Failures: one line on stderr, non-zero exit, nothing on stdout.
"$GNIO" caps --wire nosuch:x > "$TMP/o" 2> "$TMP/e"; rc=$?
check "unknown wire kind exits 3 (got $rc)" [ $rc -eq 3 ]
check "unknown wire kind: one-line error" [ "$(wc -l < "$TMP/e")" -eq 1 -a ! -s "$TMP/o" ]
"$GNIO" caps --wire bogus > "$TMP/o" 2> "$TMP/e"; rc=$?
check "malformed spec exits 2 (got $rc)" [ $rc -eq 2 ]
check "malformed spec: one-line error" [ "$(wc -l < "$TMP/e")" -eq 1 ]
"$GNIO" caps --gpu not-a-bus-id > "$TMP/o" 2> "$TMP/e"; rc=$?
check "malformed --gpu exits non-zero (got $rc)" [ $rc -ne 0 ]
check "malformed --gpu: one-line error" [ "$(wc -l < "$TMP/e")" -eq 1 ]
finish
