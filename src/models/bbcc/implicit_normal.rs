//! `bbcc.implicit_normal`: the elastic part of every contact's normal force (Buse
//! 2023, eq. (1), k delta^1.5) taken linearly implicitly over the sub-step h, all
//! contacts together; with `bbcc.stick`, the stick spring's rate part too.
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
//!
//! The stick spring (`bbcc.stick`, at a contact's centre) is a stiffness too: its
//! explicit part -k_t s stays in the contact's force, and two tangent rows of gain
//! h^2 k_t take its rate part -k_t h v_t (v_t at the step's end) with the rest, the
//! pair's force held within Coulomb's bound mu F_N on a disk. Each pair is solved
//! exactly (a 2 x 2 system, or on the disk the least of its quadratic), so the sweeps
//! are block coordinate descent on a convex problem and converge; a pair solved row
//! by row and then scaled onto the disk cycled without end in the pile. Left contact
//! by contact, the spring on shared masses threw chips of 50 g and less pinched at
//! 1 ms, and the pile crept.
//!
//! A sweep after the first visits only the rows one of whose bodies took an impulse
//! change past its tolerance since the row's last visit: the others would change by
//! less than their tolerance. The converged regions of a scene cost nothing more, so
//! the sweeps can go on much longer where a light body between stiff contacts needs
//! them (Gauss-Seidel's rate there is near 1 per sweep).

use super::pair::{ImplicitRow, RowBuf, RowKind};
use nalgebra::{Matrix3, Vector3};

/// Sweeps at most; the solve stops earlier once no impulse changes by more than
/// [`TOLERANCE`] of its point's h F (a tangent pair's: of h mu F_N; a light rock's as
/// much as a heavy one's). The pile settles with 12-14 sweeps and never reaches it; a
/// 5 g chip pinched by a 1 kg cube dropped from 1 m needs more (50 left a 20 g chip
/// gaining energy).
pub const SWEEPS_MAX: usize = 500;
/// Relative change of the impulses at which the sweeps stop.
pub const TOLERANCE: f64 = 1e-6;
/// Points with h F below this fraction of the largest count as carrying that much
/// (a point just touching, with no force yet).
const FLOOR: f64 = 1e-6;

/// What the last solve did (for benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SolveStats {
    /// Sweeps (at most [`SWEEPS_MAX`]).
    pub sweeps: usize,
    /// Rows: contact points' normals and tangent rows.
    pub rows: usize,
    /// Row updates over all sweeps (a sweep visits only the rows whose bodies moved).
    pub visits: usize,
    /// Rows left out past a body pair's `ROWS_MAX`.
    pub dropped: usize,
}

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
    pub row: ImplicitRow,
}

impl SolveRow {
    /// Moves the rows of one body pair's `buf` into `out` as rows between `bodies`,
    /// leaving `buf` empty; returns how many rows the buffer had no room for.
    pub fn take_from(buf: &mut RowBuf, bodies: [Option<u32>; 2], out: &mut Vec<SolveRow>) -> usize {
        let dropped = buf.dropped;
        out.extend(buf.rows().iter().map(|&row| SolveRow { bodies, row }));
        buf.clear();
        dropped
    }
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
pub struct ImplicitSolve {
    prepared: Vec<Prepared>,
    /// Each row's impulse of the last solve, N s (positive pushes the bodies apart).
    pub impulses: Vec<f64>,
    /// Sweeps the last solve took.
    pub sweeps: usize,
    changed: Vec<u32>,
    /// The rows a sweep solves (not a second tangent row, gain and inverse mass not at
    /// or below zero), in order, each with its bodies ([`NO_BODY`]: none): the skip
    /// test after the first sweep reads these 12 bytes, not the row's and its
    /// preparation's 250.
    active: Vec<(u32, [u32; 2])>,
    /// Row updates the last solve made (a tangent pair counts two).
    pub visits: usize,
}

/// A row's missing body in [`ImplicitSolve::active`].
const NO_BODY: u32 = u32::MAX;

impl ImplicitSolve {
    /// Finds each row's impulse over the sub-step `h` (s) and adds its velocity
    /// changes to `bodies`. Deterministic: the rows in their order, every sweep.
    pub fn solve(&mut self, rows: &[SolveRow], bodies: &mut [SolveBody], h: f64) {
        self.prepared.clear();
        self.impulses.clear();
        self.sweeps = 0;
        self.visits = 0;
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
            if r.row.kind == RowKind::Normal {
                largest = largest.max(h * r.row.force);
            }
        }
        if rows.is_empty() || !(largest > 0.0) {
            return;
        }
        for (p, r) in self.prepared.iter_mut().zip(rows) {
            let scale = match r.row.kind {
                RowKind::Normal => r.row.force,
                RowKind::Tangent { bound } => bound,
                RowKind::TangentSecond => 0.0,
            };
            p.tolerance = TOLERANCE * (h * scale).max(FLOOR * largest);
        }
        for (c, r) in rows.iter().enumerate() {
            if r.row.kind == RowKind::TangentSecond {
                // the pair's tolerance is its first row's
                self.prepared[c].tolerance = self.prepared[c - 1].tolerance;
            }
        }
        // a second tangent row is solved with its first
        self.active.clear();
        let solved = |r: &SolveRow, p: &Prepared| {
            r.row.kind != RowKind::TangentSecond && !(r.row.gain <= 0.0 || p.inv <= 0.0)
        };
        for (c, (r, p)) in rows.iter().zip(&self.prepared).enumerate() {
            if solved(r, p) {
                self.active
                    .push((c as u32, r.bodies.map(|b| b.unwrap_or(NO_BODY))));
            }
        }
        // the sweep in which each body last took an impulse change past its row's
        // tolerance: a row whose bodies took none since its last visit is solved
        self.changed.clear();
        self.changed.resize(bodies.len(), 0);
        for sweep in 1..=SWEEPS_MAX as u32 {
            self.sweeps += 1;
            let mut converged = true;
            for &(c, links) in &self.active {
                if sweep > 1 {
                    let changed = &self.changed;
                    let moved = links
                        .iter()
                        .any(|&b| b != NO_BODY && changed[b as usize] + 1 >= sweep);
                    if !moved {
                        continue;
                    }
                }
                let c = c as usize;
                let (r, p) = (&rows[c], &self.prepared[c]);
                self.visits += 1;
                let old = self.impulses[c];
                let new = match r.row.kind {
                    // at least -h F: the point never pulls
                    RowKind::Normal => self.unclamped(r, c, bodies).max(-h * r.row.force),
                    RowKind::Tangent { bound } => {
                        // the pair together, its force within Coulomb's bound
                        let c2 = c + 1;
                        let (r2, p2) = (&rows[c2], &self.prepared[c2]);
                        let old2 = self.impulses[c2];
                        let (l1, l2) = tangent_pair(
                            [r, r2],
                            [p, p2],
                            [closing_rate(r, p, bodies), closing_rate(r2, p2, bodies)],
                            [old, old2],
                            bound,
                            h,
                        );
                        let (d1, d2) = (l1 - old, l2 - old2);
                        self.impulses[c] = l1;
                        self.impulses[c2] = l2;
                        apply(r, p, bodies, d1);
                        apply(r2, p2, bodies, d2);
                        self.visits += 1;
                        if d1.abs() > p.tolerance || d2.abs() > p2.tolerance {
                            converged = false;
                            mark(&mut self.changed, r, sweep);
                        }
                        continue;
                    }
                    RowKind::TangentSecond => unreachable!("solved with its first row"),
                };
                let delta = new - old;
                if delta == 0.0 {
                    continue;
                }
                self.impulses[c] = new;
                if delta.abs() > p.tolerance {
                    converged = false;
                    mark(&mut self.changed, r, sweep);
                }
                apply(r, p, bodies, delta);
            }
            if converged {
                break;
            }
        }
    }

    /// Row `c`'s impulse solving its own equation alone, L = g (rate + inv (L_old - L)):
    /// Euler backward on its stretch, with the bodies' velocities as they are now.
    fn unclamped(&self, r: &SolveRow, c: usize, bodies: &[SolveBody]) -> f64 {
        let p = &self.prepared[c];
        let g = r.row.gain;
        let rate = closing_rate(r, p, bodies);
        g * (rate + p.inv * self.impulses[c]) / (1.0 + g * p.inv)
    }
}

/// The impulses of a tangent pair (rows `r`, their `rates` now with impulses `old`)
/// solving both rows' equations together, (W + I/g) L = rates + W old with W the
/// pair's 2 x 2 inverse mass, or where that force (the rows' forces plus L / h) would
/// pass Coulomb's `bound` (N), the least of the same quadratic on the bound's disk:
/// (h^2 A + mu I) x = h b + h^2 A F_0 for the force x, mu > 0 found by Newton's method
/// on 1/|x| (Moré and Sorensen's trust-region step). Exact per pair, so the sweeps are
/// block coordinate descent and converge.
fn tangent_pair(
    r: [&SolveRow; 2],
    p: [&Prepared; 2],
    rates: [f64; 2],
    old: [f64; 2],
    bound: f64,
    h: f64,
) -> (f64, f64) {
    let g = r[0].row.gain;
    // W: the tangents are orthogonal, so only the turning couples them
    let w12: f64 = (0..2).map(|k| p[0].arm[k].dot(&p[1].turn[k])).sum();
    let (a11, a22, a12) = (p[0].inv + 1.0 / g, p[1].inv + 1.0 / g, w12);
    let b1 = rates[0] + p[0].inv * old[0] + w12 * old[1];
    let b2 = rates[1] + w12 * old[0] + p[1].inv * old[1];
    let det = a11 * a22 - a12 * a12;
    if !(det > 0.0) || !det.is_finite() {
        return (old[0], old[1]);
    }
    let l1 = (a22 * b1 - a12 * b2) / det;
    let l2 = (a11 * b2 - a12 * b1) / det;
    let (f1, f2) = (r[0].row.force, r[1].row.force);
    let (x1, x2) = (f1 + l1 / h, f2 + l2 / h);
    if x1 * x1 + x2 * x2 <= bound * bound {
        return (l1, l2);
    }
    if bound <= 0.0 {
        return (-h * f1, -h * f2);
    }
    // on the disk: M = h^2 A + mu I, c = h b + h^2 A F_0
    let hh = h * h;
    let c1 = h * b1 + hh * (a11 * f1 + a12 * f2);
    let c2 = h * b2 + hh * (a12 * f1 + a22 * f2);
    let mut mu = 0.0;
    let (mut x1, mut x2) = (x1, x2);
    for _ in 0..TANGENT_NEWTON {
        let (m11, m22, m12) = (hh * a11 + mu, hh * a22 + mu, hh * a12);
        let det = m11 * m22 - m12 * m12;
        x1 = (m22 * c1 - m12 * c2) / det;
        x2 = (m11 * c2 - m12 * c1) / det;
        let norm = (x1 * x1 + x2 * x2).sqrt();
        // psi = 1/bound - 1/|x|, psi' = -x' M^-1 x / |x|^3
        let y1 = (m22 * x1 - m12 * x2) / det;
        let y2 = (m11 * x2 - m12 * x1) / det;
        let slope = -(x1 * y1 + x2 * y2) / (norm * norm * norm);
        let psi = 1.0 / bound - 1.0 / norm;
        if psi.abs() <= 1e-12 / bound || !(slope < 0.0) {
            break;
        }
        mu = (mu - psi / slope).max(0.0);
    }
    // exactly on the bound
    let scale = bound / (x1 * x1 + x2 * x2).sqrt();
    (h * (x1 * scale - f1), h * (x2 * scale - f2))
}

/// Newton steps at most for a tangent pair on its bound (from mu = 0 the steps rise
/// monotonically; 1e-12 is reached in a handful).
const TANGENT_NEWTON: usize = 20;

/// The row's closing rate at the step's end: body 1's velocity along the row at its
/// point minus body 2's, m/s.
fn closing_rate(r: &SolveRow, p: &Prepared, bodies: &[SolveBody]) -> f64 {
    let n = r.row.normal;
    let mut rate = 0.0;
    for (k, b) in r.bodies.iter().enumerate() {
        if let Some(b) = b {
            let body = &bodies[*b as usize];
            let along = n.dot(&body.v) + p.arm[k].dot(&body.w);
            rate += if k == 0 { along } else { -along };
        }
    }
    rate
}

/// Records that the bodies of row `r` took an impulse change past its tolerance in
/// `sweep`.
fn mark(changed: &mut [u32], r: &SolveRow, sweep: u32) {
    for b in r.bodies.iter().flatten() {
        changed[*b as usize] = sweep;
    }
}

/// Adds the velocity changes of an impulse change `delta` (N s) on row `r`.
fn apply(r: &SolveRow, p: &Prepared, bodies: &mut [SolveBody], delta: f64) {
    for (k, b) in r.bodies.iter().enumerate() {
        if let Some(b) = b {
            let body = &mut bodies[*b as usize];
            let sign = if k == 0 { -delta } else { delta };
            body.v += r.row.normal * (sign * body.inv_mass);
            body.w += p.turn[k] * sign;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pmath;

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
            row: ImplicitRow {
                point: Vector3::new(0.0, 0.0, z),
                normal: Vector3::z(),
                gain,
                force,
                kind: RowKind::Normal,
            },
        }
    }

    /// One point mass on the ground closing at 1 m/s: the impulse is the linear
    /// system's exact solution L = g (r - L / m), r the closing speed.
    #[test]
    fn one_contact_is_euler_backward_on_its_penetration() {
        let (m, g, v) = (0.1, 50.0, -1.0);
        let mut bodies = [body(m, 0.0, v)];
        let mut solve = ImplicitSolve::default();
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
        let mut solve = ImplicitSolve::default();
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
        let mut solve = ImplicitSolve::default();
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
        let mut solve = ImplicitSolve::default();
        solve.solve(&[row([None, Some(0)], 0.0, 100.0, 3.0)], &mut bodies, h);
        assert_eq!(solve.impulses[0], -h * 3.0);
    }

    /// A body of mass `m` (a ball's inertia 2/5 m r^2, r = 0.1 m) sliding along x at
    /// `vx` on the ground, its contact 0.1 m below its origin, with a tangent pair of
    /// `gain` whose spring force is `f0` (N, along x) and Coulomb's `bound`.
    fn slider(m: f64, vx: f64, gain: f64, f0: f64, bound: f64) -> ([SolveBody; 1], [SolveRow; 2]) {
        let i = 0.4 * m * 0.01;
        let b = SolveBody {
            inv_mass: 1.0 / m,
            inv_inertia: Matrix3::identity() / i,
            origin: Vector3::new(0.0, 0.0, 0.1),
            v: Vector3::new(vx, 0.0, 0.0),
            w: Vector3::zeros(),
        };
        let tangent = |dir: Vector3<f64>, force: f64, kind: RowKind| SolveRow {
            bodies: [None, Some(0)],
            row: ImplicitRow {
                point: Vector3::zeros(),
                normal: dir,
                gain,
                force,
                kind,
            },
        };
        (
            [b],
            [
                tangent(Vector3::x(), f0, RowKind::Tangent { bound }),
                tangent(Vector3::y(), 0.0, RowKind::TangentSecond),
            ],
        )
    }

    /// Sticking (the force within Coulomb's bound): the pair is Euler backward on the
    /// spring's stretch, L = g (r - w L) with w the contact point's inverse mass along
    /// x (the ball rolls: 1/m + r^2/I = 3.5/m), and nothing across.
    #[test]
    fn a_sticking_tangent_pair_is_euler_backward_on_its_stretch() {
        let (m, vx, g) = (0.5, 0.01, 2.0);
        let (mut bodies, rows) = slider(m, vx, g, 0.0, 100.0);
        let mut solve = ImplicitSolve::default();
        // the pair needs a normal row to set the scale of its tolerance
        let mut all = rows.to_vec();
        all.push(row([None, Some(0)], 0.0, 0.0, 5.0));
        solve.solve(&all, &mut bodies, 1e-3);
        let w = 3.5 / m;
        let exact = g * -vx / (1.0 + g * w);
        assert!(
            (solve.impulses[0] - exact).abs() < 1e-15,
            "{:?}",
            solve.impulses
        );
        assert!(solve.impulses[1].abs() < 1e-18);
        // the contact point's slip at the end: vx + w L
        assert!((vx + w * exact - exact / -g).abs() < 1e-15);
    }

    /// Sliding (the force the stretch asks for past Coulomb's bound): the pair's force
    /// lies on the bound, and it is the least of the pair's quadratic on the bound's
    /// disk (checked against 20 000 points of the circle), pointed by the bodies'
    /// turning off the slip direction.
    #[test]
    fn a_sliding_tangent_pair_is_the_least_on_the_coulomb_disk() {
        let (m, g, h, bound) = (0.5, 2.0, 1e-3, 0.8);
        let (mut bodies, rows) = slider(m, 0.05, g, 0.5, bound);
        // an inertia off the axes couples the two tangents
        bodies[0].inv_inertia[(0, 1)] = 400.0;
        bodies[0].inv_inertia[(1, 0)] = 400.0;
        let mut prepared = [rows[0].row.point; 2].map(|_| Prepared {
            arm: [Vector3::zeros(); 2],
            turn: [Vector3::zeros(); 2],
            inv: 0.0,
            tolerance: 0.0,
        });
        for (p, r) in prepared.iter_mut().zip(&rows) {
            let arm = (r.row.point - bodies[0].origin).cross(&r.row.normal);
            p.arm[1] = arm;
            p.turn[1] = bodies[0].inv_inertia * arm;
            p.inv = bodies[0].inv_mass + arm.dot(&p.turn[1]);
        }
        let rates = [
            closing_rate(&rows[0], &prepared[0], &bodies),
            closing_rate(&rows[1], &prepared[1], &bodies),
        ];
        let (l1, l2) = tangent_pair(
            [&rows[0], &rows[1]],
            [&prepared[0], &prepared[1]],
            rates,
            [0.0, 0.0],
            bound,
            h,
        );
        let (x1, x2) = (0.5 + l1 / h, l2 / h);
        assert!(((x1 * x1 + x2 * x2).sqrt() - bound).abs() < 1e-12);
        assert!(x2.abs() > 0.05, "the coupling turns the force: {x1} {x2}");
        // the pair's quadratic 1/2 L' A L - b' L, A = W + I/g, b = the rates
        let w12: f64 = prepared[0].arm[1].dot(&prepared[1].turn[1]);
        let a = [
            [prepared[0].inv + 1.0 / g, w12],
            [w12, prepared[1].inv + 1.0 / g],
        ];
        let q = |l1: f64, l2: f64| {
            0.5 * (a[0][0] * l1 * l1 + 2.0 * a[0][1] * l1 * l2 + a[1][1] * l2 * l2)
                - rates[0] * l1
                - rates[1] * l2
        };
        let ours = q(l1, l2);
        let least = (0..20_000)
            .map(|k| {
                let t = k as f64 / 20_000.0 * std::f64::consts::TAU;
                q(h * (bound * pmath::cos(t) - 0.5), h * bound * pmath::sin(t))
            })
            .fold(f64::INFINITY, f64::min);
        assert!(ours <= least + 1e-15, "{ours} against {least}");
    }
}
