//! Soil surface export (Buse 2023, section 4.2, surface visualization): the touched
//! part of the field as a 16-bit grayscale PNG height image, a binary PLY mesh (opens
//! in ParaView and MeshLab) and a JSON sidecar that maps the image back to metres.

use super::grid::{SoilGrid, TILE};
use super::rect::Rect;
use crate::geometry::terrain::Surface;
use std::io::Write;
use std::path::Path;

/// The rectangle exported: the stored tiles, or one tile at the field's centre when
/// nothing was touched yet.
pub fn export_rect(grid: &SoilGrid) -> Rect {
    let r = grid.touched();
    if !r.is_empty() {
        return r;
    }
    let e = grid.extent;
    Rect {
        i0: e.i0 + e.nx / 2 - TILE / 2,
        j0: e.j0 + e.ny / 2 - TILE / 2,
        nx: TILE,
        ny: TILE,
    }
    .intersect(&e)
}

/// Writes `<stem>.png`, `<stem>.ply` and `<stem>.json`; returns the stem. Creates the
/// folder if needed. Errors name the file.
pub fn write(grid: &SoilGrid, base: &Surface, stem: &Path) -> Result<String, String> {
    if let Some(dir) = stem.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let rect = export_rect(grid);
    let (mut h, mut zp, mut js) = (vec![], vec![], vec![]);
    grid.load(base, &rect, &mut h, &mut zp, &mut js);
    let (nx, ny) = (rect.nx as usize, rect.ny as usize);
    let lo = h.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = h.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (hi - lo).max(1e-12);
    let ds = grid.ds;
    // PNG: row 0 is the largest y (north up), 0 = lowest, 65535 = highest
    let png_path = stem.with_extension("png");
    let file =
        std::fs::File::create(&png_path).map_err(|e| format!("{}: {e}", png_path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), nx as u32, ny as u32);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Sixteen);
    let mut data = Vec::with_capacity(nx * ny * 2);
    for row in (0..ny).rev() {
        for i in 0..nx {
            let v = ((h[row * nx + i] - lo) / span * 65535.0).round() as u16;
            data.extend_from_slice(&v.to_be_bytes());
        }
    }
    let err = |e: png::EncodingError| format!("{}: {e}", png_path.display());
    let mut w = enc.write_header().map_err(err)?;
    w.write_image_data(&data).map_err(err)?;
    w.finish().map_err(err)?;
    // PLY: binary little endian, a vertex per node, two triangles per cell
    let ply_path = stem.with_extension("ply");
    let file =
        std::fs::File::create(&ply_path).map_err(|e| format!("{}: {e}", ply_path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let faces = 2 * (nx.saturating_sub(1)) * (ny.saturating_sub(1));
    let io = |e: std::io::Error| format!("{}: {e}", ply_path.display());
    write!(
        out,
        "ply\nformat binary_little_endian 1.0\ncomment contact-fmu SCM soil surface, m, world frame (z up)\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {faces}\nproperty list uchar int vertex_indices\nend_header\n",
        nx * ny
    )
    .map_err(io)?;
    for j in 0..ny {
        for i in 0..nx {
            let x = (rect.i0 + i as i32) as f64 * ds;
            let y = (rect.j0 + j as i32) as f64 * ds;
            for c in [x, y, h[j * nx + i]] {
                out.write_all(&(c as f32).to_le_bytes()).map_err(io)?;
            }
        }
    }
    for j in 0..ny.saturating_sub(1) {
        for i in 0..nx.saturating_sub(1) {
            let a = (j * nx + i) as i32;
            for t in [
                [a, a + 1, a + 1 + nx as i32],
                [a, a + 1 + nx as i32, a + nx as i32],
            ] {
                out.write_all(&[3u8]).map_err(io)?;
                for k in t {
                    out.write_all(&k.to_le_bytes()).map_err(io)?;
                }
            }
        }
    }
    out.flush().map_err(io)?;
    // sidecar
    let json_path = stem.with_extension("json");
    let meta = serde_json::json!({
        "ds": ds,
        "x0": rect.i0 as f64 * ds,
        "y0": rect.j0 as f64 * ds,
        "nx": nx,
        "ny": ny,
        "z_min": lo,
        "z_max": hi,
        "png": "16-bit grayscale, row 0 at the largest y; z = z_min + v / 65535 (z_max - z_min)",
        "volume_m3": grid.volume(),
    });
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&meta).unwrap_or_default(),
    )
    .map_err(|e| format!("{}: {e}", json_path.display()))?;
    Ok(stem.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_png_ply_and_sidecar() {
        let base = Surface::Plane {
            height: 0.0,
            angle: 0.0,
        };
        let (mut g, r, [mut h, zp, js]) = crate::models::scm::grid::small_field(&base);
        h[4] = 0.01;
        g.store(&base, &r, &h, &zp, &js, &[true; 9]);
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("out/soil");
        write(&g, &base, &stem).unwrap();
        let png = std::fs::read(stem.with_extension("png")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let ply = std::fs::read(stem.with_extension("ply")).unwrap();
        assert!(ply.starts_with(b"ply\nformat binary_little_endian"));
        // 32 x 32 nodes (one tile): header + 1024 vertices x 12 bytes + faces x 13
        let header_end = ply.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        assert_eq!(ply.len() - header_end, 1024 * 12 + 2 * 31 * 31 * 13);
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(stem.with_extension("json")).unwrap()).unwrap();
        assert_eq!(meta["z_max"], 0.01);
    }
}
