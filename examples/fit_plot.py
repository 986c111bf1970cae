#!/usr/bin/env python3
"""Reference against fitted over time, for a `contact-fmu fit` result: packages the fit
description's model and reference scenarios, simulates every case with fmpy (the
model with the fitted start values of fit.json) and plots each measured output, the
reference dashed, the fitted model solid, the measuring window shaded.

    .venv/bin/python examples/fit_plot.py examples/fit/terra_drop_fit.json target/fit/fit.json \\
        [-o target/fit/fit.png]
"""
import argparse
import json
import os
import sys
import tempfile

from fmpy import simulate_fmu

import contact_fmu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("result")
    ap.add_argument("-o", "--out", help="PNG (default: beside the result)")
    a = ap.parse_args()
    spec = json.load(open(a.spec))
    result = json.load(open(a.result))
    base = os.path.dirname(os.path.abspath(a.spec))
    if not spec.get("reference"):
        raise SystemExit("this plot needs a reference scenario (measurements have no time series)")
    tmp = tempfile.mkdtemp(prefix="fitplot-")
    # packaged in this process by the Python API (docs/python.md)
    model = str(contact_fmu.package(os.path.join(base, spec["model"]), tmp))
    reference = str(contact_fmu.package(os.path.join(base, spec["reference"]), tmp))
    outputs = list(dict.fromkeys(c["measure"]["output"] for c in spec["cases"]))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(outputs), 1, figsize=(9, 3.4 * len(outputs)), squeeze=False)
    seen = set()
    for i, case in enumerate(spec["cases"]):
        key = json.dumps(case["set"], sort_keys=True)
        m = case["measure"]
        row = outputs.index(m["output"])
        ax = axes[row][0]
        ref_out = case.get("reference_output", m["output"])
        r = simulate_fmu(reference, start_values=case["set"], stop_time=m["to"], output=[ref_out])
        f = simulate_fmu(model, start_values={**case["set"], **result["start_values"]},
                         stop_time=m["to"], output=[m["output"]])
        color = f"C{len(seen) % 10}" if key not in seen else None
        seen.add(key)
        label = ", ".join(f"{k} = {v:g}" for k, v in case["set"].items())
        line, = ax.plot(f["time"], f[m["output"]], "-", label=f"fitted, {label}")
        ax.plot(r["time"], r[ref_out], "--", color=line.get_color(), label=f"reference, {label}")
        ax.axvspan(m["from"], m["to"], color="0.9", zorder=0)
        ax.set_ylabel(m["output"])
        ax.grid(True)
        print(f"  {case['name']}: simulated")
    for (ax,), out in zip(axes, outputs):
        if "sinkage" in out:
            ax.set_ylim(bottom=-0.005)  # the contact, not the fall before it
        ax.legend(fontsize=7)
        ax.set_xlabel("time / s")
    fig.suptitle(f"{os.path.basename(a.spec)}: reference (dashed) against fitted (solid)")
    fig.tight_layout()
    png = a.out or os.path.join(os.path.dirname(a.result), "fit.png")
    fig.savefig(png, dpi=90)
    print(f"-> {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
