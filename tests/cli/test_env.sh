#!/bin/bash
# SPDX-License-Identifier: MIT
# gnio env: --json validates against env.schema.json; fields agree with what
# the machine shows; no GPU means an empty list with a reason.
. "$(dirname "$0")/lib.sh"

"$GNIO" env --json > "$TMP/env.json"; rc=$?
check "env --json exits 0" [ $rc -eq 0 ]
check "env --json validates against env.schema.json" validate env.schema.json "$TMP/env.json"

ngpu=$(jq_py "$TMP/env.json" 'len(d["gpus"])')
reason=$(jq_py "$TMP/env.json" 'd["gpus_reason"]')
if [ "$ngpu" = 0 ]; then
	check "no GPU: gpus_reason says why ($reason)" [ -n "$reason" -a "$reason" != None ]
else
	check "GPUs found: gpus_reason is null" [ "$reason" = None ]
	cc=$(jq_py "$TMP/env.json" 'd["gpus"][0]["compute_capability"]')
	check "GPU 0 has a compute capability ($cc)" [ -n "$cc" -a "$cc" != None ]
	if command -v nvidia-smi >/dev/null; then
		want=$(nvidia-smi --query-gpu=count --format=csv,noheader | head -1)
		check "gpu count matches nvidia-smi ($want)" [ "$ngpu" = "$want" ]
	fi
fi

# Every netdev in /sys/class/net is listed, with its MTU.
for d in /sys/class/net/*; do
	n=$(basename "$d")
	mtu=$(jq_py "$TMP/env.json" "[x['mtu'] for x in d['netdevs'] if x['name']=='$n']")
	check "netdev $n listed with mtu $(cat "$d/mtu")" [ "$mtu" = "[$(cat "$d/mtu")]" ]
done
kv=$(jq_py "$TMP/env.json" 'd["drivers"]["kernel_version"]')
check "kernel_version matches uname -r" [ "$kv" = "$(uname -r)" ]
libs=$(jq_py "$TMP/env.json" '",".join(sorted(x["name"] for x in d["libraries"]))')
check "libraries lists cudart,libbpf,libpcap,libxdp,nvml" [ "$libs" = "cudart,libbpf,libpcap,libxdp,nvml" ]
# A library the loader can find is reported found.
if ldconfig -p 2>/dev/null | grep -q 'libpcap.so'; then
	f=$(jq_py "$TMP/env.json" '[x["found"] for x in d["libraries"] if x["name"]=="libpcap"][0]')
	check "libpcap (in ldconfig cache) reported found" [ "$f" = True ]
fi

"$GNIO" env > "$TMP/env.txt"; rc=$?
check "human env exits 0" [ $rc -eq 0 ]
check "human env has a GPUs section" grep -q '^GPUs' "$TMP/env.txt"
"$GNIO" env --bogus > /dev/null 2>&1; rc=$?
check "unknown option exits 2" [ $rc -eq 2 ]
finish
