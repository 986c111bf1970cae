#!/usr/bin/env python3
"""Why BBCC's normal force is not made implicit contact by contact (issue 54).

A light rock of mass m pinched between the ground and a 1 kg rock falling onto it at
2 m/s, in one dimension: Hertz contacts k delta^1.5 (1 + d delta_dot) (Buse 2023 eq. (1),
the pile's granite: k = 3.6e7 N/m^1.5, d = 1.6 s/m), gravity, symplectic Euler as in
src/rigid_body.rs. Each contact's force is computed from its own two bodies only, with
each body's inverse mass shared among its contacts (x2 for the light rock), as
`bbcc.semi_implicit` does. Schemes:

  semi     today's semi_implicit: the damping by Euler backward, the elastic part
           explicit (its stiffness 1.5 k delta^0.5 limits the step: h < 2/omega)
  be       the whole normal force by Euler backward on the penetration, the velocity
           change predicted from this contact's force alone (as TAMSI does, but TAMSI
           solves all contacts and the other forces together)
  extrap   the same, the velocity change predicted with the last step's relative
           acceleration (so that a contact at rest keeps the Hertz force exactly)

Prints, per scheme, mass and step, the penetrations after 2 s relative to Hertz's static
ones (1.0: exact), or when the light rock was thrown (faster than 5 m/s) or diverged.

    python3 benches/bbcc_implicit_normal.py
"""
import math

K_HERTZ = 3.6e7  # N/m^1.5
D = 1.6  # s/m, eq. (2) for an impact at 1 m/s with restitution 0.5
G = 9.81


def run(scheme, m, h, M=1.0, split=2.0, t_end=2.0, v0=-2.0, gap=0.01):
    zs, vs, zt, vt = 0.0, 0.0, gap, v0  # light rock on the ground, heavy rock above
    memory = {"top": (0.0, 0.0, False), "ground": (0.0, 0.0, False)}

    def force(key, delta, ddot, inv):
        f_prev, ddot_prev, touching = memory[key]
        if delta <= 0.0:
            memory[key] = (0.0, ddot, False)
            return 0.0
        el = K_HERTZ * delta**1.5
        stiff = 1.5 * K_HERTZ * math.sqrt(delta)
        c = el * D
        if scheme == "semi":
            f = el + c * ddot / (1.0 + c * h * inv)
        else:
            g = stiff * h + c
            if scheme == "be":
                pred = ddot
            else:  # extrap
                if not touching:
                    ddot_prev, f_prev = ddot, 0.0
                pred = 2.0 * ddot - ddot_prev + h * inv * f_prev
            f = (el + g * pred) / (1.0 + g * h * inv)
        f = max(f, 0.0)
        memory[key] = (f, ddot, True)
        return f

    for n in range(int(t_end / h)):
        f_top = force("top", zs - zt, vs - vt, 1.0 / M + split / m)
        f_ground = force("ground", -zs, -vs, split / m)
        vt += h * (f_top / M - G)
        vs += h * ((f_ground - f_top) / m - G)
        zt += h * vt
        zs += h * vs
        if not (math.isfinite(zs) and math.isfinite(zt)) or abs(zt) > 10.0:
            return f"diverged at {n * h * 1e3:.0f} ms"
        if vs > 5.0:
            return f"thrown at {n * h * 1e3:.0f} ms ({vs:.1f} m/s)"
    ground = -zs / (((M + m) * G / K_HERTZ) ** (2 / 3))
    top = (zs - zt) / ((M * G / K_HERTZ) ** (2 / 3))
    if ground < 0.0 or top < 0.0:
        return f"apart after {t_end:.0f} s, still bouncing (light rock at {vs:+.2f} m/s)"
    return f"penetrations / Hertz's: ground {ground:.3f}, top {top:.3f}"


if __name__ == "__main__":
    for scheme in ("semi", "be", "extrap"):
        for m in (0.5, 0.1, 0.02):
            for h in (2.5e-4, 1e-3):
                print(f"{scheme:6} m = {m:4} kg, h = {h * 1e3:4} ms: {run(scheme, m, h)}")
