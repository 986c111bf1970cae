//! What a body's soil update keeps in its workspace from step to step: the window
//! buffers it works in apart from the evaluation's, the radial field and the
//! footprint runs it reuses, and what its erosion left at rest. Data only: the
//! flows ([`super::deform`]) and the erosion ([`super::erosion`]) work on them, the
//! contact ([`super::contact::Workspace`]) holds them.

use super::grid::Mark;
use super::rect::Rect;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Mutex, OnceLock, PoisonError};

/// A soil update's window buffers: heights, plastic sinkage, shear displacement and
/// footprint mask, kept apart from the evaluation's (see [`super::deform::load`],
/// [`UpdateBuffers::swap_with`]).
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
/// sources lumped per node block, the border nodes it feeds and what each receives.
/// The sources are written by the update's shear pass and spread on a helper thread
/// block row by block row as the pass finishes them (see [`RadialHandoff`]): its own
/// cache lines.
#[derive(Default)]
#[repr(align(128))]
pub struct RadialField {
    pub(super) src: RadialSources,
    pub(super) out: RadialSpread,
}

/// The shear pass's side of a [`RadialField`].
#[derive(Default)]
pub struct RadialSources {
    /// The border nodes fed (window indices) and their window coordinates (i, j).
    pub(super) nodes: Vec<u32>,
    pub(super) i: Vec<f32>,
    pub(super) j: Vec<f32>,
    /// Sources per [`super::deform::CLUSTER`] x [`super::deform::CLUSTER`] block of
    /// window nodes, row-major: volume (m, per node area), volume x i, volume x j, as
    /// f64 bits (the pass adds to a block's sums while the spread reads the blocks
    /// finished before it; one writer, no read-modify-write between threads).
    pub(super) cluster: Vec<[AtomicU64; 3]>,
}

impl RadialSources {
    /// `blocks` blocks, each at zero.
    pub(super) fn clear_blocks(&mut self, blocks: usize) {
        self.cluster.clear();
        self.cluster.resize_with(blocks, Default::default);
    }

    /// Adds `v` to block `c`'s sums (the only writer).
    pub(super) fn add(&self, c: usize, v: [f64; 3]) {
        for (a, x) in self.cluster[c].iter().zip(v) {
            a.store((f64::from_bits(a.load(Relaxed)) + x).to_bits(), Relaxed);
        }
    }

    fn block(&self, c: usize) -> [f64; 3] {
        self.cluster[c]
            .each_ref()
            .map(|a| f64::from_bits(a.load(Relaxed)))
    }
}

/// The spread's side of a [`RadialField`].
#[derive(Default)]
pub struct RadialSpread {
    /// Weights of one source over the fed nodes.
    weights: Vec<f32>,
    /// Soil each fed node receives, m (the order of the sources' `nodes`).
    pub(super) receive: Vec<f64>,
    /// The fed nodes' least and largest window column, then row (see
    /// [`RadialSpread::total_exact`]).
    span: [f32; 4],
}

impl RadialSpread {
    /// Every fed node of `src` receives a portion of each source's soil falling off
    /// as 1/distance (the intensity of a plane radial source), normalized per source,
    /// into `receive`. O(blocks x fed nodes) instead of O(footprint nodes x fed nodes).
    pub(super) fn spread(&mut self, src: &RadialSources) {
        spread(self, src)
    }

    /// [`RadialSpread::spread`] of the sources handed over by `h`, each block as soon
    /// as the shear pass has finished it (the same sums in the same order); nothing
    /// if the pass hands over none.
    pub(super) fn follow(&mut self, h: &RadialHandoff) {
        follow(self, h)
    }

    fn start(&mut self, src: &RadialSources) {
        self.receive.clear();
        self.receive.resize(src.nodes.len(), 0.0);
        self.weights.resize(src.nodes.len(), 0.0);
        let range = |v: &[f32]| {
            v.iter()
                .fold([f32::INFINITY, f32::NEG_INFINITY], |[a, b], &x| {
                    [a.min(x), b.max(x)]
                })
        };
        let ([i0, i1], [j0, j1]) = (range(&src.i), range(&src.j));
        self.span = [i0, i1, j0, j1];
    }

    /// Whether the weights of a block centred at (`i`, `j`) (window coordinates) add
    /// up exactly in f64, in any order. Each weight w = 1 / r (r in nodes, at least
    /// 1/2) is an f32 in [w_min, 2], w_min about 1 / r_max (r_max: the farthest fed
    /// node, bounded by the fed nodes' span): a whole multiple of 2^(e - 23), e =
    /// floor(log2 w_min) > log2 w_min - 1. Every partial sum of n weights is then a
    /// whole multiple of that unit no larger than 2n, and f64 holds each exactly while
    /// 2n <= 2^53 2^(e - 23), which n r_max <= 2^27 ensures with a wide margin (for
    /// f32's rounding of r and w): every addition is exact, and any order gives the
    /// bits of the sum node by node. A wheel's update window at 5 mm: n about 300,
    /// r_max about 100 nodes.
    #[inline(always)]
    fn total_exact(&self, i: f32, j: f32) -> bool {
        let [i0, i1, j0, j1] = self.span.map(f64::from);
        let (i, j) = (f64::from(i), f64::from(j));
        let (di, dj) = ((i1 - i).max(i - i0), (j1 - j).max(j - j0));
        let (n, r2) = (self.weights.len() as f64, (di * di + dj * dj).max(0.25));
        // (no fed node: the span is empty, n r2 NaN, false)
        n * n * r2 <= EXACT_SUM_BOUND
    }

    /// Block `c`'s source onto the fed nodes. (Inlined into [`RadialSpread::spread`]
    /// and [`RadialSpread::follow`], whose copies for AVX2 it takes 20 % less time in.)
    #[inline(always)]
    fn block(&mut self, src: &RadialSources, c: usize) {
        let [m, mi, mj] = src.block(c);
        if m <= 0.0 {
            return;
        }
        let (i, j) = ((mi / m) as f32, (mj / m) as f32);
        // plain slices of f32, so that the loop vectorizes (four lanes of sqrt and
        // div); the weights only share out m, whose sum stays exact to f64 rounding
        for ((w, &bi), &bj) in self.weights.iter_mut().zip(&src.i).zip(&src.j) {
            // a block centre can come within half a node of a border node; the floor
            // keeps the weight finite
            let r2 = ((bi - i) * (bi - i) + (bj - j) * (bj - j)).max(0.25);
            *w = 1.0 / r2.sqrt();
        }
        // the weights' sum: in eight lanes where every order gives the same bits (the
        // chain of additions node by node took 40 % of the spread's time)
        let total: f64 = if self.total_exact(i, j) {
            lanes_sum(&self.weights)
        } else {
            self.weights.iter().map(|&w| w as f64).sum()
        };
        let scale = m / total;
        for (&w, r) in self.weights.iter().zip(self.receive.iter_mut()) {
            *r += w as f64 * scale;
        }
    }
}

/// (fed nodes x farthest fed node)^2 up to which [`RadialSpread::total_exact`] holds:
/// (2^27)^2.
const EXACT_SUM_BOUND: f64 = (1u64 << 54) as f64;

/// The sum of `w` in f64, eight lanes side by side (for sums that are exact in any
/// order: [`RadialSpread::total_exact`]).
#[inline(always)]
fn lanes_sum(w: &[f32]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let groups = w.chunks_exact(8);
    let rest = groups.remainder();
    for g in groups {
        for (s, &x) in lanes.iter_mut().zip(g) {
            *s += x as f64;
        }
    }
    for (s, &x) in lanes.iter_mut().zip(rest) {
        *s += x as f64;
    }
    lanes.iter().sum()
}

crate::wide::copies! {
    /// [`RadialSpread::spread`] through its copy for AVX2 where the processor has it
    /// (the block loop inlined: 20 % less time there than at the baseline).
    fn spread / spread_v3 => spread_any(out: &mut RadialSpread, src: &RadialSources) {
        out.start(src);
        for c in 0..src.cluster.len() {
            out.block(src, c);
        }
    }
}

crate::wide::copies! {
    /// [`RadialSpread::follow`] through its copy for AVX2 where the processor has it.
    fn follow / follow_v3 => follow_any(out: &mut RadialSpread, h: &RadialHandoff) {
        let src = loop {
            if let Some(src) = h.sources.get() {
                break src;
            }
            if h.gave_up.load(Acquire) {
                return;
            }
            std::hint::spin_loop();
        };
        out.start(src);
        let (mut c, blocks) = (0, src.cluster.len());
        while c < blocks {
            let done = h.done.load(Acquire);
            if c < done {
                for b in c..done {
                    out.block(src, b);
                }
                c = done;
            } else if h.gave_up.load(Acquire) {
                return;
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// How the shear pass hands its radial sources to a spread on another thread: the
/// sources once their fed nodes are known (their blocks at zero), then how many
/// blocks, in block order, it has finished. The footprint nodes come row by row, so
/// a block row is finished once the pass reaches a node below it.
#[derive(Default)]
pub struct RadialHandoff {
    pub(super) sources: OnceLock<RadialSources>,
    pub(super) done: AtomicUsize,
    /// The pass ended without handing over sources, or with fewer blocks finished
    /// than it has (it panicked): the spread stops waiting.
    pub(super) gave_up: AtomicBool,
}

/// Who spreads a soil update's radial field: the helper following the shear pass
/// ([`SpreadSlot::follow`]) or, when the helper has not started by the time the
/// update's thread needs the spread, that thread ([`SpreadSlot::spread`]). Whoever
/// claims it first; the same bits either way.
pub struct SpreadSlot {
    claimed: AtomicBool,
    /// The helper's spread is in `out` (None there: it panicked).
    ready: AtomicBool,
    out: Mutex<Option<RadialSpread>>,
}

impl SpreadSlot {
    /// A slot holding the spread's buffers `out`.
    pub(super) fn new(out: RadialSpread) -> Self {
        SpreadSlot {
            claimed: AtomicBool::new(false),
            ready: AtomicBool::new(false),
            out: Mutex::new(Some(out)),
        }
    }

    fn take(&self) -> Option<RadialSpread> {
        self.out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// On the helper: [`RadialSpread::follow`] of `h`, unless the update's thread
    /// took the spread.
    pub(super) fn follow(&self, h: &RadialHandoff) {
        if self.claimed.swap(true, AcqRel) {
            return;
        }
        // ready also when the spread panics, so that the update's thread stops waiting
        struct Ready<'a>(&'a AtomicBool);
        impl Drop for Ready<'_> {
            fn drop(&mut self) {
                self.0.store(true, Release);
            }
        }
        let _ready = Ready(&self.ready);
        let mut out = self.take().unwrap_or_default();
        out.follow(h);
        *self.out.lock().unwrap_or_else(PoisonError::into_inner) = Some(out);
    }

    /// On the update's thread, once the shear pass handed over every block of `src`:
    /// the spread, the helper's (waiting for it) or made here if the helper has not
    /// claimed it. None if the helper's spread panicked.
    pub(super) fn spread(&self, src: &RadialSources) -> Option<RadialSpread> {
        if !self.claimed.swap(true, AcqRel) {
            let mut out = self.take().unwrap_or_default();
            out.spread(src);
            return Some(out);
        }
        while !self.ready.load(Acquire) {
            std::hint::spin_loop();
        }
        self.take()
    }

    /// The spread's buffers, if nobody took them.
    pub(super) fn into_inner(self) -> Option<RadialSpread> {
        self.out
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
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
/// the window `rect` (grid nodes) with neither node in the footprint `foot_mask`
/// stood within the repose rise `limit` (m over one spacing), in the soil as of
/// `mark` (the update's commit). The next update's erosion starts from the nodes this
/// does not vouch for (see [`super::erosion`]).
#[derive(Debug, Clone, Default)]
pub struct AtRest {
    pub(super) rect: Rect,
    /// The footprint's box (grid nodes; empty without a footprint) and its mask there,
    /// row-major.
    pub(super) foot: Rect,
    pub(super) foot_mask: Vec<bool>,
    /// Nodes (grid column, row) whose pairs the body's underside held steeper than
    /// the repose slope (see [`level_pair`]): not at rest.
    pub(super) held: Vec<(i32, i32)>,
    pub(super) limit: f64,
    /// None: nothing is vouched for.
    pub(super) mark: Option<Mark>,
}

impl AtRest {
    /// Records the footprint `mask` of the window `r` (grid nodes), whose nodes lie in
    /// its columns `cols` and rows `rows` (window coordinates, half-open).
    pub(super) fn record_footprint(
        &mut self,
        r: &Rect,
        mask: &[bool],
        cols: (usize, usize),
        rows: (usize, usize),
    ) {
        self.foot_mask.clear();
        if cols.0 >= cols.1 || rows.0 >= rows.1 {
            self.foot = Rect::default();
            return;
        }
        let nx = r.nx as usize;
        self.foot = Rect {
            i0: r.i0 + cols.0 as i32,
            j0: r.j0 + rows.0 as i32,
            nx: (cols.1 - cols.0) as i32,
            ny: (rows.1 - rows.0) as i32,
        };
        for j in rows.0..rows.1 {
            self.foot_mask
                .extend_from_slice(&mask[j * nx + cols.0..j * nx + cols.1]);
        }
    }

    /// The nodes of the recorded footprint, and the nodes held steep, inside the
    /// window `r` (grid nodes) and outside its footprint `mask`, as window indices into
    /// `out` (the footprint's row by row, then the held ones). Eight nodes of a row at
    /// a time: most footprint nodes are in the new footprint too.
    pub(super) fn left_in(&self, r: &Rect, mask: &[bool], out: &mut Vec<u32>) {
        out.clear();
        let both = self.foot.intersect(r);
        if !both.is_empty() {
            let (nx, fnx) = (r.nx as usize, self.foot.nx as usize);
            let n = both.nx as usize;
            for gj in both.j0..both.j0 + both.ny {
                let at = (gj - r.j0) as usize * nx + (both.i0 - r.i0) as usize;
                let from = (gj - self.foot.j0) as usize * fnx + (both.i0 - self.foot.i0) as usize;
                let (old, new) = (&self.foot_mask[from..from + n], &mask[at..at + n]);
                for (t, (o, m)) in old.chunks(8).zip(new.chunks(8)).enumerate() {
                    // per byte: 1 where the node was in the footprint and is not now
                    let mut left = word8(o) & !word8(m);
                    while left != 0 {
                        out.push((at + 8 * t + left.trailing_zeros() as usize / 8) as u32);
                        left &= left - 1;
                    }
                }
            }
        }
        for &(gi, gj) in &self.held {
            let (i, j) = (gi - r.i0, gj - r.j0);
            if i >= 0 && j >= 0 && i < r.nx && j < r.ny {
                let k = j as usize * r.nx as usize + i as usize;
                if !mask[k] {
                    out.push(k as u32);
                }
            }
        }
    }
}

/// Up to eight bools as the bytes of a word (the first in the lowest byte, 1 for
/// true; the bytes past them 0).
#[inline(always)]
pub(super) fn word8(b: &[bool]) -> u64 {
    match <&[bool; 8]>::try_from(b) {
        Ok(b) => u64::from_le_bytes(b.map(u8::from)),
        Err(_) => b.iter().rev().fold(0, |w, &x| w << 8 | x as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random sources over `blocks` blocks and `fed` fed nodes, some blocks empty.
    fn sources(rng: &mut impl Rng, blocks: usize, fed: usize) -> (RadialSources, Vec<[f64; 3]>) {
        let mut src = RadialSources::default();
        for _ in 0..fed {
            src.nodes.push(rng.gen_range(0..5000));
            src.i.push(rng.gen_range(0..60) as f32);
            src.j.push(rng.gen_range(0..40) as f32);
        }
        src.clear_blocks(blocks);
        let adds = (0..blocks)
            .map(|_| {
                let m = if rng.gen_bool(0.2) {
                    0.0
                } else {
                    rng.gen_range(1e-6..1e-3)
                };
                [
                    m,
                    m * rng.gen_range(0.0..60.0),
                    m * rng.gen_range(0.0..40.0),
                ]
            })
            .collect();
        (src, adds)
    }

    /// `src`'s fed nodes with its blocks at zero: what the pass hands over first.
    fn emptied(src: &RadialSources) -> RadialSources {
        let mut fresh = RadialSources {
            nodes: src.nodes.clone(),
            i: src.i.clone(),
            j: src.j.clone(),
            ..Default::default()
        };
        fresh.clear_blocks(src.cluster.len());
        fresh
    }

    /// The copies compiled for AVX2 ([`crate::wide`]) give the bits of the baseline
    /// ones, spreading after the pass and following it (every block handed over):
    /// random fed nodes, empty blocks, fed nodes on a block's centre (the distance's
    /// floor). Where the processor has no AVX2 nothing is compared.
    #[test]
    fn the_avx2_copies_spread_the_bits_of_the_baseline() {
        #[cfg(target_arch = "x86_64")]
        if crate::wide::v3() {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(72);
            let bits = |r: &RadialSpread| r.receive.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for round in 0..60 {
                let (blocks, fed) = (rng.gen_range(1..150), rng.gen_range(1..200));
                let (mut src, adds) = sources(&mut rng, blocks, fed);
                if round % 5 == 0 {
                    // a fed node on the first block's centre
                    let [m, mi, mj] = adds[0];
                    if m > 0.0 {
                        (src.i[0], src.j[0]) = ((mi / m) as f32, (mj / m) as f32);
                    }
                }
                (0..blocks).for_each(|c| src.add(c, adds[c]));
                let (mut any, mut v3) = (RadialSpread::default(), RadialSpread::default());
                spread_any(&mut any, &src);
                // SAFETY: the processor has the features (checked above)
                unsafe { spread_v3(&mut v3, &src) };
                assert_eq!(bits(&v3), bits(&any), "round {round}: spread");
                assert!(any.receive.iter().any(|&r| r > 0.0), "round {round}");
                let handoff = RadialHandoff::default();
                let _ = handoff.sources.set(src);
                handoff.done.store(blocks, Release);
                let (mut any, mut v3) = (RadialSpread::default(), RadialSpread::default());
                follow_any(&mut any, &handoff);
                // SAFETY: as above
                unsafe { follow_v3(&mut v3, &handoff) };
                assert_eq!(bits(&v3), bits(&any), "round {round}: follow");
            }
        }
    }

    /// Each block's weights summed in eight lanes where that is exact (fed nodes
    /// spread over up to 60 000 nodes, up to 3 000 of them: both sides of the bound)
    /// give the bits of the weights summed node by node, block by block.
    #[test]
    fn the_weights_summed_in_lanes_give_the_bits_of_the_sum_node_by_node() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(54);
        let (mut lanes_taken, mut in_order) = (0, 0);
        for round in 0..24 {
            let fed = [1, 7, 300, 3000][round % 4];
            let reach = [60.0, 2000.0, 60_000.0][round % 3];
            let mut src = RadialSources::default();
            for _ in 0..fed {
                src.nodes.push(rng.gen_range(0..5000));
                src.i.push(rng.gen_range(0.0..reach as f32).floor());
                src.j.push(rng.gen_range(0.0..reach as f32).floor());
            }
            let blocks = rng.gen_range(1..40);
            src.clear_blocks(blocks);
            for c in 0..blocks {
                let m = rng.gen_range(1e-6..1e-3);
                src.add(
                    c,
                    [
                        m,
                        m * rng.gen_range(0.0..reach),
                        m * rng.gen_range(0.0..reach),
                    ],
                );
            }
            let mut got = RadialSpread::default();
            got.spread(&src);
            // node by node, as before the lanes
            let mut want = vec![0.0f64; fed];
            for c in 0..blocks {
                let [m, mi, mj] = src.block(c);
                let (i, j) = ((mi / m) as f32, (mj / m) as f32);
                let w: Vec<f32> = (0..fed)
                    .map(|k| {
                        let (di, dj) = (src.i[k] - i, src.j[k] - j);
                        1.0 / (di * di + dj * dj).max(0.25).sqrt()
                    })
                    .collect();
                let total: f64 = w.iter().map(|&w| w as f64).sum();
                for (r, &w) in want.iter_mut().zip(&w) {
                    *r += w as f64 * (m / total);
                }
                match got.total_exact(i, j) {
                    true => lanes_taken += 1,
                    false => in_order += 1,
                }
            }
            let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got.receive), bits(&want), "round {round}");
        }
        assert!(lanes_taken > 0 && in_order > 0, "{lanes_taken} {in_order}");
    }

    /// The spread that follows a pass handing its blocks over row by row on another
    /// thread gives the bits of the spread after the pass, whatever the timing; it
    /// stops when the pass gives up, before or during the hand-over.
    #[test]
    fn a_spread_that_follows_the_pass_gives_the_bits_of_one_after_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for round in 0..40 {
            let (blocks, fed) = (rng.gen_range(1..120), rng.gen_range(1..90));
            let (src, adds) = sources(&mut rng, blocks, fed);
            let mut after = RadialSpread::default();
            // the pass adds each block's sums in two parts, as nodes of a block do
            let add = |src: &RadialSources, c: usize| {
                let [m, mi, mj] = adds[c];
                src.add(c, [0.25 * m, 0.25 * mi, 0.25 * mj]);
                src.add(c, [0.75 * m, 0.75 * mi, 0.75 * mj]);
            };
            (0..blocks).for_each(|c| add(&src, c));
            after.spread(&src);
            // the same pass handing over rows of `per_row` blocks, with pauses
            let (per_row, pause) = (rng.gen_range(1..12), rng.gen_range(0..3));
            let give_up_at = (round % 4 == 3).then(|| rng.gen_range(0..=blocks));
            let fresh = emptied(&src);
            let handoff = RadialHandoff::default();
            let mut followed = RadialSpread::default();
            std::thread::scope(|s| {
                s.spawn(|| followed.follow(&handoff));
                if give_up_at == Some(0) {
                    handoff.gave_up.store(true, Release);
                    return;
                }
                let src = handoff.sources.get_or_init(|| fresh);
                for c in 0..blocks {
                    if c % per_row == 0 {
                        if give_up_at == Some(c) {
                            handoff.gave_up.store(true, Release);
                            return;
                        }
                        handoff.done.store(c, Release);
                        std::thread::sleep(std::time::Duration::from_micros(pause * 50));
                    }
                    add(src, c);
                }
                handoff.done.store(blocks, Release);
            });
            if give_up_at.is_none() || give_up_at == Some(blocks) {
                let bits =
                    |r: &RadialSpread| r.receive.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&followed), bits(&after), "round {round}");
                assert!(after.receive.iter().any(|&r| r > 0.0));
            }
        }
    }

    /// Whichever thread claims the spread, the helper following the pass or the
    /// update's thread once the pass is done (the helper late or not there), it gives
    /// the bits of the spread after the pass. Each way forced in turn (the helper
    /// claims before the pass starts; the update's thread claims before the helper
    /// starts), and a free race.
    #[test]
    fn the_spread_gives_the_same_bits_whichever_thread_claims_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for round in 0..42 {
            let (blocks, fed) = (rng.gen_range(1..80), rng.gen_range(1..60));
            let (src, adds) = sources(&mut rng, blocks, fed);
            (0..blocks).for_each(|c| src.add(c, adds[c]));
            let mut after = RadialSpread::default();
            after.spread(&src);
            let fresh = emptied(&src);
            let handoff = RadialHandoff::default();
            // last round's buffers, of another size
            let slot = SpreadSlot::new(RadialSpread {
                weights: vec![1.0; 7],
                receive: vec![3.0; 5],
                span: [0.0; 4],
            });
            let (helper_first, here_first) = (round % 3 == 0, round % 3 == 1);
            let us = std::time::Duration::from_micros;
            let (helper_late, pass_late) = (us(rng.gen_range(0..300)), us(rng.gen_range(0..300)));
            let wait_claimed = || {
                while !slot.claimed.load(Acquire) {
                    std::hint::spin_loop();
                }
            };
            let got = std::thread::scope(|s| {
                s.spawn(|| {
                    if here_first {
                        wait_claimed();
                    } else if !helper_first {
                        std::thread::sleep(helper_late);
                    }
                    slot.follow(&handoff);
                });
                if helper_first {
                    wait_claimed();
                } else if !here_first {
                    std::thread::sleep(pass_late);
                }
                let src = handoff.sources.get_or_init(|| fresh);
                for c in 0..blocks {
                    src.add(c, adds[c]);
                    handoff.done.store(c + 1, Release);
                }
                slot.spread(src).expect("no panic")
            });
            let bits = |r: &RadialSpread| r.receive.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&after), "round {round}");
            assert!(
                slot.into_inner().is_none(),
                "round {round}: the buffers were taken"
            );
        }
    }

    /// The nodes a recorded footprint left, eight at a time, are those of a node by
    /// node test (each recorded node, and each held one, inside the new window and
    /// outside its mask): random footprints of random widths (tails of 1-7 nodes), the
    /// windows shifted either way, partly or not at all overlapping.
    #[test]
    fn the_nodes_a_footprint_left_are_found_eight_at_a_time() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for round in 0..3000 {
            let r0 = Rect {
                i0: rng.gen_range(-5..5),
                j0: rng.gen_range(-5..5),
                nx: rng.gen_range(1..40),
                ny: rng.gen_range(1..12),
            };
            let (nx, ny) = (r0.nx as usize, r0.ny as usize);
            let old: Vec<bool> = (0..r0.len()).map(|_| rng.gen_bool(0.7)).collect();
            let c0 = rng.gen_range(0..nx);
            let cols = (c0, rng.gen_range(c0..=nx));
            let j0 = rng.gen_range(0..ny);
            let rows = (j0, rng.gen_range(j0..=ny));
            // the footprint: the mask's nodes in those columns and rows only
            let mut mask = vec![false; old.len()];
            for j in rows.0..rows.1 {
                for i in cols.0..cols.1 {
                    mask[j * nx + i] = old[j * nx + i];
                }
            }
            let mut rest = AtRest::default();
            rest.record_footprint(&r0, &mask, cols, rows);
            for _ in 0..rng.gen_range(0..4) {
                let (i, j) = (rng.gen_range(-8..45), rng.gen_range(-8..16));
                rest.held.push((i, j));
            }
            let r = Rect {
                i0: r0.i0 + rng.gen_range(-12..12),
                j0: r0.j0 + rng.gen_range(-4..4),
                nx: rng.gen_range(1..40),
                ny: rng.gen_range(1..12),
            };
            let now: Vec<bool> = (0..r.len()).map(|_| rng.gen_bool(0.5)).collect();
            let mut fast = vec![];
            rest.left_in(&r, &now, &mut fast);
            // node by node
            let mut slow = vec![];
            let recorded = (0..mask.len())
                .filter(|&k| mask[k])
                .map(|k| (r0.i0 + (k % nx) as i32, r0.j0 + (k / nx) as i32));
            for (gi, gj) in recorded.chain(rest.held.iter().copied()) {
                let (i, j) = (gi - r.i0, gj - r.j0);
                if i >= 0 && j >= 0 && i < r.nx && j < r.ny {
                    let k = (j * r.nx + i) as usize;
                    if !now[k] {
                        slow.push(k as u32);
                    }
                }
            }
            assert_eq!(fast, slow, "round {round}");
        }
    }
}
