//! The `terra` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md) and the
//! value checks serde cannot express, each problem with its field path.
//!
//! Read by [`super::adapter`]: the constants become FMI parameters `terra.*` and
//! `soil.*`; the conversion to [`super::TerraParams`] is [`super::adapter::params`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::params::{TerraModel, TerraSoil};
use crate::models::wheel::section::check_wheel_body;
use crate::scenario::{Checker, Scenario};

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
        check_wheel_body(c, s, &format!("{p}.body"), &w.body, "TerRA");
        if seen.contains(&w.body.as_str()) {
            c.err(format!("{p}.body"), format!("'{}' is listed twice", w.body));
        }
        seen.push(&w.body);
    }
}
