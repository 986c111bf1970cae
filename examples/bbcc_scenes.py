#!/usr/bin/env python3
"""Writes the three BBCC scenes of issue 28 (docs/bbcc-at-scale.md):

- bbcc_rover_rocks.json: a Scout-like rover, one free body of 57 convex parts (three
  module cuboids; six wheels of three arc-like spokes, two cuboids and a cylinder foot
  each), settling onto 38 fixed cuboid rocks and the ground;
- bbcc_rock_pile.json: 500 generated rocks (12 noise prototypes, exact mass
  properties from the generator's sidecar) dropped into a pile on a generated noise
  surface (a cuboid grid of the surface's heights);
- bbcc_wheel_rockfield.json: a grouser wheel on a planar joint, driven at 1.2 rad/s,
  rolling over a strip of 200 generated rocks fixed in the ground.

Deterministic (a fixed LCG); the scenes are checked in, this script remakes them:

    .venv/bin/python examples/bbcc_scenes.py [--out examples]

It runs the asset generator (`contact_fmu.cli(["asset", ...])`, the Python package) for
the rock prototypes' mass properties and the surface.
"""
import argparse
import json
import math
import pathlib
import tempfile

import contact_fmu

HERE = pathlib.Path(__file__).resolve().parent


class Lcg:
    """Deterministic numbers in [0, 1), the same on every machine."""

    def __init__(self, seed):
        self.s = seed

    def __call__(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.s >> 11) / 2**53


def quat_y(angle):
    """Rotation by `angle` (rad) about y, [w, x, y, z]."""
    return [math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0]


def quat_random(rnd):
    """A uniformly random unit quaternion (Shoemake)."""
    u1, u2, u3 = rnd(), rnd(), rnd()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    q = [b * math.cos(2 * math.pi * u3), a * math.sin(2 * math.pi * u2),
         a * math.cos(2 * math.pi * u2), b * math.sin(2 * math.pi * u3)]
    return [round(x, 9) for x in q]


def r6(v):
    return [round(x, 6) for x in v]


def head(name, ident, description, stop_time, model_step):
    return {
        "$schema": "schema/scenario.schema.json",
        "name": name,
        "model_identifier": ident,
        "description": description,
        "default_experiment": {"start_time": 0.0, "stop_time": stop_time, "step_size": 0.001},
        "model_step": model_step,
        "gravity": [0.0, 0.0, -9.81],
    }


STIFF = {"E": 1.0e8, "nu": 0.3, "zeta": 0.5, "mu": 0.6}
# floor of the impact velocity in the damping of Buse 2023 eq. (2), m/s: contacts that
# start at rest get d = 8/5 (1 - zeta) / (zeta VMIN); at the default 0.01 m/s that
# damping, explicit, needs model steps under 1e-4 s for these light rocks
# (docs/bbcc-at-scale.md)
VMIN = 0.5


def rover():
    """The Scout-like rover: 57 parts in the body frame (origin at axle height)."""
    parts = []
    for x in (-0.36, 0.0, 0.36):
        parts.append({"shape": {"type": "cuboid", "size": [0.30, 0.34, 0.12]},
                      "position": [x, 0.0, 0.0]})
    for x in (-0.36, 0.0, 0.36):
        for y in (-0.22, 0.22):
            for k in range(3):
                # foot k of this wheel at angle phi in the x-z plane (-90 deg: down)
                phi = math.radians(-90.0 + 120.0 * k)
                for r, dphi in ((0.055, -20.0), (0.13, -5.0)):
                    a = phi + math.radians(dphi)
                    parts.append({
                        "shape": {"type": "cuboid", "size": [0.03, 0.03, 0.09]},
                        "position": r6([x + r * math.cos(a), y, r * math.sin(a)]),
                        # long axis (body z of the part) along (cos a, 0, sin a)
                        "orientation": r6(quat_y(math.pi / 2 - a)),
                    })
                parts.append({
                    "shape": {"type": "cylinder", "radius": 0.03, "height": 0.06},
                    "position": r6([x + 0.18 * math.cos(phi), y, 0.18 * math.sin(phi)]),
                })
    assert len(parts) == 57
    return parts


def rover_scene():
    rnd = Lcg(28)
    mass = 12.0
    # inertia of a 1.0 m x 0.5 m x 0.4 m box of the rover's mass (the parts' envelope)
    a, b, c = 1.0, 0.5, 0.4
    inertia = [mass / 12 * (b * b + c * c), mass / 12 * (a * a + c * c), mass / 12 * (a * a + b * b)]
    bodies = [{
        "name": "rover", "shape": {"type": "compound", "parts": rover()},
        "material": STIFF,
        "motion": {"type": "free", "mass": mass, "inertia": r6(inertia),
                   # feet 2 cm above the ground (foot bottom 0.21 m below the axles)
                   "position": [0.0, 0.0, 0.23]},
    }]
    for i in range(38):
        s = 0.05 + 0.07 * rnd()
        x, y = 3.0 * rnd() - 1.2, 1.6 * rnd() - 0.8
        bodies.append({
            "name": f"rock{i}", "group": "rocks",
            "shape": {"type": "cuboid", "size": r6([s, 0.8 * s + 0.2 * s * rnd(), 0.6 * s])},
            "material": STIFF,
            "motion": {"type": "fixed", "position": r6([x, y, 0.3 * s - 0.01]),
                       "orientation": r6([math.cos(t := math.pi * rnd()), 0.0, 0.0, math.sin(t)])},
        })
    d = head(
        "BBCC Scout-like rover on 38 rocks",
        "bbcc_rover_rocks",
        "A Scout-like rover (Buse 2023 section 5.2) as one free body (12 kg) of 57 convex parts, "
        "three module cuboids and six wheels of three arc-like spokes (two cuboids and a cylinder "
        "foot each), dropped from 2 cm onto the ground among 38 fixed cuboid rocks; every part pair "
        "that touches is a contact of its own. It settles on its feet and the rocks under them; "
        "push it with rover.f_ext. Viscous contact forces semi-implicit (bbcc.semi_implicit), "
        "stable at the 1 ms model step (explicit: up to 0.7 ms). It rests with bbcc.stick (a "
        "tangential stick spring beside the paper's friction, which creeps under any tangential "
        "load: a foot landed across a rock's edge crept 1 mm/s). Short default run for CI; the full "
        "scene runs in `cargo bench --bench bbcc_scenes` (docs/bbcc-at-scale.md). Written by "
        "examples/bbcc_scenes.py.",
        0.3, 1e-3)
    d["terrain"] = {"surface": {"type": "flat", "height": 0.0}, "material": STIFF}
    d["bodies"] = bodies
    d["bbcc"] = {"impact_velocity_min": VMIN, "semi_implicit": True, "stick": True,
                 "pairs": [["rover", "rocks"], ["rover", "terrain"]]}
    return d


def asset(request, out):
    """Runs the asset generator on `request` into the empty folder `out`, in this
    process (the Python API, docs/python.md); returns its sidecar."""
    out.mkdir(parents=True, exist_ok=True)
    req = out.parent / f"{out.name}.request.json"
    req.write_text(json.dumps(request))
    contact_fmu.cli(["asset", "json", str(req), "-o", str(out)])
    # the folder holds this request's files only: its meshes and one sidecar
    (sidecar,) = out.glob("*.json")
    return json.loads(sidecar.read_text())


def rock_prototypes(tmp, count, size, seed):
    """`count` noise rocks about `size` (m) across: (shape, mass, inertia diagonal)."""
    rnd = Lcg(seed)
    protos = []
    for k in range(count):
        dims = r6([size * (0.8 + 0.4 * rnd()), size * (0.6 + 0.3 * rnd()), size * (0.45 + 0.25 * rnd())])
        request = {"kind": "rock", "params": {
            "method": "noise", "dimensions": dims, "shape_roughness": 0.3,
            "surface_roughness": 0.1, "detail": 1, "seed": seed * 100 + k}}
        out = tmp / f"rock{seed}_{k}"
        side = asset(request, out)
        mp = side["mass_properties"]
        inertia = [mp["inertia_kg_m2"][i][i] for i in range(3)]
        vertices = list(obj_vertices3(out / side["files"][0]))
        protos.append(({"type": "generated", "asset": request}, round(mp["mass_kg"], 6),
                       [float(f"{x:.6e}") for x in inertia], vertices))
    return protos


def obj_vertices3(path):
    for line in path.read_text().splitlines():
        if line.startswith("v "):
            yield tuple(map(float, line.split()[1:4]))


def rotate(q, v):
    """v turned by the unit quaternion q = [w, x, y, z]."""
    w, x, y, z = q
    t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])]
    return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]),
            v[2] + w * t[2] + (x * t[1] - y * t[0])]


def lowest(vertices, q):
    """The lowest z of the vertices turned by q, m."""
    return min(rotate(q, v)[2] for v in vertices)


def obj_vertices(path):
    out = {}
    for line in path.read_text().splitlines():
        if line.startswith("v "):
            x, y, z = map(float, line.split()[1:4])
            out[(round(x, 6), round(y, 6))] = z
    return out


def pile_scene(tmp):
    rnd = Lcg(500)
    cell, n = 0.1, 30
    side = asset({"kind": "surface", "params": {
        "extent": [-1.5, 1.5, -1.5, 1.5], "resolution": cell,
        "layers": [{"type": "noise", "amplitude": 0.05, "frequency": 0.5, "octaves": 3, "seed": 5}]}},
        tmp / "surface")
    obj = next(p for p in (tmp / "surface").glob("*.obj"))
    nodes = obj_vertices(obj)
    z = lambda i, j: nodes[(round(-1.5 + i * cell, 6), round(-1.5 + j * cell, 6))]
    # a cell's top: the mean of its four corner nodes
    heights = [[round(0.25 * (z(i, j) + z(i + 1, j) + z(i, j + 1) + z(i + 1, j + 1)), 6)
                for i in range(n)] for j in range(n)]
    floor = min(min(r) for r in heights) - 0.01
    bodies = [{
        "name": "surface", "material": STIFF,
        "shape": {"type": "cuboid_grid", "cell": cell, "heights": heights},
        "motion": {"type": "fixed", "position": [-1.5, -1.5, 0.0]},
    }]
    protos = rock_prototypes(tmp, 12, 0.12, 500)
    k = 0
    for layer in range(5):
        for j in range(10):
            for i in range(10):
                shape, mass, inertia, _ = protos[k % len(protos)]
                # 0.2 m apart: no two rocks (at most 0.144 m across) overlap at the start
                jitter = lambda: 0.02 * (rnd() - 0.5)
                bodies.append({
                    "name": f"rock{k}", "group": "pile", "shape": shape, "material": STIFF,
                    "motion": {"type": "free", "mass": mass, "inertia": inertia,
                               "position": r6([-0.9 + 0.2 * i + jitter(), -0.9 + 0.2 * j + jitter(),
                                               0.2 + 0.2 * layer]),
                               "orientation": quat_random(rnd),
                               # nothing outside pushes a rock: no f_ext/t_ext inputs, so
                               # OMSimulator loads the scene (docs/fmu-interface.md)
                               "external_load": False},
                })
                k += 1
    d = head(
        "BBCC pile of 500 generated rocks",
        "bbcc_rock_pile",
        "500 generated noise rocks (Buse 2023 section 3.2; 12 prototypes about 0.12 m across, "
        "detail 1, exact mass properties for granite from the generator) dropped from a 10 x 10 x 5 "
        "lattice (0.2 m apart) into a pile on a generated noise surface (3 m x 3 m, 0.1 m cells, as a cuboid grid "
        "of the surface's heights; a flat floor 1 cm under its lowest cell catches what rolls off). "
        "The pile collection is paired with itself. Viscous contact forces semi-implicit "
        "(bbcc.semi_implicit), stable at the 0.25 ms model step (0.5 ms threw a rock pinched under a "
        "falling one in two of eight runs; 1 ms: non-finite at 0.2 s; explicit: 0.1 ms). The rocks "
        "come to rest with bbcc.stick (a tangential stick spring beside the paper's "
        "friction, which creeps under any tangential load) and what it implies: the contact patch (a "
        "flat contact spread over its overlap's vertices) and bbcc.reimpact (each new compression of a "
        "lasting contact damped as an impact at its own speed, at least the default impact-velocity "
        "floor, so a rock that landed fast does not rock on) and a rolling resistance "
        "(bbcc.rolling_resistance 0.01: a rock resting on two others swings about the line through "
        "its contacts, where point contacts dissipate little). The rocks have no external-load inputs (motion.external_load false). Short default run for CI; the full scene runs in `cargo bench --bench bbcc_scenes` "
        "(docs/bbcc-at-scale.md). Written by examples/bbcc_scenes.py.",
        0.2, 2.5e-4)
    d["terrain"] = {"surface": {"type": "flat", "height": round(floor, 6)}, "material": STIFF}
    d["bodies"] = bodies
    d["bbcc"] = {"semi_implicit": True, "stick": True, "rolling_resistance": 0.01,
                 "pairs": [["pile", "pile"], ["pile", "surface"], ["pile", "terrain"]]}
    return d


def wheel_scene(tmp):
    rnd = Lcg(200)
    protos = rock_prototypes(tmp, 12, 0.1, 200)
    bodies = [{
        "name": "wheel", "material": STIFF,
        "shape": {"type": "grouser_wheel", "radius": 0.25, "width": 0.2, "count": 12,
                  "grouser_height": 0.02, "grouser_thickness": 0.01},
        "motion": {"type": "free", "mass": 15.0, "inertia": [0.3, 0.47, 0.3],
                   "position": [0.0, 0.0, 0.27],
                   # driven at 1.2 rad/s; its speed follows the traction (a prescribed
                   # speed would crush a wedged rock into the ground with no bound)
                   "joint": {"omega": 1.2}},
    }]
    for k in range(200):
        shape, _, _, vertices = protos[k % len(protos)]
        q = quat_random(rnd)
        bodies.append({
            "name": f"rock{k}", "group": "field", "shape": shape, "material": STIFF,
            # a strip 0.6 m wide from x = 0.4 m to 10.4 m, each rock embedded in the
            # ground by a third of its height (fixed, as a rock field's rocks)
            "motion": {"type": "fixed",
                       "position": r6([0.4 + 0.05 * k + 0.01 * rnd(), 0.6 * rnd() - 0.3,
                                       -lowest(vertices, q) * 2 / 3]),
                       "orientation": q},
        })
    d = head(
        "BBCC grouser wheel over 200 rocks",
        "bbcc_wheel_rockfield",
        "A BBCC grouser wheel (r = 0.25 m, 0.2 m wide, 12 grousers of 2 cm; 15 kg) on a planar "
        "joint driven at 1.2 rad/s (0.3 m/s without slip), rolling over a strip of 200 generated "
        "noise rocks (12 prototypes about 10 cm across) fixed in the ground, each sunk by a third "
        "of its height, on a strip 10 m long and 0.6 m wide. Short default run for CI; the full scene runs "
        "in `cargo bench --bench bbcc_scenes` (docs/bbcc-at-scale.md); stable at the 1 ms model step. "
        "Written by examples/bbcc_scenes.py.",
        1.0, 1e-3)
    d["terrain"] = {"surface": {"type": "flat", "height": 0.0}, "material": STIFF}
    d["bodies"] = bodies
    d["bbcc"] = {"impact_velocity_min": VMIN, "pairs": [["wheel", "field"], ["wheel", "terrain"]]}
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE))
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        for scene in (rover_scene(), pile_scene(tmp), wheel_scene(tmp)):
            path = out / f"{scene['model_identifier']}.json"
            path.write_text(json.dumps(scene, indent=1) + "\n")
            print(f"wrote {path} ({len(scene['bodies'])} bodies)")


if __name__ == "__main__":
    main()
