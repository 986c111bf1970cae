#!/usr/bin/env python3
"""Monte-Carlo of a wheel over generated rock fields, as a Dask sweep: one rock field
per seed (Golombek and Rapp 1997 size-frequency law, `contact-fmu asset rocks`), the
rocks in the wheel's lane as fixed BBCC bodies, one FMU per field, made in this process
by the Python API (`contact_fmu.asset`, `contact_fmu.package` of a dict; docs/python.md);
the runs spread over the workers like examples/sweep_drawbar.py's.

    .venv/bin/python examples/sweep_rockfield.py
        [--seeds 8] [--k 0.1] [--scheduler tcp://host:8786 | --workers 2]
        [--out target/rockfield] [--check]

The wheel: a rigid cylinder (r 0.25 m, width 0.2 m, 20 kg, BBCC Hunt-Crossley with
Coulomb friction), held by the planar joint of docs/cosimulation.md at 0.2 m/s and
0.8 rad/s (rolling), free to rise and fall, over a 3 m lane of flat rigid ground with
rocks from 4 to 25 cm across (k is the total rock abundance: the fraction of the
ground rocks cover). Per field: the rocks in the lane, the highest the hub rose above
its rolling height (m), the peak vertical contact force (N) and the mean joint force
along x (N: the push that keeps the speed over the rocks). Writes OUT/sweep_rockfield.csv, .md, .png.
--check runs every field once more without Dask: bit-identical results required.
"""
import argparse
import glob
import json
import os
import sys
import time

import numpy as np

import contact_fmu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_drawbar import fmu_file, local_client  # noqa: E402

R, WIDTH, MASS, VX = 0.25, 0.2, 20.0, 0.2
LANE = (0.5, 3.5)  # x range of the rock field, m
WHEEL_MATERIAL = {"E": 1.0e8, "nu": 0.3, "zeta": 0.5, "mu": 0.6}
ROCK_MATERIAL = {"E": 5.0e9, "nu": 0.25, "zeta": 0.5, "mu": 0.6}


def field(out, seed, k):
    """Generates the rock field of `seed` (contact_fmu.asset) and returns its scenario
    (a dict), the folder its mesh paths are relative to, and its rock count."""
    folder = os.path.join(out, f"seed_{seed:03d}")
    assets = os.path.join(folder, "assets")
    contact_fmu.asset("rocks", assets, extent=(LANE[0], LANE[1], -0.4, 0.4), k=k, d_min=0.04, d_max=0.25,
                      seed=seed, per_rock=True)
    sidecars = [p for p in glob.glob(os.path.join(assets, "rocks_*.json"))
                if json.load(open(p))["request"]["params"].get("seed", 0) == seed]
    meta = json.load(open(sidecars[0]))
    bodies = [{"name": "wheel", "shape": {"type": "cylinder", "radius": R, "height": WIDTH},
               "material": WHEEL_MATERIAL,
               "motion": {"type": "free", "mass": MASS, "position": [0.0, 0.0, R],
                          "joint": {"vx": VX, "omega": VX / R}}}]
    pairs = [["wheel", "terrain"]]
    for i, p in enumerate(meta["placements"]):
        x, y, _ = p["position"]
        if abs(y) > WIDTH / 2 + p["diameter"] / 2:
            continue  # beside the lane
        name = f"rock{i:03d}"
        bodies.append({"name": name,
                       "shape": {"type": "convex_mesh", "file": os.path.relpath(os.path.join(assets, p["files"][0]), folder)},
                       "material": ROCK_MATERIAL,
                       "motion": {"type": "fixed", "position": p["position"], "orientation": p["orientation"]}})
        pairs.append(["wheel", name])
    scenario = {
        "name": f"wheel over rock field {seed}", "model_identifier": f"rockfield_{seed:03d}",
        "description": f"examples/sweep_rockfield.py: the rolling wheel over rock field seed {seed} (k = {k}).",
        "default_experiment": {"start_time": 0.0, "stop_time": (LANE[1] + 0.3) / VX, "step_size": 0.001},
        "model_step": 0.0001,
        "terrain": {"surface": {"type": "flat", "height": 0.0}, "material": ROCK_MATERIAL},
        "bodies": bodies,
        "bbcc": {"v_d": 0.01, "pairs": pairs},
    }
    return scenario, folder, len(bodies) - 1


def run_task(data, seed, rocks):
    from fmpy import simulate_fmu
    r = simulate_fmu(fmu_file(data), output=["wheel.r[3]", "wheel.f[3]", "wheel.joint.fx"])
    return dict(seed=seed, rocks=rocks,
                rise=float(np.max(r["wheel.r[3]"]) - R),
                peak_fz=float(np.max(r["wheel.f[3]"])),
                resistance=float(np.mean(r["wheel.joint.fx"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--k", type=float, default=0.1, help="rock abundance (Golombek and Rapp)")
    ap.add_argument("--scheduler")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="target/rockfield")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not 0.0 < a.k < 0.5:
        raise SystemExit(f"--k {a.k}: the rock abundance must be in (0, 0.5)")
    os.makedirs(a.out, exist_ok=True)
    fmus = []
    for seed in range(a.seeds):
        scenario, folder, rocks = field(a.out, seed, a.k)
        fmu = contact_fmu.package(scenario, os.path.join(a.out, "fmu"), base_dir=folder)
        fmus.append((seed, rocks, fmu.read_bytes()))
        print(f"\r  field {seed + 1}/{a.seeds}: {rocks} rocks in the lane", end="", flush=True)
    print()
    from dask.distributed import Client, as_completed
    with (Client(a.scheduler) if a.scheduler else local_client(a.workers)) as client:
        t0 = time.perf_counter()
        futures = [client.submit(run_task, client.scatter(d), s, n, pure=False) for s, n, d in fmus]
        for i, _ in enumerate(as_completed(futures)):
            print(f"\r  {i + 1}/{len(futures)} runs done", end="", flush=True)
        rows = [f.result() for f in futures]
        print(f"\n{len(rows)} runs in {time.perf_counter() - t0:.1f} s wall")
    with open(os.path.join(a.out, "sweep_rockfield.csv"), "w") as f:
        f.write("seed,rocks,rise,peak_fz,resistance\n")
        for r in rows:
            f.write(f"{r['seed']},{r['rocks']},{r['rise']!r},{r['peak_fz']!r},{r['resistance']!r}\n")
    rise = np.array([r["rise"] for r in rows])
    peak = np.array([r["peak_fz"] for r in rows])
    res = np.array([r["resistance"] for r in rows])
    with open(os.path.join(a.out, "sweep_rockfield.md"), "w") as f:
        f.write(f"| quantity (k = {a.k}, {len(rows)} fields) | mean | std | min | max |\n| --- | --- | --- | --- | --- |\n")
        for label, v in (("rocks in the lane", np.array([r["rocks"] for r in rows], float)),
                         ("hub rise / mm", rise * 1e3), ("peak vertical force / N", peak),
                         ("mean resistance / N", res)):
            f.write(f"| {label} | {v.mean():.1f} | {v.std():.1f} | {v.min():.1f} | {v.max():.1f} |\n")
    for r in rows:
        print(f"  seed {r['seed']:3d}: {r['rocks']:2d} rocks, hub rise {r['rise'] * 1e3:6.1f} mm, "
              f"peak f_z {r['peak_fz']:8.0f} N, resistance {r['resistance']:6.2f} N")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    for ax, v, label in zip(axes[:2], (rise * 1e3, peak), ("hub rise / mm", "peak vertical force / N")):
        ax.hist(v, bins=max(4, len(v) // 2))
        ax.set_xlabel(label)
        ax.grid(True)
    axes[0].set_ylabel("fields")
    axes[2].plot([r["rocks"] for r in rows], res, "o")
    axes[2].set_xlabel("rocks in the lane")
    axes[2].set_ylabel("mean resistance / N")
    axes[2].grid(True)
    fig.suptitle(f"A wheel over {len(rows)} generated rock fields (k = {a.k}): Monte-Carlo on Dask")
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "sweep_rockfield.png"), dpi=90)
    print(f"-> {a.out}/sweep_rockfield.csv, .md, .png")
    if a.check:
        bad = [r for (s, n, d), r in zip(fmus, rows) if run_task(d, s, n) != r]
        if bad:
            print(f"FAILED: {len(bad)} runs differ from their single runs")
            return 1
        print(f"check: all {len(rows)} runs bit-identical to single runs without Dask")
    return 0


if __name__ == "__main__":
    sys.exit(main())
