//! A wheel body over the terrain surface: its contact frame and its kinematics there,
//! for any axle orientation (the wheel's axle is its body y axis).

use crate::pmath;
use super::WheelInput;
use crate::rigid_body::BodyMotion;
use crate::geometry::terrain::Surface;
use nalgebra::Vector3;

/// Hub geometry of a wheel over the terrain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WheelGeometry {
    pub input: WheelInput,
    /// Terrain normal at the contact (world).
    pub normal: Vector3<f64>,
    /// Forward direction: axle x normal (world).
    pub forward: Vector3<f64>,
    /// From the hub to the lowest wheel point (world).
    pub lever: Vector3<f64>,
}

/// The contact geometry of a wheel of `radius` (m) moving as `m` over `surface`, with
/// `gravity` (m/s^2, world) for the slope.
pub fn contact(
    surface: &Surface,
    m: &BodyMotion,
    radius: f64,
    gravity: &Vector3<f64>,
) -> WheelGeometry {
    let axle = m.iso.rotation * Vector3::y();
    let r = m.iso.translation.vector;
    let sp = surface.disc_contact(&r, radius);
    let n = sp.normal;
    // The disc's lowest point towards the ground: along -n projected onto the
    // wheel plane. Its depth below the tangent plane is r |n_perp| - distance.
    let n_perp = n - axle * n.dot(&axle);
    let n_perp_len = n_perp.norm().max(1e-12);
    let lever = -n_perp * (radius / n_perp_len);
    let forward = axle
        .cross(&n)
        .try_normalize(1e-12)
        .unwrap_or_else(Vector3::x);
    let down = if gravity.norm() > 0.0 {
        gravity.normalize()
    } else {
        -Vector3::z()
    };
    WheelGeometry {
        input: WheelInput {
            z: radius * n_perp_len - sp.distance,
            z_rate: -m.v.dot(&n),
            omega: m.w.dot(&axle),
            forward_velocity: m.v.dot(&forward),
            slope: pmath::asin((-forward.dot(&down)).clamp(-1.0, 1.0)),
            lateral_velocity: m.v.dot(&n.cross(&forward)),
            camber: pmath::asin(axle.dot(&n).clamp(-1.0, 1.0)),
            position: [r.x, r.y],
        },
        normal: n,
        forward,
        lever,
    }
}
