#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate share/gnio/version-matrix.json from the "since" tags in the
public headers, so the matrix cannot drift from the API it describes.

Tag form (one line, directly above the declaration it tags; docs/cli.md):

    /* @since 0.1 gpu_visible_rx: GPU-visible RX queue handle */
    /* @since 0.1 until 0.3 old_thing: Something removed in 0.3 */
    /* @since libxdp 1.2 ... */   (a library other than gnio; default gnio)

usage: gen-version-matrix.py --include DIR --version X.Y.Z --out FILE
       gen-version-matrix.py --include DIR --version X.Y.Z --check FILE

--check compares FILE's entries with the headers and exits 1 on any
difference (generated_at is ignored). The generator fails (exit 1) on a tag it
cannot parse, a tag with no declaration after it, a duplicate capability, or a
version newer than the library being built.
"""
import argparse
import datetime
import json
import os
import re
import sys

TAG = re.compile(r"^\s*/\*\s*@since\s+(?:(?P<lib>[A-Za-z][\w.+-]*)\s+)?(?P<min>\d+\.\d+(?:\.\d+)?)"
                 r"(?:\s+until\s+(?P<max>\d+\.\d+(?:\.\d+)?))?\s+(?P<cap>[a-z][a-z0-9_]*)\s*:\s*(?P<name>[^*]+?)\s*\*/\s*$")
ANY_TAG = re.compile(r"@since\b")
FUNC = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
MACRO = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")
TYPE = re.compile(r"^\s*(?:typedef\s+)?(struct|enum|union)\s+([A-Za-z_]\w*)")
SKIP_WORDS = {"GNIO_DEV", "GNIO_HD", "__attribute__", "GNIO_ALIGNED", "sizeof"}


def vtuple(v):
    return tuple(int(x) for x in v.split("."))


TEMPLATE = re.compile(r"^\s*template\s*<")


def declared_name(lines, start):
    """Name, kind and line index of the first declaration at or after
    lines[start]. A C++ template header (template <...>, possibly over several
    lines) is skipped: the declaration is the function after it."""
    in_template = False
    for i in range(start, min(start + 12, len(lines))):
        ln = lines[i]
        if not ln.strip() or ln.strip().startswith(("/*", "*", "//")):
            continue
        if TEMPLATE.match(ln) or in_template:
            in_template = not ln.rstrip().endswith(">")
            continue
        m = MACRO.match(ln)
        if m:
            return m.group(1), "macro", i
        for m in FUNC.finditer(ln):
            if m.group(1) not in SKIP_WORDS:
                return m.group(1), "function", i
        m = TYPE.match(ln)
        if m:
            return f"{m.group(1)} {m.group(2)}", "type", i
    return None, None, None


def scan(include_dir, version, errors):
    # Sources are named from the project root: include/gnio/x.h:LINE.
    root = os.path.dirname(os.path.dirname(os.path.abspath(include_dir.rstrip("/"))))
    entries, seen = [], {}
    for dirpath, _, files in sorted(os.walk(include_dir)):
        for fn in sorted(files):
            if not fn.endswith((".h", ".cuh")):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root)
            lines = open(path, encoding="utf-8").read().split("\n")
            for i, ln in enumerate(lines):
                if not ANY_TAG.search(ln):
                    continue
                m = TAG.match(ln)
                if not m:
                    errors.append(f"{rel}:{i + 1}: malformed @since tag: {ln.strip()}")
                    continue
                sym, kind, at = declared_name(lines, i + 1)
                if not sym:
                    errors.append(f"{rel}:{i + 1}: @since tag with no declaration after it")
                    continue
                lib = m.group("lib") or "gnio"
                cap = m.group("cap")
                if (lib, cap) in seen:
                    errors.append(f"{rel}:{i + 1}: capability '{cap}' already tagged at {seen[(lib, cap)]}")
                    continue
                if lib == "gnio" and vtuple(m.group("min")) > vtuple(version):
                    errors.append(f"{rel}:{i + 1}: '{cap}' says since {m.group('min')}, newer than gnio {version}")
                seen[(lib, cap)] = f"{rel}:{i + 1}"
                entries.append({
                    "library": lib,
                    "capability": cap,
                    "display_name": m.group("name"),
                    "min_version": m.group("min"),
                    "max_version": m.group("max"),
                    "source": f"{rel}:{at + 1}",
                    "symbol": sym,
                    "kind": kind,
                })
    entries.sort(key=lambda e: (e["library"], e["capability"]))
    return entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--include", required=True)
    ap.add_argument("--version", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--out")
    g.add_argument("--check")
    a = ap.parse_args()

    errors = []
    entries = scan(a.include, a.version, errors)
    for e in errors:
        print(f"gen-version-matrix: {e}", file=sys.stderr)
    if errors:
        return 1
    if not entries:
        print("gen-version-matrix: no @since tags found", file=sys.stderr)
        return 1

    if a.check:
        try:
            have = json.load(open(a.check))["entries"]
        except (OSError, ValueError, KeyError) as e:
            print(f"gen-version-matrix: cannot read {a.check}: {e}", file=sys.stderr)
            return 1
        if have != entries:
            want = {(e["library"], e["capability"]): e for e in entries}
            got = {(e["library"], e["capability"]): e for e in have}
            for k in sorted(set(want) | set(got)):
                if want.get(k) != got.get(k):
                    print(f"drift: {k[0]}/{k[1]}: headers {want.get(k)} vs file {got.get(k)}")
            return 1
        print(f"gen-version-matrix: {a.check} matches the headers ({len(entries)} entries)")
        return 0

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch \
        else datetime.datetime.now(datetime.timezone.utc)
    doc = {
        "schema_version": 1,
        "generated_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "generator": "scripts/gen-version-matrix.py",
        "gnio_version": a.version,
        "entries": entries,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
