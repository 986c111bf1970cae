//! SCM plastic soil deformation (Krenn 2009, section 3.3): displacement (eq. (10)),
//! soil flow fields (Fig. 12), deposition on the footprint border (Fig. 13) and
//! erosion down to the angle of repose (Fig. 14).
//!
//! **Volume.** Every cubic metre a footprint node loses (its plastic sinkage
//! increment, eq. (10)) is put on border nodes, and erosion only moves soil between
//! nodes: the soil volume above the base surface is conserved (to rounding).

use crate::pmath;
use super::contact::Workspace;
use super::grid::{Mark, Rect, SoilGrid};
use super::pressure::{bekker, plastic_sinkage};
use super::SoilParams;
use crate::models::terrain::Surface;
use nalgebra::Vector3;

/// Bound on the erosion sweeps of one soil update when it runs until no slope exceeds
/// the angle of repose (`SoilParams::erosion_sweeps` = 0): a safeguard against a
/// runaway update (a body that dug deep and left), not a limit real updates reach.
/// Driving wheels settle in about 10 sweeps per update; what a bounded update leaves
/// continues in the next one.
pub const MAX_EROSION_SWEEPS: usize = 10_000;
/// Height (m) by which a slope may exceed the repose slope and still count as at
/// rest: leveling leaves a pair at the repose slope only to rounding, and without a
/// tolerance ulp-sized excesses would keep whole slopes moving sweep after sweep.
pub const EROSION_TOL: f64 = 1e-5;

/// Below this speed of its origin (m/s) a body's radial field feeds its whole border.
pub const RADIAL_REST_SPEED: f64 = 1e-3;

/// Edge of the blocks of footprint nodes whose radial-field sources are lumped, nodes.
pub const CLUSTER: usize = 4;

/// A soil update's window buffers: heights, plastic sinkage, shear displacement and
/// footprint mask, kept apart from the evaluation's (see [`load`], [`put_back`]).
#[derive(Default)]
pub struct UpdateBuffers {
    h: Vec<f64>,
    zp: Vec<f64>,
    j: Vec<f64>,
    mask: Vec<bool>,
    /// They are in the workspace's `h`, `zp`, `j`, `mask` (an update runs).
    swapped: bool,
    /// The window they hold the soil of, as of a mark: the last commit's (None after
    /// an update that did not commit).
    valid: Option<(Rect, Mark)>,
    /// Work buffers of [`SoilGrid::load_over`].
    spare: [Vec<f64>; 3],
    /// Loads that took the overlap from these buffers (for tests).
    pub(crate) reused: u64,
}

/// Swaps the update's buffers with the evaluation's in `ws`.
fn swap_buffers(ws: &mut Workspace) {
    let u = &mut ws.update_bufs;
    std::mem::swap(&mut ws.h, &mut u.h);
    std::mem::swap(&mut ws.zp, &mut u.zp);
    std::mem::swap(&mut ws.j, &mut u.j);
    std::mem::swap(&mut ws.mask, &mut u.mask);
    u.swapped = !u.swapped;
}

/// Puts the evaluation's window buffers back in place in `ws` after a soil update
/// (the update's stay aside, for its next window).
pub fn put_back(ws: &mut Workspace) {
    if ws.update_bufs.swapped {
        swap_buffers(ws);
    }
}

/// The radial (sinkage) field of one soil update (Fig. 12 right, Fig. 13): its
/// sources lumped per node block and the border nodes it feeds. Spread on a helper
/// thread while the caller walks the parallel field: its own cache lines.
#[derive(Default)]
#[repr(align(128))]
pub struct RadialField {
    /// The border nodes fed (window indices) and their window coordinates (i, j).
    nodes: Vec<u32>,
    i: Vec<f32>,
    j: Vec<f32>,
    /// Sources per [`CLUSTER`] x [`CLUSTER`] block of window nodes: volume (m, per
    /// node area), volume x i, volume x j.
    cluster: Vec<Vector3<f64>>,
    /// Weights of one source over the fed nodes.
    weights: Vec<f32>,
    /// Soil each fed node receives, m (the order of `nodes`).
    receive: Vec<f64>,
}

impl RadialField {
    /// Every fed node receives a portion of each source's soil falling off as
    /// 1/distance (the intensity of a plane radial source), normalized per source,
    /// into `receive`. O(blocks x fed nodes) instead of O(footprint nodes x fed nodes).
    fn spread(&mut self) {
        self.receive.clear();
        self.receive.resize(self.nodes.len(), 0.0);
        self.weights.resize(self.nodes.len(), 0.0);
        for c in 0..self.cluster.len() {
            let [m, mi, mj] = self.cluster[c].into();
            if m <= 0.0 {
                continue;
            }
            let (i, j) = ((mi / m) as f32, (mj / m) as f32);
            // plain slices of f32, so that the loop vectorizes (four lanes of sqrt and
            // div); the weights only share out m, whose sum stays exact to f64
            // rounding
            for ((w, &bi), &bj) in self.weights.iter_mut().zip(&self.i).zip(&self.j) {
                // a block centre can come within half a node of a border node; the
                // floor keeps the weight finite
                let r2 = ((bi - i) * (bi - i) + (bj - j) * (bj - j)).max(0.25);
                *w = 1.0 / r2.sqrt();
            }
            let total: f64 = self.weights.iter().map(|&w| w as f64).sum();
            let scale = m / total;
            for (&w, r) in self.weights.iter().zip(self.receive.iter_mut()) {
                *r += w as f64 * scale;
            }
        }
    }
}

/// Lengths of the runs of footprint nodes from each window node in the four axis
/// directions (0 outside the footprint), built when a march first needs them.
pub struct Runs {
    /// +x, -x, +y, -y
    len: [Vec<u32>; 4],
    built: [bool; 4],
    /// Columns `i0..i1` and rows `j0..j1` holding every footprint node (the rest of the
    /// window has runs of 0); the whole window unless [`Runs::reset_to`] says less.
    cols: (usize, usize),
    rows: (usize, usize),
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            len: Default::default(),
            built: [false; 4],
            cols: (0, usize::MAX),
            rows: (0, usize::MAX),
        }
    }
}

impl Runs {
    /// Forgets the runs (the mask changed), for a mask whose nodes lie in columns
    /// `cols.0..cols.1` and rows `rows.0..rows.1`.
    pub fn reset_to(&mut self, cols: (usize, usize), rows: (usize, usize)) {
        self.built = [false; 4];
        (self.cols, self.rows) = (cols, rows);
    }

    /// Run length from window node `q` in direction `d` (0: +x, 1: -x, 2: +y, 3: -y).
    fn at(&mut self, mask: &[bool], nx: usize, ny: usize, d: usize, q: usize) -> u32 {
        if !self.built[d] {
            self.built[d] = true;
            // written over the mask's columns and rows below, where every query lies
            // (a query is a footprint node); the rest is never read
            let r = &mut self.len[d];
            r.resize(mask.len(), 0);
            let (i0, i1) = (self.cols.0, self.cols.1.min(nx));
            let (j0, j1) = (self.rows.0, self.rows.1.min(ny));
            match d {
                0 | 1 => {
                    for j in j0..j1 {
                        let mut n = 0;
                        for t in 0..i1 - i0 {
                            let i = if d == 0 { i1 - 1 - t } else { i0 + t };
                            let k = j * nx + i;
                            n = if mask[k] { n + 1 } else { 0 };
                            r[k] = n;
                        }
                    }
                }
                _ => {
                    for t in 0..j1 - j0 {
                        let j = if d == 2 { j1 - 1 - t } else { j0 + t };
                        let (row, prev) = (j * nx, if d == 2 { j + 1 } else { j.wrapping_sub(1) });
                        for i in i0..i1 {
                            // (the row before the first lies outside the mask's rows)
                            let before = if t > 0 { r[prev * nx + i] } else { 0 };
                            r[row + i] = if mask[row + i] { before + 1 } else { 0 };
                        }
                    }
                }
            }
        }
        self.len[d][q]
    }
}

/// Walks from window node `(i, j)` (column, row) along (dx, dy) (nodes per step, the
/// larger component 1) to the first node outside the footprint mask (its window
/// index); the window's edge stops it.
///
/// Along an axis-major direction the walk skips ahead over the run of footprint nodes
/// in its current row (or column) while the minor coordinate stays the same (found by
/// bisection: it changes monotonically with the step), so the result is the node the
/// step-by-step walk reaches, at the cost of the rows it crosses.
fn march(
    mask: &[bool],
    runs: &mut Runs,
    nx: usize,
    ny: usize,
    (i, j): (usize, usize),
    dx: f64,
    dy: f64,
) -> usize {
    let (i0, j0) = (i as f64, j as f64);
    // round to the nearest node (halves up) and clamp to the window; a cast, not
    // f64::round, which is a library call on the baseline x86-64 target
    let pos = |s: f64| {
        (
            ((i0 + s * dx + 0.5).max(0.0) as usize).min(nx - 1),
            ((j0 + s * dy + 0.5).max(0.0) as usize).min(ny - 1),
        )
    };
    let x_major = dx.abs() == 1.0 && dy.abs() < 1.0;
    let y_major = dy.abs() == 1.0 && dx.abs() < 1.0;
    let dir = if x_major {
        if dx > 0.0 {
            0
        } else {
            1
        }
    } else if dy > 0.0 {
        2
    } else {
        3
    };
    // along an axis, the minor coordinate never leaving its row (or column) within
    // the window: the same walk in integers, one run per jump
    if (x_major && dy.abs() * nx as f64 * 2.0 < 1.0)
        || (y_major && dx.abs() * ny as f64 * 2.0 < 1.0)
    {
        let (mut i, mut j) = (i, j);
        let step = |c: usize, n: usize, d: f64, by: usize| {
            if d > 0.0 {
                (c + by).min(n - 1)
            } else {
                c.saturating_sub(by)
            }
        };
        if x_major {
            i = step(i, nx, dx, 1);
        } else {
            j = step(j, ny, dy, 1);
        }
        loop {
            let q = j * nx + i;
            if !mask[q] || i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
                return q;
            }
            let m = runs.at(mask, nx, ny, dir, q) as usize;
            if x_major {
                i = step(i, nx, dx, m);
            } else {
                j = step(j, ny, dy, m);
            }
        }
    }
    let mut s = 1.0;
    loop {
        let (i, j) = pos(s);
        let q = j * nx + i;
        if !mask[q] || i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
            return q;
        }
        if !(x_major || y_major) {
            s += 1.0;
            continue;
        }
        // the run from q ends m nodes ahead; the minor coordinate must not change
        let m = runs.at(mask, nx, ny, dir, q) as f64;
        let minor = |s: f64| if x_major { pos(s).1 } else { pos(s).0 };
        let now = if x_major { j } else { i };
        if minor(s + m) == now {
            s += m;
            continue;
        }
        let (mut lo, mut hi) = (0.0, m);
        while hi - lo > 1.0 {
            let mid = ((lo + hi) * 0.5).floor();
            if minor(s + mid) == now {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        s += hi;
    }
}

/// Unit step (larger component 1) along (x, y), or None for a zero vector.
fn step_dir(x: f64, y: f64) -> Option<(f64, f64)> {
    let m = x.abs().max(y.abs());
    (m > 1e-12).then(|| (x / m, y / m))
}

/// Soil update for the body whose last evaluation is in `ws`: the soil under it yields
/// to the body's last known position, the displaced volume flows to the border, and
/// the slopes around erode. Reloads the soil first (another body may have changed it).
///
/// `dt` is the time since the last update, s: the footprint nodes' shear displacement
/// grows by their sliding speed times `dt`; nodes the body left start again from 0.
/// With `deform` false the soil keeps its shape (no plastic flow, no erosion) and only
/// the shear displacement advances.
pub fn update(
    p: &SoilParams,
    grid: &mut SoilGrid,
    base: &Surface,
    ws: &mut Workspace,
    dt: f64,
    deform: bool,
) {
    update_beside(p, grid, base, ws, dt, deform, || {});
}

/// [`update`], and the caller's work `beside` on a helper thread while the update
/// works out the shear displacement and the plastic flow (on this thread instead when
/// no helper is free, and after the update when the window could not be loaded).
/// `beside` must not touch the soil or the workspace.
pub fn update_beside(
    p: &SoilParams,
    grid: &mut SoilGrid,
    base: &Surface,
    ws: &mut Workspace,
    dt: f64,
    deform: bool,
    beside: impl FnOnce() + Send,
) {
    let mut beside = Some(beside);
    if load(grid, base, ws) && settle_beside(p, grid.ds, ws, dt, deform, &mut beside) {
        commit(grid, base, ws);
    }
    if let Some(f) = beside.take() {
        f();
    }
}

/// Writes what [`prepare`] computed into the soil.
pub fn commit(grid: &mut SoilGrid, base: &Surface, ws: &mut Workspace) {
    grid.store(base, &ws.rect, &ws.h, &ws.zp, &ws.j, &ws.changed);
    // the buffers hold the soil of the window as stored
    ws.update_bufs.valid = Some((ws.rect, grid.mark()));
    // the window as the erosion left it, as of this store (see `erode_window`)
    if std::mem::take(&mut ws.at_rest_next) {
        std::mem::swap(&mut ws.at_rest, &mut ws.at_rest_spare);
        ws.at_rest.mark = Some(grid.mark());
    } else {
        ws.at_rest.mark = None;
    }
}

/// [`update`] up to the store: reads the soil of the body's update window
/// (`ws.update_rect`, which becomes `ws.rect`), computes its new state in `ws` and
/// returns whether [`commit`] has anything to write. Bodies whose update windows do
/// not overlap can prepare in parallel and commit one after the other: no
/// window reads what another body's commit writes, so the soil is the same as with
/// [`update`] body by body.
pub fn prepare(
    p: &SoilParams,
    grid: &SoilGrid,
    base: &Surface,
    ws: &mut Workspace,
    dt: f64,
    deform: bool,
) -> bool {
    load(grid, base, ws) && settle(p, grid.ds, ws, dt, deform)
}

/// The first part of [`prepare`], the only one that reads the soil: moves the
/// footprint from the evaluation's window to the update window and loads the soil
/// there. False if there is no update window (nothing to do).
pub fn load(grid: &SoilGrid, base: &Surface, ws: &mut Workspace) -> bool {
    if ws.update_rect.is_empty() {
        return false;
    }
    // the update's own buffers (the evaluation's stay as they are)
    if !ws.update_bufs.swapped {
        swap_buffers(ws);
    }
    // from the evaluation's window to the update's (the footprint's box and a margin
    // around it): the footprint nodes move over, the mask is theirs. The evaluation's
    // window (the scan conversion's) may reach past the update's on some side; the
    // footprint lies inside both
    let u = ws.update_rect;
    let unx = u.nx as usize;
    ws.mask.clear();
    ws.mask.resize(u.len(), false);
    ws.foot_ij.clear();
    ws.foot_k.clear();
    // each footprint node's grid column and row, from the evaluation
    debug_assert_eq!(ws.cached_nodes.len(), ws.foot.len());
    for &(gi, gj) in &ws.cached_nodes {
        let (i, j) = (gi - u.i0, gj - u.j0);
        debug_assert!(
            i >= 0 && j >= 0 && (i as usize) < unx,
            "footprint node off the window"
        );
        let q = j as usize * unx + i as usize;
        ws.foot_k.push(q as u32);
        ws.mask[q] = true;
        ws.foot_ij.push([i as u32, j as u32]);
    }
    ws.rect = u;
    // the soil as it is now (another body's update may have changed it): what the
    // last commit left in these buffers where nothing wrote since, read where not
    let bufs = &mut ws.update_bufs;
    match bufs.valid.take() {
        Some((old, mark))
            if !ws.full_sweeps
                && grid.unchanged_since(mark, &old)
                && !old.intersect(&u).is_empty() =>
        {
            // the same window (about half the updates of a rolling wheel): as it is
            bufs.reused += 1;
            if old == u {
                return load_classes(grid, ws);
            }
            grid.load_over(
                base,
                &u,
                &old,
                &mut ws.h,
                &mut ws.zp,
                &mut ws.j,
                &mut bufs.spare,
            );
        }
        _ => grid.load(base, &u, &mut ws.h, &mut ws.zp, &mut ws.j),
    }
    load_classes(grid, ws)
}

/// The rest of [`load`]: whether the erosion may start from the last rest, and the
/// soil classes of the window. True.
fn load_classes(grid: &SoilGrid, ws: &mut Workspace) -> bool {
    ws.at_rest_valid = ws
        .at_rest
        .mark
        .is_some_and(|m| grid.unchanged_since(m, &ws.rect));
    // and its classes (the class table of the evaluation stays)
    ws.map = grid.soil_map().cloned();
    match &ws.map {
        Some(m) => m.classes_of(&ws.rect, grid.ds, &mut ws.class),
        None => ws.class.clear(),
    }
    true
}

/// The rest of [`prepare`], on the window [`load`] filled (grid spacing `ds`, m):
/// shear displacement, plastic flow, deposition and erosion. True if [`commit`] has
/// anything to write.
pub fn settle(p: &SoilParams, ds: f64, ws: &mut Workspace, dt: f64, deform: bool) -> bool {
    settle_beside(p, ds, ws, dt, deform, &mut None::<fn()>)
}

/// [`settle`], taking `side_job` (the `beside` of [`update_beside`]) to run beside
/// its first part ([`sources`]).
fn settle_beside<F: FnOnce() + Send>(
    p: &SoilParams,
    ds: f64,
    ws: &mut Workspace,
    dt: f64,
    deform: bool,
    side_job: &mut Option<F>,
) -> bool {
    // the side job beside the first part (it needs nothing of it); a helper that
    // takes it is hot again for the fields' spread
    let done = match side_job.take() {
        Some(f) => crate::parallel::join(|| sources(p, ds, ws, dt, deform), f).0,
        None => sources(p, ds, ws, dt, deform),
    };
    match done {
        Some(result) => result,
        None => {
            spread(ws);
            erode_window(p, ds, ws);
            true
        }
    }
}

/// The first part of [`settle`]: shear displacement and plastic flow, with the
/// parallel field's walks and the radial field's sources. Some(result of settle): no
/// flow follows (no deformation, no footprint or no border; erosion done where due).
fn sources(p: &SoilParams, ds: f64, ws: &mut Workspace, dt: f64, deform: bool) -> Option<bool> {
    let rect = ws.rect;
    let (nx, ny) = (rect.nx as usize, rect.ny as usize);
    let len = rect.len();
    // the footprint's columns and rows: runs and border lie there and one node around
    debug_assert_eq!(ws.foot_ij.len(), ws.foot.len());
    let (mut i0, mut i1, mut j0, mut j1) = (usize::MAX, 0, usize::MAX, 0);
    for &[i, j] in &ws.foot_ij {
        let (i, j) = (i as usize, j as usize);
        (i0, i1, j0, j1) = (i0.min(i), i1.max(i), j0.min(j), j1.max(j));
    }
    ws.runs
        .reset_to((i0.min(i1 + 1), i1 + 1), (j0.min(j1 + 1), j1 + 1));
    // `deposit` is all zeros between updates (the nodes that received soil are reset
    // after use, below): only a new window size needs filling
    ws.deposit.resize(len, 0.0);
    ws.deposited.clear();
    ws.at_rest_next = false;
    ws.changed.clear();
    ws.changed.resize(len, false);
    // shear displacement: reset off the footprint, grows on it. When the window's
    // soil is still as the last update left it (which reset every node of its window
    // off its footprint), only the nodes of that footprint and those outside that
    // window can hold any (the same resets as a pass over the window)
    let mut reset = |k: usize| {
        if !ws.mask[k] && ws.j[k] != 0.0 {
            ws.j[k] = 0.0;
            ws.changed[k] = true;
        }
    };
    if ws.at_rest_valid && !ws.full_sweeps {
        let (r, old) = (ws.rect, ws.at_rest.rect);
        outside(&r, &old, |i, j| reset(j * nx + i));
        ws.at_rest.footprint_in(&r, |i, j| reset(j * nx + i));
    } else {
        (0..len).for_each(reset);
    }
    for (f, &k) in ws.foot.iter().zip(&ws.foot_k) {
        let k = k as usize;
        if f.slide > 0.0 {
            ws.j[k] += f.slide * dt;
            ws.changed[k] = true;
        }
    }
    if !deform {
        return Some(true);
    }
    if ws.foot.is_empty() {
        // the body is near but touches nothing: what its footprint held up (the walls
        // of its hole or rut) is free now and slumps to the angle of repose
        erode_window(p, ds, ws);
        return Some(true);
    }
    // the footprint border: nodes outside it next to one inside (Fig. 13), all within
    // one node of the footprint's columns and rows
    ws.border.clear();
    for jj in j0.saturating_sub(1).max(1)..(j1 + 2).min(ny - 1) {
        for ii in i0.saturating_sub(1).max(1)..(i1 + 2).min(nx - 1) {
            let k = jj * nx + ii;
            if !ws.mask[k]
                && (ws.mask[k + 1] || ws.mask[k - 1] || ws.mask[k + nx] || ws.mask[k - nx])
            {
                ws.border.push(k as u32);
            }
        }
    }
    if ws.border.is_empty() {
        // no commit follows: what the last one vouched for may be gone
        ws.at_rest.mark = None;
        return Some(false);
    }
    // The radial (sinkage) field of a moving body feeds the border beside its path:
    // the border ahead is the parallel field's (bulldozing), and the border behind is
    // the rut the body leaves, which the displaced soil does not flow back into. Border
    // nodes within 45 degrees of the direction of travel, seen from the footprint's
    // centre, are left out; a body at rest (slower than `RADIAL_REST_SPEED`) feeds the
    // whole border, as the paper's Fig. 13.
    let (vx, vy) = (ws.body_v[0], ws.body_v[1]);
    let speed = pmath::hypot(vx, vy);
    let (mut ci, mut cj) = (0.0, 0.0);
    for &[i, j] in &ws.foot_ij {
        ci += i as f64;
        cj += j as f64;
    }
    ci /= ws.foot.len() as f64;
    cj /= ws.foot.len() as f64;
    // |d.v| <= |d| |v| cos 45 deg, squared (both sides are not negative)
    let beside = |b: u32| {
        let (di, dj) = ((b as usize % nx) as f64 - ci, (b as usize / nx) as f64 - cj);
        let along = di * vx + dj * vy;
        along * along <= 0.5 * (di * di + dj * dj) * (speed * speed)
    };
    let moving = speed > RADIAL_REST_SPEED && ws.border.iter().any(|&b| beside(b));
    let rf = &mut ws.radial;
    rf.nodes.clear();
    rf.i.clear();
    rf.j.clear();
    for &b in &ws.border {
        if !moving || beside(b) {
            rf.nodes.push(b);
            rf.i.push((b as usize % nx) as f32);
            rf.j.push((b as usize / nx) as f32);
        }
    }
    let ncx = nx.div_ceil(CLUSTER);
    rf.cluster.clear();
    rf.cluster
        .resize(ncx * ny.div_ceil(CLUSTER), Vector3::zeros());
    ws.walks.clear();
    for ((f, &k), &[i, j]) in ws.foot.iter().zip(&ws.foot_k).zip(&ws.foot_ij) {
        let k = k as usize;
        let z = ws.h[k] + ws.zp[k] - f.zmin;
        if f.zmin >= ws.h[k] {
            continue; // another body changed the soil here since the evaluation
        }
        // the yield pressure of the evaluation when the soil is as it was then
        let yield_p = if z == f.z {
            f.gk * f.zn
        } else {
            let n = ws.class.get(k).map_or(p.n, |&c| ws.soils[c as usize].n);
            bekker(f.gk, n, z)
        };
        let zp = plastic_sinkage(z, ws.zp[k], yield_p, p.k_e);
        let dz = zp - ws.zp[k];
        if dz <= 0.0 {
            continue;
        }
        // eq. (10): dV = z dA, here the plastic increment of this update
        ws.zp[k] = zp;
        ws.h[k] -= dz;
        ws.changed[k] = true;
        // Fig. 11/12: only the normal part of the contact velocity moves soil; its
        // horizontal part drives the parallel (bulldozing) field, its vertical part
        // the radial (sinkage) field, in the ratio of the two.
        let vn = f.vn;
        let horizontal = (vn.x * vn.x + vn.y * vn.y).sqrt();
        let vertical = vn.z.abs();
        let share = if horizontal + vertical > 1e-12 {
            horizontal / (horizontal + vertical)
        } else {
            0.0
        };
        // Fig. 13, parallel field: the border node it reaches first along the
        // horizontal normal velocity receives its share (walked below)
        if share > 0.0 {
            if let Some((dx, dy)) = step_dir(vn.x, vn.y) {
                ws.walks.push(([i, j], dx, dy, dz * share));
            }
        }
        // radial field: accumulated per cluster of nodes, spread below
        let radial = dz * (1.0 - share);
        if radial > 0.0 {
            let (i, j) = (i as usize, j as usize);
            let c = (j / CLUSTER) * ncx + i / CLUSTER;
            ws.radial.cluster[c] += Vector3::new(radial, radial * i as f64, radial * j as f64);
        }
    }
    None
}

/// The second part of [`settle`]: the parallel field's walks and the radial field's
/// spread (on a helper thread: it reads the sources and the fed nodes' coordinates,
/// and hands back one amount per fed node), and the deposits.
fn spread(ws: &mut Workspace) {
    let (nx, ny) = (ws.rect.nx as usize, ws.rect.ny as usize);
    let (mask, runs, walks) = (&ws.mask, &mut ws.runs, &ws.walks);
    let (deposit, deposited) = (&mut ws.deposit, &mut ws.deposited);
    let rf = &mut ws.radial;
    crate::parallel::join(
        || {
            for &([i, j], dx, dy, amount) in walks {
                let q = march(mask, runs, nx, ny, (i as usize, j as usize), dx, dy);
                if deposit[q] == 0.0 {
                    deposited.push(q as u32);
                }
                deposit[q] += amount;
            }
        },
        || rf.spread(),
    );
    for (&b, &r) in ws.radial.nodes.iter().zip(&ws.radial.receive) {
        if r > 0.0 {
            let d = &mut ws.deposit[b as usize];
            if *d == 0.0 {
                ws.deposited.push(b);
            }
            *d += r;
        }
    }
    // each node that received soil once (every deposit is positive), in any order:
    // the nodes are independent
    for &k in &ws.deposited {
        let k = k as usize;
        add_soil(&mut ws.h, &mut ws.zp, k, ws.deposit[k]);
        ws.deposit[k] = 0.0;
        ws.changed[k] = true;
    }
}

/// What a soil update's erosion left at rest: every pair of neighbouring nodes of
/// the window `rect` (grid nodes) with neither node among the footprint nodes `foot`
/// stood within the repose rise `limit` (m over one spacing), in the soil as of
/// `mark` (the update's commit). The next update's erosion starts from the nodes this
/// does not vouch for (see [`erode_window`]).
#[derive(Debug, Clone, Default)]
pub struct AtRest {
    rect: Rect,
    foot: Vec<(i32, i32)>,
    /// Nodes (grid column, row) whose pairs the body's underside held steeper than
    /// the repose slope (see [`level_pair`]): not at rest.
    held: Vec<(i32, i32)>,
    limit: f64,
    /// None: nothing is vouched for.
    mark: Option<Mark>,
}

/// [`erode`] over the whole update window of `ws` (grid spacing `ds`, m), outside
/// its footprint mask, with each node's soil class where there is a map.
///
/// The first sweep visits only what the last update did not leave at rest when the
/// soil of the window is still as that update committed it ([`SoilGrid::unchanged_since`],
/// checked by [`load`]) and the repose slope is the same (one soil, no map): the
/// nodes outside the last window, the nodes the footprint left, and the nodes that
/// received soil in this update. Every other pair was found within the repose slope
/// and still is, so a full first sweep would move nothing there: the result is the
/// same, bit for bit, at the cost of the active region (a wheel at 5 mm: about 870
/// node visits in the first sweep of an update, where a full sweep of its window
/// makes about 7 900).
fn erode_window(p: &SoilParams, ds: f64, ws: &mut Workspace) {
    let (nx, ny) = (ws.rect.nx as usize, ws.rect.ny as usize);
    // with soil classes, each node's repose rise over one spacing
    if let Some(m) = ws.map.clone() {
        m.table(p, &mut ws.soils);
        ws.limits.clear();
        ws.limits.extend(
            ws.class
                .iter()
                .map(|&c| ds * ws.soils[c as usize].tan_repose),
        );
    }
    let limit = ds * pmath::tan(p.repose);
    let one_soil = ws.class.is_empty();
    let seeded = ws.at_rest_valid
        && one_soil
        && !ws.full_sweeps
        && ws.at_rest.limit.to_bits() == limit.to_bits();
    if seeded {
        seed_rows(ws);
        ws.seeded_erosions += 1;
    }
    // with `soil.erosion_stops_at_bodies`, each node's cap: the body's underside over
    // it (soil slumping towards the body stops there; without, it fills the space the
    // body takes, and lifted a wheel resting in its crater by 1 cm in 0.25 s:
    // docs/models/scm.md)
    let mut caps = std::mem::take(&mut ws.caps);
    if p.erosion_stops_at_bodies {
        ws.lowest_over(&ws.rect.clone(), &mut caps);
    }
    let caps_in = p.erosion_stops_at_bodies.then_some(&caps[..]);
    let settled = erode_from(
        p,
        ds,
        (&ws.mask, caps_in, nx, ny),
        &mut ws.h,
        &mut ws.zp,
        &mut ws.changed,
        &mut ws.erosion_rows,
        (!one_soil).then_some(&ws.limits[..]),
        seeded,
    );
    // what the commit will vouch for
    ws.at_rest_next = settled && one_soil;
    if ws.at_rest_next {
        let (r, next) = (ws.rect, &mut ws.at_rest_spare);
        next.rect = r;
        next.limit = limit;
        next.held.clear();
        if let Some(caps) = caps_in {
            held_steep(&ws.mask, caps, (nx, ny), &ws.h, limit, |k| {
                next.held
                    .push((r.i0 + (k % nx) as i32, r.j0 + (k / nx) as i32))
            });
        }
        // the footprint nodes are the mask's nodes (their grid columns and rows are
        // the evaluation's)
        next.foot.clone_from(&ws.cached_nodes);
        debug_assert!(next
            .foot
            .iter()
            .zip(&ws.foot_ij)
            .all(|(&(gi, gj), &[i, j])| { (gi - r.i0, gj - r.j0) == (i as i32, j as i32) }));
        debug_assert_eq!(next.foot.len(), ws.mask.iter().filter(|&&m| m).count());
    }
    ws.caps = caps;
}

impl AtRest {
    /// Calls `f(i, j)` for each node of the recorded footprint, and each node held
    /// steep, inside the window `r`, in window coordinates.
    fn footprint_in(&self, r: &Rect, mut f: impl FnMut(usize, usize)) {
        for &(gi, gj) in self.foot.iter().chain(&self.held) {
            let (i, j) = (gi - r.i0, gj - r.j0);
            if i >= 0 && j >= 0 && i < r.nx && j < r.ny {
                f(i as usize, j as usize);
            }
        }
    }
}

/// Calls `f(i, j)` for each node (window coordinates) of the window `r` outside the
/// rectangle `old` (both in grid nodes).
fn outside(r: &Rect, old: &Rect, mut f: impl FnMut(usize, usize)) {
    let (nx, ny) = (r.nx.max(0) as usize, r.ny.max(0) as usize);
    let (oi0, oi1) = (
        (old.i0 - r.i0).clamp(0, r.nx.max(0)) as usize,
        (old.i0 + old.nx - r.i0).clamp(0, r.nx.max(0)) as usize,
    );
    for j in 0..ny {
        let gj = r.j0 + j as i32;
        if gj < old.j0 || gj >= old.j0 + old.ny {
            (0..nx).for_each(|i| f(i, j));
        } else {
            (0..oi0).chain(oi1.max(oi0)..nx).for_each(|i| f(i, j));
        }
    }
}

/// The first erosion sweep's column blocks (see [`erode_window`]) into
/// `ws.erosion_rows`.
fn seed_rows(ws: &mut Workspace) {
    let (r, old) = (ws.rect, ws.at_rest.rect);
    let (nx, ny) = (r.nx as usize, r.ny as usize);
    let shift = block_shift(nx);
    let rows = &mut ws.erosion_rows;
    rows.clear();
    rows.resize(ny, [0, 0]);
    let mut mark = |i: usize, j: usize| rows[j][0] |= 1u64 << (i >> shift);
    // the nodes outside the last window
    outside(&r, &old, &mut mark);
    // the nodes the footprint left
    ws.at_rest.footprint_in(&r, |i, j| {
        if !ws.mask[j * nx + i] {
            mark(i, j);
        }
    });
    // the nodes that received soil
    for &k in &ws.deposited {
        mark(k as usize % nx, k as usize / nx);
    }
}

/// Puts `d` (m) of loose soil on node `k`: its level before loading becomes the
/// higher of the old one and the new surface.
fn add_soil(h: &mut [f64], zp: &mut [f64], k: usize, d: f64) {
    h[k] += d;
    zp[k] = (zp[k] - d).max(0.0);
}

/// The soil (m) that slides between two nodes whose heights differ by `diff` (m)
/// under the repose rise `limit` (m over one spacing), if the pair is steeper than
/// that by more than [`EROSION_TOL`]: the excess over the repose rise, at most half
/// the difference (see [`level_pair`]).
#[inline(always)]
fn excess(diff: f64, limit: f64) -> Option<f64> {
    let d = diff.abs();
    (d > limit + EROSION_TOL).then(|| (d - limit).min(0.5 * d))
}

/// One pair of neighbouring nodes `a`, `b` outside the footprint, steeper than the
/// repose slope (`limit`, m over one spacing) by more than [`EROSION_TOL`]: the
/// excess e over the repose rise slides from the higher node to the lower one (at
/// most half their difference, so the lower one never ends higher), and both are
/// marked changed. True if soil moved.
///
/// Moving all of e, not the e/2 that would leave the pair exactly at the repose slope,
/// is an avalanche: the lower node, if it now stands too high over its own lower
/// neighbour, passes e on when the sweep reaches that pair, so soil dropped on a slope
/// at repose slides to its toe within one sweep and the pair it left ends below the
/// repose slope. Halving instead spreads e geometrically over the slope: a wheel
/// driving at ds = 5 mm needed about 50 sweeps per update to settle that way, about 9
/// this way.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn level_pair(
    a: usize,
    b: usize,
    limit: f64,
    (mask, caps): (&[bool], Option<&[f64]>),
    h: &mut [f64],
    zp: &mut [f64],
    changed: &mut [bool],
) -> bool {
    let diff = h[a] - h[b];
    // the slope first: most pairs are at rest
    let Some(m) = excess(diff, limit) else {
        return false;
    };
    if mask[a] || mask[b] {
        return false;
    }
    let (hi, lo) = if diff > 0.0 { (a, b) } else { (b, a) };
    let Some(m) = capped(m, caps, h, lo) else {
        return false;
    };
    h[hi] -= m;
    add_soil(h, zp, lo, m);
    changed[hi] = true;
    changed[lo] = true;
    true
}

/// The soil `m` (m) that slides onto node `lo`, under the cap of `caps` there (the
/// body's underside, `soil.erosion_stops_at_bodies`): None if the cap leaves no more
/// than [`EROSION_TOL`].
#[inline(always)]
fn capped(m: f64, caps: Option<&[f64]>, h: &[f64], lo: usize) -> Option<f64> {
    match caps {
        None => Some(m),
        Some(c) => {
            let m = m.min(c[lo] - h[lo]);
            (m > EROSION_TOL).then_some(m)
        }
    }
}

/// Fig. 14 and section 3.3 ("the maximum DEM inclination is smaller than the maximum
/// angle of repose" once the update is finished): moves soil between neighbouring
/// nodes outside the footprint until no slope exceeds the angle of repose, in
/// Gauss-Seidel sweeps of alternating direction. Each move lets the excess of a steep
/// pair slide to its lower node (`level_pair`: an avalanche). The sweeps stop when one moves nothing, or after
/// `p.erosion_sweeps` sweeps if that is not 0 (a cap for speed: what remains continues
/// next update), and at the latest after [`MAX_EROSION_SWEEPS`].
///
/// Only the first sweep visits every pair. Later sweeps visit the pairs with a node
/// that changed since the pair was last visited, tracked per row in blocks of columns
/// (one bit per block, at most 64 blocks per row: changed in the previous sweep,
/// changed so far in this one); every other pair was found within the repose slope
/// and still is, so the result is the same as with full sweeps, at the cost of the
/// active region. `rows` is scratch.
///
/// The repose rise of a pair over one spacing is `ds tan(p.repose)`, or with `limits`
/// (one per node, soil classes) the lower of its two nodes'.
#[allow(clippy::too_many_arguments)]
pub fn erode(
    p: &SoilParams,
    ds: f64,
    mask: &[bool],
    nx: usize,
    ny: usize,
    h: &mut [f64],
    zp: &mut [f64],
    changed: &mut [bool],
    rows: &mut Vec<[u64; 2]>,
    limits: Option<&[f64]>,
) {
    let grid = (mask, None, nx, ny);
    erode_from(p, ds, grid, h, zp, changed, rows, limits, false);
}

/// [`erode`], with the first sweep visiting only the column blocks `rows` holds
/// (`rows[j][0]`, `ny` rows of blocks of [`block_shift`] columns) when `seeded`:
/// every pair of nodes outside those blocks must be within the repose slope (as a
/// full first sweep would find them, so the result is the same). True when the
/// sweeps ended because one moved nothing (the window is at rest), false when their
/// bound stopped them.
#[allow(clippy::too_many_arguments)]
fn erode_from(
    p: &SoilParams,
    ds: f64,
    (mask, caps, nx, ny): (&[bool], Option<&[f64]>, usize, usize),
    h: &mut [f64],
    zp: &mut [f64],
    changed: &mut [bool],
    rows: &mut Vec<[u64; 2]>,
    limits: Option<&[f64]>,
    seeded: bool,
) -> bool {
    if nx == 0 || ny == 0 {
        return true;
    }
    let limit = ds * pmath::tan(p.repose);
    let most = sweep_bound(p, nx * ny);
    if !seeded {
        let nb = nx.div_ceil(1 << block_shift(nx));
        let all = if nb == 64 { u64::MAX } else { (1u64 << nb) - 1 };
        rows.clear();
        rows.resize(ny, [all, 0]);
    }
    debug_assert_eq!(rows.len(), ny);
    let part = Part {
        mask,
        caps,
        h,
        zp,
        changed,
        limits,
    };
    if ny < SPLIT_ROWS || nx * ny < SPLIT_NODES {
        return part.sweeps(most, nx, rows, limit).0;
    }
    in_halves(most, nx, ny / 2, part, rows, limit)
}

/// Windows of this many rows or more, and [`SPLIT_NODES`] nodes or more, erode in two
/// halves ([`in_halves`]).
const SPLIT_ROWS: usize = 16;
/// Below this many nodes the halves' fork costs more than it saves (a wheel at 1 cm,
/// about 1 000 nodes: 0.6 µs slower split; at 5 mm, 7 900 nodes: 3-5 µs faster).
const SPLIT_NODES: usize = 4096;

/// The rows of a window that one [`Part::sweeps`] erodes, as slices of its nodes.
struct Part<'a> {
    mask: &'a [bool],
    /// With `soil.erosion_stops_at_bodies`: per node, the highest erosion may raise it.
    caps: Option<&'a [f64]>,
    h: &'a mut [f64],
    zp: &'a mut [f64],
    changed: &'a mut [bool],
    /// With soil classes: each node's repose rise over one spacing, m.
    limits: Option<&'a [f64]>,
}

impl Part<'_> {
    /// The part borrowed again, for one round of [`in_halves`].
    fn reborrow(&mut self) -> Part<'_> {
        Part {
            mask: self.mask,
            caps: self.caps,
            h: self.h,
            zp: self.zp,
            changed: self.changed,
            limits: self.limits,
        }
    }

    /// Its rows' nodes from `k` on and before it, as two parts.
    fn split_at(self, k: usize) -> [Self; 2] {
        let (ha, hb) = self.h.split_at_mut(k);
        let (za, zb) = self.zp.split_at_mut(k);
        let (ca, cb) = self.changed.split_at_mut(k);
        let (la, lb) = match self.limits {
            Some(l) => (Some(&l[..k]), Some(&l[k..])),
            None => (None, None),
        };
        [
            Part {
                mask: &self.mask[..k],
                caps: self.caps.map(|c| &c[..k]),
                h: ha,
                zp: za,
                changed: ca,
                limits: la,
            },
            Part {
                mask: &self.mask[k..],
                caps: self.caps.map(|c| &c[k..]),
                h: hb,
                zp: zb,
                changed: cb,
                limits: lb,
            },
        ]
    }

    /// [`sweeps`] over these rows (`nx` nodes each, `rows` their blocks), at most
    /// `most`, with the repose rise `limit` or the part's `limits`.
    fn sweeps(self, most: usize, nx: usize, rows: &mut [[u64; 2]], limit: f64) -> (bool, usize) {
        let ny = rows.len();
        let (m, h, zp, c) = ((self.mask, self.caps), self.h, self.zp, self.changed);
        match self.limits {
            None => sweeps(most, m, nx, ny, h, zp, c, rows, &|_, _| limit),
            // soils of two classes: the lower repose slope of the pair's nodes
            Some(l) => sweeps(most, m, nx, ny, h, zp, c, rows, &|a, b| l[a].min(l[b])),
        }
    }
}

/// The sweeps of [`erode`] on a window of `ny` rows split before row `s`: the two
/// halves' pairs sweep independently (one on each thread when there are two), then
/// the seam's pairs (rows s - 1 and s) are levelled, column by column, and the halves
/// sweep again from what that moved, until the seam moves nothing. The halves are
/// fixed by the window, so the result is the same on any thread count. At most
/// `most` sweeps (the longer half's count each round). True if at rest.
fn in_halves(
    most: usize,
    nx: usize,
    s: usize,
    part: Part<'_>,
    rows: &mut [[u64; 2]],
    limit: f64,
) -> bool {
    let [mut a, mut b] = part.split_at(s * nx);
    let mut left = most;
    loop {
        let (ra, rb) = rows.split_at_mut(s);
        let [pa, pb] = [a.reborrow(), b.reborrow()];
        let ((settled_a, used_a), (settled_b, used_b)) = crate::parallel::join(
            || pa.sweeps(left, nx, ra, limit),
            || pb.sweeps(left, nx, rb, limit),
        );
        if !(settled_a && settled_b) {
            return false;
        }
        left -= used_a.max(used_b);
        // the seam, from both halves' nodes; the blocks it changed are the next
        // round's first sweep
        rows.fill([0, 0]);
        let shift = block_shift(nx);
        let mut moved = false;
        for i in 0..nx {
            let (ka, kb) = ((s - 1) * nx + i, i);
            let lim = match (a.limits, b.limits) {
                (Some(la), Some(lb)) => la[ka].min(lb[kb]),
                _ => limit,
            };
            if level_seam(&mut a, ka, &mut b, kb, lim) {
                rows[s - 1][0] |= 1u64 << (i >> shift);
                rows[s][0] |= 1u64 << (i >> shift);
                moved = true;
            }
        }
        if !moved {
            return true;
        }
        if left == 0 {
            return false;
        }
    }
}

/// [`level_pair`] for a pair across the seam of [`in_halves`]: node `ka` of part `a`
/// and node `kb` of part `b`.
fn level_seam(a: &mut Part<'_>, ka: usize, b: &mut Part<'_>, kb: usize, limit: f64) -> bool {
    let diff = a.h[ka] - b.h[kb];
    // the slope first: most pairs are at rest
    let Some(m) = excess(diff, limit) else {
        return false;
    };
    if a.mask[ka] || b.mask[kb] {
        return false;
    }
    // as in `level_pair`
    let m = if diff > 0.0 {
        capped(m, b.caps, b.h, kb)
    } else {
        capped(m, a.caps, a.h, ka)
    };
    let Some(m) = m else {
        return false;
    };
    if diff > 0.0 {
        a.h[ka] -= m;
        add_soil(b.h, b.zp, kb, m);
    } else {
        b.h[kb] -= m;
        add_soil(a.h, a.zp, ka, m);
    }
    a.changed[ka] = true;
    b.changed[kb] = true;
    true
}

/// Calls `held(k)` for each node `k` outside the footprint that a neighbour outside
/// it stands over by more than the repose rise `limit` (m over one spacing) while the
/// body's underside (`caps`, see [`capped`]) holds it: its pairs are not at rest for
/// the next update.
fn held_steep(
    mask: &[bool],
    caps: &[f64],
    (nx, ny): (usize, usize),
    h: &[f64],
    limit: f64,
    mut held: impl FnMut(usize),
) {
    for k in 0..nx * ny {
        if mask[k] || !caps[k].is_finite() {
            continue;
        }
        let (i, j) = (k % nx, k / nx);
        let around = [
            (i > 0).then(|| k - 1),
            (i + 1 < nx).then(|| k + 1),
            (j > 0).then(|| k - nx),
            (j + 1 < ny).then(|| k + nx),
        ];
        if around
            .into_iter()
            .flatten()
            .any(|n| !mask[n] && h[n] > h[k] && excess(h[n] - h[k], limit).is_some())
        {
            held(k);
        }
    }
}

/// Columns per erosion block of a window `nx` nodes wide, as a shift: a power of two
/// such that a row has at most 64 blocks.
fn block_shift(nx: usize) -> u32 {
    nx.div_ceil(64).next_power_of_two().trailing_zeros()
}

/// Most erosion sweeps one update of soil `p` makes in a window of `nodes` nodes:
/// `p.erosion_sweeps`, or with 0 (until settled) the safeguard [`MAX_EROSION_SWEEPS`],
/// and never more than [`EROSION_BUDGET`] node visits (but at least
/// [`MIN_BUDGET_SWEEPS`] sweeps).
fn sweep_bound(p: &SoilParams, nodes: usize) -> usize {
    let most = match p.erosion_sweeps {
        0 => MAX_EROSION_SWEEPS,
        n => (n as usize).min(MAX_EROSION_SWEEPS),
    };
    most.min((EROSION_BUDGET / nodes.max(1)).max(MIN_BUDGET_SWEEPS))
}

/// The erosion work one soil update may do, in node visits (sweeps times the nodes of
/// the window): 2e7, a few hundredths of a second. Windows of up to 2 000 nodes keep
/// the full [`MAX_EROSION_SWEEPS`], a wheel's window at 1 cm (about 5 000 nodes) 4 000
/// sweeps where driving needs about 10; a large body buried deep would otherwise
/// erode for 10 000 sweeps over its whole window every update (a 10 m grouser wheel
/// sunk 5 m into a 1 cm field: 8.7 s for its first communication step, found by the
/// scenario fuzzer, issue 26). What a bounded update leaves continues next update.
pub const EROSION_BUDGET: usize = 20_000_000;
/// The fewest sweeps the budget leaves a window.
const MIN_BUDGET_SWEEPS: usize = 10;

/// The sweeps of [`erode`], at most `most`, with the repose rise `lim(a, b)` (m over
/// one spacing) of the pair of nodes a, b.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn sweeps<L: Fn(usize, usize) -> f64>(
    most: usize,
    mask: (&[bool], Option<&[f64]>),
    nx: usize,
    ny: usize,
    h: &mut [f64],
    zp: &mut [f64],
    changed: &mut [bool],
    rows: &mut [[u64; 2]],
    lim: &L,
) -> (bool, usize) {
    // columns per block (a power of two): at most 64 blocks per row
    let shift = block_shift(nx);
    // blocks whose pairs row j visits: a pair (i, i+1) or (i, i+nx) is visited when
    // node i or i+1 of row j, or node i of row j+1, lies in a changed block (the block
    // before a changed one too: its last pair reaches into it)
    let active = |rows: &[[u64; 2]], j: usize| {
        let mut m = rows[j][0] | rows[j][1];
        if j + 1 < ny {
            m |= rows[j + 1][0] | rows[j + 1][1];
        }
        m | (m >> 1)
    };
    // levels the two pairs of node i in row j, marking the blocks that changed
    let mut visit = |rows: &mut [[u64; 2]], j: usize, i: usize| {
        visit_node(rows, j, i, nx, ny, shift, lim, mask, h, zp, changed)
    };
    for sweep in 0..most {
        let mut moved = false;
        let forward = sweep % 2 == 0;
        for jj in 0..ny {
            let j = if forward { jj } else { ny - 1 - jj };
            // the active blocks change only when soil moves in this row
            let mut m = active(rows, j);
            if m == 0 {
                continue;
            }
            if forward {
                let mut i = 0;
                while i < nx {
                    let b = i >> shift;
                    if m >> b & 1 == 0 {
                        // skip to the next active block
                        let rest = if b == 63 { 0 } else { m >> (b + 1) << (b + 1) };
                        if rest == 0 {
                            break;
                        }
                        i = (rest.trailing_zeros() as usize) << shift;
                    }
                    if visit(rows, j, i) {
                        moved = true;
                        m = active(rows, j);
                    }
                    i += 1;
                }
            } else {
                let mut i = nx;
                while i > 0 {
                    i -= 1;
                    let b = i >> shift;
                    if m >> b & 1 == 0 {
                        // skip back to the last node of the previous active block
                        let rest = m & ((1u64 << b) - 1);
                        if rest == 0 {
                            break;
                        }
                        i = ((64 - rest.leading_zeros() as usize) << shift) - 1;
                    }
                    if visit(rows, j, i) {
                        moved = true;
                        m = active(rows, j);
                    }
                }
            }
        }
        if !moved {
            return (true, sweep + 1);
        }
        for r in rows.iter_mut() {
            *r = [r[1], 0];
        }
    }
    (false, most)
}

/// One node of an erosion sweep ([`erode`]): levels its pairs to the right and
/// below, marking the blocks (of `1 << shift` columns) that changed in `rows`. True if
/// soil moved.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn visit_node<L: Fn(usize, usize) -> f64>(
    rows: &mut [[u64; 2]],
    j: usize,
    i: usize,
    nx: usize,
    ny: usize,
    shift: u32,
    lim: &L,
    mask: (&[bool], Option<&[f64]>),
    h: &mut [f64],
    zp: &mut [f64],
    changed: &mut [bool],
) -> bool {
    let k = j * nx + i;
    let b = 1u64 << (i >> shift);
    let mut hit = false;
    if i + 1 < nx && level_pair(k, k + 1, lim(k, k + 1), mask, h, zp, changed) {
        rows[j][1] |= b | 1u64 << ((i + 1) >> shift);
        hit = true;
    }
    if j + 1 < ny && level_pair(k, k + nx, lim(k, k + nx), mask, h, zp, changed) {
        rows[j][1] |= b;
        rows[j + 1][1] |= b;
        hit = true;
    }
    hit
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_update_erodes_at_most_its_budget_of_node_visits() {
        // issue 26: a buried 10 m wheel eroded 10 000 sweeps over its window per update
        let p = SoilParams::dlr_a();
        assert_eq!(super::sweep_bound(&p, 100), MAX_EROSION_SWEEPS);
        assert_eq!(super::sweep_bound(&p, 5_000), 4_000);
        assert_eq!(super::sweep_bound(&p, 1_000_000), 20);
        assert_eq!(super::sweep_bound(&p, 100_000_000), 10);
        let capped = SoilParams {
            erosion_sweeps: 3,
            ..SoilParams::dlr_a()
        };
        assert_eq!(super::sweep_bound(&capped, 1_000_000), 3);
    }
    use super::*;

    /// [`erode`] on an `nx` x `ny` field of heights `h` with no footprint and no
    /// soil classes.
    fn erode_open(p: &SoilParams, ds: f64, nx: usize, ny: usize, h: &mut [f64]) {
        let n = nx * ny;
        let (mut zp, mut changed) = (vec![0.0; n], vec![false; n]);
        erode(
            p,
            ds,
            &vec![false; n],
            nx,
            ny,
            h,
            &mut zp,
            &mut changed,
            &mut vec![],
            None,
        );
    }

    /// `soil.erosion_stops_at_bodies`: a 5 cm wall beside a hole under a body whose
    /// underside is 1 cm above the hole's floor: the soil slumping into the hole stops
    /// at the underside (none rises above its cap), the wall still slumps, and volume
    /// is kept; the pairs held steep are reported for the next update.
    #[test]
    fn erosion_stops_at_the_underside_of_a_body() {
        let (nx, ny, ds) = (12, 5, 0.01);
        let p = SoilParams::dlr_a();
        let mut h = vec![0.0; nx * ny];
        let mut caps = vec![f64::INFINITY; nx * ny];
        for j in 0..ny {
            for i in 0..nx {
                let k = j * nx + i;
                if i >= 6 {
                    h[k] = 0.05; // the wall
                } else {
                    caps[k] = 0.01; // the body over the hole
                }
            }
        }
        let total: f64 = h.iter().sum();
        let (mut zp, mut changed) = (vec![0.0; nx * ny], vec![false; nx * ny]);
        let mask = vec![false; nx * ny];
        let settled = erode_from(
            &p,
            ds,
            (&mask, Some(&caps), nx, ny),
            &mut h,
            &mut zp,
            &mut changed,
            &mut vec![],
            None,
            false,
        );
        assert!(settled);
        for (k, (z, c)) in h.iter().zip(&caps).enumerate() {
            assert!(*z <= c + 1e-15, "node {k}: {z} over its cap {c}");
        }
        assert!(h[5] > 0.009 && h[6] < 0.05, "{} {}", h[5], h[6]);
        assert!((h.iter().sum::<f64>() - total).abs() < 1e-12);
        let mut held = vec![];
        held_steep(&mask, &caps, (nx, ny), &h, ds * pmath::tan(p.repose), |k| {
            held.push(k)
        });
        assert!(
            !held.is_empty() && held.iter().all(|k| k % nx == 5),
            "{held:?}"
        );
        // without caps the same soil fills the hole above the underside
        let mut h2 = vec![0.0; nx * ny];
        for j in 0..ny {
            for i in 6..nx {
                h2[j * nx + i] = 0.05;
            }
        }
        let mut zp2 = vec![0.0; nx * ny];
        erode(
            &p,
            ds,
            &mask,
            nx,
            ny,
            &mut h2,
            &mut zp2,
            &mut changed,
            &mut vec![],
            None,
        );
        assert!(h2[5] > 0.011, "{}", h2[5]);
    }

    /// A 5 cm spike on a 21 x 21 field at 1 cm, eroded once with `sweeps` (0: until
    /// settled); the heights and the most any pair exceeds the repose rise by, m.
    fn eroded_spike(sweeps: u32) -> (Vec<f64>, f64) {
        let p = SoilParams {
            erosion_sweeps: sweeps,
            ..SoilParams::dlr_a()
        };
        let (nx, ny) = (21, 21);
        let mut h = vec![0.0; nx * ny];
        h[10 * nx + 10] = 0.05;
        erode_open(&p, 0.01, nx, ny, &mut h);
        let rise = 0.01 * pmath::tan(p.repose);
        let mut excess = f64::NEG_INFINITY;
        for j in 0..ny {
            for i in 0..nx {
                let k = j * nx + i;
                if i + 1 < nx {
                    excess = excess.max((h[k] - h[k + 1]).abs() - rise);
                }
                if j + 1 < ny {
                    excess = excess.max((h[k] - h[k + nx]).abs() - rise);
                }
            }
        }
        (h, excess)
    }

    #[test]
    fn erosion_levels_a_spike_to_the_angle_of_repose_in_one_update_and_keeps_the_volume() {
        // Krenn 2009 section 3.3: once the update is finished no slope exceeds the
        // angle of repose (to the tolerance)
        let (h, excess) = eroded_spike(0);
        assert!(excess <= EROSION_TOL, "{excess}");
        let v: f64 = h.iter().sum();
        assert!((v - 0.05).abs() < 1e-15);
        // the spike spread: its top fell below half
        assert!(h[10 * 21 + 10] < 0.025);
        // capped at 1 sweep, one update leaves slopes steeper than the repose slope
        // (what the cap is for: the rest continues next update)
        let (h2, excess2) = eroded_spike(1);
        assert!(excess2 > 10.0 * EROSION_TOL, "{excess2}");
        assert!((h2.iter().sum::<f64>() - 0.05).abs() < 1e-15);
    }

    #[test]
    fn soil_dropped_on_a_slope_at_repose_slides_to_its_toe_in_one_update() {
        // a slope at exactly the repose rise falling along +x (rows alike), 2 cm of
        // soil dropped on its top row of nodes
        let p = SoilParams::dlr_a();
        let (nx, ny, ds) = (30, 5, 0.01);
        let rise = ds * pmath::tan(p.repose);
        let slope = |i: usize| if i < 10 { (10 - i) as f64 * rise } else { 0.0 };
        let mut h: Vec<f64> = (0..nx * ny).map(|k| slope(k % nx)).collect();
        for j in 0..ny {
            h[j * nx] += 0.02;
        }
        let before: f64 = h.iter().sum();
        erode_open(&p, ds, nx, ny, &mut h);
        assert!((h.iter().sum::<f64>() - before).abs() < 1e-15);
        for j in 0..ny {
            let row = &h[j * nx..(j + 1) * nx];
            for i in 0..nx - 1 {
                assert!(
                    (row[i] - row[i + 1]).abs() <= rise + EROSION_TOL,
                    "row {j}, {i}"
                );
            }
            // the soil reached the toe: the first node of flat ground rose
            assert!(row[10] > 0.0, "row {j}: {:?}", &row[8..14]);
            // and the slope is nowhere higher than before plus what was dropped
            assert!(row[0] < slope(0) + 0.02 - 0.01);
        }
        // Half a repose rise dropped on the top slides down to the toe within a single
        // sweep along the slope: the slope is as before and the first node of flat
        // ground holds all of it (halving, the sweep would leave a quarter of it on the
        // top node and the top pair steeper than the repose slope)
        let one = SoilParams {
            erosion_sweeps: 1,
            ..p
        };
        let mut h: Vec<f64> = (0..nx * ny).map(|k| slope(k % nx)).collect();
        for j in 0..ny {
            h[j * nx] += 0.5 * rise;
        }
        erode_open(&one, ds, nx, ny, &mut h);
        for j in 0..ny {
            let row = &h[j * nx..(j + 1) * nx];
            for (i, &z) in row.iter().enumerate() {
                let want = if i == 10 { 0.5 * rise } else { slope(i) };
                assert!(
                    (z - want).abs() < 1e-15,
                    "row {j}, node {i}: {z} against {want}"
                );
            }
        }
    }

    /// The reference: every pair in every sweep (the same move of a pair), in the
    /// same halves and seam passes as [`in_halves`].
    #[allow(clippy::too_many_arguments)]
    fn erode_full(
        p: &SoilParams,
        ds: f64,
        mask: &[bool],
        nx: usize,
        ny: usize,
        h: &mut [f64],
        zp: &mut [f64],
    ) {
        let limit = ds * pmath::tan(p.repose);
        let mut changed = vec![false; h.len()];
        let mut full = |rows: std::ops::Range<usize>,
                        most: usize,
                        h: &mut [f64],
                        zp: &mut [f64]| {
            let (j0, ny) = (rows.start, rows.len());
            let (m, h, zp) = (&mask[j0 * nx..], &mut h[j0 * nx..], &mut zp[j0 * nx..]);
            for sweep in 0..most {
                let mut moved = false;
                for jj in 0..ny {
                    let j = if sweep % 2 == 0 { jj } else { ny - 1 - jj };
                    for ii in 0..nx {
                        let i = if sweep % 2 == 0 { ii } else { nx - 1 - ii };
                        let k = j * nx + i;
                        if i + 1 < nx {
                            moved |= level_pair(k, k + 1, limit, (m, None), h, zp, &mut changed);
                        }
                        if j + 1 < ny {
                            moved |= level_pair(k, k + nx, limit, (m, None), h, zp, &mut changed);
                        }
                    }
                }
                if !moved {
                    return (true, sweep + 1);
                }
            }
            (false, most)
        };
        if ny < SPLIT_ROWS || nx * ny < SPLIT_NODES {
            full(0..ny, sweep_bound(p, nx * ny), h, zp);
            return;
        }
        let (s, mut left) = (ny / 2, sweep_bound(p, nx * ny));
        let mut seam_changed = vec![false; h.len()];
        loop {
            let (a, used_a) = full(0..s, left, h, zp);
            let (b, used_b) = full(s..ny, left, h, zp);
            if !(a && b) {
                return;
            }
            left -= used_a.max(used_b);
            let mut moved = false;
            for i in 0..nx {
                let k = (s - 1) * nx + i;
                moved |= level_pair(k, k + nx, limit, (mask, None), h, zp, &mut seam_changed);
            }
            if !moved || left == 0 {
                return;
            }
        }
    }

    #[test]
    fn erosion_in_halves_passes_soil_across_their_seam() {
        // a spike on the last row of the first half: that half levels it against its
        // own rows only, the seam passes the rest on, the second half spreads it
        let p = SoilParams::dlr_a();
        let (nx, ny) = (SPLIT_NODES / SPLIT_ROWS + 1, SPLIT_ROWS);
        let mut h = vec![0.0; nx * ny];
        h[(ny / 2 - 1) * nx + nx / 2] = 0.4;
        let mut reference = h.clone();
        erode_open(&p, 0.01, nx, ny, &mut h);
        let (mut zp, mask) = (vec![0.0; nx * ny], vec![false; nx * ny]);
        erode_full(&p, 0.01, &mask, nx, ny, &mut reference, &mut zp);
        assert_eq!(h, reference);
        let rise = 0.01 * pmath::tan(p.repose);
        for j in 0..ny {
            for i in 0..nx {
                let k = j * nx + i;
                if i + 1 < nx {
                    assert!((h[k] - h[k + 1]).abs() <= rise + EROSION_TOL, "{i} {j}");
                }
                if j + 1 < ny {
                    assert!((h[k] - h[k + nx]).abs() <= rise + EROSION_TOL, "{i} {j}");
                }
            }
        }
        // soil crossed the seam and spread in the second half
        assert!(h[(ny / 2) * nx + nx / 2] > rise && h[(ny / 2 + 1) * nx + nx / 2] > 0.0);
        assert!((h.iter().sum::<f64>() - 0.4).abs() < 1e-15);
    }

    #[test]
    fn a_march_with_run_skipping_ends_where_the_step_by_step_walk_does() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (nx, ny) = (61, 47);
        // one set of runs for all the masks, as in the soil updates: each starts over
        // from what the last one left, over its own box
        let mut runs = Runs::default();
        for (fill, radius) in [(1.0, 22.0), (0.6, 12.0), (0.9, 17.0), (1.0, 9.0)] {
            // a blob with holes, never on the window's edge
            let mask: Vec<bool> = (0..nx * ny)
                .map(|k| {
                    let (i, j) = (k % nx, k / nx);
                    let inside = pmath::hypot(i as f64 - 30.0, (j as f64 - 23.0) * 1.3) < radius;
                    inside && i > 0 && j > 0 && i < nx - 1 && j < ny - 1 && rng.gen::<f64>() < fill
                })
                .collect();
            // its columns and rows, and one more of each (as `sources` gives them)
            let (mut i0, mut i1, mut j0, mut j1) = (nx, 0, ny, 0);
            for k in (0..nx * ny).filter(|&k| mask[k]) {
                let (i, j) = (k % nx, k / nx);
                (i0, i1, j0, j1) = (i0.min(i), i1.max(i), j0.min(j), j1.max(j));
            }
            runs.reset_to((i0, i1 + 1), (j0, j1 + 1));
            for _ in 0..3000 {
                let k = rng.gen_range(0..nx * ny);
                let a = rng.gen_range(0.0..std::f64::consts::TAU);
                // axis-major directions, exact axes, nearly axes (the integer walk)
                // and diagonals too
                let r: f64 = rng.gen::<f64>() - 0.5;
                let (x, y) = match rng.gen_range(0..7) {
                    0 => (1.0, 0.0),
                    1 => (-1.0, -1.0),
                    2 => (0.0, -1.0),
                    3 => (-1.0, 0.004 * r),
                    4 => (0.02 * r, 1.0),
                    _ => (pmath::cos(a), pmath::sin(a)),
                };
                let (dx, dy) = step_dir(x, y).unwrap();
                // the step-by-step walk
                let (i0, j0) = ((k % nx) as f64, (k / nx) as f64);
                let mut s = 1.0;
                let slow = loop {
                    let i = ((i0 + s * dx).round().clamp(0.0, (nx - 1) as f64)) as usize;
                    let j = ((j0 + s * dy).round().clamp(0.0, (ny - 1) as f64)) as usize;
                    let q = j * nx + i;
                    if !mask[q] || i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
                        break q;
                    }
                    s += 1.0;
                };
                assert_eq!(
                    march(&mask, &mut runs, nx, ny, (k % nx, k / nx), dx, dy),
                    slow,
                    "k {k} dir {dx} {dy}"
                );
            }
        }
    }

    #[test]
    fn erosion_on_the_active_region_equals_full_sweeps_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // windows narrower and wider than 64 columns (one and several columns a block),
        // in halves and whole (fewer rows or nodes than SPLIT_ROWS, SPLIT_NODES), sweeps
        // capped and until settled
        for ((nx, ny), sweeps) in [
            ((23, 17), 6),
            ((150, 40), 6),
            ((23, 17), 0),
            ((150, 40), 0),
            ((23, 9), 0),
            ((150, 15), 4),
        ] {
            let p = SoilParams {
                erosion_sweeps: sweeps,
                ..SoilParams::dlr_a()
            };
            let n = nx * ny;
            let mut h: Vec<f64> = (0..n).map(|_| 0.002 * rng.gen::<f64>()).collect();
            // a few spikes and a pit, a masked footprint in the middle
            for _ in 0..6 {
                let k = rng.gen_range(0..n);
                h[k] += 0.05 * rng.gen::<f64>();
            }
            h[n / 3] -= 0.04;
            // spikes on both sides of the halves' seam (SPLIT_ROWS)
            h[(ny / 2 - 1) * nx + nx / 5] += 0.05;
            h[(ny / 2) * nx + 4 * nx / 5] += 0.05;
            let mask: Vec<bool> = (0..n)
                .map(|k| {
                    let (i, j) = ((k % nx) as f64, (k / nx) as f64);
                    pmath::hypot(i - nx as f64 / 2.0, j - ny as f64 / 2.0) < 4.0
                })
                .collect();
            let mut zp: Vec<f64> = (0..n).map(|_| 0.01 * rng.gen::<f64>()).collect();
            let (mut h2, mut zp2) = (h.clone(), zp.clone());
            let mut changed = vec![false; n];
            let mut rows = vec![];
            for _ in 0..5 {
                erode(
                    &p,
                    0.01,
                    &mask,
                    nx,
                    ny,
                    &mut h,
                    &mut zp,
                    &mut changed,
                    &mut rows,
                    None,
                );
                erode_full(&p, 0.01, &mask, nx, ny, &mut h2, &mut zp2);
                assert_eq!(h, h2);
                assert_eq!(zp, zp2);
            }
        }
    }
}
