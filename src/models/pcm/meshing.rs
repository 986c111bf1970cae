//! A PCM body's mesh from its geometry (Hippmann 2023, section 4.2: primitives meshed
//! at the section's resolution, hulls and compounds from their parts) and the triangle
//! budget that refuses, before anything is built, a mesh too large to hold.

use crate::geometry::primitive;
use super::primitives;
use super::section::Meshing;
use crate::geometry::mesh::TriMesh;
use crate::geometry::shape::Geometry;

/// Most triangles one body's PCM mesh may have, after subdivision: 4 million, about
/// 1 GB while it is built ([`MB_PER_MILLION_TRIANGLES`]); the paper's largest mesh
/// has 16,384 (Hippmann 2023, section 4.2).
pub const MAX_PCM_TRIANGLES: f64 = 4e6;

/// Resident memory per million triangles of a PCM body mesh while the world is built,
/// MB (measured with `/usr/bin/time -v` on `contact-fmu check` of pcm_torus_sphere with
/// the torus subdivided 3 and 4 times, 262,144 and 1,048,576 triangles: 69 and 257 MB
/// peak, 240 MB per million).
pub const MB_PER_MILLION_TRIANGLES: f64 = 245.0;

/// Refuses a mesh of `base` triangles that `subdivisions` would make larger than
/// [`MAX_PCM_TRIANGLES`], with the figure and the most subdivisions that fit.
pub fn triangle_budget(body: &str, base: f64, subdivisions: u32) -> Result<(), String> {
    let times = |k: u32| (1u64 << (2 * k.min(31))) as f64;
    let total = base * times(subdivisions);
    if total <= MAX_PCM_TRIANGLES {
        return Ok(());
    }
    let gb = |t: f64| t * 1e-6 * MB_PER_MILLION_TRIANGLES / 1024.0;
    let advice = match (0..subdivisions).rev().find(|&k| base * times(k) <= MAX_PCM_TRIANGLES) {
        Some(k) => format!("pcm.meshing.{body}.subdivisions {k} is the most that fits"),
        None => format!(
            "even unsubdivided it is too fine: coarser pcm.meshing.{body}.segments or edge, or a coarser mesh file"
        ),
    };
    let how = if subdivisions > 0 {
        format!(" ({base:.0} x 4^{subdivisions} with pcm.meshing.{body}.subdivisions = {subdivisions})")
    } else {
        String::new()
    };
    Err(format!(
        "its PCM mesh would have {total:.0} triangles{how}, about {:.1} GB: at most {MAX_PCM_TRIANGLES:.0} (about {:.1} GB); {advice}",
        gb(total),
        gb(MAX_PCM_TRIANGLES)
    ))
}

/// Triangles [`geometry_mesh`] makes of `g` (as a float: no overflow).
pub fn geometry_triangles(g: &Geometry, m: &Meshing) -> f64 {
    let seg = |k: usize, default: u32| m.segment(k, default);
    match g {
        Geometry::Sphere(primitive::Sphere { .. }) => primitives::sphere_triangles(seg(0, 8)),
        Geometry::Cuboid(primitive::Cuboid { size }) => primitives::cuboid_triangles(
            *size,
            m.edge.unwrap_or(0.25 * size[0].min(size[1]).min(size[2])),
        ),
        Geometry::Cylinder(primitive::Cylinder { height, .. }) => {
            primitives::cylinder_triangles(*height, seg(0, 64), m.edge.unwrap_or(0.25 * height))
        }
        Geometry::GrouserWheel(primitive::GrouserWheel { count, .. }) => {
            4.0 * seg(0, 64) as f64 + 12.0 * *count as f64
        }
        Geometry::Hull { points } => 2.0 * points.len() as f64,
        Geometry::Compound { parts } => parts.iter().map(|(_, p)| geometry_triangles(p, m)).sum(),
        Geometry::CuboidGrid { .. } => 0.0,
    }
}

/// The triangle mesh of a body's geometry (with the current parameter values) at the
/// resolution `m` asks (Hippmann 2023, section 4.2).
pub fn geometry_mesh(g: &Geometry, m: &Meshing) -> TriMesh {
    let seg = |k: usize, default: u32| m.segment(k, default);
    match g {
        Geometry::Sphere(s) => primitives::geodesic_sphere(s.radius, seg(0, 8)),
        Geometry::Cuboid(primitive::Cuboid { size }) => {
            let edge = m.edge.unwrap_or(0.25 * size[0].min(size[1]).min(size[2]));
            primitives::cuboid(*size, edge)
        }
        Geometry::Cylinder(primitive::Cylinder { radius, height }) => primitives::cylinder_y(
            *radius,
            *height,
            seg(0, 64),
            m.edge.unwrap_or(0.25 * height),
        ),
        Geometry::GrouserWheel(g) => TriMesh::grouser_wheel(g, seg(0, 64) as usize),
        Geometry::Hull { points } => TriMesh::convex_hull(points),
        Geometry::Compound { parts } => {
            let mut out = TriMesh::default();
            for (pose, part) in parts {
                out.append(&geometry_mesh(part, m), pose);
            }
            out
        }
        Geometry::CuboidGrid { .. } => TriMesh::default(),
    }
}
