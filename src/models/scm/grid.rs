//! The SCM soil: a regular height grid (DEM, dx = dy = ds; Krenn 2009, section 3.1)
//! over a base surface, stored sparsely. Only nodes that differ from the base surface
//! are kept, in square tiles found through a hash map: memory and time grow with the
//! area the bodies touched, not with the field (a 1 km x 1 km field at 1 cm costs
//! nothing until driven on).
//!
//! Node (i, j) sits at world (x, y) = (i ds, j ds); its state is the surface height
//! `h` (m, world z) and the plastic sinkage `zp` it has taken (m): the level before
//! loading is `h + zp` (see [`super::pressure`]).

use crate::pmath;
use crate::geometry::terrain::Surface;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::rect::Rect;
use super::soil_map::SoilMap;

/// Nodes per tile edge.
pub const TILE: i32 = 32;
const TILE_NODES: usize = (TILE * TILE) as usize;

/// A deterministic hasher for the tile keys (small integer pairs): the multiply-rotate
/// mix of rustc's FxHash. Same run, same map on every machine; several times cheaper
/// than SipHash on the lookups of every load and store.
#[derive(Default, Clone, Copy)]
struct TileHasher(u64);

impl std::hash::Hasher for TileHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_i32(&mut self, i: i32) {
        self.write_u64(i as u32 as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Index = HashMap<(i32, i32), u32, BuildHasherDefault<TileHasher>>;

/// One tile of TILE x TILE nodes, row-major (j outer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tile {
    /// Tile coordinates: nodes `key.0 * TILE ..` along x, `key.1 * TILE ..` along y.
    pub key: (i32, i32),
    /// Surface height of each node, m (world z).
    pub h: Vec<f64>,
    /// Plastic sinkage of each node below its level before loading, m.
    pub zp: Vec<f64>,
    /// Shear displacement j of each node under the body it touches, m (Janosi and
    /// Hanamoto); 0 where nothing touches.
    pub j: Vec<f64>,
    /// Highest `h` in the tile, m.
    pub h_max: f64,
    /// Sum of `h` over the tile's nodes, m.
    pub sum_h: f64,
    /// Sum of the base surface heights under the tile's nodes, m.
    pub sum_base: f64,
}

/// The sparse soil height grid.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SoilGrid {
    /// Grid spacing ds, m.
    pub ds: f64,
    /// The field: nodes outside it carry no soil (nothing touches there).
    pub extent: Rect,
    tiles: Vec<Tile>,
    #[serde(skip)]
    index: Index,
    /// Tiles written by the current `store` (scratch, kept to avoid allocation).
    #[serde(skip)]
    dirty: Vec<u32>,
    /// Soil classes per node (configuration, not state: attached by the owner after
    /// building or restoring the grid).
    #[serde(skip)]
    map: Option<Arc<SoilMap>>,
    /// Identifies this grid's history: new for every grid built and every restore
    /// (see [`SoilGrid::unchanged_since`]).
    #[serde(skip)]
    generation: u64,
    /// Stores so far in this generation.
    #[serde(skip)]
    writes: u64,
    /// Of each tile, the store that last wrote it (`writes` then; 0: none in this
    /// generation).
    #[serde(skip)]
    stamps: Vec<u64>,
}

/// A generation no other grid in the process has.
fn fresh_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A point in a grid's history: after its `writes`-th store, in its `generation`
/// (see [`SoilGrid::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    generation: u64,
    writes: u64,
}

impl PartialEq for SoilGrid {
    fn eq(&self, o: &Self) -> bool {
        self.ds == o.ds && self.extent == o.extent && self.tiles == o.tiles
    }
}

/// Highest value and sum of a tile's heights. Eight interleaved partial sums, added
/// pairwise at the end: a fixed order (the same bits on every run and thread count)
/// that the compiler can vectorize, where one running sum is a chain of 1024
/// dependent additions (this ran once per written tile and soil update, a tenth of a
/// rover step).
fn max_and_sum(h: &[f64]) -> (f64, f64) {
    let (mut top, mut sum) = ([f64::NEG_INFINITY; 8], [0.0; 8]);
    let mut chunks = h.chunks_exact(8);
    for c in &mut chunks {
        for l in 0..8 {
            // max without NaN handling (heights are finite): vectorizes
            top[l] = if c[l] > top[l] { c[l] } else { top[l] };
            sum[l] += c[l];
        }
    }
    for (l, &z) in chunks.remainder().iter().enumerate() {
        top[l] = if z > top[l] { z } else { top[l] };
        sum[l] += z;
    }
    let top = top.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s4 = [
        sum[0] + sum[4],
        sum[1] + sum[5],
        sum[2] + sum[6],
        sum[3] + sum[7],
    ];
    (top, (s4[0] + s4[2]) + (s4[1] + s4[3]))
}

/// Base surface height at (x, y), m.
pub fn base_height(base: &Surface, x: f64, y: f64) -> f64 {
    base.height_at(x, y)
}

/// Appends the base surface heights (m) of the `run` nodes from node column `i` of
/// the row at `y` (m), node spacing `ds` (m): [`base_height`] at each, with a plane's
/// slope taken once per row.
fn extend_base_row(base: &Surface, h: &mut Vec<f64>, i: i32, run: usize, ds: f64, y: f64) {
    match base {
        Surface::Plane { height, angle } => {
            let slope = pmath::tan(*angle);
            h.extend((0..run).map(|k| height + (i + k as i32) as f64 * ds * slope));
        }
        _ => h.extend((0..run).map(|k| base_height(base, (i + k as i32) as f64 * ds, y))),
    }
}

/// The first and last tile keys of the tiles `rect` touches (`rect` not empty).
fn tile_keys(rect: &Rect) -> ((i32, i32), (i32, i32)) {
    let (i1, j1) = (rect.i0 + rect.nx - 1, rect.j0 + rect.ny - 1);
    (
        (rect.i0.div_euclid(TILE), rect.j0.div_euclid(TILE)),
        (i1.div_euclid(TILE), j1.div_euclid(TILE)),
    )
}

/// Calls `f(i, j, tile key, index in the tile, index in the rect's buffer, length)`
/// for each run of nodes of one row of `rect` that lie in one tile, row by row.
fn for_each_run(rect: &Rect, mut f: impl FnMut(i32, i32, (i32, i32), usize, usize, usize)) {
    let nx = rect.nx as usize;
    for jj in 0..rect.ny {
        let j = rect.j0 + jj;
        let mut ii = 0;
        while ii < rect.nx {
            let i = rect.i0 + ii;
            let (key, local) = SoilGrid::tile_of(i, j);
            let run = (TILE - i.rem_euclid(TILE)).min(rect.nx - ii) as usize;
            f(i, j, key, local, jj as usize * nx + ii as usize, run);
            ii += run as i32;
        }
    }
}

/// The tile lookups of one band of [`TILE`] rows, each made once: a window's rows
/// in one band meet the same tiles, run after run (a wheel's soil update at 1 cm
/// looked up about 50 runs' tiles in its store, for 4 tiles).
struct BandTiles {
    /// The band's tile row, and the first tile column (the window's).
    row: i32,
    col0: i32,
    /// Per tile column from `col0`: the tile's index, [`BandTiles::ABSENT`] or
    /// [`BandTiles::UNKNOWN`] (not looked up yet in this band).
    slots: [u32; BandTiles::SLOTS],
}

impl BandTiles {
    /// Tile columns kept per band; the ones past them are looked up every time.
    const SLOTS: usize = 16;
    const UNKNOWN: u32 = u32::MAX;
    const ABSENT: u32 = u32::MAX - 1;

    /// For the runs of `rect`.
    fn new(rect: &Rect) -> Self {
        BandTiles {
            row: i32::MIN,
            col0: rect.i0.div_euclid(TILE),
            slots: [Self::UNKNOWN; Self::SLOTS],
        }
    }

    /// The tile of `key` as `lookup` finds it (None: not stored), which runs once per
    /// tile of the band (always, past [`BandTiles::SLOTS`] tile columns).
    #[inline]
    fn get(&mut self, key: (i32, i32), lookup: impl FnOnce() -> Option<u32>) -> Option<u32> {
        if key.1 != self.row {
            self.row = key.1;
            self.slots = [Self::UNKNOWN; Self::SLOTS];
        }
        let Some(slot) = self.slots.get_mut((key.0 - self.col0) as usize) else {
            return lookup();
        };
        match *slot {
            Self::UNKNOWN => {
                let t = lookup();
                *slot = t.unwrap_or(Self::ABSENT);
                t
            }
            Self::ABSENT => None,
            t => Some(t),
        }
    }
}

impl SoilGrid {
    /// An untouched field of spacing `ds` (m) covering `[x0, x1] x [y0, y1]` (m).
    pub fn new(ds: f64, x0: f64, x1: f64, y0: f64, y1: f64) -> SoilGrid {
        let i0 = (x0 / ds).ceil() as i32;
        let j0 = (y0 / ds).ceil() as i32;
        let i1 = (x1 / ds).floor() as i32;
        let j1 = (y1 / ds).floor() as i32;
        SoilGrid {
            ds,
            extent: Rect {
                i0,
                j0,
                nx: (i1 - i0 + 1).max(0),
                ny: (j1 - j0 + 1).max(0),
            },
            tiles: vec![],
            index: Index::default(),
            dirty: vec![],
            map: None,
            generation: fresh_generation(),
            writes: 0,
            stamps: vec![],
        }
    }

    /// Where the grid's history is now: compare with [`SoilGrid::unchanged_since`].
    pub fn mark(&self) -> Mark {
        Mark {
            generation: self.generation,
            writes: self.writes,
        }
    }

    /// Whether no node of `rect` has been written since `mark` (and the grid was
    /// neither rebuilt nor restored): a test per tile, so a store to another part of
    /// a tile that `rect` touches counts as a write.
    pub fn unchanged_since(&self, mark: Mark, rect: &Rect) -> bool {
        if mark.generation != self.generation {
            return false;
        }
        if rect.is_empty() {
            return true;
        }
        let (a, b) = tile_keys(rect);
        if self.tiles.len() < (b.0 - a.0 + 1) as usize * (b.1 - a.1 + 1) as usize {
            return self.tiles.iter().enumerate().all(|(t, tile)| {
                let k = tile.key;
                k.0 < a.0 || k.0 > b.0 || k.1 < a.1 || k.1 > b.1 || self.stamps[t] <= mark.writes
            });
        }
        (a.1..=b.1).all(|tj| {
            (a.0..=b.0).all(|ti| {
                self.index
                    .get(&(ti, tj))
                    .is_none_or(|&t| self.stamps[t as usize] <= mark.writes)
            })
        })
    }

    /// Attaches the soil classes per node (None: the global soil everywhere).
    pub fn set_soil_map(&mut self, map: Option<Arc<SoilMap>>) {
        self.map = map;
    }

    /// The soil classes per node, if any.
    pub fn soil_map(&self) -> Option<&Arc<SoilMap>> {
        self.map.as_ref()
    }

    /// Rebuilds the tile index (after deserialization).
    pub fn rebuild_index(&mut self) {
        self.index.clear();
        for (k, t) in self.tiles.iter().enumerate() {
            self.index.insert(t.key, k as u32);
        }
        // a restored grid starts a new history
        self.generation = fresh_generation();
        self.writes = 0;
        self.stamps.clear();
        self.stamps.resize(self.tiles.len(), 0);
    }

    /// Number of stored (modified) tiles.
    pub fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// Bytes held by the stored tiles (approximately).
    pub fn memory_bytes(&self) -> usize {
        self.tiles.len() * (TILE_NODES * 24 + std::mem::size_of::<Tile>() + 16)
    }

    /// The stored tiles, in creation order.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    fn tile_of(i: i32, j: i32) -> ((i32, i32), usize) {
        let key = (i.div_euclid(TILE), j.div_euclid(TILE));
        let local = (j.rem_euclid(TILE) * TILE + i.rem_euclid(TILE)) as usize;
        (key, local)
    }

    /// Surface height and plastic sinkage of node (i, j).
    pub fn node(&self, base: &Surface, i: i32, j: i32) -> (f64, f64) {
        let (key, local) = Self::tile_of(i, j);
        match self.index.get(&key) {
            Some(&t) => {
                let t = &self.tiles[t as usize];
                (t.h[local], t.zp[local])
            }
            None => (
                base_height(base, i as f64 * self.ds, j as f64 * self.ds),
                0.0,
            ),
        }
    }

    /// Surface heights of the nodes (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1), m:
    /// one tile lookup when the four share a tile (as they mostly do).
    pub fn cell_heights(&self, base: &Surface, i: i32, j: i32) -> [f64; 4] {
        let (key, local) = Self::tile_of(i, j);
        if i.rem_euclid(TILE) < TILE - 1 && j.rem_euclid(TILE) < TILE - 1 {
            if let Some(&t) = self.index.get(&key) {
                let h = &self.tiles[t as usize].h;
                let up = local + TILE as usize;
                return [h[local], h[local + 1], h[up], h[up + 1]];
            }
        }
        [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)].map(|(i, j)| self.node(base, i, j).0)
    }

    /// Highest soil surface in `rect`, m (an upper bound: per tile).
    pub fn max_height(&self, base: &Surface, rect: &Rect) -> f64 {
        let mut top = f64::NEG_INFINITY;
        if rect.is_empty() {
            return top;
        }
        let (k0, _) = Self::tile_of(rect.i0, rect.j0);
        let (k1, _) = Self::tile_of(rect.i0 + rect.nx - 1, rect.j0 + rect.ny - 1);
        for tj in k0.1..=k1.1 {
            for ti in k0.0..=k1.0 {
                let h = match self.index.get(&(ti, tj)) {
                    Some(&t) => self.tiles[t as usize].h_max,
                    None => {
                        let x0 = (ti * TILE) as f64 * self.ds;
                        let x1 = ((ti + 1) * TILE - 1) as f64 * self.ds;
                        let y0 = (tj * TILE) as f64 * self.ds;
                        let y1 = ((tj + 1) * TILE - 1) as f64 * self.ds;
                        base.max_height_rect(x0, x1, y0, y1)
                    }
                };
                top = top.max(h);
            }
        }
        top
    }

    /// Copies heights, plastic sinkages and shear displacements of `rect` into dense
    /// row-major buffers (of `rect.len()`; no allocation once they are large enough).
    pub fn load(
        &self,
        base: &Surface,
        rect: &Rect,
        h: &mut Vec<f64>,
        zp: &mut Vec<f64>,
        js: &mut Vec<f64>,
    ) {
        self.load_into(Some(base), rect, Some(h), Some((zp, js)));
    }

    /// The plastic sinkage and shear displacement of the nodes of `part` (inside
    /// `rect`) into the dense row-major buffers of `rect` (resized to its length):
    /// the nodes of `rect` outside `part` keep whatever the buffers held.
    pub fn load_state_of(&self, rect: &Rect, part: &Rect, zp: &mut Vec<f64>, js: &mut Vec<f64>) {
        debug_assert!(rect.intersect(part) == *part, "the part lies in the window");
        zp.resize(rect.len(), 0.0);
        js.resize(rect.len(), 0.0);
        let nx = rect.nx as usize;
        let mut band = BandTiles::new(part);
        for_each_run(part, |i, j, key, local, _, run| {
            let at = (j - rect.j0) as usize * nx + (i - rect.i0) as usize;
            let (zp, js) = (&mut zp[at..at + run], &mut js[at..at + run]);
            match band.get(key, || self.index.get(&key).copied()) {
                Some(t) => {
                    let t = &self.tiles[t as usize];
                    zp.copy_from_slice(&t.zp[local..local + run]);
                    js.copy_from_slice(&t.j[local..local + run]);
                }
                None => {
                    zp.fill(0.0);
                    js.fill(0.0);
                }
            }
        });
    }

    /// [`SoilGrid::load`] of the heights alone.
    pub fn load_heights(&self, base: &Surface, rect: &Rect, h: &mut Vec<f64>) {
        self.load_into(Some(base), rect, Some(h), None);
    }

    /// [`SoilGrid::load`] of `rect` into `h`, `zp`, `js`, which hold the soil of the
    /// window `old` as it still is (the caller knows it: see
    /// [`SoilGrid::unchanged_since`]): the rows' overlap with `old` moves over from
    /// them, the rest is read. `spare` are work buffers (they swap with the three).
    #[allow(clippy::too_many_arguments)]
    pub fn load_over(
        &self,
        base: &Surface,
        rect: &Rect,
        old: &Rect,
        h: &mut Vec<f64>,
        zp: &mut Vec<f64>,
        js: &mut Vec<f64>,
        spare: &mut [Vec<f64>; 3],
    ) {
        debug_assert_eq!(h.len(), old.len());
        let [sh, szp, sjs] = spare;
        sh.clear();
        szp.clear();
        sjs.clear();
        let both = rect.intersect(old);
        let onx = old.nx as usize;
        for j in rect.j0..rect.j0 + rect.ny {
            let row = |i0: i32, i1: i32| Rect {
                i0,
                j0: j,
                nx: i1 - i0,
                ny: 1,
            };
            if both.is_empty() || j < both.j0 || j >= both.j0 + both.ny {
                let r = row(rect.i0, rect.i0 + rect.nx);
                self.append(Some(base), &r, Some(sh), Some((szp, sjs)));
                continue;
            }
            let r = row(rect.i0, both.i0);
            self.append(Some(base), &r, Some(sh), Some((szp, sjs)));
            let from = (j - old.j0) as usize * onx + (both.i0 - old.i0) as usize;
            let to = from + both.nx as usize;
            sh.extend_from_slice(&h[from..to]);
            szp.extend_from_slice(&zp[from..to]);
            sjs.extend_from_slice(&js[from..to]);
            let r = row(both.i0 + both.nx, rect.i0 + rect.nx);
            self.append(Some(base), &r, Some(sh), Some((szp, sjs)));
        }
        std::mem::swap(h, sh);
        std::mem::swap(zp, szp);
        std::mem::swap(js, sjs);
    }

    /// The heights (over `base`, which they need) and the plastic sinkage and shear
    /// displacement of `rect`, each where asked for.
    fn load_into(
        &self,
        base: Option<&Surface>,
        rect: &Rect,
        mut h: Option<&mut Vec<f64>>,
        mut state: Option<(&mut Vec<f64>, &mut Vec<f64>)>,
    ) {
        if let Some(h) = h.as_mut() {
            h.clear();
        }
        if let Some((zp, js)) = state.as_mut() {
            zp.clear();
            js.clear();
        }
        self.append(base, rect, h, state);
    }

    /// [`SoilGrid::load_into`] appending to the buffers (row by row).
    fn append(
        &self,
        base: Option<&Surface>,
        rect: &Rect,
        mut h: Option<&mut Vec<f64>>,
        mut state: Option<(&mut Vec<f64>, &mut Vec<f64>)>,
    ) {
        debug_assert!(
            h.is_none() || base.is_some(),
            "heights need the base surface"
        );
        if rect.is_empty() {
            return;
        }
        // runs come in buffer order (row by row, left to right): appended, not
        // written over zeros
        let mut band = BandTiles::new(rect);
        for_each_run(rect, |i, j, key, local, _, run| {
            match band.get(key, || self.index.get(&key).copied()) {
                Some(t) => {
                    let t = &self.tiles[t as usize];
                    if let Some(h) = h.as_mut() {
                        h.extend_from_slice(&t.h[local..local + run]);
                    }
                    if let Some((zp, js)) = state.as_mut() {
                        zp.extend_from_slice(&t.zp[local..local + run]);
                        js.extend_from_slice(&t.j[local..local + run]);
                    }
                }
                None => {
                    if let (Some(h), Some(base)) = (h.as_mut(), base) {
                        extend_base_row(base, h, i, run, self.ds, j as f64 * self.ds);
                    }
                    if let Some((zp, js)) = state.as_mut() {
                        zp.resize(zp.len() + run, 0.0);
                        js.resize(js.len() + run, 0.0);
                    }
                }
            }
        });
    }

    fn tile_index(&mut self, base: &Surface, key: (i32, i32)) -> usize {
        let t = match self.index.get(&key) {
            Some(&t) => t as usize,
            None => {
                let mut h = Vec::with_capacity(TILE_NODES);
                for lj in 0..TILE {
                    let j = key.1 * TILE + lj;
                    extend_base_row(
                        base,
                        &mut h,
                        key.0 * TILE,
                        TILE as usize,
                        self.ds,
                        j as f64 * self.ds,
                    );
                }
                let (h_max, sum) = max_and_sum(&h);
                self.tiles.push(Tile {
                    key,
                    h,
                    zp: vec![0.0; TILE_NODES],
                    j: vec![0.0; TILE_NODES],
                    h_max,
                    sum_h: sum,
                    sum_base: sum,
                });
                self.stamps.push(self.writes);
                self.index.insert(key, (self.tiles.len() - 1) as u32);
                self.tiles.len() - 1
            }
        };
        t
    }

    /// Writes back the nodes of `rect` whose `changed` flag is set (dense row-major
    /// buffers as [`SoilGrid::load`] fills them). Tiles are created on first change.
    ///
    /// The buffers must hold, at the nodes not flagged, what [`SoilGrid::load`] read
    /// there: each run of a row within one tile that holds a flagged node is copied
    /// whole (a copy instead of a test per node).
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        base: &Surface,
        rect: &Rect,
        h: &[f64],
        zp: &[f64],
        js: &[f64],
        changed: &[bool],
    ) {
        self.dirty.clear();
        self.writes += 1;
        let mut band = BandTiles::new(rect);
        for_each_run(rect, |_, _, key, local, at, run| {
            // (a fold, not `any`: no exit per node, so it vectorizes)
            if changed[at..at + run].iter().fold(false, |a, &c| a | c) {
                // (a tile is in one band: this runs once per tile written)
                let t = band
                    .get(key, || {
                        let t = self.tile_index(base, key);
                        if !self.dirty.contains(&(t as u32)) {
                            self.dirty.push(t as u32);
                            self.stamps[t] = self.writes;
                        }
                        Some(t as u32)
                    })
                    .expect("a tile written is stored") as usize;
                // the whole run: its unchanged nodes hold what the load read here
                // (or, in a tile new here, the base surface it was filled with)
                let tile = &mut self.tiles[t];
                tile.h[local..local + run].copy_from_slice(&h[at..at + run]);
                tile.zp[local..local + run].copy_from_slice(&zp[at..at + run]);
                tile.j[local..local + run].copy_from_slice(&js[at..at + run]);
            }
        });
        // tile summaries, once per written tile (same summation order as before)
        for &t in &self.dirty {
            let tile = &mut self.tiles[t as usize];
            (tile.h_max, tile.sum_h) = max_and_sum(&tile.h);
        }
    }

    /// Soil volume above the base surface, m^3: sum of (h - base) ds^2 over the
    /// stored nodes (untouched nodes add nothing). Summed tile by tile in creation
    /// order, so the same history gives the same bits; O(tiles).
    pub fn volume(&self) -> f64 {
        let v: f64 = self.tiles.iter().map(|t| t.sum_h - t.sum_base).sum();
        v * self.ds * self.ds
    }

    /// The rectangle of nodes covered by stored tiles (empty when untouched).
    pub fn touched(&self) -> Rect {
        if self.tiles.is_empty() {
            return Rect::default();
        }
        let (mut a, mut b) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
        for t in &self.tiles {
            a = (a.0.min(t.key.0), a.1.min(t.key.1));
            b = (b.0.max(t.key.0), b.1.max(t.key.1));
        }
        Rect {
            i0: a.0 * TILE,
            j0: a.1 * TILE,
            nx: (b.0 - a.0 + 1) * TILE,
            ny: (b.1 - a.1 + 1) * TILE,
        }
        .intersect(&self.extent)
    }
}

/// A field of 2 m x 2 m at 1 cm and the state of its 3 x 3 nodes from (0, 0) as
/// [`SoilGrid::load`] reads it: heights, plastic sinkage, shear displacement.
#[cfg(test)]
pub(crate) fn small_field(base: &Surface) -> (SoilGrid, Rect, [Vec<f64>; 3]) {
    let g = SoilGrid::new(0.01, -1.0, 1.0, -1.0, 1.0);
    let r = Rect {
        i0: 0,
        j0: 0,
        nx: 3,
        ny: 3,
    };
    let (mut h, mut zp, mut js) = (vec![], vec![], vec![]);
    g.load(base, &r, &mut h, &mut zp, &mut js);
    (g, r, [h, zp, js])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat() -> Surface {
        Surface::Plane {
            height: 0.5,
            angle: 0.0,
        }
    }

    #[test]
    fn tile_summaries_are_the_maximum_and_the_sum() {
        for n in [0, 1, 7, 8, 13, 1024] {
            let h: Vec<f64> = (0..n)
                .map(|k| ((k * 37 % 101) as f64 - 50.0) * 1e-3)
                .collect();
            let (top, sum) = max_and_sum(&h);
            assert_eq!(top, h.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b)));
            let plain: f64 = h.iter().sum();
            assert!((sum - plain).abs() <= 1e-14, "{n}: {sum} vs {plain}");
        }
    }

    #[test]
    fn an_untouched_field_costs_nothing_and_reads_the_base() {
        // 1 km x 1 km at 1 cm: 1e10 nodes, none stored
        let g = SoilGrid::new(0.01, -500.0, 500.0, -500.0, 500.0);
        assert_eq!(g.tile_count(), 0);
        assert_eq!(g.extent.len(), 100_001 * 100_001);
        assert_eq!(g.node(&flat(), 12345, -777), (0.5, 0.0));
    }

    #[test]
    fn load_and_store_round_trip_across_tile_borders() {
        let base = Surface::Plane {
            height: 0.0,
            angle: 0.1,
        };
        let mut g = SoilGrid::new(0.01, -10.0, 10.0, -10.0, 10.0);
        let r = Rect {
            i0: -40,
            j0: 30,
            nx: 70,
            ny: 5,
        };
        let (mut h, mut zp, mut js) = (vec![], vec![], vec![]);
        g.load(&base, &r, &mut h, &mut zp, &mut js);
        assert!((h[0] - base.height(-0.4)).abs() < 1e-15);
        let mut changed = vec![false; r.len()];
        h[3] += 0.25;
        zp[3] = 0.01;
        changed[3] = true;
        g.store(&base, &r, &h, &zp, &js, &changed);
        assert_eq!(g.tile_count(), 1);
        let (hh, z) = g.node(&base, -37, 30);
        assert_eq!((hh, z), (h[3], 0.01));
        assert!((g.volume() - 0.25 * 1e-4).abs() < 1e-15);
        let (mut h2, mut zp2, mut j2) = (vec![], vec![], vec![]);
        g.load(&base, &r, &mut h2, &mut zp2, &mut j2);
        assert_eq!(h, h2);
        assert_eq!(zp, zp2);
        assert!(g.max_height(&base, &r) >= h[3]);
    }

    /// Loads and stores of windows wider than the tile lookups a band keeps
    /// ([`BandTiles::SLOTS`] tile columns) and across bands give each node its own
    /// soil: what `node` reads.
    #[test]
    fn wide_windows_across_bands_load_and_store_node_by_node() {
        let base = Surface::Plane {
            height: 0.0,
            angle: 0.05,
        };
        let mut g = SoilGrid::new(0.01, -10.0, 10.0, -10.0, 10.0);
        for (r, every) in [
            (Rect { i0: -300, j0: -20, nx: 610, ny: 45 }, 5),
            (Rect { i0: -17, j0: 10, nx: 40, ny: 70 }, 3),
        ] {
            let (mut h, mut zp, mut js) = (vec![], vec![], vec![]);
            g.load(&base, &r, &mut h, &mut zp, &mut js);
            let mut changed = vec![false; r.len()];
            for k in (0..r.len()).filter(|k| k % every == 1 && k % 97 < 40) {
                h[k] -= 1e-4 * (k % 13) as f64;
                zp[k] = 1e-5 * k as f64;
                js[k] = 1e-6 * k as f64;
                changed[k] = true;
            }
            g.store(&base, &r, &h, &zp, &js, &changed);
            let (mut h2, mut zp2, mut j2) = (vec![], vec![], vec![]);
            g.load(&base, &r, &mut h2, &mut zp2, &mut j2);
            assert_eq!((&h, &zp, &js), (&h2, &zp2, &j2));
            for k in 0..r.len() {
                let (i, j) = (r.i0 + (k % r.nx as usize) as i32, r.j0 + (k / r.nx as usize) as i32);
                assert_eq!(g.node(&base, i, j), (h[k], zp[k]), "node {i} {j}");
            }
        }
    }

    /// The state of a part of a window, read into the window's buffers, is what a
    /// load of the whole window reads there, across tile borders and untouched tiles;
    /// the rest of the buffers stays as it was.
    #[test]
    fn the_state_of_a_part_is_that_of_the_whole_window() {
        let base = flat();
        let mut g = SoilGrid::new(0.01, -10.0, 10.0, -10.0, 10.0);
        let r = Rect {
            i0: -45,
            j0: 20,
            nx: 80,
            ny: 30,
        };
        let (mut h, mut zp, mut js) = (vec![], vec![], vec![]);
        g.load(&base, &r, &mut h, &mut zp, &mut js);
        // some nodes changed, in two of the tiles the window crosses (the others stay
        // untouched)
        let mut changed = vec![false; r.len()];
        for k in (0..r.len()).filter(|k| k % 7 == 3 && k % 80 < 30) {
            zp[k] = 1e-3 * k as f64;
            js[k] = 2e-3 * k as f64;
            changed[k] = true;
        }
        g.store(&base, &r, &h, &zp, &js, &changed);
        let part = Rect {
            i0: -37,
            j0: 25,
            nx: 60,
            ny: 17,
        };
        let (mut zp2, mut js2) = (vec![-1.0; r.len()], vec![-1.0; r.len()]);
        g.load_state_of(&r, &part, &mut zp2, &mut js2);
        for k in 0..r.len() {
            let (i, j) = (r.i0 + (k % 80) as i32, r.j0 + (k / 80) as i32);
            let inside = (part.i0..part.i0 + part.nx).contains(&i)
                && (part.j0..part.j0 + part.ny).contains(&j);
            let want = if inside { (zp[k], js[k]) } else { (-1.0, -1.0) };
            assert_eq!((zp2[k], js2[k]), want, "node {i}, {j}");
        }
        assert!(zp2.iter().any(|&z| z > 0.0));
    }
}
