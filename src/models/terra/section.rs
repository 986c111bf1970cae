//! The `terra` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md) and the
//! value checks serde cannot express, each problem with its field path.
//!
//! Read by [`super::adapter`]: the constants become FMI parameters `terra.*` and
//! `soil.*`; the conversion to [`super::TerraParams`] is [`super::adapter::params`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{Checker, Motion, Scenario, Shape};

/// TerRA settings (Barthelmes 2018). FMI parameters `terra.<constant>` and
/// `soil.c`, `soil.phi`, `soil.rho`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerraSettings {
    /// Model constants; default: Table 1 of the paper and the defaults named there.
    #[serde(default)]
    pub model: TerraModel,
    /// Soil constants.
    #[serde(default)]
    pub soil: TerraSoil,
    /// Kinematic `wheel` bodies TerRA acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<TerraWheel>,
}

/// A kinematic wheel body with TerRA contact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerraWheel {
    /// Name of a kinematic body with a `wheel` shape.
    pub body: String,
    /// Mass estimate m of eq. (6) and (10): the load the wheel carries, kg
    /// (FMI parameter `<body>.mass_estimate`).
    pub mass_estimate: f64,
}

/// TerRA model constants (Barthelmes 2018, Table 1 and section 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TerraModel {
    /// Spring constant of eq. (2), N/m^k_exp.
    pub k_c: f64,
    /// Spring exponent of eq. (2), 1.
    pub k_exp: f64,
    /// Damping ratio of eq. (6), 1.
    pub k_d: f64,
    /// Elastic layer stiffness of eq. (3), N/m.
    pub k_el: f64,
    /// Sinkage where slip-sinkage stops, eq. (9), m.
    pub k_s0: f64,
    /// Slip-sinkage exponent, eq. (9), 1.
    pub k_s_exp: f64,
    /// Slip-sinkage scaling at zero sinkage, eq. (9), 1.
    pub k_s_max: f64,
    /// Shear deformation modulus of eq. (20), m.
    pub k_j: f64,
    /// PT1 time constant of eq. (22), s.
    pub t_pt1: f64,
    /// Slip velocity of the tanh regularization, eq. (26), m/s.
    pub v_thresh: f64,
    /// Resistance controller gain k_P, eq. (25), s/m.
    pub k_p: f64,
    /// Resistance controller integral gain k_I, eq. (25), 1/s.
    pub k_i: f64,
    /// Anti-windup factor, eq. (25), 1.
    pub k_awu: f64,
}

impl Default for TerraModel {
    fn default() -> Self {
        let p = crate::models::terra::TerraParams::table1();
        TerraModel {
            k_c: p.k_c,
            k_exp: p.k_exp,
            k_d: p.k_d,
            k_el: p.k_el,
            k_s0: p.k_s0,
            k_s_exp: p.k_s_exp,
            k_s_max: p.k_s_max,
            k_j: p.k_j,
            t_pt1: p.t_pt1,
            v_thresh: p.v_thresh,
            k_p: p.k_p,
            k_i: p.k_i,
            k_awu: p.k_awu,
        }
    }
}

/// Soil constants of TerRA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TerraSoil {
    /// Cohesion, Pa.
    pub c: f64,
    /// Internal friction angle, rad.
    pub phi: f64,
    /// Bulk density, kg/m^3.
    pub rho: f64,
}

impl Default for TerraSoil {
    fn default() -> Self {
        let p = crate::models::terra::TerraParams::table1();
        TerraSoil {
            c: p.c,
            phi: p.phi,
            rho: p.rho,
        }
    }
}

/// Value checks of the scenario's `terra` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::cosim::registry`].
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    if let Some(section) = &s.terra {
        terra(c, s, section);
    }
}

fn terra(c: &mut Checker, s: &Scenario, t: &TerraSettings) {
    let m = &t.model;
    for (name, v) in [
        ("k_c", m.k_c),
        ("k_exp", m.k_exp),
        ("k_el", m.k_el),
        ("k_s0", m.k_s0),
        ("k_j", m.k_j),
        ("t_pt1", m.t_pt1),
        ("v_thresh", m.v_thresh),
        ("k_p", m.k_p),
        ("k_awu", m.k_awu),
    ] {
        c.positive(&format!("terra.model.{name}"), v);
    }
    for (name, v) in [
        ("k_d", m.k_d),
        ("k_s_exp", m.k_s_exp),
        ("k_s_max", m.k_s_max),
        ("k_i", m.k_i),
    ] {
        c.non_negative(&format!("terra.model.{name}"), v);
    }
    c.non_negative("terra.soil.c", t.soil.c);
    c.positive("terra.soil.rho", t.soil.rho);
    c.acute_angle("terra.soil.phi", t.soil.phi);
    let mut seen: Vec<&str> = vec![];
    for (i, w) in t.wheels.iter().enumerate() {
        let p = format!("terra.wheels[{i}]");
        c.positive(&format!("{p}.mass_estimate"), w.mass_estimate);
        match s.bodies.iter().find(|b| b.name == w.body) {
            None => c.err(format!("{p}.body"), format!("no body named '{}'", w.body)),
            Some(b) => {
                if !matches!(b.shape, Shape::Wheel { .. }) {
                    c.err(
                        format!("{p}.body"),
                        format!("'{}' must have a wheel shape", w.body),
                    );
                }
                if !matches!(b.motion, Motion::Kinematic { .. }) {
                    c.err(
                        format!("{p}.body"),
                        format!(
                            "'{}' must be kinematic (TerRA is a force element on a driven wheel)",
                            w.body
                        ),
                    );
                }
            }
        }
        if seen.contains(&w.body.as_str()) {
            c.err(format!("{p}.body"), format!("'{}' is listed twice", w.body));
        }
        seen.push(&w.body);
    }
}
