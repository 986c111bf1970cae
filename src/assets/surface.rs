//! Procedural surfaces (Buse 2023, section 3.2, Fig. 2): from a height map, from a
//! profile in one direction (a slope, a ramp), from noise (Perlin or simplex fBm,
//! ridged multifractal; the libnoise family, here the `noise` crate), and any sum of
//! these. Heights are world z (m) over world (x, y) (m).
//!
//! Queries are resolution independent: [`Terrain::height`] interpolates height maps
//! bilinearly (exact at the map's nodes, continuous between them), profiles linearly,
//! and noise is continuous by construction; [`Terrain::normal`] differentiates the
//! height by central differences over `NORMAL_STEP`. [`Terrain::grid`] samples a
//! height grid (for SCM) and [`HeightGrid::mesh`] triangulates it.

use crate::pmath;
use super::AssetError;
use crate::geometry::mesh::TriMesh;
use crate::geometry::terrain::HeightField;
use nalgebra::Vector3;
use super::fbm::Fbm2;
use noise::{MultiFractal, NoiseFn, Perlin, RidgedMulti, Simplex};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Step of the central differences that give the normal, m.
pub const NORMAL_STEP: f64 = 1e-4;

/// Noise basis function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoiseKind {
    Perlin,
    Simplex,
}

/// How octaves combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fractal {
    /// Fractional Brownian motion (sum of octaves).
    Fbm,
    /// Ridged multifractal (sharp crests).
    Ridged,
}

/// One layer of a surface; the surface is the sum of its layers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Layer {
    /// A plane through (0, 0, `height`) rising with `slope` (degrees) towards the
    /// compass `direction` (degrees from +x towards +y).
    Slope {
        #[serde(default)]
        height: f64,
        slope: f64,
        #[serde(default)]
        direction: f64,
    },
    /// A profile z(s) along `direction` (degrees from +x towards +y), s = x cos + y sin;
    /// `points` are (s, z) pairs in m with s increasing, linear in between, constant
    /// beyond the ends.
    Profile {
        points: Vec<[f64; 2]>,
        #[serde(default)]
        direction: f64,
    },
    /// A height map: a PNG (8 or 16-bit grayscale) or CSV file (rows along y, columns
    /// along x). Node (i, j) sits at `origin` + (i, j) `cell` with height
    /// `offset` + `scale` v, where v is the CSV number or the PNG value over its maximum
    /// (255 or 65535). Outside the map the edge height continues.
    HeightMap {
        file: String,
        cell: f64,
        #[serde(default = "one")]
        scale: f64,
        #[serde(default)]
        offset: f64,
        #[serde(default)]
        origin: [f64; 2],
    },
    /// Noise: `amplitude` (m) times a fractal of `octaves` of Perlin or simplex noise of
    /// base `frequency` (1/m), each octave `lacunarity` times the frequency and
    /// `persistence` times the amplitude of the previous one.
    Noise {
        #[serde(default = "perlin")]
        kind: NoiseKind,
        #[serde(default = "fbm")]
        fractal: Fractal,
        #[serde(default = "six")]
        octaves: u32,
        frequency: f64,
        amplitude: f64,
        #[serde(default = "two")]
        lacunarity: f64,
        #[serde(default = "half")]
        persistence: f64,
        #[serde(default)]
        seed: u32,
    },
}

fn one() -> f64 {
    1.0
}
fn two() -> f64 {
    2.0
}
fn half() -> f64 {
    0.5
}
fn six() -> u32 {
    6
}
fn perlin() -> NoiseKind {
    NoiseKind::Perlin
}
fn fbm() -> Fractal {
    Fractal::Fbm
}

/// A surface request: the layers, and the rectangle and spacing of its grid and mesh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurfaceParams {
    /// Summed layers (none: the plane z = 0).
    #[serde(default)]
    pub layers: Vec<Layer>,
    /// [x_min, x_max, y_min, y_max], m.
    pub extent: [f64; 4],
    /// Grid spacing of the height grid and mesh, m.
    pub resolution: f64,
}

impl SurfaceParams {
    /// Checks the parameters; errors name the field.
    pub fn validate(&self) -> Result<(), AssetError> {
        let [x0, x1, y0, y1] = self.extent;
        if !(x1 > x0 && y1 > y0) || self.extent.iter().any(|v| !v.is_finite()) {
            return Err(AssetError::param(
                "surface.extent",
                format!(
                    "needs x_min < x_max and y_min < y_max, got {:?}",
                    self.extent
                ),
            ));
        }
        if !(self.resolution > 0.0) {
            return Err(AssetError::param(
                "surface.resolution",
                format!("must be > 0 m, got {}", self.resolution),
            ));
        }
        if self.resolution > (x1 - x0).min(y1 - y0) {
            return Err(AssetError::param(
                "surface.resolution",
                format!(
                    "{} m is coarser than the extent: no cell fits",
                    self.resolution
                ),
            ));
        }
        let nodes = ((x1 - x0) / self.resolution + 1.0) * ((y1 - y0) / self.resolution + 1.0);
        if nodes > 2.0e8 {
            return Err(AssetError::param(
                "surface.resolution",
                format!("gives {nodes:.3e} nodes (at most 2e8)"),
            ));
        }
        for (k, l) in self.layers.iter().enumerate() {
            let f = |name: &str| format!("surface.layers[{k}].{name}");
            match l {
                Layer::Slope { slope, .. } if !(slope.abs() < 89.0) => {
                    return Err(AssetError::param(
                        f("slope"),
                        format!("must be within +-89 degrees, got {slope}"),
                    ))
                }
                Layer::Profile { points, .. }
                    if points.is_empty() || points.windows(2).any(|w| !(w[1][0] > w[0][0])) =>
                {
                    return Err(AssetError::param(
                        f("points"),
                        "needs at least one (s, z) pair, s strictly increasing",
                    ));
                }
                Layer::HeightMap { cell, .. } if !(*cell > 0.0) => {
                    return Err(AssetError::param(
                        f("cell"),
                        format!("must be > 0 m, got {cell}"),
                    ))
                }
                Layer::Noise {
                    octaves, frequency, ..
                } => {
                    if !(1..=16).contains(octaves) {
                        return Err(AssetError::param(
                            f("octaves"),
                            format!("must be 1 to 16, got {octaves}"),
                        ));
                    }
                    if !(*frequency > 0.0) {
                        return Err(AssetError::param(
                            f("frequency"),
                            format!("must be > 0 1/m, got {frequency}"),
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Height-map files this request reads (relative to the request's folder).
    pub fn files(&self) -> Vec<&str> {
        self.layers
            .iter()
            .filter_map(|l| match l {
                Layer::HeightMap { file, .. } => Some(file.as_str()),
                _ => None,
            })
            .collect()
    }
}

enum Source {
    Plane {
        h: f64,
        gx: f64,
        gy: f64,
    },
    Profile {
        c: f64,
        s: f64,
        points: Vec<[f64; 2]>,
    },
    Map(HeightField),
    Fbm(Box<dyn NoiseFn<f64, 2> + Send + Sync>, f64),
}

/// A surface ready for queries.
pub struct Terrain {
    sources: Vec<Source>,
}

fn read_map(path: &Path, field: &str) -> Result<(usize, usize, Vec<f64>), AssetError> {
    let (nx, ny, v, full) = read_map_raw(path, field)?;
    Ok((nx, ny, v.into_iter().map(|x| x / full).collect()))
}

/// A map of whole numbers 0 to 255 (soil classes): an 8-bit grayscale PNG or a CSV of
/// integers (rows along y, columns along x). Returns (columns, rows, values).
pub fn read_classes(path: &Path, field: &str) -> Result<(usize, usize, Vec<u8>), AssetError> {
    let (nx, ny, v, full) = read_map_raw(path, field)?;
    if full == 65535.0 {
        return Err(AssetError::param(
            field,
            format!(
                "{}: a 16-bit PNG; use 8 bits (the pixel value is the class)",
                path.display()
            ),
        ));
    }
    let mut out = Vec::with_capacity(v.len());
    for (k, x) in v.into_iter().enumerate() {
        if !((0.0..=255.0).contains(&x) && x.fract() == 0.0) {
            return Err(AssetError::param(
                field,
                format!(
                    "{}: value {x} at column {}, row {} is not a class number 0 to 255",
                    path.display(),
                    k % nx,
                    k / nx
                ),
            ));
        }
        out.push(x as u8);
    }
    Ok((nx, ny, out))
}

/// The most pixels a PNG map (height or soil class) may have: 1e8, about 1 GB while
/// reading (the image buffer and its heights as f64).
pub const MAX_MAP_PIXELS: u64 = 100_000_000;

/// The values of a map file as stored, and their full scale (255 or 65535 for a PNG,
/// 1 for a CSV).
fn read_map_raw(path: &Path, field: &str) -> Result<(usize, usize, Vec<f64>, f64), AssetError> {
    let io = |e: std::io::Error| AssetError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let is_png = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if is_png {
        let file = std::fs::File::open(path).map_err(io)?;
        let mut dec = png::Decoder::new(std::io::BufReader::new(file));
        dec.set_transformations(png::Transformations::IDENTITY);
        let mut reader = dec
            .read_info()
            .map_err(|e| AssetError::param(field, format!("{}: {e}", path.display())))?;
        // the header's size, checked before the image buffer is allocated: deflate packs
        // 1e10 zero pixels into a few MB (issue 26)
        let (w, h) = (reader.info().width as u64, reader.info().height as u64);
        if w * h > MAX_MAP_PIXELS {
            return Err(AssetError::param(
                field,
                format!(
                    "{}: claims {w} x {h} pixels, at most {MAX_MAP_PIXELS:e} (10000 x 10000) are read; use a coarser map",
                    path.display()
                ),
            ));
        }
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| AssetError::param(field, format!("{}: {e}", path.display())))?;
        if info.color_type != png::ColorType::Grayscale {
            return Err(AssetError::param(
                field,
                format!(
                    "{}: must be a grayscale PNG, is {:?}",
                    path.display(),
                    info.color_type
                ),
            ));
        }
        let (nx, ny) = (info.width as usize, info.height as usize);
        if nx < 2 || ny < 2 {
            return Err(AssetError::param(
                field,
                format!(
                    "{}: needs at least 2 x 2 pixels, has {nx} x {ny}",
                    path.display()
                ),
            ));
        }
        let (h, full) = match info.bit_depth {
            png::BitDepth::Eight => (buf[..nx * ny].iter().map(|&v| v as f64).collect(), 255.0),
            png::BitDepth::Sixteen => (
                buf[..2 * nx * ny]
                    .chunks(2)
                    .map(|c| u16::from_be_bytes([c[0], c[1]]) as f64)
                    .collect(),
                65535.0,
            ),
            d => {
                return Err(AssetError::param(
                    field,
                    format!("{}: bit depth {d:?}; use 8 or 16", path.display()),
                ))
            }
        };
        return Ok((nx, ny, h, full));
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let mut h = vec![];
    let mut nx = 0;
    let mut ny = 0;
    for (row, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let vals: Result<Vec<f64>, _> = line
            .split([',', ';', ' ', '\t'])
            .filter(|s| !s.is_empty())
            .map(str::parse::<f64>)
            .collect();
        let vals = vals.map_err(|e| {
            AssetError::param(field, format!("{} line {}: {e}", path.display(), row + 1))
        })?;
        if ny > 0 && vals.len() != nx {
            return Err(AssetError::param(
                field,
                format!(
                    "{} line {}: {} values, the first row has {nx}",
                    path.display(),
                    row + 1,
                    vals.len()
                ),
            ));
        }
        nx = vals.len();
        ny += 1;
        h.extend(vals);
    }
    if nx < 2 || ny < 2 {
        return Err(AssetError::param(
            field,
            format!(
                "{}: needs at least 2 x 2 values, has {nx} x {ny}",
                path.display()
            ),
        ));
    }
    Ok((nx, ny, h, 1.0))
}

impl Terrain {
    /// Builds the surface of `p`; height-map files are read relative to `dir`.
    pub fn new(p: &SurfaceParams, dir: &Path) -> Result<Terrain, AssetError> {
        p.validate()?;
        let mut sources = vec![];
        for (k, l) in p.layers.iter().enumerate() {
            sources.push(match l {
                Layer::Slope {
                    height,
                    slope,
                    direction,
                } => {
                    let (t, d) = (pmath::tan(slope.to_radians()), direction.to_radians());
                    Source::Plane {
                        h: *height,
                        gx: t * pmath::cos(d),
                        gy: t * pmath::sin(d),
                    }
                }
                Layer::Profile { points, direction } => {
                    let d = direction.to_radians();
                    Source::Profile {
                        c: pmath::cos(d),
                        s: pmath::sin(d),
                        points: points.clone(),
                    }
                }
                Layer::HeightMap {
                    file,
                    cell,
                    scale,
                    offset,
                    origin,
                } => {
                    let path: PathBuf = dir.join(file);
                    let (nx, ny, v) = read_map(&path, &format!("surface.layers[{k}].file"))?;
                    let h = v.iter().map(|v| offset + scale * v).collect();
                    Source::Map(HeightField::new(origin[0], origin[1], *cell, nx, ny, h))
                }
                Layer::Noise {
                    kind,
                    fractal,
                    octaves,
                    frequency,
                    amplitude,
                    lacunarity,
                    persistence,
                    seed,
                } => {
                    // one fractal's settings, for any basis and kind of fractal
                    fn set<T: MultiFractal>(t: T, o: usize, f: f64, l: f64, p: f64) -> T {
                        t.set_octaves(o)
                            .set_frequency(f)
                            .set_lacunarity(l)
                            .set_persistence(p)
                    }
                    let a = (*octaves as usize, *frequency, *lacunarity, *persistence);
                    let f: Box<dyn NoiseFn<f64, 2> + Send + Sync> = match (kind, fractal) {
                        // fBm: our own, the same bits on every platform (fbm.rs)
                        (NoiseKind::Perlin, Fractal::Fbm) => {
                            Box::new(Fbm2::<Perlin>::new(*seed, a.0, a.1, a.2, a.3))
                        }
                        (NoiseKind::Simplex, Fractal::Fbm) => {
                            Box::new(Fbm2::<Simplex>::new(*seed, a.0, a.1, a.2, a.3))
                        }
                        (NoiseKind::Perlin, Fractal::Ridged) => {
                            Box::new(set(RidgedMulti::<Perlin>::new(*seed), a.0, a.1, a.2, a.3))
                        }
                        (NoiseKind::Simplex, Fractal::Ridged) => {
                            Box::new(set(RidgedMulti::<Simplex>::new(*seed), a.0, a.1, a.2, a.3))
                        }
                    };
                    Source::Fbm(f, *amplitude)
                }
            });
        }
        Ok(Terrain { sources })
    }

    /// Surface height at (x, y), m.
    pub fn height(&self, x: f64, y: f64) -> f64 {
        let mut z = 0.0;
        for s in &self.sources {
            z += match s {
                Source::Plane { h, gx, gy } => h + gx * x + gy * y,
                Source::Profile { c, s, points } => profile(points, c * x + s * y),
                Source::Map(m) => m.height(x, y),
                Source::Fbm(f, a) => a * f.get([x, y]),
            };
        }
        z
    }

    /// Unit upward surface normal at (x, y).
    pub fn normal(&self, x: f64, y: f64) -> Vector3<f64> {
        let e = NORMAL_STEP;
        let gx = (self.height(x + e, y) - self.height(x - e, y)) / (2.0 * e);
        let gy = (self.height(x, y + e) - self.height(x, y - e)) / (2.0 * e);
        Vector3::new(-gx, -gy, 1.0).normalize()
    }

    /// Heights on the grid of `p` (rows in parallel; the same values for any thread
    /// count). `progress` is called with the rows done so far.
    pub fn grid(&self, p: &SurfaceParams, progress: &(dyn Fn(u64, u64) + Sync)) -> HeightGrid {
        let [x0, x1, y0, y1] = p.extent;
        let d = p.resolution;
        let nx = ((x1 - x0) / d + 1e-9).floor() as usize + 1;
        let ny = ((y1 - y0) / d + 1e-9).floor() as usize + 1;
        let mut h = vec![0.0; nx * ny];
        let done = std::sync::atomic::AtomicU64::new(0);
        h.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
            let y = y0 + j as f64 * d;
            for (i, z) in row.iter_mut().enumerate() {
                *z = self.height(x0 + i as f64 * d, y);
            }
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n % 64 == 0 || n == ny as u64 {
                progress(n, ny as u64);
            }
        });
        HeightField::new(x0, y0, d, nx, ny, h)
    }
}

fn profile(points: &[[f64; 2]], s: f64) -> f64 {
    let k = points.partition_point(|p| p[0] <= s);
    if k == 0 {
        return points[0][1];
    }
    if k == points.len() {
        return points[k - 1][1];
    }
    let (a, b) = (points[k - 1], points[k]);
    a[1] + (b[1] - a[1]) * (s - a[0]) / (b[0] - a[0])
}

/// A sampled surface: the terrain model's height field (node (i, j) at
/// (x0 + i cell, y0 + j cell), row-major), here with its outputs.
pub use crate::geometry::terrain::HeightField as HeightGrid;

impl HeightField {
    /// Lowest and highest height, m.
    pub fn range(&self) -> (f64, f64) {
        self.h
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &z| {
                (a.min(z), b.max(z))
            })
    }

    /// The grid as an open triangle mesh (two triangles per cell, normals up).
    pub fn mesh(&self) -> TriMesh {
        let mut m = TriMesh::default();
        m.vertices.reserve(self.nx * self.ny);
        for j in 0..self.ny {
            for i in 0..self.nx {
                m.vertices.push(Vector3::new(
                    self.x0 + i as f64 * self.cell,
                    self.y0 + j as f64 * self.cell,
                    self.h[j * self.nx + i],
                ));
            }
        }
        m.triangles.reserve(2 * (self.nx - 1) * (self.ny - 1));
        for j in 0..self.ny.saturating_sub(1) {
            for i in 0..self.nx.saturating_sub(1) {
                let a = (j * self.nx + i) as u32;
                let (b, c, d) = (a + 1, a + 1 + self.nx as u32, a + self.nx as u32);
                m.triangles.push([a, b, c]);
                m.triangles.push([a, c, d]);
            }
        }
        m
    }

    /// The grid as a 16-bit grayscale PNG, 0 = lowest, 65535 = highest (row 0 at y0).
    pub fn png16(&self) -> Result<Vec<u8>, AssetError> {
        let (lo, hi) = self.range();
        let span = if hi > lo { hi - lo } else { 1.0 };
        let mut data = Vec::with_capacity(2 * self.h.len());
        for z in &self.h {
            let v = (((z - lo) / span) * 65535.0).round().clamp(0.0, 65535.0) as u16;
            data.extend_from_slice(&v.to_be_bytes());
        }
        let mut out = vec![];
        {
            let mut enc = png::Encoder::new(&mut out, self.nx as u32, self.ny as u32);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Sixteen);
            let mut w = enc
                .write_header()
                .map_err(|e| AssetError::param("surface", e.to_string()))?;
            w.write_image_data(&data)
                .map_err(|e| AssetError::param("surface", e.to_string()))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(layers: Vec<Layer>) -> SurfaceParams {
        SurfaceParams {
            layers,
            extent: [0.0, 10.0, 0.0, 10.0],
            resolution: 0.5,
        }
    }

    fn noise(seed: u32) -> Layer {
        Layer::Noise {
            kind: NoiseKind::Perlin,
            fractal: Fractal::Fbm,
            octaves: 6,
            frequency: 0.2,
            amplitude: 0.5,
            lacunarity: 2.0,
            persistence: 0.5,
            seed,
        }
    }

    #[test]
    fn a_csv_height_map_is_reproduced_at_its_nodes_and_continuous_between() {
        let dir = tempfile::tempdir().unwrap();
        let rows = [
            [0.0, 1.0, 4.0, 2.0],
            [0.5, -1.0, 3.0, 2.5],
            [1.0, 0.0, 0.0, 7.0],
        ];
        let text: String = rows
            .iter()
            .map(|r| r.map(|v| v.to_string()).join(",") + "\n")
            .collect();
        std::fs::write(dir.path().join("map.csv"), text).unwrap();
        let layer = Layer::HeightMap {
            file: "map.csv".into(),
            cell: 0.5,
            scale: 2.0,
            offset: 1.0,
            origin: [-1.0, 3.0],
        };
        let t = Terrain::new(&params(vec![layer]), dir.path()).unwrap();
        for (j, r) in rows.iter().enumerate() {
            for (i, v) in r.iter().enumerate() {
                let (x, y) = (-1.0 + 0.5 * i as f64, 3.0 + 0.5 * j as f64);
                assert_eq!(t.height(x, y), 1.0 + 2.0 * v, "node ({i}, {j})");
            }
        }
        // bilinear: the centre of a cell is the mean of its corners
        let c = t.height(-0.75, 3.25);
        assert!((c - (1.0 + 2.0 * (0.0 + 1.0 + 0.5 - 1.0) / 4.0)).abs() < 1e-12);
        // continuous: along a line across every cell, steps of 1e-4 m change the height
        // by at most the steepest cell slope times the step
        let slope = 2.0 * 7.0 / 0.5 * 2.0;
        let mut prev = t.height(-1.2, 3.1);
        let mut x = -1.2;
        while x < 1.0 {
            x += 1e-4;
            let h = t.height(x, 3.1 + 0.3 * (x + 1.2));
            assert!((h - prev).abs() <= slope * 1e-4 * 1.5, "jump at x = {x}");
            prev = h;
        }
        // outside the map the edge continues
        assert_eq!(t.height(-5.0, 3.0), 1.0);
    }

    #[test]
    fn a_16_bit_png_grid_reads_back_within_its_quantization() {
        let dir = tempfile::tempdir().unwrap();
        let p = params(vec![noise(3)]);
        let t = Terrain::new(&p, dir.path()).unwrap();
        let g = t.grid(&p, &|_, _| {});
        std::fs::write(dir.path().join("g.png"), g.png16().unwrap()).unwrap();
        let (lo, hi) = g.range();
        let back = Terrain::new(
            &params(vec![Layer::HeightMap {
                file: "g.png".into(),
                cell: g.cell,
                scale: hi - lo,
                offset: lo,
                origin: [g.x0, g.y0],
            }]),
            dir.path(),
        )
        .unwrap();
        let q = (hi - lo) / 65535.0;
        for j in 0..g.ny {
            for i in 0..g.nx {
                let (x, y) = (g.x0 + i as f64 * g.cell, g.y0 + j as f64 * g.cell);
                assert!((back.height(x, y) - g.h[j * g.nx + i]).abs() <= 0.5 * q + 1e-12);
            }
        }
    }

    #[test]
    fn layers_add_up_noise_is_seeded_and_normals_follow_the_slope() {
        let dir = Path::new(".");
        let slope = Layer::Slope {
            height: 0.3,
            slope: 10.0,
            direction: 90.0,
        };
        let prof = Layer::Profile {
            points: vec![[0.0, 0.0], [5.0, 1.0]],
            direction: 0.0,
        };
        let sum = Terrain::new(&params(vec![slope.clone(), prof.clone(), noise(7)]), dir).unwrap();
        let parts: Vec<Terrain> = [slope.clone(), prof, noise(7)]
            .into_iter()
            .map(|l| Terrain::new(&params(vec![l]), dir).unwrap())
            .collect();
        for (x, y) in [(1.0, 2.0), (7.3, -4.2), (-3.0, 0.1)] {
            let s: f64 = parts.iter().map(|t| t.height(x, y)).sum();
            assert!((sum.height(x, y) - s).abs() < 1e-12);
        }
        // the same seed gives the same surface, another seed another one
        let a = Terrain::new(&params(vec![noise(7)]), dir).unwrap();
        let b = Terrain::new(&params(vec![noise(8)]), dir).unwrap();
        assert_eq!(a.height(1.234, 5.678), parts[2].height(1.234, 5.678));
        assert_ne!(a.height(1.234, 5.678), b.height(1.234, 5.678));
        // noise is continuous
        let (h0, h1) = (a.height(2.0, 2.0), a.height(2.0 + 1e-6, 2.0));
        assert!((h1 - h0).abs() < 1e-4);
        // a 10 degree slope rising towards +y
        let t = Terrain::new(&params(vec![slope]), dir).unwrap();
        let n = t.normal(3.0, 4.0);
        let e = Vector3::new(0.0, -pmath::sin(10f64.to_radians()), pmath::cos(10f64.to_radians()));
        assert!((n - e).norm() < 1e-9, "{n}");
        assert!((t.height(0.0, 1.0) - 0.3 - pmath::tan(10f64.to_radians())).abs() < 1e-12);
    }

    #[test]
    fn the_grid_is_the_same_for_any_thread_count_and_its_mesh_is_the_grid() {
        let p = params(vec![noise(1)]);
        let t = Terrain::new(&p, Path::new(".")).unwrap();
        let one = crate::parallel::with_threads(1, || t.grid(&p, &|_, _| {}));
        let three = crate::parallel::with_threads(3, || t.grid(&p, &|_, _| {}));
        assert_eq!(one, three);
        assert_eq!((one.nx, one.ny), (21, 21));
        let m = one.mesh();
        assert_eq!(m.vertices.len(), 21 * 21);
        assert_eq!(m.triangles.len(), 2 * 20 * 20);
        assert_eq!(m.vertices[21 * 3 + 4].z, t.height(2.0, 1.5));
        // normals up
        let [a, b, c] = m.triangles[0].map(|k| m.vertices[k as usize]);
        assert!((b - a).cross(&(c - a)).z > 0.0);
    }

    #[test]
    fn bad_surfaces_name_their_field() {
        let mut p = params(vec![Layer::Profile {
            points: vec![[1.0, 0.0], [0.0, 1.0]],
            direction: 0.0,
        }]);
        assert!(p
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("surface.layers[0].points"));
        p.layers.clear();
        p.extent = [1.0, 0.0, 0.0, 1.0];
        assert!(p
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("surface.extent"));
        let e = Terrain::new(
            &params(vec![Layer::HeightMap {
                file: "missing.csv".into(),
                cell: 1.0,
                scale: 1.0,
                offset: 0.0,
                origin: [0.0, 0.0],
            }]),
            Path::new("/nonexistent"),
        );
        assert!(e.err().unwrap().to_string().contains("missing.csv"));
    }
}
