//! PCM evaluation speed (issue 23), release build, one evaluation = penetration
//! detection and element forces of one pair (Hippmann 2023, Table 1 counts the same
//! per right-hand-side evaluation):
//! - `torus_sphere_rest`: section 4.1's pair with the ball at rest in the hole (torus
//!   base and E, 4,096 triangles; ball 500), target 74 us (10x the paper's 739 us);
//! - `torus_sphere_rest_e_ball`: the same with E on the ball (section 2.3's choice);
//! - `sphere_plane_f40`: a 32,000-triangle sphere pressed 1 cm into a plate (a large,
//!   finely scanned patch, about 300 active elements).
//! - `pcm_bubbles/subdivisions_N`: section 4.2's bouncing bubbles
//!   (`examples/pcm_bouncing_bubbles.json`, six pairs) with the container subdivided
//!   N = 0..6 times, one model step of the whole world (three free bodies, six pairs)
//!   per iteration, averaged along the 1.2 s run (Table 2's CPU time per right-hand-side
//!   evaluation); target under 60 us at the best subdivision.
//! - `scout_18_feet`: section 4.3's load case, 18 foot-terrain pairs (six rimless
//!   wheels of three feet, each foot a cylinder segment of 576 triangles, the lowest
//!   foot of each wheel pressed 3 mm into a fractal terrain from the asset generator,
//!   128 x 128 cells = 32,768 triangles; E = 5e6 Pa, nu = 0.4, b = 0.01 m, u_max =
//!   0.01 m, d_l = 2e4, mu = 0.7), all 18 evaluated one after the other; target under
//!   100 us (the paper: 439 us on 4 cores).
//! Box and ray test counts are printed beside (Fig. 6, 9).

use contact_fmu::cosim::World;
use contact_fmu::models::pcm::law::Law;
use contact_fmu::models::pcm::mesh::PcmMesh;
use contact_fmu::models::pcm::pair::{MeshPair, TerrainGrid, TerrainPair};
use contact_fmu::models::pcm::primitives::{cuboid, cylinder_y, geodesic_sphere, torus};
use contact_fmu::rigid_body::BodyMotion;
use contact_fmu::geometry::terrain::Surface;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn still(z: f64) -> BodyMotion {
    BodyMotion {
        iso: Isometry3::translation(0.0, 0.0, z),
        v: Vector3::zeros(),
        w: Vector3::zeros(),
    }
}

fn bench(c: &mut Criterion) {
    let law = Law {
        c_l: 0.6 / 0.28 * 1e8,
        d_l: 1e4,
        mu: 0.3,
        v_reg: 0.01,
        damping_depth: 0.0,
        no_tensile: true,
    };
    let t = Arc::new(PcmMesh::new(&torus(1.0, 0.3, 64, 32)));
    let s = Arc::new(PcmMesh::new(&geodesic_sphere(1.0, 5)));
    let mut g = c.benchmark_group("pcm");
    // the ball resting on the tube ring (a few um deep: z from the test's rest state)
    let (mt, ms) = (still(0.0), still(0.8235));
    for (name, base_is_e) in [
        ("torus_sphere_rest", true),
        ("torus_sphere_rest_e_ball", false),
    ] {
        let mut pair = MeshPair::new(t.clone(), s.clone(), base_is_e, 0.03);
        let r = pair.evaluate(&mt, &ms, &law, 0.03);
        eprintln!(
            "{name}: {} active, {} box tests, {} ray tests, Fz {:.1} N",
            r.active, r.box_tests, r.ray_tests, r.force.z
        );
        g.bench_function(name, |b| {
            b.iter(|| black_box(pair.evaluate(&mt, &ms, &law, 0.03)))
        });
    }
    let big = Arc::new(PcmMesh::new(&geodesic_sphere(1.0, 40)));
    let ground = Arc::new(PcmMesh::new(&cuboid([2.0, 2.0, 0.2], 0.5)));
    let mut pair = MeshPair::new(big, ground, false, 0.03);
    let (ms, mg) = (still(0.99), still(-0.1));
    let r = pair.evaluate(&ms, &mg, &law, 0.03);
    eprintln!(
        "sphere_plane_f40: {} active, {} box tests, {} ray tests",
        r.active, r.box_tests, r.ray_tests
    );
    g.bench_function("sphere_plane_f40", |b| {
        b.iter(|| black_box(pair.evaluate(&ms, &mg, &law, 0.03)))
    });
    g.finish();
}

/// The bubbles world, initialized, with the container subdivided `sub` times.
fn bubbles_world(sub: u32) -> World {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut s = contact_fmu::scenario::load(&dir.join("pcm_bouncing_bubbles.json")).unwrap();
    let pcm = s.pcm.as_mut().unwrap();
    pcm.meshing.get_mut("container").unwrap().subdivisions = sub;
    let mut w = World::new(&s, Some(&dir)).unwrap();
    w.enter_initialization();
    w.exit_initialization().unwrap();
    w
}

/// The sum over the bubbles' six pairs of an Integer output `pcm.<pair>.<what>`.
fn pair_sum(w: &mut World, what: &str) -> f64 {
    let vrs: Vec<u32> = w
        .table()
        .variables
        .iter()
        .filter(|v| v.name.starts_with("pcm.") && v.name.ends_with(&format!(".{what}")))
        .map(|v| v.vr)
        .collect();
    let mut out = vec![0; vrs.len()];
    w.get_integers(&vrs, &mut out).unwrap();
    out.iter().map(|&x| x as f64).sum()
}

const BUBBLE_STEPS: usize = 12_000;

fn bubbles(c: &mut Criterion) {
    let mut g = c.benchmark_group("pcm_bubbles");
    g.sample_size(10);
    for sub in 0..=6 {
        // the counts along one run (Fig. 9)
        let mut w = bubbles_world(sub);
        let (mut boxes, mut rays, mut active) = (0.0, 0.0, 0.0);
        for _ in 0..BUBBLE_STEPS {
            w.do_step(1e-4).unwrap();
            boxes += pair_sum(&mut w, "box_tests");
            rays += pair_sum(&mut w, "ray_tests");
            active += pair_sum(&mut w, "active");
        }
        let n = BUBBLE_STEPS as f64;
        eprintln!(
            "bubbles, {} container triangles: per evaluation {:.0} box tests, {:.0} ray tests, {:.1} active elements",
            4 << (2 * sub),
            boxes / n,
            rays / n,
            active / n
        );
        let (mut w, mut k) = (bubbles_world(sub), 0);
        g.bench_function(format!("subdivisions_{sub}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    if k == BUBBLE_STEPS {
                        (w, k) = (bubbles_world(sub), 0);
                    }
                    let t0 = Instant::now();
                    w.do_step(1e-4).unwrap();
                    total += t0.elapsed();
                    k += 1;
                }
                total
            })
        });
    }
    g.finish();
}

fn scout(c: &mut Criterion) {
    let p: contact_fmu::assets::surface::SurfaceParams =
        serde_json::from_value(serde_json::json!({
            "extent": [-3.2, 3.2, -3.2, 3.2],
            "resolution": 0.05,
            "layers": [{ "type": "noise", "kind": "perlin", "fractal": "fbm", "octaves": 6,
                         "frequency": 1.0, "amplitude": 0.05, "seed": 7 }]
        }))
        .unwrap();
    let terrain =
        contact_fmu::assets::surface::Terrain::new(&p, std::path::Path::new(".")).unwrap();
    let surface = Surface::Field(Arc::new(terrain.grid(&p, &|_, _| {})));
    let grid = TerrainGrid::of(&surface, 0.05);
    let foot = Arc::new(PcmMesh::new(&cylinder_y(0.05, 0.1, 48, 0.02)));
    let (r, leg) = (0.05, 0.2);
    let law = Law {
        c_l: 0.6 / (1.4 * 0.2) * 5e6 / 0.01,
        d_l: 2e4,
        mu: 0.7,
        v_reg: 0.01,
        damping_depth: 0.0,
        no_tensile: true,
    };
    let mut feet = vec![];
    for (w, (x, y)) in [
        (-0.4, -0.35),
        (0.0, -0.35),
        (0.4, -0.35),
        (-0.4, 0.35),
        (0.0, 0.35),
        (0.4, 0.35),
    ]
    .into_iter()
    .enumerate()
    {
        // the wheel's phase: its lowest foot 0 to 50 degrees past the vertical
        let phase = (w as f64 * 10.0).to_radians();
        let lowest = |hub_z: f64| hub_z - leg * phase.cos();
        let fx = x + leg * phase.sin();
        let hub_z = surface.height_at(fx, y) + r - 0.003 - lowest(0.0);
        for k in 0..3 {
            let a = phase + k as f64 * 2.0 * std::f64::consts::PI / 3.0;
            let iso = Isometry3::from_parts(
                Translation3::new(x + leg * a.sin(), y, hub_z - leg * a.cos()),
                UnitQuaternion::from_axis_angle(&Vector3::y_axis(), a),
            );
            let motion = BodyMotion {
                iso,
                v: Vector3::new(0.2, 0.0, 0.0),
                w: Vector3::new(0.0, 2.0, 0.0),
            };
            feet.push((TerrainPair::new(foot.clone()), motion));
        }
    }
    let all = |feet: &mut Vec<(TerrainPair, BodyMotion)>| {
        let mut sum = (0u32, 0u64, 0u64, 0.0);
        for (pair, m) in feet.iter_mut() {
            let r = pair.evaluate(m, &surface, &grid, &law, 0.01);
            sum = (
                sum.0 + r.active,
                sum.1 + r.box_tests,
                sum.2 + r.ray_tests,
                sum.3 + r.force.z,
            );
        }
        sum
    };
    let (active, boxes, rays, fz) = all(&mut feet);
    eprintln!(
        "scout_18_feet: {} triangles per foot, {active} active, {boxes} box tests, {rays} ray tests, Fz {fz:.0} N",
        foot.len()
    );
    c.bench_function("pcm/scout_18_feet", |b| {
        b.iter(|| black_box(all(&mut feet)))
    });
}

criterion_group!(benches, bench, bubbles, scout);
criterion_main!(benches);
