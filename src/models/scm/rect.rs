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
    /// Grown to the smallest rectangle whose sides lie on multiples of `q` (> 0) grid
    /// nodes (in i64, clamped to the i32 bounds); an empty one stays as it is.
    pub fn aligned(&self, q: i32) -> Rect {
        if self.is_empty() {
            return *self;
        }
        let q = q.max(1) as i64;
        let clamp = |x: i64| x.clamp(i32::MIN as i64, i32::MAX as i64);
        let start = |a: i32| clamp((a as i64).div_euclid(q) * q);
        let end = |a: i32, n: i32| (a as i64 + n as i64 + q - 1).div_euclid(q) * q;
        let (i0, j0) = (start(self.i0), start(self.j0));
        let len = |from: i64, to: i64| (to - from).clamp(0, i32::MAX as i64) as i32;
        Rect {
            i0: i0 as i32,
            j0: j0 as i32,
            nx: len(i0, end(self.i0, self.nx)),
            ny: len(j0, end(self.j0, self.ny)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_rectangles_hold_theirs_on_multiples_of_q() {
        let r = |i0, j0, nx, ny| Rect { i0, j0, nx, ny };
        assert_eq!(r(3, -5, 10, 4).aligned(8), r(0, -8, 16, 8));
        assert_eq!(r(0, 8, 8, 16).aligned(8), r(0, 8, 8, 16));
        assert_eq!(r(-1, -9, 2, 1).aligned(8), r(-8, -16, 16, 8));
        assert_eq!(r(5, 5, 0, 3).aligned(8), r(5, 5, 0, 3));
        // far out: clamped, not wrapped
        let far = r(i32::MAX - 3, i32::MIN + 1, 3, 5).aligned(8);
        assert!(far.i0 <= i32::MAX - 3 && far.j0 == i32::MIN, "{far:?}");
        assert!(far.nx >= 3 && far.ny >= 5, "{far:?}");
        for (a, q) in [
            (r(-17, 23, 45, 31), 8),
            (r(7, 7, 1, 1), 4),
            (r(-3, 2, 9, 9), 16),
        ] {
            let b = a.aligned(q);
            assert_eq!(b.intersect(&a), a, "{a:?} lies in {b:?}");
            assert!([b.i0, b.j0, b.nx, b.ny].iter().all(|x| x % q == 0), "{b:?}");
            assert!(b.nx < a.nx + 2 * q && b.ny < a.ny + 2 * q, "{b:?}");
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
