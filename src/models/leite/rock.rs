//! A rock as Leite's wheel meets it (section 3.2): the convex hull of a generated rock
//! or convex mesh with a support map that climbs the hull's vertex graph, or any other
//! convex shape through parry's own queries. Hill climbing finds the same farthest
//! vertex as parry's scan of every vertex (a linear function on a convex polytope has
//! no local maximum that is not global) in a few steps instead of one per vertex: the
//! scan was 44 % of a rig step with a wheel on a generated rock. The contact runs
//! parry's GJK and, when the two overlap, its EPA with buffers the caller keeps
//! ([`Workspace`]), so a step does not allocate (parry's `query::contact` makes a new
//! EPA per call).

use crate::models::bbcc::pair::{
    cylinder_feature, cylinder_line_within, deepest_contact, penetration,
};
use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::query::details::local_ray_intersection_with_support_map_with_params;
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::VoronoiSimplex;
use parry3d_f64::query::Ray;
use parry3d_f64::shape::{Cylinder, SharedShape, SupportMap};

/// Buffers of the penetration query, kept between steps.
#[derive(Default)]
pub struct Workspace {
    epa: EPA,
}

/// A convex hull's vertices and their neighbours along the hull's edges.
#[derive(Debug, Clone)]
pub struct HullSupport {
    points: Vec<Point3<f64>>,
    /// Neighbours of vertex i: `adjacent[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    adjacent: Vec<u32>,
    /// The vertices farthest along +-x, +-y, +-z: where each climb starts.
    starts: [u32; 6],
    local_aabb: Aabb,
}

impl HullSupport {
    /// The convex hull of `points` (body frame, m); None when it is degenerate (fewer
    /// than 4 points or flat).
    pub fn new(points: &[[f64; 3]]) -> Option<Self> {
        let pts: Vec<Point3<f64>> = points.iter().map(|p| Point3::from(*p)).collect();
        if pts.len() < 4 {
            return None;
        }
        let (points, triangles) = parry3d_f64::transformation::convex_hull(&pts);
        if points.len() < 4 || triangles.len() < 4 {
            return None;
        }
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(triangles.len() * 6);
        for t in &triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                pairs.push((a, b));
                pairs.push((b, a));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut first = vec![0u32; points.len() + 1];
        for &(a, _) in &pairs {
            first[a as usize + 1] += 1;
        }
        for i in 0..points.len() {
            first[i + 1] += first[i];
        }
        let adjacent = pairs.iter().map(|&(_, b)| b).collect();
        let axes = [
            Vector3::x(),
            -Vector3::x(),
            Vector3::y(),
            -Vector3::y(),
            Vector3::z(),
            -Vector3::z(),
        ];
        let starts = axes.map(|d| scan(&points, &d));
        let local_aabb = Aabb::from_points(points.iter().copied());
        Some(HullSupport {
            points,
            first,
            adjacent,
            starts,
            local_aabb,
        })
    }

    /// Number of hull vertices.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false: a hull has at least 4 vertices.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// The first vertex farthest along `dir` (a scan of all).
fn scan(points: &[Point3<f64>], dir: &Vector3<f64>) -> u32 {
    let mut best = 0;
    let mut best_dot = f64::NEG_INFINITY;
    for (i, p) in points.iter().enumerate() {
        let d = p.coords.dot(dir);
        if d > best_dot {
            best = i as u32;
            best_dot = d;
        }
    }
    best
}

impl SupportMap for HullSupport {
    fn local_support_point(&self, dir: &Vector3<f64>) -> Point3<f64> {
        // start at the best of the six axis extremes, then climb while a neighbour is
        // strictly farther: a pure function of dir (no cache), so results do not
        // depend on earlier queries
        let mut best = self.starts[0];
        let mut best_dot = self.points[best as usize].coords.dot(dir);
        for &s in &self.starts[1..] {
            let d = self.points[s as usize].coords.dot(dir);
            if d > best_dot {
                best = s;
                best_dot = d;
            }
        }
        loop {
            let i = best as usize;
            let mut moved = false;
            for &j in &self.adjacent[self.first[i] as usize..self.first[i + 1] as usize] {
                let d = self.points[j as usize].coords.dot(dir);
                if d > best_dot {
                    best = j;
                    best_dot = d;
                    moved = true;
                }
            }
            if !moved {
                return self.points[best as usize];
            }
        }
    }
}

/// A rock's shape.
#[derive(Clone)]
pub enum Rock {
    /// A convex hull (generated rocks, convex meshes).
    Hull(HullSupport),
    /// Any other convex shape (cuboid, sphere, compound, ...).
    Shape(SharedShape),
}

impl Rock {
    /// The rock's bounding box at `iso` (for a hull: its body-frame box moved, a little
    /// larger than the tight box and much cheaper).
    pub fn aabb(&self, iso: &Isometry3<f64>) -> Aabb {
        match self {
            Rock::Hull(h) => h.local_aabb.transform_by(iso),
            Rock::Shape(s) => s.compute_aabb(iso),
        }
    }

    /// The deepest contact of the wheel `wheel` at `wheel_iso` with the rock at
    /// `rock_iso`: (depth, unit normal from the wheel into the rock, contact point),
    /// world frame; None when they do not intersect. As BBCC's
    /// [`deepest_contact`]: on a line contact the point is the penetration-weighted
    /// middle of the cylinder's deepest line.
    /// Compounds and grids go through BBCC's [`deepest_contact`] (parry's queries, which
    /// allocate); hulls and the other convex shapes through [`penetration`].
    pub fn contact(
        &self,
        wheel: &Cylinder,
        wheel_iso: &Isometry3<f64>,
        rock_iso: &Isometry3<f64>,
        ws: &mut Workspace,
    ) -> Option<(f64, Vector3<f64>, Vector3<f64>)> {
        let pos12 = wheel_iso.inv_mul(rock_iso);
        let (depth, n_local, ..) = match self {
            Rock::Hull(h) => penetration(&pos12, wheel, h, &mut ws.epa)?,
            Rock::Shape(s) => match s.as_support_map() {
                Some(sm) => penetration(&pos12, wheel, sm, &mut ws.epa)?,
                None => return deepest_contact(wheel, wheel_iso, s.as_ref(), rock_iso),
            },
        };
        let n = wheel_iso * n_local;
        // the part of the wheel's deepest line inside the rock (as BBCC's
        // `deepest_contact`); the line missing the rock: the whole line's centre, as
        // before (this query keeps no witness point to fall back on)
        let cast = |ray: &Ray| {
            let local = ray.inverse_transform_by(rock_iso);
            match self {
                Rock::Hull(h) => local_ray_intersection_with_support_map_with_params(
                    h,
                    &mut VoronoiSimplex::new(),
                    &local,
                    1.0,
                    true,
                )
                .map(|hit| hit.time_of_impact),
                Rock::Shape(s) => s.cast_local_ray(&local, 1.0, true),
            }
        };
        let p = match cylinder_line_within(wheel, wheel_iso, &n, depth, &cast) {
            Some(q) => q - n * (0.5 * depth),
            None => {
                cylinder_feature(wheel_iso, wheel.radius, wheel.half_height, &n, depth)
                    - n * (0.5 * depth)
            }
        };
        Some((depth, n, p))
    }
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use nalgebra::UnitQuaternion;

    /// Hill climbing finds the farthest vertex of a generated-like hull (a noisy
    /// sphere of 400 points) along 2,000 directions as the full scan does (the same
    /// distance along dir; ties may pick another vertex at that distance), and the
    /// wheel's contact with the hull equals parry's ConvexPolyhedron's.
    #[test]
    fn climbing_the_hull_finds_the_scans_support_and_the_same_contact() {
        let mut pts = vec![];
        let mut s: u64 = 12345;
        let mut rnd = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..400 {
            let (u, v, r) = (
                rnd() * 2.0 - 1.0,
                rnd() * std::f64::consts::TAU,
                0.1 + 0.03 * rnd(),
            );
            let q = (1.0 - u * u).sqrt();
            pts.push([r * q * pmath::cos(v), 0.8 * r * q * pmath::sin(v), 0.6 * r * u]);
        }
        let hull = HullSupport::new(&pts).unwrap();
        for _ in 0..2000 {
            let d = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
            let climbed = hull.local_support_point(&d).coords.dot(&d);
            let scanned = hull.points[scan(&hull.points, &d) as usize].coords.dot(&d);
            assert_eq!(climbed, scanned, "dir {d:?}");
        }
        let poly =
            SharedShape::convex_hull(&pts.iter().map(|p| Point3::from(*p)).collect::<Vec<_>>())
                .unwrap();
        let wheel = Cylinder::new(0.1, 0.25);
        let rock_iso = Isometry3::translation(0.3, 0.0, 0.0);
        for (x, z, a) in [(0.0, 0.3, 0.0), (0.02, 0.32, 0.3), (-0.1, 0.28, -0.7)] {
            let wheel_iso = Isometry3::from_parts(
                nalgebra::Translation3::new(0.3 + x, 0.0, z),
                UnitQuaternion::from_axis_angle(&Vector3::y_axis(), a),
            );
            let mut ws = Workspace::default();
            let ours = Rock::Hull(hull.clone())
                .contact(&wheel, &wheel_iso, &rock_iso, &mut ws)
                .unwrap();
            let parry = deepest_contact(&wheel, &wheel_iso, poly.as_ref(), &rock_iso).unwrap();
            assert!((ours.0 - parry.0).abs() < 1e-9, "{ours:?} {parry:?}");
            assert!((ours.1 - parry.1).norm() < 1e-6, "{ours:?} {parry:?}");
            assert!((ours.2 - parry.2).norm() < 1e-6, "{ours:?} {parry:?}");
        }
    }
}
