//! BBCC: Body to Body Convex Contact (Buse et al. 2023, section 4.1).
//!
//! - [`hunt_crossley`]: the normal force law, eq. (1)-(3).
//! - [`friction`]: the regularized Coulomb law, eq. (4).
//! - [`sphere_plane`]: contact geometry of a sphere on a flat ground plane, and the
//!   whole wrench of that contact.

pub mod friction;
pub mod hunt_crossley;
pub mod sphere_plane;

use serde::{Deserialize, Serialize};

/// Memory of one contact pair, kept between steps: the paper's damping (2) needs the
/// relative impact velocity "prior to contact", so it is recorded when the contact
/// starts and kept while it lasts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ContactMemory {
    /// The pair was in contact at the last step.
    pub in_contact: bool,
    /// Relative penetration velocity at the start of this contact, m/s (> 0).
    pub impact_velocity: f64,
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
