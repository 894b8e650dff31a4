#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run --app verify: every frame the kernel sees is checked (stamp,
# checksums, sequence). At full speed nothing fails and nothing is lost; with
# a consumer slower than the wire (--hold-us, the kernel holds each batch and
# checks it again) frames are dropped, every drop is a gap between the stamps
# the kernel saw (unaccounted 0), and no held frame changed. --hold-us
# belongs to verify alone.
. "$(dirname "$0")/lib.sh"

run_verify() { # run_verify TAG ARGS...: gnio run --app verify on the CPU device
	local tag=$1; shift
	"$GNIO" run --gpu cpu --app verify --json "$@" > "$TMP/$tag" 2> "$TMP/$tag.err"
	echo $? > "$TMP/$tag.rc"
	tail -n 1 "$TMP/$tag" > "$TMP/$tag.json"
}

run_verify fast --duration 2
check "verify at full speed exits 0 (got $(cat "$TMP/fast.rc"): $(tail -1 "$TMP/fast.err"))" [ "$(cat "$TMP/fast.rc")" = 0 ]
check "verify at full speed: frames checked, none failed, none lost, books reconciled" \
	[ "$(jq_py "$TMP/fast.json" 'd["kernel_packets"] > 100000 and d["verify"]["ok"] and d["verify"]["not_intact"] == 0 and d["dropped_total"] == 0 and d["verify"]["reconciled"] and d["verify"]["unaccounted"] == 0')" = True ]

# 64-entry ring, 2 ms hold per batch, 2 Mfps offered: the ring overflows
run_verify slow --duration 2 --rate 2000000 --ring 64 --batch 64 --hold-us 2000
check "slow consumer exits 0 (got $(cat "$TMP/slow.rc"): $(tail -1 "$TMP/slow.err"))" [ "$(cat "$TMP/slow.rc")" = 0 ]
check "slow consumer: frames dropped as ring_full, counted" \
	[ "$(jq_py "$TMP/slow.json" 'd["dropped"]["ring_full"] > 0 and d["offered"] == d["rx_packets"] + d["dropped_total"]')" = True ]
check "slow consumer: no held frame changed, none failed, none out of order" \
	[ "$(jq_py "$TMP/slow.json" 'd["verify"]["changed_in_hold"] == 0 and d["verify"]["not_intact"] == 0 and d["verify"]["out_of_order"] == 0')" = True ]
check "slow consumer: every drop is a gap between stamps (unaccounted 0, gaps $(jq_py "$TMP/slow.json" 'd["verify"]["seq_gap"]'))" \
	[ "$(jq_py "$TMP/slow.json" 'd["verify"]["reconciled"] and d["verify"]["unaccounted"] == 0 and d["verify"]["seq_gap"] > 0')" = True ]

# 4 queues: each queue's generator checked on its own
run_verify q4 --duration 2 --queues 4 --rate 500000 --hold-us 500 --ring 256
check "4 queues with a hold: books reconciled per queue (got $(cat "$TMP/q4.rc"))" \
	[ "$(jq_py "$TMP/q4.json" 'd["verify"]["ok"] and d["verify"]["reconciled"]')" = True ]

"$GNIO" run --gpu cpu --app count --hold-us 5 --duration 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
check "--hold-us with another app: usage error (got $rc)" [ $rc -eq 2 ]
check "--hold-us with another app: says why" grep -q 'only the verify app holds' "$TMP/e"
"$GNIO" run --gpu cpu --app verify --hold-us -1 --duration 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
check "--hold-us -1: usage error (got $rc)" [ $rc -eq 2 ]
finish
