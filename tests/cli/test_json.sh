#!/bin/bash
# SPDX-License-Identifier: MIT
# The CLI's JSON goes through jansson: the binary links it and calls its
# encoder and decoder; strings with quotes, backslashes, control characters
# and non-ASCII come back exactly; bytes that are not UTF-8 become '?' and
# the document stays valid; files read back with errors or repeated member
# names are refused with one line naming the place.
. "$(dirname "$0")/lib.sh"

# --- the library ------------------------------------------------------------
if command -v ldd > /dev/null; then
	check "ldd gnio shows libjansson" grep -q 'libjansson' <(ldd "$GNIO")
else
	bad "ldd not found (libc-bin)"
fi
if command -v nm > /dev/null; then
	syms=$(nm -D --undefined-only "$GNIO")
	for s in json_dumpf json_loads json_load_file; do
		check "gnio calls jansson's $s" grep -qw "$s" <<< "$syms"
	done
else
	bad "nm not found (binutils)"
fi

# --- strings survive the writer --------------------------------------------
name=$'a"b\\c\td\xc3\xa9'
"$GNIO" caps --json --gpu cpu --wire "sw:$name" > "$TMP/caps.json" 2> "$TMP/caps.err"; rc=$?
check "caps --wire sw:<quote, backslash, tab, é> exits 0 (got $rc)" [ $rc -eq 0 ]
got=$(jq_py "$TMP/caps.json" 'd["wire"]["name"].encode("utf-8").hex()')
want=$(printf '%s' "$name" | od -An -tx1 | tr -d ' \n')
check "the wire name comes back byte for byte ($want)" [ "$got" = "$want" ]

"$GNIO" caps --json --gpu cpu --wire $'sw:x\xffy' > "$TMP/bin.json" 2> /dev/null; rc=$?
check "caps with a non-UTF-8 wire name exits 0 (got $rc)" [ $rc -eq 0 ]
check "a non-UTF-8 byte is written as '?'" [ "$(jq_py "$TMP/bin.json" 'd["wire"]["spec"]')" = "sw:x?y" ]

# --- one line where scripts take the last line ------------------------------
"$GNIO" gen --wire null:j --count 10 --json > "$TMP/gen" 2> /dev/null; rc=$?
check "gen --json exits 0 (got $rc)" [ $rc -eq 0 ]
tail -n 1 "$TMP/gen" > "$TMP/gen.json"
check "gen --json: the last line alone is the object" [ "$(jq_py "$TMP/gen.json" 'd["sent"] == 10')" = True ]

# --- the reader ---------------------------------------------------------------
printf '{"schema_version": 1,\n "entries": [1, 2\n' > "$TMP/broken.json"
GNIO_VERSION_MATRIX="$TMP/broken.json" "$GNIO" version-matrix > "$TMP/o" 2> "$TMP/e"; rc=$?
check "a truncated matrix file exits 1 (got $rc)" [ $rc -eq 1 ]
check "one line on stderr (got $(wc -l < "$TMP/e"))" [ "$(wc -l < "$TMP/e")" -eq 1 ]
check "the error gives the line (3)" grep -q 'line 3' "$TMP/e"

printf '{"entries": [], "entries": []}\n' > "$TMP/dup.json"
GNIO_VERSION_MATRIX="$TMP/dup.json" "$GNIO" version-matrix > "$TMP/o" 2> "$TMP/e"; rc=$?
check "a repeated member name is refused (exit $rc)" [ $rc -eq 1 ]
check "the error says the key is repeated" grep -q 'duplicate' "$TMP/e"

# debug --compare reads both captures back through the reader.
mkdir -p "$TMP/a" "$TMP/b"
printf '{"x": 1.5, "s": "q\\"t", "n": null, "l": [true, 3]}\n' > "$TMP/a/capture.json"
printf '{"x": 2.25, "s": "q\\"t", "n": null, "l": [true, 3], "new": 7}\n' > "$TMP/b/capture.json"
"$GNIO" debug --compare "$TMP/a" "$TMP/b" > "$TMP/cmp" 2>&1; rc=$?
check "compare of differing captures exits 1 (got $rc)" [ $rc -eq 1 ]
check "compare names the changed real (x: 1.5 -> 2.25)" grep -qF '~ x: 1.5 -> 2.25' "$TMP/cmp"
check "compare names the member only in b (new = 7)" grep -qF '+ new = 7' "$TMP/cmp"
check "compare counts 2 differences" grep -q '^2 difference' "$TMP/cmp"
finish
