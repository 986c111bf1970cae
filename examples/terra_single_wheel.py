#!/usr/bin/env python3
"""Barthelmes 2018, section 4.1 with fmpy: simulates the packaged terra_single_wheel FMU
(drop at t = 0; from t = 2 s 0.5 rad/s against a 10 N drawbar pull; 8 deg ramp at ~9 s,
20 deg ramp at ~22 s) and plots slip (left) and sinkages (right) over time to a PNG, like
the paper's Fig. 5.

    cargo build --release && cargo run --release -- package examples/*.json
    .venv/bin/python examples/terra_single_wheel.py [target/fmu/terra_single_wheel.fmu] [out.png]

The function `simulate_section_4_1` is also used by ci/fmpy_check.py.
"""
import sys

import numpy as np
from fmpy import simulate_fmu

OUTPUTS = ["wheel.x", "wheel.vx", "wheel.slip", "wheel.sinkage", "wheel.z_eff", "wheel.z_s", "wheel.z_peak"]


def simulate_section_4_1(fmu, stop_time=40.0):
    """Runs the section 4.1 test; returns fmpy's structured result array."""
    # rig.omega and rig.drawbar_force step up at t = 2 s (fmpy holds inputs between
    # the given points when they repeat the time)
    signals = np.array(
        [(0.0, 0.0, 0.0, 0.0), (2.0, 0.0, 0.0, 0.0), (2.0, 0.5, 0.0, 10.0), (stop_time, 0.5, 0.0, 10.0)],
        dtype=[("time", float), ("rig.omega", float), ("rig.vx", float), ("rig.drawbar_force", float)],
    )
    return simulate_fmu(fmu, stop_time=stop_time, step_size=1e-3, output_interval=0.01,
                        input=signals, output=OUTPUTS, start_values={"rig.mode": 2})


def main():
    fmu = sys.argv[1] if len(sys.argv) > 1 else "target/fmu/terra_single_wheel.fmu"
    png = sys.argv[2] if len(sys.argv) > 2 else "target/fmu/terra_single_wheel.png"
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = simulate_section_4_1(fmu)
    t = r["time"]
    driving = t >= 2.0
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(t[driving], 100 * r["wheel.slip"][driving])
    ax1.set_xlabel("time / s")
    ax1.set_ylabel("slip / %")
    ax1.set_title("slip")
    ax1.grid(True)
    for name, label in [("wheel.sinkage", "total z"), ("wheel.z_eff", "effective z_eff"),
                        ("wheel.z_s", "slip-sinkage z_s"), ("wheel.z_peak", "peak z_peak")]:
        ax2.plot(t, 1000 * r[name], label=label)
    ax2.set_xlabel("time / s")
    ax2.set_ylabel("sinkage / mm")
    ax2.set_title("sinkages")
    ax2.legend()
    ax2.grid(True)
    for ax in (ax1, ax2):
        for t_ramp in (9.0, 22.0):
            ax.axvline(t_ramp, color="grey", lw=0.5, ls="--")
    fig.suptitle("TerRA single wheel (Barthelmes 2018, section 4.1): flat, 8 deg ramp, 20 deg ramp")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    end = r[-1]
    print(f"t = {end['time']:.1f} s: x = {end['wheel.x']:.3f} m, slip = {end['wheel.slip']:.3f}, "
          f"sinkage = {1000 * end['wheel.sinkage']:.1f} mm -> {png}")


if __name__ == "__main__":
    main()
