//! A sphere on rigid ground: the BBCC wrench of the contact (Buse 2023, eq. (1)-(4)),
//! world frame. The ground near the contact is its tangent plane.

use super::{friction, hunt_crossley, BodyKinematics, ContactMemory};
use crate::geometry::terrain::SurfacePoint;
use nalgebra::Vector3;

/// Constants of one sphere-ground contact, already combined for the pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairConstants {
    /// Stiffness k, N/m^1.5, eq. (3).
    pub k: f64,
    /// Restitution zeta of the pair (harmonic mean), 1.
    pub zeta: f64,
    /// Friction coefficient mu of the pair (harmonic mean), 1.
    pub mu: f64,
    /// Friction velocity dead band v_d, m/s, eq. (4).
    pub v_d: f64,
    /// Lower bound of the impact velocity in eq. (2), m/s.
    pub impact_velocity_min: f64,
    /// `bbcc.reimpact` ([`ContactMemory::touching`]).
    pub reimpact: bool,
    /// `bbcc.rolling_resistance` mu_r, 1 ([`friction::rolling_resistance`]; 0: none).
    pub rolling: f64,
    /// The pair's effective radius R, m (the lever of the rolling resistance).
    pub r_eff: f64,
}

/// Result of one contact evaluation, world frame.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ContactWrench {
    /// Force on the sphere, N.
    pub force: Vector3<f64>,
    /// Torque on the sphere about its centre (the body origin), N m.
    pub torque: Vector3<f64>,
    /// Penetration depth, m; zero without contact.
    pub depth: f64,
    /// Touching.
    pub in_contact: bool,
}

/// Contact of a sphere of radius `radius` (m) centred at the body origin with the
/// ground, given as the ground's closest point and normal to the centre (`ground`,
/// see [`crate::geometry::terrain::Surface::disc_contact`]).
///
/// `memory` carries the impact velocity of the running contact. With `advance` the
/// memory is updated (a model step); without it the call only evaluates (an output
/// refresh between steps).
pub fn sphere_on_surface(
    body: &BodyKinematics,
    radius: f64,
    ground: &SurfacePoint,
    c: &PairConstants,
    memory: &mut ContactMemory,
    advance: bool,
) -> ContactWrench {
    let BodyKinematics { v, w, .. } = body;
    let depth = radius - ground.distance;
    if depth <= 0.0 {
        if advance {
            *memory = ContactMemory::default();
        }
        return ContactWrench::default();
    }
    let normal = ground.normal;
    // Contact point: halfway into the overlap, below the centre.
    let lever = -normal * (radius - 0.5 * depth);
    let v_point = v + w.cross(&lever);
    let depth_rate = -v_point.dot(&normal);
    let next = memory.touching(depth_rate, c.impact_velocity_min, c.reimpact);
    let impact_velocity = next.impact_velocity;
    if advance {
        *memory = next;
    }
    let d = hunt_crossley::damping(c.zeta, impact_velocity);
    let f_n = hunt_crossley::normal_force(c.k, d, depth, depth_rate);
    let v_t = v_point - normal * v_point.dot(&normal);
    let f_t = friction::regularized_coulomb(c.mu, f_n, &v_t, c.v_d);
    let force = normal * f_n + f_t;
    let rolling = friction::rolling_resistance(c.rolling, c.r_eff, f_n, w, &normal, c.v_d);
    ContactWrench {
        force,
        torque: lever.cross(&force) + rolling,
        depth,
        in_contact: true,
    }
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;

    /// Flat ground z = 0 under the body.
    fn on_ground(
        b: BodyKinematics,
        radius: f64,
        c: &PairConstants,
        m: &mut ContactMemory,
        advance: bool,
    ) -> ContactWrench {
        let ground = crate::geometry::terrain::Surface::Plane {
            height: 0.0,
            angle: 0.0,
        }
        .closest(&b.r);
        sphere_on_surface(&b, radius, &ground, c, m, advance)
    }

    fn at(r: Vector3<f64>, v: Vector3<f64>) -> BodyKinematics {
        BodyKinematics {
            r,
            v,
            w: Vector3::zeros(),
        }
    }

    fn constants() -> PairConstants {
        PairConstants {
            k: 1e6,
            zeta: 0.6,
            mu: 0.5,
            v_d: 0.01,
            impact_velocity_min: 0.01,
            reimpact: false,
            rolling: 0.0,
            r_eff: 0.1,
        }
    }

    #[test]
    fn a_sphere_pressed_into_the_ground_at_rest_gets_k_delta_to_the_1_5() {
        let mut m = ContactMemory::default();
        let c = constants();
        let r = 0.1;
        let delta: f64 = 2e-3;
        let w = on_ground(
            at(Vector3::new(0.3, -0.2, r - delta), Vector3::zeros()),
            r,
            &c,
            &mut m,
            true,
        );
        assert!((w.force.z - c.k * pmath::powf(delta, 1.5)).abs() < 1e-9 * w.force.z);
        assert_eq!(w.force.x, 0.0);
        assert!(w.torque.norm() < 1e-12);
        assert!(m.in_contact && m.impact_velocity == c.impact_velocity_min);
    }

    #[test]
    fn a_sliding_sphere_gets_friction_against_the_slip_and_a_torque_that_spins_it_up() {
        let mut m = ContactMemory::default();
        let w = on_ground(
            at(Vector3::new(0.0, 0.0, 0.099), Vector3::new(1.0, 0.0, 0.0)),
            0.1,
            &constants(),
            &mut m,
            true,
        );
        assert!(w.force.x < 0.0);
        // friction at the bottom pointing -x makes the ball roll forward: +y torque
        assert!(w.torque.y > 0.0);
    }

    #[test]
    fn evaluating_without_advancing_leaves_the_memory_alone() {
        let mut m = ContactMemory::default();
        on_ground(
            at(Vector3::new(0.0, 0.0, 0.09), Vector3::new(0.0, 0.0, -1.0)),
            0.1,
            &constants(),
            &mut m,
            false,
        );
        assert_eq!(m, ContactMemory::default());
        on_ground(
            at(Vector3::new(0.0, 0.0, 0.09), Vector3::new(0.0, 0.0, -1.0)),
            0.1,
            &constants(),
            &mut m,
            true,
        );
        assert_eq!(m.impact_velocity, 1.0);
        // the impact velocity is kept while the contact lasts
        on_ground(
            at(Vector3::new(0.0, 0.0, 0.09), Vector3::new(0.0, 0.0, 0.5)),
            0.1,
            &constants(),
            &mut m,
            true,
        );
        assert_eq!(m.impact_velocity, 1.0);
        on_ground(
            at(Vector3::new(0.0, 0.0, 0.2), Vector3::zeros()),
            0.1,
            &constants(),
            &mut m,
            true,
        );
        assert!(!m.in_contact);
    }
}
