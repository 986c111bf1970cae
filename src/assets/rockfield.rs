//! Rock fields (Buse 2023, section 3.2; Leite 2010, section 2.2, step 4): rocks placed
//! on a generated surface following a size-frequency law, without overlaps, resting
//! on the surface.
//!
//! **Size-frequency law.** Golombek and Rapp (1997), "Size-frequency distributions of
//! rocks on Mars and Earth analog sites: implications for future landed missions",
//! J. Geophys. Res. 102(E2), 4117-4129 (also Golombek et al. 2003, JGR 108(E12), 8086):
//! the cumulative fractional area covered by rocks of diameter D or larger is
//! F_k(D) = k exp(-q(k) D), with q(k) = 1.79 + 0.152 / k and k the total rock
//! abundance. Between `d_min` and `d_max` the area density of diameters is -dF/dD =
//! k q exp(-q D), so the number density is n(D) = k q exp(-q D) / (pi D^2 / 4)
//! (rocks counted as discs of diameter D, as the model does). The field gets
//! round(A * integral of n) rocks, their diameters drawn by stratified inverse-CDF
//! sampling (one draw per equal-probability stratum), so the covered area follows
//! the truncated law F(D) = k (exp(-q D) - exp(-q d_max)) closely even on small fields.
//!
//! **Placement.** Largest first, each at a uniformly random position inside the field
//! (up to `attempts` tries) where its plan circle (the circle around its vertical axis
//! containing the whole rock) meets no other rock's; random yaw. A rock that finds no
//! place is counted in `unplaced`. **Resting**: lowered until its lowest vertex touches
//! the surface (no vertex below it).
//!
//! **Shapes.** `prototypes` rocks are generated (method and roughness from `rock`,
//! seeds from the field's seed) and scaled to unit diameter (mean of the plan extents
//! in x and y); each placed rock is one of them, scaled to its diameter.

use crate::pmath;
use super::mass::MassProperties;
use super::rock::{self, RockParams};
use super::surface::{SurfaceParams, Terrain};
use super::AssetError;
use crate::geometry::mesh::TriMesh;
use nalgebra::{Isometry3, Matrix3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How the field is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FieldLayout {
    /// One mesh with every rock in place (static rocks).
    Merged,
    /// One mesh per rock (centre of mass at its origin) plus a placement list (dynamic
    /// rocks).
    PerRock,
}

/// A rock-field request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RocksParams {
    /// The ground; its extent is the field.
    pub surface: SurfaceParams,
    /// Total rock abundance k of Golombek and Rapp (fraction of the area covered by
    /// rocks of any size), 0 < k < 0.5.
    pub k: f64,
    /// Smallest and largest rock diameter, m.
    #[serde(default = "d_min_default")]
    pub d_min: f64,
    #[serde(default = "d_max_default")]
    pub d_max: f64,
    /// Rock shape: the method and roughness of each prototype (dimensions are
    /// normalized; seeds derive from `seed`).
    #[serde(default = "rock_default")]
    pub rock: RockParams,
    /// Distinct rock shapes.
    #[serde(default = "prototypes_default")]
    pub prototypes: u32,
    /// Placement tries per rock.
    #[serde(default = "attempts_default")]
    pub attempts: u32,
    /// Rock density for the mass properties, kg/m^3.
    #[serde(default = "density_default")]
    pub density: f64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "layout_default")]
    pub layout: FieldLayout,
}

fn d_min_default() -> f64 {
    0.1
}
fn d_max_default() -> f64 {
    2.0
}
fn rock_default() -> RockParams {
    RockParams::Noise {
        dimensions: [1.0, 1.0, 0.6],
        shape_roughness: 0.25,
        surface_roughness: 0.1,
        detail: 2,
        seed: 0,
    }
}
fn prototypes_default() -> u32 {
    16
}
fn attempts_default() -> u32 {
    100
}
fn density_default() -> f64 {
    2600.0
}
fn layout_default() -> FieldLayout {
    FieldLayout::Merged
}

/// q(k) of Golombek and Rapp (1997), 1/m.
pub fn q_of_k(k: f64) -> f64 {
    1.79 + 0.152 / k
}

impl RocksParams {
    /// Checks the parameters; errors name the field.
    pub fn validate(&self) -> Result<(), AssetError> {
        self.surface.validate()?;
        let bad = |f: &str, why: String| Err(AssetError::param(format!("rocks.{f}"), why));
        if !(self.k > 0.0 && self.k < 0.5) {
            return bad("k", format!("must be in (0, 0.5), got {}", self.k));
        }
        if !(self.d_min > 0.0 && self.d_max > self.d_min && self.d_max.is_finite()) {
            return bad(
                "d_min",
                format!(
                    "needs 0 < d_min < d_max, got {} and {}",
                    self.d_min, self.d_max
                ),
            );
        }
        if !(1..=1024).contains(&self.prototypes) {
            return bad(
                "prototypes",
                format!("must be 1 to 1024, got {}", self.prototypes),
            );
        }
        if self.attempts == 0 {
            return bad("attempts", "must be at least 1".into());
        }
        if !(self.density > 0.0) {
            return bad(
                "density",
                format!("must be > 0 kg/m^3, got {}", self.density),
            );
        }
        self.rock.validate()?;
        let n = self.expected_count();
        if n > 5e6 {
            return bad(
                "k",
                format!(
                    "asks for {n:.3e} rocks (at most 5 million); raise d_min or shrink the field"
                ),
            );
        }
        Ok(())
    }

    fn area(&self) -> f64 {
        let [x0, x1, y0, y1] = self.surface.extent;
        (x1 - x0) * (y1 - y0)
    }

    /// The truncated model F(D) = k (exp(-q D) - exp(-q d_max)) for D in [d_min, d_max].
    pub fn model_coverage(&self, d: f64) -> f64 {
        let q = q_of_k(self.k);
        let d = d.clamp(self.d_min, self.d_max);
        self.k * (pmath::exp(-q * d) - pmath::exp(-q * self.d_max))
    }

    /// Diameter grid and the cumulative number per unit area from d_min, for sampling.
    fn cdf(&self) -> (Vec<f64>, Vec<f64>) {
        const N: usize = 8192;
        let q = q_of_k(self.k);
        let n = |d: f64| self.k * q * pmath::exp(-q * d) / (std::f64::consts::PI * d * d / 4.0);
        // log-spaced nodes: n(D) varies as 1/D^2
        let (a, b) = (pmath::ln(self.d_min), pmath::ln(self.d_max));
        let ds: Vec<f64> = (0..=N)
            .map(|i| pmath::exp(a + (b - a) * i as f64 / N as f64))
            .collect();
        let mut c = vec![0.0; N + 1];
        for i in 1..=N {
            c[i] = c[i - 1] + 0.5 * (n(ds[i - 1]) + n(ds[i])) * (ds[i] - ds[i - 1]);
        }
        (ds, c)
    }

    /// Expected number of rocks on the field.
    pub fn expected_count(&self) -> f64 {
        let (_, c) = self.cdf();
        c.last().copied().unwrap_or(0.0) * self.area()
    }
}

/// One placed rock.
#[derive(Debug, Clone, Serialize)]
pub struct PlacedRock {
    /// Index of its prototype.
    pub prototype: u32,
    /// Diameter D (mean plan extent), m.
    pub diameter: f64,
    /// Centre of mass, world frame, m.
    pub position: [f64; 3],
    /// Orientation (unit quaternion w, x, y, z): a yaw about world z.
    pub orientation: [f64; 4],
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass in the world frame, kg m^2.
    pub inertia: [[f64; 3]; 3],
}

/// A generated field.
pub struct RockField {
    /// Prototype meshes at unit diameter, centre of mass at the origin.
    pub prototypes: Vec<rock::Rock>,
    pub rocks: Vec<PlacedRock>,
    /// Rocks drawn but not placed (no free spot within `attempts`).
    pub unplaced: usize,
    /// Field area, m^2.
    pub area: f64,
}

impl RockField {
    /// Fraction of the field covered by placed rocks of diameter `d` or larger.
    pub fn coverage(&self, d: f64) -> f64 {
        let a: f64 = self
            .rocks
            .iter()
            .filter(|r| r.diameter >= d)
            .map(|r| std::f64::consts::PI * r.diameter * r.diameter / 4.0)
            .sum();
        a / self.area
    }

    /// Rock `k`'s mesh in its own frame (centre of mass at the origin, unrotated).
    pub fn rock_mesh(&self, k: usize) -> TriMesh {
        let r = &self.rocks[k];
        let mut m = self.prototypes[r.prototype as usize].mesh.clone();
        for v in m.vertices.iter_mut() {
            *v *= r.diameter;
        }
        m
    }

    /// Every rock in place, as one mesh.
    pub fn merged(&self) -> TriMesh {
        let mut out = TriMesh::default();
        for (k, r) in self.rocks.iter().enumerate() {
            let [w, x, y, z] = r.orientation;
            let iso = Isometry3::from_parts(
                Vector3::from(r.position).into(),
                UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(w, x, y, z)),
            );
            out.append(&self.rock_mesh(k), &iso);
        }
        out
    }
}

/// Generates the field; height maps are read relative to `dir`; `progress` gets
/// (rocks placed so far, rocks drawn).
pub fn generate(
    p: &RocksParams,
    dir: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<RockField, AssetError> {
    p.validate()?;
    let terrain = Terrain::new(&p.surface, dir)?;
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    // prototypes at unit diameter
    let mut prototypes = Vec::with_capacity(p.prototypes as usize);
    let mut plan_radius = vec![];
    for i in 0..p.prototypes {
        let seed = rng.gen::<u64>();
        let mut rp = p.rock.clone();
        match &mut rp {
            RockParams::Noise { seed: s, .. } | RockParams::Hull { seed: s, .. } => *s = seed,
        }
        let mut r =
            rock::generate(&rp).map_err(|e| e.within(&format!("rocks.rock (prototype {i})")))?;
        let (lo, hi) = r.mesh.bounds();
        let d0 = 0.5 * ((hi.x - lo.x) + (hi.y - lo.y));
        for v in r.mesh.vertices.iter_mut() {
            *v /= d0;
        }
        r.mass = super::mass::mass_properties(&r.mesh);
        plan_radius.push(
            r.mesh
                .vertices
                .iter()
                .map(|v| pmath::hypot(v.x, v.y))
                .fold(0.0, f64::max),
        );
        prototypes.push(r);
    }
    // diameters: stratified inverse-CDF draws, largest first
    let (ds, cdf) = p.cdf();
    let total = *cdf.last().unwrap();
    let count = (total * p.area()).round() as usize;
    let mut diam: Vec<f64> = (0..count)
        .map(|i| {
            let u = (i as f64 + rng.gen_range(0.0..1.0)) / count as f64 * total;
            let k = cdf.partition_point(|&c| c < u).clamp(1, ds.len() - 1);
            let f = (u - cdf[k - 1]) / (cdf[k] - cdf[k - 1]).max(f64::MIN_POSITIVE);
            ds[k - 1] + (ds[k] - ds[k - 1]) * f.clamp(0.0, 1.0)
        })
        .collect();
    diam.sort_by(|a, b| b.total_cmp(a));
    // placement with a uniform hash grid of cells twice the largest plan radius
    let r_max = plan_radius.iter().fold(0.0f64, |a, &b| a.max(b)) * p.d_max;
    let [x0, x1, y0, y1] = p.surface.extent;
    let cell = 2.0 * r_max;
    let (gx, gy) = (
        ((x1 - x0) / cell).ceil() as usize + 1,
        ((y1 - y0) / cell).ceil() as usize + 1,
    );
    let mut grid: Vec<Vec<u32>> = vec![vec![]; gx * gy];
    let mut placed: Vec<(u32, f64, f64, f64, f64, f64)> = vec![]; // proto, d, x, y, r, yaw
    let mut unplaced = 0;
    for (n, &d) in diam.iter().enumerate() {
        let proto = rng.gen_range(0..p.prototypes);
        let r = plan_radius[proto as usize] * d;
        let yaw = rng.gen_range(0.0..std::f64::consts::TAU);
        let mut spot = None;
        if x1 - x0 > 2.0 * r && y1 - y0 > 2.0 * r {
            for _ in 0..p.attempts {
                let x = rng.gen_range(x0 + r..x1 - r);
                let y = rng.gen_range(y0 + r..y1 - r);
                let (ci, cj) = (((x - x0) / cell) as usize, ((y - y0) / cell) as usize);
                let free = (ci.saturating_sub(1)..(ci + 2).min(gx)).all(|i| {
                    (cj.saturating_sub(1)..(cj + 2).min(gy)).all(|j| {
                        grid[j * gx + i].iter().all(|&o| {
                            let (_, _, ox, oy, or, _) = placed[o as usize];
                            pmath::hypot(ox - x, oy - y) >= or + r
                        })
                    })
                });
                if free {
                    spot = Some((x, y, ci, cj));
                    break;
                }
            }
        }
        match spot {
            Some((x, y, ci, cj)) => {
                grid[cj * gx + ci].push(placed.len() as u32);
                placed.push((proto, d, x, y, r, yaw));
            }
            None => unplaced += 1,
        }
        if n % 256 == 255 || n + 1 == diam.len() {
            progress(n as u64 + 1, diam.len() as u64);
        }
    }
    // resting on the surface, in parallel (each rock on its own)
    let rocks: Vec<PlacedRock> = placed
        .par_iter()
        .map(|&(proto, d, x, y, _, yaw)| {
            let q = crate::pmath::quat_from_axis_angle(&Vector3::z_axis(), yaw);
            let proto_rock = &prototypes[proto as usize];
            let mut lift = f64::NEG_INFINITY;
            for v in &proto_rock.mesh.vertices {
                let w = q * (v * d);
                lift = lift.max(terrain.height(x + w.x, y + w.y) - w.z);
            }
            let MassProperties {
                volume,
                inertia_per_density,
                ..
            } = proto_rock.mass;
            let s5 = d.powi(5);
            let body = Matrix3::from_fn(|i, j| inertia_per_density[i][j] * s5 * p.density);
            let rot = q.to_rotation_matrix();
            let world = rot.matrix() * body * rot.matrix().transpose();
            PlacedRock {
                prototype: proto,
                diameter: d,
                position: [x, y, lift],
                orientation: [q.w, q.i, q.j, q.k],
                mass: volume * d.powi(3) * p.density,
                inertia: std::array::from_fn(|i| std::array::from_fn(|j| world[(i, j)])),
            }
        })
        .collect();
    Ok(RockField {
        prototypes,
        rocks,
        unplaced,
        area: p.area(),
    })
}
