#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cli/test_peers_summary.sh - bench/peers_summary.py, the summary of
# bench/peers.sh, over made-up run and trial records (shapes only, not
# measurements): the zero-loss rate of each search, sender-bound rows, rows
# at the generator's ceiling (only the unpaced trial lost; a trial where the
# generator fell short is not a loss), the ratios' notes, and how many lost
# frames each contestant named.
. "$(dirname "$0")/lib.sh"
R="$TMP/peers"
mkdir -p "$R"
# The records bench/peers.sh's run_one writes: rate 0 is the unpaced trial.
"$PY" - "$R" <<'PYEOF'
import json, sys
def run(who, mode, sock, rate, offered, delivered, verdict, drops={}):
    return json.dumps({"who": who, "mode": mode, "socket": sock, "rep": 1, "cmd": who, "rate_pps": rate,
                       "generators": 1, "offered": offered, "gen_elapsed_s": 0.001, "gen_mpps": offered / 1000,
                       "rx_packets": delivered, "tx_packets": 0, "back_at_generator": delivered,
                       "delivered": delivered, "mpps": delivered / 1000, "lost": offered - delivered,
                       "achieved_pps": offered * 1000, "verdict": verdict, "dut_drops": drops})
runs = [run("testpmd-io", "fwd", "afpacket", 0, 1000, 600, "loss"),
        run("gnio-run", "fwd", "afpacket", 0, 1000, 700, "loss",
            {"ring_full": 200, "no_buffer": 100, "kernel_tx_again": 50})]
# testpmd io lost only unpaced; every paced rate passed, or the generator fell short
trials = [run("testpmd-io", "fwd", "afxdp", 0, 1000, 900, "loss")]
trials += [run("testpmd-io", "fwd", "afxdp", r, r // 500, r // 500, "pass") for r in (500000, 750000, 875000, 937500)]
trials += [run("testpmd-io", "fwd", "afxdp", 968750, 1800, 1800, "short")]
# gnio run lost at 750 kfps and passed below it
trials += [run("gnio-run", "fwd", "afxdp", 0, 1000, 800, "loss", {"wire_overflow": 200})]
trials += [run("gnio-run", "fwd", "afxdp", r, r // 500, r // 500, "pass") for r in (500000, 625000, 687500)]
trials += [run("gnio-run", "fwd", "afxdp", 750000, 1500, 1400, "loss", {"wire_overflow": 100})]
# both receivers kept up with the generator unpaced
trials += [run(w, "rx", "afxdp", 0, 1000, 1000, "pass") for w in ("testpmd-rxonly", "gnio-sink")]
open(sys.argv[1] + "/peers.jsonl", "w").write("\n".join(runs) + "\n")
open(sys.argv[1] + "/peers-search.jsonl", "w").write("\n".join(trials) + "\n")
PYEOF
"$PY" "$GNIO_SRC/bench/peers_summary.py" "$R" 1000 64 1 afxdp cpu "DPDK 0.0" 0 "0 0 0" "0 0 0" 2 5 1 1 >"$TMP/out" 2>&1 ||
	{ cat "$TMP/out"; bad "peers_summary.py exits 0"; finish; }
J="$R/peers.json"
row() { jq_py "$J" "[r for r in d['$1'] if r['who'] == '$2' and r['socket'] == '$3'][0]$4"; }
check "testpmd io: zero loss at the best paced pass (0.9375 Mpps)" [ "$(row search testpmd-io afxdp "['mpps']")" = 0.9375 ]
check "testpmd io: at the generator's ceiling (a short trial is not a loss)" \
	[ "$(row search testpmd-io afxdp "['at_ceiling']")" = True ]
check "testpmd io: the short trial listed apart" [ "$(row search testpmd-io afxdp "['short_rates']")" = "[968750]" ]
check "gnio run: 0.6875 Mpps" [ "$(row search gnio-run afxdp "['mpps']")" = 0.6875 ]
check "gnio run: not at the ceiling" [ "$(row search gnio-run afxdp "['at_ceiling']")" = False ]
check "gnio run: the rate that lost" [ "$(row search gnio-run afxdp "['failed_rates']")" = "[750000]" ]
check "gnio run: loss counters at the ceiling" [ "$(row search gnio-run afxdp "['ceiling_drops']")" = "{'wire_overflow': 200}" ]
check "rx rows that lost nothing unpaced are sender-bound" \
	[ "$(row search gnio-sink afxdp "['sender_bound']"):$(row search testpmd-rxonly afxdp "['sender_bound']")" = True:True ]
check "fwd ratio: gnio run / testpmd io = 0.6875 / 0.9375, the peer marked at the ceiling" \
	[ "$(jq_py "$J" "[(round(q['ratio'], 4), q['gnio_at_ceiling'], q['peer_at_ceiling']) for q in d['search_ratios'] if q['mode'] == 'fwd'][0]")" = "(0.7333, False, True)" ]
check "peers.md notes the peer at the generator's ceiling" grep -q "0.73 (peer at the generator's ceiling)" "$R/peers.md"
check "gnio run fwd afpacket: 300 lost, 300 named (kernel_tx_again counts retries, not losses)" [ "$(jq_py "$J" "[(r['lost'], r['lost_named']) for r in d['rows'] if r['who'] == 'gnio-run'][0]")" = "(300, 300)" ]
check "testpmd io fwd afpacket: 400 lost, 0 named" [ "$(jq_py "$J" "[(r['lost'], r['lost_named']) for r in d['rows'] if r['who'] == 'testpmd-io'][0]")" = "(400, 0)" ]
check "peers.md shows lost (named)" grep -q "| 300 (300) |" "$R/peers.md"
finish
