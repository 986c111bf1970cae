//! A triangle mesh prepared for PCM (Hippmann 2023, section 2.1): per triangle its
//! barycentre (where a penetration line starts), its unit outward normal (the line
//! runs along its negative into the body) and its area (the contact element's A_k in
//! eq. (1) and (4)). Body frame, m. No adjacency: duplicate vertices, cracks and
//! non-manifold edges are fine (section 3).

use crate::geometry::mesh::TriMesh;
use nalgebra::Vector3;

/// A mesh with the per-triangle data PCM needs, body frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PcmMesh {
    /// Vertices, m.
    pub vertices: Vec<Vector3<f64>>,
    /// Counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// Barycentre of each triangle, m.
    pub centroids: Vec<Vector3<f64>>,
    /// Unit outward normal of each triangle (zero for a degenerate one).
    pub normals: Vec<Vector3<f64>>,
    /// Area of each triangle, m^2 (zero for a degenerate one).
    pub areas: Vec<f64>,
}

impl PcmMesh {
    /// The PCM data of `mesh`. Degenerate triangles (no area) are kept with a zero
    /// normal: they never form a contact element and are never hit.
    pub fn new(mesh: &TriMesh) -> PcmMesh {
        let n = mesh.triangles.len();
        let mut m = PcmMesh {
            vertices: mesh.vertices.clone(),
            triangles: mesh.triangles.clone(),
            centroids: Vec::with_capacity(n),
            normals: Vec::with_capacity(n),
            areas: Vec::with_capacity(n),
        };
        for t in &mesh.triangles {
            let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
            let cross = (b - a).cross(&(c - a));
            let twice = cross.norm();
            m.centroids.push((a + b + c) / 3.0);
            if twice > 0.0 && twice.is_finite() {
                m.normals.push(cross / twice);
                m.areas.push(0.5 * twice);
            } else {
                m.normals.push(Vector3::zeros());
                m.areas.push(0.0);
            }
        }
        m
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// No triangles.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Mean triangle area, m^2 (the scanning resolution as a base, section 2.1).
    pub fn mean_area(&self) -> f64 {
        if self.areas.is_empty() {
            0.0
        } else {
            self.areas.iter().sum::<f64>() / self.areas.len() as f64
        }
    }
}
