#!/usr/bin/env python3
"""Behaviour fingerprint of packaged FMUs: record it, or check it against a record.

For every `*.fmu` in a folder, fmpy simulates the default experiment (the FMU's own
start, stop and step) and records, for every output variable and for time:
  - the SHA-256 of the column's exact bytes (float64, or int64 for Integer and Boolean),
  - the last value (repr, for a readable diff).
It also records the FMU's interface: the SHA-256 of its variables sorted by name with
their type, causality, variability, initial, start, unit and description (value
references and their order are not part of it: names are the contract, DESIGN.md).

`check` compares with zero tolerance: a changed bit in any output at any time, a lost
or added output or a changed variable attribute fails, naming the FMU and the column.

`check-fmi3` does the same for FMI 3.0 FMUs (`contact-fmu package --fmi 3`) against
the FMI 2.0 record: an array output `ball.r` is compared element by element with the
record's `ball.r[1]`, `ball.r[2]`, ..., a collection's `pile.r` row by row with its
bodies' (in the order of the scenario's group); the interface hash is not compared (the FMI 3.0
variables are another layout of the same ones, docs/fmi3.md).

Usage:
  ci/behaviour.py record     DIR_WITH_FMUS REFERENCE.json
  ci/behaviour.py check      DIR_WITH_FMUS REFERENCE.json
  ci/behaviour.py check-fmi3 DIR_WITH_FMI3_FMUS REFERENCE.json
Exit code 1 when a check finds a difference.
"""
import glob
import hashlib
import json
import os
import sys
import zipfile

import numpy as np
from fmpy import read_model_description, simulate_fmu


def interface_hash(md):
    rows = []
    for v in md.modelVariables:
        rows.append("|".join(str(x) for x in (
            v.name, v.type, v.causality, v.variability, v.initial, v.start,
            v.unit, v.description)))
    rows.sort()
    return hashlib.sha256("\n".join(rows).encode()).hexdigest(), len(rows)


def collections(path):
    """The FMU's collections (its scenario's groups): name -> body names in order."""
    with zipfile.ZipFile(path) as z:
        scenario = json.loads(z.read("resources/scenario.json"))
    groups = {}
    for b in scenario.get("bodies", []):
        if b.get("group"):
            groups.setdefault(b["group"], []).append(b["name"])
    return groups


def parts_of(name, col, groups):
    """An output column as FMI 2.0 columns: a body's array `ball.r` (steps, 3) as
    `ball.r[1]`..; a collection's array `pile.r` (steps, n, 3) row i as the i-th body's
    `rock.r[1]`.. (docs/fmi3.md)."""
    head, _, suffix = name.partition(".")
    if head in groups and col.ndim > 1:
        out = []
        for i, body in enumerate(groups[head]):
            out += parts_of(f"{body}.{suffix}", col[:, i], {})
        return out
    if col.ndim > 1:
        return [(f"{name}[{k + 1}]", col[:, k]) for k in range(col.shape[1])]
    return [(name, col)]


def fingerprint(path):
    md = read_model_description(path)
    outputs = [v.name for v in md.modelVariables if v.causality == "output"]
    result = simulate_fmu(path, output=outputs, validate=False)
    groups = collections(path) if md.fmiVersion.startswith("3") else {}
    columns = {}
    for name in result.dtype.names:
        # an FMI 3.0 array output: one column per element, named as in FMI 2.0
        parts = parts_of(name, result[name], groups)
        for part, c in parts:
            c = np.ascontiguousarray(c)
            data = c.astype("<f8") if c.dtype.kind == "f" else c.astype("<i8")
            columns[part] = {
                "sha256": hashlib.sha256(data.tobytes()).hexdigest(),
                "rows": int(len(c)),
                "last": repr(c[-1].item()) if len(c) else None,
            }
    ih, n = interface_hash(md)
    return {"interface": ih, "variables": n, "columns": columns}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("record", "check", "check-fmi3"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, folder, ref_path = sys.argv[1:]
    fmus = sorted(glob.glob(os.path.join(folder, "*.fmu")))
    if not fmus:
        print(f"behaviour: no .fmu files in {folder}", file=sys.stderr)
        return 2
    got = {}
    for i, path in enumerate(fmus):
        name = os.path.basename(path)
        print(f"behaviour: [{i + 1}/{len(fmus)}] {name}", flush=True)
        got[name] = fingerprint(path)
    if mode == "record":
        with open(ref_path, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"behaviour: recorded {len(got)} FMUs into {ref_path}")
        return 0
    with open(ref_path) as f:
        ref = json.load(f)
    problems = []
    for name in sorted(set(ref) | set(got)):
        if name not in got:
            problems.append(f"{name}: in the record, not packaged now")
            continue
        if name not in ref:
            problems.append(f"{name}: packaged now, not in the record (record it)")
            continue
        r, g = ref[name], got[name]
        if mode == "check" and r["interface"] != g["interface"]:
            problems.append(f"{name}: its variables changed ({r['variables']} -> "
                            f"{g['variables']} variables, or an attribute)")
        for col in sorted(set(r["columns"]) | set(g["columns"])):
            rc, gc = r["columns"].get(col), g["columns"].get(col)
            if rc is None or gc is None:
                problems.append(f"{name}: output '{col}' "
                                f"{'added' if rc is None else 'lost'}")
            elif rc != gc:
                problems.append(f"{name}: output '{col}' differs (last value "
                                f"{rc['last']} -> {gc['last']}, rows {rc['rows']} -> "
                                f"{gc['rows']})")
    for p in problems:
        print(f"  DIFF  {p}")
    n_cols = sum(len(g["columns"]) for g in got.values())
    if problems:
        print(f"behaviour: {len(problems)} differences against {ref_path}")
        return 1
    what = " (FMI 3.0)" if mode == "check-fmi3" else ""
    print(f"behaviour: {len(got)} FMUs{what}, {n_cols} columns bit-identical to {ref_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
