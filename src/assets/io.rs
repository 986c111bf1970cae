//! Writing generated meshes: Wavefront OBJ (the paper's format), binary PLY and binary
//! STL. Numbers are written in Rust's shortest round-trip form, so the same mesh gives
//! the same bytes on every machine and reads back to the same f64 values.

use crate::geometry::mesh::TriMesh;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The mesh as OBJ text (`v x y z` lines, then `f a b c` with 1-based indices), with
/// `header` lines as comments.
pub fn obj_string(mesh: &TriMesh, header: &[String]) -> String {
    obj_string_reporting(mesh, header, &|_, _| {})
}

/// [`obj_string`], calling `progress(lines written, lines)` every 65536 lines.
pub fn obj_string_reporting(
    mesh: &TriMesh,
    header: &[String],
    progress: &dyn Fn(u64, u64),
) -> String {
    let total = (mesh.vertices.len() + mesh.triangles.len()) as u64;
    let mut done = 0u64;
    let mut tick = || {
        done += 1;
        if done % 65536 == 0 {
            progress(done, total);
        }
    };
    let mut s = String::with_capacity(40 * mesh.vertices.len() + 24 * mesh.triangles.len());
    for h in header {
        let _ = writeln!(s, "# {h}");
    }
    for v in &mesh.vertices {
        let _ = writeln!(s, "v {} {} {}", v.x, v.y, v.z);
        tick();
    }
    for t in &mesh.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
        tick();
    }
    progress(total, total);
    s
}

/// Binary little-endian PLY (float64 vertices, int32 faces).
pub fn write_ply(mesh: &TriMesh, w: &mut impl Write) -> io::Result<()> {
    write!(
        w,
        "ply\nformat binary_little_endian 1.0\ncomment contact-fmu asset\n\
         element vertex {}\nproperty double x\nproperty double y\nproperty double z\n\
         element face {}\nproperty list uchar int vertex_indices\nend_header\n",
        mesh.vertices.len(),
        mesh.triangles.len()
    )?;
    for v in &mesh.vertices {
        for c in [v.x, v.y, v.z] {
            w.write_all(&c.to_le_bytes())?;
        }
    }
    for t in &mesh.triangles {
        w.write_all(&[3])?;
        for k in t {
            w.write_all(&(*k as i32).to_le_bytes())?;
        }
    }
    Ok(())
}

/// Binary STL (float32, as the format has it).
pub fn write_stl(mesh: &TriMesh, w: &mut impl Write) -> io::Result<()> {
    let mut head = [0u8; 80];
    let text = b"contact-fmu asset";
    head[..text.len()].copy_from_slice(text);
    w.write_all(&head)?;
    w.write_all(&(mesh.triangles.len() as u32).to_le_bytes())?;
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
        let n = (b - a)
            .cross(&(c - a))
            .try_normalize(0.0)
            .unwrap_or_default();
        for v in [n, a, b, c] {
            for x in [v.x, v.y, v.z] {
                w.write_all(&(x as f32).to_le_bytes())?;
            }
        }
        w.write_all(&[0, 0])?;
    }
    Ok(())
}

/// Checks that `mesh` is a closed, oriented 2-manifold: every edge is shared by
/// exactly two triangles that run it in opposite directions, and no triangle is
/// degenerate (zero area). Returns the first problem found.
pub fn check_closed_manifold(mesh: &TriMesh) -> Result<(), String> {
    for (f, t) in mesh.triangles.iter().enumerate() {
        let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
        let area2 = (b - a).cross(&(c - a)).norm();
        let scale = (b - a).norm().max((c - a).norm()).max((c - b).norm());
        if !(area2 > 1e-12 * scale * scale) {
            return Err(format!("triangle {f} {t:?} is degenerate"));
        }
    }
    check_closed_oriented(mesh)
}

/// Checks that every edge of `mesh` (by vertex index) is shared by exactly two
/// triangles that run it in opposite directions: a closed surface with one
/// orientation, whose [`TriMesh::volume`] is then independent of the origin.
pub fn check_closed_oriented(mesh: &TriMesh) -> Result<(), String> {
    let mut directed: HashMap<(u32, u32), u32> = HashMap::with_capacity(3 * mesh.triangles.len());
    for (f, t) in mesh.triangles.iter().enumerate() {
        for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            if directed.insert((p, q), f as u32).is_some() {
                return Err(format!(
                    "edge {p}-{q} is run twice in the same direction (triangle {f}): \
                     inconsistent orientation or a non-manifold edge"
                ));
            }
        }
    }
    for &(p, q) in directed.keys() {
        if !directed.contains_key(&(q, p)) {
            return Err(format!(
                "edge {p}-{q} has only one triangle: the mesh is open"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_closed_and_an_open_one_is_not() {
        let mut m = TriMesh::cuboid([1.0, 2.0, 3.0]);
        check_closed_manifold(&m).unwrap();
        m.triangles.pop();
        assert!(check_closed_manifold(&m).unwrap_err().contains("open"));
        let mut m = TriMesh::cuboid([1.0, 2.0, 3.0]);
        m.triangles[0].swap(1, 2);
        assert!(check_closed_manifold(&m).is_err());
    }

    #[test]
    fn obj_numbers_read_back_exactly() {
        let mut m = TriMesh::default();
        m.vertices
            .push(nalgebra::Vector3::new(0.1 + 0.2, -1e-300, 1.0 / 3.0));
        let s = obj_string(&m, &[]);
        let line = s.lines().next().unwrap();
        let xs: Vec<f64> = line[2..].split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(xs, vec![0.1 + 0.2, -1e-300, 1.0 / 3.0]);
    }
}
