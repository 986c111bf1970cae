//! Value checks of the scenario's `pcm` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use crate::geometry::primitive;
use crate::scenario::checker::{is_plain_name, Checker};
use crate::scenario::types::{Scenario, Shape};

/// Shapes PCM can mesh.
fn meshable(shape: &Shape) -> bool {
    !matches!(shape, Shape::CuboidGrid { .. })
}

/// Value checks of the scenario's `pcm` section (none without one).
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    let Some(pcm) = &s.pcm else { return };
    c.positive("pcm.terrain_cell", pcm.terrain_cell);
    if pcm.pairs.is_empty() {
        c.err("pcm.pairs", "needs at least one pair");
    }
    for (name, m) in &pcm.meshing {
        let p = format!("pcm.meshing.{name}");
        let Some(b) = s.bodies.iter().find(|b| &b.name == name) else {
            c.err(&p, format!("no body named '{name}'"));
            continue;
        };
        if let Some(e) = m.edge {
            c.positive(&format!("{p}.edge"), e);
        }
        if m.subdivisions > 8 {
            c.err(
                format!("{p}.subdivisions"),
                format!(
                    "at most 8 (4^8 = 65536 times the triangles), got {}",
                    m.subdivisions
                ),
            );
        }
        if let Some(seg) = &m.segments {
            let want = match b.shape {
                Shape::Sphere(primitive::Sphere { .. }) => Some((1, "[frequency]", 1, 200)),
                Shape::Torus { .. } => Some((2, "[around the axis, around the tube]", 3, 2048)),
                Shape::Cylinder(_) | Shape::Wheel { .. } | Shape::Plate { .. } => {
                    Some((1, "[around the axis]", 3, 4096))
                }
                _ => None,
            };
            match want {
                None => c.err(
                    format!("{p}.segments"),
                    "only spheres, tori, cylinders, wheels and plates take segments",
                ),
                Some((n, what, lo, hi)) => {
                    if seg.len() != n {
                        c.err(
                            format!("{p}.segments"),
                            format!("a {} takes {what}", shape_kind(&b.shape)),
                        );
                    }
                    for (k, v) in seg.iter().enumerate() {
                        if *v < lo || *v > hi {
                            c.err(
                                format!("{p}.segments[{k}]"),
                                format!("must be in {lo}..={hi}, got {v}"),
                            );
                        }
                    }
                }
            }
        }
    }
    let mut names: Vec<String> = vec![];
    for (i, pair) in pcm.pairs.iter().enumerate() {
        let p = format!("pcm.pairs[{i}]");
        let label = pair.label();
        if !is_plain_name(&label) {
            c.err(
                format!("{p}.name"),
                format!(
                    "'{}' must be letters, digits and '_', starting with a letter, at most {} characters",
                    crate::scenario::checker::shown(&label),
                    crate::scenario::checker::MAX_NAME_LEN
                ),
            );
        }
        if names.contains(&label) {
            c.err(
                format!("{p}.name"),
                format!("two pairs are named '{label}'"),
            );
        }
        names.push(label);
        let [a, b] = &pair.bodies;
        if a == b {
            c.err(
                format!("{p}.bodies"),
                format!("a body cannot touch itself ('{a}')"),
            );
        }
        if a == "terrain" && b == "terrain" {
            c.err(format!("{p}.bodies"), "one side must be a body");
        }
        for (k, n) in pair.bodies.iter().enumerate() {
            if n == "terrain" {
                continue;
            }
            match s.bodies.iter().find(|b| &b.name == n) {
                None => {
                    c.err(
                        format!("{p}.bodies[{k}]"),
                        format!(
                            "no body named '{n}' (bodies: {}, or \"terrain\")",
                            crate::scenario::checker::body_names(s)
                        ),
                    );
                }
                Some(body) if !meshable(&body.shape) => c.err(
                    format!("{p}.bodies[{k}]"),
                    format!("'{n}' is a cuboid_grid: PCM needs a meshable shape (give the ground as the terrain or as a mesh file)"),
                ),
                Some(_) => {}
            }
        }
        for (field, v) in [("base", &pair.base), ("frame_e", &pair.frame_e)] {
            if let Some(v) = v {
                if !pair.bodies.contains(v) {
                    c.err(
                        format!("{p}.{field}"),
                        format!("'{v}' is not one of the pair's bodies ({a}, {b})"),
                    );
                }
            }
        }
        if pair.base.as_deref() == Some("terrain") {
            c.err(format!("{p}.base"), "the terrain is always the target (its triangles are made on demand, so they cannot be contact elements); make the body the base");
        }
        if pair.layers.is_empty() || pair.layers.len() > 2 {
            c.err(
                format!("{p}.layers"),
                format!(
                    "one layer (for the pair) or two (one per body), got {}",
                    pair.layers.len()
                ),
            );
        }
        for (k, l) in pair.layers.iter().enumerate() {
            let lp = format!("{p}.layers[{k}]");
            c.positive(&format!("{lp}.E"), l.E);
            c.positive(&format!("{lp}.b"), l.b);
            if !(l.nu >= 0.0 && l.nu < 0.5) {
                c.err(
                    format!("{lp}.nu"),
                    format!(
                        "must be in [0, 0.5) (eq. (3) divides by 1 - 2 nu), got {}",
                        l.nu
                    ),
                );
            }
        }
        c.positive(&format!("{p}.u_max"), pair.u_max);
        c.non_negative(&format!("{p}.d_l"), pair.d_l);
        c.non_negative(&format!("{p}.mu"), pair.mu);
        c.positive(&format!("{p}.v_reg"), pair.v_reg);
        c.non_negative(&format!("{p}.damping_depth"), pair.damping_depth);
    }
}

fn shape_kind(s: &Shape) -> &'static str {
    match s {
        Shape::Sphere(primitive::Sphere { .. }) => "sphere",
        Shape::Torus { .. } => "torus",
        Shape::Cylinder(primitive::Cylinder { .. }) => "cylinder",
        Shape::Wheel { .. } => "wheel",
        Shape::Plate { .. } => "plate",
        _ => "shape",
    }
}
