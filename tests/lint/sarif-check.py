"""The parts of SARIF 2.1.0 that cordon writes, checked without the schema:
required properties, their types, the level enum, and that every result's
rule is described.  Usage: python3 sarif-check.py FILE.sarif"""
import json
import sys

LEVELS = {"none", "note", "warning", "error"}


def need(cond, what):
    if not cond:
        sys.exit("sarif: " + what)


log = json.load(open(sys.argv[1], encoding="utf-8"))
need(log.get("version") == "2.1.0", "version is not 2.1.0")
need(isinstance(log.get("runs"), list) and log["runs"], "runs is not a nonempty array")
for run in log["runs"]:
    driver = run.get("tool", {}).get("driver", {})
    need(driver.get("name") == "cordon", "tool.driver.name is not cordon")
    ids = []
    for rule in driver.get("rules", []):
        need(isinstance(rule.get("id"), str), "a rule has no id")
        for key in ("shortDescription", "fullDescription"):
            need(isinstance(rule.get(key, {}).get("text"), str), rule["id"] + ": no " + key)
        need(rule.get("defaultConfiguration", {}).get("level") in LEVELS, rule["id"] + ": bad level")
        ids.append(rule["id"])
    need(len(ids) == len(set(ids)), "rule ids repeat")
    for res in run.get("results", []):
        need(res.get("ruleId") in ids, "result rule %r is not described" % res.get("ruleId"))
        need(ids[res.get("ruleIndex", -1)] == res["ruleId"], "ruleIndex does not name ruleId")
        need(res.get("level") in LEVELS, "bad result level")
        need(isinstance(res.get("message", {}).get("text"), str), "a result has no message text")
        for loc in res.get("locations", []) + res.get("relatedLocations", []):
            phys = loc.get("physicalLocation", {})
            need(isinstance(phys.get("artifactLocation", {}).get("uri"), str), "a location has no uri")
            region = phys.get("region")
            if region is not None:
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    need(isinstance(region.get(key), int) and region[key] >= 1, "bad region " + key)
