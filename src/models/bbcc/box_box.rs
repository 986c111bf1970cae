//! Cuboid-cuboid contact by the separating axis test (15 axes). parry's general query
//! returns degenerate edge-edge normals for shallow face-on-face penetrations between
//! boxes of very different size (a cube resting on a large ground cuboid), so BBCC uses
//! this exact test for box pairs. One contact point per pair, as BBCC has (Buse 2023,
//! section 4.1): the centre of the deepest feature (face, edge or vertex).

use nalgebra::{Isometry3, Vector3};

/// Contact of box A with box B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxContact {
    /// Penetration depth, m.
    pub depth: f64,
    /// Unit normal from A towards B.
    pub normal: Vector3<f64>,
    /// Contact point (world), midway through the overlap.
    pub point: Vector3<f64>,
}

fn axes(iso: &Isometry3<f64>) -> [Vector3<f64>; 3] {
    let m = iso.rotation.to_rotation_matrix();
    [
        m.matrix().column(0).into(),
        m.matrix().column(1).into(),
        m.matrix().column(2).into(),
    ]
}

/// Centre of the box's vertices that are deepest along `dir` (a face, edge or vertex).
fn deepest_feature(
    iso: &Isometry3<f64>,
    half: &Vector3<f64>,
    ax: &[Vector3<f64>; 3],
    dir: &Vector3<f64>,
) -> Vector3<f64> {
    let tol = 1e-9 * (half.x + half.y + half.z).max(1e-12);
    let mut centre = iso.translation.vector;
    for k in 0..3 {
        let p = ax[k].dot(dir);
        if p > tol {
            centre += ax[k] * half[k];
        } else if p < -tol {
            centre -= ax[k] * half[k];
        }
        // |p| <= tol: the feature spans this axis; its centre stays on the box's mid-plane
    }
    centre
}

/// The contact of box A (half extents `ha`, pose `a`) with box B, or `None` when they
/// are apart.
pub fn box_box(
    ha: &Vector3<f64>,
    a: &Isometry3<f64>,
    hb: &Vector3<f64>,
    b: &Isometry3<f64>,
) -> Option<BoxContact> {
    let aa = axes(a);
    let bb = axes(b);
    let d = b.translation.vector - a.translation.vector;
    // (overlap, axis from A to B, kind: 0 A face, 1 B face, 2 edge-edge)
    let mut best: Option<(f64, Vector3<f64>, u8)> = None;
    let mut test = |axis: Vector3<f64>, kind: u8| -> bool {
        let len = axis.norm();
        if len < 1e-9 {
            return true; // parallel edges: no axis
        }
        let n = axis / len;
        let pa: f64 = (0..3).map(|k| ha[k] * n.dot(&aa[k]).abs()).sum();
        let pb: f64 = (0..3).map(|k| hb[k] * n.dot(&bb[k]).abs()).sum();
        let dist = n.dot(&d);
        let overlap = pa + pb - dist.abs();
        if overlap < 0.0 {
            return false;
        }
        let n = if dist < 0.0 { -n } else { n };
        // Edge axes must beat the faces clearly: near-parallel edges give unstable axes.
        let better = match best {
            None => true,
            Some((o, _, _)) => {
                if kind == 2 {
                    overlap < 0.95 * o - 1e-9
                } else {
                    overlap < o
                }
            }
        };
        if better {
            best = Some((overlap, n, kind));
        }
        true
    };
    // Faces of the larger box first: on a tie (parallel faces) its face is the
    // reference and the smaller box's face the incident feature, whose centre is then
    // the contact point (a cube on a large ground box touches under the cube).
    let a_larger = ha.x * ha.y * ha.z >= hb.x * hb.y * hb.z;
    let order: [(bool, usize); 6] = if a_larger {
        [
            (true, 0),
            (true, 1),
            (true, 2),
            (false, 0),
            (false, 1),
            (false, 2),
        ]
    } else {
        [
            (false, 0),
            (false, 1),
            (false, 2),
            (true, 0),
            (true, 1),
            (true, 2),
        ]
    };
    for (on_a, k) in order {
        let ok = if on_a { test(aa[k], 0) } else { test(bb[k], 1) };
        if !ok {
            return None;
        }
    }
    for ai in &aa {
        for bj in &bb {
            if !test(ai.cross(bj), 2) {
                return None;
            }
        }
    }
    let (depth, normal, kind) = best?;
    let point = match kind {
        // B's deepest feature reaches into A's face
        0 => deepest_feature(b, hb, &bb, &-normal) + normal * (0.5 * depth),
        // A's deepest feature reaches into B's face
        1 => deepest_feature(a, ha, &aa, &normal) - normal * (0.5 * depth),
        _ => 0.5 * (deepest_feature(a, ha, &aa, &normal) + deepest_feature(b, hb, &bb, &-normal)),
    };
    Some(BoxContact {
        depth,
        normal,
        point,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cube_on_a_large_ground_box_has_a_vertical_normal_at_any_depth() {
        let cube = Vector3::new(0.1, 0.1, 0.1);
        let ground = Vector3::new(20.0, 20.0, 0.5);
        let g = Isometry3::translation(0.0, 0.0, -0.5);
        for depth in [1e-7, 1e-5, 1e-4, 5e-4, 1e-2] {
            let c = box_box(
                &ground,
                &g,
                &cube,
                &Isometry3::translation(0.3, -0.2, 0.1 - depth),
            )
            .unwrap();
            assert!((c.depth - depth).abs() < 1e-12, "{c:?}");
            assert!((c.normal - Vector3::z()).norm() < 1e-12, "{c:?}");
            // face on face: the point is under the cube's centre, midway in the overlap
            assert!(
                (c.point - Vector3::new(0.3, -0.2, -0.5 * depth)).norm() < 1e-12,
                "{c:?}"
            );
        }
        assert!(box_box(&ground, &g, &cube, &Isometry3::translation(0.0, 0.0, 0.2)).is_none());
    }

    #[test]
    fn a_small_box_on_a_large_one_touches_under_the_small_one_in_either_order() {
        let cube = Vector3::new(0.1, 0.1, 0.1);
        let ground = Vector3::new(20.0, 20.0, 0.5);
        let g = Isometry3::translation(0.0, 0.0, -0.5);
        let c = Isometry3::translation(3.0, 2.0, 0.099);
        let ab = box_box(&cube, &c, &ground, &g).unwrap();
        assert!((ab.normal + Vector3::z()).norm() < 1e-12);
        assert!(
            (ab.point.xy() - c.translation.vector.xy()).norm() < 1e-12,
            "{ab:?}"
        );
    }

    #[test]
    fn a_tilted_cube_touches_with_its_lowest_corner_or_edge() {
        let cube = Vector3::new(0.1, 0.1, 0.1);
        let ground = Vector3::new(20.0, 20.0, 0.5);
        let g = Isometry3::translation(0.0, 0.0, -0.5);
        // tilted 0.1 rad about y: an edge parallel to y is lowest
        let tilt = Isometry3::new(Vector3::new(0.0, 0.0, 0.1), Vector3::y() * 0.1);
        let c = box_box(&ground, &g, &cube, &tilt).unwrap();
        assert!((c.normal - Vector3::z()).norm() < 1e-12);
        assert!(c.point.y.abs() < 1e-12 && c.point.x.abs() > 0.05, "{c:?}");
    }
}
