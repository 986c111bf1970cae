//! The `rig` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md) and the
//! value checks serde cannot express, each problem with its field path.
//!
//! Read by [`super::adapter`]: the start values of the rig's FMI variables, and which
//! soil model carries the wheel.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{Checker, Scenario};

/// The single-wheel rig. The values are start values of its FMI variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigSpec {
    /// 1: slip-controlled (carriage speed `vx` prescribed); 2: force-controlled
    /// (carriage free in x, pulled back by `drawbar_force`). `rig.mode`.
    pub mode: i32,
    /// Vertical load on the wheel, wheel included, kg. `rig.load_mass`.
    pub load_mass: f64,
    /// Gravity, m/s^2. `rig.g`.
    #[serde(default = "default_g")]
    pub g: f64,
    /// Wheel radius, m. `wheel.radius`.
    pub radius: f64,
    /// Wheel width, m. `wheel.width`.
    pub width: f64,
    /// Initial hub position [x, z], m. `wheel.x0`, `wheel.z0`.
    pub position: [f64; 2],
    /// Start value of the input `rig.omega`, rad/s.
    #[serde(default)]
    pub omega: f64,
    /// Start value of the input `rig.vx`, m/s.
    #[serde(default)]
    pub vx: f64,
    /// Start value of the input `rig.drawbar_force`, N.
    #[serde(default)]
    pub drawbar_force: f64,
    /// The wheel-soil model: `terra`, `scm`, `bekker`, `bjh`, `rheological` or `leite`, with the scenario's
    /// section of that name.
    pub soil_model: RigSoilModel,
    /// Grousers of the generated SCM wheel (`wheel.grouser_count`,
    /// `wheel.grouser_height`, `wheel.grouser_thickness`); none: a plain cylinder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grousers: Option<Grousers>,
}

/// Grousers on a generated wheel: straight, across the full width, evenly spaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grousers {
    /// Number of grousers.
    pub count: u32,
    /// Radial height, m.
    pub height: f64,
    /// Tangential thickness, m.
    pub thickness: f64,
}

/// Wheel-soil models the rig can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RigSoilModel {
    /// TerRA (Barthelmes 2018).
    Terra,
    /// SCM (Krenn 2009) with a generated wheel mesh.
    Scm,
    /// The pure Bekker wheel (the scenario's `bekker` section).
    Bekker,
    /// The Bekker-Janosi-Hanamoto wheel (the scenario's `bjh` section).
    Bjh,
    /// The rheological wheel (the scenario's `rheological` section).
    Rheological,
    /// Leite's wheel (the scenario's `leite` section).
    Leite,
}

impl RigSoilModel {
    /// The soil model's scenario section key, also the `contact_model` of the rig's
    /// wheel body.
    pub fn key(self) -> &'static str {
        match self {
            RigSoilModel::Terra => "terra",
            RigSoilModel::Scm => "scm",
            RigSoilModel::Bekker => "bekker",
            RigSoilModel::Bjh => "bjh",
            RigSoilModel::Rheological => "rheological",
            RigSoilModel::Leite => "leite",
        }
    }
}

fn default_g() -> f64 {
    9.81
}

/// Value checks of the scenario's `rig` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::cosim::registry`].
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    if let Some(section) = &s.rig {
        rig(c, s, section);
    }
}

fn rig(c: &mut Checker, s: &Scenario, r: &RigSpec) {
    if r.mode != 1 && r.mode != 2 {
        c.err(
            "rig.mode",
            format!(
                "must be 1 (slip-controlled) or 2 (force-controlled), got {}",
                r.mode
            ),
        );
    }
    c.positive("rig.load_mass", r.load_mass);
    c.positive("rig.g", r.g);
    c.positive("rig.radius", r.radius);
    c.positive("rig.width", r.width);
    c.vec("rig.position", &r.position);
    c.finite("rig.omega", r.omega);
    c.finite("rig.vx", r.vx);
    c.finite("rig.drawbar_force", r.drawbar_force);
    let has_section = match r.soil_model {
        RigSoilModel::Terra => s.terra.is_some(),
        RigSoilModel::Scm => s.scm.is_some(),
        RigSoilModel::Bekker => s.bekker.is_some(),
        RigSoilModel::Bjh => s.bjh.is_some(),
        RigSoilModel::Rheological => s.rheological.is_some(),
        RigSoilModel::Leite => s.leite.is_some(),
    };
    if !has_section {
        let key = r.soil_model.key();
        let what = match r.soil_model {
            RigSoilModel::Scm => "with the soil",
            _ => "with the model and soil constants",
        };
        c.err(
            "rig.soil_model",
            format!(
                "'{key}' needs {} \"{key}\" section {what}",
                if key == "scm" { "an" } else { "a" }
            ),
        );
    }
    // the soil nodes under the wheel, each evaluated every model step (as for SCM
    // bodies, scm.bodies)
    if let (RigSoilModel::Scm, Some(scm)) = (r.soil_model, &s.scm) {
        let grouser = r.grousers.as_ref().map_or(0.0, |g| g.height.max(0.0));
        let size = (2.0 * (r.radius + grouser)).max(r.width);
        let ds = scm.soil.ds;
        let nodes = (size / ds).powi(2);
        if ds > 0.0 && size.is_finite() && nodes > crate::models::scm::section::MAX_BODY_NODES {
            c.err(
                "rig.radius",
                format!(
                    "the rig's wheel is {size:.3} m across: {nodes:.2e} soil nodes at scm.soil.ds = {ds} m under it, at most {:e} (each model step visits them); raise scm.soil.ds or make the wheel smaller",
                    crate::models::scm::section::MAX_BODY_NODES
                ),
            );
        }
    }
    if let Some(g) = &r.grousers {
        c.non_negative("rig.grousers.height", g.height);
        c.positive("rig.grousers.thickness", g.thickness);
        if g.count > 360 {
            c.err(
                "rig.grousers.count",
                format!("at most 360 grousers, got {}", g.count),
            );
        }
        if r.soil_model != RigSoilModel::Scm {
            c.err(
                "rig.grousers",
                "grousers shape the SCM wheel mesh: only with soil_model \"scm\"",
            );
        }
    }
    if let Some(i) = s.bodies.iter().position(|b| b.name == "wheel") {
        c.err(
            format!("bodies[{i}].name"),
            "'wheel' is the rig's wheel: choose another name",
        );
    }
}
