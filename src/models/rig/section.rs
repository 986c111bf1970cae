//! The `rig` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md). Its value checks are [`super::check`].
//!
//! Read by [`super::adapter`]: the start values of the rig's FMI variables, and which
//! soil model carries the wheel.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};


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
