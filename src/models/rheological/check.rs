//! Value checks of the scenario's `rheological` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use crate::models::bekker::check::check_soil;
use crate::scenario::checker::Checker;
use crate::scenario::types::{RigSoilModel, Scenario};

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
