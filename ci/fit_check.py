#!/usr/bin/env python3
"""The calibration examples' figures (docs/calibration.md), from `contact-fmu fit`'s
fit.json: TerRA fitted to our SCM.

    ci/fit_check.py DROP/fit.json DBP/fit.json
"""
import json
import sys

drop = json.load(open(sys.argv[1]))
dbp = json.load(open(sys.argv[2]))
fails = []


def check(label, value, limit):
    ok = abs(value) < limit
    print(f"  {'ok  ' if ok else 'FAIL'} {label}: {value * 100:+.2f} % (limit {limit * 100:.1f} %)")
    if not ok:
        fails.append(label)


for c in drop["cases"]:
    check(f"drop test {c['case']}: settled sinkage", c["relative_error"], 0.08)
for c in dbp["cases"]:
    limit = 0.025 if "sinkage" in c["case"] else 0.05
    check(f"drawbar-pull test {c['case']}", c["relative_error"], limit)
stages = {s["name"]: s for s in dbp["stages"]}
kj = stages.get("shear")
if kj is None or kj["cost"] < 0.1:
    fails.append("the k_j-only stage should leave the drawbar pull unfitted (cost > 0.1), as in the paper")
else:
    print(f"  ok   k_j alone leaves the drawbar pull unfitted (criterion {kj['cost']:.3f}), as the paper found")
if fails:
    print(f"FAILED: {len(fails)}")
    sys.exit(1)
print("calibration figures as documented")
