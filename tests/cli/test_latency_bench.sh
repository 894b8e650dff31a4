#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cli/test_latency_bench.sh - gnio_latency_bench on the CPU device: a
# short ping-pong comes back whole with the books balanced, and --timeline
# adds the split of "to TX" made from the echo kernel's trace stores. The
# kernel stores its trace only when the bench asks (gnio_app_args.trace):
# the split's legs exist and add up to "to TX" within the trip itself.
# Figures on two shared cores are scheduler figures: nothing here judges
# their size. (A trace never stored shows as a negative to_kernel: the
# bench waits for it up to the frame's timeout.) The timeout is the
# default second: CI runs this beside other tests on two cores, where a
# 100 ms timeout once lost a frame to the scheduler.
. "$(dirname "$0")/lib.sh"
LAT="${GNIO_BUILD:-}/bench/gnio_latency_bench"
[ -x "$LAT" ] || { echo "SKIP: $LAT not built"; exit 77; }

"$LAT" --gpu cpu --count 300 --warmup 30 --pin 0 --poll yield --json >"$TMP/plain.out" 2>"$TMP/plain.err"
rc=$?
[ $rc -eq 0 ] || cat "$TMP/plain.err" >&2
tail -n 1 "$TMP/plain.out" >"$TMP/plain.json"
check "plain run exits 0 (exit $rc)" [ $rc -eq 0 ]
check "plain run: ok, 300 samples, none lost" \
	[ "$(jq_py "$TMP/plain.json" 'd["ok"] and d["samples"] == 300 and d["lost"] == 0')" = True ]
check "plain run: no timeline keys" [ "$(jq_py "$TMP/plain.json" '"to_kernel_p50_us" in d')" = False ]

"$LAT" --gpu cpu --count 300 --warmup 30 --pin 0 --poll yield --timeline --json >"$TMP/tl.out" 2>"$TMP/tl.err"
rc=$?
[ $rc -eq 0 ] || cat "$TMP/tl.err" >&2
tail -n 1 "$TMP/tl.out" >"$TMP/tl.json"
check "timeline run exits 0 (exit $rc)" [ $rc -eq 0 ]
check "timeline run: ok, books balanced by the bench's own check" \
	[ "$(jq_py "$TMP/tl.json" 'd["ok"] and d["lost"] == 0 and d["corrupt"] == 0')" = True ]
check "timeline: the three legs of to_tx, with percentiles in order" \
	[ "$(jq_py "$TMP/tl.json" 'all(d[l + "_p10_us"] <= d[l + "_p50_us"] <= d[l + "_p90_us"] <= d[l + "_p99_us"] for l in ("to_kernel", "in_kernel", "to_wire"))')" = True ]
# a trace the kernel never stored would leave the stamp at 0: hugely negative
check "timeline: the kernel's trace was seen after each send" \
	[ "$(jq_py "$TMP/tl.json" 'd["to_kernel_p10_us"] > 0')" = True ]
check "timeline: text lines name the legs" grep -q "^timeline us in_kernel" "$TMP/tl.out"
# the proxies' stamps (GNIO_PROXY_STAMPS, which --timeline sets): a stamp
# never taken leaves its legs at 0 or hugely negative
check "timeline: the legs at the proxies, in order, each stamp after the one before" \
	[ "$(jq_py "$TMP/tl.json" 'all(d[l + "_p10_us"] <= d[l + "_p50_us"] <= d[l + "_p90_us"] <= d[l + "_p99_us"] for l in ("to_ring", "ring_to_txp", "txp_to_wire")) and d["to_ring_p10_us"] > 0 and d["ring_to_txp_p10_us"] > 0 and d["txp_to_wire_p10_us"] >= 0')" = True ]
check "plain run: no proxy legs" [ "$(jq_py "$TMP/plain.json" '"to_ring_p50_us" in d')" = False ]
# --inline-header: the echo takes the addresses it swaps from the header
# copy that came with the completion; a wrong copy shows as corrupt echoes
# (the peer checks every byte of each one).
"$LAT" --gpu cpu --count 300 --warmup 30 --pin 0 --poll yield --inline-header --json >"$TMP/ih.out" 2>"$TMP/ih.err"
rc=$?
[ $rc -eq 0 ] || cat "$TMP/ih.err" >&2
tail -n 1 "$TMP/ih.out" >"$TMP/ih.json"
check "inline-header run exits 0 (exit $rc)" [ $rc -eq 0 ]
check "inline-header run: ok, none lost or corrupt, reported" \
	[ "$(jq_py "$TMP/ih.json" 'd["ok"] and d["samples"] == 300 and d["lost"] == 0 and d["corrupt"] == 0 and d["inline_header"]')" = True ]
check "plain run reports no inline header" [ "$(jq_py "$TMP/plain.json" 'd["inline_header"]')" = False ]
check "--help names --timeline" sh -c "'$LAT' --help 2>&1 | grep -q -- --timeline"
finish
