//! `bbcc.implicit_normal`: the elastic part of every contact's normal force (Buse
//! 2023, eq. (1), k delta^1.5) taken linearly implicitly over the sub-step h, all
//! contacts together.
//!
//! Explicitly, a contact of stiffness K = 1.5 k delta^0.5 on an effective inverse mass
//! w is stable only while omega h < 2 (omega^2 = K w): a light rock pinched under one
//! landing at metres per second is past that at 1 ms. Euler backward on the
//! penetration takes the force at the step's end, k (delta + h r)^1.5 ~ F + K h r (r
//! the penetration rate at the end), so each point gets, besides its force F, an
//! impulse L = h^2 K r with r after every impulse: a linear system over the contact
//! points, symmetric and positive definite, solved by projected Gauss-Seidel, each L at
//! least -h F (the point never pulls). Every force of the sub-step is in the velocities
//! the impulses start from, so at rest (those velocities zero) every L is zero and the
//! penetrations are Hertz's; a contact made implicit on its own velocity alone misses
//! the load its bodies carry through other contacts and sinks (measured in
//! `benches/bbcc_implicit_normal.py`, docs/bbcc-at-scale.md).

use super::pair::NormalRow;
use nalgebra::{Matrix3, Vector3};

/// Sweeps at most; the solve stops earlier once no impulse changes by more than
/// [`TOLERANCE`] of its point's h F (a light rock's as much as a heavy one's).
pub const SWEEPS_MAX: usize = 50;
/// Relative change of the impulses at which the sweeps stop.
pub const TOLERANCE: f64 = 1e-6;
/// Points with h F below this fraction of the largest count as carrying that much
/// (a point just touching, with no force yet).
const FLOOR: f64 = 1e-6;

/// A body as the solve sees it (world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveBody {
    /// Inverse mass, 1/kg (0: the body does not move with the forces).
    pub inv_mass: f64,
    /// Inverse inertia about the origin, world frame, 1/(kg m^2).
    pub inv_inertia: Matrix3<f64>,
    /// Body origin, m.
    pub origin: Vector3<f64>,
    /// Velocity and angular velocity at the sub-step's end with every force but the
    /// impulses, m/s and rad/s; the impulses' changes are added.
    pub v: Vector3<f64>,
    pub w: Vector3<f64>,
}

impl SolveBody {
    /// A body that does not move with the forces, at rest at the origin.
    pub const IMMOVABLE: SolveBody = SolveBody {
        inv_mass: 0.0,
        inv_inertia: Matrix3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        origin: Vector3::new(0.0, 0.0, 0.0),
        v: Vector3::new(0.0, 0.0, 0.0),
        w: Vector3::new(0.0, 0.0, 0.0),
    };
}

/// A contact point between `bodies` (None: the ground or another immovable part; the
/// normal points from the first towards the second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveRow {
    pub bodies: [Option<u32>; 2],
    pub row: NormalRow,
}

/// One row ready for the sweeps: per body its lever r x n and I^-1 (r x n).
#[derive(Debug, Clone, Copy)]
struct Prepared {
    arm: [Vector3<f64>; 2],
    turn: [Vector3<f64>; 2],
    /// n . w^-1 n: the row's effective inverse mass, 1/kg.
    inv: f64,
    /// The change of its impulse below which it counts as converged, N s.
    tolerance: f64,
}

/// The projected Gauss-Seidel solve, its work buffers kept between calls.
#[derive(Debug, Default, Clone)]
pub struct NormalSolve {
    prepared: Vec<Prepared>,
    /// Each row's impulse of the last solve, N s (positive pushes the bodies apart).
    pub impulses: Vec<f64>,
    /// Sweeps the last solve took.
    pub sweeps: usize,
}

impl NormalSolve {
    /// Finds each row's impulse over the sub-step `h` (s) and adds its velocity
    /// changes to `bodies`. Deterministic: the rows in their order, every sweep.
    pub fn solve(&mut self, rows: &[SolveRow], bodies: &mut [SolveBody], h: f64) {
        self.prepared.clear();
        self.impulses.clear();
        self.sweeps = 0;
        let mut largest: f64 = 0.0;
        for r in rows {
            let n = r.row.normal;
            let mut p = Prepared {
                arm: [Vector3::zeros(); 2],
                turn: [Vector3::zeros(); 2],
                inv: 0.0,
                tolerance: 0.0,
            };
            for (k, b) in r.bodies.iter().enumerate() {
                if let Some(b) = b {
                    let body = &bodies[*b as usize];
                    let arm = (r.row.point - body.origin).cross(&n);
                    let turn = body.inv_inertia * arm;
                    p.arm[k] = arm;
                    p.turn[k] = turn;
                    p.inv += body.inv_mass + arm.dot(&turn);
                }
            }
            self.prepared.push(p);
            self.impulses.push(0.0);
            largest = largest.max(h * r.row.force);
        }
        if rows.is_empty() || !(largest > 0.0) {
            return;
        }
        for (p, r) in self.prepared.iter_mut().zip(rows) {
            p.tolerance = TOLERANCE * (h * r.row.force).max(FLOOR * largest);
        }
        for _ in 0..SWEEPS_MAX {
            self.sweeps += 1;
            let mut converged = true;
            for (c, r) in rows.iter().enumerate() {
                let p = &self.prepared[c];
                let n = r.row.normal;
                if r.row.gain <= 0.0 || p.inv <= 0.0 {
                    continue;
                }
                // the penetration rate at the step's end: body 1's normal velocity at
                // the point minus body 2's
                let mut rate = 0.0;
                for (k, b) in r.bodies.iter().enumerate() {
                    if let Some(b) = b {
                        let body = &bodies[*b as usize];
                        let along = n.dot(&body.v) + p.arm[k].dot(&body.w);
                        rate += if k == 0 { along } else { -along };
                    }
                }
                // L = g (rate + inv (L_old - L)) for this row alone, at least -h F
                let old = self.impulses[c];
                let g = r.row.gain;
                let new = (g * (rate + p.inv * old) / (1.0 + g * p.inv)).max(-h * r.row.force);
                let delta = new - old;
                if delta == 0.0 {
                    continue;
                }
                self.impulses[c] = new;
                converged &= delta.abs() <= p.tolerance;
                for (k, b) in r.bodies.iter().enumerate() {
                    if let Some(b) = b {
                        let body = &mut bodies[*b as usize];
                        let sign = if k == 0 { -delta } else { delta };
                        body.v += n * (sign * body.inv_mass);
                        body.w += p.turn[k] * sign;
                    }
                }
            }
            if converged {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(m: f64, z: f64, vz: f64) -> SolveBody {
        SolveBody {
            inv_mass: 1.0 / m,
            inv_inertia: Matrix3::zeros(),
            origin: Vector3::new(0.0, 0.0, z),
            v: Vector3::new(0.0, 0.0, vz),
            w: Vector3::zeros(),
        }
    }

    fn row(bodies: [Option<u32>; 2], z: f64, gain: f64, force: f64) -> SolveRow {
        SolveRow {
            bodies,
            row: NormalRow {
                point: Vector3::new(0.0, 0.0, z),
                normal: Vector3::z(),
                gain,
                force,
            },
        }
    }

    /// One point mass on the ground closing at 1 m/s: the impulse is the linear
    /// system's exact solution L = g (r - L / m), r the closing speed.
    #[test]
    fn one_contact_is_euler_backward_on_its_penetration() {
        let (m, g, v) = (0.1, 50.0, -1.0);
        let mut bodies = [body(m, 0.0, v)];
        let mut solve = NormalSolve::default();
        solve.solve(&[row([None, Some(0)], 0.0, g, 10.0)], &mut bodies, 1e-3);
        let exact = g * -v / (1.0 + g / m);
        assert!(
            (solve.impulses[0] - exact).abs() < 1e-15,
            "{}",
            solve.impulses[0]
        );
        assert!((bodies[0].v.z - (v + exact / m)).abs() < 1e-15);
        assert_eq!(solve.sweeps, 2);
    }

    /// A body at rest (its forces balanced: no velocity to start from) gets no impulse.
    #[test]
    fn at_rest_nothing_changes() {
        let mut bodies = [body(1.0, 0.1, 0.0), body(0.02, 0.0, 0.0)];
        let rows = [
            row([Some(1), Some(0)], 0.05, 1e3, 9.81),
            row([None, Some(1)], 0.0, 1e3, 10.0),
        ];
        let mut solve = NormalSolve::default();
        solve.solve(&rows, &mut bodies, 1e-3);
        assert_eq!(solve.impulses, vec![0.0, 0.0]);
        assert_eq!(solve.sweeps, 1);
    }

    /// A light body pinched between the ground and a heavy one coming down: the sweeps
    /// converge to the 2 x 2 system's solution, and no point pulls. Gauss-Seidel's
    /// rate here is about (g / m)^2 / ((1 + g w_1)(1 + g w_2)) per sweep: 0.82 with this gain;
    /// with a hundred times the gain it is 0.96 and 50 sweeps leave the impulses far
    /// off (the limit docs/bbcc-at-scale.md names).
    #[test]
    fn a_pinched_body_converges_to_the_coupled_solution() {
        let (m_top, m, g) = (1.0, 0.02, 0.2);
        let mut bodies = [body(m_top, 0.1, -2.0), body(m, 0.0, 0.0)];
        let rows = [
            row([Some(1), Some(0)], 0.05, g, 100.0),
            row([None, Some(1)], 0.0, g, 100.0),
        ];
        let mut solve = NormalSolve::default();
        solve.solve(&rows, &mut bodies, 1e-3);
        // L1 = g (v_chip - v_top), L2 = g (-v_chip) at the end
        let (v_top, v_chip) = (bodies[0].v.z, bodies[1].v.z);
        let (l1, l2) = (solve.impulses[0], solve.impulses[1]);
        assert!(
            (l1 - g * (v_chip - v_top)).abs() < 1e-4 * l1,
            "{l1} {v_top} {v_chip}"
        );
        assert!((l2 - g * -v_chip).abs() < 1e-4 * l1, "{l2} {v_chip}");
        // momentum: the top lost what the chip and the ground took
        assert!((m_top * (v_top + 2.0) - l1).abs() < 1e-12);
        assert!((m * v_chip - (l2 - l1)).abs() < 1e-12);
        assert!(l1 > 0.0 && l2 > 0.0 && solve.sweeps > 2);
    }

    /// Bodies separating faster than the force pushes them: the impulse is held at
    /// -h F, the force never becomes a pull.
    #[test]
    fn an_opening_contact_never_pulls() {
        let h = 1e-3;
        let mut bodies = [body(1.0, 0.0, 5.0)];
        let mut solve = NormalSolve::default();
        solve.solve(&[row([None, Some(0)], 0.0, 100.0, 3.0)], &mut bodies, h);
        assert_eq!(solve.impulses[0], -h * 3.0);
    }
}
