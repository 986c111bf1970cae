//! Reading triangle meshes from the files CAD tools export (FreeCAD, MeshLab,
//! Blender): Wavefront OBJ (`tobj`), STL binary or ASCII (`stl_io`), PLY ASCII or
//! binary (`ply-rs-bw`). Polygons are triangulated as fans; the face order of the file
//! is kept (counter-clockwise seen from outside gives outward normals). Read once, at
//! instantiation or packaging, never in the step loop.

use crate::models::scm::mesh::TriMesh;
use nalgebra::Vector3;
use std::io::BufReader;
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

/// Reads the triangle mesh in `path`, its vertices multiplied by `scale`. Errors name
/// the file and what is wrong (no faces, an index out of range, a NaN coordinate).
pub fn read_mesh(path: &Path, scale: f64) -> Result<TriMesh, String> {
    let shown = path.display();
    let format = MeshFormat::of(&path.to_string_lossy())
        .ok_or_else(|| format!("{shown}: not an .obj, .stl or .ply file"))?;
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut reader = BufReader::new(file);
    let (vertices, faces): (Vec<[f64; 3]>, Vec<Vec<usize>>) = match format {
        MeshFormat::Obj => {
            let opts = tobj::LoadOptions {
                triangulate: false,
                single_index: false,
                ..Default::default()
            };
            // materials are not needed: a missing .mtl is no error
            let (models, _) =
                tobj::load_obj_buf(&mut reader, &opts, |_| Err(tobj::LoadError::OpenFileFailed))
                    .map_err(|e| format!("{shown}: {e}"))?;
            let mut v = vec![];
            let mut f = vec![];
            for m in &models {
                let base = v.len();
                let p = &m.mesh.positions;
                v.extend(p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
                let idx = &m.mesh.indices;
                if m.mesh.face_arities.is_empty() {
                    f.extend(
                        idx.chunks_exact(3)
                            .map(|t| t.iter().map(|&i| base + i as usize).collect()),
                    );
                } else {
                    let mut at = 0;
                    for &n in &m.mesh.face_arities {
                        let n = n as usize;
                        f.push(idx[at..at + n].iter().map(|&i| base + i as usize).collect());
                        at += n;
                    }
                }
            }
            (v, f)
        }
        MeshFormat::Stl => {
            let m = stl_io::read_stl(&mut reader).map_err(|e| format!("{shown}: {e}"))?;
            (
                m.vertices
                    .iter()
                    .map(|v| [v.0[0] as f64, v.0[1] as f64, v.0[2] as f64])
                    .collect(),
                m.faces.iter().map(|t| t.vertices.to_vec()).collect(),
            )
        }
        MeshFormat::Ply => read_ply(&mut reader).map_err(|e| format!("{shown}: {e}"))?,
    };
    let mut mesh = TriMesh::default();
    for (i, v) in vertices.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite()) {
            return Err(format!("{shown}: vertex {} is not finite: {v:?}", i + 1));
        }
        mesh.vertices
            .push(Vector3::new(v[0] * scale, v[1] * scale, v[2] * scale));
    }
    for (k, f) in faces.iter().enumerate() {
        if f.len() < 3 {
            return Err(format!("{shown}: face {} has {} vertices", k + 1, f.len()));
        }
        if let Some(&bad) = f.iter().find(|&&i| i >= vertices.len()) {
            return Err(format!(
                "{shown}: face {} names vertex {} of {}",
                k + 1,
                bad + 1,
                vertices.len()
            ));
        }
        // a fan from the first vertex
        for j in 1..f.len() - 1 {
            mesh.triangles
                .push([f[0] as u32, f[j] as u32, f[j + 1] as u32]);
        }
    }
    if mesh.triangles.is_empty() {
        return Err(format!("{shown}: no faces"));
    }
    Ok(mesh)
}

type Faces = (Vec<[f64; 3]>, Vec<Vec<usize>>);

/// Vertices (`x`, `y`, `z`) and faces (`vertex_indices` or `vertex_index`) of a PLY
/// file.
fn read_ply(reader: &mut impl std::io::Read) -> Result<Faces, String> {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    let ply = Parser::<DefaultElement>::new()
        .read_ply(reader)
        .map_err(|e| e.to_string())?;
    let number = |p: &Property| -> Option<f64> {
        Some(match p {
            Property::Char(v) => *v as f64,
            Property::UChar(v) => *v as f64,
            Property::Short(v) => *v as f64,
            Property::UShort(v) => *v as f64,
            Property::Int(v) => *v as f64,
            Property::UInt(v) => *v as f64,
            Property::Float(v) => *v as f64,
            Property::Double(v) => *v,
            _ => return None,
        })
    };
    let list = |p: &Property| -> Option<Vec<i64>> {
        Some(match p {
            Property::ListChar(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUChar(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListShort(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUShort(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListInt(v) => v.iter().map(|&x| x as i64).collect(),
            Property::ListUInt(v) => v.iter().map(|&x| x as i64).collect(),
            _ => return None,
        })
    };
    let verts = ply.payload.get("vertex").ok_or("no 'vertex' element")?;
    let mut v = Vec::with_capacity(verts.len());
    for (i, e) in verts.iter().enumerate() {
        let mut p = [0.0; 3];
        for (k, name) in ["x", "y", "z"].iter().enumerate() {
            p[k] = e
                .get(*name)
                .and_then(number)
                .ok_or_else(|| format!("vertex {} has no number '{name}'", i + 1))?;
        }
        v.push(p);
    }
    let faces = ply.payload.get("face").ok_or("no 'face' element")?;
    let mut f = Vec::with_capacity(faces.len());
    for (k, e) in faces.iter().enumerate() {
        let idx = e
            .get("vertex_indices")
            .or_else(|| e.get("vertex_index"))
            .and_then(list)
            .ok_or_else(|| format!("face {} has no integer list 'vertex_indices'", k + 1))?;
        if idx.iter().any(|&i| i < 0) {
            return Err(format!("face {} has a negative vertex index", k + 1));
        }
        f.push(idx.into_iter().map(|i| i as usize).collect());
    }
    Ok((v, f))
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
        assert!(e.contains("face 1 names vertex 8 of 3"), "{e}");
        assert!(read_mesh(&dir.path().join("x.3ds"), 1.0)
            .unwrap_err()
            .contains("not an .obj"));
    }
}
