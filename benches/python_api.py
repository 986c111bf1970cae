#!/usr/bin/env python3
"""Packaging through the Python API (issue 51: under 50 ms per scenario): the median,
the 10-90 % range and the extremes of N calls of `contact_fmu.package`, per case:

  file     a scenario file into the same folder each time (a sweep's steady state)
  dict     the same scenario as a dict with a patch (what a sweep really does)
  fresh    into a new folder each time
  cli      the console script in a new process each time (process start-up included)

    .venv/bin/python benches/python_api.py [-n 100] [--scenario examples/terra_single_wheel.json]

Needs the package installed (bash ci/wheel.sh --install). Every platform runtime the
package holds goes into each FMU (contact_fmu.runtimes()).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import contact_fmu


def stats(ms):
    ms = sorted(ms)
    q = statistics.quantiles(ms, n=10)
    return f"median {statistics.median(ms):7.2f} ms   10-90 % {q[0]:6.2f}-{q[-1]:6.2f}   min {ms[0]:6.2f}   max {ms[-1]:7.2f}"


def timed(n, f):
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        f(i)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--scenario", default="examples/terra_single_wheel.json")
    a = ap.parse_args()
    src = Path(a.scenario)
    scenario = json.loads(src.read_text())
    cli = str(Path(sys.executable).parent / "contact-fmu")
    print(f"contact_fmu {contact_fmu.__version__}, {src.name}, runtimes {', '.join(contact_fmu.runtimes())}, n = {a.n}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        contact_fmu.package(src, tmp / "warm")  # the runtime deflated once (its cache)
        cases = {
            "file": lambda i: contact_fmu.package(src, tmp / "same"),
            "dict": lambda i: contact_fmu.package(scenario, tmp / "same", patch={"start_values": {"terrain.height": 1e-4 * i}},
                                                  base_dir=src.parent),
            "fresh": lambda i: contact_fmu.package(src, tmp / f"fresh{i}"),
            "cli": lambda i: subprocess.run([cli, "package", str(src), "-o", str(tmp / "cli")], check=True,
                                            capture_output=True),
        }
        for name, f in cases.items():
            n = a.n if name != "cli" else max(10, a.n // 5)
            print(f"  {name:6s} {stats(timed(n, f))}   (n = {n})")


if __name__ == "__main__":
    main()
