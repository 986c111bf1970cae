//! The `bekker` and `bjh` sections of a scenario: their serde types (field docs become
//! the JSON Schema's descriptions). Its value checks are [`super::check`].

use super::{BekkerModel, BekkerSoil, BjhModel};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The pure Bekker wheel (Buse 2023, section 4.3.2; Wong 2008, ch. 2). FMI parameters
/// `bekker.<constant>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BekkerSettings {
    /// Model constants.
    #[serde(default)]
    pub model: BekkerModel,
    /// Soil constants; default: DLR-A of Krenn 2009.
    #[serde(default)]
    pub soil: BekkerSoil,
    /// Kinematic bodies with a `wheel` shape the model acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<String>,
}

/// The Bekker-Janosi-Hanamoto wheel in Wong and Reece's form (Buse 2023, section
/// 4.3.2; Wong 2008, ch. 2). FMI parameters `bjh.<constant>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BjhSettings {
    /// Model constants.
    #[serde(default)]
    pub model: BjhModel,
    /// Soil constants; default: DLR-A of Krenn 2009.
    #[serde(default)]
    pub soil: BekkerSoil,
    /// Kinematic bodies with a `wheel` shape the model acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<String>,
}
