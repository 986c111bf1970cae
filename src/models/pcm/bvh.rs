//! A bounding-volume hierarchy of axis-aligned boxes for PCM's penetration detection
//! (Hippmann 2023, section 3, Fig. 3): one leaf per item (a base triangle's
//! penetration line, or a target triangle). The tree's topology is built once from
//! the items' boxes in the body's own frame; each evaluation refits the boxes in the
//! E frame (section 2.3: all collision detection runs in E coordinates), which costs
//! one pass over the items and the nodes and allocates nothing. The paper uses
//! object-oriented boxes; axis-aligned boxes in E are what this module offers (see
//! docs/models/pcm.md for the measured test counts).

use nalgebra::Vector3;

/// An axis-aligned box, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Vector3<f64>,
    pub max: Vector3<f64>,
}

impl Aabb {
    /// The empty box (contains nothing, grows to anything).
    pub const EMPTY: Aabb = Aabb {
        min: Vector3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
        max: Vector3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
    };

    /// The box around `points`.
    pub fn around(points: &[Vector3<f64>]) -> Aabb {
        let mut b = Aabb::EMPTY;
        for p in points {
            b.grow(p);
        }
        b
    }

    /// Grows the box to contain `p`.
    pub fn grow(&mut self, p: &Vector3<f64>) {
        self.min = self.min.inf(p);
        self.max = self.max.sup(p);
    }

    /// The box around both.
    pub fn merge(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: self.min.inf(&o.min),
            max: self.max.sup(&o.max),
        }
    }

    /// The boxes share a point.
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }

    fn center(&self) -> Vector3<f64> {
        0.5 * (self.min + self.max)
    }

    fn extent(&self) -> f64 {
        let d = self.max - self.min;
        d.x + d.y + d.z
    }
}

/// A node: a leaf holds one item, an inner node two children.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    bounds: Aabb,
    /// Leaf: the item. Inner: the right child (the left child is the next node).
    index: u32,
    leaf: bool,
}

/// A binary tree over items, nodes in depth-first order (children after parents).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bvh {
    nodes: Vec<Node>,
}

impl Bvh {
    /// A tree over items with boxes `boxes` (median split along the longest axis of
    /// the box centres; deterministic).
    pub fn build(boxes: &[Aabb]) -> Bvh {
        let mut items: Vec<u32> = (0..boxes.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len());
        if !items.is_empty() {
            build_node(boxes, &mut items, &mut nodes);
        }
        Bvh { nodes }
    }

    /// Number of leaves.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root's box (empty for an empty tree).
    pub fn bounds(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, |n| n.bounds)
    }

    /// Recomputes every node's box from the items' current boxes (same items, moved).
    pub fn refit(&mut self, boxes: &[Aabb]) {
        for k in (0..self.nodes.len()).rev() {
            let n = self.nodes[k];
            self.nodes[k].bounds = if n.leaf {
                boxes[n.index as usize]
            } else {
                self.nodes[k + 1]
                    .bounds
                    .merge(&self.nodes[n.index as usize].bounds)
            };
        }
    }

    /// Calls `hit(item of self, item of other)` for every pair of leaves whose boxes
    /// overlap (simultaneous descent, the larger box first); `stack` is reused scratch.
    /// Returns the number of box tests.
    pub fn overlapping_pairs(
        &self,
        other: &Bvh,
        stack: &mut Vec<(u32, u32)>,
        mut hit: impl FnMut(u32, u32),
    ) -> u64 {
        let mut tests = 0;
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return 0;
        }
        stack.clear();
        stack.push((0, 0));
        while let Some((a, b)) = stack.pop() {
            let (na, nb) = (&self.nodes[a as usize], &other.nodes[b as usize]);
            tests += 1;
            if !na.bounds.overlaps(&nb.bounds) {
                continue;
            }
            match (na.leaf, nb.leaf) {
                (true, true) => hit(na.index, nb.index),
                (false, true) => {
                    stack.push((na.index, b));
                    stack.push((a + 1, b));
                }
                (true, false) => {
                    stack.push((a, nb.index));
                    stack.push((a, b + 1));
                }
                (false, false) => {
                    if na.bounds.extent() >= nb.bounds.extent() {
                        stack.push((na.index, b));
                        stack.push((a + 1, b));
                    } else {
                        stack.push((a, nb.index));
                        stack.push((a, b + 1));
                    }
                }
            }
        }
        tests
    }

    /// Calls `hit(item)` for every leaf whose box overlaps `query`; returns the number
    /// of box tests.
    pub fn overlapping(
        &self,
        query: &Aabb,
        stack: &mut Vec<(u32, u32)>,
        mut hit: impl FnMut(u32),
    ) -> u64 {
        let mut tests = 0;
        if self.nodes.is_empty() {
            return 0;
        }
        stack.clear();
        stack.push((0, 0));
        while let Some((a, _)) = stack.pop() {
            let n = &self.nodes[a as usize];
            tests += 1;
            if !n.bounds.overlaps(query) {
                continue;
            }
            if n.leaf {
                hit(n.index);
            } else {
                stack.push((n.index, 0));
                stack.push((a + 1, 0));
            }
        }
        tests
    }
}

fn build_node(boxes: &[Aabb], items: &mut [u32], nodes: &mut Vec<Node>) -> u32 {
    let me = nodes.len() as u32;
    let bounds = items
        .iter()
        .fold(Aabb::EMPTY, |b, &i| b.merge(&boxes[i as usize]));
    if items.len() == 1 {
        nodes.push(Node {
            bounds,
            index: items[0],
            leaf: true,
        });
        return me;
    }
    nodes.push(Node {
        bounds,
        index: 0,
        leaf: false,
    });
    let centers = items.iter().fold(Aabb::EMPTY, |mut b, &i| {
        b.grow(&boxes[i as usize].center());
        b
    });
    let d = centers.max - centers.min;
    let axis = if d.x >= d.y && d.x >= d.z {
        0
    } else if d.y >= d.z {
        1
    } else {
        2
    };
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |&a, &b| {
        let (ca, cb) = (
            boxes[a as usize].center()[axis],
            boxes[b as usize].center()[axis],
        );
        ca.total_cmp(&cb).then(a.cmp(&b))
    });
    let (left, right) = items.split_at_mut(mid);
    build_node(boxes, left, nodes);
    let r = build_node(boxes, right, nodes);
    nodes[me as usize].index = r;
    me
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box(x: f64, y: f64, z: f64) -> Aabb {
        Aabb {
            min: Vector3::new(x, y, z),
            max: Vector3::new(x + 1.0, y + 1.0, z + 1.0),
        }
    }

    #[test]
    fn pairwise_descent_finds_exactly_the_overlapping_leaves() {
        let a: Vec<Aabb> = (0..37)
            .map(|i| unit_box(i as f64 * 0.7, (i % 5) as f64, 0.0))
            .collect();
        let b: Vec<Aabb> = (0..23)
            .map(|i| unit_box(i as f64 * 1.3 - 2.0, (i % 3) as f64 * 1.7, 0.5))
            .collect();
        let (ta, tb) = (Bvh::build(&a), Bvh::build(&b));
        let mut found = vec![];
        let mut stack = vec![];
        let tests = ta.overlapping_pairs(&tb, &mut stack, |i, j| found.push((i, j)));
        found.sort();
        let mut brute = vec![];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                if x.overlaps(y) {
                    brute.push((i as u32, j as u32));
                }
            }
        }
        assert_eq!(found, brute);
        assert!(tests < (a.len() * b.len()) as u64, "{tests} box tests");
        // moved items: the refitted tree agrees with a rebuilt one
        let moved: Vec<Aabb> = a
            .iter()
            .map(|x| Aabb {
                min: x.min + Vector3::new(0.3, -0.2, 0.1),
                max: x.max + Vector3::new(0.3, -0.2, 0.1),
            })
            .collect();
        let mut refit = ta.clone();
        refit.refit(&moved);
        let mut f1 = vec![];
        refit.overlapping_pairs(&tb, &mut stack, |i, j| f1.push((i, j)));
        f1.sort();
        let mut f2 = vec![];
        Bvh::build(&moved).overlapping_pairs(&tb, &mut stack, |i, j| f2.push((i, j)));
        f2.sort();
        assert_eq!(f1, f2);
        let q = unit_box(3.0, 1.0, 0.2);
        let mut single = vec![];
        tb.overlapping(&q, &mut stack, |j| single.push(j));
        single.sort();
        let brute: Vec<u32> = (0..b.len() as u32)
            .filter(|&j| b[j as usize].overlaps(&q))
            .collect();
        assert_eq!(single, brute);
    }
}
