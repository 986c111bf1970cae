"""Checks the declared dependencies of every FMU against what its outputs really read.

For each FMU (through fmpy's FMU2Slave, i.e. the FMI C API):
  1. at a communication point (after initialization and one step), each input in turn
     is perturbed and every output read back with fmi2Get*, without a step; an output
     that changes must list that input in its <Outputs> dependencies (or list none: the
     attribute left out, "depends on every known");
  2. in initialization mode, each input and parameter in turn is perturbed and every initial
     unknown read back; one that changes must list that known in <InitialUnknowns>.
Inputs and parameters: every one up to --max-knowns of each, an evenly spread sample
beyond (the 500-rock pile rebuilds its world for each).
The other direction (a declared known that does not change the output at the values
tested) is allowed: dependencies are structural ("can touch", not "touches now").
Counts of both are printed per FMU; any undeclared change fails the check.

Usage: feedthrough_check.py FMU_OR_DIR... [--max-knowns N]
"""
import argparse
import math
import sys
import time
from pathlib import Path

from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave


def perturbed(v, x):
    """A nearby value of variable v's type within its bounds, or None."""
    if v.type == "Boolean":
        return not x
    lo = float(v.min) if v.min is not None else -math.inf
    hi = float(v.max) if v.max is not None else math.inf
    if v.type == "Integer":
        for y in (x + 1, x - 1):
            if lo <= y <= hi:
                return int(y)
        return None
    step = max(1e-3 * abs(x), 1e-3)
    for y in (x + step, x - step, x + 1e-6, x - 1e-6):
        if lo <= y <= hi and not (v.min is not None and float(v.min) == 0.0 and y <= 0.0 and x > 0.0):
            return y
    return None


class Probe:
    """One FMU instance with typed get/set by variable."""

    def __init__(self, fmu, md, unzipdir):
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir,
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName="probe")
        self.fmu.instantiate(loggingOn=bool(__import__("os").environ.get("FEEDTHROUGH_LOG")))

    def get(self, v):
        if v.type == "Real":
            return self.fmu.getReal([v.valueReference])[0]
        if v.type == "Integer":
            return self.fmu.getInteger([v.valueReference])[0]
        return self.fmu.getBoolean([v.valueReference])[0]

    def get_all(self, vs):
        out = {}
        for ty, getter in (("Real", self.fmu.getReal), ("Integer", self.fmu.getInteger),
                           ("Boolean", self.fmu.getBoolean)):
            group = [v for v in vs if v.type == ty]
            if group:
                for v, x in zip(group, getter([v.valueReference for v in group])):
                    out[v.name] = x
        return out

    def set(self, v, x):
        if v.type == "Real":
            self.fmu.setReal([v.valueReference], [x])
        elif v.type == "Integer":
            self.fmu.setInteger([v.valueReference], [x])
        else:
            self.fmu.setBoolean([v.valueReference], [x])


def same(a, b):
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def sample(knowns, limit):
    if len(knowns) <= limit:
        return knowns
    step = len(knowns) / limit
    return [knowns[int(i * step)] for i in range(limit)]


def sweep(probe, knowns, unknowns, declared):
    """Perturbs each known, reads every unknown; returns (undeclared, superset) lists."""
    base = probe.get_all(unknowns)
    undeclared, seen = [], set()
    for k in knowns:
        x = probe.get(k)
        y = perturbed(k, x)
        if y is None:
            continue
        try:
            probe.set(k, y)
        except Exception:
            continue  # refused (e.g. an initial state out of its domain): nothing to test
        now = probe.get_all(unknowns)
        probe.set(k, x)
        for u in unknowns:
            if not same(now[u.name], base[u.name]):
                deps = declared[u.name]
                if deps is None:
                    continue  # no dependency list: it depends on every known
                if k.name in deps:
                    seen.add((u.name, k.name))
                else:
                    undeclared.append((u.name, k.name, base[u.name], now[u.name]))
    # declared pairs this sweep did not see change (among the knowns it perturbed: a
    # sampled scene leaves most of a long list unperturbed, so this is an upper bound)
    listed = sum(len(d) for d in declared.values() if d is not None)
    return undeclared, listed - len(seen)


def check(path, max_knowns):
    md = read_model_description(path)
    unzipdir = extract(path)
    variables = md.modelVariables
    inputs = [v for v in variables if v.causality == "input"]
    params = [v for v in variables if v.causality == "parameter" and v.type != "String"]
    outs = {u.variable.name: (None if u.dependencies is None else {d.name for d in u.dependencies})
            for u in md.outputs}
    inits = {u.variable.name: (None if u.dependencies is None else {d.name for d in u.dependencies})
             for u in md.initialUnknowns}
    out_vars = [u.variable for u in md.outputs if u.variable.type != "String"]
    init_vars = [u.variable for u in md.initialUnknowns if u.variable.type != "String"]
    e = md.defaultExperiment
    t0 = float(e.startTime) if e and e.startTime else 0.0
    h = float(e.stepSize) if e and e.stepSize else 1e-3
    bad = []
    t = time.time()

    # 1. initialization mode: inputs and parameters against the initial unknowns
    p = Probe(path, md, unzipdir)
    p.fmu.setupExperiment(startTime=t0)
    p.fmu.enterInitializationMode()
    knowns = sample(inputs, max_knowns) + sample(params, max_knowns)
    und, extra_init = sweep(p, knowns, init_vars, {v.name: inits[v.name] for v in init_vars})
    bad += [("initialization",) + u for u in und]
    p.fmu.exitInitializationMode()

    # 2. a communication point after one step: inputs against the outputs
    p.fmu.doStep(currentCommunicationPoint=t0, communicationStepSize=h)
    und, extra_out = sweep(p, sample(inputs, max_knowns), out_vars, {v.name: outs[v.name] for v in out_vars})
    bad += [("communication point",) + u for u in und]
    p.fmu.terminate()
    p.fmu.freeInstance()

    omitted = sum(d is None for d in list(outs.values()) + list(inits.values()))
    n_in = min(len(inputs), max_knowns)
    print(f"{Path(path).name}: {n_in} of {len(inputs)} inputs, {len(knowns) - n_in} of {len(params)} parameters "
          f"perturbed; {len(bad)} undeclared changes; declared but not seen here: {extra_out} (outputs), "
          f"{extra_init} (initial unknowns); unknowns listing every known: {omitted} ({time.time() - t:.1f} s)")
    for where, u, k, a, b in bad[:20]:
        print(f"  UNDECLARED at {where}: {u} changed {a!r} -> {b!r} when {k} changed")
    return not bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--max-knowns", type=int, default=400,
                    help="parameters perturbed per FMU in initialization mode (evenly spread beyond)")
    a = ap.parse_args()
    fmus = []
    for p in a.paths:
        p = Path(p)
        fmus += sorted(p.glob("*.fmu")) if p.is_dir() else [p]
    ok = all([check(str(f), a.max_knowns) for f in fmus])
    print("feedthrough: every change declared" if ok else "feedthrough: undeclared dependencies (above)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
