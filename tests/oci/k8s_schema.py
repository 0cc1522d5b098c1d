"""Validate `cordon compile --emit k8s` against the Kubernetes API schema.

usage: k8s_schema.py DEFINITIONS LIST

DEFINITIONS is tests/oci/k8s-schema/definitions.json (Kubernetes 1.36's
OpenAPI v2 definitions of a Pod and a NetworkPolicy).  Kubernetes has no
schema for the v1 List kubectl reads, so its envelope is checked here and
each item validated by its apiVersion and kind, read strictly as
kubeconform reads them: an object with properties admits no other member
(a misspelt field is an error, as `kubectl apply --validate=strict` makes
it), and an IntOrString is a string or an integer.  Prints each failure;
exits 1 when there is one, 2 when jsonschema is not installed.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("# python3-jsonschema is not installed")
    sys.exit(2)

# The kinds a List of cordon's holds, by apiVersion and kind.
KINDS = {
    ("v1", "Pod"): "io.k8s.api.core.v1.Pod",
    ("networking.k8s.io/v1", "NetworkPolicy"): "io.k8s.api.networking.v1.NetworkPolicy",
}


def strict(node):
    """The definitions as kubeconform's strict schemas read them."""
    if isinstance(node, list):
        return [strict(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: strict(v) for k, v in node.items()}
    if out.get("format") == "int-or-string":
        out["type"] = ["string", "integer"]
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def validate_item(definitions, item, where):
    key = (item.get("apiVersion"), item.get("kind"))
    if key not in KINDS:
        return ["%s: no schema for apiVersion %r kind %r" % ((where,) + key)]
    schema = {"$ref": "#/definitions/" + KINDS[key], "definitions": definitions}
    errors = []
    for e in jsonschema.Draft4Validator(schema).iter_errors(item):
        errors.append("%s: %s at %s" % (where, e.message,
                                         "/".join(map(str, e.absolute_path)) or "/"))
    return errors


def main():
    with open(sys.argv[1]) as f:
        definitions = strict(json.load(f)["definitions"])
    with open(sys.argv[2]) as f:
        lst = json.load(f)
    failures = []
    if lst.get("apiVersion") != "v1" or lst.get("kind") != "List":
        failures.append("not a v1 List")
    extra = set(lst) - {"apiVersion", "kind", "metadata", "items"}
    if extra:
        failures.append("the List has members it may not: %s" % ", ".join(sorted(extra)))
    items = lst.get("items")
    if not isinstance(items, list) or not items:
        failures.append("the List has no items")
        items = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            failures.append("items/%d is not an object" % i)
            continue
        failures += validate_item(definitions, item, "items/%d (%s)" % (i, item.get("kind")))
    print("\n".join(failures) if failures else "# %d items valid" % len(items))
    return 1 if failures else 0


sys.exit(main())
