//! `contact-fmu asset ...`: the procedural asset generator on the command line.

use clap::{Args, Subcommand, ValueEnum};
use crate::assets::rock::RockParams;
use crate::assets::rockfield::{FieldLayout, RocksParams};
use crate::assets::surface::{Fractal, Layer, NoiseKind, SurfaceParams};
use crate::assets::wheel::{GrouserPattern, Grousers, Profile, WheelParams};
use crate::assets::{self, AssetRequest, MeshFormat};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct AssetArgs {
    #[command(subcommand)]
    kind: Kind,
    /// Output folder (created if missing).
    #[arg(short, long, global = true, default_value = "assets")]
    out: PathBuf,
    /// Mesh formats to write (repeat or comma-separate).
    #[arg(
        long,
        global = true,
        value_enum,
        value_delimiter = ',',
        default_value = "obj"
    )]
    format: Vec<Format>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Obj,
    Ply,
    Stl,
}

#[derive(Subcommand)]
enum Kind {
    /// A wheel: radius, width, profile, grousers.
    Wheel(WheelArgs),
    /// A surface: slope, height map and/or noise, summed.
    Surface(SurfaceArgs),
    /// One rock: noise-deformed sphere or Leite's convex hull.
    Rock(RockArgs),
    /// A rock field on a surface (Golombek-Rapp size-frequency law).
    Rocks(RocksArgs),
    /// Any request from a JSON file: {"kind": "wheel" | "surface" | "rock" | "rocks",
    /// "params": {...}} (height-map paths relative to the file).
    Json { file: PathBuf },
}

#[derive(Clone, Copy, ValueEnum)]
enum Pattern {
    Straight,
    Slanted,
    Chevron,
}

#[derive(Args)]
struct WheelArgs {
    /// Tread radius, m.
    #[arg(long)]
    radius: f64,
    /// Width, m.
    #[arg(long)]
    width: f64,
    /// Crown radius of a convex tread, m (flat without it).
    #[arg(long)]
    crown_radius: Option<f64>,
    /// Number of grousers (none without it).
    #[arg(long)]
    grousers: Option<u32>,
    /// Grouser height, m.
    #[arg(long, default_value_t = 0.01)]
    grouser_height: f64,
    /// Grouser thickness, m.
    #[arg(long, default_value_t = 0.005)]
    grouser_thickness: f64,
    #[arg(long, value_enum, default_value = "straight")]
    pattern: Pattern,
    /// Slant or chevron angle, degrees.
    #[arg(long, default_value_t = 0.0)]
    angle: f64,
    /// Longest outer-surface edge, m (default radius / 10).
    #[arg(long)]
    max_edge: Option<f64>,
}

#[derive(Args, Clone)]
struct GroundArgs {
    /// Field: x_min,x_max,y_min,y_max (m).
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        allow_hyphen_values = true
    )]
    extent: Vec<f64>,
    /// Grid spacing, m.
    #[arg(long, default_value_t = 0.05)]
    resolution: f64,
    /// A plane rising by this many degrees ...
    #[arg(long)]
    slope: Option<f64>,
    /// ... towards this direction (degrees from +x towards +y).
    #[arg(long, default_value_t = 0.0)]
    direction: f64,
    /// A height map (PNG 8/16-bit or CSV).
    #[arg(long)]
    height_map: Option<PathBuf>,
    /// Height-map cell size, m.
    #[arg(long, default_value_t = 1.0)]
    cell: f64,
    /// Height-map scale (m per CSV unit, or for the full PNG range).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Noise amplitude, m (no noise without it).
    #[arg(long)]
    amplitude: Option<f64>,
    /// Noise base frequency, 1/m.
    #[arg(long, default_value_t = 0.1)]
    frequency: f64,
    #[arg(long, default_value_t = 6)]
    octaves: u32,
    #[arg(long, default_value_t = 2.0)]
    lacunarity: f64,
    #[arg(long, default_value_t = 0.5)]
    persistence: f64,
    /// Use simplex instead of Perlin noise.
    #[arg(long)]
    simplex: bool,
    /// Ridged multifractal instead of fBm.
    #[arg(long)]
    ridged: bool,
    /// Noise seed.
    #[arg(long, default_value_t = 0)]
    noise_seed: u32,
}

impl GroundArgs {
    fn params(&self) -> Result<SurfaceParams, String> {
        if self.extent.len() != 4 {
            return Err(format!(
                "--extent needs x_min,x_max,y_min,y_max (4 numbers), got {}",
                self.extent.len()
            ));
        }
        let mut layers = vec![];
        if let Some(slope) = self.slope {
            layers.push(Layer::Slope {
                height: 0.0,
                slope,
                direction: self.direction,
            });
        }
        if let Some(f) = &self.height_map {
            layers.push(Layer::HeightMap {
                file: f.to_string_lossy().into_owned(),
                cell: self.cell,
                scale: self.scale,
                offset: 0.0,
                origin: [self.extent[0], self.extent[2]],
            });
        }
        if let Some(amplitude) = self.amplitude {
            layers.push(Layer::Noise {
                kind: if self.simplex {
                    NoiseKind::Simplex
                } else {
                    NoiseKind::Perlin
                },
                fractal: if self.ridged {
                    Fractal::Ridged
                } else {
                    Fractal::Fbm
                },
                octaves: self.octaves,
                frequency: self.frequency,
                amplitude,
                lacunarity: self.lacunarity,
                persistence: self.persistence,
                seed: self.noise_seed,
            });
        }
        Ok(SurfaceParams {
            layers,
            extent: [
                self.extent[0],
                self.extent[1],
                self.extent[2],
                self.extent[3],
            ],
            resolution: self.resolution,
        })
    }
}

#[derive(Args)]
struct SurfaceArgs {
    #[command(flatten)]
    ground: GroundArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum Method {
    Noise,
    Hull,
}

#[derive(Args, Clone)]
struct RockShapeArgs {
    #[arg(long, value_enum, default_value = "noise")]
    method: Method,
    /// Noise rock: length,width,height (m).
    #[arg(long, value_delimiter = ',', default_values_t = [1.0, 1.0, 0.6])]
    dimensions: Vec<f64>,
    #[arg(long, default_value_t = 0.25)]
    shape_roughness: f64,
    #[arg(long, default_value_t = 0.1)]
    surface_roughness: f64,
    /// Icosphere subdivisions.
    #[arg(long)]
    detail: Option<u32>,
    /// Hull rock: cylinder radius and height, m.
    #[arg(long, default_value_t = 0.5)]
    cylinder_radius: f64,
    #[arg(long, default_value_t = 0.6)]
    cylinder_height: f64,
    #[arg(long, default_value_t = 60)]
    points: u32,
    #[arg(long, default_value_t = 0.15)]
    sigma_radial: f64,
    #[arg(long, default_value_t = 0.15)]
    sigma_height: f64,
}

impl RockShapeArgs {
    fn params(&self, seed: u64, detail: u32) -> Result<RockParams, String> {
        if self.dimensions.len() != 3 {
            return Err(format!(
                "--dimensions needs length,width,height (3 numbers), got {}",
                self.dimensions.len()
            ));
        }
        Ok(match self.method {
            Method::Noise => RockParams::Noise {
                dimensions: [self.dimensions[0], self.dimensions[1], self.dimensions[2]],
                shape_roughness: self.shape_roughness,
                surface_roughness: self.surface_roughness,
                detail: self.detail.unwrap_or(detail),
                seed,
            },
            Method::Hull => RockParams::Hull {
                radius: self.cylinder_radius,
                height: self.cylinder_height,
                points: self.points,
                sigma_radial: self.sigma_radial,
                sigma_height: self.sigma_height,
                seed,
            },
        })
    }
}

#[derive(Args)]
struct RockArgs {
    #[command(flatten)]
    shape: RockShapeArgs,
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(Args)]
struct RocksArgs {
    #[command(flatten)]
    ground: GroundArgs,
    #[command(flatten)]
    shape: RockShapeArgs,
    /// Total rock abundance k (Golombek and Rapp 1997).
    #[arg(long)]
    k: f64,
    #[arg(long, default_value_t = 0.1)]
    d_min: f64,
    #[arg(long, default_value_t = 2.0)]
    d_max: f64,
    #[arg(long, default_value_t = 16)]
    prototypes: u32,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// One file per rock plus the placement list (default: one merged mesh).
    #[arg(long)]
    per_rock: bool,
}

/// A progress bar per stage ("sampling", "placing rocks", "writing <file>") that
/// shows up only once the command has run for a second.
struct Progress {
    start: Instant,
    bar: Mutex<Option<(String, ProgressBar)>>,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            start: Instant::now(),
            bar: Mutex::new(None),
        }
    }

    fn update(&self, stage: &str, done: u64, total: u64) {
        let mut bar = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        if bar.as_ref().is_some_and(|(s, _)| s != stage) {
            if let Some((_, b)) = bar.take() {
                b.finish_and_clear();
            }
        }
        if bar.is_none() && self.start.elapsed() > Duration::from_secs(1) && done < total {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            b.set_message(stage.to_string());
            *bar = Some((stage.to_string(), b));
        }
        if let Some((_, b)) = bar.as_ref() {
            b.set_position(done);
        }
    }

    fn finish(&self) {
        if let Some((_, b)) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
    }
}

pub fn run(a: AssetArgs) -> Result<(), String> {
    let (req, src): (AssetRequest, PathBuf) = match &a.kind {
        Kind::Wheel(w) => {
            let pattern = match w.pattern {
                Pattern::Straight => GrouserPattern::Straight,
                Pattern::Slanted => GrouserPattern::Slanted { angle: w.angle },
                Pattern::Chevron => GrouserPattern::Chevron { angle: w.angle },
            };
            let p = WheelParams {
                radius: w.radius,
                width: w.width,
                profile: match w.crown_radius {
                    Some(c) => Profile::Convex { crown_radius: c },
                    None => Profile::Flat,
                },
                grousers: w.grousers.map(|count| Grousers {
                    count,
                    height: w.grouser_height,
                    thickness: w.grouser_thickness,
                    pattern,
                }),
                max_edge: w.max_edge,
            };
            (AssetRequest::Wheel(p), PathBuf::from("."))
        }
        Kind::Surface(s) => (
            AssetRequest::Surface(s.ground.params()?),
            PathBuf::from("."),
        ),
        Kind::Rock(r) => (
            AssetRequest::Rock(r.shape.params(r.seed, 4)?),
            PathBuf::from("."),
        ),
        Kind::Rocks(r) => (
            AssetRequest::Rocks(RocksParams {
                surface: r.ground.params()?,
                k: r.k,
                d_min: r.d_min,
                d_max: r.d_max,
                rock: r.shape.params(0, 2)?,
                prototypes: r.prototypes,
                attempts: 100,
                density: 2600.0,
                seed: r.seed,
                layout: if r.per_rock {
                    FieldLayout::PerRock
                } else {
                    FieldLayout::Merged
                },
            }),
            PathBuf::from("."),
        ),
        Kind::Json { file } => {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let de = &mut serde_json::Deserializer::from_str(&text);
            let req: AssetRequest = serde_path_to_error::deserialize(de)
                .map_err(|e| format!("{}: {}: {}", file.display(), e.path(), e.inner()))?;
            let dir = file
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            (req, dir)
        }
    };
    let formats: Vec<MeshFormat> = a
        .format
        .iter()
        .map(|f| match f {
            Format::Obj => MeshFormat::Obj,
            Format::Ply => MeshFormat::Ply,
            Format::Stl => MeshFormat::Stl,
        })
        .collect();
    let t0 = Instant::now();
    let progress = Progress::new();
    let result = assets::write(&req, &src, &a.out, &formats, &|s, d, t| {
        progress.update(s, d, t)
    });
    progress.finish();
    let w = result.map_err(|e| e.to_string())?;
    eprintln!(
        "{} {} ({:.0} ms){}",
        if w.reused { "reused" } else { "generated" },
        w.files[0].display(),
        t0.elapsed().as_secs_f64() * 1e3,
        match (w.sidecar["rocks"].as_u64(), w.sidecar["unplaced"].as_u64()) {
            (Some(n), Some(u)) => format!(": {n} rocks placed, {u} found no place"),
            _ => String::new(),
        }
    );
    for f in &w.files {
        println!("{}", f.display());
    }
    Ok(())
}
