//! Issue 50: mutation fuzzing of the files a user hands us besides scenarios. Mesh
//! files (OBJ, ASCII and binary STL, ASCII and binary PLY) damaged byte by byte go
//! through the mesh readers as `check` reads a PCM body's file; fit descriptions
//! (the examples', mutated as JSON) and measurement CSVs go through what `contact-fmu
//! fit` does before its first evaluation (parse, field checks, the checks against the
//! model, the CSV reader). Each input is accepted or refused with a message; a panic,
//! a case slower than [`CASE_LIMIT`] or a memory peak beyond [`MEMORY_LIMIT_MB`] fails.
//!
//! CI runs [`CI_CASES`] cases of each with a fixed seed; FILE_FUZZ_CASES and
//! FILE_FUZZ_SEED run more locally. The coverage-guided variants are the cargo fuzz
//! targets `mesh` and `fit` (docs/hardening.md).

#[path = "common/mutate.rs"]
mod mutate;

use contact_fmu::assets::io::{obj_string, write_ply, write_stl};
use contact_fmu::assets::mesh_read::{mesh_from_bytes, MeshFormat};
use contact_fmu::fit::{preflight, spec, FitSpec, Model};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Cases of each kind in the CI run.
const CI_CASES: usize = 20_000;
/// The longest one case may take (release build).
const CASE_LIMIT: Duration = Duration::from_secs(5);
/// The resident memory peak the whole run may reach.
const MEMORY_LIMIT_MB: u64 = 1024;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases_and_seed() -> (usize, u64) {
    let get = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    (
        get("FILE_FUZZ_CASES").map_or(CI_CASES, |n| n as usize),
        get("FILE_FUZZ_SEED").unwrap_or(50),
    )
}

fn peak_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0)
        / 1024
}

/// Runs `case` under catch_unwind: Ok(refused?) or the panic's message.
fn guarded<T>(case: impl FnOnce() -> Result<T, String>) -> Result<Option<String>, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(case)) {
        Ok(Ok(_)) => Ok(None),
        Ok(Err(m)) => Ok(Some(m)),
        Err(p) => Err(p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()),
    }
}

/// The seeds: one small torus in every format and encoding we read.
fn mesh_seeds() -> Vec<(MeshFormat, Vec<u8>)> {
    let mesh = contact_fmu::models::pcm::primitives::torus(1.0, 0.3, 6, 4);
    let mut stl = vec![];
    write_stl(&mesh, &mut stl).unwrap();
    let mut ply = vec![];
    write_ply(&mesh, &mut ply).unwrap();
    let mut ascii_stl = String::from("solid t\n");
    let mut ascii_ply = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        mesh.vertices.len(),
        mesh.triangles.len()
    );
    for v in &mesh.vertices {
        ascii_ply += &format!("{} {} {}\n", v.x, v.y, v.z);
    }
    for t in &mesh.triangles {
        ascii_stl += "facet normal 0 0 0\nouter loop\n";
        for k in t {
            let v = mesh.vertices[*k as usize];
            ascii_stl += &format!("vertex {} {} {}\n", v.x, v.y, v.z);
        }
        ascii_stl += "endloop\nendfacet\n";
        ascii_ply += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    ascii_stl += "endsolid t\n";
    vec![
        (MeshFormat::Obj, obj_string(&mesh, &["seed".into()]).into_bytes()),
        (MeshFormat::Stl, stl),
        (MeshFormat::Stl, ascii_stl.into_bytes()),
        (MeshFormat::Ply, ply),
        (MeshFormat::Ply, ascii_ply.into_bytes()),
    ]
}

/// Byte-level damage: a byte changed, a range cut, repeated or cut off, a token or a
/// large count put in.
fn damage(b: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    const TOKENS: &[&[u8]] = &[
        b"nan", b"-1", b"0", b"1e308", b"-1e308", b"99999999999", b"4294967295", b"f ", b"v ",
        b"\\\n", b"\n", b"facet", b"endloop", b"vertex", b"element vertex 4294967295\n",
        b"property list uchar int vertex_indices\n", b"end_header\n", b"\xff\xfe", b"\0",
        b"f 1 2 -9\n", b"f 1\n", b"solid", b"property double x\n", b"comment\n",
    ];
    let at = |b: &Vec<u8>, rng: &mut ChaCha8Rng| rng.gen_range(0..=b.len());
    match rng.gen_range(0..7) {
        0 if !b.is_empty() => {
            let i = rng.gen_range(0..b.len());
            b[i] = rng.gen();
        }
        1 => {
            let i = at(b, rng);
            let j = (i + rng.gen_range(0..64)).min(b.len());
            b.drain(i..j);
        }
        2 => {
            let i = at(b, rng);
            let j = (i + rng.gen_range(0..256)).min(b.len());
            let piece = b[i..j].to_vec();
            let k = at(b, rng);
            b.splice(k..k, piece);
        }
        3 => {
            let i = at(b, rng);
            b.truncate(i);
        }
        4 => {
            let t = TOKENS[rng.gen_range(0..TOKENS.len())];
            let k = at(b, rng);
            b.splice(k..k, t.iter().copied());
        }
        5 if b.len() >= 4 => {
            // a large little-endian count where a binary count or index may be
            let i = rng.gen_range(0..=b.len() - 4);
            let x: u32 = [u32::MAX, 1 << 30, 0, 7, rng.gen()][rng.gen_range(0..5)];
            b[i..i + 4].copy_from_slice(&x.to_le_bytes());
        }
        _ => {
            let t = TOKENS[rng.gen_range(0..TOKENS.len())];
            let i = at(b, rng);
            let j = (i + t.len()).min(b.len());
            b.splice(i..j, t.iter().copied());
        }
    }
}

#[test]
fn damaged_mesh_files_are_read_or_refused_never_a_panic() {
    let (cases, seed) = cases_and_seed();
    let seeds = mesh_seeds();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut accepted, mut refused) = (0, 0);
    let mut failures = vec![];
    let mut slowest = Duration::ZERO;
    for case in 0..cases {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1_000_003) ^ case as u64);
        let (format, bytes) = &seeds[rng.gen_range(0..seeds.len())];
        let mut b = bytes.clone();
        for _ in 0..rng.gen_range(1..5) {
            damage(&mut b, &mut rng);
        }
        let t = Instant::now();
        let r = guarded(|| mesh_from_bytes(*format, &b, 1.0));
        let took = t.elapsed();
        slowest = slowest.max(took);
        match r {
            Ok(None) => accepted += 1,
            Ok(Some(m)) => {
                refused += 1;
                if m.is_empty() || m.len() > 2000 {
                    failures.push(format!("case {case} ({format:?}): a message of {} bytes: {m:.300}", m.len()));
                }
            }
            Err(p) => failures.push(format!("case {case} ({format:?}): panic: {p}")),
        }
        if took > CASE_LIMIT {
            failures.push(format!("case {case} ({format:?}): {took:?}"));
        }
        if failures.len() == 1 {
            let dir = root().join("target/file-fuzz");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("mesh-{case}.{format:?}")), &b).unwrap();
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "mesh fuzz: {cases} cases (seed {seed}): {accepted} read, {refused} refused, slowest {slowest:?}, peak {} MB",
        peak_mb()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(accepted > cases / 50 && refused > cases / 2, "{accepted} {refused}");
    assert!(peak_mb() < MEMORY_LIMIT_MB, "peak {} MB", peak_mb());
}

/// Strings a fit mutation may put where a string was.
const FIT_NAMES: &[&str] = &[
    "terra.k_c", "terra.k_exp", "terra.k_s0", "wheel.sinkage", "wheel.z0", "wheel.fz",
    "terra.nope", "", "terra_drop.json", "scm_drop.json", "missing.json", "../fit/terra_drop.json",
    "mean", "series", "m.csv",
];

#[test]
fn mutated_fit_descriptions_and_measurements_are_checked_or_refused_never_a_panic() {
    let (cases, seed) = cases_and_seed();
    let dir = root().join("examples/fit");
    let mut seeds: Vec<(String, Value)> = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("_fit.json") {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            seeds.push((name, v));
        }
    }
    seeds.sort_by(|a, b| a.0.cmp(&b.0));
    // a measurements CSV to damage, with the description that reads it
    let csv = "case,t,sinkage\nz0 = 1.1 r,2.0,0.01\nz0 = 1.1 r,2.5,0.012\nz0 = 2 r,2.0,0.02\n";
    let work = tempfile::tempdir().unwrap();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut checked, mut refused, mut csv_read) = (0, 0, 0);
    let mut failures = vec![];
    let mut models: std::collections::BTreeMap<String, Option<Model>> = Default::default();
    let t0 = Instant::now();
    for case in 0..cases {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1_000_003) ^ case as u64);
        let (name, v) = &seeds[rng.gen_range(0..seeds.len())];
        let mut v = v.clone();
        for _ in 0..rng.gen_range(1..4) {
            mutate::mutate(&mut v, &seeds, FIT_NAMES, &mut rng);
        }
        let mut text = serde_json::to_string(&v).unwrap();
        if rng.gen_range(0..6) == 0 {
            mutate::garble(&mut text, &mut rng);
        }
        let mut csv_bytes = csv.as_bytes().to_vec();
        for _ in 0..rng.gen_range(0..3) {
            damage(&mut csv_bytes, &mut rng);
        }
        let csv_path = work.path().join("m.csv");
        std::fs::write(&csv_path, &csv_bytes).unwrap();
        let t = Instant::now();
        let r = guarded(|| {
            let spec = FitSpec::parse(&text)?;
            // the model the description names (loaded once per name)
            let model = models
                .entry(spec.model.clone())
                .or_insert_with(|| Model::load(&dir.join(&spec.model)).ok())
                .as_ref()
                .ok_or("the model does not load")?;
            preflight::check(&spec, model, &spec.model)
        });
        let time_column = if rng.gen() { Some("t") } else { None };
        let csv = guarded(|| {
            let m: spec::Measurements = serde_json::from_value(serde_json::json!({
                "file": "m.csv", "value_column": "sinkage", "time_column": time_column }))
            .map_err(|e| e.to_string())?;
            spec::read_measurements(&csv_path, &m)
        });
        let took = t.elapsed();
        match csv {
            Ok(None) => csv_read += 1,
            Ok(Some(_)) => {}
            Err(p) => failures.push(format!("case {case}: CSV reader panic: {p}")),
        }
        match r {
            Ok(None) => checked += 1,
            Ok(Some(m)) => {
                refused += 1;
                if m.is_empty() || m.len() > 5000 {
                    failures.push(format!("case {case} (from {name}): a message of {} bytes: {m:.300}", m.len()));
                }
            }
            Err(p) => failures.push(format!("case {case} (from {name}): panic: {p}\n{text:.2000}")),
        }
        if took > CASE_LIMIT {
            failures.push(format!("case {case} (from {name}): {took:?}\n{text:.2000}"));
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "fit fuzz: {cases} cases (seed {seed}) in {:?}: {checked} descriptions passed every check, {refused} refused; {csv_read} CSVs read, the rest refused; peak {} MB",
        t0.elapsed(),
        peak_mb()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 0 && refused > cases / 2, "{checked} {refused}");
    assert!(peak_mb() < MEMORY_LIMIT_MB, "peak {} MB", peak_mb());
}
