#!/usr/bin/env python3
"""Our FMUs and SSP systems in a second, independent master: libcosim (libcosimpy).

  ci/masters_check.py fmus DIR REFERENCE.json
      every *.fmu of DIR alone in libcosim over its default experiment; the last value
      of every output must match what fmpy gave (the `last` of ci/reference/
      behaviour.json) within 1e-9, relative to max(1, |value|). libcosim counts time in
      integer nanoseconds, so its step differs from fmpy's in the last bit: the results
      differ by round-off (measured: at most 2.6e-11), which the chaotic examples
      (CHAOTIC: a tumbling rock, a bouncing torus, the rock pile whose first rocks land
      at the end of its short run) amplify; they only have to finish
      finite. A joint's force and torque are means over the last communication step,
      which fmpy's simulate_fmu shortens at the stop time: those match within 1e-2
      (1e-1 for a grouser wheel's, STEP_MEAN_TOLERANCE).
  ci/masters_check.py ssp FILE.ssp ...
      each SSP archive: SystemStructure.ssd valid against the SSP 1.0 schema (the XSDs
      fmpy ships), and what SSP 1.0, OMSimulator and libcosim need beyond the schema
      (check_ssd); then run in libcosim over its default experiment at the step of its
      OMSimulator annotation, every connected output finite at the end.
  ci/masters_check.py osp DIR FILE.ssp ...
      each pair: libcosim's own configuration (DIR/OspSystemStructure.xml, written by
      `contact-fmu ssp --osp DIR`) run over the SSP's default experiment; every output
      of every FMU must end bit-identical to the same system read from the SSP.
Exit code 1 on any failure; every failure is named.
"""
import glob
import json
import math
import os
import sys
import tempfile
import zipfile

from lxml import etree

NS = {
    "ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
    "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
    "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
    "oms": "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd",
}

# round-off grows into different contact sequences (docs/cosimulation.md)
# the pile: at its 0.25 ms model step libcosim's last-bit step gives sub-steps of
# another round-off, and its first landings grew that to 2.9e-4 by 0.2 s
CHAOTIC = {"bbcc_rock_drop", "pcm_torus_sphere", "bbcc_rock_pile"}
TOLERANCE = 1e-9
# means over the last communication step (fmpy's last step is shorter)
STEP_MEANS = (".joint.fx", ".joint.my")
# their tolerance where the force changes faster than from step to step: a grouser
# wheel's joint force in cosim_scm_mono changes by a median 2.6 % (up to 50 %) from one
# 1 ms step to the next over its last 50 (measured 2026-12-07), so a mean over fmpy's
# shortened last step differs from libcosim's over a whole one by about that much
STEP_MEAN_TOLERANCE = {"cosim_scm_mono": 1e-1}

failures = []


def fail(what):
    failures.append(what)
    print(f"  FAIL {what}")


def quiet_libcosim():
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    log_output_level(CosimLogLevel.ERROR)


def last_values(ex, obs, index):
    """{name: last value} of every output of slave `index`."""
    from libcosimpy.CosimEnums import CosimVariableCausality, CosimVariableType
    out = {}
    for v in ex.slave_variables(index):
        if v.causality != CosimVariableCausality.OUTPUT.value:
            continue
        name = v.name.decode()
        if v.type == CosimVariableType.REAL.value:
            out[name] = obs.last_real_values(index, [v.reference])[0]
        elif v.type == CosimVariableType.INTEGER.value:
            out[name] = obs.last_integer_values(index, [v.reference])[0]
        elif v.type == CosimVariableType.BOOLEAN.value:
            out[name] = obs.last_boolean_values(index, [v.reference])[0]
    return out


def last_difference(name, values, entry, master, on_fail, step_mean_tolerance=1e-2):
    """The largest relative difference (to max(1, |fmpy's|)) of `values`, {output: last
    value in `master`}, to fmpy's last values `entry` (one FMU's columns of
    ci/reference/behaviour.json), and the output where it is. A non-finite value, an
    output the reference lacks and a joint mean (STEP_MEANS, over a last step fmpy
    shortens at the stop time) off by more than `step_mean_tolerance` go to `on_fail`."""
    worst, where = 0.0, None
    for col, v in values.items():
        if isinstance(v, float) and not math.isfinite(v):
            on_fail(f"{name}: {col} = {v} at the end in {master}")
        r = entry.get(col)
        if r is None:
            on_fail(f"{name}: output {col} is not in the reference")
            continue
        expected = float(eval(r["last"])) if r["last"] not in (None, "nan") else None
        if expected is None:
            continue
        d = abs(float(v) - expected) / max(1.0, abs(expected))
        if col.endswith(STEP_MEANS):
            if d > step_mean_tolerance:
                on_fail(f"{name}: {col} (a mean over the last step) differs from fmpy's by {d:.3e}")
            continue
        if d > worst:
            worst, where = d, col
    return worst, where


def check_fmus(folder, reference):
    from fmpy import read_model_description
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave
    quiet_libcosim()
    ref = json.load(open(reference))
    fmus = sorted(glob.glob(os.path.join(folder, "*.fmu")))
    for i, path in enumerate(fmus):
        name = os.path.splitext(os.path.basename(path))[0]
        md = read_model_description(path)
        e = md.defaultExperiment
        step_ns = int(round(float(e.stepSize) * 1e9))
        stop_ns = int(round((float(e.stopTime) - float(e.startTime or 0.0)) * 1e9))
        ex = CosimExecution.from_step_size(step_ns)
        idx = ex.add_local_slave(CosimLocalSlave(fmu_path=os.path.abspath(path), instance_name=name))
        obs = CosimObserver.create_last_value()
        ex.add_observer(obs)
        ok = ex.simulate_until(stop_ns)
        if not ok:
            fail(f"{name}: libcosim stopped before {e.stopTime} s")
            continue
        values = last_values(ex, obs, idx)
        entry = ref.get(os.path.basename(path), {}).get("columns", {})
        worst, where = last_difference(
            name, values, entry, "libcosim", fail, STEP_MEAN_TOLERANCE.get(name, 1e-2)
        )
        if not entry:
            fail(f"{name}: not in {reference} (record it with ci/behaviour.py)")
        verdict = f"largest relative difference to fmpy {worst:.1e}" + (f" ({where})" if where else "")
        if name in CHAOTIC:
            verdict = f"chaotic, finite ({verdict})"
        print(f"[{i + 1}/{len(fmus)}] {name}: {len(values)} outputs, {e.stopTime} s; {verdict}", flush=True)
        if name not in CHAOTIC and worst > TOLERANCE:
            fail(f"{name}: {where} differs from fmpy's last value by {worst:.3e} (relative)")


def check_ssd(ssp, z, root, tmp):
    """The SSD's structure beyond the schema. Returns the step size."""
    from fmpy import read_model_description
    tag = lambda e: etree.QName(e).localname
    before = len(failures)
    if root.nsmap.get("ssd") != NS["ssd"] or root.nsmap.get("ssc") != NS["ssc"]:
        fail(f"{ssp}: the ssd/ssc namespaces are not SSP 1.0's")
    systems = root.findall("ssd:System", NS)
    if len(systems) != 1:
        fail(f"{ssp}: {len(systems)} top-level systems (one expected)")
        return None
    system = systems[0]
    exp = root.find("ssd:DefaultExperiment", NS)
    if exp is None or not float(exp.get("startTime", 0)) < float(exp.get("stopTime", "nan")):
        fail(f"{ssp}: no DefaultExperiment with startTime < stopTime")
    fsm = system.find("ssd:Annotations/ssc:Annotation[@type='org.openmodelica']/oms:Annotations/"
                      "oms:SimulationInformation/oms:FixedStepMaster", NS)
    step = float(fsm.get("stepSize")) if fsm is not None else None
    if step is None or not step > 0:
        fail(f"{ssp}: no OMSimulator FixedStepMaster annotation with a positive stepSize "
             "(OMSimulator does not load the system without it)")
    names = set(z.namelist())
    comps = {}
    for c in system.findall("ssd:Elements/ssd:Component", NS):
        name, source = c.get("name"), c.get("source")
        if c.get("type", "application/x-fmu-sharedlibrary") != "application/x-fmu-sharedlibrary":
            fail(f"{ssp}: component {name} is not an FMU")
        if source not in names:
            fail(f"{ssp}: component {name}: source {source} is not in the archive")
            continue
        if name in comps:
            fail(f"{ssp}: two components named {name}")
        path = z.extract(source, tmp)
        md = read_model_description(path)
        if md.coSimulation is None:
            fail(f"{ssp}: {source} has no co-simulation interface")
        variables = {v.name: v for v in md.modelVariables}
        connectors = {}
        listed = c.findall("ssd:Connectors/ssd:Connector", NS)
        if not listed:
            fail(f"{ssp}: component {name} lists no connectors (OMSimulator: deprecated content)")
        for k in listed:
            n, kind = k.get("name"), k.get("kind")
            v = variables.get(n)
            if v is None:
                fail(f"{ssp}: {name}.{n}: no such variable in {source}")
                continue
            if v.causality != kind:
                fail(f"{ssp}: {name}.{n}: connector kind {kind}, variable causality {v.causality}")
            types = [tag(t) for t in k if tag(t) in ("Real", "Integer", "Boolean", "String", "Enumeration")]
            if types and types[0] != v.type:
                fail(f"{ssp}: {name}.{n}: connector type {types[0]}, variable type {v.type}")
            connectors[n] = v
        for p in c.findall(".//ssv:Parameter", NS):
            v = variables.get(p.get("name"))
            if v is None or v.causality not in ("parameter", "input") or v.variability == "constant":
                fail(f"{ssp}: {name}: parameter binding {p.get('name')} names no settable variable")
        comps[name] = connectors
    fed = set()
    conns = system.findall("ssd:Connections/ssd:Connection", NS)
    if not conns:
        fail(f"{ssp}: no connections")
    for k in conns:
        a, ac, b, bc = (k.get(x) for x in ("startElement", "startConnector", "endElement", "endConnector"))
        if a not in comps or b not in comps:
            fail(f"{ssp}: connection {a}.{ac} -> {b}.{bc} names a missing component")
            continue
        va, vb = comps[a].get(ac), comps[b].get(bc)
        if va is None or vb is None:
            fail(f"{ssp}: connection {a}.{ac} -> {b}.{bc}: connector not listed on its component")
            continue
        if va.causality != "output" or vb.causality != "input":
            fail(f"{ssp}: connection {a}.{ac} -> {b}.{bc}: not output -> input")
        if va.type != vb.type:
            fail(f"{ssp}: connection {a}.{ac} -> {b}.{bc}: {va.type} -> {vb.type}")
        if (b, bc) in fed:
            fail(f"{ssp}: input {b}.{bc} is fed twice")
        fed.add((b, bc))
    if len(failures) > before:
        return None
    print(f"  {len(comps)} components, {len(conns)} connections, step {step} s: structure ok")
    return step, float(exp.get("stopTime")) - float(exp.get("startTime", 0))


def check_ssp(files):
    import fmpy
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver
    quiet_libcosim()
    schema = etree.XMLSchema(file=os.path.join(os.path.dirname(fmpy.__file__), "ssp", "schema",
                                               "SystemStructureDescription.xsd"))
    for ssp in files:
        print(ssp)
        with zipfile.ZipFile(ssp) as z, tempfile.TemporaryDirectory() as tmp:
            if "SystemStructure.ssd" not in z.namelist():
                fail(f"{ssp}: no SystemStructure.ssd at the archive root")
                continue
            root = etree.fromstring(z.read("SystemStructure.ssd"))
            if not schema.validate(root):
                for err in schema.error_log:
                    fail(f"{ssp}: SystemStructure.ssd line {err.line}: {err.message}")
                continue
            print("  SystemStructure.ssd valid against the SSP 1.0 schema")
            got = check_ssd(ssp, z, root, tmp)
        if not got or got[0] is None:
            continue
        step, duration = got
        ex = CosimExecution.from_ssp_file(os.path.abspath(ssp), step_size=int(round(step * 1e9)))
        obs = CosimObserver.create_last_value()
        ex.add_observer(obs)
        if not ex.simulate_until(int(round(duration * 1e9))):
            fail(f"{ssp}: libcosim stopped before {duration} s")
            continue
        bad = []
        for s in ex.slave_infos():
            for col, v in last_values(ex, obs, s.index).items():
                if isinstance(v, float) and not math.isfinite(v):
                    bad.append(f"{s.name.decode()}.{col}")
        if bad:
            fail(f"{ssp}: not finite at the end in libcosim: {', '.join(bad[:5])}")
        else:
            print(f"  libcosim: {ex.num_slaves()} FMUs, {duration} s at {step} s: every output finite")


def run_to_end(ex, duration):
    from libcosimpy.CosimObserver import CosimObserver
    obs = CosimObserver.create_last_value()
    ex.add_observer(obs)
    if not ex.simulate_until(int(round(duration * 1e9))):
        return None
    return {s.name.decode(): last_values(ex, obs, s.index) for s in ex.slave_infos()}


def check_osp(pairs):
    from libcosimpy.CosimExecution import CosimExecution
    quiet_libcosim()
    for folder, ssp in pairs:
        print(f"{folder} against {ssp}")
        with zipfile.ZipFile(ssp) as z:
            root = etree.fromstring(z.read("SystemStructure.ssd"))
        exp = root.find("ssd:DefaultExperiment", NS)
        duration = float(exp.get("stopTime")) - float(exp.get("startTime", 0))
        fsm = root.find(".//oms:FixedStepMaster", NS)
        step_ns = int(round(float(fsm.get("stepSize")) * 1e9))
        osp = run_to_end(CosimExecution.from_osp_config_file(os.path.abspath(folder)), duration)
        ref = run_to_end(CosimExecution.from_ssp_file(os.path.abspath(ssp), step_size=step_ns), duration)
        if osp is None or ref is None:
            fail(f"{folder}: libcosim stopped before {duration} s")
            continue
        diff = [f"{c}.{v}" for c in ref for v in ref[c] if osp.get(c, {}).get(v) != ref[c][v]]
        if diff:
            fail(f"{folder}: differs from {ssp} in {', '.join(diff[:5])}")
        else:
            n = sum(len(v) for v in ref.values())
            print(f"  libcosim: {len(ref)} FMUs, {duration} s; all {n} outputs as from the SSP")


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "fmus":
        check_fmus(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "ssp":
        check_ssp(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "osp" and len(sys.argv) % 2 == 0:
        check_osp(list(zip(sys.argv[2::2], sys.argv[3::2])))
    else:
        raise SystemExit(__doc__)
    if failures:
        print(f"{len(failures)} failure(s):\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
