//! Closed loops of two of our FMUs (docs/cosimulation.md), driven through the FMI C API
//! by a fixed-step Jacobi master written here: the body FMU integrates, the contact FMU
//! returns the wrench on its kinematic copy. Against the monolithic FMU of the same
//! system. Also the two features the loops need: the kinematic body's extrapolation
//! within a step and the free body's planar joint.

mod common;

use common::*;
use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::World;
use contact_fmu::scenario;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};

fn set(inst: &mut InstanceCS, vrs: &[u32], values: &[f64]) {
    Common::set_real(inst, vrs, values).unwrap();
}

/// The sphere drop as body FMU + contact FMU at `h` (Jacobi, wrench copied first as
/// in examples/cosim.py): the body's height at every step.
fn sphere_loop(h: f64, n: usize) -> Vec<f64> {
    let (_d1, body_fmu) = package_example("cosim_sphere_body");
    let (_d2, contact_fmu) = package_example("cosim_sphere_contact");
    let bi = load(&body_fmu);
    let ci = load(&contact_fmu);
    let mut body = start(&bi, "body");
    let mut contact = start(&ci, "contact");
    // pose and velocities body -> contact, by name; the wrench back into f_ext / t_ext
    let names: Vec<String> = ["r", "v", "w"]
        .iter()
        .flat_map(|s| (1..=3).map(move |k| format!("ball.{s}[{k}]")))
        .chain((1..=4).map(|k| format!("ball.q[{k}]")))
        .collect();
    let out_b: Vec<u32> = names.iter().map(|n| vr(&bi, n)).collect();
    let in_c: Vec<u32> = names.iter().map(|n| vr(&ci, n)).collect();
    let out_c: Vec<u32> = [vrs(&ci, "ball.f", 3), vrs(&ci, "ball.t", 3)].concat();
    let in_b: Vec<u32> = [vrs(&bi, "ball.f_ext", 3), vrs(&bi, "ball.t_ext", 3)].concat();
    let z = vr(&bi, "ball.r[3]");
    let transfer = |body: &mut InstanceCS, contact: &mut InstanceCS| {
        let wrench = get(contact, &out_c);
        set(body, &in_b, &wrench);
        let pose = get(body, &out_b);
        set(contact, &in_c, &pose);
    };
    transfer(&mut body, &mut contact);
    let mut zs = vec![];
    let mut t = 0.0;
    for _ in 0..n {
        CoSimulation::do_step(&body, t, h, true).unwrap();
        CoSimulation::do_step(&contact, t, h, true).unwrap();
        t += h;
        transfer(&mut body, &mut contact);
        zs.push(get(&mut body, &[z])[0]);
    }
    zs
}

#[test]
fn the_co_simulated_sphere_drop_follows_the_monolithic_one() {
    let h = 1e-4;
    let n = 20_000; // 2 s: several bounces, then at rest
    let cosim = sphere_loop(h, n);
    let (_d, mono_fmu) = package_example("bbcc_sphere_drop");
    let mi = load(&mono_fmu);
    let mut mono = start(&mi, "mono");
    let z = vr(&mi, "ball.r[3]");
    let mut t = 0.0;
    let mut worst: f64 = 0.0;
    for (k, zc) in cosim.iter().enumerate() {
        step(&mut mono, t, h);
        t += h;
        let zm = get(&mut mono, &[z])[0];
        worst = worst.max((zm - zc).abs());
        if k == n - 1 {
            // at rest where the contact force balances the weight, as monolithic
            assert!((zm - zc).abs() < 1e-9, "rest height {zc} vs {zm}");
            assert!((zc - 0.1).abs() < 1e-3, "{zc}");
        }
    }
    // docs/cosimulation.md: 2.0e-4 m over the run at the model step (the one-step
    // coupling delay); a bounce shifted by one step would show as centimetres
    assert!(worst < 5e-4, "largest |z - z_mono| {worst}");
    // the first rebound rises well above the ground, in both
    let apex = cosim[4000..].iter().cloned().fold(0.0, f64::max);
    assert!(apex > 0.2, "apex after the first impact {apex}");
}

#[test]
fn at_a_communication_step_of_a_quarter_of_the_impact_the_loop_diverges() {
    // the stability limit the docs report: 1 ms is unstable for this stiff contact
    let zs = sphere_loop(1e-3, 3000);
    let top = zs.iter().cloned().fold(f64::MIN, f64::max);
    assert!(
        top > 1.0,
        "expected the ball to be thrown off (highest {top} m)"
    );
}

fn world(name: &str) -> World {
    let s = scenario::load(&root().join("examples").join(format!("{name}.json"))).unwrap();
    World::new(&s, Some(&root().join("examples"))).unwrap()
}

#[test]
fn an_extrapolating_kinematic_body_is_moved_on_by_its_velocity_within_the_step() {
    // the ball touches the ground and moves down at 1 m/s: after a step of 1 ms it is
    // 1 mm deep, and the wrench after the step is the one at that depth
    let moving = |extrapolate: bool, z: f64, vz: f64| {
        let mut w = world("cosim_sphere_contact");
        w.enter_initialization();
        world_set(
            &mut w,
            "ball.extrapolate",
            extrapolate as i32 as f64,
            Phase::Initialization,
        );
        w.exit_initialization().unwrap();
        world_set(&mut w, "ball.r[3]", z, Phase::Stepping);
        world_set(&mut w, "ball.v[3]", vz, Phase::Stepping);
        w.do_step(1e-3).unwrap();
        let f = world_get(&mut w, "ball.f[3]");
        // the inputs keep what was set: the pose they give is the communication point's
        assert_eq!(world_get(&mut w, "ball.r[3]"), z);
        f
    };
    let extrapolated = moving(true, 0.1, -1.0);
    let held_deep = moving(false, 0.099, -1.0);
    let held_touching = moving(false, 0.1, -1.0);
    assert!(extrapolated > 1.0, "{extrapolated}");
    assert!(
        (extrapolated - held_deep).abs() < 1e-9 * held_deep.abs(),
        "extrapolated {extrapolated} N vs held 1 mm deep {held_deep} N"
    );
    // held at first touch there is (almost) no penetration
    assert!(held_touching < 0.01 * extrapolated, "{held_touching}");
}

#[test]
fn a_jointed_wheel_runs_at_its_prescribed_speed_and_rate_and_the_joint_balances_the_soil() {
    let mut w = world("cosim_terra_mono");
    w.enter_initialization();
    w.exit_initialization().unwrap();
    for _ in 0..4000 {
        w.do_step(1e-3).unwrap();
    }
    assert_eq!(world_get(&mut w, "wheel.v[1]"), 0.16);
    assert_eq!(world_get(&mut w, "wheel.w[2]"), 1.6);
    assert_eq!(world_get(&mut w, "wheel.r[2]"), 0.0);
    assert_eq!(world_get(&mut w, "wheel.w[1]"), 0.0);
    // z is free: the wheel sinks in and carries its 10 kg on the soil
    let fz = world_get(&mut w, "wheel.f[3]");
    assert!((fz - 98.1).abs() < 0.5, "soil normal force {fz}");
    // at constant speed and rate the joint holds what the soil pushes and turns
    let (fx, f1) = (
        world_get(&mut w, "wheel.joint.fx"),
        world_get(&mut w, "wheel.f[1]"),
    );
    let (my, t2) = (
        world_get(&mut w, "wheel.joint.my"),
        world_get(&mut w, "wheel.t[2]"),
    );
    assert!(
        f1 > 10.0,
        "20 % slip drives the wheel forward: soil force {f1}"
    );
    assert!((fx + f1).abs() < 1e-3 * f1, "joint {fx} N vs soil {f1} N");
    assert!(
        (my + t2).abs() < 1e-3 * t2.abs(),
        "joint {my} N m vs soil {t2} N m"
    );
    // a new speed takes effect at the next step
    world_set(&mut w, "wheel.joint.vx", 0.05, Phase::Stepping);
    w.do_step(1e-3).unwrap();
    assert_eq!(world_get(&mut w, "wheel.v[1]"), 0.05);
}

#[test]
fn a_joint_on_a_locked_body_is_refused_with_its_field() {
    let text = std::fs::read_to_string(root().join("examples/cosim_terra_body.json")).unwrap();
    let bad = text.replace(
        "\"type\": \"free\",",
        "\"type\": \"free\", \"locked\": true,",
    );
    let e = scenario::parse_str(&bad, "cosim_terra_body.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bodies[0].motion.joint"), "{e}");
}
