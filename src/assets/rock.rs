//! Procedural rocks, two ways:
//!
//! - **Noise** (Buse 2023, section 3.2, Fig. 3): a sphere deformed by combined noise.
//!   An icosphere's vertex in unit direction u moves to diag(a, b, c) u (1 + s A(u) +
//!   t B(u)), where (a, b, c) are the half dimensions, A is a low-frequency fBm (the
//!   overall shape, weighted by the first roughness `s`) and B a high-frequency ridged
//!   multifractal (the surface, weighted by the second roughness `t`); the factor is
//!   kept in [0.25, 2]. The surface stays star-shaped about the centre, so the mesh is
//!   closed and never intersects itself.
//! - **Hull** (Leite 2010, section 2.2): a cloud of points in a cylinder of `radius`
//!   and `height` with random azimuth, a radial distance R (1 - sigma_r |N|) and a
//!   height H (U + sigma_h N) clamped to the cylinder (N standard normal, U uniform),
//!   then its convex hull (parry3d).
//!
//! Every rock is moved so that its centre of mass is the origin; its mass properties
//! are exact for the mesh ([`super::mass`]).

use crate::pmath;
use super::mass::{mass_properties, MassProperties};
use super::AssetError;
use crate::geometry::mesh::TriMesh;
use nalgebra::Vector3;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin, RidgedMulti};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How a rock is made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum RockParams {
    /// A noise-deformed sphere.
    Noise {
        /// Average length, width and height (x, y, z), m.
        dimensions: [f64; 3],
        /// Shape roughness (large-scale deformation), 0 = ellipsoid; about 0 to 0.5.
        #[serde(default = "shape_default")]
        shape_roughness: f64,
        /// Surface roughness (small-scale ridges), 0 = smooth; about 0 to 0.3.
        #[serde(default = "surface_default")]
        surface_roughness: f64,
        /// Icosphere subdivisions (faces 20 x 4^detail), 0 to 7.
        #[serde(default = "detail_default")]
        detail: u32,
        #[serde(default)]
        seed: u64,
    },
    /// Leite's convex hull of a random point cloud in a cylinder (axis z).
    Hull {
        /// Cylinder radius, m.
        radius: f64,
        /// Cylinder height, m.
        height: f64,
        /// Points in the cloud (at least 4).
        #[serde(default = "points_default")]
        points: u32,
        /// Standard deviation of the radial distance, relative to the radius.
        #[serde(default = "sigma_default")]
        sigma_radial: f64,
        /// Standard deviation of the height, relative to the height.
        #[serde(default = "sigma_default")]
        sigma_height: f64,
        #[serde(default)]
        seed: u64,
    },
}

fn shape_default() -> f64 {
    0.25
}
fn surface_default() -> f64 {
    0.1
}
fn detail_default() -> u32 {
    4
}
fn points_default() -> u32 {
    60
}
fn sigma_default() -> f64 {
    0.15
}

impl RockParams {
    /// Checks the parameters; errors name the field.
    pub fn validate(&self) -> Result<(), AssetError> {
        let bad = |f: &str, why: String| Err(AssetError::param(format!("rock.{f}"), why));
        match self {
            RockParams::Noise {
                dimensions,
                shape_roughness,
                surface_roughness,
                detail,
                ..
            } => {
                if dimensions.iter().any(|d| !(*d > 0.0 && d.is_finite())) {
                    return bad(
                        "dimensions",
                        format!("must all be > 0 m, got {dimensions:?}"),
                    );
                }
                if !(0.0..=1.0).contains(shape_roughness) {
                    return bad(
                        "shape_roughness",
                        format!("must be 0 to 1, got {shape_roughness}"),
                    );
                }
                if !(0.0..=1.0).contains(surface_roughness) {
                    return bad(
                        "surface_roughness",
                        format!("must be 0 to 1, got {surface_roughness}"),
                    );
                }
                if *detail > 7 {
                    return bad("detail", format!("must be 0 to 7, got {detail}"));
                }
            }
            RockParams::Hull {
                radius,
                height,
                points,
                sigma_radial,
                sigma_height,
                ..
            } => {
                if !(*radius > 0.0) || !(*height > 0.0) {
                    return bad(
                        "radius",
                        format!("radius and height must be > 0 m, got {radius}, {height}"),
                    );
                }
                if !(4..=100_000).contains(points) {
                    return bad("points", format!("must be 4 to 100000, got {points}"));
                }
                if !(*sigma_radial >= 0.0) || !(*sigma_height >= 0.0) {
                    return bad("sigma_radial", "standard deviations must be >= 0".into());
                }
            }
        }
        Ok(())
    }
}

/// The unit icosphere after `detail` subdivisions (outward faces).
pub fn icosphere(detail: u32) -> TriMesh {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut m = TriMesh::default();
    for v in [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ] {
        m.vertices.push(Vector3::from(v).normalize());
    }
    m.triangles = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..detail {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::new();
        let mut tris = Vec::with_capacity(4 * m.triangles.len());
        let mut midpoint = |m: &mut TriMesh, a: u32, b: u32| -> u32 {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let v = (m.vertices[a as usize] + m.vertices[b as usize]).normalize();
                m.vertices.push(v);
                (m.vertices.len() - 1) as u32
            })
        };
        for k in 0..m.triangles.len() {
            let [a, b, c] = m.triangles[k];
            let (ab, bc, ca) = (
                midpoint(&mut m, a, b),
                midpoint(&mut m, b, c),
                midpoint(&mut m, c, a),
            );
            tris.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        m.triangles = tris;
    }
    m
}

/// A generated rock: its mesh (centre of mass at the origin) and mass properties.
#[derive(Debug, Clone)]
pub struct Rock {
    pub mesh: TriMesh,
    pub mass: MassProperties,
}

/// Generates the rock of `p`.
pub fn generate(p: &RockParams) -> Result<Rock, AssetError> {
    p.validate()?;
    let mut mesh = match p {
        RockParams::Noise {
            dimensions,
            shape_roughness,
            surface_roughness,
            detail,
            seed,
        } => {
            let mut m = icosphere(*detail);
            // two independent noise fields from the seed (noise seeds are u32)
            let s = (*seed ^ (*seed >> 32)) as u32;
            let shape = Fbm::<Perlin>::new(s).set_octaves(3).set_frequency(1.1);
            let surface = RidgedMulti::<Perlin>::new(s.wrapping_add(0x9e37_79b9))
                .set_octaves(4)
                .set_frequency(3.7);
            let half = Vector3::from(*dimensions) * 0.5;
            for v in m.vertices.iter_mut() {
                let u = [v.x, v.y, v.z];
                let f =
                    1.0 + shape_roughness * shape.get(u) + surface_roughness * 0.5 * surface.get(u);
                *v = v.component_mul(&half) * f.clamp(0.25, 2.0);
            }
            m
        }
        RockParams::Hull {
            radius,
            height,
            points,
            sigma_radial,
            sigma_height,
            seed,
        } => {
            let mut rng = ChaCha8Rng::seed_from_u64(*seed);
            let mut pts = Vec::with_capacity(*points as usize);
            for _ in 0..*points {
                let phi = rng.gen_range(0.0..std::f64::consts::TAU);
                let n1: f64 = rng.sample(StandardNormal);
                let n2: f64 = rng.sample(StandardNormal);
                let u: f64 = rng.gen_range(0.0..1.0);
                let rho = radius * (1.0 - sigma_radial * n1.abs()).clamp(0.0, 1.0);
                let z = height * ((u + sigma_height * n2).clamp(0.0, 1.0) - 0.5);
                pts.push([rho * pmath::cos(phi), rho * pmath::sin(phi), z]);
            }
            let m = TriMesh::convex_hull(&pts);
            if m.triangles.len() < 4 {
                return Err(AssetError::param(
                    "rock.points",
                    "the points are degenerate (no volume); use more points or larger sigmas",
                ));
            }
            m
        }
    };
    let mut mass = mass_properties(&mesh);
    if mass.volume < 0.0 {
        for t in mesh.triangles.iter_mut() {
            t.swap(1, 2);
        }
        mass = mass_properties(&mesh);
    }
    let c = Vector3::from(mass.center_of_mass);
    for v in mesh.vertices.iter_mut() {
        *v -= c;
    }
    let mass = mass_properties(&mesh);
    Ok(Rock { mesh, mass })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::io::check_closed_manifold;

    fn noise_rock(shape: f64, surface: f64, seed: u64) -> RockParams {
        RockParams::Noise {
            dimensions: [0.6, 0.4, 0.3],
            shape_roughness: shape,
            surface_roughness: surface,
            detail: 4,
            seed,
        }
    }

    #[test]
    fn a_smooth_noise_rock_is_the_ellipsoid() {
        let r = generate(&noise_rock(0.0, 0.0, 1)).unwrap();
        check_closed_manifold(&r.mesh).unwrap();
        let v = 4.0 / 3.0 * std::f64::consts::PI * 0.3 * 0.2 * 0.15;
        // an icosphere of 5120 faces holds 99.6 % of the sphere's volume
        assert!(
            (r.mass.volume / v - 1.0).abs() < 6e-3,
            "{}",
            r.mass.volume / v
        );
        assert!(Vector3::from(r.mass.center_of_mass).norm() < 1e-12);
        let i = r.mass.inertia(1.0);
        assert!((i[(2, 2)] / (v * (0.3f64.powi(2) + 0.2f64.powi(2)) / 5.0) - 1.0).abs() < 0.012);
    }

    #[test]
    fn rough_noise_rocks_are_closed_centred_and_about_their_size() {
        for (shape, surface) in [(0.2, 0.05), (0.4, 0.2), (0.6, 0.3)] {
            let r = generate(&noise_rock(shape, surface, 42)).unwrap();
            check_closed_manifold(&r.mesh).unwrap();
            assert!(r.mass.volume > 0.0);
            assert!(Vector3::from(r.mass.center_of_mass).norm() < 1e-12);
            let (lo, hi) = r.mesh.bounds();
            let size = hi - lo;
            for (s, d) in [size.x, size.y, size.z].iter().zip([0.6, 0.4, 0.3]) {
                assert!(
                    *s > 0.5 * d && *s < 2.0 * d,
                    "{size} for roughness {shape} {surface}"
                );
            }
        }
        // the seed matters; the same seed gives the same rock
        let a = generate(&noise_rock(0.3, 0.1, 1)).unwrap().mesh;
        let b = generate(&noise_rock(0.3, 0.1, 2)).unwrap().mesh;
        assert_ne!(a, b);
        assert_eq!(a, generate(&noise_rock(0.3, 0.1, 1)).unwrap().mesh);
    }

    #[test]
    fn a_hull_rock_is_convex_inside_its_cylinder() {
        let p = RockParams::Hull {
            radius: 0.3,
            height: 0.25,
            points: 80,
            sigma_radial: 0.2,
            sigma_height: 0.2,
            seed: 9,
        };
        let r = generate(&p).unwrap();
        check_closed_manifold(&r.mesh).unwrap();
        assert!(r.mass.volume > 0.0 && r.mass.volume < std::f64::consts::PI * 0.09 * 0.25);
        // convex: every vertex is behind every face plane
        let m = &r.mesh;
        for t in &m.triangles {
            let [a, b, c] = t.map(|k| m.vertices[k as usize]);
            let n = (b - a).cross(&(c - a)).normalize();
            for v in &m.vertices {
                assert!((v - a).dot(&n) < 1e-9);
            }
        }
        // within the cylinder (the mesh is centred on its centre of mass)
        let (lo, hi) = m.bounds();
        assert!(hi.z - lo.z <= 0.25 + 1e-12);
        assert!(hi.x - lo.x <= 0.6 + 1e-12 && hi.y - lo.y <= 0.6 + 1e-12);
    }
}
