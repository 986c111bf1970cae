#!/usr/bin/env python3
"""Plans for ci/fmi3_run.c: every FMI 3.0 FMU of a folder unpacked, and a plan per FMU
(its library, resources, token, a few steps, its outputs, inputs and collection sizes
by value reference, with their value counts).

Usage: ci/fmi3_plans.py FMU_DIR OUT_DIR [--steps N]
Prints the plan paths, one per line.
"""
import argparse
import glob
import os
import shutil
import zipfile

from fmpy import read_model_description

from fmi3_check import size  # an array's element count (ci/fmi3_check.py)


def listing(variables):
    vrs = " ".join(str(v.valueReference) for v in variables)
    return f"{len(variables)} {sum(size(v) for v in variables)} {vrs}".rstrip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fmus")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=6)
    a = ap.parse_args()
    fmus = sorted(glob.glob(os.path.join(a.fmus, "*.fmu")))
    if not fmus:
        raise SystemExit(f"fmi3_plans: no .fmu files in {a.fmus}")
    shutil.rmtree(a.out, ignore_errors=True)
    for path in fmus:
        name = os.path.basename(path)[:-4]
        md = read_model_description(path)
        if not md.fmiVersion.startswith("3"):
            raise SystemExit(f"fmi3_plans: {path} is FMI {md.fmiVersion}, not 3.0")
        unzipped = os.path.abspath(os.path.join(a.out, name))
        with zipfile.ZipFile(path) as z:
            z.extractall(unzipped)
        ident = md.coSimulation.modelIdentifier
        lib = os.path.join(unzipped, "binaries", "x86_64-linux", ident + ".so")
        vs = md.modelVariables
        outs = lambda t: [v for v in vs if v.causality == "output" and v.type == t]
        lines = [
            lib,
            os.path.join(unzipped, "resources") + "/",
            md.guid,
            str(a.steps),
            repr(float(md.defaultExperiment.stepSize)),
            listing(outs("Float64")),
            listing(outs("Int32")),
            listing(outs("Boolean")),
            listing([v for v in vs if v.causality == "input" and v.type == "Float64"]),
            listing([v for v in vs if v.causality == "structuralParameter"]),
        ]
        plan = os.path.join(a.out, name + ".plan")
        with open(plan, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(plan)


if __name__ == "__main__":
    main()
