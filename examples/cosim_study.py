#!/usr/bin/env python3
"""Monolithic against co-simulated: the three closed loops of docs/cosimulation.md,
each run once with the body inside the contact FMU (monolithic) and as a body FMU
coupled to a contact FMU (an SSP system), over a range of communication steps and
masters. Prints a table, writes it as JSON and plots it.

    .venv/bin/python examples/cosim_study.py
        [--out target/cosim] [--loops sphere,scm,terra] [--quick]

Loops (examples/cosim_*.json):
  sphere  the bbcc_sphere_drop sphere on BBCC ground    (monolithic: bbcc_sphere_drop)
  scm     a grouser wheel at 20 % slip on SCM soil      (monolithic: cosim_scm_mono)
  terra   the TerRA wheel at 20 % slip                  (monolithic: cosim_terra_mono)
Runs per step: fmpy Jacobi with the kinematic body extrapolated (the examples'
setting), the same with the pose held (`<b>.extrapolate = false`), fmpy Gauss-Seidel
(body FMU first) and libcosim (Jacobi).

Measures, against the monolithic run at the common communication points:
  err_z   largest |z_cosim - z_mono| of the body (m) over the run,
  err_f   |mean - mean_mono| of the contact force along x over the second half (N),
          the drawbar pull of the wheel loops,
  verdict diverged (an FMU refused a step, or z left a sane range), agrees (err_z
          within 10 % of how far the monolithic body moves in z) or off.
--quick runs one step per loop and the three masters (CI): the masters must agree
with each other and with the monolithic run within the tolerances in TOLERANCE.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import contact_fmu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cosim  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

LOOPS = {
    "sphere": dict(body="ball", mono="bbcc_sphere_drop", steps=[1e-3, 5e-4, 2e-4, 1e-4],
                   quick_step=1e-4, z_range=(-0.5, 1.0), force=False),
    "scm": dict(body="wheel", mono="cosim_scm_mono", steps=[2e-2, 1e-2, 5e-3, 2e-3, 1e-3],
                quick_step=1e-3, z_range=(0.0, 0.6), force=True),
    "terra": dict(body="wheel", mono="cosim_terra_mono", steps=[2e-2, 1e-2, 5e-3, 2e-3, 1e-3],
                  quick_step=1e-3, z_range=(0.0, 0.4), force=True),
}
# --quick: co-simulated within this of monolithic (err_z in m, err_f in N), and the
# three masters' z within MASTERS_AGREE of each other
TOLERANCE = {"sphere": (5e-4, None), "scm": (1e-3, 1.0), "terra": (1e-3, 0.05)}
# Gauss-Seidel here uses the contact wrench at the end of the step it takes (see
# docs/cosimulation.md): stable, but it damps the sphere's bounces (first order, 4 cm
# at 0.1 ms); the wheel loops it follows as closely as Jacobi
TOLERANCE_GS = {"sphere": (0.05, None), "scm": (1e-3, 1.0), "terra": (2e-3, 0.05)}
MASTERS_AGREE = 1e-9


def build(out, loops):
    """The monolithic FMUs and the SSP systems, made in this process by the Python API
    (docs/python.md)."""
    fmus = os.path.join(out, "fmu")
    for l in loops:
        contact_fmu.package(os.path.join(HERE, f"{LOOPS[l]['mono']}.json"), fmus)
    ssps = {}
    for l in loops:
        body = os.path.join(HERE, f"cosim_{l}_body.json")
        contact = os.path.join(HERE, f"cosim_{l}_contact.json")
        name = LOOPS[l]["body"]
        for variant, value in (("extrapolate", True), ("hold", False)):
            path = os.path.join(out, f"cosim_{l}_{variant}.ssp")
            contact_fmu.ssp([body, contact], path, params={f"cosim_{l}_contact:{name}.extrapolate": value})
            ssps[(l, variant)] = path
    return fmus, ssps


def monolithic(fmus, loop):
    from fmpy import simulate_fmu
    c = LOOPS[loop]
    b = c["body"]
    out = [f"{b}.r[3]"] + ([f"{b}.f[1]"] if c["force"] else [])
    from fmpy import read_model_description
    path = os.path.join(fmus, f"{c['mono']}.fmu")
    step = read_model_description(path).defaultExperiment.stepSize
    # recorded at every communication point (fmpy's default records fewer)
    r = simulate_fmu(path, output=out, output_interval=float(step))
    res = {"time": r["time"], "z": r[f"{b}.r[3]"]}
    if c["force"]:
        res["fx"] = r[f"{b}.f[1]"]
    return res


def cosimulated(ssp, loop, master, step):
    c = LOOPS[loop]
    b = c["body"]
    outputs = [f"cosim_{loop}_body.{b}.r[3]"]
    if c["force"]:
        outputs.append(f"cosim_{loop}_contact.{b}.f[1]")
    system = cosim.System(ssp)
    order = [f"cosim_{loop}_body", f"cosim_{loop}_contact"]
    t0 = time.perf_counter()
    try:
        r = cosim.run(system, master, step, None, outputs, order)
    except Exception as e:  # an FMU refusing a step (non-finite state) is a result here
        return None, f"{type(e).__name__}: {str(e)[:80]}", time.perf_counter() - t0
    res = {"time": r["time"], "z": r[outputs[0]]}
    if c["force"]:
        res["fx"] = r[outputs[1]]
    return res, None, time.perf_counter() - t0


def compare(loop, mono, co):
    """err_z, err_f and the verdict of `co` against `mono` at their common times;
    also sets co["err_end"], |z - z_mono| at the end."""
    lo, hi = LOOPS[loop]["z_range"]
    z = co["z"][1:]  # row 0: the start values (NaN where the master cannot show them)
    if not np.all(np.isfinite(z)) or z.min() < lo or z.max() > hi:
        return None, None, "diverged"
    # common points: the coarser grid's times, found in both by rounding
    dt_m = mono["time"][1] - mono["time"][0]
    dt_c = co["time"][1] - co["time"][0]
    if dt_c >= dt_m:
        k = int(round(dt_c / dt_m))
        zm, fm, zc = mono["z"][::k], mono.get("fx", [None])[::k], co["z"]
        fc = co.get("fx")
    else:
        k = int(round(dt_m / dt_c))
        zm, fm, zc = mono["z"], mono.get("fx"), co["z"][::k]
        fc = co["fx"][::k] if "fx" in co else None
    n = min(len(zm), len(zc))
    err_z = float(np.nanmax(np.abs(zc[1:n] - zm[1:n])))
    co["err_end"] = float(abs(zc[n - 1] - zm[n - 1]))
    # "agrees": within 10 % of how far the monolithic body moves in z
    scale = float(np.max(mono["z"]) - np.min(mono["z"]))
    err_f = None
    if fc is not None:
        h = n // 2
        err_f = float(abs(np.mean(fc[h:n]) - np.mean(np.asarray(fm)[h:n])))
    return err_z, err_f, "agrees" if err_z <= 0.1 * scale else "off"


RUNS = [("fmpy", "extrapolate", "fmpy Jacobi"), ("fmpy", "hold", "fmpy Jacobi, pose held"),
        ("fmpy-gs", "extrapolate", "fmpy Gauss-Seidel"), ("libcosim", "extrapolate", "libcosim")]


def plot(results, traces, monos, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    loops = list(results)
    fig, axes = plt.subplots(2, len(loops), figsize=(5.2 * len(loops), 7.5), squeeze=False)
    for j, loop in enumerate(loops):
        ax = axes[0][j]
        m = monos[loop]
        ax.plot(m["time"], m["z"], "k-", lw=2.0, label="monolithic")
        for step, tr in sorted(traces[loop].items(), reverse=True):
            ax.plot(tr["time"], tr["z"], lw=0.9, label=f"fmpy Jacobi, h = {step * 1e3:g} ms")
        ax.set_title(f"{loop}: body height z")
        ax.set_xlabel("time / s")
        ax.set_ylabel("z / m")
        lo, hi = LOOPS[loop]["z_range"]
        zmin, zmax = float(np.min(m["z"])), float(np.max(m["z"]))
        pad = 0.25 * (zmax - zmin) + 1e-3
        ax.set_ylim(max(lo, zmin - pad), min(hi, zmax + pad))
        ax.grid(True)
        ax.legend(fontsize=7)
        ax = axes[1][j]
        colours = dict(zip([r[2] for r in RUNS], ["C0", "C2", "C4", "C3"]))
        styles = {"libcosim": dict(ls="--", marker="s", mfc="none", ms=8)}
        for _, _, label in RUNS:
            pts = [(r["step"], r["err_z"]) for r in results[loop] if r["run"] == label and r["err_z"] is not None]
            if pts:
                x, y = zip(*sorted(pts))
                st = styles.get(label, dict(ls="-", marker="o"))
                ax.loglog(np.array(x) * 1e3, np.maximum(y, 1e-12), color=colours[label], label=label, **st)
        top = ax.get_ylim()[1]
        for _, _, label in RUNS:
            bad = [r["step"] for r in results[loop] if r["run"] == label and r["err_z"] is None]
            if bad:
                ax.plot(np.array(bad) * 1e3, [top] * len(bad), "x", color=colours[label], ms=10, mew=2,
                        label=f"{label}: diverged", clip_on=False)
        ax.set_title(f"{loop}: largest |z - z_mono| (libcosim = fmpy Jacobi)")
        ax.set_xlabel("communication step / ms")
        ax.set_ylabel("error / m")
        ax.grid(True, which="both")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="target/cosim")
    ap.add_argument("--loops", default="sphere,scm,terra")
    ap.add_argument("--quick", action="store_true", help="one step per loop, checked (CI)")
    ap.add_argument("--png", help="plot (default: OUT/cosim_study.png)")
    a = ap.parse_args()
    loops = a.loops.split(",")
    for l in loops:
        if l not in LOOPS:
            raise SystemExit(f"unknown loop '{l}' ({', '.join(LOOPS)})")
    os.makedirs(a.out, exist_ok=True)
    fmus, ssps = build(a.out, loops)
    results, traces, monos, failures = {}, {}, {}, []
    print(f"{'loop':7} {'step/ms':>8}  {'run':24} {'err_z/m':>10} {'end/m':>9} {'err_fx/N':>9}  {'wall/s':>6}  verdict")
    for loop in loops:
        mono = monolithic(fmus, loop)
        monos[loop] = mono
        results[loop], traces[loop] = [], {}
        steps = [LOOPS[loop]["quick_step"]] if a.quick else LOOPS[loop]["steps"]
        runs = [r for r in RUNS if r[1] == "extrapolate"] if a.quick else RUNS
        for step in steps:
            zs = {}
            for master, variant, label in runs:
                co, err, wall = cosimulated(ssps[(loop, variant)], loop, master, step)
                if co is None:
                    ez, ef, verdict = None, None, f"diverged ({err})"
                else:
                    ez, ef, verdict = compare(loop, mono, co)
                    zs[label] = co["z"]
                    if label == "fmpy Jacobi":
                        traces[loop][step] = co
                results[loop].append(dict(step=step, run=label, err_z=ez, err_f=ef, verdict=verdict, wall=wall,
                                          err_end=None if co is None else co.get("err_end")))
                fz = "-" if ez is None else f"{ez:.3e}"
                ff = "-" if ef is None else f"{ef:.3g}"
                fe = "-" if ez is None else f"{co['err_end']:.1e}"
                print(f"{loop:7} {step * 1e3:8.3g}  {label:24} {fz:>10} {fe:>9} {ff:>9}  {wall:6.2f}  {verdict}", flush=True)
            if a.quick:
                for r in results[loop]:
                    tol_z, tol_f = (TOLERANCE_GS if r["run"] == "fmpy Gauss-Seidel" else TOLERANCE)[loop]
                    if r["err_z"] is None or r["err_z"] > tol_z or (tol_f and r["err_f"] > tol_f):
                        failures.append(f"{loop} {r['run']} at {step * 1e3:g} ms: err_z {r['err_z']}, err_f {r['err_f']} (tolerance {tol_z} m, {tol_f} N)")
                ref = zs.get("fmpy Jacobi")
                lc = zs.get("libcosim")
                if ref is not None and lc is not None:
                    d = float(np.max(np.abs(ref[1:] - lc[1:])))
                    print(f"{loop:7} fmpy Jacobi against libcosim: largest |dz| = {d:.3e} m")
                    if d > MASTERS_AGREE:
                        failures.append(f"{loop}: fmpy Jacobi and libcosim differ by {d:.3e} m > {MASTERS_AGREE}")
        if not a.quick:
            for _, _, label in RUNS:
                mine = [r for r in results[loop] if r["run"] == label]
                stable = [r["step"] for r in mine if r["err_z"] is not None]
                agree = [r["step"] for r in mine if r["verdict"] == "agrees"]
                fmt = lambda xs: f"{max(xs) * 1e3:g} ms" if xs else "none"
                print(f"{loop:7} {label:24} largest step: not diverged {fmt(stable)}, agrees {fmt(agree)}")
    with open(os.path.join(a.out, "cosim_study.json"), "w") as f:
        json.dump(results, f, indent=1)
    png = a.png or os.path.join(a.out, "cosim_study.png")
    plot(results, traces, monos, png)
    print(f"-> {os.path.join(a.out, 'cosim_study.json')}, {png}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
