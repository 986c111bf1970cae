//! Value checks of the scenario's `bekker` sections that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use super::BekkerSoil;
use crate::models::wheel::check::{check_wheel_bodies, wheel_width};
use crate::scenario::checker::Checker;
use crate::scenario::types::{RigSoilModel, Scenario};

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
