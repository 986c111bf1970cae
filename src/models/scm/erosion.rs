//! SCM erosion (Krenn 2009, section 3.3, Fig. 14): slopes steeper than the angle of
//! repose level off, pair by pair of neighbouring nodes, sweep after sweep over a
//! soil update's window, in two halves on two threads where the window is large; the
//! first sweep starts from what the last update left at rest
//! ([`super::update_state::AtRest`]). Erosion moves soil between nodes only: the
//! volume above the base surface is conserved (to rounding).

use crate::pmath;
use super::contact::Workspace;
use super::rect::outside;
use super::SoilParams;

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
pub(super) fn erode_window(p: &SoilParams, ds: f64, ws: &mut Workspace) {
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
        // the footprint: the mask over the columns and rows of its nodes
        let (cols, rows) = ws.foot_span;
        next.record_footprint(&r, &ws.mask, cols, rows);
        debug_assert_eq!(
            next.foot_mask.iter().filter(|&&m| m).count(),
            ws.mask.iter().filter(|&&m| m).count()
        );
    }
    ws.caps = caps;
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
    // the nodes the footprint left (and those held steep), found by the shear pass
    for &k in &ws.left {
        mark(k as usize % nx, k as usize / nx);
    }
    // the nodes that received soil
    for &k in &ws.deposited {
        mark(k as usize % nx, k as usize / nx);
    }
}

/// Puts `d` (m) of loose soil on node `k`: its level before loading becomes the
/// higher of the old one and the new surface.
pub(super) fn add_soil(h: &mut [f64], zp: &mut [f64], k: usize, d: f64) {
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
    if !erodes_in_halves(nx, ny) {
        return part.sweeps(most, nx, rows, limit).0;
    }
    in_halves(most, nx, ny / 2, part, rows, limit)
}

/// Whether a window of `nx` x `ny` nodes erodes in two halves ([`in_halves`]): from
/// [`SPLIT_ROWS`] rows and [`SPLIT_NODES`] nodes.
pub(super) fn erodes_in_halves(nx: usize, ny: usize) -> bool {
    ny >= SPLIT_ROWS && nx * ny >= SPLIT_NODES
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
            // one repose slope: runs of four nodes at rest are found at once
            None => {
                let lim = &|_, _| limit;
                sweeps(most, m, nx, ny, h, zp, c, rows, lim, Some(limit + EROSION_TOL))
            }
            // soils of two classes: the lower repose slope of the pair's nodes
            Some(l) => sweeps(most, m, nx, ny, h, zp, c, rows, &|a, b| l[a].min(l[b]), None),
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
///
/// With `screen`, the rise every pair shares plus [`EROSION_TOL`] (one soil), four
/// nodes of a row are tested at once ([`moving_of_four`]) before any is visited: a
/// visit moves soil only at a node with a pair steeper than that and outside the
/// footprint, and the visits before the first such node move nothing (the heights
/// are still the ones the test read), so they are skipped. The same moves, in the
/// same order: the same bits.
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
    screen: Option<f64>,
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
    let mut visit = |rows: &mut [[u64; 2]], h: &mut [f64], j: usize, i: usize| {
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
            // four nodes from node `i` of this row: the screen's window, if it applies
            // (every node has both pairs in the window)
            let four = |i: usize| screen.filter(|_| i + 4 < nx && j + 1 < ny);
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
                    if let Some(thr) = four(i) {
                        let s = moving_of_four(h, mask.0, j * nx + i, nx, thr);
                        if s == 0 {
                            i += 4;
                            continue;
                        }
                        // the first node that moves soil, if its block is active
                        i += s.trailing_zeros() as usize;
                        if m >> (i >> shift) & 1 == 0 {
                            continue;
                        }
                    }
                    if visit(rows, h, j, i) {
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
                    if let Some(thr) = (i >= 3).then(|| four(i - 3)).flatten() {
                        let s = moving_of_four(h, mask.0, j * nx + i - 3, nx, thr);
                        if s == 0 {
                            // the loop steps back past node i - 3
                            i -= 3;
                            continue;
                        }
                        // the last node that moves soil (the first this way), if its
                        // block is active
                        i = i - 3 + (31 - s.leading_zeros() as usize);
                        if m >> (i >> shift) & 1 == 0 {
                            continue;
                        }
                    }
                    if visit(rows, h, j, i) {
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

/// Which of the four nodes `k` .. `k + 3` of a row (bits 0-3) have a pair to the right
/// or below whose height difference exceeds `thr` (m) with both its nodes outside
/// the footprint `mask`: the nodes where a visit ([`visit_node`]) may move soil. The
/// same test as [`excess`] (`|diff| > limit + EROSION_TOL`, false for NaN) and
/// [`level_pair`]'s mask, without a branch; the four nodes' pairs must lie in the
/// window (`k + 4` in the row, `k + nx + 3` in it).
#[inline(always)]
fn moving_of_four(h: &[f64], mask: &[bool], k: usize, nx: usize, thr: f64) -> u32 {
    let (right, down) = steep_of_four(&h[k..k + 5], &h[k + nx..k + nx + 4], thr);
    // the footprint's nodes as bits: this row's five, the next row's four
    let r = bits4(&mask[k..k + 4]) | (mask[k + 4] as u32) << 4;
    let d = bits4(&mask[k + nx..k + nx + 4]);
    (right & !(r | r >> 1) | down & !(r | d)) & 0xF
}

/// Four bools as the bits 0-3 of a word (the first in bit 0).
#[inline(always)]
fn bits4(b: &[bool]) -> u32 {
    let b: &[bool; 4] = b.try_into().expect("four nodes");
    let x = u32::from_le_bytes(b.map(u8::from)) as u64;
    // each byte's 0 or 1 moved to bit 28 + its index (the other products land apart)
    ((x * 0x1020_4080) >> 28) as u32 & 0xF
}

/// Bits 0-3 of [`moving_of_four`]'s steepness to the right (`|r[t] - r[t + 1]| > thr`)
/// and below (`|r[t] - d[t]| > thr`), two nodes at a time (SSE2, every x86-64 has it).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn steep_of_four(r: &[f64], d: &[f64], thr: f64) -> (u32, u32) {
    use std::arch::x86_64::*;
    assert!(r.len() >= 5 && d.len() >= 4);
    // SAFETY: SSE2 is part of x86-64; the loads read r[0..5] and d[0..4] (checked)
    unsafe {
        let (rp, dp) = (r.as_ptr(), d.as_ptr());
        let (sign, t) = (_mm_set1_pd(-0.0), _mm_set1_pd(thr));
        let steep = |a: __m128d, b: __m128d| {
            _mm_movemask_pd(_mm_cmpgt_pd(_mm_andnot_pd(sign, _mm_sub_pd(a, b)), t)) as u32
        };
        let (a0, a1) = (_mm_loadu_pd(rp), _mm_loadu_pd(rp.add(2)));
        let (b0, b1) = (_mm_loadu_pd(rp.add(1)), _mm_loadu_pd(rp.add(3)));
        let (c0, c1) = (_mm_loadu_pd(dp), _mm_loadu_pd(dp.add(2)));
        (
            steep(a0, b0) | steep(a1, b1) << 2,
            steep(a0, c0) | steep(a1, c1) << 2,
        )
    }
}

/// [`steep_of_four`] on processors other than x86-64.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn steep_of_four(r: &[f64], d: &[f64], thr: f64) -> (u32, u32) {
    steep_of_four_by_node(r, d, thr)
}

/// [`steep_of_four`] one node at a time (processors other than x86-64; on x86-64 the
/// tests' reference).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
fn steep_of_four_by_node(r: &[f64], d: &[f64], thr: f64) -> (u32, u32) {
    let (mut right, mut down) = (0, 0);
    for t in 0..4 {
        right |= (((r[t] - r[t + 1]).abs() > thr) as u32) << t;
        down |= (((r[t] - d[t]).abs() > thr) as u32) << t;
    }
    (right, down)
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
    fn four_nodes_at_a_time_find_the_nodes_a_visit_moves() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (nx, limit) = (9, 0.003);
        let thr = limit + EROSION_TOL;
        for _ in 0..4000 {
            // differences at, just over and far over the threshold, and NaN
            let mut h: Vec<f64> = (0..2 * nx)
                .map(|_| match rng.gen_range(0..6) {
                    0 => 0.0,
                    1 => thr,
                    2 => -thr,
                    3 => f64::from_bits(thr.to_bits() + 1),
                    4 => 0.01 * (rng.gen::<f64>() - 0.5),
                    _ => 0.0005 * rng.gen::<f64>(),
                })
                .collect();
            if rng.gen_range(0..20) == 0 {
                h[rng.gen_range(0..2 * nx)] = f64::NAN;
            }
            let mask: Vec<bool> = (0..2 * nx).map(|_| rng.gen_range(0..4) == 0).collect();
            let k = rng.gen_range(0..nx - 4);
            // a node moves soil where level_pair would: steep by excess, both outside
            let moves = |a: usize, b: usize| {
                excess(h[a] - h[b], limit).is_some() && !mask[a] && !mask[b]
            };
            let want = (0..4)
                .filter(|&t| moves(k + t, k + t + 1) || moves(k + t, k + t + nx))
                .fold(0, |w, t| w | 1 << t);
            assert_eq!(moving_of_four(&h, &mask, k, nx, thr), want, "{h:?} {mask:?} {k}");
            let (r, d) = (&h[k..k + 5], &h[k + nx..k + nx + 4]);
            assert_eq!(steep_of_four(r, d, thr), steep_of_four_by_node(r, d, thr));
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
