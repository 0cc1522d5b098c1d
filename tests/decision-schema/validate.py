#!/usr/bin/env python3
"""Validate JSON lines against docs/decision.schema.json, with the standard
library alone, for where ajv is not installed.

    validate.py SCHEMA [--coverage] DEFINITION=FILE...

Each line of FILE must be valid against the schema's definition DEFINITION
("" for the schema's root).  It knows exactly the keywords the schema uses
and refuses a schema with any other, so that a keyword it would ignore
cannot make a check pass.  --coverage: every member of every definition
the lines reached must have been seen at least once, and every value of
each "enum" among them, so that the cases cannot stop exercising a member
unnoticed.  Exit 0 when all hold, 1 with the failures on stdout, 2 when
the schema uses a keyword this validator does not know."""
import json
import sys

ANNOTATIONS = {"$schema", "title", "description", "$comment", "definitions"}
KEYWORDS = {"type", "enum", "const", "properties", "required",
            "additionalProperties", "items", "$ref", "anyOf", "oneOf",
            "minimum"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Validator:
    def __init__(self, schema):
        self.schema = schema
        self.seen = set()      # (definition, member) seen in valid values
        self.values = set()    # (definition, member, enum value) seen
        self.reached = set()   # definitions a valid value went through
        self.check_keywords(schema, "#")

    def check_keywords(self, node, where):
        if isinstance(node, list):
            for i, n in enumerate(node):
                self.check_keywords(n, f"{where}/{i}")
            return
        if not isinstance(node, dict):
            return
        for k, v in node.items():
            if k not in KEYWORDS and k not in ANNOTATIONS:
                sys.stdout.write(f"{where}: keyword '{k}' is not known to this validator\n")
                sys.exit(2)
            if k in ("properties", "definitions"):
                for name, sub in v.items():
                    self.check_keywords(sub, f"{where}/{k}/{name}")
            elif k in ("items", "additionalProperties", "anyOf", "oneOf"):
                self.check_keywords(v, f"{where}/{k}")

    def resolve(self, ref):
        if not ref.startswith("#/definitions/"):
            raise SystemExit(f"unsupported $ref {ref}")
        name = ref[len("#/definitions/"):]
        return name, self.schema["definitions"][name]

    def validate(self, v, node, path, defn, marks):
        """The errors of v against node; marks collects coverage, kept
        by the caller only when there are none."""
        errs = []
        if "$ref" in node:
            name, sub = self.resolve(node["$ref"])
            sub_marks = []
            errs += self.validate(v, sub, path, name, sub_marks)
            if not errs:
                marks.append(("reached", name))
                marks.extend(sub_marks)
            return errs
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(TYPES[t](v) for t in types):
                return [f"{path}: {json.dumps(v)[:80]} is not of type {'/'.join(types)}"]
        if "const" in node and not (v == node["const"] and type(v) is type(node["const"])):
            errs.append(f"{path}: {json.dumps(v)[:80]} is not {json.dumps(node['const'])}")
        if "enum" in node:
            if not any(v == e and type(v) is type(e) for e in node["enum"]):
                errs.append(f"{path}: {json.dumps(v)[:80]} is not one of {node['enum']}")
        if "minimum" in node and TYPES["number"](v) and v < node["minimum"]:
            errs.append(f"{path}: {v} is below {node['minimum']}")
        if isinstance(v, dict):
            props = node.get("properties", {})
            for r in node.get("required", []):
                if r not in v:
                    errs.append(f"{path}: the member '{r}' is missing")
            for k, sub in v.items():
                if k in props:
                    errs += self.validate(sub, props[k], f"{path}.{k}", None, marks)
                    marks.append(("member", defn, k))
                    enum = props[k].get("enum")
                    if enum is None and "$ref" in props[k]:
                        enum = self.resolve(props[k]["$ref"])[1].get("enum")
                    if enum is not None:
                        marks.append(("value", defn, k, json.dumps(sub)))
                elif node.get("additionalProperties") is False:
                    errs.append(f"{path}: the member '{k}' is not in the schema")
                elif isinstance(node.get("additionalProperties"), dict):
                    errs += self.validate(sub, node["additionalProperties"], f"{path}.{k}",
                                          None, marks)
        if isinstance(v, list) and "items" in node:
            for i, item in enumerate(v):
                errs += self.validate(item, node["items"], f"{path}[{i}]", None, marks)
        for kw in ("anyOf", "oneOf"):
            if kw not in node:
                continue
            passed = []
            for branch in node[kw]:
                b_marks = []
                if not self.validate(v, branch, path, defn, b_marks):
                    passed.append(b_marks)
            if not passed or (kw == "oneOf" and len(passed) > 1):
                errs.append(f"{path}: {len(passed)} of the {kw} branches hold")
            elif passed:
                marks.extend(passed[0])
        return errs

    def check(self, v, definition, where):
        node = self.resolve("#/definitions/" + definition)[1] if definition else self.schema
        marks = []
        errs = self.validate(v, node, where, definition or None, marks)
        if not errs:
            if definition:
                marks.append(("reached", definition))
            for m in marks:
                if m[0] == "reached":
                    self.reached.add(m[1])
                elif m[0] == "member":
                    self.seen.add((m[1], m[2]))
                else:
                    self.values.add((m[1], m[2], m[3]))
        return errs

    def uncovered(self):
        out = []
        for name in sorted(self.reached):
            node = self.schema["definitions"][name]
            for k, sub in node.get("properties", {}).items():
                if (name, k) not in self.seen:
                    out.append(f"{name}.{k}: never seen in the output")
                    continue
                enum = sub.get("enum")
                if enum is None and "$ref" in sub:
                    enum = self.resolve(sub["$ref"])[1].get("enum")
                for e in enum or []:
                    if (name, k, json.dumps(e)) not in self.values:
                        out.append(f"{name}.{k}: the value {json.dumps(e)} never seen")
        return out


def main(argv):
    schema = json.load(open(argv[1]))
    coverage = "--coverage" in argv
    val = Validator(schema)
    failures = 0
    lines = 0
    for spec in argv[2:]:
        if spec == "--coverage":
            continue
        definition, _, path = spec.partition("=")
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            lines += 1
            try:
                v = json.loads(line)
            except ValueError as e:
                print(f"{path}:{n}: not JSON: {e}")
                failures += 1
                continue
            for err in val.check(v, definition, f"{path}:{n}"):
                print(err)
                failures += 1
    if coverage:
        for u in val.uncovered():
            print(u)
            failures += 1
    print(f"# {lines} lines, {failures} failures")
    return 1 if failures or not lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
