#!/usr/bin/env bash
# bench/run.sh BUILD_DIR - the benchmark suite on this machine (`make bench`):
#   1. bench/matrix.sh: gnio run over wires (null, sw), frame sizes, queue
#      counts and payload placements on the best device present;
#   2. the echo round-trip latency (gnio_latency_bench);
#   3. with --wires (root): veth receive/send rates of afxdp/afpacket beside
#      DPDK testpmd (scripts/bootstrap --bench installs testpmd).
# Results go to bench/results/<date>-<host>/; figures worth keeping are
# copied by hand into docs/PERFORMANCE.md with the command and machine.
set -u -o pipefail
BUILD=${1:-build}
shift || true
WIRES=0
for a in "$@"; do [ "$a" = --wires ] && WIRES=1; done
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT="$SRC/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-$(uname -n)"
mkdir -p "$OUT"
echo "bench: results in $OUT"
GNIO_MATRIX_CONFIGS=${GNIO_MATRIX_CONFIGS:-"
null 64 1 cpu_gpu
sw 64 1 cpu_gpu
sw 1500 1 cpu_gpu
null 64 2 cpu_gpu
sw 64 2 cpu_gpu
"} "$SRC/bench/matrix.sh" "$BUILD" "$OUT"
if [ -x "$BUILD/bench/gnio_latency_bench" ]; then
	"$BUILD/bench/gnio_latency_bench" --size 64 --count 20000 --json | tee "$OUT/latency.json" | tail -1
fi
if [ "$WIRES" = 1 ]; then
	GNIO="$BUILD/gnio" "$SRC/bench/wires/veth_rates.sh" 1000000 | tee "$OUT/wires.txt"
fi
