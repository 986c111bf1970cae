"""One rig, every wheel model: drawbar pull, sinkage and torque against slip.

The same wheel (r 0.25 m, b 0.2 m, 200 N) in the same soil (DLR-A of Krenn 2009: n
0.63, k_c 2370, k_phi 60300, c 100 Pa, phi 35 deg, K 1.5 cm) on the single-wheel rig,
slip-controlled (rig.omega 1 rad/s, rig.vx = omega r (1 - i)), through each model's
packaged FMU, simulated with fmpy. The scenarios are built from the rig examples:

- TerRA: its force law F = k_c z^k_exp set to Bekker's rigid-wheel load curve in this
  soil (k_c = b (k_c/b + k_phi) sqrt(2 r) (3 - n)/3, k_exp = n + 1/2), the rest of
  examples/terra_single_wheel.json;
- SCM: examples/scm_single_wheel.json without grousers (a plain cylinder, like the
  others);
- Bekker, BJH, rheological: their examples' sections in DLR-A;
- Leite: examples/leite_single_wheel.json's section in DLR-A, with the Chaikin control
  points fitted to Wong and Reece's stress shape for n = 0.63 (the default is the fit
  for DLR-D2's n = 1.4; docs/models/leite.md).

Each run lasts `--time` s (default 5); the figures are means over its last 2 s.

    python examples/wheel_models.py target/wheel_models

(the FMUs are packaged in this process by the Python API, `contact_fmu.package` of each
scenario dict; docs/python.md)

writes target/wheel_models/wheel_models.md (the table) and wheel_models.png.
"""

import argparse
import copy
import json
import math
import pathlib
import sys

import numpy as np
from fmpy import simulate_fmu

import contact_fmu

ROOT = pathlib.Path(__file__).resolve().parent
R, B, W, G = 0.25, 0.2, 200.0, 9.81
SOIL = {"n": 0.63, "kc": 2370.0, "kphi": 60300.0, "c": 100.0,
        "phi": math.radians(35.0), "k_shear": 0.015}
OMEGA = 1.0
# Leite's stress shape fitted to Wong and Reece's for n = 0.63 (5 Chaikin rounds,
# least squares over the arc, RMS 0.9 % of the peak for entry angles 0.4-0.7 rad).
LEITE_DLR_A = [[0.054, 0.39], [0.401, 0.977], [0.599, 0.977], [0.946, 0.39]]


def load(name):
    with open(ROOT / f"{name}.json") as f:
        return json.load(f)


def rig(base):
    r = copy.deepcopy(base["rig"])
    r.update({"mode": 1, "load_mass": W / G, "g": G, "radius": R, "width": B,
              "position": [0.0, R], "omega": OMEGA, "vx": OMEGA * R})
    r.pop("grousers", None)
    r.pop("drawbar_force", None)
    return r


def scenarios():
    """The scenario of each model, keyed by its label."""
    out = {}
    k_eq = SOIL["kc"] / B + SOIL["kphi"]
    n = SOIL["n"]
    terra = load("terra_single_wheel")
    terra["terra"]["model"].update({
        "k_c": B * k_eq * math.sqrt(2 * R) * (3 - n) / 3, "k_exp": n + 0.5})
    terra["terra"]["soil"].update({"c": SOIL["c"], "phi": SOIL["phi"]})
    terra["terrain"] = {"surface": {"type": "flat", "height": 0.0}}
    terra["rig"] = rig(terra)
    out["TerRA"] = terra
    scm = load("scm_single_wheel")
    scm["rig"] = rig(scm)
    out["SCM"] = scm
    for label, name, key in [("Bekker", "bekker_single_wheel", "bekker"),
                             ("BJH", "bekker_single_wheel", "bjh"),
                             ("rheological", "rheological_single_wheel", "rheological"),
                             ("Leite", "leite_single_wheel", "leite")]:
        s = load(name)
        section = {"soil": dict(SOIL)}
        if key == "rheological":
            section["model"] = {"load": W}
        if key == "leite":
            section["discretization"] = {"control_points": LEITE_DLR_A}
        for k in ("bekker", "rheological", "leite"):
            s.pop(k, None)
        s[key] = section
        s["rig"] = rig(s)
        s["rig"]["soil_model"] = key
        out[label] = s
    for label, s in out.items():
        ident = "compare_" + label.lower()
        s["model_identifier"] = ident
        s["name"] = f"{label} on the comparison rig"
        s["description"] = "examples/wheel_models.py: " + label
        s.pop("$schema", None)
    return out


def package(scenario, outdir):
    """The FMU of `scenario` (a dict built from the examples), by the Python API."""
    return contact_fmu.package(scenario, outdir, base_dir=ROOT)


def run(fmu, slip, stop):
    res = simulate_fmu(str(fmu), stop_time=stop, output_interval=0.01,
                       start_values={"rig.omega": OMEGA, "rig.vx": OMEGA * R * (1 - slip)},
                       output=["wheel.Fx", "wheel.sinkage", "wheel.My"])
    tail = res["time"] >= stop - 2.0
    return [float(np.mean(res[v][tail])) for v in ("wheel.Fx", "wheel.sinkage", "wheel.My")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", help="where the FMUs, the table and the plot go")
    ap.add_argument("--slips", default="0,0.1,0.2,0.3,0.5,0.7",
                    help="comma-separated slips (default %(default)s)")
    ap.add_argument("--time", type=float, default=5.0, help="seconds per run")
    a = ap.parse_args()
    out = pathlib.Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    slips = [float(x) for x in a.slips.split(",")]
    results = {}
    for label, s in scenarios().items():
        fmu = package(s, out)
        results[label] = []
        for i in slips:
            results[label].append(run(fmu, i, a.time))
            dp, z, my = results[label][-1]
            print(f"{label:12s} slip {i:4.2f}: DP {dp:8.2f} N  sinkage {z * 1e3:6.2f} mm"
                  f"  torque {my:7.2f} N m", file=sys.stderr, flush=True)
    lines = ["| model | slip | drawbar pull (N) | sinkage (mm) | torque (N m) |",
             "| --- | --- | --- | --- | --- |"]
    for label, rows in results.items():
        for i, (dp, z, my) in zip(slips, rows):
            lines.append(f"| {label} | {i:.2f} | {dp:.1f} | {z * 1e3:.1f} | {my:.2f} |")
    (out / "wheel_models.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(13, 4))
    for label, rows in results.items():
        v = np.array(rows)
        ax[0].plot(slips, v[:, 0], "o-", label=label)
        ax[1].plot(slips, v[:, 1] * 1e3, "o-", label=label)
        ax[2].plot(slips, v[:, 2], "o-", label=label)
    for a_, t in zip(ax, ["drawbar pull (N)", "sinkage (mm)", "torque on the wheel (N m)"]):
        a_.set_xlabel("slip")
        a_.set_title(t)
        a_.grid(True)
    ax[0].legend()
    fig.suptitle("One rig, every wheel model: r 0.25 m, b 0.2 m, 200 N, DLR-A")
    fig.tight_layout()
    fig.savefig(out / "wheel_models.png", dpi=120)


if __name__ == "__main__":
    main()
