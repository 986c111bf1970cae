//! The Bekker wheels (Buse 2023, section 4.3.2; Wong 2008, ch. 2): Bekker's static
//! sinkage and compaction resistance through the packaged FMU, the
//! Bekker-Janosi-Hanamoto force element's drawbar pull against slip through the
//! packaged FMU, and vertical equilibrium on a slope on the rig, in process.

mod common;

use common::*;
use contact_fmu::models::bekker::{pure, BekkerSoil};
use contact_fmu::scenario;
use fmi::fmi2::instance::Common;

const MG: f64 = 200.0; // the examples' load: 20.387 kg under 9.81 m/s^2

/// The example's soil.
fn dlr_a() -> BekkerSoil {
    BekkerSoil::default()
}

/// The Bekker rig FMU run for `t` s (step 10 ms) at `omega` and carriage speed `vx`;
/// returns wheel.sinkage, wheel.Fx, wheel.Fz averaged over the last second.
fn bekker_rig(omega: f64, vx: f64, t: f64) -> [f64; 3] {
    let (_dir, fmu) = package_example("bekker_single_wheel");
    let import = load(&fmu);
    let mut inst = import.instantiate_cs("bekker", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::set_real(
        &mut inst,
        &[vr(&import, "rig.omega"), vr(&import, "rig.vx")],
        &[omega, vx],
    )
    .unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    let out = [
        vr(&import, "wheel.sinkage"),
        vr(&import, "wheel.Fx"),
        vr(&import, "wheel.Fz"),
    ];
    let h = 0.01;
    let n = (t / h).round() as usize;
    let mut sum = [0.0; 3];
    for k in 0..n {
        step(&mut inst, k as f64 * h, h);
        if k >= n - 100 {
            for (s, v) in sum.iter_mut().zip(get(&mut inst, &out)) {
                *s += v / 100.0;
            }
        }
    }
    sum
}

/// A wheel set down on the soil at rest sinks to Bekker's closed-form static sinkage
/// z_0 = (3 W / ((3 - n) b k sqrt(D)))^(2/(2n+1)) within 1 %, and carries its load.
#[test]
fn a_wheel_at_rest_sinks_to_bekkers_static_sinkage() {
    let [sinkage, _, fz] = bekker_rig(0.0, 0.0, 3.0);
    let z0 = pure::static_sinkage(&dlr_a(), 0.25, 0.2, MG);
    eprintln!("static sinkage {sinkage:.6} m, closed form {z0:.6} m, Fz {fz:.3} N");
    assert!((sinkage / z0 - 1.0).abs() < 0.01, "{sinkage} vs {z0}");
    assert!((fz / MG - 1.0).abs() < 1e-3, "Fz {fz}");
}

/// Towed at zero slip (no shear), the wheel's only horizontal force is the
/// compaction resistance R_c = b k z^(n+1)/(n+1) at its sinkage: within 1 % of the
/// closed form at the static sinkage.
#[test]
fn a_towed_wheel_meets_the_compaction_resistance() {
    let v = 0.2;
    let [sinkage, fx, _] = bekker_rig(v / 0.25, v, 3.0);
    let s = dlr_a();
    let rc = pure::compaction_resistance(&s, 0.2, pure::static_sinkage(&s, 0.25, 0.2, MG));
    eprintln!("towed: Fx {fx:.4} N, R_c {rc:.4} N, sinkage {sinkage:.6} m");
    assert!((-fx / rc - 1.0).abs() < 0.01, "Fx {fx} vs R_c {rc}");
}

/// The BJH force element through the FMU: a wheel held 3 cm deep, turning at 1 rad/s,
/// moved at the speeds of slips 0 to 80 %: the drawbar pull (Ft, and the wrench's x)
/// rises and saturates, and the normal force is the wrench's z.
#[test]
fn the_bjh_force_element_pulls_more_with_slip_and_saturates() {
    let (_dir, fmu) = package_example("bjh_kinematic_wheel");
    let import = load(&fmu);
    let mut inst = start(&import, "bjh");
    let v = vrs(&import, "w.v", 3);
    let out: Vec<u32> = ["w.Ft", "w.Fn", "w.f[1]", "w.f[3]", "w.sinkage", "w.slip"]
        .iter()
        .map(|n| vr(&import, n))
        .collect();
    let mut last = f64::NEG_INFINITY;
    let mut dp = vec![];
    for (k, slip) in [0.0, 0.1, 0.2, 0.4, 0.6, 0.8].into_iter().enumerate() {
        Common::set_real(&mut inst, &v, &[0.25 * (1.0 - slip), 0.0, 0.0]).unwrap();
        step(&mut inst, k as f64 * 0.01, 0.01);
        let o = get(&mut inst, &out);
        eprintln!("slip {slip:.1}: DP {:8.3} N  Fn {:8.3} N", o[0], o[1]);
        assert!((o[5] - slip).abs() < 1e-9, "slip output {}", o[5]);
        assert!((o[4] - 0.03).abs() < 1e-9, "sinkage {}", o[4]);
        assert!((o[2] - o[0]).abs() < 1e-9 && (o[3] - o[1]).abs() < 1e-9);
        assert!(o[0] > last);
        last = o[0];
        dp.push(o[0]);
    }
    assert!(dp[5] - dp[4] < dp[1] - dp[0], "saturating: {dp:?}");
}

/// On a slope, climbing at a steady speed, each Bekker wheel on the rig carries its
/// load: the mean world-z soil force is m g within 0.2 %.
#[test]
fn bekker_wheels_on_the_rig_carry_the_load_on_a_slope() {
    for model in ["bekker", "bjh"] {
        let path = root().join("examples/bekker_single_wheel.json");
        let mut s = scenario::load(&path).unwrap();
        s.terrain.surface = scenario::SurfaceSpec::Inclined {
            height: 0.0,
            angle: 10f64.to_radians(),
        };
        if model == "bjh" {
            s.bjh = Some(scenario::BjhSettings {
                soil: s.bekker.as_ref().unwrap().soil,
                ..Default::default()
            });
            s.bekker = None;
            s.rig.as_mut().unwrap().soil_model = scenario::RigSoilModel::Bjh;
        }
        s.rig.as_mut().unwrap().position = [0.0, 0.25 / 10f64.to_radians().cos()];
        let (fz, vz) = rig_climb(&s, path.parent());
        eprintln!("{model}: mean Fz {fz:.4} N, vz {vz:.5} m/s on 10 deg");
        assert!(
            (vz - 0.2 * 10f64.to_radians().tan()).abs() < 1e-3,
            "{model}: vz {vz}"
        );
        assert!((fz / MG - 1.0).abs() < 2e-3, "{model}: Fz {fz}");
    }
}
