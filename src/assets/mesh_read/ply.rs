//! PLY, ASCII or binary. The header is checked here, line by line, so that its
//! problems name their line and what was expected, and so that element counts the
//! file cannot hold are refused before anything is allocated for them; the data are
//! read by `ply-rs-bw`. Vertices: `x`, `y`, `z`; faces: `vertex_indices` (or
//! `vertex_index`), an integer list.

use super::RawMesh;

/// Bytes of a scalar PLY type, or `None` for a name that is none.
fn scalar_size(ty: &str) -> Option<u64> {
    Some(match ty {
        "char" | "uchar" | "int8" | "uint8" => 1,
        "short" | "ushort" | "int16" | "uint16" => 2,
        "int" | "uint" | "float" | "int32" | "uint32" | "float32" => 4,
        "double" | "float64" => 8,
        _ => return None,
    })
}

/// Longest header we read, bytes (real headers are a few hundred).
const MAX_HEADER: usize = 64 * 1024;

/// Checks the header of the PLY file in `bytes`: its lines' syntax, and that the
/// element counts fit into the file (each element takes at least one byte, or in a
/// binary file the sum of its scalar properties and list counts).
fn check_header(bytes: &[u8]) -> Result<(), String> {
    let end = bytes
        .windows(10)
        .take(MAX_HEADER)
        .position(|w| w == b"end_header")
        .ok_or_else(|| {
            if bytes.starts_with(b"ply") {
                format!("no 'end_header' line in the first {} KB: not a PLY header", MAX_HEADER / 1024)
            } else {
                "does not start with 'ply': not a PLY file".to_string()
            }
        })?;
    let head = std::str::from_utf8(&bytes[..end])
        .map_err(|e| format!("the header is not text: {e}"))?;
    let after = bytes[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|k| end + k + 1)
        .unwrap_or(bytes.len());
    let body = (bytes.len() - after) as u64;
    let mut binary = false;
    // (name, count, line, minimum bytes per element in a binary file)
    let mut elements: Vec<(String, u64, usize, u64)> = vec![];
    for (at, line) in head.lines().enumerate() {
        let n = at + 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = |what: &str| format!("line {n}: {what}, got '{}'", super::shown(line.trim()));
        match words.first().copied() {
            _ if n == 1 => {
                if words != ["ply"] {
                    return Err(bad("the first line must be 'ply'"));
                }
            }
            Some("format") => match words.get(1).copied() {
                Some("ascii") => binary = false,
                Some("binary_little_endian" | "binary_big_endian") => binary = true,
                _ => {
                    return Err(bad(
                        "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'",
                    ))
                }
            },
            Some("comment" | "obj_info") | None => {}
            Some("element") => {
                let count = match words[..] {
                    [_, _, count] => count.parse::<u64>().ok(),
                    _ => None,
                }
                .ok_or_else(|| bad("expected 'element <name> <count>'"))?;
                elements.push((words[1].to_string(), count, n, 0));
            }
            Some("property") => {
                let size = match words[..] {
                    [_, "list", count, item, _] => scalar_size(count).zip(scalar_size(item)).map(|(c, _)| c),
                    [_, ty, _] => scalar_size(ty),
                    _ => None,
                }
                .ok_or_else(|| {
                    bad("expected 'property <type> <name>' or 'property list <count type> <item type> <name>' (types: char uchar short ushort int uint float double, or int8 ... float64)")
                })?;
                let e = elements
                    .last_mut()
                    .ok_or_else(|| bad("a property before any 'element'"))?;
                e.3 += size;
            }
            Some(_) => return Err(bad("expected 'format', 'element', 'property' or 'comment'")),
        }
    }
    let mut need = 0u64;
    for (name, count, line, size) in &elements {
        if *size == 0 && *count > 0 {
            return Err(format!("line {line}: element '{name}' has no properties"));
        }
        // ASCII: at least one digit and a separator per element
        need = need.saturating_add(count.saturating_mul(if binary { *size } else { 2 }));
    }
    if need > body {
        return Err(format!(
            "the header's elements ({}) need at least {need} bytes of data, the file has {body} after the header: truncated, or the counts are wrong",
            elements
                .iter()
                .map(|(name, count, _, _)| format!("{count} {name}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(())
}

/// Vertices and faces of the PLY file in `bytes`.
pub(super) fn parse(bytes: &[u8]) -> Result<RawMesh, String> {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    check_header(bytes)?;
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut std::io::Cursor::new(bytes))
        .map_err(|e| {
            // the parser's message, without the debug dump it appends
            let text = e.to_string().replace("Couln't", "could not");
            let mut parts = text.split("\n\t");
            let first = parts.next().unwrap_or("").trim();
            let first = first.strip_prefix("Line ").map_or(first.to_string(), |l| format!("line {l}"));
            match parts.find_map(|p| p.strip_prefix("String: ")) {
                Some(s) => format!("{first} ('{}')", super::shown(s.trim().trim_matches('\'').trim())),
                None => first,
            }
        })?;
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
    let mut m = RawMesh::default();
    let verts = ply.payload.get("vertex").ok_or("no 'vertex' element")?;
    m.vertices.reserve(verts.len());
    for (i, e) in verts.iter().enumerate() {
        let mut p = [0.0; 3];
        for (k, name) in ["x", "y", "z"].iter().enumerate() {
            p[k] = e
                .get(*name)
                .and_then(number)
                .ok_or_else(|| format!("vertex {} has no number '{name}'", i + 1))?;
        }
        m.vertices.push(p);
    }
    let faces = ply.payload.get("face").ok_or("no 'face' element")?;
    m.faces.reserve(faces.len());
    for (k, e) in faces.iter().enumerate() {
        let idx = e
            .get("vertex_indices")
            .or_else(|| e.get("vertex_index"))
            .and_then(list)
            .ok_or_else(|| format!("face {} has no integer list 'vertex_indices'", k + 1))?;
        if let Some(i) = idx.iter().find(|&&i| i < 0) {
            return Err(format!("face {} has a negative vertex index ({i})", k + 1));
        }
        m.faces.push(idx.into_iter().map(|i| i as usize).collect());
    }
    Ok(m)
}
