#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run --user NAME: once set up, every thread runs as NAME with no
# capabilities (the sw wire's teardown needs none), no bounding set and
# no-new-privileges, and the run still ends with exact books. A user that
# does not exist, root, and a caller who may not switch users are refused
# before anything is built. (The afxdp wire, whose teardown keeps two
# capabilities: tests/integration/test_user_wires.sh.)
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "skip: switching users needs root"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "skip: no user 'nobody'"; exit 77; }
# A sanitizer build: after the user switch the process is not dumpable, so
# LeakSanitizer (ASan) cannot stop its threads at exit; TSan likewise.
if nm "$GNIO" 2>/dev/null | grep -qE "__(asan|tsan)_init"; then echo "skip: sanitizer build"; exit 77; fi
NOBODY=$(id -u nobody)

"$GNIO" run --gpu cpu --user nobody --duration 3 --json > "$TMP/u" 2> "$TMP/u.err" &
rp=$!
for _ in $(seq 50); do grep -q 'running as nobody' "$TMP/u.err" 2> /dev/null && break; sleep 0.1; done
sleep 0.3
# every thread: uid, capability sets, no-new-privileges
: > "$TMP/tasks"
for t in /proc/$rp/task/*; do
	echo "$(cat "$t/comm") $(awk '/^(Uid|Gid|CapEff|CapPrm|CapInh|CapBnd|CapAmb|NoNewPrivs):/ {printf "%s=%s ", $1, $2}' "$t/status")" >> "$TMP/tasks"
done
wait $rp; rc=$?
cat "$TMP/tasks"
check "--user nobody: exits 0 (got $rc: $(tail -1 "$TMP/u.err"))" [ $rc -eq 0 ]
check "--user nobody: says so" grep -q "running as nobody (uid $NOBODY), capabilities kept: none" "$TMP/u.err"
check "--user nobody: saw the proxy and kernel threads too ($(wc -l < "$TMP/tasks") threads)" \
	grep -q '^gnio-rx0 ' "$TMP/tasks"
check "--user nobody: every thread runs as uid $NOBODY" \
	[ "$(grep -vc "Uid:=$NOBODY" "$TMP/tasks")" = 0 ]
check "--user nobody: no thread has a capability in any set" \
	[ "$(grep -Ec 'Cap(Eff|Prm|Inh|Bnd|Amb):=0*[1-9a-f]' "$TMP/tasks")" = 0 ]
check "--user nobody: every thread has no-new-privileges" [ "$(grep -vc 'NoNewPrivs:=1' "$TMP/tasks")" = 0 ]
tail -n 1 "$TMP/u" > "$TMP/u.json"
check "--user nobody: frames delivered, books balance" \
	[ "$(jq_py "$TMP/u.json" 'd["rx_packets"] > 0 and d["balanced"]')" = True ]

refused() { # refused RC WORD ARGS...: exits RC, one line naming WORD, nothing built
	local want=$1 word=$2; shift 2
	"$@" > "$TMP/o" 2> "$TMP/e"; local rc=$?
	check "$* exits $want (got $rc)" [ $rc -eq "$want" ]
	check "$* names the problem ('$word'): $(head -1 "$TMP/e")" grep -qF -- "$word" "$TMP/e"
	# a coverage build's runtime adds "profiling: ...: Cannot open" lines when
	# the process is not root and cannot write its counters: not gnio's
	check "$* prints one line" [ "$(grep -vc '^profiling:' "$TMP/e")" -eq 1 ]
}
refused 2 "no user 'no-such-user-gnio'" "$GNIO" run --gpu cpu --duration 1 --user no-such-user-gnio
refused 2 "is root" "$GNIO" run --gpu cpu --duration 1 --user root
if command -v setpriv > /dev/null; then
	refused 3 "switching users needs root" setpriv --reuid "$NOBODY" --regid "$NOBODY" --clear-groups \
		"$GNIO" run --gpu cpu --duration 1 --user nobody
fi
finish
