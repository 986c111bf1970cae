//! Asset generator speed (issue 6), release build:
//! - `surface_100m_5cm`: a 100 m x 100 m Perlin fBm surface (6 octaves) sampled at
//!   5 cm: 2001 x 2001 = 4 million heights (target < 2 s);
//! - `rockfield_10k`: about 10,000 rocks placed on that surface (Golombek-Rapp,
//!   k = 0.05, D from 0.1 to 2 m; noise rocks, 16 prototypes), resting on the noise
//!   surface itself (target < 5 s).
//!
//! File writing is not timed (it is disk speed).

use contact_fmu::assets::rock::RockParams;
use contact_fmu::assets::rockfield::{self, FieldLayout, RocksParams};
use contact_fmu::assets::surface::{Fractal, Layer, NoiseKind, SurfaceParams, Terrain};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn surface() -> SurfaceParams {
    SurfaceParams {
        layers: vec![Layer::Noise {
            kind: NoiseKind::Perlin,
            fractal: Fractal::Fbm,
            octaves: 6,
            frequency: 0.05,
            amplitude: 2.0,
            lacunarity: 2.0,
            persistence: 0.5,
            seed: 1,
        }],
        extent: [0.0, 100.0, 0.0, 100.0],
        resolution: 0.05,
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("assets");
    g.sample_size(10);
    let p = surface();
    g.bench_function("surface_100m_5cm", |b| {
        b.iter(|| {
            let t = Terrain::new(&p, Path::new(".")).unwrap();
            t.grid(&p, &|_, _| {})
        })
    });
    let grid = Terrain::new(&p, Path::new("."))
        .unwrap()
        .grid(&p, &|_, _| {});
    eprintln!(
        "surface: {} x {} = {} heights",
        grid.nx,
        grid.ny,
        grid.h.len()
    );
    let rocks = RocksParams {
        surface: p.clone(),
        k: 0.05,
        d_min: 0.1,
        d_max: 2.0,
        rock: RockParams::Noise {
            dimensions: [1.0, 0.8, 0.6],
            shape_roughness: 0.3,
            surface_roughness: 0.1,
            detail: 2,
            seed: 0,
        },
        prototypes: 16,
        attempts: 100,
        density: 2600.0,
        seed: 7,
        layout: FieldLayout::Merged,
    };
    let f = rockfield::generate(&rocks, Path::new("."), &|_, _| {}).unwrap();
    eprintln!(
        "rock field: {} rocks placed, {} unplaced",
        f.rocks.len(),
        f.unplaced
    );
    g.bench_function("rockfield_10k", |b| {
        b.iter(|| rockfield::generate(&rocks, Path::new("."), &|_, _| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
