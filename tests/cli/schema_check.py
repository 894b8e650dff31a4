#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate a JSON document against one of gnio's shipped schemas.

usage: schema_check.py SCHEMA.json DOC.json

Uses the jsonschema package when it is importable (Debian: python3-jsonschema).
Otherwise falls back to a small validator for the subset of JSON Schema the
gnio schemas use (type, enum, const, properties, required,
additionalProperties, items, minItems, minimum, minLength, pattern, $ref into
$defs, anyOf, oneOf), so the check also runs where nothing can be installed
(the H200 machine). Prints which validator ran. Exit 0 valid, 1 invalid,
2 usage/IO error.
"""
import json
import re
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

KNOWN = {"$schema", "$id", "title", "description", "type", "enum", "const", "properties",
         "required", "additionalProperties", "items", "minItems", "minimum", "minLength",
         "pattern", "$ref", "$defs", "anyOf", "oneOf", "examples", "default"}


def mini_validate(schema, doc, root, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        errors.append(f"{path}: schema uses keywords the fallback validator lacks: {sorted(unknown)}")
        return
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            errors.append(f"{path}: unsupported $ref {ref}")
            return
        mini_validate(root["$defs"][ref[len("#/$defs/"):]], doc, root, path, errors)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](doc) for t in types):
            errors.append(f"{path}: {doc!r} is not of type {types}")
            return
    if "enum" in schema and doc not in schema["enum"]:
        errors.append(f"{path}: {doc!r} not in {schema['enum']}")
    if "const" in schema and doc != schema["const"]:
        errors.append(f"{path}: {doc!r} != {schema['const']!r}")
    if isinstance(doc, str):
        if "pattern" in schema and not re.search(schema["pattern"], doc):
            errors.append(f"{path}: {doc!r} does not match {schema['pattern']}")
        if "minLength" in schema and len(doc) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']}")
    if TYPES["number"](doc) and "minimum" in schema and doc < schema["minimum"]:
        errors.append(f"{path}: {doc} < minimum {schema['minimum']}")
    if isinstance(doc, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in doc:
                errors.append(f"{path}: missing required '{k}'")
        for k, v in doc.items():
            if k in props:
                mini_validate(props[k], v, root, f"{path}.{k}", errors)
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{path}: unexpected property '{k}'")
            elif isinstance(schema.get("additionalProperties"), dict):
                mini_validate(schema["additionalProperties"], v, root, f"{path}.{k}", errors)
    if isinstance(doc, list):
        if "minItems" in schema and len(doc) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(doc):
                mini_validate(schema["items"], v, root, f"{path}[{i}]", errors)
    for kw in ("anyOf", "oneOf"):
        if kw in schema:
            ok = 0
            for sub in schema[kw]:
                e = []
                mini_validate(sub, doc, root, path, e)
                ok += not e
            if (kw == "anyOf" and ok == 0) or (kw == "oneOf" and ok != 1):
                errors.append(f"{path}: {kw} matched {ok} alternatives")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        schema = json.load(open(sys.argv[1]))
        doc = json.load(open(sys.argv[2]))
    except (OSError, ValueError) as e:
        print(f"schema_check: {e}", file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        errs = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
        for e in errs:
            print(f"  {'/'.join(map(str, e.path)) or '(root)'}: {e.message}")
        print(f"schema_check: jsonschema {cls.__name__}: {'valid' if not errs else 'INVALID'}")
        return 1 if errs else 0
    errors = []
    mini_validate(schema, doc, schema, "$", errors)
    for e in errors:
        print(f"  {e}")
    print(f"schema_check: built-in subset validator: {'valid' if not errors else 'INVALID'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
