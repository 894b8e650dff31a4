#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio run --user nobody on the real wires. Once set up, every thread runs
# as nobody; the main thread, which runs the rollback, keeps exactly what
# the wire's teardown needs (afxdp: CAP_NET_ADMIN to detach the XDP program,
# CAP_DAC_OVERRIDE to remove the owner lock under /run/gnio; afpacket:
# nothing) and every other thread nothing. Frames still arrive, the books
# balance, and the teardown leaves no XDP program and no lock file; the
# rollback's step 5 checks the queues stopped without a trial start, which
# the dropped privileges could not do.
. "$(dirname "$0")/wirelib.sh"
need_env
id nobody > /dev/null 2>&1 || skip "no user 'nobody'"
# A sanitizer build: after the user switch the process is not dumpable, so
# LeakSanitizer (ASan) cannot stop its threads at exit; TSan likewise.
if nm "$GNIO" 2>/dev/null | grep -qE "__(asan|tsan)_init"; then echo "skip: sanitizer build"; exit 77; fi
NOBODY=$(id -u nobody)
# capability bits (linux/capability.h): CAP_DAC_OVERRIDE 1, CAP_NET_ADMIN 12
AFXDP_CAPS=$(printf '%016x' $(((1 << 1) | (1 << 12))))

for W in afxdp afpacket; do
	ip netns exec "$NSA" "$GNIO" run --wire "$W:$VA" --gpu cpu --user nobody --duration 0 --json \
		> "$TMPD/$W.json" 2> "$TMPD/$W.err" &
	RP=$!
	BGPIDS="$BGPIDS $RP"
	run_ready "$TMPD/$W.err" $RP || { bad "$W: gnio run --user nobody did not start"; continue; }
	for _ in $(seq 50); do grep -q 'running as nobody' "$TMPD/$W.err" && break; sleep 0.1; done
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 2000 > /dev/null || bad "$W: gen 2000"
	sleep 0.5
	want_main=0000000000000000
	[ $W = afxdp ] && want_main=$AFXDP_CAPS
	main_caps="" others_bad=0 uid_bad=0 nnp_bad=0 n=0
	for t in /proc/$RP/task/*; do
		n=$((n + 1))
		st=$(cat "$t/status")
		[ "$(echo "$st" | awk '/^Uid:/ {print $2}')" = "$NOBODY" ] || uid_bad=$((uid_bad + 1))
		[ "$(echo "$st" | awk '/^NoNewPrivs:/ {print $2}')" = 1 ] || nnp_bad=$((nnp_bad + 1))
		eff=$(echo "$st" | awk '/^CapEff:/ {print $2}') prm=$(echo "$st" | awk '/^CapPrm:/ {print $2}')
		if [ "${t##*/}" = "$RP" ]; then
			main_caps="$eff/$prm"
		elif [ "$eff" != 0000000000000000 ] || [ "$prm" != 0000000000000000 ]; then
			others_bad=$((others_bad + 1))
		fi
	done
	expect "$W --user: every one of $n threads runs as nobody (threads that do not)" $uid_bad 0
	expect "$W --user: every thread has no-new-privileges (threads without)" $nnp_bad 0
	expect "$W --user: the main thread keeps exactly the teardown's capabilities (effective/permitted)" \
		"$main_caps" "$want_main/$want_main"
	expect "$W --user: the other threads keep none (threads with some)" $others_bad 0
	kill -TERM $RP
	wait $RP
	expect "$W --user: SIGTERM exits 0" $? 0
	expect "$W --user: received every frame" "$(json "$TMPD/$W.json" "j['rx_packets']")" 2000
	expect "$W --user: books balance" "$(json "$TMPD/$W.json" "j['balanced']")" True
	grep -q 'rollback [0-9]/5: GNIO_' "$TMPD/$W.err" && bad "$W --user: $(grep -m1 'rollback' "$TMPD/$W.err")" ||
		ok "$W --user: no rollback step failed"
	ip -n "$NSA" link show "$VA" | grep -q 'prog/xdp' && bad "$W --user: an XDP program is still attached" ||
		ok "$W --user: no XDP program left"
	ino=$(stat -L -c %i "/run/netns/$NSA")
	ls /run/gnio/afxdp-"$ino"-*.lock > /dev/null 2>&1 && bad "$W --user: lock file left: $(ls /run/gnio/afxdp-"$ino"-*)" ||
		ok "$W --user: no lock file left"
done
finish
