//! Value checks of the scenario's `scm` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use super::section::{ScmSettings, MAX_BODY_NODES};
use crate::scenario::checker::Checker;
use crate::scenario::types::{Motion, Scenario, Shape};

/// Value checks of the scenario's `scm` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::registry`].
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    if let Some(section) = &s.scm {
        scm_settings(c, s, section);
    }
}

fn scm_settings(c: &mut Checker, s: &Scenario, scm: &ScmSettings) {
    let soil = &scm.soil;
    c.positive("scm.soil.ds", soil.ds);
    c.positive("scm.soil.n", soil.n);
    for (name, v) in [
        ("kc", soil.kc),
        ("kphi", soil.kphi),
        ("c", soil.c),
        ("mu", soil.mu),
        ("damping", soil.damping),
    ] {
        c.non_negative(&format!("scm.soil.{name}"), v);
    }
    c.positive("scm.soil.k_e", soil.k_e);
    c.positive("scm.soil.v_shear", soil.v_shear);
    c.positive("scm.soil.k_shear", soil.k_shear);
    c.non_negative("scm.soil.density", soil.density);
    if soil.erosion_sweeps > i32::MAX as u32 {
        // an FMI Integer parameter
        c.err(
            "scm.soil.erosion_sweeps",
            "must be at most 2147483647 (0: until settled)",
        );
    }
    c.acute_angle("scm.soil.phi", soil.phi);
    c.acute_angle("scm.soil.repose", soil.repose);
    if soil.kc + soil.kphi <= 0.0 {
        c.err("scm.soil.kphi", "kc and kphi cannot both be 0");
    }
    c.vec("scm.extent", &scm.extent);
    if scm.extent[1] <= scm.extent[0] || scm.extent[3] <= scm.extent[2] {
        c.err(
            "scm.extent",
            "must be [x_min, x_max, y_min, y_max] with x_min < x_max and y_min < y_max",
        );
    } else if soil.ds > 0.0 {
        let nodes = ((scm.extent[1] - scm.extent[0]) / soil.ds)
            .max((scm.extent[3] - scm.extent[2]) / soil.ds);
        if nodes > 1e9 {
            c.err(
                "scm.extent",
                format!(
                    "{nodes:.3e} nodes along one side at ds = {}: at most 1e9",
                    soil.ds
                ),
            );
        }
    }
    c.non_negative("scm.update_interval", scm.update_interval);
    c.non_negative("scm.export_interval", scm.export_interval);
    if let Some(m) = &scm.soil_map {
        c.positive("scm.soil_map.cell", m.cell);
        c.vec("scm.soil_map.origin", &m.origin);
        if m.classes.is_empty() || m.classes.len() > 255 {
            c.err(
                "scm.soil_map.classes",
                format!("needs 1 to 255 classes, has {}", m.classes.len()),
            );
        }
        for (k, class) in m.classes.iter().enumerate() {
            let at = |name: &str| format!("scm.soil_map.classes[{k}].{name}");
            if let Some(n) = class.n {
                c.positive(&at("n"), n);
            }
            for (name, v) in [("kc", class.kc), ("kphi", class.kphi), ("c", class.c)] {
                if let Some(v) = v {
                    c.non_negative(&at(name), v);
                }
            }
            for (name, v) in [("phi", class.phi), ("repose", class.repose)] {
                if let Some(v) = v {
                    c.acute_angle(&at(name), v);
                }
            }
        }
    }
    if s.terra.is_some() {
        c.err(
            "scm",
            "a scenario has one soil: \"terra\" and \"scm\" both define soil.c and soil.phi",
        );
    }
    let mut seen: Vec<&str> = vec![];
    for (i, name) in scm.bodies.iter().enumerate() {
        let p = format!("scm.bodies[{i}]");
        match s.bodies.iter().find(|b| &b.name == name) {
            None => c.err(
                &p,
                format!(
                    "no body named '{name}' (bodies: {})",
                    crate::scenario::checker::body_names(s)
                ),
            ),
            Some(b) => {
                // the soil nodes under one body, each evaluated every model step
                if let Some(size) = b.shape.size_bound() {
                    let nodes = (size / soil.ds).powi(2);
                    if soil.ds > 0.0 && nodes > MAX_BODY_NODES {
                        c.err(
                            &p,
                            format!(
                                "'{name}' is {size:.3} m across: {nodes:.2e} soil nodes at ds = {} m under it, at most {MAX_BODY_NODES:e} (each model step visits them); raise scm.soil.ds or make the body smaller",
                                soil.ds
                            ),
                        );
                    }
                }
                if matches!(b.motion, Motion::Fixed { .. }) {
                    c.err(
                        &p,
                        format!("'{name}' is fixed: SCM bodies are kinematic or free"),
                    );
                }
                if matches!(b.shape, Shape::CuboidGrid { .. }) {
                    c.err(
                        &p,
                        format!("'{name}': a cuboid_grid has no SCM contact mesh"),
                    );
                }
            }
        }
        if seen.contains(&name.as_str()) {
            c.err(&p, format!("'{name}' is listed twice"));
        }
        seen.push(name);
    }
}
