//! A rectangle of soil grid nodes: the windows of evaluations and soil updates, and
//! the blocks of the sparse grid and the soil map.

use serde::{Deserialize, Serialize};

/// A rectangle of nodes: `i0 .. i0 + nx` by `j0 .. j0 + ny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rect {
    pub i0: i32,
    pub j0: i32,
    pub nx: i32,
    pub ny: i32,
}

impl Rect {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        (self.nx.max(0) as usize) * (self.ny.max(0) as usize)
    }
    /// No nodes.
    pub fn is_empty(&self) -> bool {
        self.nx <= 0 || self.ny <= 0
    }
    /// The intersection with `other`. In i64: a rectangle from a body far out (its
    /// node indices saturated at the i32 bounds) has ends past i32 (the scenario
    /// fuzzer's rig carriage at 2e29 m/s overflowed here).
    pub fn intersect(&self, other: &Rect) -> Rect {
        let end = |start: i32, len: i32| start as i64 + len as i64;
        let i0 = self.i0.max(other.i0);
        let j0 = self.j0.max(other.j0);
        let i1 = end(self.i0, self.nx).min(end(other.i0, other.nx));
        let j1 = end(self.j0, self.ny).min(end(other.j0, other.ny));
        let len = |from: i32, to: i64| (to - from as i64).clamp(0, i32::MAX as i64) as i32;
        Rect {
            i0,
            j0,
            nx: len(i0, i1),
            ny: len(j0, j1),
        }
    }
    /// Grown by `m` nodes on every side (saturating at the i32 bounds).
    pub fn grow(&self, m: i32) -> Rect {
        Rect {
            i0: self.i0.saturating_sub(m),
            j0: self.j0.saturating_sub(m),
            nx: self.nx.saturating_add(m.saturating_mul(2)),
            ny: self.ny.saturating_add(m.saturating_mul(2)),
        }
    }
}

/// Calls `f(i, j)` for each node (window coordinates) of the window `r` outside the
/// rectangle `old` (both in grid nodes).
pub fn outside(r: &Rect, old: &Rect, mut f: impl FnMut(usize, usize)) {
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
