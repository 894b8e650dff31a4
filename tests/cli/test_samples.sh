#!/bin/bash
# SPDX-License-Identifier: MIT
# The samples on the CPU device over their sw wire, with the built-in
# generator as peer: exact counts at every exec scope, books balanced
# (offered == rx_packets + dropped_total), every frame a kernel sent checked
# by the peer; the common flags and their one-line errors; gnio sample list
# and new (which never overwrites).
. "$(dirname "$0")/lib.sh"
: "${GNIO_BUILD:?}"
S="$GNIO_BUILD/samples"

# run NAME ARGS...: run gnio_NAME with --json; the last stdout line goes to
# $TMP/NAME.json, stderr to $TMP/NAME.err; sets rc.
run() {
	local name=$1
	shift
	timeout -k 5 120 "$S/$name/gnio_$name" -g cpu --json "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"
	rc=$?
	tail -n 1 "$TMP/$name.out" > "$TMP/$name.json"
	if [ $rc -ne 0 ]; then
		echo "     gnio_$name $* exited $rc:"
		tail -n 5 "$TMP/$name.err" | sed 's/^/     /'
	fi
}
j() { jq_py "$TMP/$1.json" "$2"; }                # j NAME EXPR
expect() { check "$1 (got $2, want $3)" [ "$2" = "$3" ]; } # expect WHAT GOT WANT
books() { # books NAME WHAT N: the books balance with N frames in, none dropped
	expect "$2: offered == rx_packets + dropped_total" "$(j "$1" 'd["offered"] == d["rx_packets"] + d["dropped_total"]')" True
	expect "$2: rx_packets" "$(j "$1" 'd["rx_packets"]')" "$3"
	expect "$2: dropped_total" "$(j "$1" 'd["dropped_total"]')" 0
	expect "$2: ok" "$(j "$1" 'd["ok"]')" True
}

for f in simple_receive simple_send send_wait_time l2fwd packet_processing; do
	[ -x "$S/$f/gnio_$f" ] || { bad "gnio_$f is built ($S/$f/gnio_$f)"; finish; }
done

# --- simple_receive ----------------------------------------------------------
for e in thread warp block; do
	run simple_receive -e $e -c 20000 -s 300
	expect "simple_receive -e $e exits 0" $rc 0
	books simple_receive "simple_receive -e $e" 20000
	expect "simple_receive -e $e: scope reported" "$(j simple_receive 'd["exec_scope"]')" $e
	expect "simple_receive -e $e: packets" "$(j simple_receive 'd["packets"]')" 20000
	expect "simple_receive -e $e: bytes" "$(j simple_receive 'd["bytes"]')" 6000000
	expect "simple_receive -e $e: every frame in size class le512" "$(j simple_receive 'd["le512"]')" 20000
done
check "simple_receive prints its bring-up steps without --json" \
	sh -c "'$S/simple_receive/gnio_simple_receive' -g cpu -c 100 2>&1 | grep -q 'step  5: create the rollback'"

# --- simple_send ---------------------------------------------------------------
for e in thread warp block; do
	run simple_send -e $e -c 10000 -s 100
	expect "simple_send -e $e exits 0" $rc 0
	expect "simple_send -e $e: sent" "$(j simple_send 'd["sent"]')" 10000
	expect "simple_send -e $e: completed by the wire" "$(j simple_send 'd["completed"]')" 10000
	expect "simple_send -e $e: the peer got each frame as built, once" \
		"$(j simple_send '(d["peer_received"], d["peer_bad"], d["peer_duplicates"])')" "(10000, 0, 0)"
	expect "simple_send -e $e: ok" "$(j simple_send 'd["ok"]')" True
done
run simple_send -e warp -c 64
expect "simple_send -e warp: group size 32" "$(j simple_send 'd["group_size"]')" 32

# --- send_wait_time ----------------------------------------------------------
for e in thread warp block; do
	run send_wait_time -e $e -c 40 -b 8 -i 2000 --lead-ms 5
	expect "send_wait_time -e $e exits 0" $rc 0
	expect "send_wait_time -e $e: bursts and frames" "$(j send_wait_time '(d["bursts"], d["frames"], d["tx_packets"])')" \
		"(40, 320, 320)"
	expect "send_wait_time -e $e: one completion event per burst" \
		"$(j send_wait_time 'd["completion_events"] + d["lost_events"]')" 40
	expect "send_wait_time -e $e: no frame before its time (wire, peer)" \
		"$(j send_wait_time '(d["early"], d["peer_early"])')" "(0, 0)"
	expect "send_wait_time -e $e: the peer got every frame as built" \
		"$(j send_wait_time '(d["peer_frames"], d["peer_bad"])')" "(320, 0)"
	expect "send_wait_time -e $e: every burst timed, none ahead of its time" \
		"$(j send_wait_time 'd["wire_bursts"] == 40 and d["peer_bursts"] == 40 and d["wire_error_min_us"] >= 0')" True
done

# --- l2fwd ---------------------------------------------------------------------
for e in thread warp block; do
	run l2fwd -e $e -c 50000
	expect "l2fwd -e $e exits 0" $rc 0
	books l2fwd "l2fwd -e $e" 50000
	expect "l2fwd -e $e: forwarded, sent by the wire, in place" \
		"$(j l2fwd '(d["forwarded"], d["tx_packets"], d["tx_in_place"], d["unsent"], d["errors"])')" "(50000, 50000, 50000, 0, 0)"
	expect "l2fwd -e $e: every frame back at the peer, MACs swapped, intact" \
		"$(j l2fwd '(d["peer_received"], d["peer_bad"])')" "(50000, 0)"
done

# --- packet_processing ---------------------------------------------------------
# The generator's mix cycles through 8 kinds: 8000 frames are 1000 of each.
for e in thread warp block; do
	run packet_processing -e $e -c 8000
	expect "packet_processing -e $e exits 0" $rc 0
	books packet_processing "packet_processing -e $e" 8000
	expect "packet_processing -e $e: per-kind counts" \
		"$(j packet_processing '[d[k] for k in ("arp","icmp","dns","udp_other","tcp_syn","tcp_fin","tcp_other","http_get","http_post","http_head","other")]')" \
		"[1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 0, 0, 0]"
	expect "packet_processing -e $e: ARP and ping answered" \
		"$(j packet_processing '(d["arp_replies"], d["icmp_replies"])')" "(1000, 1000)"
	expect "packet_processing -e $e: the replies reached the peer with good checksums" \
		"$(j packet_processing '(d["peer_arp_replies"], d["peer_icmp_replies"], d["peer_bad"])')" "(1000, 1000, 0)"
done
# --http: the SYNs (to port 9000) get a reset and the FINs a FIN+ACK from the
# CPU path, through the kernel; the GETs are on no open flow. A segment the
# CPU path had no free record for (a host thread starved on a loaded
# machine) is dropped and counted, and so is an answer still waiting for the
# kernel when the run stops (the sample waits up to 2 s for those first), so
# the books are exact either way.
run packet_processing --http -c 8000 -r 5000
expect "packet_processing --http exits 0" $rc 0
books packet_processing "packet_processing --http" 8000
expect "packet_processing --http: every SYN and FIN handed to the CPU path or counted as dropped" \
	"$(j packet_processing 'd["tcp_to_cpu"] + d["tcp_to_cpu_dropped"]')" 2000
expect "packet_processing --http: the CPU path answered each one it read (SYN: reset, FIN: FIN+ACK)" \
	"$(j packet_processing 'd["tcp_resets_sent"] + d["tcp_fin_acks"] + d["tcp_unhandled_at_stop"] == d["tcp_to_cpu"] and d["tcp_resets_sent"] > 0 and d["tcp_fin_acks"] > 0')" True
expect "packet_processing --http: the kernel sent each answer it was given or it is counted, the peer got them intact" \
	"$(j packet_processing 'd["cpu_tx"] + d["tcp_answers_dropped"] + d["tcp_answers_unsent"] == d["tcp_resets_sent"] + d["tcp_fin_acks"] and d["peer_tcp"] == d["cpu_tx"] > 0')" True
echo "     (CPU path: $(j packet_processing '"%d handed, %d dropped for want of a record, %d answers dropped, %d unsent and %d unread at stop" % (d["tcp_to_cpu"], d["tcp_to_cpu_dropped"], d["tcp_answers_dropped"], d["tcp_answers_unsent"], d["tcp_unhandled_at_stop"])'))"
expect "packet_processing --http: GETs on no open flow are not answered" \
	"$(j packet_processing '(d["http_get"], d["http_no_flow"], d["http_replies"])')" "(1000, 1000, 0)"
expect "packet_processing: statistics arrived through the semaphore" "$(j packet_processing 'd["snapshots"] >= 1')" True

# --- the common flags ----------------------------------------------------------
for f in simple_receive simple_send send_wait_time l2fwd packet_processing; do
	help=$("$S/$f/gnio_$f" --help)
	missing=""
	for o in "-g, --gpu" "-n, --nic" "-d, --duration" "--json" "-h, --help"; do
		grep -qF -- "$o" <<< "$help" || missing="$missing '$o'"
	done
	check "gnio_$f --help lists the common flags${missing:+ (missing:$missing)}" [ -z "$missing" ]
	check "gnio_$f --help offers -e, --exec-scope" grep -qF -- "-e, --exec-scope" <<< "$help"
	"$S/$f/gnio_$f" --frobnicate > "$TMP/o" 2> "$TMP/e"; rc=$?
	check "gnio_$f --frobnicate: exit 2, one line on stderr (got $rc, $(wc -l < "$TMP/e") lines)" \
		[ $rc -eq 2 -a "$(wc -l < "$TMP/e")" -eq 1 ]
	"$S/$f/gnio_$f" -g cpu -n afpacket:gnio-no-such-if > "$TMP/o" 2> "$TMP/e"; rc=$?
	check "gnio_$f -n afpacket:<missing>: exit 3 naming the interface (got $rc)" \
		sh -c "[ $rc -eq 3 ] && grep -q gnio-no-such-if '$TMP/e'"
done
"$S/l2fwd/gnio_l2fwd" -g cpu -e sideways > "$TMP/o" 2> "$TMP/e"; rc=$?
check "-e sideways: exit 2 naming the values (got $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'thread, warp or block' '$TMP/e'"
run l2fwd -e 1 -c 10
expect "-e 1 is warp (DOCA's numbering)" "$(j l2fwd 'd["exec_scope"]')" warp
run l2fwd -d 1
expect "-d 1 ends the run by itself" $rc 0
expect "-d 1: the books balance on an endless generator" "$(j l2fwd 'd["balanced"] and d["rx_packets"] > 0')" True

# --- gnio sample list / new ----------------------------------------------------
"$GNIO" sample list --json > "$TMP/list.json"; rc=$?
check "gnio sample list --json exits 0" [ $rc -eq 0 ]
expect "gnio sample list names the five samples" "$(jq_py "$TMP/list.json" 'sorted(s["name"] for s in d["samples"])')" \
	"['l2fwd', 'packet_processing', 'send_wait_time', 'simple_receive', 'simple_send']"
check "gnio sample list gives each a summary" [ "$(jq_py "$TMP/list.json" 'all(s["summary"] for s in d["samples"])')" = True ]
"$GNIO" sample new l2fwd "$TMP/mine/fwd" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "gnio sample new l2fwd DIR exits 0" [ $rc -eq 0 ]
for f in CMakeLists.txt Makefile README.md l2fwd.c l2fwd.h l2fwd_cpu.c l2fwd_kernel.cu; do
	check "the copy has $f, as shipped" cmp -s "$GNIO_SRC/samples/l2fwd/$f" "$TMP/mine/fwd/$f"
done
for f in sample.h sample_dev.h sample.cmake sample.mk sample_run.c sample_opts.c sample_peer.c sample_json.c; do
	check "the copy has common/$f, as shipped" cmp -s "$GNIO_SRC/samples/common/$f" "$TMP/mine/fwd/common/$f"
done
echo "mine" > "$TMP/mine/fwd/l2fwd.c"
"$GNIO" sample new l2fwd "$TMP/mine/fwd" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "gnio sample new into an existing directory: exit 2 (got $rc)" [ $rc -eq 2 ]
check "... says it does not overwrite" grep -q "exists; not overwriting" "$TMP/e"
check "... and left the file alone" [ "$(cat "$TMP/mine/fwd/l2fwd.c")" = mine ]
mkdir "$TMP/empty"
"$GNIO" sample new l2fwd "$TMP/empty" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "gnio sample new into an existing empty directory: exit 2 too" [ $rc -eq 2 ]
"$GNIO" sample new nosuch "$TMP/x" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "gnio sample new nosuch: exit 2, nothing created" [ $rc -eq 2 -a ! -e "$TMP/x" ]
"$GNIO" sample new common "$TMP/x" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "gnio sample new common: not a sample (exit 2)" [ $rc -eq 2 -a ! -e "$TMP/x" ]
GNIO_SAMPLES_DIR="$TMP/nowhere" "$GNIO" sample list > "$TMP/o" 2> "$TMP/e"; rc=$?
check "GNIO_SAMPLES_DIR pointing nowhere: exit 3" [ $rc -eq 3 ]
finish
