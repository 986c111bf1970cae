#!/usr/bin/env python3
"""The wheel from a machine with only Python (issue 51): run by ci/wheel_check.sh in a
fresh venv where only the wheel (and fmpy, numpy, pytest) is installed and neither
cargo nor rustc is on PATH.

Checks (`contact_fmu.check`, its GUID that of the FMU) and packages every example
scenario through the API (`contact_fmu.package`) and through
the console script (`contact-fmu package`), and the same scenarios with the cargo-built
executable (`--cargo-cli`, called by its path: a built program, not the toolchain),
with the same platforms. Every FMU of the three must hold the same entries, byte for
byte, but for modelDescription.xml's generationDateAndTime: then fmpy's outputs are the
same bits (ci/wheel_check.sh runs ci/behaviour.py on the API's FMUs besides).

    python ci/wheel_check.py --cargo-cli target/release/contact-fmu --out target/wheel-check examples/*.json
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import contact_fmu


def entries(fmu):
    with zipfile.ZipFile(fmu) as z:
        out = {n: z.read(n) for n in z.namelist()}
    out["modelDescription.xml"] = re.sub(rb'generationDateAndTime="[^"]*"', b"", out["modelDescription.xml"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--cargo-cli", required=True, help="the contact-fmu executable cargo built")
    ap.add_argument("--out", default="target/wheel-check")
    a = ap.parse_args()
    for tool in ("cargo", "rustc"):
        if shutil.which(tool):
            sys.exit(f"wheel check: {tool} is on PATH ({shutil.which(tool)}); run it where only Python is")
    site = Path(contact_fmu.__file__).resolve().parent
    if "site-packages" not in site.parts:
        sys.exit(f"wheel check: contact_fmu comes from {site}, not from an installed wheel")
    platforms = sorted(contact_fmu.runtimes())
    print(f"contact_fmu {contact_fmu.__version__} from {site}; runtimes: {', '.join(platforms)}")
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    api, script, cargo = out / "api", out / "script", out / "cargo"
    t0 = time.perf_counter()
    checked = [contact_fmu.check(s) for s in a.scenarios]
    made = [contact_fmu.package(s, api) for s in a.scenarios]
    print(f"API: {len(made)} scenarios checked and packaged in {time.perf_counter() - t0:.2f} s")
    for c, fmu in zip(checked, made):
        if f'guid="{c.guid}"'.encode() not in zipfile.ZipFile(fmu).read("modelDescription.xml"):
            sys.exit(f"wheel check: {fmu.name}: check() gave GUID {c.guid}, the FMU another")
    script_cli = Path(sys.executable).parent / "contact-fmu"
    for tool, folder in ((str(script_cli), script), (a.cargo_cli, cargo)):
        t0 = time.perf_counter()
        r = subprocess.run([tool, "package", *a.scenarios, "-o", str(folder), "--platforms", ",".join(platforms)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{tool} package failed:\n{r.stderr}")
        print(f"{tool}: {len(made)} FMUs in {time.perf_counter() - t0:.2f} s")
    bad = 0
    for fmu in made:
        want = entries(cargo / fmu.name)
        for label, folder in (("API", api), ("console script", script)):
            got = entries(folder / fmu.name)
            if got != want:
                diff = sorted(n for n in set(got) | set(want) if got.get(n) != want.get(n))
                print(f"  {fmu.name}: {label} differs from cargo's in {', '.join(diff)}")
                bad += 1
    if bad:
        sys.exit(f"wheel check: {bad} FMU(s) differ")
    print(f"wheel check: {len(made)} FMUs from the API and the console script identical to cargo's "
          f"(every entry, {', '.join(platforms)} binaries)")


if __name__ == "__main__":
    main()
