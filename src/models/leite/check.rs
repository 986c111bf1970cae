//! Value checks of the scenario's `leite` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use super::section::LeiteSettings;
use crate::models::bekker::check::check_soil;
use crate::scenario::checker::Checker;
use crate::scenario::types::{RigSoilModel, Scenario, Shape};

/// Value checks of the scenario's `leite` section.
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    let Some(l) = &s.leite else {
        return;
    };
    for (i, r) in l.rigid_regions.iter().enumerate() {
        let p = format!("leite.rigid_regions[{i}]");
        c.vec(&format!("{p}.x"), &r.x);
        c.vec(&format!("{p}.y"), &r.y);
        if r.x[0] > r.x[1] || r.y[0] > r.y[1] {
            c.err(p, "each range must be [min, max] with min <= max");
        }
    }
    let r = &l.rigid;
    let p = |f: &str| format!("leite.rigid.{f}");
    c.positive(&p("k_n"), r.k_n);
    c.non_negative(&p("d_n"), r.d_n);
    if c.finite(&p("e"), r.e) && !(1.0..=3.0).contains(&r.e) {
        c.err(p("e"), format!("must be within [1, 3], got {}", r.e));
    }
    c.positive(&p("k_t"), r.k_t);
    c.non_negative(&p("d_t"), r.d_t);
    c.non_negative(&p("mu"), r.mu);
    let m = &l.soft;
    let p = |f: &str| format!("leite.soft.{f}");
    for (name, v) in [("c1", m.c1), ("c2", m.c2), ("rebound", m.rebound)] {
        if c.finite(&p(name), v) && !(0.0..=1.0).contains(&v) {
            c.err(p(name), format!("must be within [0, 1], got {v}"));
        }
    }
    for (name, v) in [
        ("k_y", m.k_y),
        ("density", m.density),
        ("k_r", m.k_r),
        ("v_stuck", m.v_stuck),
        ("stuck_stiffness", m.stuck_stiffness),
        ("v_reg", m.v_reg),
    ] {
        c.positive(&p(name), v);
    }
    for (name, v) in [
        ("k_l", m.k_l),
        ("stuck_damping", m.stuck_damping),
        ("damping", m.damping),
    ] {
        c.non_negative(&p(name), v);
    }
    check_rocks(c, s, l);
    let d = &l.discretization;
    let p = |f: &str| format!("leite.discretization.{f}");
    for (name, v, lo, hi) in [
        ("slices", d.slices, 1, 100),
        ("points", d.points, 1, 32),
        ("chaikin_iterations", d.chaikin_iterations, 0, 10),
        ("side_rings", d.side_rings, 1, 64),
        ("side_sectors", d.side_sectors, 3, 512),
    ] {
        if !(lo..=hi).contains(&v) {
            c.err(p(name), format!("must be {lo} to {hi}, got {v}"));
        }
    }
    let mut last = 0.0;
    for (i, q) in d.control_points.iter().enumerate() {
        let pi = format!("leite.discretization.control_points[{i}]");
        if !c.finite(&format!("{pi}[0]"), q[0]) || !c.finite(&format!("{pi}[1]"), q[1]) {
            continue;
        }
        if !(last..=1.0).contains(&q[0]) {
            c.err(
                format!("{pi}[0]"),
                format!("u must ascend within [0, 1] (after {last}), got {}", q[0]),
            );
        } else {
            last = q[0];
        }
        c.non_negative(&format!("{pi}[1]"), q[1]);
    }
    check_soil(c, s, "leite", &l.soil, &l.wheels, RigSoilModel::Leite);
}

/// The rocks name bodies with convex shapes that are not the model's wheels; the
/// wheel-rock constants are physical.
fn check_rocks(c: &mut Checker, s: &Scenario, l: &LeiteSettings) {
    for (i, name) in l.rocks.iter().enumerate() {
        let p = format!("leite.rocks[{i}]");
        let members = s.members(name);
        if members.is_empty() {
            c.err(
                p,
                format!(
                    "no body or collection named '{}'",
                    crate::scenario::checker::shown(name)
                ),
            );
            continue;
        }
        for b in members {
            let body = &s.bodies[b];
            if l.wheels.contains(&body.name) {
                c.err(
                    &p,
                    format!(
                        "'{}' is one of leite.wheels: a wheel cannot be its own rock",
                        body.name
                    ),
                );
            } else if matches!(
                body.shape,
                Shape::Wheel { .. } | Shape::Mesh { .. } | Shape::Torus { .. }
            ) {
                c.err(&p, format!("'{}' has no convex shape: rocks need a generated rock, convex_mesh, cuboid, sphere, cylinder, grouser_wheel, compound or cuboid_grid", body.name));
            }
        }
    }
    let m = &l.stone;
    let p = |f: &str| format!("leite.stone.{f}");
    c.positive(&p("k"), m.k);
    if c.finite(&p("zeta"), m.zeta) && !(m.zeta > 0.0 && m.zeta <= 1.0) {
        c.err(p("zeta"), format!("must be within (0, 1], got {}", m.zeta));
    }
    for (name, v) in [
        ("impact_velocity_min", m.impact_velocity_min),
        ("k_t", m.k_t),
        ("v_reg", m.v_reg),
    ] {
        c.positive(&p(name), v);
    }
    for (name, v) in [("d_t", m.d_t), ("mu", m.mu), ("margin", m.margin)] {
        c.non_negative(&p(name), v);
    }
}
