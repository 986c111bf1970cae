//! BBCC verification (Buse 2023, section 4.1.2, Fig. 4 to 8) through the packaged FMUs
//! and the FMI C API: the Table 1 cylinder (r = 0.5 m, h = 1 m, m = 1 kg,
//! I = 0.25 kg m^2, E = 4.5e5 Pa, nu = 0.4, zeta = 0.6, mu = 0.4) against a ground
//! cuboid; a tower of cuboids; energy with zeta = 1.

mod common;

use common::*;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{Common, InstanceCS};
use fmi::traits::FmiStatus;

const G: f64 = 9.81;

/// Runs `inst` from 0 to `t_end` in steps of `h`, calling `each(t, inst)` after every step.
fn run(inst: &mut InstanceCS, h: f64, t_end: f64, mut each: impl FnMut(f64, &mut InstanceCS)) {
    let n = (t_end / h).round() as usize;
    for k in 0..n {
        step(inst, k as f64 * h, h);
        each((k + 1) as f64 * h, inst);
    }
}

fn started(import: &Fmi2Import, reals: &[(&str, f64)], bools: &[(&str, bool)]) -> InstanceCS {
    let mut inst = import.instantiate_cs("bbcc", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    for (n, v) in reals {
        Common::set_real(&mut inst, &[vr(import, n)], &[*v]).unwrap();
    }
    for (n, v) in bools {
        Common::set_boolean(&mut inst, &[vr(import, n)], &[*v as i32]).unwrap();
    }
    Common::exit_initialization_mode(&mut inst).unwrap();
    inst
}

#[test]
fn impact_fig_4_leaves_at_the_incoming_angle_with_the_speed_reduced_by_restitution() {
    let (_dir, fmu) = package_example("bbcc_impact");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    run(&mut inst, 1e-2, 1.0, |_, _| {});
    let v = get(&mut inst, &vrs(&import, "cylinder.v", 3));
    let w = get(&mut inst, &vrs(&import, "cylinder.w", 3));
    // zero gravity: the incoming velocity is (1, 0, -1), 45 deg from the normal
    assert!(v[2] > 0.0, "it bounced: {v:?}");
    // Normal: the outgoing normal speed is zeta times the incoming one, within the
    // paper's "acceptable tolerance" (Flores-Lankarani damping is exact for zeta -> 1).
    assert!((v[2] - 0.6).abs() < 0.06, "normal restitution {}", v[2]);
    // Tangential: friction (mu = 0.4) makes the free cylinder roll off the ground
    // (v_x = omega r); for I = m r^2 that halves v_x.
    assert!(
        (v[0] - 0.5 * w[1]).abs() < 5e-3 * v[0] && (v[0] - 0.5).abs() < 0.01,
        "rolling exit: v {v:?}, w {w:?}"
    );
    // Outgoing angle: atan(0.5 / zeta) = 39.8 deg in theory, 45 deg incoming.
    let angle = v[0].atan2(v[2]).to_degrees();
    assert!(
        (angle - (0.5f64 / 0.6).atan().to_degrees()).abs() < 1.5 && (angle - 45.0).abs() < 6.0,
        "outgoing angle {angle} deg"
    );
    let speed_ratio = (v[0] * v[0] + v[2] * v[2]).sqrt() / 2f64.sqrt();
    assert!(
        speed_ratio > 0.5 && speed_ratio < 0.6,
        "speed ratio {speed_ratio} (zeta 0.6)"
    );
}

#[test]
fn sliding_fig_5_decelerates_at_mu_g_until_rest() {
    let (_dir, fmu) = package_example("bbcc_sliding");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    let (x, vx) = (vr(&import, "cylinder.r[1]"), vr(&import, "cylinder.v[1]"));
    let mut samples = vec![];
    run(&mut inst, 1e-2, 1.0, |t, inst| {
        samples.push((t, get(inst, &[x, vx])))
    });
    let at = |t: f64| {
        samples
            .iter()
            .find(|s| (s.0 - t).abs() < 1e-9)
            .unwrap()
            .1
            .clone()
    };
    let decel = (at(0.1)[1] - at(0.4)[1]) / 0.3;
    assert!(
        (decel - 0.4 * G).abs() < 0.01 * 0.4 * G,
        "deceleration {decel} vs mu g {}",
        0.4 * G
    );
    let stop = 4.0 / (2.0 * 0.4 * G);
    assert!(
        (at(1.0)[0] - stop).abs() < 0.01 * stop,
        "stopping distance {} vs {stop}",
        at(1.0)[0]
    );
    assert!(at(1.0)[1].abs() < 1e-3, "at rest: {}", at(1.0)[1]);
}

#[test]
fn rolling_fig_6_three_energy_splits_end_rolling_with_small_equal_losses() {
    let (_dir, fmu) = package_example("bbcc_rolling");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    let names = ["translational.v[1]", "rotational.v[1]", "equal.v[1]"];
    let v = names.map(|n| vr(&import, n));
    let mut at2 = vec![];
    run(&mut inst, 1e-2, 5.0, |t, inst| {
        if (t - 2.0).abs() < 1e-9 {
            at2 = get(inst, &v);
        }
    });
    let at5 = get(&mut inst, &v);
    // translational only and rotational only convert to rolling at v r / (r + I/(m r)) = 1 m/s
    assert!(
        (at2[0] - 1.0).abs() < 0.01 && (at2[1] - 1.0).abs() < 0.01,
        "{at2:?}"
    );
    // the equal split already rolls at sqrt(2) m/s and keeps its energy
    assert!((at2[2] - 2f64.sqrt()).abs() < 0.01, "{at2:?}");
    // afterwards: small and equal rolling losses (here none beyond 1e-3 m/s in 3 s)
    let losses: Vec<f64> = (0..3).map(|k| at2[k] - at5[k]).collect();
    assert!(
        losses.iter().all(|l| l.abs() < 1e-3),
        "rolling losses {losses:?}"
    );
}

#[test]
fn incline_fig_7_stick_below_arctan_mu_slide_above_roll_at_g_sin_over_two() {
    let (_dir, fmu) = package_example("bbcc_incline");
    let import = load(&fmu);
    let r = 0.5 - 5.8e-4; // resting centre distance above the plane
    let cases = [(15f64, true), (30.0, true), (30.0, false)];
    for (deg, locked) in cases {
        let i = deg.to_radians();
        let mut inst = started(
            &import,
            &[
                ("ground.incline", i),
                ("cylinder.r0[1]", -r * i.sin()),
                ("cylinder.r0[3]", r * i.cos()),
            ],
            &[("cylinder.locked", locked)],
        );
        let vx = vr(&import, "cylinder.v[1]");
        let mut v05 = 0.0;
        run(&mut inst, 1e-2, 2.0, |t, inst| {
            if (t - 0.5).abs() < 1e-9 {
                v05 = get(inst, &[vx])[0];
            }
        });
        let v2 = get(&mut inst, &[vx])[0];
        // speed along the slope (downhill is -x)
        let along = |v: f64| -v / i.cos();
        let accel = (along(v2) - along(v05)) / 1.5;
        if locked && deg < 21.8 {
            // sticks: creeps only at about v_d (0.01 m/s)
            assert!(
                along(v2) < 0.01 && accel.abs() < 1e-3,
                "{deg} deg locked: v {} a {accel}",
                along(v2)
            );
        } else if locked {
            let expected = G * (i.sin() - 0.4 * i.cos());
            assert!(
                (accel - expected).abs() < 0.01 * expected,
                "{deg} deg locked: a {accel} vs {expected}"
            );
        } else {
            let expected = G * i.sin() / 2.0; // 1 + I/(m r^2) = 2
            assert!(
                (accel - expected).abs() < 0.01 * expected,
                "{deg} deg free: a {accel} vs {expected}"
            );
        }
    }
}

#[test]
fn spinning_fig_8_spin_about_the_normal_decays_to_near_zero() {
    let (_dir, fmu) = package_example("bbcc_spinning");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    let wz = vr(&import, "cylinder.w[3]");
    let mut last = 1.0;
    run(&mut inst, 1e-2, 60.0, |_, inst| {
        let w = get(inst, &[wz])[0];
        assert!(w <= last + 1e-12, "the spin only decays");
        last = w;
    });
    // 1 rad/s -> under 5 % (energy under 0.25 %)
    assert!((0.0..0.05).contains(&last), "spin after 60 s: {last}");
}

#[test]
fn stacking_a_tower_of_five_cuboids_stands_for_10_s() {
    let (_dir, fmu) = package_example("bbcc_stacking");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    let pos: Vec<u32> = (1..=5)
        .flat_map(|i| vrs(&import, &format!("c{i}.r"), 3))
        .collect();
    let mut settled = vec![];
    run(&mut inst, 1e-2, 10.0, |t, inst| {
        if (t - 1.0).abs() < 1e-9 {
            settled = get(inst, &pos);
        }
    });
    let end = get(&mut inst, &pos);
    let moved = end
        .iter()
        .zip(&settled)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(moved < 1e-3, "largest move after settling: {moved} m");
    assert!(
        end[14] > 0.89,
        "the top cube is still on top: z = {}",
        end[14]
    );
}

#[test]
fn energy_an_elastic_bounce_keeps_its_energy_and_zeta_near_zero_comes_to_rest() {
    let (_dir, fmu) = package_example("bbcc_bounce");
    let import = load(&fmu);
    let outs: Vec<u32> = [
        "cylinder.r[3]",
        "cylinder.v[1]",
        "cylinder.v[2]",
        "cylinder.v[3]",
        "cylinder.w[1]",
        "cylinder.w[2]",
        "cylinder.w[3]",
    ]
    .iter()
    .map(|n| vr(&import, n))
    .collect();
    let contact = vr(&import, "cylinder.contact");
    let energy = |s: &[f64]| {
        G * (s[0] - 0.5)
            + 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3])
            + 0.5 * 0.25 * (s[4] * s[4] + s[5] * s[5] + s[6] * s[6])
    };
    // zeta = 1: energy after each impact (above the touch-down height)
    let mut inst = started(&import, &[], &[]);
    let mut was = false;
    let mut after_impacts = vec![];
    let e0 = energy(&get(&mut inst, &outs));
    run(&mut inst, 1e-3, 3.0, |_, inst| {
        let mut c = [0];
        Common::get_boolean(inst, &[contact], &mut c).unwrap();
        if was && c[0] == 0 {
            after_impacts.push(energy(&get(inst, &outs)));
        }
        was = c[0] != 0;
    });
    assert!(after_impacts.len() >= 3, "bounces: {after_impacts:?}");
    let mut before = e0;
    for e in &after_impacts {
        assert!((before - e) / before < 0.02, "energy {before} -> {e}");
        before = *e;
    }
    // zeta near 0: it stays on the ground
    let mut inst = started(
        &import,
        &[("cylinder.zeta", 0.01), ("ground.zeta", 0.01)],
        &[],
    );
    run(&mut inst, 1e-2, 3.0, |_, _| {});
    let end = get(&mut inst, &outs);
    assert!(
        end[3].abs() < 1e-3 && end[0] < 0.5,
        "at rest on the ground: {end:?}"
    );
}

#[test]
fn a_scene_with_body_pairs_continues_bit_identically_from_a_serialized_state() {
    use fmi::fmi2::instance::CoSimulation;
    let (_dir, fmu) = package_example("bbcc_stacking");
    let import = load(&fmu);
    let mut inst = started(&import, &[], &[]);
    let pos: Vec<u32> = (1..=5)
        .flat_map(|i| vrs(&import, &format!("c{i}.r"), 3))
        .collect();
    let trace = |inst: &mut InstanceCS, from: usize| -> Vec<Vec<u64>> {
        (from..from + 200)
            .map(|k| {
                CoSimulation::do_step(inst, k as f64 * 1e-3, 1e-3, true).unwrap();
                get(inst, &pos).iter().map(|x| x.to_bits()).collect()
            })
            .collect()
    };
    trace(&mut inst, 0);
    let saved = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&saved).unwrap();
    let expected = trace(&mut inst, 200);
    assert!(inst.set_fmu_state(&saved).ok().is_ok());
    assert_eq!(trace(&mut inst, 200), expected);
    let mut other = started(&import, &[], &[]);
    let restored = other.deserialize_fmu_state(&bytes).unwrap();
    assert!(other.set_fmu_state(&restored).ok().is_ok());
    assert_eq!(trace(&mut other, 200), expected);
}

#[test]
fn a_collection_paired_with_itself_stacks_its_members() {
    // issue 28's piles: `["pile", "pile"]` lets every member touch every other. Three
    // spheres (r = 0.1 m, 1 kg) dropped in a column come to rest on each other at
    // heights r, 3r, 5r less the Hunt-Crossley overlaps. Without the self-pair they fall
    // through each other onto the ground.
    use contact_fmu::cosim::World;
    let scenario = |self_pair: bool| {
        let mut pairs = vec![serde_json::json!(["pile", "terrain"])];
        if self_pair {
            pairs.push(serde_json::json!(["pile", "pile"]));
        }
        let bodies: Vec<serde_json::Value> = (0..3)
            .map(|i| {
                serde_json::json!({"name": format!("s{i}"), "group": "pile",
                    "shape": {"type": "sphere", "radius": 0.1},
                    "material": {"E": 1e8, "nu": 0.3, "zeta": 0.8, "mu": 0.5},
                    "motion": {"type": "free", "mass": 1.0,
                        "position": [0.0, 0.0, 0.11 + 0.21 * i as f64]}})
            })
            .collect();
        let text = serde_json::json!({"name": "pile", "model_identifier": "pile",
            "default_experiment": {"stop_time": 2.0, "step_size": 0.001}, "model_step": 1e-4,
            "terrain": {"surface": {"type": "flat"},
                "material": {"E": 1e8, "nu": 0.3, "zeta": 0.8, "mu": 0.5}},
            "bodies": bodies, "bbcc": {"pairs": pairs}})
        .to_string();
        contact_fmu::scenario::parse_str(&text, "pile.json").unwrap()
    };
    let heights = |self_pair: bool| {
        let mut w = World::new(&scenario(self_pair), None).unwrap();
        w.enter_initialization();
        w.exit_initialization().unwrap();
        for _ in 0..2000 {
            w.do_step(1e-3).unwrap();
        }
        (0..3)
            .map(|i| world_get(&mut w, &format!("s{i}.r[3]")))
            .collect::<Vec<f64>>()
    };
    let z = heights(true);
    for (i, z) in z.iter().enumerate() {
        let rest = 0.1 + 0.2 * i as f64;
        // overlaps: about 0.3 mm per contact under up to 3 kg at E = 1e8 Pa
        assert!(
            (z - rest).abs() < 2e-3,
            "sphere {i} at {z} m, not near {rest} m"
        );
    }
    let apart = heights(false);
    assert!(apart.iter().all(|z| *z < 0.15), "{apart:?}");
    // a body with itself stays refused
    let mut one = scenario(false);
    one.bbcc
        .as_mut()
        .unwrap()
        .pairs
        .push(["s0".into(), "s0".into()]);
    let text = serde_json::to_string(&one).unwrap();
    let e = contact_fmu::scenario::parse_str(&text, "p.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("a body cannot be paired with itself ('s0')"),
        "{e}"
    );
}
