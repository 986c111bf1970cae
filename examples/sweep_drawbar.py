#!/usr/bin/env python3
"""Drawbar pull over slip for several soils, as a Dask sweep: one FMU, packaged once,
every (soil, slip) a task that sets FMU parameters (no repackaging) and simulates it.

    .venv/bin/python examples/sweep_drawbar.py [--fmu FMU]
        [--scheduler tcp://host:8786 | --workers 2] [--soils dlr_a,dlr_a_c20,...]
        [--slips 0,0.1,0.2,0.3,0.5,0.7] [--time 3] [--out target/sweep]
        [--check] [--compare-workers]

Without --scheduler the sweep runs on a dask.distributed LocalCluster of --workers
processes (one thread each); with --scheduler it runs the same tasks on that cluster's
workers, which need only this script's Python packages (fmpy, numpy): the FMU travels
to them as bytes (scattered once), not as a path on a shared file system.

Without --fmu the FMU is examples/scm_single_wheel.json packaged by the Python API
(contact_fmu.package, docs/python.md) into OUT/fmu/.
The rig is the single-wheel rig of examples/scm_single_wheel.json (grouser wheel r 0.25 m,
200 N, SCM soil, ds 1 cm), slip-controlled: rig.omega 1 rad/s, rig.vx = omega r (1 - i).
Per task the figures are means over the second half of the run: drawbar pull
wheel.Fx (N), sinkage wheel.sinkage (m), torque wheel.My (N m).

Soils (FMI parameters soil.n, soil.kc, soil.kphi, soil.c, soil.phi):
  dlr_a      Mars simulant DLR-A, Krenn 2009 Table 2 (k_c 2370, k_phi 60300, n 0.63),
             c 100 Pa, phi 35 deg (examples/scm_single_wheel.json)
  dlr_a_c20  DLR-A with cohesion 20 Pa  } the two cohesions of Buse 2023, Fig. 11
  dlr_a_c200 DLR-A with cohesion 200 Pa }
(DLR-D2 of Leite 2010 has k_c < 0, which the SCM FMU's soil.kc (min 0) refuses.)

--check runs every task once more in this process, without Dask, and requires the
table to be bit-identical (our FMUs are deterministic, wherever they run).
--compare-workers runs the sweep on 1 and then 2 local workers and reports both wall
times. Writes OUT/sweep_drawbar.csv, .md and .png.
"""
import argparse
import hashlib
import math
import os
import sys
import tempfile
import time

import numpy as np

SOILS = {
    "dlr_a": dict(n=0.63, kc=2370.0, kphi=60300.0, c=100.0, phi=math.radians(35.0)),
    "dlr_a_c20": dict(n=0.63, kc=2370.0, kphi=60300.0, c=20.0, phi=math.radians(35.0)),
    "dlr_a_c200": dict(n=0.63, kc=2370.0, kphi=60300.0, c=200.0, phi=math.radians(35.0)),
}
OMEGA, RADIUS = 1.0, 0.25


def fmu_file(data):
    """The FMU bytes as a file in this worker's temp folder (written once per content)."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"sweep-{digest}.fmu")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def run_task(data, soil, slip, duration):
    """One (soil, slip): simulate the rig and return its means over the second half."""
    from fmpy import simulate_fmu
    start = {f"soil.{k}": v for k, v in SOILS[soil].items()}
    start.update({"rig.mode": 1, "rig.omega": OMEGA, "rig.vx": OMEGA * RADIUS * (1.0 - slip)})
    r = simulate_fmu(fmu_file(data), start_values=start, stop_time=duration,
                     output=["wheel.Fx", "wheel.sinkage", "wheel.My", "wheel.slip"])
    half = r["time"] >= duration / 2
    return dict(soil=soil, slip=slip,
                drawbar=float(np.mean(r["wheel.Fx"][half])),
                sinkage=float(np.mean(r["wheel.sinkage"][half])),
                torque=float(np.mean(r["wheel.My"][half])),
                slip_measured=float(np.mean(r["wheel.slip"][half])))


def sweep(client, data, soils, slips, duration):
    """Every task on the cluster behind `client`; results in task order."""
    from dask.distributed import as_completed
    remote = client.scatter(data, broadcast=True)
    tasks = [(s, i) for s in soils for i in slips]
    futures = [client.submit(run_task, remote, s, i, duration, pure=False) for s, i in tasks]
    done = 0
    for _ in as_completed(futures):
        done += 1
        print(f"\r  {done}/{len(futures)} tasks done", end="", flush=True)
    print()
    return [f.result() for f in futures]


def local_client(workers):
    import logging
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.WARNING)
    return Client(cluster)


def write(rows, out):
    import csv
    os.makedirs(out, exist_ok=True)
    cols = ["soil", "slip", "drawbar", "sinkage", "torque", "slip_measured"]
    with open(os.path.join(out, "sweep_drawbar.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "sweep_drawbar.md"), "w") as f:
        f.write("| soil | slip | drawbar pull / N | sinkage / mm | torque / N m |\n| --- | --- | --- | --- | --- |\n")
        for r in rows:
            f.write(f"| {r['soil']} | {r['slip']:.2f} | {r['drawbar']:.1f} | {r['sinkage'] * 1e3:.1f} | {r['torque']:.1f} |\n")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for soil in dict.fromkeys(r["soil"] for r in rows):
        mine = [r for r in rows if r["soil"] == soil]
        a1.plot([r["slip"] for r in mine], [r["drawbar"] for r in mine], "o-", label=soil)
        a2.plot([r["slip"] for r in mine], [r["sinkage"] * 1e3 for r in mine], "o-", label=soil)
    a1.set_xlabel("slip")
    a1.set_ylabel("drawbar pull wheel.Fx / N")
    a1.grid(True)
    a1.legend()
    a2.set_xlabel("slip")
    a2.set_ylabel("sinkage / mm")
    a2.grid(True)
    fig.suptitle("SCM single-wheel rig, 200 N: drawbar pull over slip (Dask sweep)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "sweep_drawbar.png"), dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fmu", help="an SCM rig FMU (default: examples/scm_single_wheel.json packaged "
                    "into OUT/fmu/ by the Python API)")
    ap.add_argument("--scheduler", help="address of a Dask scheduler, e.g. tcp://host:8786")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--soils", default=",".join(SOILS))
    ap.add_argument("--slips", default="0,0.1,0.2,0.3,0.5,0.7")
    ap.add_argument("--time", type=float, default=3.0, help="simulated time per task, s")
    ap.add_argument("--out", default="target/sweep")
    ap.add_argument("--check", action="store_true", help="compare with single runs, no Dask")
    ap.add_argument("--compare-workers", action="store_true", help="wall time on 1 and 2 local workers")
    a = ap.parse_args()
    soils = a.soils.split(",")
    for s in soils:
        if s not in SOILS:
            raise SystemExit(f"unknown soil '{s}' ({', '.join(SOILS)})")
    slips = [float(x) for x in a.slips.split(",")]
    for i in slips:
        if not 0.0 <= i < 1.0:
            raise SystemExit(f"slip {i}: must be in [0, 1)")
    if a.fmu is None:
        import contact_fmu
        a.fmu = str(contact_fmu.package(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "scm_single_wheel.json"), os.path.join(a.out, "fmu")))
    with open(a.fmu, "rb") as f:
        data = f.read()
    n = len(soils) * len(slips)
    print(f"{a.fmu}: {len(soils)} soils x {len(slips)} slips = {n} tasks of {a.time} s")
    if a.scheduler:
        from dask.distributed import Client
        runs = [("scheduler " + a.scheduler, lambda: Client(a.scheduler))]
    elif a.compare_workers:
        runs = [("1 local worker", lambda: local_client(1)), ("2 local workers", lambda: local_client(2))]
    else:
        runs = [(f"{a.workers} local worker(s)", lambda: local_client(a.workers))]
    rows = None
    for label, make in runs:
        with make() as client:
            client.wait_for_workers(1)
            t0 = time.perf_counter()
            got = sweep(client, data, soils, slips, a.time)
            wall = time.perf_counter() - t0
        print(f"{label}: {n} tasks in {wall:.1f} s wall")
        if rows is not None and got != rows:
            raise SystemExit("the sweeps on 1 and 2 workers differ")
        rows = got
    write(rows, a.out)
    for r in rows:
        print(f"  {r['soil']:11} slip {r['slip']:.2f}: drawbar {r['drawbar']:8.2f} N, sinkage {r['sinkage'] * 1e3:6.2f} mm, torque {r['torque']:7.2f} N m")
    print(f"-> {a.out}/sweep_drawbar.csv, .md, .png")
    if a.check:
        bad = 0
        for r in rows:
            single = run_task(data, r["soil"], r["slip"], a.time)
            if single != r:
                bad += 1
                print(f"  DIFF {r['soil']} slip {r['slip']}: sweep {r} vs single run {single}")
        if bad:
            print(f"FAILED: {bad} of {n} tasks differ from their single runs")
            return 1
        print(f"check: all {n} tasks bit-identical to single runs without Dask")
    return 0


if __name__ == "__main__":
    sys.exit(main())
