#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cli/test_core_handoff.sh - bench/core_handoff measures every pair of
# the CPUs it is given and says so in its matrix and its JSON; bad usage is
# refused with exit 2. The figures themselves are the scheduler's on two
# shared cores: nothing here judges their size, only that each was measured.
. "$(dirname "$0")/lib.sh"
HO="${GNIO_BUILD:-}/bench/core_handoff"
[ -x "$HO" ] || { echo "SKIP: $HO not built"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU"; exit 77; }

"$HO" --cpus 0-1 --rounds 300 --json >"$TMP/out" 2>"$TMP/err"
rc=$?
check "two CPUs: exits 0 (exit $rc)" [ $rc -eq 0 ]
grep '^{' "$TMP/out" >"$TMP/pairs.jsonl"
check "two CPUs: one pair in the JSON" [ "$(wc -l <"$TMP/pairs.jsonl")" -eq 1 ]
check "the pair is 0,1 with both round trips measured" \
	[ "$(jq_py "$TMP/pairs.jsonl" 'd["cpu_a"] == 0 and d["cpu_b"] == 1 and d["rounds"] == 300 and d["rtt_ns"] > 0 and d["rtt_frame_ns"] > 0')" = True ]
check "the summary names the pair" grep -q '^fastest pair 0,1: [1-9][0-9]* ns; slowest pair 0,1:' "$TMP/out"

"$HO" --cpus 0,0-1 --rounds 300 >"$TMP/dup.out" 2>&1
check "a CPU named twice is refused (exit 2)" [ $? -eq 2 ]
"$HO" --cpus 0,x --rounds 300 >"$TMP/bad.out" 2>&1
check "a bad CPU list is refused (exit 2)" [ $? -eq 2 ]
"$HO" --rounds 5 >"$TMP/few.out" 2>&1
check "too few rounds are refused (exit 2)" [ $? -eq 2 ]
"$HO" --cpus 0 >"$TMP/one.out" 2>&1
check "one CPU is a skip (exit 77)" [ $? -eq 77 ]
"$HO" --cpus 0,4095 --rounds 300 >"$TMP/far.out" 2>&1
check "a CPU beyond the list's room is refused (exit 2)" [ $? -eq 2 ]
finish
