//! Shared test helpers: package an example, load it back through the real FMI 2.0 C
//! API (the `fmi` crate), look up value references by name.
#![allow(dead_code)]

use contact_fmu::cosim::variables::{Phase, VarType};
use contact_fmu::cosim::World;
use contact_fmu::packager;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::traits::FmiImport;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The runtime cdylib built with the tests (dev-dependency `contact-fmu-runtime`).
pub fn runtime() -> PathBuf {
    packager::find_runtime(None).expect("the runtime cdylib is built with the tests")
}

/// Packages `examples/<name>.json` into a fresh temporary folder.
pub fn package_example(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let fmu = packager::package(
        &root().join("examples").join(format!("{name}.json")),
        dir.path(),
        &runtime(),
    )
    .unwrap();
    (dir, fmu)
}

/// The `.fmu` files in `dir`, sorted.
pub fn fmus_in(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fmu"))
        .collect();
    v.sort();
    v
}

/// Loads an FMU through the `fmi` crate.
pub fn load(fmu: &Path) -> Fmi2Import {
    fmi::import::from_path::<Fmi2Import>(fmu).unwrap()
}

/// Value reference of the variable `name`.
pub fn vr(import: &Fmi2Import, name: &str) -> u32 {
    import
        .model_description()
        .model_variable_by_name(name)
        .unwrap_or_else(|_| panic!("no variable {name}"))
        .value_reference
}

/// Value references of `name[1..=n]`.
pub fn vrs(import: &Fmi2Import, name: &str, n: usize) -> Vec<u32> {
    (1..=n)
        .map(|i| vr(import, &format!("{name}[{i}]")))
        .collect()
}

/// Instantiates and initializes at t = 0 (no stop time).
pub fn start(import: &Fmi2Import, name: &str) -> InstanceCS {
    let mut inst = import.instantiate_cs(name, false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    inst
}

/// Reads Real values.
pub fn get(inst: &mut InstanceCS, vrs: &[u32]) -> Vec<f64> {
    let mut out = vec![0.0; vrs.len()];
    Common::get_real(inst, vrs, &mut out).unwrap();
    out
}

/// Steps from `t` by `h`, panicking on an error status.
pub fn step(inst: &mut InstanceCS, t: f64, h: f64) {
    CoSimulation::do_step(inst, t, h, true).unwrap();
}

/// Sets the variable `name` of an in-process World (Real, Integer or Boolean).
pub fn world_set(w: &mut World, name: &str, x: f64, phase: Phase) {
    let var = w
        .table()
        .by_name(name)
        .unwrap_or_else(|| panic!("no variable {name}"))
        .clone();
    match var.ty {
        VarType::Real => w.set_reals(&[var.vr], &[x], phase).unwrap(),
        VarType::Integer => w.set_integers(&[var.vr], &[x as i32], phase).unwrap(),
        VarType::Boolean => w.set_booleans(&[var.vr], &[x != 0.0], phase).unwrap(),
        VarType::String => unreachable!(),
    }
}

/// Reads the variable `name` of an in-process World (Real or Integer).
pub fn world_get(w: &mut World, name: &str) -> f64 {
    let var = w.table().by_name(name).unwrap().clone();
    match var.ty {
        VarType::Real => {
            let mut o = [0.0];
            w.get_reals(&[var.vr], &mut o).unwrap();
            o[0]
        }
        VarType::Integer => {
            let mut o = [0];
            w.get_integers(&[var.vr], &mut o).unwrap();
            o[0] as f64
        }
        _ => unreachable!(),
    }
}

/// The rig of scenario `s` (assets relative to `dir`) climbing at a steady speed:
/// slip-controlled at `rig.omega` 1 rad/s and `rig.vx` 0.2 m/s for 4 s (10 ms
/// steps); returns the mean `wheel.Fz` (N) and `wheel.vz` (m/s) over the last second.
pub fn rig_climb(s: &contact_fmu::scenario::Scenario, dir: Option<&Path>) -> (f64, f64) {
    let mut w = World::new(s, dir).unwrap();
    w.enter_initialization();
    world_set(&mut w, "rig.omega", 1.0, Phase::Initialization);
    world_set(&mut w, "rig.vx", 0.2, Phase::Initialization);
    w.exit_initialization().unwrap();
    let (mut fz, mut vz) = (0.0, 0.0);
    for k in 0..400 {
        w.do_step(0.01).unwrap();
        if k >= 300 {
            fz += world_get(&mut w, "wheel.Fz") / 100.0;
            vz += world_get(&mut w, "wheel.vz") / 100.0;
        }
    }
    (fz, vz)
}
