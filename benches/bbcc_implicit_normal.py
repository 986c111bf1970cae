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
  coupled  as `bbcc.implicit_normal` (src/models/bbcc/implicit_normal.rs): `semi` first,
           then the elastic part linearly implicit with all contacts together, an
           impulse L_c = h^2 K_c r_c per contact (r_c its penetration rate at the step's
           end, after every impulse) by projected Gauss-Seidel (L_c >= -h F_c: never a
           pull), until no impulse changes by 1e-6 of h F or after `coupled:n` sweeps.
           At rest the velocities the forces give are already zero, so the impulses are
           zero and the penetrations Hertz's.

Prints, per scheme, mass and step, the penetrations after 2 s relative to Hertz's static
ones (1.0: exact), or when the light rock was thrown (faster than 5 m/s) or diverged.

    python3 benches/bbcc_implicit_normal.py
"""
import math

K_HERTZ = 3.6e7  # N/m^1.5
D = 1.6  # s/m, eq. (2) for an impact at 1 m/s with restitution 0.5
G = 9.81


def run(scheme, m, h, M=1.0, split=2.0, t_end=2.0, v0=-2.0, gap=0.01):
    if scheme.startswith("coupled"):
        return coupled(m, h, int(scheme.split(":")[1]), M, t_end, v0, gap)
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
        if failed := failure(n, h, zs, vs, zt):
            return failed
    return verdict(zs, vs, zt, vt, m, M, t_end)


def failure(n, h, zs, vs, zt):
    """Why the run stops after step n (None: it goes on)."""
    if not (math.isfinite(zs) and math.isfinite(zt)) or abs(zt) > 10.0:
        return f"diverged at {n * h * 1e3:.0f} ms"
    if vs > 5.0:
        return f"thrown at {n * h * 1e3:.0f} ms ({vs:.1f} m/s)"
    return None


def verdict(zs, vs, zt, vt, m, M, t_end):
    ground = -zs / (((M + m) * G / K_HERTZ) ** (2 / 3))
    top = (zs - zt) / ((M * G / K_HERTZ) ** (2 / 3))
    if ground < 0.0 or top < 0.0:
        return (
            f"apart after {t_end:.0f} s, still bouncing (light rock at {vs:+.2f} m/s, "
            f"the 1 kg rock {zt * 1e3:.0f} mm up at {vt:+.2f} m/s)"
        )
    return f"penetrations / Hertz's: ground {ground:.3f}, top {top:.3f}"


def coupled(m, h, sweeps, M, t_end, v0, gap, split=2.0):
    zs, vs, zt, vt = 0.0, 0.0, gap, v0

    def law(delta, ddot, inv):
        # `semi`'s force, and the gain h^2 K of its elastic part, K = 1.5 k delta^0.5
        if delta <= 0.0:
            return 0.0, 0.0
        el = K_HERTZ * delta**1.5
        c = el * D
        return max(el + c * ddot / (1.0 + c * h * inv), 0.0), h * h * 1.5 * K_HERTZ * math.sqrt(delta)

    for n in range(int(t_end / h)):
        f_top, g_top = law(zs - zt, vs - vt, 1.0 / M + split / m)
        f_ground, g_ground = law(-zs, -vs, split / m)
        vt += h * (f_top / M - G)
        vs += h * ((f_ground - f_top) / m - G)
        l_top = l_ground = 0.0
        tolerance = 1e-6 * h * max(f_top, f_ground)
        for _ in range(sweeps):
            change = 0.0
            if g_top > 0.0:  # rate vs - vt; its impulse pushes the top up, the rock down
                w = 1.0 / M + 1.0 / m
                new = max(g_top * (vs - vt + w * l_top) / (1.0 + g_top * w), -h * f_top)
                vt += (new - l_top) / M
                vs -= (new - l_top) / m
                change = max(change, abs(new - l_top))
                l_top = new
            if g_ground > 0.0:  # rate -vs
                w = 1.0 / m
                new = max(g_ground * (-vs + w * l_ground) / (1.0 + g_ground * w), -h * f_ground)
                vs += (new - l_ground) / m
                change = max(change, abs(new - l_ground))
                l_ground = new
            if change <= tolerance:
                break
        zt += h * vt
        zs += h * vs
        if failed := failure(n, h, zs, vs, zt):
            return failed
    return verdict(zs, vs, zt, vt, m, M, t_end)


if __name__ == "__main__":
    for scheme in ("semi", "be", "extrap", "coupled:8", "coupled:50"):
        for m in (0.5, 0.1, 0.02, 0.005):
            for h in (2.5e-4, 1e-3):
                print(f"{scheme:6} m = {m:4} kg, h = {h * 1e3:4} ms: {run(scheme, m, h)}")
