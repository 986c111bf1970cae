//! SCM verification (issue 4; Krenn 2009, sections 3.3 and 4): the bevameter
//! identification of Table 2 through the packaged FMU, and the terramechanical
//! effects of section 3.3 (drawbar pull vs slip, multi-pass, bulldozing, lateral
//! guidance), soil volume conservation and determinism, in process on the World.

mod common;

use common::{world_get as get, world_set as set};
use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::World;
use contact_fmu::models::scm::adapter::Scm;
use contact_fmu::models::scm::scene::SoilState;
use contact_fmu::scenario;
use fmi::fmi2::instance::{CoSimulation, Common};

/// A world of `examples/<name>.json`, with `params` set before initialization.
fn world(name: &str, params: &[(&str, f64)]) -> World {
    let path = common::root().join("examples").join(format!("{name}.json"));
    let s = scenario::load(&path).unwrap();
    let mut w = World::new(&s, path.parent()).unwrap();
    w.enter_initialization();
    for (n, x) in params {
        set(&mut w, n, *x, Phase::Initialization);
    }
    w.exit_initialization().unwrap();
    w
}

/// Mean of `names` outputs over `t_avg` s after running `t_run` s (step `h`).
fn run_rig(w: &mut World, t_run: f64, t_avg: f64, h: f64, names: &[&str]) -> Vec<f64> {
    let n = (t_run / h).round() as usize;
    let n_avg = (t_avg / h).round() as usize;
    let mut sums = vec![0.0; names.len()];
    for k in 0..n {
        w.do_step(h).unwrap();
        if k >= n - n_avg {
            for (s, name) in sums.iter_mut().zip(names) {
                *s += get(w, name);
            }
        }
    }
    sums.iter().map(|s| s / n_avg as f64).collect()
}

#[test]
fn drawbar_pull_rises_with_slip_towards_an_asymptote_and_sinkage_grows() {
    // slip-controlled runs of the rig (r = 0.25 m, 12 grousers, 200 N, omega 1 rad/s)
    let slips = [0.0, 0.1, 0.2, 0.4, 0.6, 0.9];
    let mut dp = vec![];
    let mut sink = vec![];
    for slip in slips {
        let mut w = world("scm_single_wheel", &[("rig.vx", 0.25 * (1.0 - slip))]);
        let r = run_rig(
            &mut w,
            3.0,
            1.0,
            0.01,
            &["wheel.Fx", "wheel.sinkage", "wheel.Fz"],
        );
        eprintln!(
            "slip {slip:.1}: DP {:8.2} N  sinkage {:.4} m  Fz {:.1} N",
            r[0], r[1], r[2]
        );
        assert!(
            (r[2] - 200.0).abs() < 5.0,
            "the rig carries its load: Fz {}",
            r[2]
        );
        dp.push(r[0]);
        sink.push(r[1]);
    }
    // rises with slip ...
    for k in 1..dp.len() {
        assert!(
            dp[k] > dp[k - 1],
            "drawbar pull must rise with slip: {dp:?}"
        );
    }
    // ... towards an asymptote: the slope at high slip is well below the slope at low slip
    let low = (dp[2] - dp[0]) / 0.2;
    let high = (dp[5] - dp[3]) / 0.5;
    assert!(
        high < 0.5 * low,
        "no asymptotic approach: slopes {low} vs {high} N per unit slip"
    );
    // sinkage grows with slip (slip sinkage): within 0.5 mm from step to step, and
    // clearly at high slip
    for k in 1..sink.len() {
        assert!(sink[k] > sink[k - 1] - 5e-4, "sinkage vs slip: {sink:?}");
    }
    assert!(sink[5] > 1.5 * sink[1], "{sink:?}");
}

#[test]
fn bulldozing_builds_a_hump_and_raises_the_motion_resistance() {
    // a locked wheel pushed through the soil (slip -100 %): sinking and sliding
    let run = |deformation: f64| {
        let mut w = world(
            "scm_single_wheel",
            &[
                ("rig.omega", 0.0),
                ("rig.vx", 0.1),
                ("soil.deformation", deformation),
            ],
        );
        let r = run_rig(&mut w, 3.0, 1.0, 0.01, &["wheel.Fx", "wheel.x"]);
        let d = w.snapshot();
        let soil = d.model::<SoilState>().unwrap();
        let base = contact_fmu::geometry::terrain::Surface::Plane {
            height: 0.0,
            angle: 0.0,
        };
        // highest soil just ahead of the wheel (the contact ends near x + 0.1 m)
        let ds = soil.grid.ds;
        let mut hump: f64 = 0.0;
        for i in 0..30 {
            let x = r[1] + 0.05 + i as f64 * ds;
            hump = hump.max(soil.grid.node(&base, (x / ds).round() as i32, 0).0);
        }
        (-r[0], hump)
    };
    let (with, hump) = run(1.0);
    let (without, flat) = run(0.0);
    eprintln!("resistance {with:.2} N with deformation (hump {hump:.4} m), {without:.2} N without (max height {flat})");
    // the parallel field banks the pushed soil up ahead (the radial field's goes to
    // the sides of the path): at least a fifth of the grid spacing
    assert!(hump > 0.002, "no hump in front: {hump}");
    assert_eq!(flat, 0.0);
    assert!(with > 1.1 * without, "bulldozing: {with} vs {without}");
}

/// Packages `scm_bevameter`, presses the probe of `radius` into soil of spacing `ds`
/// quasi-statically (velocity input 0) to 6 cm and returns (z, F, A, L) samples.
fn bevameter(ds: f64, radius: f64) -> Vec<(f64, f64, f64, f64)> {
    let (_dir, fmu) = common::package_example("scm_bevameter");
    let import = common::load(&fmu);
    let mut inst = import.instantiate_cs("bevameter", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    let set = |inst: &mut _, name: &str, x: f64| {
        Common::set_real(inst, &[common::vr(&import, name)], &[x]).unwrap();
    };
    set(&mut inst, "soil.ds", ds);
    set(&mut inst, "probe.radius", radius);
    set(&mut inst, "probe.r[3]", 0.001);
    Common::exit_initialization_mode(&mut inst).unwrap();
    let rz = common::vr(&import, "probe.r[3]");
    let out = [
        common::vr(&import, "probe.f[3]"),
        common::vr(&import, "probe.footprint_area"),
        common::vr(&import, "probe.b_eff"),
    ];
    let mut samples = vec![];
    let h = 0.01;
    for s in 1..=60 {
        let z = s as f64 * 1e-3;
        Common::set_real(&mut inst, &[rz], &[-z]).unwrap();
        inst.do_step((s - 1) as f64 * h, h, true).unwrap();
        let mut v = [0.0; 3];
        Common::get_real(&mut inst, &out, &mut v).unwrap();
        samples.push((z, v[0], v[1], 2.0 * v[1] / v[2]));
    }
    samples
}

/// Least-squares identification of (k_c, k_phi, n) from F = (L k_c / 2 + A k_phi) z^n
/// (Krenn 2009 eq. (2)) over samples of several plates: linear least squares (relative
/// residuals) in k_c, k_phi for each n, golden-section search over n.
fn identify(samples: &[(f64, f64, f64, f64)]) -> (f64, f64, f64) {
    let fit = |n: f64| {
        // rows: [L z^n / 2, A z^n] / F, target 1
        let (mut a11, mut a12, mut a22, mut b1, mut b2) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(z, f, a, l) in samples {
            let x1 = 0.5 * l * z.powf(n) / f;
            let x2 = a * z.powf(n) / f;
            a11 += x1 * x1;
            a12 += x1 * x2;
            a22 += x2 * x2;
            b1 += x1;
            b2 += x2;
        }
        let det = a11 * a22 - a12 * a12;
        let kc = (b1 * a22 - b2 * a12) / det;
        let kphi = (a11 * b2 - a12 * b1) / det;
        let mut r = 0.0;
        for &(z, f, a, l) in samples {
            r += ((0.5 * l * kc + a * kphi) * z.powf(n) / f - 1.0).powi(2);
        }
        (r, kc, kphi)
    };
    let (mut lo, mut hi) = (0.3, 1.2);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let (m1, m2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if fit(m1).0 < fit(m2).0 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let n = 0.5 * (lo + hi);
    let (_, kc, kphi) = fit(n);
    (kc, kphi, n)
}

#[test]
fn bevameter_identifies_the_dlr_a_parameters_at_least_as_well_as_table_2() {
    // Krenn 2009 Table 2: identified minus applied, per ds
    let paper = [(0.01, 28.0, 141.0), (0.005, 7.0, 40.0), (0.002, 1.0, 7.0)];
    for (ds, dkc, dkphi) in paper {
        let mut all = vec![];
        for radius in [0.075, 0.15] {
            let s = bevameter(ds, radius);
            // against the ideal eq. (2) with the true circle (A = pi r^2, L = 2 pi r)
            let (a0, l0) = (
                std::f64::consts::PI * radius * radius,
                2.0 * std::f64::consts::PI * radius,
            );
            let worst = s
                .iter()
                .map(|&(z, f, _, _)| {
                    (f / ((0.5 * l0 * 2370.0 + a0 * 60300.0) * z.powf(0.63)) - 1.0).abs()
                })
                .fold(0.0, f64::max);
            eprintln!(
                "ds {ds}, r {radius}: worst deviation from ideal eq. (2) {:.2} %",
                100.0 * worst
            );
            // the footprint discretization: the paper's Fig. 15 shows the same trend
            assert!(worst < 0.02, "ds {ds}, r {radius}: {worst}");
            all.extend(s);
        }
        let (kc, kphi, n) = identify(&all);
        eprintln!("ds {ds}: identified k_c {kc:.2}, k_phi {kphi:.2}, n {n:.5}");
        assert!((kc - 2370.0).abs() <= dkc, "ds {ds}: k_c {kc}");
        assert!((kphi - 60300.0).abs() <= dkphi, "ds {ds}: k_phi {kphi}");
        assert!((n - 0.63).abs() < 0.005, "ds {ds}: n {n}");
    }
}

#[test]
fn soil_volume_is_conserved_and_results_do_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        contact_fmu::parallel::with_threads(threads, || {
            let mut w = world("scm_rover_wheels", &[]);
            let mut outs = vec![];
            for k in 0..30 {
                // the wheels roll forward at 0.1 m/s
                for (b, x0) in [
                    ("wheel_l1", 0.6),
                    ("wheel_r1", 0.6),
                    ("wheel_l2", 0.0),
                    ("wheel_r2", 0.0),
                    ("wheel_l3", -0.6),
                    ("wheel_r3", -0.6),
                ] {
                    set(
                        &mut w,
                        &format!("{b}.r[1]"),
                        x0 + 0.1 * 0.01 * k as f64,
                        Phase::Stepping,
                    );
                }
                w.do_step(0.01).unwrap();
                outs.push(get(&mut w, "wheel_l1.f[3]"));
                outs.push(get(&mut w, "wheel_r3.t[2]"));
                let v = get(&mut w, "soil.volume");
                assert!(v.abs() < 1e-12, "soil volume {v} m^3");
            }
            (outs, w.snapshot())
        })
    };
    let (a, da) = run(1);
    let (b, db) = run(3);
    assert!(a[0] > 20.0, "the wheels carry load: {}", a[0]);
    assert_eq!(a, b, "bit-identical outputs for 1 and 3 threads");
    assert!(da == db, "bit-identical soil for 1 and 3 threads");
}

#[test]
fn the_rig_wheel_gives_the_same_bits_on_any_thread_count_with_or_without_the_scan_ahead() {
    // the rig wheel's step uses the helper thread three times: the scan conversion of
    // its next pose beside the soil update, the radial field beside the walks, the
    // footprint distances beside z^n; none of it may change a bit
    let run = |threads: usize, ahead: bool| {
        contact_fmu::parallel::with_threads(threads, || {
            let mut w = world("scm_single_wheel", &[("soil.ds", 0.005)]);
            w.model_mut::<Scm>().unwrap().set_scan_ahead(ahead);
            let mut outs = vec![];
            for _ in 0..40 {
                w.do_step(0.005).unwrap();
                for name in [
                    "wheel.Fx",
                    "wheel.Fz",
                    "wheel.sinkage",
                    "wheel.contact_nodes",
                ] {
                    outs.push(get(&mut w, name));
                }
            }
            (
                outs,
                w.snapshot(),
                w.model::<Scm>().unwrap().scans_taken_ahead(),
            )
        })
    };
    let (a, da, taken) = run(1, true);
    let fz = a[a.len() - 3];
    assert!(
        fz > 100.0,
        "the wheel carries its load at the end: Fz {fz} N"
    );
    // after the first (the pose of the first evaluation is not known ahead), every
    // evaluation takes the scan made ahead
    assert!(
        taken >= 150,
        "evaluations that took the scan made ahead: {taken}"
    );
    for (threads, ahead) in [(2, true), (2, false), (1, false)] {
        let (b, db, _) = run(threads, ahead);
        assert_eq!(a, b, "outputs: {threads} threads, scan ahead {ahead}");
        assert!(da == db, "soil: {threads} threads, scan ahead {ahead}");
    }
}

#[test]
fn fmu_state_snapshot_continues_bit_identically_with_the_soil() {
    let mut w = world("scm_single_wheel", &[]);
    for _ in 0..50 {
        w.do_step(0.01).unwrap();
    }
    let saved = w.snapshot();
    let bytes = contact_fmu::cosim::snapshot::encode("guid", 0, &saved);
    let mut a = vec![];
    for _ in 0..30 {
        w.do_step(0.01).unwrap();
        a.push(get(&mut w, "wheel.Fx"));
    }
    let (_, back) = contact_fmu::cosim::snapshot::decode("guid", &bytes).unwrap();
    w.restore(&back).unwrap();
    let mut b = vec![];
    for _ in 0..30 {
        w.do_step(0.01).unwrap();
        b.push(get(&mut w, "wheel.Fx"));
    }
    assert_eq!(a, b);
}

#[test]
fn driven_wheels_continue_bit_identically_from_a_state_whatever_outputs_are_read() {
    // Kinematic bodies: the soil update of a step yields to the pose held at the end
    // of the previous one (the last known position), so a wheel driven by position
    // inputs is evaluated once per step. What the soil sees must follow from the FMU
    // state alone: the same after a restore (through the serialized bytes), and the
    // same whether or not the master reads outputs after setting the inputs (which
    // evaluates the wheels at their new poses before the step).
    let wheels = [("wheel_l1", 0.6), ("wheel_r2", 0.0), ("wheel_r3", -0.6)];
    let drive = |w: &mut World, k: usize, peek: bool| {
        for (b, x0) in wheels {
            let x = x0 + 0.1 * 0.005 * k as f64;
            set(w, &format!("{b}.r[1]"), x, Phase::Stepping);
        }
        if peek {
            get(w, "wheel_l1.f[3]");
        }
        w.do_step(0.005).unwrap();
        [
            get(w, "wheel_l1.f[3]"),
            get(w, "wheel_r2.f[1]"),
            get(w, "wheel_r3.t[2]"),
            get(w, "soil.volume"),
        ]
    };
    let mut w = world("scm_rover_wheels", &[]);
    for k in 0..40 {
        drive(&mut w, k, false);
    }
    let bytes = contact_fmu::cosim::snapshot::encode("guid", 0, &w.snapshot());
    let a: Vec<_> = (40..70).map(|k| drive(&mut w, k, false)).collect();
    let soil_a = w.snapshot().model::<SoilState>().cloned();
    for peek in [false, true] {
        let (_, back) = contact_fmu::cosim::snapshot::decode("guid", &bytes).unwrap();
        w.restore(&back).unwrap();
        let b: Vec<_> = (40..70).map(|k| drive(&mut w, k, peek)).collect();
        assert_eq!(
            a, b,
            "outputs after a restore (outputs read after the inputs: {peek})"
        );
        assert!(
            w.snapshot().model::<SoilState>().cloned() == soil_a,
            "soil after a restore (peek {peek})"
        );
    }
    assert!(a[0][0] > 20.0, "the wheels carry load: {:?}", a[0]);
}

#[test]
fn multi_pass_a_second_wheel_in_the_rut_meets_lower_motion_resistance() {
    // Krenn 2009, section 1 (4): the rig drives 0.6 m at a fixed slip; then the wheel
    // goes back to its start and drives the same way again in the rut of the first
    // pass (the soil is kept). Motion resistance of a driven wheel, as measured on
    // single-wheel testbeds: R = T / r - DP (gross traction from the driving torque
    // T = -My minus the drawbar pull), averaged over the second half of each pass.
    let names = ["wheel.Fx", "wheel.My", "wheel.z"];
    for slip in [0.0, 0.2] {
        let mut w = world("scm_single_wheel", &[("rig.vx", 0.25 * (1.0 - slip))]);
        let start = w.snapshot();
        let first = run_rig(&mut w, 3.0, 1.5, 0.01, &names);
        let mut again = start.clone();
        *again.model_mut::<SoilState>().unwrap() =
            w.snapshot().model::<SoilState>().unwrap().clone();
        w.restore(&again).unwrap();
        let second = run_rig(&mut w, 3.0, 1.5, 0.01, &names);
        let resistance = |r: &[f64]| -r[1] / 0.25 - r[0];
        let (r1, r2) = (resistance(&first), resistance(&second));
        eprintln!(
            "multi-pass, slip {slip:.1}: motion resistance {r1:.2} N -> {r2:.2} N, \
             DP {:.2} N -> {:.2} N, hub z {:.4} m -> {:.4} m",
            first[0], second[0], first[2], second[2]
        );
        // the wheel runs lower, in the rut, and meets less resistance: the compacted
        // rut reloads elastically instead of yielding again (eq. (7))
        assert!(
            second[2] < first[2] - 5e-4,
            "not in the rut: {first:?} {second:?}"
        );
        assert!(r2 < 0.97 * r1, "multi-pass: resistance {r1} -> {r2}");
    }
}

#[test]
fn scm_soil_lies_on_a_generated_base_surface_that_varies_in_x_and_y() {
    use contact_fmu::assets::surface::{Fractal, Layer, NoiseKind, SurfaceParams};
    use contact_fmu::scenario::SurfaceSpec;
    // the bevameter plate (r = 0.075 m) pressed 2 cm below a given height at (x, y)
    let press = |surface: SurfaceSpec, x: f64, y: f64, z: f64| {
        let path = common::root().join("examples/scm_bevameter.json");
        let mut s = scenario::load(&path).unwrap();
        s.terrain.surface = surface;
        let problems = contact_fmu::scenario::validate(&s);
        assert!(problems.is_empty(), "{problems:?}");
        let mut w = World::new(&s, path.parent()).unwrap();
        w.enter_initialization();
        for (n, v) in [
            ("probe.r[1]", x),
            ("probe.r[2]", y),
            ("probe.r[3]", z + 0.05),
        ] {
            set(&mut w, n, v, Phase::Initialization);
        }
        w.exit_initialization().unwrap();
        // lower it to z in 1 mm steps (the soil yields on the way: eq. (2))
        let n = ((0.05 / 1e-3) as usize).max(1);
        for k in 1..=n {
            set(
                &mut w,
                "probe.r[3]",
                z + 0.05 - 0.05 * k as f64 / n as f64,
                Phase::Stepping,
            );
            w.do_step(0.01).unwrap();
        }
        get(&mut w, "probe.f[3]")
    };
    let flat = press(SurfaceSpec::Flat { height: 0.0 }, 0.5, 0.0, -0.02);
    // a generated surface: a slope rising along +y (10 degrees), a plateau 0.3 m high
    // along x in [0.3, 0.7] (profile), and noise far away only (amplitude 0 here, to
    // keep the plateau flat: layers sum)
    let slope_y = Layer::Slope {
        height: 0.0,
        slope: 10.0,
        direction: 90.0,
    };
    let plateau = Layer::Profile {
        points: vec![[0.0, 0.0], [0.3, 0.3], [0.7, 0.3], [1.0, 0.0]],
        direction: 0.0,
    };
    let noise = Layer::Noise {
        kind: NoiseKind::Simplex,
        fractal: Fractal::Fbm,
        octaves: 4,
        frequency: 2.0,
        amplitude: 0.0,
        lacunarity: 2.0,
        persistence: 0.5,
        seed: 3,
    };
    let generated = |layers: Vec<Layer>| {
        SurfaceSpec::Generated(SurfaceParams {
            layers,
            extent: [-1.0, 1.0, -1.0, 1.0],
            resolution: 0.005,
        })
    };
    // on the plateau the soil behaves as on flat ground 0.3 m higher
    let on_plateau = press(
        generated(vec![plateau.clone(), noise]),
        0.5,
        0.0,
        0.3 - 0.02,
    );
    eprintln!("plate 2 cm deep: flat {flat:.3} N, on the generated plateau {on_plateau:.3} N");
    assert!(flat > 100.0);
    assert!(
        (on_plateau / flat - 1.0).abs() < 1e-9,
        "{on_plateau} vs {flat}"
    );
    // on the slope along y, a flat plate at y = 0.5 first touches the uphill rim of its
    // footprint, at (0.5 + 0.075) tan 10 deg
    let top = (0.5 + 0.075) * 10f64.to_radians().tan();
    let above = press(generated(vec![slope_y.clone()]), 0.0, 0.5, top + 0.003);
    let below = press(generated(vec![slope_y]), 0.0, 0.5, top - 0.005);
    eprintln!("plate on a 10 deg slope along y: 3 mm above its uphill rim {above} N, 5 mm below {below:.3} N");
    assert_eq!(above, 0.0);
    assert!(below > 1.0);
}

#[test]
fn a_rolling_wheel_leaves_a_rut_as_deep_as_it_ran_with_berms_beside_it() {
    use contact_fmu::assets::wheel::{Profile, WheelParams};
    use contact_fmu::assets::AssetRequest;
    use contact_fmu::scenario::Shape;
    // a smooth crowned wheel (asset generator: r = 0.2 m, width 0.15 m, crown radius
    // 0.15 m) rolls without slip 0.6 m along x with its lowest point 4 cm deep
    let path = common::root().join("examples/scm_generated_wheel.json");
    let mut s = scenario::load(&path).unwrap();
    s.bodies[0].shape = Shape::Generated {
        asset: AssetRequest::Wheel(WheelParams {
            radius: 0.2,
            width: 0.15,
            profile: Profile::Convex { crown_radius: 0.15 },
            grousers: None,
            max_edge: Some(0.01),
        }),
    };
    let mut w = World::new(&s, None).unwrap();
    w.enter_initialization();
    let (x0, depth) = (-0.3, 0.04);
    for (n, v) in [
        ("wheel.r[1]", x0),
        ("wheel.r[2]", 0.0),
        ("wheel.r[3]", 0.2 - depth),
        ("wheel.v[1]", 0.2),
        ("wheel.w[2]", 1.0),
    ] {
        set(&mut w, n, v, Phase::Initialization);
    }
    w.exit_initialization().unwrap();
    for k in 1..=3000 {
        set(
            &mut w,
            "wheel.r[1]",
            x0 + 0.2 * k as f64 * 1e-3,
            Phase::Stepping,
        );
        w.do_step(1e-3).unwrap();
    }
    let snapshot = w.snapshot();
    let soil = snapshot.model::<SoilState>().unwrap();
    let base = contact_fmu::geometry::terrain::Surface::Plane {
        height: 0.0,
        angle: 0.0,
    };
    // cross-sections behind the wheel (x = -0.2 .. 0.1 m)
    for i in [-20, -10, 0, 10] {
        let h = |j: i32| soil.grid.node(&base, i, j).0;
        let bottom = (-3..=3).map(h).fold(f64::INFINITY, f64::min);
        let berm = (8..=16)
            .map(|j| h(j).min(h(-j)))
            .fold(f64::NEG_INFINITY, f64::max);
        eprintln!(
            "rut at x = {:+.2} m: bottom {bottom:+.4} m, berms {berm:+.4} m",
            i as f64 * 0.01
        );
        // the displaced soil goes beside the path, not back into the rut
        assert!(
            bottom < -0.8 * depth,
            "rut refilled: bottom {bottom} m after running {depth} m deep"
        );
        assert!(berm > 0.01, "no berms beside the rut: {berm}");
        // the berms' outer slopes at the angle of repose at most (35 deg, within the
        // erosion's tolerance), however far out the soil had to go
        let limit = 0.01 * 35f64.to_radians().tan() + 1e-5;
        for j in 8..40 {
            for (a, b) in [(j, j + 1), (-j, -j - 1)] {
                let rise = (h(a) - h(b)).abs();
                assert!(
                    rise <= limit,
                    "x = {i} cm: rise {rise} m from y = {a} to {b} cm"
                );
            }
        }
    }
    assert!(
        soil.grid.volume().abs() < 1e-12,
        "volume {}",
        soil.grid.volume()
    );
}

/// The steepest rise (m) between two neighbouring stored nodes that both lie off the
/// footprint (no shear displacement: the update resets it where the body left, and a
/// slipping wheel's footprint nodes all have some).
fn steepest_rise_off_the_footprint(w: &World) -> f64 {
    let snapshot = w.snapshot();
    let soil = snapshot.model::<SoilState>().unwrap();
    let g = &soil.grid;
    let tiles: std::collections::HashMap<(i32, i32), usize> = g
        .tiles()
        .iter()
        .enumerate()
        .map(|(k, t)| (t.key, k))
        .collect();
    let t = contact_fmu::models::scm::grid::TILE;
    let node = |i: i32, j: i32| {
        tiles.get(&(i.div_euclid(t), j.div_euclid(t))).map(|&k| {
            let l = (j.rem_euclid(t) * t + i.rem_euclid(t)) as usize;
            (g.tiles()[k].h[l], g.tiles()[k].j[l])
        })
    };
    let mut top = 0.0f64;
    for tile in g.tiles() {
        for l in 0..t * t {
            let (i, j) = (tile.key.0 * t + l % t, tile.key.1 * t + l / t);
            let Some((h, s)) = node(i, j) else { continue };
            for (a, b) in [(i + 1, j), (i, j + 1)] {
                if let Some((h2, s2)) = node(a, b) {
                    if s == 0.0 && s2 == 0.0 {
                        top = top.max((h - h2).abs());
                    }
                }
            }
        }
    }
    top
}

/// Krenn 2009 section 3.3: once a soil update is finished, no slope of the soil exceeds
/// the angle of repose. The single-wheel rig (20 % slip, ds = 1 cm) is checked after
/// every step (every step updates the soil): with `soil.erosion_sweeps` = 0, the
/// default, the steepest rise off the footprint stays within the repose rise (and the
/// erosion's tolerance); capped at 2 sweeps per update it does not.
#[test]
fn after_every_soil_update_no_slope_off_the_footprint_exceeds_the_angle_of_repose() {
    let limit = 0.01 * 35f64.to_radians().tan();
    let tol = contact_fmu::models::scm::erosion::EROSION_TOL;
    let mut worst = [0.0f64; 2];
    for (c, sweeps) in [0, 2].into_iter().enumerate() {
        let mut w = world("scm_single_wheel", &[]);
        let vr = w.table().by_name("soil.erosion_sweeps").unwrap().vr;
        w.set_integers(&[vr], &[sweeps], Phase::Stepping).unwrap();
        for _ in 0..300 {
            w.do_step(1e-3).unwrap();
            worst[c] = worst[c].max(steepest_rise_off_the_footprint(&w));
        }
    }
    eprintln!(
        "steepest rise off the footprint: {:.5} m until settled, {:.5} m with 2 sweeps per update (repose rise {limit:.5} m)",
        worst[0], worst[1]
    );
    assert!(worst[0] <= limit + tol, "until settled: {} m", worst[0]);
    assert!(worst[1] > limit + 10.0 * tol, "2 sweeps: {} m", worst[1]);
}

/// The walls a footprint held up slump when the body leaves: a plate pressed 10 cm
/// into DLR-A (the bevameter example, ds = 5 mm) and drawn out again (1 cm per step)
/// leaves a crater whose every slope is
/// at the angle of repose at most, shallower than the hole was, with the volume kept.
/// (While the body is near but touches nothing, its soil update erodes a window with
/// room for the walls of a hole as deep as it reaches; before, the update only reset
/// the shear displacement, and the hole kept vertical walls 10 cm high.)
#[test]
fn a_hole_slumps_to_the_angle_of_repose_when_the_plate_is_drawn_out() {
    let mut w = world("scm_bevameter", &[]);
    for k in 1..=200 {
        set(&mut w, "probe.r[3]", -0.0005 * k as f64, Phase::Stepping);
        w.do_step(1e-3).unwrap();
    }
    assert!(get(&mut w, "probe.f[3]") > 100.0);
    for k in 1..=15 {
        set(
            &mut w,
            "probe.r[3]",
            -0.1 + 0.01 * k as f64,
            Phase::Stepping,
        );
        w.do_step(1e-3).unwrap();
    }
    assert_eq!(get(&mut w, "probe.f[3]"), 0.0);
    let rise = steepest_rise_off_the_footprint(&w);
    let snapshot = w.snapshot();
    let soil = snapshot.model::<SoilState>().unwrap();
    let limit = soil.grid.ds * 35f64.to_radians().tan();
    let tol = contact_fmu::models::scm::erosion::EROSION_TOL;
    let base = contact_fmu::geometry::terrain::Surface::Plane {
        height: 0.0,
        angle: 0.0,
    };
    let centre = soil.grid.node(&base, 0, 0).0;
    eprintln!(
        "crater: centre {centre:+.4} m, steepest rise {rise:.5} m (repose rise {limit:.5} m)"
    );
    assert!(rise <= limit + tol, "{rise} m");
    assert!(centre > -0.09 && centre < -0.01, "{centre} m");
    assert!(soil.grid.volume().abs() < 1e-12, "{}", soil.grid.volume());
}

/// `soil.erosion_sweeps` is an FMI Integer: a count below 0 or above i32::MAX is
/// refused when the scenario loads, naming its path, and a negative one set through
/// FMI is refused naming the variable.
#[test]
fn an_erosion_sweep_count_out_of_range_is_refused() {
    let text =
        std::fs::read_to_string(common::root().join("examples/scm_single_wheel.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for bad in ["-1", "3000000000"] {
        let path = dir.path().join("bad.json");
        let t = text.replace(
            "\"soil\": {",
            &format!("\"soil\": {{ \"erosion_sweeps\": {bad},"),
        );
        std::fs::write(&path, t).unwrap();
        let e = scenario::load(&path).unwrap_err().to_string();
        assert!(e.contains("scm.soil.erosion_sweeps"), "{bad}: {e}");
    }
    let mut w = world("scm_single_wheel", &[]);
    let vr = w.table().by_name("soil.erosion_sweeps").unwrap().vr;
    let e = w
        .set_integers(&[vr], &[-1], Phase::Stepping)
        .unwrap_err()
        .to_string();
    assert!(e.contains("soil.erosion_sweeps"), "{e}");
}

/// Soil classes per node (`scm.soil_map`, packaged with its CSV into the FMU): each of
/// two plates pressed into its own region follows eq. (2) with its own soil, DLR-A
/// (the `soil.*` parameters) and the map's dry sand.
#[test]
fn a_soil_map_gives_each_plate_the_bekker_curve_of_its_soil() {
    let (_dir, fmu) = common::package_example("scm_soil_map");
    let import = common::load(&fmu);
    let mut inst = import.instantiate_cs("soil_map", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    // (k_c, k_phi, n) of DLR-A and of the map's class 1
    let probes = [
        ("probe_dlr_a", (2370.0, 60300.0, 0.63)),
        ("probe_sand", (990.0, 1_528_430.0, 1.1)),
    ];
    let h = 0.01;
    // plate `name`'s force at depth z (m), checked against eq. (2) with (k_c, k_phi, n)
    // and its discrete A and L (from its outputs A and b_eff = 2A/L)
    let on_bekker_curve = |inst: &mut _, name: &str, (kc, kphi, n): (f64, f64, f64), z: f64| {
        let out: Vec<u32> = ["f[3]", "footprint_area", "b_eff"]
            .iter()
            .map(|v| common::vr(&import, &format!("{name}.{v}")))
            .collect();
        let mut v = [0.0; 3];
        Common::get_real(inst, &out, &mut v).unwrap();
        let (a, l) = (v[1], 2.0 * v[1] / v[2]);
        let ideal = (l * kc / 2.0 + a * kphi) * z.powf(n);
        assert!(
            (v[0] / ideal - 1.0).abs() < 1e-9,
            "{name} at {z} m: {} N vs eq. (2) {ideal} N",
            v[0]
        );
        v[0]
    };
    for s in 1..=30 {
        let z = s as f64 * 1e-3;
        for (name, _) in &probes {
            let rz = common::vr(&import, &format!("{name}.r[3]"));
            Common::set_real(&mut inst, &[rz], &[-z]).unwrap();
        }
        inst.do_step((s - 1) as f64 * h, h, true).unwrap();
        let mut forces = vec![];
        for (name, soil) in &probes {
            forces.push(on_bekker_curve(&mut inst, name, *soil, z));
        }
        // the same plate at the same depth: from 1 cm on, the stiffer sand carries more
        // (at 3 cm about three times as much)
        assert!(z < 0.01 || forces[1] > forces[0], "{forces:?} at {z} m");
        if s == 30 {
            assert!(forces[1] > 2.5 * forces[0], "{forces:?} at {z} m");
        }
    }
    // the class's values are tunable FMI parameters: class 1 becomes DLR-A between two
    // steps, and from the next step on the sand plate follows eq. (2) of DLR-A (softer:
    // the pressure falls to the new curve at once)
    let class: Vec<u32> = ["kc", "kphi", "n"]
        .iter()
        .map(|v| common::vr(&import, &format!("soil.class1.{v}")))
        .collect();
    Common::set_real(&mut inst, &class, &[2370.0, 60300.0, 0.63]).unwrap();
    for s in 31..=40 {
        let z = s as f64 * 1e-3;
        let rz = common::vr(&import, "probe_sand.r[3]");
        Common::set_real(&mut inst, &[rz], &[-z]).unwrap();
        inst.do_step((s - 1) as f64 * h, h, true).unwrap();
        on_bekker_curve(&mut inst, "probe_sand", (2370.0, 60300.0, 0.63), z);
    }
}

/// A map that uses a class the scenario does not define is refused when the model is
/// built, naming the field and the class; a class parameter out of range is refused
/// when the scenario loads, naming its path.
#[test]
fn a_soil_map_with_an_undefined_class_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::root().join("examples/scm_soil_map.json"))
        .unwrap()
        .replace("\"phi\": 0.4886921905584123", "\"phi\": 2.0");
    std::fs::write(dir.path().join("bad.json"), text).unwrap();
    let e = scenario::load(&dir.path().join("bad.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("scm.soil_map.classes[0].phi"), "{e}");
    a_map_with_class_2();
}

fn a_map_with_class_2() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::root().join("examples/scm_soil_map.json");
    std::fs::copy(&src, dir.path().join("scm_soil_map.json")).unwrap();
    std::fs::write(dir.path().join("scm_soil_map.csv"), "0,1,2\n0,1,1\n").unwrap();
    let s = scenario::load(&dir.path().join("scm_soil_map.json")).unwrap();
    let e = World::new(&s, Some(dir.path()))
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("scm.soil_map.file") && e.contains("class 2"),
        "{e}"
    );
}

/// A serialized FMU state of a field with soil classes restores onto the classes (the
/// map is configuration, attached again by the restore; the class values are FMI
/// parameters, part of the state) and continues bit-identically, also when a class
/// parameter changed after the snapshot was taken.
#[test]
fn a_state_of_a_field_with_soil_classes_continues_bit_identically() {
    let mut w = world("scm_soil_map", &[]);
    let press = |w: &mut World, k: usize| {
        for name in ["probe_dlr_a.r[3]", "probe_sand.r[3]"] {
            set(w, name, -0.0005 * k as f64, Phase::Stepping);
        }
        w.do_step(0.01).unwrap();
        [get(w, "probe_dlr_a.f[3]"), get(w, "probe_sand.f[3]")]
    };
    for k in 0..20 {
        press(&mut w, k);
    }
    let bytes = contact_fmu::cosim::snapshot::encode("guid", 0, &w.snapshot());
    // a class parameter changes after the snapshot: the restored state has the old
    // value, and the soil must take the old classes again
    let run = |w: &mut World| -> Vec<[f64; 2]> {
        (20..40)
            .map(|k| {
                if k == 25 {
                    set(w, "soil.class1.kphi", 1e6, Phase::Stepping);
                }
                press(w, k)
            })
            .collect()
    };
    let a = run(&mut w);
    let (_, back) = contact_fmu::cosim::snapshot::decode("guid", &bytes).unwrap();
    w.restore(&back).unwrap();
    let b = run(&mut w);
    assert_eq!(a, b);
    // the change took effect: deeper, yet less force on the softer sand
    assert!(a[5][1] < a[4][1], "{:?} then {:?}", a[4], a[5]);
    // the sand plate still meets the (softer) sand
    assert!(b[19][1] > 1.5 * b[19][0], "{:?}", b[19]);
}

/// Verification 5 (Krenn 2009, section 3.3): lateral guidance inside ruts. A 25 kg
/// wheel with a flat tread (the generated wheel of `scm_generated_wheel.json`, r =
/// 0.2 m, 0.15 m wide, 16 chevron grousers, with a flat profile) rolls without slip
/// at 0.2 m/s, free vertically, as a rover model drives it (pose and velocities in,
/// the soil force out; the test integrates the wheel's vertical and lateral motion),
/// and is pushed sideways with `push` times its weight from x = 0.3 m on, once on
/// fresh soil and once in the rut the same wheel left. Returns the lateral drift at
/// x = 1 m (m) and the mean hub height while pushed (m), on fresh soil and in the rut.
/// `crown`: a crowned tread of this crown radius (m) instead of the flat one.
fn lateral_drift(push: f64, side_pressure: bool, crown: Option<f64>) -> [(f64, f64); 2] {
    let dir = tempfile::tempdir().unwrap();
    let src = common::root().join("examples/scm_generated_wheel.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    json["bodies"][0]["shape"]["asset"]["params"]["profile"] = match crown {
        None => serde_json::json!({ "type": "flat" }),
        Some(r) => serde_json::json!({ "type": "convex", "crown_radius": r }),
    };
    json["scm"]["extent"] = serde_json::json!([-0.5, 1.5, -0.5, 0.5]);
    let path = dir.path().join("guidance.json");
    std::fs::write(&path, json.to_string()).unwrap();
    let s = scenario::load(&path).unwrap();
    let mut w = World::new(&s, Some(dir.path())).unwrap();
    w.enter_initialization();
    let on = side_pressure as u8 as f64;
    set(&mut w, "soil.side_pressure", on, Phase::Initialization);
    w.exit_initialization().unwrap();
    let vr = |w: &World, name: &str| w.table().by_name(name).unwrap().vr;
    let inputs: Vec<u32> = ["r", "q", "v", "w"]
        .iter()
        .flat_map(|v| (1..=if *v == "q" { 4 } else { 3 }).map(move |i| format!("wheel.{v}[{i}]")))
        .map(|name| vr(&w, &name))
        .collect();
    let force = [vr(&w, "wheel.f[2]"), vr(&w, "wheel.f[3]")];
    let (r, m, g, vx, dt) = (0.2, 25.0, 9.81, 0.2, 1e-3);
    let omega = vx / r;
    // one pass from x0 to x1 at y = 0, pushed from x = 0.3 m on
    let pass = |w: &mut World, x0: f64, x1: f64, push: f64| {
        let (mut x, mut y, mut z, mut vy, mut vz, mut angle) = (x0, 0.0, r, 0.0, 0.0, 0.0);
        let (mut z_sum, mut n) = (0.0, 0);
        let mut f = [0.0; 2];
        while x < x1 {
            let q = nalgebra::UnitQuaternion::from_scaled_axis(nalgebra::Vector3::y() * angle);
            let values = [x, y, z, q.w, q.i, q.j, q.k, vx, vy, vz, 0.0, omega, 0.0];
            w.set_reals(&inputs, &values, Phase::Stepping).unwrap();
            w.do_step(dt).unwrap();
            w.get_reals(&force, &mut f).unwrap();
            // semi-implicit Euler, as a rover model's integrator would
            vz += dt * (f[1] / m - g);
            z += dt * vz;
            if x >= 0.3 {
                vy += dt * (f[0] / m + push * g);
                z_sum += z;
                n += 1;
            }
            y += dt * vy;
            x += dt * vx;
            angle += dt * omega;
        }
        (y, z_sum / n.max(1) as f64)
    };
    let start = w.snapshot();
    let fresh = pass(&mut w, 0.0, 1.0, push);
    // the rut: the same wheel, unpushed, over fresh soil; then the pushed pass in it
    w.restore(&start).unwrap();
    pass(&mut w, -0.2, 1.2, 0.0);
    let rut = pass(&mut w, 0.0, 1.0, push);
    [fresh, rut]
}

/// The wheel in its rut sits lower (the rut is the wheel's imprint and the compacted
/// soil below it yields no more) and drifts less: the rut's walls stand against its
/// sides. Without the side pressure it drifts more in the rut than on fresh soil
/// (the README's Lateral guidance gives the figures).
#[test]
fn lateral_guidance_a_wheel_in_its_rut_drifts_less_under_a_side_push() {
    let push = 0.2;
    let [fresh, rut] = lateral_drift(push, true, None);
    eprintln!(
        "side push {push} m g: drift {:.2} mm on fresh soil, {:.2} mm in the rut (hub \
         {:.4} m / {:.4} m)",
        fresh.0 * 1e3,
        rut.0 * 1e3,
        fresh.1,
        rut.1
    );
    assert!(rut.1 < fresh.1 - 0.002, "not in the rut: {fresh:?} {rut:?}");
    assert!(fresh.0 > 0.001, "no drift: {fresh:?}");
    assert!(rut.0 < 0.95 * fresh.0, "no guidance: {fresh:?} {rut:?}");
}

/// A crowned tread (0.6 m crown radius, 3.0 times the wheel's radius; the tread's rim
/// stands 4.7 mm above its middle) is guided by its rut too. Stronger crowns are
/// guided less, and at 0.3 m not at all: the rut is the crown's shallow arc, with no
/// wall at the rims (the README's Lateral guidance gives the figures).
#[test]
fn lateral_guidance_holds_for_a_crowned_tread() {
    let [fresh, rut] = lateral_drift(0.2, true, Some(0.6));
    eprintln!(
        "crown 0.6 m, side push 0.2 m g: drift {:.2} mm on fresh soil, {:.2} mm in the rut",
        fresh.0 * 1e3,
        rut.0 * 1e3
    );
    assert!(rut.1 < fresh.1 - 0.002, "not in the rut: {fresh:?} {rut:?}");
    assert!(rut.0 < 0.9 * fresh.0, "no guidance: {fresh:?} {rut:?}");
}

/// The figures of README's Lateral guidance: drift with and without the side pressure,
/// and over crown radii.
#[test]
#[ignore]
fn lateral_guidance_figures() {
    for crown in [2.0, 1.0, 0.6, 0.45, 0.4, 0.3] {
        let [fresh, rut] = lateral_drift(0.2, true, Some(crown));
        eprintln!(
            "push 0.2 m g, crown {crown} m: drift {:.2} mm fresh, {:.2} mm in the rut \
             (ratio {:.2})",
            fresh.0 * 1e3,
            rut.0 * 1e3,
            rut.0 / fresh.0
        );
    }
    for (push, crown) in [(0.15, None), (0.2, None), (0.3, None), (0.2, Some(0.3))] {
        for on in [true, false] {
            let [fresh, rut] = lateral_drift(push, on, crown);
            eprintln!(
                "push {push} m g, crown {crown:?}, side pressure {on}: drift {:.2} mm fresh, \
                 {:.2} mm in the rut; hub {:.4} / {:.4} m",
                fresh.0 * 1e3,
                rut.0 * 1e3,
                fresh.1,
                rut.1
            );
        }
    }
}

/// Sinkage of a rigid wheel (r 0.25 m, b 0.2 m) at rest under 200 N by the per-node
/// Bekker law integrated over its whole contact, front and rear (Krenn 2009 eq. (7)
/// with gamma = 1): `W = b int (k_c / b_eff + k_phi) (z_0 - x^2 / 2r)^n dx`, m.
fn static_bekker_sinkage(b_eff: f64) -> f64 {
    let (r, b, n, kc, kphi) = (0.25, 0.2, 0.63, 2370.0, 60300.0);
    let load = |z0: f64| {
        let (l, m) = ((2.0 * r * z0).sqrt(), 4000);
        let dx = 2.0 * l / m as f64;
        (0..m)
            .map(|i| {
                let x = -l + (i as f64 + 0.5) * dx;
                let d = z0 - x * x / (2.0 * r);
                if d > 0.0 {
                    (kc / b_eff + kphi) * d.powf(n) * dx
                } else {
                    0.0
                }
            })
            .sum::<f64>()
            * b
    };
    let (mut lo, mut hi) = (1e-5, 0.2);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if load(mid) < 200.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Why SCM's wheel sinks about 3x less than Bekker's closed form on the comparison
/// rig (docs/models/wheel-comparison.md), in two parts. With the soil's deformation
/// off (`soil.deformation` = 0: the surface keeps its shape, no soil is displaced), a
/// plain wheel at rest is carried by eq. (7) on every
/// node it touches, and sinks as the per-node Bekker integral over its whole contact
/// with SCM's b_eff = 2A/L predicts (about 19 mm), within 3 % (ds = 1 cm across a
/// 17 cm patch). With deformation on, the soil pressed down under the wheel is
/// displaced to the footprint's border (eq. (10)), rises there and carries the wheel
/// higher: at least 15 % less sinkage below the undisturbed surface.
#[test]
fn a_wheel_at_rest_sinks_as_the_per_node_bekker_integral_without_displacement() {
    let at_rest = |deformation: f64| {
        let mut w = world(
            "scm_single_wheel",
            &[
                ("rig.vx", 0.0),
                ("rig.omega", 0.0),
                ("wheel.grouser_count", 0.0),
                ("wheel.z0", 0.25),
                ("soil.deformation", deformation),
            ],
        );
        let o = run_rig(
            &mut w,
            3.0,
            1.0,
            0.01,
            &["wheel.sinkage", "wheel.Fz", "wheel.b_eff"],
        );
        (o[0], o[1], o[2])
    };
    let (plain, fz, b_eff) = at_rest(0.0);
    let expected = static_bekker_sinkage(b_eff);
    let (displaced, _, b_displaced) = at_rest(1.0);
    eprintln!(
        "at rest: {:.2} mm without displacement (b_eff {b_eff:.4} m; per-node integral {:.2} mm), \
         {:.2} mm with it (b_eff {b_displaced:.4} m); Fz {fz:.2} N",
        plain * 1e3,
        expected * 1e3,
        displaced * 1e3
    );
    assert!((fz / 200.0 - 1.0).abs() < 1e-3, "Fz {fz}");
    assert!(
        (plain / expected - 1.0).abs() < 0.03,
        "{plain} vs {expected}"
    );
    assert!(displaced < 0.85 * plain, "{displaced} vs {plain}");
}

/// A wheel dropped into SCM soil (the drop test of Barthelmes 2018 section 4.2.1,
/// examples/fit/scm_drop.json: 10 kg, r 0.125 m, DLR-A at ds = 1 cm) from 1.1 r, 2 r
/// and 3 r hub height. Krenn's erosion (outside the footprint only) lets the crater's
/// walls slump into the nodes under the wheel that the elastic rebound lifted out of
/// contact; back in contact they push it up, and again: from 3 r the wheel rises 6 mm
/// from its deepest point (39.8 mm) within 0.25 s, and where it stops depends on
/// 1e-12 m of drop height (30.1 to 34.3 mm over six heights within 1e-4 m). With `soil.erosion_stops_at_bodies` the slumping soil stops at
/// the wheel's underside: the wheel stays within 0.5 mm of its deepest point (the
/// elastic rebound), deeper for higher drops, and 1e-9 m of drop height moves the
/// settled sinkage by less than 0.1 mm.
#[test]
fn erosion_that_stops_at_the_body_lets_a_dropped_wheel_stay_in_its_crater() {
    let drop = |z0: f64, stops: bool| {
        let mut w = world(
            "fit/scm_drop",
            &[
                ("wheel.z0", z0),
                ("soil.erosion_stops_at_bodies", stops as u8 as f64),
            ],
        );
        let (mut deepest, mut settled) = (f64::NEG_INFINITY, 0.0);
        for k in 0..1500 {
            w.do_step(1e-3).unwrap();
            let z = get(&mut w, "wheel.sinkage");
            deepest = deepest.max(z);
            if k >= 1000 {
                settled += z / 500.0;
            }
        }
        (deepest, settled)
    };
    let r = 0.125;
    let mut last = 0.0;
    for f in [1.1, 2.0, 3.0] {
        let (deepest, settled) = drop(f * r, true);
        let (_, nudged) = drop(f * r + 1e-9, true);
        eprintln!(
            "stopping at the body, from {f} r: deepest {:.2} mm, settled {:.2} mm (1e-9 m higher: {:.2} mm)",
            deepest * 1e3,
            settled * 1e3,
            nudged * 1e3
        );
        assert!(deepest - settled < 5e-4, "from {f} r the wheel rose");
        assert!(
            (nudged - settled).abs() < 1e-4,
            "from {f} r: {settled} vs {nudged}"
        );
        assert!(settled > last + 5e-3, "from {f} r: {settled} after {last}");
        last = settled;
    }
    // Krenn's erosion alone: lifted
    let (deepest, settled) = drop(3.0 * r, false);
    eprintln!(
        "erosion outside the footprint only, from 3 r: deepest {:.2} mm, settled {:.2} mm",
        deepest * 1e3,
        settled * 1e3
    );
    assert!(deepest - settled > 5e-3);
}
