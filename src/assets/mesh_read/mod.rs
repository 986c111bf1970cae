//! Reading triangle meshes from the files CAD tools export (FreeCAD, MeshLab,
//! Blender): Wavefront OBJ ([`obj`]), STL binary or ASCII ([`stl`]), PLY ASCII or
//! binary ([`ply`], data by `ply-rs-bw`). Polygons are triangulated as fans; the
//! face order of the file is kept (counter-clockwise seen from outside gives outward
//! normals). Read once, at instantiation or packaging, never in the step loop.
//!
//! Every file is treated as hostile: each problem is reported with the file, the
//! line (text formats) or the triangle / element (binary ones) and what is wrong,
//! never by a panic or an allocation the file's size does not justify.

pub mod obj;
mod ply;
mod stl;

use crate::geometry::mesh::TriMesh;
use nalgebra::Vector3;
use std::path::Path;

/// A mesh file format, by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshFormat {
    Obj,
    Stl,
    Ply,
}

impl MeshFormat {
    /// The format of `file` by its extension (case-insensitive), if we read it.
    pub fn of(file: &str) -> Option<MeshFormat> {
        let ext = Path::new(file).extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(MeshFormat::Obj),
            "stl" => Some(MeshFormat::Stl),
            "ply" => Some(MeshFormat::Ply),
            _ => None,
        }
    }
}

/// A mesh as a file gives it: vertices, polygons by 0-based vertex index and, for
/// text formats, the line each polygon is on.
#[derive(Debug, Default)]
pub(crate) struct RawMesh {
    vertices: Vec<[f64; 3]>,
    faces: Vec<Vec<usize>>,
    face_lines: Vec<usize>,
}

impl RawMesh {
    /// Where face `k` (0-based) is, for messages: "face 3 (line 12)".
    fn face_at(&self, k: usize) -> String {
        match self.face_lines.get(k) {
            Some(line) => format!("face {} (line {line})", k + 1),
            None => format!("face {}", k + 1),
        }
    }

    /// Every face has at least 3 corners and names existing vertices.
    fn check_indices(&self) -> Result<(), String> {
        let n = self.vertices.len();
        for (k, f) in self.faces.iter().enumerate() {
            if f.len() < 3 {
                return Err(format!("{} has {} vertices", self.face_at(k), f.len()));
            }
            if let Some(&bad) = f.iter().find(|&&i| i >= n) {
                return Err(format!(
                    "{} names vertex {}, but the file has {n} vertices",
                    self.face_at(k),
                    bad as u64 + 1
                ));
            }
        }
        Ok(())
    }
}

/// `text` shortened to at most 40 characters and with control characters escaped,
/// for quoting a piece of a file in a message.
fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().count() > 40 {
        s.push_str("...");
    }
    s
}

/// The three coordinates after the keyword `what` on text line `n` (OBJ `v`, STL
/// `vertex`): each present, a number and finite.
fn coordinates<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    n: usize,
    what: &str,
) -> Result<[f64; 3], String> {
    let mut v = [0.0; 3];
    for (k, c) in v.iter_mut().enumerate() {
        let word = words.next().ok_or_else(|| {
            format!("line {n}: '{what}' needs x y z, coordinate {} is missing", k + 1)
        })?;
        *c = word.parse::<f64>().map_err(|_| {
            format!(
                "line {n}: vertex coordinate {} '{}' is not a number",
                k + 1,
                shown(word)
            )
        })?;
        if !c.is_finite() {
            return Err(format!(
                "line {n}: vertex coordinate {} is not finite ({word})",
                k + 1
            ));
        }
    }
    Ok(v)
}

/// `bytes` as UTF-8 text, or where they are not, with a guess at what the file is
/// (`what`: the format that was expected, "an OBJ mesh").
fn text_of<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, String> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let kind = [
            (&b"\x89PNG"[..], "a PNG image"),
            (b"\xff\xd8\xff", "a JPEG image"),
            (b"PK\x03\x04", "a ZIP archive"),
            (b"%PDF", "a PDF document"),
            (b"\x1f\x8b", "a gzip archive"),
            (b"glTF", "a binary glTF model"),
            (b"ply", "a PLY mesh"),
        ]
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, kind)| format!(": it looks like {kind}"))
        .unwrap_or_default();
        format!(
            "line {line}: byte 0x{:02x} is not text (UTF-8), so this is not {what}{kind}",
            bytes[at]
        )
    })
}

/// Reads the triangle mesh in `path`, its vertices multiplied by `scale`. Errors name
/// the file and what is wrong, with the line or element (no faces, an index out of
/// range, a NaN coordinate, a binary file of the wrong size, no area, inside out).
pub fn read_mesh(path: &Path, scale: f64) -> Result<TriMesh, String> {
    let shown = path.display();
    let format = MeshFormat::of(&path.to_string_lossy())
        .ok_or_else(|| format!("{shown}: not an .obj, .stl or .ply file"))?;
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    mesh_from_bytes(format, &bytes, scale).map_err(|e| format!("{shown}: {e}"))
}

/// [`read_mesh`] of a file's contents `bytes` in `format` (errors without the file).
pub fn mesh_from_bytes(format: MeshFormat, bytes: &[u8], scale: f64) -> Result<TriMesh, String> {
    let raw = match format {
        MeshFormat::Obj => obj::parse(bytes),
        MeshFormat::Stl => stl::parse(bytes),
        MeshFormat::Ply => ply::parse(bytes),
    }?;
    to_mesh(&raw, scale)
}

/// The checked triangle mesh of `raw`, scaled.
fn to_mesh(raw: &RawMesh, scale: f64) -> Result<TriMesh, String> {
    raw.check_indices()?;
    if raw.vertices.len() > u32::MAX as usize {
        return Err(format!("{} vertices: at most {}", raw.vertices.len(), u32::MAX));
    }
    let mut mesh = TriMesh::default();
    for (i, v) in raw.vertices.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite()) {
            return Err(format!("vertex {} is not finite: {v:?}", i + 1));
        }
        mesh.vertices
            .push(Vector3::new(v[0] * scale, v[1] * scale, v[2] * scale));
    }
    for f in &raw.faces {
        // a fan from the first vertex
        for j in 1..f.len() - 1 {
            mesh.triangles
                .push([f[0] as u32, f[j] as u32, f[j + 1] as u32]);
        }
    }
    if mesh.triangles.is_empty() {
        return Err(format!(
            "no faces ({} vertices, no 'f' / facet / face with 3 or more corners)",
            mesh.vertices.len()
        ));
    }
    check_surface(&mesh)?;
    Ok(mesh)
}

/// A contact surface must have area, and a closed one must face outward: refuses a
/// mesh whose triangles all have zero area, and a closed, consistently oriented mesh
/// that encloses a negative volume (clockwise faces: every normal points inward, so
/// contact would pull instead of push).
fn check_surface(mesh: &TriMesh) -> Result<(), String> {
    let area: f64 = mesh
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
            0.5 * (b - a).cross(&(c - a)).norm()
        })
        .sum();
    if !(area > 0.0 && area.is_finite()) {
        return Err(format!(
            "all {} triangles have zero area (each one's corners coincide or lie on a line): a body with no surface has no contact",
            mesh.triangles.len()
        ));
    }
    if super::io::check_closed_oriented(mesh).is_ok() {
        let volume = mesh.volume();
        if volume < 0.0 {
            return Err(format!(
                "the closed mesh encloses a negative volume ({volume:.3e} m^3): its faces run clockwise seen from outside, so every normal points inward; reverse each face's vertex order"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::io::{obj_string, write_ply, write_stl};

    #[test]
    fn obj_stl_and_ply_files_read_back_the_mesh_we_wrote() {
        let mesh = crate::models::pcm::primitives::torus(1.0, 0.3, 12, 8);
        let dir = tempfile::tempdir().unwrap();
        let obj = dir.path().join("t.obj");
        std::fs::write(&obj, obj_string(&mesh, &[])).unwrap();
        let stl = dir.path().join("t.STL");
        write_stl(&mesh, &mut std::fs::File::create(&stl).unwrap()).unwrap();
        let ply = dir.path().join("t.ply");
        write_ply(&mesh, &mut std::fs::File::create(&ply).unwrap()).unwrap();
        for (path, tol) in [(&obj, 0.0), (&ply, 1e-6), (&stl, 1e-6)] {
            let m = read_mesh(path, 2.0).unwrap();
            assert_eq!(
                m.triangles.len(),
                mesh.triangles.len(),
                "{}",
                path.display()
            );
            // the same triangles, in order (STL re-indexes its vertices)
            for (a, b) in m.triangles.iter().zip(&mesh.triangles) {
                for k in 0..3 {
                    let d = m.vertices[a[k] as usize] - 2.0 * mesh.vertices[b[k] as usize];
                    assert!(d.norm() <= tol * 4.0 + 1e-15, "{}: {d}", path.display());
                }
            }
        }
        // a quad face is cut into two triangles; a bad index is an error naming it
        let quad = dir.path().join("q.obj");
        std::fs::write(&quad, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
        assert_eq!(read_mesh(&quad, 1.0).unwrap().triangles.len(), 2);
        let bad = dir.path().join("b.ply");
        std::fs::write(&bad, "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n").unwrap();
        let e = read_mesh(&bad, 1.0).unwrap_err();
        assert!(e.contains("face 1 names vertex 8, but the file has 3 vertices"), "{e}");
        assert!(read_mesh(&dir.path().join("x.3ds"), 1.0)
            .unwrap_err()
            .contains("not an .obj"));
    }

    #[test]
    fn obj_statements_other_exporters_write_are_read() {
        // negative (relative) indices, v/vt/vn corners, comments, a continued line,
        // groups, materials and texture coordinates skipped
        let text = "# exported
mtllib a.mtl
o first
v 0 0 0
v 1 0 0 # x
v 0 1 0 1.0
vt 0 0
vn 0 0 1
                    usemtl m
s off
f 1/1/1 2/1/1 \
 3/1/1
g second
v 0 0 1
f -4//1 -2//1 -3//1
l 1 2
";
        let m = obj::parse(text.as_bytes()).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces, vec![vec![0, 1, 2], vec![0, 2, 1]]);
        assert_eq!(m.face_lines, vec![11, 14]);
        for (text, want) in [
            ("v 0 0
", "line 1: 'v' needs x y z, coordinate 3 is missing"),
            ("v 0 zero 0
", "line 1: vertex coordinate 2 'zero' is not a number"),
            ("v 0 0 0
f 1 2
", "line 2: a face needs at least 3 vertices"),
            ("v 0 0 0
f 0 1 1
", "line 2: face index 0"),
            ("v 0 0 0
f -2 1 1
", "line 2: face index -2 counts back past the first vertex"),
            ("v 0 0 0
f 1 a 1
", "line 2: face corner 'a' is not a vertex index"),
        ] {
            let e = obj::parse(text.as_bytes()).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn stl_ascii_and_binary_with_a_solid_header_are_told_apart_by_size() {
        let mesh = crate::models::pcm::primitives::torus(1.0, 0.3, 6, 4);
        let mut bin = vec![];
        write_stl(&mesh, &mut bin).unwrap();
        // a binary header may begin with "solid": the exact size decides
        bin[..5].copy_from_slice(b"solid");
        let m = stl::parse(&bin).unwrap();
        assert_eq!(m.faces.len(), mesh.triangles.len());
        // shared vertices: the torus's own count
        assert_eq!(m.vertices.len(), mesh.vertices.len());
        let ascii = "solid t
  facet normal 0 0 1
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 1 0
    endloop
  endfacet
endsolid t
";
        let m = stl::parse(ascii.as_bytes()).unwrap();
        assert_eq!((m.vertices.len(), m.faces.len()), (3, 1));
        for (text, want) in [
            (ascii.replace("      vertex 0 1 0
", ""), "line 2: the facet has 2 vertices"),
            (ascii.replace("endloop", "endlop"), "line 7: unexpected 'endlop' (expected 'vertex x y z' or 'endloop')"),
            (ascii.replace("endfacet
endsolid t
", ""), "line 2: the facet is not closed"),
            (ascii.replace("vertex 1 0 0", "vertex 1 0"), "line 5: 'vertex' needs x y z"),
        ] {
            let e = stl::parse(text.as_bytes()).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let e = stl::parse(b"tiny").unwrap_err();
        assert!(e.contains("4 bytes: too short"), "{e}");
        // NaN in a binary triangle names the triangle
        let mut nan = bin.clone();
        nan[84 + 50 + 12..84 + 50 + 16].copy_from_slice(&f32::NAN.to_le_bytes());
        let e = stl::parse(&nan).unwrap_err();
        assert!(e.contains("triangle 2 (byte 134): vertex 1 is not finite"), "{e}");
    }
}
