#!/usr/bin/env python3
"""The calls a run of tests/agents.sh asks an agent for, and their results.

calls.py build STATE < LINES   LINES: LABEL<TAB>TOOL<TAB>INPUT (INPUT is JSON);
                               writes STATE/scenario.json for model-server.py
                               and forgets the results of the run before
calls.py result STATE LABEL    the result the agent sent back for LABEL's call,
                               or "NO RESULT" (it never came back)
calls.py seen STATE TEXT       how many requests the model received that hold
                               TEXT (0: it never reached the model)
"""

import json
import os
import sys


def build(state):
    calls, labels = [], []
    for line in sys.stdin.read().splitlines():
        if not line.strip():
            continue
        label, tool, arg = line.split("\t", 2)
        labels.append(label)
        calls.append({"tool": tool, "input": json.loads(arg)})
    with open(os.path.join(state, "scenario.json"), "w") as f:
        json.dump({"calls": calls, "labels": labels}, f)
    for name in ("results.jsonl",):
        try:
            os.unlink(os.path.join(state, name))
        except FileNotFoundError:
            pass


def result(state, label):
    with open(os.path.join(state, "scenario.json")) as f:
        labels = json.load(f)["labels"]
    index = labels.index(label)
    try:
        with open(os.path.join(state, "results.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                if r.get("index") == index:
                    print(r["result"])
                    return
    except FileNotFoundError:
        pass
    print("NO RESULT")


def seen(state, text):
    n = 0
    try:
        with open(os.path.join(state, "requests.jsonl")) as f:
            for line in f:
                n += text in line
    except FileNotFoundError:
        pass
    print(n)


if __name__ == "__main__":
    verb, state = sys.argv[1], sys.argv[2]
    if verb == "build":
        build(state)
    elif verb == "result":
        result(state, sys.argv[3])
    else:
        seen(state, sys.argv[3])
