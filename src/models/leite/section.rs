//! The `leite` section of a scenario: its serde type (field docs become the JSON
//! Schema's descriptions) and the value checks serde cannot express, each problem with
//! its field path.

use super::model::{Ground, RigidModel, RigidRegion};
use super::shape::DEFAULT_CONTROL;
use super::soft::SoftModel;
use super::stone::StoneModel;
use crate::models::bekker::section::check_soil;
use crate::models::bekker::BekkerSoil;
use crate::scenario::{Checker, RigSoilModel, Scenario, Shape};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Leite and Schäfer's wheel (Leite 2010, section 3): one model over a rigid surface
/// and soft soil, switching by what lies under the hub. FMI parameters
/// `leite.<constant>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeiteSettings {
    /// The ground outside the rigid regions (start of the tunable Integer parameter
    /// `leite.ground`: 0 rigid, 1 soft).
    #[serde(default)]
    pub ground: Ground,
    /// Rectangles of the terrain where the ground is rigid whatever `ground` says.
    #[serde(default)]
    pub rigid_regions: Vec<RigidRegion>,
    /// The rigid surface's compliance (section 3.1).
    #[serde(default)]
    pub rigid: RigidModel,
    /// The soft soil's model constants (section 3.3).
    #[serde(default)]
    pub soft: SoftModel,
    /// Bekker soil constants of the soft soil; default: DLR-A of Krenn 2009 (Leite
    /// 2010, Table 1 gives DLR-D2: n 1.4, k_c -6.67e5, k_phi 1.92e8, c 13 Pa, phi 32 deg).
    #[serde(default)]
    pub soil: BekkerSoil,
    /// How finely the wheel and its stresses are resolved (fixed FMI parameters).
    #[serde(default)]
    pub discretization: Discretization,
    /// Kinematic bodies with a `wheel` shape the model acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<String>,
    /// Rocks the wheels meet (section 3.2): bodies or collections (`group`) with a
    /// convex shape (a generated rock's hull, convex_mesh, cuboid, sphere, cylinder,
    /// compound, cuboid_grid), fixed, kinematic or free (free rocks are pushed back).
    #[serde(default)]
    pub rocks: Vec<String>,
    /// The wheel-rock contact (section 3.2; FMI parameters `leite.stone.*`, declared
    /// when there are rocks).
    #[serde(default)]
    pub stone: StoneModel,
}

/// The soft-soil model's resolution (Leite 2010, Fig. 7-9).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Discretization {
    /// Lateral slices of the wheel (Fig. 7), 1-100.
    pub slices: u32,
    /// Gauss-Legendre points on each half of a slice's contact arc, 1-32.
    pub points: u32,
    /// Rounds of Chaikin's corner cutting (Fig. 8), 0-10.
    pub chaikin_iterations: u32,
    /// The four middle control points (u, h) of the normal stress shape: u along the
    /// arc (0 exit, 1/2 maximum stress, 1 entry), ascending, h over the Bekker pressure
    /// at the angle of maximum stress. Default: the fit to Wong and Reece's shape for
    /// n = 1.4 (DLR-D2).
    pub control_points: [[f64; 2]; 4],
    /// Rings of the side mesh for the lateral bulldozing (Fig. 9), 1-64.
    pub side_rings: u32,
    /// Sectors of the side mesh, 3-512.
    pub side_sectors: u32,
}

impl Default for Discretization {
    fn default() -> Self {
        Discretization {
            slices: 10,
            points: 4,
            chaikin_iterations: 5,
            control_points: DEFAULT_CONTROL,
            side_rings: 8,
            side_sectors: 48,
        }
    }
}

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
                    crate::scenario::shown(name)
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
