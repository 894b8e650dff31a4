#!/bin/bash
# SPDX-License-Identifier: MIT
# examples/gnio@.service holds what gnio run needs, and no more than it says:
# the unit passes `systemd-analyze verify`; gnio run on an afxdp wire, started
# with exactly the unit's CapabilityBoundingSet (setpriv, no new privileges)
# and a 1 MiB locked-memory limit, receives every frame and, on SIGTERM as
# systemd sends it, exits 0 with balanced books and its XDP program removed;
# after a SIGKILL (what a crash leaves) a restart with the unit's capabilities
# clears the stale program and runs, and one without CAP_SYS_ADMIN cannot -
# which is why the unit keeps that capability.
. "$(dirname "$0")/wirelib.sh"
: "${GNIO_SRC:?}"
UNIT="$GNIO_SRC/examples/gnio@.service"
need_env
command -v setpriv > /dev/null || skip "setpriv (util-linux) not installed"

# --- the unit file ------------------------------------------------------------
if command -v systemd-analyze > /dev/null; then
	sed "s|/usr/local/bin/gnio|$GNIO|" "$UNIT" > "$TMPD/gnio@.service"
	(cd "$TMPD" && systemd-analyze verify --man=no "./gnio@$VA.service") > "$TMPD/verify" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$TMPD/verify" ]; then
		ok "systemd-analyze verify: no complaint"
	else
		bad "systemd-analyze verify (rc $rc): $(head -3 "$TMPD/verify")"
	fi
else
	bad "systemd-analyze not installed (package systemd; scripts/bootstrap installs it)"
fi

caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || die "no CapabilityBoundingSet in $UNIT"
[ "$caps" = "$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")" ] || bad "AmbientCapabilities differs from the bounding set"
grep -q '^Restart=on-failure$' "$UNIT" && ok "Restart=on-failure" || bad "Restart=on-failure missing"
setpriv_caps() { # "CAP_A CAP_B" -> "+a,+b"
	local out="" c
	for c in $1; do out="$out,+$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"; done
	echo "${out#,}"
}
unit_caps=$(setpriv_caps "$caps")
no_sysadmin=$(setpriv_caps "$(echo "$caps" | sed 's/CAP_SYS_ADMIN//')")

# run_as CAPS TAG: gnio run on afxdp:$VA in $NSA with only CAPS, in the
# background; waits for its "running" line. RUNPID is gnio's pid.
run_as() {
	(
		ulimit -l 1024
		exec ip netns exec "$NSA" setpriv --no-new-privs --inh-caps=-all --bounding-set="-all,$1" \
			"$GNIO" run --wire "afxdp:$VA" --gpu cpu --duration 0 --json
	) > "$TMPD/$2.out" 2> "$TMPD/$2.err" &
	RUNPID=$!
	BGPIDS="$BGPIDS $RUNPID"
	for _ in $(seq 100); do
		grep -q ', running' "$TMPD/$2.err" 2> /dev/null && return 0
		kill -0 $RUNPID 2> /dev/null || break
		sleep 0.05
	done
	return 1
}
xdp_attached() { ip -n "$NSA" link show "$VA" | grep -q 'prog/xdp'; }

# --- a clean start, frames, SIGTERM -----------------------------------------
if run_as "$unit_caps" clean; then
	ok "gnio run starts on afxdp with the unit's capabilities ($caps)"
	ip netns exec "$NSB" "$GNIO" gen --wire "afpacket:$VB" --count 1000 > /dev/null || bad "gen 1000"
	sleep 1
	kill -TERM $RUNPID
	wait $RUNPID
	rc=$?
	expect "SIGTERM: exit status" $rc 0
	expect "SIGTERM: received every frame" "$(json "$TMPD/clean.out" "j['rx_packets']")" 1000
	expect "SIGTERM: books balance" "$(json "$TMPD/clean.out" "j['balanced']")" True
	# with --json only a failed rollback step is printed
	grep -q 'rollback [0-9]/5: GNIO_' "$TMPD/clean.err" && bad "SIGTERM: $(grep -m1 'rollback' "$TMPD/clean.err")" ||
		ok "SIGTERM: no rollback step failed"
	xdp_attached && bad "SIGTERM: an XDP program is still attached" || ok "SIGTERM: XDP program removed"
else
	bad "gnio run did not start with the unit's capabilities: $(tail -1 "$TMPD/clean.err")"
fi

# --- a crash (SIGKILL) and the restart ----------------------------------------
if run_as "$unit_caps" crash; then
	kill -KILL $RUNPID
	wait $RUNPID 2> /dev/null
	xdp_attached && ok "SIGKILL leaves gnio's XDP program attached (as a crash would)" ||
		bad "SIGKILL: expected the program to stay attached"

	run_as "$no_sysadmin" nosys
	kill -TERM $RUNPID 2> /dev/null
	wait $RUNPID
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'IN_USE' "$TMPD/nosys.err"; then
		ok "without CAP_SYS_ADMIN the restart fails (IN_USE): the unit needs it for crash recovery"
	else
		bad "without CAP_SYS_ADMIN the restart worked (rc $rc): drop CAP_SYS_ADMIN from the unit and its comment"
	fi

	if run_as "$unit_caps" restart; then
		ok "restart with the unit's capabilities clears the stale program and runs"
		kill -TERM $RUNPID
		wait $RUNPID
		expect "restart: exit status after SIGTERM" $? 0
	else
		bad "restart with the unit's capabilities failed: $(tail -1 "$TMPD/restart.err")"
	fi
	xdp_attached && bad "an XDP program is still attached at the end" || ok "interface clean at the end"
else
	bad "gnio run did not start for the crash test: $(tail -1 "$TMPD/crash.err")"
fi
finish
