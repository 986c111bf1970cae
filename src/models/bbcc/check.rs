//! Value checks of the scenario's `bbcc` section that serde cannot express (ranges,
//! references to bodies and other sections), each problem with its field path; listed
//! beside the model in [`crate::registry`].

use crate::geometry::primitive;
use super::section::BbccSettings;
use crate::scenario::checker::Checker;
use crate::scenario::types::{Body, Scenario, Shape, SurfaceSpec};

/// Value checks of the scenario's `bbcc` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::registry`].
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    if let Some(section) = &s.bbcc {
        bbcc_pairs(c, s, section);
    }
}

/// Members of a pair name: the body itself, or the members of a collection.
fn members<'a>(s: &'a Scenario, name: &str) -> Vec<&'a Body> {
    s.members(name).into_iter().map(|i| &s.bodies[i]).collect()
}

fn bbcc_pairs(c: &mut Checker, s: &Scenario, bbcc: &BbccSettings) {
    c.positive("bbcc.v_d", bbcc.v_d);
    c.positive("bbcc.impact_velocity_min", bbcc.impact_velocity_min);
    c.non_negative("bbcc.rolling_resistance", bbcc.rolling_resistance);
    if bbcc.adaptive_step && !bbcc.semi_implicit {
        c.err(
            "bbcc.adaptive_step",
            "needs bbcc.semi_implicit: the step bound is the elastic part's, and only with \
             the viscous parts implicit is that the tightest",
        );
    }
    if bbcc.implicit_normal && !bbcc.semi_implicit {
        c.err(
            "bbcc.implicit_normal",
            "needs bbcc.semi_implicit: the elastic part is made implicit on top of the \
             viscous parts",
        );
    }
    if bbcc.implicit_normal && bbcc.adaptive_step {
        c.err(
            "bbcc.implicit_normal",
            "cannot go with bbcc.adaptive_step: the step bound is the explicit elastic \
             part's, which implicit_normal removes (choose one)",
        );
    }
    let flat_terrain = matches!(
        s.terrain.surface,
        SurfaceSpec::Flat { .. } | SurfaceSpec::Inclined { .. }
    );
    // a set: a pile of 500 bodies lists 125 000 pairs (a list took 20 s to check)
    let mut seen: std::collections::HashSet<(&str, &str)> = Default::default();
    // the names of the body pairs (each a bit of the pair rule, see `pair_rule`)
    let mut names: std::collections::HashSet<&str> = Default::default();
    // the most convex parts of a member of a name
    let parts = |n: &str| -> f64 {
        s.members(n)
            .iter()
            .map(|&i| super::parts::part_count(&s.bodies[i].shape) as f64)
            .fold(0.0, f64::max)
    };
    for (i, [a, b]) in bbcc.pairs.iter().enumerate() {
        let p = format!("bbcc.pairs[{i}]");
        let mut all = vec![];
        for (k, n) in [a, b].iter().enumerate() {
            if n.as_str() == "terrain" {
                if s.terrain.material.is_none() {
                    c.err(&p, "the terrain has no material (terrain.material: BBCC needs E, nu, zeta, mu)");
                }
                continue;
            }
            let m = members(s, n);
            if m.is_empty() {
                c.err(
                    format!("{p}[{k}]"),
                    format!(
                        "no body or collection named '{n}' (bodies: {}, or \"terrain\")",
                        crate::scenario::checker::body_names(s)
                    ),
                );
            }
            all.extend(m);
        }
        if a != "terrain" && b != "terrain" {
            names.insert(a);
            names.insert(b);
            // each part pair of two bodies has a number (its contact memory's key)
            let part_pairs = parts(a) * parts(b);
            if part_pairs > MAX_PART_PAIRS {
                c.err(
                    &p,
                    format!(
                        "two bodies of this pair have {part_pairs:.3e} pairs of convex parts (each part of a compound, each cell of a cuboid_grid, each grouser of a grouser_wheel touches on its own), at most {MAX_PART_PAIRS:e}"
                    ),
                );
            }
        }
        if a == b && (s.body_index(a).is_some() || s.members(a).len() < 2) {
            c.err(&p, format!("a body cannot be paired with itself ('{a}'); a collection of two or more bodies can (each member then touches every other)"));
        }
        for body in all {
            if matches!(
                body.shape,
                Shape::Wheel { .. } | Shape::Mesh { .. } | Shape::Torus { .. }
            ) {
                c.err(&p, format!("'{}' is not convex or has a TerRA wheel shape; BBCC needs sphere, cuboid, cylinder, grouser_wheel, convex_mesh, compound or cuboid_grid (mesh and torus bodies touch through PCM, the `pcm` section)", body.name));
            }
            if body.material.is_none() {
                c.err(
                    &p,
                    format!(
                        "'{}' has no material (BBCC needs E, nu, zeta, mu)",
                        body.name
                    ),
                );
            }
            if (a == "terrain" || b == "terrain")
                && !flat_terrain
                && !matches!(body.shape, Shape::Sphere(primitive::Sphere { .. }))
            {
                c.err(&p, format!("'{}': only spheres touch a ramps, profile or generated terrain; use a flat or inclined terrain, or a fixed cuboid or cuboid_grid body", body.name));
            }
        }
        let key = if a < b {
            (a.as_str(), b.as_str())
        } else {
            (b.as_str(), a.as_str())
        };
        if !seen.insert(key) {
            c.err(&p, format!("pair ('{a}', '{b}') is listed twice"));
        }
    }
    let words = super::pair_rule::PairRule::words_at_most(s.bodies.len(), names.len());
    if words > MAX_RULE_WORDS {
        c.err(
            "bbcc.pairs",
            format!(
                "the body pairs name {} bodies and collections among {} bodies: the pair rule would keep {words:.3e} words, at most {MAX_RULE_WORDS:e}; pair collections (a body's `group`) instead of single bodies",
                names.len(),
                s.bodies.len()
            ),
        );
    }
}

/// The most pairs of convex parts two bodies may have (a compound's parts, a grid's
/// cells, a wheel's grousers): 1e9, each numbered in 32 bits. Only those in contact
/// keep a memory.
pub const MAX_PART_PAIRS: f64 = 1e9;

/// The most 64-bit words the pair rule may keep (two bit sets of the pairs' names per
/// class of bodies): 4e6, 32 MB.
pub const MAX_RULE_WORDS: f64 = 4e6;
