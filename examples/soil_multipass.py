#!/usr/bin/env python3
"""Six rover wheels drive over SCM soil, the rear ones in the ruts of the front ones
(multi-pass); the FMU's soil export (soil.export_dir: a 16-bit PNG height image with a
JSON sidecar) rendered to a picture.

    .venv/bin/python examples/soil_multipass.py [target/fmu/scm_rover_wheels.fmu] [out.png]
        [--distance 1.6] [--speed 0.2] [--slip 0.2] [--load 20]

examples/scm_rover_wheels.json: three grouser wheels per side 0.6 m apart (r 0.2 m, 16
grousers), kinematic. This script is the master a rover model would be: every 5 ms it
sets each wheel's pose (moved on by --speed along x, turned by omega = v / (r (1 - slip))
about its axle, its height integrated under --load kg and the soil's vertical force)
and velocities; `<wheel>.extrapolate` moves the wheels on within each
step. After --distance (more than the 1.2 m from rear to front wheel) some ground
has been rolled over once, twice and three times. At fmi2Terminate the FMU writes the soil surface; the script
reads the height image back in metres and draws it.
"""
import argparse
import glob
import json
import math
import os
import sys
import tempfile

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

WHEELS = ["wheel_l1", "wheel_r1", "wheel_l2", "wheel_r2", "wheel_l3", "wheel_r3"]
RADIUS = 0.2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fmu", nargs="?", default="target/fmu/scm_rover_wheels.fmu")
    ap.add_argument("png", nargs="?", default="target/fmu/soil_multipass.png")
    ap.add_argument("--distance", type=float, default=1.6, help="m driven")
    ap.add_argument("--speed", type=float, default=0.2, help="m/s")
    ap.add_argument("--slip", type=float, default=0.2)
    ap.add_argument("--load", type=float, default=20.0, help="kg per wheel")
    a = ap.parse_args()
    md = read_model_description(a.fmu)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzip = extract(a.fmu)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="rover")
    out = tempfile.mkdtemp(prefix="soil-")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.setString([vr["soil.export_dir"]], [out])
    fmu.setBoolean([vr[f"{w}.extrapolate"] for w in WHEELS], [True] * len(WHEELS))
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    start = {w: [fmu.getReal([vr[f"{w}.r[{k}]"]])[0] for k in (1, 2, 3)] for w in WHEELS}
    omega = a.speed / (RADIUS * (1.0 - a.slip))
    h = 0.005
    n = int(round(a.distance / a.speed / h))
    # each wheel carries a sixth of the rover: the master integrates its height under
    # that load and the soil's vertical force (semi-implicit Euler), from first touch
    z = {w: RADIUS + 0.01 for w in WHEELS}
    vz = {w: 0.0 for w in WHEELS}
    f3 = [vr[f"{w}.f[3]"] for w in WHEELS]
    for k in range(n + 1):
        t = k * h
        phi = omega * t
        if k > 0:
            for w, f in zip(WHEELS, fmu.getReal(f3)):
                vz[w] += h * (f / a.load - 9.81)
                z[w] += h * vz[w]
        for w in WHEELS:
            x, y, _ = start[w]
            names = [f"{w}.r[1]", f"{w}.r[2]", f"{w}.r[3]", f"{w}.q[1]", f"{w}.q[2]", f"{w}.q[3]",
                     f"{w}.q[4]", f"{w}.v[1]", f"{w}.v[2]", f"{w}.v[3]", f"{w}.w[1]", f"{w}.w[2]", f"{w}.w[3]"]
            values = [x + a.speed * t, y, z[w], math.cos(phi / 2), 0.0, math.sin(phi / 2), 0.0,
                      a.speed, 0.0, vz[w], 0.0, omega, 0.0]
            fmu.setReal([vr[s] for s in names], values)
        if k < n:
            fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        if k % 20 == 0:
            print(f"\r  t = {t:5.2f} s of {n * h:.2f} s", end="", flush=True)
    fx = fmu.getReal([vr[f"{w}.f[1]"] for w in WHEELS])
    print(f"\n  soil force along x per wheel, N: {', '.join(f'{f:.1f}' for f in fx)}")
    print(f"  hub heights, m: {', '.join(f'{z[w]:.4f}' for w in WHEELS)}")
    fmu.terminate()
    fmu.freeInstance()

    meta_path = sorted(glob.glob(os.path.join(out, "soil_t*.json")))[-1]
    meta = json.load(open(meta_path))
    from PIL import Image
    raw = np.array(Image.open(meta_path[:-5] + ".png"), dtype=np.float64)
    z = meta["z_min"] + raw / 65535.0 * (meta["z_max"] - meta["z_min"])
    ds = meta["ds"]
    extent = [meta["x0"], meta["x0"] + meta["nx"] * ds, meta["y0"], meta["y0"] + meta["ny"] * ds]

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 7.5), gridspec_kw={"height_ratios": [3, 2]})
    im = a1.imshow(z * 1e3, extent=extent, origin="upper", cmap="terrain", aspect="equal")
    a1.set_xlabel("x / m")
    a1.set_ylabel("y / m")
    a1.set_title(f"SCM soil after six wheels drove {a.distance} m at {a.slip:.0%} slip (FMU soil export)")
    fig.colorbar(im, ax=a1, label="soil height / mm")
    # sections across the ruts where one, two and three left wheels have passed
    ys = meta["y0"] + ds * (meta["ny"] - 1 - np.arange(meta["ny"]))  # row 0 at the largest y
    left = [start[w][0] for w in ("wheel_l1", "wheel_l2", "wheel_l3")]
    cuts = {}
    for x in np.arange(min(left) + 0.1, max(left) + a.distance - 0.1, 0.05):
        passes = sum(x0 + 0.1 <= x <= x0 + a.distance - 0.1 for x0 in left)
        cuts.setdefault(passes, x)
    depths = {}
    for passes, x in sorted(cuts.items()):
        i = int(round((x - meta["x0"]) / ds))
        col = z[:, i]
        # rut bottom: the deepest node across the left rut, median over 10 cm along x
        # (single columns hit or miss the grousers' imprints)
        near = z[:, max(0, i - 5):i + 6][ys > 0]
        depths[passes] = -float(np.median(np.min(near, axis=0))) * 1e3
        a2.plot(ys, col * 1e3, label=f"x = {x:.2f} m: {passes} pass{'es' if passes > 1 else ''}")
    a2.set_xlabel("y / m")
    a2.set_ylabel("height / mm")
    a2.grid(True)
    a2.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(a.png)), exist_ok=True)
    fig.savefig(a.png, dpi=90)
    print("  left rut depth: " + ", ".join(f"{d:.1f} mm after {p} pass{'es' if p > 1 else ''}" for p, d in sorted(depths.items())))
    print(f"  exported {meta['nx']} x {meta['ny']} nodes of {ds} m, volume {meta['volume_m3']:.3e} m3 -> {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
