//! Triangle meshes of the built-in primitives for PCM, at a chosen resolution (PCM
//! scans the contact patch with the base mesh's triangles, Hippmann 2023, section 2.1,
//! so the resolution is the user's choice), and midpoint subdivision (section 4.2,
//! Fig. 8). All meshes have outward, counter-clockwise faces, body frame, m.

use crate::pmath;
use crate::geometry::mesh::TriMesh;
use nalgebra::Vector3;
use std::f64::consts::PI;

/// A geodesic sphere: the icosahedron with each face cut into `frequency`^2 triangles,
/// the vertices pushed onto the sphere (20 `frequency`^2 triangles; frequency 5 gives
/// the 500 triangles of Hippmann 2023, section 4.1). Faces do not share vertices
/// across the icosahedron's edges (PCM needs no adjacency).
pub fn geodesic_sphere(radius: f64, frequency: u32) -> TriMesh {
    let f = frequency.max(1);
    // the icosahedron of the asset generator's rocks (unit vertices)
    let ico = crate::assets::rock::icosphere(0);
    let mut m = TriMesh::default();
    for face in &ico.triangles {
        let [a, b, c] = face.map(|k| ico.vertices[k as usize]);
        let base = m.vertices.len() as u32;
        // node (i, j), i + j <= f: a + (b - a) i / f + (c - a) j / f
        let index = |i: u32, j: u32| base + i * (f + 1) - i * (i.saturating_sub(1)) / 2 + j;
        for i in 0..=f {
            for j in 0..=(f - i) {
                let p = a + (b - a) * (i as f64 / f as f64) + (c - a) * (j as f64 / f as f64);
                m.vertices.push(p.normalize() * radius);
            }
        }
        for i in 0..f {
            for j in 0..(f - i) {
                m.triangles
                    .push([index(i, j), index(i + 1, j), index(i, j + 1)]);
                if i + j + 1 < f {
                    m.triangles
                        .push([index(i + 1, j), index(i + 1, j + 1), index(i, j + 1)]);
                }
            }
        }
    }
    m
}

/// A torus about the body z axis: tube centre circle of radius `major` (m) in the x-y
/// plane, tube radius `minor` (m); `around` segments about z, `tube` about the tube
/// (2 `around` `tube` triangles; 64 x 32 gives the 4,096 of Hippmann 2023, section 4.1).
pub fn torus(major: f64, minor: f64, around: u32, tube: u32) -> TriMesh {
    let (na, nt) = (around.max(3), tube.max(3));
    let mut m = TriMesh::default();
    for i in 0..na {
        let u = 2.0 * PI * i as f64 / na as f64;
        for j in 0..nt {
            let v = 2.0 * PI * j as f64 / nt as f64;
            let rho = major + minor * pmath::cos(v);
            m.vertices
                .push(Vector3::new(rho * pmath::cos(u), rho * pmath::sin(u), minor * pmath::sin(v)));
        }
    }
    let at = |i: u32, j: u32| (i % na) * nt + (j % nt);
    for i in 0..na {
        for j in 0..nt {
            // d/du x d/dv points out of the tube: wind with u, then v
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            m.triangles.push([a, b, c]);
            m.triangles.push([a, c, d]);
        }
    }
    m
}

/// Pieces of at most `edge` (m) that cut a length `length` (m), at least one.
fn cells(length: f64, edge: f64) -> f64 {
    (length / edge.max(1e-9)).ceil().max(1.0)
}

/// Triangles of [`cuboid`] (as a float: no overflow whatever the edge).
pub fn cuboid_triangles(size: [f64; 3], edge: f64) -> f64 {
    let n = size.map(|s| cells(s, edge));
    4.0 * (n[0] * n[1] + n[1] * n[2] + n[2] * n[0])
}

/// Triangles of [`cylinder_y`] (as a float).
pub fn cylinder_triangles(height: f64, around: u32, edge: f64) -> f64 {
    let n = around.max(3) as f64;
    2.0 * n * cells(height, edge) + 2.0 * n
}

/// Triangles of [`torus`].
pub fn torus_triangles(around: u32, tube: u32) -> f64 {
    2.0 * around.max(3) as f64 * tube.max(3) as f64
}

/// Triangles of [`geodesic_sphere`].
pub fn sphere_triangles(frequency: u32) -> f64 {
    20.0 * (frequency.max(1) as f64).powi(2)
}

/// A box centred at the origin (edges `size`, m) with each face cut into squares of
/// at most `edge` (m), two triangles each.
pub fn cuboid(size: [f64; 3], edge: f64) -> TriMesh {
    let n = size.map(|s| cells(s, edge) as u32);
    let h = size.map(|s| 0.5 * s);
    let mut m = TriMesh::default();
    // each face: normal axis k, sign s; in-plane axes (a, b) with a x b = +e_k
    for k in 0..3 {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        for s in [-1.0, 1.0] {
            let base = m.vertices.len() as u32;
            let (na, nb) = (n[a], n[b]);
            for i in 0..=na {
                for j in 0..=nb {
                    let mut p = Vector3::zeros();
                    p[k] = s * h[k];
                    p[a] = -h[a] + size[a] * i as f64 / na as f64;
                    p[b] = -h[b] + size[b] * j as f64 / nb as f64;
                    m.vertices.push(p);
                }
            }
            let at = |i: u32, j: u32| base + i * (nb + 1) + j;
            for i in 0..na {
                for j in 0..nb {
                    let (p, q, r, t) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                    if s > 0.0 {
                        m.triangles.push([p, q, r]);
                        m.triangles.push([p, r, t]);
                    } else {
                        m.triangles.push([p, r, q]);
                        m.triangles.push([p, t, r]);
                    }
                }
            }
        }
    }
    m
}

/// A cylinder about the body y axis (as [`crate::scenario::types::Shape::Cylinder`]) with
/// `around` segments, the side cut into rings of at most `edge` (m) along the axis,
/// the caps into fans.
pub fn cylinder_y(radius: f64, height: f64, around: u32, edge: f64) -> TriMesh {
    let n = around.max(3);
    let rings = cells(height, edge) as u32;
    let mut m = TriMesh::default();
    let point = |k: u32, y: f64| {
        let a = 2.0 * PI * k as f64 / n as f64;
        Vector3::new(radius * pmath::cos(a), y, radius * pmath::sin(a))
    };
    for r in 0..=rings {
        let y = -0.5 * height + height * r as f64 / rings as f64;
        for k in 0..n {
            m.vertices.push(point(k, y));
        }
    }
    let at = |r: u32, k: u32| r * n + (k % n);
    for r in 0..rings {
        for k in 0..n {
            // around +y from x to z is clockwise seen from +y: outward is (a, a+1, up)
            m.triangles.push([at(r, k), at(r + 1, k), at(r + 1, k + 1)]);
            m.triangles.push([at(r, k), at(r + 1, k + 1), at(r, k + 1)]);
        }
    }
    for (y, r, flip) in [(-0.5 * height, 0, false), (0.5 * height, rings, true)] {
        let c = m.vertices.len() as u32;
        m.vertices.push(Vector3::new(0.0, y, 0.0));
        for k in 0..n {
            if flip {
                m.triangles.push([c, at(r, k + 1), at(r, k)]);
            } else {
                m.triangles.push([c, at(r, k), at(r, k + 1)]);
            }
        }
    }
    m
}

/// Each triangle cut into four by its edge midpoints, `times` times (Hippmann 2023,
/// section 4.2, Fig. 8): 4^`times` as many triangles, the same surface.
pub fn subdivide(mesh: &TriMesh, times: u32) -> TriMesh {
    let mut m = mesh.clone();
    for _ in 0..times {
        let mut next = TriMesh {
            vertices: m.vertices.clone(),
            triangles: Vec::with_capacity(4 * m.triangles.len()),
        };
        let mut mid = std::collections::HashMap::new();
        let mut midpoint = |a: u32, b: u32, v: &mut Vec<Vector3<f64>>| {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                v.push(0.5 * (v[a as usize] + v[b as usize]));
                (v.len() - 1) as u32
            })
        };
        for &[a, b, c] in &m.triangles {
            let ab = midpoint(a, b, &mut next.vertices);
            let bc = midpoint(b, c, &mut next.vertices);
            let ca = midpoint(c, a, &mut next.vertices);
            next.triangles
                .extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
        m = next;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::mass::mass_properties;

    fn outward(m: &TriMesh, center: impl Fn(&Vector3<f64>) -> Vector3<f64>) -> bool {
        m.triangles.iter().all(|t| {
            let [a, b, c] = t.map(|k| m.vertices[k as usize]);
            let n = (b - a).cross(&(c - a));
            let g = (a + b + c) / 3.0;
            n.dot(&(g - center(&g))) > 0.0
        })
    }

    #[test]
    fn the_papers_sphere_and_torus_have_500_and_4096_outward_triangles() {
        let s = geodesic_sphere(1.0, 5);
        assert_eq!(s.triangles.len(), 500);
        assert!(outward(&s, |_| Vector3::zeros()));
        let v = mass_properties(&s).volume;
        // inscribed polyhedron: slightly less than 4/3 pi
        assert!(v < 4.0 / 3.0 * PI && v > 0.97 * 4.0 / 3.0 * PI, "{v}");
        let t = torus(1.0, 0.3, 64, 32);
        assert_eq!(t.triangles.len(), 4096);
        // outward: away from the tube's centre circle
        assert!(outward(&t, |g| {
            let rho = (g.x * g.x + g.y * g.y).sqrt();
            Vector3::new(g.x / rho, g.y / rho, 0.0)
        }));
        let v = mass_properties(&t).volume;
        let exact = 2.0 * PI * PI * 1.0 * 0.09;
        assert!((v - exact).abs() < 0.01 * exact, "{v} vs {exact}");
    }

    #[test]
    fn cuboid_cylinder_and_subdivision_enclose_their_volumes() {
        let c = cuboid([1.0, 2.0, 0.5], 0.25);
        assert!(outward(&c, |_| Vector3::zeros()));
        assert!((mass_properties(&c).volume - 1.0).abs() < 1e-12);
        assert_eq!(c.triangles.len(), 2 * (2 * 4 * 8 + 2 * 8 * 2 + 2 * 2 * 4));
        let y = cylinder_y(0.5, 0.2, 64, 0.05);
        assert!(outward(&y, |_| Vector3::zeros()));
        let v = mass_properties(&y).volume;
        let exact = PI * 0.25 * 0.2;
        assert!((v - exact).abs() < 0.005 * exact, "{v}");
        let s = subdivide(&c, 2);
        assert_eq!(s.triangles.len(), 16 * c.triangles.len());
        assert!((mass_properties(&s).volume - 1.0).abs() < 1e-12);
    }
}
