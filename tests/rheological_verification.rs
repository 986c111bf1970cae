//! The rheological wheel (Buse 2023, section 4.3.2): spring-damper ground with
//! stiction. A locked wheel pulled by a drawbar load below the stiction force stays at
//! rest and slides above it (through the packaged FMU); on an inclined plane it stays
//! at rest below the stiction limit and slides above it (the rig in process, on a
//! plane of the chosen angle). "At rest": over the last second the carriage's speed
//! stays below 1e-4 m/s (creep), and after the first second it never moves further
//! than stiction K (18 mm) from where it was (the wheel settles into the ground in
//! that second, and on a slope its vertical sinking takes the carriage along the
//! slope by tan(alpha) times the sinkage).

mod common;

use common::*;
use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::World;
use contact_fmu::models::bekker::{pure, BekkerSoil};
use contact_fmu::models::rheological::RheologicalModel;
use contact_fmu::scenario;
use fmi::fmi2::instance::Common;

const MG: f64 = 200.0; // the example's load: 20.387 kg under 9.81 m/s^2
const CREEP: f64 = 1e-4; // m/s
/// A stuck contact is displaced by F/k_p <= stiction F_s / (F_s/K) = stiction K from
/// where it stuck (the proportional part; the integral part brings it back): 18 mm.
const HELD: f64 = 1.2 * 0.015; // m

/// The stiction force (N) of the example's wheel at its nominal load on flat ground:
/// `stiction` (A c + W tan(phi)), A = b r theta_1 at Bekker's static sinkage.
fn stiction_limit() -> f64 {
    let (s, m) = (BekkerSoil::default(), RheologicalModel::default());
    let z0 = pure::static_sinkage(&s, 0.25, 0.2, MG);
    let area = 0.2 * 0.25 * pure::entry_angle(0.25, z0);
    m.stiction * (area * s.c + MG * s.phi.tan())
}

/// The example FMU, its locked wheel settled for 1 s without load, then
/// `rig.drawbar_force` ramped to `pull` over 1 s and held for 3 s (step 10 ms; a
/// step load would overshoot: the controller's transient adds about 15 % to the force
/// the contact must hold), then held for 5 s. Returns the carriage's largest |vx|
/// over the last second and its largest excursion after the first second.
fn pulled(pull: f64) -> (f64, f64) {
    let (_dir, fmu) = package_example("rheological_single_wheel");
    let import = load(&fmu);
    let mut inst = import.instantiate_cs("rheo", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    let drawbar = vr(&import, "rig.drawbar_force");
    Common::set_real(&mut inst, &[drawbar], &[0.0]).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    let out = [vr(&import, "wheel.vx"), vr(&import, "wheel.x")];
    let (mut creep, mut x1, mut moved) = (0.0f64, 0.0, 0.0f64);
    for k in 0..700 {
        let load = pull * ((k as f64 - 100.0) / 100.0).clamp(0.0, 1.0);
        Common::set_real(&mut inst, &[drawbar], &[load]).unwrap();
        step(&mut inst, k as f64 * 0.01, 0.01);
        let o = get(&mut inst, &out);
        if k >= 600 {
            creep = creep.max(o[0].abs());
        }
        if k == 99 {
            x1 = o[1];
        }
        if (o[1] - x1).abs() > moved.abs() && k > 99 {
            moved = o[1] - x1;
        }
    }
    (creep, moved)
}

#[test]
fn a_locked_wheel_holds_a_drawbar_load_below_stiction_and_slides_above() {
    let limit = stiction_limit();
    eprintln!("stiction limit {limit:.2} N");
    for pull in [50.0, 100.0, 0.95 * limit] {
        let (creep, x) = pulled(pull);
        eprintln!(
            "pull {pull:.1} N: last-second |vx| <= {creep:.2e} m/s, largest excursion {x:.2e} m"
        );
        assert!(creep < CREEP && x.abs() < HELD, "pull {pull}: {creep} {x}");
    }
    // Sliding, the contact's force falls to F_s, but the compaction resistance (42 N)
    // joins it: a pull between the stiction force and F_s + R_c slides in stick-slip.
    let (_, x) = pulled(1.1 * limit);
    eprintln!("pull {:.1} N: moved {x:.3} m", 1.1 * limit);
    assert!(x < -0.1, "slides back: {x}");
}

/// The locked wheel set on a plane of `angle` (deg) in the rig, force-controlled with
/// no drawbar load, 5 s; returns the largest |vx| over the last second and the
/// carriage's largest excursion after the first second.
fn on_incline(angle: f64) -> (f64, f64) {
    let path = root().join("examples/rheological_single_wheel.json");
    let mut s = scenario::load(&path).unwrap();
    let a = angle.to_radians();
    s.terrain.surface = scenario::SurfaceSpec::Inclined {
        height: 0.0,
        angle: a,
    };
    s.rig.as_mut().unwrap().position = [0.0, 0.25 / a.cos()];
    let mut w = World::new(&s, path.parent()).unwrap();
    w.enter_initialization();
    world_set(&mut w, "rig.drawbar_force", 0.0, Phase::Initialization);
    w.exit_initialization().unwrap();
    let (mut creep, mut x1, mut moved) = (0.0f64, 0.0, 0.0f64);
    for k in 0..500 {
        w.do_step(0.01).unwrap();
        if k >= 400 {
            creep = creep.max(world_get(&mut w, "wheel.vx").abs());
        }
        let x = world_get(&mut w, "wheel.x");
        if k == 99 {
            x1 = x;
        }
        if (x - x1).abs() > moved.abs() && k > 99 {
            moved = x - x1;
        }
    }
    (creep, moved)
}

/// On a plane of angle alpha the contact must hold m g sin(alpha) under m g cos(alpha):
/// the limit is tan(alpha) = stiction (tan(phi) + A c / F_n), about 40 degrees here.
/// The wheel is set down on the plane, so it takes the slope's pull while it sinks in
/// (its normal force still growing) and under the controller's overshoot: it holds
/// up to 30 degrees (tan 30 = 2/3 of the limit) and slides 5 degrees above the limit.
#[test]
fn a_locked_wheel_rests_on_an_incline_below_the_stiction_limit_and_slides_above() {
    let ratio = stiction_limit() / MG;
    let limit = ratio.atan().to_degrees();
    eprintln!("stiction angle about {limit:.1} deg");
    for angle in [10.0, 20.0, 30.0] {
        let (creep, x) = on_incline(angle);
        eprintln!("{angle:.1} deg: last-second |vx| <= {creep:.2e} m/s, largest excursion {x:.2e} m after 1 s");
        assert!(creep < CREEP && x.abs() < HELD, "{angle} deg: {creep} {x}");
    }
    let (creep, x) = on_incline(limit + 5.0);
    eprintln!("{:.1} deg: |vx| {creep:.3} m/s, x {x:.3} m", limit + 5.0);
    // the plane rises with x: the wheel slides down, backwards
    assert!(creep > 0.1 && x < -0.2, "slides down: {creep} {x}");
}

/// Climbing a 10 degree plane at a steady 0.2 m/s (slip-controlled, omega 1 rad/s),
/// the wheel carries its load: the mean world-z soil force is m g within 0.2 % (the
/// rig's vertical balance on slopes, docs/models/rig.md).
#[test]
fn the_rheological_wheel_on_the_rig_carries_the_load_on_a_slope() {
    let path = root().join("examples/rheological_single_wheel.json");
    let mut s = scenario::load(&path).unwrap();
    let a = 10f64.to_radians();
    s.terrain.surface = scenario::SurfaceSpec::Inclined {
        height: 0.0,
        angle: a,
    };
    let rig = s.rig.as_mut().unwrap();
    rig.position = [0.0, 0.25 / a.cos()];
    rig.mode = 1;
    let (fz, vz) = rig_climb(&s, path.parent());
    eprintln!("mean Fz {fz:.4} N, vz {vz:.5} m/s on 10 deg");
    assert!((vz - 0.2 * a.tan()).abs() < 1e-3, "vz {vz}");
    assert!((fz / MG - 1.0).abs() < 2e-3, "Fz {fz}");
}
