//! What a body's soil update keeps in its workspace from step to step: the window
//! buffers it works in apart from the evaluation's, the radial field and the
//! footprint runs it reuses, and what its erosion left at rest. Data only: the
//! flows ([`super::deform`]) and the erosion ([`super::erosion`]) work on them, the
//! contact ([`super::contact::Workspace`]) holds them.

use super::grid::Mark;
use super::rect::Rect;
use nalgebra::Vector3;

/// A soil update's window buffers: heights, plastic sinkage, shear displacement and
/// footprint mask, kept apart from the evaluation's (see [`super::deform::load`], [`UpdateBuffers::swap_with`]).
#[derive(Default)]
pub struct UpdateBuffers {
    pub(super) h: Vec<f64>,
    pub(super) zp: Vec<f64>,
    pub(super) j: Vec<f64>,
    pub(super) mask: Vec<bool>,
    /// They are in the workspace's `h`, `zp`, `j`, `mask` (an update runs).
    pub(super) swapped: bool,
    /// The window they hold the soil of, as of a mark: the last commit's (None after
    /// an update that did not commit).
    pub(super) valid: Option<(Rect, Mark)>,
    /// Work buffers of [`super::grid::SoilGrid::load_over`].
    pub(super) spare: [Vec<f64>; 3],
    /// Loads that took the overlap from these buffers (for tests).
    pub(crate) reused: u64,
}

impl UpdateBuffers {
    /// Swaps these buffers with the evaluation's (`h`, `zp`, `j`, `mask` of the
    /// workspace): an update runs in them, or it ended.
    pub(super) fn swap_with(
        &mut self,
        h: &mut Vec<f64>,
        zp: &mut Vec<f64>,
        j: &mut Vec<f64>,
        mask: &mut Vec<bool>,
    ) {
        std::mem::swap(h, &mut self.h);
        std::mem::swap(zp, &mut self.zp);
        std::mem::swap(j, &mut self.j);
        std::mem::swap(mask, &mut self.mask);
        self.swapped = !self.swapped;
    }
}

/// The radial (sinkage) field of one soil update (Fig. 12 right, Fig. 13): its
/// sources lumped per node block and the border nodes it feeds. Spread on a helper
/// thread while the caller walks the parallel field: its own cache lines.
#[derive(Default)]
#[repr(align(128))]
pub struct RadialField {
    /// The border nodes fed (window indices) and their window coordinates (i, j).
    pub(super) nodes: Vec<u32>,
    pub(super) i: Vec<f32>,
    pub(super) j: Vec<f32>,
    /// Sources per [`super::deform::CLUSTER`] x [`super::deform::CLUSTER`] block of window nodes: volume (m, per
    /// node area), volume x i, volume x j.
    pub(super) cluster: Vec<Vector3<f64>>,
    /// Weights of one source over the fed nodes.
    pub(super) weights: Vec<f32>,
    /// Soil each fed node receives, m (the order of `nodes`).
    pub(super) receive: Vec<f64>,
}

impl RadialField {
    /// Every fed node receives a portion of each source's soil falling off as
    /// 1/distance (the intensity of a plane radial source), normalized per source,
    /// into `receive`. O(blocks x fed nodes) instead of O(footprint nodes x fed nodes).
    pub(super) fn spread(&mut self) {
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
    pub(super) len: [Vec<u32>; 4],
    pub(super) built: [bool; 4],
    /// Columns `i0..i1` and rows `j0..j1` holding every footprint node (the rest of the
    /// window has runs of 0); the whole window unless [`Runs::reset_to`] says less.
    pub(super) cols: (usize, usize),
    pub(super) rows: (usize, usize),
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
    pub(super) fn at(&mut self, mask: &[bool], nx: usize, ny: usize, d: usize, q: usize) -> u32 {
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

/// What a soil update's erosion left at rest: every pair of neighbouring nodes of
/// the window `rect` (grid nodes) with neither node among the footprint nodes `foot`
/// stood within the repose rise `limit` (m over one spacing), in the soil as of
/// `mark` (the update's commit). The next update's erosion starts from the nodes this
/// does not vouch for (see [`super::erosion`]).
#[derive(Debug, Clone, Default)]
pub struct AtRest {
    pub(super) rect: Rect,
    pub(super) foot: Vec<(i32, i32)>,
    /// Nodes (grid column, row) whose pairs the body's underside held steeper than
    /// the repose slope (see [`level_pair`]): not at rest.
    pub(super) held: Vec<(i32, i32)>,
    pub(super) limit: f64,
    /// None: nothing is vouched for.
    pub(super) mark: Option<Mark>,
}

impl AtRest {
    /// Calls `f(i, j)` for each node of the recorded footprint, and each node held
    /// steep, inside the window `r`, in window coordinates.
    pub(super) fn footprint_in(&self, r: &Rect, mut f: impl FnMut(usize, usize)) {
        for &(gi, gj) in self.foot.iter().chain(&self.held) {
            let (i, j) = (gi - r.i0, gj - r.j0);
            if i >= 0 && j >= 0 && i < r.nx && j < r.ny {
                f(i as usize, j as usize);
            }
        }
    }
}
