//! The parallel field's walks along a row of the window (Krenn 2009, Fig. 13): from a
//! footprint node, one column at a time in the direction of the horizontal normal
//! velocity, to the first node off the footprint mask, where the walk's soil is put.
//!
//! A wheel rolling along x sends nearly every walk along a row (its contact normals
//! lie in the xz plane), and the footprint nodes come row by row, left to right. So
//! the walks of one row and direction mostly end at the same node: the end found for
//! one walk is kept with the stretch of starts known to reach it, and a later walk
//! scans only the nodes between its start and that stretch. The scans read the mask
//! eight nodes at a time.

use super::update_state::word8;

/// The low bit of every byte: one bit per node in a word of eight mask bytes.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// Where the walks of one update along rows end, as far as they are known: for each
/// direction (+x, -x), a stretch of first steps in one row and the node every walk
/// whose first step lies in the stretch reaches (window indices).
pub(super) struct RowWalks {
    known: [Known; 2],
}

/// Walks whose first step is in `lo..=hi` (window indices, one row) end at `end`.
#[derive(Clone, Copy)]
struct Known {
    lo: usize,
    hi: usize,
    end: usize,
}

impl Default for RowWalks {
    fn default() -> Self {
        // no first step in an empty stretch
        Self { known: [Known { lo: usize::MAX, hi: 0, end: 0 }; 2] }
    }
}

impl RowWalks {
    /// The end of the walk from window node `(i, j)` along its row, towards +x when
    /// `ahead`, else towards -x, over a window of `nx` by `ny` nodes: the first node
    /// off `mask`, or the window's edge column, whichever comes first; on the window's
    /// first or last row, the first step's node. The node a step-by-step walk (and
    /// `deform::march` along a row) reaches, as a window index.
    #[inline]
    pub fn end(
        &mut self,
        mask: &[bool],
        nx: usize,
        ny: usize,
        (i, j): (usize, usize),
        ahead: bool,
    ) -> usize {
        let row = j * nx;
        let t = row + if ahead { (i + 1).min(nx - 1) } else { i.saturating_sub(1) };
        if j == 0 || j == ny - 1 {
            return t;
        }
        // (a stretch lies in one row: holding t, it is t's row)
        let c = &self.known[usize::from(!ahead)];
        if c.lo <= t && t <= c.hi {
            return c.end;
        }
        self.find(mask, nx, row, t, ahead)
    }

    /// [`RowWalks::end`] from first step `t` in the row from window index `row` on,
    /// outside the known stretch.
    fn find(&mut self, mask: &[bool], nx: usize, row: usize, t: usize, ahead: bool) -> usize {
        let c = &mut self.known[usize::from(!ahead)];
        let same_row = (row..row + nx).contains(&c.lo);
        *c = if ahead {
            if same_row && t < c.lo {
                // the nodes up to the known stretch
                let off = first_off(mask, t, c.lo);
                off.map_or(Known { lo: t, ..*c }, |s| Known { lo: t, hi: s, end: s })
            } else {
                // the edge column stops it whatever the mask says there
                let s = first_off(mask, t, row + nx - 1).unwrap_or(row + nx - 1);
                Known { lo: t, hi: s, end: s }
            }
        } else if same_row && t > c.hi {
            // the nodes back to the known stretch
            let off = last_off(mask, c.hi + 1, t + 1);
            off.map_or(Known { hi: t, ..*c }, |s| Known { lo: s, hi: t, end: s })
        } else {
            let s = if t > row { last_off(mask, row + 1, t + 1).unwrap_or(row) } else { row };
            Known { lo: s, hi: t, end: s }
        };
        c.end
    }
}

/// The first node in `from..to` off `mask`, if any.
fn first_off(mask: &[bool], from: usize, to: usize) -> Option<usize> {
    let mut a = from;
    while a + 8 <= to {
        let off = !word8(&mask[a..a + 8]) & LOW_BITS;
        if off != 0 {
            return Some(a + off.trailing_zeros() as usize / 8);
        }
        a += 8;
    }
    (a..to).find(|&k| !mask[k])
}

/// The last node in `from..to` off `mask`, if any.
fn last_off(mask: &[bool], from: usize, to: usize) -> Option<usize> {
    let mut b = to;
    while b >= from + 8 {
        let off = !word8(&mask[b - 8..b]) & LOW_BITS;
        if off != 0 {
            return Some(b - 8 + (63 - off.leading_zeros() as usize) / 8);
        }
        b -= 8;
    }
    (from..b).rev().find(|&k| !mask[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The walk one node at a time, as the paper states it.
    fn step_by_step(
        mask: &[bool],
        (nx, ny): (usize, usize),
        (mut i, j): (usize, usize),
        ahead: bool,
    ) -> usize {
        loop {
            i = if ahead { (i + 1).min(nx - 1) } else { i.saturating_sub(1) };
            let q = j * nx + i;
            if !mask[q] || i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
                return q;
            }
        }
    }

    /// Walks along rows end where the step-by-step walk does: random masks of every
    /// density (long runs, single gaps, rows full to the window's edges), windows
    /// from one column wide, the walks row by row as an update makes them (both
    /// directions mixed, some starts repeated or skipped) and in random order.
    #[test]
    fn walks_along_rows_end_where_the_step_by_step_walk_does() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (mut walks, mut hits) = (0, 0);
        for round in 0..600 {
            let (nx, ny) = (rng.gen_range(1..70), rng.gen_range(1..12));
            let p = [0.3, 0.8, 0.97, 1.0][round % 4];
            let mask: Vec<bool> = (0..nx * ny).map(|_| rng.gen_bool(p)).collect();
            let mut starts = Vec::new();
            for k in 0..nx * ny {
                if rng.gen_bool(0.3) {
                    continue;
                }
                let again = usize::from(rng.gen_bool(0.1));
                starts.extend([(k % nx, k / nx, rng.gen_bool(0.6))].repeat(1 + again));
            }
            if round % 3 == 2 {
                for a in (1..starts.len()).rev() {
                    starts.swap(a, rng.gen_range(0..=a));
                }
            }
            let mut fast = RowWalks::default();
            for &(i, j, ahead) in &starts {
                let want = step_by_step(&mask, (nx, ny), (i, j), ahead);
                let got = fast.end(&mask, nx, ny, (i, j), ahead);
                assert_eq!(
                    got, want,
                    "round {round}: {nx} x {ny}, from ({i}, {j}), ahead {ahead}"
                );
                let first = if ahead { (i + 1).min(nx - 1) } else { i.saturating_sub(1) };
                walks += 1;
                hits += usize::from(want != j * nx + first);
            }
        }
        // most walks cross footprint nodes before they end
        assert!(walks > 50_000 && hits > walks / 3, "{walks} walks, {hits} crossing nodes");
    }
}
