//! PCM evaluation speed (issue 23), release build, one evaluation = penetration
//! detection and element forces of one pair (Hippmann 2023, Table 1 counts the same
//! per right-hand-side evaluation):
//! - `torus_sphere_rest`: section 4.1's pair with the ball at rest in the hole (torus
//!   base and E, 4,096 triangles; ball 500), target 74 us (10x the paper's 739 us);
//! - `torus_sphere_rest_e_ball`: the same with E on the ball (section 2.3's choice);
//! - `sphere_plane_f40`: a 32,000-triangle sphere pressed 1 cm into a plate (a large,
//!   finely scanned patch, about 300 active elements).
//! Box and ray test counts are printed beside (Fig. 6, 9).

use contact_fmu::models::pcm::law::Law;
use contact_fmu::models::pcm::mesh::PcmMesh;
use contact_fmu::models::pcm::pair::MeshPair;
use contact_fmu::models::pcm::primitives::{cuboid, geodesic_sphere, torus};
use contact_fmu::models::rigid_body::BodyMotion;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Isometry3, Vector3};
use std::hint::black_box;
use std::sync::Arc;

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

criterion_group!(benches, bench);
criterion_main!(benches);
