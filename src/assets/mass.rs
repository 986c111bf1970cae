//! Mass properties of a closed triangle mesh, exact for the polyhedron (divergence
//! theorem: the solid is the signed sum of the tetrahedra from a reference point to
//! each face; Mirtich 1996, Eberly "Polyhedral Mass Properties", 2002). Used for the
//! generated rocks and wheels (Buse 2023, section 3.2: "computes the volume and center
//! of gravity as well the rocks' inertia").

use crate::geometry::mesh::TriMesh;
use nalgebra::{Matrix3, Vector3};
use serde::Serialize;

/// Volume, centre of mass and inertia of a solid of uniform density (body frame).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MassProperties {
    /// Enclosed volume, m^3 (positive for outward-facing triangles).
    pub volume: f64,
    /// Centre of mass (of volume), m.
    pub center_of_mass: [f64; 3],
    /// Inertia tensor about the centre of mass per unit density, m^5 (multiply by the
    /// density in kg/m^3 to get kg m^2). Row-major 3 x 3.
    pub inertia_per_density: [[f64; 3]; 3],
}

impl MassProperties {
    /// The inertia tensor about the centre of mass for `density` (kg/m^3), kg m^2.
    pub fn inertia(&self, density: f64) -> Matrix3<f64> {
        Matrix3::from_fn(|i, j| self.inertia_per_density[i][j] * density)
    }
}

/// Mass properties of `mesh`, which must be closed with consistently oriented faces
/// (outward normals give a positive volume).
pub fn mass_properties(mesh: &TriMesh) -> MassProperties {
    // reference point: the first vertex (keeps the tetrahedra small, for accuracy far
    // from the origin)
    let o = mesh
        .vertices
        .first()
        .copied()
        .unwrap_or_else(Vector3::zeros);
    let mut volume = 0.0;
    let mut first = Vector3::zeros();
    // second moment (covariance) sum of x x^T over the solid, about o
    let mut cov = Matrix3::zeros();
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|k| mesh.vertices[k as usize] - o);
        let v = a.dot(&b.cross(&c)) / 6.0;
        volume += v;
        let s = a + b + c;
        first += s * (v / 4.0);
        // tetrahedron (0, a, b, c): integral of x x^T = V/20 (a a^T + b b^T + c c^T + s s^T)
        cov += (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose())
            * (v / 20.0);
    }
    let com_rel = if volume != 0.0 {
        first / volume
    } else {
        Vector3::zeros()
    };
    // about the centre of mass (parallel axis theorem on the covariance)
    let cov_c = cov - com_rel * com_rel.transpose() * volume;
    let inertia = Matrix3::identity() * cov_c.trace() - cov_c;
    let com = com_rel + o;
    MassProperties {
        volume,
        center_of_mass: [com.x, com.y, com.z],
        inertia_per_density: [
            [inertia[(0, 0)], inertia[(0, 1)], inertia[(0, 2)]],
            [inertia[(1, 0)], inertia[(1, 1)], inertia[(1, 2)]],
            [inertia[(2, 0)], inertia[(2, 1)], inertia[(2, 2)]],
        ],
    }
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use nalgebra::{Isometry3, Vector3};

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn a_box_away_from_the_origin_is_exact() {
        let (a, b, c) = (0.3, 1.7, 0.45);
        let mut m = TriMesh::default();
        m.append(
            &TriMesh::cuboid([a, b, c]),
            &Isometry3::translation(10.0, -3.0, 2.5),
        );
        let p = mass_properties(&m);
        let v = a * b * c;
        assert!(rel(p.volume, v) < 1e-12);
        assert!((p.center_of_mass[0] - 10.0).abs() < 1e-12);
        assert!((p.center_of_mass[1] + 3.0).abs() < 1e-12);
        assert!((p.center_of_mass[2] - 2.5).abs() < 1e-12);
        let i = p.inertia(1.0);
        assert!(rel(i[(0, 0)], v * (b * b + c * c) / 12.0) < 1e-9);
        assert!(rel(i[(1, 1)], v * (a * a + c * c) / 12.0) < 1e-9);
        assert!(rel(i[(2, 2)], v * (a * a + b * b) / 12.0) < 1e-9);
        for (r, s) in [(0, 1), (0, 2), (1, 2)] {
            assert!(i[(r, s)].abs() < 1e-9 * i[(0, 0)]);
        }
    }

    #[test]
    fn a_rotated_box_has_the_rotated_inertia() {
        let (a, b, c) = (0.2, 0.5, 1.0);
        let rot = Isometry3::new(Vector3::zeros(), Vector3::new(0.3, -0.7, 1.1));
        let mut m = TriMesh::default();
        m.append(&TriMesh::cuboid([a, b, c]), &rot);
        let p = mass_properties(&m);
        let v = a * b * c;
        let body = Matrix3::from_diagonal(&Vector3::new(
            v * (b * b + c * c) / 12.0,
            v * (a * a + c * c) / 12.0,
            v * (a * a + b * b) / 12.0,
        ));
        let r = rot.rotation.to_rotation_matrix();
        let expect = r.matrix() * body * r.matrix().transpose();
        assert!((p.inertia(1.0) - expect).norm() < 1e-9 * expect.norm());
    }

    #[test]
    fn cylinder_and_sphere_within_their_discretization_error() {
        // a prism of n segments: area ratio sin(2 pi / n) n / (2 pi) to the circle
        let (r, l, n) = (0.4, 0.3, 256);
        let p = mass_properties(&TriMesh::cylinder_y(r, l, n));
        let ratio =
            pmath::sin(2.0 * std::f64::consts::PI / n as f64) * n as f64 / (2.0 * std::f64::consts::PI);
        let v = std::f64::consts::PI * r * r * l;
        assert!(rel(p.volume, v * ratio) < 1e-12, "prism volume is exact");
        let i = p.inertia(1.0);
        let tol = 2.0 * (1.0 - ratio);
        assert!(rel(i[(1, 1)], v * r * r / 2.0) < tol, "{}", i[(1, 1)]);
        assert!(rel(i[(0, 0)], v * (3.0 * r * r + l * l) / 12.0) < tol);
        let rs = 0.25;
        let p = mass_properties(&TriMesh::sphere(rs, 128));
        let vs = 4.0 / 3.0 * std::f64::consts::PI * rs.powi(3);
        assert!(rel(p.volume, vs) < 2e-3, "{}", p.volume / vs);
        let i = p.inertia(1.0);
        for k in 0..3 {
            assert!(rel(i[(k, k)], 0.4 * vs * rs * rs) < 4e-3);
        }
    }
}
