#!/usr/bin/env bash
# bench/plot.sh [RESULTS_DIR] [plot.py options] - tables.md and PNG plots of a
# bench run (bench/plot.py), with a python3 that has matplotlib: Debian's
# /usr/bin/python3 first, since another python3 on PATH may lack it. Default
# RESULTS_DIR: the newest folder under bench/results/. Without matplotlib
# only tables.md is written (exit 77).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
RES=${1:-}
if [ -z "$RES" ] || [ "${RES#--}" != "$RES" ]; then
	RES=$(ls -1d "$SRC"/bench/results/*/ 2>/dev/null | sort | tail -1)
	[ -n "$RES" ] || { echo "bench/plot.sh: no results under bench/results/ (run make bench)"; exit 1; }
else
	shift
fi
PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c "import matplotlib" 2>/dev/null; then
		PY=$p
		break
	fi
done
# No matplotlib anywhere: plot.py still writes the tables, then exits 77.
[ -n "$PY" ] || PY=$(command -v python3 || echo /usr/bin/python3)
exec "$PY" "$SRC/bench/plot.py" "$RES" "$@"
