//! The `terra` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md). Its value checks are [`super::check`].
//!
//! Read by [`super::adapter`]: the constants become FMI parameters `terra.*` and
//! `soil.*`; the conversion to [`super::TerraParams`] is [`super::adapter::params`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::params::{TerraModel, TerraSoil};

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
