#!/usr/bin/env python3
"""Wall time per communication step of one example with two runtime builds, run
alternately (docs/platforms.md, "What the portable math costs").

The C master of ci/platforms.py (fmu_run) runs the example's plan with each library in
turn, ROUNDS times, reading every output after each step and writing nothing; prints
the median, min and max per build and the ratio of the medians. Each round also runs
the plan with no step (the process's start, loading the library, instantiation,
initialization, one read of the outputs, termination: 1.2-1.6 ms) and subtracts it,
so the figure is the time per step alone whatever STEPS is (over 20,000 steps the
start would add 0.06-0.08 us per step). Build the plans first with `ci/platforms.py DIR
--only NAME` (they are in target/platforms/NAME/).

Usage: ci/platforms/compare_speed.py NAME STEPS ROUNDS OLD.so NEW.so
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    name, steps, rounds, old, new = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    work = os.path.join(ROOT, "target", "platforms")
    plan = open(os.path.join(work, name, "plan.linux64.txt")).read().split("\n")
    if steps < 1 or rounds < 1:
        sys.exit("STEPS and ROUNDS must be at least 1")
    times = {"old": [], "new": []}
    starts = {"old": [], "new": []}

    def run(tag, lib, n):
        """Wall time of the plan with n steps, s."""
        # library, steps; no state saved or loaded, from step 0
        p = list(plan)
        p[0], p[3], p[5], p[6], p[7], p[8] = os.path.abspath(lib), str(n), "-1", "-", "-", "0"
        path = os.path.join(work, name, f"plan.speed.{tag}.txt")
        with open(path, "w") as f:
            f.write("\n".join(p))
        t0 = time.perf_counter()
        subprocess.run([os.path.join(work, "fmu_run"), path, "-"], check=True)
        return time.perf_counter() - t0

    for _ in range(rounds):
        for tag, lib in (("old", old), ("new", new)):
            start = run(tag, lib, 0)
            total = run(tag, lib, steps)
            starts[tag].append(start * 1e3)
            times[tag].append((total - start) / steps * 1e6)
    for tag, v in times.items():
        print(
            f"{name} {tag}: median {statistics.median(v):.3f} us/step, min {min(v):.3f}, max {max(v):.3f} "
            f"(start {statistics.median(starts[tag]):.2f} ms, subtracted)"
        )
    print(f"{name}: new/old {statistics.median(times['new']) / statistics.median(times['old']):.3f}")


if __name__ == "__main__":
    main()
