#!/bin/bash
# SPDX-License-Identifier: MIT
# Man pages: `cmake --install` into a scratch prefix puts gnio(1) and one page
# per verb under share/man/man1; `man -l` renders each with no warning; each
# page names itself, and every long option a verb's --help lists is in its
# page (so the pages follow the flags).
. "$(dirname "$0")/lib.sh"
: "${GNIO_BUILD:?}"

if grep -q '^GNIO_SCDOC:FILEPATH=.*NOTFOUND' "$GNIO_BUILD/CMakeCache.txt"; then
	echo "SKIP: this build has no man pages (scdoc was not found at configure time; scripts/bootstrap installs it)"
	exit 77
fi
command -v man > /dev/null || { echo "FAIL: man not found (man-db; scripts/bootstrap installs it)"; exit 1; }

cmake --install "$GNIO_BUILD" --prefix "$TMP/prefix" > "$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; echo "FAIL: cmake --install"; exit 1; }
man1="$TMP/prefix/share/man/man1"

# The verbs, as gnio itself lists them (not from a list kept here).
verbs=$("$GNIO" --help | awk '/^verbs:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | grep -vx version)
check "gnio --help lists verbs ($(echo $verbs | wc -w))" [ -n "$verbs" ]

pages="gnio"
for v in $verbs; do pages="$pages gnio-$v"; done
for p in $pages; do
	f="$man1/$p.1"
	if [ ! -f "$f" ]; then
		bad "$p.1 installed in share/man/man1"
		continue
	fi
	ok "$p.1 installed in share/man/man1"
	MANWIDTH=100 man --warnings -l "$f" > "$TMP/$p.txt" 2> "$TMP/$p.err"; rc=$?
	check "man -l $p.1 exits 0 (got $rc)" [ $rc -eq 0 ]
	check "man -l $p.1 prints no warning or error" [ ! -s "$TMP/$p.err" ]
	[ -s "$TMP/$p.err" ] && head -3 "$TMP/$p.err"
	col -b < "$TMP/$p.txt" > "$TMP/$p.plain"
	check "$p.1 renders its NAME line" grep -qE "^ +$p - " "$TMP/$p.plain"
	check "$p.1 carries this version" grep -qF "gnio $(sed -n 's/.*GNIO_VERSION_STRING "\(.*\)".*/\1/p' "$GNIO_SRC/include/gnio/version.h")" "$TMP/$p.plain"
	[ "$p" = gnio ] && continue
	v=${p#gnio-}
	missing=""
	for opt in $("$GNIO" "$v" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qF -- "$opt" "$TMP/$p.plain" || missing="$missing $opt"
	done
	check "every option of gnio $v --help is in $p.1${missing:+ (missing:$missing)}" [ -z "$missing" ]
done

# gnio(1) names every verb page.
for v in $verbs; do
	check "gnio(1) refers to gnio-$v(1)" grep -qF "gnio-$v(1)" "$TMP/gnio.plain"
done
finish
