//! The `rheological` section of a scenario: its serde type (field docs become the JSON
//! Schema's descriptions) and the value checks serde cannot express, each problem with
//! its field path.

use super::RheologicalModel;
use crate::models::bekker::section::check_soil;
use crate::models::bekker::BekkerSoil;
use crate::scenario::{Checker, RigSoilModel, Scenario};
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

/// Value checks of the scenario's `rheological` section.
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    let Some(r) = &s.rheological else {
        return;
    };
    let m = &r.model;
    let p = |f: &str| format!("rheological.model.{f}");
    c.positive(&p("load"), m.load);
    c.non_negative(&p("zeta"), m.zeta);
    if c.finite(&p("stiction"), m.stiction) && m.stiction < 1.0 {
        c.err(
            p("stiction"),
            format!(
                "must be at least 1 (the stiction force is at least the sliding force), got {}",
                m.stiction
            ),
        );
    }
    c.positive(&p("t_i"), m.t_i);
    c.non_negative(&p("t_d"), m.t_d);
    c.positive(&p("v_stick"), m.v_stick);
    c.positive(&p("v_reg"), m.v_reg);
    check_soil(
        c,
        s,
        "rheological",
        &r.soil,
        &r.wheels,
        RigSoilModel::Rheological,
    );
}
