#!/usr/bin/env python3
"""Checks the FMI 3.0 FMUs of a folder (`contact-fmu package --fmi 3`) with fmpy:

1. every FMU: `fmpy.validation.validate_fmu` finds no problem (as `fmpy validate`);
   its terminalsAndIcons/terminalsAndIcons.xml is valid against fmpy's FMI 3.0 schema,
   and every terminal member names a variable of the FMU, a frame's members in and
   out (docs/fmi3.md, "Terminals");
2. on the FMUs named by --interface (default: a free sphere, the SCM rig, TerRA), the
   FMI 3.0 interface through fmpy's FMU3Slave, as an importer calls it:
   - arrays: `ball.r` read as 3 values in one call, `time` (value reference 0) is the
     time, a wrong nValues and a write to `time` are refused with a message naming them;
   - the state machine: fmi3DoStep before initialization is refused ("illegal call
     sequence ... Instantiated"), Model Exchange cannot be instantiated;
   - FMU state: get, serialize, step on, deserialize, set, step again: bit-identical;
   - fmi3GetNumberOfVariableDependencies / fmi3GetVariableDependencies equal the
     modelDescription's `<Output>` dependencies for every output;
   - reset, then a second initialization from the start values: bit-identical;
   - types this FMU has none of (Float32, Binary, Clock): an empty call is fine, one
     with a value reference is refused.

3. with --fuzz N: N random sequences of 60 fmi3 calls per FMU (fixed seed): value
   references in and out of range, wrong value counts, NULL arrays, steps of any size,
   calls in any state, states from elsewhere; every call must return (fmi3OK,
   fmi3Warning, fmi3Discard or fmi3Error), the process must not die, and the instance
   must still free (the FMI 2.0 fuzzer is tests/fmi_fuzz.rs).

The bit-identity of every output against the FMI 2.0 FMUs is ci/behaviour.py's
`check-fmi3`. Usage: ci/fmi3_check.py DIR [--interface NAME ...] [--fuzz N]
Ends with 'fmi3: N passed, M failed'; exit code 1 when anything failed.
"""
import argparse
import glob
import os
import shutil
import tempfile
from ctypes import byref, c_bool, c_char_p, c_size_t, c_void_p

from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave, fmi3ValueReference, fmi3DependencyKind
from fmpy.validation import validate_fmu

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"  FAIL {what}", flush=True)


class Session:
    """One FMU extracted, with a message log."""

    def __init__(self, path):
        self.md = read_model_description(path)
        self.dir = extract(path)
        self.messages = []

    def slave(self, name="fmi3_check"):
        s = FMU3Slave(guid=self.md.guid, unzipDirectory=self.dir,
                      modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName=name)
        s.instantiate(loggingOn=True, logMessage=self.log)
        return s

    def log(self, env, status, category, message):
        self.messages.append(message.decode("utf-8", "replace"))

    def refused(self, call, *needles):
        """`call` fails with fmi3Error and logs a message containing every needle."""
        self.messages.clear()
        try:
            call()
            return False
        except FMICallException:
            return all(any(n in m for m in self.messages) for n in needles)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def outputs(md):
    return [v for v in md.modelVariables if v.causality == "output"]


def size(v):
    """Element count: fixed dimensions, and sizes held by a structural parameter."""
    n = 1
    for d in v.dimensions or []:
        n *= int(d.start) if d.start is not None else int(d.variable.start)
    return n


def layout(x):
    path = os.path.join(x.dir, "resources", "fmi3_layout.txt")
    if not os.path.exists(path):
        return "arrays"
    with open(path) as f:
        return f.read().strip()


def read_all(s, md):
    """Every output's values after the current step, in one call per type."""
    got = {}
    for t, getter in (("Float64", s.getFloat64), ("Int32", s.getInt32), ("Boolean", s.getBoolean)):
        vs = [v for v in outputs(md) if v.type == t]
        if vs:
            got[t] = getter([v.valueReference for v in vs], nValues=sum(size(v) for v in vs))
    return got


def steps(s, md, t, h, n):
    """n steps of h from t, every output read after each; the time reached and the reads."""
    reads = []
    for _ in range(n):
        s.doStep(t, h)
        t += h
        reads.append(read_all(s, md))
    return t, reads


def init(s, md):
    e = md.defaultExperiment
    s.enterInitializationMode(startTime=float(e.startTime or 0.0), stopTime=float(e.stopTime))
    s.exitInitializationMode()


def interface(path):
    name = os.path.basename(path)[:-4]
    print(f"interface: {name}", flush=True)
    x = Session(path)
    md = x.md
    by_name = {v.name: v for v in md.modelVariables}
    h = float(md.defaultExperiment.stepSize)
    try:
        # the state machine
        s = x.slave("early")
        check(x.refused(lambda: s.doStep(0.0, h), "fmi3DoStep", "illegal call sequence", "Instantiated"),
              f"{name}: fmi3DoStep before initialization refused, naming the state")
        s.freeInstance()
        # Model Exchange: not this FMU's; the instantiation returns NULL
        s = FMU3Slave(guid=md.guid, unzipDirectory=x.dir,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="me")
        f = s.dll.fmi3InstantiateModelExchange
        f.restype = c_void_p
        f.argtypes = [c_char_p, c_char_p, c_char_p, c_bool, c_bool, c_void_p, c_void_p]
        check(f(b"me", md.guid.encode(), b"", c_bool(False), c_bool(False), None, None) is None,
              f"{name}: Model Exchange instantiation returns NULL")
        s.freeLibrary()

        s = x.slave()
        init(s, md)
        # arrays (but in the scalar layout) and time
        scalars = layout(x) == "scalars"
        vectors = [v for v in outputs(md) if v.dimensions]
        bracketed = any("[" in v.name for v in md.modelVariables)
        check(not vectors if scalars else (bool(vectors) or not bracketed),
              f"{name}: vectors are {'scalars' if scalars else 'arrays'}")
        if vectors:
            v = vectors[0]
            check(len(s.getFloat64([v.valueReference], nValues=size(v))) == size(v),
                  f"{name}: {v.name} reads as {size(v)} values in one call")
            check(x.refused(lambda: s.getFloat64([v.valueReference], nValues=1), "nValues = 1", str(size(v))),
                  f"{name}: a wrong nValues is refused with the count")
            s.reset()
            init(s, md)
        check(s.getFloat64([0]) == [float(md.defaultExperiment.startTime or 0.0)],
              f"{name}: value reference 0 is the time")
        check(x.refused(lambda: s.setFloat64([0], [1.0]), "'time'"),
              f"{name}: time cannot be set")
        s.reset()
        init(s, md)
        # collections: their sizes as fixed structural parameters, their arrays a row per body
        sizes = [v for v in md.modelVariables if v.causality == "structuralParameter"]
        if sizes:
            n = sizes[0]
            arrays = [v for v in md.modelVariables
                      if any(d.valueReference == n.valueReference for d in v.dimensions or [])]
            check(bool(arrays) and n.type == "UInt64" and n.variability == "fixed",
                  f"{name}: {n.name} (UInt64, fixed) sizes {len(arrays)} arrays")
            check(s.getUInt64([n.valueReference], nValues=1) == [int(n.start)],
                  f"{name}: {n.name} reads {n.start}")
            a = arrays[0]
            check(all(len(s.getFloat64([v.valueReference], nValues=size(v))) == size(v)
                      for v in arrays if v.type == "Float64"),
                  f"{name}: every collection array reads as rows x columns values in one call")
            s.reset()
            s.enterConfigurationMode()
            s.setUInt64([n.valueReference], [int(n.start)])
            check(x.refused(lambda: s.setUInt64([n.valueReference], [int(n.start) + 1]),
                            f"'{n.name}' is {n.start}", "cannot be"),
                  f"{name}: {n.name} cannot change (the scenario fixes it)")
            s.reset()
            s.enterConfigurationMode()
            s.exitConfigurationMode()
            check(x.refused(lambda: s.setUInt64([n.valueReference], [int(n.start)]), "ConfigurationMode"),
                  f"{name}: {n.name} is set in Configuration Mode only")
            s.reset()
            init(s, md)
        else:
            s.reset()
            check(x.refused(lambda: s.enterConfigurationMode(), "no structural parameters"),
                  f"{name}: no Configuration Mode without structural parameters")
            s.reset()
            init(s, md)
        # types it has none of
        s.getFloat32([], nValues=0)
        check(x.refused(lambda: s.getFloat32([1], nValues=1), "no Float32 variables"),
              f"{name}: a Float32 read is refused")
        s.reset()
        init(s, md)

        # FMU state round trip through serialization, bit for bit
        t = float(md.defaultExperiment.startTime or 0.0)
        for _ in range(20):
            s.doStep(t, h)
            t += h
        state = s.getFMUState()
        blob = s.serializeFMUState(state)
        s.freeFMUState(state)
        t0 = t
        t, first = steps(s, md, t, h, 20)
        state = s.deserializeFMUState(blob)
        s.setFMUState(state)
        s.freeFMUState(state)
        t = t0
        again = []
        for _ in range(20):
            _, _, early, last = s.doStep(t, h)
            t += h
            again.append(read_all(s, md))
        check(first == again, f"{name}: a restored, deserialized FMU state continues bit for bit")
        check(not early and abs(last - t) < 1e-12 * max(1.0, t),
              f"{name}: fmi3DoStep: no early return, lastSuccessfulTime the step's end")

        # dependencies as declared
        declared = {u.variable.valueReference: sorted(d.valueReference for d in u.dependencies)
                    for u in md.outputs if u.dependencies is not None}
        bad = []
        for vr, deps in declared.items():
            n = c_size_t()
            s.fmi3GetNumberOfVariableDependencies(s.component, fmi3ValueReference(vr), byref(n))
            k = n.value
            a, b = (c_size_t * k)(), (c_size_t * k)()
            ind, kinds = (fmi3ValueReference * k)(), (fmi3DependencyKind * k)()
            s.fmi3GetVariableDependencies(s.component, fmi3ValueReference(vr), a, ind, b, kinds, k)
            if sorted(ind) != deps:
                bad.append((vr, deps, list(ind)))
        check(not bad, f"{name}: fmi3GetVariableDependencies as in <ModelStructure> ({len(declared)} outputs; {bad[:2]})")

        # reset and a second run from the start values
        start = float(md.defaultExperiment.startTime or 0.0)
        s.reset()
        init(s, md)
        _, run1 = steps(s, md, start, h, 10)
        s.terminate()
        s.freeInstance()
        s = x.slave("fresh")
        init(s, md)
        _, run2 = steps(s, md, start, h, 10)
        check(run1 == run2, f"{name}: after fmi3Reset the run is that of a fresh instance")
        s.terminate()
        s.freeInstance()
        check(scalars or "ball.r" not in by_name or by_name["ball.r"].dimensions,
              f"{name}: ball.r is an array")
    finally:
        x.close()


def check_terminals(path):
    """terminalsAndIcons.xml: valid, every member a variable, each frame both ways."""
    import zipfile
    import fmpy
    from lxml import etree
    name = os.path.basename(path)
    with zipfile.ZipFile(path) as z:
        if "terminalsAndIcons/terminalsAndIcons.xml" not in z.namelist():
            return 0
        text = z.read("terminalsAndIcons/terminalsAndIcons.xml")
    schema = etree.XMLSchema(file=os.path.join(os.path.dirname(fmpy.__file__), "schema", "fmi3",
                                               "fmi3TerminalsAndIcons.xsd"))
    doc = etree.fromstring(text)
    check(schema.validate(doc), f"{name}: terminalsAndIcons.xml against the schema: {schema.error_log}")
    variables = {v.name: v for v in read_model_description(path).modelVariables}
    terminals = doc.findall("Terminals/Terminal")
    for t in terminals:
        members = t.findall("TerminalMemberVariable")
        missing = [m.get("variableName") for m in members if m.get("variableName") not in variables]
        check(not missing, f"{name}: terminal {t.get('name')}: no such variables {missing}")
        kinds = {variables[m.get("variableName")].causality for m in members
                 if m.get("variableName") in variables}
        check({"input", "output"} <= kinds, f"{name}: terminal {t.get('name')} has inputs and outputs ({kinds})")
    return len(terminals)


def fuzz(path, sequences, calls, seed):
    """Random fmi3 call sequences on one FMU; returns the count of calls made."""
    import random
    rng = random.Random(f"{seed}:{os.path.basename(path)}")
    x = Session(path)
    md = x.md
    n_vars = len(md.modelVariables)
    made = 0
    try:
        for _ in range(sequences):
            s = x.slave("fuzz")
            t = 0.0
            states = []

            def vrs():
                return [rng.choice([rng.randrange(n_vars + 3), 0, 2**32 - 1]) for _ in range(rng.randrange(4))]

            def count():
                return rng.choice([0, 1, 2, 3, 4, 7, 100])

            actions = [
                lambda: s.getFloat64(vrs(), nValues=count()),
                lambda: s.setFloat64(vrs(), [rng.choice([0.0, 1.0, -1e300, float("nan"), 0.5])] * count()),
                lambda: s.getInt32(vrs(), nValues=count()),
                lambda: s.setInt32(vrs(), [rng.choice([0, 1, -5, 2**31 - 1])] * count()),
                lambda: s.getBoolean(vrs(), nValues=count()),
                lambda: s.setBoolean(vrs(), [rng.choice([True, False])] * count()),
                lambda: s.getString(vrs(), nValues=count()),
                lambda: s.setString(vrs(), ["x"] * count()),
                lambda: s.getFloat32(vrs(), nValues=count()),
                lambda: s.getUInt64(vrs(), nValues=count()),
                lambda: s.setUInt64(vrs(), [rng.choice([0, 1, 3, 500, 2**64 - 1])] * count()),
                lambda: s.fmi3ExitConfigurationMode(s.component),
                lambda: s.fmi3GetFloat64(s.component, None, rng.randrange(3), None, rng.randrange(3)),
                lambda: s.fmi3SetFloat64(s.component, None, rng.randrange(3), None, rng.randrange(3)),
                lambda: s.enterInitializationMode(startTime=t, stopTime=rng.choice([None, t + 1.0, t - 1.0])),
                lambda: s.exitInitializationMode(),
                lambda: s.doStep(t, rng.choice([1e-3, 0.0, -1e-3, float("nan"), 1e-2])),
                lambda: s.doStep(t + rng.choice([0.0, 1.0]), 1e-3),
                lambda: s.terminate(),
                lambda: s.reset(),
                lambda: states.append(s.getFMUState()),
                lambda: s.setFMUState(rng.choice(states)) if states else None,
                lambda: s.deserializeFMUState(s.serializeFMUState(rng.choice(states))) if states else None,
                lambda: s.deserializeFMUState(bytes(rng.randrange(256) for _ in range(rng.randrange(64)))),
                lambda: s.fmi3GetNumberOfVariableDependencies(s.component, fmi3ValueReference(rng.randrange(n_vars + 3)),
                                                              byref(c_size_t())),
                lambda: s.fmi3EnterEventMode(s.component),
                lambda: s.fmi3EnterConfigurationMode(s.component),
                lambda: s.setDebugLogging(rng.choice([True, False]), rng.choice([[], ["logAll"], ["nope"]])),
            ]
            for _ in range(calls):
                made += 1
                try:
                    rng.choice(actions)()
                except FMICallException as e:
                    # an error status is an answer; anything else returned is not
                    check(any(f"status {k}" in str(e) for k in (1, 2, 3)), f"{path}: {e}")
                if rng.random() < 0.05:
                    t += 1e-3
            for st in states:
                try:
                    s.freeFMUState(st)
                except FMICallException:
                    pass
            s.freeInstance()
    finally:
        x.close()
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--interface", nargs="*",
                    default=["bbcc_sphere_drop", "scm_single_wheel", "terra_single_wheel", "bbcc_rolling"])
    ap.add_argument("--fuzz", type=int, default=0, help="random call sequences per FMU")
    ap.add_argument("--seed", type=int, default=52)
    a = ap.parse_args()
    fmus = sorted(glob.glob(os.path.join(a.folder, "*.fmu")))
    terminals = 0
    for path in fmus:
        problems = validate_fmu(path)
        check(not problems, f"{os.path.basename(path)}: fmpy validate: {problems[:3]}")
        terminals += check_terminals(path)
    print(f"validate: {len(fmus)} FMUs, {terminals} terminals", flush=True)
    for name in a.interface:
        path = os.path.join(a.folder, name + ".fmu")
        if os.path.exists(path):
            interface(path)
        else:
            check(False, f"{path} not found")
    if a.fuzz:
        made = sum(fuzz(p, a.fuzz, 60, a.seed) for p in fmus)
        check(True, "fuzz")
        print(f"fuzz: {made} random fmi3 calls on {len(fmus)} FMUs, every one answered", flush=True)
    print(f"fmi3: {passed} passed, {failed} failed")
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
