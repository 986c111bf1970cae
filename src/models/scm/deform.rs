//! SCM plastic soil deformation (Krenn 2009, section 3.3): a body's soil update,
//! displacement (eq. (10)), the soil flow fields (Fig. 12) and deposition on the
//! footprint border (Fig. 13); then the erosion down to the angle of repose (Fig. 14,
//! [`super::erosion`]).
//!
//! **Volume.** Every cubic metre a footprint node loses (its plastic sinkage
//! increment, eq. (10)) is put on border nodes, and erosion only moves soil between
//! nodes: the soil volume above the base surface is conserved (to rounding).

use crate::pmath;
use super::contact::Workspace;
use super::erosion::{add_soil, erode_window, erodes_in_halves};
use super::grid::SoilGrid;
use super::rect::outside;
use super::row_walk::RowWalks;
use super::update_state::{word8, RadialHandoff, RadialSources, RadialSpread, Runs, SpreadSlot};
use std::sync::atomic::Ordering::Release;
use super::pressure::{bekker, plastic_sinkage};
use super::SoilParams;
use crate::geometry::terrain::Surface;

/// Below this speed of its origin (m/s) a body's radial field feeds its whole border.
pub const RADIAL_REST_SPEED: f64 = 1e-3;

/// Edge of the blocks of footprint nodes whose radial-field sources are lumped, nodes.
pub const CLUSTER: usize = 4;

/// Swaps the update's buffers with the evaluation's in `ws`.
fn swap_buffers(ws: &mut Workspace) {
    ws.update_bufs
        .swap_with(&mut ws.h, &mut ws.zp, &mut ws.j, &mut ws.mask);
}

/// Walks from window node `(i, j)` (column, row) along (dx, dy) (nodes per step, the
/// larger component 1) to the first node outside the footprint mask (its window
/// index); the window's edge stops it.
///
/// Along an axis-major direction the walk skips ahead over the run of footprint nodes
/// in its current row (or column) while the minor coordinate stays the same (found by
/// bisection: it changes monotonically with the step), so the result is the node the
/// step-by-step walk reaches, at the cost of the rows it crosses. The walks along a
/// row take [`RowWalks`] instead (`walk`), which ends them without the runs.
#[inline(never)]
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
    if along_row(dx, dy, nx) || (y_major && dx.abs() * ny as f64 * 2.0 < 1.0)
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

/// Whether a walk along the unit step (dx, dy) (larger component 1) stays in its row
/// of a window `nx` nodes wide: x-major, with dy too small to change the row there.
#[inline(always)]
fn along_row(dx: f64, dy: f64, nx: usize) -> bool {
    dx.abs() == 1.0 && dy.abs() < 1.0 && dy.abs() * nx as f64 * 2.0 < 1.0
}

/// The footprint node `k`'s shear displacement grown by its sliding speed `slide`
/// (m/s) over `dt` (s).
#[inline(always)]
fn slide_node(j: &mut [f64], changed: &mut [bool], k: usize, slide: f64, dt: f64) {
    if slide > 0.0 {
        j[k] += slide * dt;
        changed[k] = true;
    }
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
    update_beside(p, grid, base, ws, dt, deform, || || {});
}

/// [`update`], and the caller's work `beside` on a helper thread: its first part
/// while this thread loads the window and works out the shear displacement and the
/// plastic flow, and the part it returns either right after (a window that erodes in
/// halves: they take the helper) or while this thread deposits, erodes and stores.
/// Both on this thread instead, after the update, when no helper is free. `beside`
/// must not touch the soil or the workspace.
pub fn update_beside<B: FnOnce() + Send>(
    p: &SoilParams,
    grid: &mut SoilGrid,
    base: &Surface,
    ws: &mut Workspace,
    dt: f64,
    deform: bool,
    beside: impl FnOnce() -> B + Send,
) {
    // The helper: the side job's first part (a wheel's next scan conversion places
    // its vertices and picks its faces), then the radial field's spread, block row by
    // block row as the shear pass finishes them, and the side job's rest after it
    // (`late`) or before it. Late, this thread deposits, erodes and stores while the
    // helper finishes the side job, and takes the spread itself if the helper has
    // not started it by the time the walks are done.
    let (ds, u) = (grid.ds, ws.update_rect);
    let late = !erodes_in_halves(u.nx as usize, u.ny as usize);
    let handoff = RadialHandoff::default();
    let slot = SpreadSlot::new(std::mem::take(&mut ws.radial.out));
    let (walked, ()) = crate::parallel::join(
        || {
            // the helper stops waiting unless every block was handed over, also when
            // this panics
            let mut guard = GiveUp(&handoff, true);
            if !load(grid, base, ws) {
                return false;
            }
            let prepared = match sources(p, ds, ws, &handoff, dt, deform) {
                Some(result) => result,
                None => {
                    guard.1 = false;
                    drop(guard);
                    walk(ws);
                    if !late {
                        return true;
                    }
                    let src = handoff.sources.get().expect("the pass handed its sources over");
                    // None: the helper's spread panicked (raised when both end)
                    let Some(out) = slot.spread(src) else {
                        return false;
                    };
                    deposit(ws, src, &out);
                    ws.radial.out = out;
                    erode_window(p, ds, ws);
                    true
                }
            };
            if prepared {
                commit(grid, base, ws);
            }
            false
        },
        || {
            let rest = beside();
            if late {
                slot.follow(&handoff);
                rest();
            } else {
                rest();
                slot.follow(&handoff);
            }
        },
    );
    // the spread's buffers, unless this thread took them above
    if let Some(out) = slot.into_inner() {
        ws.radial.out = out;
    }
    if let Some(src) = handoff.sources.into_inner() {
        ws.radial.src = src;
    }
    if walked {
        // the helper followed the pass (or ran after it, alone)
        let rf = std::mem::take(&mut ws.radial);
        deposit(ws, &rf.src, &rf.out);
        ws.radial = rf;
        erode_window(p, ds, ws);
        commit(grid, base, ws);
    }
}

/// Tells the radial field's spread, when dropped armed (also on unwinding), that no
/// more blocks come.
struct GiveUp<'a>(&'a RadialHandoff, bool);

impl Drop for GiveUp<'_> {
    fn drop(&mut self) {
        if self.1 {
            self.0.gave_up.store(true, Release);
        }
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
    // each footprint node's grid column and row, from the evaluation; their box, the
    // sums of their columns and rows and their order (for `sources`: one pass). The
    // lists sized first and written in place (a push per node checked the capacity and
    // reloaded the lists' ends: 3 µs for a thousand nodes, now 2)
    debug_assert_eq!(ws.cached_nodes.len(), ws.foot.len());
    let count = ws.cached_nodes.len();
    ws.foot_ij.resize(count, [0, 0]);
    ws.foot_k.resize(count, 0);
    let (mut sum_i, mut sum_j, mut last_j) = (0, 0, 0);
    let mut rows_in_order = true;
    let (mask, fk, fij) = (&mut ws.mask[..], &mut ws.foot_k[..], &mut ws.foot_ij[..]);
    for ((&(gi, gj), k), ij) in ws.cached_nodes.iter().zip(fk).zip(fij) {
        let (i, j) = (gi - u.i0, gj - u.j0);
        debug_assert!(
            i >= 0 && j >= 0 && (i as usize) < unx,
            "footprint node off the window"
        );
        let (i, j) = (i as usize, j as usize);
        let q = j * unx + i;
        *k = q as u32;
        mask[q] = true;
        *ij = [i as u32, j as u32];
        rows_in_order &= j >= last_j;
        last_j = j;
        sum_i += i;
        sum_j += j;
    }
    // (the evaluation's box of the same nodes)
    let b = ws.foot_grid_box;
    ws.foot_box = if ws.cached_nodes.is_empty() {
        [usize::MAX, 0, usize::MAX, 0]
    } else {
        debug_assert!(b.i0 >= u.i0 && b.j0 >= u.j0, "footprint box off the window");
        let (i0, j0) = ((b.i0 - u.i0) as usize, (b.j0 - u.j0) as usize);
        [i0, i0 + b.nx as usize - 1, j0, j0 + b.ny as usize - 1]
    };
    debug_assert_eq!(
        ws.foot_box,
        ws.foot_ij.iter().fold([usize::MAX, 0, usize::MAX, 0], |[a, b, c, d], &[i, j]| {
            let (i, j) = (i as usize, j as usize);
            [a.min(i), b.max(i), c.min(j), d.max(j)]
        }),
        "the evaluation's footprint box"
    );
    ws.foot_sums = [sum_i, sum_j];
    ws.foot_rows_in_order = rows_in_order;
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
    let handoff = RadialHandoff::default();
    let done = sources(p, ds, ws, &handoff, dt, deform);
    if let Some(src) = handoff.sources.into_inner() {
        ws.radial.src = src;
    }
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
/// parallel field's walks and the radial field's sources (handed over to `handoff`:
/// the workspace's, moved there with their fed nodes, then block row by block row).
/// Some(result of settle; nothing handed over): no flow follows (no
/// deformation, no footprint or no border; erosion done where due).
fn sources(
    p: &SoilParams,
    ds: f64,
    ws: &mut Workspace,
    handoff: &RadialHandoff,
    dt: f64,
    deform: bool,
) -> Option<bool> {
    let rect = ws.rect;
    let (nx, ny) = (rect.nx as usize, rect.ny as usize);
    let len = rect.len();
    // the footprint's columns and rows: runs and border lie there and one node around
    // (`load` found them; the nodes come row by row, from the evaluation's pass over
    // its window)
    debug_assert_eq!(ws.foot_ij.len(), ws.foot.len());
    let [i0, i1, j0, j1] = ws.foot_box;
    let rows_in_order = ws.foot_rows_in_order;
    ws.foot_span = ((i0.min(i1 + 1), i1 + 1), (j0.min(j1 + 1), j1 + 1));
    ws.runs.reset_to(ws.foot_span.0, ws.foot_span.1);
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
    // window can hold any (the same resets as a pass over the window). The nodes that
    // footprint left are kept for the erosion's first sweep (`ws.left`)
    let mut reset = |k: usize| {
        if !ws.mask[k] && ws.j[k] != 0.0 {
            ws.j[k] = 0.0;
            ws.changed[k] = true;
        }
    };
    if ws.at_rest_valid && !ws.full_sweeps {
        let (r, old) = (ws.rect, ws.at_rest.rect);
        outside(&r, &old, |i, j| reset(j * nx + i));
        ws.at_rest.left_in(&r, &ws.mask, &mut ws.left);
        ws.left.iter().for_each(|&k| reset(k as usize));
    } else {
        (0..len).for_each(reset);
    }
    // the footprint nodes' shear displacement grows by their sliding speed times dt:
    // in the shear pass's loop below, or with this where the update returns before it
    let slide = |ws: &mut Workspace| {
        for (f, &k) in ws.foot.iter().zip(&ws.foot_k) {
            slide_node(&mut ws.j, &mut ws.changed, k as usize, f.slide, dt);
        }
    };
    if !deform {
        slide(ws);
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
    let cols = (i0.saturating_sub(1).max(1), (i1 + 2).min(nx - 1));
    let rows = (j0.saturating_sub(1).max(1), (j1 + 2).min(ny - 1));
    border_nodes(&ws.mask, nx, cols, rows, &mut ws.border);
    let border = &ws.border;
    if border.is_empty() {
        slide(ws);
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
    // (integer sums: the same as summed node by node in f64, which is exact for them)
    let [ci, cj] = ws.foot_sums.map(|s| s as f64 / ws.foot.len() as f64);
    // |d.v| <= |d| |v| cos 45 deg, squared (both sides are not negative)
    let beside = |b: u32| {
        let (di, dj) = ((b as usize % nx) as f64 - ci, (b as usize / nx) as f64 - cj);
        let along = di * vx + dj * vy;
        along * along <= 0.5 * (di * di + dj * dj) * (speed * speed)
    };
    let moving = speed > RADIAL_REST_SPEED && border.iter().any(|&b| beside(b));
    // the fed nodes, written and counted as the border above
    let rf = &mut ws.radial.src;
    let nb = border.len();
    rf.nodes.resize(nb, 0);
    rf.i.resize(nb, 0.0);
    rf.j.resize(nb, 0.0);
    let mut fed = 0;
    for &b in border {
        rf.nodes[fed] = b;
        rf.i[fed] = (b as usize % nx) as f32;
        rf.j[fed] = (b as usize / nx) as f32;
        fed += (!moving | beside(b)) as usize;
    }
    rf.nodes.truncate(fed);
    rf.i.truncate(fed);
    rf.j.truncate(fed);
    let ncx = nx.div_ceil(CLUSTER);
    let blocks = ncx * ny.div_ceil(CLUSTER);
    rf.clear_blocks(blocks);
    // handed over; its blocks below, each block row once the pass has come to a node
    // of a later one (or all at the end, were the nodes not in row order)
    let rf = handoff.sources.get_or_init(|| std::mem::take(rf));
    debug_assert!(rows_in_order, "footprint nodes out of row order");
    let mut block_row = if rows_in_order { 0 } else { usize::MAX };
    ws.walks.clear();
    for ((f, &k), &[i, j]) in ws.foot.iter().zip(&ws.foot_k).zip(&ws.foot_ij) {
        let row = j as usize / CLUSTER;
        if row > block_row {
            block_row = row;
            handoff.done.store(row * ncx, Release);
        }
        let k = k as usize;
        slide_node(&mut ws.j, &mut ws.changed, k, f.slide, dt);
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
        // the radial (sinkage) field, in the ratio of the two (`Flow`, worked out
        // with the node's force).
        let share = f.flow.share;
        // Fig. 13, parallel field: the border node it reaches first along the
        // horizontal normal velocity receives its share (walked below)
        if share > 0.0 {
            if let Some((dx, dy)) = f.flow.step() {
                ws.walks.push(([i, j], dx, dy, dz * share));
            }
        }
        // radial field: accumulated per cluster of nodes, spread below
        let radial = dz * (1.0 - share);
        if radial > 0.0 {
            let (i, j) = (i as usize, j as usize);
            let c = (j / CLUSTER) * ncx + i / CLUSTER;
            rf.add(c, [radial, radial * i as f64, radial * j as f64]);
        }
    }
    handoff.done.store(blocks, Release);
    None
}

/// The nodes of columns `cols.0..cols.1` and rows `rows.0..rows.1` of a window `nx`
/// nodes wide (not its first or last column or row) outside the footprint `mask` with
/// a neighbour inside, row by row, into `out`. Eight nodes of a row at a time: a
/// branch per node at the footprint's edge was mispredicted about 440 times per
/// update of a wheel at 5 mm (callgrind).
fn border_nodes(
    mask: &[bool],
    nx: usize,
    cols: (usize, usize),
    rows: (usize, usize),
    out: &mut Vec<u32>,
) {
    out.clear();
    for row in (rows.0..rows.1).map(|j| j * nx) {
        for i in (cols.0..cols.1).step_by(8) {
            let (k, n) = (row + i, (cols.1 - i).min(8));
            let m = |a: usize| bytes8(mask, a, n);
            // per byte: 1 where the node is outside and a neighbour inside
            let mut edge = !m(k) & (m(k - 1) | m(k + 1) | m(k - nx) | m(k + nx));
            while edge != 0 {
                out.push((k + edge.trailing_zeros() as usize / 8) as u32);
                edge &= edge - 1;
            }
        }
    }
}

/// `n` (at most 8) nodes of `mask` from `a` as the bytes of a word, 1 for a node in
/// it (the first node in the lowest byte; the bytes past `n` 0).
#[inline(always)]
fn bytes8(mask: &[bool], a: usize, n: usize) -> u64 {
    let keep = if n >= 8 { u64::MAX } else { (1u64 << (8 * n)) - 1 };
    match mask.get(a..a + 8) {
        Some(b) => word8(b) & keep,
        // near the window's end
        None => word8(&mask[a..a + n]),
    }
}

/// The second part of [`settle`]: the parallel field's walks and the radial field's
/// spread (on a helper thread: it reads the sources and the fed nodes' coordinates,
/// and hands back one amount per fed node), and the deposits.
fn spread(ws: &mut Workspace) {
    let mut rf = std::mem::take(&mut ws.radial);
    crate::parallel::join(|| walk(ws), || rf.out.spread(&rf.src));
    deposit(ws, &rf.src, &rf.out);
    ws.radial = rf;
}

/// The parallel field's walks: each one's soil onto the border node it reaches.
fn walk(ws: &mut Workspace) {
    let (nx, ny) = (ws.rect.nx as usize, ws.rect.ny as usize);
    let (mask, runs, walks) = (&ws.mask, &mut ws.runs, &ws.walks);
    let (deposit, deposited) = (&mut ws.deposit, &mut ws.deposited);
    let mut rows = RowWalks::default();
    for &([i, j], dx, dy, amount) in walks {
        let from = (i as usize, j as usize);
        // along a row (`march`'s test): most walks, ending where the last one did
        let q = if along_row(dx, dy, nx) {
            rows.end(mask, nx, ny, from, dx > 0.0)
        } else {
            march(mask, runs, nx, ny, from, dx, dy)
        };
        if deposit[q] == 0.0 {
            deposited.push(q as u32);
        }
        deposit[q] += amount;
    }
}

/// After the walks ([`walk`]) and the radial field's spread `out` of `src`: the
/// radial field's soil added to the walks' deposits, then every deposit onto its node.
fn deposit(ws: &mut Workspace, src: &RadialSources, out: &RadialSpread) {
    for (&b, &r) in src.nodes.iter().zip(&out.receive) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight nodes at a time give the border of a node-by-node scan, in its order:
    /// random masks of every density, boxes of every width and position, reaching the
    /// window's last columns and rows.
    #[test]
    fn the_border_eight_nodes_at_a_time_is_the_node_by_node_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (mut fast, mut found) = (Vec::new(), 0);
        for round in 0..400 {
            let (nx, ny) = (rng.gen_range(3..40), rng.gen_range(3..30));
            let p = rng.gen_range(0.05..0.9);
            let mask: Vec<bool> = (0..nx * ny).map(|_| rng.gen_bool(p)).collect();
            let cols = (rng.gen_range(1..nx - 1), rng.gen_range(1..nx));
            let rows = (rng.gen_range(1..ny - 1), rng.gen_range(1..ny));
            let cols = (cols.0, cols.1.max(cols.0).min(nx - 1));
            let rows = (rows.0, rows.1.max(rows.0).min(ny - 1));
            let mut slow = Vec::new();
            for j in rows.0..rows.1 {
                for i in cols.0..cols.1 {
                    let k = j * nx + i;
                    if !mask[k] && (mask[k + 1] || mask[k - 1] || mask[k + nx] || mask[k - nx]) {
                        slow.push(k as u32);
                    }
                }
            }
            border_nodes(&mask, nx, cols, rows, &mut fast);
            assert_eq!(fast, slow, "round {round}: {nx} x {ny}, {cols:?} {rows:?}");
            found += slow.len();
        }
        assert!(found > 1000, "too few border nodes to show anything: {found}");
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
                let flow = crate::models::scm::contact::Flow::of(nalgebra::Vector3::new(x, y, 0.0));
                let (dx, dy) = flow.step().unwrap();
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
}
