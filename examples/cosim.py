#!/usr/bin/env python3
"""Runs an SSP system of FMUs (`contact-fmu ssp ... -o loop.ssp`) in a co-simulation
master: our short fixed-step master on fmpy (Jacobi or Gauss-Seidel), or libcosim.

    .venv/bin/python examples/cosim.py LOOP.ssp [--master fmpy|fmpy-gs|libcosim]
        [--step H] [--stop T] [--output COMPONENT.VARIABLE ...] [--csv OUT.csv]

As a module: `read_system(ssp)`, then `run(system, master, step, stop, outputs)`
returns {"time": array, "component.variable": array, ...}.

The masters (docs/cosimulation.md):
- fmpy (Jacobi): every FMU steps from t to t+h with the inputs it holds, then every
  connection is copied, output to input. That is what libcosim's fixed-step algorithm
  does ("simulators are stepped in parallel").
- fmpy-gs (Gauss-Seidel): the FMUs step one after the other in the order of
  `order` (default: the SSD's order), each first taking the outputs the others hold
  now, so a later FMU already sees the earlier one's values at t+h.
- libcosim: `CosimExecution.from_ssp_file` (libcosimpy), step in integer nanoseconds.

Before the first step the fmpy masters copy every connection twice inside
initialization mode, so that each FMU starts from the others' initial outputs (a
kinematic body starts where the free body is), not from input start values.
"""
import argparse
import os
import shutil
import sys
import tempfile
import zipfile

import numpy as np
from lxml import etree

NS = {
    "ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
    "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
    "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
    "oms": "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd",
}


class System:
    """What a master needs from an SSD: components, connections, parameters, experiment."""

    def __init__(self, path):
        self.path = path
        with zipfile.ZipFile(path) as z:
            root = etree.fromstring(z.read("SystemStructure.ssd"))
        sys_ = root.find("ssd:System", NS)
        self.components = []  # (name, source)
        self.parameters = {}  # name -> {variable: value}
        for c in sys_.findall("ssd:Elements/ssd:Component", NS):
            name = c.get("name")
            self.components.append((name, c.get("source")))
            params = {}
            for p in c.findall(".//ssv:Parameter", NS):
                real = p.find("ssv:Real", NS)
                boolean = p.find("ssv:Boolean", NS)
                if real is not None:
                    params[p.get("name")] = float(real.get("value"))
                elif boolean is not None:
                    params[p.get("name")] = boolean.get("value") == "true"
            self.parameters[name] = params
        self.connections = [
            (k.get("startElement"), k.get("startConnector"), k.get("endElement"), k.get("endConnector"))
            for k in sys_.findall("ssd:Connections/ssd:Connection", NS)
        ]
        exp = root.find("ssd:DefaultExperiment", NS)
        self.start = float(exp.get("startTime", 0.0)) if exp is not None else 0.0
        self.stop = float(exp.get("stopTime", 1.0)) if exp is not None else 1.0
        fsm = sys_.find(".//oms:FixedStepMaster", NS)
        self.step = float(fsm.get("stepSize")) if fsm is not None else None


def steps_of(start, stop, step):
    n = int(round((stop - start) / step))
    if n < 1 or abs(n * step - (stop - start)) > 1e-9 * max(1.0, stop - start):
        raise SystemExit(f"the stop time {stop} s is not a whole number of {step} s steps from {start} s")
    return n


def run_fmpy(system, step, stop, outputs, gauss_seidel=False, order=None):
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    tmp = tempfile.mkdtemp(prefix="cosim-")
    try:
        with zipfile.ZipFile(system.path) as z:
            z.extractall(tmp)
        fmus, vrs = {}, {}
        for name, source in system.components:
            path = os.path.join(tmp, source)
            md = read_model_description(path)
            vrs[name] = {v.name: v.valueReference for v in md.modelVariables}
            unzip = extract(path, unzipdir=os.path.join(tmp, name))
            f = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                          modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
            f.instantiate()
            f.setupExperiment(startTime=system.start, stopTime=stop)
            for var, value in system.parameters.get(name, {}).items():
                if isinstance(value, bool):
                    f.setBoolean([vrs[name][var]], [value])
                else:
                    f.setReal([vrs[name][var]], [value])
            fmus[name] = f
        # connections grouped by (from, to): one getReal and one setReal each
        groups = {}
        for a, out, b, inp in system.connections:
            g = groups.setdefault((a, b), ([], []))
            g[0].append(vrs[a][out])
            g[1].append(vrs[b][inp])

        def transfer(into=None):
            for (a, b), (src, dst) in groups.items():
                if into is None or b == into:
                    fmus[b].setReal(dst, fmus[a].getReal(src))

        for f in fmus.values():
            f.enterInitializationMode()
        for _ in range(2):
            transfer()
        for f in fmus.values():
            f.exitInitializationMode()
        transfer()

        rec = [(c, vrs[c][v]) for c, v in (o.split(".", 1) for o in outputs)]

        def sample():
            return [fmus[c].getReal([vr])[0] for c, vr in rec]

        n = steps_of(system.start, stop, step)
        names = order or [c for c, _ in system.components]
        rows = [sample()]
        for k in range(n):
            t = system.start + k * step
            if gauss_seidel:
                for c in names:
                    transfer(into=c)
                    fmus[c].doStep(currentCommunicationPoint=t, communicationStepSize=step)
            else:
                for c in names:
                    fmus[c].doStep(currentCommunicationPoint=t, communicationStepSize=step)
                transfer()
            rows.append(sample())
        for f in fmus.values():
            f.terminate()
            f.freeInstance()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    data = np.array(rows)
    result = {"time": system.start + step * np.arange(n + 1)}
    for i, o in enumerate(outputs):
        result[o] = data[:, i]
    return result


def run_libcosim(system, step, stop, outputs):
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    # libcosim turns every FMI log category on and prints at info level: keep it quiet
    log_output_level(CosimLogLevel.WARNING)
    ns = int(round(step * 1e9))
    if abs(ns - step * 1e9) > 1e-3:
        raise SystemExit(f"libcosim steps in whole nanoseconds: {step} s is not one")
    ex = CosimExecution.from_ssp_file(system.path, step_size=ns)
    obs = CosimObserver.create_last_value()
    ex.add_observer(obs)
    rec = []
    for o in outputs:
        c, v = o.split(".", 1)
        idx = ex.slave_index_from_instance_name(c)
        ref = {d.name.decode(): d.reference for d in ex.slave_variables(idx)}
        rec.append((idx, ref[v]))

    def sample():
        return [obs.last_real_values(i, [vr])[0] for i, vr in rec]

    n = steps_of(system.start, stop, step)
    rows = []
    # libcosim's first step initializes the FMUs and samples the start values
    for k in range(n):
        ex.step()
        if k == 0:
            rows.append(None)
        rows.append(sample())
    # the start values are not observable before libcosim's first step: NaN
    rows[0] = [float("nan")] * len(rec)
    data = np.array(rows)
    result = {"time": system.start + step * np.arange(n + 1)}
    for i, o in enumerate(outputs):
        result[o] = data[:, i]
    return result


def run(system, master, step=None, stop=None, outputs=(), order=None):
    step = step or system.step
    stop = system.stop if stop is None else stop
    if step is None:
        raise SystemExit(f"{system.path}: no step size (pass --step)")
    if master == "fmpy":
        return run_fmpy(system, step, stop, outputs, order=order)
    if master == "fmpy-gs":
        return run_fmpy(system, step, stop, outputs, gauss_seidel=True, order=order)
    if master == "libcosim":
        return run_libcosim(system, step, stop, outputs)
    raise SystemExit(f"unknown master '{master}' (fmpy, fmpy-gs, libcosim)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ssp")
    ap.add_argument("--master", default="fmpy", choices=["fmpy", "fmpy-gs", "libcosim"])
    ap.add_argument("--step", type=float, help="communication step, s (default: the SSD's)")
    ap.add_argument("--stop", type=float, help="stop time, s (default: the SSD's)")
    ap.add_argument("--order", help="Gauss-Seidel order, comma-separated component names")
    ap.add_argument("--output", nargs="*", default=[], help="COMPONENT.VARIABLE to record")
    ap.add_argument("--csv", help="write the recorded outputs to this CSV file")
    a = ap.parse_args()
    system = System(a.ssp)
    order = a.order.split(",") if a.order else None
    r = run(system, a.master, a.step, a.stop, a.output, order)
    cols = ["time"] + list(a.output)
    if a.csv:
        np.savetxt(a.csv, np.column_stack([r[c] for c in cols]), delimiter=",",
                   header=",".join(cols), comments="")
        print(f"{len(r['time'])} rows -> {a.csv}")
    last = ", ".join(f"{c} = {r[c][-1]:.9g}" for c in a.output)
    print(f"{a.master}: t = {r['time'][-1]:.6g} s{': ' + last if last else ''}")


if __name__ == "__main__":
    sys.exit(main())
