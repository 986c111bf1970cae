//! Issue 26, item 4: many instances of different FMUs on many threads at once, through
//! the FMI C API (the `fmi` crate loading the packaged FMUs), interleaved with FMU state
//! saves and restores and serialize/deserialize round trips: every instance's outputs
//! are bit-identical to the same instance run alone, without states.
//!
//! CI runs 8 FMUs x 200 steps (about 6 s: the PCM bubbles take 12 ms a step); `cargo
//! test --release --test many_instances -- --ignored` runs the 10 000 steps.

mod common;

use common::*;
use contact_fmu::cosim::variables::{Causality, VarType};
use contact_fmu::scenario;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiStatus;
use std::path::{Path, PathBuf};

/// Eight examples of every model family; the kinematic ones keep their start inputs.
const EXAMPLES: [&str; 8] = [
    "bbcc_sphere_drop",
    "bbcc_stacking",
    "scm_single_wheel",
    "scm_rover_wheels",
    "terra_single_wheel",
    "pcm_bouncing_bubbles",
    "leite_single_wheel",
    "bjh_kinematic_wheel",
];

/// The Real outputs' value references and the communication step of an example.
fn outputs_and_step(name: &str) -> (Vec<u32>, f64) {
    let path = root().join("examples").join(format!("{name}.json"));
    let s = scenario::load(&path).unwrap();
    let w = contact_fmu::cosim::World::new(&s, path.parent()).unwrap();
    let vrs = w
        .table()
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Output && v.ty == VarType::Real)
        .map(|v| v.vr)
        .collect();
    (vrs, s.default_experiment.step_size)
}

/// Runs `fmu` for `n` steps and returns the bits of every Real output after every step.
/// With `states`, every 37 steps it saves the FMU state, runs 5 steps, restores it and
/// goes on from there; every 90 steps it serializes the state, deserializes it and
/// sets that.
fn run(fmu: &Path, name: &str, n: usize, states: bool) -> Vec<u64> {
    let (vrs, h) = outputs_and_step(name);
    let import = load(fmu);
    let mut inst = start(&import, name);
    let mut out = Vec::with_capacity(n * vrs.len());
    let mut t = 0.0;
    let mut k = 0;
    while k < n {
        if states && k > 0 && k % 37 == 0 {
            let saved = inst.get_fmu_state().unwrap();
            let mut u = t;
            for _ in 0..5 {
                CoSimulation::do_step(&mut inst, u, h, true).unwrap();
                u += h;
            }
            inst.set_fmu_state(&saved).ok().unwrap();
        }
        if states && k > 0 && k % 90 == 0 {
            let s = inst.get_fmu_state().unwrap();
            let bytes = inst.serialize_fmu_state(&s).unwrap();
            let back = inst.deserialize_fmu_state(&bytes).unwrap();
            inst.set_fmu_state(&back).ok().unwrap();
        }
        step(&mut inst, t, h);
        t += h;
        k += 1;
        out.extend(get(&mut inst, &vrs).iter().map(|x| x.to_bits()));
    }
    Common::terminate(&mut inst).unwrap();
    out
}

fn many_at_once(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let fmus: Vec<PathBuf> = EXAMPLES
        .iter()
        .map(|name| {
            contact_fmu::packager::package(
                &root().join("examples").join(format!("{name}.json")),
                dir.path(),
                &runtime(),
            )
            .unwrap()
        })
        .collect();
    let alone: Vec<Vec<u64>> = EXAMPLES
        .iter()
        .zip(&fmus)
        .map(|(name, fmu)| run(fmu, name, n, false))
        .collect();
    let together: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = EXAMPLES
            .iter()
            .zip(&fmus)
            .map(|(name, fmu)| s.spawn(move || run(fmu, name, n, true)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((name, a), b) in EXAMPLES.iter().zip(&alone).zip(&together) {
        assert_eq!(a.len(), b.len(), "{name}");
        let first = a.iter().zip(b).position(|(x, y)| x != y);
        assert!(first.is_none(), "{name}: differs at value {first:?}");
    }
    eprintln!(
        "{} instances on {} threads, {n} steps each with state saves and restores: bit-identical to each run alone",
        EXAMPLES.len(),
        EXAMPLES.len()
    );
}

#[test]
fn eight_fmus_on_eight_threads_with_state_round_trips_match_each_run_alone() {
    many_at_once(200);
}

#[test]
#[ignore = "the issue's 10 000 steps per instance: about 6 minutes in release"]
fn eight_fmus_on_eight_threads_for_ten_thousand_steps() {
    many_at_once(10_000);
}
