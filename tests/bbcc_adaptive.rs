//! BBCC at a 1 ms model step (issue 54). BBCC's elastic part (Buse 2023, eq. (1)) is
//! explicit, stable while a sub-step h keeps omega h < 2; a light body pinched under a
//! heavy one landing at metres per second is past that at a 1 ms model step and is
//! thrown. With `bbcc.adaptive_step` the world takes such sub-steps again in halves
//! (and the one before, in which the contact closed); with `bbcc.implicit_normal` the
//! elastic part is linearly implicit, all contacts together, at the model step.

mod common;

use common::*;
use contact_fmu::cosim::World;
use contact_fmu::scenario::parse_str;
use serde_json::json;

/// A 1 kg, 10 cm cube dropped from `drop` m onto a 2 cm thick 6 x 6 cm chip of `chip_kg`
/// lying on a fixed slab (its top at z = 0), semi-implicit at `model_step`.
fn pinch(chip_kg: f64, drop: f64, model_step: f64, adaptive: bool) -> World {
    let option = if adaptive { "adaptive_step" } else { "semi_implicit" };
    pinch_with(chip_kg, drop, model_step, &[option])
}

/// [`pinch`] with the `bbcc` options `options` on besides `semi_implicit`.
fn pinch_with(chip_kg: f64, drop: f64, model_step: f64, options: &[&str]) -> World {
    let mat = json!({"E": 1e8, "nu": 0.3, "zeta": 0.5, "mu": 0.6});
    let (a, c) = (0.06, 0.02);
    let i_chip = chip_kg / 12.0 * (a * a + c * c);
    let s = json!({
        "name": "pinch", "model_identifier": "pinch",
        "default_experiment": {"stop_time": 2.0, "step_size": 0.001},
        "model_step": model_step,
        "terrain": {"surface": {"type": "flat", "height": -1.0}, "material": mat},
        "bodies": [
            {"name": "slab", "material": mat, "shape": {"type": "cuboid", "size": [1.0, 1.0, 0.1]},
             "motion": {"type": "fixed", "position": [0.0, 0.0, -0.05]}},
            {"name": "chip", "material": mat, "shape": {"type": "cuboid", "size": [a, a, c]},
             "motion": {"type": "free", "mass": chip_kg,
                "inertia": [i_chip, i_chip, chip_kg / 6.0 * a * a],
                "position": [0.0, 0.0, c / 2.0 - 1e-6]}},
            {"name": "rock", "material": mat, "shape": {"type": "cuboid", "size": [0.1, 0.1, 0.1]},
             "motion": {"type": "free", "mass": 1.0,
                "inertia": [1.0 / 600.0, 1.0 / 600.0, 1.0 / 600.0],
                "position": [0.004, -0.003, c + 0.05 + drop]}}],
        "bbcc": {"semi_implicit": true,
            "pairs": [["chip", "slab"], ["rock", "chip"], ["rock", "slab"]]}
    });
    let mut s = s;
    for option in options {
        s["bbcc"][*option] = json!(true);
    }
    let s = parse_str(&s.to_string(), "test").unwrap();
    let mut w = World::new(&s, None).unwrap();
    w.exit_initialization().unwrap();
    w
}

fn speed(w: &mut World, body: &str) -> f64 {
    (1..=3)
        .map(|k| world_get(w, &format!("{body}.v[{k}]")).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The largest speed of the chip over `steps` steps of 1 ms, or None when the world
/// went non-finite.
fn run(w: &mut World, steps: usize) -> Option<f64> {
    let mut fastest: f64 = 0.0;
    for _ in 0..steps {
        w.do_step(1e-3).ok()?;
        fastest = fastest.max(speed(w, "chip"));
    }
    Some(fastest)
}

#[test]
fn a_pinched_light_body_is_thrown_at_1_ms_fixed_and_rests_with_adaptive_sub_steps() {
    // the cube arrives at sqrt(2 g 0.2) = 2 m/s on a 20 g chip
    let fixed = run(&mut pinch(0.02, 0.2, 1e-3, false), 1000);
    assert!(
        fixed.is_none_or(|v| v > 5.0),
        "fixed 1 ms sub-steps: the chip at most {fixed:?} m/s (expected thrown)"
    );
    let mut w = pinch(0.02, 0.2, 1e-3, true);
    let fastest = run(&mut w, 2000).expect("adaptive sub-steps stay finite");
    // the impact is off the chip's centre and its contacts are points: the chip is
    // knocked about, as with fixed sub-steps of 1/64 ms (at most 1.2 m/s) and 1/32 ms
    // (2.3 m/s), but not thrown (fixed 1 ms: > 5 m/s)
    assert!(fastest < 2.5, "the chip reached {fastest} m/s");
    // at rest after 2 s: the chip flat on the slab, the cube on it or beside it
    assert!(speed(&mut w, "chip") < 1e-3 && speed(&mut w, "rock") < 1e-3);
    let z_chip = world_get(&mut w, "chip.r[3]");
    let z_rock = world_get(&mut w, "rock.r[3]");
    assert!((z_chip - 0.01).abs() < 1e-3, "chip at {z_chip}");
    assert!(
        (z_rock - 0.05).abs() < 1e-3 || (z_rock - 0.07).abs() < 1e-3,
        "cube at {z_rock}"
    );
}

#[test]
fn where_no_sub_step_is_split_the_results_are_the_fixed_sub_steps_to_the_bit() {
    // a 200 g chip under a cube dropped 1 mm, at 0.1 ms: within the bound throughout
    let mut fixed = pinch(0.2, 0.001, 1e-4, false);
    let mut adaptive = pinch(0.2, 0.001, 1e-4, true);
    let names = [
        "chip.r[3]",
        "chip.v[3]",
        "rock.r[1]",
        "rock.r[3]",
        "rock.w[2]",
    ];
    for _ in 0..300 {
        fixed.do_step(1e-3).unwrap();
        adaptive.do_step(1e-3).unwrap();
        for n in names {
            assert_eq!(
                world_get(&mut fixed, n).to_bits(),
                world_get(&mut adaptive, n).to_bits(),
                "{n}"
            );
        }
    }
    // the adaptive path ran, and split nothing
    assert_eq!(adaptive.adaptive_counts(), (3000, 0));
}

#[test]
fn a_restored_state_continues_the_adaptive_run_to_the_bit() {
    let mut w = pinch(0.02, 0.2, 1e-3, true);
    // into the impact (the cube lands at about 0.2 s), where sub-steps are split
    for _ in 0..201 {
        w.do_step(1e-3).unwrap();
    }
    let saved = w.snapshot();
    let record = |w: &mut World| {
        (0..100)
            .flat_map(|_| {
                w.do_step(1e-3).unwrap();
                ["chip.r[3]", "chip.v[3]", "rock.r[3]", "rock.v[3]"]
                    .map(|n| world_get(w, n).to_bits())
            })
            .collect::<Vec<u64>>()
    };
    let first = record(&mut w);
    w.restore(&saved).unwrap();
    assert_eq!(first, record(&mut w));
    // and in another world of the same scenario, through the serialized state
    let bytes = contact_fmu::cosim::snapshot::encode("pinch", 0, &saved);
    let (_, decoded) = contact_fmu::cosim::snapshot::decode("pinch", &bytes).unwrap();
    let mut other = pinch(0.02, 0.2, 1e-3, true);
    let decoded = other.adopt(decoded).unwrap();
    other.restore(&decoded).unwrap();
    assert_eq!(first, record(&mut other));
}

/// The error a one-ball scenario with the `bbcc` section `bbcc` is refused with.
fn refused(bbcc: serde_json::Value) -> String {
    let mat = json!({"E": 1e8, "nu": 0.3, "zeta": 0.5, "mu": 0.6});
    let s = json!({
        "name": "a", "model_identifier": "a",
        "default_experiment": {"stop_time": 1.0, "step_size": 0.001},
        "terrain": {"surface": {"type": "flat", "height": 0.0}, "material": mat},
        "bodies": [{"name": "ball", "material": mat, "shape": {"type": "sphere", "radius": 0.1},
            "motion": {"type": "free", "mass": 1.0, "inertia": [0.004, 0.004, 0.004],
                "position": [0.0, 0.0, 0.2]}}],
        "bbcc": bbcc
    });
    parse_str(&s.to_string(), "test").unwrap_err().to_string()
}

#[test]
fn adaptive_step_without_semi_implicit_is_refused_with_its_field() {
    let e = refused(json!({"adaptive_step": true, "pairs": [["ball", "terrain"]]}));
    assert!(
        e.contains("bbcc.adaptive_step") && e.contains("semi_implicit"),
        "{e}"
    );
}

/// The chip and the cube at rest, the chip flat on the slab, the cube on the chip, on
/// the slab, or leaning on the chip's edge.
fn assert_at_rest(w: &mut World, chip_kg: f64) {
    let (chip, rock) = (speed(w, "chip"), speed(w, "rock"));
    assert!(chip < 1e-3 && rock < 1e-3, "{chip_kg} kg: still moving, {chip} and {rock} m/s");
    let z_chip = world_get(w, "chip.r[3]");
    let z_rock = world_get(w, "rock.r[3]");
    assert!((z_chip - 0.01).abs() < 1e-3, "{chip_kg} kg: chip at {z_chip}");
    assert!((0.049..0.071).contains(&z_rock), "{chip_kg} kg: cube at {z_rock}");
}

/// The chip pinched at `model_step`: without `implicit_normal` (`options[0]`) it is
/// thrown (faster than 5 m/s or non-finite within 1 s); with it the run of `steps` ms
/// stays finite. The run with it, and the chip's greatest speed there, m/s.
fn thrown_then_implicit(
    chip_kg: f64,
    model_step: f64,
    options: &[&str],
    steps: usize,
) -> (World, f64) {
    assert_eq!(options[0], "implicit_normal");
    let explicit = run(&mut pinch_with(chip_kg, 0.2, model_step, &options[1..]), 1000);
    assert!(
        explicit.is_none_or(|v| v > 5.0),
        "{chip_kg} kg, {options:?} explicit: the chip at most {explicit:?} m/s (expected thrown)"
    );
    let mut w = pinch_with(chip_kg, 0.2, model_step, options);
    let fastest = run(&mut w, steps).expect("the implicit normal force stays finite");
    (w, fastest)
}

/// `bbcc.implicit_normal` with the pile's contact options.
const OPTIONS: &[&str] = &["implicit_normal", "stick"];

/// At 0.25 ms with the pile's options (`stick`), the explicit elastic part throws
/// chips of 200 g down to 5 g (measured 242 to 2e4 m/s); with the implicit normal
/// force every one is at rest under the cube after 2 s. (At 1 ms chips of 50 g and
/// less are still thrown: the tangential parts stay contact by contact,
/// docs/bbcc-at-scale.md.)
#[test]
fn a_pinched_light_body_rests_at_a_quarter_ms_with_the_implicit_normal_force() {
    for chip_kg in [0.2, 0.05, 0.02, 0.005] {
        let (mut w, fastest) = thrown_then_implicit(chip_kg, 2.5e-4, OPTIONS, 2000);
        // knocked about by the cube arriving at 2 m/s (measured: 0.9 to 2.6 m/s, 5.8 m/s
        // for the 5 g chip squeezed out; fixed sub-steps of 1/32 ms knock the 20 g chip
        // to 2.3 m/s), not thrown as explicitly (242 m/s and more)
        assert!(fastest < 10.0, "{chip_kg} kg: the chip reached {fastest} m/s");
        assert_at_rest(&mut w, chip_kg);
    }
}

/// At rest the implicit part adds nothing: the cube resting on the chip sinks as far
/// as with the explicit elastic part at a step it is stable at (the contact made
/// implicit on its own sinks further: docs/bbcc-at-scale.md).
#[test]
fn at_rest_the_implicit_normal_force_keeps_the_explicit_penetration() {
    let settle = |options: &[&str], model_step: f64| {
        let mut w = pinch_with(0.2, 0.0005, model_step, options);
        for _ in 0..1500 {
            w.do_step(1e-3).unwrap();
        }
        (
            world_get(&mut w, "chip.penetration"),
            world_get(&mut w, "rock.penetration"),
        )
    };
    let explicit = settle(&OPTIONS[1..], 1e-4);
    let implicit = settle(OPTIONS, 1e-3);
    assert!(explicit.0 > 0.0 && explicit.1 > 0.0);
    assert!((implicit.0 - explicit.0).abs() < 1e-3 * explicit.0, "{implicit:?} {explicit:?}");
    assert!((implicit.1 - explicit.1).abs() < 1e-3 * explicit.1, "{implicit:?} {explicit:?}");
}

#[test]
fn implicit_normal_needs_semi_implicit_and_not_adaptive_step() {
    let pairs = json!([["ball", "terrain"]]);
    let e = refused(json!({"implicit_normal": true, "pairs": pairs}));
    assert!(e.contains("bbcc.implicit_normal") && e.contains("semi_implicit"), "{e}");
    let e = refused(json!({"semi_implicit": true, "implicit_normal": true,
        "adaptive_step": true, "pairs": pairs}));
    assert!(e.contains("bbcc.implicit_normal") && e.contains("adaptive_step"), "{e}");
}

/// At 1 ms, the pile's model step: explicitly every chip here is thrown. With the
/// implicit solve and the pile's options (`stick`: its spring's tangent rows join the
/// solve) every chip from 500 g to 5 g rests under the cube or beside it; with
/// `contact_patch` alone (friction eq. (4) stays contact by contact) the 500 g and
/// 20 g chips rest, the 200 g and 50 g chips stay in place but are not at rest (1 to 2
/// cm/s after 3 s), and the 5 g chip is thrown (docs/bbcc-at-scale.md).
#[test]
fn at_1_ms_the_implicit_normal_force_holds_the_chips_in_place() {
    let patch: &[&str] = &["implicit_normal", "contact_patch"];
    let cases = [
        (0.5, OPTIONS, true),
        (0.2, OPTIONS, true),
        (0.05, OPTIONS, true),
        (0.02, OPTIONS, true),
        (0.005, OPTIONS, true),
        (0.5, patch, true),
        (0.02, patch, true),
        (0.2, patch, false),
        (0.05, patch, false),
    ];
    for (chip_kg, options, rests) in cases {
        let (mut w, fastest) = thrown_then_implicit(chip_kg, 1e-3, options, 3000);
        // measured 1.2 to 2.8 m/s with the cube arriving at 2 m/s, 5.6 m/s for the
        // 5 g chip squeezed out
        let limit = if chip_kg < 0.01 { 8.0 } else { 3.0 };
        assert!(fastest < limit, "{chip_kg} kg: the chip reached {fastest} m/s");
        if rests {
            assert_at_rest(&mut w, chip_kg);
        } else {
            let (chip, rock) = (speed(&mut w, "chip"), speed(&mut w, "rock"));
            assert!(chip < 0.05 && rock < 0.05, "{chip_kg} kg: {chip} and {rock} m/s");
            let z_chip = world_get(&mut w, "chip.r[3]");
            assert!((z_chip - 0.01).abs() < 1e-3, "{chip_kg} kg: chip at {z_chip}");
        }
    }
}

/// The chip's and the cube's energy, J: translation, rotation about their principal
/// axes (the body frame, from the orientation outputs) and height above z = 0.
fn energy(w: &mut World, chip_kg: f64) -> f64 {
    let (a, c) = (0.06, 0.02);
    let i_chip = chip_kg / 12.0 * (a * a + c * c);
    let bodies = [
        ("chip", chip_kg, [i_chip, i_chip, chip_kg / 6.0 * a * a]),
        ("rock", 1.0, [1.0 / 600.0; 3]),
    ];
    let mut e = 0.0;
    for (b, m, inertia) in bodies {
        let mut get = |name: &str, k: usize| world_get(w, &format!("{b}.{name}[{k}]"));
        let v = nalgebra::Vector3::new(get("v", 1), get("v", 2), get("v", 3));
        let spin = nalgebra::Vector3::new(get("w", 1), get("w", 2), get("w", 3));
        let q = nalgebra::Quaternion::new(get("q", 1), get("q", 2), get("q", 3), get("q", 4));
        let body_spin = nalgebra::UnitQuaternion::from_quaternion(q).inverse() * spin;
        let turning: f64 = (0..3).map(|k| inertia[k] * body_spin[k].powi(2)).sum();
        e += 0.5 * m * v.norm_squared() + 0.5 * turning + m * 9.81 * get("r", 3);
    }
    e
}

/// Stability at 1 ms, measured by energy: whatever the chip and the drop, the pinch
/// never adds energy (a contact past its step limit does: explicitly, or with the
/// normal force alone implicit, chips of 50 g and less gained up to 10^3 times the
/// drop's energy). Below 10 g a drop of 1 m still gains (5 g: 1 %, 2 g: 230 %) where
/// the sweeps stop short of convergence (docs/bbcc-at-scale.md).
#[test]
fn at_1_ms_a_pinch_never_gains_energy() {
    for chip_kg in [0.2, 0.05, 0.01] {
        for drop in [0.05, 0.5, 1.0] {
            let mut w = pinch_with(chip_kg, drop, 1e-3, OPTIONS);
            let start = energy(&mut w, chip_kg);
            let mut gain: f64 = 0.0;
            for _ in 0..3000 {
                w.do_step(1e-3).unwrap();
                // a body knocked off the slab falls on: its energy stays, but where it
                // lands is not this test's
                if world_get(&mut w, "rock.r[3]") < 0.0 || world_get(&mut w, "chip.r[3]") < 0.0 {
                    break;
                }
                gain = gain.max(energy(&mut w, chip_kg) - start);
            }
            // measured: none at all (0 J); rounding of the energy sum allows 1e-9 J
            assert!(gain <= 1e-9, "{chip_kg} kg from {drop} m gained {gain} J");
        }
    }
}
