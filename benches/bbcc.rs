//! BBCC speed (Buse 2023, section 5.2, the Scout parcours):
//! - `bbcc_scout_step`: 57 rover contact objects (cuboids, cylinders) in one collection
//!   (no self-collision), 38 obstacle cuboids, flat ground; one 1 ms step.
//! - `bbcc_grouser_wheel_on_grid_step`: a wheel with 12 grousers on a 100 x 100 cuboid
//!   surface; one 1 ms step.
//!
//! Prints the broad-phase candidate pairs and narrow-phase queries per step.

use contact_fmu::cosim::World;
use contact_fmu::scenario::parse_str;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;

fn mat() -> serde_json::Value {
    json!({"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5})
}

fn world(scenario: serde_json::Value) -> World {
    let s = parse_str(&scenario.to_string(), "bench").unwrap();
    let mut w = World::new(&s, None).unwrap();
    w.exit_initialization().unwrap();
    w
}

/// Deterministic pseudo-random numbers in [0, 1).
fn lcg(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

fn scout() -> World {
    let mut bodies = vec![];
    let mut seed = 42u64;
    // rover: 57 parts over a 2 m x 1.2 m footprint, 0.05 .. 0.6 m up; the lowest ones
    // touch the ground or obstacles
    for i in 0..57 {
        let (x, y) = ((i % 8) as f64 * 0.25 - 1.0, (i / 8) as f64 * 0.17 - 0.6);
        let z = 0.06 + 0.5 * lcg(&mut seed);
        let shape = if i % 3 == 0 {
            json!({"type": "cylinder", "radius": 0.08, "height": 0.06})
        } else {
            json!({"type": "cuboid", "size": [0.12, 0.1, 0.08]})
        };
        bodies.push(
            json!({"name": format!("part{i}"), "group": "rover", "shape": shape, "material": mat(),
            "motion": {"type": "kinematic", "position": [x, y, z]}}),
        );
    }
    // 38 obstacle cuboids on the ground around and under the rover
    for i in 0..38 {
        let (x, y) = (4.0 * lcg(&mut seed) - 2.0, 3.0 * lcg(&mut seed) - 1.5);
        let s = 0.1 + 0.2 * lcg(&mut seed);
        bodies.push(json!({"name": format!("rock{i}"), "group": "obstacles", "shape": {"type": "cuboid", "size": [s, s, s]},
            "material": mat(), "motion": {"type": "fixed", "position": [x, y, s / 2.0 - 0.01]}}));
    }
    world(json!({
        "name": "scout", "model_identifier": "scout",
        "default_experiment": {"stop_time": 1.0, "step_size": 0.001}, "model_step": 0.001,
        "terrain": {"surface": {"type": "flat"}, "material": mat()},
        "bodies": bodies,
        "bbcc": {"pairs": [["rover", "obstacles"], ["rover", "terrain"]]}
    }))
}

fn grouser_wheel_on_grid() -> World {
    let mut seed = 7u64;
    let heights: Vec<Vec<f64>> = (0..100)
        .map(|_| (0..100).map(|_| 0.005 * lcg(&mut seed)).collect())
        .collect();
    world(json!({
        "name": "grid", "model_identifier": "grid",
        "default_experiment": {"stop_time": 1.0, "step_size": 0.001}, "model_step": 0.001,
        "terrain": {"surface": {"type": "flat", "height": -10.0}},
        "bodies": [
            {"name": "surface", "shape": {"type": "cuboid_grid", "cell": 0.05, "heights": heights}, "material": mat(),
             "motion": {"type": "fixed", "position": [-2.5, -2.5, 0.0]}},
            {"name": "wheel", "shape": {"type": "grouser_wheel", "radius": 0.25, "width": 0.2, "count": 12, "grouser_height": 0.01, "grouser_thickness": 0.005},
             "material": mat(), "motion": {"type": "kinematic", "position": [0.0, 0.0, 0.262], "velocity": [0.1, 0.0, 0.0], "angular_velocity": [0.0, 0.5, 0.0]}}
        ],
        "bbcc": {"pairs": [["wheel", "surface"]]}
    }))
}

fn bench(c: &mut Criterion) {
    let mut w = scout();
    w.do_step(1e-3).unwrap();
    let bbcc = w
        .model::<contact_fmu::models::bbcc::adapter::Bbcc>()
        .unwrap();
    let ((broad, narrow), contacts) = (bbcc.contact_stats(), bbcc.contact_count());
    println!("bbcc_scout_step: 95 bodies, {broad} broad-phase candidate pairs, {narrow} narrow-phase queries, {contacts} contacts per step");
    c.bench_function("bbcc_scout_step", |b| {
        b.iter(|| w.do_step(black_box(1e-3)).unwrap())
    });

    let mut w = grouser_wheel_on_grid();
    w.do_step(1e-3).unwrap();
    let bbcc = w
        .model::<contact_fmu::models::bbcc::adapter::Bbcc>()
        .unwrap();
    let ((broad, narrow), contacts) = (bbcc.contact_stats(), bbcc.contact_count());
    println!("bbcc_grouser_wheel_on_grid_step: 10000 grid cuboids, {broad} broad-phase candidate pairs, {narrow} narrow-phase queries, {contacts} contacts per step");
    c.bench_function("bbcc_grouser_wheel_on_grid_step", |b| {
        b.iter(|| w.do_step(black_box(1e-3)).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
