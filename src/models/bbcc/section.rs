//! The `bbcc` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md) and the
//! value checks serde cannot express, each problem with its field path.
//!
//! Read by [`super::adapter`]: the constants become FMI parameters `bbcc.*`, the pairs
//! the broad phase's filter.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{Body, Checker, Scenario, Shape, SurfaceSpec};

/// BBCC contact settings (Buse 2023, section 4.1). FMI parameters `bbcc.v_d`,
/// `bbcc.impact_velocity_min`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbccSettings {
    /// Velocity dead band v_d of the regularized Coulomb friction, eq. (4), m/s.
    #[serde(default = "BbccSettings::default_v_d")]
    pub v_d: f64,
    /// Lower bound of the pre-impact velocity in the Hunt-Crossley damping, eq. (2),
    /// m/s. Keeps the damping finite for contacts that start at rest.
    #[serde(default = "BbccSettings::default_impact_velocity_min")]
    pub impact_velocity_min: f64,
    /// Take the viscous parts of every contact (the damping of eq. (1)-(2), the
    /// friction of eq. (4)/(5), the spin torque of eq. (6)) linearly implicitly over
    /// the sub-step (the model step, or shorter where the communication step is not a
    /// multiple of it), on each free body's mass and inertia shared among its contacts
    /// (those of the last evaluation): they never reverse a relative velocity within a
    /// step, so light bodies on stiff contacts stay stable at longer model steps
    /// (measured in docs/bbcc-at-scale.md). The elastic part stays explicit. Off: the
    /// paper's explicit forces.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub semi_implicit: bool,
    /// Spread each contact of two flat-faced parts (cuboids, convex hulls, the ground
    /// plane) over its overlap: the vertices of each part inside the other, gathered
    /// into at most four points, each carrying a share of eq. (1) by its depth and the
    /// friction of that share. The total normal force is the paper's; a resting face
    /// then has a rocking damping and a twisting friction, and its contact point moves
    /// continuously as it tilts (docs/models/bbcc.md). Off: the paper's one point,
    /// the deepest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contact_patch: bool,
    /// A tangential stick spring beside the friction of eq. (4)/(5), which is zero at
    /// zero slip and so lets any tangential load creep (a rock on a slope slides at
    /// about v_d, the paper's Fig. 7): the slip at the contact since it began, turned
    /// into the tangent plane, pulls back with the normal contact's stiffness (eq. (1)
    /// linearized) times Mindlin's 2 (1 - nu) / (2 - nu); past mu F_N it slides. It
    /// holds the contact's twist about the normal as well (eq. (6) is zero at zero
    /// spin): each patch point a spring at its lever, held within the points' friction
    /// at their levers. Bodies then rest on slopes and in piles (docs/models/bbcc.md).
    /// Implies
    /// `contact_patch` (a spring on a point that jumps between a face's vertices would
    /// pump energy) and `reimpact` (a rock resting on a lasting contact rocks on it).
    /// Off: the paper's friction alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stick: bool,
    /// Each new compression of a lasting contact is an impact for the damping of eq.
    /// (2): when its penetration, having decreased, grows again, the impact velocity is
    /// taken anew (at least `impact_velocity_min`). Eq. (2) takes it when the contact
    /// starts and keeps it while the contact lasts, so a rock that landed at 3 m/s
    /// rests with the damping of a 3 m/s impact, d = 0.5 s/m, which leaves its rocking
    /// on the ground undamped (docs/models/bbcc.md). Single impacts are the paper's.
    /// Implied by `stick`. Off: the paper's impact velocity, kept while the contact
    /// lasts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reimpact: bool,
    /// Rolling resistance coefficient mu_r, 1 (0: off, the paper's): a torque against
    /// the bodies' relative rolling (their relative angular velocity across the contact
    /// normal) of at most mu_r R F_N (R the pair's effective radius of eq. (3), F_N the
    /// normal force of eq. (1)), regularized as the spin torque of eq. (6) with the
    /// rolling speed R |omega| against `v_d`, and with `semi_implicit` taken linearly
    /// implicitly as the other viscous parts. Point contacts roll without loss: a rock
    /// resting on two others swings about the line through its contacts like a
    /// pendulum for tens of seconds (docs/bbcc-at-scale.md); real contacts are areas,
    /// and discrete-element codes add this torque for what they dissipate (Ai et al.
    /// 2011, "Assessment of rolling resistance models in discrete element
    /// simulations", model A).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rolling_resistance: f64,
    /// Pairs that may touch: body names, collection names (`group`), or `"terrain"`.
    /// A pair of collections lets every member of one touch every member of the other;
    /// a collection paired with itself (`["pile", "pile"]`) lets each of its members
    /// touch every other one (a pile of rocks).
    pub pairs: Vec<[String; 2]>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl BbccSettings {
    /// Default of `v_d`, m/s.
    pub fn default_v_d() -> f64 {
        0.01
    }
    /// Default of `impact_velocity_min`, m/s.
    pub fn default_impact_velocity_min() -> f64 {
        0.01
    }
}

/// Value checks of the scenario's `bbcc` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::cosim::registry`].
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
            .map(|&i| super::shapes::part_count(&s.bodies[i].shape) as f64)
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
                        crate::scenario::body_names(s)
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
                && !matches!(body.shape, Shape::Sphere { .. })
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
