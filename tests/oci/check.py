"""Check `cordon compile --emit oci` and `--emit k8s` for tests/lower-oci.sh.

usage: check.py SCHEMA-DIR CONFIG PLAN LIST PROFILE TREE

The config against the OCI runtime-spec's JSON schema (jsonschema, where
installed; else the members the spec requires), every annotation naming an
entry that exists and, for a mount, the rule the bwrap plan names for that
path; the bounds the preset sets; the Pod's and NetworkPolicy's fields as
Kubernetes reads them.  Prints each failure; exits 1 when there is one.
"""
import json
import os
import re
import sys
import warnings

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def validate_schema(schema_dir, config):
    try:
        import jsonschema
    except ImportError:
        print("# jsonschema is not installed: the required members only")
        check(isinstance(config.get("ociVersion"), str), "ociVersion")
        check(isinstance(config.get("root", {}).get("path"), str), "root.path")
        proc = config.get("process", {})
        check(isinstance(proc.get("cwd"), str), "process.cwd")
        check(isinstance(proc.get("user", {}).get("uid"), int), "process.user.uid")
        check(isinstance(proc.get("user", {}).get("gid"), int), "process.user.gid")
        for m in config.get("mounts", []):
            check(isinstance(m.get("destination"), str), "mounts[].destination")
        return
    warnings.simplefilter("ignore")
    with open(os.path.join(schema_dir, "config-schema.json")) as f:
        schema = json.load(f)
    resolver = jsonschema.RefResolver(base_uri="file://" + os.path.abspath(schema_dir) + "/",
                                      referrer=schema)
    for e in jsonschema.Draft4Validator(schema, resolver=resolver).iter_errors(config):
        failures.append("schema: %s at %s" % (e.message, "/".join(map(str, e.path))))


def plan_origins(plan):
    """The rules the bwrap plan names for each path it mounts on; and for
    a path the runner's plan leaves to after the call ("skipped"), which a
    container's config fences with the directories made for it, the rule
    for it and each directory above it."""
    by_path = {}
    for op in plan["operations"]:
        args = op.get("args")
        if "skipped" in op and "origin" in op and "moved aside after" in op.get("note", ""):
            path = op["skipped"]
            while path not in ("", "/"):
                by_path.setdefault(path, set()).add(op["origin"])
                path = os.path.dirname(path)
            continue
        if not args or len(args) < 2 or "origin" not in op:
            continue
        by_path.setdefault(args[-1], set()).add(op["origin"])
    return by_path


def check_annotations(config, plan):
    ann = config["annotations"]
    origins = plan_origins(plan)
    sections = {
        "mounts": config["mounts"],
        "process.env": config["process"]["env"],
        "process.rlimits": config["process"].get("rlimits", []),
        "linux.seccomp.syscalls": config["linux"]["seccomp"]["syscalls"],
    }
    for key, value in ann.items():
        check(isinstance(value, str), "annotation %s is a string" % key)
        m = re.match(r"org\.cordon\.(origin|note)\.(.+)\.(\d+)$", key)
        if not m or m.group(2) not in sections:
            continue
        n = int(m.group(3))
        check(n < len(sections[m.group(2)]), "%s names an entry that exists" % key)
        if m.group(1) == "origin":
            check(re.match(r".+:\d+:\d+$", value), "%s is file:line:col (%s)" % (key, value))
        if m.group(1) == "origin" and m.group(2) == "mounts" and n < len(config["mounts"]):
            dest = config["mounts"][n]["destination"]
            root = ann.get("org.cordon.origin.root")
            check(value in origins.get(dest, set()) or value == root,
                  "%s: %s is the plan's rule for %s" % (key, value, dest))
    for i in range(len(sections["linux.seccomp.syscalls"])):
        check("org.cordon.origin.linux.seccomp.syscalls.%d" % i in ann,
              "seccomp entry %d has its rule" % i)
    check(any(k.startswith("org.cordon.unexpressed.") and "Landlock" in v
              for k, v in ann.items()), "Landlock is said to be unexpressed")


def mount_at(config, path):
    return [m for m in config["mounts"] if m["destination"] == path]


def check_bounds(config, tree):
    proc = config["process"]
    check(config["root"]["readonly"] is True, "the root is read-only")
    check(proc["noNewPrivileges"] is True, "noNewPrivileges")
    check(all(v == [] for v in proc["capabilities"].values()) and
          len(proc["capabilities"]) == 5, "every capability set is empty")
    check(proc["user"]["uid"] != 0, "the user is not root")
    types = [n["type"] for n in config["linux"]["namespaces"]]
    for ns in ("mount", "pid", "ipc", "uts", "network"):
        check(ns in types, "a %s namespace" % ns)
    ws = mount_at(config, tree + "/ws")
    check(ws and "rw" in ws[0]["options"], "the workspace is a writable bind")
    hooks = mount_at(config, tree + "/ws/.git/hooks")
    check(hooks and "ro" in hooks[0]["options"], ".git/hooks is bound read-only")
    ssh = mount_at(config, tree + "/home/.ssh")
    check(ssh and ssh[0]["type"] == "tmpfs" and "ro" in ssh[0]["options"],
          "~/.ssh is masked with an empty read-only tmpfs")
    kinds = {r["type"] for r in proc.get("rlimits", [])}
    check({"RLIMIT_NPROC", "RLIMIT_NOFILE"} <= kinds, "the process and file limits")
    check(all(k.startswith("TMPDIR=") is False or k == "TMPDIR=" + tree + "/call"
              for k in proc["env"]), "TMPDIR is the call's temp dir")


LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
QUALIFIED = re.compile(r"^(%s(\.%s)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
                       % (LABEL, LABEL))


def check_pod(pod, tree):
    check(pod["apiVersion"] == "v1" and pod["kind"] == "Pod", "a v1 Pod")
    meta = pod["metadata"]
    check(re.match("^%s$" % LABEL, meta["name"]) and len(meta["name"]) <= 63,
          "the Pod's name is a DNS label")
    for k, v in list(meta["labels"].items()) + list(meta["annotations"].items()):
        check(QUALIFIED.match(k), "%s is a qualified name" % k)
        check(isinstance(v, str), "%s's value is a string" % k)
    spec = pod["spec"]
    check(spec["automountServiceAccountToken"] is False, "no service account token")
    check(spec["securityContext"]["seccompProfile"]["type"] == "Localhost", "localhost seccomp")
    (c,) = spec["containers"]
    sc = c["securityContext"]
    check(sc["runAsNonRoot"] is True and isinstance(sc["runAsUser"], int) and
          sc["runAsUser"] != 0, "a user other than root")
    check(sc["readOnlyRootFilesystem"] is True, "readOnlyRootFilesystem")
    check(sc["allowPrivilegeEscalation"] is False, "allowPrivilegeEscalation false")
    check(sc["capabilities"] == {"drop": ["ALL"]}, "capabilities drop ALL")
    prof = sc["seccompProfile"]
    check(prof["type"] == "Localhost" and not prof["localhostProfile"].startswith("/") and
          ".." not in prof["localhostProfile"], "a relative localhost profile")
    volumes = {v["name"]: v for v in spec["volumes"]}
    check(len(volumes) == len(spec["volumes"]), "volume names are unique")
    for m in c["volumeMounts"]:
        check(m["name"] in volumes, "volume mount %s names a volume" % m["mountPath"])
        check(m["mountPath"].startswith("/"), "%s is absolute" % m["mountPath"])
        sub = m.get("subPath", "")
        check(not sub.startswith("/") and ".." not in sub.split("/"),
              "subPath %s stays in its volume" % sub)
    at = {m["mountPath"]: m for m in c["volumeMounts"]}
    ws = at.get(tree + "/ws")
    check(ws and ws["readOnly"] is False and
          "persistentVolumeClaim" in volumes[ws["name"]], "the workspace is a writable claim")
    hooks = at.get(tree + "/ws/.git/hooks")
    check(hooks and hooks["readOnly"] is True and hooks.get("subPath") == ".git/hooks" and
          hooks["name"] == ws["name"], ".git/hooks is a read-only subPath of the workspace")
    for e in c["env"]:
        check(re.match(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$", e["name"]), "env %s" % e["name"])
        check(isinstance(e["value"], str), "env %s is a string" % e["name"])
    for k, v in c["resources"]["limits"].items():
        check(isinstance(v, str) and re.match(r"^\d+$", v), "limit %s is a quantity" % k)


def check_policy(netpol, pod):
    check(netpol["apiVersion"] == "networking.k8s.io/v1" and
          netpol["kind"] == "NetworkPolicy", "a NetworkPolicy")
    spec = netpol["spec"]
    check(spec["podSelector"]["matchLabels"] == pod["metadata"]["labels"],
          "it selects the Pod")
    check(set(spec["policyTypes"]) == {"Ingress", "Egress"}, "ingress and egress")
    check(spec["egress"] == [] and spec["ingress"] == [], "no way in or out without net")


def main():
    schema_dir, config_p, plan_p, list_p, profile_p, tree = sys.argv[1:7]
    with open(config_p) as f:
        config = json.load(f)
    with open(plan_p) as f:
        plan = json.load(f)
    with open(list_p) as f:
        lst = json.load(f)
    with open(profile_p) as f:
        profile = json.load(f)
    validate_schema(schema_dir, config)
    if failures:
        print("\n".join(failures))
        return 1
    check_annotations(config, plan)
    check_bounds(config, tree)
    check(profile == config["linux"]["seccomp"], "the profile is the config's seccomp")
    check(lst["apiVersion"] == "v1" and lst["kind"] == "List", "a v1 List")
    pod, netpol = lst["items"]
    check_pod(pod, tree)
    check_policy(netpol, pod)
    print("\n".join(failures) if failures else "# all held")
    return 1 if failures else 0


sys.exit(main())
