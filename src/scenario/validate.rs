//! The scenario's value checks that serde cannot express (ranges, names, references
//! between fields), then each model's section checks and the start values, all with
//! every model of [`crate::registry`]. All problems are collected, each with its field
//! path.

use super::checker::{is_plain_name, shown, Checker, MAX_NAME_LEN, RESERVED_NAMES};
use super::error::FieldError;
use super::types::*;

/// All problems of `s`; empty when it is valid.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    let mut c = Checker { errors: vec![] };
    if s.name.trim().is_empty() {
        c.err("name", "must not be empty");
    }
    if !is_plain_name(&s.model_identifier) {
        c.err(
            "model_identifier",
            format!(
                "must be a C identifier (letters, digits, '_', starting with a letter, at most {MAX_NAME_LEN} characters), got '{}'",
                shown(&s.model_identifier)
            ),
        );
    }
    let e = &s.default_experiment;
    c.finite("default_experiment.start_time", e.start_time);
    c.positive("default_experiment.step_size", e.step_size);
    if c.finite("default_experiment.stop_time", e.stop_time) && e.stop_time <= e.start_time {
        c.err(
            "default_experiment.stop_time",
            format!(
                "must be > start_time ({}), got {}",
                e.start_time, e.stop_time
            ),
        );
    }
    c.positive("model_step", s.model_step);
    // issue 26: a model step of 1e-300 s was accepted; fmi2DoStep refuses a step of
    // more than 1e8 sub-steps, so the default experiment must not ask for one
    if s.model_step > 0.0 && e.step_size > 0.0 && e.step_size / s.model_step > 1e8 {
        c.err(
            "model_step",
            format!(
                "{} s makes each default communication step of {} s {:.3e} sub-steps; at most 1e8 run",
                s.model_step,
                e.step_size,
                e.step_size / s.model_step
            ),
        );
    }
    c.vec("gravity", &s.gravity);

    match &s.terrain.surface {
        SurfaceSpec::Flat { height } => {
            c.finite("terrain.surface.height", *height);
        }
        SurfaceSpec::Inclined { height, angle } => {
            c.finite("terrain.surface.height", *height);
            c.angle("terrain.surface.angle", *angle);
        }
        SurfaceSpec::Ramps { height, ramps } => {
            c.finite("terrain.surface.height", *height);
            if ramps.is_empty() {
                c.err("terrain.surface.ramps", "needs at least one ramp");
            }
            for (i, r) in ramps.iter().enumerate() {
                let p = format!("terrain.surface.ramps[{i}]");
                c.finite(&format!("{p}.x"), r.x);
                c.angle(&format!("{p}.angle"), r.angle);
                if i > 0 && r.x <= ramps[i - 1].x {
                    c.err(
                        format!("{p}.x"),
                        format!(
                            "must be > the previous ramp's x ({}), got {}",
                            ramps[i - 1].x,
                            r.x
                        ),
                    );
                }
            }
        }
        SurfaceSpec::Generated(p) => {
            if let Err(e) = p.validate() {
                match e {
                    crate::assets::AssetError::Param { field, message } => {
                        let rest = field.split_once('.').map_or("", |(_, r)| r);
                        c.err(format!("terrain.surface.{rest}"), message);
                    }
                    e => c.err("terrain.surface", e.to_string()),
                }
            }
        }
        SurfaceSpec::Profile { points } => {
            if points.len() < 2 {
                c.err(
                    "terrain.surface.points",
                    format!("needs at least 2 points, got {}", points.len()),
                );
            }
            for (i, pt) in points.iter().enumerate() {
                c.vec(&format!("terrain.surface.points[{i}]"), pt);
                if i > 0 && pt[0] <= points[i - 1][0] {
                    c.err(
                        format!("terrain.surface.points[{i}][0]"),
                        format!("x must increase: {} after {}", pt[0], points[i - 1][0]),
                    );
                }
            }
        }
    }
    if let Some(m) = &s.terrain.material {
        c.material("terrain.material", m);
    }

    let mut names: Vec<&str> = vec![];
    for (i, b) in s.bodies.iter().enumerate() {
        let p = format!("bodies[{i}]");
        if !is_plain_name(&b.name) {
            c.err(
                format!("{p}.name"),
                format!(
                    "must be letters, digits and '_', starting with a letter, at most {MAX_NAME_LEN} characters, got '{}'",
                    shown(&b.name)
                ),
            );
        } else if RESERVED_NAMES.contains(&b.name.as_str()) {
            c.err(format!("{p}.name"), format!("'{}' is reserved", b.name));
        } else if names.contains(&b.name.as_str()) {
            c.err(
                format!("{p}.name"),
                format!("'{}' is used by another body", b.name),
            );
        }
        names.push(&b.name);
        c.shape(&format!("{p}.shape"), &b.shape, true);
        if let Some(g) = &b.group {
            if !is_plain_name(g) {
                c.err(
                    format!("{p}.group"),
                    format!(
                        "must be letters, digits and '_', starting with a letter, at most {MAX_NAME_LEN} characters, got '{}'",
                        shown(g)
                    ),
                );
            } else if s.bodies.iter().any(|o| &o.name == g) || g == "terrain" {
                c.err(
                    format!("{p}.group"),
                    format!(
                        "'{g}' is also a body name (or \"terrain\"): collection names must differ"
                    ),
                );
            }
        }
        if let Some(m) = &b.material {
            c.material(&format!("{p}.material"), m);
        }
        match &b.motion {
            Motion::Kinematic {
                position,
                orientation,
                velocity,
                angular_velocity,
                ..
            } => {
                c.position(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                c.vec(&format!("{p}.motion.velocity"), velocity);
                c.vec(&format!("{p}.motion.angular_velocity"), angular_velocity);
            }
            Motion::Free {
                mass,
                inertia,
                position,
                orientation,
                velocity,
                angular_velocity,
                locked,
                joint,
                external_load: _,
            } => {
                c.positive(&format!("{p}.motion.mass"), *mass);
                if matches!(
                    b.shape,
                    Shape::ConvexMesh { .. }
                        | Shape::Mesh { .. }
                        | Shape::Torus { .. }
                        | Shape::Compound { .. }
                        | Shape::CuboidGrid { .. }
                        | Shape::Generated { .. }
                ) && inertia.is_none()
                {
                    c.err(
                        format!("{p}.motion.inertia"),
                        "give the inertia of a mesh, torus, compound or grid body (no default for it)",
                    );
                }
                if let Some(inertia) = inertia {
                    for (k, j) in inertia.iter().enumerate() {
                        c.positive(&format!("{p}.motion.inertia[{k}]"), *j);
                    }
                }
                c.position(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                c.vec(&format!("{p}.motion.velocity"), velocity);
                c.vec(&format!("{p}.motion.angular_velocity"), angular_velocity);
                if let Some(j) = joint {
                    if *locked {
                        c.err(
                            format!("{p}.motion.joint"),
                            "a body with a joint cannot also be locked: leave out 'locked', or give the joint omega = 0",
                        );
                    }
                    for (k, x) in [("vx", j.vx), ("omega", j.omega)] {
                        if let Some(x) = x {
                            if !x.is_finite() {
                                c.err(format!("{p}.motion.joint.{k}"), "must be a finite number");
                            }
                        }
                    }
                }
            }
            Motion::Fixed {
                position,
                orientation,
                incline,
            } => {
                c.position(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                if let Some(a) = incline {
                    c.angle(&format!("{p}.motion.incline"), *a);
                }
            }
        }
    }

    // each model's section, in registry order
    for model in crate::registry::MODELS {
        (model.check)(&mut c, s);
    }
    // start values name variables of the table, which only a valid scenario builds
    if c.errors.is_empty() && !s.start_values.is_empty() {
        let (table, _, _) = crate::registry::layout(s);
        for (name, v) in &s.start_values {
            if let Err(e) = table.start_override(name, *v) {
                c.err(format!("start_values[\"{}\"]", shown(name)), e);
            }
        }
    }
    c.errors
}
