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
//! them (Gauss-Seidel's rate there is near 1 per sweep). A fixed body's velocity does
//! not change, so its rows are not visited again for it.
//!
//! Two threads share the sweeps: the moving bodies are split in halves at their median
//! along the axis they spread most, each sweep solves the rows within each half at
//! once (they share no moving body) and then the rows across. That is Gauss-Seidel in
//! one fixed order of the rows, so the bits are the same on any number of threads.

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

/// One solved row as the sweeps read it, kept in the order they visit the rows (a
/// second tangent row right after its first): its direction, per body its lever
/// r x n and I^-1 (r x n), and its impulse so far.
#[derive(Debug, Clone, Copy)]
struct Prepared {
    /// Unit direction of the row's force on body 2 (world frame).
    normal: Vector3<f64>,
    arm: [Vector3<f64>; 2],
    turn: [Vector3<f64>; 2],
    /// n . w^-1 n: the row's effective inverse mass, 1/kg.
    inv: f64,
    /// The change of its impulse below which it counts as converged, N s.
    tolerance: f64,
    /// h^2 K, N s^2/m ([`ImplicitRow::gain`]).
    gain: f64,
    /// The row's force as computed, N ([`ImplicitRow::force`]).
    force: f64,
    /// The impulse so far, N s.
    impulse: f64,
    kind: RowKind,
    /// Its bodies: an index into its part's moving bodies, [`FIXED`] with an index
    /// into the fixed ones, or [`NO_BODY`].
    bodies: [u32; 2],
}

/// What a sweep reads and changes of a body: velocity (m/s), angular velocity
/// (rad/s), inverse mass (1/kg).
#[derive(Debug, Clone, Copy)]
struct Motion {
    v: Vector3<f64>,
    w: Vector3<f64>,
    inv_mass: f64,
}

/// The rows of one part of the scene, in the sweeps' order.
#[derive(Debug, Default, Clone)]
struct Part {
    prepared: Vec<Prepared>,
    /// Each prepared row's index in the rows given.
    row_of: Vec<u32>,
    /// The rows a sweep solves (not a second tangent row), each with its index in
    /// `prepared` and its bodies: the skip test after the first sweep reads these 12
    /// bytes, not the row's 184.
    active: Vec<(u32, [u32; 2])>,
}

/// The projected Gauss-Seidel solve, its work buffers kept between calls.
#[derive(Debug, Default, Clone)]
pub struct ImplicitSolve {
    /// The rows between moving bodies of the lower half, of the upper half (along the
    /// axis the moving bodies spread most), and the rows across.
    parts: [Part; 3],
    /// The moving bodies, the lower half's first, and each one's index in the bodies
    /// given; the bodies that do not move with the forces (read only).
    moving: Vec<Motion>,
    moving_of: Vec<u32>,
    fixed: Vec<Motion>,
    /// How many moving bodies the lower half has.
    lower: usize,
    /// Per body given: its half (0, 1; 2: fixed) and its index there.
    place: Vec<(u8, u32)>,
    /// The moving bodies' coordinates along the split's axis, with their indices
    /// (work buffer).
    order: Vec<(f64, u32)>,
    /// Each row's impulse of the last solve, N s (positive pushes the bodies apart).
    pub impulses: Vec<f64>,
    /// Sweeps the last solve took.
    pub sweeps: usize,
    changed: Vec<u32>,
    /// Row updates the last solve made (a tangent pair counts two).
    pub visits: usize,
}

/// A row's missing body in [`Prepared::bodies`].
const NO_BODY: u32 = u32::MAX;
/// The bit that marks a fixed body in [`Prepared::bodies`].
const FIXED: u32 = 1 << 31;

/// Rows at and past which the two halves are swept in parallel, where there are two
/// threads (otherwise one after the other: the same result, without the threads'
/// hand-over).
const PARALLEL_ROWS: usize = 256;

impl ImplicitSolve {
    /// Finds each row's impulse over the sub-step `h` (s) and adds its velocity
    /// changes to `bodies`.
    ///
    /// Deterministic on any number of threads: the moving bodies are split in two
    /// halves at their median along the axis they spread most; a sweep solves the rows
    /// within each half (in their order; the halves share no moving body, so they are
    /// swept at once and give the same bits one after the other) and then the rows
    /// across, in their order. That is Gauss-Seidel in one fixed order of the rows.
    pub fn solve(&mut self, rows: &[SolveRow], bodies: &mut [SolveBody], h: f64) {
        for part in &mut self.parts {
            part.prepared.clear();
            part.row_of.clear();
            part.active.clear();
        }
        self.impulses.clear();
        self.impulses.resize(rows.len(), 0.0);
        self.sweeps = 0;
        self.visits = 0;
        let largest = rows
            .iter()
            .filter(|r| r.row.kind == RowKind::Normal)
            .fold(0.0f64, |m, r| m.max(h * r.row.force));
        if rows.is_empty() || !(largest > 0.0) {
            return;
        }
        self.split(bodies);
        // a second tangent row is solved with its first, and only with it
        let mut first_part = None;
        for (c, r) in rows.iter().enumerate() {
            let second = r.row.kind == RowKind::TangentSecond;
            if second && first_part.is_none() {
                continue;
            }
            let n = r.row.normal;
            let mut p = Prepared {
                normal: n,
                arm: [Vector3::zeros(); 2],
                turn: [Vector3::zeros(); 2],
                inv: 0.0,
                tolerance: 0.0,
                gain: r.row.gain,
                force: r.row.force,
                impulse: 0.0,
                kind: r.row.kind,
                bodies: [NO_BODY; 2],
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
            let part = if second {
                let part = first_part.unwrap_or(2);
                // the pair's tolerance is its first row's
                p.tolerance = self.parts[part]
                    .prepared
                    .last()
                    .map_or(0.0, |f| f.tolerance);
                part
            } else {
                let scale = match r.row.kind {
                    RowKind::Normal => r.row.force,
                    RowKind::Tangent { bound } => bound,
                    RowKind::TangentSecond => 0.0,
                };
                p.tolerance = TOLERANCE * (h * scale).max(FLOOR * largest);
                if r.row.gain <= 0.0 || p.inv <= 0.0 {
                    first_part = None;
                    continue;
                }
                let mut halves = r
                    .bodies
                    .iter()
                    .flatten()
                    .map(|&b| self.place[b as usize].0)
                    .filter(|&half| half < 2);
                let first = halves.next().unwrap_or(2);
                let part = usize::from(if halves.all(|half| half == first) {
                    first
                } else {
                    2
                });
                first_part = Some(part);
                part
            };
            let na = self.lower;
            for (k, b) in r.bodies.iter().enumerate() {
                if let Some(b) = b {
                    let (half, at) = self.place[*b as usize];
                    p.bodies[k] = match (half, part) {
                        (2, _) => FIXED | at,
                        (1, 2) => na as u32 + at,
                        _ => at,
                    };
                }
            }
            let dest = &mut self.parts[part];
            if !second {
                dest.active.push((dest.prepared.len() as u32, p.bodies));
            }
            dest.prepared.push(p);
            dest.row_of.push(c as u32);
        }
        let na = self.lower;
        self.changed.clear();
        self.changed.resize(self.moving.len(), 0);
        let parallel = self.parts[0].active.len() + self.parts[1].active.len() >= PARALLEL_ROWS
            && rayon::current_num_threads() > 1;
        let fixed = &self.fixed[..];
        let [lower, upper, across] = &mut self.parts;
        // the sweep in which each body last took an impulse change past its row's
        // tolerance: a row whose bodies took none since its last visit is solved
        for sweep in 1..=SWEEPS_MAX as u32 {
            self.sweeps += 1;
            let (ma, mb) = self.moving.split_at_mut(na);
            let (ca, cb) = self.changed.split_at_mut(na);
            let (a, b) = if parallel {
                rayon::join(
                    || lower.sweep(ma, ca, fixed, sweep, h),
                    || upper.sweep(mb, cb, fixed, sweep, h),
                )
            } else {
                (
                    lower.sweep(ma, ca, fixed, sweep, h),
                    upper.sweep(mb, cb, fixed, sweep, h),
                )
            };
            let c = across.sweep(&mut self.moving, &mut self.changed, fixed, sweep, h);
            self.visits += a.1 + b.1 + c.1;
            if a.0 && b.0 && c.0 {
                break;
            }
        }
        for part in &self.parts {
            for (p, &c) in part.prepared.iter().zip(&part.row_of) {
                self.impulses[c as usize] = p.impulse;
            }
        }
        for (m, &b) in self.moving.iter().zip(&self.moving_of) {
            bodies[b as usize].v = m.v;
            bodies[b as usize].w = m.w;
        }
    }

    /// Splits the moving bodies (inverse mass above zero) at their median along the
    /// axis they spread most (ties by index: the same split on any machine), the lower
    /// half first, and lists the fixed ones.
    fn split(&mut self, bodies: &[SolveBody]) {
        self.moving.clear();
        self.moving_of.clear();
        self.fixed.clear();
        self.place.clear();
        self.order.clear();
        let mut lo = Vector3::repeat(f64::INFINITY);
        let mut hi = Vector3::repeat(f64::NEG_INFINITY);
        for b in bodies.iter().filter(|b| b.inv_mass > 0.0) {
            lo = lo.inf(&b.origin);
            hi = hi.sup(&b.origin);
        }
        let spread = hi - lo;
        let axis = if spread.x >= spread.y { 0 } else { 1 };
        for (i, b) in bodies.iter().enumerate() {
            if b.inv_mass > 0.0 {
                self.order.push((b.origin[axis], i as u32));
            }
        }
        let lower = self.order.len() - self.order.len() / 2;
        let cmp = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if lower < self.order.len() {
            self.order.select_nth_unstable_by(lower, cmp);
        }
        self.lower = lower;
        self.place.resize(bodies.len(), (2, 0));
        // the lower half in index order, then the upper
        let pivot = self.order.get(lower).copied();
        let below = |b: usize| match pivot {
            Some(p) => cmp(&(bodies[b].origin[axis], b as u32), &p).is_lt(),
            None => true,
        };
        for half in 0..2u8 {
            let mut at = 0u32;
            for (i, b) in bodies.iter().enumerate() {
                if b.inv_mass > 0.0 && below(i) == (half == 0) {
                    self.place[i] = (half, at);
                    at += 1;
                    self.moving.push(Motion {
                        v: b.v,
                        w: b.w,
                        inv_mass: b.inv_mass,
                    });
                    self.moving_of.push(i as u32);
                }
            }
        }
        for (i, b) in bodies.iter().enumerate() {
            if !(b.inv_mass > 0.0) {
                self.place[i] = (2, self.fixed.len() as u32);
                self.fixed.push(Motion {
                    v: b.v,
                    w: b.w,
                    inv_mass: b.inv_mass,
                });
            }
        }
    }
}

impl Part {
    /// One sweep over this part's rows with its moving bodies `moving` (and their
    /// `changed`) and the `fixed` ones; returns whether no impulse changed past its
    /// tolerance, and the row updates made.
    fn sweep(
        &mut self,
        moving: &mut [Motion],
        changed: &mut [u32],
        fixed: &[Motion],
        sweep: u32,
        h: f64,
    ) -> (bool, usize) {
        let mut converged = true;
        let mut visits = 0;
        for &(c, links) in &self.active {
            if sweep > 1 {
                let moved = links
                    .iter()
                    .any(|&b| b & FIXED == 0 && changed[b as usize] + 1 >= sweep);
                if !moved {
                    continue;
                }
            }
            let c = c as usize;
            visits += 1;
            let p = &self.prepared[c];
            let old = p.impulse;
            let new = match p.kind {
                // at least -h F: the point never pulls
                RowKind::Normal => unclamped(p, moving, fixed).max(-h * p.force),
                RowKind::Tangent { bound } => {
                    // the pair together, its force within Coulomb's bound
                    let p2 = &self.prepared[c + 1];
                    let old2 = p2.impulse;
                    let (l1, l2) = tangent_pair(
                        [p, p2],
                        [
                            closing_rate(p, moving, fixed),
                            closing_rate(p2, moving, fixed),
                        ],
                        [old, old2],
                        bound,
                        h,
                    );
                    let (d1, d2) = (l1 - old, l2 - old2);
                    apply(p, moving, d1);
                    apply(p2, moving, d2);
                    visits += 1;
                    if d1.abs() > p.tolerance || d2.abs() > p2.tolerance {
                        converged = false;
                        mark(changed, p, sweep);
                    }
                    self.prepared[c].impulse = l1;
                    self.prepared[c + 1].impulse = l2;
                    continue;
                }
                RowKind::TangentSecond => unreachable!("solved with its first row"),
            };
            let delta = new - old;
            if delta == 0.0 {
                continue;
            }
            if delta.abs() > p.tolerance {
                converged = false;
                mark(changed, p, sweep);
            }
            apply(p, moving, delta);
            self.prepared[c].impulse = new;
        }
        (converged, visits)
    }
}

/// Row `p`'s impulse solving its own equation alone, L = g (rate + inv (L_old - L)):
/// Euler backward on its stretch, with the bodies' velocities as they are now.
fn unclamped(p: &Prepared, moving: &[Motion], fixed: &[Motion]) -> f64 {
    let g = p.gain;
    let rate = closing_rate(p, moving, fixed);
    g * (rate + p.inv * p.impulse) / (1.0 + g * p.inv)
}

/// The impulses of a tangent pair (rows `r`, their `rates` now with impulses `old`)
/// solving both rows' equations together, (W + I/g) L = rates + W old with W the
/// pair's 2 x 2 inverse mass, or where that force (the rows' forces plus L / h) would
/// pass Coulomb's `bound` (N), the least of the same quadratic on the bound's disk:
/// (h^2 A + mu I) x = h b + h^2 A F_0 for the force x, mu > 0 found by Newton's method
/// on 1/|x| (Moré and Sorensen's trust-region step). Exact per pair, so the sweeps are
/// block coordinate descent and converge.
fn tangent_pair(
    p: [&Prepared; 2],
    rates: [f64; 2],
    old: [f64; 2],
    bound: f64,
    h: f64,
) -> (f64, f64) {
    let g = p[0].gain;
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
    let (f1, f2) = (p[0].force, p[1].force);
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

/// Body `b` of a row ([`Prepared::bodies`], not [`NO_BODY`]).
fn motion<'a>(b: u32, moving: &'a [Motion], fixed: &'a [Motion]) -> &'a Motion {
    if b & FIXED == 0 {
        &moving[b as usize]
    } else {
        &fixed[(b & !FIXED) as usize]
    }
}

/// The row's closing rate at the step's end: body 1's velocity along the row at its
/// point minus body 2's, m/s.
fn closing_rate(p: &Prepared, moving: &[Motion], fixed: &[Motion]) -> f64 {
    let n = p.normal;
    let mut rate = 0.0;
    for (k, &b) in p.bodies.iter().enumerate() {
        if b != NO_BODY {
            let body = motion(b, moving, fixed);
            let along = n.dot(&body.v) + p.arm[k].dot(&body.w);
            rate += if k == 0 { along } else { -along };
        }
    }
    rate
}

/// Records that the moving bodies of row `p` took an impulse change past its
/// tolerance in `sweep` (a fixed body's velocity does not change).
fn mark(changed: &mut [u32], p: &Prepared, sweep: u32) {
    for &b in &p.bodies {
        if b & FIXED == 0 {
            changed[b as usize] = sweep;
        }
    }
}

/// Adds the velocity changes of an impulse change `delta` (N s) on row `p` to its
/// moving bodies.
fn apply(p: &Prepared, moving: &mut [Motion], delta: f64) {
    for (k, &b) in p.bodies.iter().enumerate() {
        if b & FIXED == 0 {
            let body = &mut moving[b as usize];
            let sign = if k == 0 { -delta } else { delta };
            body.v += p.normal * (sign * body.inv_mass);
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

    /// 300 bodies in a line along x pressed together and onto the ground (a fixed body
    /// for every other one, no body for the rest): the two halves are swept on two
    /// threads and give the bits of one thread; every impulse solves its row's
    /// equation with the velocities at the end, momentum is kept body by body, and the
    /// fixed body's velocity is never touched.
    #[test]
    fn the_halves_on_two_threads_give_the_bits_of_one() {
        let (n, g, h) = (300usize, 0.5, 1e-3);
        let mut start: Vec<SolveBody> = (0..n)
            .map(|i| {
                let mut b = body(1.0, 0.0, -0.1);
                b.origin.x = 0.1 * i as f64;
                b.v.x = -0.01 * i as f64;
                b
            })
            .collect();
        start.push(SolveBody::IMMOVABLE);
        let ground = n as u32;
        let mut rows = Vec::new();
        for i in 0..n {
            if i + 1 < n {
                let mut r = row([Some(i as u32), Some(i as u32 + 1)], 0.0, g, 1.0);
                r.row.point.x = 0.1 * i as f64 + 0.05;
                r.row.normal = Vector3::x();
                rows.push(r);
            }
            let under = if i % 2 == 0 { Some(ground) } else { None };
            let mut r = row([under, Some(i as u32)], -0.05, g, 10.0);
            r.row.point.x = 0.1 * i as f64;
            rows.push(r);
        }
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut bodies = start.clone();
            let mut solve = ImplicitSolve::default();
            pool.install(|| solve.solve(&rows, &mut bodies, h));
            (solve, bodies)
        };
        let (solve, bodies) = run(2);
        let (one, bodies_one) = run(1);
        assert_eq!(solve.impulses, one.impulses);
        assert_eq!(bodies, bodies_one);
        // both halves hold rows, and only the one between them crosses
        let sizes = solve.parts.each_ref().map(|p| p.active.len());
        assert!(
            sizes[0] > 200 && sizes[1] > 200 && sizes[2] == 1,
            "{sizes:?}"
        );
        assert_eq!(bodies[n], SolveBody::IMMOVABLE);
        let largest = solve.impulses.iter().fold(0.0f64, |m, l| m.max(l.abs()));
        let mut took = vec![Vector3::zeros(); n];
        for (r, &l) in rows.iter().zip(&solve.impulses) {
            let [a, b] = r.bodies;
            let rate = a.map_or(0.0, |a| r.row.normal.dot(&bodies[a as usize].v))
                - b.map_or(0.0, |b| r.row.normal.dot(&bodies[b as usize].v));
            if l > -h * r.row.force {
                assert!(
                    (l - g * rate).abs() < 1e-4 * largest,
                    "{l} against {}",
                    g * rate
                );
            } else {
                assert!(g * rate <= l + 1e-4 * largest, "{l}: {rate}");
            }
            for (k, body) in [a, b].into_iter().enumerate() {
                if let Some(body) = body.filter(|&x| x < ground) {
                    took[body as usize] += r.row.normal * if k == 0 { -l } else { l };
                }
            }
        }
        for i in 0..n {
            assert!(
                (bodies[i].v - start[i].v - took[i]).norm() < 1e-12,
                "body {i}"
            );
        }
        assert!(largest > 0.0);
    }

    /// A chain of bodies pressed against a wall by heavy contacts (Gauss-Seidel is
    /// slow on it: hundreds of sweeps), and at its end a light contact to a body off to
    /// the side, its tolerance 1e5 times smaller than theirs: when the sweeps stop,
    /// with rows skipped while their bodies were quiet, no row is further from its
    /// equation than a few of its own tolerances.
    #[test]
    fn a_chain_slow_to_converge_ends_within_each_rows_tolerance() {
        let (n, g, h) = (30usize, 50.0, 1e-3);
        let mut bodies: Vec<SolveBody> = (0..n)
            .map(|i| {
                let mut b = body(1.0, 0.0, 0.0);
                b.origin.x = 0.1 * i as f64;
                b.v.x = 0.05 * ((i * 7) % 5) as f64 - 0.1;
                b
            })
            .collect();
        // the side body, and the wall the chain's first body rests against
        let mut side = body(1.0, 0.0, 0.0);
        side.origin = Vector3::new(0.1 * n as f64, 0.0, 0.1);
        bodies.push(side);
        let (side, wall) = (n as u32, n as u32 + 1);
        bodies.push(SolveBody::IMMOVABLE);
        let mut rows = Vec::new();
        let mut r = row([Some(wall), Some(0)], 0.0, g, 1000.0);
        r.row.normal = Vector3::x();
        rows.push(r);
        for i in 0..n - 1 {
            let mut r = row([Some(i as u32), Some(i as u32 + 1)], 0.0, g, 1000.0);
            r.row.normal = Vector3::x();
            rows.push(r);
        }
        let mut r = row([Some(n as u32 - 1), Some(side)], 0.0, g, 0.01);
        r.row.normal = Vector3::new(1.0, 0.0, 1.0).normalize();
        rows.push(r);
        let start = bodies.clone();
        let mut solve = ImplicitSolve::default();
        solve.solve(&rows, &mut bodies, h);
        let largest = rows.iter().fold(0.0f64, |m, r| m.max(h * r.row.force));
        let mut worst = 0.0f64;
        for (r, &l) in rows.iter().zip(&solve.impulses) {
            let [a, b] = r.bodies;
            let along = |x: Option<u32>| x.map_or(0.0, |x| r.row.normal.dot(&bodies[x as usize].v));
            let rate = along(a) - along(b);
            let inv: f64 = r
                .bodies
                .iter()
                .flatten()
                .map(|&x| bodies[x as usize].inv_mass)
                .sum();
            let again = (g * (rate + inv * l) / (1.0 + g * inv)).max(-h * r.row.force);
            let tolerance = TOLERANCE * (h * r.row.force).max(FLOOR * largest);
            worst = worst.max((again - l).abs() / tolerance);
        }
        assert!(
            worst < 5.0,
            "a row's change if solved again: {worst} tolerances, {} sweeps",
            solve.sweeps
        );
        assert!(bodies != start && solve.sweeps > 100);
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
        let mut prepared = rows.map(|r| Prepared {
            normal: r.row.normal,
            arm: [Vector3::zeros(); 2],
            turn: [Vector3::zeros(); 2],
            inv: 0.0,
            tolerance: 0.0,
            gain: r.row.gain,
            force: r.row.force,
            impulse: 0.0,
            kind: r.row.kind,
            bodies: r.bodies.map(|b| b.map_or(NO_BODY, |_| 0)),
        });
        for (p, r) in prepared.iter_mut().zip(&rows) {
            let arm = (r.row.point - bodies[0].origin).cross(&r.row.normal);
            p.arm[1] = arm;
            p.turn[1] = bodies[0].inv_inertia * arm;
            p.inv = bodies[0].inv_mass + arm.dot(&p.turn[1]);
        }
        let moving = bodies.map(|b| Motion {
            v: b.v,
            w: b.w,
            inv_mass: b.inv_mass,
        });
        let rates = [
            closing_rate(&prepared[0], &moving, &[]),
            closing_rate(&prepared[1], &moving, &[]),
        ];
        let (l1, l2) = tangent_pair([&prepared[0], &prepared[1]], rates, [0.0, 0.0], bound, h);
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
