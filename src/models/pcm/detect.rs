//! Penetration detection (Hippmann 2023, section 3): a penetration line per base
//! triangle, from its barycentre along the inward normal to `u_max`, intersected with
//! the target's triangles; the contact element data live with the base triangles and
//! are updated in place (no allocation), with the paper's valid/invalid rule (Fig. 4).

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// Status of a contact element (a base triangle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[repr(u8)]
pub enum Status {
    /// No intersection found.
    #[default]
    Inactive = 0,
    /// The nearest intersection is the target seen from its inside: a penetration.
    Active = 1,
    /// The nearest intersection is the target seen from its outside (Fig. 4 a): the
    /// barycentre lies outside the target.
    Invalid = 2,
}

/// The contact elements of a base mesh, one per base triangle.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Elements {
    pub status: Vec<Status>,
    /// Penetration u_n of each element, m (meaningful when not inactive).
    pub depth: Vec<f64>,
}

impl Elements {
    /// `n` inactive elements.
    pub fn new(n: usize) -> Elements {
        Elements {
            status: vec![Status::Inactive; n],
            depth: vec![0.0; n],
        }
    }

    /// Every element inactive again.
    pub fn reset(&mut self) {
        self.status.fill(Status::Inactive);
    }

    /// An intersection of element `k`'s line at depth `u` with a target triangle whose
    /// normal makes `dot` with the base normal (section 3): the first intersection
    /// activates the element if the normals oppose and marks it invalid otherwise;
    /// later ones count only when nearer, and then decide anew.
    #[inline]
    pub fn record(&mut self, k: usize, u: f64, dot: f64) {
        if self.status[k] == Status::Inactive || u < self.depth[k] {
            self.depth[k] = u;
            self.status[k] = if dot < 0.0 {
                Status::Active
            } else {
                Status::Invalid
            };
        }
    }
}

/// Distance along the ray `origin + t dir` (|dir| = 1) to triangle (a, b, c), if it
/// hits it with 0 <= t <= `t_max` (Möller and Trumbore 1997, the paper's [16]; both
/// faces count: the validity rule looks at the normals).
#[inline]
pub fn ray_triangle(
    origin: &Vector3<f64>,
    dir: &Vector3<f64>,
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
    t_max: f64,
) -> Option<f64> {
    let e1 = b - a;
    let e2 = c - a;
    let p = dir.cross(&e2);
    let det = e1.dot(&p);
    // parallel (or degenerate): relative to the triangle's size
    if det.abs() <= 1e-14 * e1.norm_squared().max(e2.norm_squared()) {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(&p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(&e1);
    let v = dir.dot(&q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(&q) * inv;
    (0.0..=t_max).contains(&t).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rays_hit_inside_the_triangle_and_within_reach_only() {
        let (a, b, c) = (
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
        );
        let down = Vector3::new(0.0, 0.0, -1.0);
        let o = Vector3::new(0.2, 0.2, 0.3);
        assert!((ray_triangle(&o, &down, &a, &b, &c, 1.0).unwrap() - 0.3).abs() < 1e-15);
        assert_eq!(ray_triangle(&o, &down, &a, &b, &c, 0.29), None);
        assert_eq!(ray_triangle(&o, &-down, &a, &b, &c, 1.0), None);
        let outside = Vector3::new(0.6, 0.6, 0.3);
        assert_eq!(ray_triangle(&outside, &down, &a, &b, &c, 1.0), None);
        // parallel
        let along = Vector3::new(1.0, 0.0, 0.0);
        assert_eq!(
            ray_triangle(&Vector3::new(-1.0, 0.2, 0.0), &along, &a, &b, &c, 5.0),
            None
        );
    }

    #[test]
    fn the_nearest_intersection_decides_valid_or_invalid_as_in_fig_4() {
        let mut e = Elements::new(1);
        // case b: the far (rear) side of the target is hit first in traversal order,
        // then the near one: the near one wins
        e.record(0, 0.02, -0.9);
        assert_eq!(e.status[0], Status::Active);
        e.record(0, 0.05, 0.9);
        assert_eq!((e.status[0], e.depth[0]), (Status::Active, 0.02));
        // case a: the nearer hit is the target seen from outside
        e.record(0, 0.01, 0.8);
        assert_eq!((e.status[0], e.depth[0]), (Status::Invalid, 0.01));
        e.reset();
        assert_eq!(e.status[0], Status::Inactive);
        e.record(0, 0.04, 0.5);
        assert_eq!(e.status[0], Status::Invalid);
    }
}
