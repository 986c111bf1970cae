//! TerRA verification (Barthelmes 2018) through the packaged FMU and the FMI C API:
//! the qualitative single-wheel test of section 4.1 and the drop test of 4.2.1.
//!
//! Soil (the paper gives none): c = 50 Pa, phi = 35 deg, rho = 1500 kg/m^3,
//! k_j = 0.02 m; model constants of Table 1; examples/terra_single_wheel.json.

mod common;

use common::*;
use fmi::fmi2::instance::{Common, InstanceCS};

/// One sample of the rig's outputs.
#[derive(Debug, Clone, Copy)]
struct Sample {
    t: f64,
    x: f64,
    vx: f64,
    slip: f64,
    sinkage: f64,
    z_s: f64,
    z_peak: f64,
    z_eff: f64,
}

struct Rig {
    inst: InstanceCS,
    outputs: Vec<u32>,
    omega: u32,
    drawbar: u32,
}

impl Rig {
    fn sample(&mut self, t: f64) -> Sample {
        let v = get(&mut self.inst, &self.outputs);
        Sample {
            t,
            x: v[0],
            vx: v[1],
            slip: v[2],
            sinkage: v[3],
            z_s: v[4],
            z_peak: v[5],
            z_eff: v[6],
        }
    }
}

fn rig(import: &fmi::fmi2::import::Fmi2Import, name: &str, z0: Option<f64>) -> Rig {
    let mut inst = import.instantiate_cs(name, false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    if let Some(z0) = z0 {
        Common::set_real(&mut inst, &[vr(import, "wheel.z0")], &[z0]).unwrap();
    }
    Common::exit_initialization_mode(&mut inst).unwrap();
    let outputs = [
        "wheel.x",
        "wheel.vx",
        "wheel.slip",
        "wheel.sinkage",
        "wheel.z_s",
        "wheel.z_peak",
        "wheel.z_eff",
    ]
    .iter()
    .map(|n| vr(import, n))
    .collect();
    Rig {
        inst,
        outputs,
        omega: vr(import, "rig.omega"),
        drawbar: vr(import, "rig.drawbar_force"),
    }
}

/// Section 4.1: drop at t = 0; from t = 2 s drive at 0.5 rad/s against a 10 N drawbar
/// pull; 8 deg ramp reached at about 9 s, 20 deg ramp at about 22 s. Sampled every 0.1 s.
fn section_4_1() -> Vec<Sample> {
    let (_dir, fmu) = package_example("terra_single_wheel");
    let import = load(&fmu);
    let mut rig = rig(&import, "section-4.1", None);
    let h = 1e-3;
    let mut samples = vec![];
    for k in 0..40_000 {
        let t = k as f64 * h;
        if k == 2000 {
            Common::set_real(&mut rig.inst, &[rig.omega, rig.drawbar], &[0.5, 10.0]).unwrap();
        }
        step(&mut rig.inst, t, h);
        if (k + 1) % 100 == 0 {
            samples.push(rig.sample(t + h));
        }
    }
    samples
}

fn at(samples: &[Sample], t: f64) -> Sample {
    *samples
        .iter()
        .min_by(|a, b| (a.t - t).abs().total_cmp(&(b.t - t).abs()))
        .unwrap()
}

fn window(samples: &[Sample], t0: f64, t1: f64) -> Vec<Sample> {
    samples
        .iter()
        .copied()
        .filter(|s| s.t >= t0 - 1e-9 && s.t <= t1 + 1e-9)
        .collect()
}

#[test]
fn section_4_1_reproduces_each_required_effect_of_section_2_2() {
    let s = section_4_1();

    // Plastic sinkage: after the drop the wheel rests in its imprint (z_peak > 0,
    // elastic part small) and does not translate until it drives.
    let rest = window(&s, 1.0, 2.0);
    let z_pl = rest[0].z_peak;
    assert!(z_pl > 0.005, "plastic sinkage after the drop: {z_pl}");
    for r in &rest {
        assert!(
            (r.z_peak - z_pl).abs() < 1e-9,
            "the imprint stays while the wheel stands: {r:?}"
        );
        assert!(r.x.abs() < 1e-6 && r.slip == 0.0);
    }

    // Slip: initially high (the shear has to build up), then decreasing.
    let early = at(&s, 2.1);
    let settled_flat = at(&s, 8.0);
    assert!(early.slip > 0.6, "initial slip {}", early.slip);
    assert!(
        settled_flat.slip < 0.3 && settled_flat.slip > 0.05,
        "slip on flat ground {}",
        settled_flat.slip
    );
    assert!(at(&s, 2.5).slip < early.slip && at(&s, 5.0).slip <= at(&s, 2.5).slip);

    // Slip-sinkage builds up while the slip is high ...
    let zs_peak = window(&s, 2.0, 4.0)
        .iter()
        .map(|r| r.z_s)
        .fold(0.0, f64::max);
    assert!(zs_peak > 0.002, "slip-sinkage at the start {zs_peak}");
    // ... and the wheel drives out of its imprint: sinkage, plastic sinkage and
    // slip-sinkage all fall on the way to the first ramp.
    let before_ramp = at(&s, 8.5);
    assert!(
        before_ramp.x > 0.25,
        "the wheel travels: x = {}",
        before_ramp.x
    );
    assert!(
        before_ramp.z_peak < 0.8 * z_pl,
        "imprint left behind: z_peak {} vs {z_pl}",
        before_ramp.z_peak
    );
    assert!(
        before_ramp.z_s < 0.8 * zs_peak,
        "slip-sinkage falls: {} vs {zs_peak}",
        before_ramp.z_s
    );
    let max_sinkage_start = window(&s, 2.0, 4.0)
        .iter()
        .map(|r| r.sinkage)
        .fold(0.0, f64::max);
    assert!(before_ramp.sinkage < max_sinkage_start);

    // 8 deg ramp (reached at ~9 s): slip and slip-sinkage rise, then converge.
    let on8 = at(&s, 18.0);
    assert!(
        on8.slip > settled_flat.slip + 0.1,
        "more slip uphill: {} vs {}",
        on8.slip,
        settled_flat.slip
    );
    assert!(on8.z_s > before_ramp.z_s, "more slip-sinkage uphill");
    let late8 = window(&s, 16.0, 20.0);
    let spread = |f: fn(&Sample) -> f64| {
        let v: Vec<f64> = late8.iter().map(f).collect();
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert!(
        spread(|r| r.slip) < 0.01,
        "slip converges on the 8 deg ramp"
    );
    assert!(
        spread(|r| r.z_s) < 2e-4,
        "slip-sinkage converges on the 8 deg ramp"
    );
    assert!(
        on8.vx > 0.02,
        "the wheel climbs the 8 deg ramp: vx = {}",
        on8.vx
    );

    // 20 deg ramp (reached at ~22 s): the wheel gets stuck: slip -> 1, speed -> 0,
    // sinkage grows.
    let hit = s
        .iter()
        .find(|r| r.t > 15.0 && r.slip > 0.6)
        .expect("the wheel reaches the 20 deg ramp");
    assert!(
        (hit.t - 22.0).abs() < 1.5,
        "the 20 deg ramp is reached at {} s",
        hit.t
    );
    let stuck = at(&s, 39.0);
    assert!(stuck.slip > 0.99, "slip on the 20 deg ramp {}", stuck.slip);
    assert!(
        stuck.vx.abs() < 1e-3,
        "forward speed on the 20 deg ramp {}",
        stuck.vx
    );
    assert!(
        stuck.sinkage > 3.0 * on8.sinkage,
        "the wheel digs in: {} vs {}",
        stuck.sinkage,
        on8.sinkage
    );
    let first = s
        .iter()
        .find(|r| r.t > 5.0 && r.slip > settled_flat.slip + 0.05)
        .expect("the 8 deg ramp is reached");
    assert!(
        (first.t - 9.0).abs() < 1.5,
        "the 8 deg ramp is reached at {} s",
        first.t
    );
}

#[test]
fn section_4_2_1_drops_from_1_1_2_and_3_radii_settle_to_distinct_plastic_sinkages() {
    let (_dir, fmu) = package_example("terra_single_wheel");
    let import = load(&fmu);
    let r = 0.125;
    let mut settled = vec![];
    for (i, height) in [1.1, 2.0, 3.0].into_iter().enumerate() {
        let mut rig = rig(&import, &format!("drop{i}"), Some(height * r));
        let h = 1e-3;
        let mut tail = vec![];
        // the paper averages 0.5 s after 2 s of settling
        for k in 0..2500 {
            step(&mut rig.inst, k as f64 * h, h);
            if k >= 2000 {
                tail.push(rig.sample((k + 1) as f64 * h));
            }
        }
        let mean = tail.iter().map(|s| s.sinkage).sum::<f64>() / tail.len() as f64;
        let spread = tail
            .iter()
            .map(|s| (s.sinkage - mean).abs())
            .fold(0.0, f64::max);
        assert!(
            spread < 0.02 * mean,
            "settled after 2 s (drop {height} r): spread {spread} of {mean}"
        );
        // plastic: the wheel rests inside the elastic layer below its peak sinkage
        // (eq. (4), (5): d_el = k_c z_peak^k_exp / k_el, Table 1 constants)
        let last = tail.last().unwrap();
        let d_el = 3.6e4 * last.z_peak.powf(1.17) / 5e5;
        assert!(
            last.z_peak >= last.z_eff && last.z_peak - last.z_eff < d_el,
            "{last:?}, d_el {d_el}"
        );
        settled.push(mean);
    }
    assert!(
        settled[0] < settled[1] && settled[1] < settled[2],
        "higher drops sink deeper: {settled:?}"
    );
    assert!(
        settled[2] - settled[0] > 0.1 * settled[0],
        "the sinkages are distinct: {settled:?}"
    );
}

#[test]
fn the_force_element_wheel_returns_the_terra_wrench_in_the_world_frame() {
    let (_dir, fmu) = package_example("terra_kinematic_wheel");
    let import = load(&fmu);
    let f = vrs(&import, "fl.f", 3);
    let t = vrs(&import, "fl.t", 3);
    let r_in = vrs(&import, "fl.r", 3);
    let q_in = vrs(&import, "fl.q", 4);
    let w_in = vrs(&import, "fl.w", 3);
    let diag = ["fl.sinkage", "fl.Fn", "fl.Ft", "fl.z_s", "fl.slip"].map(|n| vr(&import, n));
    let radius: f64 = 0.125;

    // Pressed 2 cm deep at rest: the virgin curve of eq. (2), straight up, no torque.
    let mut inst = start(&import, "at-rest");
    step(&mut inst, 0.0, 1e-3);
    let force = get(&mut inst, &f);
    let d = get(&mut inst, &diag);
    let expected = 3.6e4 * 0.02f64.powf(1.17);
    assert!((d[0] - 0.02).abs() < 1e-12, "sinkage {}", d[0]);
    assert!(
        (d[1] - expected).abs() < 1e-6 * expected,
        "Fn {} vs {expected}",
        d[1]
    );
    assert!(
        (force[2] - expected).abs() < 1e-6 * expected
            && force[0].abs() < 1e-9
            && force[1].abs() < 1e-9
    );
    assert!(get(&mut inst, &t).iter().all(|x| x.abs() < 1e-9));

    // Spinning in place (axle along y): traction pushes forward (+x), the soil torque
    // opposes the spin (-y, magnitude r F_traction), slip 1, slip-sinkage grows.
    Common::set_real(&mut inst, &w_in, &[0.0, 2.0, 0.0]).unwrap();
    let mut time = 1e-3;
    for _ in 0..500 {
        step(&mut inst, time, 1e-3);
        time += 1e-3;
    }
    let force = get(&mut inst, &f);
    let torque = get(&mut inst, &t);
    let d = get(&mut inst, &diag);
    assert!(force[0] > 1.0, "traction {force:?}");
    assert!(
        torque[1] < 0.0 && (torque[1] + radius * force[0]).abs() < 1e-6 * force[0].abs() + 1e-9,
        "torque {torque:?} vs force {force:?}"
    );
    assert!(
        (d[4] - 1.0).abs() < 1e-12 && d[3] > 0.0,
        "slip {} z_s {}",
        d[4],
        d[3]
    );

    // The same wheel turned 90 deg about z (axle along -x, forward along +y): the
    // wrench turns with it.
    let mut inst = start(&import, "turned");
    let (s, c) = (
        std::f64::consts::FRAC_PI_4.sin(),
        std::f64::consts::FRAC_PI_4.cos(),
    );
    Common::set_real(&mut inst, &q_in, &[c, 0.0, 0.0, s]).unwrap();
    Common::set_real(&mut inst, &r_in, &[1.0, 2.0, 0.105]).unwrap();
    step(&mut inst, 0.0, 1e-3);
    Common::set_real(&mut inst, &w_in, &[-2.0, 0.0, 0.0]).unwrap();
    let mut time = 1e-3;
    for _ in 0..500 {
        step(&mut inst, time, 1e-3);
        time += 1e-3;
    }
    let turned = get(&mut inst, &f);
    assert!(
        turned[1] > 1.0 && turned[0].abs() < 1e-9 * turned[1],
        "{turned:?}"
    );
    assert!(
        (turned[1] - force[0]).abs() < 1e-9 * force[0]
            && (turned[2] - force[2]).abs() <= 1e-9 * force[2].abs().max(1.0),
        "{turned:?} vs {force:?}"
    );
}

#[test]
fn the_rig_continues_bit_identically_from_a_saved_and_serialized_state() {
    use fmi::fmi2::instance::CoSimulation;
    let (_dir, fmu) = package_example("terra_single_wheel");
    let import = load(&fmu);
    let mut r = rig(&import, "state", None);
    let h = 1e-3;
    let run = |rig: &mut Rig, from: usize, n: usize| -> Vec<Vec<u64>> {
        (from..from + n)
            .map(|k| {
                if k == 2000 {
                    Common::set_real(&mut rig.inst, &[rig.omega, rig.drawbar], &[0.5, 10.0])
                        .unwrap();
                }
                CoSimulation::do_step(&rig.inst, k as f64 * h, h, true).unwrap();
                get(&mut rig.inst, &rig.outputs)
                    .iter()
                    .map(|x| x.to_bits())
                    .collect()
            })
            .collect()
    };
    run(&mut r, 0, 2500);
    let saved = r.inst.get_fmu_state().unwrap();
    let bytes = r.inst.serialize_fmu_state(&saved).unwrap();
    let expected = run(&mut r, 2500, 1500);
    r.inst.set_fmu_state(&saved);
    assert_eq!(run(&mut r, 2500, 1500), expected);
    let mut other = rig(&import, "other", None);
    let restored = other.inst.deserialize_fmu_state(&bytes).unwrap();
    other.inst.set_fmu_state(&restored);
    assert_eq!(run(&mut other, 2500, 1500), expected);
}
