#!/usr/bin/env python3
"""Real decision JSON from the cases of tests/decide/, for the schema test.

    gen.py CORDON ONE_SHOT_CORDON DECIDE_DIR WORK_DIR OUT_DIR

For each DECIDE_DIR/NAME.cases (the format tests/decide.sh reads), its
setup commands run in WORK_DIR/NAME ($T), and every case becomes a stream
request to `cordon eval -p NAME.cordon --stdin` with its preset, context,
sandboxed and escalation; an exec case is asked a second time with
"approve".  Every tenth case is also decided by `cordon eval --json`, one
process each (ONE_SHOT_CORDON: the streams check the C code under valgrind,
these many launches would only slow the pass).  OUT_DIR gets requests.jsonl (the requests), stream.jsonl
(the answers, one a request) and eval.jsonl (the one-shot decisions)."""
import json
import os
import subprocess
import sys


def quoted(s):
    """The "word" at the start of s and the rest, or None."""
    if not s.startswith('"'):
        return None
    end = s.find('"', 1)
    return (s[1:end], s[end + 1:].lstrip()) if end > 0 else None


def parse_case(line):
    """(op, target, escalate-why or None) of a case line, or None."""
    if line.startswith("todo "):
        line = line[5:]
        q = quoted(line)
        if q:
            line = q[1]
    why = None
    if line.startswith("escalate "):
        q = quoted(line[9:])
        if not q:
            return None
        why, line = q
    parts = line.split(None, 2)
    if len(parts) < 3 or parts[0] not in ("allow", "ask", "deny", "error"):
        return None
    op, rest = parts[1], parts[2]
    for sep in (" => ", " @ "):
        if sep in rest:
            rest = rest[:rest.index(sep)]
    if rest == "''":
        rest = ""
    return op, rest, why


def cases(path, T):
    """The requests of one .cases file, its setups run as they come."""
    preset, context, sandboxed = None, {}, False
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n").strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "setup":
            subprocess.run(["sh", "-c", rest], cwd=T, env={**os.environ, "T": T},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elif word == "preset":
            preset = rest.strip()
        elif word == "context":
            context = dict(kv.split("=", 1) for kv in rest.replace("$T", T).split())
        elif word == "sandboxed":
            sandboxed = rest.strip() == "yes"
        else:
            c = parse_case(line)
            if c:
                op, target, why = c
                yield preset, dict(context), sandboxed, op, target.replace("$T", T), why


def main(cordon, one_shot, decide_dir, work, out):
    n = 0
    with open(os.path.join(out, "requests.jsonl"), "w") as rq, \
            open(os.path.join(out, "stream.jsonl"), "w") as st, \
            open(os.path.join(out, "eval.jsonl"), "w") as ev:
        for name in sorted(os.listdir(decide_dir)):
            if not name.endswith(".cases"):
                continue
            base = name[:-len(".cases")]
            policy = os.path.join(decide_dir, base + ".cordon")
            T = os.path.join(work, base)
            os.makedirs(T, exist_ok=True)
            T = os.path.realpath(T)
            lines = []
            for preset, ctx, sb, op, target, why in cases(os.path.join(decide_dir, name), T):
                req = {"id": n, "op": op, "target": target, "sandboxed": sb}
                if preset:
                    req["preset"] = preset
                if ctx:
                    req["context"] = ctx
                if why is not None:
                    req["escalate"] = True
                    req["justification"] = why
                lines.append(req)
                if op == "exec" and why is None:
                    # The approval is stored under the test's own tree, never
                    # under the case's home (/home/u is not this test's).
                    store = {**ctx, "session_dir": os.path.join(T, ".session")}
                    lines.append({**req, "id": f"approve-{n}", "approve": True,
                                  "context": store})
                if n % 10 == 0:
                    argv = [one_shot, "eval", "-p", policy, "--json"]
                    argv += ["--preset", preset] if preset else []
                    for k, v in ctx.items():
                        argv += ["--context", f"{k}={v}"]
                    argv += ["--sandboxed"] if sb else []
                    argv += ["--escalate", why] if why is not None else []
                    r = subprocess.run(argv + [op, target], capture_output=True, text=True,
                                       cwd=T)
                    if r.returncode == 0:
                        ev.write(r.stdout)
                n += 1
            text = "".join(json.dumps(r) + "\n" for r in lines)
            rq.write(text)
            r = subprocess.run([cordon, "eval", "-p", policy, "--stdin"], input=text,
                               capture_output=True, text=True, cwd=T)
            if r.returncode != 0 or r.stdout.count("\n") != len(lines):
                sys.stderr.write(f"{name}: the stream exited {r.returncode} with "
                                 f"{r.stdout.count(chr(10))} answers to {len(lines)} "
                                 f"requests: {r.stderr[:300]}\n")
                return 1
            st.write(r.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
