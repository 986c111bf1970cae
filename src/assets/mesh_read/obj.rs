//! Wavefront OBJ, the geometry part: `v x y z [w | r g b]` and `f` lines (`i`,
//! `i/t`, `i//n`, `i/t/n`, negative indices counting back from the last vertex),
//! lines continued with a trailing `\`. Texture coordinates, normals, groups,
//! materials and the other statements are skipped. Every problem names its line.

use super::{text_of, RawMesh};

/// The vertices and faces of the OBJ text in `bytes` (`what`: "an OBJ mesh").
pub(super) fn parse(bytes: &[u8]) -> Result<RawMesh, String> {
    let text = text_of(bytes, "an OBJ mesh")?;
    let mut m = RawMesh::default();
    let mut lines = text.lines().enumerate();
    let mut joined = String::new();
    while let Some((at, first)) = lines.next() {
        // a trailing backslash continues the statement on the next line
        let mut line = first;
        if first.ends_with('\\') {
            joined.clear();
            joined.push_str(first.trim_end_matches('\\'));
            for (_, next) in lines.by_ref() {
                joined.push(' ');
                joined.push_str(next.trim_end_matches('\\'));
                if !next.ends_with('\\') {
                    break;
                }
            }
            line = &joined;
        }
        let n = at + 1;
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let v = super::coordinates(&mut words, n, "v")?;
                m.vertices.push(v);
            }
            Some("f") => {
                let mut face = Vec::with_capacity(4);
                for word in words {
                    let index = word.split('/').next().unwrap_or("");
                    let i: i64 = index.parse().map_err(|_| {
                        format!(
                            "line {n}: face corner '{}' is not a vertex index",
                            super::shown(word)
                        )
                    })?;
                    let count = m.vertices.len() as i64;
                    // OBJ indices are 1-based; -1 is the last vertex read so far
                    let zero_based = match i {
                        0 => return Err(format!("line {n}: face index 0 (OBJ counts from 1)")),
                        i if i < 0 && -i <= count => count + i,
                        i if i < 0 => {
                            return Err(format!(
                                "line {n}: face index {i} counts back past the first vertex ({count} read so far)"
                            ))
                        }
                        i => i - 1,
                    };
                    face.push(zero_based as usize);
                }
                if face.len() < 3 {
                    return Err(format!(
                        "line {n}: a face needs at least 3 vertices, this one has {}",
                        face.len()
                    ));
                }
                m.faces.push(face);
                m.face_lines.push(n);
            }
            _ => {}
        }
    }
    Ok(m)
}

/// The vertices of the OBJ file at `path` (its faces checked, not returned): the
/// points a convex hull is built from.
pub fn read_vertices(path: &std::path::Path) -> Result<Vec<[f64; 3]>, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let m = parse(&bytes).map_err(|e| format!("{shown}: {e}"))?;
    m.check_indices().map_err(|e| format!("{shown}: {e}"))?;
    if m.vertices.is_empty() {
        return Err(format!("{shown}: no vertices ('v x y z' lines)"));
    }
    Ok(m.vertices)
}
