//! STL, binary and ASCII. A binary file is 80 header bytes, a little-endian u32
//! triangle count and 50 bytes per triangle (normal, three vertices as f32, two
//! attribute bytes): its size must be exactly 84 + 50 n. An ASCII file is `solid`,
//! then `facet normal nx ny nz / outer loop / vertex x y z (3x) / endloop /
//! endfacet` blocks, then `endsolid`. Vertices are shared by exact coordinates; the
//! file's normals are not used (the vertex order gives the outward side).

use super::{text_of, RawMesh};
use std::collections::HashMap;

/// The triangles of the STL file in `bytes`.
pub(super) fn parse(bytes: &[u8]) -> Result<RawMesh, String> {
    let count = bytes
        .get(80..84)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
    let binary_size = count.map(|n| 84 + 50 * n);
    if binary_size == Some(bytes.len() as u64) {
        return parse_binary(bytes);
    }
    let text_start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|k| &bytes[k..])
        .unwrap_or(&[]);
    if text_start.starts_with(b"solid") && std::str::from_utf8(bytes).is_ok() {
        return parse_ascii(bytes);
    }
    match (count, binary_size) {
        (Some(n), Some(size)) => Err(format!(
            "not an ASCII STL (it does not start with 'solid'), and as a binary STL its header counts {n} triangles, \
             which take 84 + 50 x {n} = {size} bytes, but the file has {} bytes: {}",
            bytes.len(),
            if size > bytes.len() as u64 { "truncated, or not an STL file" } else { "extra bytes after the triangles, or not an STL file" }
        )),
        _ => Err(format!(
            "{} bytes: too short for a binary STL (84 bytes of header and count) and not an ASCII STL (it does not start with 'solid')",
            bytes.len()
        )),
    }
}

/// Shares vertices with equal coordinates.
#[derive(Default)]
struct Shared {
    index: HashMap<[u64; 3], usize>,
}

impl Shared {
    fn add(&mut self, m: &mut RawMesh, v: [f64; 3]) -> usize {
        let key = v.map(f64::to_bits);
        *self.index.entry(key).or_insert_with(|| {
            m.vertices.push(v);
            m.vertices.len() - 1
        })
    }
}

fn parse_binary(bytes: &[u8]) -> Result<RawMesh, String> {
    let mut m = RawMesh::default();
    let mut shared = Shared::default();
    for (k, t) in bytes[84..].chunks_exact(50).enumerate() {
        let f = |i: usize| {
            let b = &t[4 * i..4 * i + 4];
            f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64
        };
        let mut face = Vec::with_capacity(3);
        for corner in 0..3 {
            let v = [f(3 + 3 * corner), f(4 + 3 * corner), f(5 + 3 * corner)];
            if !v.iter().all(|c| c.is_finite()) {
                return Err(format!(
                    "triangle {} (byte {}): vertex {} is not finite: {v:?}",
                    k + 1,
                    84 + 50 * k,
                    corner + 1
                ));
            }
            face.push(shared.add(&mut m, v));
        }
        m.faces.push(face);
    }
    Ok(m)
}

fn parse_ascii(bytes: &[u8]) -> Result<RawMesh, String> {
    let text = text_of(bytes, "an ASCII STL")?;
    let mut m = RawMesh::default();
    let mut shared = Shared::default();
    // the corners of the facet being read, and the line its facet began on
    let mut facet: Option<(usize, Vec<usize>)> = None;
    let mut in_loop = false;
    for (at, line) in text.lines().enumerate() {
        let n = at + 1;
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { continue };
        match word {
            "solid" | "endsolid" if facet.is_none() => {}
            "facet" if facet.is_none() => facet = Some((n, vec![])),
            "outer" if facet.is_some() && !in_loop => in_loop = true,
            "vertex" if in_loop => {
                let v = super::coordinates(&mut words, n, "vertex")?;
                let i = shared.add(&mut m, v);
                if let Some((_, corners)) = facet.as_mut() {
                    corners.push(i);
                }
            }
            "endloop" if in_loop => in_loop = false,
            "endfacet" if facet.is_some() && !in_loop => {
                let (start, corners) = facet.take().unwrap_or_default();
                if corners.len() != 3 {
                    return Err(format!(
                        "line {start}: the facet has {} vertices; STL facets are triangles",
                        corners.len()
                    ));
                }
                m.faces.push(corners);
                m.face_lines.push(start);
            }
            other => {
                return Err(format!(
                    "line {n}: unexpected '{}' {}",
                    super::shown(other),
                    match (&facet, in_loop) {
                        (None, _) => "(expected 'facet', 'solid' or 'endsolid')",
                        (Some(_), false) => "(expected 'outer loop' or 'endfacet')",
                        (Some(_), true) => "(expected 'vertex x y z' or 'endloop')",
                    }
                ))
            }
        }
    }
    if let Some((start, _)) = facet {
        return Err(format!("line {start}: the facet is not closed by 'endfacet' (truncated?)"));
    }
    Ok(m)
}
