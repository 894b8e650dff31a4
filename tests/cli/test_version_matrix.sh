#!/bin/bash
# SPDX-License-Identifier: MIT
# Version matrix: the build-tree file validates, matches the @since tags in
# the headers exactly (no drift), and `gnio version-matrix` looks entries up.
. "$(dirname "$0")/lib.sh"

M=""
for c in "${GNIO_BUILD:-}/share/gnio/version-matrix.json" "$(dirname "$GNIO")/share/gnio/version-matrix.json"; do
	[ -f "$c" ] && { M=$c; break; }
done
if [ -z "$M" ]; then
	echo "SKIP: no generated version-matrix.json (is cmake/version_matrix.cmake included?)"
	exit 77
fi
check "matrix validates against version-matrix.schema.json" validate version-matrix.schema.json "$M"
ver=$(sed -n 's/^#define GNIO_VERSION_STRING "\(.*\)"/\1/p' "$GNIO_SRC/include/gnio/version.h")
check "matrix matches the headers' @since tags" \
	"$PY" "$GNIO_SRC/scripts/gen-version-matrix.py" --include "$GNIO_SRC/include/gnio" --version "$ver" --check "$M"

# Every tag in the headers is one entry (count them independently).
ntags=$(grep -rh '/\* @since ' "$GNIO_SRC/include/gnio" | wc -l)
nent=$(jq_py "$M" 'len(d["entries"])')
check "one entry per @since tag ($ntags)" [ "$ntags" = "$nent" ]
# Each entry's source line really declares its symbol.
srcok=$(cd "$GNIO_SRC" && jq_py "$M" 'all(e["symbol"].split()[-1] in open(e["source"].rsplit(":",1)[0]).read().split("\n")[int(e["source"].rsplit(":",1)[1])-1] for e in d["entries"])')
check "every entry's source line declares its symbol" [ "$srcok" = True ]

# Drift is caught: a tag that disappears makes --check fail.
cp -r "$GNIO_SRC/include" "$TMP/inc"
sed -i "/@since 0.2 timed_send:/d" "$TMP/inc/gnio/eth_txq.h"
"$PY" "$GNIO_SRC/scripts/gen-version-matrix.py" --include "$TMP/inc/gnio" --version "$ver" --check "$M" > /dev/null 2>&1
check "removing a tag is reported as drift" [ $? -eq 1 ]
sed -i 's|^gnio_error_t gnio_eth_txq_create(|/* @since 9.9 bogus: from the future */\n&|' "$TMP/inc/gnio/eth_txq.h"
"$PY" "$GNIO_SRC/scripts/gen-version-matrix.py" --include "$TMP/inc/gnio" --version "$ver" --out "$TMP/x.json" 2> "$TMP/e"
check "a tag newer than the library is refused" [ $? -eq 1 ]

# Lookups through the CLI, reading this build's matrix.
export GNIO_VERSION_MATRIX=$M
"$GNIO" version-matrix gpu_visible_rx --json > "$TMP/q.json"; rc=$?
check "lookup gpu_visible_rx exits 0" [ $rc -eq 0 ]
check "lookup returns exactly gpu_visible_rx" \
	[ "$(jq_py "$TMP/q.json" '[e["capability"] for e in d["entries"]]')" = "['gpu_visible_rx']" ]
check "gpu_visible_rx since 0.1" [ "$(jq_py "$TMP/q.json" 'd["entries"][0]["min_version"]')" = 0.1 ]
"$GNIO" version-matrix gnio_eth_txq_cap_get_wait_on_time_offload_supported > "$TMP/t.txt"; rc=$?
check "lookup by symbol finds timed_send" grep -q timed_send "$TMP/t.txt"
"$GNIO" version-matrix no_such_capability > /dev/null 2> "$TMP/e"; rc=$?
check "unknown name exits 1 with one line" [ $rc -eq 1 -a "$(wc -l < "$TMP/e")" -eq 1 ]
GNIO_VERSION_MATRIX=/nonexistent "$GNIO" version-matrix x > /dev/null 2>&1 ; rc=$?
check "a missing GNIO_VERSION_MATRIX file exits 3 (got $rc)" [ $rc -eq 3 ]
finish
