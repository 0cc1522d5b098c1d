"""The bounds of `cordon compile --emit oci`'s config as `podman run` options.

usage: podman_args.py CONFIG SECCOMP-PROFILE

podman runs no bundle: it reads its bounds from options.  This prints,
one a line, the options that give a container the config's bounds: its
binds and tmpfs mounts in the config's order (podman makes /dev, /dev/pts,
/dev/shm and /proc itself), a read-only root, no capability, no new
privileges, the config's user, its rlimits, no network, and the seccomp
profile (`--emit k8s-seccomp`, the config's linux.seccomp).  For
tests/podman.sh; exits 1, naming the entry, on one it cannot say.
"""
import json
import sys

RLIMITS = {"RLIMIT_NOFILE": "nofile", "RLIMIT_NPROC": "nproc", "RLIMIT_FSIZE": "fsize",
           "RLIMIT_CPU": "cpu", "RLIMIT_AS": "as"}
PODMAN_OWN = {"/dev", "/dev/pts", "/dev/shm", "/proc"}


def mount_option(m):
    dest, opts = m["destination"], m.get("options", [])
    if any(c in dest + m.get("source", "") for c in ",\n"):
        sys.exit("podman_args.py: %s: a comma or newline podman's --mount cannot carry" % dest)
    ro = "true" if "ro" in opts else "false"
    if m["type"] == "bind":
        return "--mount=type=bind,source=%s,destination=%s,ro=%s" % (m["source"], dest, ro)
    if m["type"] == "tmpfs":
        mode = [o.split("=", 1)[1] for o in opts if o.startswith("mode=")]
        # notmpcopyup: podman copies what lies beneath into a tmpfs by
        # default, which would undo a mask (~/.ssh would be read in it).
        return "--mount=type=tmpfs,destination=%s,tmpfs-mode=%s,ro=%s,notmpcopyup" % (
            dest, mode[0] if mode else "755", ro)
    sys.exit("podman_args.py: %s: a %s mount podman has no option for" % (dest, m["type"]))


def main():
    with open(sys.argv[1]) as f:
        c = json.load(f)
    proc = c["process"]
    if not c["root"]["readonly"] or not proc["noNewPrivileges"]:
        sys.exit("podman_args.py: the config's root is writable or its privileges may grow")
    if any(proc["capabilities"].values()):
        sys.exit("podman_args.py: the config keeps capabilities")
    args = ["--read-only", "--read-only-tmpfs=false", "--cap-drop=ALL",
            "--security-opt=no-new-privileges", "--security-opt=seccomp=" + sys.argv[2],
            "--network=none", "--user=%d:%d" % (proc["user"]["uid"], proc["user"]["gid"]),
            "--workdir=" + proc["cwd"]]
    for r in proc.get("rlimits", []):
        args.append("--ulimit=%s=%d:%d" % (RLIMITS[r["type"]], r["soft"], r["hard"]))
    for m in c["mounts"]:
        if m["destination"] not in PODMAN_OWN:
            args.append(mount_option(m))
    for e in proc["env"]:
        args.append("--env=" + e)
    print("\n".join(args))


main()
