#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/multi_gpu.sh [BUILD_DIR] [--duration S] [--app NAME] - queue scaling on
# one GPU and across every CUDA GPU present, side by side in one sitting:
# `gnio run` on the sw wire with 1, 2, 4 and 8 queues on the first GPU, then
# 2, 4 and 8 queues spread over all of them (--gpu A,B,...). Each row must
# balance, and with several GPUs each device's share must be its queues'
# counts. Prints a markdown table (and JSON lines with --json) to stdout.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build DURATION=4 APP=count JSON=0
while [ $# -gt 0 ]; do
	case $1 in
	--duration) DURATION=$2; shift 2 ;;
	--app) APP=$2; shift 2 ;;
	--json) JSON=1; shift ;;
	-h|--help) sed -n '2,8p' "$0"; exit 0 ;;
	*) BUILD=$1; shift ;;
	esac
done
GNIO=$BUILD/gnio
[ -x "$GNIO" ] || { echo "multi_gpu.sh: $GNIO not built" >&2; exit 2; }
mapfile -t BUS < <(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | sed 's/^0000//' | tr 'A-F' 'a-f')
[ ${#BUS[@]} -ge 1 ] || { echo "multi_gpu.sh: no CUDA GPU (nvidia-smi)" >&2; exit 77; }
ALL=$(IFS=,; echo "${BUS[*]}")
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
FAIL=0

echo "| GPUs | queues | app | Mpps (steady) | per device (Mpps share of kernel frames) | balanced |"
echo "| --- | --- | --- | --- | --- | --- |"
row() { # row GPUS QUEUES
	"$GNIO" run --gpu "$1" --queues "$2" --app "$APP" --duration "$DURATION" --quiet --json \
		>"$TMPD/r.json" 2>"$TMPD/r.err"
	local rc=$?
	python3 - "$TMPD/r.json" "$1" "$2" "$rc" "$JSON" "$APP" <<'PYEOF' || FAIL=1
import json, sys
f, gpus, queues, rc, as_json, app = sys.argv[1:7]
try:
    j = json.loads(open(f).read().strip().splitlines()[-1])
except Exception:
    print(f"| {gpus.count(',') + 1} | {queues} | {app} | FAIL (exit {rc}, no JSON) | | |"); sys.exit(1)
devs = j["per_device"]
kp = j["kernel_packets"] or 1
share_ok = sum(d["kernel_packets"] for d in devs) == j["kernel_packets"] and \
    all(d["queues"] == sum(1 for q in j["per_queue"] if q["device"] == d["device"]) for d in devs)
ok = int(rc) == 0 and j["balanced"] and share_ok and j["kernel_packets"] == j["rx_packets"]
per = ", ".join(f"{d['device']}: {d['queues']} q, {j['mpps_steady'] * d['kernel_packets'] / kp:.1f}" for d in devs)
print(f"| {len(devs)} | {queues} | {app} | {j['mpps_steady']:.1f} | {per} | {ok} |")
if as_json == "1":
    print(json.dumps({"gpus": len(devs), "queues": int(queues), "app": app, "mpps_steady": j["mpps_steady"],
                      "per_device": devs, "balanced": j["balanced"], "ok": ok}))
sys.exit(0 if ok else 1)
PYEOF
}
for q in 1 2 4 8; do row "${BUS[0]}" $q; done
if [ ${#BUS[@]} -gt 1 ]; then
	for q in 2 4 8; do row "$ALL" $q; done
fi
echo
echo "$(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x ${#BUS[@]}, $DURATION s per row, sw wire, 64 B"
exit $FAIL
