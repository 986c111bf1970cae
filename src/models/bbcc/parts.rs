//! How many convex parts BBCC makes of a body's shape: each pair of parts keeps its
//! own contact memory, so the count sizes that memory and bounds the pair budget.

use crate::geometry::primitive;
use crate::scenario::types::Shape;

/// Convex parts BBCC makes of a scenario shape (what [`crate::geometry::shape::build`] gives): a compound's
/// parts, a grid's cells, a grouser wheel's cylinder and grousers, 1 for the others.
/// Each pair of parts that may touch keeps its own contact memory.
pub fn part_count(shape: &Shape) -> usize {
    match shape {
        Shape::Compound { parts } => parts.len(),
        Shape::CuboidGrid { heights, .. } => heights.iter().map(|r| r.len()).sum(),
        Shape::GrouserWheel(primitive::GrouserWheel {
            count,
            grouser_height,
            ..
        }) if *grouser_height > 0.0 => 1 + *count as usize,
        _ => 1,
    }
}
