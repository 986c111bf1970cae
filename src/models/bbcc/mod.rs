//! BBCC: Body to Body Convex Contact (Buse et al. 2023, section 4.1).
//!
//! - [`hunt_crossley`]: the normal force law, eq. (1)-(3).
//! - [`friction`]: the regularized Coulomb law, eq. (4).
//! - [`sphere_plane`]: a sphere on the analytic terrain surface.
//! - [`shapes`]: the contact shapes as parry3d-f64 shapes.
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
pub mod pair;
pub mod pair_rule;
pub mod section;
pub mod shapes;
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
