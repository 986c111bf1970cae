//! Value checks of the scenario's `rig` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use super::section::{RigSoilModel, RigSpec};
use crate::scenario::checker::Checker;
use crate::scenario::types::Scenario;

/// Value checks of the scenario's `rig` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::registry`].
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
