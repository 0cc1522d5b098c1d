"""A SARIF log of cordon lint in the form its goldens pin, one that a check
appended to the table does not change.

Usage: python3 sarif-norm.py FILE.sarif CHECKS VERSION > FILE.norm
CHECKS is a file of the check ids, one a line, in the order of
`cordon lint --list-checks`; VERSION is cordon's version.

First it verifies, and exits 1 saying what is wrong if not:
  - the driver's rules are the checks, exactly and in that order, followed
    by the rules of policy errors (ids of no check, "a policy error");
  - every result's ruleIndex names the rule whose id is its ruleId.
Then it writes the log with
  - the driver's version as "VERSION";
  - of the driver's rules, only the first check (a sample of a rule's form)
    and those some result names, in their order;
  - a result's ruleIndex as the number for a check (so a check inserted
    before it still changes the golden: the index of a check is pinned) and
    as "checks+K" for the K-th rule of a policy error, which moves with
    every check appended."""
import json
import sys


def fail(what):
    sys.exit("sarif-norm: " + what)


def verify(run, checks):
    rules = run.get("tool", {}).get("driver", {}).get("rules")
    if not isinstance(rules, list):
        fail("the driver has no rules")
    ids = [rule.get("id") for rule in rules]
    for i, check in enumerate(checks):
        if i >= len(ids) or ids[i] != check:
            fail("the driver's rule %d is %r where --list-checks has %r"
                 % (i, ids[i] if i < len(ids) else None, check))
    rest = rules[len(checks):]
    for rule in rest:
        if rule.get("id") in checks or ids.count(rule.get("id")) != 1:
            fail("rule %r after the checks is a check or repeats" % rule.get("id"))
        if rule.get("shortDescription", {}).get("text") != "a policy error":
            fail("rule %r after the checks is not a policy error" % rule.get("id"))
    for res in run.get("results", []):
        index = res.get("ruleIndex")
        if not isinstance(index, int) or not 0 <= index < len(rules):
            fail("result of %r: ruleIndex %r is not an index of the rules"
                 % (res.get("ruleId"), index))
        if ids[index] != res.get("ruleId"):
            fail("result of %r: ruleIndex %d names %r" % (res.get("ruleId"), index, ids[index]))
    return rules


def normalise(run, checks, version):
    driver = run["tool"]["driver"]
    rules = verify(run, checks)
    if driver.get("version") == version:
        driver["version"] = "VERSION"
    named = {res["ruleIndex"] for res in run.get("results", [])}
    driver["rules"] = [rule for i, rule in enumerate(rules) if i == 0 or i in named]
    for res in run.get("results", []):
        if res["ruleIndex"] >= len(checks):
            res["ruleIndex"] = "checks+%d" % (res["ruleIndex"] - len(checks))


def main():
    if len(sys.argv) != 4:
        fail("usage: sarif-norm.py FILE.sarif CHECKS VERSION")
    log = json.load(open(sys.argv[1], encoding="utf-8"))
    checks = open(sys.argv[2], encoding="utf-8").read().split()
    if not checks:
        fail("no checks in " + sys.argv[2])
    runs = log.get("runs")
    if not isinstance(runs, list) or not runs:
        fail("runs is not a nonempty array")
    for run in runs:
        normalise(run, checks, sys.argv[3])
    # As cordon writes JSON (jansson, an indent of 2, order kept, UTF-8).
    sys.stdout.write(json.dumps(log, indent=2, ensure_ascii=False) + "\n")


main()
