//! Checks shared by the sections of wheel-soil force elements.

use crate::scenario::checker::Checker;
use crate::scenario::types::{Motion, Scenario, Shape};

/// The bodies a wheel-soil model acts on, each with its field path (`model` names the
/// model in messages): each one exists, has a `wheel` shape, is kinematic, and is
/// listed once.
pub(crate) fn check_wheel_bodies<'a>(
    c: &mut Checker,
    s: &Scenario,
    bodies: impl Iterator<Item = (String, &'a str)>,
    model: &str,
) {
    let mut seen: Vec<&str> = vec![];
    for (p, name) in bodies {
        check_wheel_body(c, s, &p, name, model);
        if seen.contains(&name) {
            c.err(p, format!("'{name}' is listed twice"));
        }
        seen.push(name);
    }
}

/// One body of [`check_wheel_bodies`] at field path `p`.
pub(crate) fn check_wheel_body(c: &mut Checker, s: &Scenario, p: &str, name: &str, model: &str) {
    match s.bodies.iter().find(|b| b.name == name) {
        None => c.err(p, format!("no body named '{name}'")),
        Some(b) => {
            if !matches!(b.shape, Shape::Wheel { .. }) {
                c.err(p, format!("'{name}' must have a wheel shape"));
            }
            if matches!(b.motion, Motion::Fixed { .. }) {
                c.err(
                    p,
                    format!(
                        "'{name}' must be kinematic or free ({model} is a force element on a moving wheel)"
                    ),
                );
            }
        }
    }
}

/// Width of the wheel body `name` (m), if it has a wheel shape.
pub(crate) fn wheel_width(s: &Scenario, name: &str) -> Option<f64> {
    match s.bodies.iter().find(|b| b.name == name)?.shape {
        Shape::Wheel { width, .. } => Some(width),
        _ => None,
    }
}
