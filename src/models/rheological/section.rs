//! The `rheological` section of a scenario: its serde type (field docs become the JSON
//! Schema's descriptions). Its value checks are [`super::check`].

use super::RheologicalModel;
use crate::models::bekker::BekkerSoil;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The rheological wheel: spring-damper ground with stiction (Buse 2023, section
/// 4.3.2). FMI parameters `rheological.<constant>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RheologicalSettings {
    /// Model constants.
    #[serde(default)]
    pub model: RheologicalModel,
    /// Soil constants the ground's spring, friction and resistance derive from;
    /// default: DLR-A of Krenn 2009.
    #[serde(default)]
    pub soil: BekkerSoil,
    /// Kinematic bodies with a `wheel` shape the model acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<String>,
}
