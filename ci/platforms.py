#!/usr/bin/env python3
"""Every example FMU's runtime on every platform it carries, compared bit for bit.

For each FMU (a folder of *.fmu) and each platform in it, a small C master
(ci/platforms/fmu_run.c, compiled here for each platform) runs the default experiment
(all of it, or at most --max-steps communication steps) through the FMI C API and writes every
output's bits at every communication point:
  - linux64 natively, win64 under Wine (Windows resource URIs file:///Z:/..., with a
    stand-in bcryptprimitives.dll that Wine 8.0 lacks: ci/platforms/bcryptprimitives.c),
    aarch64-linux under qemu-aarch64-static with the Debian cross sysroot;
  - where ci/sysroot.sh made target/sysroot: linux64 again on Debian 11's glibc 2.31
    (its loader and libraries: the oldest glibc we promise), and aarch64-linux on
    that glibc too, instead of the cross sysroot's 2.36;
  - the outputs of each platform are compared with linux64's, bit for bit;
  - the FMU state is serialized on linux64 halfway (at most 500 steps before the end)
    and restored on each other platform, which must continue bit-identically;
  - each platform runs its plans in one process (fmu_run --batch): one start of Wine or
    qemu instead of two per example; linux64 first (its saved states are what the others
    resume from), then the others side by side, aarch64-linux (under qemu, 20-40 times
    slower) in --jobs processes whose shares are balanced by linux64's time per plan;
  - once per platform, a panic in the runtime (CONTACT_FMU_TEST_PANIC) must come back
    as fmi2Error.

Usage: ci/platforms.py FMU_DIR [--max-steps N] [--work DIR] [--only NAME,...] [--validate] [--jobs N]
Exit code 1 on any difference or failure; platforms an FMU lacks are skipped (said so).
Tools: gcc, x86_64-w64-mingw32-gcc + wine, aarch64-linux-gnu-gcc + qemu-aarch64-static
(`bash ci/cross.sh --test-tools` installs them).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor

from fmpy import read_model_description
from fmpy.validation import validate_fmu

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "platforms")
ROOT = os.path.dirname(HERE)
# Debian 11 (glibc 2.31) for amd64 and arm64, and C compilers linking against it (ci/sysroot.sh)
OLD_GLIBC = os.path.join(ROOT, "target", "sysroot")
HAVE_OLD_GLIBC = os.path.isfile(os.path.join(OLD_GLIBC, "env.sh"))
AARCH64_SYSROOT = os.path.join(OLD_GLIBC, "arm64") if HAVE_OLD_GLIBC else "/usr/aarch64-linux-gnu"

failures = []


def fail(what):
    failures.append(what)
    print(f"  FAIL {what}", flush=True)


class Platform:
    def __init__(self, name, ext, work, folder=None):
        self.name, self.ext, self.work = name, ext, work
        self.folder = folder or name

    def library(self, fmu_dir, model):
        return os.path.join(fmu_dir, "binaries", self.folder, f"{model}.{self.ext}")


class Linux64(Platform):
    def build(self):
        self.exe = os.path.join(self.work, "fmu_run")
        subprocess.run(["gcc", "-O1", "-o", self.exe, os.path.join(SRC, "fmu_run.c"), "-ldl"], check=True)

    def path(self, p):
        return os.path.abspath(p)

    def uri(self, d):
        return "file://" + os.path.abspath(d)

    def command(self, plan, out):
        return [self.exe, plan, out]


class Linux64Glibc231(Linux64):
    """The linux64 runtime on Debian 11's glibc 2.31: the master is linked against it and
    started by its loader with its libraries, so the runtime binds to glibc 2.31."""

    def build(self):
        self.exe = os.path.join(self.work, "fmu_run.glibc231")
        cc = os.path.join(OLD_GLIBC, "bin", "x86_64-linux-gnu-cc")
        subprocess.run([cc, "-O1", "-o", self.exe, os.path.join(SRC, "fmu_run.c"), "-ldl"], check=True)

    def command(self, plan, out):
        root = os.path.join(OLD_GLIBC, "amd64")
        return [os.path.join(root, "lib64", "ld-linux-x86-64.so.2"), "--library-path",
                os.path.join(root, "lib", "x86_64-linux-gnu"), self.exe, plan, out]


class Win64(Platform):
    def build(self):
        d = os.path.join(self.work, "win64")
        os.makedirs(d, exist_ok=True)
        self.exe = os.path.join(d, "fmu_run.exe")
        cc = "x86_64-w64-mingw32-gcc"
        subprocess.run([cc, "-O1", "-o", self.exe, os.path.join(SRC, "fmu_run.c")], check=True)
        subprocess.run([cc, "-shared", "-O1", "-o", os.path.join(d, "bcryptprimitives.dll"),
                        os.path.join(SRC, "bcryptprimitives.c"), "-ladvapi32"], check=True)
        # the prefix ci/cross_tests.sh ran the unit tests in (a new one is some 700 MB and
        # 10 s), made here if missing while nothing else runs, not by a batch beside qemu
        prefix = os.path.join(ROOT, "target", "platforms-wine")
        self.env = dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all", WINEDLLOVERRIDES="bcryptprimitives=n")
        if not os.path.isfile(os.path.join(prefix, "system.reg")):
            subprocess.run(["wineboot", "-i"], env=self.env, check=True, capture_output=True, timeout=600)

    def path(self, p):
        # Wine's Z: drive is the Unix root
        return "Z:" + os.path.abspath(p).replace("/", "\\")

    def uri(self, d):
        # as Windows importers pass it: file:///Z:/... with percent-encoding
        return "file:///Z:" + os.path.abspath(d).replace(" ", "%20")

    def command(self, plan, out):
        return ["wine", self.exe, self.path(plan), self.path(out)]


class Aarch64(Platform):
    def build(self):
        self.exe = os.path.join(self.work, "fmu_run.aarch64")
        cc = os.path.join(OLD_GLIBC, "bin", "aarch64-linux-gnu-cc") if HAVE_OLD_GLIBC else "aarch64-linux-gnu-gcc"
        subprocess.run([cc, "-O1", "-o", self.exe, os.path.join(SRC, "fmu_run.c"), "-ldl"], check=True)

    def path(self, p):
        return os.path.abspath(p)

    def uri(self, d):
        return "file://" + os.path.abspath(d)

    def command(self, plan, out):
        return ["qemu-aarch64-static", "-L", AARCH64_SYSROOT, self.exe, plan, out]


def write_plan(path, platform, fmu_dir, md, steps, h, save_at, save, load, start, vrs, panic):
    lines = [platform.path(platform.library(fmu_dir, md.coSimulation.modelIdentifier)),
             platform.uri(os.path.join(fmu_dir, "resources")), md.guid, str(steps), repr(h), str(save_at),
             platform.path(save) if save != "-" else "-", platform.path(load) if load != "-" else "-", str(start)]
    for ty in ("Real", "Integer", "Boolean"):
        v = vrs[ty]
        lines.append(" ".join([str(len(v))] + [str(x) for x in v]))
    lines.append("1" if panic else "0")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(platform, plan, out, env=None, timeout=1800):
    t0 = time.time()
    p = subprocess.run(platform.command(plan, out), capture_output=True, text=True, timeout=timeout,
                       env=env or getattr(platform, "env", None))
    return p.returncode, (p.stderr or p.stdout)[-600:], time.time() - t0


def run_batch(platform, runs, work, timeout=3600, part=""):
    """Runs (plan, out) pairs in one fmu_run process (`--batch`): one Wine or qemu start
    for all. Returns {plan: exit code}, {plan: seconds it took} and "__seconds__" (the
    whole batch); on a crash of the process the plans it did not reach are rerun one by
    one, so each failure is named."""
    lst = os.path.join(work, f"batch.{platform.name}{part}.txt")
    with open(lst, "w") as f:
        for plan, out in runs:
            f.write(f"{platform.path(plan)}\n{platform.path(out)}\n")
    t0 = time.time()
    cmd = platform.command("--batch", lst)
    cmd[-2:] = ["--batch", platform.path(lst)]
    by_path = {platform.path(plan): plan for plan, _ in runs}
    rcs, seconds = {}, {}
    # fmu_run prints "EXIT_CODE PLAN" as each plan ends: read as it comes, for each plan's time
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=getattr(platform, "env", None)) as p:
        # the bound holds while the output is read: a hung Wine or qemu is killed
        killer = threading.Timer(timeout, p.kill)
        killer.start()
        errors = []
        drain = threading.Thread(target=lambda: errors.append(p.stderr.read()))
        drain.start()
        last = t0
        for ln in p.stdout:
            rc, _, path = ln.rstrip("\n").partition(" ")
            if path in by_path:
                now = time.time()
                rcs[by_path[path]], seconds[by_path[path]], last = int(rc), now - last, now
        p.wait()
        killer.cancel()
        drain.join()
        if time.time() - t0 >= timeout:
            print(f"  {platform.name}: the batch{part} killed after {timeout} s", flush=True)
    if any(rc != 0 for rc in rcs.values()):
        print(f"  {platform.name}: {''.join(errors)[-1500:]}", flush=True)
    if len(rcs) < len(runs):
        free = ", ".join(f"{d} {shutil.disk_usage(d).free / 2**30:.1f} GiB" for d in (work, "/tmp"))
        print(f"  {platform.name}: the batch{part} ended after {len(rcs)} of {len(runs)} plans "
              f"(exit code {p.returncode}); free disk: {free}; the rest one by one", flush=True)
    for plan, out in runs:
        if plan not in rcs:
            rc, err, _ = run(platform, plan, out)
            rcs[plan] = rc
            if rc != 0:
                print(f"  {platform.name}: {os.path.basename(os.path.dirname(plan))}: {err}", flush=True)
    rcs["__seconds__"] = time.time() - t0
    return rcs, seconds


def shares(runs, cost, n):
    """runs split into n lists of about equal total cost (longest first, each to the
    least loaded list), each list in the given order."""
    bins = [[] for _ in range(max(1, n))]
    load = [0.0] * len(bins)
    for r in sorted(runs, key=lambda r: -cost(r)):
        k = load.index(min(load))
        bins[k].append(r)
        load[k] += cost(r)
    order = {r: i for i, r in enumerate(runs)}
    return [sorted(b, key=order.get) for b in bins if b]


def first_difference(a, b, names):
    la, lb = open(a).read().splitlines(), open(b).read().splitlines()
    if len(la) != len(lb):
        return f"{len(lb)} communication points, linux64 {len(la)}"
    for k, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            for i, (u, v) in enumerate(zip(x.split(), y.split())):
                if u != v:
                    name = names[i] if i < len(names) else f"column {i}"
                    if len(u) == 16 and len(v) == 16:
                        return f"point {k}: {name} = {as_double(v)!r}, linux64 {as_double(u)!r}"
                    return f"point {k}: {name} = {v}, linux64 {u}"
    return None


def as_double(hexbits):
    """The double whose bits fmu_run printed as 16 hex digits."""
    return struct.unpack("<d", int(hexbits, 16).to_bytes(8, "little"))[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fmus")
    ap.add_argument("--max-steps", type=int, default=0, help="0 (default): the whole experiment")
    ap.add_argument("--work", default="target/platforms")
    ap.add_argument("--only", default="")
    ap.add_argument("--validate", action="store_true", help="also fmpy validate each FMU")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="processes for aarch64-linux's plans (default: the number of cores)")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    platforms = {"linux64": Linux64("linux64", "so", work), "win64": Win64("win64", "dll", work),
                 "aarch64-linux": Aarch64("aarch64-linux", "so", work)}
    if HAVE_OLD_GLIBC:
        platforms["linux64-glibc2.31"] = Linux64Glibc231("linux64-glibc2.31", "so", work, folder="linux64")
    else:
        print(f"platforms: {OLD_GLIBC} missing (bash ci/sysroot.sh): linux64 not run on glibc 2.31, "
              f"aarch64-linux on {AARCH64_SYSROOT}", flush=True)
    for p in platforms.values():
        p.build()
    only = set(x for x in a.only.split(",") if x)
    fmus = sorted(f for f in os.listdir(a.fmus) if f.endswith(".fmu") and (not only or f[:-4] in only))
    # 1. every FMU unpacked, every plan written
    cases = []
    for f in fmus:
        name = f[:-4]
        d = os.path.join(work, name)
        with zipfile.ZipFile(os.path.join(a.fmus, f)) as z:
            z.extractall(d)
        md = read_model_description(os.path.join(d, "modelDescription.xml"))
        if a.validate:
            problems = validate_fmu(os.path.join(a.fmus, f))
            if problems:
                fail(f"{name}: fmpy validate: {problems[:3]}")
        de = md.defaultExperiment
        h = float(de.stepSize)
        steps = int(round((float(de.stopTime) - float(de.startTime or 0.0)) / h))
        if a.max_steps > 0:
            steps = min(steps, a.max_steps)
        outs = [v for v in md.modelVariables if v.causality == "output"]
        vrs = {ty: [v.valueReference for v in outs if v.type == ty] for ty in ("Real", "Integer", "Boolean")}
        names = [v.name for ty in ("Real", "Integer", "Boolean") for v in outs if v.type == ty]
        have = [p for p in platforms.values() if os.path.isfile(p.library(d, md.coSimulation.modelIdentifier))]
        if "linux64" not in [p.name for p in have]:
            fail(f"{name}: no linux64 binary to compare with")
            continue
        # the state is saved halfway, at most 500 steps before the end: the resumed runs
        # (on qemu 20-40 times slower) replay no more than that
        save_at = max(steps // 2, steps - 500)
        state = os.path.join(d, "state.linux64.bin")
        case = dict(name=name, dir=d, md=md, h=h, steps=steps, names=names, vrs=vrs, save_at=save_at,
                    have=have, runs={})
        for p in have:
            is_ref = p.name == "linux64"
            plan, out = os.path.join(d, f"plan.{p.name}.txt"), os.path.join(d, f"out.{p.name}.txt")
            write_plan(plan, p, d, md, steps, h, save_at if is_ref else -1, state if is_ref else "-", "-", 0,
                       vrs, False)
            case["runs"][p.name] = [(plan, out)]
            if not is_ref:
                # restore linux64's state halfway and continue
                plan2 = os.path.join(d, f"plan.{p.name}.resume.txt")
                out2 = os.path.join(d, f"out.{p.name}.resume.txt")
                write_plan(plan2, p, d, md, steps, h, -1, "-", state, save_at, vrs, False)
                case["runs"][p.name].append((plan2, out2))
        cases.append(case)
    # 2. linux64 runs all its plans in one process first (its saved states are what the
    #    others resume from); then the other platforms side by side, aarch64-linux under
    #    qemu split over --jobs processes by linux64's time per plan (a resumed run
    #    counted as the share of the steps it replays)
    rcs, took = {}, {}
    todo = {p.name: [r for c in cases for r in c["runs"].get(p.name, [])] for p in platforms.values()}
    if todo["linux64"]:
        got, ref_seconds = run_batch(platforms["linux64"], todo["linux64"], work)
        took["linux64"] = got.pop("__seconds__")
        rcs.update(got)
    else:
        ref_seconds = {}
    cost = {}
    for c in cases:
        base = ref_seconds.get(c["runs"]["linux64"][0][0], 1.0) + 1e-3
        for runs in c["runs"].values():
            cost[runs[0]] = base
            for r in runs[1:]:
                cost[r] = base * (c["steps"] - c["save_at"]) / max(1, c["steps"])
    batches = []
    for p in platforms.values():
        if p.name == "linux64" or not todo[p.name]:
            continue
        n = a.jobs if p.name == "aarch64-linux" else 1
        parts = shares(todo[p.name], cost.get, n)
        for k, runs in enumerate(parts):
            batches.append((p, runs, f".{k}" if len(parts) > 1 else ""))
    with ThreadPoolExecutor(max(1, len(batches))) as pool:
        done = [pool.submit(run_batch, p, runs, work, part=part) for p, runs, part in batches]
        for (p, _, _), f in zip(batches, done):
            got, _ = f.result()
            took[p.name] = max(took.get(p.name, 0.0), got.pop("__seconds__"))
            rcs.update(got)
    # 3. compared with linux64
    for i, c in enumerate(cases):
        name, ref = c["name"], c["runs"]["linux64"][0][1]
        report = []
        tail = os.path.join(c["dir"], "out.linux64.tail.txt")
        for p in c["have"]:
            (plan, out), *resume = c["runs"][p.name]
            if rcs.get(plan, 1) != 0:
                fail(f"{name} on {p.name}: exit code {rcs.get(plan)}")
                continue
            if p.name == "linux64":
                report.append("linux64 reference")
                with open(ref) as r, open(tail, "w") as t:
                    t.write("".join(r.readlines()[c["save_at"]:]))
                continue
            verdict = first_difference(ref, out, c["names"]) or "bit-identical"
            if verdict != "bit-identical":
                fail(f"{name} on {p.name}: differs from linux64 at {verdict}")
            report.append(f"{p.name} {verdict}")
            plan2, out2 = resume[0]
            if rcs.get(plan2, 1) != 0:
                fail(f"{name} on {p.name}: resuming linux64's FMU state: exit code {rcs.get(plan2)}")
            elif (where := first_difference(tail, out2, c["names"])):
                fail(f"{name} on {p.name}: resumed from linux64's state: {where}")
            else:
                report[-1] += ", resumes linux64's state"
        print(f"[{i + 1}/{len(cases)}] {name} ({c['steps']} steps): " + "; ".join(report), flush=True)
    # 4. once per platform, a panic at the FMI boundary comes back as fmi2Error
    for p in platforms.values():
        c = next((c for c in cases if p in c["have"]), None)
        if c is None:
            continue
        plan3 = os.path.join(c["dir"], f"plan.{p.name}.panic.txt")
        write_plan(plan3, p, c["dir"], c["md"], 1, c["h"], -1, "-", "-", 0, c["vrs"], True)
        env = dict(getattr(p, "env", None) or os.environ, CONTACT_FMU_TEST_PANIC="fmi2Terminate")
        rc, err, _ = run(p, plan3, os.path.join(c["dir"], f"out.{p.name}.panic.txt"), env=env)
        if rc != 0:
            fail(f"{c['name']} on {p.name}: a panic at the FMI boundary: exit code {rc}: {err}")
        else:
            print(f"{p.name}: a panic in fmi2Terminate ({c['name']}) came back as fmi2Error", flush=True)
    print("platforms: time per platform (side by side after linux64; aarch64-linux in "
          f"{a.jobs} processes): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in took.items()), flush=True)
    if failures:
        print(f"platforms: {len(failures)} failures")
        sys.exit(1)
    print("platforms: every platform bit-identical to linux64")


if __name__ == "__main__":
    main()
