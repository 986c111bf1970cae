//! Broad phase: sweep and prune along x over the bodies' world AABBs (Buse 2023,
//! section 4.1, step 2(b)): only pairs whose boxes overlap reach the narrow phase.
//! Sorting is O(n log n) and the sweep O(n + k) for k overlapping pairs, so the cost
//! stays near linear in the number of bodies. Deterministic: ties sorted by index.

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};

/// Reusable buffers: no allocation once warmed up.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    order: Vec<(f64, u32)>,
}

impl SweepAndPrune {
    /// Calls `found(i, j, k)` (i < j) for every pair of boxes that overlap and that
    /// `allowed(i, j)` permits as `Some(k)` (the caller's index of the pair). Boxes that
    /// are `None` take no part.
    pub fn overlapping_pairs<K>(
        &mut self,
        boxes: &[Option<Aabb>],
        mut allowed: impl FnMut(usize, usize) -> Option<K>,
        mut found: impl FnMut(usize, usize, K),
    ) {
        self.order.clear();
        for (i, b) in boxes.iter().enumerate() {
            if let Some(b) = b {
                self.order.push((b.mins.x, i as u32));
            }
        }
        self.order
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for a in 0..self.order.len() {
            let i = self.order[a].1 as usize;
            let bi = boxes[i].as_ref().expect("listed boxes exist");
            for b in a + 1..self.order.len() {
                if self.order[b].0 > bi.maxs.x {
                    break;
                }
                let j = self.order[b].1 as usize;
                let bj = boxes[j].as_ref().expect("listed boxes exist");
                let (lo, hi) = if i < j { (i, j) } else { (j, i) };
                if bi.intersects(bj) {
                    if let Some(k) = allowed(lo, hi) {
                        found(lo, hi, k);
                    }
                }
            }
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
}
