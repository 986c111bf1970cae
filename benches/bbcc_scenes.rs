//! BBCC at scale (issue 28; figures in docs/bbcc-at-scale.md): the three example scenes
//! of `examples/bbcc_scenes.py`, run in full in process.
//!
//! ```text
//! cargo bench --bench bbcc_scenes                 # all scenes, their scenario's model step
//! cargo bench --bench bbcc_scenes -- rover pile   # some of them
//! cargo bench --bench bbcc_scenes -- --step 2e-4  # another model step
//! cargo bench --bench bbcc_scenes -- --stability  # the model steps of the stability table
//! cargo bench --bench bbcc_scenes -- --set bbcc.impact_velocity_min=0.01  # a field changed
//! cargo bench --bench bbcc_scenes -- pile --settle 1  # only the first second, timed
//! cargo bench --bench bbcc_scenes -- --scaling  # 100 to 10,000 spheres in a self-paired raft
//! cargo bench --bench bbcc_scenes -- --scaling 10000  # one size
//! cargo bench --bench bbcc_scenes -- --stacks   # 24 stacks of two cubes: do they rest?
//! cargo bench --bench bbcc_scenes -- pile --save-settled /tmp/pile.state  # keep the settled state
//! cargo bench --bench bbcc_scenes -- pile --from-settled /tmp/pile.state  # the 10 s from it
//! cargo bench --bench bbcc_scenes -- pile --settle 1 --save-settled /tmp/a  # the state at 1 s
//! cargo bench --bench bbcc_scenes -- pile --trace 300  # then the liveliest body, step by step
//! ```
//!
//! Per scene: contacts per step (pairs of convex parts touching), µs per 1 ms
//! communication step (median of blocks of 100 steps, and the spread), µs per model
//! sub-step, the real-time factor, and the stability figures: kinetic energy at the end
//! of settling and its largest value over the next 10 s, the largest distance any body
//! moves over those 10 s (creep), the deepest penetration relative to the body's size.

use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::World;
use contact_fmu::models::bbcc::adapter::Bbcc;
use contact_fmu::models::bbcc::implicit_normal::SWEEPS_MAX;
use contact_fmu::scenario::{parse_str, Motion};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::Path;
use std::time::Instant;

const H: f64 = 1e-3;

/// A scene is settled once no free body has more kinetic energy than this, J (a 1 kg
/// rock at 1.4 mm/s; `--settled-ke J` sets another), checked each 0.5 s after its
/// `settle` seconds...
const SETTLED_KE: f64 = 1e-6;
/// ...for at most this many seconds more.
const SETTLE_MORE: f64 = 6.0;
/// The GUID the bench's saved states carry (`--save-settled`, `--from-settled`).
const STATE_GUID: &str = "bbcc_scenes bench";

#[derive(Clone, Copy)]
struct Scene {
    key: &'static str,
    file: &'static str,
    /// Simulated seconds before the settled measurement.
    settle: f64,
    /// Force pushing `push.0` along x after settling, N.
    push: Option<(&'static str, f64)>,
}

const SCENES: [Scene; 3] = [
    Scene {
        key: "rover",
        file: "bbcc_rover_rocks",
        settle: 2.0,
        push: Some(("rover", 150.0)),
    },
    Scene {
        key: "pile",
        file: "bbcc_rock_pile",
        settle: 4.0,
        push: None,
    },
    Scene {
        key: "wheel",
        file: "bbcc_wheel_rockfield",
        settle: 0.0,
        push: None,
    },
];

/// Value references and constants of one free body, for the kinetic energy and creep.
struct Probe {
    name: String,
    mass: f64,
    inertia: [f64; 3],
    /// r[3], q[4], v[3], w[3]
    vrs: [u32; 13],
    /// `<b>.penetration`
    depth: u32,
    /// Longest edge of the body's box, m.
    size: f64,
}

fn probes(w: &World, s: &contact_fmu::scenario::Scenario) -> Vec<Probe> {
    let t = w.table().clone();
    let vr = |n: String| t.by_name(&n).unwrap_or_else(|| panic!("no {n}")).vr;
    s.bodies
        .iter()
        .filter_map(|b| {
            let Motion::Free { mass, inertia, .. } = &b.motion else {
                return None;
            };
            let n = &b.name;
            let mut vrs = [0u32; 13];
            let names = [
                "r[1]", "r[2]", "r[3]", "q[1]", "q[2]", "q[3]", "q[4]", "v[1]", "v[2]", "v[3]",
                "w[1]", "w[2]", "w[3]",
            ];
            for (k, x) in names.iter().enumerate() {
                vrs[k] = vr(format!("{n}.{x}"));
            }
            let size = w
                .model::<Bbcc>()
                .map(|m| m.body_size(s.body_index(n).unwrap()))
                .unwrap_or(1.0);
            Some(Probe {
                name: n.clone(),
                mass: *mass,
                inertia: inertia.unwrap_or([1.0; 3]),
                vrs,
                depth: vr(format!("{n}.penetration")),
                size,
            })
        })
        .collect()
}

/// A body's kinetic energy (J) from its 13 state outputs (r, q, v, w in the world
/// frame): moving (0.5 m v^2) and turning (0.5 w^T I w, w in the body frame).
fn energy(b: &Probe, x: &[f64; 13]) -> (f64, f64) {
    let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(x[3], x[4], x[5], x[6]));
    let v = Vector3::new(x[7], x[8], x[9]);
    let wb = q.inverse() * Vector3::new(x[10], x[11], x[12]);
    let i = Vector3::from(b.inertia);
    (0.5 * b.mass * v.norm_squared(), 0.5 * wb.component_mul(&i).dot(&wb))
}

/// Per body: position, kinetic energy (J), penetration relative to its size.
fn sample(w: &mut World, p: &[Probe]) -> Vec<(Vector3<f64>, f64, f64)> {
    let mut x = [0.0; 13];
    let mut d = [0.0];
    p.iter()
        .map(|b| {
            w.get_reals(&b.vrs, &mut x).unwrap();
            w.get_reals(&[b.depth], &mut d).unwrap();
            let (moving, turning) = energy(b, &x);
            (Vector3::new(x[0], x[1], x[2]), moving + turning, d[0] / b.size)
        })
        .collect()
}

/// `--set a.b=x` overrides of scenario fields (JSON values), e.g.
/// `bbcc.impact_velocity_min=0.01`, `bbcc.semi_implicit=false`.
fn overrides() -> Vec<(String, serde_json::Value)> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .enumerate()
        .filter(|(_, a)| *a == "--set")
        .map(|(i, _)| {
            let (k, v) = args[i + 1].split_once('=').expect("--set FIELD=VALUE");
            (
                k.to_string(),
                serde_json::from_str(v).expect("--set FIELD=JSON"),
            )
        })
        .collect()
}

/// Applies the `--set` overrides to the scenario `v`.
fn set_overrides(v: &mut serde_json::Value) {
    for (path, x) in overrides() {
        let mut at = &mut *v;
        for key in path.split('.') {
            at = &mut at[key];
        }
        *at = x;
    }
}

fn world(scene: &Scene, step: Option<f64>) -> (World, contact_fmu::scenario::Scenario, f64) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let path = dir.join(format!("{}.json", scene.file));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    if let Some(h) = step {
        v["model_step"] = h.into();
    }
    set_overrides(&mut v);
    let model_step = v["model_step"].as_f64().unwrap_or(1e-4);
    let s = parse_str(&v.to_string(), &path.to_string_lossy()).unwrap();
    let mut w = World::new(&s, Some(&dir)).unwrap();
    w.exit_initialization().unwrap();
    (w, s, model_step)
}

/// Runs `seconds` of 1 ms steps; returns the µs per step of each block of 100 and the
/// mean contacts per step, or the step's error (the scene went unstable).
fn timed(w: &mut World, seconds: f64) -> Result<(Vec<f64>, f64), String> {
    let n = (seconds / H).round() as usize;
    let mut blocks = vec![];
    let mut contacts = 0usize;
    let counts = w.adaptive_counts();
    // bbcc.implicit_normal: sweeps, solves that took all of them, rows, solves, row
    // updates, rows left out
    let mut implicit = (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    let mut t = Instant::now();
    for k in 0..n {
        w.do_step(H)
            .map_err(|e| format!("unstable at t = {:.3} s: {e}", w.time()))?;
        contacts += w.model::<Bbcc>().unwrap().contact_count();
        let stats = w.model::<Bbcc>().unwrap().implicit_stats();
        if stats.rows > 0 {
            implicit.0 += stats.sweeps;
            implicit.1 += usize::from(stats.sweeps == SWEEPS_MAX);
            implicit.2 += stats.rows;
            implicit.3 += 1;
            implicit.4 += stats.visits;
            implicit.5 += stats.dropped;
        }
        if (k + 1) % 100 == 0 {
            blocks.push(t.elapsed().as_secs_f64() * 1e6 / 100.0);
            t = Instant::now();
        }
    }
    let (taken, again) = w.adaptive_counts();
    if taken > counts.0 {
        // bbcc.adaptive_step
        println!(
            "         adaptive sub-steps over these {seconds} s: {:.2} per 1 ms step, {:.2} taken again shorter",
            (taken - counts.0) as f64 / n as f64,
            (again - counts.1) as f64 / n as f64
        );
    }
    if implicit.3 > 0 {
        let solves = implicit.3 as f64;
        println!(
            "         implicit solves over these {seconds} s: {:.1} sweeps, {:.0} rows and {:.1} updates per row each, {:.1} % at the {SWEEPS_MAX} sweeps' limit, {:.2} rows left out per solve",
            implicit.0 as f64 / solves,
            implicit.2 as f64 / solves,
            implicit.4 as f64 / implicit.2 as f64,
            100.0 * implicit.1 as f64 / solves,
            implicit.5 as f64 / solves
        );
    }
    Ok((blocks, contacts as f64 / n as f64))
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn report(key: &str, phase: &str, model_step: f64, blocks: &[f64], contacts: f64) {
    if blocks.is_empty() {
        // under 100 steps: nothing timed
        return;
    }
    let sub = (H / model_step).ceil();
    let m = median(blocks);
    let (lo, hi) = blocks
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    println!(
        "{key:6} {phase:8} model step {model_step:.0e} s: {contacts:7.1} contacts/step, {m:9.1} us per 1 ms step ({lo:.1}-{hi:.1}), {:7.2} us per sub-step, real-time factor {:6.2}",
        m / sub,
        1e3 / m
    );
}

/// Settles, measures the settled (and pushed) scene, and the 10 s after settling.
fn run(scene: &Scene, step: Option<f64>, stability_only: bool) {
    let args: Vec<String> = std::env::args().collect();
    let settle = args
        .iter()
        .position(|a| a == "--settle")
        .map(|i| args[i + 1].parse::<f64>().expect("--settle SECONDS"));
    let only_settle = settle.is_some();
    let scene = &Scene {
        settle: settle.unwrap_or(scene.settle),
        ..*scene
    };
    if only_settle {
        // the settling phase only, timed
        let (mut w, _, model_step) = world(scene, step);
        if let Some(i) = args.iter().position(|a| a == "--from-settled") {
            // on from a kept state
            let bytes = std::fs::read(&args[i + 1]).expect("--from-settled FILE");
            let (_, d) = contact_fmu::cosim::snapshot::decode(STATE_GUID, &bytes).unwrap();
            let d = w.adopt(d).unwrap();
            w.restore(&d).unwrap();
        }
        match timed(&mut w, scene.settle) {
            Ok((b, c)) => report(scene.key, "settling", model_step, &b, c),
            Err(e) => println!("{:6} {e}", scene.key),
        }
        // the state after it (`--save-settled`): compare runs bit for bit
        if let Some(i) = args.iter().position(|a| a == "--save-settled") {
            let bytes = contact_fmu::cosim::snapshot::encode(STATE_GUID, 0, &w.snapshot());
            std::fs::write(&args[i + 1], bytes).expect("--save-settled FILE");
        }
        return;
    }
    if let Err(e) = try_run(scene, step, stability_only) {
        println!(
            "{:6} stability model step {:.0e} s: {e}",
            scene.key,
            step.unwrap_or(f64::NAN)
        );
    }
}

/// The settling bound: `--settled-ke J`, or [`SETTLED_KE`].
fn settled_ke() -> f64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--settled-ke")
        .map_or(SETTLED_KE, |i| {
            args[i + 1].parse().expect("--settled-ke JOULES")
        })
}

fn try_run(scene: &Scene, step: Option<f64>, stability_only: bool) -> Result<(), String> {
    let (mut w, s, model_step) = world(scene, step);
    let p = probes(&w, &s);
    let t0 = Instant::now();
    let settled_ke = settled_ke();
    // settled: `scene.settle` seconds, then until the kinetic energy is below the bound
    let mut settled_at = 0.0;
    let arg = |name: &str| {
        let args: Vec<String> = std::env::args().collect();
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    if let Some(file) = arg("--from-settled") {
        // the settled state of an earlier run (the same scenario and overrides)
        let bytes = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
        let (_, d) = contact_fmu::cosim::snapshot::decode(STATE_GUID, &bytes)?;
        let d = w.adopt(d)?;
        w.restore(&d)?;
        settled_at = w.time();
    } else if scene.settle > 0.0 {
        let (mut blocks, contacts) = timed(&mut w, scene.settle)?;
        let mut contact_steps = contacts * scene.settle;
        settled_at = scene.settle;
        let largest = |x: &[(Vector3<f64>, f64, f64)]| x.iter().map(|b| b.1).fold(0.0, f64::max);
        while largest(&sample(&mut w, &p)) > settled_ke && settled_at < scene.settle + SETTLE_MORE {
            let (b, c) = timed(&mut w, 0.5)?;
            blocks.extend(b);
            contact_steps += c * 0.5;
            settled_at += 0.5;
        }
        if !stability_only {
            report(
                scene.key,
                "settling",
                model_step,
                &blocks,
                contact_steps / settled_at,
            );
        }
    }
    let settle_wall = t0.elapsed().as_secs_f64();
    if let Some(file) = arg("--save-settled") {
        let bytes = contact_fmu::cosim::snapshot::encode(STATE_GUID, 0, &w.snapshot());
        std::fs::write(&file, bytes).map_err(|e| format!("{file}: {e}"))?;
    }
    let start = sample(&mut w, &p);
    let ke0: f64 = start.iter().map(|x| x.1).sum();
    let ke0_body = start.iter().map(|x| x.1).fold(0.0, f64::max);
    // the liveliest body: name and mass
    let lively = start
        .iter()
        .position(|x| x.1 == ke0_body)
        .map_or(String::new(), |k| format!("{} of {:.3} kg", p[k].name, p[k].mass));
    // 10 s more: the settled (or driving) scene
    let mut ke_max = 0.0f64;
    // the largest one body's energy at the end of each second
    let mut ke_body_max = 0.0f64;
    let mut depth_max = 0.0f64;
    let mut creep = 0.0f64;
    let mut creeper = String::new();
    let mut all_blocks = vec![];
    let mut all_contacts = 0.0;
    // each body's largest distance from where it was when settled, sampled each
    // second over the 10 s, and its move over the last second
    let mut moved = vec![0.0f64; start.len()];
    // each body's distance from where it settled at the end of each second
    let mut path = vec![[0.0f64; 10]; start.len()];
    let mut last_second = 0.0f64;
    let mut before = start.clone();
    for second in 0..10 {
        let (b, c) = timed(&mut w, 1.0)?;
        all_blocks.extend(b);
        all_contacts += c / 10.0;
        let now = sample(&mut w, &p);
        ke_max = ke_max.max(now.iter().map(|x| x.1).sum());
        ke_body_max = ke_body_max.max(now.iter().map(|x| x.1).fold(0.0, f64::max));
        for (k, (a, b)) in start.iter().zip(&now).enumerate() {
            depth_max = depth_max.max(b.2);
            let d = (b.0 - a.0).norm();
            moved[k] = moved[k].max(d);
            path[k][second] = d;
            if d > creep {
                creep = d;
                creeper = p[k].name.clone();
            }
            if second == 9 {
                last_second = last_second.max((b.0 - before[k].0).norm());
            }
        }
        before = now;
        if !ke_max.is_finite() || ke_max > 1e6 {
            println!("{:6} unstable after {} s", scene.key, second + 1);
            break;
        }
    }
    if let Some(steps) = arg("--trace") {
        // the liveliest body step by step after the 10 s (`--trace STEPS`): its
        // translational and rotational energy, velocities and position
        let steps: usize = steps.parse().map_err(|_| "--trace STEPS".to_string())?;
        let now = sample(&mut w, &p);
        let top = now.iter().map(|x| x.1).fold(0.0, f64::max);
        let k = now.iter().position(|x| x.1 == top).unwrap_or(0);
        let b = &p[k];
        println!("trace {} of {:.3} kg, inertia {:?} kg m^2", b.name, b.mass, b.inertia);
        let mut x = [0.0; 13];
        for step in 0..steps {
            timed(&mut w, H)?;
            w.get_reals(&b.vrs, &mut x).map_err(|e| e.to_string())?;
            let (moving, turning) = energy(b, &x);
            println!(
                "trace {step:4}: {moving:.3e} J moving, {turning:.3e} J turning; v {:+.2e} {:+.2e} {:+.2e} m/s, w {:+.2e} {:+.2e} {:+.2e} rad/s; at {:.6} {:.6} {:.6} m",
                x[7], x[8], x[9], x[10], x[11], x[12], x[0], x[1], x[2]
            );
        }
    }
    if !stability_only {
        report(
            scene.key,
            if scene.settle > 0.0 {
                "settled"
            } else {
                "driving"
            },
            model_step,
            &all_blocks,
            all_contacts,
        );
    }
    let over = |x: f64| moved.iter().filter(|&&d| d > x).count();
    println!(
        "{:6} stability model step {model_step:.0e} s: kinetic energy {ke0:.3e} J (a body at most {ke0_body:.1e} J: {lively}) after {} s (settled: at least {} s, then until no body has over {:.0e} J, at most {SETTLE_MORE} s more), at most {ke_max:.3e} J over the next 10 s (a body at most {ke_body_max:.1e} J, sampled each second); largest move {creep:.3e} m ({creeper}), {} of {} bodies over 1 mm, {} over 1 cm, in the last second at most {last_second:.3e} m; deepest penetration {:.2} % of a body's size ({:.0} s wall for settling)",
        scene.key,
        settled_at,
        scene.settle,
        settled_ke,
        over(1e-3),
        moved.len(),
        over(1e-2),
        100.0 * depth_max,
        settle_wall
    );
    // the bodies over 1 mm, largest first
    let mut over_1mm: Vec<(f64, usize)> = moved
        .iter()
        .enumerate()
        .filter(|(_, d)| **d > 1e-3)
        .map(|(k, d)| (*d, k))
        .collect();
    over_1mm.sort_by(|a, b| b.0.total_cmp(&a.0));
    if !over_1mm.is_empty() {
        let list: Vec<String> = over_1mm
            .iter()
            .take(10)
            .map(|(d, k)| format!("{} {:.1} mm", p[*k].name, d * 1e3))
            .collect();
        println!("{:6} over 1 mm: {}", scene.key, list.join(", "));
        // when they moved: a slip that stops, or a creep that goes on (not for a
        // scene that drives from the start)
        for (_, k) in over_1mm.iter().take(if scene.settle > 0.0 { 5 } else { 0 }) {
            let mm: Vec<String> = path[*k].iter().map(|d| format!("{:.2}", d * 1e3)).collect();
            println!(
                "{:6} {} from where it settled at the end of each second, mm: {}",
                scene.key,
                p[*k].name,
                mm.join(" ")
            );
        }
    }
    if let (Some((body, f)), false) = (scene.push, stability_only) {
        let vr = w.table().by_name(&format!("{body}.f_ext[1]")).unwrap().vr;
        w.set_reals(&[vr], &[f], Phase::Stepping).unwrap();
        let (b, c) = timed(&mut w, 1.0)?;
        report(scene.key, "pushed", model_step, &b, c);
    }
    Ok(())
}

/// Broad-phase scaling: about `n` spheres (r = 5 cm, 1 kg) in two layers, the lower
/// one side by side on the ground, the upper one in its hollows (each touching four
/// below), all in one self-paired collection (n (n - 1) / 2 listed pairs). Prints µs
/// per sub-step for each n after 0.2 s of settling.
fn scaling(ns: &[usize]) {
    for &n in ns {
        // side^2 + (side - 1)^2 = n
        let side = ((n as f64 / 2.0).sqrt() + 0.5).round() as usize;
        let mat = serde_json::json!({"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5});
        let mut bodies: Vec<serde_json::Value> = vec![];
        for (layer, m, off, z) in [(0, side, 0.0, 0.05), (1, side - 1, 0.05, 0.05 + 0.0707)] {
            for k in 0..m * m {
                bodies.push(serde_json::json!({"name": format!("s{layer}_{k}"), "group": "raft", "material": mat,
                    "shape": {"type": "sphere", "radius": 0.05},
                    "motion": {"type": "free", "mass": 1.0,
                        "position": [off + 0.1 * (k % m) as f64, off + 0.1 * (k / m) as f64, z]}}));
            }
        }
        let n = bodies.len();
        let v = serde_json::json!({
            "name": "raft", "model_identifier": "raft",
            "default_experiment": {"stop_time": 1.0, "step_size": 0.001}, "model_step": 1e-4,
            "terrain": {"surface": {"type": "flat"}, "material": mat},
            "bodies": bodies,
            "bbcc": {"impact_velocity_min": 0.5, "pairs": [["raft", "raft"], ["raft", "terrain"]]}
        });
        let s = match parse_str(&v.to_string(), "raft") {
            Ok(s) => s,
            Err(e) => {
                println!(
                    "scaling {n:6} bodies: refused: {}",
                    e.to_string().lines().nth(1).unwrap_or("")
                );
                continue;
            }
        };
        let mut w = World::new(&s, None).unwrap();
        w.exit_initialization().unwrap();
        let _ = timed(&mut w, 0.2);
        match timed(&mut w, 0.3) {
            Ok((b, c)) => {
                let m = median(&b);
                let (broad, _) = w.model::<Bbcc>().unwrap().contact_stats();
                println!(
                    "scaling {n:6} bodies: {c:8.1} contacts/step, {broad:7} candidate pairs, {:8.2} us per sub-step, {:.3} us per contact",
                    m / 10.0,
                    m / 10.0 / c
                );
            }
            Err(e) => println!("scaling {n:6} bodies: {e}"),
        }
    }
}

/// Two 10 cm cubes of 1 kg stacked, the upper one off the lower's centre, on a plane
/// inclined at `deg` (`bbcc.stick`, semi-implicit, the model step `step`; `--set`
/// applies): after 2 s, over 2 s more, the largest speed of either (m/s) and the
/// largest distance either moved (m). A stack at rest has neither; the contact patch's
/// rocking limit cycle (docs/bbcc-at-scale.md) shows in both.
fn stack(deg: f64, offset: f64, step: f64) -> Result<(f64, f64), String> {
    let a = deg.to_radians();
    let mat = serde_json::json!({"E": 1e8, "nu": 0.3, "zeta": 0.5, "mu": 0.6});
    // along the slope (x') and up from it (z'), world frame
    let at = |x: f64, z: f64| [x * a.cos() - z * a.sin(), 0.0, x * a.sin() + z * a.cos()];
    let cube = |name: &str, x: f64, z: f64| {
        serde_json::json!({"name": name, "material": mat,
            "shape": {"type": "cuboid", "size": [0.1, 0.1, 0.1]},
            "motion": {"type": "free", "mass": 1.0, "inertia": [1.0 / 600.0, 1.0 / 600.0, 1.0 / 600.0],
                "position": at(x, z), "orientation": [(a / 2.0).cos(), 0.0, -(a / 2.0).sin(), 0.0]}})
    };
    let mut v = serde_json::json!({
        "name": "stack", "model_identifier": "stack",
        "default_experiment": {"stop_time": 4.0, "step_size": H}, "model_step": step,
        "terrain": {"surface": {"type": "inclined", "angle": a}, "material": mat},
        "bodies": [cube("lower", 0.0, 0.05 - 2e-5), cube("upper", offset, 0.15 - 4e-5)],
        "bbcc": {"semi_implicit": true, "stick": true,
            "pairs": [["lower", "terrain"], ["upper", "lower"]]}
    });
    set_overrides(&mut v);
    let s = parse_str(&v.to_string(), "stack").map_err(|e| e.to_string())?;
    let mut w = World::new(&s, None).map_err(|e| e.to_string())?;
    w.exit_initialization().map_err(|e| e.to_string())?;
    let vrs: Vec<u32> = ["lower", "upper"]
        .iter()
        .flat_map(|b| ["r", "v"].map(|q| (1..=3).map(move |k| format!("{b}.{q}[{k}]"))))
        .flatten()
        .map(|name| w.table().by_name(&name).unwrap().vr)
        .collect();
    let mut x = vec![0.0; vrs.len()];
    let mut start = None;
    let (mut speed, mut moved) = (0.0f64, 0.0f64);
    for k in 0..4000 {
        w.do_step(H)
            .map_err(|e| format!("unstable at t = {:.3} s: {e}", w.time()))?;
        if k < 1999 {
            continue;
        }
        w.get_reals(&vrs, &mut x).map_err(|e| e.to_string())?;
        // per body: r then v
        let at = |b: usize, q: usize| {
            Vector3::new(x[6 * b + 3 * q], x[6 * b + 3 * q + 1], x[6 * b + 3 * q + 2])
        };
        let first = *start.get_or_insert([at(0, 0), at(1, 0)]);
        for (b, first) in first.iter().enumerate() {
            speed = speed.max(at(b, 1).norm());
            moved = moved.max((at(b, 0) - first).norm());
        }
    }
    Ok((speed, moved))
}

/// `--stacks`: [`stack`] over slopes of 0, 10 and 20 degrees and offsets of 0.5 to
/// 4 cm; how many of the 24 rest (speed below 1e-5 m/s), the median and largest speed,
/// the largest move. Seconds to run, where the pile takes minutes.
fn stacks(step: f64) {
    let (mut speeds, mut rest, mut moved) = (vec![], 0, 0.0f64);
    for deg in [0.0, 10.0, 20.0] {
        for k in 1..=8 {
            let offset = 0.005 * k as f64;
            match stack(deg, offset, step) {
                Ok((v, d)) => {
                    println!("stack {deg:4.0} deg, offset {:4.1} cm: speed up to {v:.2e} m/s, moved {d:.2e} m", offset * 100.0);
                    rest += usize::from(v < 1e-5);
                    moved = moved.max(d);
                    speeds.push(v);
                }
                Err(e) => println!("stack {deg:4.0} deg, offset {:4.1} cm: {e}", offset * 100.0),
            }
        }
    }
    let largest = speeds.iter().cloned().fold(0.0, f64::max);
    println!(
        "stacks model step {step:e} s: {rest} of {} at rest, speed median {:.2e} m/s, largest {largest:.2e} m/s, largest move {moved:.2e} m",
        speeds.len(),
        median(&speeds)
    );
}

fn main() {
    if std::env::args().any(|a| a == "--scaling") {
        // `--scaling 10000`: only these sizes
        let sizes: Vec<usize> = std::env::args().filter_map(|a| a.parse().ok()).collect();
        scaling(if sizes.is_empty() {
            &[100, 1000, 3000, 10000]
        } else {
            &sizes
        });
        return;
    }
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let step = args
        .iter()
        .position(|a| a == "--step")
        .map(|i| args[i + 1].parse::<f64>().expect("--step SECONDS"));
    let stability = args.iter().any(|a| a == "--stability");
    if args.iter().any(|a| a == "--stacks") {
        stacks(step.unwrap_or(5e-4));
        return;
    }
    let chosen: Vec<&Scene> = SCENES
        .iter()
        .filter(|s| {
            !args.iter().any(|a| SCENES.iter().any(|x| x.key == a))
                || args.iter().any(|a| a == s.key)
        })
        .collect();
    for scene in chosen {
        if stability {
            for h in [1e-4, 2e-4, 3e-4, 5e-4, 7e-4, 1e-3] {
                run(scene, Some(h), true);
            }
        } else {
            run(scene, step, false);
        }
    }
}
