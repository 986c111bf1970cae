//! BBCC compounds keep separate convex hulls (Buse 2023, section 3.1): every pair of
//! convex parts that touches is a contact of its own, with its own memory. A table on
//! four legs rests level with each leg carrying a quarter of its weight; a sphere
//! resting across two cells of a cuboid grid is carried by both.

mod common;

use common::*;
use contact_fmu::cosim::World;
use contact_fmu::models::bbcc::adapter::Bbcc;
use contact_fmu::scenario::parse_str;
use serde_json::json;

const G: f64 = 9.81;

fn world(scenario: serde_json::Value) -> World {
    let s = parse_str(&scenario.to_string(), "test").unwrap();
    let mut w = World::new(&s, None).unwrap();
    w.exit_initialization().unwrap();
    w
}

/// Static penetration of a Hunt-Crossley contact carrying `f` (N) with Buse 2023
/// eq. (3) for E1 = E2 = `e`, nu = 0.3 and effective radius `r`: f = k delta^1.5.
fn static_depth(f: f64, e: f64, r: f64) -> f64 {
    let compliance = (1.0 - 0.3f64 * 0.3) / e;
    let k = 4.0 / 3.0 * r.sqrt() / compliance;
    (f / k).powf(2.0 / 3.0)
}

#[test]
fn a_table_on_four_legs_rests_level_with_a_quarter_of_its_weight_on_each_leg() {
    let mat = json!({"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5});
    let leg = |x: f64, y: f64| json!({"shape": {"type": "cuboid", "size": [0.05, 0.05, 0.3]}, "position": [x, y, -0.15]});
    let mut w = world(json!({
        "name": "table", "model_identifier": "table",
        "default_experiment": {"stop_time": 3.0, "step_size": 0.001},
        "terrain": {"surface": {"type": "flat"}, "material": mat},
        "bodies": [{"name": "table", "material": mat,
            "shape": {"type": "compound", "parts": [
                {"shape": {"type": "cuboid", "size": [1.0, 0.6, 0.04]}, "position": [0.0, 0.0, 0.02]},
                leg(0.45, 0.25), leg(-0.45, 0.25), leg(0.45, -0.25), leg(-0.45, -0.25)]},
            "motion": {"type": "free", "mass": 10.0, "inertia": [0.4, 0.9, 1.2],
                "position": [0.0, 0.0, 0.305]}}],
        "bbcc": {"pairs": [["table", "terrain"]]}
    }));
    for _ in 0..3000 {
        w.do_step(1e-3).unwrap();
    }
    let bbcc = w.model::<Bbcc>().unwrap();
    assert_eq!(bbcc.contact_count(), 4, "each leg touches the ground");
    // R_i: the table's longest edge, 1 m; the ground is unbounded, so R = 1 m
    let delta = static_depth(10.0 * G / 4.0, 1e7, 1.0);
    let z = world_get(&mut w, "table.r[3]");
    let depth = 0.3 - z;
    // at rest: the residual motion after 3 s is far below 1 % of the penetration
    assert!(
        (depth - delta).abs() < 0.01 * delta,
        "each leg sinks {depth:.6e} m, {delta:.6e} m for m g / 4"
    );
    let (qx, qy) = (
        world_get(&mut w, "table.q[2]"),
        world_get(&mut w, "table.q[3]"),
    );
    assert!(
        qx.abs() < 1e-6 && qy.abs() < 1e-6,
        "level: q = (.., {qx:e}, {qy:e}, ..)"
    );
    assert_eq!(world_get(&mut w, "table.contacts"), 1.0, "one partner");
}

#[test]
fn a_sphere_across_two_grid_cells_is_carried_by_both() {
    let mat = json!({"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5});
    // two 0.2 m cells side by side along x, tops at z = 0, their common edge at x = 0;
    // the sphere's lowest point on that edge presses into both top faces: two contacts
    // straight up, half the weight each
    let mut w = world(json!({
        "name": "grid", "model_identifier": "grid",
        "default_experiment": {"stop_time": 3.0, "step_size": 0.001},
        "terrain": {"surface": {"type": "flat", "height": -10.0}},
        "bodies": [
            {"name": "grid", "material": mat,
             "shape": {"type": "cuboid_grid", "cell": 0.2, "heights": [[0.0, 0.0]]},
             "motion": {"type": "fixed", "position": [-0.2, -0.1, 0.0]}},
            {"name": "ball", "material": mat, "shape": {"type": "sphere", "radius": 0.1},
             "motion": {"type": "free", "mass": 2.0, "position": [0.0, 0.0, 0.1]}}],
        "bbcc": {"pairs": [["ball", "grid"]]}
    }));
    for _ in 0..3000 {
        w.do_step(1e-3).unwrap();
    }
    assert_eq!(w.model::<Bbcc>().unwrap().contact_count(), 2);
    // R: 1/R = 1/0.2 (the sphere's longest edge) + 1/1.0 (the grid's: its cuboids are
    // of unit height): R = 0.1667 m
    let r = 1.0 / (1.0 / 0.2 + 1.0 / 1.0);
    let half = static_depth(2.0 * G / 2.0, 1e7, r);
    let whole = static_depth(2.0 * G, 1e7, r);
    let depth = 0.1 - world_get(&mut w, "ball.r[3]");
    assert!(
        (depth - half).abs() < 0.01 * half,
        "sinks {depth:.6e} m: {half:.6e} m with half the weight per cell, {whole:.6e} m with one cell carrying it"
    );
    assert!(
        world_get(&mut w, "ball.r[1]").abs() < 1e-9,
        "stays on the edge"
    );
}
