//! A convex shape (any support map: cylinder, convex hull, cone, ...) pressed into a
//! face of a cuboid, decided exactly without EPA where that can be proven.
//!
//! parry's general query for a penetrating pair of support maps is GJK followed by
//! EPA, which on a curved shape (a cylinder foot on a rock) iterates to its limit of
//! 100 expansions and allocates its polytope on every call: most of a settled rover's
//! step. Most resting contacts are a body's deepest point pressed into the interior of
//! one face of a cuboid (a rock's top, a grid cell), and there the penetration depth
//! follows from two bounds that meet:
//!
//! - upper: moving the shape by `delta` along the face's outward normal `n` separates
//!   the pair, where `delta` is the shape's overlap with the box along `n` (a
//!   separating-axis overlap), so the penetration depth is at most `delta`;
//! - lower: any translation that separates the pair moves every point of the overlap
//!   out of the box, so the depth is at least the distance from the shape's deepest
//!   point `p` along `-n` (which lies in both) to the box's boundary. When `p` is at
//!   least `delta` from every other face, that distance is `delta`.
//!
//! When both hold the contact is exact: depth `delta`, normal `n`, point `p` (the
//! support point; callers place it midway through the overlap). When the box's axes
//! show a gap the pair is apart, also exactly. Otherwise (the deepest point near an
//! edge of the face, edge-on-edge contacts) the caller falls back to GJK/EPA.

use nalgebra::{Isometry3, Vector3};
use parry3d_f64::shape::SupportMap;

/// What the face test proves about a convex shape and a box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaceTest {
    /// Apart: some face plane of the box has the whole shape outside it.
    Apart,
    /// In contact through one face: penetration depth (m), the face's outward unit
    /// normal (world, from the box towards the shape) and the shape's deepest point
    /// (world, on the shape's surface).
    Face {
        depth: f64,
        normal: Vector3<f64>,
        point: Vector3<f64>,
    },
    /// Not decided: use the general query.
    Unknown,
}

/// A cylinder (radius, half height; axis y of its frame) for the edge and vertex
/// candidates of [`face_test`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CylinderDims {
    pub radius: f64,
    pub half_height: f64,
}

/// The best bounds found so far (box frame): the smallest upper bound with its
/// separating normal (from the box towards the shape) and the shape's surface point,
/// and the largest lower bound.
struct Bounds {
    upper: f64,
    normal: Vector3<f64>,
    point: Vector3<f64>,
    lower: f64,
}

impl Bounds {
    fn offer_upper(&mut self, upper: f64, normal: Vector3<f64>, point: Vector3<f64>) {
        if upper < self.upper {
            self.upper = upper;
            self.normal = normal;
            self.point = point;
        }
    }
}

/// The face test of `shape` at `iso` against the box of half extents `half` at
/// `box_iso` (see the module's documentation). With `cylinder` (the shape is that
/// cylinder) the box's edges and corners inside it are witnesses too: a box point `q`
/// inside the cylinder bounds the depth from below by its distance to the cylinder's
/// surface, and the overlap along the cylinder's normal there bounds it from above;
/// the two meet when `q` is the box's deepest point along that normal (a box edge
/// across the cylinder's side, a corner under it).
pub fn face_test(
    half: &Vector3<f64>,
    box_iso: &Isometry3<f64>,
    shape: &dyn SupportMap,
    iso: &Isometry3<f64>,
    cylinder: Option<CylinderDims>,
) -> FaceTest {
    // the shape in the box's frame
    let rel = box_iso.inv_mul(iso);
    let support = |dir: &Vector3<f64>| {
        (rel * shape.local_support_point(&rel.rotation.inverse_transform_vector(dir))).coords
    };
    let mut b = Bounds {
        upper: f64::INFINITY,
        normal: Vector3::zeros(),
        point: Vector3::zeros(),
        lower: 0.0,
    };
    for axis in 0..3 {
        for sign in [1.0, -1.0] {
            // outward normal n = sign e_axis (box frame); the shape's deepest point
            // along -n and its overlap with the box along n (an upper bound)
            let mut n = Vector3::zeros();
            n[axis] = sign;
            let p = support(&-n);
            let delta = half[axis] - sign * p[axis];
            if delta.is_nan() {
                return FaceTest::Unknown;
            }
            if delta <= 0.0 {
                return FaceTest::Apart;
            }
            b.offer_upper(delta, n, p);
            // p lies in the shape; inside the box, its distance to the box's surface
            // is a lower bound
            let inside = (0..3)
                .map(|j| half[j] - p[j].abs())
                .fold(f64::INFINITY, f64::min);
            b.lower = b.lower.max(inside);
        }
    }
    if let Some(cyl) = cylinder {
        cylinder_witnesses(half, &rel, cyl, &support, &mut b);
    }
    // both bounds meet (to rounding): the depth is exact
    let scale = half.x + half.y + half.z;
    if b.upper - b.lower > 1e-12 * scale + 1e-9 * b.upper {
        return FaceTest::Unknown;
    }
    FaceTest::Face {
        depth: b.upper,
        normal: box_iso.rotation * b.normal,
        point: (box_iso * nalgebra::Point3::from(b.point)).coords,
    }
}

/// The box's edges and corners as witnesses inside a cylinder (box frame; `rel` is the
/// cylinder's pose in it).
fn cylinder_witnesses(
    half: &Vector3<f64>,
    rel: &Isometry3<f64>,
    cyl: CylinderDims,
    support: &dyn Fn(&Vector3<f64>) -> Vector3<f64>,
    b: &mut Bounds,
) {
    let c = rel.translation.vector;
    let a = rel.rotation * Vector3::y();
    // a box point q: if inside the cylinder, its distance to the cylinder's surface
    // (lower bound) and the overlap along the surface's outward normal there (upper)
    let mut witness = |q: Vector3<f64>| {
        let d = q - c;
        let along = d.dot(&a);
        let radial = d - a * along;
        let rho = radial.norm();
        let (side, end) = (cyl.radius - rho, cyl.half_height - along.abs());
        if side <= 0.0 || end <= 0.0 {
            return;
        }
        let out = if side <= end {
            if rho == 0.0 {
                return;
            }
            radial / rho
        } else {
            a * along.signum()
        };
        b.lower = b.lower.max(side.min(end));
        // overlap along `out`: the cylinder's reach minus the box's lowest point
        let reach = support(&out).dot(&out);
        let corner = Vector3::new(
            -half.x * out.x.signum(),
            -half.y * out.y.signum(),
            -half.z * out.z.signum(),
        );
        let upper = reach - corner.dot(&out);
        b.offer_upper(upper, -out, q + out * side.min(end));
    };
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let mut e = Vector3::zeros();
        e[k] = 1.0;
        for (si, sj) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            let mut p0 = Vector3::zeros();
            p0[i] = si * half[i];
            p0[j] = sj * half[j];
            // the point of this edge's line nearest the cylinder's axis
            let w = p0 - c;
            let cos = e.dot(&a);
            let denom = 1.0 - cos * cos;
            if denom > 1e-12 {
                let t = (cos * a.dot(&w) - e.dot(&w)) / denom;
                if t.abs() < half[k] {
                    witness(p0 + e * t);
                }
            }
            // the edge's two corners (each corner is on three edges: once, from k = 0)
            if k == 0 {
                witness(p0 + e * half[k]);
                witness(p0 - e * half[k]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use parry3d_f64::shape::{ConvexPolyhedron, Cylinder, Shape};

    /// parry's GJK/EPA on the same pair: (depth, normal from the box).
    fn parry(
        half: &Vector3<f64>,
        box_iso: &Isometry3<f64>,
        s: &dyn Shape,
        iso: &Isometry3<f64>,
    ) -> Option<(f64, Vector3<f64>)> {
        let b = parry3d_f64::shape::Cuboid::new(*half);
        parry3d_f64::query::contact(box_iso, &b, iso, s, 0.0)
            .unwrap()
            .filter(|c| c.dist < 0.0)
            .map(|c| (-c.dist, c.normal1.into_inner()))
    }

    #[test]
    fn a_tilted_cylinder_on_a_turned_box_gets_the_depth_and_normal_epa_gets() {
        let half = Vector3::new(0.3, 0.2, 0.1);
        let box_iso = Isometry3::new(Vector3::new(0.4, -0.2, 0.1), Vector3::new(0.0, 0.0, 0.5));
        let cyl = Cylinder::new(0.03, 0.02);
        let mut decided = 0;
        for k in 0..200 {
            let t = k as f64 * 0.1;
            // a foot over the box's top face, tilted and turned, pressed in 0-2 mm
            let rot = Vector3::new(1.2 + 0.3 * pmath::sin(t), 0.2 * pmath::cos(1.3 * t), 0.7 * t);
            let top = box_iso * nalgebra::Point3::new(0.25 * pmath::sin(t), 0.15 * pmath::cos(0.7 * t), 0.1);
            let probe = Isometry3::new(top.coords, rot);
            let reach = cyl.support_point(&probe, &-Vector3::z()).z - top.z;
            let depth = 2e-3 * (pmath::sin(0.37 * t) * 0.5 + 0.5);
            let iso = Isometry3::new(top.coords - Vector3::z() * (depth + reach), rot);
            match face_test(
                &half,
                &box_iso,
                &cyl,
                &iso,
                Some(CylinderDims {
                    radius: 0.02,
                    half_height: 0.03,
                }),
            ) {
                FaceTest::Face {
                    depth: d,
                    normal,
                    point,
                } => {
                    decided += 1;
                    let (pd, pn) = parry(&half, &box_iso, &cyl, &iso).expect("epa sees contact");
                    assert!((d - pd).abs() < 1e-9, "{k}: face {d} epa {pd}");
                    assert!((normal - pn).norm() < 1e-6, "{k}: {normal} {pn}");
                    assert!((normal - Vector3::z()).norm() < 1e-12);
                    // the point is on the cylinder and inside the box by `d`
                    assert!((point.z - (top.z - d)).abs() < 1e-12);
                }
                FaceTest::Apart => assert!(parry(&half, &box_iso, &cyl, &iso).is_none()),
                FaceTest::Unknown => {}
            }
        }
        assert!(decided > 150, "only {decided} of 200 decided");
    }

    #[test]
    fn a_cylinder_across_the_edges_and_corners_of_a_box_agrees_with_epa_where_decided() {
        // feet lying across the box's top edges and corners, turned and tilted every
        // way, pressed in up to 3 mm: every decided contact is EPA's to 1e-9 m
        let half = Vector3::new(0.03, 0.025, 0.017);
        let box_iso = Isometry3::new(Vector3::new(0.1, 0.2, 0.0), Vector3::new(0.0, 0.0, 0.3));
        let cyl = Cylinder::new(0.03, 0.03);
        let dims = Some(CylinderDims {
            radius: 0.03,
            half_height: 0.03,
        });
        let (mut decided, mut across) = (0, 0);
        for k in 0..2000 {
            let t = k as f64 * 0.37;
            let rot = Vector3::new(
                std::f64::consts::FRAC_PI_2 * (0.9 + 0.2 * pmath::sin(1.7 * t)),
                0.3 * pmath::cos(0.9 * t),
                t,
            );
            let over = box_iso
                * nalgebra::Point3::new(0.04 * pmath::sin(1.3 * t), 0.035 * pmath::cos(0.7 * t), 0.017);
            let probe = Isometry3::new(over.coords + Vector3::z() * 0.1, rot);
            let depth = 3e-3 * (pmath::sin(0.37 * t) * 0.5 + 0.5);
            // lower the foot until it reaches `depth` below the box's top
            let reach = cyl.support_point(&probe, &-Vector3::z()).z - over.z;
            let iso = Isometry3::new(
                probe.translation.vector - Vector3::z() * (reach + depth),
                rot,
            );
            let epa = parry(&half, &box_iso, &cyl, &iso);
            match face_test(&half, &box_iso, &cyl, &iso, dims) {
                FaceTest::Face {
                    depth: d, normal, ..
                } => {
                    decided += 1;
                    let (pd, pn) = epa.expect("epa sees contact");
                    assert!((d - pd).abs() < 1e-9, "{k}: {d} epa {pd}");
                    // EPA's normal on a curved shape is converged less than its depth
                    // (the depth's error is quadratic in the normal's): ours is the
                    // better one when the box and the foot overlap no less along EPA's
                    assert!((normal - pn).norm() < 1e-3, "{k}: {normal} epa {pn}");
                    let overlap = |n: &Vector3<f64>| {
                        let b = parry3d_f64::shape::Cuboid::new(half);
                        b.support_point(&box_iso, n).coords.dot(n)
                            - cyl.support_point(&iso, &-n).coords.dot(n)
                    };
                    assert!((overlap(&normal) - d).abs() < 1e-12, "{k}");
                    assert!(overlap(&pn) >= d - 1e-12, "{k}: {} < {d}", overlap(&pn));
                    if (normal - Vector3::z()).norm() > 1e-6 {
                        across += 1;
                    }
                }
                FaceTest::Apart => assert!(epa.is_none(), "{k}: epa {epa:?}"),
                FaceTest::Unknown => {}
            }
        }
        assert!(
            decided > 1000 && across > 100,
            "decided {decided}, across an edge {across}"
        );
    }

    #[test]
    fn a_hull_over_an_edge_is_left_to_epa_and_a_hull_beside_the_box_is_apart() {
        let half = Vector3::new(0.1, 0.1, 0.1);
        let pts: Vec<_> = [
            [0.0, 0.0, -0.05],
            [0.05, 0.0, 0.0],
            [-0.05, 0.0, 0.0],
            [0.0, 0.05, 0.0],
            [0.0, -0.05, 0.0],
            [0.0, 0.0, 0.05],
        ]
        .iter()
        .map(|p| nalgebra::Point3::new(p[0], p[1], p[2]))
        .collect();
        let hull = ConvexPolyhedron::from_convex_hull(&pts).unwrap();
        let id = Isometry3::identity();
        // the tip 1 mm into the top face, 0.5 mm from its edge: not provable
        let near_edge = Isometry3::translation(0.0995, 0.0, 0.149);
        assert_eq!(
            face_test(&half, &id, &hull, &near_edge, None),
            FaceTest::Unknown
        );
        // the same 1 mm, 5 cm from the edge: exact
        let inside = Isometry3::translation(0.05, 0.0, 0.149);
        let FaceTest::Face { depth, .. } = face_test(&half, &id, &hull, &inside, None) else {
            panic!("not decided");
        };
        assert!((depth - 1e-3).abs() < 1e-12);
        assert_eq!(
            face_test(
                &half,
                &id,
                &hull,
                &Isometry3::translation(0.2, 0.0, 0.0),
                None
            ),
            FaceTest::Apart
        );
        // beside a corner, apart on no single axis of the box: not decided here
        let diagonal = Isometry3::translation(0.14, 0.14, 0.0);
        assert!(parry(&half, &id, &hull, &diagonal).is_none());
        assert_eq!(
            face_test(&half, &id, &hull, &diagonal, None),
            FaceTest::Unknown
        );
    }
}
