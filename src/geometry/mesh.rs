//! A body's surface as a triangle mesh in the body frame (SCM's contact objects,
//! Krenn 2009, section 3.1, Fig. 5; PCM's meshes; the asset generators' output). Base
//! meshes for the primitive shapes are generated here, scaled to size (Buse 2023,
//! section 4.2); convex meshes come from the hull of a file's vertices. Parts may overlap: SCM only needs the lowest surface point above each
//! soil node, which the union of overlapping closed parts gives correctly.

use super::primitive::GrouserWheel;
use crate::pmath;
use nalgebra::{Isometry3, Point3, Vector3};
use std::f64::consts::PI;

/// A triangle mesh, body frame, m.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TriMesh {
    pub vertices: Vec<Vector3<f64>>,
    pub triangles: Vec<[u32; 3]>,
}

/// Segments around a circle of `radius` (m) for an SCM grid of spacing `ds` (m): the
/// chords stray from the circle by at most ds / 20 (sagitta c^2 / (8 r) for a chord c),
/// so the polygon's error stays far below the grid's; at least 48 (polygon area
/// within 0.3 % of the circle's), at most 4096. Ray casting is exact for any face
/// size (see [`crate::models::scm::contact`]), so faces need not be shorter than ds.
pub fn segments(radius: f64, ds: f64) -> usize {
    let chord = (8.0 * radius * ds.max(1e-6) / 20.0).sqrt();
    ((2.0 * PI * radius / chord).ceil() as usize).clamp(48, 4096)
}

impl TriMesh {
    /// Appends `other`, moved by `pose` (part to body).
    pub fn append(&mut self, other: &TriMesh, pose: &Isometry3<f64>) {
        let base = self.vertices.len() as u32;
        self.vertices.extend(
            other
                .vertices
                .iter()
                .map(|v| (pose * Point3::from(*v)).coords),
        );
        self.triangles
            .extend(other.triangles.iter().map(|t| t.map(|k| k + base)));
    }

    fn quad(&mut self, a: u32, b: u32, c: u32, d: u32) {
        self.triangles.push([a, b, c]);
        self.triangles.push([a, c, d]);
    }

    /// A box centred at the origin with edge lengths `size` (x, y, z), m.
    pub fn cuboid(size: [f64; 3]) -> TriMesh {
        let h = size.map(|s| 0.5 * s);
        let mut m = TriMesh::default();
        for k in 0..8 {
            m.vertices.push(Vector3::new(
                if k & 1 == 0 { -h[0] } else { h[0] },
                if k & 2 == 0 { -h[1] } else { h[1] },
                if k & 4 == 0 { -h[2] } else { h[2] },
            ));
        }
        // outward counter-clockwise faces
        for f in [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ] {
            m.quad(f[0], f[1], f[2], f[3]);
        }
        m
    }

    /// A cylinder centred at the origin, axis along y, `n` segments.
    pub fn cylinder_y(radius: f64, length: f64, n: usize) -> TriMesh {
        let mut m = TriMesh::default();
        let y = 0.5 * length;
        for k in 0..n {
            let a = 2.0 * PI * k as f64 / n as f64;
            let (x, z) = (radius * pmath::cos(a), radius * pmath::sin(a));
            m.vertices.push(Vector3::new(x, -y, z));
            m.vertices.push(Vector3::new(x, y, z));
        }
        let c0 = m.vertices.len() as u32;
        m.vertices.push(Vector3::new(0.0, -y, 0.0));
        m.vertices.push(Vector3::new(0.0, y, 0.0));
        for k in 0..n as u32 {
            let k1 = (k + 1) % n as u32;
            m.quad(2 * k, 2 * k + 1, 2 * k1 + 1, 2 * k1);
            m.triangles.push([c0, 2 * k, 2 * k1]);
            m.triangles.push([c0 + 1, 2 * k1 + 1, 2 * k + 1]);
        }
        m
    }

    /// A flat circular plate, axis along z, bottom face at z = 0, top at `thickness`.
    pub fn plate(radius: f64, thickness: f64, n: usize) -> TriMesh {
        let mut m = TriMesh::cylinder_y(radius, thickness, n);
        // turn the y axis onto z, then lift the bottom face to z = 0
        let pose = Isometry3::new(
            Vector3::new(0.0, 0.0, 0.5 * thickness),
            Vector3::x() * (0.5 * PI),
        );
        for v in m.vertices.iter_mut() {
            *v = (pose * Point3::from(*v)).coords;
        }
        m
    }

    /// A UV sphere centred at the origin with `n` segments around.
    pub fn sphere(radius: f64, n: usize) -> TriMesh {
        let rings = (n / 2).max(4);
        let mut m = TriMesh::default();
        m.vertices.push(Vector3::new(0.0, 0.0, -radius));
        for r in 1..rings {
            let th = PI * r as f64 / rings as f64;
            let (z, s) = (-radius * pmath::cos(th), radius * pmath::sin(th));
            for k in 0..n {
                let a = 2.0 * PI * k as f64 / n as f64;
                m.vertices.push(Vector3::new(s * pmath::cos(a), s * pmath::sin(a), z));
            }
        }
        m.vertices.push(Vector3::new(0.0, 0.0, radius));
        let top = (m.vertices.len() - 1) as u32;
        let n32 = n as u32;
        let at = |r: u32, k: u32| 1 + (r - 1) * n32 + (k % n32);
        for k in 0..n32 {
            m.triangles.push([0, at(1, k + 1), at(1, k)]);
            m.triangles
                .push([top, at(rings as u32 - 1, k), at(rings as u32 - 1, k + 1)]);
        }
        for r in 1..rings as u32 - 1 {
            for k in 0..n32 {
                m.quad(at(r, k), at(r, k + 1), at(r + 1, k + 1), at(r + 1, k));
            }
        }
        m
    }

    /// A wheel (axle along y, centred at the origin): a cylinder of `radius` and
    /// `width` with `count` grousers on its rim, each `grouser_height` tall (radially)
    /// and `grouser_thickness` thick (tangentially), as wide as the wheel, its rim of
    /// `n` segments. The first grouser points along -z (straight down) at zero
    /// rotation.
    pub fn grouser_wheel(wheel: &GrouserWheel, n: usize) -> TriMesh {
        let GrouserWheel {
            radius,
            width,
            count,
            grouser_height,
            grouser_thickness,
        } = *wheel;
        let mut m = TriMesh::cylinder_y(radius, width, n);
        if count == 0 || grouser_height <= 0.0 || grouser_thickness <= 0.0 {
            return m;
        }
        // each grouser reaches from inside the rim (half its height in) to r + height
        let depth = 1.5 * grouser_height;
        let g = TriMesh::cuboid([grouser_thickness, width, depth]);
        for k in 0..count {
            let a = 2.0 * PI * k as f64 / count as f64;
            let centre = radius + grouser_height - 0.5 * depth;
            let pose =
                Isometry3::rotation(Vector3::y() * a) * Isometry3::translation(0.0, 0.0, -centre);
            m.append(&g, &pose);
        }
        m
    }

    /// The convex hull of `points` (body frame), as a closed mesh (parry3d).
    pub fn convex_hull(points: &[[f64; 3]]) -> TriMesh {
        let pts: Vec<Point3<f64>> = points.iter().map(|p| Point3::from(*p)).collect();
        let (v, t) = parry3d_f64::transformation::convex_hull(&pts);
        TriMesh {
            vertices: v.into_iter().map(|p| p.coords).collect(),
            triangles: t,
        }
    }

    /// Axis-aligned bounds (min, max) in the body frame.
    pub fn bounds(&self) -> (Vector3<f64>, Vector3<f64>) {
        let mut lo = Vector3::repeat(f64::INFINITY);
        let mut hi = Vector3::repeat(f64::NEG_INFINITY);
        for v in &self.vertices {
            lo = lo.inf(v);
            hi = hi.sup(v);
        }
        (lo, hi)
    }

    /// Enclosed volume, m^3 (divergence theorem; outward counter-clockwise faces).
    pub fn volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| self.vertices[k as usize]);
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_meshes_are_closed_and_outward() {
        let c = TriMesh::cuboid([1.0, 2.0, 3.0]);
        assert!((c.volume() - 6.0).abs() < 1e-12);
        let n = 256;
        let cyl = TriMesh::cylinder_y(0.5, 2.0, n);
        let poly = 0.5 * n as f64 * 0.25 * pmath::sin(2.0 * PI / n as f64);
        assert!(
            (cyl.volume() - poly * 2.0).abs() < 1e-12,
            "{} {}",
            cyl.volume(),
            poly * 2.0
        );
        let p = TriMesh::plate(0.1, 0.02, 128);
        let (lo, hi) = p.bounds();
        assert!(lo.z.abs() < 1e-15 && (hi.z - 0.02).abs() < 1e-15);
        assert!(p.volume() > 0.0);
        let s = TriMesh::sphere(1.0, 128);
        assert!((s.volume() - 4.0 / 3.0 * PI).abs() < 0.01, "{}", s.volume());
        let w = TriMesh::grouser_wheel(
            &GrouserWheel {
                radius: 0.25,
                width: 0.2,
                count: 12,
                grouser_height: 0.01,
                grouser_thickness: 0.01,
            },
            128,
        );
        let (lo, _) = w.bounds();
        assert!((lo.z + 0.26).abs() < 1e-12, "{}", lo.z);
    }
}
