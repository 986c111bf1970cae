#!/usr/bin/env python3
"""MuJoCo beside BBCC (issue 28, docs/bbcc-at-scale.md): the scenes of
examples/bbcc_scenes.py translated to MJCF as closely as the two models allow, timed on
the same machine as `cargo bench --bench bbcc_scenes`.

    bash ci/setup.sh --bench      # MuJoCo into .venv (ci/bench-requirements.txt)
    .venv/bin/python benches/mujoco_scenes.py [rover] [pile] [wheel] [--timestep 0.001]

Translation: every body's shapes become geoms (cuboid -> box, cylinder (axis y) ->
cylinder turned onto y, sphere, compound -> its parts as geoms of one body, generated
rock -> the generator's mesh, whose convex hull MuJoCo collides, cuboid_grid -> one box
per cell, grouser_wheel -> a cylinder and its grouser boxes), mass and principal inertia
as given, friction mu (MuJoCo's sliding coefficient), the flat terrain -> a plane. Free
bodies get a free joint; a planar joint with vx and omega gets a slide x, slide z and
hinge y, the first and last driven by stiff velocity actuators. Contacts: MuJoCo's
default soft constraints (solref 0.02 s, 1; solimp defaults), its default solver
(Newton) and pyramidal cones; one mj_step per `--timestep` (default 1 ms, the
communication step of the BBCC figures). Differences that remain: MuJoCo's contact is
soft-constrained, not Hunt-Crossley with E and zeta; box-box and mesh pairs give up to
eight points (BBCC one per convex part pair). Collision filtering: MuJoCo tests the
geoms of different bodies its broad phase finds, never two geoms of one body nor two
of the world body (the fixed ones), which is what the scenes' BBCC pairs list
(rover-rocks and -terrain, pile-pile, -surface and -terrain, wheel-rocks and -terrain).
"""
import argparse
import json
import math
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENES = {"rover": ("bbcc_rover_rocks", 2.0), "pile": ("bbcc_rock_pile", 4.0),
          "wheel": ("bbcc_wheel_rockfield", 0.0)}


def f(v):
    return " ".join(f"{x:.9g}" for x in v)


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]


# MuJoCo's cylinder axis is z; ours is y: turn it by -90 deg about x
CYL = [math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0]


class Translator:
    def __init__(self, cli, tmp):
        self.cli, self.tmp = cli, tmp
        self.meshes = {}  # request json -> mesh name
        self.assets = []

    def mesh(self, request):
        key = json.dumps(request, sort_keys=True)
        if key not in self.meshes:
            name = f"mesh{len(self.meshes)}"
            out = self.tmp / name
            out.mkdir()
            (out / "req.json").write_text(key)
            res = subprocess.run([self.cli, "asset", "json", str(out / "req.json"), "-o", str(out)],
                                 check=True, capture_output=True, text=True)
            obj = next(w for w in res.stdout.split() if w.endswith(".obj"))
            self.assets.append(f'<mesh name="{name}" file="{pathlib.Path(obj).resolve()}"/>')
            self.meshes[key] = name
        return self.meshes[key]

    def geoms(self, shape, pos, quat, mu):
        """MJCF geoms of a scenario shape at pos, quat (body frame)."""
        t = shape["type"]
        common = f'friction="{mu} 0.005 0.0001"'
        if t == "cuboid":
            return [f'<geom type="box" size="{f(s / 2 for s in shape["size"])}" pos="{f(pos)}" quat="{f(quat)}" {common}/>']
        if t == "sphere":
            return [f'<geom type="sphere" size="{shape["radius"]}" pos="{f(pos)}" {common}/>']
        if t == "cylinder":
            return [f'<geom type="cylinder" size="{shape["radius"]} {shape["height"] / 2}" pos="{f(pos)}" quat="{f(quat_mul(quat, CYL))}" {common}/>']
        if t == "compound":
            out = []
            for p in shape["parts"]:
                q = quat_mul(quat, p.get("orientation", [1, 0, 0, 0]))
                # rotate the part's position into the parent frame
                out += self.geoms(p["shape"], [a + b for a, b in zip(pos, rotate(quat, p.get("position", [0, 0, 0])))], q, mu)
            return out
        if t == "generated":
            return [f'<geom type="mesh" mesh="{self.mesh(shape["asset"])}" pos="{f(pos)}" quat="{f(quat)}" {common}/>']
        if t == "cuboid_grid":
            c = shape["cell"]
            out = []
            for j, row in enumerate(shape["heights"]):
                for i, h in enumerate(row):
                    centre = [pos[0] + (i + 0.5) * c, pos[1] + (j + 0.5) * c, pos[2] + h - 0.5]
                    out.append(f'<geom type="box" size="{c / 2} {c / 2} 0.5" pos="{f(centre)}" {common}/>')
            return out
        if t == "grouser_wheel":
            r, w, n, gh, gt = (shape[k] for k in ("radius", "width", "count", "grouser_height", "grouser_thickness"))
            out = self.geoms({"type": "cylinder", "radius": r, "height": w}, pos, quat, mu)
            inset = 0.25 * min(gh, r)
            radial = gh + inset
            centre = r - inset + 0.5 * radial
            for k in range(n):
                a = 2 * math.pi * k / n
                q = [math.cos(a / 2), 0.0, math.sin(a / 2), 0.0]
                p = [centre * math.sin(a), 0.0, centre * math.cos(a)]
                out.append(f'<geom type="box" size="{gt / 2} {w / 2} {radial / 2}" pos="{f(p)}" quat="{f(q)}" {common}/>')
            return out
        raise SystemExit(f"mujoco_scenes: no translation for shape {t}")


def rotate(q, v):
    w, x, y, z = q
    vq = quat_mul(quat_mul(q, [0.0, *v]), [w, -x, -y, -z])
    return vq[1:]


def mjcf(scenario, tr, timestep):
    body_xml, actuators = [], []
    world_geoms = []
    t = scenario["terrain"]
    if t.get("material"):
        world_geoms.append(f'<geom type="plane" size="0 0 1" pos="0 0 {t["surface"].get("height", 0.0)}" friction="{t["material"]["mu"]} 0.005 0.0001"/>')
    for b in scenario["bodies"]:
        m = b["motion"]
        mu = b["material"]["mu"]
        pos = m.get("position", [0, 0, 0])
        quat = m.get("orientation", [1, 0, 0, 0])
        if m["type"] == "fixed":
            world_geoms += tr.geoms(b["shape"], pos, quat, mu)
            continue
        geoms = "\n".join(tr.geoms(b["shape"], [0, 0, 0], [1, 0, 0, 0], mu))
        inertial = f'<inertial pos="0 0 0" mass="{m["mass"]}" diaginertia="{f(m["inertia"])}"/>'
        joint = m.get("joint")
        if joint is None:
            joints = f'<freejoint name="{b["name"]}"/>'
        else:
            joints = (f'<joint name="{b["name"]}_x" type="slide" axis="1 0 0"/>'
                      f'<joint name="{b["name"]}_z" type="slide" axis="0 0 1"/>'
                      f'<joint name="{b["name"]}_ry" type="hinge" axis="0 1 0"/>')
            mass = m["mass"]
            if "vx" in joint:
                actuators.append(f'<velocity joint="{b["name"]}_x" kv="{2000 * mass}"/>')
            if "omega" in joint:
                actuators.append(f'<velocity joint="{b["name"]}_ry" kv="{2000 * max(m["inertia"])}"/>')
        body_xml.append(f'<body name="{b["name"]}" pos="{f(pos)}" quat="{f(quat)}">{joints}{inertial}\n{geoms}</body>')
    g = scenario.get("gravity", [0, 0, -9.81])
    return f"""<mujoco model="{scenario['model_identifier']}">
<option timestep="{timestep}" gravity="{f(g)}"/>
<size memory="1G"/>
<asset>{''.join(tr.assets)}</asset>
<worldbody>
{chr(10).join(world_geoms)}
{chr(10).join(body_xml)}
</worldbody>
<actuator>{''.join(actuators)}</actuator>
</mujoco>"""


def run(key, timestep, cli):
    file, settle = SCENES[key]
    scenario = json.loads((ROOT / "examples" / f"{file}.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        tr = Translator(cli, pathlib.Path(tmp))
        xml = mjcf(scenario, tr, timestep)
        model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    # the planar joints' prescribed speeds
    ctrl = []
    for b in scenario["bodies"]:
        j = b["motion"].get("joint") if b["motion"]["type"] == "free" else None
        if j:
            ctrl += [j[k] for k in ("vx", "omega") if k in j]
    data.ctrl[:] = ctrl
    steps_per_ms = max(1, round(1e-3 / timestep))
    n_settle = round(settle / 1e-3)
    for _ in range(n_settle * steps_per_ms):
        mujoco.mj_step(model, data)
    # 10 s: blocks of 100 communication steps of 1 ms
    blocks, ncon = [], []
    for _ in range(100):
        t0 = time.perf_counter()
        for _ in range(100 * steps_per_ms):
            mujoco.mj_step(model, data)
            ncon.append(data.ncon)
        blocks.append((time.perf_counter() - t0) * 1e6 / 100)
    ke = 0.0
    mujoco.mj_energyPos(model, data)
    mujoco.mj_energyVel(model, data)
    ke = data.energy[1]
    med = statistics.median(blocks)
    phase = "settled" if settle > 0 else "driving"
    print(f"mujoco {key:6} {phase:8} timestep {timestep:.0e} s: {np.mean(ncon):7.1f} contacts/step, "
          f"{med:9.1f} us per 1 ms ({min(blocks):.1f}-{max(blocks):.1f}), real-time factor {1e3 / med:6.2f}; "
          f"{model.nbody - 1} bodies, {model.ngeom} geoms; kinetic energy {ke:.3e} J after {settle + 10:.0f} s")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenes", nargs="*", default=list(SCENES))
    ap.add_argument("--timestep", type=float, default=1e-3)
    ap.add_argument("--contact-fmu", default=str(ROOT / "target" / "release" / "contact-fmu"))
    a = ap.parse_args()
    print(f"MuJoCo {mujoco.__version__}")
    for key in a.scenes:
        run(key, a.timestep, a.contact_fmu)


if __name__ == "__main__":
    main()
