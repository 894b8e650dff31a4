#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio flow: rules files are checked with line:column errors and the
# documented exit codes; a mixed capture classified with a rules file gives
# each rule exactly the frames that tshark's equivalent display filter counts
# (first match wins: rule i's filter is "F_i and not (F_1 or ... F_i-1)").
# Needs tshark and Debian's python3-scapy (skips without them).
. "$(dirname "$0")/lib.sh"

# --- check: good and bad files -------------------------------------------
cat > "$TMP/good.rules" <<'R'
# steering for the RoCE demo
udp dport 4791-4800 -> rss 0,1,2,3
icmp -> kernel     # ping stays answered
default -> drop
R
"$GNIO" flow check "$TMP/good.rules" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "check: good file exits 0" [ $rc -eq 0 ]
check "check: canonical rules printed" grep -q "udp dport 4791-4800 -> rss 0,1,2,3" "$TMP/o"
"$GNIO" flow check "$TMP/good.rules" --json > "$TMP/check.json"; rc=$?
check "check --json exits 0" [ $rc -eq 0 ]
check "check --json validates against flow.schema.json" validate flow.schema.json "$TMP/check.json"
check "check --json: two rules and a drop default" \
	[ "$(jq_py "$TMP/check.json" 'str(len(d["rules"])) + d["default"]["action"]')" = 2drop ]

printf 'udp -> drop\nudp dport 80-70 -> queue 1\n' > "$TMP/bad.rules"
"$GNIO" flow check "$TMP/bad.rules" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "check: bad file exits 2 (got $rc)" [ $rc -eq 2 ]
check "check: one line naming file:line:column and the field" \
	[ "$(wc -l < "$TMP/e")" -eq 1 -a "$(cat "$TMP/e")" = "gnio flow: $TMP/bad.rules:2:5: match.dport: range 80-70 is reversed" ]
check "check: nothing on stdout" [ ! -s "$TMP/o" ]
"$GNIO" flow check "$TMP/good.rules" --wire sw:flowcli > "$TMP/o" 2> "$TMP/e"; rc=$?
check "check --wire sw: kernel is refused, exit 3 (got $rc)" [ $rc -eq 3 ]
check "check --wire sw: the line says where and why" \
	grep -q "good.rules:3:9: kernel on sw:flowcli: a sw wire has no host network stack" "$TMP/e"
"$GNIO" flow check "$TMP/none.rules" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "check: missing file exits 3 (got $rc)" [ $rc -eq 3 ]
"$GNIO" flow frobnicate "$TMP/good.rules" > "$TMP/o" 2> "$TMP/e"; rc=$?
check "unknown subcommand exits 2" [ $rc -eq 2 ]

# --- classify against tshark ----------------------------------------------
command -v tshark >/dev/null || { echo "SKIP: tshark not installed (apt-get install tshark)"; finish_skip=1; }
/usr/bin/python3 -c 'import scapy' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no scapy (python3-scapy)"; finish_skip=1; }
if [ -n "${finish_skip:-}" ]; then
	[ "$FAILS" -ne 0 ] && finish
	exit 77
fi

/usr/bin/python3 "$GNIO_SRC/tests/cli/flow_mix.py" "$TMP/mix.pcap" 3000 11 || { bad "writing the mix"; finish; }

# rule | equivalent Wireshark display filter: the outer headers only (#1);
# an 802.1ad (0x88a8) outer tag is Wireshark's ieee8021ad, not vlan
RULES=(
	"udp dport 4791-4800 -> rss 0,1,2,3|udp.dstport#1 >= 4791 && udp.dstport#1 <= 4800"
	"icmp -> kernel|icmp"
	"icmp6 -> kernel|icmpv6"
	"arp -> kernel|arp"
	"vlan 200 -> drop|ieee8021ad.id == 200 || (!ieee8021ad && vlan.id#1 == 200)"
	"ipv4 src 10.0.0.0/8 tcp dport 80 -> queue 1|ip.src#1 == 10.0.0.0/8 && tcp.dstport#1 == 80"
	"ipv6 udp dport 53 -> queue 2|ipv6 && udp.dstport#1 == 53"
	"dst 192.168.7.0/24 -> cpu 0|ip.dst#1 == 192.168.7.0/24"
	"tcp sport 1-1023 -> drop|tcp.srcport#1 >= 1 && tcp.srcport#1 <= 1023"
	"ethertype 0x88cc -> kernel|eth.type == 0x88cc || vlan.etype == 0x88cc"
	"ipv6 src 2001:db8::/32 -> queue 3|ipv6.src#1 == 2001:db8::/32"
	"udp sport 5353 -> gnio|udp.srcport#1 == 5353"
)
: > "$TMP/mix.rules"
for r in "${RULES[@]}"; do echo "${r%%|*}" >> "$TMP/mix.rules"; done
echo "default -> drop" >> "$TMP/mix.rules"

"$GNIO" flow classify "$TMP/mix.rules" --pcap "$TMP/mix.pcap" --json > "$TMP/cls.json" 2> "$TMP/e"; rc=$?
check "classify exits 0" [ $rc -eq 0 ]
check "classify --json validates against flow.schema.json" validate flow.schema.json "$TMP/cls.json"
check "classify: 3000 frames, books balance" \
	[ "$(jq_py "$TMP/cls.json" 'str(d["frames"]) + str(d["books_balance"])')" = 3000True ]
check "classify: rules' hits + default = frames" \
	[ "$(jq_py "$TMP/cls.json" 'sum(r["hits"] for r in d["rules"]) + d["default"]["hits"] == d["frames"]')" = True ]

tsh() { tshark -r "$TMP/mix.pcap" --disable-protocol vxlan -Y "$1" -T fields -e frame.number 2>/dev/null | wc -l; }
total=$(tsh "frame")
check "tshark reads 3000 frames" [ "$total" -eq 3000 ]
prev="" i=0 sum=0
for r in "${RULES[@]}"; do
	f="${r#*|}"
	if [ -z "$prev" ]; then filt="($f)"; else filt="($f) && !($prev)"; fi
	want=$(tsh "$filt")
	WANT[$i]=$want
	got=$(jq_py "$TMP/cls.json" "d['rules'][$i]['hits']")
	check "rule $i '${r%%|*}': gnio $got = tshark $want" [ "$got" = "$want" ]
	[ "$want" -gt 0 ] || bad "rule $i matches nothing in the mix: the comparison proves little"
	sum=$((sum + want))
	if [ -z "$prev" ]; then prev="($f)"; else prev="$prev || ($f)"; fi
	i=$((i + 1))
done
got=$(jq_py "$TMP/cls.json" "d['default']['hits']")
check "default: gnio $got = tshark $((total - sum))" [ "$got" = "$((total - sum))" ]
# the rss rule's frames all went to rss queues
check "classify: per-action counts add up" \
	[ "$(jq_py "$TMP/cls.json" 'sum(d["actions"].values()) == d["frames"]')" = True ]

# --- gnio run --flow: the same rules steer the replayed mix ---------------
# The pcap wire has no host stack (kernel -> drop) and gnio run's queues are
# all GPU queues (cpu 0 -> queue 0); the matches, and so the hits, are the
# same. One wire queue fans out to four rings through the RX proxy.
sed -e 's/-> kernel/-> drop/' -e 's/-> cpu 0/-> queue 0/' "$TMP/mix.rules" > "$TMP/run.rules"
"$GNIO" run --gpu cpu --wire "pcap:$TMP/mix.pcap" --queues 4 --flow "$TMP/run.rules" --duration 2 --quiet \
	--json > "$TMP/run.json" 2> "$TMP/e"; rc=$?
check "run --flow exits 0 (got $rc: $(head -c 300 "$TMP/e"))" [ $rc -eq 0 ]
check "run --flow: 3000 frames offered, books balance" \
	[ "$(jq_py "$TMP/run.json" 'str(d["offered"]) + str(d["balanced"])')" = 3000True ]
i=0
for r in "${RULES[@]}"; do
	got=$(jq_py "$TMP/run.json" "d['rules'][$i]['hits']")
	check "run rule $i: gnio run $got = tshark ${WANT[$i]}" [ "$got" = "${WANT[$i]}" ]
	i=$((i + 1))
done
got=$(jq_py "$TMP/run.json" "d['default']['hits']")
check "run default: gnio run $got = tshark $((total - sum))" [ "$got" = "$((total - sum))" ]
# drop rules and the default are flow_drop; every other frame reached a kernel
want_rx=$(jq_py "$TMP/run.json" 'sum(r["hits"] for r in d["rules"] if r["action"] != "drop")')
check "run: rx_packets = hits of the non-drop rules ($want_rx)" \
	[ "$(jq_py "$TMP/run.json" 'd["rx_packets"]')" = "$want_rx" ]
check "run: flow_drop = hits of the drop rules and the default" \
	[ "$(jq_py "$TMP/run.json" 'd["dropped"]["flow_drop"] == sum(r["hits"] for r in d["rules"] if r["action"] == "drop") + d["default"]["hits"]')" = True ]
check "run: the kernels processed every delivered frame" \
	[ "$(jq_py "$TMP/run.json" 'd["kernel_packets"] == d["rx_packets"] == sum(q["rx_packets"] for q in d["per_queue"])')" = True ]
check "run: frames moved between rings, and each was taken" \
	[ "$(jq_py "$TMP/run.json" 'd["steered"] > 0 and d["steered"] == sum(q["steered_in"] for q in d["per_queue"])')" = True ]
# queue 3 gets only what the rules send it: the 2001:db8::/32 rule and its rss share
q3=$(jq_py "$TMP/run.json" 'd["per_queue"][3]["rx_packets"]')
check "run: queue 3 got frames ($q3)" [ "$q3" -gt "${WANT[10]}" ]

# --- SIGHUP reloads the rules file under traffic ------------------------------
# The sw generator's UDP frames (dport 9000) go to queue 1 under the first
# file; the second drops them; a third that does not parse is refused and
# changes nothing. Every frame is counted by a rule of one set or the other.
printf 'udp dport 9000 -> queue 1\ndefault -> gnio\n' > "$TMP/hup.rules"
"$GNIO" run --gpu cpu --queues 2 --flow "$TMP/hup.rules" --rate 200000 --duration 4 --json \
	> "$TMP/hup.json" 2> "$TMP/hup.err" &
hp=$!
for _ in $(seq 200); do grep -q ", running" "$TMP/hup.err" 2>/dev/null && break; sleep 0.05; done
sleep 1
printf 'udp -> drop\n' > "$TMP/hup.rules"
kill -HUP $hp
sleep 1
printf 'udp dport 99999 -> drop\n' > "$TMP/hup.rules"
kill -HUP $hp
wait $hp; rc=$?
check "SIGHUP with --flow: the run goes on to its end and exits 0 (got $rc)" [ $rc -eq 0 ]
check "SIGHUP: the reload is reported" grep -q "gnio run: rules reloaded from $TMP/hup.rules: 1 rule(s)" "$TMP/hup.err"
check "SIGHUP: a file that does not parse is refused, with its line and column" \
	grep -q "reload of $TMP/hup.rules refused, the rules in force stay: $TMP/hup.rules:1:11:" "$TMP/hup.err"
check "SIGHUP: one reload, one refused" \
	[ "$(jq_py "$TMP/hup.json" '(d["flow"]["reloads"], d["flow"]["reloads_refused"])')" = "(1, 1)" ]
check "SIGHUP: the second file's rule is in force, with the first file's default" \
	[ "$(jq_py "$TMP/hup.json" '([r["rule"] for r in d["rules"]], d["default"]["rule"])')" = "(['udp -> drop'], 'default -> gnio')" ]
check "SIGHUP: the first file's rule had frames before the reload (removed_hits)" \
	[ "$(jq_py "$TMP/hup.json" 'd["flow"]["removed_hits"] > 0 and d["rules"][0]["hits"] > 0')" = True ]
check "SIGHUP: every frame counted by one rule set or the other" \
	[ "$(jq_py "$TMP/hup.json" 'd["flow"]["frames"] == sum(r["hits"] for r in d["rules"]) + d["default"]["hits"] + d["flow"]["removed_hits"]')" = True ]
# classified: every frame the proxies read from the wire, so all that was
# offered but what the wire's own FIFO overflowed (a slow build, TSan) and at
# most the frames left on the wire at the stop
check "SIGHUP: the flow classified every frame read from the wire" \
	[ "$(jq_py "$TMP/hup.json" 'd["offered"] - d["dropped"]["wire_overflow"] - d["dropped"]["stopped"] <= d["flow"]["frames"] <= d["offered"] - d["dropped"]["wire_overflow"]')" = True ]
check "SIGHUP: the books balance, the dropped ones are the drop rule's" \
	[ "$(jq_py "$TMP/hup.json" 'd["balanced"] and d["dropped"]["flow_drop"] == d["rules"][0]["hits"] and d["kernel_packets"] == d["rx_packets"]')" = True ]
# without a rules file SIGHUP stops the run, as a hangup does
"$GNIO" run --gpu cpu --duration 30 --json > "$TMP/hup2.json" 2> "$TMP/hup2.err" &
hp=$!
for _ in $(seq 200); do grep -q ", running" "$TMP/hup2.err" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
kill -HUP $hp
wait $hp; rc=$?
check "SIGHUP without --flow: the run stops and rolls back, exit 0 (got $rc)" \
	[ $rc -eq 0 ] && [ "$(jq_py "$TMP/hup2.json" 'd["balanced"]')" = True ] && [ "$(jq_py "$TMP/hup2.json" 'd["duration_s"] < 20')" = True ]
finish
