#!/usr/bin/env python3
"""Simulates the packaged bbcc_sphere_drop FMU with fmpy and plots height and contact
force over time to a PNG.

    cargo build --release && cargo run --release -- package examples/*.json
    .venv/bin/python examples/sphere_drop.py [target/fmu/bbcc_sphere_drop.fmu] [out.png]
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from fmpy import simulate_fmu

fmu = sys.argv[1] if len(sys.argv) > 1 else "target/fmu/bbcc_sphere_drop.fmu"
png = sys.argv[2] if len(sys.argv) > 2 else "target/fmu/bbcc_sphere_drop.png"

result = simulate_fmu(fmu, output=["ball.r[3]", "ball.v[3]", "ball.f[3]", "ball.penetration"])
t = result["time"]

fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
ax1.plot(t, result["ball.r[3]"])
ax1.set_ylabel("centre height z / m")
ax1.set_title("BBCC sphere drop: Hunt-Crossley contact (Buse 2023 eq. (1)-(3))")
ax1.grid(True)
ax2.plot(t, result["ball.f[3]"])
ax2.set_ylabel("contact force f_z / N")
ax2.set_xlabel("time / s")
ax2.grid(True)
fig.tight_layout()
fig.savefig(png, dpi=100)
print(f"rest height {result['ball.r[3]'][-1]:.7f} m, contact force {result['ball.f[3]'][-1]:.4f} N -> {png}")
