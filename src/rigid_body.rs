//! A free rigid body: Newton-Euler equations, integrated with the semi-implicit
//! (symplectic) Euler method: velocities first from the forces at the current pose,
//! then the pose from the new velocities. Symplectic Euler keeps the energy of an
//! undamped contact oscillation bounded, where explicit Euler would pump it up. Euler's
//! equations of the rotation by the implicit midpoint rule, which keeps a tumbling
//! body's energy and angular momentum (explicitly its gyroscopic term pumps them up).

use crate::pmath;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

/// What an implicit vertical integrator needs of a body's contacts with other bodies
/// (not the terrain), summed over them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ObstacleRates {
    /// -dF_z/dz with the body's height, N/m: sum of k n_z^2 (k = dF_n/d(delta), n the
    /// contact normal).
    pub k_zz: f64,
    /// -dF_z/dv_z, N s/m.
    pub c_zz: f64,
    /// dF_z/dt from everything but the body's vertical velocity (its horizontal motion
    /// and the other body's motion), N/s: sum of k n_z d(delta)/dt at v_z = 0.
    pub f_rate: f64,
}

/// Pose and velocities, world frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RigidBodyState {
    /// Position of the body origin, m.
    pub r: Vector3<f64>,
    /// Orientation, body to world.
    pub q: UnitQuaternion<f64>,
    /// Linear velocity of the body origin, m/s.
    pub v: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub w: Vector3<f64>,
}

impl Default for RigidBodyState {
    fn default() -> Self {
        Self {
            r: Vector3::zeros(),
            q: UnitQuaternion::identity(),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
        }
    }
}

/// Mass properties. The body origin is the centre of mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// kg
    pub mass: f64,
    /// Principal moments of inertia about the body axes, kg m^2.
    pub inertia: Vector3<f64>,
}

/// Newton iterations of the implicit midpoint step at most (each converges about
/// quadratically; at omega dt = 0.05 the third changes w by less than 1e-15 of it).
const MIDPOINT_ITERATIONS: usize = 4;

impl RigidBodyState {
    /// Advances the state by `dt` (s) under the total force `force` (N) and torque
    /// `torque` about the centre of mass (N m), both world frame, plus gravity `g`
    /// (m/s^2).
    pub fn step(
        &mut self,
        m: &MassProperties,
        force: &Vector3<f64>,
        torque: &Vector3<f64>,
        g: &Vector3<f64>,
        dt: f64,
    ) {
        self.v += dt * (force / m.mass + g);
        // Euler's equations in the body frame, I dw/dt = tau - w x (I w), by the
        // implicit midpoint rule (Newton on I (w' - w) + dt m x (I m) = dt tau, m the
        // mean of w and w'): without torque it keeps the kinetic energy and |I w|, both
        // quadratic in w, to the solver's tolerance. Explicitly the gyroscopic term
        // pumps a tumbling body up by about (omega dt)^2 per step (a rock thrown from
        // the pile spun from 200 to 750 rad/s in 2.4 s of flight at a 0.5 ms step and
        // went non-finite, docs/bbcc-at-scale.md); backward Euler damps it instead
        // (a third of its energy in 2 s at 100 rad/s).
        let w_b = self.q.inverse_transform_vector(&self.w);
        let tau_b = self.q.inverse_transform_vector(torque);
        let inertia = Matrix3::from_diagonal(&m.inertia);
        let mut next = w_b + dt * tau_b.component_div(&m.inertia);
        for _ in 0..MIDPOINT_ITERATIONS {
            let mid = 0.5 * (w_b + next);
            let i_mid = m.inertia.component_mul(&mid);
            let residual =
                m.inertia.component_mul(&(next - w_b)) + dt * mid.cross(&i_mid) - dt * tau_b;
            let jacobian =
                inertia + 0.5 * dt * (mid.cross_matrix() * inertia - i_mid.cross_matrix());
            let Some(step) = jacobian.lu().solve(&residual) else {
                break;
            };
            next -= step;
            if step.norm() <= 1e-15 * next.norm() {
                break;
            }
        }
        self.w = self.q.transform_vector(&next);
        self.advance_pose(dt);
    }

    /// The pose moved on by `dt` with the current velocities: `r += v dt`, and the
    /// exact rotation for a constant angular velocity over dt (dq/dt = 1/2 w q).
    pub fn advance_pose(&mut self, dt: f64) {
        self.r += dt * self.v;
        self.q = pmath::quat_from_scaled_axis(self.w * dt) * self.q;
        self.q.renormalize();
    }

    /// Like [`RigidBodyState::step`], for a body held by a planar joint to the world:
    /// it moves in the world x-z plane and turns only about world y. A prescribed speed
    /// along x (`vx`, m/s) or rate about y (`omega`, rad/s) replaces what the forces
    /// would give. Returns the joint's force along x (N) and torque about y (N m) that
    /// held the prescriptions over the step (momentum change / `dt`; 0 where free).
    #[allow(clippy::too_many_arguments)]
    pub fn step_planar(
        &mut self,
        m: &MassProperties,
        force: &Vector3<f64>,
        torque: &Vector3<f64>,
        g: &Vector3<f64>,
        dt: f64,
        vx: Option<f64>,
        omega: Option<f64>,
    ) -> (f64, f64) {
        let mut v = self.v + dt * (force / m.mass + g);
        v.y = 0.0;
        let mut fx = 0.0;
        if let Some(vx) = vx {
            fx = m.mass * (vx - v.x) / dt;
            v.x = vx;
        }
        // moment of inertia about world y: sum over the principal axes k of
        // I_k (y component of axis k)^2
        let rot = self.q.to_rotation_matrix();
        let i_y: f64 = (0..3).map(|k| m.inertia[k] * rot[(1, k)].powi(2)).sum();
        let mut wy = self.w.y + dt * torque.y / i_y;
        let mut my = 0.0;
        if let Some(omega) = omega {
            my = i_y * (omega - wy) / dt;
            wy = omega;
        }
        self.v = v;
        self.w = Vector3::new(0.0, wy, 0.0);
        self.advance_pose(dt);
        (fx, my)
    }

    /// Kinetic energy, J.
    pub fn kinetic_energy(&self, m: &MassProperties) -> f64 {
        let w_b = self.q.inverse_transform_vector(&self.w);
        0.5 * m.mass * self.v.norm_squared() + 0.5 * w_b.dot(&m.inertia.component_mul(&w_b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of `h` s without force, torque or gravity.
    fn coast(s: &mut RigidBodyState, m: &MassProperties, h: f64) {
        let zero = Vector3::zeros();
        s.step(m, &zero, &zero, &zero, h);
    }

    #[test]
    fn a_planar_joint_holds_its_speed_and_rate_and_reports_what_it_took() {
        let m = MassProperties {
            mass: 20.0,
            inertia: Vector3::new(0.5, 0.8, 0.5),
        };
        let mut s = RigidBodyState {
            w: Vector3::new(0.3, 1.0, -0.2),
            ..Default::default()
        };
        let g = Vector3::new(0.0, 0.0, -9.81);
        // a resisting force along x and y, a braking torque about y and x
        let f = Vector3::new(-40.0, 7.0, 0.0);
        let t = Vector3::new(2.0, -3.0, 0.0);
        let dt = 1e-3;
        let mut last = (0.0, 0.0);
        for _ in 0..1000 {
            last = s.step_planar(&m, &f, &t, &g, dt, Some(0.2), Some(1.0));
        }
        // speed and rate held, y and the other rotations held
        assert_eq!(s.v.x, 0.2);
        assert_eq!((s.v.y, s.r.y), (0.0, 0.0));
        assert_eq!((s.w.x, s.w.y, s.w.z), (0.0, 1.0, 0.0));
        // z is free: 1 s of free fall, semi-implicit Euler
        assert!((s.v.z + 9.81).abs() < 1e-9, "{}", s.v.z);
        assert!((s.r.x - 0.2).abs() < 1e-12);
        // at constant speed and rate the joint balances the loads
        assert!((last.0 - 40.0).abs() < 1e-9, "{last:?}");
        assert!((last.1 - 3.0).abs() < 1e-9, "{last:?}");
        // free about y: the torque spins it up at t / I_yy
        let mut s = RigidBodyState::default();
        let (fx, my) = s.step_planar(&m, &f, &t, &g, dt, None, None);
        assert_eq!((fx, my), (0.0, 0.0));
        assert!((s.w.y + dt * 3.0 / 0.8).abs() < 1e-15);
        assert!((s.v.x + dt * 40.0 / 20.0).abs() < 1e-15);
    }

    #[test]
    fn free_fall_matches_the_closed_form_to_first_order() {
        let m = MassProperties {
            mass: 2.0,
            inertia: Vector3::new(1.0, 1.0, 1.0),
        };
        let mut s = RigidBodyState {
            r: Vector3::new(0.0, 0.0, 10.0),
            ..Default::default()
        };
        let g = Vector3::new(0.0, 0.0, -9.81);
        let dt = 1e-4;
        for _ in 0..10_000 {
            s.step(&m, &Vector3::zeros(), &Vector3::zeros(), &g, dt);
        }
        // t = 1 s: v = -g t exactly; z = 10 - g t^2/2 - g t dt/2 (symplectic Euler offset)
        assert!((s.v.z + 9.81).abs() < 1e-9);
        assert!((s.r.z - (10.0 - 0.5 * 9.81 - 0.5 * 9.81 * dt)).abs() < 1e-9);
    }

    #[test]
    fn a_torque_free_symmetric_top_keeps_its_spin_and_energy() {
        let m = MassProperties {
            mass: 1.0,
            inertia: Vector3::new(0.4, 0.4, 0.4),
        };
        let mut s = RigidBodyState {
            w: Vector3::new(0.0, 0.0, 3.0),
            ..Default::default()
        };
        let e0 = s.kinetic_energy(&m);
        for _ in 0..1000 {
            coast(&mut s, &m, 1e-3);
        }
        assert!((s.kinetic_energy(&m) - e0).abs() < 1e-12);
        // rotated by 3 rad about z
        let angle = pmath::quat_angle(&s.q);
        assert!((angle - 3.0).abs() < 1e-9, "{angle}");
    }

    #[test]
    fn a_torque_free_tumbling_rock_keeps_its_angular_momentum_and_gains_no_energy() {
        // a rock of 1 kg about 12 cm across (inertia of a pile rock), tumbling at
        // 100 rad/s about no principal axis, 2 s at the pile's 0.5 ms step
        let m = MassProperties {
            mass: 1.0,
            inertia: Vector3::new(1.2e-3, 1.8e-3, 2.4e-3),
        };
        let mut s = RigidBodyState {
            w: Vector3::new(60.0, 30.0, 70.0),
            ..Default::default()
        };
        let momentum = |s: &RigidBodyState| {
            s.q.transform_vector(&m.inertia.component_mul(&s.q.inverse_transform_vector(&s.w)))
        };
        let (l0, e0) = (momentum(&s), s.kinetic_energy(&m));
        // the explicit Euler step this replaced
        let mut explicit = s;
        for _ in 0..4000 {
            let w_b = explicit.q.inverse_transform_vector(&explicit.w);
            let dw = -w_b
                .cross(&m.inertia.component_mul(&w_b))
                .component_div(&m.inertia);
            explicit.w = explicit.q.transform_vector(&(w_b + 5e-4 * dw));
            explicit.advance_pose(5e-4);
        }
        let gained = explicit.kinetic_energy(&m) / e0;
        let (mut e_max, mut e_min, mut l_err, mut l_len) = (e0, e0, 0.0f64, 0.0f64);
        for _ in 0..4000 {
            coast(&mut s, &m, 5e-4);
            let e = s.kinetic_energy(&m);
            (e_max, e_min) = (e_max.max(e), e_min.min(e));
            l_err = l_err.max((momentum(&s) - l0).norm() / l0.norm());
            l_len = l_len.max((momentum(&s).norm() - l0.norm()).abs() / l0.norm());
        }
        eprintln!("explicit: energy x {gained:.3}; midpoint: energy {:.12} .. {:.12}, |L| {l_len:.1e}, L {l_err:.2e}", e_min / e0, e_max / e0);
        assert!(gained > 1.1, "explicit Euler gained only {gained}");
        // the midpoint rule keeps the energy and |L| to rounding; L's direction in the
        // world turns by the orientation's first-order error (1.4 % in 2 s here)
        assert!(e_max <= e0 * (1.0 + 1e-9), "{e_max} J, from {e0} J");
        assert!(e_min >= e0 * (1.0 - 1e-9), "{e_min} J, from {e0} J");
        assert!(l_len < 1e-9, "|L| off by {l_len}");
        assert!(l_err < 0.02, "L turned by {l_err}");
    }
}

/// Pose and velocities of a body (world frame), as the contact models see it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BodyMotion {
    /// Body to world.
    pub iso: nalgebra::Isometry3<f64>,
    /// Velocity of the body origin, m/s.
    pub v: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub w: Vector3<f64>,
}
