//! The `bekker` and `bjh` sections of a scenario: their serde types (field docs become
//! the JSON Schema's descriptions) and the value checks serde cannot express, each
//! problem with its field path.

use super::{BekkerModel, BekkerSoil, BjhModel};
use crate::models::wheel::section::{check_wheel_bodies, wheel_width};
use crate::scenario::{Checker, RigSoilModel, Scenario};
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

/// Value checks of the scenario's `bekker` section.
pub(crate) fn check_bekker(c: &mut Checker, s: &Scenario) {
    if let Some(b) = &s.bekker {
        c.non_negative("bekker.model.damping", b.model.damping);
        c.positive("bekker.model.v_reg", b.model.v_reg);
        check_soil(c, s, "bekker", &b.soil, &b.wheels, RigSoilModel::Bekker);
    }
}

/// Value checks of the scenario's `bjh` section.
pub(crate) fn check_bjh(c: &mut Checker, s: &Scenario) {
    if let Some(b) = &s.bjh {
        let m = &b.model;
        for (name, v) in [("c1", m.c1), ("c2", m.c2), ("rebound", m.rebound)] {
            let p = format!("bjh.model.{name}");
            if c.finite(&p, v) && !(0.0..=1.0).contains(&v) {
                c.err(p, format!("must be within [0, 1], got {v}"));
            }
        }
        if !(1..=64).contains(&m.points) {
            c.err(
                "bjh.model.points",
                format!("must be 1 to 64 Gauss-Legendre points, got {}", m.points),
            );
        }
        c.non_negative("bjh.model.damping", m.damping);
        c.positive("bjh.model.v_reg", m.v_reg);
        check_soil(c, s, "bjh", &b.soil, &b.wheels, RigSoilModel::Bjh);
    }
}

/// The soil constants and the wheels of section `key` (also the rheological wheel's,
/// whose ground follows from the same constants); `as_rig`: the rig's `soil_model`
/// value that uses this section.
pub(crate) fn check_soil(
    c: &mut Checker,
    s: &Scenario,
    key: &str,
    soil: &BekkerSoil,
    wheels: &[String],
    as_rig: RigSoilModel,
) {
    let n = soil.n;
    if c.finite(&format!("{key}.soil.n"), n) && !(n > 0.0 && n < 3.0) {
        c.err(
            format!("{key}.soil.n"),
            format!("must be in (0, 3): Bekker's rigid-wheel formulas need 3 - n > 0, got {n}"),
        );
    }
    c.finite(&format!("{key}.soil.kc"), soil.kc);
    c.finite(&format!("{key}.soil.kphi"), soil.kphi);
    c.non_negative(&format!("{key}.soil.c"), soil.c);
    c.acute_angle(&format!("{key}.soil.phi"), soil.phi);
    c.positive(&format!("{key}.soil.k_shear"), soil.k_shear);
    check_wheel_bodies(
        c,
        s,
        wheels
            .iter()
            .enumerate()
            .map(|(i, w)| (format!("{key}.wheels[{i}]"), w.as_str())),
        key,
    );
    // k_c may be negative (DLR-D2); the pressure must still grow with sinkage.
    let mut widths: Vec<(String, f64)> = wheels
        .iter()
        .enumerate()
        .filter_map(|(i, w)| Some((format!("{key}.wheels[{i}]"), wheel_width(s, w)?)))
        .collect();
    if let Some(r) = s.rig.as_ref().filter(|r| r.soil_model == as_rig) {
        widths.push(("rig.width".into(), r.width));
    }
    for (p, b) in widths {
        if b > 0.0 && soil.k_eq(b) <= 0.0 {
            c.err(
                p,
                format!(
                    "{key}.soil: k_c/b + k_phi = {} N/m^(n+2) for this wheel's width b = {b} m; \
                     the pressure-sinkage modulus must be positive",
                    soil.k_eq(b)
                ),
            );
        }
    }
}
