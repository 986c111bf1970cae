//! Broad phase: sweep and prune over the bodies' world AABBs (Buse 2023, section 4.1,
//! step 2(b)): only pairs whose boxes overlap reach the narrow phase.
//!
//! A sweep along one axis alone meets, for bodies spread over a plane (a rock field,
//! a pile), about sqrt(n) boxes per box that overlap along that axis and not across
//! it: O(n^1.5) box tests (at 10,000 bodies a quarter of the step). So the space is
//! cut into strips across the sweep axis, each about two typical boxes wide, and each
//! strip swept on its own (multi-strip sweep and prune): a box is in every strip it
//! reaches, and a pair is reported in one strip only, the one where the overlap of the
//! two boxes begins. Sorting is O(n log n), the sweeps O(n + k) for k overlapping
//! pairs. Deterministic: ties sorted by index, the strips a function of the boxes.

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};

/// Reusable buffers: no allocation once warmed up.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    /// (strip, the box's start along the sweep axis, box index) packed into one
    /// integer that sorts as the tuple does (see [`pack`]): sorting integers is
    /// cheaper than comparing tuples of floats.
    order: Vec<u128>,
    /// Scratch: the boxes' extents across the sweep axis.
    extents: Vec<f64>,
}

/// How the space is cut: the sweep axis, the strip axis, the strips' start and width.
#[derive(Debug, Clone, Copy)]
struct Strips {
    sweep: usize,
    across: usize,
    start: f64,
    width: f64,
    count: usize,
}

impl Strips {
    /// The strip of coordinate `y` along the strip axis.
    #[inline]
    fn of(&self, y: f64) -> u32 {
        let s = ((y - self.start) / self.width).floor();
        // NaN and below the start: 0; beyond the end: the last (saturating casts)
        (s as usize).min(self.count - 1) as u32
    }
}

/// (strip, start, index) as one integer ordered as the tuple with `f64::total_cmp` on
/// the start: the strip in the top 32 bits, then the start's bits made to sort as
/// integers (negative numbers flipped, positive ones with the sign bit set), then the
/// index.
#[inline]
fn pack(strip: u32, start: f64, index: u32) -> u128 {
    let b = start.to_bits();
    let key = if b >> 63 == 1 { !b } else { b | 1 << 63 };
    (strip as u128) << 96 | (key as u128) << 32 | index as u128
}

/// The inverse of [`pack`].
#[inline]
fn unpack(p: u128) -> (u32, f64, u32) {
    let key = (p >> 32) as u64;
    let b = if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    };
    ((p >> 96) as u32, f64::from_bits(b), p as u32)
}

/// The boxes a box meets along the sweep axis, on average, from which strips pay.
const SWEEP_MEETS: f64 = 8.0;

impl SweepAndPrune {
    /// Calls `found(i, j, k)` (i < j) for every pair of boxes that overlap and that
    /// `allowed(i, j)` permits as `Some(k)`. Boxes that are `None` take no part.
    pub fn overlapping_pairs<K>(
        &mut self,
        boxes: &[Option<Aabb>],
        mut allowed: impl FnMut(usize, usize) -> Option<K>,
        mut found: impl FnMut(usize, usize, K),
    ) {
        let strips = self.strips(boxes);
        self.order.clear();
        for (i, b) in boxes.iter().enumerate() {
            if let Some(b) = b {
                let (first, last) = (
                    strips.of(b.mins[strips.across]),
                    strips.of(b.maxs[strips.across]),
                );
                for t in first..=last.max(first) {
                    self.order.push(pack(t, b.mins[strips.sweep], i as u32));
                }
            }
        }
        self.order.sort_unstable();
        let order = &self.order;
        for a in 0..order.len() {
            let (t, _, i) = unpack(order[a]);
            let i = i as usize;
            let bi = boxes[i].as_ref().expect("listed boxes exist");
            for &packed in &order[a + 1..] {
                let (tb, start, j) = unpack(packed);
                if tb != t || start > bi.maxs[strips.sweep] {
                    break;
                }
                let j = j as usize;
                let bj = boxes[j].as_ref().expect("listed boxes exist");
                if !bi.intersects(bj) {
                    continue;
                }
                // the strip where the pair's overlap begins reports it
                let begins = bi.mins[strips.across].max(bj.mins[strips.across]);
                if strips.of(begins) != t {
                    continue;
                }
                let (lo, hi) = if i < j { (i, j) } else { (j, i) };
                if let Some(k) = allowed(lo, hi) {
                    found(lo, hi, k);
                }
            }
        }
    }

    /// The sweep axis (the widest spread of the boxes' centres), the strip axis (the
    /// next widest) and strips twice the median box extent across, at most about
    /// 2 sqrt(n) of them (a box as wide as the scene is in each); one strip when the
    /// boxes meet few others along the sweep axis anyway.
    fn strips(&mut self, boxes: &[Option<Aabb>]) -> Strips {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        let mut extent = [0.0f64; 3];
        let mut n = 0usize;
        for b in boxes.iter().flatten() {
            let c = b.center();
            for k in 0..3 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
                let e = b.maxs[k] - b.mins[k];
                if e.is_finite() {
                    extent[k] += e;
                }
            }
            n += 1;
        }
        let mut axes = [0usize, 1, 2];
        let spread = |k: usize| {
            let s = hi[k] - lo[k];
            if s.is_finite() {
                s
            } else {
                0.0
            }
        };
        // widest first; ties by axis
        axes.sort_by(|&a, &b| spread(b).total_cmp(&spread(a)).then(a.cmp(&b)));
        let (sweep, across) = (axes[0], axes[1]);
        let one = Strips {
            sweep,
            across,
            start: 0.0,
            width: 1.0,
            count: 1,
        };
        // a box meets about n (e1 + e2) / range others along the sweep axis: few, and
        // one sweep is cheaper than cutting strips (a 10 m row of 200 rocks: 4 each)
        let mean = extent[sweep] / n.max(1) as f64;
        let meets = n as f64 * 2.0 * mean / (spread(sweep) + mean);
        if n < 64 || !(meets >= SWEEP_MEETS) {
            return one;
        }
        self.extents.clear();
        let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
        for b in boxes.iter().flatten() {
            self.extents.push(b.maxs[across] - b.mins[across]);
            start = start.min(b.mins[across]);
            end = end.max(b.maxs[across]);
        }
        let mid = self.extents.len() / 2;
        let (_, median, _) = self.extents.select_nth_unstable_by(mid, f64::total_cmp);
        let most = 2 * (n as f64).sqrt().ceil() as usize;
        let mut width = 2.0 * *median;
        let range = end - start;
        if !(width > 0.0 && width.is_finite() && range > 0.0 && range.is_finite()) {
            return one;
        }
        let mut count = (range / width).ceil() as usize;
        if count > most {
            count = most;
            width = range / count as f64;
        }
        Strips {
            sweep,
            across,
            start,
            width,
            count: count.max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    fn cube(x: f64, y: f64) -> Option<Aabb> {
        Some(Aabb::new(
            Point3::new(x, y, 0.0),
            Point3::new(x + 1.0, y + 1.0, 1.0),
        ))
    }

    #[test]
    fn finds_exactly_the_overlapping_allowed_pairs() {
        let boxes = vec![
            cube(0.0, 0.0),
            cube(0.5, 0.5),
            cube(0.5, 3.0),
            None,
            cube(1.2, 0.2),
            cube(10.0, 0.0),
        ];
        let mut found = vec![];
        SweepAndPrune::default().overlapping_pairs(
            &boxes,
            |_, _| Some(()),
            |i, j, _| found.push((i, j)),
        );
        found.sort();
        assert_eq!(found, vec![(0, 1), (1, 4)]);
        let mut found = vec![];
        SweepAndPrune::default().overlapping_pairs(
            &boxes,
            |i, j| ((i, j) != (1, 4)).then_some(()),
            |i, j, _| found.push((i, j)),
        );
        assert_eq!(found, vec![(0, 1)]);
    }

    #[test]
    fn strips_find_every_overlapping_pair_once_as_a_search_of_all_pairs_does() {
        // 3000 boxes of mixed sizes over a 10 m x 6 m field in two layers, some as wide
        // as the field (a ground grid), some flat, some tall, one missing, one NaN
        let mut r = super::super::test_random(7);
        let mut boxes: Vec<Option<Aabb>> = (0..3000)
            .map(|k| {
                let (x, y, z) = (10.0 * r(), 6.0 * r(), 0.3 * r());
                let (sx, sy, sz) = match k % 50 {
                    0 => (10.0, 6.0, 0.05),
                    1 => (0.01, 3.0, 0.01),
                    _ => (0.05 + 0.2 * r(), 0.05 + 0.2 * r(), 0.05 + 0.2 * r()),
                };
                Some(Aabb::new(
                    Point3::new(x - sx / 2.0, y - sy / 2.0, z),
                    Point3::new(x + sx / 2.0, y + sy / 2.0, z + sz),
                ))
            })
            .collect();
        boxes[17] = None;
        boxes[18] = Some(Aabb::new(
            Point3::new(f64::NAN, 0.0, 0.0),
            Point3::new(1.0, 1.0, 1.0),
        ));
        let mut want = vec![];
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                if let (Some(a), Some(b)) = (&boxes[i], &boxes[j]) {
                    if a.intersects(b) && (i + j) % 7 != 0 {
                        want.push((i, j));
                    }
                }
            }
        }
        let mut sweep = SweepAndPrune::default();
        for _ in 0..2 {
            let mut found = vec![];
            sweep.overlapping_pairs(
                &boxes,
                |i, j| ((i + j) % 7 != 0).then_some(()),
                |i, j, _| found.push((i, j)),
            );
            found.sort_unstable();
            assert!(want.len() > 3000, "{}", want.len());
            assert_eq!(found, want);
        }
        // the strips: more than one, across the field's long side
        let s = sweep.strips(&boxes);
        assert!(s.count > 10 && s.sweep == 0 && s.across == 1, "{s:?}");
        // a 10 m row of 200 rocks of 10 cm meets about 4 boxes per box along x: one
        // sweep, no strips
        let row: Vec<Option<Aabb>> = (0..200)
            .map(|k| {
                let x = 0.05 * k as f64;
                Some(Aabb::new(
                    Point3::new(x, 0.3 * r(), 0.0),
                    Point3::new(x + 0.1, 0.3 + 0.1, 0.1),
                ))
            })
            .collect();
        assert_eq!(sweep.strips(&row).count, 1);
    }

    #[test]
    fn packed_keys_sort_as_their_tuples_and_unpack_to_them() {
        let starts = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            3.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        let mut tuples = vec![];
        for strip in [0u32, 1, 70_000] {
            for &x in &starts {
                for index in [0u32, 5, u32::MAX] {
                    tuples.push((strip, x, index));
                }
            }
        }
        let mut packed: Vec<u128> = tuples.iter().map(|&(t, x, i)| pack(t, x, i)).collect();
        packed.sort_unstable();
        tuples.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (p, t) in packed.iter().zip(&tuples) {
            let u = unpack(*p);
            assert_eq!((u.0, u.1.to_bits(), u.2), (t.0, t.1.to_bits(), t.2));
        }
    }
}
