//! BBCC: Body to Body Convex Contact (Buse et al. 2023, section 4.1).
//!
//! - [`hunt_crossley`]: the normal force law, eq. (1)-(3).
//! - [`friction`]: the regularized Coulomb law, eq. (4).
//! - [`sphere_plane`]: a sphere on the analytic terrain surface.
//! - the contact shapes as parry3d-f64 shapes: [`crate::geometry::shape`], shared
//!   with the world; [`parts`]: how many convex parts BBCC makes of one.
//! - [`pair`]: the wrench between two shapes (narrow phase: parry's GJK/EPA).
//! - [`box_box`], [`convex_box`]: exact contacts with cuboids, before GJK/EPA.
//! - [`contact_patch`]: where a flat-faced part's contact acts (the overlap's
//!   penetration-weighted vertex centre).
//! - [`pair_rule`]: which body pairs touch (`bbcc.pairs` as a rule, not a list).
//! - [`broad_phase`]: multi-strip sweep and prune over axis-aligned bounding boxes.

pub mod adapter;
pub mod box_box;
pub mod broad_phase;
pub mod contact_patch;
pub mod convex_box;
pub mod friction;
pub mod hunt_crossley;
pub mod implicit_normal;
pub mod pair;
pub mod pair_rule;
pub mod check;
pub mod parts;
pub mod scene;
pub mod section;
pub mod sphere_plane;

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// Where a body is and how it moves, world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyKinematics {
    /// Position of the body origin, m.
    pub r: Vector3<f64>,
    /// Velocity of the body origin, m/s.
    pub v: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub w: Vector3<f64>,
}

/// Memory of one contact pair, kept between steps: the paper's damping (2) needs the
/// relative impact velocity "prior to contact", so it is recorded when the contact
/// starts and kept while it lasts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ContactMemory {
    /// The pair was in contact at the last step.
    pub in_contact: bool,
    /// Relative penetration velocity at the start of this contact, m/s (> 0).
    pub impact_velocity: f64,
    /// With `bbcc.stick`: the tangential spring's elongation, the slip of body 2
    /// relative to body 1 at the contact since it stuck, world frame, m.
    #[serde(default)]
    pub slip: [f64; 3],
    /// With `bbcc.stick`: the simulated time of the state `slip` belongs to, s.
    #[serde(default)]
    pub time: f64,
    /// The penetration was decreasing at the last evaluation (the contact rebounding):
    /// with `bbcc.reimpact`, growing again starts a new impact.
    #[serde(default)]
    pub receding: bool,
    /// With `bbcc.stick`: the twist spring's elongation, the rotation of body 2
    /// relative to body 1 about the contact normal since it stuck, rad.
    #[serde(default)]
    pub twist: f64,
}

impl ContactMemory {
    /// The memory of a contact touching now with penetration rate `depth_rate` (m/s,
    /// > 0 approaching), from the memory of the last evaluation: the impact velocity
    /// of eq. (2) is the penetration rate when the contact starts, floored at
    /// `impact_velocity_min` (m/s), and kept while it lasts (Buse 2023, eq. (2): "prior
    /// to contact"). With `reimpact` (`bbcc.reimpact`) a lasting contact whose
    /// penetration, having decreased, grows again starts a new impact: each
    /// compression is damped for its own velocity, as eq. (2) damps one impact for a
    /// restitution zeta. The slip of `bbcc.stick` is the caller's.
    pub fn touching(&self, depth_rate: f64, impact_velocity_min: f64, reimpact: bool) -> Self {
        let again = reimpact && self.receding && depth_rate > 0.0;
        ContactMemory {
            in_contact: true,
            impact_velocity: if self.in_contact && !again {
                self.impact_velocity
            } else {
                depth_rate.max(impact_velocity_min)
            },
            receding: depth_rate < 0.0,
            slip: [0.0; 3],
            time: 0.0,
            twist: 0.0,
        }
    }
}

/// Harmonic mean `2 a b / (a + b)`, how BBCC combines restitution and friction of two
/// bodies (Buse 2023, section 4.1.1). Zero when either is zero.
pub fn harmonic_mean(a: f64, b: f64) -> f64 {
    if a + b == 0.0 {
        0.0
    } else {
        2.0 * a * b / (a + b)
    }
}

/// A small deterministic random generator for tests: uniform in [0, 1) from `seed`
/// (a 64-bit LCG, its top 53 bits).
#[cfg(test)]
pub(crate) fn test_random(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::ContactMemory;

    #[test]
    fn the_impact_velocity_is_kept_while_a_contact_lasts_unless_it_compresses_again() {
        let start = ContactMemory::default().touching(2.0, 0.01, true);
        assert_eq!((start.impact_velocity, start.receding), (2.0, false));
        // a contact starting at rest takes the floor
        assert_eq!(
            ContactMemory::default()
                .touching(0.0, 0.01, false)
                .impact_velocity,
            0.01
        );
        // compressing, then rebounding: the landing's velocity either way
        let rebounding = start.touching(-0.5, 0.01, true);
        assert_eq!(
            (rebounding.impact_velocity, rebounding.receding),
            (2.0, true)
        );
        // compressing again: a new impact with `reimpact`, the paper's without
        let again = rebounding.touching(0.003, 0.01, true);
        assert_eq!((again.impact_velocity, again.receding), (0.01, false));
        let paper = rebounding.touching(0.3, 0.01, false);
        assert_eq!(paper.impact_velocity, 2.0);
        assert_eq!(rebounding.touching(0.3, 0.01, true).impact_velocity, 0.3);
        // the new impact is kept through its own compression
        assert_eq!(again.touching(0.5, 0.01, true).impact_velocity, 0.01);
    }
}
