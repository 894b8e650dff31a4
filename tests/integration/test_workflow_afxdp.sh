#!/bin/bash
# `gnio test` against a veth peer (issue 5, item 6): on afxdp and afpacket
# wires every step has the status it must have and the verdict is green; a
# peer broken on purpose (link down, or --peer naming an interface that is
# not the other end) gives two identical red iterations, verdict escalate,
# a non-zero exit and an evidence bundle on disk.
#
# gnio test drives both ends from one process (the wire on one end of the
# veth pair, an AF_PACKET socket on the other), so both ends live in one
# private namespace here: wirelib's second namespace hands its end over.
. "$(dirname "$0")/wirelib.sh"
need_env
ip netns exec "$NSA" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
ip -n "$NSB" link set "$VB" netns "$NSA" || die "moving $VB next to $VA"
ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1" 2>/dev/null
ip -n "$NSA" link set "$VB" up || die "link up $VB"
ip -n "$NSA" link set lo up

VC=gvc$$ VD=gvd$$ # a second, unconnected pair: the "wrong --peer" case
ip -n "$NSA" link add "$VC" type veth peer name "$VD" || die "second veth pair"
for v in "$VC" "$VD"; do
	ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1" 2>/dev/null
	ip -n "$NSA" link set "$v" up || die "link up $v"
done

# wait_up IFACE...: both ends report carrier (bounded, no timing asserted)
wait_up() {
	for _ in $(seq 100); do
		local all=1
		for v in "$@"; do
			ip -n "$NSA" link show "$v" | grep -q "LOWER_UP" || all=0
		done
		[ $all = 1 ] && return 0
		sleep 0.05
	done
	echo "     (carrier not reported on $* yet)"
}

# gtest TAG ARGS...: gnio test in the namespace, --json to TAG.json, rc in RC
gtest() {
	local tag=$1
	shift
	ip netns exec "$NSA" "$GNIO" test --gpu cpu --json "$@" >"$TMPD/$tag.json" 2>"$TMPD/$tag.err"
	RC=$?
}

# check TAG MODE: print "ok" or the list of what is wrong with TAG.json
check() {
	$PY - "$TMPD/$1.json" "$2" <<'PYEOF'
import json, os, re, sys
path, mode = sys.argv[1], sys.argv[2]
try:
    j = json.load(open(path))
except Exception as e:
    print('no JSON report: %s' % e); sys.exit(0)
errs = []
def want(cond, what):
    if not cond:
        errs.append(what)
NAMES = ['smoke', 'burst', 'tx_smoke', 'multi_gpu', 'negative']
its = j.get('iterations', [])

def green_steps(it, n):
    st = {s['name']: s for s in it['steps']}
    want([s['name'] for s in it['steps']] == NAMES, 'iteration %d: steps %s' % (n, [s['name'] for s in it['steps']]))
    if set(NAMES) - set(st):
        return
    want(it['result'] == 'green', 'iteration %d: result %s' % (n, it['result']))
    s = st['smoke']
    want(s['status'] == 'pass' and 'kernel saw' in s['detail'], 'smoke: %s %s' % (s['status'], s['detail']))
    s = st['burst']
    want(s['status'] == 'pass' and s['detail'] == '1000 sent, 1000 processed, 0 dropped',
         'burst: %s %s' % (s['status'], s['detail']))
    s = st['tx_smoke']
    want(s['status'] == 'pass' and 'byte for byte' in s['detail'], 'tx_smoke: %s %s' % (s['status'], s['detail']))
    s = st['multi_gpu']
    # the CPU device, and in CI no CUDA GPU: skipped, with the reason
    want((s['status'] == 'skip' and re.search(r'CUDA GPU\(s\) present|built without CUDA', s['detail']))
         or (s['status'] == 'pass' and 'each of' in s['detail']),
         'multi_gpu: %s %s' % (s['status'], s['detail']))
    s = st['negative']
    want(s['status'] == 'pass' and 'rxq type 99: GNIO_ERROR_NOT_SUPPORTED' in s['detail']
         and 'device 0000:ff:1f.7: GNIO_ERROR_' in s['detail'], 'negative: %s %s' % (s['status'], s['detail']))
    q = it['identity']['queue']
    want(q['dropped_total'] == 0, 'identity.queue.dropped_total %s' % q['dropped_total'])
    want(q['kernel_packets'] >= 1002, 'identity.queue.kernel_packets %s (smoke + burst + tx_smoke)' % q['kernel_packets'])
    want(q['tx_packets'] >= 1002, 'identity.queue.tx_packets %s (every frame echoed)' % q['tx_packets'])
    want(it['identity']['bring_up'] == 'ok', 'bring_up %s' % it['identity']['bring_up'])
    want(it['identity']['kernel']['heartbeat_moving'] is True, 'heartbeat not moving')

if mode.startswith('green'):
    n = int(mode.split(':')[1])
    want(j.get('verdict') == 'green', 'verdict %s' % j.get('verdict'))
    want(j.get('evidence_bundle') is None, 'evidence bundle on a green run: %s' % j.get('evidence_bundle'))
    want(len(its) == n, '%d iteration(s), want %d' % (len(its), n))
    for k, it in enumerate(its):
        green_steps(it, k + 1)
elif mode.startswith('escalate'):
    # escalate:BUNDLE:SMOKE_DETAIL_SUBSTRING
    _, bundle, smoke = mode.split(':', 2)
    want(j.get('verdict') == 'escalate', 'verdict %s' % j.get('verdict'))
    want(len(its) == 2, '%d iterations, want 2 (stop at the second identical red one)' % len(its))
    if len(its) == 2:
        a, b = its
        want(a['result'] == 'red' and b['result'] == 'red', 'results %s %s' % (a['result'], b['result']))
        want(a['identity']['tuple'] == b['identity']['tuple'],
             'tuples differ:\n  %s\n  %s' % (a['identity']['tuple'], b['identity']['tuple']))
        strip = lambda it: [(s['name'], s['status'], s['detail']) for s in it['steps']]
        want(strip(a) == strip(b), 'steps differ between the two iterations')
        st = {s['name']: s for s in a['steps']}
        want([s['name'] for s in a['steps']] == NAMES, 'steps %s' % [s['name'] for s in a['steps']])
        for nm in ('smoke', 'burst', 'tx_smoke'):
            want(st.get(nm, {}).get('status') == 'fail', '%s: %s' % (nm, st.get(nm)))
        want(smoke in st.get('smoke', {}).get('detail', ''), 'smoke detail %r lacks %r' % (st.get('smoke'), smoke))
        # the check itself still works: the broken peer does not hide it
        want(st.get('negative', {}).get('status') == 'pass', 'negative: %s' % st.get('negative'))
    want(j.get('evidence_bundle') == bundle, 'evidence_bundle %s, want %s' % (j.get('evidence_bundle'), bundle))
    for f in ('test.json', 'env.json', 'caps.json', 'log.txt', 'nvidia-smi.txt'):
        p = os.path.join(bundle, f)
        want(os.path.isfile(p) and os.path.getsize(p) > 0, 'bundle file %s missing or empty' % f)
    try:
        t = json.load(open(os.path.join(bundle, 'test.json')))
        want(t['verdict'] == 'escalate' and len(t['iterations']) == 2
             and t['iterations'][0]['identity']['tuple'] == t['iterations'][1]['identity']['tuple'],
             'bundle test.json does not record the two identical iterations')
        json.load(open(os.path.join(bundle, 'env.json')))
        json.load(open(os.path.join(bundle, 'caps.json')))
    except Exception as e:
        errs.append('bundle JSON: %s' % e)
print('ok' if not errs else '\n       '.join(errs))
PYEOF
}

# assert NAME TAG MODE WANT_RC
assert_run() {
	local r
	r=$(check "$2" "$3")
	if [ "$RC" = "$4" ] && [ "$r" = ok ]; then
		ok "$1 (exit $RC)"
	else
		bad "$1: exit $RC (want $4); $r"
		tail -5 "$TMPD/$2.err"
	fi
}

no_xdp_left() {
	if ip -n "$NSA" -d link show "$VA" | grep -q "prog/xdp"; then bad "$1: XDP program left on $VA"; else
		ok "$1: no XDP program left on $VA"; fi
}

HAVE_XDP=1
ip netns exec "$NSA" "$GNIO" sink --wire "afxdp:$VA" --duration 0.1 >/dev/null 2>"$TMPD/probe.err" || {
	HAVE_XDP=0
	XDP_WHY=$(tail -1 "$TMPD/probe.err")
	echo "skip - AF_XDP unavailable here: $XDP_WHY (afpacket checks only)"
}
WIRES="afpacket"
[ $HAVE_XDP = 1 ] && WIRES="afxdp afpacket"
BW=afpacket
[ $HAVE_XDP = 1 ] && BW=afxdp
wait_up "$VA" "$VB"

# 1. green on each wire, every step as it must be
for W in $WIRES; do
	gtest "$W" --wire "$W:$VA" --peer "$VB"
	assert_run "$W: gnio test --wire $W:$VA --peer $VB green, steps smoke/burst/tx_smoke pass, multi_gpu skip, negative pass" \
		"$W" green:1 0
	[ "$W" = afxdp ] && no_xdp_left "afxdp green run"
done

# 2. --loop 3 on a good link: three green iterations, no bundle, exit 0
gtest loop3 --wire "$BW:$VA" --peer "$VB" --loop 3
assert_run "$BW: --loop 3 on a good link: 3 green iterations, no bundle" loop3 green:3 0

# 3. the human form says green too
ip netns exec "$NSA" "$GNIO" test --gpu cpu --wire "$BW:$VA" --peer "$VB" >"$TMPD/human.txt" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^verdict: green$" "$TMPD/human.txt" && [ "$(grep -c "^  smoke .* pass \|^  burst .* pass " \
	"$TMPD/human.txt")" = 2 ]; then ok "$BW: human output green (exit 0)"; else
	bad "$BW: human output (exit $rc)"; cat "$TMPD/human.txt"; fi

# 4. broken peer: its link down. Every send fails; the same red twice.
ip -n "$NSA" link set "$VB" down || die "link down $VB"
gtest down --wire "$BW:$VA" --peer "$VB" --loop 3 --evidence "$TMPD/ev_down"
assert_run "$BW: peer $VB down, --loop 3: two identical red iterations, escalate, bundle in $TMPD/ev_down" \
	down "escalate:$TMPD/ev_down:peer send on $VB failed: GNIO_ERROR_IO_FAILED (Network is down)" 1
[ "$BW" = afxdp ] && no_xdp_left "afxdp escalate run"
ip -n "$NSA" link set "$VB" up || die "link up $VB"
wait_up "$VA" "$VB"

# 5. broken peer: --peer names an interface that is not the other end. The
# kernel polls and sees nothing: the same red twice, with that said.
gtest wrong --wire "$BW:$VA" --peer "$VC" --loop 3 --evidence "$TMPD/ev_wrong"
assert_run "$BW: --peer $VC (not the other end), --loop 3: two identical red iterations, escalate, bundle" \
	wrong "escalate:$TMPD/ev_wrong:kernel alive and polling, no packets: nothing sent on $VC reached $BW:$VA" 1

# 6. --break-peer cannot aim at a netdev queue: a usage error, not a silent green
ip netns exec "$NSA" "$GNIO" test --gpu cpu --wire "$BW:$VA" --peer "$VB" --break-peer >/dev/null 2>"$TMPD/bp.err"
expect "$BW: --break-peer on a netdev wire is refused (exit, stderr lines)" "$?:$(wc -l <"$TMPD/bp.err")" "2:1"

# 7. the peer repaired: green again (the red runs' rollbacks left the link usable)
gtest again --wire "$BW:$VA" --peer "$VB"
assert_run "$BW: peer repaired: green again" again green:1 0

[ $HAVE_XDP = 1 ] || { [ "$FAILS" -eq 0 ] && skip "AF_XDP unavailable here: $XDP_WHY (afpacket checks passed)"; }
finish
