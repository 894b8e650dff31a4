#!/bin/bash
# afxdp wire over a veth pair: the common wire suite, skb mode, a killed
# run's XDP program removed by the next run, and the program detached on exit.
. "$(dirname "$0")/wirelib.sh"
need_env
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 0.1 >/dev/null 2>"$TMPD/probe.err" ||
	skip "AF_XDP unavailable here: $(tail -1 $TMPD/probe.err)"

wire_suite afxdp

# skb (generic) mode forced
sink_start "$NSA" skb --wire "afxdp:$VA,mode=skb" --count 1000 --duration 10 --verify || die "sink"
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 1000 >/dev/null || bad "gen 1000"
sink_wait
expect "afxdp mode=skb: received" "$(json $TMPD/skb.json "j['rx_packets']")" 1000
expect "afxdp mode=skb: mode reported" "$(json $TMPD/skb.json "j['mode'].split(',')[0]")" skb

# libxdp without its BPF objects (a machine the library was carried to):
# its dispatcher cannot load, and the program goes in on its own
mkdir -p "$TMPD/no-bpf-objects"
LIBXDP_OBJECT_PATH=$TMPD/no-bpf-objects GNIO_LOG_LEVEL=info sink_start "$NSA" nobpf --wire "afxdp:$VA" --count 1000 \
	--duration 10 --verify || die "sink without libxdp's objects"
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 1000 >/dev/null || bad "gen 1000"
sink_wait
expect "afxdp without libxdp's objects: received" "$(json $TMPD/nobpf.json "j['rx_packets']")" 1000
# the flow program goes in through libxdp; the plain one never asks for the dispatcher
ip netns exec "$NSA" "$GNIO" caps --wire "afxdp:$VA" --gpu cpu --json >"$TMPD/caps.json" 2>/dev/null
if [ "$(json $TMPD/caps.json "j['wire']['queries']['flow_actions']['kernel']")" = supported ]; then
	expect "afxdp without libxdp's objects: the lone-program attach logged" \
		"$(grep -c "no dispatcher object here" "$TMPD/nobpf.err")" 1
fi
if ip -n "$NSA" link show "$VA" | grep -q xdp; then bad "XDP program left after the run without libxdp's objects"; else
	ok "the program attached without libxdp's objects was detached on exit"; fi

# a killed run leaves its XDP program; the next run removes it and works
sink_start "$NSA" killed --wire "afxdp:$VA" --duration 60 || die "sink"
kill -9 "$SINKPID"; wait "$SINKPID" 2>/dev/null
if ip -n "$NSA" link show "$VA" | grep -q "prog/xdp\|xdp"; then ok "killed run left its XDP program"; else
	bad "expected a leftover XDP program after SIGKILL"; fi
GNIO_LOG_LEVEL=warning sink_start "$NSA" after --wire "afxdp:$VA" --count 1000 --duration 10 --verify || die "sink after kill"
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 1000 >/dev/null || bad "gen 1000"
sink_wait
expect "afxdp after SIGKILL: received" "$(json $TMPD/after.json "j['rx_packets']")" 1000
if grep -q "removed XDP program" "$TMPD/after.err"; then ok "stale program removal logged"; else
	bad "no log line about the removed program"; cat "$TMPD/after.err"; fi
if ip -n "$NSA" link show "$VA" | grep -q xdp; then bad "XDP program left after a clean exit"; else
	ok "XDP program detached on exit"; fi

# the owner's lock file exists while it runs and is removed when it exits;
# the one the killed run left above was taken over and removed too
LOCK=/run/gnio/afxdp-$(ip netns exec "$NSA" stat -L -c %i /proc/self/ns/net)-$(ip netns exec "$NSA" cat /sys/class/net/$VA/ifindex).lock
sink_start "$NSA" lock --wire "afxdp:$VA" --duration 1 || die "sink for the lock file"
if [ -e "$LOCK" ]; then ok "lock file present while the wire is open"; else bad "no lock file at $LOCK"; fi
sink_wait
if [ -e "$LOCK" ]; then bad "lock file $LOCK left after a clean exit"; else ok "lock file removed on exit"; fi

# a foreign XDP program is not removed without force=1 (IN_USE, one line)
FOREIGN=""
for o in /usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o /usr/lib/bpf/xdpfilt_alw_all.o; do
	[ -f "$o" ] && FOREIGN=$o && break
done
if [ -n "$FOREIGN" ] && ip -n "$NSA" link set dev "$VA" xdpgeneric obj "$FOREIGN" sec xdp 2>/dev/null; then
	ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 1 >/dev/null 2>"$TMPD/foreign.err"; rc=$?
	expect "foreign XDP program: exit code" "$rc" 3
	expect "foreign XDP program: one-line IN_USE reason" \
		"$(wc -l <"$TMPD/foreign.err"):$(grep -c "has XDP program 'xdpfilt_alw_all'.*force=1" "$TMPD/foreign.err")" "1:1"
	if ip -n "$NSA" -d link show "$VA" | grep -q "name xdpfilt_alw_all"; then ok "foreign program left in place"; else
		bad "foreign program removed without force=1"; fi
	GNIO_LOG_LEVEL=warning sink_start "$NSA" force --wire "afxdp:$VA,force=1" --count 100 --duration 10 --verify ||
		die "sink force=1"
	ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$VB" --count 100 >/dev/null || bad "gen force=1"
	sink_wait
	expect "force=1 replaces the foreign program: received" "$(json $TMPD/force.json "j['rx_packets']")" 100
	expect "force=1: removal logged" "$(grep -c "removed XDP program 'xdpfilt_alw_all'" "$TMPD/force.err")" 1
	if ip -n "$NSA" -d link show "$VA" | grep -q "prog/xdp"; then bad "XDP program left after force=1 run"; else
		ok "force=1 run detached on exit"; fi
else
	echo "skip - no foreign XDP object (xdp-tools' xdpfilt_alw_all.o) could be attached"
fi

# MTU above the AF_XDP frame: one line naming both numbers, exit 3, nothing attached
ip -n "$NSA" link set "$VA" mtu 9000 || die "mtu 9000"
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 1 >/dev/null 2>"$TMPD/mtu.err"; rc=$?
expect "MTU 9000: exit code" "$rc" 3
expect "MTU 9000: one line naming MTU and frame size" \
	"$(wc -l <"$TMPD/mtu.err"):$(grep -c "MTU 9000 .*larger than the AF_XDP frame size 3840" "$TMPD/mtu.err")" "1:1"
if ip -n "$NSA" -d link show "$VA" | grep -q "prog/xdp"; then bad "XDP program left after the MTU error"; else
	ok "MTU error leaves no XDP program"; fi
# The same through gnio run, whose pool is the UMEM (2048-byte chunks). Its
# refusal once read the freed queue for its message (heap use-after-free
# under the ASan build, which `make test-sanitize` runs this test with).
ip netns exec "$NSA" "$GNIO" run --wire "afxdp:$VA" --gpu cpu --duration 1 >/dev/null 2>"$TMPD/mtu_run.err"; rc=$?
expect "MTU 9000, gnio run: exit code" "$rc" 3
expect "MTU 9000, gnio run: names the MTU and the pool's frame size, no sanitizer report" \
	"$(grep -c "MTU 9000 .*larger than the AF_XDP frame size 1792 (chunk 2048" "$TMPD/mtu_run.err"):$(grep -c "Sanitizer\|runtime error" "$TMPD/mtu_run.err")" "1:0"
if ip -n "$NSA" -d link show "$VA" | grep -q "prog/xdp"; then bad "XDP program left after gnio run's MTU error"; else
	ok "gnio run's MTU error leaves no XDP program"; fi
ip -n "$NSA" link set "$VA" mtu 1500

# RLIMIT_MEMLOCK too small (and no CAP_IPC_LOCK, which root has and which
# lifts the limit): NO_MEMORY naming the limit, exit 3, no crash
if command -v prlimit >/dev/null && command -v setpriv >/dev/null; then
	prlimit --memlock=1048576:1048576 setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
		ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 1 >/dev/null 2>"$TMPD/mlock.err"; rc=$?
	expect "RLIMIT_MEMLOCK 1 MiB: exit code" "$rc" 3
	expect "RLIMIT_MEMLOCK 1 MiB: one line naming the limit" \
		"$(wc -l <"$TMPD/mlock.err"):$(grep -c "exceeds RLIMIT_MEMLOCK (1024 KiB)" "$TMPD/mlock.err")" "1:1"
	if ip -n "$NSA" -d link show "$VA" | grep -q "prog/xdp"; then bad "XDP program left after the memlock error"; else
		ok "memlock error leaves no XDP program"; fi
else
	echo "skip - prlimit/setpriv not installed"
fi

# One interface, two gnio processes: a receiver on queue 0 holds the
# interface (a second receiver is IN_USE at once), while a sender on
# queue 1 takes no lock and runs beside it.
MA=mqa$$ MB=mqb$$
ip -n "$NSA" link add "$MA" numtxqueues 2 numrxqueues 2 type veth peer name "$MB" numtxqueues 2 numrxqueues 2 \
	netns "$NSB" || die "a 2-queue veth pair"
ip -n "$NSA" link set "$MA" up && ip -n "$NSB" link set "$MB" up || die "2-queue pair up"
sink_start "$NSA" mqrx --wire "afxdp:$MA@0" --count 1000 --duration 10 --verify || die "sink on queue 0"
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$MA@1" --duration 1 >/dev/null 2>"$TMPD/mq2.err"; rc=$?
expect "a second receiver on the interface: exit code" "$rc" 3
expect "a second receiver on the interface: one line saying a gnio process receives on it" \
	"$(wc -l <"$TMPD/mq2.err"):$(grep -c "in use by another gnio process that receives on it" "$TMPD/mq2.err")" "1:1"
b0=$(ip netns exec "$NSB" cat "/sys/class/net/$MB/statistics/rx_packets")
ip netns exec "$NSA" "$GNIO" gen --wire "afxdp:$MA@1" --count 500 >/dev/null 2>"$TMPD/mqtx.err"; rc=$?
expect "a sender beside the receiver, on queue 1: exit code" "$rc" 0
ip netns exec "$NSB" "$GNIO" gen --wire "afxdp:$MB@0" --count 1000 >/dev/null || bad "gen 1000 to queue 0"
sink_wait
expect "the receiver on queue 0 got the other side's frames" "$(json $TMPD/mqrx.json "j['rx_packets']")" 1000
expect "the sender's frames reached the other side" \
	"$(($(ip netns exec "$NSB" cat "/sys/class/net/$MB/statistics/rx_packets") - b0))" 500

finish
