# SPDX-License-Identifier: MIT
# tests/cli/lib.sh - helpers for the CLI tests (sourced). Needs GNIO (the
# binary), GNIO_SRC (source tree) and optionally GNIO_BUILD.
set -u
: "${GNIO:?GNIO must point at the gnio binary}"
: "${GNIO_SRC:?GNIO_SRC must point at the source tree}"
SCHEMAS="$GNIO_SRC/share/gnio/schemas"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Any python3 works: schema_check.py falls back to its own validator.
PY=$(command -v python3 || echo /usr/bin/python3)
FAILS=0

ok()   { echo "ok   - $*"; }
bad()  { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
validate() { # validate SCHEMA DOC
	"$PY" "$GNIO_SRC/tests/cli/schema_check.py" "$SCHEMAS/$1" "$2"
}
jq_py() { # jq_py FILE PYTHON-EXPR (d is the document) -> prints result
	"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
finish() {
	if [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed"; exit 1; fi
	echo "all checks passed"; exit 0
}
