#!/usr/bin/env python3
"""Our FMUs and SSP systems in OMSimulator and the FMU Compliance Checker.

  ci/importers_check.py fmus DIR REFERENCE.json [--no-fmucheck] [--jobs N]
      every *.fmu of DIR (FMI 2.0, or FMI 3.0 with --no-fmucheck), N at a time (default:
      the number of cores):
      - fmuCheck.linux64 -k cs over the default experiment: its report must say
        0 Error(s) (its exit code is 0 even with errors);
      - OMSimulator --mode=cs over the default experiment: exit code 0, no error or
        warning line, and the last value of every output against fmpy's (`last` in
        ci/reference/behaviour.json) within 1e-9 relative to max(1, |value|), as for
        libcosim in ci/masters_check.py (the chaotic examples only finite).
  ci/importers_check.py ssp FILE.ssp ...
      each closed loop (target/ssp/cosim_<loop>.ssp) in OMSimulator: no warning, no
      error; the body's height against the monolithic FMU (target/fmu/<mono>.fmu run
      by fmpy at the SSP's step) within the loop's tolerance.

The importers are read from $CONTACT_FMU_IMPORTERS (default: ../shared/importers
beside the repository); when they are absent the check says so and passes.
Each run has a time bound (--timeout, s); its wall time is printed.
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# $CONTACT_FMU_IMPORTERS, else ../shared/importers beside the repository, else the
# workplace's /work/shared/importers (a fresh clone elsewhere still finds them)
IMPORTERS = os.environ.get("CONTACT_FMU_IMPORTERS") or next(
    (d for d in (os.path.join(ROOT, "..", "shared", "importers"), "/work/shared/importers")
     if os.path.isdir(d)), os.path.join(ROOT, "..", "shared", "importers"))
OMS = os.path.join(IMPORTERS, "omsimulator", "OMSimulator")
FMUCHECK = os.path.join(IMPORTERS, "fmucheck", "fmuCheck.linux64")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from masters_check import CHAOTIC, TOLERANCE, last_difference  # noqa: E402

# OMSimulator's step differs from fmpy's in the last bits (measured: 1e-14 to 3e-11 on
# smooth examples); examples whose contacts switch on round-off (SCM soil yielding node
# by node, a stack of cubes) grow that: they are held to their bound in ROUNDOFF
ROUNDOFF = {"cosim_scm_mono": 0.1, "scm_single_wheel": 0.1, "bbcc_stacking": 1e-6}
# examples not run in OMSimulator (none). OMSimulator's load time grows with the count
# of declared dependencies times the variables (its graph search per entry): the
# <InitialUnknowns> lists are held to a budget (INITIAL_BUDGET, src/cosim/feedthrough.rs),
# so the 500-rock pile's default experiment takes about 15 s in OMSimulator and the
# 200-rock field's 5.5 s (a quiet CI run; docs/fmu-interface.md, "Large scenes in
# OMSimulator").
SKIP_OMS = set()
# closed loops: (body FMU output of the height, monolithic FMU, its body, tolerance in m)
# tolerances as for fmpy's and libcosim's Jacobi runs (examples/cosim_study.py)
LOOPS = {
    "cosim_sphere": ("cosim_sphere_body.ball.r[3]", "bbcc_sphere_drop", "ball", 5e-4),
    "cosim_scm": ("cosim_scm_body.wheel.r[3]", "cosim_scm_mono", "wheel", 1e-3),
    "cosim_terra": ("cosim_terra_body.wheel.r[3]", "cosim_terra_mono", "wheel", 1e-3),
}

failures = []


def fail(what):
    failures.append(what)
    print(f"  FAIL {what}", flush=True)


def run(cmd, cwd, timeout):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", time.time() - t
    return p.returncode, p.stdout + p.stderr, time.time() - t


def read_csv(path):
    """OMSimulator's CSV as {column: [values]}; it writes each step after t = 0 twice:
    the rows are taken once per distinct time."""
    with open(path) as f:
        rows = list(csv.reader(f))
    head = [h.strip().strip('"') for h in rows[0]]
    cols = {h: [] for h in head}
    last_t = None
    for r in rows[1:]:
        if not r:
            continue
        t = float(r[0])
        if t == last_t:
            for h, v in zip(head, r):
                cols[h][-1] = float(v)
            continue
        last_t = t
        for h, v in zip(head, r):
            cols[h].append(float(v))
    return cols


def log_problems(text):
    """OMSimulator's error and warning lines."""
    return [l for l in text.splitlines() if l.startswith(("error:", "warning:"))]


def compliance(name, path, step, stop, tmp, timeout):
    """The FMU Compliance Checker over the default experiment: its summary."""
    # the FMU Compliance Checker
    rc, out, dt_check = run([FMUCHECK, "-k", "cs", "-h", repr(step), "-s", repr(stop),
                             "-o", "check.csv", "-e", "check.log", path], tmp, timeout)
    report = open(os.path.join(tmp, "check.log")).read() if os.path.exists(os.path.join(tmp, "check.log")) else ""
    m = re.search(r"Checker reported:\s*(\d+) Warning\(s\)\s*(\d+) Error\(s\)", report)
    if rc is None:
        fail(f"{name}: fmuCheck did not finish within {timeout} s")
    elif not m:
        fail(f"{name}: no report from fmuCheck (exit code {rc}): {report[-300:]}")
    elif int(m.group(2)) != 0:
        errors = [l for l in report.splitlines() if "[ERROR]" in l or "Error" in l][:5]
        fail(f"{name}: fmuCheck reports {m.group(2)} errors: {errors}")
    return f"fmuCheck {m.group(1) if m else '?'} warnings, {m.group(2) if m else '?'} errors ({dt_check:.1f} s)"


def check_fmus(folder, reference, timeout, fmucheck=True, jobs=os.cpu_count() or 1):
    """Every FMU of folder, --jobs at a time (each importer runs one process per FMU;
    the large scenes spend most of theirs in OMSimulator's loading): the report lines in
    the FMUs' order."""
    from fmpy import read_model_description
    ref = json.load(open(reference))
    fmus = sorted(f for f in os.listdir(folder) if f.endswith(".fmu"))
    # each FMU's default experiment, read here in turn: fmpy validates a
    # modelDescription.xml against the standard's schema, and lxml (libxml2) building
    # that schema in several threads at once failed in one CI run ("Document is not
    # valid XML Schema")
    experiments = [read_model_description(os.path.join(folder, f)).defaultExperiment for f in fmus]

    def one(i, f):
        path = os.path.abspath(os.path.join(folder, f))
        name = f[:-4]
        e = experiments[i]
        start, stop, step = float(e.startTime or 0.0), float(e.stopTime), float(e.stepSize)
        with tempfile.TemporaryDirectory() as tmp:
            checker = compliance(name, path, step, stop, tmp, timeout) if fmucheck else \
                "fmuCheck not run (it reads FMI 1.0 and 2.0)"

            # OMSimulator
            if name in SKIP_OMS:
                return f"[{i + 1}/{len(fmus)}] {name}: {checker}; OMSimulator skipped (SKIP_OMS)"
            rc, out, dt_oms = run([OMS, path, "--mode=cs", f"--startTime={start!r}", f"--stopTime={stop!r}",
                                   f"--stepSize={step!r}", "--resultFile=oms.csv"], tmp, timeout)
            if rc is None:
                fail(f"{name}: OMSimulator did not finish within {timeout} s")
                return None
            if rc != 0 or log_problems(out):
                fail(f"{name}: OMSimulator exit code {rc}: {log_problems(out)[:5] or out[-300:]}")
                return None
            cols = read_csv(os.path.join(tmp, "oms.csv"))
        t_end = cols["time"][-1]
        if abs(t_end - stop) > 1e-9 * max(1.0, stop):
            fail(f"{name}: OMSimulator ended at t = {t_end}, not {stop}")
        entry = ref.get(f, {}).get("columns", {})
        values = {col: cols[col][-1] for col in entry if col in cols}
        # fmpy shortens its last step at the stop time, OMSimulator does not: the joint
        # means over it differ more than libcosim's
        worst, where = last_difference(name, values, entry, "OMSimulator", fail, step_mean_tolerance=5e-2)
        verdict = f"largest relative difference to fmpy {worst:.1e}" + (f" ({where})" if where else "")
        if name in CHAOTIC:
            verdict = f"chaotic, finite ({verdict})"
        elif worst > ROUNDOFF.get(name, TOLERANCE):
            fail(f"{name}: {where} differs from fmpy's last value by {worst:.3e} (relative) in OMSimulator")
        return f"[{i + 1}/{len(fmus)}] {name}: {checker}; OMSimulator {stop} s in {dt_oms:.1f} s, {verdict}"

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for line in pool.map(one, range(len(fmus)), fmus):
            if line:
                print(line, flush=True)


def check_ssp(files, fmus, timeout):
    from fmpy import simulate_fmu
    import numpy as np
    for ssp in files:
        name = os.path.splitext(os.path.basename(ssp))[0]
        ssd = zipfile.ZipFile(ssp).read("SystemStructure.ssd").decode()
        step = float(re.search(r'FixedStepMaster[^>]*stepSize="([^"]+)"', ssd).group(1))
        with tempfile.TemporaryDirectory() as tmp:
            stop = re.search(r'<ssd:DefaultExperiment[^>]*stopTime="([^"]+)"', ssd)
            args = [f"--stopTime={stop.group(1)}"] if stop else []
            rc, out, dt = run([OMS, os.path.abspath(ssp), "--resultFile=oms.csv"] + args, tmp, timeout)
            if rc is None:
                fail(f"{name}: OMSimulator did not finish within {timeout} s")
                continue
            problems = log_problems(out)
            warnings = re.search(r"(\d+) warnings", out)
            if rc != 0 or problems or (warnings and int(warnings.group(1)) > 0):
                fail(f"{name}: OMSimulator exit code {rc}, warnings/errors: {problems[:5]}")
                continue
            cols = read_csv(os.path.join(tmp, "oms.csv"))
        if name not in LOOPS:
            print(f"{name}: OMSimulator ran it in {dt:.1f} s, 0 warnings (no monolithic reference)")
            continue
        col, mono, body, tol = LOOPS[name]
        r = simulate_fmu(os.path.join(fmus, f"{mono}.fmu"), step_size=step, output_interval=step,
                         output=[f"{body}.r[3]"])
        # OMSimulator names signals <model>.root.<component>.<variable>
        full = f"{name}.root.{col}"
        if full not in cols:
            fail(f"{name}: no column {full} in OMSimulator's result")
            continue
        t, z = np.asarray(cols["time"]), np.asarray(cols[full])
        zm = np.interp(t, r["time"], r[f"{body}.r[3]"])
        err = float(np.max(np.abs(z[1:] - zm[1:])))
        ok = err <= tol and np.all(np.isfinite(z))
        print(f"{name}: OMSimulator {t[-1]:.3g} s at {step} s in {dt:.1f} s, 0 warnings; "
              f"largest |z - z_monolithic| {err:.2e} m (tolerance {tol:g})", flush=True)
        if not ok:
            fail(f"{name}: the co-simulated height is {err:.3e} m off the monolithic FMU's (tolerance {tol})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["fmus", "ssp"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--fmus", default=os.path.join(ROOT, "target", "fmu"),
                    help="where the monolithic FMUs are (ssp)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--no-fmucheck", action="store_true",
                    help="fmus: OMSimulator only (FMI 3.0 FMUs: fmuCheck reads FMI 1.0 and 2.0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="fmus: FMUs checked at a time (default: the number of cores)")
    a = ap.parse_args()
    if not (os.access(OMS, os.X_OK) and os.access(FMUCHECK, os.X_OK)):
        print(f"importers: OMSimulator or fmuCheck not found under {IMPORTERS}: skipped")
        return
    if a.what == "fmus":
        check_fmus(a.args[0], a.args[1], a.timeout, fmucheck=not a.no_fmucheck, jobs=a.jobs)
    else:
        check_ssp(a.args, a.fmus, a.timeout)
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("importers: every check passed")


if __name__ == "__main__":
    main()
