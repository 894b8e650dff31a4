#!/usr/bin/env bash
# bench/run.sh [BUILD_DIR] [options] - the benchmark suite on this machine
# (`make bench`), in one sitting, into one results folder:
#   1. bench/matrix.sh: gnio run over wires (null, sw), frame sizes, queue
#      counts and payload placements on the best device present -> matrix.jsonl
#   2. the echo round-trip latency (gnio_latency_bench) -> latency.json, on a
#      GPU with warp scope and inline headers too -> latency-fast.json, and
#      at 1000 frames/s with the proxies polling adaptively -> latency-adaptive.json,
#      and the host's hand-off between each pair of CPUs (bench/core_handoff)
#      -> core_handoff.txt, core_handoff.jsonl
#   3. launch patterns (bench/launch_patterns.cu, CUDA builds; skipped with
#      a reason where no GPU is usable) -> launch_patterns.json
#   3b. an idle queue's proxy CPU, adaptive against busy polling
#      (bench/idle_cpu.sh --json) -> idle_cpu.jsonl
#   4. --peers (root, DPDK): gnio beside testpmd on a veth pair -> peers.json
#      (GNIO_PEERS_SEARCH=1: with each row's highest zero-loss rate)
#   5. --wires (root): bench/wires/veth_rates.sh -> wires.txt
#   6. tables.md (markdown of every JSON above) and, with matplotlib and
#      without --no-plots, PNG plots in plots/ (bench/plot.py)
# Options: --full (the matrix the plots want: 64..1500 B, 1..8 queues; for
# the GPU machine, with 1500 B into GPU-memory and pinned pools at 4 and 8
# queues), --peers, --wires, --no-matrix, --no-latency, --no-launch,
# --no-idle, --no-plots.
# Env: GNIO_BENCH_OUT (results folder; default bench/results/<date>-<host>),
# GNIO_MATRIX_CONFIGS / GNIO_MATRIX_DURATION (bench/matrix.sh),
# GNIO_LATENCY_ARGS (gnio_latency_bench options; default --size 64 --count
# 20000 with a GPU, else --size 64 --count 2000 --pin 0 --poll yield),
# GNIO_LATENCY_ADAPTIVE_ARGS (the second run; default --size 64 --proxy-poll
# adaptive --interval-us 1000 --count 3000 --warmup 200, plus the CPU
# device's placement without a GPU),
# GNIO_LAUNCH_ARGS (extra launch_patterns options), GNIO_IDLE_WINDOW (idle_cpu.sh
# --window, default 10), GNIO_PEERS_* (peers.sh).
# Exit: 1 when a benchmark failed (its log says why), else 0; a benchmark
# skipped for want of hardware or privilege does not fail the run.
set -u -o pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
	BUILD=$1
	shift
fi
BUILD=$(cd "$BUILD" && pwd) || exit 1
# A build carried to the GPU machine (scripts/gpu-carry) brings the shared
# libraries that machine lacks.
[ -d "$BUILD/carry-lib" ] && export LD_LIBRARY_PATH="$BUILD/carry-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
WIRES=0 PEERS=0 FULL=0 MATRIX=1 LATENCY=1 LAUNCH=1 IDLE=1 PLOTS=1
for a in "$@"; do
	case $a in
	--wires) WIRES=1 ;;
	--peers) PEERS=1 ;;
	--full) FULL=1 ;;
	--no-matrix) MATRIX=0 ;;
	--no-latency) LATENCY=0 ;;
	--no-launch) LAUNCH=0 ;;
	--no-idle) IDLE=0 ;;
	--no-plots) PLOTS=0 ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	*) echo "bench/run.sh: unknown option $a" >&2; exit 2 ;;
	esac
done
OUT=${GNIO_BENCH_OUT:-$SRC/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-$(uname -n)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
echo "bench: results in $OUT"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -n) $(uname -r), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "commit: $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv,noheader
} >"$OUT/env.txt" 2>&1
FAILED=0

# The matrix the plots want: Gbit/s vs frame size (sw, 1 queue) and Mpps vs
# queues (null and sw, 64 B).
FULL_CONFIGS="
null 64 1 cpu_gpu
null 64 2 cpu_gpu
null 64 4 cpu_gpu
null 64 8 cpu_gpu
sw 64 1 cpu_gpu
sw 64 2 cpu_gpu
sw 64 4 cpu_gpu
sw 64 8 cpu_gpu
sw 128 1 cpu_gpu
sw 256 1 cpu_gpu
sw 512 1 cpu_gpu
sw 1024 1 cpu_gpu
sw 1500 1 cpu_gpu
sw 1500 4 gpu --app touch --threads 1024
sw 1500 8 gpu --app touch --threads 1024
sw 1500 8 cpu_gpu --app touch --threads 1024
"
SMALL_CONFIGS="
null 64 1 cpu_gpu
sw 64 1 cpu_gpu
sw 1500 1 cpu_gpu
null 64 2 cpu_gpu
sw 64 2 cpu_gpu
"
if [ "$MATRIX" = 1 ]; then
	[ "$FULL" = 1 ] && def=$FULL_CONFIGS || def=$SMALL_CONFIGS
	GNIO_MATRIX_CONFIGS=${GNIO_MATRIX_CONFIGS:-$def} GNIO_MATRIX_DURATION=${GNIO_MATRIX_DURATION:-3} \
		"$SRC/bench/matrix.sh" "$BUILD" "$OUT" || FAILED=1
fi

# Without a GPU the echo kernel is a host thread contending with the peer and
# both proxies for the cores: fewer round trips, and the placement that
# docs/PERFORMANCE.md found best on two cores.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
	LAT_DEF="--size 64 --count 20000"
else
	LAT_DEF="--size 64 --count 2000 --pin 0 --poll yield"
fi
LAT_ARGS=${GNIO_LATENCY_ARGS:-$LAT_DEF}
if [ "$LATENCY" = 1 ] && [ -x "$BUILD/bench/gnio_latency_bench" ]; then
	echo "bench: echo round trip (gnio_latency_bench $LAT_ARGS --json)"
	# shellcheck disable=SC2086
	"$BUILD/bench/gnio_latency_bench" $LAT_ARGS --json >"$OUT/latency.json" 2>"$OUT/latency.err"
	rc=$?
	tail -1 "$OUT/latency.json"
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && { echo "bench: latency failed (rc $rc, see latency.err)"; FAILED=1; }
	# On a GPU, the settings that answer fastest too: one warp receives and
	# sends and the completions carry the header; a lone frame's swapped
	# addresses then travel in its descriptor, so the send never fences
	# (docs/PERFORMANCE.md, "Inline header" and "The echo's header in the
	# descriptor").
	if [ -z "${GNIO_LATENCY_ARGS:-}" ] && [ "$LAT_DEF" = "--size 64 --count 20000" ]; then
		FAST_ARGS="$LAT_DEF --recv-scope warp --inline-header"
		echo "bench: echo round trip, fastest settings (gnio_latency_bench $FAST_ARGS --json)"
		# shellcheck disable=SC2086
		"$BUILD/bench/gnio_latency_bench" $FAST_ARGS --json >"$OUT/latency-fast.json" 2>"$OUT/latency-fast.err"
		rc=$?
		tail -1 "$OUT/latency-fast.json"
		[ $rc -ne 0 ] && [ $rc -ne 77 ] && { echo "bench: fast latency failed (rc $rc)"; FAILED=1; }
	fi
	# The adaptive target: an idle-looking queue (1000 frames/s) whose
	# proxies sleep between frames must still answer within 10 us.
	ADA_DEF="--size 64 --proxy-poll adaptive --interval-us 1000 --count 3000 --warmup 200"
	[ "$LAT_DEF" = "${LAT_DEF%--pin 0 --poll yield}" ] || ADA_DEF="$ADA_DEF --pin 0 --poll yield"
	ADA_ARGS=${GNIO_LATENCY_ADAPTIVE_ARGS:-$ADA_DEF}
	echo "bench: echo round trip at 1000 frames/s, adaptive proxies (gnio_latency_bench $ADA_ARGS --json)"
	# shellcheck disable=SC2086
	"$BUILD/bench/gnio_latency_bench" $ADA_ARGS --json >"$OUT/latency-adaptive.json" 2>"$OUT/latency-adaptive.err"
	rc=$?
	tail -1 "$OUT/latency-adaptive.json"
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && { echo "bench: adaptive latency failed (rc $rc)"; FAILED=1; }
fi

# The host's floor under every echo: what one hand-off between two pinned
# threads costs, per pair of CPUs (on a VM, pairs change from sitting to
# sitting: docs/PERFORMANCE.md, "Host hand-offs").
if [ "$LATENCY" = 1 ] && [ -x "$BUILD/bench/core_handoff" ]; then
	echo "bench: host hand-offs (core_handoff --json)"
	timeout -k 5 300 "$BUILD/bench/core_handoff" --json >"$OUT/core_handoff.txt" 2>"$OUT/core_handoff.err"
	rc=$?
	grep '^fastest' "$OUT/core_handoff.txt"
	grep '^{' "$OUT/core_handoff.txt" >"$OUT/core_handoff.jsonl"
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && { echo "bench: core_handoff failed (rc $rc)"; FAILED=1; }
fi

if [ "$LAUNCH" = 1 ]; then
	if [ -x "$BUILD/bench/launch_patterns" ]; then
		echo "bench: launch patterns (launch_patterns --json ${GNIO_LAUNCH_ARGS:-})"
		# shellcheck disable=SC2086
		timeout -k 5 900 "$BUILD/bench/launch_patterns" --json ${GNIO_LAUNCH_ARGS:-} >"$OUT/launch_patterns.txt" \
			2>"$OUT/launch_patterns.err"
		rc=$?
		grep -v '^{' "$OUT/launch_patterns.txt"
		tail -1 "$OUT/launch_patterns.txt" | grep '^{' >"$OUT/launch_patterns.json"
		case $rc in
		0) ;;
		77) echo "bench: launch patterns skipped (see above)" ;;
		*) echo "bench: launch patterns failed (rc $rc, see launch_patterns.err)"; tail -3 "$OUT/launch_patterns.err"; FAILED=1 ;;
		esac
	else
		echo "bench: launch patterns not built (a CUDA build has bench/launch_patterns)"
	fi
fi

if [ "$IDLE" = 1 ]; then
	echo "bench: idle queue CPU (idle_cpu.sh --window ${GNIO_IDLE_WINDOW:-10} --json)"
	"$SRC/bench/idle_cpu.sh" "$BUILD" --window "${GNIO_IDLE_WINDOW:-10}" --json >"$OUT/idle_cpu.jsonl" \
		2>"$OUT/idle_cpu.err"
	rc=$?
	cat "$OUT/idle_cpu.jsonl"
	[ $rc -ne 0 ] && { echo "bench: idle CPU failed (rc $rc, see idle_cpu.err)"; FAILED=1; }
fi

if [ "$PEERS" = 1 ]; then
	GNIO="$BUILD/gnio" GNIO_BENCH_OUT="$OUT" "$SRC/bench/peers.sh" "$BUILD"
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 77 ] && FAILED=1
fi

if [ "$WIRES" = 1 ]; then
	GNIO="$BUILD/gnio" "$SRC/bench/wires/veth_rates.sh" 1000000 | tee "$OUT/wires.txt"
fi

# tables.md always (python3 only); the plots where matplotlib is present.
if [ "$PLOTS" = 1 ]; then
	"$SRC/bench/plot.sh" "$OUT"
else
	"$SRC/bench/plot.sh" "$OUT" --tables-only
fi
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 77 ] && FAILED=1
echo "bench: results in $OUT"
exit $FAILED
