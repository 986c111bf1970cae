#!/usr/bin/env python3
"""Checks every FMU in a folder with fmpy, the reference FMI importer:

1. `fmpy.validation.validate_fmu` finds no problem (the same check as `fmpy validate`),
2. `fmpy.simulate_fmu(..., validate=True)` runs it to its stop time with finite results,
3. on every FMU: the runtime's log messages as an importer sees them (illegal call
   sequence, a NaN input naming the variable and recovery from a saved FMU state, a
   GUID mismatch, log categories);
4. terra_single_wheel.fmu: Barthelmes 2018 section 4.1 through fmpy (the effects that
   tests/terra_verification.rs asserts through the Rust FMI import, checked again here).

Usage: ci/fmpy_check.py DIR_WITH_FMUS
Ends with a line 'fmpy: N passed, M failed'; exit code 1 when anything failed.
"""
import glob
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from ctypes import byref

import fmpy
from fmpy import read_model_description, simulate_fmu, extract
from fmpy.validation import validate_fmu
from fmpy.fmi1 import calloc, free
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE,
                       fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE)
from fmpy.logging import addLoggerProxy

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok    {name}")
    else:
        failed += 1
        print(f"  FAIL  {name}: {detail}")


def collecting_callbacks(messages):
    """fmi2CallbackFunctions whose logger appends (status, category, text) to messages."""
    def log(env, instance, status, category, message):
        messages.append((status, category.decode(), message.decode()))
    cb = fmi2CallbackFunctions()
    cb.logger = fmi2CallbackLoggerTYPE(log)
    cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    # fmpy's native proxy formats the variadic message before it reaches Python
    addLoggerProxy(byref(cb))
    cb._keep = log
    return cb


def slave(path, md, unzipdir, guid=None):
    return FMU2Slave(guid=guid or md.guid, unzipDirectory=unzipdir,
                     modelIdentifier=md.coSimulation.modelIdentifier, instanceName="check")


def behaviour_checks(path):
    md = read_model_description(path)
    unzipdir = extract(path)
    inputs = [v for v in md.modelVariables if v.causality == "input" and v.type == "Real"]

    # 1. an illegal call sequence is refused with a sentence
    messages = []
    fmu = slave(path, md, unzipdir)
    fmu.instantiate(callbacks=collecting_callbacks(messages))
    try:
        fmu.doStep(0.0, 0.001)
        check("fmi2DoStep before initialization is refused", False, "no error")
    except Exception:
        text = " | ".join(m[2] for m in messages)
        check("fmi2DoStep before initialization is refused", "fmi2DoStep: illegal call sequence" in text, text)
    fmu.reset()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.doStep(0.0, 0.001)
    check("after fmi2Reset the instance runs", True)

    # 2. a NaN input is refused naming the variable; the saved state lets it go on
    if inputs:
        state = fmu.getFMUstate()
        messages.clear()
        try:
            fmu.setReal([inputs[0].valueReference], [float("nan")])
            check("NaN input is refused", False, "no error")
        except Exception:
            text = " | ".join(m[2] for m in messages)
            check("NaN input is refused naming the variable", inputs[0].name in text and "not a finite number" in text, text)
        fmu.setFMUstate(state)
        fmu.doStep(0.001, 0.001)
        check("after restoring a saved FMU state the step succeeds", True)
        fmu.freeFMUstate(state)

    # 3. log categories: events are logged when enabled, unknown categories refused
    messages.clear()
    fmu.setDebugLogging(True, ["logEvents"])
    fmu.getFMUstate()
    check("logEvents messages reach the logger", any(m[1] == "logEvents" for m in messages), messages)
    messages.clear()
    try:
        fmu.setDebugLogging(True, ["logNoSuchCategory"])
        check("unknown log category is refused", False, "no error")
    except Exception:
        check("unknown log category is refused with its name", any("logNoSuchCategory" in m[2] for m in messages), messages)
    fmu.freeInstance()

    # 4. a GUID mismatch is refused with a message
    messages = []
    fmu = slave(path, md, unzipdir, guid="{00000000-0000-0000-0000-000000000000}")
    try:
        fmu.instantiate(callbacks=collecting_callbacks(messages))
        check("GUID mismatch is refused", False, "instantiated")
    except Exception:
        text = " | ".join(m[2] for m in messages)
        check("GUID mismatch is refused with a message", "GUID mismatch" in text, text)


def terra_section_4_1(path):
    """Section 4.1 with fmpy's own master algorithm and input handling."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    from terra_single_wheel import simulate_section_4_1
    r = simulate_section_4_1(path)

    def at(t):
        return r[int(round(t / 0.01))]

    rest = at(1.9)
    check("4.1: plastic sinkage after the drop", rest["wheel.z_peak"] > 0.005 and abs(rest["wheel.x"]) < 1e-6,
          f"z_peak {rest['wheel.z_peak']}, x {rest['wheel.x']}")
    check("4.1: slip high at the start, lower on flat ground",
          at(2.05)["wheel.slip"] > 0.6 and 0.05 < at(8.0)["wheel.slip"] < 0.3,
          f"{at(2.05)['wheel.slip']} -> {at(8.0)['wheel.slip']}")
    check("4.1: drives out of its imprint", at(8.5)["wheel.z_peak"] < 0.8 * rest["wheel.z_peak"] and at(8.5)["wheel.x"] > 0.25,
          f"z_peak {at(8.5)['wheel.z_peak']}")
    check("4.1: slip and slip-sinkage rise and converge on the 8 deg ramp",
          at(18.0)["wheel.slip"] > at(8.0)["wheel.slip"] + 0.1 and abs(at(20.0)["wheel.slip"] - at(16.0)["wheel.slip"]) < 0.01
          and at(18.0)["wheel.z_s"] > at(8.0)["wheel.z_s"],
          f"slip {at(16.0)['wheel.slip']} .. {at(20.0)['wheel.slip']}")
    end = at(39.0)
    check("4.1: stuck on the 20 deg ramp (slip -> 1, speed -> 0)", end["wheel.slip"] > 0.99 and abs(end["wheel.vx"]) < 1e-3,
          f"slip {end['wheel.slip']}, vx {end['wheel.vx']}")


def validate_and_simulate(path):
    """Items 1 and 2 for one FMU (in a worker process): [(check, ok, detail)]."""
    name = os.path.basename(path)
    problems = validate_fmu(path)
    results = [(f"{name}: fmpy validate finds no problem", not problems, problems)]
    md = read_model_description(path)
    try:
        result = simulate_fmu(path, validate=True)
        stop = md.defaultExperiment.stopTime
        t_end = float(result["time"][-1])
        finite = all(math.isfinite(float(x)) for row in result for x in row)
        results.append((f"{name}: fmpy simulate runs to stopTime {stop}",
                        abs(t_end - float(stop)) < 1e-9 and finite, f"ended at {t_end}, finite: {finite}"))
    except Exception as e:  # noqa: BLE001 - report any failure of the importer
        results.append((f"{name}: fmpy simulate", False, repr(e)))
    return results


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    fmus = sorted(glob.glob(os.path.join(sys.argv[1], "*.fmu")))
    if not fmus:
        print(f"no FMUs in {sys.argv[1]}")
        return 1
    print(f"fmpy {fmpy.__version__}: checking {len(fmus)} FMU(s)")
    # validated and simulated in one process per core, reported in the FMUs' order
    with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
        for path, results in zip(fmus, pool.map(validate_and_simulate, fmus)):
            print(os.path.basename(path))
            for r in results:
                check(*r)
    for path in fmus:
        print(f"runtime behaviour ({os.path.basename(path)})")
        behaviour_checks(path)
    terra = [f for f in fmus if os.path.basename(f) == "terra_single_wheel.fmu"]
    if terra:
        print("TerRA, Barthelmes 2018 section 4.1 (terra_single_wheel.fmu)")
        terra_section_4_1(terra[0])
    print(f"fmpy: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
