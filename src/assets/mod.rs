//! The procedural asset generator (Buse 2023, section 3.2; Leite 2010, section 2.2):
//! wheels, surfaces, rocks and rock fields, from parameters and a seed.
//!
//! **Handles.** Every request has a content ID: the first 16 hex digits of the SHA-256
//! of its canonical form (the request as JSON, fields in declaration order, numbers in
//! shortest round-trip form, plus the SHA-256 of every height-map file it reads, plus
//! [`GENERATOR_VERSION`]). Files are named `<kind>_<id>.<ext>`; when the sidecar
//! `<kind>_<id>.json` and every file it lists already exist, they are reused and
//! nothing is generated (the paper's handle scheme). The same parameters give the same
//! bytes on every run and machine: seeded ChaCha8 random numbers, the `noise` crate's
//! seeded permutation tables, parallel work only where each item is independent.
//!
//! Modules: [`wheel`], [`surface`], [`rock`], [`rockfield`], mass properties in
//! [`mass`], file formats in [`io`].

// `!(x > 0.0)` is meant: it refuses NaN parameters too
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod fbm;
pub mod io;
pub mod mass;
pub mod mesh_read;
pub mod rock;
pub mod rockfield;
pub mod surface;
pub mod wheel;

use crate::geometry::mesh::TriMesh;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Changes whenever a generator's output for the same parameters changes: part of
/// every content ID, so caches of an older generator are not reused.
pub const GENERATOR_VERSION: &str = "contact-fmu-assets/1";

/// What went wrong, with the parameter's path (`wheel.grousers.height`) or the file.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    #[error("{field}: {message}")]
    Param { field: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl AssetError {
    /// A bad parameter at `field`.
    pub fn param(field: impl Into<String>, message: impl Into<String>) -> AssetError {
        AssetError::Param {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same error with `prefix` before its field path.
    pub fn within(self, prefix: &str) -> AssetError {
        match self {
            AssetError::Param { field, message } => AssetError::Param {
                field: format!("{prefix}: {field}"),
                message,
            },
            e => e,
        }
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AssetError + '_ {
        move |source| AssetError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// One asset request: `{"kind": "wheel" | "surface" | "rock" | "rocks", "params": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    content = "params",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum AssetRequest {
    Wheel(wheel::WheelParams),
    Surface(surface::SurfaceParams),
    Rock(rock::RockParams),
    Rocks(rockfield::RocksParams),
}

/// Mesh file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeshFormat {
    /// Wavefront OBJ (text).
    Obj,
    /// Binary PLY (float64).
    Ply,
    /// Binary STL (float32).
    Stl,
}

impl MeshFormat {
    fn ext(self) -> &'static str {
        match self {
            MeshFormat::Obj => "obj",
            MeshFormat::Ply => "ply",
            MeshFormat::Stl => "stl",
        }
    }
}

impl AssetRequest {
    /// The file-name prefix of this kind.
    pub fn prefix(&self) -> &'static str {
        match self {
            AssetRequest::Wheel(_) => "wheel",
            AssetRequest::Surface(_) => "surface",
            AssetRequest::Rock(_) => "rock",
            AssetRequest::Rocks(_) => "rocks",
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), AssetError> {
        match self {
            AssetRequest::Wheel(p) => p.validate(),
            AssetRequest::Surface(p) => p.validate(),
            AssetRequest::Rock(p) => p.validate(),
            AssetRequest::Rocks(p) => p.validate(),
        }
    }

    fn files(&self) -> Vec<&str> {
        match self {
            AssetRequest::Surface(p) => p.files(),
            AssetRequest::Rocks(p) => p.surface.files(),
            _ => vec![],
        }
    }

    /// The content ID (16 hex digits); height-map files are read relative to `dir`.
    pub fn content_id(&self, dir: &Path) -> Result<String, AssetError> {
        let mut h = Sha256::new();
        h.update(GENERATOR_VERSION.as_bytes());
        h.update(b"\n");
        h.update(
            serde_json::to_string(self)
                .expect("asset requests serialize")
                .as_bytes(),
        );
        for f in self.files() {
            let path = dir.join(f);
            let bytes = std::fs::read(&path).map_err(AssetError::io(&path))?;
            h.update(format!("\nfile {f} {:x}", Sha256::digest(&bytes)).as_bytes());
        }
        Ok(format!("{:x}", h.finalize())[..16].to_string())
    }

    /// `<kind>_<id>`.
    pub fn stem(&self, dir: &Path) -> Result<String, AssetError> {
        Ok(format!("{}_{}", self.prefix(), self.content_id(dir)?))
    }

    /// The mesh of a wheel or a rock (body frame; a rock's centre of mass at the origin).
    pub fn mesh(&self) -> Result<TriMesh, AssetError> {
        match self {
            AssetRequest::Wheel(p) => wheel::generate(p),
            AssetRequest::Rock(p) => Ok(rock::generate(p)?.mesh),
            _ => Err(AssetError::param(
                "kind",
                format!(
                    "a {} is not one body's mesh; use a wheel or a rock",
                    self.prefix()
                ),
            )),
        }
    }
}

/// What [`write`] produced.
#[derive(Debug, Clone)]
pub struct Written {
    /// Content ID.
    pub id: String,
    /// The sidecar (`<kind>_<id>.json`) first, then every file it lists.
    pub files: Vec<PathBuf>,
    /// True when the files were already there and nothing was generated.
    pub reused: bool,
    /// The sidecar's content.
    pub sidecar: Value,
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that an
/// interrupted run never leaves a half-written file under a cache name.
fn put(path: &Path, bytes: &[u8]) -> Result<(), AssetError> {
    let tmp = path.with_extension(format!(
        "{}.part",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    std::fs::write(&tmp, bytes).map_err(AssetError::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(AssetError::io(path))
}

fn mesh_bytes(
    m: &TriMesh,
    f: MeshFormat,
    header: &[String],
    progress: &dyn Fn(u64, u64),
) -> Vec<u8> {
    match f {
        MeshFormat::Obj => io::obj_string_reporting(m, header, progress).into_bytes(),
        MeshFormat::Ply => {
            let mut b = vec![];
            io::write_ply(m, &mut b).expect("writing to memory");
            b
        }
        MeshFormat::Stl => {
            let mut b = vec![];
            io::write_stl(m, &mut b).expect("writing to memory");
            b
        }
    }
}

fn mass_json(m: &mass::MassProperties, density: Option<f64>) -> Value {
    let mut v = json!({
        "volume_m3": m.volume,
        "center_of_mass_m": m.center_of_mass,
        "inertia_per_density_m5": m.inertia_per_density,
    });
    if let Some(d) = density {
        v["density_kg_m3"] = json!(d);
        v["mass_kg"] = json!(m.volume * d);
        v["inertia_kg_m2"] = json!(m.inertia_per_density.map(|r| r.map(|x| x * d)));
    }
    v
}

/// Writes an asset's files into `out`, remembering their names for the sidecar.
struct Emitter<'a> {
    out: &'a Path,
    formats: &'a [MeshFormat],
    header: Vec<String>,
    progress: &'a (dyn Fn(&str, u64, u64) + Sync),
    names: Vec<String>,
}

impl Emitter<'_> {
    /// One file, `name` relative to `out`.
    fn file(&mut self, name: String, bytes: &[u8]) -> Result<(), AssetError> {
        put(&self.out.join(&name), bytes)?;
        self.names.push(name);
        Ok(())
    }

    /// `mesh` as `<base>.<ext>` in every format asked for; returns the names.
    fn mesh(&mut self, mesh: &TriMesh, base: &str) -> Result<Vec<String>, AssetError> {
        let mut written = vec![];
        for &f in self.formats {
            let name = format!("{base}.{}", f.ext());
            let stage = format!("writing {name}");
            let bytes = mesh_bytes(mesh, f, &self.header, &|d, t| (self.progress)(&stage, d, t));
            self.file(name.clone(), &bytes)?;
            written.push(name);
        }
        Ok(written)
    }
}

/// Generates `req` into `out` (created if missing), or reuses the files of an earlier
/// run. `src` is the folder height-map paths are relative to; `formats` the mesh
/// formats (at least one); `progress(stage, done, total)` reports long work (stages
/// "sampling", "placing rocks", "writing <file>").
pub fn write(
    req: &AssetRequest,
    src: &Path,
    out: &Path,
    formats: &[MeshFormat],
    progress: &(dyn Fn(&str, u64, u64) + Sync),
) -> Result<Written, AssetError> {
    req.validate()?;
    let formats = if formats.is_empty() {
        &[MeshFormat::Obj][..]
    } else {
        formats
    };
    let id = req.content_id(src)?;
    let stem = format!("{}_{id}", req.prefix());
    let sidecar_path = out.join(format!("{stem}.json"));
    // reuse: the sidecar lists every file; all present (and the mesh formats asked for)
    if let Ok(text) = std::fs::read_to_string(&sidecar_path) {
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            let listed: Vec<PathBuf> = v["files"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f.as_str())
                        .map(|f| out.join(f))
                        .collect()
                })
                .unwrap_or_default();
            let has_formats = formats.iter().all(|f| {
                listed
                    .iter()
                    .any(|p| p.extension().and_then(|e| e.to_str()) == Some(f.ext()))
            });
            if !listed.is_empty() && has_formats && listed.iter().all(|p| p.is_file()) {
                let mut files = vec![sidecar_path];
                files.extend(listed);
                return Ok(Written {
                    id,
                    files,
                    reused: true,
                    sidecar: v,
                });
            }
        }
    }
    std::fs::create_dir_all(out).map_err(AssetError::io(out))?;
    let header = vec![
        format!("contact-fmu asset {stem}"),
        format!("generator {GENERATOR_VERSION}"),
    ];
    let mut files = Emitter {
        out,
        formats,
        header,
        progress,
        names: vec![],
    };
    let mut extra = json!({});
    match req {
        AssetRequest::Wheel(p) => {
            let m = wheel::generate(p)?;
            files.mesh(&m, &stem)?;
            extra["vertices"] = json!(m.vertices.len());
            extra["triangles"] = json!(m.triangles.len());
            extra["mass_properties"] = mass_json(&mass::mass_properties(&m), None);
        }
        AssetRequest::Rock(p) => {
            let r = rock::generate(p)?;
            files.mesh(&r.mesh, &stem)?;
            extra["vertices"] = json!(r.mesh.vertices.len());
            extra["triangles"] = json!(r.mesh.triangles.len());
            extra["mass_properties"] = mass_json(&r.mass, Some(2600.0));
        }
        AssetRequest::Surface(p) => {
            let t = surface::Terrain::new(p, src)?;
            let g = t.grid(p, &|d, n| progress("sampling", d, n));
            let (lo, hi) = g.range();
            files.file(format!("{stem}.png"), &g.png16()?)?;
            files.mesh(&g.mesh(), &stem)?;
            // the PNG as a height-map layer gives the grid back (16-bit quantized)
            extra["height_grid"] = json!({
                "file": format!("{stem}.png"),
                "nx": g.nx, "ny": g.ny, "cell": g.cell, "origin": [g.x0, g.y0],
                "min": lo, "max": hi,
                "as_layer": {"type": "height_map", "file": format!("{stem}.png"), "cell": g.cell, "scale": hi - lo, "offset": lo, "origin": [g.x0, g.y0]},
            });
        }
        AssetRequest::Rocks(p) => {
            let field = rockfield::generate(p, src, &|d, n| progress("placing rocks", d, n))?;
            let mut placements = vec![];
            match p.layout {
                rockfield::FieldLayout::Merged => {
                    files.mesh(&field.merged(), &stem)?;
                    for r in &field.rocks {
                        placements.push(serde_json::to_value(r).expect("serializes"));
                    }
                }
                rockfield::FieldLayout::PerRock => {
                    let sub = out.join(&stem);
                    std::fs::create_dir_all(&sub).map_err(AssetError::io(&sub))?;
                    let width = field.rocks.len().to_string().len().max(4);
                    for (k, r) in field.rocks.iter().enumerate() {
                        let mut v = serde_json::to_value(r).expect("serializes");
                        let written =
                            files.mesh(&field.rock_mesh(k), &format!("{stem}/rock_{k:0width$}"))?;
                        v["files"] = json!(written);
                        placements.push(v);
                    }
                }
            }
            let thresholds: Vec<f64> = [1.0, 1.5, 2.0, 3.0, 5.0]
                .iter()
                .map(|f| f * p.d_min)
                .filter(|d| *d < p.d_max)
                .collect();
            extra["rocks"] = json!(field.rocks.len());
            extra["unplaced"] = json!(field.unplaced);
            extra["q"] = json!(rockfield::q_of_k(p.k));
            extra["coverage"] = json!(thresholds
                .iter()
                .map(|&d| json!({"d": d, "field": field.coverage(d), "model": p.model_coverage(d)}))
                .collect::<Vec<_>>());
            extra["placements"] = json!(placements);
        }
    }
    let mut sidecar = json!({
        "kind": req.prefix(),
        "id": id,
        "generator": GENERATOR_VERSION,
        "request": req,
        "files": &files.names,
    });
    if let (Some(s), Some(e)) = (sidecar.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            s.insert(k.clone(), v.clone());
        }
    }
    let text = serde_json::to_string_pretty(&sidecar).expect("serializes");
    put(&sidecar_path, text.as_bytes())?;
    let mut paths = vec![sidecar_path];
    paths.extend(files.names.iter().map(|n| out.join(n)));
    Ok(Written {
        id,
        files: paths,
        reused: false,
        sidecar,
    })
}
