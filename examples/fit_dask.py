#!/usr/bin/env python3
"""Evaluator for `contact-fmu fit --evaluator`: runs a fit's cases with the packaged FMU
on a Dask cluster, with fmpy, one task per case.

    contact-fmu fit FIT.json -o OUT \
        --evaluator ".venv/bin/python examples/fit_dask.py [--scheduler tcp://host:8786 | --workers 2]"

`contact-fmu fit` packages the fitted scenario into OUT/fmu/, starts this script and
talks to it in JSON lines (src/fit/external.rs): first {"fmu": PATH} (answered with
{"ready": WORKERS}), then per objective evaluation {"cases": [...]} (answered with
{"traces": [[...], ...]}: the case's output at the communication points of its window).
Without --scheduler the tasks run on a LocalCluster of --workers processes (one thread
each); with --scheduler on that cluster, whose workers need only fmpy: the FMU goes to
them as bytes (scattered once), not as a path on a shared file system.

Each task instantiates the FMU, sets the case's parameters before initialization
(fmi2SetReal/Integer/Boolean by name), and calls fmi2DoStep from the default
experiment's start with the case's step, as the in-process evaluation does: the results
are bit-identical to `contact-fmu fit` without --evaluator (ci/test.sh checks it).
Progress and errors go to stderr; stdout carries only the answers.
"""
import argparse
import hashlib
import json
import logging
import os
import sys
import tempfile


def fmu_dir(data):
    """The FMU bytes extracted once per content in this worker's temp folder."""
    from fmpy import extract
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"fit-{digest}")
    if not os.path.isdir(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        fmu = tmp + ".fmu"
        with open(fmu, "wb") as f:
            f.write(data)
        extract(fmu, unzipdir=tmp)
        os.remove(fmu)
        try:
            os.rename(tmp, path)
        except OSError:  # another process of this worker got there first
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
    return path


def run_case(data, case):
    """One case: the output after steps first..steps (see the module docs)."""
    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave
    unzip = fmu_dir(data)
    md = read_model_description(unzip)
    variables = {v.name: v for v in md.modelVariables}
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName=case["name"])
    fmu.instantiate()
    try:
        start = float(md.defaultExperiment.startTime or 0.0)
        fmu.setupExperiment(startTime=start)
        for name, value in case["set"].items():
            v = variables.get(name)
            if v is None:
                raise ValueError(f"case '{case['name']}': the FMU has no variable '{name}'")
            if v.type == "Real":
                fmu.setReal([v.valueReference], [float(value)])
            elif v.type == "Integer":
                fmu.setInteger([v.valueReference], [int(value)])
            elif v.type == "Boolean":
                fmu.setBoolean([v.valueReference], [value != 0.0])
            else:
                raise ValueError(f"case '{case['name']}': '{name}' is a {v.type}")
        out = variables.get(case["output"])
        if out is None or out.type != "Real":
            raise ValueError(f"case '{case['name']}': no Real output '{case['output']}'")
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        h, t, trace = case["step"], start, []
        for k in range(1, case["steps"] + 1):
            fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
            t += h
            if k >= case["first"]:
                trace.append(fmu.getReal([out.valueReference])[0])
        fmu.terminate()
    finally:
        fmu.freeInstance()
    return trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheduler", help="address of a Dask scheduler, e.g. tcp://host:8786")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    a = ap.parse_args()
    from dask.distributed import Client, LocalCluster
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        client = Client(LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                     dashboard_address=None, silence_logs=logging.WARNING))
    client.wait_for_workers(1)
    remote, evaluations = None, 0

    def answer(obj):
        sys.stdout.write(json.dumps(obj, allow_nan=False) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        try:
            request = json.loads(line)
            if "fmu" in request:
                with open(request["fmu"], "rb") as f:
                    remote = client.scatter(f.read(), broadcast=True)
                workers = len(client.scheduler_info()["workers"])
                print(f"fit_dask: {request['fmu']} on {workers} Dask worker(s)"
                      f" ({a.scheduler or 'local cluster'})", file=sys.stderr)
                answer({"ready": workers})
            elif "cases" in request:
                if remote is None:
                    raise ValueError("no FMU yet: the first request names it")
                futures = [client.submit(run_case, remote, c, pure=False) for c in request["cases"]]
                answer({"traces": client.gather(futures)})
                evaluations += 1
            else:
                raise ValueError(f"unknown request {sorted(request)}")
        except Exception as e:  # the fit reports it with the evaluator's name
            answer({"error": f"{type(e).__name__}: {e}"})
    print(f"fit_dask: {evaluations} evaluations", file=sys.stderr)
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
