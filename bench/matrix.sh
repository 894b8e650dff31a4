#!/usr/bin/env bash
# bench/matrix.sh BUILD_DIR [OUT_DIR] - gnio run over a matrix of wires,
# frame sizes, queue counts and payload placements on the best device present,
# in one sitting so the figures are comparable. One JSON line per run goes to
# OUT_DIR/matrix.jsonl; a table is printed last. A config line is
# "WIRE SIZE QUEUES MEM [extra gnio run options]".
#   null: frames appear without being written (gnio's own cost: ring, proxy, kernel)
#   sw:   frames built by the generator (adds frame building to the proxy)
set -u -o pipefail
BUILD=${1:?usage: bench/matrix.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-.}
DUR=${GNIO_MATRIX_DURATION:-4}
GNIO="$BUILD/gnio"
mkdir -p "$OUT"
: >"$OUT/matrix.jsonl"
CONFIGS=${GNIO_MATRIX_CONFIGS:-"
null 64 1 cpu_gpu
null 64 2 cpu_gpu
null 64 4 cpu_gpu
null 64 8 cpu_gpu
sw 64 1 cpu_gpu
sw 64 4 cpu_gpu
sw 64 8 cpu_gpu
null 1500 1 cpu_gpu
null 1500 4 cpu_gpu
sw 1500 1 cpu_gpu
sw 1500 4 cpu_gpu
null 64 1 gpu
sw 64 1 gpu
null 1500 1 gpu
sw 1500 1 gpu
sw 1500 4 gpu
"}
printf '%-5s %5s %3s %-8s %10s %10s %12s %9s\n' wire size q mem Mpps steady Gbit/s_st balanced >"$OUT/matrix.txt"
while read -r wire size q mem extra; do
	[ -z "$wire" ] && continue
	line=$(timeout -k 5 $((DUR + 60)) "$GNIO" run --wire "$wire:m" --size "$size" --queues "$q" --mem "$mem" \
		--duration "$DUR" --json --quiet $extra 2>"$OUT/matrix.err" | tail -1)
	rc=$?
	echo "{\"config\":\"$wire $size $q $mem $extra\",\"rc\":$rc,\"run\":${line:-null}}" >>"$OUT/matrix.jsonl"
	python3 - "$wire" "$size" "$q" "$mem" "$rc" "$line" "$extra" >>"$OUT/matrix.txt" <<'PY'
import json, sys
w, size, q, mem, rc, line, extra = sys.argv[1:8]
try:
    r = json.loads(line)
    print(f"{w:<5} {size:>5} {q:>3} {mem:<8} {r['mpps']:>10.2f} {r['mpps_steady']:>10.2f} {r['gbps_steady']:>12.2f} {str(r['balanced']):>9}  {extra}")
except Exception:
    print(f"{w:<5} {size:>5} {q:>3} {mem:<8} {'failed rc=' + rc:>10}")
PY
done <<<"$CONFIGS"
cat "$OUT/matrix.txt"
