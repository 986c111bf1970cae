//! Value checks of the scenario's `terra` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use super::section::TerraSettings;
use crate::models::wheel::check::check_wheel_body;
use crate::scenario::checker::Checker;
use crate::scenario::types::Scenario;

/// Value checks of the scenario's `terra` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::registry`].
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
