#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run --config: every example in examples/ runs for 2 s and balances
# (the afxdp one needs root and a veth: here it is only checked with
# --check-config; tests/integration/test_config_afxdp.sh runs it); flags
# override the file in the order given; what --check-config prints reads back
# to the same thing; a file with an error gives one line naming the file, the
# line, the key and what was expected; every key gnio writes is documented.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
EX="$GNIO_SRC/examples"

# --- each example runs and balances ------------------------------------------
n=0
for f in "$EX"/*.yaml; do
	name=$(basename "$f" .yaml)
	n=$((n + 1))
	"$GNIO" run --config "$f" --check-config > "$name.eff" 2> "$name.ceff"; rc=$?
	check "$name: --check-config exits 0 (got $rc; $(head -c 200 "$name.ceff"))" [ $rc -eq 0 ]
	"$GNIO" run --config "$name.eff" --check-config > "$name.eff2" 2>&1
	check "$name: what --check-config prints reads back to the same" cmp -s "$name.eff" "$name.eff2"
	[ "$name" = afxdp ] && continue # needs root and an interface: the integration test runs it
	"$GNIO" run --config "$f" --duration 2 --json > "$name.out" 2> "$name.err"; rc=$?
	tail -n 1 "$name.out" > "$name.json"
	check "$name: run --config --duration 2 --json exits 0 (got $rc)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tail -n 3 "$name.err"
	check "$name: rx_packets > 0" [ "$(jq_py "$name.json" 'd["rx_packets"] > 0')" = True ]
	check "$name: offered == rx_packets + dropped_total" \
		[ "$(jq_py "$name.json" 'd["offered"] == d["rx_packets"] + d["dropped_total"] and d["balanced"]')" = True ]
	check "$name: the kernels processed every delivered frame" \
		[ "$(jq_py "$name.json" 'd["kernel_packets"] == d["rx_packets"]')" = True ]
	check "$name: ran for about 2 s (--duration overrides limits.duration)" \
		[ "$(jq_py "$name.json" '1.5 < d["duration_s"] < 4')" = True ]
	# The file's values reached the run: compare with what --check-config says.
	for key in wire app.name queues.count generator.proto; do
		want=$(awk -v k="${key#*.}" -v s="${key%%.*}" '
			s == k && $1 == k ":" { gsub(/"/, "", $2); print $2; exit }
			$0 ~ "^" s ":" { on = 1; next } /^[a-z]/ { on = 0 }
			on && $1 == k ":" { gsub(/"/, "", $2); print $2; exit }' "$name.eff")
		field=$(case $key in wire) echo wire ;; app.name) echo app ;; queues.count) echo queues ;; generator.proto) echo proto ;; esac)
		got=$(jq_py "$name.json" "d['$field']")
		check "$name: $key '$want' is the run's $field ('$got')" [ -n "$want" -a "$want" = "$got" ]
	done
done
check "examples: at least the sw, classify, echo and afxdp jobs ($n files)" \
	[ -f "$EX/sw-count.yaml" -a -f "$EX/classify-mix.yaml" -a -f "$EX/echo.yaml" -a -f "$EX/afxdp.yaml" ]
check "classify-mix: per-protocol counts sum to rx_packets" \
	[ "$(jq_py classify-mix.json 'd["protocols_total"] == d["rx_packets"]')" = True ]
check "echo: every frame the kernel sent reached the peer" \
	[ "$(jq_py echo.json 'd["tx_packets"] > 0 and d["peer_received"] == d["tx_packets"]')" = True ]
check "afxdp: the mapping form spells the spec" grep -qx 'wire: "afxdp:gnio0@0,mode=skb"' afxdp.eff

# --- precedence: defaults, then the file, then the flags in order -----------
cat > job.yaml <<'EOF'
version: 1
queues:
  ring: 1024
  burst: 128
app:
  name: classify
limits:
  duration: 5
EOF
"$GNIO" run --config job.yaml --ring 2048 --ring 512 --check-config > p1.yaml; rc=$?
check "precedence: exits 0" [ $rc -eq 0 ]
check "precedence: the last of two flags wins (ring 512)" grep -qx '  ring: 512' p1.yaml
check "precedence: a value only the file sets stays (burst 128)" grep -qx '  burst: 128' p1.yaml
check "precedence: a value the file leaves out keeps the default (batch auto)" grep -qx '  batch: auto' p1.yaml
check "precedence: the file's app stays without a flag" grep -qx '  name: classify' p1.yaml
"$GNIO" run --ring 256 --app echo --config job.yaml --check-config > p2.yaml
check "precedence: a flag before --config still overrides the file (ring 256)" grep -qx '  ring: 256' p2.yaml
check "precedence: ... and so does --app (echo)" grep -qx '  name: echo' p2.yaml
"$GNIO" run --config job.yaml --count 3000 --duration 60 --json > p3.out 2> /dev/null; rc=$?
tail -n 1 p3.out > p3.json
check "a run from the file with a flag on top: exits 0 (got $rc)" [ $rc -eq 0 ]
check "... the file's app (classify) and the flag's count (3000) both apply" \
	[ "$(jq_py p3.json 'd["app"] + " " + str(d["offered"]) + " " + str(d["rx_packets"])')" = "classify 3000 3000" ]

# --- every key gnio writes is in docs/config.md ------------------------------
"$GNIO" run --metrics 127.0.0.1:9464 --metrics-hold 1 --check-config > all.yaml
missing=""
for k in $(awk '/^[a-z_]+:/ { s = $1; sub(/:$/, "", s); if ($2 == "") sect = s; else { sect = ""; print s } next }
		/^  [a-z_]+:/ { k = $1; sub(/:$/, "", k); print sect "." k }' all.yaml); do
	grep -qF "\`$k\`" "$GNIO_SRC/docs/config.md" || missing="$missing $k"
done
check "every key --check-config writes is documented in docs/config.md${missing:+ (missing:$missing)}" [ -z "$missing" ]

# --- errors: one line naming the file, the line, the key, what was expected ---
bad_config() { # bad_config LINE KEY EXPECTED-TEXT YAML
	local line=$1 key=$2 text=$3
	printf '%s\n' "$4" > bad.yaml
	"$GNIO" run --config bad.yaml --duration 1 --json > o 2> e; local rc=$?
	local what="${4//$'\n'/ | }"
	check "[$what] exits 2 (got $rc)" [ $rc -eq 2 ]
	check "[$what] one line on stderr (got $(wc -l < e))" [ "$(wc -l < e)" -eq 1 ]
	check "[$what] names bad.yaml:$line and $key: $(cat e)" grep -qF "bad.yaml:$line: $key" e
	check "[$what] says '$text'" grep -qF -- "$text" e
	check "[$what] nothing on stdout" [ ! -s o ]
}
bad_config 3 "queues.ring" "expected a whole number" $'version: 1\nqueues:\n  ring: lots'
bad_config 3 "queues.rings" "unknown key ('queues' takes: count, ring" $'version: 1\nqueues:\n  rings: 4'
bad_config 1 "bogus" "unknown key (the top level takes:" $'bogus: 1'
bad_config 2 "app.name" "expected an app: count, classify" $'app:\n  name: nope'
bad_config 1 "queues" "expected a mapping of count, ring" $'queues: 4'
bad_config 2 "queues.count" "expected 1..16 queues, got '17'" $'queues:\n  count: 17'
bad_config 3 "generator.size" "below the minimum of 97 bytes for mix" $'generator:\n  proto: mix\n  size: 64'
bad_config 2 "wire" "given twice (first on line 1)" $'wire: "sw:a"\nwire: "sw:b"'
bad_config 1 "version" "expected 1" $'version: 2'
bad_config 2 "limits.duration" "expected a number of seconds >= 0" $'limits:\n  duration: -1'
bad_config 2 "output.json" "expected true or false, got 'maybe'" $'output:\n  json: maybe'
bad_config 2 "queues.ring" "expected a single value, got a list" $'queues:\n  ring: [1, 2]'
bad_config 3 "wire.kind" "expected sw, null, afxdp, afpacket or pcap, got 'foo'" $'wire:\n  name: eth0\n  kind: foo'
bad_config 3 "wire.queue" "only an afxdp wire names a queue" $'wire:\n  kind: sw\n  queue: 1\n  name: x'
printf 'version: 1\npoll: busy\n' > poll.yaml
"$GNIO" run --config poll.yaml --check-config > poll1.yaml
check "poll: the file's busy is kept" grep -qx 'poll: busy' poll1.yaml
"$GNIO" run --config poll.yaml --poll adaptive --check-config > poll2.yaml
check "poll: --poll adaptive overrides the file" grep -qx 'poll: adaptive' poll2.yaml
"$GNIO" run --check-config > poll3.yaml
check "poll: adaptive is the default" grep -qx 'poll: adaptive' poll3.yaml
bad_config 1 "poll" "expected busy or adaptive, got 'lazy'" $'poll: lazy'
# app.watchers / --watchers: kept, written back, refused with a block
# receive or past 31, and reported (0 on the CPU device, which has none).
printf 'version: 1\napp:\n  recv_scope: warp\n  watchers: 2\n' > watch.yaml
"$GNIO" run --config watch.yaml --check-config > watch1.yaml
check "watchers: the file's 2 is kept" grep -qx '  watchers: 2' watch1.yaml
"$GNIO" run --config watch1.yaml --check-config > watch2.yaml
check "watchers: what --check-config prints reads back to the same" cmp -s watch1.yaml watch2.yaml
"$GNIO" run --check-config > watch3.yaml
check "watchers: none by default (the key is left out)" sh -c '! grep -q watchers watch3.yaml'
bad_config 5 "app.watchers" "watchers poll for a thread or warp receive" \
	$'version: 1\napp:\n  recv_scope: block\n  name: echo\n  watchers: 2'
bad_config 3 "app.watchers" "expected a whole number up to 31" $'version: 1\napp:\n  watchers: 32'
"$GNIO" run --config watch.yaml --gpu cpu --app echo --duration 1 --rate 20000 --quiet --json > watch.json 2> e; rc=$?
check "watchers: a run on the CPU device exits 0 (got $rc: $(head -c 200 e))" [ $rc -eq 0 ]
check "watchers: the CPU device reports none, and the echo balances" \
	[ "$(jq_py watch.json 'd["watchers"] == 0 and d["recv_scope"] == "warp" and d["balanced"] and d["tx_packets"] > 0')" = True ]
bad_config 3 "flow[1]" "match.dport: range 90-80 is reversed" \
	$'version: 1\nflow:\n  - "udp dport 53 -> queue 1"\n  - "udp dport 90-80 -> drop"'
bad_config 2 "queues.rss" "spreading needs --queues 2 or more" $'queues:\n  rss: true'
# Rules in the file steer the run: every frame of the generator is UDP to
# port 9000, so the first rule takes them all to queue 1.
printf 'version: 1\nqueues:\n  count: 2\nflow:\n  - "udp dport 9000 -> queue 1"\n  - "default -> drop"\n' > flow.yaml
"$GNIO" run --config flow.yaml --gpu cpu --duration 1 --rate 20000 --quiet --json > flow.json 2> e; rc=$?
check "flow: rules from the file run (exit $rc: $(head -c 200 e))" [ $rc -eq 0 ]
# Under TSan on a loaded machine queue 1's kernel can fall behind: frames
# its full ring refused are counted (ring_full) and still balance the books.
check "flow: the rule took every frame to queue 1 (delivered there or counted dropped), balanced" \
	[ "$(jq_py flow.json 'd["rules"][0]["hits"] == d["offered"] == d["per_queue"][1]["rx_packets"] + d["dropped_total"] and d["per_queue"][1]["rx_packets"] > 0 and d["per_queue"][0]["rx_packets"] == 0 and d["dropped_total"] == d["dropped"]["ring_full"] and d["balanced"]')" = True ]
"$GNIO" run --config flow.yaml --check-config > flow2.yaml
check "flow: --check-config writes the rules back" grep -qF -- '"udp dport 9000 -> queue 1"' flow2.yaml
bad_config 2 "metrics.hold" "a hold needs an endpoint" $'metrics:\n  hold: 3'
# YAML syntax: libyaml's line and column, and the key the parser was in.
bad_config 3:9 "in queues.ring: not valid YAML" "mapping values are not allowed" $'queues:\n  ring: 4\n   burst: 3'
one_line_rc() { # one_line_rc WANT-RC TEXT: the last command's rc ($rc), e holds one line with TEXT
	[ "$rc" -eq "$1" ] && [ "$(wc -l < e)" -eq 1 ] && grep -qF -- "$2" e
}
printf 'wire: "nosuch:x"\n' > w.yaml
"$GNIO" run --config w.yaml --duration 1 > o 2> e; rc=$?
check "a wire the file names that does not exist: exit 3 (got $rc), one line naming w.yaml:1: wire" \
	one_line_rc 3 "w.yaml:1: wire nosuch:x"
"$GNIO" run --config nosuch.yaml > o 2> e; rc=$?
check "a config file that is not there: exit 3 (got $rc), one line" one_line_rc 3 "nosuch.yaml: cannot read it"
"$GNIO" run --config job.yaml --config job.yaml > o 2> e; rc=$?
check "--config twice: exit 2 (got $rc), one line" one_line_rc 2 "--config given twice"
printf '' > empty.yaml
"$GNIO" run --config empty.yaml > o 2> e; rc=$?
check "an empty file: exit 2 (got $rc), says empty" one_line_rc 2 "empty.yaml: empty"
printf 'a: 1\n---\nb: 2\n' > two.yaml
"$GNIO" run --config two.yaml > o 2> e; rc=$?
check "two YAML documents: exit 2 (got $rc), names the second's line" one_line_rc 2 "two.yaml:3: a second YAML document"
"$GNIO" run --ring x --check-config > o 2> e; rc=$?
check "a bad flag with --check-config: exit 2 (got $rc), names --ring" one_line_rc 2 "--ring: expected"
"$GNIO" run --watchers 2 --check-config > o 2> e; rc=$?
check "--watchers with the default block receive: exit 2 (got $rc), one line naming --watchers" \
	one_line_rc 2 "--watchers: watchers poll for a thread or warp receive"
finish
